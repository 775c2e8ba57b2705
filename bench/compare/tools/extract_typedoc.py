#!/usr/bin/env python3
"""Run TypeDoc's JSON output on a package's entry point and list its public API.

    extract_typedoc.py /abs/path/to/clone TYPEDOC_DIR [ENTRY.ts ...] > tool.json

TYPEDOC_DIR is a scratch folder where `npm install typedoc typescript` ran.
Without ENTRY the entry point comes from package.json: `source`, else the
`types`/`typings`/`exports` path mapped from `dist/X.d.ts` to `source/X.ts` or
`src/X.ts` (the built file's source), else `index.d.ts`/`index.ts`.

TypeDoc is run with the clone as working directory, a throw-away tsconfig
(the project's own may extend configs that are not installed), and
`--skipErrorChecking --excludePrivate`. Install the package's runtime
dependencies first (`npm install --omit=dev --ignore-scripts`) so that
inherited members resolve.

Symbols: every exported reflection (re-exports, `export default` under the
name TypeDoc gives it, alt name its declaration's own name), members of
classes/interfaces/object type aliases (constructors, properties, methods,
accessors; members inherited from a dependency in node_modules are left out
and counted in the notes), enum members. Doc text is what TypeDoc renders:
the summary, each parameter's comment (`name text`), and every block tag's
content (@returns, @default, @example, @deprecated, @see …) in order.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

K = {1: "project", 2: "module", 4: "namespace", 8: "enum", 16: "enum member", 32: "variable",
     64: "function", 128: "class", 256: "interface", 512: "constructor", 1024: "property",
     2048: "method", 262144: "accessor", 2097152: "type", 4194304: "reference"}
CONTAINER = {4, 8, 128, 256}
MEMBER = {16, 512, 1024, 2048, 262144}


def parts_text(parts) -> str:
    out = []
    for p in parts or []:
        t = p.get("text", "")
        if p.get("kind") == "inline-tag":
            t = t or p.get("target", "")
        out.append(t)
    return "".join(out)


def comment_text(c) -> str:
    if not c:
        return ""
    out = [parts_text(c.get("summary"))]
    for b in c.get("blockTags", []) or []:
        name = b.get("name")  # @param / @typeParam carry the parameter's name
        body = parts_text(b.get("content"))
        out.append(f"{name} {body}" if name else body)
    return "\n\n".join(x for x in out if x.strip())


def doc_of(r) -> str:
    texts = [comment_text(r.get("comment"))]
    for sig in r.get("signatures", []) or []:
        texts.append(comment_text(sig.get("comment")))
        for p in sig.get("parameters", []) or []:
            ct = comment_text(p.get("comment"))
            if ct:
                texts.append(f"{p['name']} {ct}")
    for acc in ("getSignature", "setSignature"):
        if r.get(acc):
            texts.append(comment_text(r[acc].get("comment")))
    return "\n\n".join(t for t in texts if t.strip())


def declared_name(root: str, r) -> str:
    import re
    s = (r.get("sources") or [{}])[0]
    try:
        text = open(os.path.join(root, s["fileName"]), encoding="utf-8").read()
        line = text.splitlines()[s["line"] - 1]
    except Exception:  # noqa: BLE001
        return ""
    m = re.search(r"export\s+default\s+(?:abstract\s+)?(?:async\s+)?(?:class|function\*?|interface|enum)\s+([A-Za-z_$][\w$]*)", line)
    if not m:
        m = re.search(r"export\s+default\s+([A-Za-z_$][\w$]*)\s*;", line)
    if not m:
        # A declaration (an overload's line, say) that the file exports as its default
        # elsewhere: `function ms(…): number;` … `export default ms;`.
        d = re.search(r"(?:function\*?|class|const|let|var|interface|enum)\s+([A-Za-z_$][\w$]*)", line)
        if d and re.search(r"export\s+default\s+" + re.escape(d.group(1)) + r"\s*;?\s*$", text, re.M):
            return d.group(1)
    return m.group(1) if m else ""


def entry_points(root: str) -> list[str]:
    pj = json.load(open(os.path.join(root, "package.json")))
    if isinstance(pj.get("source"), str):
        return [pj["source"]]
    cands = []
    ex = pj.get("exports")
    if isinstance(ex, dict):
        ex = ex.get(".", ex)
        if isinstance(ex, dict):
            cands += [ex.get("types"), ex.get("import"), ex.get("default")]
        elif isinstance(ex, str):
            cands.append(ex)
    elif isinstance(ex, str):
        cands.append(ex)
    cands += [pj.get("types"), pj.get("typings"), pj.get("module"), pj.get("main")]
    for c in [x for x in cands if isinstance(x, str)]:
        base = os.path.splitext(os.path.basename(c))[0].replace(".d", "")
        for d in ("source", "src", "lib", "."):
            for ext in (".ts", ".tsx", ".mts"):
                p = os.path.normpath(os.path.join(d, base + ext))
                if os.path.exists(os.path.join(root, p)):
                    return [p]
        if c.endswith(".d.ts") and os.path.exists(os.path.join(root, c)):
            return [os.path.normpath(c)]
    for p in ("index.d.ts", "index.ts", "src/index.ts", "source/index.ts"):
        if os.path.exists(os.path.join(root, p)):
            return [p]
    raise SystemExit("no entry point found")


def main() -> int:
    root = os.path.abspath(sys.argv[1])
    tdir = os.path.abspath(sys.argv[2])
    entries = sys.argv[3:] or entry_points(root)
    tmp = tempfile.mkdtemp(prefix="typedoc-")
    tsconfig = os.path.join(tmp, "tsconfig.json")
    json.dump({"compilerOptions": {"target": "es2022", "module": "nodenext", "moduleResolution": "nodenext",
                                   "strict": True, "skipLibCheck": True, "esModuleInterop": True,
                                   "noEmit": True, "lib": ["es2022", "dom"]},
               "files": [os.path.join(root, e) for e in entries]}, open(tsconfig, "w"))
    out = os.path.join(tmp, "typedoc.json")
    cmd = [os.path.join(tdir, "node_modules", ".bin", "typedoc"), "--json", out, "--tsconfig", tsconfig,
           "--skipErrorChecking", "--excludePrivate", "--readme", "none", "--basePath", root,
           "--logLevel", "Error", *entries]
    p = subprocess.run(cmd, cwd=root, capture_output=True, text=True)
    if not os.path.exists(out):
        raise SystemExit(f"typedoc failed: {p.stdout}\n{p.stderr}")
    proj = json.load(open(out))
    vp = subprocess.run([cmd[0], "--version"], capture_output=True, text=True, cwd=tdir)
    ver = (vp.stdout + vp.stderr).strip().split("\n")[0]
    by_id = {}

    def index(r):
        by_id[r.get("id")] = r
        for c in r.get("children", []) or []:
            index(c)
    index(proj)
    entry_mod = [os.path.splitext(os.path.basename(e))[0].replace(".d", "") for e in entries]
    # With one entry point TypeDoc merges its module into the project, named by package.json's
    # `name`: that is the module's public name.
    try:
        package_name = json.load(open(os.path.join(root, "package.json"))).get("name") or ""
    except (OSError, ValueError):
        package_name = ""
    if len(entries) == 1 and package_name:
        entry_mod.append(package_name)
    symbols, skipped_inherited = [], 0

    def src(r):
        s = (r.get("sources") or [{}])[0].get("fileName", "")
        return s

    def add_members(owner, r, modules, alt_owners=()):
        nonlocal skipped_inherited
        kids = list(r.get("children", []) or [])
        t = r.get("type") or {}
        if r.get("kind") == 2097152 and t.get("type") == "reflection":
            kids += t.get("declaration", {}).get("children", []) or []
        for c in kids:
            if c.get("kind") not in MEMBER:
                continue
            fl = c.get("flags", {})
            if fl.get("isPrivate") or c["name"].startswith("#"):
                continue
            if c.get("inheritedFrom") and "node_modules" in src(c):
                skipped_inherited += 1
                continue
            symbols.append({"name": f"{owner}.{c['name']}", "kind": K.get(c["kind"], str(c["kind"])),
                            "alt_names": [f"{o}.{c['name']}" for o in alt_owners],
                            "modules": modules, "doc": doc_of(c),
                            "inherited": bool(c.get("inheritedFrom"))})

    def walk(r, prefix, modules):
        for c in r.get("children", []) or []:
            kind = c.get("kind")
            target = c
            if kind == 4194304:  # re-export of another reflection
                target = by_id.get(c.get("target"), c)
            mods = list(dict.fromkeys(modules + [x for x in [src(target)] if x]))
            if kind == 2 or (kind == 4 and prefix == "" and False):
                walk(c, "", [c["name"]] + mods)
                continue
            name = prefix + c["name"]
            alt = []
            if c["name"] == "default":
                own = declared_name(root, target)
                if own:
                    alt.append(prefix + own)
            for sig in target.get("signatures", []) or []:
                if sig.get("name") and sig["name"] != c["name"]:
                    alt.append(prefix + sig["name"])
            symbols.append({"name": name, "alt_names": list(dict.fromkeys(alt)), "kind": K.get(target.get("kind"), "?"),
                            "modules": mods, "doc": doc_of(target), "item_id": target.get("id")})
            if target.get("kind") in CONTAINER or target.get("kind") == 2097152:
                add_members(name, target, mods, alt)
            if target.get("kind") == 4:
                walk(target, name + ".", mods)

    for e in entries:
        shown = package_name if len(entries) == 1 and package_name else e
        symbols.append({"name": shown, "kind": "module", "modules": [shown], "doc": ""})
    walk(proj, "", entry_mod)
    notes = [f"entry points: {', '.join(entries)}"]
    if skipped_inherited:
        notes.append(f"{skipped_inherited} members inherited from dependencies (node_modules) left out")
    json.dump({"tool": f"{ver} --json", "language": "typescript", "notes": notes, "symbols": symbols},
              sys.stdout, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
