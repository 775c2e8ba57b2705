#!/usr/bin/env python3
"""Compares the changelog the pipeline writes with the changelog file a project publishes.

    bench/compare/changelog.py /abs/path/to/clone [FEATURE] [--releases N]
        [--changelog PATH] [--tag-prefix PREFIX] [--first-run] [--out DIR] [--json]

FEATURE defaults to `.` (the repository root). The script reads the project's changelog file
(`--changelog`, default CHANGELOG.md; Markdown, or reStructuredText when it ends in `.rst`).

Default mode: the newest N releases of the file that have a tag (default 3); the pipeline's
`generate` example runs from the tag of the release before them, so the run covers exactly
those releases. `--first-run`: the example runs without a starting commit (a first run, its
own window of releases), and every release of the file whose version lies within the
versions we show is compared (one we do not show counts as missed: "missing releases").

Per release it counts
- recall: their entries we list too;
- recall (feature): the same, counting only their entries whose commit touches FEATURE;
- unmatched: our entries they do not list (not all noise: an entry of ours may be right
  where the project left it out);
- misfiled: our entries whose commit the release's tag does not contain (must be 0);
- noise: our entries a reader strikes as noise (READER-RUBRIC.md): lint, typo, formatting
  and "tweaks" subjects, commits that touched only contributor, agent, CI or lint files, the
  same change twice, a revert's stray quotes.

Entries are matched by the commit id both link to, else by their normalised text (links,
commit ids, pull request references, reStructuredText roles and GitHub's " by @user in
<url>" credits removed), compared on the first 60 characters or by word overlap. A bullet's
whole first paragraph is its text. `--tag-prefix` names a monorepo package's tags
(`@scope/pkg@`, `pkg-v`, `pkg/v`); without it `v1.2.3`, `1.2.3`, then any tag ending in the
version are tried. Nothing is written to the clone; the articles go to `--out` (default a
temporary folder). `GENERATE=/path/to/generate` runs that build of the example instead of
`cargo run`.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VERSION_TEXT = re.compile(
    r"^\[?(?:version\s+|release\s+)?v?(\d+\.\d+(?:\.\d+)?(?:-[0-9A-Za-z.]+)?)\]?", re.I)
MD_HEADING = re.compile(r"^(#{1,4})\s+(.*)")
BULLET = re.compile(r"^[-*+]\s+(.*)")
SHA = re.compile(r"\b([0-9a-f]{7,40})\b")
COMMIT_URL = re.compile(r"/commit/([0-9a-f]{7,40})")
NOT_RELEASE = re.compile(r"^(What's Changed|New Contributors)", re.I)

# What a reader strikes as noise in a changelog (READER-RUBRIC.md, "Noise in a changelog").
NOISE_SUBJECT = re.compile(
    r"\b(lint(s|ing)?|linter|typos?|tweaks?|fmt|rustfmt|prettier|clippy|whitespace|"
    r"formatting|reformat(ted)?|spelling)\b", re.I)
CONTRIBUTOR_FILE = re.compile(
    r"(^|/)(AGENTS\.md|CLAUDE\.md|GEMINI\.md|\.agents/|\.claude/|CONTRIBUTING(\.\w+)?|"
    r"CODE_OF_CONDUCT(\.\w+)?|\.github/|\.gitlab-ci\.yml|\.pre-commit-config\.yaml|"
    r"\.golangci\.ya?ml|\.eslintrc.*|eslint\.config\.\w+|\.prettierrc.*|rustfmt\.toml|"
    r"clippy\.toml|typos\.toml|\.editorconfig|\.mailmap|\.git-blame-ignore-revs|codecov\.ya?ml|"
    r"\.codecov\.ya?ml|SKILL\.md)")


def git(clone, *args):
    return subprocess.run(
        ["git", "-C", clone, *args], capture_output=True, text=True, check=False
    ).stdout.strip()


def heading_version(title):
    m = VERSION_TEXT.match(title.strip())
    if not m:
        m = re.search(r"(?:^|[\s@/_-])v?(\d+\.\d+\.\d+(?:-[0-9A-Za-z.]+)?)\b", title)
    return m.group(1) if m else None


def headings(lines, rst):
    """[(line index, level, title)]; reStructuredText levels in order of first use."""
    found, order = [], []
    if not rst:
        fence = False
        for i, line in enumerate(lines):
            if line.startswith("```"):
                fence = not fence
            m = MD_HEADING.match(line)
            if m and not fence:
                found.append((i, len(m.group(1)), m.group(2).strip()))
            # A setext heading: a line of text underlined by `===` (level 1) or `---` (2).
            under = lines[i + 1].strip() if i + 1 < len(lines) else ""
            if (not fence and not m and line.strip() and not BULLET.match(line.strip())
                    and re.fullmatch(r"=+|-+", under) and (i == 0 or not lines[i - 1].strip()
                                                          or MD_HEADING.match(lines[i - 1]))):
                found.append((i, 1 if under[0] == "=" else 2, line.strip()))
        return found
    for i in range(len(lines) - 1):
        title, under = lines[i].rstrip(), lines[i + 1].rstrip()
        if (title.strip() and len(under) >= 3 and len(set(under)) == 1
                and under[0] in "=-~^*+#\"'`:." and len(under) >= len(title.strip())
                and len(set(title.strip())) > 1):
            if under[0] not in order:
                order.append(under[0])
            found.append((i, order.index(under[0]) + 1, title.strip()))
    return found


def bullets(lines):
    """Top-level bullets of a section, each with its whole first paragraph."""
    out, current = [], None
    for line in lines:
        b = BULLET.match(line)
        if b:
            if current is not None:
                out.append(current)
            current = b.group(1).strip()
            continue
        if current is not None:
            if line.strip() and line[:1] in (" ", "\t"):
                current += " " + line.strip()
            else:
                out.append(current)
                current = None
    if current is not None:
        out.append(current)
    return [b for b in out if "made their first contribution" not in b and normalise(b)]


def their_releases(text, rst):
    """(versions in file order, {version: [entry]}) at the level most release headings use."""
    lines = text.splitlines()
    hs = headings(lines, rst)
    levels = {}
    for _, level, title in hs:
        if heading_version(title):
            levels[level] = levels.get(level, 0) + 1
    if not levels:
        return [], {}
    level = max(levels, key=lambda l: (levels[l], -l))
    order, releases = [], {}
    starts = [h for h in hs if h[1] <= level]
    for k, (i, lvl, title) in enumerate(starts):
        version = heading_version(title) if lvl == level else None
        if not version or NOT_RELEASE.match(title):
            continue
        end = len(lines)
        for j, lvl2, title2 in starts[k + 1:]:
            if lvl2 < level or heading_version(title2) or re.search(r"unreleased", title2, re.I):
                end = j
                break
        if version in releases:
            continue
        order.append(version)
        underlined = i + 1 < len(lines) and re.fullmatch(r"\s*(=+|-+)\s*", lines[i + 1])
        releases[version] = bullets(lines[i + 2 if rst or underlined else i + 1:end])
    return order, releases


def our_releases(mdx):
    """{label: {"entries": [...], "tag": compared-to tag or None}} from changelog.mdx."""
    releases, current, body = {}, None, []
    for line in mdx.splitlines():
        m = re.match(r'^<Update label="([^"]+)"', line)
        if m:
            if current:
                releases[current]["entries"] = bullets(body)
            current, body = m.group(1), []
            releases[current] = {"entries": [], "tag": None}
            continue
        if current is None:
            continue
        c = re.match(r"^\[Compare (\S+)\.\.\.(\S+)\]", line)
        if c and c.group(2) != "HEAD":
            releases[current]["tag"] = c.group(2)
        if line.startswith("</Update>"):
            releases[current]["entries"] = bullets(body)
            current = None
            continue
        body.append(line)
    return releases


def normalise(text):
    text = re.sub(r":(issue|pr|user|ghuser|commit|bug|gh):`[^`]*`", "", text)
    text = re.sub(r":[\w:-]+:`(?:[^`<]*<)?([^`>]*)>?`", r"\1", text)  # other roles
    text = re.sub(r"\s+--\s+by\s*\S*\s*$", "", text)
    text = re.sub(r"\*Related issues and pull requests on GitHub:\*.*$", "", text)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # links → their text
    text = re.sub(r"\[([^\]]*)\]\[[^\]]*\]", r"\1", text)  # reference links
    text = re.sub(r"Thanks \[?@[\w-]+\]?!\s*-?", "", text)  # changesets' credits
    text = re.sub(r"\s+by @\S+( in https?://\S+)?\s*$", "", text)  # GitHub's credits
    text = re.sub(r"\(by @[^)]*\)", "", text)
    text = re.sub(r"https?://\S+", "", text)
    text = re.sub(r"`?\b[0-9a-f]{7,40}\b`?", "", text)
    text = re.sub(r"\(#\d+\)|#\d+", "", text)
    text = re.sub(r"^\s*\*\*[^*]+:\*\*\s*|^\s*\*\*[^*]+\*\*:\s*|^\s*\*\([^)]*\)\*\s*", "", text)
    text = text.replace("\\", "").lower()
    text = re.sub(r"[^a-z0-9]+", " ", text)
    return text.strip()


def commit_of(entry):
    m = COMMIT_URL.findall(entry)
    if m:
        return m[-1]
    found = SHA.findall(entry)
    return found[-1] if found else None


class Keys:
    def __init__(self, entries):
        self.shas = {c[:7] for c in map(commit_of, entries) if c}
        self.texts = [normalise(e) for e in entries]
        self.prefixes = {t[:60] for t in self.texts if t}
        self.words = [set(t.split()) for t in self.texts]

    def has(self, entry):
        c = commit_of(entry)
        if c and c[:7] in self.shas:
            return True
        t = normalise(entry)
        if not t:
            return False
        if t[:60] in self.prefixes:
            return True
        w = set(t.split())
        if len(w) < 4:
            return False
        return any(len(w & o) / len(w | o) >= 0.75 for o in self.words if o)


def touches(clone, entry, feature):
    if feature in (".", ""):
        return True
    commit = commit_of(entry)
    if not commit:
        text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", entry)
        text = re.sub(r"^\*\*[^*]+\*\*:?\s*|\s*\(#\d+\)", "", text).strip()
        commit = git(clone, "log", "-n", "1", "--format=%H", "--fixed-strings",
                     f"--grep={text[:60]}")
        if not commit:
            return True  # nothing to check: counted
    files = git(clone, "show", "--format=", "--name-only", commit)
    return any(f == feature or f.startswith(feature.rstrip("/") + "/") for f in files.splitlines())


def tag_name(clone, version, prefix):
    names = [f"{prefix}{version}"] if prefix else [f"v{version}", version]
    for name in names:
        if git(clone, "rev-parse", "-q", "--verify", f"refs/tags/{name}"):
            return name
    if prefix:
        return None
    for name in git(clone, "tag", "--list", f"*{version}").splitlines():
        if re.search(r"(^|[^0-9.])v?" + re.escape(version) + "$", name):
            return name
    return None


def contains(clone, tag, commit):
    return subprocess.run(
        ["git", "-C", clone, "merge-base", "--is-ancestor", commit, tag],
        capture_output=True, check=False).returncode == 0


def patch_id(clone, commit):
    diff = subprocess.run(["git", "-C", clone, "show", commit], capture_output=True,
                          check=False).stdout
    out = subprocess.run(["git", "-C", clone, "patch-id", "--stable"], input=diff,
                         capture_output=True, check=False).stdout.decode().split()
    return out[0] if out else commit


def noise_kind(clone, entry, theirs, seen):
    """Why a reader strikes the entry out, or None. What the project lists itself is its
    own choice (a "Miscellaneous Tasks" group), so only our entries it does not list are
    judged by their words and files; the same change twice always counts."""
    t = normalise(entry)
    commit = commit_of(entry)
    key = patch_id(clone, commit) if commit and git(clone, "cat-file", "-t", commit) == "commit" else t
    if t and any(t == u and (key == k or not commit) for k, u in seen):
        return "twice"
    seen.add((key, t))
    if theirs.has(entry):
        return None
    plain = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", entry)
    if re.match(r"^(\*\*[^*]+\*\*:?\s*)?revert\b.*[\"“]", plain, re.I) or '\\"' in entry:
        return "revert quotes"
    if NOISE_SUBJECT.search(plain[:160]):
        return "lint/typo/tweak"
    if commit:
        files = git(clone, "show", "--format=", "--name-only", commit).splitlines()
        if files and all(CONTRIBUTOR_FILE.search(f) for f in files):
            return "contributor files only"
    return None


def label_version(label):
    return heading_version(label.split(" ")[-1]) or heading_version(label)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("clone")
    parser.add_argument("feature", nargs="?", default=".")
    parser.add_argument("--releases", type=int, default=3)
    parser.add_argument("--changelog", default="CHANGELOG.md")
    parser.add_argument("--tag-prefix", default="")
    parser.add_argument("--first-run", action="store_true")
    parser.add_argument("--out")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    clone = os.path.abspath(args.clone)
    text = git(clone, "show", f"HEAD:{args.changelog}")
    if not text:
        sys.exit(f"{args.changelog} not found at HEAD of {clone}")
    order, theirs = their_releases(text, args.changelog.lower().endswith(".rst"))
    # A pre-release folds into its final release when the file has that too.
    finals = {v for v in theirs if "-" not in v}
    tagged = [v for v in order if tag_name(clone, v, args.tag_prefix)
              and ("-" not in v or v.split("-")[0] not in finals)]
    since = None
    if not args.first_run:
        versions = tagged[: args.releases + 1]
        if len(versions) < 2:
            sys.exit("fewer than two tagged releases in the changelog")
        base = versions[-1]
        since = git(clone, "rev-list", "-n", "1", tag_name(clone, base, args.tag_prefix))
    out = args.out or tempfile.mkdtemp(prefix="changelog-compare-")
    generate = os.environ.get("GENERATE")
    cmd = ([generate] if generate else
           ["cargo", "run", "-q", "-p", "pipeline", "--example", "generate", "--"])
    cmd += [clone, args.feature, out] + ([since] if since else [])
    run = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=False)
    with open(os.path.join(out, "log.jsonl"), "w", encoding="utf-8") as f:
        f.write(run.stderr)
    if run.returncode != 0:
        sys.exit(f"generate failed:\n{run.stderr[-2000:]}")
    try:
        with open(os.path.join(out, "changelog.mdx"), encoding="utf-8") as f:
            ours_by_label = our_releases(f.read())
    except FileNotFoundError:
        ours_by_label = {}
    ours = {}
    for label, release in ours_by_label.items():
        v = label_version(label)
        ours.setdefault(v or label, release)
    if args.first_run:
        def key(v):
            return tuple(int(x) for x in re.findall(r"\d+", v.split("-")[0])[:3])
        shown = [v for v in ours if v and re.match(r"\d", v) and v in theirs]
        lowest = min((key(v) for v in shown), default=None)
        compared = [v for v in tagged if lowest and key(v) >= lowest and "-" not in v]
    else:
        compared = versions[:-1]
    rows = []
    for version in compared:
        their = theirs.get(version, [])
        release = ours.get(version, {"entries": [], "tag": None})
        mine = release["entries"]
        tag = release["tag"] or tag_name(clone, version, args.tag_prefix)
        in_feature = [e for e in their if touches(clone, e, args.feature)]
        ok, back = Keys(mine), Keys(their)
        found = sum(ok.has(e) for e in their)
        found_f = sum(ok.has(e) for e in in_feature)
        unmatched = [e for e in mine if not back.has(e)]
        misfiled = [e for e in mine
                    if commit_of(e) and tag and git(clone, "cat-file", "-t", commit_of(e)) == "commit"
                    and not contains(clone, tag, commit_of(e))]
        seen = set()
        noise = [(noise_kind(clone, e, back, seen), e) for e in mine]
        noise = [(k, e) for k, e in noise if k]
        rows.append({
            "release": version, "shown": version in ours, "theirs": len(their),
            "in_feature": len(in_feature), "ours": len(mine), "found": found,
            "found_f": found_f, "unmatched": len(unmatched), "misfiled": len(misfiled),
            "noise": len(noise),
            "details": {
                "missed": [e for e in in_feature if not ok.has(e)],
                "unmatched": unmatched, "misfiled": misfiled,
                "noise": [f"{k}: {e}" for k, e in noise],
            },
        })
    missing = [r["release"] for r in rows if not r["shown"] and r["theirs"]]
    total = {k: sum(r[k] for r in rows) for k in
             ("theirs", "in_feature", "ours", "found", "found_f", "unmatched", "misfiled", "noise")}
    summary = {
        "repository": os.path.basename(clone), "feature": args.feature,
        "mode": "first-run" if args.first_run else f"since {versions[-1]}",
        "releases": len(rows), "missing_releases": missing, **total,
        "recall": round(total["found"] / total["theirs"], 3) if total["theirs"] else None,
        "recall_feature": (round(total["found_f"] / total["in_feature"], 3)
                           if total["in_feature"] else None),
        "out": out,
    }
    if args.json:
        print(json.dumps({**summary, "rows": rows}))
        return
    pct = lambda a, b: f"{100 * a / b:.0f}%" if b else "-"
    print(f"{summary['repository']} feature={args.feature} {summary['mode']} -> {out}")
    print(f"{'release':<14}{'theirs':>7}{'in feat':>8}{'ours':>6}{'recall':>8}"
          f"{'recall(f)':>10}{'unmatched':>10}{'misfiled':>9}{'noise':>6}")
    for r in rows + [dict(release="all", **total)]:
        print(f"{r['release']:<14}{r['theirs']:>7}{r['in_feature']:>8}{r['ours']:>6}"
              f"{pct(r['found'], r['theirs']):>8}{pct(r['found_f'], r['in_feature']):>10}"
              f"{r['unmatched']:>10}{r['misfiled']:>9}{r['noise']:>6}")
        if os.environ.get("VERBOSE") and "details" in r:
            for kind, items in r["details"].items():
                for e in items:
                    print(f"    {kind}: {e[:160]}")
    if missing:
        print(f"missing releases: {', '.join(missing)}")


if __name__ == "__main__":
    main()
