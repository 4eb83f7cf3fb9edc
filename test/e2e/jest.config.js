/** End-to-end suite: drives the built service over HTTP (E2E_MODE=standalone|distributed). */
const path = require('node:path');

module.exports = {
  rootDir: path.resolve(__dirname, '..', '..'),
  testEnvironment: 'node',
  testMatch: ['<rootDir>/test/e2e/**/*.e2e-spec.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest'] },
  moduleNameMapper: {
    '^@askdata/contracts$': '<rootDir>/libs/contracts/src',
    '^@askdata/common$': '<rootDir>/libs/common/src',
  },
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  testTimeout: 90000,
  maxWorkers: 2,
};
