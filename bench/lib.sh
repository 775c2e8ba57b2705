# Pieces shared by the wrk benchmarks (api.sh, request_path.sh); sourced, not run.

# wrk from Debian's packages, when missing.
ensure_wrk() {
  if ! command -v wrk >/dev/null; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null
  fi
}

# The id of a JSON object read from stdin (what the CLI's `workspaces create` prints).
json_id() {
  python3 -c 'import sys,json; print(json.load(sys.stdin)["id"])'
}

# The summary of one or more wrk --latency outputs run at the same time against one service
# each: "rps p50 p99 requests" (requests/s and requests summed, latencies in ms, the highest of
# the outputs). Fails on non-2xx responses unless EXPECT_ERRORS=1.
wrk_summary() {
  python3 - "$@" <<'PY'
import os, re, sys
def ms(v):
    n, unit = float(re.match(r"([\d.]+)", v).group(1)), re.sub(r"[\d.]", "", v)
    return n * {"us": 0.001, "ms": 1, "s": 1000, "m": 60000}[unit]
rps = p50 = p99 = 0.0
requests = 0
for path in sys.argv[1:]:
    out = open(path).read()
    if "Latency Distribution" not in out:
        sys.exit("wrk failed:\n" + out)
    rps += float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    requests += int(re.search(r"(\d+) requests in", out).group(1))
    p50 = max(p50, ms(re.search(r"^\s+50%\s+(\S+)", out, re.M).group(1)))
    p99 = max(p99, ms(re.search(r"^\s+99%\s+(\S+)", out, re.M).group(1)))
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    if errors and os.environ.get("EXPECT_ERRORS") != "1":
        sys.exit(f"non-2xx responses: {errors.group(1)}\n{out}")
print(f"{rps:.0f} {p50:.2f} {p99:.2f} {requests}")
PY
}

# CPU time (user + system) of the given processes so far, in clock ticks (/proc/<pid>/stat,
# fields 14 and 15; the command name in field 2 may hold spaces, so count from its end).
cpu_ticks() {
  local total=0 pid stat
  for pid in "$@"; do
    stat=$(cat "/proc/$pid/stat" 2>/dev/null) || continue
    stat=${stat##*) }
    # shellcheck disable=SC2086
    set -- $stat
    total=$((total + ${12} + ${13}))
  done
  echo "$total"
}

# Peak resident memory of a process (VmHWM), MiB.
peak_rss_mib() {
  awk '/VmHWM/ {printf "%.1f", $2/1024}' "/proc/$1/status"
}

# Waits until http://127.0.0.1:$1/healthz answers (10 s at most).
wait_healthy() {
  for _ in $(seq 1 50); do
    curl -sf "http://127.0.0.1:$1/healthz" >/dev/null && return 0
    sleep 0.2
  done
  echo "the server on port $1 did not start" >&2
  return 1
}
