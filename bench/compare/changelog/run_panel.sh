#!/usr/bin/env bash
# Runs bench/compare/changelog.py on one half of the panel (panel.tsv), both modes:
# the newest three releases from the tag before them, and a first run.
#
#   bash bench/compare/changelog/run_panel.sh tuning|tuning2|heldout2 CLONES_DIR OUT_DIR
#
# CLONES_DIR/<name> are clones of the panel's repositories at their pinned commits, with
# `origin` set to their GitHub address (forge links as for a real user). GENERATE (the built
# `generate` example) is required. OUT_DIR/<name>/{since,first}/ get the articles, and
# OUT_DIR/<name>.{since,first}.json the measures.
set -euo pipefail
HALF=$1 CLONES=$2 OUT=$3
HERE=$(cd "$(dirname "$0")" && pwd)
: "${GENERATE:?set GENERATE to the built generate example}"
mkdir -p "$OUT"
grep -v '^#' "$HERE/panel.tsv" | while IFS=$'\t' read -r half lang repo commit kind feature changelog prefix; do
  [ "$half" = "$HALF" ] || continue
  name=${repo#*/}
  clone=$CLONES/$name
  [ "$(git -C "$clone" rev-parse HEAD)" = "$commit" ] || { echo "$name: not at $commit" >&2; exit 1; }
  args=("$clone" "$feature" --changelog "$changelog")
  [ "$prefix" = "-" ] || args+=(--tag-prefix "$prefix")
  for mode in since first; do
    extra=()
    [ "$mode" = first ] && extra=(--first-run)
    rm -rf "$OUT/$name/$mode"; mkdir -p "$OUT/$name/$mode"
    python3 "$HERE/../changelog.py" "${args[@]}" "${extra[@]}" --out "$OUT/$name/$mode" --json \
      > "$OUT/$name.$mode.json" || echo "{\"repository\": \"$name\", \"error\": true}" > "$OUT/$name.$mode.json"
    python3 - "$OUT/$name.$mode.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
if d.get("error"):
    print(d["repository"], "failed"); sys.exit()
print(f"{d['repository']:<14}{d['mode']:<22} releases {d['releases']:>2}  recall {d['recall']}  "
      f"recall(f) {d['recall_feature']}  theirs {d['theirs']} ours {d['ours']} unmatched {d['unmatched']} "
      f"misfiled {d['misfiled']} noise {d['noise']} missing {d['missing_releases']}")
PY
  done
done
