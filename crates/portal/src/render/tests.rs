//! The renderer on what the pipeline writes (samples under `samples/`, copied from its
//! output on a fixture repository, and articles generated here by running it) and on hostile
//! input.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use super::*;

const HELP_CENTER: &str = include_str!("samples/help-center.mdx");
const DEV_DOCS: &str = include_str!("samples/dev-docs.mdx");
const CHANGELOG: &str = include_str!("samples/changelog.mdx");
const BLOG: &str = include_str!("samples/blog.mdx");

/// Every repository file served, under `/files/`.
fn served(path: &str) -> Option<String> {
    Some(format!("/files/{}", pipeline::encode_path(path)))
}

fn nothing_served(_: &str) -> Option<String> {
    None
}

/// `mdx` rendered, without the links each heading has to itself (one test checks them), so
/// that the other tests read as the article's own markup.
fn render(mdx: &str) -> Rendered {
    let mut rendered = article(mdx, &served);
    assert_eq!(rendered.refused, None, "{}", rendered.html);
    rendered.html = without_heading_links(&rendered.html);
    rendered
}

const HEADING_LINK: &str = " <a class=\"heading-link\"";

fn without_heading_links(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(start) = rest.find(HEADING_LINK) {
        out.push_str(&rest[..start]);
        let end = rest[start..]
            .find("</a>")
            .map_or(rest.len(), |e| start + e + 4);
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

#[test]
fn each_section_links_to_itself_and_is_in_the_outline() {
    let mdx =
        "---\ntitle: \"T\"\n---\n\n## Install <b>it</b>\n\n### Usage\n\n#### Deep\n\n## Usage\n";
    let rendered = article(mdx, &served);
    assert_contains(
        &rendered.html,
        &[
            "<h2 id=\"install-it\">Install <b>it</b> <a class=\"heading-link\" aria-label=\"Link to this section\" href=\"#install-it\"",
            "<h3 id=\"usage\">Usage <a class=\"heading-link\" aria-label=\"Link to this section\" href=\"#usage\"",
            "<h2 id=\"usage-1\">Usage <a class=\"heading-link\"",
        ],
    );
    let outline: Vec<(u8, &str, &str)> = rendered
        .outline
        .iter()
        .map(|s| (s.level, s.id.as_str(), s.title.as_str()))
        .collect();
    assert_eq!(
        outline,
        [
            (2, "install-it", "Install it"),
            (3, "usage", "Usage"),
            (2, "usage-1", "Usage"),
        ]
    );
}

#[test]
fn the_service_s_own_frontmatter_fields_are_not_in_the_page() {
    let rendered = render(CHANGELOG);
    assert!(
        !rendered.html.contains("source_commit"),
        "{}",
        rendered.html
    );
    assert!(!rendered.html.contains("<dl"), "{}", rendered.html);
    assert!(rendered.front.iter().any(|(k, _)| k == "source_commit"));
}

fn assert_contains(html: &str, parts: &[&str]) {
    for part in parts {
        assert!(html.contains(part), "no {part:?} in:\n{html}");
    }
}

#[test]
fn a_walkthrough_has_its_steps_frames_callouts_code_and_table() {
    let rendered = render(HELP_CENTER);
    let html = &rendered.html;
    assert_eq!(rendered.title(), Some("Numbers"));
    assert_eq!(rendered.description(), Some("Small arithmetic helpers."));
    assert_eq!(
        rendered.front[2],
        ("feature".to_owned(), "numbers".to_owned())
    );
    assert_contains(
        html,
        &[
            "<header class=\"article-header\"><h1>Numbers</h1><p class=\"article-description\">Small arithmetic helpers.</p></header>",
            "<ol class=\"steps\">",
            "<li class=\"step\" id=\"install-the-crate\"><h2 class=\"step-title\">Install the crate</h2>",
            "<li class=\"step\" id=\"add-two-numbers\"><h2 class=\"step-title\">Add two numbers</h2>",
            "<figure class=\"frame\"><img src=\"/files/captures/one.png\" alt=\"Install the crate\"></figure>",
            "<img src=\"/files/docs/img/result.png\" alt=\"inline\">",
            "<aside class=\"callout callout-note\" role=\"note\"><p class=\"callout-label\">Note</p>",
            "<aside class=\"callout callout-warning\" role=\"note\"><p class=\"callout-label\">Warning</p>",
            "<pre class=\"hl-code\" tabindex=\"0\"><code><span class=\"hl-",
            "<th class=\"align-left\">Function</th><th class=\"align-right\">Returns</th>",
            "<td class=\"align-left\"><code>add</code></td>",
            "<h3 id=\"usage\">Usage</h3>",
            "<kbd>Ctrl</kbd>",
            "<a href=\"https://docs.rs/numbers\" rel=\"noopener noreferrer\">the docs</a>",
            // Escaped text in the MDX is text on the page.
            "Text with {braces} and &lt;script&gt;alert(1)&lt;/script&gt;.",
        ],
    );
    assert_eq!(html.matches("<li class=\"step\"").count(), 2);
    assert!(!html.contains("<script"), "{html}");
    assert!(!html.contains("style="), "{html}");
}

#[test]
fn referenced_files_are_the_images_shown_each_once() {
    assert_eq!(
        referenced_files(HELP_CENTER),
        ["captures/one.png", "docs/img/result.png"]
    );
    assert_eq!(referenced_files(BLOG), ["docs/img/result.png"]);
    assert!(referenced_files(CHANGELOG).is_empty());
    assert!(
        referenced_files("<Note>\n\n{x}\n").is_empty(),
        "unparsable: none"
    );
}

#[test]
fn an_image_that_cannot_be_served_shows_its_alt_text() {
    let rendered = article(HELP_CENTER, &nothing_served);
    assert!(!rendered.html.contains("<img"), "{}", rendered.html);
    assert_contains(
        &rendered.html,
        &[
            "<figure class=\"frame\"><span class=\"image-alt\">Install the crate</span></figure>",
            "<span class=\"image-alt\">inline</span>",
        ],
    );
    // Another site's image is a link: the pages load images from their own server only.
    let rendered = render("![chart](https://example.com/c.png) ![](https://example.com/d.png)\n");
    assert_contains(
        &rendered.html,
        &[
            "<a class=\"external-image\" href=\"https://example.com/c.png\" rel=\"noopener noreferrer\">chart</a>",
            ">image</a>",
        ],
    );
}

#[test]
fn changelog_entries_are_sections_headed_by_their_labels() {
    let html = render(CHANGELOG).html;
    assert_contains(
        &html,
        &[
            "<section class=\"update\" id=\"unreleased\"><h2>Unreleased</h2><p class=\"update-description\">2026-11-24</p>",
            "<section class=\"update\" id=\"010\"><h2>0.1.0</h2>",
            // The entry's own headings sit below its label.
            "<h3 id=\"added\">Added</h3>",
            "<h3 id=\"added-1\">Added</h3>",
            "<strong>math:</strong> add sub (<code>80ad422</code>)",
        ],
    );
}

#[test]
fn developer_docs_keep_their_anchors_and_highlight_rust() {
    let html = render(DEV_DOCS).html;
    assert_contains(
        &html,
        &[
            "<span id=\"src-lib-rs-Point\"></span>",
            "<h4 id=\"struct-point\">Struct <code>Point</code></h4>",
            "<li><span id=\"src-lib-rs-Point-x\"></span><code>pub x: f64</code>: Horizontal.</li>",
            "<span class=\"hl-storage hl-type hl-struct hl-rust\">struct</span>",
        ],
    );
    // The closing comment is an expression: dropped.
    assert!(!html.contains("Generated from"), "{html}");
}

#[test]
fn blog_posts_keep_relative_links_and_number_their_headings() {
    let html = render(BLOG).html;
    assert_contains(
        &html,
        &[
            "<h2 id=\"what-it-does\">What it does</h2>",
            "<h3 id=\"1-install-the-crate\">1. Install the crate</h3>",
            "<a href=\"../help-center/numbers\" rel=\"noopener noreferrer\">How to use Numbers</a>",
        ],
    );
}

/// A repository with a walkthrough whose steps have captures, documents with images,
/// admonitions, tables and code, and a release: what every surface is made from.
fn fixture() -> testkit::Repo {
    let mut repo = testkit::Repo::new();
    repo.write(
        "src/lib.rs",
        "//! Numbers.\n\n/// Adds <b>two</b> numbers.\npub fn add(a: i32, b: i32) -> i32 { a + b }\n",
    )
    .write(
        "docs/guide.md",
        "# Guide\n\n> [!WARNING]\n> Mind {overflow}.\n\n## Usage\n\n1. Install:\n\n   ```sh\n   cargo add numbers\n   ```\n\n2. See ![the result](img/result.png)\n\n| a | b |\n|---|---|\n| 1 | 2 |\n",
    )
    .write("docs/img/result.png", b"\x89PNG\r\n\x1a\nresult")
    .write("captures/one.png", b"\x89PNG\r\n\x1a\none")
    .write(
        ".content-pipeline/features.toml",
        "[[features]]\nid = \"numbers\"\ntitle = \"Numbers\"\nsummary = \"Helpers.\"\npaths = [\"src/**\", \"docs/**\"]\ncaptures = \"captures\"\n\n[[features.steps]]\ntitle = \"Install\"\nbody = \"Run `cargo add numbers`.\"\ncapture = \"one.png\"\n",
    );
    repo.commit("feat: add numbers");
    repo.write(
        "src/lib.rs",
        "//! Numbers.\n\n/// Adds <b>two</b> numbers, saturating.\npub fn add(a: i32, b: i32) -> i32 { a.saturating_add(b) }\n",
    );
    repo.commit("fix(math): handle {overflow} in <add>");
    repo
}

#[test]
fn every_article_the_pipeline_writes_renders() {
    let repo = fixture();
    let limits = pipeline::Limits::default();
    let versions = BTreeMap::new();
    let request = pipeline::RunRequest {
        commit: None,
        repo: &repo.path,
        feature_id: "numbers",
        since_commit: None,
        surfaces: None,
        versions: &versions,
        limits: &limits,
    };
    let output = pipeline::run(&request, &mut pipeline::DiscardLog).expect("a run");
    assert_eq!(output.articles.len(), 4);
    for generated in &output.articles {
        let rendered = render(&generated.mdx_body);
        assert_eq!(rendered.title(), Some(generated.title.as_str()));
        let html = &rendered.html;
        assert!(
            html.starts_with("<header class=\"article-header\"><h1>"),
            "{html}"
        );
        for path in referenced_files(&generated.mdx_body) {
            assert!(
                html.contains(&format!("src=\"/files/{}\"", pipeline::encode_path(&path))),
                "{path} is shown:\n{html}"
            );
        }
        match generated.surface {
            domain::Surface::HelpCenter => {
                assert_eq!(
                    referenced_files(&generated.mdx_body),
                    ["captures/one.png", "docs/img/result.png"]
                );
                assert_contains(
                    html,
                    &[
                        "<ol class=\"steps\">",
                        "<figure class=\"frame\"><img src=\"/files/captures/one.png\"",
                    ],
                );
            }
            domain::Surface::Changelog => {
                assert_contains(
                    html,
                    &[
                        "<section class=\"update\"",
                        "Handle {overflow} in &lt;add&gt;",
                    ],
                );
            }
            domain::Surface::DevDocs => {
                assert_contains(html, &["<span class=\"hl-", "callout-warning"]);
            }
            domain::Surface::Blog => {}
        }
    }
}

#[test]
fn hostile_markup_renders_as_text_or_nothing() {
    let hostile = concat!(
        "---\ntitle: \"<script>alert(1)</script>\"\nx\" onload=\"y: z\n---\n\n",
        "import {a} from 'b'\n\nexport const c = globalThis.d = 1\n\n",
        "{globalThis.e = 1}\n\n",
        "<script>alert(2)</script>\n\n<style>body{display:none}</style>\n\n",
        "<iframe src=\"https://evil.example\">framed</iframe>\n\n",
        "<Note onClick=\"alert(3)\" style=\"color:red\" class=\"evil\">noted</Note>\n\n",
        "<img src=\"/a.png\" onerror=\"alert(4)\" alt=\"a\" />\n\n",
        "<img src=\"javascript:alert(5)\" alt=\"js\" />\n\n",
        "<a href=\"javascript:alert(6)\" id=\"x\">anchor</a>\n\n",
        "<Frame caption=\"c\" src=\"data:image/svg+xml,<svg onload=alert(7)>\">framed image</Frame>\n\n",
        "[link](javascript:alert(8)) [ok](https://x.y \"t\") ![img](javascript:alert(9))\n\n",
        "[ref]\n\n[ref]: javascript:alert(10)\n\n",
        "<Step title=\"&quot;><script>alert(11)</script>\">step</Step>\n\n",
        "<Foo bar=\"baz\" onmouseover=\"alert(12)\">kept child</Foo>\n\n",
        "```html\n<script>alert(13)</script>\n```\n",
    );
    let rendered = render(hostile);
    let html = &rendered.html;
    assert_eq!(rendered.title(), Some("<script>alert(1)</script>"));
    assert!(!html.contains("<p></p>"), "{html}");
    for gone in [
        "<script",
        "<style",
        "<iframe",
        "onload",
        "onerror",
        "onclick",
        "onmouseover",
        "javascript:",
        "data:",
        "style=",
        "globalThis",
        "alert(2)",
        "display:none",
        "evil",
        "baz",
        "import",
        "export",
    ] {
        assert!(
            !html.to_lowercase().contains(&gone.to_lowercase()),
            "{gone} in:\n{html}"
        );
    }
    assert_contains(
        html,
        &[
            "<h1>&lt;script&gt;alert(1)&lt;/script&gt;</h1>",
            "framed",
            "noted",
            "<img src=\"/files/a.png\" alt=\"a\">",
            "<span class=\"image-alt\">js</span>",
            "<p><span id=\"x\"></span>anchor</p>",
            // A callout on one line is an aside of its own, not inside a paragraph.
            "<aside class=\"callout callout-note\" role=\"note\"><p class=\"callout-label\">Note</p>\nnoted</aside>",
            "<figcaption>c</figcaption>",
            "link <a href=\"https://x.y\" rel=\"noopener noreferrer\">ok</a> <span class=\"image-alt\">img</span>",
            "<p>ref</p>",
            "<h2 class=\"step-title\">\"&gt;&lt;script&gt;alert(11)&lt;/script&gt;</h2>",
            "kept child",
            // Code is highlighted text.
            "<pre class=\"hl-code\" tabindex=\"0\"><code>",
            "alert</span>",
        ],
    );
}

#[test]
fn deep_large_and_broken_input_is_shown_as_source_quickly() {
    let started = Instant::now();
    for deep in [
        "> ".repeat(100_000),
        "- ".repeat(50_000),
        "<A>".repeat(5_000),
        "[".repeat(100_000),
        "a**".repeat(200_000),
    ] {
        let rendered = article(&deep, &served);
        let reason = rendered.refused.expect("refused");
        assert!(reason.contains("levels deep"), "{reason}");
        assert!(rendered.html.starts_with("<div class=\"render-error\">"));
        assert!(referenced_files(&deep).is_empty());
    }
    let large = "word ".repeat(max_article_bytes() / 5 + 1);
    let rendered = article(&large, &served);
    assert!(rendered.refused.expect("refused").contains("larger than"));
    assert!(
        rendered.html.len() < 1_000,
        "the source of an oversized article is not shown"
    );
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "took {:?}",
        started.elapsed()
    );

    let rendered = article("# Hi\n\nSee Vec<T> here <b>\n", &served);
    assert!(rendered.refused.expect("refused").contains("not valid MDX"));
    assert!(
        rendered.html.contains("See Vec&lt;T&gt; here &lt;b&gt;"),
        "{}",
        rendered.html
    );
}

#[test]
fn a_deep_tree_within_the_bound_renders_on_a_small_stack() {
    // As deep as the nesting bound lets through, on a quarter of the stack of the threads
    // that render pages (2 MiB): parsing, the walk (once per level), sanitising and dropping.
    let depth = 250;
    let articles = [
        format!("{}deep\n", "> ".repeat(depth)),
        (0..depth)
            .map(|i| format!("{}- x\n", "  ".repeat(i)))
            .collect(),
        format!(
            "{}x\n\n{}",
            "<Note>\n\n".repeat(depth),
            "</Note>\n\n".repeat(depth)
        ),
    ];
    for (body, element) in articles.into_iter().zip(["<blockquote>", "<li>", "<aside"]) {
        let handle = std::thread::Builder::new()
            .stack_size(512 * 1024)
            .spawn(move || article(&body, &served))
            .expect("thread");
        let rendered = handle.join().expect("no overflow");
        assert_eq!(rendered.refused, None);
        assert_eq!(rendered.html.matches(element).count(), depth, "{element}");
    }
}

#[test]
fn headings_get_unique_slug_ids() {
    let html = render(
        "## Usage\n\n## Usage\n\n## Ünïcode & *more* `snake_case`!\n\n## ???\n\n## 1. Point::origin\n",
    )
    .html;
    assert_contains(
        &html,
        &[
            "<h2 id=\"usage\">Usage</h2>",
            "<h2 id=\"usage-1\">Usage</h2>",
            "<h2 id=\"ünïcode--more-snake_case\">",
            "<h2 id=\"section\">???</h2>",
            "<h2 id=\"1-pointorigin\">",
        ],
    );
}

#[test]
fn colliding_ids_are_handed_out_in_linear_time() {
    let n = 20_000;
    let anchors: String = (1..=n).map(|i| format!("<a id=\"a-{i}\" />\n\n")).collect();
    let headings = "## a\n\n".repeat(n);
    let started = Instant::now();
    let html = render(&format!("{anchors}{headings}")).html;
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
    assert!(html.contains("<h2 id=\"a\">a</h2>"));
    assert!(html.contains(&format!("<h2 id=\"a-{}\">a</h2>", n + 1)));
    assert!(!html.contains("<h2 id=\"a-1\">"), "taken by an anchor");
}

#[test]
fn lists_references_and_breaks() {
    let html = render(
        "3. three\n4. four\n\n- tight\n- list\n\nbetween\n\n* loose\n\n* list\n\n[ref][r] ![pic][p] [missing][nope]\n\n[r]: https://r.example\n[p]: /p.png\n\n---\n\na\\\nb\n",
    )
    .html;
    assert_contains(
        &html,
        &[
            "<ol start=\"3\">\n<li>three</li>",
            "<ul>\n<li>tight</li>",
            "<li><p>loose</p>\n</li>",
            "<a href=\"https://r.example\" rel=\"noopener noreferrer\">ref</a>",
            "<img src=\"/files/p.png\" alt=\"pic\">",
            "missing",
            "<hr>",
            "a<br>b",
        ],
    );
}

#[test]
fn the_source_tab_is_highlighted_and_escaped() {
    let html = source(HELP_CENTER);
    assert!(
        html.starts_with("<pre class=\"hl-code\" tabindex=\"0\"><code>"),
        "{html}"
    );
    assert!(html.contains("<span class=\"hl-"), "{html}");
    assert!(html.contains("Steps</span>"), "{html}");
    assert!(!html.contains("<Steps") && !html.contains("<Frame"));
    assert!(highlight_css().contains(".hl-"));
}
