//! Which repository file an image source names. Articles point at repository files by
//! root-relative paths (`/docs/a%20b.png`: the pipeline's `served_url` for repositories
//! without a known forge); a relative source (`docs/a.png`) is read from the repository root
//! too, as the pipeline writes none and a hand-made template means nothing else by it.

use percent_encoding::percent_decode_str;

/// Longest repository path accepted; git itself refuses none, but no real image path is
/// longer and a longer one would only make work.
const MAX_PATH_BYTES: usize = 1024;

/// The normalised repository path an image source names, or `None` when it names none: a URL
/// with a scheme or a host (`https://…`, `//host/…`, `data:…`), a path that climbs above the
/// repository root, or one holding a backslash or a control character (never a file a
/// repository links to, often a trick). `/docs/a%20b.png`, `docs/a b.png` and
/// `./docs/x/../a%20b.png?raw=1#top` all name `docs/a b.png`.
pub fn repository_path(src: &str) -> Option<String> {
    let src = src.trim();
    if src.starts_with("//") || src.len() > 3 * MAX_PATH_BYTES {
        return None;
    }
    let end = src.find(['?', '#']).unwrap_or(src.len());
    let src = &src[..end];
    let scheme_end = src.find('/').unwrap_or(src.len());
    if src[..scheme_end].contains(':') {
        return None;
    }
    let decoded = percent_decode_str(src).decode_utf8().ok()?;
    if decoded.contains('\\') || decoded.chars().any(char::is_control) {
        return None;
    }
    let mut segments: Vec<&str> = Vec::new();
    for segment in decoded.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                segments.pop()?;
            }
            name => segments.push(name),
        }
    }
    let path = segments.join("/");
    (!path.is_empty() && path.len() <= MAX_PATH_BYTES).then_some(path)
}

#[cfg(test)]
mod tests {
    use super::repository_path;

    #[test]
    fn sources_name_normalised_repository_paths() {
        for src in [
            "/docs/a%20b.png",
            "docs/a b.png",
            "./docs/x/../a%20b.png?raw=1#top",
            " /docs//a b.png ",
        ] {
            assert_eq!(
                repository_path(src).as_deref(),
                Some("docs/a b.png"),
                "{src}"
            );
        }
        assert_eq!(repository_path("/é.png").as_deref(), Some("é.png"));
        assert_eq!(repository_path("/a:b.png").as_deref(), Some("a:b.png"));
    }

    #[test]
    fn urls_and_escapes_name_no_file() {
        for src in [
            "https://example.com/a.png",
            "HTTP://x/a.png",
            "//evil.example/a.png",
            "data:image/png;base64,AAAA",
            "javascript:alert(1)",
            "../secret.png",
            "/docs/../../etc/passwd",
            "/docs/%2e%2e/%2e%2e/etc/passwd",
            "a\\..\\b.png",
            "/a%00.png",
            "/a%0a.png",
            "/%ff.png",
            "",
            "/",
            "?x",
        ] {
            assert_eq!(repository_path(src), None, "{src}");
        }
        assert_eq!(repository_path(&format!("/{}", "a".repeat(2000))), None);
    }
}
