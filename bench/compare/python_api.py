#!/usr/bin/env python3
"""Compares the developer docs the pipeline writes for a Python package with the package's
public API as its users see it, read from the installed package itself (not from our
reading of its source):

- the public modules: the packages named and their submodules found by `pkgutil`, without
  a `_`-prefixed part (and without `tests`);
- each module's public names as Sphinx autodoc (`:members:`) and pydoc list them: its
  `__all__` when it has one (imported names included; special names such as `__version__`
  left out, as autodoc leaves them without `:special-members:`), else its names without `_`
  whose object was defined in it (`__module__`); classes and functions (routines), other
  values reported apart;
- one object is one symbol wherever it is listed (`attr.define` is `attrs.define`): it is
  covered when the article documents it under one of the modules listing it, by one of
  the names it is listed under.

Reports, as JSON and as a line of text:

- coverage: reference objects documented under a module and name users import them by,
  over reference objects (classes and functions);
- coverage_any_module: documented under one of their names, in any section;
- extra: top-level symbols the article shows that no public module lists (what the tool
  hides), with examples;
- duplicates: reference objects documented under one name in more than one section.

Usage:
  bench/compare/python_api.py --python VENV/bin/python CLONE FEATURE PACKAGE [PACKAGE…]
      [--generate PATH] [--keep OUT_DIR]

PYTHON is an interpreter with the package installed at the version of CLONE (`pip install
pkg==X` in a venv; the clone from `pip download --no-binary :all: pkg==X`, unpacked, then
`git init && git add -A && git commit`). GENERATE defaults to the `generate` example under
$CARGO_TARGET_DIR or this checkout's target/ (release, then debug), built when missing.
"""

import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Run by the package's interpreter: prints {module: [[name, kind, object id], …]}.
REFERENCE = r"""
import importlib, inspect, json, pkgutil, sys, warnings
warnings.simplefilter("ignore")

def public(name):
    return not any(p.startswith("_") or p in ("tests", "test") for p in name.split("."))

def kind(obj):
    if inspect.isclass(obj):
        return "class"
    if inspect.isroutine(obj):
        return "function"
    return "data"

modules = {}
for top in sys.argv[1:]:
    package = importlib.import_module(top)
    names = [top]
    if hasattr(package, "__path__"):
        for info in pkgutil.walk_packages(package.__path__, top + "."):
            if public(info.name):
                names.append(info.name)
    for name in names:
        try:
            module = importlib.import_module(name)
        except Exception as e:
            print(f"cannot import {name}: {e}", file=sys.stderr)
            continue
        # Special names (`__version__`) are autodoc's `:special-members:`, off by default.
        listed = [n for n in getattr(module, "__all__", None) or [] if not (n.startswith("__") and n.endswith("__"))] if hasattr(module, "__all__") else None
        found = []
        if listed is not None:
            for n in listed:
                # A submodule listed in `__all__` is a module of its own, not a member.
                if hasattr(module, n) and not inspect.ismodule(getattr(module, n)):
                    found.append((n, getattr(module, n)))
        else:
            for n in dir(module):
                obj = getattr(module, n)
                if n.startswith("_") or inspect.ismodule(obj):
                    continue
                if getattr(obj, "__module__", None) == name:
                    found.append((n, obj))
        modules[name] = [[n, kind(o), id(o)] for n, o in found]
print(json.dumps(modules))
"""

SECTION = re.compile(r"^### `+ ?(.+?) ?`+$")
SYMBOL = re.compile(r"^#### (\w+) `+ ?(.+?) ?`+$")


def documented(body):
    """(module, name, kind) of every top-level symbol heading, by its section."""
    out, module = [], None
    for line in body.splitlines():
        m = SECTION.match(line)
        if m:
            module = m.group(1)
            continue
        m = SYMBOL.match(line)
        if m and module is not None:
            out.append((module, m.group(2), m.group(1).lower()))
    return out


def generate_binary(explicit):
    if explicit:
        return explicit
    targets = [os.environ.get("CARGO_TARGET_DIR"), os.path.join(ROOT, "target")]
    for target in filter(None, targets):
        for profile in ("release", "debug"):
            path = os.path.join(target, profile, "examples", "generate")
            if os.path.exists(path):
                return path
    subprocess.run(["cargo", "build", "-p", "pipeline", "--example", "generate"], cwd=ROOT, check=True)
    return generate_binary(None)


def main():
    args = sys.argv[1:]

    def option(name):
        if name in args:
            at = args.index(name)
            value = args[at + 1]
            del args[at : at + 2]
            return value
        return None

    python = option("--python") or sys.executable
    generate = generate_binary(option("--generate"))
    keep = option("--keep")
    if len(args) < 3:
        print(__doc__)
        return 2
    clone, feature, packages = os.path.abspath(args[0]), args[1], args[2:]

    ref = subprocess.run([python, "-c", REFERENCE, *packages], capture_output=True, text=True)
    if ref.returncode != 0:
        print(ref.stderr[-2000:], file=sys.stderr)
        return 1
    modules = json.loads(ref.stdout)
    # Each object: where users import it from (module, name), and its kind.
    objects = {}
    for module, names in modules.items():
        for name, kind, ident in names:
            entry = objects.setdefault(ident, {"kind": kind, "at": set()})
            entry["at"].add((module, name))
    api = {i: o for i, o in objects.items() if o["kind"] in ("class", "function")}
    data = {i: o for i, o in objects.items() if o["kind"] == "data"}

    out = keep or tempfile.mkdtemp(prefix="python-api-")
    run = subprocess.run([generate, clone, feature, out], capture_output=True, text=True)
    if run.returncode != 0:
        print(run.stderr[-2000:], file=sys.stderr)
        return 1
    body = open(os.path.join(out, "dev-docs.mdx")).read()
    shown = documented(body)
    shown_at = {(m, n) for m, n, _ in shown}
    shown_names = {n for _, n, _ in shown}

    covered = [i for i, o in api.items() if o["at"] & shown_at]
    anywhere = [i for i, o in api.items() if any(n in shown_names for _, n in o["at"])]
    data_covered = [i for i, o in data.items() if o["at"] & shown_at]
    listed = {at for o in objects.values() for at in o["at"]}
    extra = sorted(f"{m}.{n} ({k})" for m, n, k in shown if (m, n) not in listed)
    # The same object under the same name in two sections (`attr.define` and `attrs.define`);
    # aliases a module lists (`attr.s` beside `attr.attrs`) are entries of their own in
    # autodoc too.
    duplicates = []
    for o in objects.values():
        by_name = {}
        for m, n in o["at"] & shown_at:
            by_name.setdefault(n, []).append(f"{m}.{n}")
        duplicates.extend("/".join(sorted(at)) for at in by_name.values() if len(at) > 1)
    duplicates.sort()
    missing = sorted(
        min(f"{m}.{n}" for m, n in o["at"]) for i, o in api.items() if not (o["at"] & shown_at)
    )
    report = {
        "clone": clone,
        "feature": feature,
        "packages": packages,
        "public_modules": sorted(modules),
        "reference_objects": len(api),
        "documented_top_level": len(shown),
        "sections": sorted({m for m, _, _ in shown}),
        "coverage": round(len(covered) / len(api), 3) if api else None,
        "coverage_any_module": round(len(anywhere) / len(api), 3) if api else None,
        "reference_data": len(data),
        "data_coverage": round(len(data_covered) / len(data), 3) if data else None,
        "extra": len(extra),
        "extra_examples": extra[:25],
        "duplicates": len(duplicates),
        "duplicate_examples": duplicates[:10],
        "missing_examples": missing[:25],
        "article": os.path.join(out, "dev-docs.mdx"),
    }
    print(json.dumps(report, indent=2))
    print(
        f"{' '.join(packages)} ({feature}): coverage {report['coverage']} of {len(api)} classes and "
        f"functions ({report['coverage_any_module']} in any section), data {report['data_coverage']} "
        f"of {len(data)}, {len(extra)} shown that no public module lists, {len(duplicates)} shown twice"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
