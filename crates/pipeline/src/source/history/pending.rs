//! Changes not released yet, as the project describes them for its next release: pending
//! changesets (`.changeset/*.md`: front matter of `"package": major|minor|patch`, then a
//! summary), a package's change files (`.changes/<bump>.<name>.md`, the bump one of
//! `major`, `minor`, `patch`, `unstable`, in the feature's folder or one above it) and
//! towncrier news fragments (`<issue>.<type>.md|rst` in `changes/`, `newsfragments/` or
//! `changelog.d/`, the folder nearest the feature; an issue written as the configuration's
//! `issue_format` says). Bounded: at most
//! [`MAX_FRAGMENTS`] files of at most [`MAX_FRAGMENT_BYTES`] each are read.

use git2::{ObjectType, Repository, Tree};
use std::path::Path;

use super::handwritten::{nearest, read, within};

/// At most this many fragments are read.
pub(crate) const MAX_FRAGMENTS: usize = 200;
/// A fragment larger than this is not read.
pub(crate) const MAX_FRAGMENT_BYTES: usize = 16 * 1024;
/// At most this many entries of a fragment folder are looked at.
const MAX_FOLDER_ENTRIES: usize = 10_000;

/// Folders of towncrier's news fragments, tried in each folder from the feature's up.
const TOWNCRIER_FOLDERS: &[&str] = &["changes", "newsfragments", "changelog.d"];

/// How a fragment is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Markup {
    Markdown,
    ReStructuredText,
}

/// One change not released yet.
#[derive(Clone, Debug)]
pub(crate) struct Fragment {
    /// The group it goes under, as the tool titles it ("Minor Changes", "Features").
    pub group: String,
    /// The packages a changeset names, when they are not the feature's own.
    pub scope: Option<String>,
    /// The summary as written, with ` (#123)` for a towncrier fragment of an issue.
    pub text: String,
    pub markup: Markup,
}

/// The groups in the order they are listed: breaking changes and features first, as the
/// tools' own changelogs list them.
const ORDER: &[&str] = &[
    "Major Changes",
    "Minor Changes",
    "Patch Changes",
    "Unstable Changes",
    "Breaking Changes",
    "Features",
    "Added",
    "Changed",
    "Deprecations",
    "Deprecations and Removals",
    "Removed",
    "Bugfixes",
    "Fixed",
    "Security",
    "Performance",
    "Improved Documentation",
];

/// The fragments of one tool, and the first file they come from.
#[derive(Debug)]
pub(crate) struct Pending {
    pub path: String,
    pub fragments: Vec<Fragment>,
}

/// The pending changes of the feature: its package's changesets, else the towncrier
/// fragments nearest one of `folders` (the feature's path prefixes).
pub(crate) fn pending(
    repo: &Repository,
    tree: &Tree,
    folders: &[String],
    product: &str,
) -> Option<Pending> {
    let mut pending = changesets(repo, tree, product)
        .or_else(|| change_files(repo, tree, folders))
        .or_else(|| towncrier(repo, tree, folders))?;
    together(&mut pending.fragments);
    Some(pending)
}

/// The groups [`ORDER`] names in its order, then the project's own groups in the order they
/// first appear: each group's fragments together (a group is one heading).
fn together(fragments: &mut [Fragment]) {
    let mut seen: Vec<String> = Vec::new();
    for f in fragments.iter() {
        if !seen.contains(&f.group) {
            seen.push(f.group.clone());
        }
    }
    fragments.sort_by_key(|f| {
        (
            ORDER
                .iter()
                .position(|g| *g == f.group)
                .unwrap_or(ORDER.len()),
            seen.iter().position(|g| *g == f.group),
        )
    });
}

/// The names of the files (blobs, no links) of `folder`, at most [`MAX_FRAGMENTS`] of
/// those `keep` accepts, sorted.
fn files(repo: &Repository, tree: &Tree, folder: &str, keep: impl Fn(&str) -> bool) -> Vec<String> {
    let sub = tree
        .get_path(Path::new(folder))
        .ok()
        .and_then(|entry| entry.to_object(repo).ok())
        .and_then(|object| object.into_tree().ok());
    let Some(sub) = sub else {
        return Vec::new();
    };
    let mut names: Vec<String> = sub
        .iter()
        .take(MAX_FOLDER_ENTRIES)
        .filter(|e| e.kind() == Some(ObjectType::Blob))
        .filter_map(|e| e.name().ok().map(str::to_string))
        .filter(|n| keep(n))
        .collect();
    names.sort();
    names.truncate(MAX_FRAGMENTS);
    names
}

/// `.changeset/*.md` naming `product`; when none names it (a repository whose packages
/// are not the feature's product), every changeset, scoped with the packages it names.
fn changesets(repo: &Repository, tree: &Tree, product: &str) -> Option<Pending> {
    let names = files(repo, tree, ".changeset", |n| {
        n.ends_with(".md") && !n.eq_ignore_ascii_case("README.md")
    });
    let parsed: Vec<(String, Changeset)> = names
        .into_iter()
        .filter_map(|name| {
            let path = format!(".changeset/{name}");
            let text = read(repo, tree, &path, MAX_FRAGMENT_BYTES)?;
            Some((path, changeset(&text)?))
        })
        .collect();
    let own = |c: &Changeset| c.packages.iter().any(|(p, _)| p == product);
    let any_own = parsed.iter().any(|(_, c)| own(c));
    let mut kept = parsed.into_iter().filter(|(_, c)| !any_own || own(c));
    let (path, first) = kept.next()?;
    let fragments = std::iter::once(first)
        .chain(kept.map(|(_, c)| c))
        .map(|c| c.fragment(any_own.then_some(product)))
        .collect();
    Some(Pending { path, fragments })
}

/// The change files of the `.changes/` folder nearest one of `folders` (the feature's
/// path prefixes): `<bump>.<name>.md`, the file's text as the summary, under changesets'
/// titles for its bump ("Patch Changes"; "Unstable Changes" for `unstable`).
fn change_files(repo: &Repository, tree: &Tree, folders: &[String]) -> Option<Pending> {
    let bump = |name: &str| -> Option<&'static str> {
        let (kind, rest) = name.split_once('.')?;
        rest.strip_suffix(".md").filter(|slug| !slug.is_empty())?;
        Some(match kind {
            "major" => "Major Changes",
            "minor" => "Minor Changes",
            "patch" => "Patch Changes",
            "unstable" => "Unstable Changes",
            _ => return None,
        })
    };
    nearest(folders, |dir| {
        let path = within(dir, ".changes");
        let mut first = None;
        let mut fragments = Vec::new();
        for name in files(repo, tree, &path, |n| bump(n).is_some()) {
            let file = format!("{path}/{name}");
            let (Some(group), Some(text)) =
                (bump(&name), read(repo, tree, &file, MAX_FRAGMENT_BYTES))
            else {
                continue;
            };
            if text.trim().is_empty() {
                continue;
            }
            first.get_or_insert(file);
            fragments.push(Fragment {
                group: group.to_string(),
                scope: None,
                text: text.trim().to_string(),
                markup: Markup::Markdown,
            });
        }
        Some(Pending {
            path: first?,
            fragments,
        })
    })
}

/// A changeset's bump, lowest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Bump {
    Patch,
    Minor,
    Major,
}

#[derive(Debug)]
struct Changeset {
    packages: Vec<(String, Bump)>,
    summary: String,
}

impl Changeset {
    /// As a fragment: its highest bump names its group, as changesets' own changelog does;
    /// the packages are its scope unless it is `own`'s.
    fn fragment(self, own: Option<&str>) -> Fragment {
        let bump = self.packages.iter().map(|(_, b)| *b).max();
        let group = match bump {
            Some(Bump::Major) => "Major Changes",
            Some(Bump::Minor) => "Minor Changes",
            _ => "Patch Changes",
        };
        let scope = own.is_none().then(|| {
            let names: Vec<&str> = self.packages.iter().map(|(p, _)| p.as_str()).collect();
            names.join(", ")
        });
        Fragment {
            group: group.to_string(),
            scope,
            text: self.summary,
            markup: Markup::Markdown,
        }
    }
}

/// `---`, lines of `"package": bump`, `---`, then the summary; `None` for an empty
/// changeset (no package, or no summary) or one that is not written so.
fn changeset(text: &str) -> Option<Changeset> {
    let text = text.trim_start_matches('\u{feff}').trim_start();
    let rest = text.strip_prefix("---")?;
    let (front, summary) = rest.split_once("\n---")?;
    let summary = summary.trim_start_matches('-').trim();
    let mut packages = Vec::new();
    for line in front.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let (name, bump) = line.rsplit_once(':')?;
        let name = name.trim().trim_matches(|c| c == '"' || c == '\'').trim();
        let bump = match bump.trim().trim_matches(|c| c == '"' || c == '\'') {
            "major" => Bump::Major,
            "minor" => Bump::Minor,
            "patch" => Bump::Patch,
            "none" => continue,
            _ => return None,
        };
        if !name.is_empty() {
            packages.push((name.to_string(), bump));
        }
    }
    (!packages.is_empty() && !summary.is_empty()).then(|| Changeset {
        packages,
        summary: summary.to_string(),
    })
}

/// A towncrier configuration larger than this is not read.
const MAX_CONFIG_BYTES: usize = 256 * 1024;
/// At most this many configured fragment types are read.
const MAX_TYPES: usize = 64;

/// towncrier's own configuration (`[tool.towncrier]` in `towncrier.toml`, else
/// `pyproject.toml`, at the root): its fragment folder and its types (folder name, and the
/// section title when towncrier shows their text).
#[derive(Default)]
struct TowncrierConfig {
    directory: Option<String>,
    /// How the changelog writes an issue (`[#{issue}](https://…/issues/{issue})`).
    issue_format: Option<String>,
    types: Vec<(String, Option<String>)>,
}

impl TowncrierConfig {
    fn read(repo: &Repository, tree: &Tree) -> TowncrierConfig {
        for file in ["towncrier.toml", "pyproject.toml"] {
            let Some(text) = read(repo, tree, file, MAX_CONFIG_BYTES) else {
                continue;
            };
            let Ok(value) = toml::from_str::<toml::Value>(&text) else {
                continue;
            };
            let Some(config) = value.get("tool").and_then(|t| t.get("towncrier")) else {
                continue;
            };
            let directory = config
                .get("directory")
                .and_then(toml::Value::as_str)
                .map(|d| d.trim_matches('/').to_string())
                .filter(|d| !d.is_empty() && !d.split('/').any(|part| part == ".."));
            let types = config
                .get("type")
                .and_then(toml::Value::as_array)
                .map(|types| {
                    types
                        .iter()
                        .take(MAX_TYPES)
                        .filter_map(|t| {
                            let folder = t.get("directory")?.as_str()?.to_string();
                            let name = t.get("name")?.as_str()?.to_string();
                            let shown = t
                                .get("showcontent")
                                .and_then(toml::Value::as_bool)
                                .unwrap_or(true);
                            Some((folder, shown.then_some(name)))
                        })
                        .collect()
                })
                .unwrap_or_default();
            let issue_format = config
                .get("issue_format")
                .and_then(toml::Value::as_str)
                .filter(|f| f.contains("{issue}") && f.len() <= 512)
                .map(str::to_string);
            return TowncrierConfig {
                directory,
                issue_format,
                types,
            };
        }
        TowncrierConfig::default()
    }

    /// The section a fragment type goes under: the configured types when there are any
    /// (they replace towncrier's defaults), else the defaults.
    fn group(&self, kind: &str) -> Option<String> {
        if self.types.is_empty() {
            return towncrier_group(kind).map(str::to_string);
        }
        self.types
            .iter()
            .find(|(folder, _)| folder == kind)
            .and_then(|(_, name)| name.clone())
    }
}

/// The towncrier fragments of the configured fragment folder, else of the fragment folder
/// nearest one of `folders`.
fn towncrier(repo: &Repository, tree: &Tree, folders: &[String]) -> Option<Pending> {
    let config = TowncrierConfig::read(repo, tree);
    if let Some(directory) = &config.directory
        && let Some(pending) = fragments_in(repo, tree, directory, &config)
    {
        return Some(pending);
    }
    nearest(folders, |dir| {
        TOWNCRIER_FOLDERS
            .iter()
            .find_map(|name| fragments_in(repo, tree, &within(dir, name), &config))
    })
}

fn fragments_in(
    repo: &Repository,
    tree: &Tree,
    folder: &str,
    config: &TowncrierConfig,
) -> Option<Pending> {
    let names = files(repo, tree, folder, |n| fragment_name(n).is_some());
    let mut first = None;
    let mut fragments = Vec::new();
    for name in names {
        let Some((issue, kind, markup)) = fragment_name(&name) else {
            continue;
        };
        let Some(group) = config.group(kind) else {
            continue;
        };
        let path = format!("{folder}/{name}");
        let Some(text) = read(repo, tree, &path, MAX_FRAGMENT_BYTES) else {
            continue;
        };
        let text = text.trim();
        if text.is_empty() {
            continue;
        }
        let text = match (issue.parse::<u64>(), &config.issue_format) {
            (Ok(number), Some(format)) => {
                format!(
                    "{text} ({})",
                    format.replace("{issue}", &number.to_string())
                )
            }
            (Ok(number), None) => format!("{text} (#{number})"),
            (Err(_), _) => text.to_string(),
        };
        first.get_or_insert(path);
        fragments.push(Fragment {
            group,
            scope: None,
            text,
            markup,
        });
    }
    Some(Pending {
        path: first?,
        fragments,
    })
}

/// `123.feature.md`, `+orphan.bugfix.rst`, `123.feature.1.md`: the issue, the type and
/// the markup; `None` for another name (`README.md`, `template.rst`).
fn fragment_name(name: &str) -> Option<(&str, &str, Markup)> {
    let (stem, markup) = match name.rsplit_once('.') {
        Some((stem, "md")) => (stem, Markup::Markdown),
        Some((stem, "rst")) => (stem, Markup::ReStructuredText),
        _ => return None,
    };
    let mut parts = stem.split('.');
    let issue = parts.next().filter(|i| !i.is_empty())?;
    let kind = parts.next()?;
    match parts.next() {
        None => {}
        Some(counter) if counter.bytes().all(|b| b.is_ascii_digit()) => {}
        Some(_) => return None,
    }
    if parts.next().is_some() || kind.is_empty() {
        return None;
    }
    Some((issue, kind, markup))
}

/// towncrier's default section titles, and Keep a Changelog's words that projects
/// configure as types; `None` for a type whose fragments towncrier lists without their
/// text (`misc`, `trivial`, `internal`) or one it does not know.
fn towncrier_group(kind: &str) -> Option<&'static str> {
    Some(match kind {
        "breaking" => "Breaking Changes",
        "feature" | "feat" => "Features",
        "added" => "Added",
        "changed" | "change" => "Changed",
        "deprecation" | "deprecated" => "Deprecations",
        "removal" => "Deprecations and Removals",
        "removed" => "Removed",
        "bugfix" | "fix" => "Bugfixes",
        "fixed" => "Fixed",
        "security" => "Security",
        "perf" | "performance" => "Performance",
        "doc" | "docs" => "Improved Documentation",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changesets_read_their_packages_and_summary() {
        let c = changeset(
            "---\n\"@acme/widgets\": minor\n'other': patch\n---\n\nAdd a `Gadget`.\n\nMore.\n",
        )
        .unwrap();
        assert_eq!(
            c.packages,
            [
                ("@acme/widgets".to_string(), Bump::Minor),
                ("other".to_string(), Bump::Patch)
            ]
        );
        assert_eq!(c.summary, "Add a `Gadget`.\n\nMore.");
        let f = c.fragment(None);
        assert_eq!(f.group, "Minor Changes");
        assert_eq!(f.scope.as_deref(), Some("@acme/widgets, other"));
        for not_one in [
            "---\n---\n\nEmpty.\n",
            "---\n\"x\": minor\n---\n",
            "no front matter",
            "---\n\"x\": huge\n---\nText",
            "---\n\"x\": minor\nnever closed",
        ] {
            assert!(changeset(not_one).is_none(), "{not_one}");
        }
    }

    #[test]
    fn a_projects_own_groups_stay_together() {
        let fragment = |group: &str, text: &str| Fragment {
            group: group.into(),
            scope: None,
            text: text.into(),
            markup: Markup::ReStructuredText,
        };
        let mut fragments = vec![
            fragment("Bug Fixes", "a"),
            fragment("Trivial", "b"),
            fragment("Bug Fixes", "c"),
            fragment("Trivial", "d"),
        ];
        together(&mut fragments);
        let texts: Vec<&str> = fragments.iter().map(|f| f.text.as_str()).collect();
        assert_eq!(texts, ["a", "c", "b", "d"]);
    }

    #[test]
    fn towncrier_names_give_issue_type_and_markup() {
        assert_eq!(
            fragment_name("123.feature.md"),
            Some(("123", "feature", Markup::Markdown))
        );
        assert_eq!(
            fragment_name("+x.bugfix.2.rst"),
            Some(("+x", "bugfix", Markup::ReStructuredText))
        );
        for other in [
            "README.md",
            "template.rst",
            ".gitignore",
            "1.feature.txt",
            "1.feature.x.md",
            ".feature.md",
        ] {
            assert!(fragment_name(other).is_none(), "{other}");
        }
        // towncrier lists `misc` fragments without their text.
        assert!(TowncrierConfig::default().group("misc").is_none());
        assert_eq!(
            TowncrierConfig::default().group("bugfix").as_deref(),
            Some("Bugfixes")
        );
    }
}
