#!/usr/bin/env bash
# Runs the five apps as separate processes against PostgreSQL and NATS (the local ones by default):
# builds, creates the database if needed, migrates, starts gateway, ingestion, catalog, retrieval and
# conversation, and stops them all on Ctrl-C. Logs go to $LOG_DIR (default ./data/logs).
set -euo pipefail
cd "$(dirname "$0")/.."
export DATABASE_URL=${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/askdata}
export NATS_URL=${NATS_URL:-nats://127.0.0.1:4222}
export PORT=${PORT:-3000}
# The gateway's admin port (/admin, /metrics, /health); each bus service's health port follows it.
export ADMIN_PORT=${ADMIN_PORT:-9464}
if [ -z "${ADMIN_TOKEN:-}" ]; then
  ADMIN_TOKEN="adm_$(node -e 'process.stdout.write(require("crypto").randomBytes(24).toString("base64url"))')"
  echo "Admin token: $ADMIN_TOKEN"
fi
export ADMIN_TOKEN
LOG_DIR=${LOG_DIR:-./data/logs}
mkdir -p "$LOG_DIR"

npm run --silent build
node dist/launcher/src/migrate.js --create-database

pids=()
cleanup() { kill "${pids[@]}" 2>/dev/null || true; wait 2>/dev/null || true; }
trap cleanup EXIT INT TERM
health_port=$ADMIN_PORT
for app in catalog retrieval ingestion conversation gateway; do
  health_port=$((health_port + 1))
  HEALTH_PORT=$health_port node dist/launcher/src/main.js "$app" >"$LOG_DIR/$app.log" 2>&1 &
  pids+=($!)
done
for _ in $(seq 1 120); do
  if curl -fsS "http://127.0.0.1:$ADMIN_PORT/health" >/dev/null 2>&1; then
    echo "askdata (distributed) listening on http://127.0.0.1:$PORT/v1 (admin API, metrics, health: http://127.0.0.1:$ADMIN_PORT); logs in $LOG_DIR"
    echo "Create a project: ADMIN_TOKEN=... ADMIN_PORT=$ADMIN_PORT npm run admin -- projects create --name demo"
    wait -n "${pids[@]}"
    echo "an app exited; see $LOG_DIR" >&2
    exit 1
  fi
  sleep 0.5
done
echo "the apps did not become healthy; see $LOG_DIR" >&2
exit 1
