#!/usr/bin/env python3
"""List a Go module's exported API from `go doc -all`, one package at a time.

    extract_go.py /abs/path/to/clone [FEATURE_DIR] > tool.json

Needs Debian's `golang-go` (Go 1.19). Runs `go doc -all ./DIR` for every
directory under FEATURE_DIR holding non-test .go files, except `internal`,
`testdata`, `vendor`, `example(s)`, `_`/`.` folders and `package main`.
Environment: GOFLAGS=-mod=mod GOPROXY=off GOTOOLCHAIN=local (set here).

When Go 1.19 cannot load the module (a newer `go` line in go.mod, or
dependencies absent from the empty module cache with GOPROXY=off), `go doc`
falls back to reading the directory (`// import "."`); that fallback is
recorded in the notes. If `go doc` prints nothing for a package, the package
is recorded as unreadable.

Symbols: the package (its doc), constants and variables (each name of a
block; the block's comment or the name's own line comment as doc), functions,
types, methods (`Type.Method`), constructors listed under their type (name
`NewX`, alt name `Type.NewX`), exported struct fields and interface methods
(`Type.Field`, doc from the comment lines above them in the declaration).
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys

SKIP_DIRS = {"internal", "testdata", "vendor", "example", "examples", "_examples"}
IDENT = r"[A-Za-z_][A-Za-z0-9_]*"


def package_dirs(root: str, feature: str) -> list[str]:
    base = os.path.normpath(os.path.join(root, feature))
    out = []
    for d, subdirs, files in os.walk(base):
        subdirs[:] = sorted(s for s in subdirs if s not in SKIP_DIRS and not s.startswith((".", "_")))
        if any(f.endswith(".go") and not f.endswith("_test.go") for f in files):
            out.append(os.path.relpath(d, root))
    return out


def dedent_doc(lines: list[str]) -> str:
    return "\n".join(l[4:] if l.startswith("    ") else l.strip() for l in lines).strip()


def parse_go_doc(text: str, pkgdir: str) -> tuple[str, list[dict], bool]:
    lines = text.splitlines()
    if not lines or not lines[0].startswith("package "):
        return "", [], False
    m = re.match(r'package (\S+)(?: // import "([^"]*)")?', lines[0])
    pkg = m.group(1)
    fallback = (m.group(2) or "") == "."
    modules = [pkg, pkgdir]
    syms: list[dict] = []
    # package doc: until the first section header
    i = 1
    doc_lines = []
    SECTIONS = ("CONSTANTS", "VARIABLES", "FUNCTIONS", "TYPES")
    while i < len(lines) and lines[i].strip() not in SECTIONS:
        doc_lines.append(lines[i])
        i += 1
    syms.append({"name": pkg, "kind": "module", "modules": modules, "doc": "\n".join(doc_lines).strip()})
    cur_type = None
    while i < len(lines):
        line = lines[i]
        if line.strip() in SECTIONS or not line.strip():
            i += 1
            continue
        if line.startswith((" ", "\t")):
            i += 1
            continue
        # a declaration at column 0: collect the declaration (block) and its doc
        decl = [line]
        i += 1
        if line.rstrip().endswith(("(", "{")):
            while i < len(lines) and not re.match(r"^[)}]", lines[i]):
                decl.append(lines[i])
                i += 1
            if i < len(lines):
                decl.append(lines[i])
                i += 1
        doc = []
        while i < len(lines) and (lines[i].startswith("    ") or (not lines[i].strip() and i + 1 < len(lines) and lines[i + 1].startswith("    "))):
            doc.append(lines[i])
            i += 1
        docs = dedent_doc(doc)
        head = decl[0]
        if head.startswith("type "):
            tm = re.match(rf"type ({IDENT})", head)
            cur_type = tm.group(1)
            syms.append({"name": cur_type, "kind": "type", "modules": modules, "doc": docs})
            if len(decl) > 1 and re.search(r"\b(struct|interface)\s*\{$", head.rstrip()):
                members_from_block(decl[1:-1], cur_type, modules, syms, "interface" in head)
        elif head.startswith("func "):
            fm = re.match(rf"func \(\s*(?:{IDENT}\s+)?\*?({IDENT})(?:\[[^\]]*\])?\s*\)\s*({IDENT})", head)
            if fm:
                syms.append({"name": f"{fm.group(1)}.{fm.group(2)}", "kind": "method", "modules": modules, "doc": docs})
            else:
                fn = re.match(rf"func ({IDENT})", head).group(1)
                s = {"name": fn, "kind": "function", "modules": modules, "doc": docs}
                if cur_type is not None:
                    s["alt_names"] = [f"{cur_type}.{fn}"]
                    s["constructor_of"] = cur_type
                syms.append(s)
        elif head.startswith(("const", "var")):
            kind = "constant" if head.startswith("const") else "variable"
            if not re.match(r"^(const|var)\s*\($", head.strip()):
                vm = re.match(rf"(?:const|var) ({IDENT}(?:\s*,\s*{IDENT})*)", head)
                for nm in re.split(r"\s*,\s*", vm.group(1)):
                    syms.append({"name": nm, "kind": kind, "modules": modules, "doc": docs})
            else:
                pending: list[str] = []
                for l in decl[1:-1]:
                    s = l.strip()
                    if s.startswith("//"):
                        pending.append(s[2:].strip())
                        continue
                    if not s:
                        pending = []
                        continue
                    nm = re.match(rf"({IDENT}(?:\s*,\s*{IDENT})*)", s)
                    trailing = s.split("//", 1)[1].strip() if "//" in s else ""
                    if nm:
                        for n in re.split(r"\s*,\s*", nm.group(1)):
                            if n[0].isupper():
                                d = "\n".join(pending) or trailing or docs
                                syms.append({"name": n, "kind": kind, "modules": modules, "doc": d})
                    pending = []
            cur_type = None if not head.startswith(("const", "var")) else cur_type
    return pkg, syms, fallback


def members_from_block(body: list[str], owner: str, modules: list[str], syms: list[dict],
                       interface: bool = False) -> None:
    """Exported fields / interface methods; interfaces embedded in an interface are not members."""
    pending: list[str] = []
    for l in body:
        s = l.strip()
        if s.startswith("//"):
            if s.startswith("// Has unexported"):
                continue
            pending.append(s[2:].strip())
            continue
        if not s:
            pending = []
            continue
        m = re.match(rf"\*?(?:{IDENT}\.)?({IDENT})", s)
        trailing = s.split("//", 1)[1].strip() if "//" in s else ""
        if interface and "(" not in s.split("//")[0]:
            pending = []
            continue
        if m and m.group(1)[0].isupper():
            syms.append({"name": f"{owner}.{m.group(1)}", "kind": "field", "modules": modules,
                         "doc": "\n".join(pending) or trailing})
        pending = []


def main() -> int:
    root = os.path.abspath(sys.argv[1])
    feature = sys.argv[2] if len(sys.argv) > 2 else "."
    env = dict(os.environ, GOFLAGS="-mod=mod", GOPROXY="off", GOTOOLCHAIN="local", GO111MODULE="on")
    ver = subprocess.run(["go", "version"], capture_output=True, text=True).stdout.strip()
    notes, symbols = [], []
    fallbacks = []
    for d in package_dirs(root, feature):
        p = subprocess.run(["go", "doc", "-all", "./" + d if d != "." else "."], cwd=root, env=env,
                           capture_output=True, text=True)
        pkg, syms, fb = parse_go_doc(p.stdout, d)
        if not pkg:
            notes.append(f"go doc printed nothing for ./{d}: {p.stderr.strip().splitlines()[-1:] }")
            continue
        if pkg == "main":
            continue
        if fb:
            fallbacks.append(d)
        symbols.extend(syms)
    if fallbacks:
        notes.append(f"{ver} could not load the module (go.mod newer than 1.19 or dependencies not in the "
                     f"offline module cache); go doc read these directories without module context: {', '.join(fallbacks)}")
    json.dump({"tool": f"go doc -all ({ver})", "language": "go", "notes": notes, "symbols": symbols},
              sys.stdout, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
