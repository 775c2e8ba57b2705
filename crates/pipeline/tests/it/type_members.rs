//! What a type holds beyond its methods: the members of a TypeScript object type alias, as
//! TypeDoc's "Type declaration" lists them; a field's doc of several paragraphs beneath its
//! list item; a Rust type's trait implementations, as rustdoc lists them.

use crate::fixture::{dev_docs, repo_of};
use crate::mdx_js::assert_compiles;

const OPTIONS_TS: &str = r#"type Timeout = {
	/** Per-operation timeout in milliseconds. */
	readonly timeout?: number;
};

/** Options of a queue. */
export type Options = {
	/**
	Concurrency limit.

	Minimum: `1`.

	@default Infinity
	*/
	readonly concurrency?: number;

	/**
	Whether to use strict mode.

	@default false

	For example, with `intervalCap: 2`:
	- __Default mode__: tasks can burst.
	- __Strict mode__: they cannot.

	```js
	new Queue({strict: true});
	```
	*/
	readonly strict?: boolean;

	/**
	Fetch the given `url`.

	@param url - Where to go.
	@returns A promise.

	A common use is to add a search parameter:

	@example
	```
	await queue.get('https://example.com');
	```
	*/
	get: (url: string) => Promise<void>;
} & Timeout;

/** A plain alias stays whole. */
export type Priority = 'low' | 'high';
"#;

#[test]
fn an_object_type_alias_lists_its_properties_with_their_whole_docs() {
    let repo = repo_of(&[
        (
            "package.json",
            r#"{"name": "queue", "version": "1.0.0", "types": "index.ts"}"#,
        ),
        ("index.ts", OPTIONS_TS),
    ]);
    let article = dev_docs(&repo, ".").0;
    assert_compiles(&[("options".into(), article.clone())]);
    assert!(
        article.contains("```typescript\ntype Options = { … } & Timeout\n```"),
        "{article}"
    );
    assert!(
        article.contains("`readonly concurrency?: number`: Concurrency limit. Default: `Infinity`.\n\n  Minimum: `1`.\n"),
        "{article}"
    );
    // The prose after `@default`'s value is the property's, beneath its line with its list
    // and code.
    assert!(
        article.contains("`readonly strict?: boolean`: Whether to use strict mode. Default: `false`.\n\n  For example, with `intervalCap: 2`:\n"),
        "{article}"
    );
    assert!(
        article.contains("\n  ```js\n  new Queue({strict: true});\n  ```\n"),
        "{article}"
    );
    assert!(
        article.contains("type Priority = 'low' | 'high'"),
        "{article}"
    );
    // A property's parameters, returns and examples follow its text, beneath its line.
    assert!(
        article.contains("\n  **Parameters:**\n\n  - `url` – Where to go.\n"),
        "{article}"
    );
    assert!(
        article.contains("\n  ```typescript\n  await queue.get('https://example.com');\n  ```\n"),
        "{article}"
    );
    // The private alias's property is not the exported alias's.
    assert!(!article.contains("Per-operation timeout"), "{article}");
}

const SHAPES_RS: &str = r#"//! Shapes.

use std::fmt;

mod extra;

/// A shape.
pub struct Shape<T> {
    /// Its size.
    pub size: T,
}

impl<T> Shape<T> {
    /// Its size, doubled.
    pub fn double(&self) -> usize { 0 }
}

/// Shows the size.
impl<T: fmt::Display> fmt::Display for Shape<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result { write!(f, "{}", self.size) }
}

impl<T> Clone for Shape<T>
where
    T: Clone,
{
    fn clone(&self) -> Self { Shape { size: self.size.clone() } }
}

impl<T> Marker for &T {}

/// Implemented by everything.
pub trait Marker {}

struct Hidden;

impl Marker for Hidden {}
"#;

#[test]
fn a_rust_type_lists_the_traits_it_implements() {
    let repo = repo_of(&[
        (
            "Cargo.toml",
            "[package]\nname = \"shapes\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
        ),
        ("src/lib.rs", SHAPES_RS),
        (
            "src/extra.rs",
            "use crate::Shape;\n\nimpl<T> Shape<T> {\n    /// Its area.\n    pub fn area(&self) -> u32 { 0 }\n}\n\nimpl Default for Shape<u8> {\n    fn default() -> Self { Shape { size: 0 } }\n}\n",
        ),
    ]);
    let article = dev_docs(&repo, ".").0;
    assert_compiles(&[("shapes".into(), article.clone())]);
    let shape = &article[article.find("#### Struct `Shape`").expect(&article)..];
    let listed = shape.find("Trait implementations:\n").expect(&article);
    assert!(
        shape.find("##### Method `Shape::double`").expect(&article) < listed,
        "{article}"
    );
    let list = &shape[listed..];
    // By trait, the `where` clause whole, its last comma gone; the impl's doc beside it.
    let clone = list
        .find("`impl<T> Clone for Shape<T> where T: Clone`")
        .expect(&article);
    let display = list
        .find("`impl<T: fmt::Display> fmt::Display for Shape<T>`: Shows the size.")
        .expect(&article);
    assert!(clone < display, "{article}");
    // An `impl` in a private module of the crate adds to the type where it is shown.
    assert!(list.contains("`impl Default for Shape<u8>`"), "{article}");
    assert!(shape.contains("##### Method `Shape::area`"), "{article}");
    assert!(!article.contains("### `shapes::extra`"), "{article}");
    // The trait's methods are the trait's docs, not the type's; impls for references and
    // for private types are not listed.
    assert!(!article.contains("fn fmt"), "{article}");
    assert!(!article.contains("for &T"), "{article}");
    assert!(!article.contains("Hidden"), "{article}");
}

#[test]
fn a_callable_interface_shows_its_call_signature_and_rust_shows_non_exhaustive() {
    let repo = repo_of(&[
        (
            "package.json",
            r#"{"name": "merge", "version": "1.0.0", "types": "index.ts"}"#,
        ),
        (
            "index.ts",
            "/** Merges. */\nexport interface Merger {\n  <T extends object>(\n    target: T,\n    ...sources: T[]\n  ): T;\n  new (seed: number): Merger;\n  /** Its name. */\n  name: string;\n}\n",
        ),
    ]);
    let article = dev_docs(&repo, ".").0;
    assert!(
        article.contains("```typescript\ninterface Merger {\n  <T extends object>(target: T, ...sources: T[]): T;\n  new (seed: number): Merger;\n}\n```"),
        "{article}"
    );
    assert!(article.contains("`name: string`: Its name."), "{article}");

    let repo = repo_of(&[
        (
            "Cargo.toml",
            "[package]\nname = \"ops\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
        ),
        (
            "src/lib.rs",
            "//! Ops.\n\nmod private;\n\n/// An operator.\n#[non_exhaustive]\n#[derive(Debug)]\npub enum Op {\n    /// Equal.\n    Eq,\n}\n",
        ),
        (
            "src/private.rs",
            "struct Hidden;\n\nimpl std::fmt::Display for Hidden {\n    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result { Ok(()) }\n}\n",
        ),
    ]);
    let article = dev_docs(&repo, ".").0;
    assert!(
        article.contains("```rust\n#[non_exhaustive]\npub enum Op {"),
        "{article}"
    );
    // Derived traits are among its implementations, as rustdoc lists them.
    assert!(
        article.contains("`impl Debug for Op`: Derived."),
        "{article}"
    );
    // A private module holding only an impl for a private type has no section.
    assert!(!article.contains("ops::private"), "{article}");
    assert!(!article.contains("Hidden"), "{article}");
}

#[test]
fn a_long_type_alias_is_shown_whole_and_a_mapped_type_is_not_elided() {
    let units: String = (1..=30).map(|i| format!("\n  | 'unit{i}'")).collect();
    let repo = repo_of(&[(
        "src/index.ts",
        &format!(
            "/** A unit. */\nexport type Unit ={units};\n\n/** Any plain object. */\nexport type PlainObject = {{ [key in string | number | symbol]: unknown }}\n"
        ),
    )]);
    let (body, _) = dev_docs(&repo, "src");
    // TypeDoc shows a type's whole declaration: 30 lines, not 12 and "…".
    assert!(body.contains("  | 'unit30'\n```"), "{body}");
    assert!(!body.contains("\n…\n```"), "{body}");
    assert!(
        body.contains("type PlainObject = { [key in string | number | symbol]: unknown }"),
        "{body}"
    );
    assert_compiles(&[("long-type".to_string(), body)]);
}

#[test]
fn same_named_rust_types_of_two_inline_modules_stay_two() {
    let repo = repo_of(&[
        (
            "Cargo.toml",
            "[package]\nname = \"cells\"\nversion = \"1.0.0\"\n",
        ),
        (
            "src/lib.rs",
            r#"//! Two cells, [`unsync::Cell`] and [`sync::Cell`]; see [`std::error::Error`].
//!
//! [`unsync::Cell`]: unsync/struct.Cell.html

/// Not thread safe.
pub mod unsync {
    /// A cell for one thread.
    pub struct Cell;

    impl Cell {
        /// Makes a cell.
        pub fn new() -> Cell { Cell }
    }
}

/// Thread safe.
pub mod sync {
    /// A cell for many threads.
    pub struct Cell;

    impl Cell {
        /// Makes a cell.
        pub fn new() -> Cell { Cell }

        /// Blocks until set.
        pub fn wait(&self) {}
    }

    mod private {
        pub struct Hidden;
    }
}
"#,
        ),
    ]);
    let (body, _) = dev_docs(&repo, ".");
    let section = |name: &str| {
        let start = body
            .find(&format!("### `{name}`\n"))
            .unwrap_or_else(|| panic!("no {name}: {body}"));
        let rest = &body[start + 1..];
        &rest[..rest.find("\n### ").unwrap_or(rest.len())]
    };
    let sync = section("cells::sync");
    let unsync = section("cells::unsync");
    assert!(
        sync.contains("A cell for many threads.") && sync.contains("Cell::wait"),
        "{sync}"
    );
    assert!(
        unsync.contains("A cell for one thread.") && !unsync.contains("Cell::wait"),
        "{unsync}"
    );
    assert!(sync.contains("In `src/lib.rs`."), "{sync}");
    assert!(!body.contains("Hidden"), "{body}");
    // Each link goes to its own type; the standard library's `Error` goes to its docs.
    assert!(
        body.contains("[`unsync::Cell`](#src-unsync-rs-Cell)"),
        "{body}"
    );
    assert!(body.contains("[`sync::Cell`](#src-sync-rs-Cell)"), "{body}");
    assert!(
        body.contains("(https://doc.rust-lang.org/std/?search=error%3A%3AError)"),
        "{body}"
    );
}
