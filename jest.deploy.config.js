/**
 * The deployment checks (`npm run test:deploy`): every spec under test/deploy/, against docker-compose.yml, the
 * Dockerfile and the Kubernetes manifests as `kubectl kustomize` renders them (kubectl must be on the PATH:
 * scripts/ensure-services.sh installs it). Kept out of `npm test`, which needs Node and npm only.
 */
const unit = require('./jest.config');

module.exports = {
  ...unit,
  testMatch: ['<rootDir>/test/deploy/**/*.spec.ts'],
};
