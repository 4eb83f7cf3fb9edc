/** Unit tests next to the code. End-to-end (test/e2e), integration and deployment checks have configs of their own. */
module.exports = {
  rootDir: '.',
  testEnvironment: 'node',
  testMatch: [
    '<rootDir>/apps/**/*.spec.ts',
    '<rootDir>/libs/**/*.spec.ts',
    '<rootDir>/launcher/**/*.spec.ts',
    '<rootDir>/test/*.spec.ts',
    '<rootDir>/test/stand-ins/*.spec.ts',
    '<rootDir>/packages/*/src/**/*.spec.ts',
  ],
  transform: { '^.+\\.ts$': ['@swc/jest'] },
  moduleNameMapper: {
    '^@askdata/contracts$': '<rootDir>/libs/contracts/src',
    '^@askdata/common$': '<rootDir>/libs/common/src',
    '^@askdata/common/(.*)$': '<rootDir>/libs/common/src/$1',
    '^@askdata/client$': '<rootDir>/packages/client/src',
    // The client package is ESM and names its imports' files as they are built (`./errors.js`): the sources here.
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  testTimeout: 30000,
  // Every core: jest's default leaves one idle, half of a two-core machine.
  maxWorkers: '100%',
};
