//! MDX to HTML, for the portal's preview and the published site. Pure functions.
//!
//! An article comes from a repository, which is untrusted: it is parsed as stage validate
//! parses it (`pipeline::parse_mdx`, with the same nesting bound, so markdown-rs never meets
//! a deep tree), its tree is walked into HTML written here (`tree.rs`), and that HTML is
//! sanitised (`html.rs`). An article larger than an article may be, nested too deep or not
//! MDX at all is shown as its escaped source under a notice, never an error page.
//!
//! Images: a source that is a repository path (`/docs/a.png`, as the pipeline writes them
//! for repositories without a known forge, or relative) goes through the caller's
//! `file_url`; [`referenced_files`] lists those paths, so that a file endpoint can serve only
//! what an article shows.

mod diff;
mod escape;
mod highlight;
mod html;
mod tree;

use escape::escape;
use html::sanitise;
use pipeline::{Limits, ParseRefusal};

pub use diff::diff;
pub use tree::Section;

/// An article rendered for reading.
#[derive(Clone, Debug, Default)]
pub struct Rendered {
    /// The frontmatter's fields in their order (title, description, …), for the header.
    pub front: Vec<(String, String)>,
    /// The article as sanitised HTML: a `<header>` from the frontmatter (title as `<h1>` and
    /// description; the other fields are in `front` only), then the body.
    pub html: String,
    /// Its sections of levels 2 and 3, for an "on this page" list.
    pub outline: Vec<Section>,
    /// Why the article is shown as its source instead (too large, nested too deep, not MDX).
    pub refused: Option<String>,
}

impl Rendered {
    /// The frontmatter's `title`.
    pub fn title(&self) -> Option<&str> {
        self.field("title")
    }

    /// The frontmatter's `description`.
    pub fn description(&self) -> Option<&str> {
        self.field("description")
    }

    fn field(&self, name: &str) -> Option<&str> {
        self.front
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }
}

/// The largest article rendered; the pipeline never writes a larger one
/// ([`Limits::max_article_bytes`]).
pub fn max_article_bytes() -> usize {
    Limits::default().max_article_bytes
}

/// Renders `mdx`. `file_url` maps a repository path an image or capture references to the
/// URL that serves it, or `None` when it cannot be served (the image's alt text is shown).
pub fn article(mdx: &str, file_url: &dyn Fn(&str) -> Option<String>) -> Rendered {
    match parse(mdx) {
        Ok(root) => {
            let mut walk = tree::Walk::new(file_url, highlight::HIGHLIGHT_BUDGET);
            walk.document(&root);
            Rendered {
                front: walk.front,
                html: sanitise(&walk.out),
                outline: walk.outline,
                refused: None,
            }
        }
        Err(reason) => {
            let source = if mdx.len() <= max_article_bytes() {
                format!("<pre tabindex=\"0\"><code>{}</code></pre>", escape(mdx))
            } else {
                String::new()
            };
            let html = format!(
                "<div class=\"render-error\"><p>This article cannot be shown as a page: {}.</p>{source}</div>",
                escape(&reason)
            );
            Rendered {
                front: Vec::new(),
                html: sanitise(&html),
                outline: Vec::new(),
                refused: Some(reason),
            }
        }
    }
}

/// The normalised repository paths of the images `mdx` shows, in order, each once: what a
/// file endpoint may serve for it. Empty when the article cannot be rendered.
pub fn referenced_files(mdx: &str) -> Vec<String> {
    let Ok(root) = parse(mdx) else {
        return Vec::new();
    };
    let no_url = |_: &str| None;
    // The same walk as `article`, without highlighting: the paths are what it shows.
    let mut walk = tree::Walk::new(&no_url, 0);
    walk.document(&root);
    walk.referenced
}

/// The MDX source as highlighted HTML (a `<pre>`), for a "source" tab.
pub fn source(mdx: &str) -> String {
    let mut budget = highlight::HIGHLIGHT_BUDGET;
    let code = highlight::code(mdx, "md", &mut budget);
    sanitise(&format!(
        "<pre class=\"{}\" tabindex=\"0\"><code>{code}</code></pre>",
        highlight::CODE_CLASS
    ))
}

/// The stylesheet of the highlighted code's classes (light, with a dark variant), for a
/// page that shows [`article`] or [`source`] output.
pub fn highlight_css() -> &'static str {
    highlight::css()
}

/// The tree of `mdx`, or why there is none, in words for the reader.
fn parse(mdx: &str) -> Result<markdown::mdast::Node, String> {
    let limits = Limits::default();
    if mdx.len() > limits.max_article_bytes {
        return Err(format!(
            "it is larger than {} bytes",
            limits.max_article_bytes
        ));
    }
    pipeline::parse_mdx(mdx, limits.max_nesting_depth).map_err(|refusal| match refusal {
        ParseRefusal::TooDeep { line } => format!(
            "it nests more than {} levels deep at line {line}",
            limits.max_nesting_depth
        ),
        ParseRefusal::Invalid(e) => format!("it is not valid MDX ({e})"),
    })
}

#[cfg(test)]
mod tests;
