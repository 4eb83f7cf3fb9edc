#!/usr/bin/env bash
# npm test                  typecheck, lint and format check, unit tests, migration drift check, build, end-to-end
#                           suite (standalone mode), browser suite (console and widget in headless Chromium).
#                           Needs Node and npm only: the database is the embedded one. The browser suite also needs
#                           Chromium (/usr/bin/chromium or CHROMIUM_PATH): without it, it fails saying how to install
#                           it; ASKDATA_BROWSER_TESTS=off leaves it out, and says so.
# npm run test:distributed  integration tests and the same end-to-end suite against the five apps as separate
#                           processes over NATS and PostgreSQL (NATS_URL, PG_URL; defaults: the local ones).
# npm run test:deploy       (not here) the compose and Kubernetes manifest checks under test/deploy/; needs kubectl.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-standalone}
[ -d node_modules ] || npm install --no-audit --no-fund
chromium=${CHROMIUM_PATH:-/usr/bin/chromium}
if [ "$mode" = standalone ] && [ "${ASKDATA_BROWSER_TESTS:-}" != off ] && [ ! -x "$chromium" ]; then
  # Said at once rather than after the other suites.
  echo "The browser tests need Chromium at $chromium, which is missing. Install it (Debian or Ubuntu:" \
    "sudo apt-get install -y chromium), or set CHROMIUM_PATH, or ASKDATA_BROWSER_TESTS=off to leave them out." >&2
  exit 1
fi

echo "== typecheck"
npx tsc -p tsconfig.json
npx tsc -p packages/client/tsconfig.json
npx tsc -p packages/web/tsconfig.json
if [ "$mode" = standalone ]; then
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
  echo "== browser (console and widget in headless Chromium)"
  if [ "${ASKDATA_BROWSER_TESTS:-}" = off ]; then
    echo "left out: ASKDATA_BROWSER_TESTS=off"
  else
    npx jest --ci -c test/browser/jest.config.js
  fi
else
  echo "== migration drift (PostgreSQL)"
  node dist/launcher/src/check-migrations.js --postgres
  echo "== integration tests (PostgreSQL, NATS)"
  npx jest --ci -c jest.int.config.js
  echo "== end-to-end (distributed)"
  E2E_MODE=distributed npx jest --ci -c test/e2e/jest.config.js
fi
