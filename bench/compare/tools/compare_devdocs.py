#!/usr/bin/env python3
"""Compare a dev-docs.mdx article with a language tool's view of the public API.

Python 3.11 standard library only.

    compare_devdocs.py TOOL_JSON ARTICLE_MDX [--json OUT.json] [--md OUT.md] [--label NAME]

TOOL_JSON is written by one of the extract_*.py scripts in this folder:

    {"tool": "...", "language": "...", "notes": [...],
     "symbols": [{"name": "Cache.maxsize", "alt_names": [...], "kind": "property",
                  "modules": ["cachetools", ...], "doc": "..."}]}

Measures (see README.md for the exact rules):
  coverage          share of tool symbols found among the article's headings/fields
  shown_but_hidden  article symbols that match no tool symbol
  doc agreement     for symbols in both whose tool doc is non-empty: share whose
                    tool description words are all present in our text, plus the
                    stricter share whose normalised word sequence is equal.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass, field

# --------------------------------------------------------------------------- article

ANCHOR_RE = re.compile(r'^<a id="([^"]*)"\s*/>\s*$')
MODULE_RE = re.compile(r"^### `([^`]+)`\s*$")
SYMBOL_RE = re.compile(r"^(#{4,5}) ([A-Za-z][A-Za-z ]*?) `([^`]+)`\s*$")
FIELD_RE = re.compile(r'^- <a id="([^"]*)"\s*/>`([^`]*)`(?::\s*(.*))?$')
FENCE_RE = re.compile(r"^\s*(```|~~~)")
STRUCT_MARKERS = ("**", "Defined in", "Fields:", "Variants:", "Example")


@dataclass
class ArticleSymbol:
    module: str
    name: str
    kind: str
    level: str  # module | symbol | member | field
    anchor: str
    lines: list[str] = field(default_factory=list)
    # The first module only: the article's lead, shown right above its section.
    lead: list[str] = field(default_factory=list)

    @property
    def doc(self) -> str:
        return article_doc_text(self.lines, signature=self.level != "module")

    @property
    def doc_with_lead(self) -> str:
        return article_doc_text(self.lead + self.lines, signature=False)


def parse_article(text: str) -> list[ArticleSymbol]:
    lines = text.splitlines()
    # drop front matter
    if lines and lines[0].strip() == "---":
        for i in range(1, len(lines)):
            if lines[i].strip() == "---":
                lines = lines[i + 1:]
                break
    out: list[ArticleSymbol] = []
    cur: ArticleSymbol | None = None
    # The article's lead (its text before the first `## ` heading, the package's summary)
    # opens the first module's docs: rustdoc and pydoc show that sentence on the package's
    # page, and the article shows it once, right above the package's section.
    lead: list[str] = []
    for line in lines:
        if line.startswith("## "):
            break
        lead.append(line)
    module = ""
    parent = ""
    last_anchor = None
    in_fence = False
    in_fields = False
    field_sym: ArticleSymbol | None = None
    for i, line in enumerate(lines):
        if FENCE_RE.match(line):
            in_fence = not in_fence
        if in_fence or FENCE_RE.match(line):
            if in_fields and field_sym is not None and (line.startswith("  ") or not line.strip()):
                field_sym.lines.append(line[2:])
            elif cur is not None:
                cur.lines.append(line)
            continue
        m_anchor = ANCHOR_RE.match(line)
        if m_anchor:
            last_anchor = m_anchor.group(1)
            continue
        if line.startswith("## "):
            cur = None  # a level-2 section (README, guides) ends the reference part
            continue
        prev_nonblank = next((lines[j] for j in range(i - 1, -1, -1) if lines[j].strip()), "")
        anchored = ANCHOR_RE.match(prev_nonblank) is not None
        mm = MODULE_RE.match(line)
        if mm and anchored:
            module = mm.group(1)
            cur = ArticleSymbol(module, module, "module", "module", last_anchor or "")
            if not any(s.level == "module" for s in out):
                cur.lead = lead
            out.append(cur)
            parent = ""
            continue
        ms = SYMBOL_RE.match(line)
        if ms and anchored:
            level = "symbol" if len(ms.group(1)) == 4 else "member"
            name = ms.group(3).rstrip("!") if ms.group(2) == "Macro" else ms.group(3)
            cur = ArticleSymbol(module, name, ms.group(2).lower(), level, last_anchor or "")
            out.append(cur)
            if level == "symbol":
                parent = name
            continue
        if line.startswith(("Fields:", "Variants:")):
            in_fields = True
        elif line.startswith("Trait implementations:") or SYMBOL_RE.match(line):
            in_fields = False  # rustdoc's trait impls are not fields (not counted)
        mf = FIELD_RE.match(line) if in_fields else None
        if mf and cur is not None and cur.level in ("symbol", "member"):
            fname = field_name(mf.group(2))
            owner = cur.name if cur.level == "symbol" else parent
            if fname:
                f = ArticleSymbol(module, f"{owner}.{fname}", "field", "field", mf.group(1))
                f.lines.append(mf.group(3) or "")
                out.append(f)
                field_sym = f
            continue
        # a field's later paragraphs are indented under its list item
        if in_fields and field_sym is not None and (line.startswith("  ") or not line.strip()):
            field_sym.lines.append(line[2:] if line.startswith("  ") else line)
            continue
        field_sym = None
        if cur is not None:
            cur.lines.append(line)
    return out


def field_name(sig: str) -> str:
    s = sig.strip()
    # Every leading modifier, in any order (`public static override readonly x`).
    modifiers = r"^(pub(\([^)]*\))?|readonly|static|const|let|var|public|protected|private|override|declare|abstract|accessor)\s+"
    while re.match(modifiers, s):
        s = re.sub(modifiers, "", s)
    m = re.match(r"\**&?([A-Za-z_$][\w$]*)", s)
    return m.group(1) if m else ""


DROP_EXAMPLES = False  # set for Go by compare()


def article_doc_text(lines: list[str], signature: bool = True) -> str:
    """The symbol's text without its signature block, `Defined in` line and field lists.
    Module sections have no signature block: none of their code blocks is dropped."""
    # find the first structural marker outside fences
    in_fence = False
    marker_idx = len(lines)
    for i, l in enumerate(lines):
        if FENCE_RE.match(l):
            in_fence = not in_fence
            continue
        if not in_fence and l.startswith(STRUCT_MARKERS):
            marker_idx = i
            break
    # the signature is the last fenced block before that marker
    blocks = []
    in_fence = False
    start = 0
    for i, l in enumerate(lines[:marker_idx]):
        if FENCE_RE.match(l):
            if not in_fence:
                start = i
            else:
                blocks.append((start, i))
            in_fence = not in_fence
    drop = set()
    if blocks and signature:
        # The signature opens the section (only blank lines above it). Doc comments keep
        # their code blocks and doctest sessions in place, so the last block before the
        # marker is not always the signature.
        s, e = blocks[0]
        if all(not x.strip() for x in lines[:s]):
            drop.update(range(s, e + 1))
        else:
            s, e = blocks[-1]
            # only if nothing but blank lines follows it up to the marker
            if all(not x.strip() for x in lines[e + 1:marker_idx]):
                drop.update(range(s, e + 1))
    # Go: `go doc -all` shows no examples; ours (pkg.go.dev's) are not doc text.
    if DROP_EXAMPLES:
        in_example = False
        fence_seen = False
        for i, l in enumerate(lines):
            if re.match(r"^Example( \(.*\))?:$", l):
                in_example, fence_seen = True, False
            if in_example:
                drop.add(i)
                if FENCE_RE.match(l):
                    if fence_seen:
                        in_example = False
                    fence_seen = True
    kept = []
    skip_list = False
    for i, l in enumerate(lines):
        if i in drop or l.startswith("Defined in ") or re.match(r"^\{/\*.*\*/\}$", l.strip()) or re.match(r"^(In|Import it with|Its names are imported from the package, as in) `[^`]+`\.$", l):
            continue
        if l.startswith(("Fields:", "Variants:", "Trait implementations:")):
            skip_list = True
            continue
        if re.match(r"^Available on crate features? .* only\.$", l):
            continue  # docs.rs's feature badge, not doc text
        if skip_list:
            if l.startswith("- ") or not l.strip():
                continue
            skip_list = False
        kept.append(l)
    return "\n".join(kept).strip()


# --------------------------------------------------------------------------- normalising

LABEL_WORDS = re.compile(
    r"(?im)^\s*(args|arguments|parameters|params|returns?|yields?|raises|throws|errors|"
    r"examples?|notes?|see also|warning|warns|deprecated|attributes|type parameters|"
    r"keyword arguments|other parameters|panics|safety)\s*:?\s*$"
)


def normalise(text: str) -> str:
    t = text or ""
    t = re.sub(r"(?m)^\s*(```|~~~)[^\n]*$", " ", t)                  # code fence lines
    t = re.sub(r"(?m)^\s*\[[^\]]+\]:\s*\S+.*$", " ", t)               # link definitions
    t = re.sub(r"</?[A-Za-z][^>]*>", " ", t)                          # html / jsx tags
    t = re.sub(r"\{@(?:link|linkcode|linkplain)\s+([^}|\s]+)(?:\s*\|\s*|\s+)?([^}]*)\}",
               lambda m: m.group(2) or m.group(1), t)                 # JSDoc links
    t = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", t)                   # md links
    t = re.sub(r"\[([^\]]*)\]\[[^\]]*\]", r"\1", t)                    # ref links
    t = re.sub(r"\[([^\]\n]+)\](?![(\[])", r"\1", t)                   # shortcut / Go / intra-doc links
    t = re.sub(r":[\w:.+-]+:`~?([^`<]*?)\s*(?:<[^>]*>)?`",
               lambda m: m.group(1).split(".")[-1] if m.group(0).count("~") else m.group(1), t)  # reST roles
    t = re.sub(r"(?m)^\s*\.\.\s+[\w:-]+::.*$", " ", t)                 # reST directives
    # reST fields: autodoc shows a parameter's, attribute's or exception's name before its
    # text ("sender – …", "ValueError – …"), and a `:type x:` as the type only.
    t = re.sub(r"(?m)^\s*:(param|parameter|arg|argument|key|keyword|raises?|except|exception|"
               r"var|ivar|cvar)\s+(?:[^:]*\s)?([\w.*]+)\s*:", r" \2 ", t)
    t = re.sub(r"(?m)^\s*:(param|parameter|arg|argument|key|keyword|type|raises?|except|"
               r"exception|returns?|rtype|yields?|ytype|var|ivar|cvar)\b[^:]*:", " ", t)
    t = re.sub(r"(?m)^\s*@(param|returns?|throws|default|defaultValue|example|deprecated|"
               r"see|remarks|typeParam|template|since|category|internal|public)\b", " ", t)  # TSDoc tags
    t = re.sub(r"(?m)^\s*-{3,}\s*$|^\s*={3,}\s*$", " ", t)             # numpy underlines
    t = re.sub(r"(?m)^\s*#{1,6}\s+", "", t)                          # markdown heading markers
    t = re.sub(r"(?m)^\s*\*\*([^*\n]+)\*\*\s*$", r"\1", t)        # a bold label line
    t = LABEL_WORDS.sub(" ", t)
    t = re.sub(r"\*\*|__|[`*]", "", t)
    t = re.sub(r"\\([\\`*_{}\[\]()#+\-.!<>])", r"\1", t)
    t = re.sub(r"\s+", " ", t)
    return t.strip()


WORD_RE = re.compile(r"[a-z0-9]+")
STRUCT_LABELS = {"param", "parameters", "returns", "return", "raises", "args", "example",
                 "examples", "deprecated", "default", "throws", "yields", "note"}


def words(text: str) -> list[str]:
    return WORD_RE.findall(normalise(text).lower())


# --------------------------------------------------------------------------- matching

def canon_module(m: str) -> str:
    s = (m or "").strip().lower()
    s = re.sub(r"^package\s+", "", s)
    s = re.sub(r"^\./", "", s)
    s = re.sub(r"^(src|source|lib)/", "", s)
    s = re.sub(r"(\.d)?\.(py|pyi|ts|tsx|mts|cts|js|mjs|cjs|rs|go)$", "", s)
    s = s.replace("::", ".").replace("/", ".")
    s = re.sub(r"\.(__init__|index|mod)$", "", s)
    return s


def canon_name(n: str) -> str:
    return (n or "").replace("::", ".").rstrip("!").strip()


def compare(tool: dict, art: list[ArticleSymbol], worst_n: int = 5) -> dict:
    global DROP_EXAMPLES
    DROP_EXAMPLES = tool.get("language") == "go"
    tool_syms = tool["symbols"]
    # index article by (module, name) and by name
    by_mod_name: dict[tuple[str, str], list[int]] = {}
    by_name: dict[str, list[int]] = {}
    by_mod_last: dict[tuple[str, str], list[int]] = {}
    for i, a in enumerate(art):
        cm, cn = canon_module(a.module), canon_name(a.name)
        if a.level == "module":
            cn = canon_module(a.name)
        by_mod_name.setdefault((cm, cn), []).append(i)
        by_name.setdefault(cn, []).append(i)
        by_mod_last.setdefault((cm, cn.split(".")[-1]), []).append(i)
    used: set[int] = set()
    heading_of_item: dict[str, int] = {}
    found, missing, wrong_module = [], [], []
    pairs = []

    def names_of(s):
        is_mod = s.get("kind") == "module"
        names = [canon_module(s["name"]) if is_mod else canon_name(s["name"])]
        return is_mod, names + [canon_name(x) for x in s.get("alt_names", [])]

    def pick(s, cands: list[int]) -> int | None:
        """Prefer a heading not matched yet (best shared words); a heading already
        matched counts only for the same item (a re-export shown once)."""
        cands = list(dict.fromkeys(cands))
        if not cands:
            return None
        free = [i for i in cands if i not in used]
        if free:
            tw = set(words(s.get("doc", "")))
            return max(free, key=lambda i: (len(tw & set(words(art[i].doc))), -i))
        iid = s.get("item_id")
        if iid is not None and heading_of_item.get(str(iid)) in cands:
            return heading_of_item[str(iid)]
        return -1

    def exact(s):
        is_mod, names = names_of(s)
        mods = [canon_module(m) for m in s.get("modules", [])]
        c = [i for n in names for m in mods for i in by_mod_name.get((m, n), [])]
        if is_mod:
            c += [i for n in names for i in by_mod_name.get((n, n), [])]
        return c

    def loose(s):  # unqualified tool name: same last part under one of its modules
        is_mod, names = names_of(s)
        if is_mod:
            return []
        mods = [canon_module(m) for m in s.get("modules", [])]
        c = []
        for n in names:
            if "." in n:
                continue
            for m in mods:
                c += by_mod_last.get((m, n), [])
        return c

    result: dict[int, int | None] = {}
    for pass_fn in (exact, loose):
        for k in range(len(tool_syms)):
            if result.get(k) not in (None, -1):
                continue
            s = tool_syms[k]
            hit = pick(s, pass_fn(s))
            if hit is None and k in result:
                continue  # keep the -1 verdict of the exact pass
            result[k] = hit
            if hit is not None and hit != -1:
                used.add(hit)
                if s.get("item_id") is not None:
                    heading_of_item.setdefault(str(s["item_id"]), hit)
    for k, s in enumerate(tool_syms):
        hit = result.get(k)
        if hit == -1:
            s = dict(s, kind=f"{s.get('kind')}, a second item of this name; the article has one heading")
            hit = None
        if hit is None:
            missing.append(s)
            _, names = names_of(s)
            if any(by_name.get(n) for n in names):
                wrong_module.append(s)
            continue
        found.append(s)
        pairs.append((s, art[hit]))
    # article symbols no tool symbol matched; a name the tool lists in another
    # module still counts as shown (it is not hidden by the tool).
    tool_names = set()
    for s in tool_syms:
        tool_names.add(canon_module(s["name"]) if s.get("kind") == "module" else canon_name(s["name"]))
        tool_names.update(canon_name(x) for x in s.get("alt_names", []))
    hidden = [a for i, a in enumerate(art) if i not in used and
              (canon_module(a.name) if a.level == "module" else canon_name(a.name)) not in tool_names]
    # article symbols left unmatched although the tool lists their name: the same
    # symbol shown a second time (for example from a .pyi stub next to the .py file)
    repeated = [a for i, a in enumerate(art) if i not in used and a not in hidden]
    # doc agreement
    rows = []
    for s, a in pairs:
        tw = words(s.get("doc", ""))
        if not tw:
            continue
        ours_text = a.doc
        if a.lead:
            # The package's summary counts when it makes the texts agree better: the
            # article shows it once, above the section, where the tool's page opens with it.
            with_lead = a.doc_with_lead
            if words(with_lead) == tw or (set(tw) <= set(words(with_lead)) and not set(tw) <= set(words(ours_text))):
                ours_text = with_lead
        ow = words(ours_text)
        ows = set(ow)
        miss = [w for w in dict.fromkeys(tw) if w not in ows]
        uniq = len(set(tw))
        rows.append({
            "name": s["name"], "module": (s.get("modules") or [""])[0], "kind": s.get("kind"),
            "all_words_present": not miss, "equal": tw == ow,
            "missing_share": round(len(miss) / uniq, 3) if uniq else 0.0,
            "missing_words": miss[:12], "tool_words": len(tw), "our_words": len(ow),
            "tool_quote": normalise(s.get("doc", ""))[:160],
            "our_quote": normalise(ours_text)[:160],
            "inherited_doc": bool(s.get("inherited_doc")),
        })
    rows.sort(key=lambda r: (-r["missing_share"], -len(r["missing_words"]), r["name"]))
    n_doc = len(rows)
    res = {
        "tool": tool.get("tool"), "language": tool.get("language"), "notes": tool.get("notes", []),
        "tool_symbols": len(tool_syms), "article_symbols": len(art),
        "found": len(found), "coverage": round(len(found) / len(tool_syms), 3) if tool_syms else None,
        "missing": [f'{(s.get("modules") or [""])[0]}: {s["name"]} ({s.get("kind")})' for s in missing],
        "missing_but_named_elsewhere": [s["name"] for s in wrong_module],
        "shown_but_hidden": [f"{a.module}: {a.name} ({a.kind})" for a in hidden],
        "shown_twice": [f"{a.module}: {a.name} ({a.kind}, #{a.anchor})" for a in repeated],
        "doc_pairs": n_doc,
        "doc_words_present": sum(r["all_words_present"] for r in rows),
        "doc_agreement": round(sum(r["all_words_present"] for r in rows) / n_doc, 3) if n_doc else None,
        "doc_equal": sum(r["equal"] for r in rows),
        "doc_equal_share": round(sum(r["equal"] for r in rows) / n_doc, 3) if n_doc else None,
        "doc_pairs_own": sum(not r["inherited_doc"] for r in rows),
        "doc_words_present_own": sum(r["all_words_present"] and not r["inherited_doc"] for r in rows),
        "worst": [r for r in rows if not r["all_words_present"]][:worst_n],
        "all_mismatches": [r for r in rows if not r["all_words_present"]],
    }
    return res


def to_markdown(label: str, r: dict, list_limit: int = 25) -> str:
    L = [f"### {label}", ""]
    L.append(f"- tool: {r['tool']} ({r['language']})")
    for n in r["notes"]:
        L.append(f"- note: {n}")
    L.append(f"- coverage: **{r['found']}/{r['tool_symbols']} = {r['coverage']}**")
    L.append(f"- shown but hidden by the tool: **{len(r['shown_but_hidden'])}** (of {r['article_symbols']} article symbols)")
    L.append(f"- doc-text agreement (all tool words present): **{r['doc_words_present']}/{r['doc_pairs']} = {r['doc_agreement']}**;"
             f" equal word sequence: {r['doc_equal']}/{r['doc_pairs']} = {r['doc_equal_share']}")
    if r["shown_twice"]:
        L.append(f"- article symbols that repeat a symbol already matched (shown twice): **{len(r['shown_twice'])}**,"
                 f" e.g. " + ", ".join(f"`{x}`" for x in r["shown_twice"][:5]))
    if r["doc_pairs_own"] != r["doc_pairs"]:
        L.append(f"- doc-text agreement without docstrings inherited from a base class: "
                 f"{r['doc_words_present_own']}/{r['doc_pairs_own']}")
    if r["missing"]:
        more = f" … (+{len(r['missing']) - list_limit})" if len(r["missing"]) > list_limit else ""
        L.append(f"- missing ({len(r['missing'])}): " + ", ".join(f"`{x}`" for x in r["missing"][:list_limit]) + more)
    if r["shown_but_hidden"]:
        more = f" … (+{len(r['shown_but_hidden']) - list_limit})" if len(r["shown_but_hidden"]) > list_limit else ""
        L.append(f"- shown but hidden ({len(r['shown_but_hidden'])}): " + ", ".join(f"`{x}`" for x in r["shown_but_hidden"][:list_limit]) + more)
    if r["worst"]:
        L.append("- worst doc mismatches:")
        for w in r["worst"]:
            def q(s):
                return s.replace("|", "\\|").replace("`", "'")
            L.append(f"  - `{w['name']}` ({w['kind']}; {int(w['missing_share'] * 100)}% of tool words missing"
                     f"{', inherited docstring' if w['inherited_doc'] else ''}): tool \"{q(w['tool_quote'][:110])}\" — ours \"{q(w['our_quote'][:110])}\"; missing: {', '.join(w['missing_words'][:8])}")
    L.append("")
    return "\n".join(L)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("tool_json")
    ap.add_argument("article")
    ap.add_argument("--json")
    ap.add_argument("--md")
    ap.add_argument("--label", default="")
    a = ap.parse_args(argv)
    tool = json.load(open(a.tool_json))
    art = parse_article(open(a.article, encoding="utf-8").read())
    r = compare(tool, art)
    if a.json:
        json.dump(r, open(a.json, "w"), indent=1)
    md = to_markdown(a.label or a.article, r)
    if a.md:
        open(a.md, "w").write(md)
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
