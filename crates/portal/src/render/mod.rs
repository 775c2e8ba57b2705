//! MDX to HTML, for the portal's preview and the published site.

/// An article rendered for reading.
#[derive(Clone, Debug, Default)]
pub struct Rendered {
    /// The frontmatter's fields in their order (title, description, …), for the header.
    pub front: Vec<(String, String)>,
    /// The body as sanitised HTML.
    pub html: String,
}

/// Renders `mdx`. `file_url` maps a repository path an image or capture references to the
/// URL that serves it, or `None` when it cannot be served.
pub fn article(mdx: &str, file_url: &dyn Fn(&str) -> Option<String>) -> Rendered {
    let _ = file_url;
    Rendered {
        front: Vec::new(),
        html: format!("<pre>{}</pre>", escape(mdx)),
    }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The MDX source, escaped for a `<pre>`.
pub fn source(mdx: &str) -> String {
    format!("<pre><code>{}</code></pre>", escape(mdx))
}

/// A line diff of two texts.
pub fn diff(old: &str, new: &str) -> String {
    let mut out = String::from("<pre class=\"diff\">");
    for line in old.lines() {
        if !new.lines().any(|l| l == line) {
            out.push_str(&format!("<del>- {}</del>\n", escape(line)));
        }
    }
    for line in new.lines() {
        if !old.lines().any(|l| l == line) {
            out.push_str(&format!("<ins>+ {}</ins>\n", escape(line)));
        }
    }
    out.push_str("</pre>");
    out
}
