//! The walk from an article's tree to HTML. Our components map to plain HTML: `<Steps>` an
//! ordered list whose items are headed by their titles, `<Frame>` a figure, `<Update>` a
//! section headed by its label (its own headings one level below), callouts asides with a
//! class per kind. Elements the service does not write render their children only, never
//! their attributes; `<script>` and `<style>` render nothing. Expressions and ESM are dropped:
//! nothing of an article ever runs.
//!
//! Every text is escaped here; the result still goes through the sanitiser (`html.rs`).
//! The tree is at most the nesting bound deep (`pipeline::parse_mdx`), so recursion is safe.

use std::collections::{HashMap, HashSet};
use std::fmt::Write;

use markdown::mdast::{AlignKind, AttributeContent, AttributeValue, Node};

use super::escape::escape_into;
use super::highlight;
use pipeline::article_files::repository_path;

/// The callouts: component, class, label.
const CALLOUTS: &[(&str, &str, &str)] = &[
    ("Note", "callout-note", "Note"),
    ("Warning", "callout-warning", "Warning"),
    ("Tip", "callout-tip", "Tip"),
    ("Info", "callout-info", "Info"),
    ("Check", "callout-check", "Check"),
];
/// Elements kept as themselves (what repository Markdown keeps as HTML, `pipeline`'s `render/mdx/convert/`).
const PHRASING: &[&str] = &[
    "b", "strong", "i", "em", "kbd", "sup", "sub", "s", "del", "ins", "mark", "small", "u", "code",
    "details", "summary",
];
/// Elements whose content is code for a browser, never text for a reader.
const SILENT: &[&str] = &["script", "style"];
const HEADINGS: [&str; 6] = ["h1", "h2", "h3", "h4", "h5", "h6"];
/// Longest anchor id kept from an `<a id>`.
const MAX_ID_CHARS: usize = 128;
/// Most sections an article's outline lists ("on this page"); a longer outline helps no one.
const MAX_OUTLINE: usize = 200;
/// Longest section title the outline keeps, in characters.
const MAX_OUTLINE_CHARS: usize = 120;

/// A section of the article, for its outline: a heading of level 2 or 3 (steps and changelog
/// updates are level 2).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Section {
    pub level: u8,
    pub id: String,
    pub title: String,
}

/// The state of one walk.
pub(super) struct Walk<'a> {
    pub out: String,
    pub front: Vec<(String, String)>,
    /// The sections of levels 2 and 3, in order (at most [`MAX_OUTLINE`]).
    pub outline: Vec<Section>,
    /// Repository paths of the images shown, in order of appearance, each once.
    pub referenced: Vec<String>,
    seen: HashSet<String>,
    file_url: &'a dyn Fn(&str) -> Option<String>,
    /// Link and image reference definitions: identifier → URL.
    definitions: HashMap<String, String>,
    /// Ids handed out, each with the next suffix to try for it.
    ids: pipeline::Anchors,
    highlight_budget: usize,
    /// Levels added to headings (inside an `<Update>`).
    heading_shift: u8,
}

impl<'a> Walk<'a> {
    /// `highlight_budget`: bytes of code to highlight (0 when only collecting references).
    pub fn new(file_url: &'a dyn Fn(&str) -> Option<String>, highlight_budget: usize) -> Self {
        Self {
            out: String::new(),
            front: Vec::new(),
            outline: Vec::new(),
            referenced: Vec::new(),
            seen: HashSet::new(),
            file_url,
            definitions: HashMap::new(),
            ids: pipeline::Anchors::default(),
            highlight_budget,
            heading_shift: 0,
        }
    }

    pub fn document(&mut self, root: &Node) {
        collect_definitions(root, &mut self.definitions);
        self.node(root);
    }

    fn nodes(&mut self, nodes: &[Node]) {
        for node in nodes {
            self.node(node);
        }
    }

    // The recursion runs through `node`, `nodes`, `wrap`, `paragraph`, `list`, `list_item`,
    // `table`, `link` and `element`, once per level of the tree: they only dispatch and write
    // tags, so that their frames stay small; text, code and attributes are written by
    // helpers outside that path.
    fn node(&mut self, node: &Node) {
        match node {
            Node::Root(root) => self.nodes(&root.children),
            Node::Yaml(yaml) => self.header(&yaml.value),
            Node::Paragraph(p) => self.paragraph(&p.children),
            Node::Heading(h) => {
                let depth = h.depth.saturating_add(self.heading_shift).clamp(1, 6);
                let id = self.open_heading(depth, &h.children);
                self.nodes(&h.children);
                self.heading_link(&id);
                self.close(HEADINGS[usize::from(depth - 1)]);
            }
            Node::Text(t) => self.text(&t.value),
            Node::Emphasis(e) => self.wrap("em", None, &e.children),
            Node::Strong(s) => self.wrap("strong", None, &s.children),
            Node::Delete(d) => self.wrap("del", None, &d.children),
            Node::InlineCode(c) => self.inline_code(&c.value),
            Node::InlineMath(m) => self.inline_code(&m.value),
            Node::Break(_) => self.out.push_str("<br>"),
            Node::ThematicBreak(_) => self.out.push_str("<hr>\n"),
            Node::Blockquote(q) => self.wrap("blockquote", None, &q.children),
            Node::Code(code) => self.code(&code.value, code.lang.as_deref().unwrap_or("")),
            Node::Math(m) => self.code(&m.value, ""),
            Node::List(list) => self.list(list),
            Node::ListItem(item) => self.list_item(&item.children, false),
            Node::Table(table) => self.table(&table.children, &table.align),
            Node::TableRow(row) => self.wrap("tr", None, &row.children),
            Node::TableCell(cell) => self.wrap("td", None, &cell.children),
            Node::Link(link) => self.link(&link.url, &link.children),
            Node::LinkReference(reference) => {
                match self.definitions.get(&reference.identifier).cloned() {
                    Some(url) => self.link(&url, &reference.children),
                    None => self.nodes(&reference.children),
                }
            }
            Node::Image(image) => self.image(&image.url, &image.alt),
            Node::ImageReference(reference) => {
                self.image_reference(&reference.identifier, &reference.alt)
            }
            Node::MdxJsxFlowElement(e) => {
                self.element(e.name.as_deref(), &e.attributes, &e.children)
            }
            Node::MdxJsxTextElement(e) => {
                self.element(e.name.as_deref(), &e.attributes, &e.children)
            }
            Node::FootnoteDefinition(f) => self.nodes(&f.children),
            // HTML is not a construct of MDX; should a tree hold some, it is text.
            Node::Html(h) => self.text(&h.value),
            // Nothing of these is shown: expressions and ESM never run, definitions are used
            // by references, TOML frontmatter is not what the service writes.
            Node::MdxjsEsm(_)
            | Node::MdxFlowExpression(_)
            | Node::MdxTextExpression(_)
            | Node::Definition(_)
            | Node::FootnoteReference(_)
            | Node::Toml(_) => {}
        }
    }

    /// A paragraph, unless it holds a component that is a block (a callout or a frame
    /// written on one line is a paragraph's text element in MDX, and a `<p>` cannot hold it);
    /// nothing when nothing of it is shown (an element that renders nothing).
    fn paragraph(&mut self, children: &[Node]) {
        let holds_block = children.iter().any(|child| {
            matches!(child, Node::MdxJsxTextElement(e) if e.name.as_deref().is_some_and(is_block_component))
        });
        if holds_block {
            self.nodes(children);
            self.out.push('\n');
            return;
        }
        let start = self.out.len();
        self.out.push_str("<p>");
        self.nodes(children);
        if self.out[start + 3..].trim().is_empty() {
            self.out.truncate(start);
        } else {
            self.out.push_str("</p>\n");
        }
    }

    fn wrap(&mut self, tag: &'static str, class: Option<&'static str>, children: &[Node]) {
        self.open(tag, class);
        self.nodes(children);
        self.close(tag);
    }

    fn list(&mut self, list: &markdown::mdast::List) {
        // A list is loose when it or any item is spread: then items keep their paragraphs.
        let tight = !list.spread
            && list
                .children
                .iter()
                .all(|c| !matches!(c, Node::ListItem(item) if item.spread));
        let tag = if list.ordered { "ol" } else { "ul" };
        match list.start {
            Some(start) if list.ordered && start != 1 => self.open_ordered(start),
            _ => self.open(tag, None),
        }
        for child in &list.children {
            match child {
                Node::ListItem(item) => self.list_item(&item.children, tight),
                other => self.node(other),
            }
        }
        self.close(tag);
    }

    fn list_item(&mut self, children: &[Node], tight: bool) {
        self.out.push_str("<li>");
        for child in children {
            match child {
                Node::Paragraph(p) if tight => self.nodes(&p.children),
                other => self.node(other),
            }
        }
        self.close("li");
    }

    fn table(&mut self, rows: &[Node], align: &[AlignKind]) {
        self.out.push_str("<table tabindex=\"0\">\n");
        for (index, row) in rows.iter().enumerate() {
            let Node::TableRow(row) = row else {
                self.node(row);
                continue;
            };
            let cell_tag = if index == 0 { "th" } else { "td" };
            match index {
                0 => self.out.push_str("<thead>\n"),
                1 => self.out.push_str("<tbody>\n"),
                _ => {}
            }
            self.out.push_str("<tr>");
            for (column, cell) in row.children.iter().enumerate() {
                let class = match align.get(column) {
                    Some(AlignKind::Left) => Some("align-left"),
                    Some(AlignKind::Center) => Some("align-center"),
                    Some(AlignKind::Right) => Some("align-right"),
                    Some(AlignKind::None) | None => None,
                };
                match cell {
                    Node::TableCell(cell) => self.wrap(cell_tag, class, &cell.children),
                    other => self.node(other),
                }
            }
            self.out.push_str("</tr>\n");
            if index == 0 {
                self.out.push_str("</thead>\n");
            }
        }
        if rows.len() > 1 {
            self.out.push_str("</tbody>\n");
        }
        self.out.push_str("</table>\n");
    }

    /// A link when its URL is one an article may hold (http(s), mailto, relative), else its
    /// text alone.
    fn link(&mut self, url: &str, children: &[Node]) {
        if !pipeline::url_is_allowed(url) {
            self.nodes(children);
            return;
        }
        self.open_link(url);
        self.nodes(children);
        self.close("a");
    }

    fn element(&mut self, name: Option<&str>, attributes: &[AttributeContent], children: &[Node]) {
        let Some(name) = name else {
            return self.nodes(children);
        };
        if let Some((_, class, label)) = CALLOUTS.iter().find(|(n, _, _)| *n == name) {
            self.open_callout(class, label);
            self.nodes(children);
            self.close("aside");
            return;
        }
        match name {
            "Steps" => self.wrap("ol", Some("steps"), children),
            "Step" => {
                self.open_step(literal(attributes, "title").unwrap_or_default());
                self.nodes(children);
                self.close("li");
            }
            "Frame" => {
                self.open("figure", Some("frame"));
                if let Some(src) = literal(attributes, "src") {
                    let alt = literal(attributes, "alt").or(literal(attributes, "caption"));
                    self.image(src, alt.unwrap_or(""));
                }
                self.nodes(children);
                self.caption(literal(attributes, "caption"));
                self.close("figure");
            }
            "img" => {
                if let Some(src) = literal(attributes, "src") {
                    self.image(src, literal(attributes, "alt").unwrap_or(""));
                }
            }
            "Update" => {
                self.open_update(
                    literal(attributes, "label").unwrap_or_default(),
                    literal(attributes, "description"),
                );
                // The entry's own headings belong under its label.
                let shift = self.heading_shift;
                self.heading_shift = shift.saturating_add(1);
                self.nodes(children);
                self.heading_shift = shift;
                self.close("section");
            }
            "a" => {
                self.anchor(literal(attributes, "id"));
                self.nodes(children);
            }
            "br" => self.out.push_str("<br>"),
            tag => match PHRASING.iter().find(|t| **t == tag) {
                Some(tag) => self.wrap(tag, None, children),
                None if SILENT.contains(&tag.to_ascii_lowercase().as_str()) => {}
                None => self.nodes(children),
            },
        }
    }

    // ---- Writers, off the recursion path.

    #[inline(never)]
    fn open(&mut self, tag: &str, class: Option<&str>) {
        let _ = match class {
            Some(class) => write!(self.out, "<{tag} class=\"{class}\">"),
            None => write!(self.out, "<{tag}>"),
        };
        if matches!(tag, "ol" | "ul") {
            self.out.push('\n');
        }
    }

    #[inline(never)]
    fn close(&mut self, tag: &str) {
        let _ = write!(self.out, "</{tag}>");
        if !is_phrasing_tag(tag) {
            self.out.push('\n');
        }
    }

    #[inline(never)]
    fn text(&mut self, text: &str) {
        escape_into(&mut self.out, text);
    }

    #[inline(never)]
    fn inline_code(&mut self, code: &str) {
        self.out.push_str("<code>");
        escape_into(&mut self.out, code);
        self.out.push_str("</code>");
    }

    #[inline(never)]
    fn code(&mut self, code: &str, language: &str) {
        let html = highlight::code(code, language, &mut self.highlight_budget);
        let _ = writeln!(
            self.out,
            "<pre class=\"{}\" tabindex=\"0\"><code>{html}</code></pre>",
            highlight::CODE_CLASS
        );
    }

    /// Opens a heading and returns its id.
    #[inline(never)]
    fn open_heading(&mut self, depth: u8, children: &[Node]) -> String {
        let title = pipeline::text_of(children);
        let id = self.ids.next(&title);
        let _ = write!(self.out, "<h{depth} id=\"");
        escape_into(&mut self.out, &id);
        self.out.push_str("\">");
        self.section(depth, &id, &title);
        id
    }

    /// A link to the heading `id` itself, so that a reader can copy where a section is.
    #[inline(never)]
    fn heading_link(&mut self, id: &str) {
        self.out
            .push_str(" <a class=\"heading-link\" aria-label=\"Link to this section\" href=\"#");
        escape_into(&mut self.out, id);
        self.out.push_str("\">#</a>");
    }

    /// Records a section of the outline.
    fn section(&mut self, level: u8, id: &str, title: &str) {
        if !(2..=3).contains(&level) || self.outline.len() >= MAX_OUTLINE {
            return;
        }
        let title: String = title.trim().chars().take(MAX_OUTLINE_CHARS).collect();
        if !title.is_empty() {
            self.outline.push(Section {
                level,
                id: id.to_owned(),
                title,
            });
        }
    }

    #[inline(never)]
    fn open_ordered(&mut self, start: u32) {
        let _ = writeln!(self.out, "<ol start=\"{start}\">");
    }

    #[inline(never)]
    fn open_link(&mut self, url: &str) {
        self.out.push_str("<a href=\"");
        escape_into(&mut self.out, url);
        self.out.push_str("\">");
    }

    #[inline(never)]
    fn open_callout(&mut self, class: &str, label: &str) {
        let _ = writeln!(
            self.out,
            "<aside class=\"callout {class}\" role=\"note\"><p class=\"callout-label\">{label}</p>"
        );
    }

    #[inline(never)]
    fn open_step(&mut self, title: &str) {
        let id = self.ids.next(title);
        self.out.push_str("<li class=\"step\" id=\"");
        escape_into(&mut self.out, &id);
        self.out.push_str("\"><h2 class=\"step-title\">");
        escape_into(&mut self.out, title);
        self.heading_link(&id);
        self.out.push_str("</h2>\n");
        self.section(2, &id, title);
    }

    #[inline(never)]
    fn open_update(&mut self, label: &str, description: Option<&str>) {
        let id = self.ids.next(label);
        self.out.push_str("<section class=\"update\" id=\"");
        escape_into(&mut self.out, &id);
        self.out.push_str("\"><h2>");
        escape_into(&mut self.out, label);
        self.heading_link(&id);
        self.out.push_str("</h2>");
        self.section(2, &id, label);
        if let Some(description) = description {
            self.out.push_str("<p class=\"update-description\">");
            escape_into(&mut self.out, description);
            self.out.push_str("</p>");
        }
        self.out.push('\n');
    }

    #[inline(never)]
    fn caption(&mut self, caption: Option<&str>) {
        if let Some(caption) = caption.filter(|c| !c.trim().is_empty()) {
            self.out.push_str("<figcaption>");
            escape_into(&mut self.out, caption);
            self.out.push_str("</figcaption>");
        }
    }

    /// The developer docs' anchors (`<a id>`, to which validate allows no `href`): a fragment
    /// target, kept as an empty `<span>` so that it links nothing.
    #[inline(never)]
    fn anchor(&mut self, id: Option<&str>) {
        if let Some(id) = id.filter(|id| is_plain_id(id)) {
            self.ids.reserve(id);
            self.out.push_str("<span id=\"");
            escape_into(&mut self.out, id);
            self.out.push_str("\"></span>");
        }
    }

    /// The article's header from its frontmatter: title and description. The other fields
    /// (feature, surface, version, commit) are the service's, not the reader's: they stay in
    /// [`Walk::front`] for the portal to show.
    #[inline(never)]
    fn header(&mut self, yaml: &str) {
        self.front = pipeline::Frontmatter::fields(yaml);
        let mut header = String::from("<header class=\"article-header\">");
        let field = |name: &str| self.front.iter().find(|(k, _)| k == name).map(|(_, v)| v);
        if let Some(title) = field("title") {
            header.push_str("<h1>");
            escape_into(&mut header, title);
            header.push_str("</h1>");
        }
        if let Some(description) = field("description") {
            header.push_str("<p class=\"article-description\">");
            escape_into(&mut header, description);
            header.push_str("</p>");
        }
        header.push_str("</header>\n");
        self.out.push_str(&header);
    }

    #[inline(never)]
    fn image_reference(&mut self, identifier: &str, alt: &str) {
        match self.definitions.get(identifier).cloned() {
            Some(url) => self.image(&url, alt),
            None => self.alt(alt),
        }
    }

    /// An image: a repository file through `file_url` (its alt text when that gives no URL),
    /// another site's image as a link to it (the pages load images from this server only),
    /// anything else as its alt text.
    #[inline(never)]
    fn image(&mut self, src: &str, alt: &str) {
        if let Some(path) = repository_path(src) {
            if self.seen.insert(path.clone()) {
                self.referenced.push(path.clone());
            }
            match (self.file_url)(&path) {
                Some(url) => {
                    self.out.push_str("<img src=\"");
                    escape_into(&mut self.out, &url);
                    self.out.push_str("\" alt=\"");
                    escape_into(&mut self.out, alt);
                    self.out.push_str("\">");
                }
                None => self.alt(alt),
            }
            return;
        }
        let lower = src.trim_start().get(..8).unwrap_or("").to_ascii_lowercase();
        if lower.starts_with("https://") || lower.starts_with("http://") {
            let text = if alt.trim().is_empty() { "image" } else { alt };
            self.out.push_str("<a class=\"external-image\" href=\"");
            escape_into(&mut self.out, src.trim());
            self.out.push_str("\">");
            escape_into(&mut self.out, text);
            self.out.push_str("</a>");
            return;
        }
        self.alt(alt);
    }

    fn alt(&mut self, alt: &str) {
        if !alt.trim().is_empty() {
            self.out.push_str("<span class=\"image-alt\">");
            escape_into(&mut self.out, alt);
            self.out.push_str("</span>");
        }
    }
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

/// Components rendered as blocks, which no paragraph may hold.
fn is_block_component(name: &str) -> bool {
    CALLOUTS.iter().any(|(n, _, _)| *n == name)
        || matches!(name, "Steps" | "Step" | "Frame" | "Update" | "details")
}

/// Tags after which no newline is written (it would be text inside a line).
fn is_phrasing_tag(tag: &str) -> bool {
    matches!(tag, "a" | "span" | "td" | "th") || PHRASING.contains(&tag) && tag != "details"
}

fn is_plain_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= MAX_ID_CHARS
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ':'))
}

fn collect_definitions(node: &Node, definitions: &mut HashMap<String, String>) {
    if let Node::Definition(d) = node {
        // The first definition of an identifier wins, as in CommonMark.
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
