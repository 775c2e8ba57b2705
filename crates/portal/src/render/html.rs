//! HTML text and the sanitiser every rendered fragment passes through.
//!
//! The renderer writes its own HTML from the tree and escapes every text and attribute it
//! copies, so nothing of the article becomes markup by itself; [`sanitise`] is the second
//! line, written from the same list of what the renderer emits ([`TAGS`], [`ATTRIBUTES`],
//! [`CLASSES`]): any other element, attribute or class is removed, URLs keep only the http,
//! https and mailto schemes (or none), and every link gets `rel="noopener noreferrer"`.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

use super::highlight::{CLASS_PREFIX, CODE_CLASS};

/// Every element the renderer emits.
pub(super) const TAGS: &[&str] = &[
    "a",
    "aside",
    "b",
    "blockquote",
    "br",
    "code",
    "dd",
    "del",
    "details",
    "div",
    "dl",
    "dt",
    "em",
    "figcaption",
    "figure",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hr",
    "i",
    "img",
    "ins",
    "kbd",
    "li",
    "mark",
    "ol",
    "p",
    "pre",
    "s",
    "section",
    "small",
    "span",
    "strong",
    "sub",
    "summary",
    "sup",
    "table",
    "tbody",
    "td",
    "th",
    "thead",
    "tr",
    "u",
    "ul",
];

/// The attributes each element may keep besides `class`.
const ATTRIBUTES: &[(&str, &[&str])] = &[
    ("a", &["href", "aria-label"]),
    ("span", &["id"]),
    ("img", &["src", "alt"]),
    ("ol", &["start"]),
    // Code and tables scroll sideways when wide: focusable, so that a keyboard scrolls them.
    ("pre", &["tabindex"]),
    ("table", &["tabindex"]),
    ("aside", &["role"]),
    ("section", &["id"]),
    ("li", &["id"]),
    ("h1", &["id"]),
    ("h2", &["id"]),
    ("h3", &["id"]),
    ("h4", &["id"]),
    ("h5", &["id"]),
    ("h6", &["id"]),
];

/// Every class the renderer emits, besides the highlighter's (`hl-…`, on `pre` and `span`).
pub(super) const CLASSES: &[&str] = &[
    "article-header",
    "article-description",
    "heading-link",
    "steps",
    "step",
    "step-title",
    "frame",
    "update",
    "update-description",
    "callout",
    "callout-note",
    "callout-warning",
    "callout-tip",
    "callout-info",
    "callout-check",
    "callout-label",
    "image-alt",
    "external-image",
    "align-left",
    "align-center",
    "align-right",
    "render-error",
    "diff",
    "diff-hunk",
    "diff-added",
    "diff-removed",
    "diff-context",
    "diff-old",
    "diff-new",
    "diff-sign",
    "diff-text",
];

static SANITISER: LazyLock<ammonia::Builder<'static>> = LazyLock::new(|| {
    let mut builder = ammonia::Builder::empty();
    let attributes: HashMap<&str, HashSet<&str>> = ATTRIBUTES
        .iter()
        .map(|(tag, names)| (*tag, names.iter().copied().collect()))
        .collect();
    builder
        .tags(TAGS.iter().copied().collect())
        .clean_content_tags(["script", "style"].into_iter().collect())
        .tag_attributes(attributes)
        .generic_attributes(["class"].into_iter().collect())
        .url_schemes(["http", "https", "mailto"].into_iter().collect())
        .url_relative(ammonia::UrlRelative::PassThrough)
        .link_rel(Some("noopener noreferrer"))
        .strip_comments(true)
        .attribute_filter(|element, attribute, value| match attribute {
            "class" => {
                let kept = allowed_classes(element, value);
                (!kept.is_empty()).then_some(Cow::Owned(kept))
            }
            // In the tab order, never ahead of it.
            "tabindex" => Some(Cow::Borrowed("0")),
            _ => Some(Cow::Borrowed(value)),
        });
    builder
});

/// The classes of `value` that the renderer emits on `element`.
fn allowed_classes(element: &str, value: &str) -> String {
    value
        .split_ascii_whitespace()
        .filter(|class| {
            CLASSES.contains(class)
                || (*class == CODE_CLASS && element == "pre")
                || (class.starts_with(CLASS_PREFIX) && element == "span")
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// `html` with everything the renderer does not emit removed.
pub(super) fn sanitise(html: &str) -> String {
    SANITISER.clean(html).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_the_renderer_does_not_emit_is_removed() {
        let dirty = concat!(
            "<p class=\"steps evil\" style=\"color:red\" onclick=\"x()\">a</p>",
            "<script>alert(1)</script><style>p{}</style><iframe src=\"x\"></iframe>",
            "<a href=\"javascript:alert(1)\">j</a><a href=\"https://x.y\" target=\"_blank\">h</a>",
            "<img src=\"x.png\" onerror=\"alert(1)\" alt=\"i\">",
            "<pre class=\"hl-code hl-x\"><span class=\"hl-keyword evil\">fn</span></pre>",
            "<div class=\"hl-keyword\"></div><!-- c -->"
        );
        let clean = sanitise(dirty);
        assert_eq!(
            clean,
            concat!(
                "<p class=\"steps\">a</p>",
                "<a rel=\"noopener noreferrer\">j</a><a href=\"https://x.y\" rel=\"noopener noreferrer\">h</a>",
                "<img src=\"x.png\" alt=\"i\">",
                "<pre class=\"hl-code\"><span class=\"hl-keyword\">fn</span></pre>",
                "<div></div>"
            )
        );
    }
}
