export * from './readiness';
export * from './ops.module';
