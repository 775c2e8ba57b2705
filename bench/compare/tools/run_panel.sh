#!/usr/bin/env bash
# Measure our dev-docs articles against each language's own documentation tool.
#
#   bench/compare/tools/run_panel.sh [NAME ...]      # default: every row of panel.tsv
#
# Environment (defaults in brackets):
#   PANEL_DIR   clones of the panel's repositories [/tmp/panel]
#   OUT_DIR     results: NAME/dev-docs.mdx, NAME.tool.json, NAME.cmp.{json,md}, summary.md [$PANEL_DIR/results]
#   GEN         our generator: GEN /abs/clone FEATURE OUT_DIR [/tmp/gen/generate]
#   VENV        venv with the pinned Python packages (setup.sh) [/tmp/pyvenv]
#   TYPEDOC_DIR folder where typedoc is npm-installed (setup.sh) [/tmp/tsdoc]
#   RUST_TARGET cargo target dir for rustdoc JSON [$PANEL_DIR/target-rs]
#   MIRROR_ROOT where the search tool's `fetch` puts git dirs [/work/.mirror]
#   HALF        only the rows of this half (column 8: tuning, heldout-YYYY-MM-DD) [every row]
#
# A missing clone is cloned from MIRROR_ROOT/<owner>+<repo>/repo (call the
# search tool's `fetch github:<owner>/<repo>` first). Every clone is checked out
# at the pinned commit. Nothing is written inside this repository.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
PANEL_DIR=${PANEL_DIR:-/tmp/panel}
OUT_DIR=${OUT_DIR:-$PANEL_DIR/results}
GEN=${GEN:-/tmp/gen/generate}
VENV=${VENV:-/tmp/pyvenv}
TYPEDOC_DIR=${TYPEDOC_DIR:-/tmp/tsdoc}
RUST_TARGET=${RUST_TARGET:-$PANEL_DIR/target-rs}
MIRROR_ROOT=${MIRROR_ROOT:-/work/.mirror}
export HALF=${HALF:-}
export GOFLAGS=-mod=mod GOPROXY=off GOTOOLCHAIN=local
mkdir -p "$PANEL_DIR" "$OUT_DIR"

grep -v '^#' "$HERE/panel.tsv" | while IFS=$'\t' read -r lang name source ref commit feature install half; do
  [ -n "$lang" ] || continue
  if [ -n "${HALF:-}" ] && [ "${half:-tuning}" != "$HALF" ]; then continue; fi
  if [ $# -gt 0 ] && ! printf '%s\n' "$@" | grep -qx "$name"; then continue; fi
  clone="$PANEL_DIR/$name"
  if [ ! -d "$clone/.git" ]; then
    slug=${source#github:}; mirror="$MIRROR_ROOT/${slug%%/*}+${slug#*/}/repo"
    git clone -q "$mirror" "$clone" || { echo "SKIP $name: no clone and no mirror at $mirror" >&2; continue; }
  fi
  git -C "$clone" checkout -q "$commit" || { echo "SKIP $name: commit $commit missing" >&2; continue; }
  tagc=$(git -C "$clone" rev-parse -q --verify "$ref^{commit}" || true)
  [ "$tagc" = "$commit" ] || echo "WARN $name: tag $ref is $tagc, pinned $commit" >&2
  mkdir -p "$OUT_DIR/$name"
  "$GEN" "$clone" "$feature" "$OUT_DIR/$name" 2>"$OUT_DIR/$name/generate.log.jsonl" >/dev/null ||
    { echo "FAIL $name: generator (see $OUT_DIR/$name/generate.log.jsonl)" >&2; continue; }
  tool="$OUT_DIR/$name.tool.json"
  case "$lang" in
    python)  pkg=${install##*:}
             "$VENV/bin/python" "$HERE/extract_python.py" "$pkg" >"$tool" ;;
    go)      python3 "$HERE/extract_go.py" "$clone" "$feature" >"$tool" ;;
    typescript)
             if [ "$install" = npm-deps ] && [ ! -d "$clone/node_modules" ]; then
               (cd "$clone" && npm install --omit=dev --ignore-scripts --no-audit --no-fund --no-save --no-package-lock >/dev/null 2>&1)
             fi
             python3 "$HERE/extract_typedoc.py" "$clone" "$TYPEDOC_DIR" >"$tool" ;;
    rust)    if rustup toolchain list | grep -q nightly; then
               python3 "$HERE/extract_rustdoc.py" "$clone" "$RUST_TARGET" >"$tool"
             else echo "SKIP $name: no nightly toolchain" >&2; continue; fi ;;
  esac || { echo "FAIL $name: tool extraction" >&2; continue; }
  python3 "$HERE/compare_devdocs.py" "$tool" "$OUT_DIR/$name/dev-docs.mdx" \
    --json "$OUT_DIR/$name.cmp.json" --md "$OUT_DIR/$name.cmp.md" --label "$name ($lang, $ref, feature \`$feature\`)" >/dev/null
  echo "done $name"
done
python3 "$HERE/summarize.py" "$HERE/panel.tsv" "$OUT_DIR" >"$OUT_DIR/summary.md"
echo "summary: $OUT_DIR/summary.md"
