#!/usr/bin/env python3
"""Help-center figures on a real repository: for each feature, whether the run wrote a
walkthrough (and how many steps, from which document and rule) or no article, and what a
reader would still strike out in what was written.

usage: bench/compare/helpcenter.py CLONE FEATURE [FEATURE ...]

CLONE is a git clone (its `origin` remote decides where links point). Runs the pipeline's
`generate` example (GENERATE=path/to/binary to reuse a built one; otherwise `cargo run`),
reads `help-center.mdx` and the other articles it writes, and prints one JSON line per
feature and a summary line:

- walkthrough / none: features with a derived (or manifest) walkthrough / without an article;
- placeholders: placeholder sentences left in any article (must be 0);
- raw_admonitions: `:::note`, `!!! note`, `> [!NOTE]` left outside code;
- escaped_html: `<details>`, `<summary>`, `<img>`, `<br>`, `<kbd>` shown as escaped text;
- relative_links: Markdown links or images whose target is still a repository path;
- heading_jumps: headings more than one level below the previous one.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

PLACEHOLDERS = [
    "no walkthrough steps yet",
    "has no walkthrough",
    "lorem ipsum",
    "todo: write",
    "coming soon",
]
KINDS = r"(note|info|tip|hint|important|warning|caution|danger|attention|error|success|abstract|example|question|bug|quote)"
ADMONITION = re.compile(r"^\s*(:::+\s*" + KINDS + r"\b|!!!\s+" + KINDS + r"\b|\?\?\?\+?\s+" + KINDS + r"\b|>\s*\[![A-Z]+\])", re.I)
ESCAPED_HTML = re.compile(r"\\<(details|summary|img|br|kbd)\b", re.I)
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)")
HEADING = re.compile(r"^(#{1,6})\s")


def outside_code(text):
    fence = None
    for line in text.splitlines():
        stripped = line.lstrip()
        if fence:
            if stripped.startswith(fence) and stripped.strip() == fence:
                fence = None
            continue
        m = re.match(r"(`{3,}|~{3,})", stripped)
        if m:
            fence = m.group(1)
            continue
        yield line


def inspect(text):
    lines = list(outside_code(text))
    figures = {"raw_admonitions": 0, "escaped_html": 0, "relative_links": 0, "heading_jumps": 0}
    previous = None
    for line in lines:
        if ADMONITION.match(line):
            figures["raw_admonitions"] += 1
        figures["escaped_html"] += len(ESCAPED_HTML.findall(line))
        for target in LINK.findall(re.sub(r"`[^`]*`", "", line)):
            if not re.match(r"^([a-z][a-z0-9+.-]*:|#|/)", target, re.I):
                figures["relative_links"] += 1
        m = HEADING.match(line)
        if m:
            level = len(m.group(1))
            if previous is not None and level > previous + 1:
                figures["heading_jumps"] += 1
            previous = level
    return figures


def generate(clone, feature, out):
    binary = os.environ.get("GENERATE")
    cmd = [binary] if binary else ["cargo", "run", "-q", "-p", "pipeline", "--example", "generate", "--"]
    proc = subprocess.run(cmd + [clone, feature, out], capture_output=True, text=True)
    log = []
    for line in proc.stderr.splitlines():
        try:
            log.append(json.loads(line))
        except json.JSONDecodeError:
            pass
    return proc.returncode, log, proc.stderr


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    clone = os.path.abspath(sys.argv[1])
    total = {"features": 0, "walkthrough": 0, "none": 0, "failed": 0, "steps": 0,
             "placeholders": 0, "raw_admonitions": 0, "escaped_html": 0,
             "relative_links": 0, "heading_jumps": 0}
    for feature in sys.argv[2:]:
        total["features"] += 1
        with tempfile.TemporaryDirectory() as out:
            code, log, stderr = generate(clone, feature, out)
            row = {"feature": feature}
            if code != 0:
                row["status"] = "failed"
                row["error"] = stderr.strip().splitlines()[-1:] 
                total["failed"] += 1
                print(json.dumps(row))
                continue
            articles = {name[:-4]: open(os.path.join(out, name), encoding="utf-8").read()
                        for name in os.listdir(out) if name.endswith(".mdx")}
            help_center = articles.get("help-center")
            derived = next((e for e in log if e.get("message", "").startswith("derived the walkthrough")), None)
            if help_center is None:
                row["status"] = "none"
                total["none"] += 1
            else:
                row["status"] = "walkthrough" if "<Steps>" in help_center else "article without steps"
                if "<Steps>" in help_center:
                    total["walkthrough"] += 1
                row["steps"] = help_center.count("<Step title=")
                total["steps"] += row["steps"]
                if derived:
                    row["from"] = derived["data"].get("path")
                    row["rule"] = derived["data"].get("rule")
                for key, value in inspect(help_center).items():
                    row[key] = value
                    total[key] += value
            placeholders = sum(text.lower().count(p) for text in articles.values() for p in PLACEHOLDERS)
            row["placeholders"] = placeholders
            total["placeholders"] += placeholders
            print(json.dumps(row))
    print(json.dumps({"summary": total}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
