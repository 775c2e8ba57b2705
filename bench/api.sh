#!/usr/bin/env bash
# API benchmark (issue: service foundation). Starts the service on SQLite with seeded data
# and, beside it, a bare hyper server with a fixed JSON body; loads both with wrk using the
# same threads, connections and duration; prints requests/s and p50/p99 latency, the ratio to
# the baseline, keyed-POST throughput, first-vs-deep page latency over 1,000,000 runs, and the
# server's peak resident memory.
#   usage: bash bench/api.sh            (DURATION=10s CONNECTIONS=32 THREADS=2 to change)
#          PIN=1 bash bench/api.sh      (both servers on core 0, wrk on core 1: the cost of a
#                                        request on one core, without wrk competing for it)
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-10s}
CONNECTIONS=${CONNECTIONS:-32}
THREADS=${THREADS:-2}
DEEP_ROWS=${DEEP_ROWS:-1000000}
API_PORT=18089
BARE_PORT=18090

source bench/lib.sh
ensure_wrk
cargo build --release --quiet --bin content-pipeline --example bare_hyper
BIN=target/release/content-pipeline
WORK=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$WORK"' EXIT
export CONTENT_PIPELINE_DATABASE_URL="sqlite://$WORK/bench.db"
export CONTENT_PIPELINE_KEY_FILE="$WORK/key"
export CONTENT_PIPELINE_BIND="127.0.0.1:$API_PORT"
export CONTENT_PIPELINE_LOG=warn
# The load is one token's: lift the workspace ceiling of rate_limit so the limiter admits it all.
export CONTENT_PIPELINE_WORKSPACE_MAX_RATE_LIMIT=4000000000

$BIN migrate 2>/dev/null
WS=$($BIN workspaces create --name bench --repo-path "$PWD" | json_id)
DEEP_WS=$($BIN workspaces create --name deep --repo-path "$PWD" | json_id)
TOKEN=$($BIN tokens create --scope admin --workspace "$WS" --rate-limit 4000000000)
DEEP_TOKEN=$($BIN tokens create --scope read --workspace "$DEEP_WS" --rate-limit 4000000000)

echo "seeding 5,000 runs and $DEEP_ROWS runs in a second workspace…"
python3 - "$WORK/bench.db" "$WS" "$DEEP_WS" "$DEEP_ROWS" <<'PY'
import sqlite3, sys, time
db, ws, deep, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
c = sqlite3.connect(db)
base = int(time.time() * 1e6) - 10**12
def seed(workspace, count, tag):
    c.execute("""WITH RECURSIVE s(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM s WHERE x < ?)
      INSERT INTO runs (id, workspace_id, feature_id, status, source, tier, notify_on_complete,
                        created_at, updated_at, artifacts, attempts)
      SELECT printf('run_%s%024x', ?, x), ?, 'feature-' || x, 'succeeded', 'api', 'standard', 1,
             ? + x, ? + x, '[]', 1 FROM s""", (count, tag, workspace, base, base))
seed(ws, 5000, "00000000")
seed(deep, n, "11111111")
c.commit()
PY
RUN_ID=$(python3 -c "import sqlite3; print(sqlite3.connect('$WORK/bench.db').execute(\"select id from runs where workspace_id='$WS' limit 1 offset 2500\").fetchone()[0])")

# Files of the repository are implicit features; keep names that need no JSON escaping.
git ls-files | grep -E '^[A-Za-z0-9_./-]+$' | head -n 500 > "$WORK/features.txt"

# --no-workers: runs stay queued, so the load measures the API and not the pipeline.
SERVER_CPU=() LOAD_CPU=()
if [ "${PIN:-0}" = 1 ]; then SERVER_CPU=(taskset -c 0) LOAD_CPU=(taskset -c 1); fi
"${SERVER_CPU[@]}" $BIN serve --no-workers 2>"$WORK/server.log" &
SERVER=$!
"${SERVER_CPU[@]}" target/release/examples/bare_hyper "127.0.0.1:$BARE_PORT" &
wait_healthy "$API_PORT"

# one wrk load → "rps p50 p99" (latencies in ms)
measure() {
  "${LOAD_CPU[@]}" wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency "$@" > "$WORK/wrk.txt" 2>&1 || true
  wrk_summary "$WORK/wrk.txt" | cut -d' ' -f1-3
}

echo "machine: $(nproc) cores; wrk -t$THREADS -c$CONNECTIONS -d$DURATION"
read -r BARE_RPS BARE_P50 BARE_P99 < <(measure "http://127.0.0.1:$BARE_PORT/")
read -r HEALTH_RPS HEALTH_P50 HEALTH_P99 < <(measure "http://127.0.0.1:$API_PORT/healthz")
read -r UNAUTH_RPS UNAUTH_P50 UNAUTH_P99 < <(EXPECT_ERRORS=1 measure "http://127.0.0.1:$API_PORT/v1/runs/$RUN_ID")
read -r GET_RPS GET_P50 GET_P99 < <(measure -H "Authorization: Bearer $TOKEN" "http://127.0.0.1:$API_PORT/v1/runs/$RUN_ID")
read -r POST_RPS POST_P50 POST_P99 < <(measure -s bench/post.lua -H "Authorization: Bearer $TOKEN" "http://127.0.0.1:$API_PORT/v1/workspaces/$WS/runs" -- "$WORK/features.txt")
WALK=$(python3 bench/walk_pages.py 127.0.0.1 "$API_PORT" "$DEEP_WS" "$DEEP_TOKEN")
DEEP_CURSOR=$(echo "$WALK" | python3 -c 'import sys,json,urllib.parse; print(urllib.parse.quote(json.load(sys.stdin)["deep_cursor"]))')
read -r FIRST_RPS FIRST_P50 FIRST_P99 < <(measure -H "Authorization: Bearer $DEEP_TOKEN" "http://127.0.0.1:$API_PORT/v1/workspaces/$DEEP_WS/runs?limit=100")
read -r DEEPP_RPS DEEPP_P50 DEEPP_P99 < <(measure -H "Authorization: Bearer $DEEP_TOKEN" "http://127.0.0.1:$API_PORT/v1/workspaces/$DEEP_WS/runs?limit=100&cursor=$DEEP_CURSOR")
RSS_MIB=$(peak_rss_mib "$SERVER")

python3 - <<PY
rows = [
  ("bare hyper, fixed JSON (baseline)", $BARE_RPS, $BARE_P50, $BARE_P99),
  ("GET /healthz (the middleware alone: no auth, no database)", $HEALTH_RPS, $HEALTH_P50, $HEALTH_P99),
  ("GET /v1/runs/{id} without a token (401: the /v1 layers)", $UNAUTH_RPS, $UNAUTH_P50, $UNAUTH_P99),
  ("GET /v1/runs/{id} (authenticated)", $GET_RPS, $GET_P50, $GET_P99),
  ("POST /v1/workspaces/{ws}/runs, fresh Idempotency-Key", $POST_RPS, $POST_P50, $POST_P99),
  ("GET runs?limit=100, first page of $DEEP_ROWS", $FIRST_RPS, $FIRST_P50, $FIRST_P99),
  ("GET runs?limit=100, deepest page (cursor)", $DEEPP_RPS, $DEEPP_P50, $DEEPP_P99),
]
print(f"{'case':60} {'req/s':>9} {'p50 ms':>8} {'p99 ms':>8}")
for name, rps, p50, p99 in rows:
    print(f"{name:60} {rps:>9.0f} {p50:>8.2f} {p99:>8.2f}")
walk = $WALK
print()
print(f"GET run / bare hyper throughput ratio: {$GET_RPS / $BARE_RPS:.2f}  (target >= 0.5)")
print(f"  for reference, /healthz / bare hyper: {$HEALTH_RPS / $BARE_RPS:.2f}")
print(f"  server CPU per request (µs, meaningful with PIN=1): /healthz {1e6 / $HEALTH_RPS:.1f}, 401 {1e6 / $UNAUTH_RPS:.1f}, GET run {1e6 / $GET_RPS:.1f}")
print(f"keyed POST throughput: {$POST_RPS:.0f}/s  (target >= 3000)")
print(f"deep/first page p50 under load: {$DEEPP_P50 / $FIRST_P50:.2f}  (target <= 1.5)")
print(f"sequential walk of {walk['pages']} pages: first 100 p50 {walk['first_p50_ms']} ms, last 100 p50 {walk['deep_p50_ms']} ms")
print(f"server peak RSS: $RSS_MIB MiB  (target < 150)")
PY
