export * from './time-slices';
export * from './wake-up';
