#!/usr/bin/env bash
# Portal page benchmark (issue 12): a workspace of 1,000 runs and 1,000 articles on a fresh
# database, the release binary serving it, and the latency of GET requests to each page given
# (p50/p90/p99/max) with the server's CPU time per request. See
# crates/content-pipeline/benches/portal.rs for what is seeded and measured.
#   usage: bash bench/portal.sh [PAGE…]        (default: the API's pages as stand-ins)
#          bash bench/portal.sh '/portal/{ws}/runs' '/portal/articles/{article}'
#          BENCH_ENGINE=postgres bash bench/portal.sh
#          BENCH_PUBLISH_ALL=1 bash bench/portal.sh '/published/workspaces/{ws}/search?q=configure'
#                                              (search over 1,000 published articles, issue 33)
#          BENCH_COOKIE='…' BENCH_REQUESTS=1000 BENCH_CONCURRENCY=1 bash bench/portal.sh
#          PROFILE=debug bash bench/portal.sh  (debug build: checks that it works, the numbers
#                                               mean nothing)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${PROFILE:-release}" = debug ]; then
  exec cargo test --quiet -p content-pipeline --bench portal -- "$@"
fi
exec cargo bench --quiet -p content-pipeline --bench portal -- "$@"
