//! Where a docs site is published when its configuration does not say: the address the
//! README gives one of its pages at (`https://pyo3.rs/latest/getting-started.html` for
//! `getting-started.md`), else, for a book, the crate's `homepage`
//! ([`super::site_config`] reads that one).

use std::sync::LazyLock;

use regex::Regex;

/// Hosts that serve a repository or a package, never a project's own docs site.
const NOT_A_DOCS_SITE: [&str; 8] = [
    "github.com",
    "gitlab.com",
    "codeberg.org",
    "bitbucket.org",
    "docs.rs",
    "crates.io",
    "pypi.org",
    "www.npmjs.com",
];

/// README addresses read for one of the site's pages.
const MAX_README_URLS: usize = 500;

/// Whether `url` may be a project's own docs site.
pub(super) fn docs_host(url: &str) -> bool {
    url.split('/')
        .nth(2)
        .is_some_and(|host| host.contains('.') && !NOT_A_DOCS_SITE.contains(&host))
}

/// The site's base address, from a README link to one of the pages at `rels` (each page's
/// path under the site's root): the link less the page's own path (`page/` with
/// `directories`, else `page.html`). Index pages say nothing about the base and are skipped.
pub(super) fn readme_base(
    read: &dyn Fn(&str) -> Option<String>,
    directories: bool,
    rels: &[(&str, &str)],
) -> Option<String> {
    static URL: LazyLock<Regex> =
        LazyLock::new(|| crate::builtin::regex(r#"https?://[^\s()<>"'`\]\[]{1,300}"#));
    let readme = ["README.md", "README.rst", "README"]
        .iter()
        .find_map(|f| read(f))?;
    let tails: Vec<String> = rels
        .iter()
        .filter_map(|(_, rel)| [".md", ".rst"].iter().find_map(|e| rel.strip_suffix(e)))
        .filter(|stem| !stem.ends_with("index") && !stem.ends_with("README"))
        .map(|stem| {
            if directories {
                format!("/{stem}/")
            } else {
                format!("/{stem}.html")
            }
        })
        .collect();
    URL.find_iter(&readme)
        .take(MAX_README_URLS)
        .find_map(|found| {
            let url = found.as_str().split(['#', '?']).next()?;
            if !docs_host(url) {
                return None;
            }
            let base = tails
                .iter()
                .find_map(|tail| url.strip_suffix(tail.as_str()))?;
            Some(format!("{base}/"))
        })
}

#[cfg(test)]
mod tests {
    use super::readme_base;

    #[test]
    fn a_readme_link_to_a_page_gives_the_sites_base() {
        let readme = "See [the guide](https://pyo3.rs/latest/building.html#manual) and \
            [source](https://github.com/o/r/blob/main/guide/src/building.md), \
            [docs](https://docs.rs/x/latest/building.html).";
        let read = |path: &str| (path == "README.md").then(|| readme.to_string());
        let rels = [
            ("guide/src/building.md", "building.md"),
            ("guide/src/index.md", "index.md"),
        ];
        assert_eq!(
            readme_base(&read, false, &rels).as_deref(),
            Some("https://pyo3.rs/latest/")
        );
        // A forge or registry address, or no page's path, gives no base.
        let forge = |path: &str| {
            (path == "README.md").then(|| {
                "https://github.com/o/r/building.html https://x.dev/other.html".to_string()
            })
        };
        assert_eq!(readme_base(&forge, false, &rels), None);
        assert_eq!(readme_base(&|_: &str| None, true, &rels), None);
    }

    /// The URLs the site makes of the pages among `files`, in order.
    fn urls(
        files: &'static [(&'static str, &'static str)],
        kind: &str,
        config: &str,
        root: &str,
    ) -> Vec<String> {
        let mut found: Vec<String> =
            super::super::site_config::tests::urls(kind, config, root, files)
                .into_values()
                .collect();
        found.sort();
        found
    }

    #[test]
    fn a_book_without_a_site_url_is_at_its_crates_homepage() {
        const BOOK: &[(&str, &str)] = &[
            (
                "Cargo.toml",
                "[package]\nname = \"cxx\"\nhomepage = \"https://cxx.rs\"\n",
            ),
            ("book/book.toml", "[book]\ntitle = \"CXX\"\n"),
            ("book/src/binding/box.md", "# rust::Box"),
        ];
        assert_eq!(
            urls(BOOK, "mdBook", "book/book.toml", "book/src"),
            ["https://cxx.rs/binding/box.html"]
        );
        // A homepage on the forge is no docs site.
        const FORGE: &[(&str, &str)] = &[
            (
                "Cargo.toml",
                "[package]\nhomepage = \"https://github.com/o/r\"\n",
            ),
            ("book/book.toml", "[book]\ntitle = \"B\"\n"),
            ("book/src/use.md", "# U"),
        ];
        assert!(urls(FORGE, "mdBook", "book/book.toml", "book/src").is_empty());
    }

    #[test]
    fn the_sites_tagline_is_its_summary() {
        let read = |path: &str| {
            (path == "website/docusaurus.config.js").then(|| {
                "module.exports = {\n  title: 'Jest',\n  tagline: '\u{1f0cf} Delightful JavaScript Testing',\n};\n".to_string()
            })
        };
        assert_eq!(
            super::super::site_config::site_summary(&read, "Docusaurus", "website/sidebars.json")
                .as_deref(),
            Some("Delightful JavaScript Testing")
        );
        assert_eq!(
            super::super::site_config::site_summary(&read, "mdBook", "book/book.toml"),
            None
        );
    }

    #[test]
    fn a_sphinx_baseurl_read_from_the_environment_leaves_the_documentation_url() {
        const SITE: &[(&str, &str)] = &[
            (
                "pyproject.toml",
                "[project.urls]\nDocumentation = \"https://www.attrs.org/\"\n",
            ),
            (".readthedocs.yaml", "version: 2\n"),
            (
                "docs/conf.py",
                "html_baseurl = os.environ.get(\"READTHEDOCS_CANONICAL_URL\", \"\")\n",
            ),
            ("docs/glossary.md", "# Glossary"),
        ];
        assert_eq!(
            urls(SITE, "Sphinx", "docs/index.md", "docs"),
            ["https://www.attrs.org/en/latest/glossary.html"]
        );
    }
}
