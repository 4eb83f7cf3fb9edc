#!/usr/bin/env bash
# Runs the five apps as separate processes against PostgreSQL and NATS (the local ones by default):
# builds, creates the database if needed, migrates, starts gateway, ingestion, catalog, retrieval and
# conversation, and stops them all on Ctrl-C. Logs go to $LOG_DIR (default ./data/logs).
# The gateway serves the API on $PORT (3000) and /admin, /metrics and /health on $ADMIN_PORT (9464); each service
# serves its health and metrics on a port of its own, $HEALTH_PORT_BASE (9465) and the next three: ingestion,
# catalog, retrieval, conversation.
set -euo pipefail
cd "$(dirname "$0")/.."
export DATABASE_URL=${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/askdata}
export NATS_URL=${NATS_URL:-nats://127.0.0.1:4222}
export PORT=${PORT:-3000}
export ADMIN_PORT=${ADMIN_PORT:-9464}
HEALTH_PORT_BASE=${HEALTH_PORT_BASE:-$((ADMIN_PORT + 1))}
if [ -z "${ADMIN_TOKEN:-}" ]; then
  ADMIN_TOKEN="adm_$(node -e 'process.stdout.write(require("crypto").randomBytes(24).toString("base64url"))')"
  echo "Admin token: $ADMIN_TOKEN"
fi
export ADMIN_TOKEN
LOG_DIR=${LOG_DIR:-./data/logs}
mkdir -p "$LOG_DIR"

npm run --silent build
node dist/launcher/src/migrate.js --create-database

health_port() {
  case "$1" in
    ingestion) echo $((HEALTH_PORT_BASE)) ;;
    catalog) echo $((HEALTH_PORT_BASE + 1)) ;;
    retrieval) echo $((HEALTH_PORT_BASE + 2)) ;;
    conversation) echo $((HEALTH_PORT_BASE + 3)) ;;
  esac
}

apps=(catalog retrieval ingestion conversation gateway)
pids=()
cleanup() { kill "${pids[@]}" 2>/dev/null || true; wait 2>/dev/null || true; }
trap cleanup EXIT
trap 'exit 0' INT TERM
for app in "${apps[@]}"; do
  if [ "$app" = gateway ]; then
    node dist/launcher/src/main.js "$app" >"$LOG_DIR/$app.log" 2>&1 &
  else
    HEALTH_PORT=$(health_port "$app") node dist/launcher/src/main.js "$app" >"$LOG_DIR/$app.log" 2>&1 &
  fi
  pids+=($!)
done
healthy() { node -e 'fetch(process.argv[1]).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))' "http://127.0.0.1:$ADMIN_PORT/health"; }
for _ in $(seq 1 120); do
  for i in "${!pids[@]}"; do
    if ! kill -0 "${pids[$i]}" 2>/dev/null; then
      echo "${apps[$i]} exited while starting; see $LOG_DIR/${apps[$i]}.log:" >&2
      tail -n 5 "$LOG_DIR/${apps[$i]}.log" >&2
      exit 1
    fi
  done
  if healthy; then
    echo "askdata (distributed) listening on http://127.0.0.1:$PORT/v1 (admin API, metrics, health: http://127.0.0.1:$ADMIN_PORT); logs in $LOG_DIR"
    echo "Create a project: ADMIN_TOKEN=... ADMIN_PORT=$ADMIN_PORT npm run admin -- projects create --name demo"
    wait -n "${pids[@]}" || true
    echo "an app exited; see $LOG_DIR" >&2
    exit 1
  fi
  sleep 0.5
done
echo "the apps did not become healthy; see $LOG_DIR" >&2
exit 1
