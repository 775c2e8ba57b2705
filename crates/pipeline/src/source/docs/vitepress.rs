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
        let nav = text.find("sidebar").map_or(text.as_str(), |at| &text[..at]);
        let mut parts = sidebars_in_nav_order(sidebar, nav);
        parts.push(text.as_str());
        for part in parts {
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

/// The sidebars of a sidebar keyed by path (`sidebar: { '/config/': […], '/guide/': […] }`) in
/// the order the nav links to their paths (Guides before Config), each as its text; the whole
/// sidebar as one part when it is not keyed so.
fn sidebars_in_nav_order<'a>(sidebar: &'a str, nav: &str) -> Vec<&'a str> {
    static KEY: LazyLock<Regex> =
        LazyLock::new(|| crate::builtin::regex(r#"['"`](/[^'"`\s]{0,200})['"`]\s*:\s*[\[{]"#));
    let keys: Vec<(usize, &str)> = KEY
        .captures_iter(sidebar)
        .take(MAX_LINKS)
        .filter_map(|c| Some((c.get(0)?.start(), c.get(1)?.as_str())))
        .collect();
    if keys.len() < 2 {
        return vec![sidebar];
    }
    let mut blocks: Vec<(usize, &str)> = keys
        .iter()
        .enumerate()
        .map(|(n, (start, key))| {
            let end = keys.get(n + 1).map_or(sidebar.len(), |(next, _)| *next);
            let place = nav
                .match_indices(&format!("link: '{}", key.trim_end_matches('/')))
                .chain(nav.match_indices(&format!("link: \"{}", key.trim_end_matches('/'))))
                .map(|(at, _)| at)
                .min()
                .unwrap_or(usize::MAX);
            (place, &sidebar[*start..end])
        })
        .collect();
    blocks.sort_by_key(|(place, _)| *place);
    let mut parts = vec![&sidebar[..keys[0].0]];
    parts.extend(blocks.into_iter().map(|(_, block)| block));
    parts
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

    #[test]
    fn sidebars_keyed_by_path_follow_the_nav() {
        let config = "export default {\n  themeConfig: {\n    nav: [{ text: 'Guides', link: '/guide/' }, { text: 'Config', link: '/config/' }],\n    sidebar: {\n      '/config': [{ text: 'Config File', link: '/config/' }, { text: 'include', link: '/config/include' }],\n      '/guide': [{ text: 'Getting Started', link: '/guide/' }, { text: 'Features', link: '/guide/features' }],\n    },\n  },\n}\n";
        let read = |path: &str| (path == "docs/.vitepress/config.ts").then(|| config.to_string());
        let pages = [
            "docs/config/index.md",
            "docs/config/include.md",
            "docs/guide/index.md",
            "docs/guide/features.md",
        ];
        let (_, order) = super::pages(&read, "docs/", &pages).expect("a site");
        assert_eq!(
            order,
            [
                "docs/guide/index.md",
                "docs/guide/features.md",
                "docs/config/index.md",
                "docs/config/include.md"
            ]
        );
    }
}
