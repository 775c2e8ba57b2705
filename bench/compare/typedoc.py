#!/usr/bin/env python3
"""Compares the developer docs the pipeline writes for a JavaScript/TypeScript package with
what TypeDoc itself documents for the same package, entry point by entry point.

The reference is TypeDoc's JSON output (`typedoc --json`), one run per entry point of the
package's `package.json` (`exports` subpaths, taking the `types` condition first, else
`types`/`typings`/`main`; a `.js` target is read through the `.d.ts` beside it). TypeDoc
names the module of the main entry point after the package and the others `pkg/subpath`;
`export * as ns` namespaces become `pkg.ns`, as our articles name them. Counted:

- exports: the top-level names of each module (functions, classes, interfaces, types,
  variables, references), ours found in the section of the same name;
- members: the properties, methods, accessors and constructors of classes and interfaces,
  without the members TypeDoc shows as inherited (we list a type's own members) and
  without private ones (TypeDoc's `excludePrivate`);
- missing and extra names, per module.

The package is a folder with a `package.json`, for instance a published package unpacked
(`npm pack ky@2.1.0 && tar xzf ky-2.1.0.tgz`); without `.git` it is copied and committed
to a scratch repository first. TypeDoc comes from TOOLS (`npm install typedoc typescript`
in a scratch folder).

Usage: bench/compare/typedoc.py /abs/package --tools /abs/tools [--json] [--keep OUT_DIR]
       [--generate /abs/generate-binary]   (a `generate` example built elsewhere, to measure
                                            another commit; default: `cargo run` here)
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# TypeDoc's ReflectionKind values (0.28).
NAMESPACE = 4
MODULE = 2
ENUM_MEMBER = 16
CLASS = 128
INTERFACE = 256
CONSTRUCTOR = 512
PROPERTY = 1024
METHOD = 2048
ACCESSOR = 262144
MEMBER_KINDS = {CONSTRUCTOR, PROPERTY, METHOD, ACCESSOR}

CONDITIONS = ["types", "typings", "import", "module", "default", "require", "node", "browser"]


def targets(value, out):
    if isinstance(value, str):
        if value not in out:
            out.append(value)
    elif isinstance(value, list):
        for item in value:
            targets(item, out)
    elif isinstance(value, dict):
        for key in CONDITIONS:
            if key in value:
                targets(value[key], out)
        for key, item in value.items():
            if key not in CONDITIONS:
                targets(item, out)


def entry_points(package_dir):
    """(public name, file) of each entry point that names a script TypeDoc can read."""
    with open(os.path.join(package_dir, "package.json")) as f:
        manifest = json.load(f)
    name = manifest.get("name") or os.path.basename(package_dir)
    exports = manifest.get("exports")
    subpaths = []
    if isinstance(exports, dict) and any(k.startswith(".") for k in exports):
        for key, value in exports.items():
            if key.startswith(".") and "*" not in key:
                found = []
                targets(value, found)
                subpaths.append((key.rstrip("/") or ".", found))
    elif exports is not None:
        found = []
        targets(exports, found)
        subpaths.append((".", found))
    if not subpaths:
        found = [manifest[k] for k in ["types", "typings", "module", "main"] if k in manifest]
        subpaths.append((".", found))
    out = []
    for subpath, files in subpaths:
        for target in files:
            path = os.path.normpath(os.path.join(package_dir, target))
            stem = re.sub(r"\.(d\.)?[cm]?[jt]sx?$", "", path)
            candidates = [path] if re.search(r"\.d\.[cm]?ts$|\.[cm]?tsx?$", path) else []
            candidates += [stem + ext for ext in [".d.ts", ".d.mts", ".d.cts", ".ts"]]
            candidates.append(path)
            file = next((c for c in candidates if os.path.isfile(c) and re.search(r"\.[cm]?[jt]sx?$", c)), None)
            if file:
                public = name if subpath == "." else f"{name}/{subpath[2:]}"
                out.append((public, os.path.relpath(file, package_dir)))
                break
    return out


def typedoc_names(tools, repo, entry):
    """{module name: (exports, members)} of TypeDoc's documentation of `entry`."""
    tsconfig = os.path.join(repo, "tsconfig.typedoc-compare.json")
    with open(tsconfig, "w") as f:
        json.dump(
            {
                "compilerOptions": {
                    "allowJs": True,
                    "noEmit": True,
                    "skipLibCheck": True,
                    "module": "nodenext",
                    "moduleResolution": "nodenext",
                    "target": "es2022",
                    "lib": ["es2023", "dom"],
                    "types": [],
                },
                "include": ["**/*"],
                "exclude": ["node_modules"],
            },
            f,
        )
    out = os.path.join(repo, "typedoc-compare.json")
    command = [
        "node",
        os.path.join(tools, "node_modules", "typedoc", "bin", "typedoc"),
        "--json", out,
        "--entryPoints", entry,
        "--tsconfig", tsconfig,
        "--skipErrorChecking",
        "--excludePrivate",
        "--logLevel", "Error",
    ]
    run = subprocess.run(command, cwd=repo, capture_output=True, text=True)
    os.remove(tsconfig)
    if run.returncode != 0 or not os.path.exists(out):
        sys.exit(f"typedoc failed on {entry}:\n{run.stdout}\n{run.stderr}")
    with open(out) as f:
        project = json.load(f)
    os.remove(out)
    return project


REFERENCE = 4194304


def kinds(reflection, out):
    """Each reflection's kind, by id."""
    out[reflection.get("id")] = reflection.get("kind")
    for child in reflection.get("children", []):
        kinds(child, out)
    return out


def collect(reflection, module, modules, by_id=None):
    if by_id is None:
        by_id = kinds(reflection, {})
    exports, members = modules.setdefault(module, (set(), set()))
    for child in reflection.get("children", []):
        kind = child["kind"]
        if kind in (NAMESPACE, MODULE):
            collect(child, f"{module}.{child['name']}", modules, by_id)
            continue
        # A reference to a namespace (`export { util }` again) is that namespace's section.
        if kind == REFERENCE and by_id.get(child.get("target")) in (NAMESPACE, MODULE):
            continue
        exports.add(child["name"])
        if kind in (CLASS, INTERFACE):
            for member in child.get("children", []):
                if member["kind"] not in MEMBER_KINDS:
                    continue
                if member.get("inheritedFrom") or member.get("flags", {}).get("isPrivate"):
                    continue
                members.add(f"{child['name']}.{member['name']}")


def ours(body):
    """{module name: (exports, members)} of our dev-docs article."""
    modules = {}
    module = None
    owner = None
    # The API reference only: the prose after it has headings of its own.
    api = body.split("\n## API reference\n", 1)[-1]
    api = re.split(r"\n## (?!#)", api, maxsplit=1)[0]
    for line in api.splitlines():
        heading = re.match(r"^### `(.+)`$", line)
        if heading:
            module = heading.group(1)
            modules.setdefault(module, (set(), set()))
            owner = None
            continue
        if module is None:
            continue
        top = re.match(r"^#### \w+ `(.+)`$", line)
        if top:
            # `util.assertEqual` is `assertEqual` of TypeDoc's namespace `module.util`.
            namespace, _, leaf = top.group(1).rpartition(".")
            home = f"{module}.{namespace}" if namespace else module
            owner = (home, leaf)
            modules.setdefault(home, (set(), set()))[0].add(leaf)
            continue
        member = re.match(r"^##### \w+ `(.+)`$", line)
        if member and owner:
            name = member.group(1)
            qualified = f"{owner[0][len(module) + 1:]}." if owner[0] != module else ""
            modules[owner[0]][1].add(name[len(qualified):] if name.startswith(qualified) else name)
            continue
        field = re.match(r"^- <a id=\"[^\"]*\" />`(.+?)`", line)
        if field and owner:
            signature = re.sub(r"^((readonly|static|public|declare|abstract|override)\s+)+", "", field.group(1))
            name = re.match(r"^['\"]?([\w$]+)", signature)
            if name:
                modules[owner[0]][1].add(f"{owner[1]}.{name.group(1)}")
    return modules


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("package")
    parser.add_argument("--tools", required=True)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--keep")
    parser.add_argument("--generate")
    args = parser.parse_args()
    package = os.path.abspath(args.package)
    scratch = tempfile.mkdtemp(prefix="typedoc-compare-")
    try:
        repo = package
        if not os.path.isdir(os.path.join(package, ".git")):
            repo = os.path.join(scratch, os.path.basename(package))
            shutil.copytree(package, repo, ignore=shutil.ignore_patterns("node_modules"))
            git = ["git", "-C", repo, "-c", "user.name=compare", "-c", "user.email=compare@invalid"]
            subprocess.run(git[:3] + ["init", "-q"], check=True)
            subprocess.run(git + ["add", "-A"], check=True)
            subprocess.run(git + ["commit", "-qm", "package"], check=True)
        out_dir = args.keep or os.path.join(scratch, "out")
        generate = (
            [args.generate]
            if args.generate
            else ["cargo", "run", "-q", "-p", "pipeline", "--example", "generate", "--"]
        )
        subprocess.run(
            generate + [repo, ".", out_dir],
            cwd=ROOT, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        with open(os.path.join(out_dir, "dev-docs.mdx")) as f:
            body = f.read()
        shown = ours(body)
        reference = {}
        for public, entry in entry_points(repo):
            project = typedoc_names(args.tools, repo, entry)
            collect(project, public, reference)
        report = {"modules": {}, "exports": [0, 0], "members": [0, 0], "extra": 0}
        for module, (exports, members) in sorted(reference.items()):
            got_exports, got_members = shown.get(module, (set(), set()))
            entry = {
                "exports": [len(exports & got_exports), len(exports)],
                "members": [len(members & got_members), len(members)],
                "missing": sorted(exports - got_exports) + sorted(members - got_members),
                "extra": sorted(got_exports - exports) + sorted(got_members - members),
            }
            report["modules"][module] = entry
            report["exports"][0] += entry["exports"][0]
            report["exports"][1] += entry["exports"][1]
            report["members"][0] += entry["members"][0]
            report["members"][1] += entry["members"][1]
            report["extra"] += len(entry["extra"])
        report["sections_not_in_typedoc"] = sorted(set(shown) - set(reference))
        # Names found in any section, whatever it is called: what is missing altogether.
        everywhere = set().union(*(e for e, _ in shown.values())) if shown else set()
        wanted = set().union(*(e for e, _ in reference.values())) if reference else set()
        report["exports_anywhere"] = [len(wanted & everywhere), len(wanted)]
        if args.json:
            print(json.dumps(report, indent=2))
            return
        for module, entry in report["modules"].items():
            print(f"{module}: exports {entry['exports'][0]}/{entry['exports'][1]}, "
                  f"members {entry['members'][0]}/{entry['members'][1]}")
            if entry["missing"]:
                print(f"  missing: {', '.join(entry['missing'])}")
            if entry["extra"]:
                print(f"  extra: {', '.join(entry['extra'])}")
        e, m = report["exports"], report["members"]
        print(f"coverage: exports {e[0]}/{e[1]} = {e[0] / max(e[1], 1):.3f}, "
              f"members {m[0]}/{m[1]} = {m[0] / max(m[1], 1):.3f}, extra {report['extra']}, "
              f"other sections {report['sections_not_in_typedoc']}")
        a = report["exports_anywhere"]
        print(f"exported names in any section: {a[0]}/{a[1]} = {a[0] / max(a[1], 1):.3f}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
