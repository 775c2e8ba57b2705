//! Names in the export: a page's file name from its feature, an image's path from its
//! repository path, relative paths between files, and which URLs link to a published article.

/// A page's file name (without extension) for feature `feature_id`: lower-case letters,
/// digits and single `-`; `.` (the whole repository) and names a framework reads as a
/// folder's own page (`index`, `readme`) get names of their own.
pub(crate) fn slug(feature_id: &str) -> String {
    let mut slug = String::new();
    for c in feature_id.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_alphanumeric() {
            slug.push(c);
        } else if !slug.is_empty() && !slug.ends_with('-') {
            slug.push('-');
        }
        if slug.len() >= 80 {
            break;
        }
    }
    let slug = slug.trim_end_matches('-').to_owned();
    match slug.as_str() {
        "" => "repository".to_owned(),
        "index" | "readme" => format!("{slug}-feature"),
        _ => slug,
    }
}

/// An image's path under the static folder for repository path `path` (already normalised:
/// plain segments): characters other than ASCII letters, digits, `.`, `_` and `-` become `-`,
/// and a leading `.` becomes `_` (static folders skip hidden files).
pub(crate) fn image_name(path: &str) -> String {
    path.split('/')
        .map(|segment| {
            let mut out: String = segment
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                        c
                    } else {
                        '-'
                    }
                })
                .collect();
            if out.starts_with('.') {
                out.replace_range(..1, "_");
            }
            out
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// `name` with `-n` before its extension: `a/b.png` → `a/b-2.png`.
pub(crate) fn numbered(name: &str, n: usize) -> String {
    let file_start = name.rfind('/').map_or(0, |i| i + 1);
    match name[file_start..].rfind('.') {
        Some(dot) if dot > 0 => {
            let dot = file_start + dot;
            format!("{}-{n}{}", &name[..dot], &name[dot..])
        }
        _ => format!("{name}-{n}"),
    }
}

/// The path from the folder of file `from` to file `to` (both relative to one root).
pub(crate) fn relative(from: &str, to: &str) -> String {
    let from_dirs: Vec<&str> = from.split('/').collect();
    let from_dirs = &from_dirs[..from_dirs.len().saturating_sub(1)];
    let to_parts: Vec<&str> = to.split('/').collect();
    let common = from_dirs
        .iter()
        .zip(&to_parts)
        .take_while(|(a, b)| a == b)
        .count()
        .min(to_parts.len().saturating_sub(1));
    let mut out: Vec<&str> = vec![".."; from_dirs.len() - common];
    out.extend(&to_parts[common..]);
    out.join("/")
}

/// The article id and what follows it (`#fragment`, `?query`, or nothing) when `url` is a
/// published article's page: `/published/<id>` or `/published/<id>.mdx`, relative or under
/// `base_url`. A file of the article (`/published/<id>/files/…`) is no page.
pub(crate) fn published_article<'u>(url: &'u str, base_url: &str) -> Option<(&'u str, &'u str)> {
    let url = url.trim();
    let base = base_url.trim_end_matches('/');
    let path = match url.strip_prefix(base) {
        Some(rest) if !base.is_empty() && rest.starts_with('/') => rest,
        _ => url,
    };
    let rest = path.strip_prefix("/published/")?;
    let end = rest.find(['/', '#', '?']).unwrap_or(rest.len());
    let (id, tail) = rest.split_at(end);
    let id = id.strip_suffix(".mdx").unwrap_or(id);
    let is_id = id.starts_with("art_")
        && id.len() > 4
        && id[4..].chars().all(|c| c.is_ascii_alphanumeric());
    (is_id && !tail.starts_with('/')).then_some((id, tail))
}

/// A link destination as Markdown reads it without angle brackets: spaces and parentheses
/// percent-encoded.
pub(crate) fn destination(url: &str) -> String {
    url.replace(' ', "%20")
        .replace('(', "%28")
        .replace(')', "%29")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_are_plain_names() {
        assert_eq!(slug("csv-export"), "csv-export");
        assert_eq!(slug("crates/api"), "crates-api");
        assert_eq!(slug("src/Export Tools/"), "src-export-tools");
        assert_eq!(slug("."), "repository");
        assert_eq!(slug("index"), "index-feature");
        assert_eq!(slug("../../etc"), "etc");
    }

    #[test]
    fn image_names_stay_inside_the_static_folder() {
        assert_eq!(image_name("docs/a b.png"), "docs/a-b.png");
        assert_eq!(image_name(".github/é.png"), "_github/-.png");
        assert_eq!(numbered("docs/a.png", 2), "docs/a-2.png");
        assert_eq!(numbered("docs.v1/a", 3), "docs.v1/a-3");
    }

    #[test]
    fn relative_paths_climb_to_the_common_folder() {
        assert_eq!(
            relative("docs/help-center/a.md", "docs/dev-docs/b.md"),
            "../dev-docs/b.md"
        );
        assert_eq!(relative("docs/index.md", "docs/blog/b.md"), "blog/b.md");
        assert_eq!(
            relative("docs/blog/b.md", "docs/assets/images/x.png"),
            "../assets/images/x.png"
        );
    }

    #[test]
    fn published_links_are_recognised() {
        let base = "https://docs.example.com";
        assert_eq!(
            published_article("/published/art_01ab", base),
            Some(("art_01ab", ""))
        );
        assert_eq!(
            published_article("https://docs.example.com/published/art_01ab.mdx#step", base),
            Some(("art_01ab", "#step"))
        );
        for url in [
            "/published/art_01ab/files/a.png",
            "https://other.example/published/art_01ab",
            "/published/workspaces/ws_1",
            "published/art_01ab",
            "/published/art_",
        ] {
            assert_eq!(published_article(url, base), None, "{url}");
        }
    }
}
