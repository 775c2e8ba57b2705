#!/usr/bin/env python3
"""Compares the changelog the pipeline writes with the CHANGELOG.md a project publishes.

    bench/compare/changelog.py /abs/path/to/clone [FEATURE] [--releases N] [--changelog PATH]

FEATURE defaults to `.` (the repository root; until that is supported, give a folder such as
`src`). The script takes the newest N releases of the project's CHANGELOG.md (default 3),
runs the pipeline's `generate` example from the commit of the release before them (so the
run covers exactly those releases, split at their tags), and per release counts:

- recall: their entries we list too;
- recall (feature): the same, counting only their entries whose commit touches FEATURE
  (an entry of theirs about another folder is not ours to list);
- noise: our entries they do not list.

Entries are matched by the commit id both link to, else by their normalised text (links,
commit ids, pull request references and GitHub's " by @user in <url>" credits removed).
GitHub's "New Contributors" bullets are not entries. Nothing is written to the clone; the
generated articles go to a temporary folder. `GENERATE=/path/to/generate` runs that build of
the example instead of `cargo run` (a target folder shared between checkouts can hold
another checkout's build).
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VERSION = re.compile(r"^##\s+\[?v?(\d+\.\d+\.\d+[^\]\s]*)\]?")
BULLET = re.compile(r"^[-*]\s+(.*)")
SHA = re.compile(r"\b([0-9a-f]{7,40})\b")


def git(clone, *args):
    return subprocess.run(
        ["git", "-C", clone, *args], capture_output=True, text=True, check=False
    ).stdout.strip()


def their_releases(changelog_text):
    """{version: [entry text]} in file order, top-level bullets only."""
    releases, order, current = {}, [], None
    for line in changelog_text.splitlines():
        m = VERSION.match(line)
        if m:
            current = m.group(1)
            order.append(current)
            releases[current] = []
            continue
        if line.startswith("## ") and not re.match(r"^##\s+(What's Changed|New Contributors)", line):
            current = None
            continue
        b = BULLET.match(line)
        if current and b and "made their first contribution" not in b.group(1):
            releases[current].append(b.group(1))
    return order, releases


def our_releases(mdx):
    """{version: [entry text]} from the generated changelog."""
    releases, current = {}, None
    for line in mdx.splitlines():
        m = re.match(r'^<Update label="([^"]+)"', line)
        if m:
            current = m.group(1)
            releases[current] = []
            continue
        # Our own entries are "- …"; a release shown from the project's changelog keeps its
        # "* …" bullets.
        b = BULLET.match(line)
        if current and b and "made their first contribution" not in b.group(1):
            releases[current].append(b.group(1))
    return releases


def normalise(text):
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # links → their text
    text = re.sub(r"\s+by @\S+( in https?://\S+)?\s*$", "", text)  # GitHub's credits
    text = re.sub(r"\(by @[^)]*\)", "", text)
    text = re.sub(r"https?://\S+", "", text)
    text = re.sub(r"\(\s*`?[0-9a-f]{7,40}`?\s*\)", "", text)  # (sha)
    text = re.sub(r"\(#\d+\)|#\d+", "", text)
    text = re.sub(r"^\*\*[^*]+:\*\*\s*|^\*\*[^*]+\*\*:\s*|^\*\([^)]*\)\*\s*", "", text)  # scopes
    text = text.replace("\\", "").lower()
    text = re.sub(r"[^a-z0-9]+", " ", text)
    return text.strip()


def key_sets(entries):
    shas, texts = set(), set()
    for e in entries:
        found = SHA.findall(e)
        if found:
            shas.add(found[-1][:7])
        texts.add(normalise(e))
    return shas, texts


def matches(entry, shas, texts):
    found = SHA.findall(entry)
    if found and found[-1][:7] in shas:
        return True
    return normalise(entry) in texts


def touches(clone, entry, feature):
    if feature in (".", ""):
        return True
    found = SHA.findall(entry)
    if found:
        commit = found[-1]
    else:
        # No commit id (commitizen's format): the newest commit whose subject has the text.
        text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", entry)
        text = re.sub(r"^\*\*[^*]+\*\*:?\s*|\s*\(#\d+\)", "", text).strip()
        commit = git(clone, "log", "-n", "1", "--format=%H", "--fixed-strings",
                     f"--grep={text[:60]}")
        if not commit:
            return True  # nothing to check: counted
    files = git(clone, "show", "--format=", "--name-only", commit)
    return any(f == feature or f.startswith(feature.rstrip("/") + "/") for f in files.splitlines())


def tag_commit(clone, version):
    for name in (f"v{version}", version):
        sha = git(clone, "rev-list", "-n", "1", name)
        if sha:
            return sha
    # Monorepo tags: any tag ending in the version.
    for name in git(clone, "tag", "--list", f"*{version}").splitlines():
        sha = git(clone, "rev-list", "-n", "1", name)
        if sha:
            return sha
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("clone")
    parser.add_argument("feature", nargs="?", default=".")
    parser.add_argument("--releases", type=int, default=3)
    parser.add_argument("--changelog", default="CHANGELOG.md")
    args = parser.parse_args()
    clone = os.path.abspath(args.clone)
    text = git(clone, "show", f"HEAD:{args.changelog}")
    if not text:
        sys.exit(f"{args.changelog} not found at HEAD of {clone}")
    order, theirs = their_releases(text)
    versions = [v for v in order if tag_commit(clone, v)][: args.releases + 1]
    if len(versions) < 2:
        sys.exit("fewer than two tagged releases in the CHANGELOG")
    compared, base = versions[:-1], versions[-1]
    since = tag_commit(clone, base)
    out = tempfile.mkdtemp(prefix="changelog-compare-")
    generate = os.environ.get("GENERATE")
    cmd = ([generate] if generate else
           ["cargo", "run", "-q", "-p", "pipeline", "--example", "generate", "--"])
    cmd += [clone, args.feature, out, since]
    run = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=False)
    if run.returncode != 0:
        sys.exit(f"generate failed:\n{run.stderr[-2000:]}")
    with open(os.path.join(out, "changelog.mdx"), encoding="utf-8") as f:
        ours = our_releases(f.read())
    print(f"{os.path.basename(clone)} feature={args.feature} since {base} ({since[:7]})")
    print(f"{'release':<14}{'theirs':>7}{'in feature':>11}{'ours':>6}"
          f"{'recall':>8}{'recall(f)':>10}{'noise':>7}")
    totals = [0, 0, 0, 0, 0, 0]
    for version in compared:
        their = theirs.get(version, [])
        mine = ours.get(version, [])
        in_feature = [e for e in their if touches(clone, e, args.feature)]
        shas, texts = key_sets(mine)
        found = sum(matches(e, shas, texts) for e in their)
        found_f = sum(matches(e, shas, texts) for e in in_feature)
        t_shas, t_texts = key_sets(their)
        noise = sum(not matches(e, t_shas, t_texts) for e in mine)
        pct = lambda a, b: f"{100 * a / b:.0f}%" if b else "-"
        print(f"{version:<14}{len(their):>7}{len(in_feature):>11}{len(mine):>6}"
              f"{pct(found, len(their)):>8}{pct(found_f, len(in_feature)):>10}"
              f"{pct(noise, len(mine)):>7}")
        for i, v in enumerate([len(their), len(in_feature), len(mine), found, found_f, noise]):
            totals[i] += v
        if os.environ.get("VERBOSE"):
            for e in mine:
                if not matches(e, t_shas, t_texts):
                    print(f"    noise: {e}")
            for e in in_feature:
                if not matches(e, shas, texts):
                    print(f"    missed: {e}")
    # The whole range, sections ignored: an entry in the wrong release counts here.
    all_theirs = [e for v in compared for e in theirs.get(v, [])]
    all_in_feature = [e for e in all_theirs if touches(clone, e, args.feature)]
    all_ours = [e for v in compared for e in ours.get(v, [])]
    shas, texts = key_sets(all_ours)
    t_shas, t_texts = key_sets(all_theirs)
    range_row = (
        len(all_theirs), len(all_in_feature), len(all_ours),
        sum(matches(e, shas, texts) for e in all_theirs),
        sum(matches(e, shas, texts) for e in all_in_feature),
        sum(not matches(e, t_shas, t_texts) for e in all_ours),
    )
    t, tf, m, f, ff, n = totals
    pct = lambda a, b: f"{100 * a / b:.0f}%" if b else "-"
    print(f"{'all':<14}{t:>7}{tf:>11}{m:>6}{pct(f, t):>8}{pct(ff, tf):>10}{pct(n, m):>7}")
    t, tf, m, f, ff, n = range_row
    print(f"{'range':<14}{t:>7}{tf:>11}{m:>6}{pct(f, t):>8}{pct(ff, tf):>10}{pct(n, m):>7}")


if __name__ == "__main__":
    main()
