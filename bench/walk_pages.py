"""Walks a run list with limit=100 from the first page to the last, over one keep-alive
connection, and prints the latency of the first pages and of the deepest ones, plus the
cursor of a deep page for the load generator."""
import http.client, json, statistics, sys, time, urllib.parse

host, port, ws, token = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
conn = http.client.HTTPConnection(host, port)
headers = {"Authorization": f"Bearer {token}"}
path = f"/v1/workspaces/{ws}/runs?limit=100"
cursor, times, cursors = None, [], []
while True:
    url = path + (f"&cursor={urllib.parse.quote(cursor)}" if cursor else "")
    t0 = time.perf_counter()
    conn.request("GET", url, headers=headers)
    res = conn.getresponse()
    data = json.loads(res.read())
    times.append(time.perf_counter() - t0)
    if res.status != 200:
        sys.exit(f"page {len(times)}: HTTP {res.status} {data}")
    cursor = data["next_cursor"]
    if cursor is None:
        break
    cursors.append(cursor)
first = statistics.median(times[:100]) * 1000
deep = statistics.median(times[-100:]) * 1000
print(json.dumps({"pages": len(times), "first_p50_ms": round(first, 3), "deep_p50_ms": round(deep, 3),
                  "deep_cursor": cursors[-2] if len(cursors) > 1 else ""}))
