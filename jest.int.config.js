/** Integration tests against the real PostgreSQL and NATS of the machine (`*.int-spec.ts`). */
const unit = require('./jest.config');

module.exports = {
  ...unit,
  testMatch: ['<rootDir>/apps/**/*.int-spec.ts', '<rootDir>/libs/**/*.int-spec.ts', '<rootDir>/test/integration/**/*.int-spec.ts'],
  maxWorkers: 1,
  testTimeout: 120000,
};
