export * from './env';
export * from './settings';
export * from './common.config';
