#!/usr/bin/env python3
"""Compares the developer docs the pipeline writes for a folder of a real repository with
that folder's public API, computed here independently of the pipeline:

- Python: the `ast` module (Python's own parser): public module-level functions, classes
  and UPPER_CASE constants, public methods, properties and class attributes of public
  classes.
- Rust: `pub` items (not `pub(crate)`), outside `tests/`, `benches/` and `#[cfg(test)]`
  modules; `pub` fields of `pub struct`s. As docs.rs: an item right under
  `#[cfg(feature = "x")]` counts only when docs.rs builds the crate with `x` (its default
  features and `[package.metadata.docs.rs]` `features`, closed over `[features]`, or
  `all-features`), read here with `tomllib`.
- Go: exported identifiers outside `_test.go` files and `internal/` packages; exported
  fields of exported structs; methods of exported types.
- TypeScript/JavaScript: exported names outside test files, public members of exported
  classes and interfaces.

The reference is read from the clone's working tree at HEAD (`git show HEAD:path`), so a
clone without a checkout works. Reports, as JSON and as a line of text:

- coverage: reference names documented / reference names (by file and name),
- data_members: fields, attributes and properties listed under a type,
- leaks: documented symbols from test files or internal packages, or with private names,
- placeholders: "no public symbols" notes; bounded_values: values cut at their bound.

Usage: bench/compare/devdocs.py /abs/clone FEATURE [--keep OUT_DIR]
"""

import ast
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

TEST_PATTERNS = [
    re.compile(r"(^|/)tests?/.*\.py$"),
    re.compile(r"(^|/)test_[^/]*\.py$"),
    re.compile(r"_test\.py$"),
    re.compile(r"(^|/)conftest\.py$"),
    re.compile(r"_test\.go$"),
    re.compile(r"(^|/)(tests|benches)/.*\.rs$"),
    re.compile(r"\.(test|spec)\.[cm]?[jt]sx?$"),
    re.compile(r"(^|/)__tests__/"),
]


def is_test(path):
    return any(p.search(path) for p in TEST_PATTERNS)


def git(clone, *args):
    return subprocess.run(
        ["git", "-C", clone, *args], capture_output=True, text=True, check=True
    ).stdout


def files_of(clone, feature):
    listed = git(clone, "ls-tree", "-r", "--name-only", "HEAD", "--", feature).splitlines()
    return [p for p in listed if p.rsplit(".", 1)[-1] in ("py", "rs", "go", "ts", "tsx", "js", "mjs")]


def hidden_internal(path, feature):
    if not path.endswith(".go"):
        return False
    parts = path.split("/")[:-1]
    if "internal" not in parts:
        return False
    root = "/".join(parts[: parts.index("internal") + 1])
    return not (feature == root or feature.startswith(root + "/"))


# --- references ------------------------------------------------------------------------


def python_api(text):
    names, members = set(), set()
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return names, members
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not node.name.startswith("_"):
            names.add(node.name)
        elif isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
            names.add(node.name)
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    decorators = [ast.unparse(d) for d in item.decorator_list]
                    if any(d.endswith((".setter", ".deleter")) for d in decorators):
                        continue
                    if item.name == "__init__" or not item.name.startswith("_"):
                        names.add(f"{node.name}.{item.name}")
                        if any(d in ("property", "cached_property", "functools.cached_property") for d in decorators):
                            members.add(f"{node.name}.{item.name}")
                elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                    if not item.target.id.startswith("_"):
                        names.add(f"{node.name}.{item.target.id}")
                        members.add(f"{node.name}.{item.target.id}")
                elif isinstance(item, ast.Assign):
                    for target in item.targets:
                        if isinstance(target, ast.Name) and not target.id.startswith("_"):
                            names.add(f"{node.name}.{target.id}")
                            members.add(f"{node.name}.{target.id}")
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name) and re.fullmatch(r"[A-Z][A-Z0-9_]*", target.id):
                    names.add(target.id)
    return names, members


def strip_rust_tests(text):
    # Drops `#[cfg(test)] mod x { ... }` by brace counting.
    out, i = [], 0
    for m in re.finditer(r"#\[cfg\(test\)\]\s*(pub\s+)?mod\s+\w+\s*\{", text):
        if m.start() < i:
            continue
        out.append(text[i : m.start()])
        depth, j = 1, m.end()
        while j < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[j], 0)
            j += 1
        i = j
    out.append(text[i:])
    return "".join(out)


def docs_rs_features(manifest_text):
    """The features docs.rs builds a crate with, or None for all of them."""
    import tomllib
    try:
        table = tomllib.loads(manifest_text)
    except Exception:
        return None
    docs_rs = table.get("package", {}).get("metadata", {}).get("docs", {}).get("rs", {})
    if docs_rs.get("all-features"):
        return None
    pending = list(docs_rs.get("features", []))
    if not docs_rs.get("no-default-features"):
        pending.append("default")
    features, enabled = table.get("features", {}), set()
    while pending:
        name = pending.pop()
        if name.startswith("dep:") or "/" in name or name in enabled:
            continue
        enabled.add(name)
        pending.extend(features.get(name, []))
    return enabled


def rust_api(text, enabled=None):
    text = strip_rust_tests(text)
    names, members = set(), set()
    impl_type = None
    depth = 0
    struct = None
    gated_off = False
    for line in text.splitlines():
        stripped = line.strip()
        g = re.match(r'#\[cfg\(feature\s*=\s*"([^"]+)"\)\]$', stripped)
        if g:
            gated_off = gated_off or (enabled is not None and g.group(1) not in enabled)
            continue
        if stripped.startswith("#[") or stripped.startswith("///"):
            pass
        elif gated_off:
            gated_off = False
            depth += line.count("{") - line.count("}")
            # The gated item is skipped, and with it the members of an impl block it opens.
            impl_type = None
            continue
        m = re.match(r"impl(?:<[^>]*>)?\s+(?:(\S+)\s+for\s+)?([A-Za-z_][\w]*)", stripped)
        if m and depth == 0:
            impl_type = None if m.group(1) else m.group(2)
        m = re.match(r"pub\s+(?:const\s+|async\s+|unsafe\s+|extern\s+\"C\"\s+)*(fn|struct|enum|trait|type|const|static|union)\s+([A-Za-z_]\w*)", stripped)
        if m:
            kind, name = m.groups()
            if depth == 0:
                names.add(name)
                if kind == "struct" and stripped.endswith("{"):
                    struct = name
            elif impl_type and depth == 1 and kind in ("fn", "const", "type"):
                names.add(f"{impl_type}::{name}")
        elif struct and depth == 1:
            f = re.match(r"pub\s+([A-Za-z_]\w*)\s*:", stripped)
            if f:
                names.add(f"{struct}::{f.group(1)}")
                members.add(f"{struct}::{f.group(1)}")
        depth += line.count("{") - line.count("}")
        if depth <= 0:
            depth, impl_type, struct = 0, None if depth < 0 or stripped.endswith("}") else impl_type, None
    return names, members


def go_api(text):
    names, members = set(), set()
    exported = lambda n: n[:1].isupper()
    block, block_depth = None, 0
    struct = None
    for line in text.splitlines():
        s = line.strip()
        if block:
            if s.startswith(")") and block_depth == 0:
                block = None
                continue
            at_top = block_depth == 0
            block_depth += s.count("{") + s.count("(") - s.count("}") - s.count(")")
            m = re.match(r"([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)", s)
            if m and at_top and not s.startswith("//"):
                for n in re.split(r"\s*,\s*", m.group(1)):
                    if exported(n):
                        names.add(n)
            continue
        if struct:
            if s.startswith("}"):
                struct = None
                continue
            m = re.match(r"([A-Za-z_]\w*)(?:\s*,\s*[A-Za-z_]\w*)*\s+\S", s)
            e = re.match(r"\*?(?:\w+\.)?([A-Z]\w*)\s*(?:`.*)?$", s)
            if m and not s.startswith("//"):
                for n in re.split(r"\s*,\s*", s.split()[0].rstrip(",")) if "," in s.split()[0] else [m.group(1)]:
                    if exported(n):
                        names.add(f"{struct}.{n}")
                        members.add(f"{struct}.{n}")
            elif e:
                names.add(f"{struct}.{e.group(1)}")
                members.add(f"{struct}.{e.group(1)}")
            continue
        m = re.match(r"(const|var)\s*\($", s)
        if m:
            block, block_depth = m.group(1), 0
            continue
        m = re.match(r"(?:const|var)\s+([A-Za-z_]\w*)", s)
        if m and exported(m.group(1)):
            names.add(m.group(1))
        m = re.match(r"type\s+([A-Za-z_]\w*)(?:\[[^\]]*\])?\s+(struct|interface)?", s)
        if m and exported(m.group(1)):
            names.add(m.group(1))
            if m.group(2) == "struct" and s.endswith("{"):
                struct = m.group(1)
        m = re.match(r"func\s+([A-Za-z_]\w*)", s)
        if m and exported(m.group(1)):
            names.add(m.group(1))
        m = re.match(r"func\s+\(\s*\w*\s*\*?([A-Za-z_]\w*)(?:\[[^\]]*\])?\s*\)\s*([A-Za-z_]\w*)", s)
        if m and exported(m.group(1)) and exported(m.group(2)):
            names.add(f"{m.group(1)}.{m.group(2)}")
    return names, members


def ts_api(text):
    names, members = set(), set()
    for m in re.finditer(r"^export\s+(?:declare\s+)?(?:default\s+)?(?:async\s+)?(?:abstract\s+)?(function\*?|class|interface|type|enum|const|let|var)\s+([A-Za-z_$][\w$]*)", text, re.M):
        names.add(m.group(2))
    return names, members


API = {"py": python_api, "rs": rust_api, "go": go_api, "ts": ts_api, "tsx": ts_api, "js": ts_api, "mjs": ts_api}


def rust_enabled(clone, path):
    """docs.rs's features for the crate of `path` (its nearest Cargo.toml with a package)."""
    parts = path.split("/")[:-1]
    while True:
        manifest = "/".join(parts + ["Cargo.toml"])
        try:
            text = git(clone, "show", f"HEAD:{manifest}")
        except Exception:
            text = ""
        if "[package]" in text:
            return docs_rs_features(text)
        if not parts:
            return None
        parts.pop()


def reference(clone, feature):
    by_file = {}
    for path in files_of(clone, feature):
        if is_test(path) or hidden_internal(path, feature):
            continue
        text = git(clone, "show", f"HEAD:{path}")
        ext = path.rsplit(".", 1)[-1]
        if ext == "rs":
            by_file[path] = rust_api(text, rust_enabled(clone, path))
        else:
            by_file[path] = API[ext](text)
    return by_file


# --- the article ---------------------------------------------------------------------------

HEADING = re.compile(r"^#{4,5} \w+ `+ ?(.+?) ?`+$")
FIELD = re.compile(r'^- <a id="[^"]*" />`+ ?(.+?) ?`+(?::|$)')
DEFINED = re.compile(r"^Defined in \[?`([^`]+)`, line (\d+)")


def documented(body):
    """(path, name) of every symbol heading, and the field entries per type."""
    symbols, fields = [], []
    pending = None
    current_type = None
    for line in body.splitlines():
        m = HEADING.match(line)
        if m:
            pending = m.group(1)
            if line.startswith("#### "):
                current_type = m.group(1)
            continue
        m = DEFINED.match(line)
        if m and pending:
            symbols.append((m.group(1), pending))
            pending = None
            continue
        m = FIELD.match(line)
        if m and current_type:
            fields.append((current_type, m.group(1)))
    return symbols, fields


def field_name(signature):
    s = re.sub(r"^(pub|readonly|static|public|declare)\s+", "", signature)
    s = re.sub(r"^(readonly)\s+", "", s)
    m = re.match(r"\*?([A-Za-z_$][\w$]*)", s)
    return m.group(1) if m else s


def main():
    args = sys.argv[1:]
    if len(args) < 2:
        print(__doc__)
        return 2
    clone, feature = os.path.abspath(args[0]), args[1]
    keep = args[args.index("--keep") + 1] if "--keep" in args else None
    out = keep or tempfile.mkdtemp(prefix="devdocs-")
    generate = os.path.join(ROOT, "target", "release", "examples", "generate")
    if not os.path.exists(generate):
        generate = os.path.join(ROOT, "target", "debug", "examples", "generate")
    if not os.path.exists(generate):
        subprocess.run(["cargo", "build", "-p", "pipeline", "--example", "generate"], cwd=ROOT, check=True)
    run = subprocess.run([generate, clone, feature, out], capture_output=True, text=True)
    if run.returncode != 0:
        print(run.stderr[-2000:], file=sys.stderr)
        return 1
    body = open(os.path.join(out, "dev-docs.mdx")).read()
    symbols, fields = documented(body)

    ref = reference(clone, feature)
    ref_names = {(p, n) for p, (names, _) in ref.items() for n in names}
    ref_members = {(p, n) for p, (_, members) in ref.items() for n in members}
    # A member is documented under its type, or as a field entry of it.
    doc_names = set()
    for path, name in symbols:
        doc_names.add((path, name))
        doc_names.add((path, name.replace("::", ".")))
    type_paths = {}
    for path, name in symbols:
        type_paths.setdefault(name, set()).add(path)
    for ty, signature in fields:
        for path in type_paths.get(ty, ()):
            for sep in ("::", "."):
                doc_names.add((path, f"{ty}{sep}{field_name(signature)}"))
    covered = {r for r in ref_names if r in doc_names or (r[0], r[1].replace("::", ".")) in doc_names}
    members_covered = {r for r in ref_members if r in doc_names}

    leaks = []
    for path, name in symbols:
        base = re.split(r"::|\.", name)[-1]
        if is_test(path) or hidden_internal(path, feature):
            leaks.append(f"{path}: {name} (test or internal file)")
        elif base.startswith("_") and base != "__init__":
            leaks.append(f"{path}: {name} (private name)")
        elif path.endswith(".go") and not base[:1].isupper():
            leaks.append(f"{path}: {name} (unexported)")
    placeholders = body.count("No public symbols were found")
    # Values longer than the bound end with a line `…`; arrow functions' bodies (`=> …`)
    # are elided on purpose and not counted.
    cut_values = sum(1 for line in body.splitlines() if line.strip() == "…")
    report = {
        "clone": clone,
        "feature": feature,
        "reference_symbols": len(ref_names),
        "documented_symbols": len(symbols),
        "coverage": round(len(covered) / len(ref_names), 3) if ref_names else None,
        "reference_data_members": len(ref_members),
        "data_members_shown": len(fields),
        "data_member_coverage": round(len(members_covered) / len(ref_members), 3) if ref_members else None,
        "leaks": len(leaks),
        "leak_examples": leaks[:10],
        "placeholders": placeholders,
        "bounded_values": cut_values,
        "missing_examples": sorted(f"{p}: {n}" for p, n in ref_names - covered)[:15],
        "sections": sum(1 for line in body.splitlines() if line.startswith("### ")),
        "article": os.path.join(out, "dev-docs.mdx"),
    }
    print(json.dumps(report, indent=2))
    print(
        f"{feature}: coverage {report['coverage']} of {len(ref_names)}, data members shown "
        f"{len(fields)} (coverage {report['data_member_coverage']}), leaks {len(leaks)}, "
        f"placeholders {placeholders}, bounded values {cut_values}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
