#!/usr/bin/env python3
"""List a crate's public API from rustdoc's JSON output (nightly toolchain).

    extract_rustdoc.py /abs/path/to/crate TARGET_DIR > tool.json
    extract_rustdoc.py --json path/to/crate.json > tool.json   # already generated

Runs, in the crate's folder (never in this project's workspace):

    cargo +nightly rustdoc -j1 --offline --lib [features as docs.rs] \
        --target-dir TARGET_DIR -- -Z unstable-options --output-format json [docs.rs rustdoc-args]

Features follow `[package.metadata.docs.rs]` (`features`, `all-features`,
`rustdoc-args`) as docs.rs would build the crate. Offline: when Cargo cannot
resolve the dev-dependencies from the local registry cache, the crate is copied
to a scratch folder with its `[dev-dependencies]` removed and run again (noted).

Symbols: walk from the crate root following `pub use` (single and glob,
within the crate), public modules, and items; rustdoc already drops
`#[doc(hidden)]` and private items. Members: public fields and variants,
methods of inherent impls, items of traits. Trait-impl members (docs.rs'
"Trait Implementations") are not counted. Doc text: the item's docs
(`#[doc = include_str!]` already expanded by rustdoc), preceded by the
deprecation note when `#[deprecated]`.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib


def docsrs_args(crate: str) -> tuple[list[str], list[str]]:
    meta = tomllib.load(open(os.path.join(crate, "Cargo.toml"), "rb"))
    d = meta.get("package", {}).get("metadata", {}).get("docs", {}).get("rs", {})
    cargo = []
    if d.get("all-features"):
        cargo.append("--all-features")
    elif d.get("features"):
        cargo += ["--features", ",".join(d["features"])]
    if d.get("no-default-features"):
        cargo.append("--no-default-features")
    return cargo, list(d.get("rustdoc-args", []))


def run_rustdoc(crate: str, target: str, notes: list[str]) -> str:
    cargo_args, rd_args = docsrs_args(crate)
    name = tomllib.load(open(os.path.join(crate, "Cargo.toml"), "rb"))["package"]["name"]
    cmd = ["nice", "cargo", "+nightly", "rustdoc", "-j1", "--offline", "--lib", *cargo_args,
           "--target-dir", target, "--", "-Z", "unstable-options", "--output-format", "json", *rd_args]
    env = dict(os.environ)
    if rd_args:
        env["RUSTDOCFLAGS"] = " ".join(rd_args)  # dependencies see --cfg docsrs too, as on docs.rs
    notes.append(f"cargo {' '.join(cmd[2:])}")
    p = subprocess.run(cmd, cwd=crate, capture_output=True, text=True, env=env)
    if p.returncode != 0:
        tmp = tempfile.mkdtemp(prefix="rustdoc-crate-")
        dst = os.path.join(tmp, os.path.basename(crate))
        shutil.copytree(crate, dst, ignore=shutil.ignore_patterns(".git", "target"))
        toml = open(os.path.join(dst, "Cargo.toml")).read()
        toml = re.sub(r"(?ms)^\[(dev-dependencies|target\.[^\]]*\.dev-dependencies)\]\n.*?(?=^\[|\Z)", "", toml)
        toml = re.sub(r"(?ms)^\[\[(bench|example|test)\]\]\n.*?(?=^\[|\Z)", "", toml)
        open(os.path.join(dst, "Cargo.toml"), "w").write(toml)
        notes.append("offline resolution failed (" + p.stderr.strip().splitlines()[0][:120] +
                     "); reran on a scratch copy without [dev-dependencies]/[[bench]]/[[example]]/[[test]]")
        p = subprocess.run(cmd, cwd=dst, capture_output=True, text=True, env=env)
        if p.returncode != 0:
            raise SystemExit(p.stderr[-2000:])
    return os.path.join(target, "doc", name.replace("-", "_") + ".json")


def rendered(md: str) -> str:
    """Docs as rustdoc renders them: hidden doctest lines (`# ...`) in Rust code blocks dropped."""
    out, fence, rust = [], None, False
    for line in md.splitlines():
        st = line.strip()
        m = re.match(r"^(```+|~~~+)\s*([\w,-]*)", st)
        if m and fence is None:
            fence = m.group(1)
            tags = [t for t in m.group(2).split(",") if t]
            rust = not tags or any(t in ("rust", "ignore", "no_run", "should_panic", "compile_fail", "edition2018",
                                         "edition2021", "edition2015", "edition2024") for t in tags)
            out.append(line)
            continue
        if fence is not None and st.startswith(fence):
            fence = None
            out.append(line)
            continue
        if fence is not None and rust:
            if st == "#" or st.startswith("# "):
                continue
            if st.startswith("##"):
                line = line.replace("##", "#", 1)
        out.append(line)
    return "\n".join(out)


def main() -> int:
    notes: list[str] = []
    if sys.argv[1] == "--json":
        path = sys.argv[2]
    else:
        path = run_rustdoc(os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), notes)
    data = json.load(open(path))
    index = data["index"]
    paths = data.get("paths", {})
    root = index[str(data["root"])]
    crate_name = root["name"]
    symbols: list[dict] = []
    seen: set[tuple[str, str]] = set()

    def kind_of(item):
        return next(iter(item["inner"])) if isinstance(item.get("inner"), dict) else str(item.get("inner"))

    def doc(item):
        d = rendered(item.get("docs") or "")
        dep = item.get("deprecation")
        if dep:
            d = ((dep.get("note") or "") + "\n\n" + d).strip()
        return d

    def is_pub(item):
        return item.get("visibility") in ("public", "default")

    def own_module(id_):
        p = paths.get(str(id_))
        return "::".join(p["path"][:-1]) if p and p.get("path") else ""

    def add(mod_path, name, item, alt_mod=""):
        key = (mod_path, name, item.get("id"))
        if key in seen:
            return
        seen.add(key)
        mods = [mod_path] + ([alt_mod] if alt_mod and alt_mod != mod_path else [])
        k = kind_of(item)
        symbols.append({"name": name, "kind": k, "modules": mods, "doc": doc(item), "item_id": item.get("id")})
        inner = item["inner"][k] if isinstance(item.get("inner"), dict) else {}
        members = []
        if k == "struct":
            sk = inner.get("kind", {})
            if isinstance(sk, dict):
                plain = sk.get("plain") or {}
                members += plain.get("fields", []) if isinstance(plain, dict) else []
                members += [f for f in (sk.get("tuple") or []) if f is not None]
        if k == "union":
            members += inner.get("fields", [])
        if k == "enum":
            members += inner.get("variants", [])
        if k == "trait":
            members += inner.get("items", [])
        for impl_id in inner.get("impls", []) if isinstance(inner, dict) else []:
            impl = index.get(str(impl_id))
            if not impl:
                continue
            ii = impl["inner"].get("impl", {})
            if ii.get("trait") is None and not ii.get("is_synthetic") and ii.get("blanket_impl") is None:
                members += [m for m in ii.get("items", []) if is_pub(index.get(str(m), {})) ]
        for mid in members:
            m = index.get(str(mid))
            if not m or not m.get("name"):
                continue
            if k in ("struct", "union") and not is_pub(m):
                continue
            if m.get("name", "").isdigit():
                continue  # tuple fields
            symbols.append({"name": f"{name}.{m['name']}", "kind": kind_of(m), "modules": mods, "doc": doc(m),
                            "item_id": m.get("id")})

    def walk(mod_item, mod_path):
        symbols.append({"name": mod_path, "kind": "module", "modules": [mod_path], "doc": doc(mod_item)})
        for cid in mod_item["inner"]["module"]["items"]:
            it = index.get(str(cid))
            if not it or not is_pub(it):
                continue
            k = kind_of(it)
            if k == "use":
                u = it["inner"]["use"]
                tgt = index.get(str(u.get("id"))) if u.get("id") is not None else None
                if u.get("is_glob"):
                    if tgt and kind_of(tgt) == "module":
                        for gid in tgt["inner"]["module"]["items"]:
                            g = index.get(str(gid))
                            if g and is_pub(g) and kind_of(g) not in ("use", "module", "impl"):
                                add(mod_path, g["name"], g, own_module(gid))
                    else:
                        notes.append(f"glob re-export of an external module not followed: {u.get('source')}")
                    continue
                if tgt is None:
                    symbols.append({"name": u["name"], "kind": "re-export", "modules": [mod_path],
                                    "doc": it.get("docs") or ""})
                    notes.append(f"external re-export {u.get('source')} listed without its docs")
                    continue
                if kind_of(tgt) == "module":
                    walk(tgt, f"{mod_path}::{u['name']}")
                else:
                    add(mod_path, u["name"], tgt, own_module(u.get("id")))
                continue
            if k == "module":
                walk(it, f"{mod_path}::{it['name']}")
            elif k != "impl" and it.get("name"):
                add(mod_path, it["name"], it)

    walk(root, crate_name)
    ver = subprocess.run(["rustup", "run", "nightly", "rustdoc", "--version"], capture_output=True, text=True).stdout.strip()
    json.dump({"tool": f"rustdoc JSON (format {data.get('format_version')}, {ver})", "language": "rust",
               "notes": notes, "symbols": symbols}, sys.stdout, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
