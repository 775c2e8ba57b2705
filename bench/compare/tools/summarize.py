#!/usr/bin/env python3
"""Table of the panel's numbers from OUT_DIR/NAME.cmp.json (written by run_panel.sh).

    summarize.py panel.tsv OUT_DIR > summary.md
"""
import json
import os
import sys


def main() -> int:
    panel, out = sys.argv[1], sys.argv[2]
    half = os.environ.get("HALF", "")
    rows = [l.rstrip("\n").split("\t") for l in open(panel) if l.strip() and not l.startswith("#")]
    rows = [r for r in rows if not half or (r[7:8] or ["tuning"])[0] == half]
    print("| language | repository | tag | commit | feature | tool symbols | coverage | shown but hidden |"
          " shown twice | doc pairs | all tool words present | equal after normalising |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    details = []
    for lang, name, source, ref, commit, feature, *_ in rows:
        p = os.path.join(out, f"{name}.cmp.json")
        if not os.path.exists(p):
            print(f"| {lang} | {source[7:]} | {ref} | `{commit[:12]}` | `{feature}` | not measured | | | | | | |")
            continue
        r = json.load(open(p))
        print(f"| {lang} | {source[7:]} | {ref} | `{commit[:12]}` | `{feature}` | {r['tool_symbols']} |"
              f" {r['found']}/{r['tool_symbols']} = {r['coverage']} | {len(r['shown_but_hidden'])} | {len(r.get('shown_twice', []))} |"
              f" {r['doc_pairs']} | {r['doc_words_present']} = {r['doc_agreement']} | {r['doc_equal']} = {r['doc_equal_share']} |")
        md = os.path.join(out, f"{name}.cmp.md")
        if os.path.exists(md):
            details.append(open(md).read())
    print()
    print("\n".join(details))
    return 0


if __name__ == "__main__":
    sys.exit(main())
