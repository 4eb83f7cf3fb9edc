export * from './time-slices';
export * from './wake-up';
export * from './thread-calls';
export * from './refreshed-values';
export * from './lean-bind';
