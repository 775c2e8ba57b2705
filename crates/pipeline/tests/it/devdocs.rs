//! The developer docs as rustdoc, pkg.go.dev, TypeDoc and Sphinx show an API: public API
//! only, one section per module with its overview, members beneath their type, complete
//! signatures, examples, "Defined in" links. Each test builds a small repository per rule.

use pipeline::SymbolKind;
use testkit::Repo;

/// The dev-docs body of a run of `feature` over `files`.
pub(crate) fn docs(files: &[(&str, &str)], feature: &str) -> (String, Vec<pipeline::SymbolSource>) {
    let mut repo = Repo::new();
    for (path, content) in files {
        repo.write(path, content);
    }
    repo.commit("feat: api");
    docs_of(&repo, feature)
}

fn docs_of(repo: &Repo, feature: &str) -> (String, Vec<pipeline::SymbolSource>) {
    let (body, provenance) = crate::fixture::dev_docs(repo, feature);
    (body, provenance.symbols)
}

fn names(symbols: &[pipeline::SymbolSource]) -> Vec<&str> {
    symbols.iter().map(|s| s.name.as_str()).collect()
}

#[test]
fn tests_internal_packages_and_private_names_are_left_out() {
    let (body, symbols) = docs(
        &[
            (
                "lib/api.go",
                "package lib\n\n// Open opens.\nfunc Open() {}\n\nfunc helper() {}\n",
            ),
            (
                "lib/api_test.go",
                "package lib\n\nfunc TestOpen(t *T) {}\n\nfunc ExampleOpen() {\n\tOpen()\n\t// Output:\n}\n",
            ),
            ("lib/internal/db/db.go", "package db\n\nfunc Connect() {}\n"),
            (
                "lib/src/lib.rs",
                "pub fn api() {}\nfn private() {}\n#[cfg(test)]\nmod tests {\n    pub fn fixture() {}\n}\n",
            ),
            ("lib/tests/it.rs", "pub fn integration() {}\n"),
            ("lib/benches/b.rs", "pub fn bench() {}\n"),
            (
                "lib/py/mod.py",
                "def public():\n    pass\n\ndef _private():\n    pass\n",
            ),
            ("lib/py/tests/test_mod.py", "def test_public():\n    pass\n"),
            ("lib/py/test_other.py", "def test_other():\n    pass\n"),
            ("lib/py/conftest.py", "def fixture():\n    pass\n"),
            (
                "lib/ts/api.ts",
                "export function shown() {}\nfunction hidden() {}\n",
            ),
            ("lib/ts/api.test.ts", "export function testShown() {}\n"),
            ("lib/ts/api.spec.ts", "export function specShown() {}\n"),
            ("lib/ts/__tests__/x.ts", "export function inTests() {}\n"),
        ],
        "lib",
    );
    let mut found = names(&symbols);
    found.sort();
    assert_eq!(found, ["Open", "api", "public", "shown"], "{body}");
    // The Go example is shown under the function it names, as pkg.go.dev does.
    assert!(
        body.contains("Example:\n\n```go\nOpen()\n// Output:\n```"),
        "{body}"
    );
    // From inside the internal package's tree, it is API.
    let (_, symbols) = docs(
        &[("lib/internal/db/db.go", "package db\n\nfunc Connect() {}\n")],
        "lib/internal/db",
    );
    assert_eq!(names(&symbols), ["Connect"]);
}

#[test]
fn one_section_per_module_with_overview_and_members_beneath_their_type() {
    let (body, _) = docs(
        &[
            (
                "pkg/a/doc.go",
                "// Package a reads reports, e.g. CSV files. More.\npackage a\n",
            ),
            (
                "pkg/a/types.go",
                "package a\n\n// Report is a report.\ntype Report struct {\n\tName string\n}\n\n// Load loads one.\nfunc Load() {}\n",
            ),
            (
                "pkg/a/methods.go",
                "package a\n\n// Title is the title.\nfunc (r *Report) Title() string { return r.Name }\n",
            ),
            (
                "pkg/b/b.go",
                "package b\n\n// Report is another report.\ntype Report struct{}\n",
            ),
            (
                "pkg/src/lib.rs",
                "//! Reading reports.\n\n/// A report.\npub struct Report;\n\nimpl Report {\n    /// Opens it.\n    pub fn open() {}\n}\n",
            ),
            (
                "pkg/mod.py",
                "\"\"\"Report helpers.\"\"\"\n\nclass Report:\n    \"\"\"A report.\"\"\"\n",
            ),
            (
                "pkg/api.ts",
                "/**\n * Report client.\n * @packageDocumentation\n */\n\n/** A report. */\nexport interface Report {}\n",
            ),
        ],
        "pkg",
    );
    for heading in [
        "### `package a`",
        "### `package b`",
        "### `pkg`",
        "### `pkg.mod`",
        "### `pkg/api.ts`",
    ] {
        assert!(
            body.contains(&format!("{heading}\n")),
            "missing {heading}:\n{body}"
        );
    }
    for overview in [
        "Package a reads reports, e.g. CSV files. More.",
        "Reading reports.",
        "Report helpers.",
        "Report client.",
    ] {
        assert!(body.contains(overview), "missing {overview}:\n{body}");
    }
    // The method from another file of the package sits under its type; the package's free
    // functions come before its types, as `go doc` lists them.
    let package_a = body.find("### `package a`").unwrap();
    let ty = package_a + body[package_a..].find("#### Struct `Report`").unwrap();
    let method = body.find("##### Method `Report.Title`").unwrap();
    let function = body.find("#### Function `Load`").unwrap();
    assert!(function < ty && ty < method, "{body}");
    assert!(body.contains("##### Method `Report::open`"), "{body}");
    // Five types named Report, five distinct anchors made of qualified names.
    let anchors: Vec<&str> = body
        .lines()
        .filter_map(|l| l.strip_prefix("<a id=\""))
        .filter_map(|l| l.split('"').next())
        .filter(|a| a.ends_with("-Report"))
        .collect();
    assert_eq!(
        anchors,
        // In the order of the modules' names, a crate or package before its modules; Go
        // packages by import path (folder), as pkg.go.dev lists them.
        [
            "pkg-src-lib-rs-Report",
            "pkg-mod-py-Report",
            "pkg-a-Report",
            "pkg-api-ts-Report",
            "pkg-b-Report",
        ]
    );
}

#[test]
fn rust_and_go_structs_show_public_fields_and_mark_the_private_ones() {
    let fields: String = (0..60)
        .map(|i| format!("    /// Field {i}.\n    pub f{i}: u32,\n"))
        .collect();
    let (body, _) = docs(
        &[
            (
                "s/src/lib.rs",
                &format!(
                    "/// Big.\npub struct Big {{\n{fields}    secret: u8,\n}}\n\n/// Pair.\npub struct Pair(pub u8, u16);\n"
                ),
            ),
            (
                "s/g.go",
                "package s\n\n// Conf configures.\ntype Conf struct {\n\t// Name names it.\n\tName string `json:\"name\"`\n\tsecret int\n\tTimeout int // Timeout in seconds.\n}\n\n// Doer does.\ntype Doer interface {\n\tDo() error\n\thidden()\n}\n",
            ),
        ],
        "s",
    );
    assert!(
        body.contains("    pub f59: u32,\n    /* private fields */\n}"),
        "{body}"
    );
    assert!(!body.contains("secret: u8"), "{body}");
    assert!(!body.contains('…'), "no public field is cut:\n{body}");
    assert!(body.contains("`pub f59: u32`: Field 59."), "{body}");
    assert!(
        body.contains("pub struct Pair(pub u8, /* private fields */);"),
        "{body}"
    );
    assert!(
        body.contains("type Conf struct {\n\tName string `json:\"name\"`\n\tTimeout int\n\t// contains filtered or unexported fields\n}"),
        "{body}"
    );
    assert!(
        body.contains("`` Name string `json:\"name\"` ``: Name names it."),
        "{body}"
    );
    assert!(body.contains(": Timeout in seconds."), "{body}");
    assert!(
        body.contains("\tDo() error\n\t// contains filtered or unexported methods\n}"),
        "{body}"
    );
    assert!(body.contains("##### Method `Doer.Do`"), "{body}");
}

#[test]
fn python_classes_as_sphinx_shows_them() {
    let source = r#"
from dataclasses import dataclass
from typing import overload

@dataclass(frozen=True)
class Point:
    """A point."""

    #: The x coordinate.
    x: int = 0
    y: int = 0
    """The y coordinate."""
    _hidden: int = 0


class Plugin:
    """A plugin base class."""

    name: str = "base"

    def __init__(self, config: dict) -> None:
        """Makes a plugin from its configuration."""

    @property
    def label(self) -> str:
        """The label shown, e.g. in menus."""
        return self.name

    @label.setter
    def label(self, value: str) -> None:
        self.name = value

    @classmethod
    def create(cls) -> "Plugin":  # type: ignore
        return cls({})

    @staticmethod
    def version() -> str:
        return "1"

    @abstractmethod
    def run(self) -> None: ...

    @overload
    def get(self, key: int) -> int: ...
    @overload
    def get(self, key: str) -> str: ...
    def get(self, key):
        return key


TABLE = {
    "a": 1,
    "b": 2,
}
"#;
    let (body, symbols) = docs(&[("plug/core.py", source)], "plug");
    assert!(
        body.contains("```python\n@dataclass(frozen=True)\nclass Point\n```"),
        "{body}"
    );
    assert!(body.contains("`x: int = 0`: The x coordinate."), "{body}");
    assert!(body.contains("`y: int = 0`: The y coordinate."), "{body}");
    assert!(!body.contains("_hidden"), "{body}");
    assert!(body.contains("`name: str = \"base\"`"), "{body}");
    assert!(
        body.contains("##### Constructor `Plugin.__init__`"),
        "{body}"
    );
    assert!(body.contains("##### Property `Plugin.label`\n\n```python\nlabel: str\n```\n\nThe label shown, e.g. in menus."), "{body}");
    assert!(
        body.contains("```python\n@classmethod\ndef create(cls) -> \"Plugin\"\n```"),
        "{body}"
    );
    assert!(!body.contains("type: ignore"), "{body}");
    assert!(
        body.contains("@staticmethod\ndef version() -> str"),
        "{body}"
    );
    assert!(
        body.contains("@abstractmethod\ndef run(self) -> None"),
        "{body}"
    );
    assert!(
        body.contains("```python\n@overload\ndef get(self, key: int) -> int\n@overload\ndef get(self, key: str) -> str\n```"),
        "{body}"
    );
    assert!(
        body.contains("TABLE = {\n    \"a\": 1,\n    \"b\": 2,\n}"),
        "{body}"
    );
    // One entry per property and per overloaded method.
    let count = |name: &str| symbols.iter().filter(|s| s.name == name).count();
    assert_eq!(count("Plugin.label"), 1);
    assert_eq!(count("Plugin.get"), 1);
    assert_eq!(body.matches("`Plugin.get`").count(), 1);
}

#[test]
fn typescript_members_overloads_and_accessors() {
    let source = r#"
/** A client. */
export class Client {
  /** The base URL. */
  readonly base: string = "/";
  private token = "";
  #secret = 1;
  protected hidden = 2;

  /** Makes a client. */
  constructor(base: string) {}

  /** The timeout, in seconds. */
  get timeout(): number { return 1; }
  set timeout(value: number) {}

  /** Fetches one. */
  fetch(id: number): string;
  fetch(id: string): string;
  fetch(id: unknown): string { return ""; }
}

/** Options. */
export interface Options {
  /** Retries, i.e. attempts after the first. */
  retries: number;
  onDone?(): void;
}

/**
 * Parses.
 * @example
 * parse("1"); // 1
 */
export function parse(text: string): number;
export function parse(text: number): number;
export function parse(text: unknown): number { return 0; }
"#;
    let (body, symbols) = docs(&[("web/client.ts", source)], "web");
    assert!(
        body.contains("`readonly base: string = \"/\"`: The base URL."),
        "{body}"
    );
    for hidden in ["token", "secret", "hidden"] {
        assert!(!body.contains(hidden), "{hidden}:\n{body}");
    }
    assert!(
        body.contains("##### Constructor `Client.constructor`"),
        "{body}"
    );
    assert!(
        body.contains("```typescript\nget timeout(): number\nset timeout(value: number)\n```"),
        "{body}"
    );
    assert!(
        body.contains("```typescript\nfetch(id: number): string\nfetch(id: string): string\n```"),
        "{body}"
    );
    assert!(
        body.contains("`retries: number`: Retries, i.e. attempts after the first."),
        "{body}"
    );
    assert!(body.contains("##### Method `Options.onDone`"), "{body}");
    assert!(
        body.contains("```typescript\nfunction parse(text: string): number\nfunction parse(text: number): number\n```"),
        "{body}"
    );
    assert!(
        body.contains("Example:\n\n```typescript\nparse(\"1\"); // 1\n```"),
        "{body}"
    );
    assert_eq!(symbols.iter().filter(|s| s.name == "parse").count(), 1);
    assert_eq!(
        symbols
            .iter()
            .filter(|s| s.name == "Client.timeout")
            .count(),
        1
    );
}

#[test]
fn constants_keep_type_and_value_and_examples_are_code_blocks() {
    let go = "package c\n\n// Level is a level.\ntype Level int\n\nconst (\n\t// Debug logs all.\n\tDebug Level = iota - 1\n\tInfo\n\tWarn\n\thidden\n)\n\nconst (\n\tKB = 1 << (10 * (iota + 1))\n\tMB\n)\n\n// Names lists names.\nvar Names = []string{\n\t\"a\",\n\t\"b\",\n}\n";
    let rust = "/// Adds two numbers, e.g. `1 + 2`. More.\n///\n/// ```\n/// # use c::add;\n/// assert_eq!(add(1, 2), 3);\n/// ```\npub fn add(a: u8, b: u8) -> u8 { a + b }\n\n/// A table.\npub const TABLE: [u8; 3] = [\n    1,\n    2,\n    3,\n];\n";
    let python = "def double(x):\n    \"\"\"Doubles x, version 1.2.3 and later. More.\n\n    >>> double(2)\n    4\n    \"\"\"\n    return 2 * x\n";
    let (body, _) = docs(
        &[
            ("c/levels.go", go),
            ("c/src/lib.rs", rust),
            ("c/calc.py", python),
        ],
        "c",
    );
    assert!(body.contains("const Debug Level = -1\n"), "{body}");
    assert!(body.contains("const Info Level = 0\n"), "{body}");
    assert!(body.contains("const Warn Level = 1\n"), "{body}");
    assert!(!body.contains("hidden"), "{body}");
    assert!(body.contains("const MB = 1 << (10 * (1 + 1))"), "{body}");
    assert!(
        body.contains("var Names = []string{\n\t\"a\",\n\t\"b\",\n}"),
        "{body}"
    );
    assert!(
        body.contains("pub const TABLE: [u8; 3] = [\n    1,\n    2,\n    3,\n];"),
        "{body}"
    );
    assert!(
        body.contains("Adds two numbers, e.g. `1 + 2`. More.\n"),
        "{body}"
    );
    // Doctests are shown in place, as rustdoc shows them.
    assert!(
        body.contains(
            "Adds two numbers, e.g. `1 + 2`. More.\n\n```rust\nassert_eq!(add(1, 2), 3);\n```"
        ),
        "{body}"
    );
    assert!(
        body.contains("Doubles x, version 1.2.3 and later. More.\n"),
        "{body}"
    );
    assert!(body.contains("```python\n>>> double(2)\n4\n```"), "{body}");
    assert!(body.contains("Generated from 3 files at commit"), "{body}");
    let (one, _) = docs(&[("c/src/lib.rs", rust)], "c");
    assert!(one.contains("Generated from 1 file at commit"), "{one}");
}

#[test]
fn defined_in_links_to_the_forge_at_the_commit() {
    let mut repo = Repo::new();
    repo.write("lib/a.rs", "/// A.\npub fn a() {}\n");
    let commit = repo.commit("feat: a");
    let (body, _) = docs_of(&repo, "lib");
    assert!(
        body.contains("Defined in `lib/a.rs`, line 2."),
        "plain without a forge:\n{body}"
    );
    repo.git
        .remote("origin", "git@github.com:acme/widgets.git")
        .unwrap();
    let (body, _) = docs_of(&repo, "lib");
    assert!(
        body.contains(&format!(
            "Defined in [`lib/a.rs`, line 2](https://github.com/acme/widgets/blob/{commit}/lib/a.rs#L2)."
        )),
        "{body}"
    );
}

#[test]
fn members_are_symbols_with_their_own_hash() {
    let mut repo = Repo::new();
    repo.write(
        "m/lib.rs",
        "/// S.\npub struct S {\n    /// A.\n    pub a: u8,\n}\n",
    );
    repo.commit("feat: s");
    let (_, before) = docs_of(&repo, "m");
    let field = before.iter().find(|s| s.name == "S::a").unwrap();
    assert_eq!(field.kind, SymbolKind::Field.as_str());
    repo.write(
        "m/lib.rs",
        "/// S.\npub struct S {\n    /// A.\n    pub a: u16,\n}\n",
    );
    repo.commit("feat: wider");
    let (_, after) = docs_of(&repo, "m");
    let changed = after.iter().find(|s| s.name == "S::a").unwrap();
    assert_ne!(field.hash, changed.hash);
}

#[test]
fn images_and_links_in_documents_resolve_against_the_document() {
    let (body, _) = docs(
        &[
            ("lib/src/lib.rs", "/// A.\npub fn a() {}\n"),
            (
                "lib/docs/guide.md",
                "# Guide\n\n![Diagram](diagram.png)\n\nSee [the setup](setup.md).\n",
            ),
            ("lib/docs/setup.md", "# Setup\n\nRun it.\n"),
        ],
        "lib",
    );
    assert!(body.contains("](/lib/docs/diagram.png)"), "{body}");
    assert!(!body.contains("](/diagram.png)"), "{body}");
}

#[test]
fn rust_shows_what_rustdoc_shows_public_modules_reexports_and_exported_macros() {
    let (body, symbols) = docs(
        &[
            (
                "Cargo.toml",
                "[package]\nname = \"log\"\nversion = \"0.4.0\"\n",
            ),
            (
                "src/lib.rs",
                "//! A logging facade.\n\n#[macro_use]\nmod macros;\npub mod kv;\n\n#[doc(hidden)]\npub mod __private_api;\n\n/// Logs records.\npub trait Log {}\n",
            ),
            (
                "src/macros.rs",
                "/// Logs a message at the info level.\n#[macro_export]\nmacro_rules! info {\n    ($($arg:tt)+) => {};\n}\n\n#[doc(hidden)]\n#[macro_export]\nmacro_rules! __log_key {\n    () => {};\n}\n",
            ),
            (
                "src/__private_api.rs",
                "//! Not public API.\n\n#[cfg(feature = \"kv\")]\npub type Key = str;\n#[cfg(not(feature = \"kv\"))]\npub type Key = ();\n",
            ),
            (
                "src/kv/mod.rs",
                "//! Structured logging.\n\nmod error;\nmod value;\n\npub use self::error::Error;\npub use self::value::{ToValue, Value};\n",
            ),
            (
                "src/kv/error.rs",
                "/// An error of a [`Value`].\npub struct Error;\n\nimpl Error {\n    /// A message.\n    pub fn msg() {}\n}\n\n/// Not re-exported.\npub fn stray() {}\n",
            ),
            (
                "src/kv/value.rs",
                "//! This module defines the [`Value`] type.\n\n/// A value.\npub struct Value;\n\n/// Converts.\npub trait ToValue {}\n\nmod inner {\n    pub enum Inner { None }\n}\n\n#[cfg(test)]\npub enum Token { A }\n",
            ),
        ],
        "src",
    );
    let mut found = names(&symbols);
    found.sort();
    assert_eq!(
        found,
        ["Error", "Error::msg", "Log", "ToValue", "Value", "info!"],
        "{body}"
    );
    // Re-exported items sit under the module that re-exports them, named as rustdoc does.
    assert!(body.contains("### `log::kv`\n"), "{body}");
    assert!(body.contains("### `log`\n"), "{body}");
    for absent in [
        "log::kv::error",
        "log::kv::value",
        "__private_api",
        "Not public API",
    ] {
        assert!(!body.contains(absent), "{absent} shown:\n{body}");
    }
    let kv = body.find("### `log::kv`").unwrap_or_default();
    let error = body.find("#### Struct `Error`").unwrap_or_default();
    assert!(kv < error, "{body}");
    assert!(
        body.contains("Defined in `src/kv/error.rs`, line 2."),
        "{body}"
    );
    assert!(
        body.contains("An error of a [`Value`](#src-kv-mod-rs-Value)."),
        "{body}"
    );
    // The macro: at the crate root, its rules as its signature.
    assert!(
        body.contains("```\n\nLogs a message at the info level."),
        "{body}"
    );
    assert!(
        body.contains("```rust\nmacro_rules! info {\n    ($($arg:tt)+) => { ... };\n}\n```"),
        "{body}"
    );

    // A feature of one private file shows what it re-exports, under the re-exporting module.
    let (body, symbols) = docs(
        &[
            ("src/lib.rs", "pub mod kv;\n"),
            ("src/kv/mod.rs", "mod value;\npub use self::value::Value;\n"),
            (
                "src/kv/value.rs",
                "/// A value.\npub struct Value;\n/// Internal.\npub struct Helper;\n",
            ),
        ],
        "src/kv/value.rs",
    );
    assert_eq!(names(&symbols), ["Value"], "{body}");
    assert!(body.contains("### `crate::kv`\n"), "{body}");
}

#[test]
fn scripts_show_their_declarations_not_bundles_tests_or_duplicates() {
    let (body, symbols) = docs(
        &[
            (
                "index.d.ts",
                "/** Generate secure unique ID with custom alphabet. */\nexport function customAlphabet(alphabet: string, size?: number): () => string\n",
            ),
            (
                "index.js",
                "export function customAlphabet(alphabet, size = 21) {\n  return () => ''\n}\n",
            ),
            (
                "index.browser.js",
                "export let customAlphabet = (alphabet, size = 21) => {\n  return () => ''\n}\n",
            ),
            (
                "nanoid.js",
                "let a=\"useandom-26T198340PX75pxJACKVERYMINDBUSHWOLF_GQZbfghjklqvwyzrict\";export let nanoid=(e=21)=>{let t=\"\",r=crypto.getRandomValues(new Uint8Array(e|=0));for(;e--;)t+=a[63&r[e]];return t};\n",
            ),
            ("test/prebuild.js", "export async function prebuild() {}\n"),
            (
                "url-alphabet/index.js",
                "/** The alphabet. */\nexport const urlAlphabet = 'abc'\n",
            ),
        ],
        ".",
    );
    let mut found: Vec<(&str, &str)> = symbols
        .iter()
        .map(|s| (s.path.as_str(), s.name.as_str()))
        .collect();
    found.sort();
    assert_eq!(
        found,
        [
            ("index.d.ts", "customAlphabet"),
            ("url-alphabet/index.js", "urlAlphabet")
        ],
        "{body}"
    );
    assert!(
        body.contains("```typescript\nfunction customAlphabet("),
        "{body}"
    );
    assert!(
        body.contains("```javascript\nconst urlAlphabet = 'abc'\n```"),
        "{body}"
    );
}

/// An item compiled only with some crate features says so under its heading, as docs.rs
/// does ("Available on crate feature `kv` only."); cfg variants and other conditions do not.
#[test]
fn rust_items_behind_crate_features_say_which() {
    let (body, _) = docs(
        &[
            (
                "Cargo.toml",
                "[package]\nname = \"logs\"\nversion = \"1.0.0\"\n\n[package.metadata.docs.rs]\nall-features = true\n",
            ),
            (
                "src/lib.rs",
                r#"//! Logging.

/// Logs key-values.
#[macro_export]
#[cfg(feature = "kv")]
macro_rules! log_kv { () => {} }

/// Serializes.
#[cfg(any(feature = "serde", feature = "sval"))]
pub fn serialize() {}

/// Both.
#[cfg(all(feature = "std", feature = "kv", feature = "serde"))]
pub fn both() {}

/// Everywhere.
pub fn plain() {}
"#,
            ),
        ],
        ".",
    );
    assert!(
        body.contains("```\n\nAvailable on crate feature `kv` only.\n\nLogs key-values."),
        "{body}"
    );
    assert!(
        body.contains("Available on crate features `serde` or `sval` only.\n\nSerializes."),
        "{body}"
    );
    assert!(
        body.contains("Available on crate features `std` and `kv` and `serde` only.\n\nBoth."),
        "{body}"
    );
    assert_eq!(body.matches("Available on").count(), 3, "{body}");
}

/// docs.rs builds a crate with its default features and those its
/// `[package.metadata.docs.rs]` lists (and what they enable): an item behind any other
/// feature is not in its docs, nor in ours.
#[test]
fn rust_items_behind_features_docs_rs_leaves_off_are_left_out() {
    let lib = r#"//! Logging.

/// Needs std.
#[cfg(feature = "std")]
pub fn flush() {}

/// Key-values.
#[cfg(feature = "kv")]
pub fn key_values() {}

/// Unstable.
#[cfg(feature = "kv_unstable")]
pub fn unstable() {}

/// Either.
#[cfg(any(feature = "kv_unstable", feature = "kv"))]
pub fn either() {}
"#;
    let manifest = |docs_rs: &str| {
        format!(
            "[package]\nname = \"logs\"\nversion = \"1.0.0\"\n{docs_rs}\n[features]\ndefault = [\"std\"]\nstd = []\nkv = []\nkv_serde = [\"kv\", \"dep:serde\"]\nkv_unstable = [\"kv\"]\n"
        )
    };
    let listed = manifest("[package.metadata.docs.rs]\nfeatures = [\"kv_serde\"]\n");
    let (_, symbols) = docs(&[("Cargo.toml", &listed), ("src/lib.rs", lib)], ".");
    assert_eq!(names(&symbols), ["flush", "key_values", "either"]);
    let bare = manifest("");
    let (_, symbols) = docs(&[("Cargo.toml", &bare), ("src/lib.rs", lib)], ".");
    assert_eq!(names(&symbols), ["flush"]);
}

/// A module declared under a feature gate gates every item of its file, as docs.rs builds
/// the crate: labelled when the feature is on, left out when it is off.
#[test]
fn rust_modules_behind_crate_features_gate_their_items() {
    let manifest = "[package]\nname = \"logs\"\nversion = \"1.0.0\"\n\n[package.metadata.docs.rs]\nfeatures = [\"kv_std\"]\n\n[features]\nkv = []\nkv_std = [\"kv\"]\nkv_unstable = [\"kv\"]\n";
    let (body, symbols) = docs(
        &[
            ("Cargo.toml", manifest),
            (
                "src/lib.rs",
                "//! Logging.\n\n#[cfg(feature = \"kv\")]\npub mod kv;\n#[cfg(feature = \"kv_unstable\")]\npub mod unstable;\n\n/// Everywhere.\npub fn plain() {}\n",
            ),
            (
                "src/kv.rs",
                "/// Gets.\npub fn get() {}\n\n/// With std.\n#[cfg(feature = \"kv_std\")]\npub fn std_only() {}\n",
            ),
            ("src/unstable.rs", "/// Unstable.\npub fn try_it() {}\n"),
        ],
        ".",
    );
    assert_eq!(names(&symbols), ["get", "std_only", "plain"]);
    assert!(
        body.contains("Available on crate feature `kv` only.\n\nGets."),
        "{body}"
    );
    assert!(
        body.contains("Available on crate features `kv` and `kv_std` only.\n\nWith std."),
        "{body}"
    );
    assert_eq!(body.matches("Available on").count(), 2, "{body}");
}

#[test]
fn rust_macros_exported_from_a_macro_invocation_or_renamed_by_pub_use() {
    let lib = r#"//! Errors.

#[macro_use]
mod macros;

#[doc(no_inline)]
pub use anyhow as format_err;
"#;
    let macros = r#"/// Make an error.
#[macro_export]
macro_rules! anyhow {
    ($msg:literal) => { () };
}

macro_rules! __ensure {
    ($ensure:item) => {
        /// Return early with an error if a condition is not satisfied.
        ///
        /// See [`anyhow!`][anyhow!].
        ///
        /// [anyhow!]: crate::anyhow
        $ensure
    };
}

#[cfg(doc)]
__ensure![
    #[macro_export]
    macro_rules! ensure {
        ($cond:expr $(,)?) => { if !$cond {} };
        ($cond:expr, $msg:literal) => {{ }};
    }
];

#[cfg(not(doc))]
__ensure![
    #[macro_export]
    macro_rules! ensure {
        ($($tt:tt)*) => {};
    }
];

// A hostile one: no closing bracket.
broken![ #[macro_export] macro_rules! open { ($a:expr) => {
"#;
    let (body, symbols) = docs(
        &[
            (
                "Cargo.toml",
                "[package]\nname = \"errs\"\nversion = \"1.0.0\"\n",
            ),
            ("src/lib.rs", lib),
            ("src/macros.rs", macros),
        ],
        ".",
    );
    let names = names(&symbols);
    for name in ["anyhow!", "ensure!", "format_err!"] {
        assert!(names.contains(&name), "{name}: {names:?}\n{body}");
    }
    assert!(!names.iter().any(|n| n.starts_with("__")), "{names:?}");
    // The variant rustdoc builds (`cfg(doc)`), with the doc the wrapper gives it.
    assert!(
        body.contains("    ($cond:expr, $msg:literal) => { ... };"),
        "{body}"
    );
    assert!(!body.contains("($($tt:tt)*)"), "{body}");
    assert!(
        body.contains("Return early with an error if a condition is not satisfied."),
        "{body}"
    );
    assert!(!body.contains("]: crate::anyhow"), "{body}");
    assert!(body.contains("An alias of [`anyhow!`](#"), "{body}");
}
