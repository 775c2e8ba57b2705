#!/usr/bin/env bash
# Schemathesis against a real server (issue 10): every check (`--checks all`), every phase
# (examples, coverage, fuzzing, stateful) within a time budget. Starts the debug binary (the
# one `cargo test` builds) on a temporary SQLite file and a free port, with a workspace on a
# fixture git repository that has a feature and a platform token; exits non-zero on any
# finding. The only answer accepted beyond the document is the 400 of a schema-valid but
# unsigned cursor (hooks.py).
#   usage: crates/content-pipeline/tests/schemathesis/run.sh
#          MAX_TIME=60 SEED=1 …   (time budget in seconds, default 150; a fixed seed)
#          PROFILE=release …      (the release binary)
#          BIN=/path/to/content-pipeline …   (a binary built beforehand; no cargo build)
#          … run.sh --include-path /v1/runs/{id}   (further arguments go to schemathesis run)
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
cd "$HERE/../../../.."
MAX_TIME=${MAX_TIME:-150}
PROFILE=${PROFILE:-debug}

command -v schemathesis >/dev/null || {
  echo "schemathesis is not installed: python3 -m pip install schemathesis==4.32.5" >&2
  exit 2
}
if [ -z "${BIN:-}" ]; then
  if [ "$PROFILE" = release ]; then
    cargo build --release --locked --quiet -p content-pipeline --bin content-pipeline
  else
    cargo build --locked --quiet -p content-pipeline --bin content-pipeline
  fi
  BIN="$PWD/target/$PROFILE/content-pipeline"
fi

WORK=$(mktemp -d)
SERVER=
cleanup() {
  if [ -n "$SERVER" ]; then kill "$SERVER" 2>/dev/null || true; wait "$SERVER" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

# A fixture repository with one declared feature, so that runs and drift checks do real work.
REPO="$WORK/repo"
mkdir -p "$REPO/src" "$REPO/.content-pipeline"
cat >"$REPO/src/lib.rs" <<'RS'
//! Greetings for the fixture.

/// Greets someone by name.
pub fn greet(name: &str) -> String {
    format!("Hello, {name}!")
}
RS
cat >"$REPO/.content-pipeline/features.toml" <<'TOML'
[[features]]
id = "greeting"
title = "Greetings"
summary = "Say hello to someone by name."
paths = ["src/**"]
TOML
git -C "$REPO" init -q -b main
git -C "$REPO" add -A
git -C "$REPO" -c user.name=ci -c user.email=ci@example.com commit -q -m "feat: greetings"

PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
API="http://127.0.0.1:$PORT"
export CONTENT_PIPELINE_DATABASE_URL="sqlite://$WORK/schemathesis.db"
export CONTENT_PIPELINE_KEY_FILE="$WORK/key"
export CONTENT_PIPELINE_BIND="127.0.0.1:$PORT"
export CONTENT_PIPELINE_BASE_URL="$API"
export CONTENT_PIPELINE_LOG=warn
export CONTENT_PIPELINE_DRIFT_INTERVAL=0
export CONTENT_PIPELINE_RUN_CONCURRENCY=1
# Schemathesis sends thousands of requests with one token: a quota it cannot reach (429 is
# documented everywhere, but a run spent on it would test nothing else).
export CONTENT_PIPELINE_DEFAULT_RATE_LIMIT=100000000
export CONTENT_PIPELINE_WORKSPACE_MAX_RATE_LIMIT=100000000

"$BIN" migrate >/dev/null 2>&1
WS=$("$BIN" workspaces create --name fixture --repo-path "$REPO" \
  | python3 -c 'import sys, json; print(json.load(sys.stdin)["id"])')
cp "$HERE/schemathesis.toml" "$WORK/schemathesis.toml"
printf '"%s"\n' "$WS" >"$WORK/workspace.dict"
printf '"%s"\n' "$REPO" >"$WORK/repository.dict"
SCHEMATHESIS_TOKEN=$("$BIN" tokens create --scope admin --name schemathesis --rate-limit 100000000)
export SCHEMATHESIS_TOKEN

"$BIN" serve 2>"$WORK/server.log" &
SERVER=$!
for _ in $(seq 1 100); do
  curl -sf "$API/healthz" >/dev/null && break
  kill -0 "$SERVER" 2>/dev/null || { cat "$WORK/server.log" >&2; exit 1; }
  sleep 0.1
done

# One finished run of the fixture's feature, so that articles exist, and a subscription to its
# events, so that a delivery does: their ids (and the run's) feed `{id}` parameters, which no
# create links to (articles come from runs, deliveries from events).
auth=(-H "Authorization: Bearer $SCHEMATHESIS_TOKEN")
HOOK=$(curl -sf "${auth[@]}" -H 'Content-Type: application/json' \
  -d '{"url":"https://hooks.example.com/fixture","events":["run.completed"]}' \
  "$API/v1/workspaces/$WS/webhooks" | python3 -c 'import sys, json; print(json.load(sys.stdin)["id"])')
RUN=$(curl -sf "${auth[@]}" -H 'Content-Type: application/json' -d '{"feature_id":"greeting"}' \
  "$API/v1/workspaces/$WS/runs" | python3 -c 'import sys, json; print(json.load(sys.stdin)["id"])')
for _ in $(seq 1 600); do
  status=$(curl -sf "${auth[@]}" "$API/v1/runs/$RUN" | python3 -c 'import sys, json; print(json.load(sys.stdin)["status"])')
  case "$status" in succeeded) break ;; failed) echo "the fixture run failed" >&2; exit 1 ;; esac
  sleep 0.1
done
[ "$status" = succeeded ] || { echo "the fixture run did not finish" >&2; exit 1; }
curl -sf "${auth[@]}" "$API/v1/workspaces/$WS/articles" \
  | python3 -c 'import sys, json; [print(json.dumps(a["id"])) for a in json.load(sys.stdin)["data"]]' \
  >"$WORK/id.dict"
for _ in $(seq 1 100); do
  curl -sf "${auth[@]}" "$API/v1/webhooks/$HOOK/deliveries" \
    | python3 -c 'import sys, json; [print(json.dumps(d["id"])) for d in json.load(sys.stdin)["data"]]' \
    >"$WORK/deliveries.dict"
  [ -s "$WORK/deliveries.dict" ] && break
  sleep 0.1
done
[ -s "$WORK/deliveries.dict" ] || { echo "the fixture run made no delivery" >&2; exit 1; }
cat "$WORK/deliveries.dict" >>"$WORK/id.dict"
printf '"%s"\n' "$RUN" "$WS" "$HOOK" >>"$WORK/id.dict"

SEED_ARGS=()
if [ -n "${SEED:-}" ]; then SEED_ARGS=(--seed "$SEED"); fi
status=0
REPORT_DIR=$(realpath -m "${REPORT_DIR:-$WORK/report}")
# From the temporary folder, so that schemathesis's own cache (.schemathesis/) goes with it.
(cd "$WORK" && PYTHONPATH="$HERE${PYTHONPATH:+:$PYTHONPATH}" SCHEMATHESIS_HOOKS=hooks \
  schemathesis --config-file "$WORK/schemathesis.toml" run "$API/openapi.json" \
  --checks all --phases examples,coverage,fuzzing,stateful --max-time "$MAX_TIME" \
  --generation-database none \
  --report junit --report-dir "$REPORT_DIR" --no-color "${SEED_ARGS[@]}" "$@") \
  || status=$?
if ! kill -0 "$SERVER" 2>/dev/null; then
  echo "the server died during the run:" >&2
  cat "$WORK/server.log" >&2
  exit 1
fi
if grep -q panicked "$WORK/server.log"; then
  echo "the server panicked during the run:" >&2
  grep -A5 panicked "$WORK/server.log" >&2
  exit 1
fi
exit "$status"
