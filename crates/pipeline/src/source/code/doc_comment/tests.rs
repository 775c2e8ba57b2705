use super::model::MAX_TEXT_CHARS;
use super::*;

fn lines(text: &str) -> Vec<String> {
    text.lines().map(str::to_string).collect()
}

fn section<'c>(comment: &'c DocComment, title: &str) -> &'c [DocItem] {
    comment
        .sections
        .iter()
        .find(|s| s.title == title)
        .map_or(&[], |s| s.items.as_slice())
}

#[test]
fn google_style_sections() {
    let doc = lines(
        "Fetch rows.\n\nLonger text that\nwraps.\n\nArgs:\n    table (str): The table\n        to read.\n    keys: Row keys.\n    **kwargs: Passed on.\n\nReturns:\n    dict: Rows by key.\n\nRaises:\n    IOError: When the table\n        cannot be read.\n\nNote:\n    Slow on big tables.\n\nExample:\n    >>> fetch('t', [1])\n    {1: 'a'}\n",
    );
    let c = DocComment::parse(&doc, Language::Python, "python");
    assert_eq!(
        c.text,
        "Fetch rows.\n\nLonger text that\nwraps.\n\n> [!NOTE]\n> Slow on big tables.\n\n**Examples**\n\n```python\n>>> fetch('t', [1])\n{1: 'a'}\n```"
    );
    let params = section(&c, "Parameters");
    assert_eq!(params.len(), 3);
    assert_eq!(
        (
            params[0].name.as_str(),
            params[0].ty.as_str(),
            params[0].text.as_str()
        ),
        ("`table`", "`str`", "The table to read.")
    );
    assert_eq!(params[2].name, "`**kwargs`");
    let returns = section(&c, "Returns");
    assert_eq!(
        (returns[0].ty.as_str(), returns[0].text.as_str()),
        ("`dict`", "Rows by key.")
    );
    assert_eq!(section(&c, "Raises")[0].name, "`IOError`");
    assert_eq!(
        section(&c, "Raises")[0].text,
        "When the table cannot be read."
    );
    assert_eq!(c.summary(), "Fetch rows.");
}

#[test]
fn numpy_style_sections() {
    let doc = lines(
        "Sum values.\n\nParameters\n----------\nvalues : list of int\n    The values.\nstart : int, optional\n    Where to start.\n\nReturns\n-------\nint\n    The sum.\n\nSee Also\n--------\nmean : The average.\n",
    );
    let c = DocComment::parse(&doc, Language::Python, "python");
    assert_eq!(c.text, "Sum values.");
    let params = section(&c, "Parameters");
    assert_eq!(params[0].name, "`values`");
    assert_eq!(params[0].ty, "`list of int`");
    assert_eq!(params[1].ty, "`int, optional`");
    assert_eq!(params[1].text, "Where to start.");
    let returns = section(&c, "Returns");
    assert_eq!(
        (returns[0].ty.as_str(), returns[0].text.as_str()),
        ("`int`", "The sum.")
    );
    let see = section(&c, "See also");
    assert_eq!(see[0].name, "[`mean`](doc:mean)");
    assert_eq!(see[0].text, "The average.");
}

#[test]
fn rest_fields_directives_and_roles() {
    let doc = lines(
        "Make a context for :meth:`invoke` and :class:`~click.core.Context`.\n\nUses ``ctx.obj``; see `the docs <https://x.dev/a>`_ and :ref:`guide`.\n\n.. deprecated:: 8.2\n    Use :func:`run` instead.\n\n.. versionadded:: 7.0\n\n:param info_name: the name\n    of the command.\n:param args: the arguments.\n:type args: list[str]\n:returns: the context.\n:rtype: Context\n:raises ValueError: on bad input.\n\nExample::\n\n    ctx = make_context('x', [])\n",
    );
    let c = DocComment::parse(&doc, Language::Python, "python");
    assert_eq!(
        c.text,
        "Make a context for [`invoke()`](doc:invoke) and [`Context`](doc:click.core.Context).\n\nUses `ctx.obj`; see [the docs](https://x.dev/a) and guide.\n\n*Added in version 7.0.*\n\nExample:\n\n```python\nctx = make_context('x', [])\n```"
    );
    assert_eq!(
        c.deprecated.as_deref(),
        Some("Since version 8.2. Use [`run()`](doc:run) instead.")
    );
    let params = section(&c, "Parameters");
    assert_eq!(params[0].text, "the name of the command.");
    assert_eq!(params[1].ty, "`list[str]`");
    assert_eq!(section(&c, "Returns")[0].ty, "`Context`");
    assert_eq!(section(&c, "Raises")[0].name, "`ValueError`");
    assert_eq!(c.summary(), "Make a context for `invoke()` and `Context`.");
}

#[test]
fn unknown_directives_leave_no_markup() {
    let doc = lines("Text.\n\n.. autofunction:: x\n   :noindex:\n\n.. _label:\n\nMore.");
    let c = DocComment::parse(&doc, Language::Python, "python");
    assert_eq!(c.text, "Text.\n\nMore.");
}

#[test]
fn jsdoc_tags() {
    let doc = lines(
        "Creates a client; see {@link Options} and {@link https://x.dev | the site}.\n\n@remarks\nReuses connections.\n@typeParam T - The body type.\n@param {string} url - Where to go.\n@param [opts.retry=2] How often.\n@returns {Promise<T>} The body.\n@throws {HTTPError} When the status is not 2xx.\n@default `{}`\n@deprecated Use {@link fetchJson} instead.\n@see Client\n@example\nawait create('x');\n@since 1.0",
    );
    let c = DocComment::parse(&doc, Language::TypeScript, "typescript");
    assert_eq!(
        c.text,
        "Creates a client; see [`Options`](doc:Options) and [the site](https://x.dev).\n\nReuses connections."
    );
    let params = section(&c, "Parameters");
    assert_eq!(
        (
            params[0].name.as_str(),
            params[0].ty.as_str(),
            params[0].text.as_str()
        ),
        ("`url`", "`string`", "Where to go.")
    );
    assert_eq!(params[1].name, "`opts.retry`");
    assert_eq!(params[1].text, "How often. Defaults to `2`.");
    assert_eq!(section(&c, "Type parameters")[0].name, "`T`");
    assert_eq!(section(&c, "Returns")[0].ty, "`Promise<T>`");
    assert_eq!(section(&c, "Throws")[0].ty, "`HTTPError`");
    assert_eq!(c.default.as_deref(), Some("{}"));
    assert_eq!(
        c.deprecated.as_deref(),
        Some("Use [`fetchJson`](doc:fetchJson) instead.")
    );
    assert_eq!(section(&c, "See also")[0].name, "[`Client`](doc:Client)");
    assert!(!c.hidden);
    assert!(DocComment::parse(&lines("Internal.\n@hidden"), Language::TypeScript, "ts").hidden);
    // The value of `@default` is its first paragraph; prose after it describes the property.
    let c = DocComment::parse(
        &lines(
            "Strict mode.\n\n@default false\n\nFor example, with `intervalCap: 2`.\n\n- Bursts.\n@since 2",
        ),
        Language::TypeScript,
        "typescript",
    );
    assert_eq!(c.default.as_deref(), Some("false"));
    assert_eq!(
        c.text,
        "Strict mode.\n\nFor example, with `intervalCap: 2`.\n\n- Bursts."
    );
}

#[test]
fn go_paragraphs_code_lists_links_and_deprecation() {
    let doc = lines(
        "Marshal returns the encoding of v, like [json.Marshal].\nSee [Decoder] and [the spec].\n\nIt handles:\n  - maps\n  - slices,\n    even nested\n\nFor example:\n\n\tb, err := Marshal(v)\n\n# Errors\n\nIt fails on cycles.\n\nDeprecated: Use [Encode] instead.\n\n[the spec]: https://x.dev/spec",
    );
    let c = DocComment::parse(&doc, Language::Go, "go");
    assert_eq!(
        c.text,
        "Marshal returns the encoding of v, like [`json.Marshal`](doc:json.Marshal).\nSee [`Decoder`](doc:Decoder) and [the spec].\n\nIt handles:\n\n- maps\n- slices, even nested\n\nFor example:\n\n```\nb, err := Marshal(v)\n```\n\n**Errors**\n\nIt fails on cycles.\n\n[the spec]: https://x.dev/spec"
    );
    assert_eq!(
        c.deprecated.as_deref(),
        Some("Use [`Encode`](doc:Encode) instead.")
    );
    // Index expressions and lower-case words are not doc links.
    let c = DocComment::parse(&lines("Sets a[Key] and [x]."), Language::Go, "go");
    assert_eq!(c.text, "Sets a[Key] and [x].");
}

#[test]
fn rustdoc_keeps_sections_and_examples_in_place() {
    let doc = lines(
        "Parses a [`Value`].\n\nMore about [`crate::kv::Key`].\n\n# Examples\n\n```\nlet v = parse(\"1\");\n```\n\n# Errors\n\nFails on bad input.\n\n```text\noutput\n```",
    );
    let c = DocComment::parse(&doc, Language::Rust, "rust");
    assert_eq!(
        c.text,
        "Parses a [`Value`](doc:Value).\n\nMore about [`crate::kv::Key`](doc:crate::kv::Key).\n\n**Examples**\n\n```rust\nlet v = parse(\"1\");\n```\n\n**Errors**\n\nFails on bad input.\n\n```text\noutput\n```"
    );
    assert_eq!(c.summary(), "Parses a `Value`.");
}

#[test]
fn a_huge_comment_is_bounded_and_keeps_fences_closed() {
    let mut doc = vec!["Intro.".to_string(), "```text".to_string()];
    doc.extend((0..5_000).map(|i| format!("line {i}")));
    doc.push("```".into());
    let c = DocComment::parse(&doc, Language::Rust, "rust");
    assert!(c.text.chars().count() <= MAX_TEXT_CHARS + 8);
    assert_eq!(c.text.matches("```").count() % 2, 0);
}

#[test]
fn a_markdown_fence_in_a_docstring_is_kept_as_written() {
    let doc = lines(
        "Format a number.\n\nExamples:\n    ```pycon\n    >>> ordinal(1)\n    '1st'\n\n    >>> ordinal(2)\n    '2nd'\n    ```\n\nArgs:\n    value (int): The number.\n",
    );
    let c = DocComment::parse(&doc, Language::Python, "python");
    assert_eq!(
        c.text,
        "Format a number.\n\n**Examples**\n\n```pycon\n>>> ordinal(1)\n'1st'\n\n>>> ordinal(2)\n'2nd'\n```"
    );
    assert_eq!(section(&c, "Parameters")[0].text, "The number.");
    // One never closed is closed where the docstring ends.
    let c = DocComment::parse(
        &lines("Text.\n\n```python\nx = 1"),
        Language::Python,
        "python",
    );
    assert_eq!(c.text, "Text.\n\n```python\nx = 1\n```");
}

#[test]
fn a_google_return_type_alone_is_its_type() {
    let c = DocComment::parse(
        &lines("Metric.\n\nReturns:\n    str:\n"),
        Language::Python,
        "python",
    );
    let returns = section(&c, "Returns");
    assert_eq!(
        (returns[0].ty.as_str(), returns[0].text.as_str()),
        ("`str`", "")
    );
}

#[test]
fn rest_inline_markup_split_by_a_line_break_is_read_whole() {
    let c = DocComment::parse(
        &lines(
            "Load it.\n\nThe return value is ``(signature_valid,\npayload)``. See\n:meth:`.Signer.unsign` and\n:class:`~.BadPayload`, and :doc:`/concepts`\nor :doc:`the guide <guide/index>`.\n\nA `` ` `` alone.",
        ),
        Language::Python,
        "python",
    );
    assert_eq!(
        c.text,
        "Load it.\n\nThe return value is `(signature_valid, payload)`. See\n[`Signer.unsign()`](doc:Signer.unsign) and\n[`BadPayload`](doc:BadPayload), and concepts\nor the guide.\n\nA `` ` `` alone."
    );
}

#[test]
fn go_implicit_headings_are_headings() {
    let c = DocComment::parse(
        &lines(
            "Package errors provides simple error handling primitives.\n\nAdding context to an error\n\nThe errors.Wrap function returns a new error.\n\nNot a heading.\n\nRetrieving the cause of an error\n    code()\n\nFormatted printing of errors\n\nText.",
        ),
        Language::Go,
        "go",
    );
    assert_eq!(
        c.text,
        "Package errors provides simple error handling primitives.\n\n**Adding context to an error**\n\nThe errors.Wrap function returns a new error.\n\nNot a heading.\n\nRetrieving the cause of an error\n\n```\ncode()\n```\n\n**Formatted printing of errors**\n\nText."
    );
}

#[test]
fn rust_crate_docs_lose_their_badge_rows() {
    let doc = lines(
        "[![github]](https://github.com/a/semver)&ensp;[![crates-io]](https://crates.io/crates/semver)\n\n[github]: https://img.shields.io/badge/github-8da0cb\n[crates-io]: https://img.shields.io/badge/crates.io-fc8d62\n\n<br>\n\nA parser for [SemVer].\n\n![diagram](docs/diagram.svg)\n\n[SemVer]: https://semver.org\n",
    );
    let text = DocComment::module(&doc, Language::Rust);
    assert_eq!(
        text,
        "A parser for [SemVer].\n\n![diagram](docs/diagram.svg)\n\n[SemVer]: https://semver.org"
    );
}

#[test]
fn rest_hyperlinks_escapes_and_formulas_in_directives_and_items() {
    let doc = lines(
        "Retry it.\n\n.. math::\n\n   min(wait\\_max, wait\\_initial)\n\nSince :math:`[wait\\_initial,wait\\_max]`, see :class:`Hook`\\ s.\n\nArgs:\n    callable\\_: Callable to call.\n    on: The hook; useful when the error carries a `Retry-After\n        <https://x.dev/retry-after>`_ header.\n\n.. versionadded:: 23.3.0 `Trio <https://trio.dev/>`_ support.\n",
    );
    let c = DocComment::parse(&doc, Language::Python, "python");
    assert!(
        c.text
            .contains("```math\nmin(wait\\_max, wait\\_initial)\n```"),
        "{}",
        c.text
    );
    assert!(c.text.contains("`[wait_initial,wait_max]`"), "{}", c.text);
    assert!(c.text.contains("(doc:Hook)s."), "{}", c.text);
    assert!(
        c.text
            .contains("*Added in version 23.3.0:* [Trio](https://trio.dev/) support."),
        "{}",
        c.text
    );
    let params = section(&c, "Parameters");
    assert_eq!(params[0].name, "`callable_`");
    assert!(
        params[1]
            .text
            .contains("a [Retry-After](https://x.dev/retry-after) header."),
        "{}",
        params[1].text
    );
}

#[test]
fn rust_reference_definitions_to_paths_become_links_and_leave_no_text() {
    let doc = lines(
        "Equivalent to <code>return Err([anyhow!($args...)][anyhow!])</code>; see [here].\n\n[anyhow!]: crate::anyhow\n[here]: crate::Context#effect-on-downcasting\n[site]: https://x.dev",
    );
    let c = DocComment::parse(&doc, Language::Rust, "rust");
    assert!(!c.text.contains("]: crate::"), "{}", c.text);
    assert!(
        c.text.contains("[anyhow!($args...)](doc:crate::anyhow)"),
        "{}",
        c.text
    );
    assert!(c.text.contains("[here](doc:crate::Context)"), "{}", c.text);
    // A URL's definition is ordinary Markdown and stays.
    assert!(c.text.contains("[site]: https://x.dev"), "{}", c.text);
    let module = DocComment::module(
        &lines(
            "- Set [`std::backtrace`] up.\n\n  [`std::backtrace`]: std::backtrace#environment-variables",
        ),
        Language::Rust,
    );
    assert!(!module.contains("]: std::"), "{module}");
}
