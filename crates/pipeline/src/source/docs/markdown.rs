//! The Markdown model of a repository's documents: a document read as prose (its title, its
//! headings nested under the article's), ATX and setext headings, fenced blocks, frontmatter,
//! and the lines of a README that are about the repository page rather than the software
//! (badges, a menu of translations).

use serde::Serialize;

use super::fences::Fences;
pub(crate) use super::fences::{atx_heading, closes_fence, opens_fence};
use super::logo_walls::{Line, without_logo_walls};
use super::translations::file_tag;
use crate::source::manifest::humanize;

/// A Markdown file used as prose.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Prose {
    pub path: String,
    pub title: String,
    /// The Markdown without its frontmatter and first-level title, headings moved two levels
    /// down so they nest under the article's own sections. Not yet escaped for MDX.
    pub markdown: String,
    /// The docs site's directives left out because only its build resolves them
    /// (`eval-rst`, `toctree`, `autofunction`…), for the run log.
    #[serde(skip)]
    pub(crate) dropped: Vec<String>,
    /// The labels of its sections (`(label)=` over a heading) with their headings, for the
    /// cross-references of other documents.
    #[serde(skip)]
    pub(crate) labels: Vec<(String, String)>,
}

/// First headings that name a section rather than the document (an RFC starts with
/// `# Summary`): such a document takes its title from its file name.
const SECTION_TITLES: &[&str] = &[
    "summary",
    "overview",
    "introduction",
    "intro",
    "abstract",
    "motivation",
    "background",
    "contents",
    "table of contents",
];

/// Reads a Markdown file as prose: its title is its first level-1 heading (ATX `# T` or
/// setext `T` over `===`) when no other heading comes before it and it does not name a
/// section, else its file name. (A README that opens with `## First create a store` and has
/// `# Recipes` further down is not titled "Recipes".)
pub(crate) fn prose(path: &str, text: &str) -> Prose {
    let labels = super::xrefs::labels(text);
    let converted;
    let text = if path.to_ascii_lowercase().ends_with(".rst") {
        converted = super::rst::to_markdown(text);
        converted.as_str()
    } else {
        text
    };
    let read = super::markup::read(&without_hidden_parts(strip_frontmatter(text)));
    let body = read.markdown.as_str();
    let mut title = None;
    let mut first_heading_seen = false;
    let mut kept = Vec::new();
    // Whether each kept line is prose (neither code nor a heading): walls of logos are read
    // from these.
    let mut prose_lines = Vec::new();
    for line in atx_headings(body) {
        let Some((level, text)) = line.heading else {
            // Status badges and language menus speak to the project's visitors, not to the
            // feature's readers.
            if !line.fenced && links_a_project_document(line.text) {
                continue;
            }
            kept.push(line.text.to_string());
            prose_lines.push(match () {
                _ if line.fenced => Line::Other,
                _ if is_chrome(line.text) => Line::Chrome,
                _ => Line::Prose,
            });
            continue;
        };
        if level == 1 && !first_heading_seen {
            first_heading_seen = true;
            // A section's name ("Introduction") titles the page only when the file is named
            // so too (`introduction.md`); else the heading stays and the file names the page.
            let lower = text.trim().to_lowercase();
            let file = path
                .rsplit('/')
                .next()
                .and_then(|f| f.rsplit_once('.').map(|(s, _)| s))
                .unwrap_or("")
                .to_lowercase()
                .replace(['-', '_'], " ");
            if !SECTION_TITLES.contains(&lower.as_str())
                || lower == file
                || matches!(file.as_str(), "readme" | "index" | "_index")
            {
                title = heading_text(&text);
                continue;
            }
        }
        first_heading_seen = true;
        kept.push(format!("{} {text}", "#".repeat((level + 2).min(6))));
        prose_lines.push(Line::Other);
    }
    let kept = without_logo_walls(kept, &prose_lines);
    let stem = path.rsplit('/').next().unwrap_or(path);
    let stem = stem.rsplit_once('.').map_or(stem, |(s, _)| s);
    // A README without a title is named after its folder (`bench/readme.md`: "Bench"), an
    // overview when the folder names nothing (the root, `src/`, `docs/`).
    let index = ["readme", "index", "_index"]
        .iter()
        .any(|n| stem.eq_ignore_ascii_case(n));
    let stem = match path.rsplit('/').nth(1) {
        Some(folder) if index && !GENERIC_FOLDERS.contains(&folder.to_lowercase().as_str()) => {
            folder
        }
        _ if index => "overview",
        _ => stem,
    };
    // `0296-structured-logging` → `Structured logging`.
    let stem = stem.trim_start_matches(|c: char| c.is_ascii_digit() || c == '-' || c == '_');
    // Else the title its front matter gives the site (`title: Getting Started`).
    let title = title.or_else(|| front_matter_title(text));
    Prose {
        path: path.to_string(),
        title: title.unwrap_or_else(|| humanize(if stem.is_empty() { "document" } else { stem })),
        markdown: super::tidy::tidy(&super::site_chrome::without_navigation_sentences(
            &kept.join("\n"),
        )),
        dropped: read.dropped,
        labels,
    }
}

/// Folders whose name says nothing about the pages in them.
const GENERIC_FOLDERS: &[&str] = &[
    "src",
    "docs",
    "doc",
    "guide",
    "book",
    "site",
    "content",
    "website",
    "pages",
    "documentation",
];

/// A document's title as text: its heading without the logos and badges a README puts
/// beside its name (`# Logrus <img src="…"/> [![Build Status](…)](…)` is `Logrus`), nor
/// Markdown syntax; `None` when nothing is left.
fn heading_text(heading: &str) -> Option<String> {
    static IMAGES: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        crate::builtin::regex(
            r"\[\s*!\[[^\]
]{0,300}\]\([^)
]{0,2000}\)\s*\]\([^)
]{0,2000}\)|!\[[^\]
]{0,300}\]\([^)
]{0,2000}\)|(?i)<img[^>]{0,2000}>",
        )
    });
    let text = super::walkthrough::clean_title(&IMAGES.replace_all(heading, " "));
    (!text.is_empty()).then_some(text)
}

/// Markers beyond this many in one document are read as plain comments.
const MAX_MARKERS: usize = 1_000;

/// Words of a marker comment that hide what it wraps from a docs site, unless a word of
/// [`TOOL_WORDS`] says the marker is for a linter or a table-of-contents tool
/// (`<!-- omit in toc -->`, `<!-- prettier-ignore-start -->`).
const HIDE_WORDS: &[&str] = &["hide", "hidden", "exclude", "excluded", "omit", "nodocs"];
/// Words that hide only when they speak of the docs (`<!-- docs-ignore -->`, `<!-- skip docs -->`).
const HIDE_DOCS_WORDS: &[&str] = &["ignore", "skip", "remove", "no", "not"];
const DOCS_WORDS: &[&str] = &[
    "docs",
    "doc",
    "documentation",
    "site",
    "website",
    "sphinx",
    "mkdocs",
    "pypi",
];
/// Markers of what a repository page shows its visitors: the rest of the document after
/// `<!-- github-only -->` (Sphinx's `end-before`), badge and sponsor walls.
const PAGE_ONLY: &[&str] = &["github only", "readme only", "gh only"];
const CHROME_NAMES: &[&str] = &[
    "badges",
    "badge",
    "shields",
    "sponsors",
    "sponsor",
    "backers",
    "logo",
    "logos",
    "all contributors list",
    "all contributors badge",
];
const TOOL_WORDS: &[&str] = &[
    "toc",
    "prettier",
    "markdownlint",
    "lint",
    "textlint",
    "vale",
    "cspell",
    "spell",
    "spellcheck",
];

#[derive(Clone, Copy, PartialEq, Eq)]
enum MarkerKind {
    Start,
    End,
    /// Neither: a marker that opens, or closes when it repeats (`<!-- sponsors -->` … `<!-- sponsors -->`).
    Plain,
}

/// A comment alone on its line, read as a region marker: its kind and name (lower-case
/// words without the start or end word).
fn marker(line: &str) -> Option<(MarkerKind, String)> {
    let inner = line
        .trim()
        .strip_prefix("<!--")?
        .strip_suffix("-->")?
        .trim_matches('-')
        .trim();
    if inner.contains("-->") || inner.len() > 200 {
        return None;
    }
    let slash = inner.starts_with('/');
    let words: Vec<String> = inner
        .to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect();
    const START: &[&str] = &["start", "begin", "starts", "begins", "open"];
    const END: &[&str] = &["end", "stop", "ends", "close", "fin"];
    // The start or end word among the first words (`ALL-CONTRIBUTORS-LIST:START - Do not
    // remove…`); what comes after it in a longer comment is a remark.
    let at = words
        .iter()
        .take(5)
        .position(|w| START.contains(&w.as_str()) || END.contains(&w.as_str()));
    let (kind, name) = match at {
        _ if slash => (MarkerKind::End, words.join(" ")),
        Some(at) => {
            let kind = if START.contains(&words[at].as_str()) {
                MarkerKind::Start
            } else {
                MarkerKind::End
            };
            let name = if at == 0 {
                words[1..].join(" ")
            } else {
                words[..at].join(" ")
            };
            (kind, name)
        }
        None => (MarkerKind::Plain, words.join(" ")),
    };
    (!name.is_empty()).then_some((kind, name))
}

/// Whether a marker named `name` hides what it wraps from the docs.
fn hides(name: &str) -> bool {
    let words: Vec<&str> = name.split(' ').collect();
    let has = |list: &[&str]| words.iter().any(|w| list.contains(w));
    if has(TOOL_WORDS) {
        return false;
    }
    has(HIDE_WORDS)
        || (has(HIDE_DOCS_WORDS) && has(DOCS_WORDS))
        || PAGE_ONLY.contains(&name)
        || CHROME_NAMES.contains(&name)
}

/// `markdown` without the parts its author marked as not for the docs: between a pair of
/// markers such as `<!-- hide-in-docs -->` … `<!-- /hide-in-docs -->`,
/// `<!-- docs:exclude:start -->` … `<!-- docs:exclude:end -->`, `<!-- badges -->` …
/// `<!-- /badges -->`, `<!-- ALL-CONTRIBUTORS-LIST:START -->` … `:END -->`, and everything
/// after `<!-- github-only -->`. A marker without its partner hides nothing. Linear in the
/// document (at most [`MAX_MARKERS`] markers are read).
pub(crate) fn without_hidden_parts(markdown: &str) -> String {
    if !markdown.contains("<!--") {
        return markdown.to_string();
    }
    let lines: Vec<&str> = markdown.lines().collect();
    let mut markers: Vec<(usize, MarkerKind, String)> = Vec::new();
    let mut fence = Fences::default();
    for (i, line) in lines.iter().enumerate() {
        if fence.is_code(line) {
            continue;
        }
        if markers.len() < MAX_MARKERS
            && let Some((kind, name)) = marker(line)
        {
            markers.push((i, kind, name));
        }
    }
    let mut hidden = vec![false; lines.len()];
    let mut m = 0;
    while m < markers.len() {
        let (open, kind, name) = &markers[m];
        if *kind == MarkerKind::End || !hides(name) {
            m += 1;
            continue;
        }
        let close = markers[m + 1..].iter().position(|(_, k, n)| {
            n == name && (*k == MarkerKind::End || (*kind == MarkerKind::Plain && *k == *kind))
        });
        let end = match close {
            Some(offset) => {
                let at = m + 1 + offset;
                m = at + 1;
                markers[at].0 + 1
            }
            None if PAGE_ONLY.contains(&name.as_str()) => {
                m = markers.len();
                lines.len()
            }
            None => {
                m += 1;
                continue;
            }
        };
        for flag in &mut hidden[*open..end] {
            *flag = true;
        }
    }
    if !hidden.contains(&true) {
        return markdown.to_string();
    }
    lines
        .iter()
        .zip(&hidden)
        .filter(|(_, hidden)| !**hidden)
        .map(|(line, _)| *line)
        .collect::<Vec<_>>()
        .join("\n")
}

/// A line of Markdown, with its level and text when it is a heading.
struct MarkdownLine<'a> {
    text: &'a str,
    heading: Option<(usize, String)>,
    /// Inside a fenced code block (its fences included).
    fenced: bool,
}

/// The lines of `markdown` with its headings recognised, ATX (`## T`) and setext (a paragraph
/// over a line of `=` or `-`), outside fenced blocks. A setext heading's paragraph becomes one
/// heading line and its underline is dropped.
fn atx_headings(markdown: &str) -> Vec<MarkdownLine<'_>> {
    let mut out: Vec<MarkdownLine> = Vec::new();
    let mut fence: Option<(char, usize)> = None;
    // Where the paragraph that is open in `out` starts, when one is.
    let mut paragraph: Option<usize> = None;
    for line in markdown.lines() {
        if let Some((ch, len)) = fence {
            if closes_fence(line, ch, len) {
                fence = None;
            }
            out.push(MarkdownLine {
                text: line,
                heading: None,
                fenced: true,
            });
            continue;
        }
        if let Some((ch, len, _)) = opens_fence(line) {
            fence = Some((ch, len));
            paragraph = None;
            out.push(MarkdownLine {
                text: line,
                heading: None,
                fenced: true,
            });
            continue;
        }
        if let (Some(start), Some(level)) = (paragraph, setext_underline(line)) {
            let text = out[start..]
                .iter()
                .map(|l| l.text.trim())
                .collect::<Vec<_>>()
                .join(" ");
            out.truncate(start);
            out.push(MarkdownLine {
                text: "",
                heading: Some((level, text.trim_end_matches('\\').trim().to_string())),
                fenced: false,
            });
            paragraph = None;
            continue;
        }
        let heading = atx_heading(line);
        if heading.is_some() || line.trim().is_empty() || !starts_paragraph(line) {
            paragraph = None;
        } else if paragraph.is_none() {
            paragraph = Some(out.len());
        }
        out.push(MarkdownLine {
            text: line,
            heading: heading.map(|(level, text)| (level, text.to_string())),
            fenced: false,
        });
    }
    out
}

/// The level of the setext heading `line` underlines: 1 for `===`, 2 for `---`.
fn setext_underline(line: &str) -> Option<usize> {
    let trimmed = line.trim_start_matches(' ');
    if line.len() - trimmed.len() > 3 {
        return None;
    }
    let marks = trimmed.trim_end();
    let level = match marks.chars().next()? {
        '=' => 1,
        '-' => 2,
        _ => return None,
    };
    let ch = if level == 1 { '=' } else { '-' };
    marks.chars().all(|c| c == ch).then_some(level)
}

/// Whether `line` starts a paragraph that a setext underline could turn into a heading: not
/// a list item, quote, table row, HTML block or indented code.
fn starts_paragraph(line: &str) -> bool {
    let trimmed = line.trim_start_matches(' ');
    if line.len() - trimmed.len() > 3 || line.starts_with('\t') {
        return false;
    }
    let bullet = trimmed
        .strip_prefix(['-', '*', '+'])
        .is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', '\t']));
    let digits = trimmed.chars().take_while(char::is_ascii_digit).count();
    let numbered = digits > 0 && trimmed[digits..].starts_with(['.', ')']);
    !(bullet || numbered || trimmed.starts_with(['>', '|', '<']))
}

/// The `title` of a page's front matter, as one plain line.
fn front_matter_title(text: &str) -> Option<String> {
    let value = super::site_config::front_matter_value(text, "title")?.trim();
    (!value.is_empty() && value.len() <= 200).then(|| value.to_string())
}

/// The page without its front matter (YAML or TOML).
fn strip_frontmatter(text: &str) -> &str {
    super::site_config::front_matter(text).map_or(text, |(_, body)| body)
}

/// A list item that is only a link to a document about the project rather than the
/// software (`- [CONTRIBUTING](CONTRIBUTING.md)`, `* [Code of Conduct](…/CODE_OF_CONDUCT.md)`).
fn links_a_project_document(line: &str) -> bool {
    static ITEM: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        crate::builtin::regex(
            r"^\s{0,3}[-*+]\s+\[[^\]\n]{1,200}\]\(\s*<?([^)\s>]{1,2000})>?\s*\)\s*$",
        )
    });
    let Some(target) = ITEM.captures(line).and_then(|c| c.get(1)) else {
        return false;
    };
    let path = target.as_str().split(['#', '?']).next().unwrap_or("");
    let name = path.rsplit('/').next().unwrap_or(path);
    name.contains('.') && crate::source::files::project_document(name, ".", &[]).is_some()
}

/// A line of a README that is about the repository page, not the software: status badges or
/// a menu of the document's translations (`**English** | [日本語](README.ja.md) | …`).
fn is_chrome(line: &str) -> bool {
    is_badge_line(line) || is_language_menu(line) || is_logo_line(line)
}

/// A line of nothing but logos, sponsor images and badges (Markdown or HTML images, linked
/// or not, in layout wrappers), which speak to the repository page's visitors.
fn is_logo_line(line: &str) -> bool {
    static HTML_IMAGE: std::sync::LazyLock<regex::Regex> =
        std::sync::LazyLock::new(|| crate::builtin::regex(r"(?i)<img\b[^>]{0,1000}>"));
    static MD_IMAGE: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        crate::builtin::regex(r"!\[([^\]\n]{0,300})\]\(\s*<?([^)\s>]+)>?(?:\s+[^)]*)?\)")
    });
    static LAYOUT: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        crate::builtin::regex(
            r"(?i)</?(?:a|p|div|center|picture|source|span|br|h[1-6])\b[^>]{0,1000}>|\[|\]\([^)\n]*\)|&nbsp;|[|·•\s]",
        )
    });
    const MARKS: &[&str] = &[
        "logo",
        "sponsor",
        "backer",
        "opencollective",
        "badge",
        "shields.io",
        "badgen.net",
    ];
    if !line.contains("<img") && !line.contains("<IMG") && !line.contains("![") {
        return false;
    }
    let images: Vec<String> = HTML_IMAGE
        .find_iter(line)
        .map(|m| m.as_str().to_ascii_lowercase())
        .chain(
            MD_IMAGE
                .find_iter(line)
                .map(|m| m.as_str().to_ascii_lowercase()),
        )
        .collect();
    if images.is_empty() || !images.iter().all(|i| MARKS.iter().any(|m| i.contains(m))) {
        return false;
    }
    let rest = HTML_IMAGE.replace_all(line, "");
    let rest = MD_IMAGE.replace_all(&rest, "");
    LAYOUT.replace_all(&rest, "").trim().is_empty()
}

/// A line of nothing but status badges: images (linked or not) whose address names a badge
/// service or a `badge` file (shields.io, badgen, pkg.go.dev/badge, docs.rs/…/badge.svg, a CI's
/// `badge.svg`). A screenshot on a line of its own is no badge.
fn is_badge_line(line: &str) -> bool {
    static IMAGE: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        crate::builtin::regex(
            r"\[?!\[[^\]\n]*\]\(\s*<?([^)\s>]+)>?(?:\s+[^)]*)?\)(?:\]\([^)\n]*\))?",
        )
    });
    let mut images = 0;
    for found in IMAGE.captures_iter(line) {
        let source = found.get(1).map_or("", |m| m.as_str()).to_ascii_lowercase();
        if !["badge", "shields.io", "badgen.net"]
            .iter()
            .any(|mark| source.contains(mark))
        {
            return false;
        }
        images += 1;
    }
    images > 0 && IMAGE.replace_all(line, "").trim().is_empty()
}

/// At least two links, each to a translation of a document (`README.ja.md`), and between
/// them nothing but separators and the current language's name.
fn is_language_menu(line: &str) -> bool {
    static LINK: std::sync::LazyLock<regex::Regex> =
        std::sync::LazyLock::new(|| crate::builtin::regex(r"\[[^\]\n]*\]\(\s*<?([^)\s>]+)>?\s*\)"));
    let mut links = 0;
    for found in LINK.captures_iter(line) {
        let target = found.get(1).map_or("", |m| m.as_str());
        let path = target.split(['#', '?']).next().unwrap_or("");
        if file_tag(path.trim_start_matches("./")).is_none() {
            return false;
        }
        links += 1;
    }
    let rest: String = LINK
        .replace_all(line, "")
        .chars()
        .filter(|c| !c.is_whitespace() && !"|·•/,*_".contains(*c))
        .collect();
    links >= 2 && rest.chars().count() <= 30
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn doc(path: &str, markdown: &str) -> Prose {
        Prose {
            path: path.into(),
            title: "T".into(),
            markdown: markdown.into(),
            dropped: Vec::new(),
            labels: Vec::new(),
        }
    }

    #[test]
    fn language_menus_and_badges_are_chrome() {
        assert!(is_chrome(
            "**English** | [日本語](./README.ja.md) | [Русский](./README.ru.md) | [简体中文](./README.zh-CN.md)"
        ));
        assert!(is_chrome(
            "[![CI](https://github.com/o/r/actions/workflows/ci.yml/badge.svg)](https://github.com/o/r/actions)"
        ));
        for logo in [
            "<p align=\"center\"><img src=\"docs/logo.png\" alt=\"Widgets\" width=\"200\"></p>",
            "  <a href=\"https://x.dev\"><img alt=\"Logo\" src=\"x.svg\"/></a>",
            "[![Sponsored by Acme](https://acme.com/sponsor.png)](https://acme.com) ![logo](l.png)",
        ] {
            assert!(is_chrome(logo), "{logo}");
        }
        for text in [
            "See [the guide](docs/guide.md) and [日本語](README.ja.md).",
            "[日本語](README.ja.md)",
            "![The dashboard](docs/dashboard.png)",
            "<img src=\"docs/shot.png\" alt=\"The dashboard\">",
            "<p align=\"center\"><img src=\"logo.svg\"> Fast and small.</p>",
            "Read [this](README.ja.md) or [that](README.ru.md) before you install the package anywhere.",
        ] {
            assert!(!is_chrome(text), "{text}");
        }
    }

    #[test]
    fn parts_marked_as_not_for_the_docs_are_left_out() {
        let readme = "# Tool\n\n<!-- hide-in-docs -->\n[![CI](x.svg)](y)\n<!-- /hide-in-docs -->\n\nIntro.\n\n<!-- docs:exclude:start -->\nStar us!\n<!-- docs:exclude:end -->\n\n<!-- badges -->\n![a](b)\n<!-- badges -->\n\n## Install <!-- omit in toc -->\n\n<!-- prettier-ignore-start -->\nKept table.\n<!-- prettier-ignore-end -->\n\n```md\n<!-- hide -->\nin code\n<!-- /hide -->\n```\n\n<!-- ALL-CONTRIBUTORS-LIST:START - Do not remove or modify this section -->\n| avatars |\n<!-- ALL-CONTRIBUTORS-LIST:END -->\n\n<!-- hide-from-docs -->\nNo partner: kept.\n\nUsage.\n\n<!-- github-only -->\n\n## Sponsors\n\nThanks.\n";
        let p = prose("README.md", readme);
        for gone in ["CI", "Star us", "![a](b)", "avatars", "Sponsors", "Thanks"] {
            assert!(!p.markdown.contains(gone), "{gone}:\n{}", p.markdown);
        }
        for kept in [
            "Intro.",
            "#### Install <!-- omit in toc -->",
            "Kept table.",
            "<!-- hide -->\nin code\n<!-- /hide -->",
            "No partner: kept.",
            "Usage.",
        ] {
            assert!(p.markdown.contains(kept), "{kept}:\n{}", p.markdown);
        }
        // Thousands of unpaired markers: linear, nothing hidden.
        let many = "<!-- hide:start -->\ntext\n".repeat(5_000);
        assert_eq!(without_hidden_parts(&many), many);
    }

    #[test]
    fn prose_takes_title_and_nests_headings() {
        let p = prose(
            "docs/export.md",
            "---\nx: 1\n---\n# Export\n\nText.\n\n## Usage\n\n```sh\n# not a heading\n```\n",
        );
        assert_eq!(p.title, "Export");
        assert!(p.markdown.contains("#### Usage"));
        assert!(p.markdown.contains("# not a heading"));
        assert_eq!(prose("docs/csv_tips.md", "Hi").title, "Csv tips");
        // The logos and badges beside a README's name are not its title.
        let badged = "# Logrus <img src=\"http://i.example/w.png\" width=\"40\"/> [![Build Status](https://ci.example/badge.svg)](https://ci.example) [![Go Reference](https://pkg.go.dev/badge/x.svg)](https://pkg.go.dev/x)\n\nText.\n";
        assert_eq!(prose("README.md", badged).title, "Logrus");
        assert_eq!(
            prose("README.md", "# ![logo](logo.png)\n\nText.\n").title,
            "Overview"
        );
    }

    #[test]
    fn status_badges_are_left_out_of_prose_and_screenshots_kept() {
        let readme = "# uuid\n\n[![Build](https://github.com/o/r/actions/workflows/ci.yml/badge.svg)](https://github.com/o/r/actions) [![Latest](https://img.shields.io/crates/v/log.svg)](https://crates.io/crates/log)\n![License](https://img.shields.io/crates/l/log.svg)\n\nThe uuid package.\n\n### Documentation\n[![Go Reference](https://pkg.go.dev/badge/github.com/google/uuid.svg)](https://pkg.go.dev/github.com/google/uuid)\n\n![The dashboard](docs/dashboard.png)\n\nSee ![badge](https://img.shields.io/x.svg) inline.\n\n```md\n[![Build](https://x/badge.svg)](https://x)\n```\n";
        let p = prose("README.md", readme);
        for gone in [
            "actions/workflows",
            "img.shields.io/crates",
            "pkg.go.dev/badge",
        ] {
            assert!(!p.markdown.contains(gone), "{gone}:\n{}", p.markdown);
        }
        for kept in [
            "The uuid package.",
            "### Documentation",
            "docs/dashboard.png",
            "See ![badge]",
            "[![Build](https://x/badge.svg)](https://x)",
        ] {
            assert!(p.markdown.contains(kept), "{kept}:\n{}", p.markdown);
        }
    }

    #[test]
    fn setext_headings_are_headings() {
        let p = prose(
            "README.md",
            "log\n===\n\nA logging facade.\n\nUsage\n-----\n\nCall it.\n\n- item\n---\n\n```\ncode\n---\n```\n",
        );
        assert_eq!(p.title, "log");
        assert!(
            p.markdown.starts_with("A logging facade.\n\n#### Usage\n"),
            "{}",
            p.markdown
        );
        // A list item is no heading's text, and a fence holds no heading.
        assert!(p.markdown.contains("- item\n---"), "{}", p.markdown);
        assert!(p.markdown.contains("code\n---\n```"), "{}", p.markdown);
        let p = prose("a.md", "Two line\ntitle\n===\nText");
        assert_eq!(p.title, "Two line title");
        assert_eq!(p.markdown, "Text");
    }

    #[test]
    fn a_first_heading_that_names_a_section_is_no_title() {
        let p = prose(
            "rfcs/0296-structured-logging.md",
            "- Feature Name: x\n\n# Summary\n\nAdd structure.\n\n# Motivation\n\nWhy.\n",
        );
        assert_eq!(p.title, "Structured logging");
        assert!(
            p.markdown.contains("### Summary\n\nAdd structure."),
            "{}",
            p.markdown
        );
        assert!(p.markdown.contains("### Motivation"), "{}", p.markdown);
        assert_eq!(prose("ü.md", "ü\n===\n").title, "ü");
        // A level-1 heading after the document's sections began is one of them.
        let p = prose(
            "README.md",
            "Intro.\n\n## First create a store\n\nx\n\n# Recipes\n\n## Fetching\n\ny\n",
        );
        assert_eq!(p.title, "Overview");
        assert!(p.markdown.contains("### Recipes"), "{}", p.markdown);
        assert_eq!(
            prose("guide/src/README.md", "# Introduction\n\nx\n").title,
            "Introduction"
        );
        assert_eq!(prose("bench/README.md", "x\n").title, "Bench");
    }
}
