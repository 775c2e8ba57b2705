#!/usr/bin/env bash
# Golden articles: everything the pipeline writes for a corpus of repositories, to show that a
# change meant to change nothing (a restructuring of crates/pipeline/src) changes nothing.
#
#   bash bench/compare/golden.sh OUT_DIR            # write OUT_DIR/<repository>/ (see below)
#   bash bench/compare/golden.sh --compare A B      # compare two OUT_DIRs; exit 1 on a difference
#
# Writing builds the `golden` example (crates/pipeline/examples/golden.rs, public API only) in
# release mode from the checkout this script lives in (CARGO_TARGET_DIR is respected,
# GOLDEN_JOBS=2 cargo jobs), then runs it on
# - the test suite's fixture repositories (tests/it/golden.rs writes them) and the benchmark's
#   generated repository (benches/pipeline.rs --generate), written under
#   ${GOLDEN_FIXTURES:-/tmp/golden-fixtures};
# - the public repositories of CORPUS below under ${GOLDEN_REPOS:-/tmp/golden-repos}/<name>,
#   cloned from GitHub when missing, checked out detached at their pinned commit, `origin` set
#   to their GitHub address (forge links as for a real user) and tags outside the pinned
#   history deleted (a later clone has the same tags);
# for feature `.`, every feature the repository declares and the extra features listed. Each
# repository's output is OUT_DIR/<name>/ (features.json and one folder per feature: articles,
# run.json, log.jsonl, error.txt); the time of each run goes to OUT_DIR/<name>.times.tsv, which
# --compare leaves out. The fixture and repository folders are part of what is written (a
# repository without a package manifest is named after its folder): keep them the same for the
# outputs compared. GOLDEN_BENCH=0 leaves the generated repository out (about half the time).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
REPOS=${GOLDEN_REPOS:-/tmp/golden-repos}
FIXTURES=${GOLDEN_FIXTURES:-/tmp/golden-fixtures}
JOBS=${GOLDEN_JOBS:-2}
# How many differing files --compare shows with diff -u, and how many lines of each.
SHOW=${GOLDEN_SHOW:-5}
SHOW_LINES=${GOLDEN_SHOW_LINES:-60}

# Public repositories: name, GitHub address ('.' = this checkout, with no remote and no tags),
# pinned commit, extra features (a folder and a file, so implicit features are exercised too).
CORPUS='
log               https://github.com/rust-lang/log          037d7a58f6ad184abb3afc4db81d37c43a5696ec  src src/macros.rs
semver            https://github.com/dtolnay/semver         8591f2344b52b31d85b538de58b76a676fe9ff90  src src/parse.rs
itsdangerous      https://github.com/pallets/itsdangerous   672971d66a2ef9f85151e53283113f33d642dabd  src/itsdangerous src/itsdangerous/signer.py
attrs             https://github.com/python-attrs/attrs     c1dc5dcba16ed827aa6dcad896b41a3afedb4e32  src/attrs src/attr/validators.py
nanoid            https://github.com/ai/nanoid              07a39d62d84c21af5046fe6b2ef7b3e36ee557db  non-secure index.js
ky                https://github.com/sindresorhus/ky        3419113b48e034fdcf8fa6bd3be3da7b3d0d758f  source source/core/Ky.ts
uuid              https://github.com/google/uuid            2d3c2a9cc518326daf99a383f07c4d3c44317e4d  version7.go uuid.go
pflag             https://github.com/spf13/pflag            5fdac2d16c16d60605cb8baa887e8c5c38ef623f  flag.go string_slice.go
content-pipeline  .                                         72f8bdb1fa598577fc049a67b199d260e2f39354  crates/pipeline crates/domain/src/enums.rs
'

# Fixture repositories (names as tests/it/golden.rs writes them; `bench` is the benchmark's):
# name, extra features.
FIXTURE_FEATURES='
product        src/export src/export/writer.rs docs/export.md
product-forge  src/export src/export/writer.rs
widgets        widgets plain plain/lib.rs
widgets-forge  widgets
hostile        docs
releases       src src/lib.rs
bench          pkg00 pkg00/sub0/m00.rs
'

log() { printf '==> %s\n' "$*" >&2; }

# The files under folder $1, relative to it, sorted; none when it does not exist.
files() { if [ -d "$1" ]; then (cd "$1" && find . -type f | sed 's|^\./||' | LC_ALL=C sort); fi; }

compare() {
  local a=$1 b=$2 failed=0 shown=0 name file
  if [ ! -d "$a" ] || [ ! -d "$b" ]; then echo "golden.sh --compare A B: two folders" >&2; exit 2; fi
  for name in $( { (cd "$a" && ls -d -- */); (cd "$b" && ls -d -- */); } 2>/dev/null | tr -d / | LC_ALL=C sort -u); do
    # count[<article|other>_<identical|differ|missing>]
    local -A count=()
    while IFS= read -r file; do
      local kind=article outcome
      [[ $file == *.mdx ]] || kind=other
      if [ ! -f "$a/$name/$file" ] || [ ! -f "$b/$name/$file" ]; then
        outcome=missing
        echo "only in $([ -f "$a/$name/$file" ] && echo "$a" || echo "$b"): $name/$file"
      elif cmp -s "$a/$name/$file" "$b/$name/$file"; then
        outcome=identical
      else
        outcome=differ
        if [ "$shown" -lt "$SHOW" ]; then
          shown=$((shown + 1))
          diff -u "$a/$name/$file" "$b/$name/$file" | head -n "$SHOW_LINES" || true
        else
          echo "differs: $name/$file"
        fi
      fi
      count[${kind}_$outcome]=$((${count[${kind}_$outcome]:-0} + 1))
    done < <( (files "$a/$name"; files "$b/$name") | LC_ALL=C sort -u)
    printf '%-18s articles: %5d identical %4d differ %4d missing   other files: %5d identical %4d differ %4d missing\n' \
      "$name" "${count[article_identical]:-0}" "${count[article_differ]:-0}" "${count[article_missing]:-0}" \
      "${count[other_identical]:-0}" "${count[other_differ]:-0}" "${count[other_missing]:-0}"
    [ $((${count[article_differ]:-0} + ${count[article_missing]:-0} + ${count[other_differ]:-0} \
      + ${count[other_missing]:-0})) -eq 0 ] || failed=1
  done
  if [ "$failed" -eq 0 ]; then echo "no difference"; else echo "DIFFERENCES (see above)"; fi
  return "$failed"
}

# Clones (when missing) and checks out repository $1 from address $2 at commit $3; fails when
# the repository or the commit cannot be had (no network).
materialise() {
  local name=$1 url=$2 commit=$3 dir="$REPOS/$1"
  if [ ! -d "$dir/.git" ]; then
    log "cloning $name"
    if [ "$url" = . ]; then
      git -c init.defaultBranch=main clone -q --no-checkout --no-tags "$ROOT" "$dir"
    else
      git clone -q --no-checkout "$url" "$dir" || return 1
    fi
  fi
  if ! git -C "$dir" cat-file -e "$commit^{commit}" 2>/dev/null; then
    log "fetching $name for $commit"
    git -C "$dir" fetch -q "$([ "$url" = . ] && echo "$ROOT" || echo origin)" "$commit" || return 1
  fi
  git -C "$dir" -c advice.detachedHead=false checkout -q --force --detach "$commit" || return 1
  if [ "$url" = . ]; then
    git -C "$dir" remote remove origin 2>/dev/null || true
  else
    git -C "$dir" remote set-url origin "$url" 2>/dev/null || git -C "$dir" remote add origin "$url"
  fi
  git -C "$dir" tag --no-merged "$commit" | xargs -r git -C "$dir" tag -d >/dev/null
  if [ "$url" = . ]; then git -C "$dir" tag | xargs -r git -C "$dir" tag -d >/dev/null; fi
}

# Runs the example on repository folder $2 as OUT/$1, with extra features $3...
golden() {
  local name=$1 repo=$2
  shift 2
  log "$name"
  rm -rf "${OUT:?}/$name"
  "$GOLDEN" "$repo" "$OUT/$name" "$@" >"$OUT/$name.times.tsv"
}

if [ "${1:-}" = --compare ]; then
  [ $# -eq 3 ] || { echo "usage: golden.sh --compare A B" >&2; exit 2; }
  compare "$2" "$3"
  exit
fi
if [ $# -ne 1 ] || [[ $1 == -* ]]; then
  echo "usage: golden.sh OUT_DIR | golden.sh --compare A B" >&2
  exit 2
fi
mkdir -p "$1" "$REPOS" "$FIXTURES"
OUT=$(cd "$1" && pwd)
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
started=$SECONDS
cd "$ROOT"

log "building the golden example, the fixture repositories and the benchmark's repository"
cargo build --release -q -j "$JOBS" -p pipeline --example golden
GOLDEN=$TARGET/release/examples/golden
PIPELINE_FIXTURES_OUT=$FIXTURES cargo test --release -q -j "$JOBS" -p pipeline --test it -- \
  --ignored --exact golden::write_fixture_repositories >&2
if [ "${GOLDEN_BENCH:-1}" != 0 ]; then
  rm -rf "$FIXTURES/bench"
  cargo bench -q -j "$JOBS" -p pipeline --bench pipeline -- --generate "$FIXTURES/bench" >/dev/null
fi

while read -r name features; do
  [ -n "$name" ] || continue
  [ "$name" != bench ] || [ "${GOLDEN_BENCH:-1}" != 0 ] || continue
  # shellcheck disable=SC2086 # the features are words
  golden "$name" "$FIXTURES/$name" $features
done <<<"$FIXTURE_FEATURES"

while read -r name url commit features; do
  [ -n "$name" ] || continue
  # A repository that cannot be had is left out, and --compare reports its articles missing.
  materialise "$name" "$url" "$commit" || { log "left out $name: no $url at $commit"; continue; }
  # shellcheck disable=SC2086
  golden "$name" "$REPOS/$name" $features
done <<<"$CORPUS"

log "done in $((SECONDS - started)) s: $(find "$OUT" -name '*.mdx' | wc -l) articles in $OUT"
