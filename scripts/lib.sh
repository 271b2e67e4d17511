# Shared by scripts/run.sh and scripts/test.sh. Installs only what is
# missing, so a second run is quick.

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

log() { printf '\033[1;32m==>\033[0m %s\n' "$*" >&2; }

apt_install() {
  # apt_install PACKAGE... (only those whose command or file is missing)
  local missing=("$@")
  [ ${#missing[@]} -eq 0 ] && return 0
  log "installing ${missing[*]} (Debian packages)"
  if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
  $SUDO apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
}

ensure_rust() {
  command -v cargo >/dev/null 2>&1 || { echo "cargo is required (https://rustup.rs)" >&2; exit 1; }
  # The openssl crate links the system's OpenSSL 3 (the seamless wallet
  # signs its answers with it): headers and pkg-config to build.
  if ! command -v pkg-config >/dev/null 2>&1 || ! pkg-config --exists openssl 2>/dev/null; then
    apt_install pkg-config libssl-dev
  fi
}

ensure_node() {
  command -v npm >/dev/null 2>&1 || apt_install nodejs npm
}

ensure_web_deps() {
  ensure_node
  if [ ! -d "$ROOT/web/node_modules" ] || [ "$ROOT/web/package-lock.json" -nt "$ROOT/web/node_modules/.package-lock.json" ]; then
    log "npm ci (web/)"
    # npm 11 can write a lock whose optional platform packages (rollup's
    # native builds) make a later `npm ci` refuse it; `npm install` then
    # installs the same locked versions.
    (cd "$ROOT/web" && { npm ci --no-audit --no-fund --loglevel=error 2>/dev/null \
      || npm install --no-audit --no-fund --loglevel=error; })
  fi
}

build_web() {
  ensure_web_deps
  log "building the client (web/dist)"
  (cd "$ROOT/web" && npm run build --silent)
}

# Schemathesis (PyPI), pinned, in a virtualenv under the project (.venv/,
# not committed): installed only when missing or at another version.
SCHEMATHESIS_VERSION=4.32.5
ensure_schemathesis() {
  local venv="$ROOT/.venv"
  if [ -x "$venv/bin/schemathesis" ] \
    && "$venv/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('schemathesis') != '$SCHEMATHESIS_VERSION')" 2>/dev/null; then
    return 0
  fi
  python3 -m venv --help >/dev/null 2>&1 || apt_install python3-venv
  log "installing schemathesis $SCHEMATHESIS_VERSION (PyPI, into .venv/)"
  [ -x "$venv/bin/pip" ] || python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION"
}

ensure_browser() {
  local pkgs=()
  [ -x /usr/bin/chromium ] || pkgs+=(chromium)
  [ -d /usr/share/fonts/opentype/noto ] || pkgs+=(fonts-noto-cjk)
  [ -d /usr/share/fonts/truetype/noto ] || pkgs+=(fonts-noto-core)
  apt_install "${pkgs[@]}"
}

ensure_postgres() {
  command -v pgbench >/dev/null 2>&1 || apt_install postgresql-client
  if ! pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; then
    if [ -d /etc/postgresql ]; then
      log "starting PostgreSQL"
      pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n1)" main start || true
    fi
    for _ in $(seq 1 30); do pg_isready -q -h 127.0.0.1 -p 5432 && break; sleep 1; done
  fi
  pg_isready -q -h 127.0.0.1 -p 5432 || { echo "PostgreSQL is not reachable at 127.0.0.1:5432" >&2; exit 1; }
}

ensure_haproxy() {
  command -v haproxy >/dev/null 2>&1 || apt_install haproxy
}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# cluster_start N BINARY LOGDIR: N api processes (DEMO=1) on one fresh
# Postgres database behind HAProxy (round robin, no stickiness, health
# checks on /healthz). Sets CLUSTER_URL (host:port), CLUSTER_PIDS,
# CLUSTER_PORTS, CLUSTER_DB, CLUSTER_HAPROXY_PID.
cluster_start() {
  local n="$1" bin="$2" logs="$3" i port
  CLUSTER_DB="cluster_$$_$RANDOM"
  psql -q -h 127.0.0.1 -U postgres -d postgres -c "CREATE DATABASE $CLUSTER_DB" >/dev/null
  local url="postgres://postgres@127.0.0.1:5432/$CLUSTER_DB"
  DATABASE_URL="$url" "$bin" migrate >"$logs/cluster-migrate.log" 2>&1
  CLUSTER_PIDS=""; CLUSTER_PORTS=""
  for i in $(seq 1 "$n"); do
    port=$(free_port)
    TRUSTED_PROXIES=127.0.0.1/32 DEMO=1 PORT=$port DATABASE_URL="$url" "$bin" serve >"$logs/node$i.log" 2>&1 &
    CLUSTER_PIDS="$CLUSTER_PIDS $!"; CLUSTER_PORTS="$CLUSTER_PORTS $port"
    # One at a time: the first seeds the demo member, the others find it.
    for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.2; done
  done
  local lb; lb=$(free_port)
  {
    printf 'global\n  maxconn 4096\n'
    printf 'defaults\n  mode http\n  timeout connect 2s\n  timeout client 60s\n  timeout server 60s\n  timeout tunnel 1h\n  option forwardfor\n'
    printf 'frontend lb\n  bind 127.0.0.1:%s\n  default_backend nodes\n' "$lb"
    printf 'backend nodes\n  balance roundrobin\n  option httpchk GET /healthz\n  retry-on conn-failure\n  retries 2\n  option redispatch\n'
    i=0; for port in $CLUSTER_PORTS; do i=$((i+1)); printf '  server node%s 127.0.0.1:%s check inter 500ms fall 2 rise 2\n' "$i" "$port"; done
  } >"$logs/haproxy.cfg"
  haproxy -f "$logs/haproxy.cfg" -db >"$logs/haproxy.log" 2>&1 &
  CLUSTER_HAPROXY_PID=$!
  CLUSTER_URL="127.0.0.1:$lb"
  for _ in $(seq 1 50); do curl -sf "http://$CLUSTER_URL/healthz" >/dev/null && break; sleep 0.2; done
  export CLUSTER_URL CLUSTER_PIDS CLUSTER_PORTS CLUSTER_DB CLUSTER_HAPROXY_PID
}

# cluster_revive BINARY LOGDIR: restarts any node that is not running.
cluster_revive() {
  local bin="$1" logs="$2" i=0 port pid pids="" url="postgres://postgres@127.0.0.1:5432/$CLUSTER_DB"
  set -- $CLUSTER_PIDS
  for port in $CLUSTER_PORTS; do
    i=$((i+1)); pid="$1"; shift
    if ! kill -0 "$pid" 2>/dev/null; then
      TRUSTED_PROXIES=127.0.0.1/32 DEMO=1 PORT=$port DATABASE_URL="$url" "$bin" serve >>"$logs/node$i.log" 2>&1 &
      pid=$!
      for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.2; done
    fi
    pids="$pids $pid"
  done
  CLUSTER_PIDS="$pids"; export CLUSTER_PIDS
  sleep 1.5 # the balancer's health check sees it again
}

cluster_stop() {
  local pid
  for pid in $CLUSTER_PIDS $CLUSTER_HAPROXY_PID; do kill "$pid" 2>/dev/null; done
  for pid in $CLUSTER_PIDS $CLUSTER_HAPROXY_PID; do wait "$pid" 2>/dev/null; done
  [ -n "${CLUSTER_DB:-}" ] && psql -q -h 127.0.0.1 -U postgres -d postgres \
    -c "DROP DATABASE IF EXISTS $CLUSTER_DB WITH (FORCE)" >/dev/null 2>&1
  return 0
}

# Stores and key files of test processes that are gone (killed before their
# tests could remove them). Names carry the test process's pid
# (t_<pid>_<random>, betting-test-<pid>_<random>.db, test-rsa-<pid>.pem), so
# the stores of test runs still going (another checkout's) are left alone.
sweep_test_stores() {
  local name pid tmp="${TMPDIR:-/tmp}"
  for name in $(psql -q -h 127.0.0.1 -U postgres -d test -Atc \
      "SELECT nspname FROM pg_namespace WHERE nspname LIKE 't\\_%'" 2>/dev/null); do
    pid=$(echo "$name" | cut -d_ -f2)
    [ -n "$pid" ] && [ -d "/proc/$pid" ] && continue
    psql -q -h 127.0.0.1 -U postgres -d test -c "DROP SCHEMA IF EXISTS $name CASCADE" >/dev/null 2>&1 || true
  done
  for name in "$tmp"/betting-test-*.db "$tmp"/test-rsa-*.pem "$tmp"/bench-swarm-*.db; do
    [ -e "$name" ] || continue
    pid=$(basename "$name" | sed -E 's/^(betting-test-|test-rsa-|bench-swarm-)([0-9]+).*/\2/')
    [ -n "$pid" ] && [ -d "/proc/$pid" ] && continue
    rm -f "$name" "$name-wal" "$name-shm"
  done
}
