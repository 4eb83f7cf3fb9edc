/**
 * End-to-end suite: drives the built service (run `npm run build` first) over HTTP, as a client would.
 *   npx jest -c test/e2e/jest.config.js                         standalone (default)
 *   E2E_MODE=distributed npx jest -c test/e2e/jest.config.js    five processes over local NATS and PostgreSQL
 * One service is started for the whole run (test/support/global-setup.ts); every file works in projects of its own.
 */
const path = require('node:path');

module.exports = {
  rootDir: path.resolve(__dirname, '..', '..'),
  testEnvironment: 'node',
  testMatch: ['<rootDir>/test/e2e/**/*.e2e-spec.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest'] },
  moduleNameMapper: {
    '^@askdata/contracts$': '<rootDir>/libs/contracts/src',
    '^@askdata/common$': '<rootDir>/libs/common/src',
    '^@askdata/common/(.*)$': '<rootDir>/libs/common/src/$1',
    '^@askdata/client$': '<rootDir>/packages/client/src',
    // The client package is ESM and names its imports' files as they are built (`./errors.js`): the sources here.
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  testTimeout: 60000,
  maxWorkers: 2,
};
