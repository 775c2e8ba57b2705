//! Which representation of `public_url` a client gets: the page, unless its `Accept` header
//! ranks `text/markdown` above `text/html` (RFC 9110 §12.5.1: the most specific range that
//! matches gives a type its quality). A tie, `*/*`, no header or neither type acceptable gives
//! the page: browsers and most tools are readers; the typed client asks for `text/markdown`.

use axum::http::{HeaderMap, header};

/// Media ranges read from one request; more are ignored.
const MAX_RANGES: usize = 32;

pub(super) fn prefers_markdown(headers: &HeaderMap) -> bool {
    let accept: Vec<&str> = headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .take(MAX_RANGES)
        .collect();
    quality(&accept, "text", "markdown") > quality(&accept, "text", "html")
}

/// The quality `ranges` give `kind/subtype`: that of the most specific matching range, 0
/// when none matches.
fn quality(ranges: &[&str], kind: &str, subtype: &str) -> f32 {
    let mut best: Option<(u8, f32)> = None;
    for range in ranges {
        let mut parts = range.split(';');
        let media = parts.next().unwrap_or("").trim().to_ascii_lowercase();
        let Some((k, s)) = media.split_once('/') else {
            continue;
        };
        let specificity = match (k == kind, s == subtype) {
            (true, true) => 2,
            (true, false) if s == "*" => 1,
            _ if k == "*" && s == "*" => 0,
            _ => continue,
        };
        let q = parts
            .filter_map(|p| p.trim().strip_prefix("q="))
            .find_map(|q| q.trim().parse::<f32>().ok())
            .filter(|q| (0.0..=1.0).contains(q))
            .unwrap_or(1.0);
        if best.is_none_or(|(seen, _)| specificity > seen) {
            best = Some((specificity, q));
        }
    }
    best.map_or(0.0, |(_, q)| q)
}

#[cfg(test)]
mod tests {
    use axum::http::{HeaderMap, HeaderValue, header};

    use super::prefers_markdown;

    fn accept(value: &str) -> bool {
        let mut headers = HeaderMap::new();
        headers.insert(header::ACCEPT, HeaderValue::from_str(value).unwrap());
        prefers_markdown(&headers)
    }

    #[test]
    fn markdown_only_when_ranked_above_html() {
        assert!(accept("text/markdown"));
        assert!(accept("text/markdown, text/html;q=0.5"));
        assert!(accept("text/*;q=0.3, text/markdown"));
        assert!(accept("text/markdown, */*;q=0.1"));
        assert!(!accept(
            "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
        ));
        assert!(!accept("*/*"));
        assert!(!accept("text/markdown;q=0.5, text/html"));
        assert!(!accept("text/markdown;q=0, */*"));
        assert!(!accept("application/json"));
        assert!(!accept("text/markdown;q=abc, text/html"));
        assert!(!prefers_markdown(&HeaderMap::new()));
    }
}
