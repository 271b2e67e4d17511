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
