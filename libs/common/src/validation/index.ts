export * from './flatten';
