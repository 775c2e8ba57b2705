//! The anchors of an article and the links that land on them: a heading's or a step's id as
//! the portal makes it ([`heading_slug`], numbered when repeated), links to a document the
//! same article shows turned into links to its section, and links to a section the article
//! does not have turned into their text.

use std::collections::{HashMap, HashSet};

use markdown::mdast::{AttributeContent, AttributeValue, Node};

use super::convert::Links;
use super::validate::parse_mdx;
use crate::source::docs::Prose;
pub use crate::source::docs::heading_slug;

/// The ids of an article's sections, numbered as the portal numbers a repeated one
/// (`usage`, `usage-1`).
#[derive(Default)]
pub struct Anchors {
    ids: HashMap<String, usize>,
}

impl Anchors {
    /// The id of the next section titled `title`.
    pub fn next(&mut self, title: &str) -> String {
        self.unique(&heading_slug(title))
    }

    /// An id the article sets itself (`<a id="x">`): taken, not numbered.
    pub fn reserve(&mut self, id: &str) {
        self.ids.entry(id.to_owned()).or_insert(1);
    }

    /// `base`, or `base-1`, `base-2`… when already taken in this article. Each base keeps
    /// the next suffix to try, so that handing out ids stays linear however they collide.
    pub fn unique(&mut self, base: &str) -> String {
        let base = base.to_owned();
        if !self.ids.contains_key(&base) {
            self.ids.insert(base.clone(), 1);
            return base;
        }
        loop {
            let next = self.ids.entry(base.clone()).or_insert(1);
            let candidate = format!("{base}-{next}");
            *next += 1;
            if !self.ids.contains_key(&candidate) {
                self.ids.insert(candidate.clone(), 1);
                return candidate;
            }
        }
    }
}

/// The text of phrasing content, as a heading's id is made from it.
pub fn text_of(nodes: &[Node]) -> String {
    let mut text = String::new();
    for node in nodes {
        match node {
            Node::Text(t) => text.push_str(&t.value),
            Node::InlineCode(c) => text.push_str(&c.value),
            other => {
                if let Some(children) = other.children() {
                    text.push_str(&text_of(children));
                }
            }
        }
    }
    text
}

/// What [`settle_links`] found in one pass over the tree.
#[derive(Default)]
struct Found {
    /// Every section id, and the first id of each section title.
    ids: HashSet<String>,
    by_title: HashMap<String, String>,
    /// (start, end, url, start and end of the link's text, the id of the `##` section it
    /// is in) of each link.
    links: Vec<Link>,
    /// The id of the `##` section the walk is in.
    section: Option<String>,
}

struct Link {
    start: usize,
    end: usize,
    url: String,
    text: Option<(usize, usize)>,
    section: Option<String>,
}

/// The literal value of the JSX attribute `name`.
fn literal(attributes: &[AttributeContent], name: &str) -> Option<String> {
    attributes.iter().find_map(|a| match a {
        AttributeContent::Property(p) if p.name == name => match &p.value {
            Some(AttributeValue::Literal(value)) => Some(value.clone()),
            _ => None,
        },
        _ => None,
    })
}

fn walk(node: &Node, anchors: &mut Anchors, found: &mut Found) {
    let titled = match node {
        Node::Heading(h) => Some(text_of(&h.children)),
        Node::MdxJsxFlowElement(e) if e.name.as_deref() == Some("Step") => {
            literal(&e.attributes, "title")
        }
        Node::MdxJsxFlowElement(e) if e.name.as_deref() == Some("a") => {
            if let Some(id) = literal(&e.attributes, "id") {
                anchors.reserve(&id);
                found.ids.insert(id);
            }
            None
        }
        Node::MdxJsxTextElement(e) if e.name.as_deref() == Some("a") => {
            if let Some(id) = literal(&e.attributes, "id") {
                anchors.reserve(&id);
                found.ids.insert(id);
            }
            None
        }
        _ => None,
    };
    if let Some(title) = titled {
        let id = anchors.next(&title);
        if matches!(node, Node::Heading(h) if h.depth == 2) {
            found.section = Some(id.clone());
        }
        found
            .by_title
            .entry(title.trim().to_string())
            .or_insert_with(|| id.clone());
        found.ids.insert(id);
    }
    if let Node::Link(link) = node
        && let Some(position) = &link.position
    {
        let text = match (link.children.first(), link.children.last()) {
            (Some(first), Some(last)) => first
                .position()
                .zip(last.position())
                .map(|(a, b)| (a.start.offset, b.end.offset)),
            _ => None,
        };
        found.links.push(Link {
            start: position.start.offset,
            end: position.end.offset,
            url: link.url.clone(),
            text,
            section: found.section.clone(),
        });
    }
    if let Some(children) = node.children() {
        for child in children {
            walk(child, anchors, found);
        }
    }
}

/// `body` with its links settled ([`settle`]) for the documents it shows (`shown`, each
/// under a section of its title), linked as `links` links them.
pub(crate) fn settle_links<'a>(
    body: &str,
    shown: impl Iterator<Item = &'a Prose>,
    links: &Links,
    max_depth: usize,
) -> String {
    let sections: HashMap<String, String> = shown
        .filter(|d| !d.path.is_empty())
        .map(|d| (links.file(&d.path, false), d.title.clone()))
        .collect();
    settle(body, &sections, max_depth)
}

/// `body` with its links settled:
///
/// - a link to a document the article shows (`shown`: the URL the article uses for it, and
///   the title of its section) lands on that section, or on the section its fragment names
///   when the article has it;
/// - a link to a section of the article that is not there (cut from a page, say) is its text.
///
/// A body that does not parse (it was checked before, so only past `max_depth`) is left as it
/// is.
fn settle(body: &str, shown: &HashMap<String, String>, max_depth: usize) -> String {
    if !body.contains("](") {
        return body.to_string();
    }
    let Ok(tree) = parse_mdx(body, max_depth) else {
        return body.to_string();
    };
    let mut found = Found::default();
    walk(&tree, &mut Anchors::default(), &mut found);
    let mut edits: Vec<(usize, usize, String)> = Vec::new();
    for link in &found.links {
        let (start, end, url) = (&link.start, &link.end, &link.url);
        let Some((text_start, text_end)) = link.text else {
            continue;
        };
        let Some(label) = body.get(text_start..text_end) else {
            continue;
        };
        let (page, fragment) = match url.split_once('#') {
            Some((page, fragment)) => (page, Some(fragment)),
            None => (url.as_str(), None),
        };
        let target = if page.is_empty() {
            match fragment {
                Some(f) if !f.is_empty() && !found.ids.contains(f) => None,
                _ => continue,
            }
        } else if let Some(title) = shown.get(page) {
            let Some(own) = found.by_title.get(title.trim()) else {
                continue;
            };
            // A page's link to itself (where the rest of a shortened page is) stays.
            if link.section.as_ref() == Some(own) {
                continue;
            }
            match fragment.filter(|f| found.ids.contains(*f)) {
                Some(f) => Some(format!("#{f}")),
                None => Some(format!("#{own}")),
            }
        } else {
            continue;
        };
        // Only a link written inline (`[text](url)`) is rewritten in place.
        let source = &body[*start..*end];
        if !source.starts_with('[') || !source.ends_with(')') {
            continue;
        }
        edits.push((
            *start,
            *end,
            match target {
                Some(url) => format!("[{label}]({url})"),
                None => label.to_string(),
            },
        ));
    }
    if edits.is_empty() {
        return body.to_string();
    }
    edits.sort_by_key(|(start, _, _)| *start);
    let mut out = String::with_capacity(body.len());
    let mut at = 0;
    for (start, end, replacement) in edits {
        if start < at {
            continue;
        }
        out.push_str(&body[at..start]);
        out.push_str(&replacement);
        at = end;
    }
    out.push_str(&body[at..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_and_repeats_as_the_portal_makes_them() {
        assert_eq!(heading_slug("The `observable` API!"), "the-observable-api");
        assert_eq!(heading_slug("?!"), "section");
        let mut anchors = Anchors::default();
        assert_eq!(anchors.next("Usage"), "usage");
        assert_eq!(anchors.next("Usage"), "usage-1");
        assert_eq!(anchors.next("Usage 1"), "usage-1-1");
    }

    #[test]
    fn links_land_on_the_sections_the_article_has() {
        let page = "https://github.com/a/b/blob/c/docs/install.md";
        let shown = HashMap::from([(page.to_string(), "Installation".to_string())]);
        let body = format!(
            "## Installation\n\n### With pip\n\n## Usage\n\nSee [the install page]({page}), [pip]({page}#with-pip), [gone]({page}#nothing), [`observable`](#observable), [pip here](#with-pip) and [elsewhere](https://example.com/x.md).\n\n<Steps>\n<Step title=\"Run it\">\n\nBack to [run](#run-it).\n\n</Step>\n</Steps>\n"
        );
        let out = settle(&body, &shown, 64);
        assert!(out.contains("See [the install page](#installation), [pip](#with-pip), [gone](#installation), `observable`, [pip here](#with-pip) and [elsewhere](https://example.com/x.md)."), "{out}");
        assert!(out.contains("Back to [run](#run-it)."), "{out}");
        let own = format!("## Installation\n\nThe rest is in [install.md]({page}).\n");
        assert_eq!(settle(&own, &shown, 64), own);
    }
}
