/**
 * Browser suite: the console and the widget driven in headless Chromium (playwright-core) against the built service
 * (run `npm run build` first), started once for the run as the end-to-end suite starts it.
 *   npx jest -c test/browser/jest.config.js
 * Needs Chromium (/usr/bin/chromium, or CHROMIUM_PATH); without it the run fails and says how to install it.
 * Screenshots go to test-artifacts/screenshots/ (not committed).
 */
const path = require('node:path');
const e2e = require('../e2e/jest.config.js');

module.exports = {
  ...e2e,
  rootDir: path.resolve(__dirname, '..', '..'),
  testMatch: ['<rootDir>/test/browser/**/*.browser-spec.ts'],
  globalSetup: '<rootDir>/test/browser/global-setup.ts',
  testTimeout: 60000,
  maxWorkers: 1,
};
