export * from './time-slices';
