//! One MDX body per surface from a minijinja template, built in or overridden
//! by `.content-pipeline/templates/<surface>.mdx.j2`. Every value a template prints is
//! escaped for MDX unless a filter made it safe (`code`, `code_block`, `attr`, `markdown`,
//! `comment`), so a repository's own template cannot produce broken MDX by accident.
//!
//! Evaluation is bounded: minijinja fuel ([`Limits::max_template_fuel`]) caps the
//! instructions, and the output goes to a writer that fails past
//! [`Limits::max_article_bytes`]; a printed value larger than that is refused before it is
//! copied. minijinja itself refuses a repeated string over 100 MB and a `range` over 100,000
//! items. What a template builds without printing it (`~` in a loop, `{% set %}` blocks,
//! macro output) is bounded only by the fuel and by the run's process limits.

use domain::Surface;
use minijinja::value::{Serde, Value};
use minijinja::{AutoEscape, Environment, Error, ErrorKind};
use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use super::context::Context;
use super::mdx::convert::{self, Links};
use super::mdx::{self, validate};
use super::text::upper_first;
use crate::error::PipelineError;
use crate::limits::Limits;

/// Macro recursion deep enough for any documentation template; each level can double what
/// a template builds in memory.
const RECURSION_LIMIT: usize = 32;

pub(crate) fn template_path(surface: Surface) -> String {
    format!(".content-pipeline/templates/{}.mdx.j2", surface.as_str())
}

fn builtin(surface: Surface) -> &'static str {
    match surface {
        Surface::DevDocs => include_str!("templates/dev-docs.mdx.j2"),
        Surface::Changelog => include_str!("templates/changelog.mdx.j2"),
        Surface::HelpCenter => include_str!("templates/help-center.mdx.j2"),
        Surface::Blog => include_str!("templates/blog.mdx.j2"),
    }
}

/// The templates of one run.
pub(crate) struct Renderer {
    env: Environment<'static>,
    max_bytes: usize,
    fuel: u64,
    /// Set by the formatter when a single printed value is larger than the article may be.
    oversized: Arc<AtomicBool>,
}

impl Renderer {
    /// `overrides`: (surface, template source) read from the repository.
    /// `links`: where converted Markdown points for the repository's files.
    pub fn new(
        overrides: Vec<(Surface, String)>,
        limits: &Limits,
        links: Links,
    ) -> Result<Self, PipelineError> {
        let mut env = Environment::new();
        let max_bytes = limits.max_article_bytes;
        let oversized = Arc::new(AtomicBool::new(false));
        let syntax = minijinja::syntax::SyntaxConfig::builder()
            .trim_blocks(true)
            .lstrip_blocks(true)
            .build()
            .map_err(|e| PipelineError::InvalidTemplate(e.to_string()))?;
        env.set_syntax(syntax);
        env.set_fuel(Some(limits.max_template_fuel));
        env.set_recursion_limit(RECURSION_LIMIT);
        env.set_auto_escape_callback(|_| AutoEscape::Custom("mdx".into()));
        let flag = Arc::clone(&oversized);
        env.set_formatter(move |out, _state, value| {
            if value.is_undefined() || value.is_none() {
                return Ok(());
            }
            if value.as_str().is_some_and(|s| s.len() > max_bytes) {
                flag.store(true, Ordering::Relaxed);
                return Err(Error::new(
                    ErrorKind::WriteFailure,
                    "a printed value is larger than an article may be",
                ));
            }
            let text = if value.is_safe() {
                value.to_string()
            } else {
                mdx::escape_text(&value.to_string())
            };
            out.write_str(&text).map_err(Error::from)
        });
        env.add_filter("upper_first", |s: String| upper_first(&s));
        env.add_filter("code", |s: String| {
            Value::from_safe_string(mdx::code_span(&s))
        });
        env.add_filter("code_block", |s: String, language: Option<String>| {
            Value::from_safe_string(mdx::code_block(&s, language.as_deref().unwrap_or("")))
        });
        env.add_filter("attr", |s: String| {
            Value::from_safe_string(mdx::jsx_attribute(&s))
        });
        // `markdown(path, level)`: Markdown read from the repository file `path` (relative
        // links resolve against it; the repository root when omitted), its headings starting
        // at `level` (3: under the article's `##` sections).
        env.add_filter(
            "markdown",
            move |s: String, path: Option<String>, level: Option<usize>| {
                Value::from_safe_string(convert::markdown_to_mdx(
                    &s,
                    path.as_deref().unwrap_or(""),
                    &links,
                    level.unwrap_or(3),
                ))
            },
        );
        env.add_filter("cell", |value: Value| {
            Value::from_safe_string(table_cell(&value))
        });
        env.add_filter("comment", |s: String| {
            Value::from_safe_string(mdx::mdx_comment(&s))
        });
        env.add_filter("url", |s: String| {
            Value::from_safe_string(link_destination(&s))
        });
        env.add_filter("link", |text: Value, url: Option<String>| {
            Value::from_safe_string(link(&text, url.as_deref()))
        });
        for surface in Surface::ALL {
            env.add_template(builtin_name(*surface), builtin(*surface))
                .map_err(|e| template_error(*surface, false, &e))?;
        }
        for (surface, source) in overrides {
            env.add_template_owned(override_name(surface), source)
                .map_err(|e| template_error(surface, true, &e))?;
        }
        Ok(Self {
            env,
            max_bytes,
            fuel: limits.max_template_fuel,
            oversized,
        })
    }

    pub fn is_overridden(&self, surface: Surface) -> bool {
        self.env.get_template(&override_name(surface)).is_ok()
    }

    /// The article body (without frontmatter).
    pub fn render(&self, surface: Surface, context: &Context) -> Result<String, PipelineError> {
        let overridden = self.is_overridden(surface);
        let name = if overridden {
            override_name(surface)
        } else {
            builtin_name(surface).to_string()
        };
        let template = self
            .env
            .get_template(&name)
            .map_err(|e| template_error(surface, overridden, &e))?;
        self.oversized.store(false, Ordering::Relaxed);
        let mut out = CappedWriter {
            bytes: Vec::new(),
            cap: self.max_bytes,
            exceeded: false,
        };
        let rendered = template.render_captured_to(Value::from(Serde(context)), &mut out);
        if out.exceeded || self.oversized.load(Ordering::Relaxed) {
            return Err(PipelineError::LimitExceeded {
                what: format!("the rendered {surface} article"),
                limit: "max_article_bytes",
                value: self.max_bytes as u64,
                detail: origin(surface, overridden),
            });
        }
        match rendered {
            Err(e) if e.kind() == ErrorKind::OutOfFuel => {
                return Err(PipelineError::LimitExceeded {
                    what: format!("the evaluation of the {surface} template"),
                    limit: "max_template_fuel",
                    value: self.fuel,
                    detail: origin(surface, overridden),
                });
            }
            Err(e) => return Err(template_error(surface, overridden, &e)),
            Ok(_) => {}
        }
        let body = String::from_utf8(out.bytes).map_err(|_| {
            PipelineError::InvalidTemplate(format!(
                "{}: the output is not valid UTF-8",
                origin(surface, overridden)
            ))
        })?;
        Ok(tidy(&body))
    }
}

/// Collects a template's output and fails once it grows past the cap, so that a template
/// cannot make the run hold more than one article's worth of output.
struct CappedWriter {
    bytes: Vec<u8>,
    cap: usize,
    exceeded: bool,
}

impl io::Write for CappedWriter {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        if self.bytes.len() + data.len() > self.cap {
            self.exceeded = true;
            return Err(io::Error::other("the article is too large"));
        }
        self.bytes.extend_from_slice(data);
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

fn builtin_name(surface: Surface) -> &'static str {
    match surface {
        Surface::DevDocs => "builtin/dev-docs.mdx.j2",
        Surface::Changelog => "builtin/changelog.mdx.j2",
        Surface::HelpCenter => "builtin/help-center.mdx.j2",
        Surface::Blog => "builtin/blog.mdx.j2",
    }
}

fn override_name(surface: Surface) -> String {
    template_path(surface)
}

fn origin(surface: Surface, overridden: bool) -> String {
    if overridden {
        template_path(surface)
    } else {
        format!("built-in {surface} template")
    }
}

fn template_error(surface: Surface, overridden: bool, e: &Error) -> PipelineError {
    let origin = origin(surface, overridden);
    let place = e.line().map(|l| format!(" (line {l})")).unwrap_or_default();
    let detail = e
        .detail()
        .map_or_else(|| e.kind().to_string(), str::to_string);
    PipelineError::InvalidTemplate(format!("{origin}{place}: {detail}"))
}

/// `[text](url)` when `url` is an http(s) address or a relative path (`./`, `../`, `/`),
/// else the text alone. The text is escaped
/// unless a filter made it safe (`code`); text with brackets is never linked, so that it
/// cannot end the link early.
fn link(text: &Value, url: Option<&str>) -> String {
    let text = if text.is_safe() {
        text.to_string()
    } else {
        mdx::escape_text(&text.to_string())
    };
    let web = url.filter(|u| {
        let lower = u.get(..8).unwrap_or(u).to_ascii_lowercase();
        lower.starts_with("https://")
            || lower.starts_with("http://")
            || u.starts_with("./")
            || u.starts_with("../")
            || (u.starts_with('/') && !u.starts_with("//"))
    });
    match web {
        Some(url) if !text.contains(['[', ']', '\n']) && !text.is_empty() => {
            format!("[{text}]({})", link_destination(url))
        }
        _ => text,
    }
}

/// A value as the content of a GFM table cell: escaped unless a filter made it safe, on one
/// line, its `|` escaped (a table splits its rows at `|`, even inside code, and unescapes
/// `\|` there too).
fn table_cell(value: &Value) -> String {
    let text = if value.is_safe() {
        value.to_string()
    } else {
        mdx::escape_text(&value.to_string())
    };
    text.split(['\n', '\r'])
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
        .replace('|', "\\|")
}

/// Collapses runs of blank lines that template control flow leaves behind.
fn tidy(body: &str) -> String {
    let mut out = String::with_capacity(body.len());
    let mut blank = 0;
    let mut fence: Option<String> = None;
    for line in body.lines() {
        let trimmed = line.trim_start();
        match &fence {
            Some(marker) => {
                if trimmed.starts_with(marker.as_str()) && trimmed.trim_end() == marker {
                    fence = None;
                }
            }
            None => {
                if trimmed.starts_with("```") {
                    fence = Some(trimmed.chars().take_while(|c| *c == '`').collect());
                }
            }
        }
        if fence.is_none() && line.trim().is_empty() {
            blank += 1;
            if blank > 1 {
                continue;
            }
        } else {
            blank = 0;
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out.trim().to_string()
}

/// A URL as the destination of a Markdown link (`[text](…)`): characters that would end it
/// or that MDX reads are percent-encoded; a URL of another scheme than http(s), mailto or
/// none becomes `#`.
fn link_destination(url: &str) -> String {
    use percent_encoding::{AsciiSet, CONTROLS, utf8_percent_encode};
    const UNSAFE: &AsciiSet = &CONTROLS
        .add(b' ')
        .add(b'(')
        .add(b')')
        .add(b'<')
        .add(b'>')
        .add(b'{')
        .add(b'}')
        .add(b'[')
        .add(b']')
        .add(b'\\')
        .add(b'`')
        .add(b'"');
    if !validate::url_is_allowed(url) {
        return "#".into();
    }
    utf8_percent_encode(url, UNSAFE).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_cells_are_one_line_without_a_bare_pipe() {
        assert_eq!(
            table_cell(&Value::from("a | b\n  <c>\n")),
            "a \\| b \\<c\\>"
        );
        assert_eq!(
            table_cell(&Value::from_safe_string("`a|b`".into())),
            "`a\\|b`"
        );
    }

    #[test]
    fn tidy_keeps_code_blocks() {
        assert_eq!(tidy("a\n\n\n\nb\n```\n\n\n```\n"), "a\n\nb\n```\n\n\n```");
    }
}
