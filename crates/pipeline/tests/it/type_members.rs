//! The members of a TypeScript object type alias, as TypeDoc's "Type declaration" lists
//! them, and a field's doc of several paragraphs beneath its list item.

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
    // The private alias's property is not the exported alias's.
    assert!(!article.contains("Per-operation timeout"), "{article}");
}
