//! Stage `render`: one MDX body per surface from a minijinja template, built in or overridden
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

pub(crate) mod api;
pub(crate) mod blog;
pub(crate) mod changelog;

use domain::Surface;
use minijinja::value::{Serde, Value};
use minijinja::{AutoEscape, Environment, Error, ErrorKind};
use serde::Serialize;
use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::convert::{self, Links};
use crate::error::PipelineError;
use crate::extract::{Prose, Symbol, SymbolKind};
use crate::feature::Feature;
use crate::limits::Limits;
use crate::mdx;
use changelog::{Changelog, Entry, Release};

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

/// YAML frontmatter with the fields the contract requires.
pub(crate) fn frontmatter(
    title: &str,
    description: &str,
    feature: &str,
    surface: Surface,
    version: i64,
    commit: &str,
) -> String {
    format!(
        "---\ntitle: {}\ndescription: {}\nfeature: {}\nsurface: {}\nversion: {version}\nsource_commit: {}\n---\n",
        mdx::yaml_string(title),
        mdx::yaml_string(description),
        mdx::yaml_string(feature),
        mdx::yaml_string(surface.as_str()),
        mdx::yaml_string(commit),
    )
}

/// Everything a template can use.
#[derive(Debug, Serialize)]
pub(crate) struct Context<'a> {
    pub feature: &'a Feature,
    pub surface: &'static str,
    pub version: i64,
    pub title: String,
    pub description: String,
    pub commit: &'a str,
    pub short_commit: String,
    /// Date of the source commit, `YYYY-MM-DD` (UTC).
    pub date: String,
    pub since_commit: Option<&'a str>,
    pub since_short: Option<String>,
    pub range_label: String,
    pub files: Vec<&'a str>,
    pub symbol_count: usize,
    pub symbol_groups: &'a [SymbolGroup<'a>],
    /// The developer docs' layout: modules, their types with members beneath, functions.
    pub modules: Vec<api::ModuleView<'a>>,
    pub prose: &'a [Prose],
    /// The listed changelog entries (left-out commits are not here), newest first.
    pub commits: &'a [Entry],
    /// The whole range as one changelog.
    pub changelog: &'a Changelog,
    /// One section per release, newest first ("Unreleased" first when commits follow the
    /// newest release tag).
    pub releases: &'a [Release],
    /// The blog post's parts; none when the newest release lists nothing.
    pub post: Option<&'a blog::Post<'a>>,
    pub highlights: Vec<&'a Entry>,
    pub contributors: Vec<&'a str>,
    pub steps: Vec<StepView<'a>>,
    pub capture_grounded: bool,
    /// The document a walkthrough was derived from, when the manifest gives no steps.
    pub steps_source: Option<&'a str>,
}

#[derive(Debug, Serialize)]
pub(crate) struct SymbolGroup<'a> {
    pub kind: SymbolKind,
    pub title: &'static str,
    pub symbols: Vec<&'a Symbol>,
}

#[derive(Clone, Debug, Serialize)]
pub(crate) struct StepView<'a> {
    pub number: usize,
    pub title: &'a str,
    /// Markdown.
    pub body: &'a str,
    /// The repository file the body comes from, against which its relative links resolve:
    /// the document a walkthrough was derived from, or `""` (the repository root) for the
    /// manifest's steps.
    pub source: &'a str,
    /// The capture's repository path, as declared.
    pub capture: Option<String>,
    /// URL of the image when the capture exists (`convert::Links::file`).
    pub image: Option<String>,
}

pub(crate) fn group_symbols(symbols: &[Symbol]) -> Vec<SymbolGroup<'_>> {
    let mut kinds: Vec<SymbolKind> = symbols.iter().map(|s| s.kind).collect();
    kinds.sort();
    kinds.dedup();
    kinds
        .into_iter()
        .map(|kind| {
            let mut members: Vec<&Symbol> = symbols.iter().filter(|s| s.kind == kind).collect();
            members.sort_by(|a, b| a.name.cmp(&b.name).then(a.path.cmp(&b.path)));
            SymbolGroup {
                kind,
                title: kind.heading(),
                symbols: members,
            }
        })
        .collect()
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
    if !crate::validate::url_is_allowed(url) {
        return "#".into();
    }
    utf8_percent_encode(url, UNSAFE).to_string()
}

/// `YYYY-MM-DD` (UTC) of a Unix time.
pub(crate) fn date(unix_seconds: i64) -> String {
    // Howard Hinnant's civil-from-days.
    let days = unix_seconds.div_euclid(86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

/// The text with its first letter upper case, as git-cliff's `upper_first` (`add CSV export`
/// → `Add CSV export`), unless its first word is code a reader would type as is
/// (`kv::std_support`, `fooBar`, `snake_case`, `--flag`).
pub(crate) fn upper_first(text: &str) -> String {
    let text = text.trim();
    let word = text.split_whitespace().next().unwrap_or("");
    let plain_word = word
        .trim_end_matches([',', ':', ';', '.'])
        .chars()
        .all(|c| c.is_lowercase() || c == '-' || c == '\'');
    let mut chars = text.chars();
    match chars.next() {
        Some(first) if plain_word && first.is_lowercase() => {
            first.to_uppercase().chain(chars).collect()
        }
        _ => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn upper_first_leaves_code_alone() {
        assert_eq!(upper_first("add CSV export"), "Add CSV export");
        assert_eq!(upper_first("  éclair support"), "Éclair support");
        assert_eq!(
            upper_first("drop-in parser, faster"),
            "Drop-in parser, faster"
        );
        for code in [
            "kv::std_support may go",
            "fooBar is gone",
            "snake_case it",
            "--quiet",
            "`x` now",
        ] {
            assert_eq!(upper_first(code), code);
        }
        assert_eq!(upper_first(""), "");
    }

    #[test]
    fn dates() {
        assert_eq!(date(0), "1970-01-01");
        assert_eq!(date(1_700_000_000), "2023-11-14");
        assert_eq!(date(951_782_400), "2000-02-29");
    }

    #[test]
    fn tidy_keeps_code_blocks() {
        assert_eq!(tidy("a\n\n\n\nb\n```\n\n\n```\n"), "a\n\nb\n```\n\n\n```");
    }
}
