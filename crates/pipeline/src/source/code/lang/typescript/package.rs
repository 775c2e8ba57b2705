//! A JavaScript or TypeScript package's entry points, as TypeDoc finds them: `package.json`
//! `exports` (a string, conditions, or a map of subpaths), else `types`/`typings`, `module`
//! and `main`; each built file (`dist/index.js`, `dist/index.d.ts`) mapped back to the source
//! it was built from (tsconfig `outDir` → `rootDir`, or the same stem under `src/`), else the
//! file itself when it is in the repository (a JavaScript package with hand-written types).

use serde_json::Value;

/// A package with more entry points than this is read for the first ones only.
const MAX_ENTRIES: usize = 64;

/// How deep conditions nest in `exports` (`{"import": {"types": …, "default": …}}`).
const MAX_CONDITION_DEPTH: usize = 8;

/// Conditions, in the order a target is taken: the types first (what TypeDoc documents),
/// then the module a bundler or Node.js loads.
const CONDITIONS: &[&str] = &[
    "types", "typings", "import", "module", "default", "require", "node", "browser",
];

/// Source extensions of a stem, in the order they are preferred: TypeScript, declarations,
/// then JavaScript (which a `.d.ts` beside it stands for).
const SOURCE_EXTENSIONS: &[&str] = &[
    ".ts", ".tsx", ".mts", ".cts", ".d.ts", ".d.mts", ".d.cts", ".js", ".jsx", ".mjs", ".cjs",
];

/// Built-file extensions, longest first.
const BUILT_EXTENSIONS: &[&str] = &[
    ".d.ts", ".d.mts", ".d.cts", ".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs",
];

/// What a `package.json` says about the package's public modules.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PackageJson {
    /// Its `name`; `None` for a `package.json` that only sets options (`{"type": "module"}`).
    pub name: Option<String>,
    /// Each entry point: its subpath (`.` for the main one, `./utils`) and the files it
    /// names, preferred first.
    pub entries: Vec<(String, Vec<String>)>,
}

impl PackageJson {
    /// `None` when the text is no JSON object.
    pub fn parse(text: &str) -> Option<Self> {
        let value: Value = serde_json::from_str(text).ok()?;
        let object = value.as_object()?;
        let name = object
            .get("name")
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|n| !n.is_empty() && n.len() <= 214)
            .map(str::to_string);
        let mut entries: Vec<(String, Vec<String>)> = Vec::new();
        match object.get("exports") {
            Some(Value::Object(map)) if map.keys().any(|k| k.starts_with('.')) => {
                for (subpath, target) in map.iter().take(MAX_ENTRIES) {
                    // Patterns (`./*`) name no one module; `./package.json` is no script.
                    if !subpath.starts_with('.') || subpath.contains('*') {
                        continue;
                    }
                    let mut files = Vec::new();
                    targets(target, 0, &mut files);
                    if !files.is_empty() {
                        entries.push((normal_subpath(subpath), files));
                    }
                }
            }
            Some(exports) => {
                let mut files = Vec::new();
                targets(exports, 0, &mut files);
                if !files.is_empty() {
                    entries.push((".".into(), files));
                }
            }
            None => {}
        }
        if entries.is_empty() {
            let files: Vec<String> = ["types", "typings", "module", "main"]
                .iter()
                .filter_map(|key| object.get(*key).and_then(Value::as_str))
                .map(str::to_string)
                .collect();
            if !files.is_empty() {
                entries.push((".".into(), files));
            }
        }
        // `source` (microbundle's and Parcel's convention) names the main entry's source.
        if let Some(source) = object.get("source").and_then(Value::as_str) {
            match entries.iter_mut().find(|(subpath, _)| subpath == ".") {
                Some((_, files)) => files.insert(0, source.to_string()),
                None => entries.push((".".into(), vec![source.to_string()])),
            }
        }
        Some(Self { name, entries })
    }
}

/// `./utils/` and `./utils` are one subpath.
fn normal_subpath(subpath: &str) -> String {
    let trimmed = subpath.trim_end_matches('/');
    if trimmed.is_empty() || trimmed == "." {
        ".".into()
    } else {
        trimmed.to_string()
    }
}

/// The files an `exports` target names, in [`CONDITIONS`] order, then any other condition's.
fn targets(value: &Value, depth: usize, out: &mut Vec<String>) {
    if depth > MAX_CONDITION_DEPTH || out.len() >= MAX_ENTRIES {
        return;
    }
    match value {
        Value::String(file) if !out.contains(file) => out.push(file.clone()),
        Value::Array(list) => {
            for item in list.iter().take(MAX_ENTRIES) {
                targets(item, depth + 1, out);
            }
        }
        Value::Object(map) => {
            for condition in CONDITIONS {
                if let Some(inner) = map.get(*condition) {
                    targets(inner, depth + 1, out);
                }
            }
            for (condition, inner) in map.iter().take(MAX_ENTRIES) {
                if !CONDITIONS.contains(&condition.as_str()) {
                    targets(inner, depth + 1, out);
                }
            }
        }
        _ => {}
    }
}

/// What a `tsconfig.json` says about where sources are built from and to.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct TsConfig {
    pub out_dir: Option<String>,
    pub root_dir: Option<String>,
    /// The folders `include` names (`["source"]`, `["src/**/*"]` → `src`).
    pub include_dirs: Vec<String>,
}

impl TsConfig {
    /// A `tsconfig.json` (JSON with comments and trailing commas); default when it does not
    /// read.
    pub fn parse(text: &str) -> Self {
        let Ok(value) = serde_json::from_str::<Value>(&strict_json(text)) else {
            return Self::default();
        };
        let options = value.get("compilerOptions");
        let dir = |key: &str| {
            options
                .and_then(|o| o.get(key))
                .and_then(Value::as_str)
                .and_then(relative)
                .filter(|d| !d.is_empty())
        };
        let include_dirs = value
            .get("include")
            .and_then(Value::as_array)
            .map(|list| {
                let mut dirs: Vec<String> = Vec::new();
                for item in list.iter().take(16).filter_map(Value::as_str) {
                    let fixed: Vec<&str> = item
                        .split('/')
                        .take_while(|part| !part.contains(['*', '?', '.']) || *part == ".")
                        .filter(|part| *part != ".")
                        .collect();
                    let dir = fixed.join("/");
                    if !dir.is_empty() && !dirs.contains(&dir) {
                        dirs.push(dir);
                    }
                }
                dirs
            })
            .unwrap_or_default();
        Self {
            out_dir: dir("outDir"),
            root_dir: dir("rootDir"),
            include_dirs,
        }
    }
}

/// JSON with comments (`//`, `/* */`) and trailing commas made plain JSON.
fn strict_json(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            match c {
                '\\' => out.extend(chars.next()),
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match (c, chars.peek()) {
            ('"', _) => {
                in_string = true;
                out.push(c);
            }
            ('/', Some('/')) => {
                for next in chars.by_ref() {
                    if next == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            ('/', Some('*')) => {
                chars.next();
                let mut last = ' ';
                for next in chars.by_ref() {
                    if last == '*' && next == '/' {
                        break;
                    }
                    last = next;
                }
                out.push(' ');
            }
            _ => out.push(c),
        }
    }
    // A comma followed only by blanks before `}` or `]`.
    let mut cleaned = String::with_capacity(out.len());
    let mut in_string = false;
    let mut escaped = false;
    let chars: Vec<char> = out.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if in_string {
            cleaned.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
            continue;
        }
        if c == '"' {
            in_string = true;
        }
        if c == ',' {
            let next = chars[i + 1..].iter().find(|c| !c.is_whitespace());
            if matches!(next, Some('}' | ']')) {
                continue;
            }
        }
        cleaned.push(c);
    }
    cleaned
}

/// A path relative to a package folder, normalised: `./dist/` → `dist`; `None` when it leaves
/// the folder or is absolute.
pub(crate) fn relative(path: &str) -> Option<String> {
    if path.starts_with('/') || path.contains('\\') || path.contains(':') {
        return None;
    }
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            part => parts.push(part),
        }
    }
    Some(parts.join("/"))
}

/// `dir/rest` for a folder of the repository (`""` is its root).
pub(crate) fn join(dir: &str, rest: &str) -> String {
    match (dir.is_empty(), rest.is_empty()) {
        (true, _) => rest.to_string(),
        (_, true) => dir.to_string(),
        _ => format!("{dir}/{rest}"),
    }
}

/// The source file of the package in `dir` that `target` (an entry point, relative to the
/// package) is built from, as TypeDoc maps it: tsconfig `outDir` replaced by `rootDir` (or
/// the folder `include` names), the same stem under `src/` or `source/` for a file under
/// a build folder, else the target itself (or its `.d.ts`) when the repository has it.
pub(crate) fn source_of(
    dir: &str,
    target: &str,
    tsconfig: &TsConfig,
    exists: &mut dyn FnMut(&str) -> bool,
) -> Option<String> {
    let target = relative(target)?;
    let stem = BUILT_EXTENSIONS
        .iter()
        .find_map(|ext| target.strip_suffix(ext))
        .unwrap_or(&target)
        .to_string();
    let mut stems: Vec<String> = Vec::new();
    let mut roots: Vec<&str> = Vec::new();
    roots.extend(tsconfig.root_dir.as_deref());
    roots.extend(tsconfig.include_dirs.iter().map(String::as_str));
    roots.extend(["src", "source"]);
    if let Some(rest) = tsconfig
        .out_dir
        .as_deref()
        .and_then(|out| stem.strip_prefix(out))
        .and_then(|rest| rest.strip_prefix('/'))
    {
        for root in &roots {
            stems.push(join(root, rest));
        }
    }
    // A file under a build folder (`dist/index`, `dist/esm/index`): the same stem under a
    // source folder, with up to three leading folders dropped.
    let parts: Vec<&str> = stem.split('/').collect();
    for drop in 1..parts.len().min(4) {
        let rest = parts[drop..].join("/");
        for root in &roots {
            stems.push(join(root, &rest));
        }
    }
    stems.push(stem.clone());
    // An ES module or CommonJS target (`clsx.d.mts`, `index.cjs`) is looked for in its own
    // flavour first: `clsx.d.mts` is itself, not the `clsx.d.ts` beside it.
    let flavour: &[&str] = if target.ends_with(".mts") || target.ends_with(".mjs") {
        &[".mts", ".d.mts", ".mjs"]
    } else if target.ends_with(".cts") || target.ends_with(".cjs") {
        &[".cts", ".d.cts", ".cjs"]
    } else {
        &[]
    };
    for stem in &stems {
        for candidate in [stem.clone(), join(stem, "index")] {
            for ext in flavour.iter().chain(SOURCE_EXTENSIONS) {
                let path = join(dir, &format!("{candidate}{ext}"));
                if exists(&path) {
                    return Some(path);
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_points_of_every_package_json_form() {
        // Sorted: the order of a JSON object's keys depends on serde_json's features.
        let entries = |text: &str| {
            PackageJson::parse(text).map(|p| {
                let mut entries = p.entries;
                entries.sort();
                entries
            })
        };
        let one = |subpath: &str, files: &[&str]| {
            (
                subpath.to_string(),
                files.iter().map(|f| f.to_string()).collect::<Vec<_>>(),
            )
        };
        assert_eq!(
            entries(r#"{"name": "a", "exports": "./index.js"}"#),
            Some(vec![one(".", &["./index.js"])])
        );
        assert_eq!(
            entries(
                r#"{"exports": {"require": "./a.cjs", "import": {"types": "./a.d.mts", "default": "./a.mjs"}}}"#
            ),
            Some(vec![one(".", &["./a.d.mts", "./a.mjs", "./a.cjs"])])
        );
        assert_eq!(
            entries(
                r#"{"exports": {".": {"types": "./dist/index.d.ts", "default": "./dist/index.js"}, "./utils": "./dist/utils.js", "./*": "./dist/*.js", "./package.json": "./package.json"}}"#
            ),
            Some(vec![
                one(".", &["./dist/index.d.ts", "./dist/index.js"]),
                one("./package.json", &["./package.json"]),
                one("./utils", &["./dist/utils.js"]),
            ])
        );
        assert_eq!(
            entries(r#"{"main": "lib/index.js", "types": "lib/index.d.ts"}"#),
            Some(vec![one(".", &["lib/index.d.ts", "lib/index.js"])])
        );
        assert_eq!(
            entries(
                r#"{"source": "src/index.ts", "main": "dist/mitt.js", "exports": {"types": "./index.d.ts"}}"#
            ),
            Some(vec![one(".", &["src/index.ts", "./index.d.ts"])])
        );
        assert_eq!(entries(r#"{"type": "module"}"#), Some(vec![]));
        assert_eq!(entries("not json"), None);
    }

    #[test]
    fn built_files_map_back_to_their_sources() {
        let files = [
            "packages/a/src/index.ts",
            "packages/a/src/utils/index.ts",
            "source/index.ts",
            "index.d.ts",
            "index.js",
        ];
        let mut exists = |p: &str| files.contains(&p);
        let none = TsConfig::default();
        assert_eq!(
            source_of("packages/a", "./dist/index.d.ts", &none, &mut exists).as_deref(),
            Some("packages/a/src/index.ts")
        );
        assert_eq!(
            source_of(
                "packages/a",
                "./dist/esm/utils/index.mjs",
                &none,
                &mut exists
            )
            .as_deref(),
            Some("packages/a/src/utils/index.ts")
        );
        let ky = TsConfig::parse(
            "{\n  // built to distribution\n  \"compilerOptions\": {\"outDir\": \"distribution\",},\n  \"include\": [\"source\"],\n}",
        );
        assert_eq!(ky.out_dir.as_deref(), Some("distribution"));
        assert_eq!(ky.include_dirs, ["source"]);
        assert_eq!(
            source_of("", "./distribution/index.js", &ky, &mut exists).as_deref(),
            Some("source/index.ts")
        );
        assert_eq!(
            source_of("", "./index.js", &none, &mut exists).as_deref(),
            Some("index.d.ts")
        );
        // An ES module's declarations are themselves, not the CommonJS ones beside them.
        let clsx = ["clsx.d.ts", "clsx.d.mts", "src/index.js", "src/lite.js"];
        let mut in_clsx = |p: &str| clsx.contains(&p);
        assert_eq!(
            source_of("", "./clsx.d.mts", &none, &mut in_clsx).as_deref(),
            Some("clsx.d.mts")
        );
        assert_eq!(
            source_of("", "./clsx.d.ts", &none, &mut in_clsx).as_deref(),
            Some("clsx.d.ts")
        );
        assert_eq!(
            source_of("", "./dist/lite.mjs", &none, &mut in_clsx).as_deref(),
            Some("src/lite.js")
        );
        assert_eq!(source_of("", "../outside.js", &none, &mut exists), None);
        assert_eq!(source_of("", "./missing.js", &none, &mut exists), None);
    }
}
