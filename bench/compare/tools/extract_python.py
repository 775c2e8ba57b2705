#!/usr/bin/env python3
"""List a Python package's public API as pydoc / Sphinx autodoc see it, via inspect.

Run it with the interpreter of the venv where the package was pip-installed:

    /tmp/pyvenv/bin/python extract_python.py PACKAGE_NAME > tool.json

Rules (standard library only):
  * public names of a module: its `__all__` if it has one, else every name not
    starting with `_` whose object is defined in it (`__module__`), or, for a
    package's `__init__`, inside the package, which follows its re-exports;
  * public submodules (pkgutil, names not starting with `_`) recursively;
  * classes: members defined on the class itself (autodoc's default, no
    inherited members) whose name does not start with `_`, plus `__init__`
    when the class defines it (pydoc lists it; autodoc shows its signature),
    plus special methods (`__call__`) with a docstring of their own (pydoc
    lists them; projects ask autodoc for them with :special-members:);
    `:meta private:` / `:meta public:` in a docstring override the name, as
    in autodoc; undocumented `__slots__` entries that the class does not
    annotate (dataclass fields do) are left out, as autodoc leaves them out
    without :undoc-members:;
  * documented attributes, as autodoc's analyzer finds them: class-level
    `name: T` / `name = ...` and `self.name = ...` in `__init__`, under a
    `#:` comment or above a docstring (TypedDict keys included);
  * doc text is `inspect.getdoc` (which, like autodoc's default
    autodoc_inherit_docstrings, falls back to a base class's docstring; such
    docs are flagged `inherited_doc`; docs inherited from `builtins` are dropped);
  * one object reachable from several public modules is one symbol whose
    `modules` lists every one of them, defining module first.
"""
from __future__ import annotations

import importlib
import inspect
import json
import pkgutil
import sys
import types


def own_doc(obj) -> str:
    d = getattr(obj, "__doc__", None)
    return inspect.cleandoc(d) if isinstance(d, str) else ""


def doc_of(obj, owner=None, name=None) -> tuple[str, bool]:
    if not (inspect.isroutine(obj) or inspect.isclass(obj) or isinstance(obj, (property, types.ModuleType))
            or inspect.isdatadescriptor(obj)):
        return "", False
    try:
        d = inspect.getdoc(obj) or ""
    except Exception:
        d = ""
    o = own_doc(obj)
    if isinstance(obj, (classmethod, staticmethod)):
        o = own_doc(obj.__func__)
    inherited = bool(d) and not o
    if inherited and owner is not None and name is not None:
        # where did it come from?
        for base in owner.__mro__[1:]:
            if name in vars(base):
                if base.__module__ == "builtins":
                    return "", False
                break
    if inspect.isclass(obj) and inherited:
        return "", False  # class without own docstring: autodoc shows none
    return d, inherited


def public_names(mod, root: str) -> list[str]:
    if hasattr(mod, "__all__"):
        return [n for n in mod.__all__ if hasattr(mod, n)]
    out = []
    package = hasattr(mod, "__path__")
    for n, v in vars(mod).items():
        if n.startswith("_") or isinstance(v, types.ModuleType):
            continue
        vm = getattr(v, "__module__", None)
        if inspect.isclass(v) or inspect.isroutine(v):
            # A package's `__init__` is what `from pkg import X` reads: its re-exports
            # count. A plain module without `__all__` shows what it defines (pydoc, and
            # autodoc without :imported-members:).
            inside = isinstance(vm, str) and (vm == root or vm.startswith(root + "."))
            if inside and (package or vm == mod.__name__):
                out.append(n)
        # plain data: only with __all__ (autodoc's automodule :members: skips
        # undocumented module data without it)
    return out


def meta_field(raw) -> str:
    """A docstring's `:meta private:` / `:meta public:`, which autodoc obeys."""
    target = raw.__func__ if isinstance(raw, (classmethod, staticmethod)) else raw
    target = target.fget if isinstance(target, property) and target.fget else target
    d = own_doc(target) if (inspect.isroutine(target) or inspect.isclass(target)) else ""
    for line in d.splitlines():
        line = line.strip()
        if line.startswith(":meta "):
            return line[len(":meta "):].rstrip(":").strip()
    return ""


def documented_attributes(cls) -> dict:
    """Attributes autodoc's analyzer finds documented in a class's source: class-level
    `name: T` / `name = …` and `self.name = …` in its methods, under a `#:` comment or above
    a docstring. Names starting with `_` are left out."""
    import ast
    try:
        src = inspect.getsource(cls)
    except (OSError, TypeError):
        return {}
    import textwrap
    src = textwrap.dedent(src)
    try:
        tree = ast.parse(src)
    except SyntaxError:
        return {}
    lines = src.splitlines()
    out = {}

    def comment_above(node) -> str:
        doc = []
        i = node.lineno - 2
        while i >= 0 and lines[i].strip().startswith("#:"):
            doc.insert(0, lines[i].strip()[2:].strip())
            i -= 1
        return "\n".join(doc)

    def scan(body, in_method):
        for k, node in enumerate(body):
            targets = []
            if isinstance(node, ast.AnnAssign):
                targets = [node.target]
            elif isinstance(node, ast.Assign):
                targets = node.targets
            for t in targets:
                if in_method and isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                    name = t.attr
                elif not in_method and isinstance(t, ast.Name):
                    name = t.id
                else:
                    continue
                if name.startswith("_"):
                    continue
                doc = comment_above(node)
                nxt = body[k + 1] if k + 1 < len(body) else None
                if not doc and isinstance(nxt, ast.Expr) and isinstance(getattr(nxt, "value", None), ast.Constant) \
                        and isinstance(nxt.value.value, str):
                    doc = inspect.cleandoc(nxt.value.value)
                if doc and name not in out:
                    out[name] = doc

    cls_node = next((n for n in tree.body if isinstance(n, ast.ClassDef)), None)
    if cls_node is None:
        return {}
    scan(cls_node.body, False)
    for node in cls_node.body:
        if isinstance(node, ast.FunctionDef) and node.name == "__init__":
            scan(node.body, True)
    return out


def kind_of(v) -> str:
    if inspect.isclass(v):
        return "class"
    if inspect.isroutine(v):
        return "function"
    return "data"


def member_kind(raw) -> str:
    if isinstance(raw, property) or inspect.isdatadescriptor(raw):
        return "property"
    if isinstance(raw, classmethod):
        return "classmethod"
    if isinstance(raw, staticmethod):
        return "staticmethod"
    if inspect.isroutine(raw):
        return "method"
    if inspect.isclass(raw):
        return "class"
    return "attribute"


def main() -> int:
    root = sys.argv[1]
    pkg = importlib.import_module(root)
    mods = [pkg]
    if hasattr(pkg, "__path__"):
        for info in pkgutil.walk_packages(pkg.__path__, root + "."):
            if any(p.startswith("_") for p in info.name.split(".")[1:]):
                continue
            try:
                mods.append(importlib.import_module(info.name))
            except Exception as e:  # noqa: BLE001
                print(f"cannot import {info.name}: {e}", file=sys.stderr)
    symbols: list[dict] = []
    by_obj: dict[tuple, dict] = {}  # (public name, object): aliases stay separate
    for mod in mods:
        symbols.append({"name": mod.__name__, "kind": "module", "modules": [mod.__name__],
                        "doc": inspect.getdoc(mod) or ""})
        for n in public_names(mod, root):
            v = getattr(mod, n)
            key = (n, id(v)) if (inspect.isclass(v) or inspect.isroutine(v)) else None
            if key is not None and key in by_obj:
                if mod.__name__ not in by_obj[key]["modules"]:
                    by_obj[key]["modules"].append(mod.__name__)
                continue
            defining = getattr(v, "__module__", None) if key is not None else None
            if key is None and not isinstance(v, (int, float, str, bytes, bool, tuple, type(None))):
                # Data has no `__module__`: the public module that binds the same object
                # under the same name first (`ANY` of `blinker.base`, re-exported by `blinker`).
                defining = next((m.__name__ for m in mods if m is not mod and getattr(m, n, None) is v), None)
            modules = [m for m in [defining, mod.__name__] if isinstance(m, str)]
            modules = list(dict.fromkeys(modules))
            doc, inh = doc_of(v)
            sym = {"name": n, "kind": kind_of(v), "modules": modules, "doc": doc, "inherited_doc": inh}
            if key is not None:
                sym["item_id"] = f"{getattr(v, '__module__', '')}.{getattr(v, '__qualname__', n)}"
            symbols.append(sym)
            if key is not None:
                by_obj[key] = sym
            if inspect.isclass(v):
                for mn, raw in list(vars(v).items()):
                    meta = meta_field(raw)
                    if meta == "private":
                        continue
                    special = (mn.startswith("__") and mn.endswith("__") and mn != "__init__"
                               and inspect.isfunction(raw) and bool(own_doc(raw)))
                    if mn.startswith("_") and mn != "__init__" and meta != "public" and not special:
                        continue
                    if mn == "__init__" and not inspect.isfunction(raw):
                        continue
                    if (type(raw).__name__ == "member_descriptor" and not own_doc(raw)
                            and mn not in vars(v).get("__annotations__", {})):
                        continue  # an undocumented `__slots__` entry: autodoc skips it
                    try:
                        val = getattr(v, mn)
                    except Exception:  # noqa: BLE001
                        val = raw
                    target = raw if isinstance(raw, (property, classmethod, staticmethod)) else val
                    d, inh2 = doc_of(target, v, mn)
                    if mn == "__init__":
                        d, inh2 = (own_doc(raw), False)
                    symbols.append({"name": f"{n}.{mn}", "kind": "constructor" if mn == "__init__" else member_kind(raw),
                                    "modules": modules, "doc": d, "inherited_doc": inh2})
                for an, ad in documented_attributes(v).items():
                    if an not in vars(v) or type(vars(v)[an]).__name__ == "member_descriptor":
                        symbols.append({"name": f"{n}.{an}", "kind": "attribute", "modules": modules,
                                        "doc": ad, "inherited_doc": False})
    # member entries copy the class's module list by reference at creation; refresh
    for s in symbols:
        if "." in s["name"] and s["kind"] != "module":
            cls = s["name"].split(".")[0]
            for t in symbols:
                if t["name"] == cls and t["kind"] == "class" and set(t["modules"]) & set(s["modules"]):
                    s["modules"] = list(t["modules"])
                    break
    dist_version = ""
    try:
        from importlib.metadata import version
        dist_version = version(root.replace("_", "-"))
    except Exception:  # noqa: BLE001
        pass
    json.dump({"tool": f"python inspect (pydoc/autodoc rules), {root} {dist_version}",
               "language": "python", "notes": [], "symbols": symbols}, sys.stdout, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
