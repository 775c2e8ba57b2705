//! Translations of a document: `README.ja.md` beside `README.md`, `docs/ja/x.md` beside
//! `docs/x.md` or `docs/en/x.md`.

use std::collections::{BTreeMap, BTreeSet};

/// ISO 639-1 codes of the languages documentation is most often translated into.
const LANGUAGES: &[&str] = &[
    "af", "ar", "az", "be", "bg", "bn", "bs", "ca", "cs", "cy", "da", "de", "el", "en", "eo", "es",
    "et", "eu", "fa", "fi", "fr", "ga", "gl", "he", "hi", "hr", "hu", "hy", "id", "is", "it", "ja",
    "ka", "kk", "km", "kn", "ko", "lt", "lv", "mk", "ml", "mn", "mr", "ms", "my", "nb", "ne", "nl",
    "nn", "no", "pa", "pl", "pt", "ro", "ru", "si", "sk", "sl", "sq", "sr", "sv", "sw", "ta", "te",
    "th", "tl", "tr", "uk", "ur", "uz", "vi", "zh",
];

/// The paths among `paths` that translate a document also present in its primary language:
/// `README.ja.md` when `README.md` exists, `docs/ja/x.md` when `docs/x.md` or `docs/en/x.md`
/// does. Of language versions without an untagged one, English (else the first tag) is
/// primary. A folder named like a language that is also a common word (`id/`, `it/`) is read
/// as one only beside another language's folder.
pub(crate) fn translations<'a>(paths: impl IntoIterator<Item = &'a str>) -> BTreeSet<String> {
    let paths: Vec<&str> = paths.into_iter().collect();
    let untagged_files: BTreeSet<String> = paths
        .iter()
        .filter(|path| file_tag(path).is_none())
        .map(|path| markdown_stem(path))
        .collect();
    // (folder form?, document without its language tag) → [(tag, path)]
    let mut versions: BTreeMap<(bool, String), Vec<(String, &str)>> = BTreeMap::new();
    for path in &paths {
        if let Some((tag, untagged)) = file_tag(path) {
            versions
                .entry((false, untagged))
                .or_default()
                .push((tag, path));
        }
        let segments: Vec<&str> = path.split('/').collect();
        for (i, segment) in segments.iter().enumerate().take(segments.len() - 1) {
            if language_tag(segment) {
                let mut rest = segments.clone();
                rest.remove(i);
                versions
                    .entry((true, markdown_stem(&rest.join("/"))))
                    .or_default()
                    .push((segment.to_ascii_lowercase(), path));
            }
        }
    }
    let mut out = BTreeSet::new();
    for ((folder, untagged), tagged) in &versions {
        let tags: BTreeSet<&str> = tagged.iter().map(|(tag, _)| tag.as_str()).collect();
        let words = tags.iter().all(|tag| AMBIGUOUS_TAGS.contains(tag));
        let has_untagged = untagged_files.contains(untagged) && !(*folder && words);
        if !has_untagged && tags.len() < 2 {
            continue;
        }
        let primary = if has_untagged {
            None
        } else {
            tagged
                .iter()
                .min_by_key(|(tag, path)| {
                    (
                        tag != "en" && !tag.starts_with("en-") && !tag.starts_with("en_"),
                        tag.clone(),
                        *path,
                    )
                })
                .map(|(_, path)| *path)
        };
        for (_, path) in tagged {
            if Some(*path) != primary {
                out.insert((*path).to_string());
            }
        }
    }
    out
}

/// Language codes that are also common folder names.
const AMBIGUOUS_TAGS: &[&str] = &["id", "is", "it", "no", "my", "be"];

/// `README.ja.md` → (`ja`, `readme`): the language tag of a file name and the path without
/// it (lower case, without extension).
pub(crate) fn file_tag(path: &str) -> Option<(String, String)> {
    let (dir, name) = path.rsplit_once('/').unwrap_or(("", path));
    let parts: Vec<&str> = name.split('.').collect();
    if parts.len() < 3 || !language_tag(parts[parts.len() - 2]) {
        return None;
    }
    let untagged = [&parts[..parts.len() - 2], &parts[parts.len() - 1..]]
        .concat()
        .join(".");
    let untagged = if dir.is_empty() {
        untagged
    } else {
        format!("{dir}/{untagged}")
    };
    Some((
        parts[parts.len() - 2].to_ascii_lowercase(),
        markdown_stem(&untagged),
    ))
}

/// A path without its Markdown extension, lower case.
fn markdown_stem(path: &str) -> String {
    let lower = path.to_ascii_lowercase();
    [".markdown", ".mdx", ".md"]
        .iter()
        .find_map(|ext| lower.strip_suffix(ext).map(str::to_string))
        .unwrap_or(lower)
}

/// `ja`, `zh-CN`, `pt_BR`, `zh-Hans`.
fn language_tag(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    let (base, region) = match lower.split_once(['-', '_']) {
        Some((base, region)) => (base, Some(region)),
        None => (lower.as_str(), None),
    };
    LANGUAGES.contains(&base)
        && region.is_none_or(|r| {
            (2..=4).contains(&r.len()) && r.chars().all(|c| c.is_ascii_alphanumeric())
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn translations_beside_their_primary_document() {
        let found = translations([
            "README.md",
            "README.ar.md",
            "README.zh-CN.md",
            "README.id-ID.md",
            "README.v2.md",
            "docs/guide.md",
            "docs/ja/guide.md",
            "site/en/intro.md",
            "site/fr/intro.md",
            "site/de/only.md",
            "lonely.ja.md",
            "src/id/README.md",
            "src/README.md",
        ]);
        let found: Vec<&str> = found.iter().map(String::as_str).collect();
        assert_eq!(
            found,
            [
                "README.ar.md",
                "README.id-ID.md",
                "README.zh-CN.md",
                "docs/ja/guide.md",
                "site/fr/intro.md"
            ]
        );
    }
}
