//! An article's MDX to a framework's page body. The article is parsed as the published site
//! parses it (`pipeline::parse_mdx`, with its nesting bound) and written back from its own
//! source: every part that needs no change is copied as written, so what the pipeline escaped
//! stays escaped. Changed: the frontmatter (the framework writes its own), our components
//! where the framework has others, image sources (to the export's copy, or the alt text when
//! the repository cannot give the file), links between articles, and, for MkDocs, text (in
//! Python-Markdown's escaping) and JSX (to Markdown and HTML).
//!
//! | ours | Mintlify | Starlight | Docusaurus | MkDocs Material |
//! |---|---|---|---|---|
//! | `<Steps>`/`<Step title>` | as is | `<Steps>` over an ordered list | a `##` heading per step | a `##` heading per step |
//! | `<Note>`, `<Tip>`, `<Warning>`, `<Info>`, `<Check>` | as is | `:::note`, `:::tip`, `:::caution` asides | `:::note`, `:::tip`, `:::warning`, `:::info` admonitions | `!!! note`, … admonitions |
//! | `<Frame>` | as is | its image | its image | its image |
//! | `<Update label description>` | as is | a `##` heading, the entry's headings one level down | same | same |
//! | `<img>` | a Markdown image | same | same | same |
//!
//! An article that cannot be parsed (never stored by a run: stage validate refuses it) is
//! written as its source in a code block under a notice, so the site still builds.

use std::collections::HashMap;

use markdown::mdast::{AttributeContent, AttributeValue, Node};
use pipeline::Limits;

use crate::paths::destination;
use crate::text::escape;
use crate::{Format, ImageTarget, PageContext, is_mdx};

/// The callouts: our component, then Docusaurus's, Starlight's and MkDocs's kind, and the
/// title to show when the kind's own differs.
const CALLOUTS: &[(&str, &str, &str, &str, Option<&str>)] = &[
    ("Note", "note", "note", "note", None),
    ("Tip", "tip", "tip", "tip", None),
    ("Warning", "warning", "caution", "warning", None),
    ("Info", "info", "note", "info", None),
    ("Check", "tip", "tip", "success", Some("Check")),
];

/// The article's frontmatter `description`.
pub(crate) fn description(mdx: &str) -> Option<String> {
    let (front, _) = pipeline::Frontmatter::split(mdx)?;
    let yaml = front.strip_prefix("---\n")?.strip_suffix("---\n")?;
    pipeline::Frontmatter::fields(yaml)
        .into_iter()
        .find(|(key, _)| key == "description")
        .map(|(_, value)| value)
}

/// The body of the page for `mdx` (without frontmatter).
pub(crate) fn convert(mdx: &str, context: &mut PageContext<'_>) -> String {
    let limits = Limits::default();
    let parsed = if mdx.len() > limits.max_article_bytes {
        Err("it is too large".to_owned())
    } else {
        pipeline::parse_mdx(mdx, limits.max_nesting_depth).map_err(|e| match e {
            pipeline::ParseRefusal::TooDeep { line } => format!("it nests too deep at line {line}"),
            pipeline::ParseRefusal::Invalid(e) => format!("it is not valid MDX ({e})"),
        })
    };
    let root = match parsed {
        Ok(root) => root,
        Err(reason) => return unreadable(mdx, &reason, context.format()),
    };
    let mut writer = Writer {
        src: mdx,
        format: context.format(),
        context,
        out: String::with_capacity(mdx.len() + mdx.len() / 8),
        heading_shift: 0,
        definitions: HashMap::new(),
        starlight_steps: false,
    };
    collect_definitions(&root, &mut writer.definitions);
    writer.root(&root);
    let mut body = std::mem::take(&mut writer.out);
    if writer.starlight_steps {
        body = format!("import {{ Steps }} from \"@astrojs/starlight/components\";\n\n{body}");
    }
    body
}

fn unreadable(mdx: &str, reason: &str, format: Format) -> String {
    let fence = "`".repeat(longest_run(mdx, '`').max(2) + 1);
    let shown = if mdx.len() <= Limits::default().max_article_bytes {
        mdx
    } else {
        ""
    };
    format!(
        "{}\n\n{fence}mdx\n{shown}\n{fence}\n",
        escape(
            &format!("This article cannot be exported as a page: {reason}."),
            is_mdx(format)
        )
    )
}

fn longest_run(text: &str, c: char) -> usize {
    let (mut best, mut run) = (0, 0);
    for ch in text.chars() {
        run = if ch == c { run + 1 } else { 0 };
        best = best.max(run);
    }
    best
}

struct Writer<'s, 'c, 'l> {
    src: &'s str,
    format: Format,
    context: &'c mut PageContext<'l>,
    out: String,
    /// Levels added to headings (inside a changelog entry turned into a heading).
    heading_shift: u8,
    definitions: HashMap<String, String>,
    /// Starlight's `<Steps>` is used: the page imports it.
    starlight_steps: bool,
}

/// A node's byte range in the source.
fn span(node: &Node) -> Option<(usize, usize)> {
    node.position().map(|p| (p.start.offset, p.end.offset))
}

impl Writer<'_, '_, '_> {
    fn copy(&mut self, start: usize, end: usize) {
        if let Some(text) = self.src.get(start..end) {
            self.out.push_str(text);
        }
    }

    /// The root: the frontmatter left out (the framework's is written instead).
    fn root(&mut self, root: &Node) {
        let children = root.children().map(Vec::as_slice).unwrap_or_default();
        let body: Vec<&Node> = children
            .iter()
            .filter(|c| !matches!(c, Node::Yaml(_) | Node::Toml(_)))
            .collect();
        self.sequence(&body);
    }

    /// Nodes in order, with the source between them copied.
    fn sequence(&mut self, nodes: &[&Node]) {
        let mut cursor = None;
        for node in nodes {
            match (cursor, span(node)) {
                (Some(at), Some((start, _))) if start >= at => self.copy(at, start),
                (Some(_), _) => self.out.push_str("\n\n"),
                (None, _) => {}
            }
            self.node(node);
            cursor = span(node).map(|(_, end)| end);
        }
    }

    fn children(&mut self, children: &[Node]) {
        let nodes: Vec<&Node> = children.iter().collect();
        self.sequence(&nodes);
    }

    /// A node written as in the source, its children converted.
    fn splice(&mut self, node: &Node) {
        let Some((start, end)) = span(node) else {
            if let Some(children) = node.children() {
                self.children(children);
            }
            return;
        };
        let mut cursor = start;
        for child in node.children().map(Vec::as_slice).unwrap_or_default() {
            if let Some((child_start, child_end)) = span(child) {
                self.copy(cursor, child_start);
                self.node(child);
                cursor = child_end;
            }
        }
        self.copy(cursor, end);
    }

    fn node(&mut self, node: &Node) {
        let mdx = is_mdx(self.format);
        match node {
            Node::Yaml(_) | Node::Toml(_) | Node::MdxjsEsm(_) => {}
            Node::Text(text) if !mdx => self.out.push_str(&escape(&text.value, false)),
            Node::Heading(heading) if self.heading_shift > 0 => {
                let depth = heading.depth.saturating_add(self.heading_shift).min(6);
                self.out.push_str(&"#".repeat(usize::from(depth)));
                self.out.push(' ');
                self.children(&heading.children);
            }
            Node::Paragraph(p) if self.format != Format::Mintlify && holds_block(&p.children) => {
                // A component written on one line is a paragraph's text in MDX; where it
                // becomes Markdown blocks, it stands as blocks of its own.
                for child in &p.children {
                    if matches!(child, Node::MdxJsxTextElement(e) if e.name.as_deref().is_some_and(is_block_component))
                    {
                        self.out.push_str("\n\n");
                        self.node(child);
                        self.out.push_str("\n\n");
                    } else {
                        self.node(child);
                    }
                }
            }
            Node::Link(link) => {
                if !pipeline::url_is_allowed(&link.url) {
                    self.children(&link.children);
                } else if let Some(url) = self.context.link(&link.url) {
                    self.out.push('[');
                    self.children(&link.children);
                    self.out.push_str("](");
                    self.out.push_str(&destination(&url));
                    self.out.push(')');
                } else {
                    self.splice(node);
                }
            }
            Node::Definition(definition) => match self.context.link(&definition.url) {
                Some(url) => {
                    let label = definition
                        .label
                        .as_deref()
                        .unwrap_or(&definition.identifier);
                    self.out
                        .push_str(&format!("[{label}]: {}", destination(&url)));
                }
                None => self.splice(node),
            },
            Node::Image(image) => self.image(&image.url, &image.alt, Some(node)),
            Node::ImageReference(reference) => {
                match self.definitions.get(&reference.identifier).cloned() {
                    Some(url) => self.image(&url, &reference.alt, None),
                    None => self.alt(&reference.alt),
                }
            }
            Node::MdxJsxFlowElement(e) => {
                self.element(node, e.name.as_deref(), &e.attributes, &e.children)
            }
            Node::MdxJsxTextElement(e) => {
                self.element(node, e.name.as_deref(), &e.attributes, &e.children)
            }
            // Comments are the only expressions an article holds; Python-Markdown has none.
            Node::MdxFlowExpression(_) | Node::MdxTextExpression(_) if !mdx => {}
            _ => self.splice(node),
        }
    }

    /// An image: the export's copy, another site's image as written, or the alt text.
    fn image(&mut self, src: &str, alt: &str, node: Option<&Node>) {
        match self.context.image(src) {
            ImageTarget::Exported(url) => self.markdown_image(alt, &url),
            ImageTarget::Remote => match node {
                Some(node) => self.splice(node),
                None => self.markdown_image(alt, src.trim()),
            },
            ImageTarget::Missing => self.alt(alt),
        }
    }

    fn markdown_image(&mut self, alt: &str, url: &str) {
        let alt = escape(alt, is_mdx(self.format));
        self.out
            .push_str(&format!("![{alt}]({})", destination(url)));
    }

    fn alt(&mut self, alt: &str) {
        if !alt.trim().is_empty() {
            let alt = escape(alt.trim(), is_mdx(self.format));
            self.out.push_str(&alt);
        }
    }

    fn element(
        &mut self,
        node: &Node,
        name: Option<&str>,
        attributes: &[AttributeContent],
        children: &[Node],
    ) {
        let Some(name) = name else {
            return self.children(children);
        };
        let native = self.format == Format::Mintlify;
        if let Some(callout) = CALLOUTS.iter().find(|c| c.0 == name) {
            return if native {
                self.splice(node)
            } else {
                self.callout(callout, children)
            };
        }
        match name {
            "img" => {
                if let Some(src) = literal(attributes, "src") {
                    self.image(src, literal(attributes, "alt").unwrap_or(""), None);
                }
            }
            "Steps" | "Step" | "Frame" | "Update" if native => self.splice(node),
            "Steps" if self.format == Format::Starlight => self.starlight_steps(children),
            "Steps" => self.heading_steps(children),
            "Step" => {
                // A step outside `<Steps>`: its title heads its content.
                self.heading(2, literal(attributes, "title").unwrap_or("Step"));
                self.children(children);
            }
            "Frame" => {
                if let Some(src) = literal(attributes, "src") {
                    let alt = literal(attributes, "alt").or(literal(attributes, "caption"));
                    self.image(src, alt.unwrap_or(""), None);
                    self.out.push_str("\n\n");
                }
                self.children(children);
                if let Some(caption) =
                    literal(attributes, "caption").filter(|c| !c.trim().is_empty())
                {
                    let caption = escape(caption, is_mdx(self.format));
                    self.out.push_str(&format!("\n\n_{caption}_"));
                }
            }
            "Update" => self.update(attributes, children),
            "a" if self.format == Format::MkdocsMaterial => {
                if let Some(id) = literal(attributes, "id").filter(|id| is_plain_id(id)) {
                    self.out.push_str(&format!("<a id=\"{id}\"></a>"));
                }
                self.children(children);
            }
            _ if is_mdx(self.format) => self.splice(node),
            // Python-Markdown keeps inline HTML; its content is Markdown again only inside
            // blocks marked so (`md_in_html`).
            tag if is_phrasing(tag) => {
                let block = matches!(node, Node::MdxJsxFlowElement(_));
                if block {
                    self.out.push_str(&format!("<{tag} markdown>\n\n"));
                    self.children(children);
                    self.out.push_str(&format!("\n\n</{tag}>"));
                } else {
                    self.out.push_str(&format!("<{tag}>"));
                    self.children(children);
                    self.out.push_str(&format!("</{tag}>"));
                }
            }
            "br" => self.out.push_str("<br>"),
            _ => self.children(children),
        }
    }

    fn heading(&mut self, depth: u8, title: &str) {
        let depth = depth.saturating_add(self.heading_shift).min(6);
        let title = escape(title, is_mdx(self.format));
        self.out
            .push_str(&format!("{} {title}\n\n", "#".repeat(usize::from(depth))));
    }

    /// `children` written into a buffer of their own, for indenting.
    fn detached(&mut self, children: &[Node]) -> String {
        let outer = std::mem::take(&mut self.out);
        self.children(children);
        std::mem::replace(&mut self.out, outer)
    }

    fn callout(&mut self, callout: &(&str, &str, &str, &str, Option<&str>), children: &[Node]) {
        let (_, docusaurus, starlight, mkdocs, title) = *callout;
        let content = self.detached(children);
        let content = content.trim();
        match self.format {
            Format::MkdocsMaterial => {
                let title = title.map(|t| format!(" \"{t}\"")).unwrap_or_default();
                self.out.push_str(&format!("!!! {mkdocs}{title}\n\n"));
                self.out.push_str(&indent(content, 4));
            }
            _ => {
                let kind = if self.format == Format::Starlight {
                    starlight
                } else {
                    docusaurus
                };
                let title = title.map(|t| format!("[{t}]")).unwrap_or_default();
                let fence = ":".repeat(3 + longest_fence(content));
                self.out
                    .push_str(&format!("{fence}{kind}{title}\n\n{content}\n\n{fence}"));
            }
        }
    }

    /// Steps as headings, numbered (Docusaurus and MkDocs have no steps of their own).
    fn heading_steps(&mut self, children: &[Node]) {
        let mut number = 0;
        let mut first = true;
        for child in children {
            if !first {
                self.out.push_str("\n\n");
            }
            first = false;
            match child {
                Node::MdxJsxFlowElement(step) if step.name.as_deref() == Some("Step") => {
                    number += 1;
                    let title = literal(&step.attributes, "title").unwrap_or("");
                    self.heading(2, &format!("{number}. {title}"));
                    self.children(&step.children);
                }
                other => self.node(other),
            }
        }
    }

    /// Starlight's `<Steps>`: one ordered list, each item the step's title then its content.
    fn starlight_steps(&mut self, children: &[Node]) {
        self.starlight_steps = true;
        self.out.push_str("<Steps>\n\n");
        let mut number = 0;
        for child in children {
            let Node::MdxJsxFlowElement(step) = child else {
                continue;
            };
            if step.name.as_deref() != Some("Step") {
                continue;
            }
            number += 1;
            let marker = format!("{number}. ");
            let title = escape(literal(&step.attributes, "title").unwrap_or(""), true);
            let content = self.detached(&step.children);
            self.out.push_str(&format!("{marker}{title}\n\n"));
            let content = content.trim();
            if !content.is_empty() {
                self.out.push_str(&indent(content, marker.len()));
                self.out.push_str("\n\n");
            }
        }
        self.out.push_str("</Steps>");
    }

    /// A changelog entry as a heading and its description, its own headings one level down.
    fn update(&mut self, attributes: &[AttributeContent], children: &[Node]) {
        self.heading(2, literal(attributes, "label").unwrap_or(""));
        if let Some(description) = literal(attributes, "description").filter(|d| !d.is_empty()) {
            let description = escape(description, is_mdx(self.format));
            self.out.push_str(&format!("_{description}_\n\n"));
        }
        self.heading_shift = self.heading_shift.saturating_add(1);
        self.children(children);
        self.heading_shift = self.heading_shift.saturating_sub(1);
    }
}

/// `text` with every non-empty line indented by `n` spaces.
fn indent(text: &str, n: usize) -> String {
    let pad = " ".repeat(n);
    text.lines()
        .map(|line| {
            if line.trim().is_empty() {
                String::new()
            } else {
                format!("{pad}{line}")
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The longest run of `:` beyond two at a line's start in `content` (a nested admonition),
/// so that the outer fence is longer.
fn longest_fence(content: &str) -> usize {
    content
        .lines()
        .map(|l| l.trim_start().chars().take_while(|c| *c == ':').count())
        .filter(|n| *n >= 3)
        .map(|n| n - 2)
        .max()
        .unwrap_or(0)
}

/// A literal attribute's value; expressions (never written by the service) count as absent.
fn literal<'n>(attributes: &'n [AttributeContent], key: &str) -> Option<&'n str> {
    attributes.iter().find_map(|attribute| match attribute {
        AttributeContent::Property(p) if p.name == key => match &p.value {
            Some(AttributeValue::Literal(value)) => Some(value.as_str()),
            _ => None,
        },
        _ => None,
    })
}

fn is_block_component(name: &str) -> bool {
    CALLOUTS.iter().any(|c| c.0 == name) || matches!(name, "Steps" | "Step" | "Frame" | "Update")
}

fn holds_block(children: &[Node]) -> bool {
    children.iter().any(|child| {
        matches!(child, Node::MdxJsxTextElement(e) if e.name.as_deref().is_some_and(is_block_component))
    })
}

fn is_phrasing(tag: &str) -> bool {
    matches!(
        tag,
        "b" | "strong"
            | "i"
            | "em"
            | "kbd"
            | "sup"
            | "sub"
            | "s"
            | "del"
            | "ins"
            | "mark"
            | "small"
            | "u"
            | "code"
            | "details"
            | "summary"
    )
}

fn is_plain_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 128
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ':'))
}

fn collect_definitions(node: &Node, definitions: &mut HashMap<String, String>) {
    if let Node::Definition(d) = node {
        definitions
            .entry(d.identifier.clone())
            .or_insert_with(|| d.url.clone());
    }
    if let Some(children) = node.children() {
        for child in children {
            collect_definitions(child, definitions);
        }
    }
}
