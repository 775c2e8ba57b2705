//! TypeScript and JavaScript as TypeDoc documents a package: from its `package.json` entry
//! points, each a module named by the package (`kit`, `kit/fn`); re-exports followed from file
//! to file (`export { a as b } from`, `export *`, `export * as ns`, `export type { T } from`,
//! an import exported again); default exports shown as `default`; `.d.ts` files for a
//! JavaScript package; signatures without `export`. Each test builds a small repository.

use pipeline::{DriftChecker, Provenance};
use testkit::Repo;

use crate::fixture::dev_docs;

/// (path, name) of each documented symbol, sorted.
fn shown(provenance: &Provenance) -> Vec<(String, String)> {
    let mut found: Vec<(String, String)> = provenance
        .symbols
        .iter()
        .map(|s| (s.path.clone(), s.name.clone()))
        .collect();
    found.sort();
    found.dedup();
    found
}

/// The text of the section headed `### `name``, up to the next section.
fn section<'b>(body: &'b str, name: &str) -> &'b str {
    let heading = format!("### `{name}`\n");
    let start = body
        .find(&heading)
        .unwrap_or_else(|| panic!("no section {name}:\n{body}"));
    let rest = &body[start + heading.len()..];
    let end = rest.find("\n### ").map_or(rest.len(), |i| i + 1);
    &rest[..end]
}

fn kit() -> Repo {
    let mut repo = Repo::new();
    repo.write(
        "package.json",
        r#"{
  "name": "kit",
  "exports": {
    ".": {"types": "./dist/index.d.ts", "default": "./dist/index.js"},
    "./fn": "./dist/fn.js",
    "./package.json": "./package.json"
  }
}"#,
    )
    .write(
        "src/index.ts",
        r#"/**
 * Small HTTP kit.
 * @packageDocumentation
 */
import ky from './ky.js';

export { parse, format as render } from './text.js';
export * from './errors';
export * as time from './time';
export type { Options } from './options';
export { default as Client } from './client';
export default ky;
"#,
    )
    .write(
        "src/ky.ts",
        "/** Makes a request. */\nconst ky = (url: string) => fetch(url);\n\nexport default ky;\n",
    )
    .write(
        "src/text.ts",
        "/** Parses text. */\nexport function parse(text: string): number { return 0; }\n\n/** Formats a number. */\nexport function format(n: number): string { return ''; }\n\nexport function internalOnly() {}\n",
    )
    .write(
        "src/errors.ts",
        "/** An HTTP error. */\nexport class HttpError extends Error {\n  /** The status. */\n  status: number = 0;\n}\n\nexport default function notReExported() {}\n",
    )
    .write("src/time.ts", "/** Now. */\nexport function now(): number { return 0; }\n")
    .write(
        "src/options.ts",
        "/** Options. */\nexport interface Options {\n  /** Retries. */\n  retries: number;\n}\n\nexport type Hidden = string;\n",
    )
    .write(
        "src/client.ts",
        "/** A client. */\nexport default class Client {\n  /** Gets. */\n  get(url: string): void {}\n}\n",
    )
    .write(
        "src/fn.ts",
        "/** Runs it. */\nexport default function run(times: number): void {}\n",
    )
    .write("src/orphan.ts", "export function orphan() {}\n");
    repo.commit("feat: kit");
    repo
}

#[test]
fn every_reexport_form_is_followed_from_the_entry_points() {
    let repo = kit();
    let (body, provenance) = dev_docs(&repo, ".");
    let pair = |path: &str, name: &str| (path.to_string(), name.to_string());
    assert_eq!(
        shown(&provenance),
        [
            pair("src/client.ts", "Client"),
            pair("src/client.ts", "Client.get"),
            pair("src/errors.ts", "HttpError"),
            pair("src/errors.ts", "HttpError.status"),
            pair("src/fn.ts", "run"),
            pair("src/ky.ts", "ky"),
            pair("src/options.ts", "Options"),
            pair("src/options.ts", "Options.retries"),
            pair("src/text.ts", "parse"),
            pair("src/text.ts", "render"),
            pair("src/time.ts", "now"),
        ],
        "{body}"
    );
    // Modules are named as TypeDoc names them, the package first; never by file path.
    let kit = section(&body, "kit");
    assert!(kit.starts_with("\nIn `src/index.ts`.\n"), "{kit}");
    assert!(kit.contains("Small HTTP kit."), "{kit}");
    for heading in [
        // A default export under the name it declares, as its users name it.
        "#### Function `ky`",
        "#### Function `parse`",
        "#### Function `render`",
        "#### Class `HttpError`",
        "#### Class `Client`",
        "##### Method `Client.get`",
        "#### Interface `Options`",
    ] {
        assert!(kit.contains(heading), "{heading}:\n{kit}");
    }
    // The default export is the identifier's declaration; its signature has no `export`.
    assert!(
        kit.contains("```typescript\nconst ky = (url: string) => …\n```\n\nImport it with `import ky from \"kit\"`.\n\nMakes a request."),
        "{kit}"
    );
    assert!(
        kit.contains("```typescript\nfunction format(n: number): string\n```"),
        "{kit}"
    );
    let time = section(&body, "kit.time");
    assert!(time.contains("#### Function `now`"), "{time}");
    let run_fn = section(&body, "kit/fn");
    assert!(
        run_fn.contains("#### Function `run`\n\n```typescript\nfunction run(times: number): void\n```\n\nImport it with `import run from \"kit/fn\"`.\n\nRuns it."),
        "{run_fn}"
    );
    let order: Vec<usize> = ["### `kit`", "### `kit.time`", "### `kit/fn`"]
        .iter()
        .map(|h| body.find(h).unwrap())
        .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{body}");
    for absent in [
        "internalOnly",
        "orphan",
        "notReExported",
        "Hidden",
        "### `src/",
        "export ",
        "declare ",
    ] {
        assert!(!body.contains(absent), "{absent}:\n{body}");
    }
}

#[test]
fn a_folder_of_the_package_shows_what_the_entry_points_export_from_it() {
    let repo = kit();
    // `src/index.ts`, the entry point, is outside the feature: it is read for what it
    // exports, its own declarations are not shown.
    let (body, provenance) = dev_docs(&repo, "src/text.ts");
    assert_eq!(
        shown(&provenance),
        [
            ("src/text.ts".to_string(), "parse".to_string()),
            ("src/text.ts".to_string(), "render".to_string()),
        ],
        "{body}"
    );
    assert!(body.contains("### `kit`\n\nIn `src/index.ts`.\n"), "{body}");
    // What the article depends on outside the feature is recorded, so that drift sees it.
    let modules: Vec<&str> = provenance
        .files
        .iter()
        .filter(|f| f.role == pipeline::FileRole::Module)
        .map(|f| f.path.as_str())
        .collect();
    assert!(modules.contains(&"package.json"), "{modules:?}");
    assert!(modules.contains(&"src/index.ts"), "{modules:?}");
}

#[test]
fn reexports_are_not_drift_until_what_they_show_changes() {
    let mut repo = kit();
    let (_, recorded) = dev_docs(&repo, "src");
    let check = |repo: &Repo| {
        DriftChecker::open(&repo.path, &pipeline::Limits::default())
            .unwrap()
            .check(&recorded)
            .unwrap()
    };
    // A comment in a file whose declaration is shown under another name.
    repo.write(
        "src/text.ts",
        repo.read("src/text.ts").replace(
            "export function internalOnly",
            "// helper\nexport function internalOnly",
        ),
    );
    repo.commit("refactor: comment");
    assert_eq!(check(&repo), Vec::new());
    // The entry point stops exporting `render`: the article misses nothing new but shows
    // a symbol that is no longer public.
    repo.write(
        "src/index.ts",
        repo.read("src/index.ts")
            .replace("format as render", "format as show"),
    );
    repo.commit("feat!: rename render");
    let changes = check(&repo);
    let text = changes.iter().find(|c| c.path == "src/text.ts");
    let text = text.unwrap_or_else(|| panic!("{changes:?}"));
    assert!(text.symbols.contains(&"render".to_string()), "{changes:?}");
}

fn monorepo() -> Repo {
    let mut repo = Repo::new();
    repo.write(
        "package.json",
        r#"{"private": true, "workspaces": ["packages/*"]}"#,
    )
    .write(
        "packages/a/package.json",
        r#"{"name": "@acme/a", "type": "module", "exports": {".": "./dist/index.js", "./utils": {"import": "./dist/utils.js"}}}"#,
    )
    .write("packages/a/src/index.ts", "export * from './core.js';\n")
    .write(
        "packages/a/src/core.ts",
        "/** Alpha. */\nexport function alpha(): void {}\n",
    )
    .write(
        "packages/a/src/utils.ts",
        "/** Helps. */\nexport function helper(): void {}\n",
    )
    .write(
        "packages/a/src/internal.ts",
        "export function secret(): void {}\n",
    )
    .write(
        "packages/b/package.json",
        r#"{"name": "@acme/b", "main": "lib/index.js", "types": "lib/index.d.ts"}"#,
    )
    .write(
        "packages/b/tsconfig.json",
        "{\n  // built from code/ to lib/\n  \"compilerOptions\": {\"outDir\": \"./lib\", \"rootDir\": \"./code\",},\n}\n",
    )
    .write(
        "packages/b/code/index.ts",
        "export { beta as default } from './beta';\n",
    )
    .write(
        "packages/b/code/beta.ts",
        "/** Beta. */\nexport function beta(): void {}\n",
    )
    .write(
        "packages/b/code/dist/package.json",
        r#"{"type": "module"}"#,
    )
    .write(
        "packages/b/code/dist/extra.ts",
        "export function unreachable(): void {}\n",
    );
    repo.commit("feat: packages");
    repo
}

#[test]
fn a_monorepo_of_packages_at_its_root_and_at_a_package() {
    let repo = monorepo();
    let (body, provenance) = dev_docs(&repo, ".");
    let names: Vec<String> = shown(&provenance).into_iter().map(|(_, n)| n).collect();
    assert_eq!(names, ["alpha", "helper", "beta"], "{body}");
    assert!(
        section(&body, "@acme/a").contains("#### Function `alpha`"),
        "{body}"
    );
    assert!(
        section(&body, "@acme/a/utils").contains("#### Function `helper`"),
        "{body}"
    );
    let b = section(&body, "@acme/b");
    assert!(b.starts_with("\nIn `packages/b/code/index.ts`.\n"), "{b}");
    assert!(
        b.contains("#### Function `beta`\n\n```typescript\nfunction beta(): void\n```\n\nImport it with `import beta from \"@acme/b\"`.\n\nBeta."),
        "{b}"
    );

    let (body, provenance) = dev_docs(&repo, "packages/a");
    let names: Vec<String> = shown(&provenance).into_iter().map(|(_, n)| n).collect();
    assert_eq!(names, ["alpha", "helper"], "{body}");
    assert!(!body.contains("@acme/b"), "{body}");

    // A folder below the package, its `package.json` and `tsconfig.json` outside it.
    let (body, provenance) = dev_docs(&repo, "packages/b/code");
    let names: Vec<String> = shown(&provenance).into_iter().map(|(_, n)| n).collect();
    assert_eq!(names, ["beta"], "{body}");
}

#[test]
fn a_javascript_package_is_documented_from_its_declaration_files() {
    let mut repo = Repo::new();
    repo.write(
        "package.json",
        r#"{"name": "tinyid", "main": "index.js", "types": "index.d.ts"}"#,
    )
    .write(
        "index.js",
        "export function tinyid(size = 21) { return ''; }\nexport function internal() {}\n",
    )
    .write(
        "index.d.ts",
        "/** Makes an ID. */\nexport declare function tinyid(size?: number): string;\n\nexport { urlAlphabet } from './url-alphabet/index.js';\n",
    )
    .write(
        "url-alphabet/index.js",
        "/** The alphabet. */\nexport const urlAlphabet = 'abc';\n",
    )
    .write("bin/cli.js", "export function main() {}\n");
    repo.commit("feat: tinyid");
    let (body, provenance) = dev_docs(&repo, ".");
    let pair = |path: &str, name: &str| (path.to_string(), name.to_string());
    assert_eq!(
        shown(&provenance),
        [
            pair("index.d.ts", "tinyid"),
            pair("url-alphabet/index.js", "urlAlphabet"),
        ],
        "{body}"
    );
    let tinyid = section(&body, "tinyid");
    assert!(
        tinyid
            .contains("```typescript\nfunction tinyid(size?: number): string\n```\n\nMakes an ID."),
        "{tinyid}"
    );
    assert!(
        tinyid.contains("```javascript\nconst urlAlphabet = 'abc'\n```"),
        "{tinyid}"
    );
}

#[test]
fn without_entry_points_every_file_shows_its_own_exports() {
    let mut repo = Repo::new();
    repo.write("package.json", r#"{"private": true}"#)
        .write(
            "lib/api.ts",
            "/** Local, exported by a list. */\nfunction listed(): void {}\nconst value = 1;\nclass Hidden {}\nexport { listed, value as renamed };\nexport default Hidden;\n",
        )
        .write(
            "lib/other.ts",
            "export * from './api';\nexport function other(): void {}\n",
        );
    repo.commit("feat: api");
    let (body, provenance) = dev_docs(&repo, "lib");
    let pair = |path: &str, name: &str| (path.to_string(), name.to_string());
    assert_eq!(
        shown(&provenance),
        [
            pair("lib/api.ts", "Hidden"),
            pair("lib/api.ts", "listed"),
            pair("lib/api.ts", "renamed"),
            pair("lib/other.ts", "other"),
        ],
        "{body}"
    );
    let api = section(&body, "lib/api.ts");
    assert!(
        api.contains("#### Function `listed`\n\n```typescript\nfunction listed(): void\n```\n\nLocal, exported by a list."),
        "{api}"
    );
    assert!(
        api.contains("#### Class `Hidden`\n\n```typescript\nclass Hidden\n```"),
        "{api}"
    );
    assert!(
        api.contains("#### Constant `renamed`\n\n```typescript\nconst value = 1\n```"),
        "{api}"
    );
}

#[test]
fn namespaces_and_names_exported_twice() {
    let mut repo = Repo::new();
    repo.write(
        "package.json",
        r#"{"name": "schema", "types": "./index.d.ts"}"#,
    )
    .write(
        "index.d.ts",
        "import * as z from './external';\nexport * from './external';\nexport { z };\nexport default z;\n",
    )
    .write(
        "external.ts",
        r#"/** A schema. */
export class ZodType {
  /** Parses, for subclasses. */
  _parse(input: unknown): unknown { return input; }
}
export { ZodType as Schema };

/** Helpers. */
export declare namespace util {
  /** Asserts. */
  function assertEqual(a: unknown, b: unknown): void;
  class Box {
    open(): void;
  }
}

export namespace helpers {
  export const version = 1;
  function hidden(): void {}
}

/** Only what it exports, since it exports some. */
export declare namespace mixed {
  export function shown(): void;
  function notExported(): void;
}
"#,
    );
    repo.commit("feat: schema");
    let (body, _) = dev_docs(&repo, ".");
    for module in ["schema", "schema.z"] {
        let section = section(&body, module);
        for heading in [
            "#### Class `ZodType`",
            "##### Method `ZodType._parse`",
            "#### Class `Schema`",
            "##### Method `Schema._parse`",
            "#### Function `util.assertEqual`",
            "#### Class `util.Box`",
            "##### Method `util.Box.open`",
            "#### Constant `helpers.version`",
            "#### Function `mixed.shown`",
        ] {
            assert!(section.contains(heading), "{module}: {heading}:\n{section}");
        }
    }
    // `export default z` is the namespace `z` again, not a third copy.
    assert!(!body.contains("### `schema.default`"), "{body}");
    assert!(!body.contains("hidden"), "{body}");
    assert!(!body.contains("notExported"), "{body}");
}

#[test]
fn a_declaration_exported_by_name_and_as_the_default_is_shown_once() {
    let mut repo = Repo::new();
    repo.write(
        "package.json",
        r#"{"name": "merge", "exports": {".": {"types": "./dist/index.d.ts", "default": "./dist/index.js"}}}"#,
    )
    .write(
        "src/index.ts",
        "/** Makes a merger. */\nexport function createMerge(): Merge { return merge; }\n\n/** Merges objects. */\nexport const merge = createMerge();\n\nexport default merge;\n\n/** A merger. */\nexport class Merger {\n  /** Runs. */\n  run(): void {}\n}\n",
    );
    repo.commit("feat: merge");
    let (body, provenance) = dev_docs(&repo, ".");
    let pair = |path: &str, name: &str| (path.to_string(), name.to_string());
    assert!(
        !shown(&provenance).contains(&pair("src/index.ts", "default")),
        "{body}"
    );
    assert!(!body.contains("`default`"), "{body}");
    assert_eq!(body.matches("#### Constant `merge`").count(), 1, "{body}");
    assert!(
        body.contains("Import it with `import merge from \"merge\"`."),
        "{body}"
    );
}

#[test]
fn an_overloaded_default_export_says_how_to_import_it_under_its_package_readme() {
    let mut repo = Repo::new();
    repo.write(
        "package.json",
        r#"{"name": "ms", "types": "./dist/index.d.ts", "main": "./dist/index.cjs"}"#,
    )
    .write(
        "src/index.ts",
        "/**\n * Parse or format the given value.\n *\n * @param value - The string or number to convert\n */\nfunction ms(value: string): number;\nfunction ms(value: number): string;\nfunction ms(value: string | number): number | string {\n  return value;\n}\n\nexport default ms;\n",
    );
    repo.write(
        "readme.md",
        "# ms\n\nUse this package to convert time formats to milliseconds.\n\n## Examples\n\n```js\nms('2 days') // 172800000\n```\n",
    );
    repo.commit("feat: ms");
    let (body, _) = dev_docs(&repo, "src");
    // The package's README is TypeDoc's index page, although the feature is its `src`.
    assert!(
        body.contains("## Overview\n\nUse this package to convert time formats"),
        "{body}"
    );
    assert!(body.contains("ms('2 days') // 172800000"), "{body}");
    assert_eq!(body.matches("#### Function `ms`").count(), 1, "{body}");
    assert!(
        body.contains("function ms(value: string): number\nfunction ms(value: number): string\n```\n\nImport it with `import ms from \"ms\"`."),
        "{body}"
    );
}

#[test]
fn overloads_that_repeat_one_example_show_it_once() {
    let mut repo = Repo::new();
    let doc = "/**\n * Does a or b.\n *\n * @example\n *   const either = isOneOf(isNull, isUndefined)\n */\n";
    repo.write(
        "package.json",
        r#"{"name": "guards", "types": "./dist/index.d.ts"}"#,
    )
    .write(
        "src/index.ts",
        format!(
            "{doc}export function isOneOf(a: A): B\n{doc}export function isOneOf(a: A, b: B): C\n{doc}export function isOneOf(a: A, b: B, c: C): D\nexport function isOneOf(...args: any[]): any {{\n  return args\n}}\n"
        ),
    );
    repo.commit("feat: guards");
    let (body, _) = dev_docs(&repo, "src");
    assert_eq!(
        body.matches("const either = isOneOf(isNull, isUndefined)")
            .count(),
        1,
        "{body}"
    );
}

#[test]
fn an_interface_shows_the_members_of_a_base_the_package_does_not_export() {
    let mut repo = Repo::new();
    repo.write(
        "package.json",
        r#"{"name": "kit", "exports": {".": {"types": "./dist/index.d.ts"}}}"#,
    )
    .write(
        "src/index.ts",
        "export type {Options, Shared} from './options.js';\n",
    )
    .write(
        "src/options.ts",
        r#"export type KyOptions = {
	/** Shortcut for sending JSON. */
	json?: unknown;
	/** The method. */
	method?: string;
};

export interface Hidden<T extends object> extends Deeper {
	/** Hidden's own. */
	hidden?: T;
}

export interface Deeper {
	/** From two levels up. */
	deep?: number;
}

/** A documented base. */
export interface Shared {
	/** Shared's own. */
	shared?: boolean;
}

/** Options. */
export interface Options extends KyOptions, Hidden<object>, Shared, Omit<RequestInit, 'headers'> {
	/** Overridden here. */
	method?: 'GET' | 'POST';
}

/** A loop of bases never ends the walk. */
export interface A extends B { a?: 1 }
export interface B extends A { b?: 2 }
"#,
    );
    repo.commit("feat: options");
    let (body, provenance) = dev_docs(&repo, "src");
    let names: Vec<String> = shown(&provenance).into_iter().map(|(_, n)| n).collect();
    for name in [
        "Options.json",
        "Options.hidden",
        "Options.deep",
        "Options.method",
    ] {
        assert!(names.iter().any(|n| n == name), "{name}: {names:?}\n{body}");
    }
    // A base the package documents keeps its members; the type's own member wins.
    assert!(!names.iter().any(|n| n == "Options.shared"), "{names:?}");
    assert_eq!(names.iter().filter(|n| *n == "Options.method").count(), 1);
    assert!(
        body.contains("Overridden here.") && !body.contains("The method."),
        "{body}"
    );
    assert!(body.contains("Shortcut for sending JSON."), "{body}");
}
