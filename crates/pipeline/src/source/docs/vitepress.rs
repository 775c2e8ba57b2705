//! A VitePress (or VuePress) site's order: the pages its configuration links to (`nav`,
//! `sidebar`: `link: '/guide/'`), in the order written, read as text (never run). The site's
//! pages are the Markdown files under the folder that holds `.vitepress/`.

use std::sync::LazyLock;

use regex::Regex;

/// Configuration files of a site whose folder is `dir` (`docs/`).
const CONFIGS: &[&str] = &[
    ".vitepress/config.ts",
    ".vitepress/config.mts",
    ".vitepress/config.js",
    ".vitepress/config.mjs",
    // A configuration split by locale (`config/en.ts`) or into its parts.
    ".vitepress/config/index.ts",
    ".vitepress/config/en.ts",
    ".vitepress/config/shared.ts",
    ".vitepress/sidebar.ts",
    ".vitepress/sidebar/index.ts",
    ".vuepress/config.ts",
    ".vuepress/config.js",
];

/// Links read at most from one site's configuration.
const MAX_LINKS: usize = 2_000;

/// The pages (of `pages`) the VitePress site in `dir` links to, in order, and the
/// configuration file that lists them; `None` without such a site or when it links to
/// none of `pages`.
pub(super) fn pages(
    read: &dyn Fn(&str) -> Option<String>,
    dir: &str,
    pages: &[&str],
) -> Option<(String, Vec<String>)> {
    static LINK: LazyLock<Regex> =
        LazyLock::new(|| crate::builtin::regex(r#"\blink\s*:\s*['"`](/[^'"`#?\s]{0,300})"#));
    let root = dir.trim_end_matches('/');
    let mut config = None;
    let mut out: Vec<String> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let known: std::collections::HashSet<&str> = pages.iter().copied().collect();
    for name in CONFIGS {
        let path = format!("{dir}{name}");
        let Some(text) = read(&path) else { continue };
        config.get_or_insert(path);
        // The sidebar's order first (the reading order), then the pages only the nav names.
        let sidebar = text.find("sidebar").map_or("", |at| &text[at..]);
        for part in [sidebar, text.as_str()] {
            for found in LINK.captures_iter(part).take(MAX_LINKS) {
                let Some(link) = found.get(1).map(|m| m.as_str()) else {
                    continue;
                };
                if let Some(page) = page_of(root, link, &known)
                    && seen.insert(page.clone())
                {
                    out.push(page);
                }
            }
        }
    }
    (!out.is_empty()).then(|| (config.unwrap_or_default(), out))
}

/// The page a site link means: `/guide/` → `guide/index.md`, `/api/test` → `api/test.md`.
fn page_of(root: &str, link: &str, pages: &std::collections::HashSet<&str>) -> Option<String> {
    let link = link.trim_start_matches('/');
    let stem = [".html", ".md"]
        .iter()
        .find_map(|ext| link.strip_suffix(ext))
        .unwrap_or(link);
    let at = |rel: String| {
        if root.is_empty() {
            rel
        } else {
            format!("{root}/{rel}")
        }
    };
    let candidates = if stem.is_empty() || stem.ends_with('/') {
        vec![at(format!("{stem}index.md"))]
    } else {
        vec![at(format!("{stem}.md")), at(format!("{stem}/index.md"))]
    };
    candidates.into_iter().find(|c| pages.contains(&c.as_str()))
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_links_of_nav_and_sidebar_give_the_order() {
        let config = "export default defineConfig({\n  themeConfig: {\n    nav: [{ text: 'Guides', link: '/guide/' }, { text: 'Site', link: 'https://x.dev/' }, { text: 'Todo', link: '/todo' }],\n    sidebar: { '/guide/': [{ text: 'Start', link: '/guide/' }, { text: 'Features', link: '/guide/features' }, { text: 'Why', link: '/guide/why.html#x' }] },\n  },\n})\n";
        let read = |path: &str| (path == "docs/.vitepress/config.ts").then(|| config.to_string());
        let pages = [
            "docs/guide/why.md",
            "docs/guide/features.md",
            "docs/guide/index.md",
            "docs/todo.md",
        ];
        let (file, order) = super::pages(&read, "docs/", &pages).expect("a site");
        assert_eq!(file, "docs/.vitepress/config.ts");
        assert_eq!(
            order,
            [
                "docs/guide/index.md",
                "docs/guide/features.md",
                "docs/guide/why.md",
                "docs/todo.md"
            ]
        );
        assert!(super::pages(&read, "website/", &pages).is_none());
    }
}
