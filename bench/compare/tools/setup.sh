#!/usr/bin/env bash
# One-time installs for run_panel.sh: the languages' own documentation tools,
# from the registries reachable here. Everything lands under /tmp.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
VENV=${VENV:-/tmp/pyvenv}
TYPEDOC_DIR=${TYPEDOC_DIR:-/tmp/tsdoc}

# Python: the panel's packages at their pinned versions
[ -x "$VENV/bin/python" ] || python3.11 -m venv "$VENV"
grep -v '^#' "$HERE/panel.tsv" | awk -F'\t' '$7 ~ /^pip:/ {split($7, a, ":"); print a[2]}' |
  xargs -r "$VENV/bin/pip" install -q

# Go: Debian's golang (Go 1.19)
command -v go >/dev/null || apt-get install -y golang-go

# TypeScript: TypeDoc
if [ ! -x "$TYPEDOC_DIR/node_modules/.bin/typedoc" ]; then
  mkdir -p "$TYPEDOC_DIR" && (cd "$TYPEDOC_DIR" && npm init -y >/dev/null && npm install typedoc typescript)
fi

# Rust: a nightly toolchain must already be installed (rustdoc JSON is unstable)
rustup toolchain list | grep -q nightly || { echo "no nightly toolchain: Rust is not measured" >&2; }
go version; "$TYPEDOC_DIR/node_modules/.bin/typedoc" --version | head -1; rustup run nightly rustdoc --version || true
