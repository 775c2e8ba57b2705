//! Rust items compiled only with some crate features, labelled as docs.rs labels them
//! ("Available on crate feature `kv` only."): from the item's own `#[cfg(…)]` and
//! `#[cfg_attr(docsrs, doc(cfg(…)))]` attributes and those of what encloses it (an `impl`
//! block, an inline module). Only predicates made of features alone are labelled
//! (`feature = "a"`, `all(…)`, `any(…)` of them); a `not(…)`, a target or any other
//! condition leaves the item without a label rather than with a wrong one.
//!
//! What docs.rs shows at all is decided by the features it builds the crate with
//! ([`DocsFeatures`], from the crate's `Cargo.toml`): an item behind a feature outside that
//! set is not in the crate's docs.rs pages, nor in ours.

use std::collections::BTreeSet;

use serde::Serialize;

/// The crate features an item needs: all of them, or (with `any`) one of them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Requires {
    pub features: Vec<String>,
    pub any: bool,
}

impl Requires {
    fn met_by(&self, enabled: &BTreeSet<String>) -> bool {
        let on = |f: &String| enabled.contains(f);
        if self.any {
            self.features.iter().any(on)
        } else {
            self.features.iter().all(on)
        }
    }
}

/// The features docs.rs builds a crate with: the `default` feature unless
/// `[package.metadata.docs.rs] no-default-features`, the ones its `features` lists, and every
/// feature these enable (`[features]`), or all of them with `all-features = true`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DocsFeatures {
    all: bool,
    enabled: BTreeSet<String>,
}

/// Feature names followed through `[features]` at most (a manifest is untrusted text).
const MAX_ENABLED: usize = 4096;

impl DocsFeatures {
    /// From the text of a `Cargo.toml`; `None` when it is no TOML or has no `[package]`.
    pub fn of_manifest(manifest: &str) -> Option<Self> {
        let table: toml::Table = toml::from_str(manifest).ok()?;
        let package = table.get("package")?;
        // `[package.metadata.docs.rs]` is the table `rs` in `docs`; a quoted key also works.
        let metadata = package.get("metadata");
        let docs_rs = metadata
            .and_then(|m| m.get("docs"))
            .and_then(|d| d.get("rs"))
            .or_else(|| metadata.and_then(|m| m.get("docs.rs")));
        let flag = |key: &str| {
            docs_rs
                .and_then(|d| d.get(key))
                .and_then(toml::Value::as_bool)
                .unwrap_or(false)
        };
        if flag("all-features") {
            return Some(Self {
                all: true,
                enabled: BTreeSet::new(),
            });
        }
        let names = |value: Option<&toml::Value>| -> Vec<String> {
            value
                .and_then(toml::Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(toml::Value::as_str)
                .map(str::to_string)
                .collect()
        };
        let mut pending = names(docs_rs.and_then(|d| d.get("features")));
        if !flag("no-default-features") {
            pending.push("default".to_string());
        }
        let features = table.get("features");
        let mut enabled = BTreeSet::new();
        while let Some(name) = pending.pop() {
            if enabled.len() >= MAX_ENABLED {
                break;
            }
            // `dep:x` names a dependency, `x/y` and `x?/y` a feature of one.
            if name.starts_with("dep:") || name.contains('/') || !enabled.insert(name.clone()) {
                continue;
            }
            pending.extend(names(features.and_then(|f| f.get(&name))));
        }
        Some(Self {
            all: false,
            enabled,
        })
    }

    /// Whether docs.rs shows an item that needs `requires`.
    pub fn shows(&self, requires: &Requires) -> bool {
        self.all || requires.met_by(&self.enabled)
    }
}

/// A `cfg` predicate as far as it is read.
#[derive(Debug, PartialEq)]
enum Predicate {
    Feature(String),
    All(Vec<Predicate>),
    Any(Vec<Predicate>),
    /// `not(…)`, `unix`, `target_os = "…"`, `test`, …
    Other,
}

/// Predicates nested deeper are not read (an attribute is untrusted text).
const MAX_DEPTH: usize = 8;
/// Features named in one label at most.
const MAX_FEATURES: usize = 16;

/// What the attributes (the text of each `#[…]`) ask of crate features together, when it can
/// be said: every feature of every attribute, or the one `any(…)` when it stands alone.
pub(crate) fn requires<'a>(attributes: impl IntoIterator<Item = &'a str>) -> Option<Requires> {
    let mut all: Vec<String> = Vec::new();
    let mut any: Option<Vec<String>> = None;
    let mut gated = false;
    for text in attributes {
        let Some(predicate) = gate(text) else {
            continue;
        };
        gated = true;
        match predicate {
            Predicate::Feature(name) => all.push(name),
            Predicate::All(items) => all.extend(conjunction(items)?),
            Predicate::Any(items) => {
                let names = items
                    .into_iter()
                    .map(|p| match p {
                        Predicate::Feature(name) => Some(name),
                        _ => None,
                    })
                    .collect::<Option<Vec<_>>>()?;
                if any.replace(names).is_some() {
                    return None;
                }
            }
            Predicate::Other => return None,
        }
    }
    if !gated {
        return None;
    }
    let (mut features, any) = match any {
        Some(names) if all.is_empty() => (names, true),
        Some(_) => return None,
        None => (all, false),
    };
    features.sort();
    features.dedup();
    if features.is_empty() || features.len() > MAX_FEATURES {
        return None;
    }
    let any = any && features.len() > 1;
    Some(Requires { features, any })
}

/// What an item needs that `more` also gates (an enclosing module): every feature of both,
/// or the one of them that says anything; `None` (no label, nothing hidden) when an `any(…)`
/// would have to be combined with other features.
pub(crate) fn both(item: Option<Requires>, more: &Requires) -> Option<Requires> {
    let Some(item) = item else {
        return Some(more.clone());
    };
    if item == *more {
        return Some(item);
    }
    let plain = |r: &Requires| !r.any || r.features.len() == 1;
    if !plain(&item) || !plain(more) {
        return None;
    }
    let mut features = item.features;
    features.extend(more.features.iter().cloned());
    features.sort();
    features.dedup();
    (features.len() <= MAX_FEATURES).then_some(Requires {
        features,
        any: false,
    })
}

/// Features that must all be on, from the items of an `all(…)`.
fn conjunction(items: Vec<Predicate>) -> Option<Vec<String>> {
    let mut out = Vec::new();
    for item in items {
        match item {
            Predicate::Feature(name) => out.push(name),
            Predicate::All(inner) => out.extend(conjunction(inner)?),
            _ => return None,
        }
    }
    Some(out)
}

/// The predicate of a `#[cfg(…)]` or `#[cfg_attr(docsrs, doc(cfg(…)))]` attribute; `None` for
/// any other attribute (a `cfg_attr` that is not the docs.rs label, `derive`, …).
fn gate(attribute: &str) -> Option<Predicate> {
    let tokens = tokens(attribute)?;
    let mut at = 0;
    let inner = |at: &mut usize| -> Option<()> {
        (tokens.get(*at)? == &Token::Punct('#')).then_some(())?;
        *at += 1;
        if tokens.get(*at) == Some(&Token::Punct('!')) {
            return None;
        }
        (tokens.get(*at)? == &Token::Punct('[')).then_some(())?;
        *at += 1;
        Some(())
    };
    inner(&mut at)?;
    match tokens.get(at)? {
        Token::Ident(name) if name == "cfg" => {
            at += 1;
            let predicate = call(&tokens, &mut at, 0)?;
            closes(&tokens, at, &[']']).then_some(predicate)
        }
        Token::Ident(name) if name == "cfg_attr" => {
            // cfg_attr(docsrs, doc(cfg(PREDICATE)))
            let expect = |at: &mut usize, want: &Token| -> Option<()> {
                (tokens.get(*at)? == want).then_some(())?;
                *at += 1;
                Some(())
            };
            at += 1;
            expect(&mut at, &Token::Punct('('))?;
            expect(&mut at, &Token::Ident("docsrs".into()))?;
            expect(&mut at, &Token::Punct(','))?;
            expect(&mut at, &Token::Ident("doc".into()))?;
            expect(&mut at, &Token::Punct('('))?;
            expect(&mut at, &Token::Ident("cfg".into()))?;
            let predicate = call(&tokens, &mut at, 0)?;
            closes(&tokens, at, &[')', ')', ']']).then_some(predicate)
        }
        _ => None,
    }
}

/// Whether the tokens from `at` are exactly `closing` then the end.
fn closes(tokens: &[Token], at: usize, closing: &[char]) -> bool {
    tokens.len() == at + closing.len()
        && closing
            .iter()
            .zip(&tokens[at..])
            .all(|(c, t)| t == &Token::Punct(*c))
}

/// `( PREDICATE )` at `at`.
fn call(tokens: &[Token], at: &mut usize, depth: usize) -> Option<Predicate> {
    (tokens.get(*at)? == &Token::Punct('(')).then_some(())?;
    *at += 1;
    let predicate = predicate(tokens, at, depth)?;
    (tokens.get(*at)? == &Token::Punct(')')).then_some(())?;
    *at += 1;
    Some(predicate)
}

fn predicate(tokens: &[Token], at: &mut usize, depth: usize) -> Option<Predicate> {
    if depth > MAX_DEPTH {
        return None;
    }
    let Token::Ident(name) = tokens.get(*at)? else {
        return None;
    };
    *at += 1;
    match tokens.get(*at) {
        Some(Token::Punct('=')) => {
            *at += 1;
            let Token::Str(value) = tokens.get(*at)? else {
                return None;
            };
            *at += 1;
            Some(if name == "feature" {
                Predicate::Feature(value.clone())
            } else {
                Predicate::Other
            })
        }
        Some(Token::Punct('(')) => {
            *at += 1;
            let mut items = Vec::new();
            while tokens.get(*at)? != &Token::Punct(')') {
                items.push(predicate(tokens, at, depth + 1)?);
                match tokens.get(*at)? {
                    Token::Punct(',') => *at += 1,
                    Token::Punct(')') => {}
                    _ => return None,
                }
            }
            *at += 1;
            Some(match name.as_str() {
                "all" => Predicate::All(items),
                "any" => Predicate::Any(items),
                _ => Predicate::Other,
            })
        }
        _ => Some(Predicate::Other),
    }
}

#[derive(Debug, PartialEq)]
enum Token {
    Ident(String),
    Str(String),
    Punct(char),
}

/// The tokens of an attribute; `None` for what an attribute gating on features never holds
/// (raw strings, escapes, feature names outside Cargo's alphabet).
fn tokens(text: &str) -> Option<Vec<Token>> {
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {}
            '#' | '!' | '[' | ']' | '(' | ')' | ',' | '=' => out.push(Token::Punct(c)),
            '"' => {
                let mut value = String::new();
                loop {
                    match chars.next()? {
                        '"' => break,
                        c if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '+' | '.') => {
                            value.push(c)
                        }
                        _ => return None,
                    }
                }
                out.push(Token::Str(value));
            }
            c if c.is_alphanumeric() || c == '_' => {
                let mut ident = String::from(c);
                while let Some(&next) = chars.peek() {
                    if !(next.is_alphanumeric() || next == '_') {
                        break;
                    }
                    ident.push(next);
                    chars.next();
                }
                out.push(Token::Ident(ident));
            }
            _ => return None,
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(attributes: &[&str]) -> Option<(Vec<&'static str>, bool)> {
        requires(attributes.iter().copied()).map(|r| {
            (
                r.features
                    .into_iter()
                    .map(|f| &*Box::leak(f.into_boxed_str()))
                    .collect(),
                r.any,
            )
        })
    }

    #[test]
    fn feature_gates_are_read_as_docs_rs_labels_them() {
        assert_eq!(of(&["#[cfg(feature = \"kv\")]"]), Some((vec!["kv"], false)));
        assert_eq!(
            of(&["#[cfg(all(feature = \"std\", feature = \"kv\"))]"]),
            Some((vec!["kv", "std"], false))
        );
        assert_eq!(
            of(&["#[cfg(any(feature = \"a\", feature = \"b\",))]"]),
            Some((vec!["a", "b"], true))
        );
        assert_eq!(
            of(&[
                "#[derive(Debug)]",
                "#[cfg_attr(docsrs, doc(cfg(feature = \"serde\")))]",
                "#[cfg(feature = \"serde\")]",
            ]),
            Some((vec!["serde"], false))
        );
        // An item and what encloses it: both apply.
        assert_eq!(
            of(&["#[cfg(feature = \"std\")]", "#[cfg(feature = \"kv\")]"]),
            Some((vec!["kv", "std"], false))
        );
        assert_eq!(
            of(&["#[cfg(any(feature = \"kv\"))]"]),
            Some((vec!["kv"], false))
        );
    }

    #[test]
    fn docs_rs_builds_with_default_and_listed_features_and_what_they_enable() {
        let manifest = r#"
[package]
name = "log"

[package.metadata.docs.rs]
features = ["kv_serde"]

[features]
default = ["std"]
std = []
kv = []
kv_serde = ["kv", "dep:serde", "value-bag?/serde"]
kv_unstable = ["kv"]
"#;
        let docs = DocsFeatures::of_manifest(manifest).unwrap();
        let needs = |features: &[&str], any: bool| Requires {
            features: features.iter().map(|f| f.to_string()).collect(),
            any,
        };
        assert!(docs.shows(&needs(&["std"], false)));
        assert!(docs.shows(&needs(&["kv", "kv_serde", "std"], false)));
        assert!(!docs.shows(&needs(&["kv_unstable"], false)));
        assert!(!docs.shows(&needs(&["kv", "kv_unstable"], false)));
        assert!(docs.shows(&needs(&["kv", "kv_unstable"], true)));
        assert!(!docs.shows(&needs(&["serde"], false)));

        let all = DocsFeatures::of_manifest(
            "[package]\nname = \"x\"\n[package.metadata.docs.rs]\nall-features = true\n",
        )
        .unwrap();
        assert!(all.shows(&needs(&["anything"], false)));
        let bare = DocsFeatures::of_manifest(
            "[package]\nname = \"x\"\n[package.metadata.docs.rs]\nno-default-features = true\n[features]\ndefault = [\"std\"]\n",
        )
        .unwrap();
        assert!(!bare.shows(&needs(&["std"], false)));
        assert_eq!(DocsFeatures::of_manifest("[workspace]\n"), None);
        assert_eq!(DocsFeatures::of_manifest("not toml ["), None);
        // A feature that enables itself through others ends.
        let cycle = DocsFeatures::of_manifest(
            "[package]\nname = \"x\"\n[features]\ndefault = [\"a\"]\na = [\"b\"]\nb = [\"a\"]\n",
        )
        .unwrap();
        assert!(cycle.shows(&needs(&["a", "b"], false)));
    }

    #[test]
    fn other_conditions_get_no_label() {
        for attributes in [
            &["#[cfg(not(feature = \"kv\"))]"][..],
            &["#[cfg(all(unix, feature = \"kv\"))]"],
            &["#[cfg(any(feature = \"a\", all(feature = \"b\", feature = \"c\")))]"],
            &[
                "#[cfg(any(feature = \"a\", feature = \"b\"))]",
                "#[cfg(feature = \"c\")]",
            ],
            &["#[cfg(feature = \"kv\")]", "#[cfg(target_os = \"linux\")]"],
            &["#[cfg(test)]"],
            &["#[derive(Debug)]", "#[doc(hidden)]"],
            &["#[cfg_attr(feature = \"serde\", derive(Serialize))]"],
            &["#[cfg(feature = \"a\\\"b\")]"],
            &["#![cfg(feature = \"kv\")]"],
            &["#[cfg(feature = \"kv\"))]"],
            &["#[cfg(feature = \"kv\")"],
            &[],
        ] {
            assert_eq!(of(attributes), None, "{attributes:?}");
        }
        let deep = format!(
            "#[cfg({}feature = \"a\"{})]",
            "all(".repeat(50),
            ")".repeat(50)
        );
        assert_eq!(of(&[deep.as_str()]), None);
    }
}
