export * from './time-slices';
export * from './thread-calls';
