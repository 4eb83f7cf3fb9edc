export * from './request-context';
export * from './json-logger';
export * from './metrics';
export * from './bus-context.interceptor';
