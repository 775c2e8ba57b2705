//! Stage `validate`: every body must parse as MDX with frontmatter, exactly as an MDX docs
//! site will read it, and must hold nothing that runs when a site compiles it: no ESM, no
//! expression other than a comment, no JSX outside [`ALLOWED_COMPONENTS`], no attribute
//! value that is an expression, no URL whose scheme is not http(s) or mailto. The check reads
//! what the service itself wrote as well as the output of repository templates.

use domain::Surface;
use markdown::mdast::{AttributeContent, AttributeValue, Node};
use markdown::message::Place;
use markdown::{Constructs, MdxSignal, ParseOptions};

use super::nesting;
use crate::error::{MdxError, PipelineError};
use crate::limits::Limits;

/// The JSX components an article may contain, each with the attributes it may carry (all
/// quoted strings): exactly what the built-in templates emit, plus the usual callouts, plus
/// the HTML elements that repository Markdown keeps when converted (`render/mdx/convert/`: collapsible
/// `<details>`, line breaks, keys, super- and subscripts, inline emphasis), none of them with
/// an attribute that could run or load anything.
pub const ALLOWED_COMPONENTS: &[(&str, &[&str])] = &[
    ("Steps", &[]),
    ("Step", &["title"]),
    ("Frame", &["caption"]),
    ("img", &["src", "alt"]),
    ("Update", &["label", "description"]),
    ("Note", &[]),
    ("Warning", &[]),
    ("Tip", &[]),
    // The developer docs' anchors (`<a id="pkg-Type-method" />`).
    ("a", &["id"]),
    ("details", &[]),
    ("summary", &[]),
    ("br", &[]),
    ("b", &[]),
    ("strong", &[]),
    ("i", &[]),
    ("em", &[]),
    ("kbd", &[]),
    ("sup", &[]),
    ("sub", &[]),
    ("s", &[]),
    ("del", &[]),
    ("ins", &[]),
    ("mark", &[]),
    ("small", &[]),
    ("u", &[]),
    ("code", &[]),
];

/// Attributes holding a URL, checked with [`url_is_allowed`].
const URL_ATTRIBUTES: &[&str] = &["src"];

fn options() -> ParseOptions {
    ParseOptions {
        constructs: Constructs {
            frontmatter: true,
            gfm_table: true,
            ..Constructs::mdx()
        },
        // markdown-rs only recognises `import`/`export` blocks when given an ESM parser; any
        // such block is refused, so accepting every one as complete is enough to find it.
        mdx_esm_parse: Some(Box::new(|_| MdxSignal::Ok)),
        ..ParseOptions::mdx()
    }
}

/// Why a body is not published.
enum Refusal {
    TooDeep { line: usize },
    Invalid(MdxError),
    Unsafe(MdxError),
}

/// Why [`parse_mdx`] gave no tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseRefusal {
    /// Nested deeper than allowed, first at this 1-based line: refused before parsing.
    TooDeep { line: usize },
    /// Not MDX that markdown-rs reads.
    Invalid(MdxError),
}

impl From<ParseRefusal> for Refusal {
    fn from(refusal: ParseRefusal) -> Self {
        match refusal {
            ParseRefusal::TooDeep { line } => Refusal::TooDeep { line },
            ParseRefusal::Invalid(e) => Refusal::Invalid(e),
        }
    }
}

/// Reads a body into its tree exactly as stage validate does (MDX with frontmatter and GFM
/// tables, `import`/`export` blocks as ESM nodes), after refusing nesting deeper than
/// `max_depth`: markdown-rs takes time quadratic in the depth and drops a tree recursively,
/// so this is the one way to parse an article that may come from an untrusted repository.
/// A tree that passed the check is at most `max_depth` (plus a few) levels deep.
pub fn parse_mdx(body: &str, max_depth: usize) -> Result<Node, ParseRefusal> {
    nesting::check(body, max_depth).map_err(|e| ParseRefusal::TooDeep { line: e.line })?;
    markdown::to_mdast(body, &options()).map_err(|message| {
        let (line, column) = match message.place.as_deref() {
            Some(Place::Point(p)) => (p.line, p.column),
            Some(Place::Position(p)) => (p.start.line, p.start.column),
            None => (0, 0),
        };
        ParseRefusal::Invalid(MdxError {
            message: message.reason,
            line,
            column,
        })
    })
}

/// Checks a body as the run does, with the default [`Limits`]: nesting, MDX syntax with
/// frontmatter and GFM tables, and the safety rules of this module.
pub fn validate_mdx(body: &str) -> Result<(), MdxError> {
    let max_depth = Limits::default().max_nesting_depth;
    inspect(body, max_depth).map_err(|refusal| match refusal {
        Refusal::TooDeep { line } => MdxError {
            message: format!("nested more than {max_depth} levels deep (max_nesting_depth)"),
            line,
            column: 1,
        },
        Refusal::Invalid(e) | Refusal::Unsafe(e) => e,
    })
}

/// The run's check of one generated article.
pub(crate) fn check_article(
    surface: Surface,
    body: &str,
    limits: &Limits,
) -> Result<(), PipelineError> {
    let max = limits.max_nesting_depth;
    inspect(body, max).map_err(|refusal| match refusal {
        Refusal::TooDeep { line } => PipelineError::LimitExceeded {
            what: format!("the nesting of the generated {surface} article"),
            limit: "max_nesting_depth",
            value: max as u64,
            detail: format!(
                "block quotes, lists, emphasis, links or JSX nested more than {max} levels deep at line {line}"
            ),
        },
        Refusal::Invalid(error) => PipelineError::InvalidMdx { surface, error },
        Refusal::Unsafe(error) => PipelineError::UnsafeMdx { surface, error },
    })
}

fn inspect(body: &str, max_depth: usize) -> Result<(), Refusal> {
    let root = parse_mdx(body, max_depth)?;
    refuse_unsafe(root).map_err(Refusal::Unsafe)
}

/// Walks the tree in document order and takes it apart as it goes, so that it is never
/// dropped recursively.
fn refuse_unsafe(root: Node) -> Result<(), MdxError> {
    let mut stack = vec![root];
    let mut first_error = None;
    while let Some(mut node) = stack.pop() {
        if first_error.is_none()
            && let Err(message) = judge(&node)
        {
            let (line, column) = node
                .position()
                .map_or((0, 0), |p| (p.start.line, p.start.column));
            first_error = Some(MdxError {
                message,
                line,
                column,
            });
        }
        if let Some(children) = node.children_mut() {
            stack.extend(children.drain(..).rev());
        }
    }
    first_error.map_or(Ok(()), Err)
}

fn judge(node: &Node) -> Result<(), String> {
    match node {
        Node::MdxjsEsm(_) => Err("an import or export (ESM) is not allowed in an article".into()),
        Node::MdxFlowExpression(e) => comment_only(&e.value),
        Node::MdxTextExpression(e) => comment_only(&e.value),
        Node::MdxJsxFlowElement(e) => jsx(e.name.as_deref(), &e.attributes),
        Node::MdxJsxTextElement(e) => jsx(e.name.as_deref(), &e.attributes),
        Node::Link(l) => url(&l.url),
        Node::Image(i) => url(&i.url),
        Node::Definition(d) => url(&d.url),
        _ => Ok(()),
    }
}

/// `{/* … */}` is the only expression allowed: it renders nothing and runs nothing.
fn comment_only(value: &str) -> Result<(), String> {
    let inner = value
        .trim()
        .strip_prefix("/*")
        .and_then(|v| v.strip_suffix("*/"));
    match inner {
        Some(text) if !text.contains("*/") => Ok(()),
        _ => Err(format!(
            "the expression {{{}}} is not allowed in an article (only {{/* comments */}} are)",
            excerpt(value)
        )),
    }
}

fn jsx(name: Option<&str>, attributes: &[AttributeContent]) -> Result<(), String> {
    let Some(name) = name else {
        return Err("a JSX fragment <> is not allowed in an article".into());
    };
    let Some((_, allowed)) = ALLOWED_COMPONENTS.iter().find(|(n, _)| *n == name) else {
        return Err(format!(
            "the component {} is not allowed in an article (allowed: {})",
            excerpt(&format!("<{name}>")),
            ALLOWED_COMPONENTS
                .iter()
                .map(|(n, _)| *n)
                .collect::<Vec<_>>()
                .join(", ")
        ));
    };
    for attribute in attributes {
        let AttributeContent::Property(property) = attribute else {
            return Err(format!(
                "a spread attribute {{…}} on <{name}> is not allowed in an article"
            ));
        };
        let key = property.name.as_str();
        if !allowed.contains(&key) {
            return Err(format!(
                "the attribute {} on <{name}> is not allowed in an article",
                excerpt(key)
            ));
        }
        match &property.value {
            // markdown-rs decodes character references in attribute values as compilers do.
            Some(AttributeValue::Literal(value)) if URL_ATTRIBUTES.contains(&key) => url(value)?,
            Some(AttributeValue::Expression(_)) => {
                return Err(format!(
                    "the attribute {key} on <{name}> is an expression; only quoted values are allowed in an article"
                ));
            }
            Some(AttributeValue::Literal(_)) | None => {}
        }
    }
    Ok(())
}

fn url(url: &str) -> Result<(), String> {
    if url_is_allowed(url) {
        Ok(())
    } else {
        Err(format!(
            "the URL {} is not allowed in an article (only http, https, mailto and relative URLs are)",
            excerpt(url)
        ))
    }
}

/// A URL may be relative (no scheme) or use http, https or mailto. The scheme is read as a
/// browser reads it: tabs and newlines removed, leading spaces and control characters
/// ignored, and a `:` before any `/`, `?` or `#` ends a scheme.
pub fn url_is_allowed(url: &str) -> bool {
    let cleaned: String = url
        .trim_start_matches(|c: char| c <= ' ')
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect();
    let end = cleaned.find(['/', '?', '#']).unwrap_or(cleaned.len());
    match cleaned[..end].find(':') {
        None => true,
        Some(colon) => ["http", "https", "mailto"]
            .iter()
            .any(|scheme| cleaned[..colon].eq_ignore_ascii_case(scheme)),
    }
}

fn excerpt(text: &str) -> String {
    let flat: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let flat = flat.trim();
    if flat.chars().count() > 60 {
        format!("`{}…`", flat.chars().take(60).collect::<String>())
    } else {
        format!("`{flat}`")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(body: &str) -> MdxError {
        match inspect(body, 256) {
            Err(Refusal::Unsafe(e)) => e,
            Err(Refusal::Invalid(e)) => panic!("invalid rather than refused: {e}\n{body}"),
            Err(Refusal::TooDeep { .. }) => panic!("too deep\n{body}"),
            Ok(()) => panic!("accepted:\n{body}"),
        }
    }

    #[test]
    fn reports_position_of_broken_mdx() {
        assert!(validate_mdx("---\ntitle: x\n---\n\n# Hi {/* c */}\n").is_ok());
        let err = validate_mdx("# Title\n\nSee Vec<T> here\n").unwrap_err();
        assert_eq!(err.line, 3);
        assert!(err.column > 0);
        assert!(validate_mdx("<!-- html comment -->\n").is_err());
    }

    #[test]
    fn esm_is_refused() {
        let e = refused("---\ntitle: x\n---\n\nimport x from 'y'\n\n# Hi\n");
        assert_eq!((e.line, e.column), (5, 1));
        assert!(e.message.contains("ESM"), "{e}");
        refused("export const a = globalThis.X = 1\n");
    }

    #[test]
    fn expressions_other_than_comments_are_refused() {
        assert!(validate_mdx("a {/* fine */} b\n\n{/* also\nfine */}\n").is_ok());
        let e = refused("text {(globalThis.X=1)}\n");
        assert_eq!((e.line, e.column), (1, 6));
        refused("{globalThis.X=1}\n");
        refused("a {/* x */ globalThis.X=1 /* y */}\n");
        refused("# {1}\n");
    }

    #[test]
    fn jsx_is_limited_to_the_allow_list() {
        assert!(
            validate_mdx(
                "<Steps>\n<Step title=\"a\">\n\n<Frame>\n  <img src=\"/a.png\" alt=\"x\" />\n</Frame>\n\n</Step>\n</Steps>\n\n<Update label=\"2024-01-01\" description=\"3 commits\">\n\n<Note>\nx\n</Note>\n\n</Update>\n"
            )
            .is_ok()
        );
        assert!(
            refused("<script>alert(1)</script>\n")
                .message
                .contains("<script>")
        );
        refused("<Note onClick=\"alert(1)\">x</Note>\n");
        refused("<Step title={globalThis.X=1}>x</Step>\n");
        refused("<Note {...globalThis}>x</Note>\n");
        refused("<>x</>\n");
        refused("a <Foo.Bar /> b\n");
        refused("<img src=\"javascript:alert(1)\" alt=\"x\" />\n");
        refused("<img src=\"javascript&#58;alert(1)\" alt=\"x\" />\n");
    }

    #[test]
    fn urls_must_be_http_mailto_or_relative() {
        assert!(validate_mdx("[a](https://x.y) [b](mailto:a@b.c) [c](/docs/x) [d](#top) [e](../a:b) ![i](img.png)\n\n[r]: http://x.y\n").is_ok());
        refused("[x](javascript:alert(1))\n");
        refused("[x](JavaScript&#58;alert(1))\n");
        refused("[x](java\\script:alert(1))\n");
        refused("![x](data:image/svg+xml,abc)\n");
        refused("[x]\n\n[x]: vbscript:msgbox\n");
        assert!(!url_is_allowed(" \u{1}javascript:x"));
        assert!(!url_is_allowed("java\tscript:x"));
        assert!(url_is_allowed("HTTPS://x.y"));
        assert!(url_is_allowed("a/b:c"));
    }

    #[test]
    fn deep_trees_are_refused_before_parsing() {
        for body in [
            "> ".repeat(40_000),
            "- ".repeat(20_000),
            "a**".repeat(100_000),
        ] {
            let err = validate_mdx(&body).unwrap_err();
            assert!(err.message.contains("max_nesting_depth"), "{err}");
        }
        let limits = Limits {
            max_nesting_depth: 8,
            ..Limits::default()
        };
        let err = check_article(Surface::Blog, &"> ".repeat(9), &limits).unwrap_err();
        assert!(
            matches!(
                err,
                PipelineError::LimitExceeded {
                    limit: "max_nesting_depth",
                    value: 8,
                    ..
                }
            ),
            "{err}"
        );
        assert!(check_article(Surface::Blog, &"> ".repeat(7), &limits).is_ok());
    }

    #[test]
    fn a_deep_tree_within_the_limit_is_taken_apart_without_recursion() {
        // Deeper than a recursive drop survives on a small stack.
        let body = "> ".repeat(5_000);
        let handle = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(move || inspect(&body, 10_000).is_ok())
            .unwrap();
        assert!(handle.join().unwrap());
    }
}
