#!/usr/bin/env python3
"""Counts the links of generated help-center articles that do not resolve.

Usage: check_links.py CLONE ARTICLE [CLONE ARTICLE ...]

Links are Markdown links and images, reference definitions, `href`/`src` attributes and
autolinks, outside fenced code and code spans. A link resolves when it is an anchor of a
heading in the article, an external URL (not checked online), or a forge URL
of CLONE's own repository (its `origin`,
`https://github.com/OWNER/NAME/blob|raw|tree/REV/PATH`) whose PATH exists at REV in CLONE
(REV `main`/`master` is the clone's HEAD, counted as written by the project). Anything
else (a site path such as `/docs/x.md`, a relative path) does not resolve.

Each link is also counted by kind: `anchor` (in the article), `docs_source` (the forge's
copy of a docs page, `.md`/`.mdx`/`.rst`/`.ipynb`, where the project's published site
should be named), `forge` (another forge URL of the repository), `external` (any other URL,
the published site among them).
"""
import json
import html
import re
import subprocess
import sys

LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
DEF = re.compile(r"^\s{0,3}\[(?!\^)[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)")
ATTR = re.compile(r"\b(?:href|src)=(?:\{?\"([^\"]+)\"\}?|'([^']+)')")
AUTO = re.compile(r"<(https?://[^>\s]+)>")
FORGE = re.compile(r"https://github\.com/([^/]+)/([^/]+)/(?:blob|raw|tree)/([^/]+)/([^#?]*)")


def slug(text):
    text = re.sub(r"[`*_\[\]()]", "", text).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return re.sub(r"\s", "-", text)


def links(mdx):
    out, fence = [], None
    for n, line in enumerate(mdx.splitlines(), 1):
        m = re.match(r"^\s*(`{3,}|~{3,})", line)
        if fence:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = None
            continue
        if m:
            fence = m.group(1)
            continue
        bare = re.sub(r"`[^`]*`", "", line)
        for rx in (LINK, DEF, AUTO):
            out += [(n, m.group(1)) for m in rx.finditer(bare)]
        out += [(n, m.group(1) or m.group(2)) for m in ATTR.finditer(bare)]
    return out


def exists(clone, rev, path):
    if rev in ("main", "master"):
        rev = "HEAD"
    path = path.rstrip("/")
    r = subprocess.run(["git", "-C", clone, "cat-file", "-e", f"{rev}:{path}"],
                       capture_output=True)
    return r.returncode == 0


def origin(clone):
    r = subprocess.run(["git", "-C", clone, "remote", "get-url", "origin"],
                       capture_output=True, text=True)
    m = re.search(r"github\.com[:/]([^/]+)/([^/]+?)(?:\.git)?/?$", r.stdout.strip())
    return (m.group(1).lower(), m.group(2).lower()) if m else None


def check(clone, article):
    own = origin(clone)
    mdx = open(article, encoding="utf-8").read()
    # Section ids as the portal makes them: headings and step titles, numbered when repeated.
    titles = re.finditer(r'^(?:#+\s+(.*)|<Step title="([^"]*)">)$', mdx, re.M)
    anchors, seen = set(), {}
    for m in titles:
        base = slug(html.unescape(m.group(1) or m.group(2) or "")) or "section"
        n = seen.get(base, 0)
        anchors.add(base if n == 0 else f"{base}-{n}")
        seen[base] = n + 1
    bad, total, at_branch = [], 0, 0
    kinds = {"anchor": 0, "docs_source": 0, "forge": 0, "external": 0}
    for n, url in links(mdx):
        total += 1
        forge = FORGE.match(url)
        if url.startswith("#"):
            kinds["anchor"] += 1
        elif forge and re.search(r"\.(?:md|mdx|rst|ipynb)$", forge.group(4), re.I):
            kinds["docs_source"] += 1
        elif forge or url.startswith("https://github.com/"):
            kinds["forge"] += 1
        else:
            kinds["external"] += 1
        if url.startswith("#"):
            if url[1:].lower() not in anchors:
                bad.append((n, url))
            continue
        m = FORGE.match(url)
        if m and (m.group(1).lower(), m.group(2).lower()) == own:
            from urllib.parse import unquote
            rev = m.group(3)
            at_branch += rev in ("main", "master")
            if not exists(clone, rev, unquote(m.group(4))):
                bad.append((n, url))
            continue
        if re.match(r"^[a-z][a-z0-9+.-]*:", url, re.I) or url.startswith("//"):
            continue
        bad.append((n, url))
    return {"article": article, "links": total, "unresolved": len(bad),
            "at_branch": at_branch, "kinds": kinds, "bad": bad}


def main(argv):
    if len(argv) < 2 or len(argv) % 2:
        sys.exit(__doc__)
    for clone, article in zip(argv[0::2], argv[1::2]):
        r = check(clone, article)
        print(f"{article}: links={r['links']} unresolved={r['unresolved']} "
              f"(at main/master: {r['at_branch']}) "
              + " ".join(f"{k}={v}" for k, v in r["kinds"].items()))
        for n, url in r["bad"]:
            print(f"  {n}: {url}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
