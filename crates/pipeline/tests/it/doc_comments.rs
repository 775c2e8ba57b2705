//! Doc comments whole, as each language's tool renders them: Google, NumPy and reST
//! docstrings; JSDoc/TSDoc tags; Go doc paragraphs; rustdoc sections. Deprecations as a
//! warning with their replacement, and links between symbols resolved to the article's
//! anchors (or the language's public docs). Each article is also compiled by the reference
//! MDX compiler when it is installed.

use crate::devdocs::docs;
use crate::mdx_js::assert_compiles;

fn anchor_of(body: &str, heading: &str) -> String {
    let at = body
        .find(heading)
        .unwrap_or_else(|| panic!("no {heading}:\n{body}"));
    let before = &body[..at];
    let id = before
        .rfind("<a id=\"")
        .expect("an anchor before the heading");
    let rest = &before[id + "<a id=\"".len()..];
    rest[..rest.find('"').unwrap_or(0)].to_string()
}

#[test]
fn python_docstrings_in_every_style_with_roles_and_deprecations() {
    let python = r#"
"""The shop."""
import warnings


class Cart:
    """A shopping cart.

    Holds items until :meth:`checkout`; see :class:`~shop.Order`.

    Args:
        owner (str): Who owns the cart.
        limit: How many items
            it may hold.

    Raises:
        ValueError: When ``limit`` is negative.
    """

    def __init__(self, owner, limit=10):
        pass

    def checkout(self, pay):
        """Pay and empty the cart.

        Parameters
        ----------
        pay : callable
            Called with the total.

        Returns
        -------
        Order
            The placed order.
        """

    @warnings.deprecated("Use checkout() instead.")
    def buy(self):
        """Buy everything."""


class Order:
    """An order.

    :param number: its number.
    :type number: int
    :returns: nothing.

    .. deprecated:: 2.0
       Use :class:`Cart` instead.
    """
"#;
    let (body, _) = docs(&[("shop/__init__.py", python)], "shop");
    assert_compiles(&[("python".into(), body.clone())]);
    // The whole description, roles as links to the symbols' anchors.
    let checkout = anchor_of(&body, "##### Method `Cart.checkout`");
    let order = anchor_of(&body, "#### Class `Order`");
    assert!(
        body.contains(&format!(
            "Holds items until [`checkout()`](#{checkout}); see [`Order`](#{order})."
        )),
        "{body}"
    );
    // Google, NumPy and reST sections as lists.
    for expected in [
        "**Parameters:**",
        "- `owner` (`str`) – Who owns the cart.",
        "- `limit` – How many items it may hold.",
        "**Raises:**",
        "- `ValueError` – When `limit` is negative.",
        "- `pay` (`callable`) – Called with the total.",
        "**Returns:**",
        "- `Order` – The placed order.",
        "- `number` (`int`) – its number.",
    ] {
        assert!(body.contains(expected), "missing {expected}:\n{body}");
    }
    // Deprecations, from a decorator and from a directive, as warnings.
    assert!(
        body.contains("<Warning>\n\n**Deprecated.** Use checkout() instead.\n\n</Warning>"),
        "{body}"
    );
    let cart = anchor_of(&body, "#### Class `Cart`");
    assert!(
        body.contains(&format!(
            "**Deprecated.** Since version 2.0. Use [`Cart`](#{cart}) instead."
        )),
        "{body}"
    );
    for leaked in [
        ":meth:",
        ":class:",
        ".. deprecated",
        "----------",
        "``limit``",
    ] {
        assert!(!body.contains(leaked), "{leaked} leaked:\n{body}");
    }
}

#[test]
fn jsdoc_tags_go_paragraphs_and_rust_attributes() {
    let ts = r#"/**
 * Options of a request; see {@link request}.
 */
export interface Options {
  /**
   * How often to retry.
   * @default 2
   */
  retry?: number;
}

/**
 * Sends a request.
 *
 * @param url - Where to send it.
 * @param {Options} [options] - How.
 * @returns The response body.
 * @throws {HTTPError} When the status is not 2xx.
 * @deprecated Use {@link send} instead.
 */
export function request(url: string, options?: Options): Promise<string> {
  return send(url, options);
}

/** Sends. */

export function send(url: string, options?: Options): Promise<string> {
  return fetch(url).then((r) => r.text());
}

/** @hidden */
export function secret(): void {}
"#;
    let go = "package lib\n\n// Open opens a store, as [Store.Close] undoes.\n// It reads [os.File] values.\n//\n// Deprecated: Use [OpenStore] instead.\nfunc Open() *Store { return nil }\n\n// OpenStore opens.\nfunc OpenStore() *Store { return nil }\n\n// Store keeps data.\ntype Store struct{}\n\n// Close closes.\n//\n//\tif err := s.Close(); err != nil {}\nfunc (s *Store) Close() error { return nil }\n";
    let rust = "/// A value.\npub struct Value;\n\n#[doc = \" Written by a \\\"macro\\\".\"]\npub struct Generated;\n\n/// Parses a [`Value`], see [`serde::Deserialize`].\n///\n/// # Errors\n///\n/// Fails on bad input.\n#[deprecated(since = \"0.3.0\", note = \"use `Value::parse` instead\")]\npub fn parse(text: &str) -> Value { Value }\n";
    let (body, symbols) = docs(
        &[
            ("lib/src/client.ts", ts),
            ("lib/store.go", go),
            ("lib/src/lib.rs", rust),
        ],
        "lib",
    );
    assert_compiles(&[("mixed".into(), body.clone())]);
    // TypeScript.
    let send = anchor_of(&body, "#### Function `send`");
    // A JSDoc comment documents the declaration after it across a blank line, as in TypeDoc.
    assert!(
        body.contains("#### Function `send`\n\n```typescript\nfunction send(")
            && body.contains("```\n\nSends."),
        "{body}"
    );
    assert!(
        body.contains(&format!("**Deprecated.** Use [`send`](#{send}) instead.")),
        "{body}"
    );
    for expected in [
        "- `url` – Where to send it.",
        "- `options` (`Options`) – How.",
        "- The response body.",
        "**Throws:**",
        "- `HTTPError` – When the status is not 2xx.",
        "How often to retry. Default: `2`.",
    ] {
        assert!(body.contains(expected), "missing {expected}:\n{body}");
    }
    assert!(!symbols.iter().any(|s| s.name == "secret"), "{body}");
    // Go: doc links, the indented line as code, the deprecation.
    let close = anchor_of(&body, "##### Method `Store.Close`");
    assert!(
        body.contains(&format!(
            "Open opens a store, as [`Store.Close`](#{close}) undoes.\nIt reads [`os.File`](https://pkg.go.dev/os#File) values."
        )),
        "{body}"
    );
    // Listed under `Store`, the type it returns, as pkg.go.dev lists it.
    let open_store = anchor_of(&body, "##### Constructor `OpenStore`");
    assert!(
        body.contains(&format!(
            "**Deprecated.** Use [`OpenStore`](#{open_store}) instead."
        )),
        "{body}"
    );
    assert!(
        body.contains("```\nif err := s.Close(); err != nil {}\n```"),
        "{body}"
    );
    // Rust: the attribute, the section, links in the crate and to docs.rs.
    let value = anchor_of(&body, "#### Struct `Value`");
    assert!(
        body.contains(&format!(
            "Parses a [`Value`](#{value}), see [`serde::Deserialize`](https://docs.rs/serde/latest/serde/?search=Deserialize)."
        )),
        "{body}"
    );
    assert!(body.contains("**Errors**\n\nFails on bad input."), "{body}");
    assert!(
        body.contains("#### Struct `Generated`\n\n```rust\npub struct Generated")
            && body.contains("```\n\nWritten by a \"macro\"."),
        "{body}"
    );
    assert!(
        body.contains("**Deprecated.** Since 0.3.0: use `Value::parse` instead"),
        "{body}"
    );
}

#[test]
fn module_docs_and_field_docs_are_whole() {
    let rust = "//! Encodes data as hex.\n//!\n//! # Examples\n//!\n//! ```\n//! # use hexa::encode;\n//! assert_eq!(encode(\"a\"), \"61\");\n//! ```\n//!\n//! See [`encode`].\n\n/// Encodes.\npub fn encode(data: &str) -> String { String::new() }\n";
    let long: String = (0..60)
        .map(|i| format!("// Sentence number {i} of the package comment.\n"))
        .collect();
    let go = format!(
        "{long}package store\n\n// Options configure a store.\ntype Options struct {{\n\t// Path is where data lives.\n\t// It must be writable.\n\tPath string\n}}\n"
    );
    // A package comment in a block comment, as gorilla/mux writes its doc.go.
    let doc_go = "/*\nPackage router routes requests.\n\nRegister a path:\n\n\tr := router.New()\n\tr.Handle(\"/{key}\", h)\n\nThat is all.\n*/\npackage router\n";
    let (body, _) = docs(
        &[
            ("hexa/src/lib.rs", rust),
            ("hexa/store/store.go", &go),
            ("hexa/router/doc.go", doc_go),
        ],
        "hexa",
    );
    assert_compiles(&[("modules".into(), body.clone())]);
    let encode = anchor_of(&body, "#### Function `encode`");
    assert!(
        body.contains(&format!(
            "Encodes data as hex.\n\n#### Examples\n\n```rust\nassert_eq!(encode(\"a\"), \"61\");\n```\n\nSee [`encode`](#{encode})."
        )),
        "{body}"
    );
    assert!(!body.contains("# use hexa"), "{body}");
    assert!(
        body.contains("Register a path:\n\n```\nr := router.New()\nr.Handle(\"/{key}\", h)\n```\n\nThat is all."),
        "{body}"
    );
    // The package comment is not cut at a bound of a few paragraphs.
    assert!(
        body.contains("Sentence number 59 of the package comment."),
        "{body}"
    );
    // A field's doc is its whole comment, not its first sentence.
    assert!(
        body.contains("Path is where data lives. It must be writable."),
        "{body}"
    );
}

#[test]
fn links_to_rustdoc_pages_lead_to_the_article_or_read_as_text() {
    let lib = "//! Storage.\n//!\n//! # Capacity and reallocation\n//!\n//! Use [`Slab::with_capacity`] when you can.\n//!\n//! [`Slab::with_capacity`]: struct.Slab.html#method.with_capacity\n\n/// A slab. See the [module documentation] for more details.\n///\n/// [module documentation]: index.html\npub struct Slab;\n\nimpl Slab {\n    /// Makes one. For the difference between length and capacity, see [Capacity and\n    /// reallocation](index.html#capacity-and-reallocation).\n    pub fn with_capacity(n: usize) -> Slab { Slab }\n}\n";
    let (body, _) = docs(
        &[
            (
                "Cargo.toml",
                "[package]\nname = \"slab\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
            ),
            ("src/lib.rs", lib),
        ],
        ".",
    );
    let method = anchor_of(&body, "##### Method `Slab::with_capacity`");
    assert!(
        body.contains(&format!(
            "Use [`Slab::with_capacity`](#{method}) when you can."
        )),
        "{body}"
    );
    assert!(
        body.contains("See the module documentation for more details."),
        "{body}"
    );
    assert!(body.contains("see Capacity and reallocation."), "{body}");
    assert!(!body.contains(".html"), "{body}");
    assert_compiles(&[("rustdoc-pages".into(), body)]);
}
