export * from './database-errors';
export * from './time';
export * from './uuid';
export * from './data-source';
export * from './database.module';
export * from './query-rows';
export * from './shared-pool';
export * from './prepared';
