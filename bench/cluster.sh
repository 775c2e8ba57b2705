#!/usr/bin/env bash
# Idle-cluster benchmark (issue 14): two API nodes (`serve --no-workers`) and two workers
# (`worker`) on one fresh PostgreSQL database, left idle. Reports the transactions per second
# the cluster makes on that database (pg_stat_database's commits + rollbacks over a window,
# read from another database so the readings do not count) and each process's peak RSS; then
# shows the wake-ups at work: one run triggered and one webhook delivery, each timed from the
# API's answer to the worker acting on it.
#   usage: bash bench/cluster.sh          (WINDOW=60 seconds idle, PG=postgres://… server,
#                                          PROFILE=debug for the debug build)
set -euo pipefail
cd "$(dirname "$0")/.."
WINDOW=${WINDOW:-60}
PG=${PG:-postgres://postgres@127.0.0.1:5432}
DB=cp_cluster_$$
# PROFILE=debug measures the debug build (idle transactions do not depend on the profile;
# RSS and latencies do).
PROFILE=${PROFILE:-release}
if [ "$PROFILE" = release ]; then
  cargo build --release --quiet --bin content-pipeline
else
  cargo build --quiet --bin content-pipeline
fi
BIN=${CARGO_TARGET_DIR:-$PWD/target}/$PROFILE/content-pipeline
WORK=$(mktemp -d)
psql "$PG/postgres" -qc "CREATE DATABASE $DB" >/dev/null
cleanup() {
  kill $(jobs -p) 2>/dev/null || true
  wait 2>/dev/null || true
  psql "$PG/postgres" -qc "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT

export CONTENT_PIPELINE_DATABASE_URL="$PG/$DB"
export CONTENT_PIPELINE_SECRET_KEY=$(head -c 32 /dev/urandom | base64)
export CONTENT_PIPELINE_LOG=warn
export CONTENT_PIPELINE_WEBHOOK_ALLOWED_CIDRS=127.0.0.0/8
$BIN migrate >/dev/null 2>&1
WS=$($BIN workspaces create --name idle --repo-path "$PWD" | python3 -c 'import sys,json; print(json.load(sys.stdin)["id"])')
TOKEN=$($BIN tokens create --scope admin --workspace "$WS")

PIDS=()
NAMES=()
for i in 1 2; do
  CONTENT_PIPELINE_BIND=127.0.0.1:1819$i $BIN serve --no-workers 2>"$WORK/api$i.log" &
  PIDS+=($!) NAMES+=("api node $i")
done
for i in 1 2; do
  $BIN worker 2>"$WORK/worker$i.log" &
  PIDS+=($!) NAMES+=("worker $i")
done
for p in 18191 18192; do
  for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$p/healthz" >/dev/null && break; sleep 0.1; done
done

transactions() {
  psql "$PG/postgres" -tAc "SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = '$DB'"
}
# Backends report their counts at least every 10 s when idle: settle, then read a long window.
sleep 12
T0=$(transactions); S0=$(date +%s.%N)
sleep "$WINDOW"
T1=$(transactions); S1=$(date +%s.%N)

# The wake-ups at work, across processes: an API node accepts, a worker acts.
python3 - "$T0" "$T1" "$S0" "$S1" "$WS" "$TOKEN" "${NAMES[@]}" -- "${PIDS[@]}" <<'PY'
import http.server, json, statistics, sys, threading, time, urllib.request
t0, t1, s0, s1 = (float(x) for x in sys.argv[1:5])
ws, token = sys.argv[5], sys.argv[6]
rest = sys.argv[7:]
cut = rest.index("--")
names, pids = rest[:cut], rest[cut + 1:]
print(f"idle: 2 API nodes + 2 workers on PostgreSQL, {s1 - s0:.0f} s window")
print(f"  transactions/s on the cluster's database: {(t1 - t0) / (s1 - s0):.2f}  (target < 5)")
for name, pid in zip(names, pids):
    rss = 0.0
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmHWM"):
            rss = int(line.split()[1]) / 1024
    print(f"  peak RSS, {name}: {rss:.1f} MiB")

arrived = []
class Receiver(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("content-length", 0)))
        arrived.append(time.monotonic())
        self.send_response(204)
        self.end_headers()
    def log_message(self, *a):
        pass
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
threading.Thread(target=server.serve_forever, daemon=True).start()

def call(method, path, body=None, key=None):
    req = urllib.request.Request(f"http://127.0.0.1:18191{path}", method=method,
        data=None if body is None else json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json",
                 **({"Idempotency-Key": key} if key else {})})
    with urllib.request.urlopen(req) as r:
        return json.load(r)

hook = call("POST", f"/v1/workspaces/{ws}/webhooks", {"events": ["run.completed"],
    "url": f"http://127.0.0.1:{server.server_address[1]}/hook"})
lags = []
for i in range(20):
    before = len(arrived)
    call("POST", f"/v1/webhooks/{hook['id']}/test", {"event_type": "run.completed"}, key=f"t{i}")
    answered = time.monotonic()
    while len(arrived) == before and time.monotonic() - answered < 10:
        time.sleep(0.0002)
    if len(arrived) > before:
        lags.append((arrived[before] - answered) * 1000)
lags.sort()
print(f"test event accepted by an API node -> received from a worker, {len(lags)} events:"
      f" p50 {statistics.median(lags):.1f} ms, max {lags[-1]:.1f} ms")

run = call("POST", f"/v1/workspaces/{ws}/runs", {"feature_id": "README.md"}, key="run-1")
answered = time.monotonic()
while time.monotonic() - answered < 10:
    if call("GET", f"/v1/runs/{run['id']}")["status"] != "queued":
        print(f"run accepted -> claimed by a worker (polled every 1 ms): {(time.monotonic() - answered) * 1000:.1f} ms")
        break
    time.sleep(0.001)
PY
