//! Each language's items in the order its own documentation tool lists them: `go doc`'s
//! constants, variables, functions, types, with a type's constants under it; rustdoc's
//! methods as the `impl` declares them; Python's members as the source declares them;
//! TypeDoc's by name.

use crate::fixture::{dev_docs, repo_of};

/// The byte offset of `needle` in `article`, which must hold it.
fn at(article: &str, needle: &str) -> usize {
    article
        .find(needle)
        .unwrap_or_else(|| panic!("{needle:?} is not in:\n{article}"))
}

fn in_order(article: &str, needles: &[&str]) {
    for pair in needles.windows(2) {
        assert!(
            at(article, pair[0]) < at(article, pair[1]),
            "{:?} should come before {:?} in:\n{article}",
            pair[0],
            pair[1]
        );
    }
}

const LEVELS_GO: &str = r#"// Package levels logs at levels.
package levels

// Level is a logging level.
type Level uint32

// These are the levels.
const (
	// PanicLevel is the highest level.
	PanicLevel Level = iota
	// ErrorLevel is for errors.
	ErrorLevel
)

// MaxSize is not of a declared type.
const MaxSize = 10

// Default is the default logger's name.
var Default = "root"

// Parse reads a level.
func Parse(s string) (Level, error) { return PanicLevel, nil }

// Apply applies a level.
func Apply(l Level) {}

// String names the level.
func (l Level) String() string { return "" }

// Entry is a log entry.
type Entry struct{}
"#;

#[test]
fn go_lists_constants_variables_functions_then_types_with_their_constants() {
    let repo = repo_of(&[
        ("go.mod", "module example.com/levels\n\ngo 1.21\n"),
        ("levels.go", LEVELS_GO),
    ]);
    let article = dev_docs(&repo, ".").0;
    in_order(
        &article,
        &[
            "#### Constant `MaxSize`",
            "#### Variable `Default`",
            "#### Function `Apply`",
            "#### Struct `Entry`",
            "#### Type `Level`",
            "##### Constant `PanicLevel`",
            "##### Constant `ErrorLevel`",
            "##### Constructor `Parse`",
            "##### Method `Level.String`",
        ],
    );
    // Shown once each, under their type only.
    assert_eq!(
        article.matches("Constant `PanicLevel`").count(),
        1,
        "{article}"
    );
    assert!(article.contains("const ErrorLevel Level = 1"), "{article}");
}

#[test]
fn rust_methods_keep_the_impl_order_and_python_members_the_source_order() {
    let repo = repo_of(&[
        (
            "Cargo.toml",
            "[package]\nname = \"order\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
        ),
        (
            "src/lib.rs",
            "//! Ordering.\n\n/// A stack.\npub struct Stack;\n\nimpl Stack {\n    /// Makes one.\n    pub fn new() -> Self { Stack }\n    /// Pushes.\n    pub fn push(&mut self) {}\n    /// Clears.\n    pub fn clear(&mut self) {}\n}\n\n/// Zeta comes last by name.\npub fn zeta() {}\n\n/// Alpha comes first by name.\npub fn alpha() {}\n",
        ),
    ]);
    let article = dev_docs(&repo, ".").0;
    in_order(&article, &["`Stack::push`", "`Stack::clear`"]);
    in_order(&article, &["Function `alpha`", "Function `zeta`"]);

    let repo = repo_of(&[
        (
            "pyproject.toml",
            "[project]\nname = \"queue\"\nversion = \"1.0\"\n",
        ),
        (
            "queue/__init__.py",
            "\"\"\"Queues.\"\"\"\n\n\ndef zeta():\n    \"\"\"Zeta first: declared first.\"\"\"\n\n\ndef alpha():\n    \"\"\"Alpha second.\"\"\"\n\n\nclass Queue:\n    \"\"\"A queue.\"\"\"\n\n    def put(self, item):\n        \"\"\"Puts.\"\"\"\n\n    def get(self):\n        \"\"\"Gets.\"\"\"\n",
        ),
    ]);
    let article = dev_docs(&repo, "queue").0;
    in_order(&article, &["`zeta`", "`alpha`"]);
    in_order(&article, &["`Queue.put`", "`Queue.get`"]);
}

const STATE_PY: &str = r#""""Retry state."""


class RetryCallState:
    """State of one call."""

    def __init__(self, fn, retry_object):
        #: Retry call start timestamp
        self.start_time = 0.0
        #: Function wrapped by this retry call
        self.fn = fn
        self.undocumented = 1
        self._private = 2
        #: The number of the current attempt
        self.attempt_number: int = 1
        self.outcome = None
        """Last outcome produced by the function."""
"#;

#[test]
fn python_instance_attributes_documented_in_init_are_fields() {
    let repo = repo_of(&[
        (
            "pyproject.toml",
            "[project]\nname = \"state\"\nversion = \"1.0\"\n",
        ),
        ("state/__init__.py", STATE_PY),
    ]);
    let article = dev_docs(&repo, "state").0;
    for shown in [
        "`start_time`: Retry call start timestamp",
        "`fn`: Function wrapped by this retry call",
        "`attempt_number: int`: The number of the current attempt",
        "`outcome`: Last outcome produced by the function.",
    ] {
        assert!(article.contains(shown), "{shown:?} is not in:\n{article}");
    }
    assert!(!article.contains("undocumented"), "{article}");
    assert!(!article.contains("_private"), "{article}");
}

#[test]
fn a_commonjs_declaration_file_documents_what_export_assigns() {
    let repo = repo_of(&[
        (
            "package.json",
            r#"{"name": "paint", "version": "1.0.0", "types": "index.d.ts", "main": "index.js"}"#,
        ),
        (
            "index.d.ts",
            "declare namespace paint {\n\t/** A color function. */\n\tinterface Color {\n\t\t(x: string): string;\n\t}\n}\n\n/** The painter. */\ndeclare let paint: paint.Color & { enabled: boolean };\nexport = paint;\n",
        ),
        ("index.js", "module.exports = {};\n"),
    ]);
    let article = dev_docs(&repo, ".").0;
    assert!(article.contains("`paint`"), "{article}");
    assert!(article.contains("A color function."), "{article}");
    assert!(article.contains("The painter."), "{article}");
}

const README: &str = "# Paint <img src=\"logo.png\" width=\"40\"/> [![CI](https://ci.example/badge.svg)](https://ci.example)\n\nPaints terminal text.\n\nPaint is small and fast.\n\n## Usage\n\nCall `paint`.\n";

#[test]
fn a_go_or_typescript_readme_comes_first_and_a_documented_rust_crate_shows_none() {
    // TypeDoc and pkg.go.dev show a package's README above its reference.
    let repo = repo_of(&[
        (
            "package.json",
            r#"{"name": "paint", "version": "1.0.0", "description": "Paints terminal text."}"#,
        ),
        ("README.md", README),
        ("index.ts", "/** Paints. */\nexport function paint() {}\n"),
    ]);
    let article = dev_docs(&repo, ".").0;
    in_order(
        &article,
        &[
            "Paints terminal text.",
            "## Overview",
            "Paint is small and fast.",
            "## API reference",
        ],
    );
    // The summary is not said twice, nor the README's logo and badges shown.
    assert_eq!(
        article.matches("Paints terminal text.").count(),
        1,
        "{article}"
    );
    assert!(!article.contains("badge.svg"), "{article}");
    assert!(!article.contains("logo.png"), "{article}");

    // rustdoc shows what the crate documents: its README only when nothing does.
    let crate_files = |lib: &'static str| {
        repo_of(&[
            (
                "Cargo.toml",
                "[package]\nname = \"paint\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
            ),
            ("README.md", README),
            ("src/lib.rs", lib),
        ])
    };
    let documented = dev_docs(
        &crate_files("//! Paints.\n\n/// Paints.\npub fn paint() {}\n"),
        ".",
    )
    .0;
    assert!(
        !documented.contains("Paint is small and fast."),
        "{documented}"
    );
    let undocumented = dev_docs(&crate_files("/// Paints.\npub fn paint() {}\n"), ".").0;
    in_order(
        &undocumented,
        &["Paint is small and fast.", "## API reference"],
    );
}

#[test]
fn a_readme_the_package_comment_repeats_is_not_shown_twice() {
    let readme = "# errs\n\nPackage errs provides simple error handling primitives.\n\n## Install\n\n`go get example.com/errs`\n";
    let repo = repo_of(&[
        ("go.mod", "module example.com/errs\n\ngo 1.21\n"),
        ("README.md", readme),
        (
            "bench/README.md",
            "Results of the benchmarks, in nanoseconds per operation.\n",
        ),
        (
            "errs.go",
            "// Package errs provides simple error handling primitives.\n//\n// More words.\npackage errs\n\n// New makes one.\nfunc New() error { return nil }\n",
        ),
    ]);
    let article = dev_docs(&repo, ".").0;
    assert!(!article.contains("## Overview"), "{article}");
    assert!(!article.contains("go get example.com/errs"), "{article}");
    assert_eq!(
        article
            .matches("provides simple error handling primitives")
            .count(),
        1,
        "{article}"
    );
    // A README without a title is named after its folder.
    assert!(article.contains("## Bench\n"), "{article}");

    // Python's `TYPE_CHECKING = False` idiom is no constant of the API.
    let repo = repo_of(&[
        (
            "pyproject.toml",
            "[project]\nname = \"tc\"\nversion = \"1.0\"\n",
        ),
        (
            "tc/__init__.py",
            "\"\"\"Typed.\"\"\"\n\nTYPE_CHECKING = False\nif TYPE_CHECKING:\n    import os\n\nLIMIT = 3\n\"\"\"The limit.\"\"\"\n",
        ),
    ]);
    let article = dev_docs(&repo, "tc").0;
    assert!(!article.contains("TYPE_CHECKING"), "{article}");
    assert!(article.contains("Constant `LIMIT`"), "{article}");
}

#[test]
fn rust_items_are_grouped_by_kind_as_rustdoc_lists_them() {
    let repo = repo_of(&[
        (
            "Cargo.toml",
            "[package]\nname = \"guard\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
        ),
        (
            "src/lib.rs",
            "//! Guards.\n\n/// Always runs.\n#[derive(Debug, Clone)]\npub enum Always {}\n\n/// A strategy.\npub trait Strategy {}\n\n/// A type alias.\npub type Guarded = ScopeGuard;\n\n/// The guard.\npub struct ScopeGuard;\n\n/// Another strategy.\npub enum OnSuccess {}\n",
        ),
    ]);
    let article = dev_docs(&repo, ".").0;
    // Structs, then Enums, Traits and Type Aliases, each by name.
    in_order(
        &article,
        &[
            "Struct `ScopeGuard`",
            "Enum `Always`",
            "Enum `OnSuccess`",
            "Trait `Strategy`",
            "Type `Guarded`",
        ],
    );
}

#[test]
fn a_cargo_description_over_several_lines_keeps_its_spaces() {
    let repo = repo_of(&[
        (
            "Cargo.toml",
            "[package]\nname = \"guard\"\nversion = \"0.1.0\"\nedition = \"2021\"\ndescription = \"\"\"\nA guard that runs a closure when it goes out of scope,\neven if the code between panics.\n\nDefines the macro `defer!` as\nshorthand for a guard.\n\"\"\"\n",
        ),
        ("src/lib.rs", "/// Runs it.\npub fn guard() {}\n"),
    ]);
    let article = dev_docs(&repo, ".").0;
    assert!(
        article.contains("goes out of scope, even if the code between panics. Defines the macro `defer!` as shorthand for a guard."),
        "{article}"
    );
}

#[test]
fn the_crate_docs_do_not_repeat_the_summary_above_them() {
    let repo = repo_of(&[
        (
            "Cargo.toml",
            "[package]\nname = \"slab\"\nversion = \"0.1.0\"\nedition = \"2021\"\ndescription = \"Pre-allocated storage for a uniform data type\"\n",
        ),
        (
            "src/lib.rs",
            "//! Pre-allocated storage for a uniform data type.\n//!\n//! `Slab` provides pre-allocated storage.\n\n/// A slab.\npub struct Slab;\n",
        ),
    ]);
    let article = dev_docs(&repo, ".").0;
    assert_eq!(
        article
            .matches("Pre-allocated storage for a uniform data type.")
            .count(),
        1,
        "{article}"
    );
    assert!(
        article.contains("`Slab` provides pre-allocated storage."),
        "{article}"
    );
}

#[test]
fn go_const_and_var_blocks_keep_their_source_order() {
    let repo = repo_of(&[
        ("go.mod", "module example.com/ids\n\ngo 1.21\n"),
        (
            "ids.go",
            "// Package ids makes ids.\npackage ids\n\n// Constants returned by Variant.\nconst (\n\tInvalid = 0 // Invalid id\n\tFuture = 1 // Reserved for future definition.\n)\n\n// Domains.\nconst (\n\tPerson = 0\n\tGroup = 1\n)\n\nvar (\n\tNil = 0 // empty id\n\tMax = 1\n)\n",
        ),
    ]);
    let article = dev_docs(&repo, ".").0;
    in_order(
        &article,
        &[
            "#### Constant `Invalid`",
            "#### Constant `Future`",
            "#### Constant `Person`",
            "#### Constant `Group`",
            "#### Variable `Nil`",
            "#### Variable `Max`",
        ],
    );
    assert!(
        article.contains("Reserved for future definition."),
        "{article}"
    );
    assert!(article.contains("empty id"), "{article}");
}

#[test]
fn typescript_types_are_grouped_as_typedoc_groups_them() {
    let repo = repo_of(&[
        (
            "package.json",
            r#"{"name": "net", "version": "1.0.0", "types": "index.ts"}"#,
        ),
        (
            "index.ts",
            "/** A hook. */\nexport type AfterHook = () => void;\n\n/** An error. */\nexport class HTTPError extends Error {}\n\n/** Hooks. */\nexport interface Hooks { after?: AfterHook[] }\n\n/** Another error. */\nexport class KyError extends Error {}\n\n/** Input. */\nexport type Input = string;\n",
        ),
    ]);
    let article = dev_docs(&repo, ".").0;
    in_order(
        &article,
        &[
            "#### Class `HTTPError`",
            "#### Class `KyError`",
            "#### Interface `Hooks`",
            "#### Type `AfterHook`",
            "#### Type `Input`",
        ],
    );
}
