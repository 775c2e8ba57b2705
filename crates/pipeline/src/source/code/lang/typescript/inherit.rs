//! The members a documented interface or class inherits from a type the package does not
//! document (`export interface Options extends KyOptions`, with `KyOptions` exported from
//! its file but not from the package): TypeDoc lists them on the type, so a reader sees
//! every option; a base the package documents keeps its members on its own page.

use std::collections::{HashMap, HashSet};

use crate::source::code::lang::common::base_type_names;
use crate::source::code::symbol::Symbol;

/// How many bases up members are looked for, and how many bases one type reads.
const MAX_BASE_DEPTH: usize = 8;
const MAX_BASES: usize = 64;

/// A type as its file declares it: (file, name).
type TypeKey = (String, String);

/// The bases a type signature names: `interface A<T> extends B, C<T> {` gives `B`, `C`;
/// `class A extends B implements C` gives `B`.
fn extends_of(signature: &str) -> Vec<String> {
    let head = signature.split('{').next().unwrap_or(signature);
    // The first ` extends ` outside the type parameters (`<T extends X>`).
    let mut depth = 0usize;
    let mut at = None;
    for (i, c) in head.char_indices() {
        match c {
            '<' => depth += 1,
            '>' => depth = depth.saturating_sub(1),
            ' ' if depth == 0 && head[i..].starts_with(" extends ") => {
                at = Some(i + " extends ".len());
                break;
            }
            _ => {}
        }
    }
    let Some(list) = at.and_then(|at| head.get(at..)) else {
        return Vec::new();
    };
    let list = list.split(" implements ").next().unwrap_or(list);
    base_type_names(list)
}

/// The member name after its type's: `.json` of `KyOptions.json`.
fn member_rest(member: &Symbol) -> &str {
    let parent = member.parent.as_deref().unwrap_or("");
    member.name.strip_prefix(parent).unwrap_or(&member.name)
}

/// Adds to `out` the members each documented type (`moved`: its homes, module and name)
/// inherits from bases that are not documented (`orphans`: the members of types no entry
/// point exports), nearest base first, without those it declares itself (`own`).
pub(super) fn inherit_members(
    signatures: &HashMap<TypeKey, String>,
    moved: &HashMap<TypeKey, Vec<(String, String)>>,
    own: &HashMap<TypeKey, HashSet<String>>,
    orphans: &[Symbol],
    out: &mut Vec<Symbol>,
) {
    let mut by_type: HashMap<TypeKey, Vec<&Symbol>> = HashMap::new();
    for member in orphans {
        let parent = member.parent.clone().unwrap_or_default();
        by_type
            .entry((member.path.clone(), parent))
            .or_default()
            .push(member);
    }
    if by_type.is_empty() {
        return;
    }
    // The files whose orphaned members belong to a type of each name, read once.
    let mut files_of: HashMap<&str, Vec<&str>> = HashMap::new();
    for (file, name) in by_type.keys() {
        files_of
            .entry(name.as_str())
            .or_default()
            .push(file.as_str());
    }
    for files in files_of.values_mut() {
        files.sort_unstable();
        files.dedup();
    }
    let resolve = |file: &str, name: &str| -> Option<TypeKey> {
        let local = (file.to_string(), name.to_string());
        if by_type.contains_key(&local) || signatures.contains_key(&local) {
            return Some(local);
        }
        match files_of.get(name).map(Vec::as_slice) {
            Some([only]) => Some((only.to_string(), name.to_string())),
            _ => None,
        }
    };
    let mut keys: Vec<&TypeKey> = moved.keys().collect();
    keys.sort();
    for key in keys {
        let Some(signature) = signatures.get(key) else {
            continue;
        };
        let mut seen: HashSet<TypeKey> = HashSet::from([key.clone()]);
        let mut declared: HashSet<String> = own.get(key).cloned().unwrap_or_default();
        let mut level: Vec<(TypeKey, Vec<String>)> = vec![(key.clone(), extends_of(signature))];
        let mut inherited: Vec<&Symbol> = Vec::new();
        for _ in 0..MAX_BASE_DEPTH {
            let mut next = Vec::new();
            for (at, bases) in &level {
                for base in bases {
                    let Some(base) = resolve(&at.0, base) else {
                        continue;
                    };
                    let documented = moved.get(&base).is_some_and(|h| !h.is_empty());
                    if documented || seen.len() > MAX_BASES || !seen.insert(base.clone()) {
                        continue;
                    }
                    for member in by_type.get(&base).into_iter().flatten() {
                        if declared.insert(member_rest(member).to_string()) {
                            inherited.push(member);
                        }
                    }
                    let further = signatures
                        .get(&base)
                        .map(|s| extends_of(s))
                        .unwrap_or_default();
                    next.push((base, further));
                }
            }
            if next.is_empty() {
                break;
            }
            level = next;
        }
        for (module, name) in moved.get(key).into_iter().flatten() {
            for member in &inherited {
                let mut shown = (*member).clone();
                shown.module.clone_from(module);
                shown.name = format!("{name}{}", member_rest(member));
                shown.parent = Some(name.clone());
                out.push(shown);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::extends_of;

    #[test]
    fn extends_lists_read_the_bases() {
        assert_eq!(
            extends_of("interface Options extends KyOptions, Omit<RequestInit, 'headers'> {"),
            ["KyOptions", "Omit"]
        );
        assert_eq!(
            extends_of("class A<T extends X> extends B<T> implements C {"),
            ["B"]
        );
        assert!(extends_of("interface A { x: string }").is_empty());
    }
}
