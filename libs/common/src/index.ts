export * from './config';
export * from './bus';
export * from './database';
export * from './validation';
export * from './service/service-app';
export * from './service/runtime';
export * from './observability';
export * from './ops';
