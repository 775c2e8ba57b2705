//! The order a project's docs site gives its pages, read from the site's own configuration
//! as data (never run):
//!
//! - MkDocs: `mkdocs.yml`'s `nav` (under `docs_dir`, `docs/` by default);
//! - mdBook: `SUMMARY.md` in the book's `src` (from `book.toml`);
//! - Docusaurus: the page ids of `sidebars.js`/`.ts` in the order written, else each page's
//!   `sidebar_position` and its folder's `_category_.json` `position`;
//! - Sphinx: the `toctree` of the docs' `index.md`/`index.rst`, after the index itself;
//! - a docs folder whose pages give their place in their front matter (`sidebar_position`,
//!   `nav_order`, `nav`, `weight`, `order`): across the folder when no two pages share a
//!   number, else within each folder;
//!
//! and otherwise paths compared with their numbers as numbers ("2-options" before
//! "10-instances"). Configuration files are read up to [`MAX_CONFIG_BYTES`]; every pass is
//! linear in them.

use std::cmp::Ordering;
use std::collections::HashMap;
use std::sync::LazyLock;

use regex::Regex;

use super::fences::Fences;
pub(crate) use super::site_config::front_matter_number;
use super::site_config::{
    config_dirs, docs_paths, front_matter_value, in_test_folder, join, page_urls, section_key,
    site_config_beside, site_summary, site_title, strip_number,
};
use super::sphinx_toc::sphinx_pages;

/// Larger configuration files are not read.
pub(crate) const MAX_CONFIG_BYTES: usize = 256 * 1024;
/// Pages listed at most.
const MAX_PAGES: usize = 2_000;

/// The pages of a docs site in its order, as repository paths.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct SiteOrder {
    /// The kind of site, for the run log.
    pub kind: &'static str,
    /// Position of each page listed by the site.
    pub rank: HashMap<String, usize>,
    /// The site's own name for the project (`site_name`, the book's `title`, Sphinx's
    /// `project`, Docusaurus's `title`).
    pub title: Option<String>,
    /// The site's own summary of the project (Docusaurus's `tagline`, MkDocs'
    /// `site_description`).
    pub summary: Option<String>,
    /// The file that made the site's order (`site/mkdocs.yml`, `website/sidebars.json`,
    /// `docs/index.md` of a Sphinx site); for an order from front matter, the generator's configuration beside its `content/` folder, else empty.
    pub config: String,
    /// The folder of the site's pages (MkDocs' `docs_dir`, the book's `src`).
    pub root: String,
    /// The navigation's own title of a page (`- Usage: usage.md`, `[Usage](usage.md)`).
    pub nav_titles: HashMap<String, String>,
    /// Where the published site serves each page, when its configuration says where the
    /// site is (`super::site_urls`).
    pub urls: HashMap<String, String>,
}

impl SiteOrder {
    fn push(&mut self, path: String) {
        if self.rank.len() < MAX_PAGES {
            let next = self.rank.len();
            self.rank.entry(path).or_insert(next);
        }
    }

    /// Each page titled as the site's navigation names it ("Importing functions from JS"),
    /// unless the navigation only says where it is ("Home", "Overview").
    pub(crate) fn retitle(&self, docs: &mut [super::Prose]) {
        for doc in docs {
            if let Some(title) = self.nav_titles.get(&doc.path)
                && !super::vocabulary::is_generic_nav_title(title)
            {
                doc.title = title.clone();
            }
        }
    }

    /// Compares two repository paths as the site orders them: listed pages first, in the
    /// site's order, then the others by path with numbers compared as numbers.
    pub(crate) fn compare(&self, a: &str, b: &str) -> Ordering {
        match (self.rank.get(a), self.rank.get(b)) {
            (Some(x), Some(y)) => x.cmp(y),
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (None, None) => natural(a, b),
        }
    }
}

/// The order of the site whose configuration `read` finds (a repository file's text, by
/// path, `None` when absent or too large), among `pages` (the Markdown files the feature
/// holds). `None` when there is no site.
pub(crate) fn site_order(
    read: impl Fn(&str) -> Option<String>,
    pages: &[&str],
) -> Option<SiteOrder> {
    let read = |path: &str| read(path).filter(|t| t.len() <= MAX_CONFIG_BYTES);
    let mut order = site_pages(&read, pages)?;
    order.title = site_title(&read, order.kind, &order.config);
    order.summary = site_summary(&read, order.kind, &order.config);
    let listed: Vec<&str> = pages.iter().take(MAX_PAGES).copied().collect();
    order.urls = page_urls(&read, order.kind, &order.config, &order.root, &listed);
    Some(order)
}

fn site_pages(read: &dyn Fn(&str) -> Option<String>, pages: &[&str]) -> Option<SiteOrder> {
    let dirs = config_dirs(&pages[..pages.len().min(MAX_PAGES)]);
    let within = |names: &[&str]| -> Vec<String> {
        dirs.iter()
            .flat_map(|dir| names.iter().map(move |name| format!("{dir}{name}")))
            .collect()
    };
    for config in within(&["mkdocs.yml", "mkdocs.yaml"]) {
        let config = config.as_str();
        if let Some(text) = read(config) {
            let base = config.rsplit_once('/').map_or("", |(dir, _)| dir);
            let mut order = mkdocs(&text, base);
            if !order.rank.is_empty() {
                order.config = config.to_string();
                return Some(order);
            }
        }
    }
    for book in within(&["book.toml"]) {
        let book = book.as_str();
        let Some(text) = read(book) else { continue };
        let base = book.rsplit_once('/').map_or("", |(dir, _)| dir);
        let src = toml::from_str::<toml::Table>(&text)
            .ok()
            .and_then(|t| Some(t.get("book")?.get("src")?.as_str()?.to_string()))
            .unwrap_or_else(|| "src".into());
        let src = join(base, &src);
        if let Some(summary) = read(&join(&src, "SUMMARY.md")) {
            let mut order = SiteOrder {
                kind: "mdBook",
                config: book.to_string(),
                ..SiteOrder::default()
            };
            for (title, target) in markdown_links(&summary) {
                let page = join(&src, &target);
                if !title.is_empty() {
                    order.nav_titles.entry(page.clone()).or_insert(title);
                }
                order.push(page);
            }
            order.root = src;
            if !order.rank.is_empty() {
                return Some(order);
            }
        }
    }
    // A Docusaurus site in its own folder beside the docs (`doc/website/`, `doc/md/`).
    let sites: Vec<String> = dirs
        .iter()
        .flat_map(|dir| [dir.clone(), format!("{dir}website/")])
        .collect();
    for dir in &sites {
        let dir = dir.as_str();
        for name in [
            "sidebars.js",
            "sidebars.ts",
            "sidebars.json",
            "sidebars.mjs",
            "sidebars.cjs",
        ] {
            let Some(text) = read(&format!("{dir}{name}")) else {
                continue;
            };
            // The docs inside the site's folder or beside it (`path: '../docs'`).
            let docs_dir = if dir == "docs/" {
                "docs".to_string()
            } else {
                format!("{dir}docs")
            };
            let configured = docs_paths(read, dir);
            let mut order = [docs_dir, "docs".to_string()]
                .iter()
                .chain(&configured)
                .map(|docs_dir| {
                    let mut order = docusaurus(&text, docs_dir, pages, &read);
                    order.root = docs_dir.clone();
                    order
                })
                .max_by_key(|order| order.rank.len())
                .unwrap_or_default();
            if !order.rank.is_empty() {
                order.config = format!("{dir}{name}");
                return Some(order);
            }
        }
    }
    for dir in &dirs {
        if let Some((config, listed)) = super::vitepress::pages(read, dir, pages) {
            let mut order = SiteOrder {
                kind: "VitePress",
                config,
                root: dir.trim_end_matches('/').to_string(),
                ..SiteOrder::default()
            };
            listed.into_iter().for_each(|page| order.push(page));
            return Some(order);
        }
    }
    for index in [
        "docs/index.md",
        "docs/source/index.md",
        "doc/index.md",
        "docs/index.rst",
        "docs/source/index.rst",
        "doc/index.rst",
    ] {
        if let Some(text) = read(index) {
            let mut order = SiteOrder {
                kind: "Sphinx",
                ..SiteOrder::default()
            };
            sphinx_pages(read, &text, index, pages)
                .into_iter()
                .for_each(|page| order.push(page));
            if order.rank.len() > 1 {
                order.config = index.to_string();
                order.root = index.rsplit_once('/').map_or("", |(d, _)| d).to_string();
                return Some(order);
            }
        }
    }
    front_matter_order(read, pages)
}

/// Front-matter keys that give a page its place in a docs folder without a site
/// configuration (Docusaurus, Just the Docs, VitePress themes, Hugo, Zola and others).
const ORDER_KEYS: [&str; 5] = ["sidebar_position", "nav_order", "nav", "weight", "order"];

/// The pages that give their place in their front matter ([`ORDER_KEYS`]), in that order:
/// across the folder when no two share a number, else section by section (a folder placed by
/// its `_index.md`'s number). `None` when fewer than two do.
fn front_matter_order(read: &dyn Fn(&str) -> Option<String>, pages: &[&str]) -> Option<SiteOrder> {
    let mut keyed: Vec<(f64, &str)> = pages
        .iter()
        .take(MAX_PAGES)
        .filter(|page| !in_test_folder(page))
        .filter_map(|page| {
            let text = read(page)?;
            let place = ORDER_KEYS
                .iter()
                .find_map(|key| front_matter_number(&text, key))?;
            place.is_finite().then_some((place, *page))
        })
        .collect();
    if keyed.len() < 2 {
        return None;
    }
    let mut numbers: Vec<f64> = keyed.iter().map(|(n, _)| *n).collect();
    numbers.sort_by(f64::total_cmp);
    let one_sequence = numbers.windows(2).all(|w| w[0] != w[1]);
    let key = section_key(&keyed);
    keyed.sort_by(|(x, a), (y, b)| {
        let by_place = x.total_cmp(y).then_with(|| natural(a, b));
        if one_sequence {
            return by_place;
        }
        let ((pa, oa), (pb, ob)) = (key(*x, a), key(*y, b));
        for ((wa, na), (wb, nb)) in pa.iter().zip(&pb) {
            let by_folder = wa.total_cmp(wb).then_with(|| natural(na, nb));
            if by_folder != Ordering::Equal {
                return by_folder;
            }
        }
        let deeper = pa.len().cmp(&pb.len());
        deeper.then(oa.total_cmp(&ob)).then(by_place)
    });
    let mut order = SiteOrder {
        kind: "front matter",
        config: site_config_beside(read, keyed.first().map_or("", |(_, p)| *p)),
        ..SiteOrder::default()
    };
    for (_, page) in keyed {
        order.push(page.to_string());
    }
    Some(order)
}

/// `mkdocs.yml`'s `nav`: every page path in the order written, under `docs_dir`. Read line
/// by line as the block list MkDocs documents, never as general YAML (no anchors, tags or
/// flow collections to expand).
fn mkdocs(text: &str, base: &str) -> SiteOrder {
    static ENTRY: LazyLock<Regex> = LazyLock::new(|| {
        crate::builtin::regex(
            r#"^\s*-\s+(?:("[^"]*"|'[^']*'|[^:'"]+):\s*)?["']?([^"'#\s][^"'#]*?)["']?\s*(?:#.*)?$"#,
        )
    });
    let docs_dir = text
        .lines()
        .find_map(|l| l.strip_prefix("docs_dir:"))
        .map(|d| d.trim().trim_matches(['"', '\'']).to_string())
        .unwrap_or_else(|| "docs".into());
    let root = join(base, &docs_dir);
    let mut order = SiteOrder {
        kind: "MkDocs",
        root: root.clone(),
        ..SiteOrder::default()
    };
    let mut in_nav = false;
    for line in text.lines() {
        if !line.starts_with([' ', '-', '\t', '#']) && !line.trim().is_empty() {
            in_nav = line.starts_with("nav:");
            continue;
        }
        if !in_nav {
            continue;
        }
        let Some(found) = ENTRY.captures(line) else {
            continue;
        };
        let Some(page) = found.get(2).map(|m| m.as_str().trim()) else {
            continue;
        };
        if page.contains("://") || !(page.ends_with(".md") || page.ends_with('/')) {
            continue;
        }
        let page = if page.ends_with('/') {
            format!("{page}index.md")
        } else {
            page.to_string()
        };
        let page = join(&root, &page);
        if let Some(title) = found
            .get(1)
            .map(|m| m.as_str().trim().trim_matches(['"', '\'']))
            .filter(|t| !t.is_empty())
        {
            order
                .nav_titles
                .entry(page.clone())
                .or_insert(title.to_string());
        }
        order.push(page);
    }
    order
}

/// The text and destination of Markdown links in a list (`SUMMARY.md`), in order, relative
/// ones only.
fn markdown_links(text: &str) -> Vec<(String, String)> {
    static LINK: LazyLock<Regex> =
        LazyLock::new(|| crate::builtin::regex(r"\[([^\]\n]{0,300})\]\(\s*<?([^)\s>]+)>?\s*\)"));
    let mut out = Vec::new();
    let mut fence = Fences::default();
    for line in text.lines() {
        if fence.is_code(line) {
            continue;
        }
        for found in LINK.captures_iter(line) {
            let Some(target) = found.get(2).map(|m| m.as_str()) else {
                continue;
            };
            let title = found.get(1).map_or("", |m| m.as_str());
            let path = target.split('#').next().unwrap_or("");
            if !path.is_empty() && !path.contains(':') && out.len() < MAX_PAGES {
                out.push((
                    super::walkthrough::plain_text(title),
                    path.trim_start_matches("./").to_string(),
                ));
            }
        }
    }
    out
}

/// A Docusaurus page id: its path under the docs folder without extension, each part
/// without a number prefix (`01-intro` → `intro`).
fn docusaurus_id(path: &str, docs_dir: &str) -> Option<String> {
    let rest = path.strip_prefix(docs_dir)?.strip_prefix('/')?;
    let stem = rest.rsplit_once('.').map_or(rest, |(s, _)| s);
    Some(
        stem.split('/')
            .map(strip_number)
            .collect::<Vec<_>>()
            .join("/"),
    )
}

/// The pages of `sidebars.js` in the order their ids are written; an autogenerated sidebar
/// orders by `sidebar_position` and `_category_.json` positions, then by name.
fn docusaurus(
    text: &str,
    docs_dir: &str,
    pages: &[&str],
    read: &dyn Fn(&str) -> Option<String>,
) -> SiteOrder {
    static STRING: LazyLock<Regex> =
        LazyLock::new(|| crate::builtin::regex(r#"['"`]([A-Za-z0-9_][\w./-]{0,200})['"`]"#));
    let mut ids: HashMap<String, &str> = pages
        .iter()
        .filter_map(|p| Some((docusaurus_id(p, docs_dir)?, *p)))
        .collect();
    // A page's front matter `id:` names it instead of its file name.
    for page in pages.iter().take(MAX_PAGES) {
        let Some(id) = docusaurus_id(page, docs_dir) else {
            continue;
        };
        let text = read(page).unwrap_or_default();
        let own = front_matter_value(&text, "id").unwrap_or("");
        if !own.is_empty()
            && own
                .chars()
                .all(|c| c.is_alphanumeric() || "-_.".contains(c))
        {
            let folder = id.rsplit_once('/').map_or("", |(f, _)| f);
            let named = [folder, own].join("/");
            ids.entry(named.trim_start_matches('/').to_string())
                .or_insert(page);
        }
    }
    let mut order = SiteOrder {
        kind: "Docusaurus",
        ..SiteOrder::default()
    };
    let mut autogenerated = false;
    for found in STRING.captures_iter(text) {
        let Some(value) = found.get(1).map(|m| m.as_str()) else {
            continue;
        };
        if value == "autogenerated" {
            autogenerated = true;
        }
        if let Some(page) = ids.get(value) {
            order.push((*page).to_string());
        }
    }
    if autogenerated {
        let mut listed: Vec<(Vec<(i64, String)>, &str)> = pages
            .iter()
            .filter(|p| p.starts_with(&format!("{docs_dir}/")))
            .map(|p| (position_key(p, docs_dir, read), *p))
            .collect();
        listed.sort();
        for (_, page) in listed {
            order.push(page.to_string());
        }
    }
    order
}

/// Sort key of a Docusaurus page: per folder its `_category_.json` position, then the
/// page's `sidebar_position` (front matter), each followed by the name.
fn position_key(
    page: &str,
    docs_dir: &str,
    read: &dyn Fn(&str) -> Option<String>,
) -> Vec<(i64, String)> {
    let rest = page
        .strip_prefix(docs_dir)
        .unwrap_or(page)
        .trim_start_matches('/');
    let parts: Vec<&str> = rest.split('/').collect();
    let mut key = Vec::with_capacity(parts.len());
    let mut dir = docs_dir.to_string();
    for (i, part) in parts.iter().enumerate() {
        let last = i + 1 == parts.len();
        let position = if last {
            read(page).and_then(|t| front_matter_number(&t, "sidebar_position"))
        } else {
            dir = format!("{dir}/{part}");
            read(&format!("{dir}/_category_.json")).and_then(|t| {
                serde_json::from_str::<serde_json::Value>(&t)
                    .ok()?
                    .get("position")?
                    .as_f64()
            })
        };
        let stem = part.rsplit_once('.').map_or(*part, |(s, _)| s);
        let index = matches!(stem, "index" | "intro" | "README" | "readme");
        let number = position.map_or(if index { -1 } else { i64::MAX / 2 }, |p| {
            (p * 1000.0) as i64
        });
        key.push((number, natural_key(part)));
    }
    key
}

/// Paths compared with runs of digits as numbers: "2-options" before "10-instances".
pub(crate) fn natural(a: &str, b: &str) -> Ordering {
    natural_key(a).cmp(&natural_key(b))
}

fn natural_key(text: &str) -> String {
    // Each run of digits padded to 20 digits compares as a number.
    let mut out = String::with_capacity(text.len() + 8);
    let mut digits = String::new();
    let flush = |digits: &mut String, out: &mut String| {
        if !digits.is_empty() {
            let trimmed = digits.trim_start_matches('0');
            let trimmed = if trimmed.is_empty() { "0" } else { trimmed };
            if trimmed.len() <= 20 {
                out.push_str(&"0".repeat(20 - trimmed.len()));
            }
            out.push_str(trimmed);
            digits.clear();
        }
    };
    for c in text.chars() {
        if c.is_ascii_digit() {
            digits.push(c);
        } else {
            flush(&mut digits, &mut out);
            out.push(c);
        }
    }
    flush(&mut digits, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(list: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |path| {
            list.iter()
                .find(|(p, _)| *p == path)
                .map(|(_, t)| t.to_string())
        }
    }

    fn ordered(order: &SiteOrder, pages: &[&str]) -> Vec<String> {
        let mut sorted: Vec<String> = pages.iter().map(|p| p.to_string()).collect();
        sorted.sort_by(|a, b| order.compare(a, b));
        sorted
    }

    #[test]
    fn a_docs_folder_follows_its_pages_front_matter() {
        // One sequence across folders (as zustand's `nav:`): the number decides.
        let pages = [
            "docs/index.md",
            "docs/learn/comparison.md",
            "docs/learn/introduction.md",
            "docs/reference/create.md",
            "docs/learn/tutorial.md",
        ];
        let read = files(&[
            (
                "docs/learn/comparison.md",
                "---\ntitle: Comparison\nnav: 2\n---\n# C\n",
            ),
            ("docs/learn/introduction.md", "---\nnav: 1\n---\n# I\n"),
            ("docs/reference/create.md", "---\nnav: 21\n---\n# create\n"),
            ("docs/learn/tutorial.md", "---\nnav: 3\n---\n# T\n"),
            ("docs/index.md", "# Docs\n"),
        ]);
        let order = site_order(&read, &pages).expect("an order");
        assert_eq!(order.kind, "front matter");
        assert_eq!(order.title, None);
        assert_eq!(
            ordered(&order, &pages),
            [
                "docs/learn/introduction.md",
                "docs/learn/comparison.md",
                "docs/learn/tutorial.md",
                "docs/reference/create.md",
                "docs/index.md",
            ]
        );
        // Each folder counting on its own (`nav_order: 1` twice): folder by folder.
        let pages = ["docs/b/x.md", "docs/a/y.md", "docs/a/z.md", "docs/b/w.md"];
        let read = files(&[
            ("docs/b/x.md", "---\nnav_order: 2\n---\n"),
            ("docs/b/w.md", "---\nnav_order: 1\n---\n"),
            ("docs/a/y.md", "---\nweight: 2\n---\n"),
            ("docs/a/z.md", "---\nweight: 1\n---\n"),
        ]);
        let order = site_order(&read, &pages).expect("an order");
        assert_eq!(
            ordered(&order, &pages),
            ["docs/a/z.md", "docs/a/y.md", "docs/b/w.md", "docs/b/x.md"]
        );
        // One page with a number is no order.
        let read = files(&[("docs/b/x.md", "---\nnav: 2\n---\n")]);
        assert_eq!(site_order(&read, &pages), None);
    }

    #[test]
    fn numbers_sort_as_numbers() {
        let mut paths = vec![
            "docs/10-instances.md",
            "docs/2-options.md",
            "docs/1-intro.md",
        ];
        paths.sort_by(|a, b| natural(a, b));
        assert_eq!(
            paths,
            [
                "docs/1-intro.md",
                "docs/2-options.md",
                "docs/10-instances.md"
            ]
        );
    }

    #[test]
    fn mkdocs_nav_gives_the_order() {
        let config = "site_name: x\nnav:\n  - Home: index.md\n  - 'Quick start': quickstart.md\n  - Guide:\n      - guide/auth.md\n      - \"Advanced\": guide/advanced.md\n  - API: https://x.dev/api\ntheme:\n  name: material\n  features:\n    - navigation.tabs\n";
        let pages = [
            "docs/guide/auth.md",
            "docs/index.md",
            "docs/quickstart.md",
            "docs/guide/advanced.md",
            "docs/zz.md",
        ];
        let order =
            site_order(files(Box::leak(Box::new([("mkdocs.yml", config)]))), &pages).unwrap();
        assert_eq!(order.kind, "MkDocs");
        assert_eq!(
            ordered(&order, &pages),
            [
                "docs/index.md",
                "docs/quickstart.md",
                "docs/guide/auth.md",
                "docs/guide/advanced.md",
                "docs/zz.md"
            ]
        );
    }

    #[test]
    fn mdbook_summary_gives_the_order() {
        static FILES: &[(&str, &str)] = &[
            ("guide/book.toml", "[book]\ntitle = \"x\"\n"),
            (
                "guide/src/SUMMARY.md",
                "# Summary\n\n[Introduction](README.md)\n\n- [Installation](guide/installation.md)\n- [Reading](guide/reading.md)\n    - [Nested](guide/nested.md)\n",
            ),
        ];
        let pages = [
            "guide/src/guide/reading.md",
            "guide/src/README.md",
            "guide/src/guide/installation.md",
        ];
        let order = site_order(files(FILES), &pages).unwrap();
        assert_eq!(order.kind, "mdBook");
        assert_eq!(
            ordered(&order, &pages),
            [
                "guide/src/README.md",
                "guide/src/guide/installation.md",
                "guide/src/guide/reading.md"
            ]
        );
    }

    #[test]
    fn docusaurus_sidebars_and_positions() {
        static FILES: &[(&str, &str)] = &[(
            "website/sidebars.js",
            "module.exports = {\n  docs: ['quickstart', {type: 'category', label: 'Guides', items: ['guides/auth', 'guides/advanced']}],\n};\n",
        )];
        let pages = [
            "website/docs/guides/auth.md",
            "website/docs/02-quickstart.mdx",
            "website/docs/guides/advanced.md",
        ];
        let order = site_order(files(FILES), &pages).unwrap();
        assert_eq!(
            ordered(&order, &pages),
            [
                "website/docs/02-quickstart.mdx",
                "website/docs/guides/auth.md",
                "website/docs/guides/advanced.md"
            ]
        );
        static AUTO: &[(&str, &str)] = &[
            (
                "sidebars.ts",
                "export default { tutorialSidebar: [{type: 'autogenerated', dirName: '.'}] };",
            ),
            ("docs/intro.md", "---\nsidebar_position: 1\n---\n# Intro\n"),
            (
                "docs/basics/_category_.json",
                "{\"label\": \"Basics\", \"position\": 2}",
            ),
            ("docs/extras/_category_.json", "{\"position\": 3}"),
            ("docs/basics/create.md", "---\nsidebar_position: 2\n---\n"),
            ("docs/basics/deploy.md", "---\nsidebar_position: 10\n---\n"),
        ];
        let pages = [
            "docs/extras/x.md",
            "docs/basics/deploy.md",
            "docs/basics/create.md",
            "docs/intro.md",
        ];
        let order = site_order(files(AUTO), &pages).unwrap();
        assert_eq!(
            ordered(&order, &pages),
            [
                "docs/intro.md",
                "docs/basics/create.md",
                "docs/basics/deploy.md",
                "docs/extras/x.md"
            ]
        );
    }

    #[test]
    fn sphinx_toctree_gives_the_order() {
        static FILES: &[(&str, &str)] = &[(
            "docs/index.md",
            "# Project\n\n```{toctree}\n:maxdepth: 2\n:hidden:\n\nquickstart\nUser guide <guide/index>\nadvanced\n```\n",
        )];
        let pages = [
            "docs/advanced.md",
            "docs/guide/index.md",
            "docs/index.md",
            "docs/quickstart.md",
        ];
        let order = site_order(files(FILES), &pages).unwrap();
        assert_eq!(order.kind, "Sphinx");
        assert_eq!(
            ordered(&order, &pages),
            [
                "docs/index.md",
                "docs/quickstart.md",
                "docs/guide/index.md",
                "docs/advanced.md"
            ]
        );
        static RST: &[(&str, &str)] = &[(
            "docs/index.rst",
            "Project\n=======\n\n.. toctree::\n   :maxdepth: 2\n\n   install\n   usage\n\nIndices\n",
        )];
        let pages = ["docs/usage.md", "docs/install.md"];
        let order = site_order(files(RST), &pages).unwrap();
        assert_eq!(
            ordered(&order, &pages),
            ["docs/install.md", "docs/usage.md"]
        );
    }

    #[test]
    fn hostile_configuration_is_bounded() {
        let huge = format!("nav:\n{}", "  - a: &x [*x, *x]\n".repeat(10_000));
        let _ = mkdocs(&huge, "");
        assert_eq!(
            site_order(|_| Some("x".repeat(MAX_CONFIG_BYTES + 1)), &[]),
            None
        );
    }
}
