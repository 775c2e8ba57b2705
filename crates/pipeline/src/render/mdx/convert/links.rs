//! Where an article points for a file of the repository: the forge's page at the run's
//! commit, else the address the service serves it at.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use crate::source::forge::{self, Forge};

pub(crate) const IMAGE_EXTENSIONS: &[&str] =
    &[".png", ".jpg", ".jpeg", ".gif", ".svg", ".webp", ".avif"];

/// Where an article points for a file of the repository.
#[derive(Clone, Debug, Default)]
pub(crate) struct Links {
    /// The run's source commit.
    pub commit: String,
    pub forge: Option<Forge>,
    /// The repository's files at the commit, when known: a link is then pointed at the file
    /// it names as the docs site would find it (`guide` → `guide.md`, `faq.html` → `faq.md`,
    /// `@site/static/x.png`), and a link to no file is no link.
    pub files: Option<Arc<HashSet<String>>>,
    /// Where the project's published docs site serves its pages, by repository path: a
    /// link to such a page goes to the site.
    pub site: Arc<HashMap<String, String>>,
}

/// Most files searched by their ending for one site-root path (`/img/x.png`).
const MAX_SUFFIX_SEARCH: usize = 200_000;

impl Links {
    /// The repository file a link to `path` means: the file itself, else what a docs
    /// site serves at that path (a page without its extension, its index, a built `.html`
    /// page's source, a Docusaurus `@site/` or site-root static file). `None` when the
    /// files are known and none is meant; `path` itself when they are not known.
    pub fn locate(&self, path: &str, site_root: bool) -> Option<String> {
        let Some(files) = &self.files else {
            return Some(path.to_string());
        };
        let path = path.trim_end_matches('/');
        if path.is_empty() || files.contains(path) {
            return Some(path.to_string());
        }
        let stem = [".html", ".htm"]
            .iter()
            .find_map(|ext| path.strip_suffix(ext))
            .unwrap_or(path);
        let candidates = [
            format!("{stem}.md"),
            format!("{stem}.mdx"),
            format!("{stem}.rst"),
            format!("{stem}/index.md"),
            format!("{stem}/index.mdx"),
            format!("{stem}/index.rst"),
            format!("{stem}/README.md"),
        ];
        if let Some(found) = candidates.into_iter().find(|c| files.contains(c)) {
            return Some(found);
        }
        // `@site/static/img/x.png` names a file under the Docusaurus site's folder; a
        // site-root path (`/img/x.png`) one under its `static` folder.
        let ending = match path.split_once("@site/") {
            Some((_, rest)) => format!("/{rest}"),
            None if site_root => format!("/static/{path}"),
            None => return None,
        };
        files
            .iter()
            .take(MAX_SUFFIX_SEARCH)
            .filter(|f| f.ends_with(&ending) || f.as_str() == &ending[1..])
            .min_by_key(|f| (f.len(), f.as_str()))
            .cloned()
    }

    /// The URL an article uses for the repository file `path` at the run's commit: a page of
    /// the project's docs site on the site, else on a known forge its page (`raw`: its bytes, for images), else [`served_url`]. Every link, image
    /// and step capture goes through here.
    pub fn file(&self, path: &str, raw: bool) -> String {
        if !raw && let Some(url) = self.site.get(path) {
            return url.clone();
        }
        let forge = self.forge.as_ref().and_then(|forge| {
            if raw {
                forge.raw_url(&self.commit, path)
            } else {
                forge.file_url(&self.commit, path, None)
            }
        });
        forge.unwrap_or_else(|| served_url(path, &self.commit))
    }
}

/// The URL at which the service serves the repository file `path` as of `commit`, for
/// repositories without a known forge. Today: the site path `/` + `path`, as step captures
/// have always been published (the site copies them next to the articles). The service's own
/// endpoint (a later issue) will serve files at an article's commit; point this function at
/// it then, and every link and image follows.
pub(crate) fn served_url(path: &str, commit: &str) -> String {
    let _ = commit;
    format!("/{}", forge::encode_path(path))
}

/// Where a link's `)` is, from just after its destination: at once, or after a title
/// (`"Introduction"`, `'x'`) and the spaces around it.
pub(super) fn link_end(chars: &[char], after: usize) -> Option<usize> {
    let mut i = after;
    let spaces = |i: usize| {
        chars[i.min(chars.len())..]
            .iter()
            .take_while(|c| **c == ' ')
            .count()
    };
    if chars.get(i) == Some(&')') {
        return Some(i);
    }
    i += spaces(i);
    let quote = *chars.get(i).filter(|c| matches!(c, '"' | '\''))?;
    let title_end = chars[i + 1..].iter().position(|c| *c == quote)? + i + 1;
    let close = title_end + 1 + spaces(title_end + 1);
    (chars.get(close) == Some(&')')).then_some(close)
}
