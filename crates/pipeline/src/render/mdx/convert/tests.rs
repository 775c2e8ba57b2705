//! Repository Markdown converted, shape by shape.

use super::doc::*;
use super::html::*;
use super::links::served_url;
use super::*;
use crate::render::mdx::validate::ALLOWED_COMPONENTS;
use crate::source::forge::Forge;

const COMMIT: &str = "0123456789abcdef0123456789abcdef01234567";

fn github() -> Links {
    Links {
        commit: COMMIT.into(),
        forge: Forge::from_remote("https://github.com/acme/widgets.git"),
        files: None,
        site: Default::default(),
    }
}

fn convert(markdown: &str) -> String {
    let out = markdown_to_mdx(markdown, "docs/guide/export.md", &github(), 3);
    if let Err(e) = validate_mdx(&out) {
        panic!("invalid MDX ({e}):\n{out}");
    }
    out
}

#[test]
fn admonitions_of_three_dialects_become_callouts() {
    let out =
        convert(":::note Before you start\nYou need `git`.\n:::\n\n:::danger\nData {loss}.\n:::");
    assert_eq!(
        out,
        "<Note>\n\n**Before you start**\n\nYou need `git`.\n\n</Note>\n\n<Warning>\n\nData \\{loss\\}.\n\n</Warning>"
    );
    let out = convert("!!! tip \"Faster\"\n    Use `--jobs 4`.\n\n    More.\n\nAfter.");
    assert_eq!(
        out,
        "<Tip>\n\n**Faster**\n\nUse `--jobs 4`.\n\nMore.\n\n</Tip>\n\nAfter."
    );
    let out =
        convert("> [!WARNING]\n> Breaks <b>old</b> files.\n> ```sh\n> rm -rf x\n> ```\n\nAfter.");
    assert_eq!(
        out,
        "<Warning>\n\nBreaks <b>old</b> files.\n```sh\nrm -rf x\n```\n\n</Warning>\n\nAfter."
    );
    for (kind, component) in [
        ("NOTE", "Note"),
        ("TIP", "Tip"),
        ("IMPORTANT", "Note"),
        ("CAUTION", "Warning"),
    ] {
        assert!(convert(&format!("> [!{kind}]\n> x")).starts_with(&format!("<{component}>")));
    }
    // Plain block quotes stay what they are; a container of another kind (VitePress's
    // `::: code-group`) only groups what it holds, which is shown without it.
    assert_eq!(convert("> quoted"), "> quoted");
    assert_eq!(convert(":::unknown\nx\n:::"), "x");
    assert_eq!(
        convert("::: code-group\n```sh\nnpm i x\n```\n:::\n\n::: info\nY.\n:::"),
        "```sh\nnpm i x\n```\n\n<Note>\n\nY.\n\n</Note>"
    );
    // Nested: four colons outside, three inside; a fence hides its `:::`.
    let out = convert("::::note\nA\n:::tip\nB\n:::\n```\n::::\n```\n::::");
    assert!(
        out.starts_with("<Note>\n\nA\n\n<Tip>\n\nB\n\n</Tip>\n\n```\n::::\n```\n\n</Note>"),
        "{out}"
    );
}

#[test]
fn admonitions_nest_only_so_deep() {
    let deep: String = (0..50)
        .map(|d| format!("{}> [!NOTE]\n", "> ".repeat(d)))
        .collect();
    let deep = deep + &"> ".repeat(50) + "x";
    let out = convert(&deep);
    assert_eq!(out.matches("<Note>").count(), MAX_CALLOUT_DEPTH);
}

#[test]
fn well_formed_html_becomes_jsx() {
    let out =
        convert("<details><summary>More <kbd>Ctrl</kbd></summary>\n\nHidden *text*.\n\n</details>");
    assert_eq!(
        out,
        "<details>\n\n<summary>More <kbd>Ctrl</kbd></summary>\n\nHidden *text*.\n\n</details>"
    );
    assert_eq!(
        convert("Press <kbd>Ctrl</kbd>+<kbd>C</kbd><br>x<sup>2</sup> H<sub>2</sub>O"),
        "Press <kbd>Ctrl</kbd>+<kbd>C</kbd><br />x<sup>2</sup> H<sub>2</sub>O"
    );
    assert_eq!(
        convert("<p align=\"center\">\n  <img src=\"logo.png\" width=200 alt='Logo'>\n</p>"),
        format!("\n  <img src=\"https://github.com/acme/widgets/raw/{COMMIT}/docs/guide/logo.png\" alt=\"Logo\" />").trim()
    );
    assert_eq!(
        convert("See <a href=\"../api.md#usage\">the API</a>."),
        format!("See [the API](https://github.com/acme/widgets/blob/{COMMIT}/docs/api.md#usage).")
    );
    assert_eq!(
        convert("<img src=\"https://x.y/a.svg\" width=\"260\"alt=\"A\">"),
        "<img src=\"https://x.y/a.svg\" alt=\"A\" />"
    );
    // A tag over several lines is read whole; one that never closes stays text.
    assert_eq!(
        convert(
            "<img src=\"https://x.y/logo.svg\" align=\"right\"\n     alt=\"Logo by A\" width=\"180\" height=\"94\">\n\nA tiny library."
        ),
        "<img src=\"https://x.y/logo.svg\" alt=\"Logo by A\" />\n\nA tiny library."
    );
    let unclosed = convert("<img src=\"a.png\"\n\nNo end.");
    assert!(unclosed.contains("No end."), "{unclosed}");
    assert!(
        unclosed.starts_with("\\<img"),
        "escaped as text: {unclosed}"
    );
    assert_eq!(
        convert("```html\n<img src=\"a.png\"\n  alt=\"A\">\n```"),
        "```html\n<img src=\"a.png\"\n  alt=\"A\">\n```"
    );
    // Unpaired, unknown or unclosed details: escaped or closed, never broken.
    assert_eq!(convert("a <b>bold"), "a \\<b\\>bold");
    assert_eq!(
        convert("<custom-el>x</custom-el>"),
        "\\<custom-el\\>x\\</custom-el\\>"
    );
    let out = convert("<details>\n<summary>S</summary>\n\nbody");
    assert!(out.ends_with("</details>"), "{out}");
    assert_eq!(convert("`<kbd>` stays code"), "`<kbd>` stays code");
}

#[test]
fn html_attacks_stay_inert() {
    for attack in [
        "<script>alert(1)</script>",
        "<img src=x onerror=\"alert(1)\">",
        "<img src=\"javascript:alert(1)\" alt=x>",
        "<a href=\"javascript:alert(1)\">click</a>",
        "<a href=\"java&#115;cript:alert(1)\">click</a>",
        "<details ontoggle=\"alert(1)\"><summary>s</summary>x</details>",
        "<b onclick=\"alert(1)\">x</b>",
        "<kbd style=\"x\">{globalThis.X=1}</kbd>",
        "<iframe src=\"https://evil.example\"></iframe>",
        "[x](javascript:alert(1)) ![y](javascript:alert(1))",
        "<svg><script>alert(1)</script></svg>",
    ] {
        // `convert` checks that validate accepts it: no JSX but the allowed elements,
        // without event handlers; and no tag other than those is left unescaped.
        let out = convert(attack);
        for live in [
            "<script",
            "<iframe",
            "<svg",
            "](javascript",
            "src=\"javascript",
        ] {
            let unescaped = out
                .match_indices(live)
                .any(|(i, _)| !out[..i].ends_with('\\'));
            assert!(!unescaped, "{attack} → {out}");
        }
        for handler in ["onerror", "onclick", "ontoggle", "style"] {
            assert!(
                !out.contains(handler) || out.contains("\\<"),
                "{attack} → {out}"
            );
        }
    }
}

#[test]
fn headings_nest_under_the_article_without_jumps() {
    assert_eq!(
        convert("# A\n\n### B\n\n###### C\n\n## D\n\n#### E\n\n```\n# not a heading\n```"),
        "### A\n\n#### B\n\n##### C\n\n#### D\n\n##### E\n\n```\n# not a heading\n```"
    );
    assert_eq!(convert("#### Only\n\ntext"), "### Only\n\ntext");
    assert_eq!(
        convert("ignore\n======\nText.\n\nUsage\n-----\n\nMore\ntext\n---\n\n---"),
        "### ignore\nText.\n\n#### Usage\n\nMore\ntext\n---\n\n---"
    );
    assert_eq!(
        markdown_to_mdx("# A\n## B", "", &github(), 2),
        "## A\n### B"
    );
    let deep: String = (1..=6)
        .map(|l| format!("{} h{l}\n", "#".repeat(l)))
        .collect();
    assert!(convert(&deep).ends_with("###### h4\n###### h5\n###### h6"));
}

#[test]
fn relative_links_and_images_point_at_the_forge_at_the_commit() {
    let blob = format!("https://github.com/acme/widgets/blob/{COMMIT}");
    let raw = format!("https://github.com/acme/widgets/raw/{COMMIT}");
    assert_eq!(
        convert(
            "See [setup](../setup.md#install), [root](/README.md), [here](#top), [web](https://x.y/a.md) and ![shot](img/a%20b.png \"t\")."
        ),
        format!(
            "See [setup]({blob}/docs/setup.md#install), [root]({blob}/README.md), [here](#top), [web](https://x.y/a.md) and ![shot]({raw}/docs/guide/img/a%20b.png \"t\")."
        )
    );
    assert_eq!(
        convert("[![badge](badge.svg)](../LICENSE)"),
        format!("[![badge]({raw}/docs/guide/badge.svg)]({blob}/docs/LICENSE)")
    );
    assert_eq!(
        convert("[ref]: ./other.md\n\nUse [ref]."),
        format!("[ref]: {blob}/docs/guide/other.md\n\nUse [ref].")
    );
    // A path leaving the repository is not rewritten; code is not either.
    assert_eq!(
        convert("[x](../../../a.md) `[y](b.md)`"),
        "[x](../../../a.md) `[y](b.md)`"
    );
}

#[test]
fn without_a_forge_files_are_served_by_the_service() {
    let links = Links {
        commit: COMMIT.into(),
        forge: None,
        files: None,
        site: Default::default(),
    };
    assert_eq!(
        markdown_to_mdx(
            "![a](shots/one%201.png) [b](../b.md)",
            "docs/x.md",
            &links,
            3
        ),
        "![a](/docs/shots/one%201.png) [b](/b.md)"
    );
    assert_eq!(
        links.file("docs/a b.png", true),
        served_url("docs/a b.png", COMMIT)
    );
}

#[test]
fn what_does_not_parse_as_mdx_is_escaped_instead() {
    // An inline element across emphasis does not nest in MDX: that line's HTML is
    // escaped, the rest of the document keeps its own.
    let out = convert("*a <b>c* d</b>\n\nx<br>y");
    assert_eq!(out, "*a \\<b\\>c* d\\</b\\>\n\nx<br />y");
}

#[test]
fn every_element_kept_is_allowed_by_validate() {
    for name in PHRASING.iter().chain(&["details", "summary", "br", "img"]) {
        assert!(ALLOWED_COMPONENTS.iter().any(|(n, _)| n == name), "{name}");
    }
}

#[test]
fn long_hostile_lines_stay_linear() {
    let line = "<a ".repeat(50_000) + &"<kbd>".repeat(20_000) + &"[".repeat(20_000);
    let started = std::time::Instant::now();
    let _ = escape::sanitize_markdown(&line);
    let escaping = started.elapsed();
    let started = std::time::Instant::now();
    let _ = markdown_to_mdx(&line, "a.md", &github(), 3);
    let converting = started.elapsed();
    eprintln!("escaping {escaping:?}, converting {converting:?}");
    assert!(converting < escaping * 8 + std::time::Duration::from_secs(1));
}

#[test]
fn code_holding_a_pipe_stays_code_where_no_table_can_split_it() {
    // No table in the text: the union type is code, and the spans pair as written.
    assert_eq!(
        convert("Returns `Future | None` or `int`."),
        "Returns `Future | None` or `int`."
    );
    // Where a table could split the row at the pipe, the code is escaped as text, so its
    // content never reaches MDX unescaped.
    let out = convert("Text `{a | b}`.\n\n| a | b |\n| --- | --- |\n| `x \\| {y}` | 2 |\n");
    assert!(!out.contains("`{a | b}`"), "{out}");
    assert!(!out.contains("{y}`"), "{out}");
}

#[test]
fn a_link_dressed_as_a_button_keeps_its_words() {
    let out = convert(
        "[<button title=\"Download the cheat sheet\">Download the cheat sheet</button>](https://gum.co/x)",
    );
    assert_eq!(out, "[Download the cheat sheet](https://gum.co/x)");
}

#[test]
fn a_page_of_the_docs_site_is_linked_on_the_site() {
    let links = Links {
        site: std::sync::Arc::new(std::collections::HashMap::from([(
            "docs/guide/setup.md".to_string(),
            "https://widgets.dev/guide/setup/".to_string(),
        )])),
        ..github()
    };
    let out = markdown_to_mdx(
        "[setup](setup.md#before) and [api](../api.md)",
        "docs/guide/export.md",
        &links,
        3,
    );
    assert_eq!(
        out,
        format!(
            "[setup](https://widgets.dev/guide/setup/#before) and [api](https://github.com/acme/widgets/blob/{COMMIT}/docs/api.md)"
        )
    );
}

#[test]
fn a_less_than_sign_in_code_or_before_a_non_tag_joins_no_lines() {
    let lines = join_split_tags(
        "- **`<=I.J`** equivalent to `<I.(J+1).0`\n- **`<=I`** equivalent to `<(I+1).0.0`\n\n**Op::Tilde**\n- **`~I.J.K`** equivalent to `>=I.J.K`\n",
    );
    assert_eq!(lines.len(), 5, "{lines:#?}");
    assert_eq!(lines[0], "- **`<=I.J`** equivalent to `<I.(J+1).0`");
    // A tag a README splits is still joined.
    let lines = join_split_tags("<img src=\"logo.svg\"\n  alt=\"Logo\">\n\nText with a <i\n");
    assert_eq!(lines[0], "<img src=\"logo.svg\" alt=\"Logo\">");
    assert!(!in_code_span("a `<b` c", 1));
    assert!(in_code_span("a `<b` c", 3));
    assert!(!in_code_span("a ``x`` <b", 8));
}

#[test]
fn a_pull_request_body_quoted_under_a_list_item_keeps_its_code_spans_images_and_details() {
    let markdown = "- Keep the thumb in [#2594](https://github.com/o/r/pull/2594)\n\n  > clamped to `[1, len]`, so `thumb_start +\n  > thumb_length` could exceed `len`.\n  >\n  > <details>\n  > <summary>Demo source code</summary>\n  >\n  > ```rust\n  > let x = `a`;\n  > ```\n  > </details>\n  > <img width=\"566\" alt=\"Capture\"\n  > src=\"https://github.com/user-attachments/assets/x\" />\n";
    let out = convert(markdown);
    assert!(
        out.contains("so `thumb_start + thumb_length` could exceed `len`."),
        "{out}"
    );
    assert!(out.contains("  > **Demo source code**\n"), "{out}");
    assert!(out.contains("  > let x = `a`;\n"), "{out}");
    assert!(
        out.contains("src=\"https://github.com/user-attachments/assets/x\""),
        "{out}"
    );
    for gone in ["\\`", "\\<", "details", "summary"] {
        assert!(!out.contains(gone), "{gone}:\n{out}");
    }
    // A backtick with no partner in its paragraph stays escaped; a new block ends the
    // paragraph.
    let out = convert("A `lone tick\n\n- and a `list item`\n");
    assert!(out.starts_with("A \\`lone tick"), "{out}");
    let lines = join_split_code_spans(vec!["a `b".into(), "- c` d".into()]);
    assert_eq!(lines.len(), 2);
}

#[test]
fn a_titled_link_to_no_file_is_its_text() {
    let links = Links {
        files: Some(std::sync::Arc::new(std::collections::HashSet::from([
            "docs/guide/export.md".to_string(),
        ]))),
        ..github()
    };
    let out = markdown_to_mdx(
        "Refer to the [Introduction](docs \"Introduction\") chapter.",
        "docs/guide/export.md",
        &links,
        3,
    );
    assert_eq!(out, "Refer to the Introduction chapter.");
}
