#!/usr/bin/env bash
# Request-path benchmark (issue 14): in one run, on SQLite and then on PostgreSQL (a database
# created for the run and dropped at exit), the server's CPU time per request, read from
# /proc/<pid>/stat (utime + stime) before and after each wrk load and divided by the requests
# wrk counted, for
#   - GET /healthz (the middleware alone: the baseline of the stack),
#   - GET /v1/runs/{id} without a token (401: the /v1 layers),
#   - GET /v1/runs/{id}, authenticated (a workspace of 5,000 runs),
#   - POST /v1/workspaces/{ws}/runs with fresh Idempotency-Keys (on PostgreSQL two API nodes,
#     `serve --no-workers` on one database, loaded at once by two wrk processes);
# with requests/s, p50/p99, PostgreSQL's own CPU per request (every `postgres` process) and the
# peak RSS (VmHWM) of each server process. A bare hyper server with a fixed body is measured
# once as the floor. wrk runs on the same two cores as the servers: CPU per request is the
# figure to compare, requests/s depends on what else the machine does.
#
#   usage: bash bench/request_path.sh
#          BASELINE=/path/to/content-pipeline bash bench/request_path.sh
#              also measures that build (e.g. main's release binary), in the same run, on a
#              database of its own, right before this checkout's: before/after figures
#          ENGINES=sqlite|postgres|"sqlite postgres"  DURATION=10s CONNECTIONS=32 THREADS=2
#          PG_ADMIN_URL=postgres://postgres@127.0.0.1:5432/postgres (where databases are made)
#          PG_PARAMS=sslmode=disable (appended to the servers' database URL; by default sqlx
#                                     uses TLS when the server offers it, even on loopback)
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
DURATION=${DURATION:-10s}
CONNECTIONS=${CONNECTIONS:-32}
THREADS=${THREADS:-2}
ENGINES=${ENGINES:-sqlite postgres}
PG_ADMIN_URL=${PG_ADMIN_URL:-postgres://postgres@127.0.0.1:5432/postgres}
PORTS=(18091 18092)
BARE_PORT=18093
TICKS=$(getconf CLK_TCK)

ensure_wrk
cargo build --release --quiet --bin content-pipeline --example bare_hyper
BUILDS=()
if [ -n "${BASELINE:-}" ]; then BUILDS+=("baseline=$(realpath "$BASELINE")"); fi
BUILDS+=("this=$PWD/target/release/content-pipeline")

WORK=$(mktemp -d)
DATABASES=()
cleanup() {
  kill $(jobs -p) 2>/dev/null || true
  wait 2>/dev/null || true
  for db in "${DATABASES[@]}"; do
    psql -q "$PG_ADMIN_URL" -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 || true
  done
  rm -rf "$WORK"
}
trap cleanup EXIT
export CONTENT_PIPELINE_SECRET_KEY=$(head -c 32 /dev/urandom | base64)
export CONTENT_PIPELINE_LOG=warn
# The load is one token's: lift the workspace ceiling of rate_limit so the limiter admits it all.
export CONTENT_PIPELINE_WORKSPACE_MAX_RATE_LIMIT=4000000000
# Files of the repository are implicit features; keep names that need no JSON escaping.
git ls-files | grep -E '^[A-Za-z0-9_./-]+$' | head -n 500 > "$WORK/features.txt"

postgres_pids() { pgrep -x postgres || true; }

# load NAME PORTS… -- WRK-ARGS… PATH: one wrk per port at once (the threads and connections
# shared out, post.lua's keys prefixed by the port), the CPU time of those ports' servers (and
# of PostgreSQL) over it; appends a row to $WORK/rows.
load() {
  local name=$1 ports=() servers=() wrks=() files=()
  shift
  while [ "$1" != -- ]; do ports+=("$1"); shift; done
  shift
  local n=${#ports[@]} path=${*: -1} args=("${@:1:$#-1}")
  for port in "${ports[@]}"; do servers+=("${SERVER_OF[$port]}"); done
  local before db_before after db_after
  before=$(cpu_ticks "${servers[@]}")
  db_before=$(cpu_ticks $(postgres_pids))
  for port in "${ports[@]}"; do
    local script_args=()
    if [[ " ${args[*]} " == *" bench/post.lua "* ]]; then
      script_args=(-- "$WORK/features.txt" "p$port")
    fi
    wrk -t"$(( (THREADS + n - 1) / n ))" -c"$((CONNECTIONS / n))" -d"$DURATION" --latency \
      "${args[@]}" "http://127.0.0.1:$port$path" "${script_args[@]}" > "$WORK/wrk.$port.txt" 2>&1 &
    wrks+=($!)
    files+=("$WORK/wrk.$port.txt")
  done
  wait "${wrks[@]}" || true
  after=$(cpu_ticks "${servers[@]}")
  db_after=$(cpu_ticks $(postgres_pids))
  local rps p50 p99 requests
  read -r rps p50 p99 requests < <(wrk_summary "${files[@]}")
  python3 - "$ENGINE" "$BUILD" "$name" "$rps" "$p50" "$p99" "$requests" \
    "$((after - before))" "$((db_after - db_before))" "$TICKS" >> "$WORK/rows" <<'PY'
import sys
engine, build, name, rps, p50, p99, requests, ticks, db_ticks, hz = sys.argv[1:]
per_request = lambda t: f"{int(t) / int(hz) / int(requests) * 1e6:.1f}"
db = per_request(db_ticks) if engine == "postgres" else ""
print("\t".join([engine, build, name, rps, p50, p99, per_request(ticks), db]))
PY
}

declare -A SERVER_OF
# Starts `serve --no-workers` of $BIN on each port given, one after the other.
start_nodes() {
  for port in "$@"; do
    CONTENT_PIPELINE_BIND="127.0.0.1:$port" "$BIN" serve --no-workers 2>>"$WORK/server.$port.log" &
    SERVER_OF[$port]=$!
    wait_healthy "$port"
  done
}

stop_nodes() {
  for port in "${!SERVER_OF[@]}"; do
    local pid=${SERVER_OF[$port]}
    echo -e "$ENGINE\t$BUILD\tpeak RSS, node on :$port\t$(peak_rss_mib "$pid")" >> "$WORK/rss"
    kill "$pid"
    wait "$pid" 2>/dev/null || true
    unset "SERVER_OF[$port]"
  done
}

# A fresh database of $ENGINE for $BUILD, in CONTENT_PIPELINE_DATABASE_URL.
fresh_database() {
  case $ENGINE in
    sqlite) CONTENT_PIPELINE_DATABASE_URL="sqlite://$WORK/$BUILD.db" ;;
    postgres)
      local db="cp_bench_$$_$BUILD"
      psql -q "$PG_ADMIN_URL" -c "CREATE DATABASE $db" >/dev/null
      DATABASES+=("$db")
      CONTENT_PIPELINE_DATABASE_URL="${PG_ADMIN_URL%/*}/$db${PG_PARAMS:+?$PG_PARAMS}"
      ;;
  esac
  export CONTENT_PIPELINE_DATABASE_URL
}

# 5,000 finished runs in workspace $1, through SQL; prints the id of one in the middle.
seed_runs() {
  local ws=$1
  case $ENGINE in
    sqlite)
      python3 - "${CONTENT_PIPELINE_DATABASE_URL#sqlite://}" "$ws" <<'PY'
import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1])
base = int(time.time() * 1e6) - 10**12
c.execute("""WITH RECURSIVE s(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM s WHERE x < 5000)
  INSERT INTO runs (id, workspace_id, feature_id, status, source, tier, notify_on_complete,
                    created_at, updated_at, artifacts, attempts)
  SELECT printf('run_00000000%024x', x), ?, 'feature-' || x, 'succeeded', 'api', 'standard', 1,
         ? + x, ? + x, '[]', 1 FROM s""", (sys.argv[2], base, base))
c.commit()
PY
      ;;
    postgres)
      psql -q "$CONTENT_PIPELINE_DATABASE_URL" -v ws="$ws" >/dev/null <<'SQL'
INSERT INTO runs (id, workspace_id, feature_id, status, source, tier, notify_on_complete,
                  created_at, updated_at, artifacts, attempts)
SELECT 'run_00000000' || lpad(to_hex(x), 24, '0'), :'ws', 'feature-' || x, 'succeeded', 'api',
       'standard', TRUE, b + x, b + x, '[]', 1
FROM generate_series(1, 5000) AS x,
     (SELECT (extract(epoch FROM now()) * 1e6)::bigint - 1000000000000 AS b) AS base;
ANALYZE runs;
SQL
      ;;
  esac
  printf 'run_00000000%024x\n' 2500
}

echo "machine: $(nproc) cores; wrk -t$THREADS -c$CONNECTIONS -d$DURATION per case; builds: ${BUILDS[*]}; PostgreSQL parameters: ${PG_PARAMS:-none}"
: > "$WORK/rows"; : > "$WORK/rss"

# The floor: bare hyper, a fixed JSON body, no middleware.
ENGINE=- BUILD=bare_hyper
target/release/examples/bare_hyper "127.0.0.1:$BARE_PORT" &
BARE=$!
SERVER_OF[$BARE_PORT]=$BARE
wait_healthy "$BARE_PORT" 2>/dev/null || sleep 1
load "bare hyper, fixed JSON" "$BARE_PORT" -- /
kill "$BARE"; wait "$BARE" 2>/dev/null || true
unset "SERVER_OF[$BARE_PORT]"

for ENGINE in $ENGINES; do
  for build in "${BUILDS[@]}"; do
    BUILD=${build%%=*} BIN=${build#*=}
    fresh_database
    "$BIN" migrate 2>/dev/null
    WS=$("$BIN" workspaces create --name bench --repo-path "$PWD" | json_id)
    TOKEN=$("$BIN" tokens create --scope admin --workspace "$WS" --rate-limit 4000000000)
    RUN_ID=$(seed_runs "$WS")
    NODES=("${PORTS[0]}")
    [ "$ENGINE" = postgres ] && NODES=("${PORTS[@]}")
    start_nodes "${NODES[@]}"
    echo "$ENGINE, $BUILD: measuring…"
    P=${PORTS[0]}
    load "GET /healthz" "$P" -- /healthz
    EXPECT_ERRORS=1 load "GET /v1/runs/{id}, no token (401)" "$P" -- "/v1/runs/$RUN_ID"
    load "GET /v1/runs/{id}, authenticated" "$P" -- -H "Authorization: Bearer $TOKEN" "/v1/runs/$RUN_ID"
    load "POST …/runs, fresh Idempotency-Key (${#NODES[@]} node(s))" "${NODES[@]}" -- \
      -s bench/post.lua -H "Authorization: Bearer $TOKEN" "/v1/workspaces/$WS/runs"
    stop_nodes
  done
done

python3 - "$WORK/rows" "$WORK/rss" <<'PY'
import sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
print(f"\n{'engine':9} {'build':10} {'case':52} {'req/s':>8} {'p50 ms':>7} {'p99 ms':>7} {'server µs/req':>13} {'pg µs/req':>9}")
for engine, build, case, rps, p50, p99, cpu, db in rows:
    print(f"{engine:9} {build:10} {case:52} {float(rps):>8.0f} {float(p50):>7.2f} {float(p99):>7.2f} {cpu:>13} {db:>9}")
print()
for l in open(sys.argv[2]):
    engine, build, what, mib = l.rstrip("\n").split("\t")
    print(f"{engine:9} {build:10} {what:30} {mib} MiB")
targets = {"sqlite": 15, "postgres": 45}
posts = {"sqlite": 3000, "postgres": 2000}
print()
for engine, build, case, rps, _, _, cpu, _ in rows:
    if "authenticated" in case and engine in targets:
        print(f"{engine} {build}: authenticated GET {cpu} µs of server CPU (target <= {targets[engine]})")
    if case.startswith("POST") and engine in posts:
        print(f"{engine} {build}: keyed POST {float(rps):.0f}/s (target >= {posts[engine]})")
PY
