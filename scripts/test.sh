#!/usr/bin/env bash
# npm test                  typecheck, lint and format check, unit tests, migration drift check, build, end-to-end
#                           suite (standalone mode).
#                           Needs Node and npm only: the database is the embedded one.
# npm run test:browser      (not here) the console and the widget in headless Chromium (/usr/bin/chromium or
#                           CHROMIUM_PATH); run after a build.
# npm run test:distributed  build, integration tests and the same end-to-end suite against the five apps as separate
#                           processes over NATS and PostgreSQL (NATS_URL, PG_URL; defaults: the local ones); the
#                           static checks are npm test's.
# npm run test:deploy       (not here) the compose and Kubernetes manifest checks under test/deploy/; needs kubectl.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-standalone}
[ -d node_modules ] || npm install --no-audit --no-fund

if [ "$mode" = standalone ]; then
  # The static checks do not depend on the mode: `npm test` runs them, the distributed run does not repeat them.
  echo "== typecheck"
  npm run --silent typecheck
  echo "== lint and format"
  npx eslint .
  npx prettier --check . --log-level warn
fi
echo "== build"
npm run --silent build

if [ "$mode" = standalone ]; then
  echo "== unit tests"
  npx jest --ci
  echo "== migration drift (embedded PostgreSQL)"
  node dist/launcher/src/check-migrations.js
  echo "== end-to-end (standalone)"
  E2E_MODE=standalone npx jest --ci -c test/e2e/jest.config.js
else
  echo "== migration drift (PostgreSQL)"
  node dist/launcher/src/check-migrations.js --postgres
  echo "== integration tests (PostgreSQL, NATS)"
  npx jest --ci -c jest.int.config.js
  echo "== end-to-end (distributed)"
  E2E_MODE=distributed npx jest --ci -c test/e2e/jest.config.js
fi
