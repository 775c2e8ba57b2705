//! Cross-references resolved across a feature's documents: each `xref:` link a role became
//! (`super::xrefs`) points at the page or section it names, which the article's links then
//! take to the forge; a reference to nothing is its text. Linear in the documents.

use std::collections::HashMap;
use std::sync::LazyLock;

use regex::Regex;

use super::markdown::Prose;
use super::xrefs::escape;

/// Every `xref:` link of `docs` pointed at the document or section it names, as a path from
/// the repository's root, titled by its title when the role gave no text; a reference to
/// nothing the documents hold is its text.
pub(crate) fn resolve(docs: &mut [Prose]) {
    static LINK: LazyLock<Regex> = LazyLock::new(|| {
        crate::builtin::regex(
            r"\[((?:\\.|[^\]\\\n]){0,300})\]\(xref:(doc|ref)(\??):([^)\s]{1,300})\)",
        )
    });
    if !docs.iter().any(|d| d.markdown.contains("](xref:")) {
        return;
    }
    // Pages by path without extension; sections by label.
    let pages: HashMap<String, (String, String)> = docs
        .iter()
        .map(|d| {
            let stem = d.path.rsplit_once('.').map_or(d.path.as_str(), |(s, _)| s);
            (stem.to_string(), (d.path.clone(), d.title.clone()))
        })
        .collect();
    let mut sections: HashMap<String, (String, String)> = HashMap::new();
    for doc in docs.iter() {
        for (label, heading) in &doc.labels {
            sections
                .entry(label.clone())
                .or_insert_with(|| (doc.path.clone(), heading.clone()));
        }
    }
    for doc in docs.iter_mut() {
        if !doc.markdown.contains("](xref:") {
            continue;
        }
        let folder = doc.path.rsplit_once('/').map_or("", |(f, _)| f).to_string();
        let resolved = LINK.replace_all(&doc.markdown, |c: &regex::Captures| {
            let text = c.get(1).map_or("", |m| m.as_str());
            let untitled = c.get(3).is_some_and(|m| !m.as_str().is_empty());
            let target = c.get(4).map_or("", |m| m.as_str());
            let found = if c.get(2).is_some_and(|m| m.as_str() == "doc") {
                page(&pages, &folder, target).map(|(path, title)| (path.clone(), title.clone()))
            } else {
                sections.get(&target.to_lowercase()).map(|(path, heading)| {
                    (format!("{path}#{}", heading_slug(heading)), heading.clone())
                })
            };
            match found {
                Some((destination, title)) => {
                    let shown = if untitled {
                        escape(&title)
                    } else {
                        text.to_string()
                    };
                    format!("[{shown}](/{destination})")
                }
                None => text.to_string(),
            }
        });
        doc.markdown = resolved.into_owned();
    }
}

/// The page a `{doc}` target names: relative to the document's folder, or from the docs'
/// root when it starts with `/` (then any page whose path ends with it).
fn page<'a>(
    pages: &'a HashMap<String, (String, String)>,
    folder: &str,
    target: &str,
) -> Option<&'a (String, String)> {
    let target = target.split('#').next().unwrap_or(target);
    let target = [".md", ".rst", ".mdx", ".ipynb"]
        .iter()
        .find_map(|ext| target.strip_suffix(ext))
        .unwrap_or(target);
    if let Some(rooted) = target.strip_prefix('/') {
        let ending = format!("/{rooted}");
        return pages
            .iter()
            .filter(|(stem, _)| stem.ends_with(&ending) || stem.as_str() == rooted)
            .min_by_key(|(stem, _)| stem.len())
            .map(|(_, found)| found);
    }
    let mut segments: Vec<&str> = folder.split('/').filter(|s| !s.is_empty()).collect();
    for segment in target.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                segments.pop()?;
            }
            s => segments.push(s),
        }
    }
    let joined = segments.join("/");
    pages
        .get(&joined)
        .or_else(|| pages.get(&format!("{joined}/index")))
}

/// Longest anchor; the rest of a long heading is left out of it.
pub const MAX_SLUG_CHARS: usize = 64;

/// A heading's anchor, as GitHub makes it and the portal gives it (so that a README's own
/// `#section` links, carried into an article, still land): lower case, letters, digits, `-`
/// and `_` kept, spaces become `-`, everything else is dropped; `section` when nothing is
/// left. The one rule for anchors of sections (`render::mdx::anchors`, the portal).
pub fn heading_slug(text: &str) -> String {
    let slug: String = text
        .trim()
        .chars()
        .flat_map(char::to_lowercase)
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .take(MAX_SLUG_CHARS)
        .collect();
    if slug.is_empty() {
        "section".to_owned()
    } else {
        slug
    }
}

#[cfg(test)]
mod tests {
    use super::super::xrefs::role_link;
    use super::*;

    fn doc(path: &str, title: &str, markdown: &str, labels: &[(&str, &str)]) -> Prose {
        Prose {
            path: path.into(),
            title: title.into(),
            markdown: markdown.into(),
            dropped: Vec::new(),
            labels: labels
                .iter()
                .map(|(l, h)| (l.to_string(), h.to_string()))
                .collect(),
        }
    }

    #[test]
    fn cross_references_link_to_the_page_or_section_by_its_title() {
        let text = format!(
            "See {}, {}, {} and {}; {}.",
            role_link("doc", "contextvars"),
            role_link("doc", "the guide <../guide>"),
            role_link("ref", "adapting"),
            role_link("ref", "Our levels <levels>"),
            role_link("ref", "nowhere"),
        );
        let mut docs = vec![
            doc("docs/api/use.md", "Use", &text, &[]),
            doc("docs/api/contextvars.md", "Context Variables", "", &[]),
            doc(
                "docs/guide.rst",
                "Guide",
                "",
                &[("adapting", "Adapting Loggers")],
            ),
            doc("docs/levels.md", "Levels", "", &[("levels", "Log Levels")]),
        ];
        resolve(&mut docs);
        assert_eq!(
            docs[0].markdown,
            "See [Context Variables](/docs/api/contextvars.md), [the guide](/docs/guide.rst), [Adapting Loggers](/docs/guide.rst#adapting-loggers) and [Our levels](/docs/levels.md#log-levels); nowhere."
        );
    }
}
