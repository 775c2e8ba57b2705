use super::*;

fn facts(breaking: &[&str], added: &[&str], fixed: &[&str], other: &[&str]) -> Facts {
    let own = |v: &[&str]| v.iter().map(|s| (*s).to_string()).collect();
    Facts {
        subject: "x 1.0.1".to_string(),
        released: true,
        breaking: own(breaking),
        added: own(added),
        fixed: own(fixed),
        other: own(other),
        compatible: true,
        ..Facts::default()
    }
}

#[test]
fn a_fix_release_says_its_fix_as_a_sentence_about_the_release() {
    assert_eq!(
        lede(&facts(
            &[],
            &[],
            &["Fixed infinite loop with `cells.split` https://github.com/o/r/pull/4006"],
            &[]
        )),
        "x 1.0.1 fixes infinite loop with `cells.split`. Upgrading needs no code changes."
    );
    // A noun phrase is a fix for something; a sentence is told as such.
    assert_eq!(
        lede(&facts(&[], &[], &["Crash on empty input."], &[])),
        "x 1.0.1 has a fix for crash on empty input. Upgrading needs no code changes."
    );
    let mut f = facts(
        &[],
        &[],
        &["Properly handle when `Box::new` panics", "Fix a leak"],
        &[],
    );
    f.compatible = false;
    assert_eq!(
        lede(&f),
        "x 1.0.1 properly handles when `Box::new` panics. It also fixes one other bug."
    );
}

#[test]
fn what_to_act_on_comes_first_and_the_rest_is_told_in_words() {
    let text = lede(&facts(
        &["Removed `Widget::a`; use `Widget::b`. It was slow."],
        &["Support for streams", "Add `Widget::c`"],
        &["Fix a crash"],
        &[],
    ));
    assert_eq!(
        text,
        "x 1.0.1 removes `Widget::a`; use `Widget::b`. It also brings two new features and fixes a crash. Read how to upgrade below."
    );
    let mut f = facts(
        &[],
        &[],
        &[
            "Consistent init flow (#474)",
            "memprovider: Use int64 type (#464)",
            "Broken link in hooks.go comment (#476)",
        ],
        &[],
    );
    f.requires = vec!["Go 1.25.0 or later, up from 1.24.0".to_string()];
    assert_eq!(
        lede(&f),
        "x 1.0.1 requires Go 1.25.0 or later, up from 1.24.0. It uses int64 type. It also fixes two other bugs. Read how to upgrade below."
    );
    let mut f = facts(&[], &["Add `b`"], &[], &[]);
    f.removed = vec!["`GetApiInstance`".to_string(), "`SetLogger`".to_string()];
    assert_eq!(
        lede(&f),
        "x 1.0.1 removes `GetApiInstance` and `SetLogger`. It adds `b`. Read how to upgrade below."
    );
}

#[test]
fn sentences_and_noun_phrases_read_as_prose() {
    assert_eq!(
        lede(&facts(
            &[],
            &[
                "Source code has been migrated to TypeScript. From now on type declarations are emitted from it. See #3281 for more."
            ],
            &[],
            &[]
        )),
        "With x 1.0.1, source code has been migrated to TypeScript. From now on type declarations are emitted from it. Upgrading needs no code changes."
    );
    let mut f = facts(
        &["Python 3.8 is no longer supported. (#556)"],
        &[],
        &["Fix python 3.14 SyntaxError by rearranging code. (#573)"],
        &[],
    );
    f.compatible = false;
    assert_eq!(
        lede(&f),
        "With x 1.0.1, Python 3.8 is no longer supported. It also fixes python 3.14 SyntaxError by rearranging code. Read how to upgrade below."
    );
    assert_eq!(
        lede(&facts(
            &[],
            &["Github Enterprise Server support (#2846)"],
            &["Fix a bug"],
            &[]
        )),
        "x 1.0.1 brings Github Enterprise Server support. It also fixes a bug. Upgrading needs no code changes."
    );
}

#[test]
fn dependency_and_maintenance_releases_say_so() {
    let mut f = facts(
        &[],
        &[],
        &[],
        &[
            "deps: Update module golang.org/x/net to v0.40.0",
            "deps: Update module golang.org/x/sync to v0.20.0",
        ],
    );
    f.compatible = false;
    assert_eq!(
        lede(&f),
        "x 1.0.1 updates module golang.org/x/net to v0.40.0. It also updates one more dependency."
    );
    let mut f = facts(&[], &[], &[], &["Faster parsing of headers"]);
    f.released = false;
    f.subject = "pkg".to_string();
    assert_eq!(
        lede(&f),
        "The next release of pkg brings faster parsing of headers."
    );
    let mut f = facts(&[], &[], &[], &[]);
    f.compatible = false;
    assert_eq!(lede(&f), "x 1.0.1 is a maintenance release.");
}

#[test]
fn documentation_and_test_entries_are_never_named_first() {
    assert_eq!(
        lede(&facts(
            &[],
            &[],
            &[
                "Broken link in hooks.go comment (#476)",
                "Consistent init flow (#474)",
                "testing: Make test provider context-aware (#470)",
                "memprovider: Use int64 type in IntEvaluation (#464)",
            ],
            &[]
        )),
        "x 1.0.1 uses int64 type in IntEvaluation. It also fixes three other bugs. Upgrading needs no code changes."
    );
}

#[test]
fn an_entry_too_long_or_unbalanced_is_not_named() {
    let long = format!("Fix {}", "very ".repeat(60));
    let mut f = facts(&[], &[], &[&long], &[]);
    f.compatible = false;
    assert_eq!(lede(&f), "x 1.0.1 fixes one bug.");
    assert_eq!(
        first_sentence("Use e.g. `a.b`. Then more."),
        "Use e.g. `a.b`."
    );
    assert_eq!(first_sentence("Call `x. Y` now"), "Call `x. Y` now");
}

#[test]
fn security_hardening_leads_over_a_small_fix() {
    let text = lede(&facts(
        &[],
        &[],
        &["Fix `NavLink` not applying its `pending` state"],
        &[
            "Encode path params per RFC 3986",
            "Harden RSC CSRF code paths",
        ],
    ));
    assert!(
        text.starts_with("x 1.0.1 hardens RSC CSRF code paths."),
        "{text}"
    );
}

#[test]
fn a_step_the_notes_ask_for_is_read_below_never_no_code_changes() {
    let mut f = facts(&[], &[], &["Reject catch-all compress wildcards"], &[]);
    f.steps = vec!["Reject catch-all compress wildcards".to_string()];
    let text = lede(&f);
    assert!(text.ends_with("Read how to upgrade below."), "{text}");
    assert!(!text.contains("no code changes"), "{text}");
}

#[test]
fn a_scope_tag_stays_out_of_the_lede() {
    let text = lede(&facts(
        &[],
        &["middleware: Add text/csv to compressible types"],
        &[],
        &[],
    ));
    assert!(!text.contains("(middleware)"), "{text}");
    assert!(text.starts_with("x 1.0.1 adds text/csv"), "{text}");
}

#[test]
fn a_change_to_act_on_leads_and_a_breaking_one_is_named_by_its_first_clause() {
    let mut f = facts(
        &[],
        &["Add `x.y`"],
        &["Reject catch-all compress wildcards"],
        &[],
    );
    f.steps = vec!["Reject catch-all compress wildcards".to_string()];
    assert!(lede(&f).starts_with("x 1.0.1 rejects catch-all compress wildcards."));
    let f = facts(
        &[
            "Field aliases are now resolved before calling `field_transformer`, so transformers receive `Attribute` objects with aliases. The new `alias_is_default` flag tells which.",
        ],
        &[],
        &[],
        &[],
    );
    assert_eq!(
        lede(&f),
        "With x 1.0.1, field aliases are now resolved before calling `field_transformer`. Read how to upgrade below."
    );
}
