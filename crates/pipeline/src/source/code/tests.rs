//! The extract stage on small sources of each language.

use super::extractor::Outline;
use super::lang::rust::reach::{ModDecl, ReExport};
use super::*;
use crate::limits::Limits;

fn outline(path: &str, source: &str) -> Outline {
    let language = Language::from_path(path).unwrap_or(Language::Rust);
    Extractor::new(&Limits::default())
        .outline(path, language, source)
        .unwrap_or_else(|e| panic!("{e}"))
}

/// The doc comment of the symbol `name` of `outline`.
fn comment_of(outline: &Outline, name: &str) -> DocComment {
    outline
        .symbols
        .iter()
        .find(|s| s.name == name)
        .map(|s| s.comment.clone())
        .unwrap_or_else(|| panic!("no {name}"))
}

fn names(outline: &Outline) -> Vec<&str> {
    outline.symbols.iter().map(|s| s.name.as_str()).collect()
}

#[test]
fn rust_hidden_test_only_and_private_module_items_are_left_out() {
    let source = r#"
/// Shown.
pub struct Shown;

#[doc(hidden)]
pub fn hidden() {}

#[doc(hidden)]
pub mod __private_api {
pub type Key = str;
}

#[cfg(test)]
#[derive(Debug)]
pub enum Token { A }

impl Shown {
#[cfg(test)]
pub fn to_test_token(&self) {}
#[doc(hidden)]
pub fn internal(&self) {}
pub fn visible(&self) {}
}

mod inner {
pub enum Inner { None }
impl Inner {
    pub fn to_test_token(&self) {}
}
}

mod reexported {
pub fn again() {}
}
pub use self::reexported::again;

pub mod api {
pub fn call() {}
}
"#;
    let found = outline("src/lib.rs", source);
    assert_eq!(
        names(&found),
        ["Shown", "Shown::visible", "again", "call"],
        "{:#?}",
        found.symbols
    );
    assert_eq!(
        found.rust_modules.mods,
        [
            ModDecl {
                name: "__private_api".into(),
                public: true,
                hidden: true,
                requires: None
            },
            ModDecl {
                name: "inner".into(),
                public: false,
                hidden: false,
                requires: None
            },
            ModDecl {
                name: "reexported".into(),
                public: false,
                hidden: false,
                requires: None
            },
            ModDecl {
                name: "api".into(),
                public: true,
                hidden: false,
                requires: None
            },
        ]
    );
    assert_eq!(
        found.rust_modules.reexports,
        [ReExport {
            path: vec!["self".into(), "reexported".into(), "again".into()],
            alias: None
        }]
    );
}

#[test]
fn rust_docs_skip_ordinary_comments_before_the_item() {
    let source = "/// A key in a key-value.\n// Impls must only use as_str().\n#[derive(Clone)]\npub struct Key;\n";
    assert_eq!(
        outline("src/lib.rs", source).symbols[0].doc,
        "A key in a key-value."
    );
}

#[test]
fn rust_cfg_variants_are_one_item() {
    let source = r#"
/// A key.
#[cfg(feature = "kv")]
pub type Key = str;
#[cfg(not(feature = "kv"))]
pub type Key = ();
"#;
    let found = outline("src/lib.rs", source);
    assert_eq!(names(&found), ["Key"]);
    assert_eq!(found.symbols[0].signature, "pub type Key = str;");
    assert_eq!(found.symbols[0].doc, "A key.");
    // Under different gates, one variant or the other is there: no label.
    assert_eq!(found.symbols[0].requires, None);
}

#[test]
fn rust_items_behind_crate_features_say_which() {
    let source = r#"
/// Logs with key-values.
#[macro_export]
#[cfg(feature = "kv")]
macro_rules! log_kv { () => {} }

#[cfg(all(feature = "std", not(feature = "alloc")))]
pub fn odd() {}

pub struct Logger;

#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
#[cfg(feature = "std")]
impl Logger {
pub fn flush(&self) {}
#[cfg(any(feature = "serde", feature = "sval"))]
pub fn serialize(&self) {}
}
"#;
    let found = outline("src/lib.rs", source);
    let requires = |name: &str| {
        let symbol = found.symbols.iter().find(|s| s.name == name).unwrap();
        symbol
            .requires
            .as_ref()
            .map(|r| (r.features.join(","), r.any))
    };
    assert_eq!(requires("log_kv!"), Some(("kv".into(), false)));
    assert_eq!(requires("odd"), None);
    assert_eq!(requires("Logger"), None);
    assert_eq!(requires("Logger::flush"), Some(("std".into(), false)));
    assert_eq!(requires("Logger::serialize"), None);
}

#[test]
fn rust_exported_macros_are_documented_at_the_crate_root() {
    let source = r#"
/// Logs a message at the info level. More text.
///
/// ```
/// info!("hi");
/// ```
#[macro_export]
macro_rules! info {
(target: $target:expr, $($arg:tt)+) => (log!(target: $target, $($arg)+));
($($arg:tt)+) => (log!($($arg)+))
}

macro_rules! private_helper { () => {} }

#[doc(hidden)]
#[macro_export]
macro_rules! __log_key { () => {} }
"#;
    let found = outline("src/macros.rs", source);
    assert_eq!(names(&found), ["info!"]);
    let info = &found.symbols[0];
    assert_eq!(info.kind, SymbolKind::Macro);
    assert_eq!(info.module, "src/lib.rs");
    assert_eq!(info.path, "src/macros.rs");
    assert_eq!(info.doc, "Logs a message at the info level.");
    assert_eq!(
        info.signature,
        "macro_rules! info {\n    (target: $target:expr, $($arg:tt)+) => { ... };\n    ($($arg:tt)+) => { ... };\n}"
    );
    // Its doctest is shown in place, in its whole comment.
    assert!(info.examples.is_empty());
    assert!(
        info.comment.text.contains("```rust\ninfo!(\"hi\");\n```"),
        "{}",
        info.comment.text
    );
}

#[test]
fn rust_intra_doc_links_read_as_code() {
    let source = "//! Defines the [`Value`] type, see [`Key`](crate::kv::Key).\n\n/// Wraps a [`Value`](struct.Value.html), like [`log!`].\npub struct Wrap;\n";
    let found = outline("src/lib.rs", source);
    assert_eq!(
        found.overview,
        "Defines the [`Value`](doc:Value) type, see [`Key`](doc:crate::kv::Key)."
    );
    assert_eq!(found.symbols[0].doc, "Wraps a `Value`, like `log!`.");
}

#[test]
fn go_first_sentence_stops_before_a_preformatted_block() {
    let source = "package uuid\n\n// Validate returns an error if s is not a properly formatted UUID in one of the following formats:\n//   xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx\n//   {xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx}\n// It returns an error if the format is invalid, otherwise nil.\nfunc Validate(s string) error { return nil }\n\n// Well known namespace IDs and UUIDs\nvar (\n\tNameSpaceDNS  = Must(\"6ba7b810\")\n\tNameSpaceURL  = Must(\"6ba7b811\")\n\tNil           UUID // empty UUID, all zeros\n)\n";
    let found = outline("uuid.go", source);
    let by_name = |name: &str| {
        found
            .symbols
            .iter()
            .find(|s| s.name == name)
            .unwrap_or_else(|| panic!("{name}: {:#?}", found.symbols))
    };
    assert_eq!(
        by_name("Validate").doc,
        "Validate returns an error if s is not a properly formatted UUID in one of the following formats:"
    );
    assert_eq!(
        by_name("NameSpaceDNS").signature,
        "var NameSpaceDNS = Must(\"6ba7b810\")"
    );
    assert_eq!(by_name("Nil").signature, "var Nil UUID");
}

#[test]
fn plain_javascript_is_fenced_as_javascript() {
    let found = outline(
        "index.js",
        "/** Makes an id. */\nexport function nanoid(size) {}\n",
    );
    assert_eq!(found.symbols[0].language, "javascript");
    let found = outline(
        "index.d.ts",
        "/** Makes an id. */\nexport function nanoid(size?: number): string\n",
    );
    assert_eq!(found.symbols[0].language, "typescript");
}

#[test]
fn a_jsdoc_above_a_lint_comment_still_documents_the_declaration() {
    let out = outline(
        "src/queue.ts",
        "export class Queue {\n  /**\n  @returns A promise that rejects on error.\n\n  Use it with `onIdle()`.\n  */\n  // eslint-disable-next-line @typescript-eslint/promise-function-async\n  onError(): Promise<never> {\n    return new Promise(() => {});\n  }\n\n  /** Not this one. */\n  // a note\n  /* a block note */\n  size(): number { return 0; }\n}\n\n// Only a line comment.\nexport function bare(): void {}\n",
    );
    let doc = |name: &str| comment_of(&out, name);
    let on_error = doc("Queue.onError");
    assert!(
        format!("{on_error:?}").contains("Use it with `onIdle()`."),
        "{on_error:?}"
    );
    assert_eq!(doc("Queue.size").text, "Not this one.");
    assert_eq!(doc("bare").text, "");
}

#[test]
fn go_constants_of_a_block_without_a_comment_take_the_blocks() {
    let out = outline(
        "formatter.go",
        "package logrus\n\n// Default key names for the default fields\nconst (\n\tFieldKeyMsg = \"msg\"\n\t// FieldKeyTime is the time key.\n\tFieldKeyTime = \"time\"\n)\n",
    );
    let doc = |name: &str| comment_of(&out, name).text;
    assert_eq!(
        doc("FieldKeyMsg"),
        "Default key names for the default fields"
    );
    assert_eq!(doc("FieldKeyTime"), "FieldKeyTime is the time key.");
}

#[test]
fn go_line_comments_document_their_own_constant_never_the_next() {
    let out = outline(
        "uuid.go",
        "package uuid\n\n// Constants returned by Variant.\nconst (\n\tInvalid = Variant(iota) // Invalid UUID\n\tRFC4122 // The variant specified in RFC4122\n\tReserved\n\t// Future is above.\n\tFuture\n)\n\n// Well known IDs.\nvar (\n\tNameSpaceDNS = Must(Parse(\"x\"))\n\tNil UUID // empty UUID, all zeros\n\tMax = UUID{}\n)\n\ntype Field struct {\n\tA int // about A\n\tB int\n}\n",
    );
    let doc = |name: &str| comment_of(&out, name).text;
    assert_eq!(doc("Invalid"), "Invalid UUID");
    assert_eq!(doc("RFC4122"), "The variant specified in RFC4122");
    assert_eq!(doc("Reserved"), "Constants returned by Variant.");
    assert_eq!(doc("Future"), "Future is above.");
    assert_eq!(doc("Nil"), "empty UUID, all zeros");
    assert_eq!(doc("Max"), "Well known IDs.");
    assert_eq!(doc("NameSpaceDNS"), "Well known IDs.");
    assert_eq!(doc("Field.B"), "");
}

#[test]
fn a_deprecated_overload_leaves_the_function_current() {
    let out = outline(
        "src/utils.ts",
        "export function hasProtocol(input: string, opts?: Options): boolean;\n\n/** @deprecated Same as { acceptRelative: true } */\nexport function hasProtocol(\n  input: string,\n  acceptRelative: boolean,\n): boolean;\n\n/** Checks if the input has a protocol. */\nexport function hasProtocol(input: string, opts: any = {}): boolean {\n  return true;\n}\n\n/** @deprecated Use `b`. */\nexport function a(x: string): void;\n/** @deprecated Use `b`. */\nexport function a(x: number): void;\nexport function a(x: any) {}\n",
    );
    let has = comment_of(&out, "hasProtocol");
    assert_eq!(has.deprecated, None);
    assert_eq!(
        has.text,
        "Checks if the input has a protocol.\n\nThe overload `function hasProtocol(input: string, acceptRelative: boolean): boolean` is deprecated: Same as { acceptRelative: true }"
    );
    // Every overload deprecated: the function is.
    assert!(comment_of(&out, "a").deprecated.is_some());
}

#[test]
fn go_directive_comments_are_no_doc() {
    let out = outline(
        "entry.go",
        "package logrus\n\n// Entry is a log entry.\n//\n//nolint:recvcheck // both receivers.\ntype Entry struct{}\n\n// Gen makes.\n//go:generate stringer\nfunc Gen() {}\n\n// Plain: a colon after a space is text.\nfunc Plain() {}\n",
    );
    assert_eq!(comment_of(&out, "Entry").text, "Entry is a log entry.");
    assert_eq!(comment_of(&out, "Gen").text, "Gen makes.");
    assert_eq!(
        comment_of(&out, "Plain").text,
        "Plain: a colon after a space is text."
    );
}
