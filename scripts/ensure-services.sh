#!/usr/bin/env bash
# Makes sure PostgreSQL (127.0.0.1:5432, user postgres, trust auth) and NATS with JetStream (127.0.0.1:4222) run.
# Starts them when installed but stopped; installs them with apt on a Debian machine that lacks them.
# Also installs kubectl, which `npm run test:deploy` uses to render the Kubernetes overlays (`kubectl kustomize`), and
# Chromium, in which `npm run test:browser` drives the console and the widget.
set -euo pipefail

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && exec 3>&- 3<&-; }
wait_port() { for _ in $(seq 1 60); do port_open "$1" && return 0; sleep 0.5; done; echo "port $1 did not open" >&2; return 1; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
apt_updated=0
apt_install() {
  [ "$apt_updated" = 1 ] || { as_root apt-get update -qq; apt_updated=1; }
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

if ! port_open 5432; then
  if ! ls /etc/postgresql/*/main >/dev/null 2>&1; then
    echo "installing PostgreSQL"
    apt_install postgresql
    ver=$(ls /etc/postgresql | sort -n | tail -1)
    hba=/etc/postgresql/$ver/main/pg_hba.conf
    # Local test server only: trust connections from this machine.
    as_root sed -i -E 's/^(local|host)(\s+all\s+all\s+.*)\s(peer|md5|scram-sha-256)$/\1\2 trust/' "$hba"
    as_root sed -i -E 's/^(local\s+all\s+postgres\s+)peer$/\1trust/' "$hba"
  fi
  echo "starting PostgreSQL"
  ver=$(ls /etc/postgresql | sort -n | tail -1)
  as_root pg_ctlcluster --skip-systemctl-redirect "$ver" main start || true
  wait_port 5432
fi

if ! port_open 4222; then
  if ! command -v nats-server >/dev/null 2>&1 && [ ! -x /usr/sbin/nats-server ]; then
    echo "installing NATS"
    apt_install nats-server
  fi
  echo "starting NATS (JetStream)"
  bin=$(command -v nats-server || echo /usr/sbin/nats-server)
  store=/var/lib/nats-server
  as_root mkdir -p "$store"
  as_root start-stop-daemon --start --oknodo --background --exec "$bin" -- -a 127.0.0.1 -p 4222 -js -sd "$store" -l /var/log/nats-server.log
  wait_port 4222
fi
echo "PostgreSQL and NATS are up"

if ! command -v kubectl >/dev/null 2>&1; then
  echo "installing kubectl"
  # Debian's own kubernetes-client (kubectl 1.20) is too old: its kustomize cannot render the overlays' patches.
  apt_install kubectl || { echo "kubectl could not be installed: no apt source offers the kubectl package" >&2; exit 1; }
fi
kubectl version --client

if [ ! -x /usr/bin/chromium ]; then
  echo "installing Chromium"
  apt_install chromium
fi
/usr/bin/chromium --version
