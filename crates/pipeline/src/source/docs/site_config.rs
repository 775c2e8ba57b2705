//! What a docs site's configuration says besides its order (read as data, never run): the
//! project's name, the front matter of its pages, and where the published site serves each
//! page, so that an article sends its reader to the site rather than to the page's source on
//! the forge:
//!
//! - MkDocs: `site_url`, pages at `dir/page/` (`page.html` with `use_directory_urls: false`);
//! - Docusaurus: `url` and `baseUrl`, pages under `routeBasePath` (`docs/` by default) by id or
//!   `slug`; version 1 (`siteConfig.js`): under `docsUrl`, `.html` unless `cleanUrl`;
//! - Sphinx: `html_baseurl`, else the package's Documentation URL (a Read the Docs project at
//!   its `en/latest/`), pages at `page.html`;
//! - mdBook: an absolute `site-url`, pages at `page.html`.
//!
//! No URL is made when the configuration does not say where the site is.

use std::collections::HashMap;
use std::sync::LazyLock;

use regex::Regex;

/// The name the site's configuration gives the project, read as one `key = value` or
/// `key: value` line (never run); a Python string prefix (`u'Requests'`) is not part of it.
pub(super) fn site_title(
    read: &dyn Fn(&str) -> Option<String>,
    kind: &str,
    config: &str,
) -> Option<String> {
    static VALUE: LazyLock<Regex> = LazyLock::new(|| {
        crate::builtin::regex(
            r#"(?m)^\s*(site_name|title|project)\s*[:=]\s*(?:[uUrR]?"([^"\n]{1,120})"|[uUrR]?'([^'\n]{1,120})'|([^'"\s#,][^#\n,]{0,119}))"#,
        )
    });
    let key = match kind {
        "MkDocs" => "site_name",
        "mdBook" | "Docusaurus" | "VitePress" => "title",
        "front matter" if config.is_empty() => return None,
        "front matter" => "title",
        _ => "project",
    };
    // In JavaScript an unquoted value is a name (`title: siteName`), not the title.
    let script = matches!(kind, "Docusaurus" | "VitePress");
    site_files(kind, config).iter().find_map(|file| {
        let text = read(file)?;
        VALUE.captures_iter(&text).find_map(|c| {
            if c.get(1)?.as_str() != key {
                return None;
            }
            let quoted = c.get(2).or(c.get(3));
            let value = if script { quoted } else { quoted.or(c.get(4)) }?
                .as_str()
                .trim();
            (!value.is_empty()).then(|| value.to_string())
        })
    })
}

/// The summary the site's configuration gives the project (Docusaurus's `tagline`, MkDocs'
/// `site_description`), as plain text.
pub(super) fn site_summary(
    read: &dyn Fn(&str) -> Option<String>,
    kind: &str,
    config: &str,
) -> Option<String> {
    let key = match kind {
        "Docusaurus" => "tagline",
        "MkDocs" => "site_description",
        _ => return None,
    };
    let value = site_files(kind, config)
        .iter()
        .find_map(|file| setting(&read(file)?, key))?;
    let value = value.replace("\\n", " ");
    let text = value
        .trim_matches(|c: char| c.is_whitespace() || !(c.is_alphanumeric() || c.is_ascii()))
        .to_string();
    (text.split_whitespace().count() >= 2).then_some(text)
}

/// The files that configure the site of `kind` whose order `config` gave: MkDocs' and
/// mdBook's own file,
/// Docusaurus's configuration beside its sidebars (`siteConfig.js` for version 1), Sphinx's
/// `conf.py` beside its index.
fn site_files(kind: &str, config: &str) -> Vec<String> {
    let dir = config
        .rsplit_once('/')
        .map_or(String::new(), |(d, _)| format!("{d}/"));
    match kind {
        "MkDocs" | "mdBook" | "VitePress" | "front matter" => vec![config.to_string()],
        "Docusaurus" => [
            "docusaurus.config.js",
            "docusaurus.config.ts",
            "docusaurus.config.mjs",
            "docusaurus.config.cjs",
            "siteConfig.js",
        ]
        .iter()
        .map(|name| format!("{dir}{name}"))
        .collect(),
        "Sphinx" => vec![format!("{dir}conf.py")],
        _ => Vec::new(),
    }
}

/// A page's front matter and the text after it: YAML between `---` lines, or TOML between
/// `+++` lines (Hugo, Zola).
pub(super) fn front_matter(text: &str) -> Option<(&str, &str)> {
    let fence = ["---", "+++"]
        .into_iter()
        .find(|f| text.strip_prefix(f).is_some_and(|r| r.starts_with('\n')))?;
    let rest = &text[fence.len() + 1..];
    let end = rest.find(&format!("\n{fence}"))?;
    let after = &rest[end + 1 + fence.len()..];
    Some((
        &rest[..end],
        after.split_once('\n').map_or("", |(_, body)| body),
    ))
}

/// `key`'s value on a front-matter line (`key: value`, `key = value`), unquoted.
fn front_matter_line<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let value = line.strip_prefix(key)?.trim_start();
    let value = value
        .strip_prefix(':')
        .or_else(|| value.strip_prefix('='))?;
    Some(value.trim().trim_matches(['"', '\'']))
}

/// A number in a document's front matter (`sidebar_position: 2`, `weight = 10`). A number
/// may also sit in a nested mapping, as Hugo's menu weight does (`menu:` / `  docs:` /
/// `    weight: 10`).
pub(crate) fn front_matter_number(text: &str, key: &str) -> Option<f64> {
    let nested = || {
        let (block, _) = front_matter(text)?;
        block
            .lines()
            .find_map(|l| front_matter_line(l.trim_start(), key))
    };
    front_matter_value(text, key).or_else(nested)?.parse().ok()
}

/// The value of `key` in a page's front matter, unquoted.
pub(super) fn front_matter_value<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    let (block, _) = front_matter(text)?;
    block.lines().find_map(|l| front_matter_line(l, key))
}

/// Longest base URL read.
const MAX_URL_CHARS: usize = 200;

/// Folders a site's configuration may sit in: the root, the usual ones, and each top-level
/// folder that holds pages (`site/mkdocs.yml`, `guide/book.toml`), most pages first.
pub(super) fn config_dirs(pages: &[&str]) -> Vec<String> {
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for page in pages {
        if let Some((top, _)) = page.split_once('/') {
            *counts.entry(top).or_default() += 1;
        }
        // A monorepo's docs package (`packages/docs/`): its folder up to that name.
        let mut at = 0;
        for part in page.split('/').take(3) {
            at += part.len() + 1;
            if at < page.len() && DOCS_FOLDERS.contains(&part) && at > part.len() + 1 {
                *counts.entry(&page[..at - 1]).or_default() += 1;
                break;
            }
        }
    }
    let mut tops: Vec<(&str, usize)> = counts.into_iter().collect();
    tops.sort_by(|(a, x), (b, y)| y.cmp(x).then_with(|| a.cmp(b)));
    let mut dirs: Vec<String> = std::iter::once(String::new())
        .chain(DOCS_FOLDERS.iter().map(|d| format!("{d}/")))
        .collect();
    for (top, _) in tops.into_iter().take(MAX_CONFIG_DIRS) {
        let dir = format!("{top}/");
        if !dirs.contains(&dir) {
            dirs.push(dir);
        }
    }
    dirs
}

/// Folder names a docs site lives in.
const DOCS_FOLDERS: &[&str] = &["docs", "doc", "website", "site", "book", "guide"];

/// Top-level folders searched for a site's configuration, besides the usual ones.
const MAX_CONFIG_DIRS: usize = 8;

/// The folders a Docusaurus configuration in `dir` names as `path: '../md'`, from the
/// repository's root.
pub(super) fn docs_paths(read: &dyn Fn(&str) -> Option<String>, dir: &str) -> Vec<String> {
    static PATH: LazyLock<Regex> = LazyLock::new(|| {
        crate::builtin::regex(r#"["']?\bpath["']?\s*:\s*["']([\w./-]{1,200})["']"#)
    });
    ["docusaurus.config.js", "docusaurus.config.ts"]
        .iter()
        .filter_map(|name| read(&format!("{dir}{name}")))
        .flat_map(|text| {
            PATH.captures_iter(&text)
                .filter_map(|c| Some(join(dir, c.get(1)?.as_str())))
                .take(8)
                .collect::<Vec<_>>()
        })
        .collect()
}

/// The published URL of each of `pages` the site of `kind` serves (its order read from
/// `config`, its pages under `root`).
pub(super) fn page_urls(
    read: &dyn Fn(&str) -> Option<String>,
    kind: &str,
    config: &str,
    root: &str,
    pages: &[&str],
) -> HashMap<String, String> {
    let under_root = |page: &&&str| root.is_empty() || page.starts_with(&format!("{root}/"));
    let rels: Vec<(&str, &str)> = pages
        .iter()
        .filter(under_root)
        .map(|page| {
            let rel = if root.is_empty() {
                page
            } else {
                &page[root.len() + 1..]
            };
            (*page, rel)
        })
        .collect();
    let Some(site) = Site::read(read, kind, config).or_else(|| Site::published(read, kind, &rels))
    else {
        return HashMap::new();
    };
    rels.iter()
        .filter_map(|(page, rel)| Some((page.to_string(), site.url(rel, &|| read(page))?)))
        .collect()
}

/// How a site makes a page's URL.
enum Style {
    /// `dir/page/` (MkDocs' directory URLs).
    Directories,
    /// `dir/page.html`.
    Html,
    /// Docusaurus: under a route, by id or `slug`; `.html` for version 1 without clean URLs.
    Docusaurus { route: String, html: bool, v1: bool },
}

struct Site {
    /// With a trailing `/`.
    base: String,
    style: Style,
}

impl Site {
    fn read(read: &dyn Fn(&str) -> Option<String>, kind: &str, config: &str) -> Option<Site> {
        let files: Vec<(String, String)> = site_files(kind, config)
            .into_iter()
            .filter_map(|f| Some((read(&f)?, f)))
            .collect();
        let value = |key: &str| files.iter().find_map(|(text, _)| setting(text, key));
        // A site Read the Docs builds serves its pages under a language and version, on its
        // own domain too.
        let rtd = [".readthedocs.yaml", ".readthedocs.yml", "readthedocs.yml"]
            .iter()
            .find_map(|f| read(f));
        let (base, style) = match kind {
            "MkDocs" => {
                let directories = files
                    .iter()
                    .all(|(t, _)| !t.lines().any(|l| l.trim() == "use_directory_urls: false"));
                let style = if directories {
                    Style::Directories
                } else {
                    Style::Html
                };
                (read_the_docs(&value("site_url")?, rtd.is_some()), style)
            }
            "Docusaurus" => {
                let v1 = files.iter().any(|(_, f)| f.ends_with("siteConfig.js"));
                let url = value("url")?;
                let base_url = value("baseUrl").unwrap_or_else(|| "/".into());
                let route = if v1 {
                    value("docsUrl").unwrap_or_else(|| "docs".into())
                } else {
                    value("routeBasePath").unwrap_or_else(|| "docs".into())
                };
                let html = v1 && value("cleanUrl").as_deref() != Some("true");
                let base = format!(
                    "{}/{}",
                    url.trim_end_matches('/'),
                    base_url.trim_start_matches('/')
                );
                (
                    base,
                    Style::Docusaurus {
                        route: route.trim_matches('/').to_string(),
                        html,
                        v1,
                    },
                )
            }
            "Sphinx" => {
                // Read the Docs builds what its configuration says (`builder: dirhtml`, or
                // `sphinx-build -b dirhtml` among its commands).
                let style = match &rtd {
                    Some(config) if config.contains("dirhtml") => Style::Directories,
                    _ => Style::Html,
                };
                // `html_baseurl = os.environ.get(…)` is no address.
                let base = value("html_baseurl")
                    .filter(|u| u.starts_with("http"))
                    .or_else(|| {
                        documentation_url(read).map(|url| read_the_docs(&url, rtd.is_some()))
                    })?;
                (base, style)
            }
            "mdBook" => (value("site-url")?, Style::Html),
            _ => return None,
        };
        let base = base.trim();
        let valid = (base.starts_with("https://") || base.starts_with("http://"))
            && base.len() <= MAX_URL_CHARS
            && !base.contains(|c: char| c.is_whitespace() || "\"'<>`{}\\|^".contains(c))
            && base
                .split('/')
                .nth(2)
                .is_some_and(|host| host.contains('.'));
        valid.then(|| Site {
            base: format!("{}/", base.trim_end_matches('/')),
            style,
        })
    }

    /// Where a site whose configuration names no URL is published (see
    /// [`super::published`]).
    fn published(
        read: &dyn Fn(&str) -> Option<String>,
        kind: &str,
        rels: &[(&str, &str)],
    ) -> Option<Site> {
        let style = match kind {
            "MkDocs" => Style::Directories,
            "Sphinx" | "mdBook" => Style::Html,
            _ => return None,
        };
        let directories = matches!(style, Style::Directories);
        let base = super::published::readme_base(read, directories, rels).or_else(|| {
            let cargo = read("Cargo.toml").filter(|_| kind == "mdBook")?;
            setting(&cargo, "homepage").filter(|url| super::published::docs_host(url))
        })?;
        let valid = base.starts_with("https://") || base.starts_with("http://");
        valid.then(|| Site {
            base: format!("{}/", base.trim_end_matches('/')),
            style,
        })
    }

    /// The URL of the page at `rel` (a path under the site's pages); `text` reads the page
    /// (for Docusaurus's `id` and `slug`).
    fn url(&self, rel: &str, text: &dyn Fn() -> Option<String>) -> Option<String> {
        let stem = [".md", ".mdx", ".rst", ".ipynb"]
            .iter()
            .find_map(|ext| rel.strip_suffix(ext))?;
        let (dir, name) = match stem.rsplit_once('/') {
            Some((dir, name)) => (format!("{dir}/"), name),
            None => (String::new(), stem),
        };
        let index = matches!(name, "index" | "README" | "readme");
        let path = match &self.style {
            Style::Directories if index => dir,
            Style::Directories => format!("{stem}/"),
            Style::Html if index => dir,
            Style::Html => format!("{stem}.html"),
            Style::Docusaurus { route, html, v1 } => {
                let text = text().unwrap_or_default();
                let slug = front_matter_value(&text, "slug").filter(|_| !v1);
                let id = front_matter_value(&text, "id").filter(|id| !id.is_empty());
                let route = if route.is_empty() {
                    String::new()
                } else {
                    format!("{route}/")
                };
                let dir: String = dir
                    .split('/')
                    .filter(|p| !p.is_empty())
                    .map(|p| format!("{}/", strip_number(p)))
                    .collect();
                let page = match (slug, id) {
                    (Some(slug), _) if slug.starts_with('/') => {
                        slug.trim_start_matches('/').to_string()
                    }
                    (Some(slug), _) => format!("{dir}{slug}"),
                    (None, Some(id)) => format!("{dir}{id}"),
                    (None, None) if index => dir.trim_end_matches('/').to_string(),
                    (None, None) => format!("{dir}{}", strip_number(name)),
                };
                let suffix = if *html && !page.is_empty() {
                    ".html"
                } else {
                    ""
                };
                format!("{route}{page}{suffix}")
            }
        };
        if path.contains(|c: char| c.is_whitespace() || "\"'<>`{}\\|^()".contains(c)) {
            return None;
        }
        Some(format!("{}{}", self.base, path))
    }
}

/// A page or folder name without its number prefix (`01-intro` → `intro`).
pub(super) fn strip_number(part: &str) -> &str {
    let digits = part.chars().take_while(char::is_ascii_digit).count();
    if digits > 0 && part[digits..].starts_with(['-', '_', '.']) {
        &part[digits + 1..]
    } else {
        part
    }
}

/// The value of `key` in a configuration written as YAML, TOML, Python or JavaScript
/// (`site_url: x`, `site-url = "x"`, `html_baseurl = 'x'`, `url: 'x',`), on one line.
fn setting(text: &str, key: &str) -> Option<String> {
    static LINE: LazyLock<Regex> = LazyLock::new(|| {
        crate::builtin::regex(
            r#"(?m)^\s*["']?([A-Za-z_-]{1,40})["']?\s*[:=]\s*(?:"([^"\n]{0,200})"|'([^'\n]{0,200})'|`([^`\n]{0,200})`|([^'"`\s,#][^\s,#]{0,199}))"#,
        )
    });
    LINE.captures_iter(text).find_map(|c| {
        if c.get(1)?.as_str() != key {
            return None;
        }
        let value = c.get(2).or(c.get(3)).or(c.get(4)).or(c.get(5))?.as_str();
        Some(value.trim().to_string())
    })
}

/// The package's own address for its documentation: `Documentation` among the project's
/// URLs (`pyproject.toml`, `setup.cfg`).
fn documentation_url(read: &dyn Fn(&str) -> Option<String>) -> Option<String> {
    static DOCS: LazyLock<Regex> = LazyLock::new(|| {
        crate::builtin::regex(
            r#"(?mi)^\s*["']?documentation["']?\s*[:=]\s*["']?(https?://[^"'\s]{1,200})["']?\s*$"#,
        )
    });
    ["pyproject.toml", "setup.cfg"].iter().find_map(|file| {
        let text = read(file)?;
        Some(DOCS.captures(&text)?.get(1)?.as_str().to_string())
    })
}

/// A Read the Docs project's root serves its default version; its pages are under a
/// language and version (`en/latest/`).
/// (`hosted`: the repository configures Read the Docs, whose projects keep that layout on
/// their own domains too.)
fn read_the_docs(url: &str, hosted: bool) -> String {
    let trimmed = url.trim_end_matches('/');
    let host_only = trimmed.matches('/').count() == 2;
    if host_only && (hosted || trimmed.ends_with(".readthedocs.io")) {
        format!("{trimmed}/en/latest/")
    } else {
        url.to_string()
    }
}

/// `path` from the folder `base` (`..` steps out), as a repository path.
pub(super) fn join(base: &str, path: &str) -> String {
    let mut segments: Vec<&str> = base.split('/').filter(|s| !s.is_empty()).collect();
    for segment in path.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                segments.pop();
            }
            s => segments.push(s),
        }
    }
    segments.join("/")
}

/// The configuration of a static site generator whose pages sit in a `content/` folder (Zola,
/// Hugo) beside it, for its title; empty when there is none.
pub(super) fn site_config_beside(read: &dyn Fn(&str) -> Option<String>, page: &str) -> String {
    let Some(at) = page.find("content/") else {
        return String::new();
    };
    let dir = &page[..at];
    ["config.toml", "zola.toml", "hugo.toml"]
        .iter()
        .map(|name| format!("{dir}{name}"))
        .find(|file| read(file).is_some())
        .unwrap_or_default()
}

/// Whether a page is in a test suite's folder (`test_site/content/`, `fixtures/`): a test's
/// own site is no page of the docs.
pub(super) fn in_test_folder(page: &str) -> bool {
    page.split('/').rev().skip(1).any(|folder| {
        let folder = folder.to_ascii_lowercase();
        folder.starts_with("test") || matches!(folder.as_str(), "fixtures" | "__fixtures__")
    })
}

/// The key that orders the pages of a site weighted section by section (Hugo, Zola): the
/// (place, name) of each folder on the way to a page, a folder's place being its index
/// page's (`_index.md`), then the page's own place, its folder's index first.
pub(super) fn section_key(
    keyed: &[(f64, &str)],
) -> impl Fn(f64, &str) -> (Vec<(f64, String)>, f64) + use<> {
    let folder = |page: &str| page.rsplit_once('/').map_or("", |(dir, _)| dir).to_string();
    let is_index = |page: &str| {
        let name = page.rsplit('/').next().unwrap_or(page);
        matches!(name, "_index.md" | "index.md" | "_index.mdx" | "index.mdx")
    };
    let folder_place: HashMap<String, f64> = keyed
        .iter()
        .filter(|(_, page)| is_index(page))
        .map(|(place, page)| (folder(page), *place))
        .collect();
    move |place: f64, page: &str| {
        let dir = folder(page);
        let mut parts: Vec<(f64, String)> = Vec::new();
        let mut at = String::new();
        for part in dir.split('/').filter(|p| !p.is_empty()) {
            at = if at.is_empty() {
                part.to_string()
            } else {
                format!("{at}/{part}")
            };
            parts.push((
                folder_place.get(&at).copied().unwrap_or(f64::MAX),
                part.to_string(),
            ));
        }
        let own = if is_index(page) { f64::MIN } else { place };
        (parts, own)
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// The URLs of the pages among `files` for a site of `kind` configured by `config`.
    pub(in crate::source::docs) fn urls(
        kind: &str,
        config: &str,
        root: &str,
        files: &'static [(&'static str, &'static str)],
    ) -> HashMap<String, String> {
        let read = |path: &str| {
            files
                .iter()
                .find(|(p, _)| *p == path)
                .map(|(_, t)| (*t).to_string())
        };
        let pages: Vec<&str> = files
            .iter()
            .map(|(p, _)| *p)
            .filter(|p| p.ends_with(".md") || p.ends_with(".rst"))
            .collect();
        page_urls(&read, kind, config, root, &pages)
    }

    #[test]
    fn a_python_string_prefix_is_not_part_of_the_sphinx_project_name() {
        for (conf, want) in [
            ("project = u'Requests'\n", "Requests"),
            ("project = u\"Requests\"\n", "Requests"),
            ("project = 'attrs'\n", "attrs"),
            ("project = r'raw'\n", "raw"),
        ] {
            let read = |path: &str| (path == "docs/conf.py").then(|| conf.to_string());
            assert_eq!(
                site_title(&read, "Sphinx", "docs/index.rst").as_deref(),
                Some(want),
                "{conf}"
            );
        }
    }

    #[test]
    fn mkdocs_serves_pages_as_folders_under_its_site_url() {
        let found = urls(
            "MkDocs",
            "site/mkdocs.yml",
            "site/src",
            &[
                (
                    "site/mkdocs.yml",
                    "site_name: x\nsite_url: https://x.dev/docs\ndocs_dir: src\nnav:\n  - Home: index.md\n  - Running: running/index.md\n  - Filters: running/filters.md\n",
                ),
                ("site/src/index.md", "# x"),
                ("site/src/running/index.md", "# r"),
                ("site/src/running/filters.md", "# f"),
            ],
        );
        assert_eq!(found["site/src/index.md"], "https://x.dev/docs/");
        assert_eq!(
            found["site/src/running/index.md"],
            "https://x.dev/docs/running/"
        );
        assert_eq!(
            found["site/src/running/filters.md"],
            "https://x.dev/docs/running/filters/"
        );
    }

    #[test]
    fn docusaurus_pages_by_id_slug_and_version() {
        let found = urls(
            "Docusaurus",
            "website/sidebars.js",
            "website/docs",
            &[
                (
                    "website/docusaurus.config.js",
                    "module.exports = {\n  title: 'X',\n  url: 'https://x.io',\n  baseUrl: '/x/',\n};\n",
                ),
                (
                    "website/sidebars.js",
                    "module.exports = { docs: ['intro', 'guides/setup', 'moved'] };",
                ),
                ("website/docs/intro.md", "# Intro"),
                ("website/docs/guides/01-setup.md", "# Setup"),
                (
                    "website/docs/moved.md",
                    "---\nslug: /elsewhere\n---\n# Moved",
                ),
            ],
        );
        assert_eq!(found["website/docs/intro.md"], "https://x.io/x/docs/intro");
        assert_eq!(
            found["website/docs/guides/01-setup.md"],
            "https://x.io/x/docs/guides/setup"
        );
        assert_eq!(
            found["website/docs/moved.md"],
            "https://x.io/x/docs/elsewhere"
        );
        let v1 = urls(
            "Docusaurus",
            "website/sidebars.json",
            "docs",
            &[
                (
                    "website/siteConfig.js",
                    "const siteConfig = {\n  title: \"X\",\n  url: \"https://x.js.org\",\n  baseUrl: \"/\",\n  docsUrl: \"\",\n};\n",
                ),
                (
                    "website/sidebars.json",
                    "{\"docs\": {\"Intro\": [\"README\", \"gist\"]}}",
                ),
                ("docs/README.md", "---\nid: README\n---\n# X"),
                ("docs/the-gist.md", "---\nid: gist\n---\n# Gist"),
            ],
        );
        assert_eq!(v1["docs/the-gist.md"], "https://x.js.org/gist.html");
        assert_eq!(v1["docs/README.md"], "https://x.js.org/README.html");
    }

    #[test]
    fn an_mkdocs_site_on_read_the_docs_is_under_its_version() {
        let found = urls(
            "MkDocs",
            "mkdocs.yml",
            "docs",
            &[
                (
                    "mkdocs.yml",
                    "site_url: https://pdm-project.org\nnav:\n  - usage.md\n",
                ),
                (
                    ".readthedocs.yaml",
                    "version: 2\nmkdocs:\n  configuration: mkdocs.yml\n",
                ),
                ("docs/usage.md", "# Usage"),
            ],
        );
        assert_eq!(
            found["docs/usage.md"],
            "https://pdm-project.org/en/latest/usage/"
        );
    }

    #[test]
    fn toml_front_matter_as_zola_and_hugo_write_it() {
        let page = "+++\ntitle = \"Installation\"\nweight = 20\n+++\n\nInstall it.\n";
        assert_eq!(front_matter_number(page, "weight"), Some(20.0));
        assert_eq!(front_matter_value(page, "title"), Some("Installation"));
        assert_eq!(
            front_matter(page).map(|(_, body)| body),
            Some("\nInstall it.\n")
        );
        assert_eq!(front_matter("+++ no\n"), None);
    }

    #[test]
    fn a_hugo_menu_weight_is_a_place() {
        let page =
            "---\ntitle: \"Basic usage\"\nmenu:\n  docs:\n    weight: 10\n---\n# Basic usage\n";
        assert_eq!(front_matter_number(page, "weight"), Some(10.0));
        assert_eq!(
            front_matter_number("---\nweight: 3\n---\n", "weight"),
            Some(3.0)
        );
        assert_eq!(
            front_matter_number("# No front matter\nweight: 3\n", "weight"),
            None
        );
    }

    #[test]
    fn a_docusaurus_config_names_its_docs_folder() {
        let read = |path: &str| {
            (path == "doc/website/docusaurus.config.js").then(|| {
                "module.exports = {\n  presets: [['classic', { docs: { path: \"../md\" }, blog: { \"path\": \"blog\" } }]],\n};".to_string()
            })
        };
        assert_eq!(
            docs_paths(&read, "doc/website/"),
            ["doc/md", "doc/website/blog"]
        );
        assert!(docs_paths(&read, "website/").is_empty());
    }

    #[test]
    fn sphinx_on_read_the_docs_and_no_url_without_one() {
        let found = urls(
            "Sphinx",
            "docs/index.md",
            "docs",
            &[
                (
                    "pyproject.toml",
                    "[project.urls]\nDocumentation = \"https://black.readthedocs.io/\"\n",
                ),
                ("docs/conf.py", "project = 'Black'\n"),
                (
                    "docs/index.md",
                    "# Black\n\n```{toctree}\nusage/intro\n```\n",
                ),
                ("docs/usage/intro.md", "# Usage"),
            ],
        );
        assert_eq!(
            found["docs/index.md"],
            "https://black.readthedocs.io/en/latest/"
        );
        assert_eq!(
            found["docs/usage/intro.md"],
            "https://black.readthedocs.io/en/latest/usage/intro.html"
        );
        let dirhtml = urls(
            "Sphinx",
            "docs/index.rst",
            "docs",
            &[
                (
                    "pyproject.toml",
                    "[project.urls]\nDocumentation = \"https://flask.palletsprojects.com/\"\n",
                ),
                (
                    ".readthedocs.yaml",
                    "build:\n  commands:\n    - sphinx-build -b dirhtml docs out\n",
                ),
                ("docs/conf.py", "project = 'Flask'\n"),
                ("docs/installation.rst", "Installation\n============\n"),
            ],
        );
        assert_eq!(
            dirhtml["docs/installation.rst"],
            "https://flask.palletsprojects.com/en/latest/installation/"
        );
        let none = urls(
            "mdBook",
            "book/book.toml",
            "book/src",
            &[
                (
                    "book/book.toml",
                    "[book]\ntitle = \"B\"\n[output.html]\nsite-url = \"/b/\"\n",
                ),
                (
                    "book/src/SUMMARY.md",
                    "- [Intro](intro.md)\n- [Use](use.md)\n",
                ),
                ("book/src/intro.md", "# I"),
                ("book/src/use.md", "# U"),
            ],
        );
        assert!(none.is_empty(), "{none:?}");
    }
}
