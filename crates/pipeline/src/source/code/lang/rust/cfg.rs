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
    /// From a parsed `Cargo.toml`; `None` when it has no `[package]`.
    pub fn of_table(table: &toml::Table) -> Option<Self> {
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
        // An optional dependency is a feature of its own name, unless `dep:` names it.
        let explicit: BTreeSet<&str> = features
            .and_then(toml::Value::as_table)
            .into_iter()
            .flat_map(|t| t.values())
            .filter_map(toml::Value::as_array)
            .flatten()
            .filter_map(toml::Value::as_str)
            .filter_map(|v| v.strip_prefix("dep:"))
            .collect();
        let mut enabled = BTreeSet::new();
        while let Some(name) = pending.pop() {
            if enabled.len() >= MAX_ENABLED {
                // A partial set would hide items docs.rs shows: read no set at all.
                return None;
            }
            // `dep:x` enables a dependency alone; `x/y` the dependency `x` (and so its
            // implicit feature) and its feature `y`; `x?/y` only `y`, if `x` is on anyway.
            let name = match name.split_once('/') {
                Some((dependency, _)) if !dependency.ends_with('?') => {
                    if explicit.contains(dependency) {
                        continue;
                    }
                    dependency.to_string()
                }
                Some(_) => continue,
                None if name.starts_with("dep:") => continue,
                None => name,
            };
            if enabled.insert(name.clone()) {
                pending.extend(names(features.and_then(|f| f.get(&name))));
            }
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
/// Feature names a gate keeps while it is read (repeats included).
const MAX_GATE_FEATURES: usize = 64;

/// What the gates read so far ask of crate features together: every feature of `all`, and
/// one of `any` (at most one `any(…)` can be said in a label); `unknown` once a condition
/// that is not features alone (or that could not be read) is among them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Gate {
    all: Vec<String>,
    any: Option<Vec<String>>,
    unknown: bool,
}

impl Gate {
    /// The gates among `attributes` (the text of each `#[…]`).
    pub(crate) fn of<'a>(attributes: impl IntoIterator<Item = &'a str>) -> Self {
        let mut gate = Gate::default();
        for text in attributes {
            let Some(predicate) = gate_of(text) else {
                continue;
            };
            match predicate {
                Predicate::Feature(name) => gate.all.push(name),
                Predicate::All(items) => match conjunction(items) {
                    Some(names) => gate.all.extend(names),
                    None => gate.unknown = true,
                },
                Predicate::Any(items) => {
                    let names = items
                        .into_iter()
                        .map(|p| match p {
                            Predicate::Feature(name) => Some(name),
                            _ => None,
                        })
                        .collect::<Option<Vec<_>>>();
                    match names {
                        Some(names) => gate.and_any(names),
                        None => gate.unknown = true,
                    }
                }
                Predicate::Other => gate.unknown = true,
            }
            gate.bound();
        }
        gate
    }

    /// Once nothing can be said (an unknown condition, or past [`MAX_GATE_FEATURES`] names)
    /// no name is kept: an enclosing item's gate is copied for each item inside it.
    fn bound(&mut self) {
        let named = self.all.len() + self.any.as_ref().map_or(0, Vec::len);
        if self.unknown || named > MAX_GATE_FEATURES {
            self.all.clear();
            self.any = None;
            self.unknown = true;
        }
    }

    fn and_any(&mut self, names: Vec<String>) {
        if names.len() == 1 {
            self.all.extend(names);
        } else if self.any.replace(names).is_some() {
            self.unknown = true;
        }
    }

    /// Both gates (an item's and what encloses it).
    pub(crate) fn and(&self, other: &Gate) -> Gate {
        let mut out = self.clone();
        out.all.extend(other.all.iter().cloned());
        out.unknown |= other.unknown;
        if let Some(names) = &other.any {
            out.and_any(names.clone());
        }
        out.bound();
        out
    }

    /// The label, when the gates can be said as one.
    pub(crate) fn requires(&self) -> Option<Requires> {
        if self.unknown {
            return None;
        }
        let (names, any) = match &self.any {
            Some(names) if self.all.is_empty() => (names, true),
            Some(_) => return None,
            None => (&self.all, false),
        };
        // In source order, as rustdoc lists them, once each.
        let mut features: Vec<String> = Vec::with_capacity(names.len());
        for name in names {
            if !features.contains(name) {
                features.push(name.clone());
            }
        }
        if features.is_empty() || features.len() > MAX_FEATURES {
            return None;
        }
        Some(Requires { features, any })
    }
}

/// The label of what `attributes` gate on, when it can be said (see [`Gate`]).
pub(crate) fn requires<'a>(attributes: impl IntoIterator<Item = &'a str>) -> Option<Requires> {
    Gate::of(attributes).requires()
}

/// What an item needs that `more` also gates (an enclosing module): every feature of both,
/// or the one of them that says anything; `None` (no label, nothing hidden) when an `any(…)`
/// would have to be combined with other features.
pub(crate) fn both(item: Option<Requires>, more: &Requires) -> Option<Requires> {
    let as_gate = |r: &Requires| Gate {
        all: if r.any {
            Vec::new()
        } else {
            r.features.clone()
        },
        any: r.any.then(|| r.features.clone()),
        unknown: false,
    };
    let Some(item) = item else {
        return Some(more.clone());
    };
    as_gate(more).and(&as_gate(&item)).requires()
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
/// any other attribute (a `cfg_attr` that is not the docs.rs label, `derive`, …), told by its
/// first characters; [`Predicate::Other`] for one that cannot be read or is longer than
/// [`MAX_ATTRIBUTE_BYTES`].
fn gate_of(attribute: &str) -> Option<Predicate> {
    let head: String = attribute
        .chars()
        .filter(|c| !c.is_whitespace())
        .take(32)
        .collect();
    if !head.starts_with("#[cfg(") && !head.starts_with("#[cfg_attr(docsrs,doc(cfg(") {
        return None;
    }
    if attribute.len() > MAX_ATTRIBUTE_BYTES {
        return Some(Predicate::Other);
    }
    Some(parse(attribute).unwrap_or(Predicate::Other))
}

/// A gating attribute longer than this is not read (its item gets no label and stays).
const MAX_ATTRIBUTE_BYTES: usize = 4096;

fn parse(attribute: &str) -> Option<Predicate> {
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

    impl DocsFeatures {
        fn of_manifest(manifest: &str) -> Option<Self> {
            Self::of_table(&toml::from_str(manifest).ok()?)
        }
    }

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
            Some((vec!["std", "kv"], false))
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
            Some((vec!["std", "kv"], false))
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
        // `serde/std` turns on the optional dependency serde, so its implicit feature; not
        // when `dep:serde` takes the name away, nor through `serde?/std`.
        let implicit = |features: &str| {
            DocsFeatures::of_manifest(&format!(
                "[package]\nname = \"x\"\n[features]\ndefault = [\"std\"]\n{features}"
            ))
        };
        let serde = needs(&["serde"], false);
        assert!(implicit("std = [\"serde/std\"]\n").unwrap().shows(&serde));
        assert!(
            !implicit("std = [\"serde/std\"]\nserde = [\"dep:serde\"]\n")
                .unwrap()
                .shows(&serde)
        );
        assert!(!implicit("std = [\"serde?/std\"]\n").unwrap().shows(&serde));
        // Past the cap no set is read (a partial one would hide what docs.rs shows).
        let many: String = (0..5000)
            .map(|i| format!("f{i} = [\"f{}\"]\n", i + 1))
            .collect();
        assert_eq!(implicit(&format!("std = [\"f0\"]\n{many}")), None);
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
        // A gate that cannot be read makes the others unsayable, not the whole story.
        assert_eq!(of(&[deep.as_str(), "#[cfg(feature = \"kv\")]"]), None);
        let long = format!(
            "#[cfg(any({}feature = \"a\"))]",
            "feature = \"b\", ".repeat(400)
        );
        assert_eq!(of(&[long.as_str(), "#[cfg(feature = \"kv\")]"]), None);
        // Many features: nothing said, and the gate keeps no more of them.
        let mut gate = Gate::of(["#[cfg(feature = \"a\")]"]);
        for _ in 0..100 {
            gate = gate.and(&Gate::of(["#[cfg(feature = \"b\")]"]));
        }
        assert_eq!(gate.requires(), None);
        assert!(gate.all.is_empty());
    }
}
