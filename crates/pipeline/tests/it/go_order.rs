//! Go as pkg.go.dev shows a module: its root package first, then the packages under it by
//! import path; functions that return a type of the package (`NewX`, `Parse`) listed under
//! that type, as `go/doc` groups them.

use testkit::Repo;

fn dev_docs(repo: &Repo, feature: &str) -> String {
    crate::fixture::dev_docs(repo, feature).0
}

const UUID_GO: &str = r#"// Package uuid generates and inspects UUIDs.
package uuid

import (
	"io"
	"net/http"
)

// A UUID is a 128 bit identifier.
type UUID [16]byte

// Version is a UUID's version.
type Version byte

// New returns a random UUID.
func New() UUID { return UUID{} }

// Parse decodes s into a UUID.
func Parse(s string) (UUID, error) { return UUID{}, nil }

// NewRandomFromReader returns a UUID read from r.
func NewRandomFromReader(r io.Reader) (*UUID, error) { return nil, nil }

// All returns many.
func All(n int) []UUID { return nil }

// Must panics on err.
func Must(uuid UUID, err error) UUID { return uuid }

// Validate reports whether s is a UUID.
func Validate(s string) error { return nil }

// NewString returns a random UUID as a string.
func NewString() string { return "" }

// Zero returns the zero value of any type.
func Zero[T any]() T { var t T; return t }

// Both returns a UUID and its version: two types, listed with the functions.
func Both() (UUID, Version) { return UUID{}, 0 }

// Client returns a client of another package.
func Client() *http.Client { return nil }

// Version returns the UUID's version.
func (u UUID) Version() Version { return 0 }
"#;

fn uuid() -> Repo {
    let mut repo = Repo::new();
    repo.write("go.mod", "module github.com/acme/uuid\n\ngo 1.21\n")
        .write("uuid.go", UUID_GO)
        .write(
            "cmp/cmp.go",
            "// Package cmp compares UUIDs.\npackage cmp\n\n// Less reports whether a sorts first.\nfunc Less(a, b string) bool { return a < b }\n",
        )
        .write(
            "adapter/adapter.go",
            "// Package adapter adapts UUIDs.\npackage adapter\n\n// Options configure an adapter.\ntype Options struct{}\n",
        )
        .write(
            "adapter/new.go",
            "package adapter\n\n// NewOptions returns default options.\nfunc NewOptions() *Options { return &Options{} }\n",
        );
    repo.commit("feat: uuid");
    repo
}

#[test]
fn the_root_package_of_a_module_comes_first() {
    let body = dev_docs(&uuid(), ".");
    let headings: Vec<&str> = body.lines().filter(|l| l.starts_with("### ")).collect();
    // `package uuid` sorts after `package adapter` and `package cmp` by name; pkg.go.dev
    // shows the module's root package, then the others by import path.
    assert_eq!(
        headings,
        [
            "### `package uuid`",
            "### `package adapter`",
            "### `package cmp`"
        ],
        "{body}"
    );
}

#[test]
fn functions_returning_a_type_of_the_package_are_listed_under_it() {
    let body = dev_docs(&uuid(), ".");
    let uuid_type = body.find("#### Type `UUID`").expect(&body);
    let version_type = body.find("#### Type `Version`").expect(&body);
    let functions: Vec<usize> = [
        "#### Function `Both`",
        "#### Function `Client`",
        "#### Function `NewString`",
        "#### Function `Validate`",
        "#### Function `Zero`",
    ]
    .iter()
    .map(|h| body.find(h).unwrap_or_else(|| panic!("{h}:\n{body}")))
    .collect();
    for constructor in [
        "##### Constructor `All`",
        "##### Constructor `Must`",
        "##### Constructor `New`",
        "##### Constructor `NewRandomFromReader`",
        "##### Constructor `Parse`",
    ] {
        let at = body
            .find(constructor)
            .unwrap_or_else(|| panic!("{constructor}:\n{body}"));
        assert!(
            uuid_type < at && at < version_type,
            "{constructor}:\n{body}"
        );
    }
    assert!(
        functions.iter().all(|f| *f < uuid_type),
        "functions before the types, as `go doc` lists them:\n{body}"
    );
    // The constructor of a type declared in another file of the package.
    let options = body.find("#### Struct `Options`").expect(&body);
    let new_options = body.find("##### Constructor `NewOptions`").expect(&body);
    assert!(options < new_options, "{body}");
    // Its signature and its doc, as any function's.
    assert!(
        body.contains(
            "```go\nfunc Parse(s string) (UUID, error)\n```\n\nParse decodes s into a UUID."
        ),
        "{body}"
    );
}

#[test]
fn a_constructor_whose_type_is_outside_the_feature_is_a_function() {
    let body = dev_docs(&uuid(), "adapter/new.go");
    assert!(body.contains("#### Function `NewOptions`"), "{body}");
    assert!(!body.contains("Constructor"), "{body}");
}

#[test]
fn a_readme_does_not_repeat_the_examples_of_the_package_comment() {
    let mut repo = Repo::new();
    repo.write("go.mod", "module github.com/acme/color\n\ngo 1.21\n")
        .write(
            "README.md",
            "# color\n\nColor lets you print in colors.\n\n## Install\n\n```\ngo get github.com/acme/color\n```\n\n## Examples\n\n### Standard colors\n\n```go\n// Print with default helper functions\ncolor.Cyan(\"Prints text in cyan.\")\n\n// A newline will be appended automatically\ncolor.Blue(\"Prints %s in blue.\", \"text\")\n```\n\n### GitHub Actions\n\nSet `color.NoColor = false` to force colors in CI.\n",
        )
        .write(
            "doc.go",
            "/*\nPackage color prints in colors.\n\nUse simple and default helper functions:\n\n\tcolor.Cyan(\"Prints text in cyan.\")\n\n\t// a newline will be appended automatically\n\tcolor.Blue(\"Prints %s in blue.\", \"text\")\n*/\npackage color\n",
        )
        .write(
            "color.go",
            "package color\n\n// Cyan prints in cyan.\nfunc Cyan(format string, a ...interface{}) {}\n\n// Blue prints in blue.\nfunc Blue(format string, a ...interface{}) {}\n",
        );
    repo.commit("feat: color");
    let body = dev_docs(&repo, ".");
    // The package comment shows the example once, under the package.
    assert_eq!(
        body.matches("color.Cyan(\"Prints text in cyan.\")").count(),
        1,
        "{body}"
    );
    assert!(!body.contains("Standard colors"), "{body}");
    assert!(body.contains("go get github.com/acme/color"), "{body}");
    assert!(
        body.contains("### Examples\n\n#### GitHub Actions"),
        "{body}"
    );
}
