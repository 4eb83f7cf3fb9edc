export * from './service-error';
export * from './in-process.transport';
export * from './bus.options';
export * from './bus-client';
export * from './bus.module';
export * from './bus-exception.filter';
export * from './json-copy';
export * from './deadline';
