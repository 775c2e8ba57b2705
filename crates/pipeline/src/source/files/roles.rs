//! What a repository file is for, decided in one place: tests, housekeeping (documentation,
//! CI, tooling, lock files), generated scripts and internal packages; Markdown documents about
//! the project rather than its features are told apart in `documents`.

// Code: tests, generated scripts, internal packages.

/// Whether `path` holds tests, benchmarks or test fixtures rather than API.
pub(crate) fn is_test_file(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    let file = lower.rsplit('/').next().unwrap_or(&lower);
    let dirs: Vec<&str> = lower.split('/').collect();
    let dirs = &dirs[..dirs.len().saturating_sub(1)];
    let in_dir = |names: &[&str]| dirs.iter().any(|d| names.contains(d));
    if file.ends_with("_test.go") {
        return true;
    }
    if file.ends_with(".rs") {
        return in_dir(&["tests", "benches"]);
    }
    if file.ends_with(".py") || file.ends_with(".pyi") {
        return in_dir(&["tests", "test"])
            || file.starts_with("test_")
            || file.ends_with("_test.py")
            || file == "conftest.py";
    }
    let script = [".ts", ".tsx", ".js", ".jsx", ".mts", ".cts", ".mjs", ".cjs"]
        .iter()
        .any(|ext| file.ends_with(ext));
    if script {
        let stem_parts: Vec<&str> = file.split('.').collect();
        return in_dir(&["__tests__", "__mocks__", "test", "tests"])
            || stem_parts
                .iter()
                .skip(1)
                .any(|part| *part == "test" || *part == "spec");
    }
    false
}

/// Whether `path` lies in a folder of tests, fixtures, snapshots or benchmarks, whatever its
/// language (Svelte's `tests/runtime/samples/x/main.svelte`, Go's `testdata/`), or is a test
/// file itself: what a feature larger than `max_feature_files` leaves out first.
pub(crate) fn in_test_tree(path: &str) -> bool {
    const DIRS: [&str; 12] = [
        "test",
        "tests",
        "__tests__",
        "testdata",
        "fixtures",
        "__fixtures__",
        "__snapshots__",
        "snapshots",
        "bench",
        "benches",
        "benchmarks",
        "e2e",
    ];
    let lower = path.to_ascii_lowercase();
    let mut dirs = lower.split('/');
    dirs.next_back();
    dirs.any(|d| DIRS.contains(&d)) || is_test_file(path)
}

/// Whether `path` is private by its language's convention to anything outside it, as seen from
/// `feature_id` (a folder, a file or a manifest id): a Go `internal/` package (Go lets only the
/// tree rooted at `internal`'s parent import it), or a Python module or package whose name
/// starts with an underscore (`_impl.py`, `_vendor/`; `__init__.py` and `__main__.py` are
/// public). A feature inside the private part itself still documents it.
pub(crate) fn is_hidden_internal(path: &str, feature_id: &str) -> bool {
    let segments: Vec<&str> = path.split('/').collect();
    let private_at = if path.ends_with(".go") {
        segments[..segments.len().saturating_sub(1)]
            .iter()
            .position(|s| *s == "internal")
    } else if path.ends_with(".py") || path.ends_with(".pyi") {
        segments.iter().position(|s| is_private_segment(s))
    } else {
        None
    };
    let Some(at) = private_at else {
        return false;
    };
    let private_root = segments[..=at].join("/");
    let feature = feature_id.trim_matches('/');
    !(feature == private_root || feature.starts_with(&format!("{private_root}/")))
}

/// Whether the Python module at `path` is private by its name: a folder or file on its path
/// starts with an underscore (`_impl.py`, `_vendor/six.py`), other than a dunder name
/// (`__init__.py`, `__main__.py`).
pub(crate) fn is_python_private(path: &str) -> bool {
    path.split('/').any(is_private_segment)
}

fn is_private_segment(segment: &str) -> bool {
    let stem = segment
        .strip_suffix(".pyi")
        .or_else(|| segment.strip_suffix(".py"))
        .unwrap_or(segment);
    segment.starts_with('_') && !(stem.starts_with("__") && stem.ends_with("__") && stem.len() > 4)
}

// Code that is no API: examples, benchmarks, mocks, scripts, hooks, build helpers.

/// Folders whose code is never API wherever they are: examples (`examples/`, Go's ignored
/// `_examples/`), benchmarks, test data, generated mocks (mockery's `mocks/`), scripts and
/// documentation sites (`docs/conf.py`, a docs site's components).
const NON_API_FOLDERS: &[&str] = &[
    "examples",
    "example",
    "_examples",
    "benches",
    "bench",
    "benchmarks",
    "benchmark",
    "testdata",
    "mocks",
    "scripts",
    "docs",
    ".githooks",
    "githooks",
    "git-hooks",
    ".husky",
];

/// Folders whose code is no API at the top of the repository; below it a package of that
/// name can be API (a React library's `src/hooks/`, Airflow's `airflow/hooks/`). Not for Go,
/// whose packages are API wherever they sit.
const TOP_NON_API_FOLDERS: &[&str] = &["hooks", "script", "doc", "xtask", "fuzz", "ci"];

/// Files that build, test or release a project, never import it: Python's `setup.py` and
/// task runners, Go's `magefile.go`, Rust's `build.rs`.
const BUILD_FILES: &[&str] = &[
    "setup.py",
    "noxfile.py",
    "conftest.py",
    "fabfile.py",
    "dodo.py",
    "pavement.py",
    "magefile.go",
    "build.rs",
];

/// Such files only at the top of the repository, where they are helpers; elsewhere a module
/// of that name can be API (`pkg/tasks.py` of a task queue).
const TOP_BUILD_FILES: &[&str] = &["tasks.py", "make.py", "build.py", "manage.py", "release.py"];

/// JavaScript task runners and tools' configuration files (`webpack.config.js`,
/// `vite.config.ts`, `karma.conf.js`, `Gruntfile.js`), outside a `src/` or `lib/` folder.
fn is_script_config(file: &str) -> bool {
    let lower = file.to_ascii_lowercase();
    let Some((stem, ext)) = lower.rsplit_once('.') else {
        return false;
    };
    if !matches!(ext, "js" | "ts" | "mjs" | "cjs" | "mts" | "cts") {
        return false;
    }
    let runner = ["gulpfile", "gruntfile", "jakefile"].contains(&stem);
    runner || stem.ends_with(".config") || stem.ends_with(".conf") || stem.starts_with('.')
}

/// Where the part of `path` that is no API starts: the index of the folder (or file) that
/// makes it so, or `None` when it is API as far as its place says.
fn non_api_root(path: &str) -> Option<usize> {
    let segments: Vec<&str> = path.split('/').collect();
    let last = segments.len().checked_sub(1)?;
    let file = segments[last];
    let lower: Vec<String> = segments.iter().map(|s| s.to_ascii_lowercase()).collect();
    // A Rust file under `src/` is a module of its crate: rustdoc decides by visibility.
    let crate_module_from = if file.ends_with(".rs") {
        lower[..last].iter().position(|s| s == "src")
    } else {
        None
    };
    let folders = &lower[..crate_module_from.unwrap_or(last)];
    let go = file.ends_with(".go");
    if let Some(at) = folders.iter().enumerate().position(|(i, folder)| {
        NON_API_FOLDERS.contains(&folder.as_str())
            // A Go folder is a package its import path names, wherever it is (logrus's
            // `hooks/syslog`): only the go tool's own rules below hide one.
            || (i == 0 && !go && TOP_NON_API_FOLDERS.contains(&folder.as_str()))
            // The go tool ignores folders starting with `_` or `.`; mockgen writes `mock_x/`.
            || (go && (folder.starts_with('_') || folder.starts_with('.') || folder.starts_with("mock_")))
    }) {
        return Some(at);
    }
    let name = lower[last].as_str();
    let in_src_or_lib = lower[..last].iter().any(|s| s == "src" || s == "lib");
    let build_file = (BUILD_FILES.contains(&name) && crate_module_from.is_none())
        || (last == 0 && TOP_BUILD_FILES.contains(&name))
        || (!in_src_or_lib && is_script_config(name));
    // mockgen's and mockery's file names.
    let go_mock = go
        && (name.starts_with("mock_") || name.ends_with("_mock.go") || name.ends_with("_mocks.go"));
    (build_file || go_mock).then_some(last)
}

/// Whether `path` holds code that is no API of the project, by its place, as seen from
/// `scope` (a feature's folder, file or manifest path): examples and example crates,
/// benchmarks, test data, generated mocks, scripts and hooks, documentation sites, build
/// helpers (see the lists above). As with `internal` packages and tests of other languages'
/// tools, a feature that is itself such a folder or file (`examples/`, `scripts/deploy.py`)
/// or lies inside one still documents it: its reader asked for exactly that code.
pub(crate) fn is_non_api(path: &str, scope: &str) -> bool {
    let Some(at) = non_api_root(path) else {
        return false;
    };
    let root = path.split('/').take(at + 1).collect::<Vec<_>>().join("/");
    let scope = scope.trim_matches('/');
    !(scope == root || scope.starts_with(&format!("{root}/")))
}

/// The header line of a mock a generator wrote.
const MOCK_GENERATORS: &[&str] = &[
    "Code generated by MockGen",
    "Code generated by mockery",
    "Code generated by moq",
    "Code generated by counterfeiter",
];

/// Whether a source file says it is no API in its first lines: a generated mock (MockGen,
/// mockery, moq, counterfeiter), or a Go file the go tool builds only on request
/// (`//go:build ignore`, `tools`, `mage`), which pkg.go.dev leaves out.
pub(crate) fn is_non_api_source(path: &str, text: &str) -> bool {
    let head = text.lines().take(12);
    let go = path.ends_with(".go");
    for line in head {
        let line = line.trim();
        let mock = MOCK_GENERATORS.iter().any(|m| line.contains(m));
        if mock && (line.starts_with("//") || line.starts_with('#')) {
            return true;
        }
        if go {
            let constraint = line
                .strip_prefix("//go:build ")
                .or_else(|| line.strip_prefix("// +build "));
            if constraint.is_some_and(|c| matches!(c.trim(), "ignore" | "tools" | "mage")) {
                return true;
            }
        }
    }
    false
}

/// Whether a script is build output rather than source, which TypeDoc is never pointed at:
/// a `.min.js`, a generated or bundled file by its header (`@generated`, `DO NOT EDIT`,
/// webpack's `/******/`, a leading `/* eslint-disable */`), or minified code: a line of code
/// (not of a comment) longer than 1,000 characters, or a long line packed with statements
/// (`;` followed by code, not a space, three times or more), as no formatter writes. A
/// declaration file (`.d.ts`) is never build output to leave out.
pub(crate) fn is_generated_script(path: &str, text: &str) -> bool {
    let file = path.rsplit('/').next().unwrap_or(path).to_ascii_lowercase();
    let script = [".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx"]
        .iter()
        .any(|ext| file.ends_with(ext));
    if !script {
        return false;
    }
    if [".min.js", ".min.mjs", ".min.cjs", "-min.js", ".bundle.js"]
        .iter()
        .any(|ext| file.ends_with(ext))
    {
        return true;
    }
    // A declaration file is the API TypeDoc reads, generated or not.
    let declarations = [".d.ts", ".d.mts", ".d.cts"]
        .iter()
        .any(|ext| file.ends_with(ext));
    let header: String = text.lines().take(5).collect::<Vec<_>>().join("\n");
    if !declarations
        && (header.contains("@generated")
            || header.contains("DO NOT EDIT")
            || header.contains("/******/")
            || header.trim_start().starts_with("/* eslint-disable */"))
    {
        return true;
    }
    // Declarations are written by the compiler or by hand, never minified; their long lines
    // are types (a tuple of 40 names).
    if declarations {
        return false;
    }
    // A paragraph of a doc comment can be one long line (ky's JSDoc); minified code is not in
    // a comment.
    let mut in_comment = false;
    text.lines().take(10_000).any(|line| {
        let line = line.trim();
        // A license comment before minified code on the same line does not hide the code.
        let comment_only = line.starts_with("/*")
            && line
                .find("*/")
                .is_none_or(|close| line[close + 2..].trim().is_empty());
        let commented = in_comment || line.starts_with("//") || comment_only;
        if let (Some(open), close) = (line.rfind("/*"), line.rfind("*/")) {
            in_comment = close.is_none_or(|close| close < open);
        } else if in_comment && line.contains("*/") {
            in_comment = false;
        }
        if commented || line.starts_with('*') {
            return false;
        }
        if line.len() > 1_000 {
            return true;
        }
        if line.len() < 120 {
            return false;
        }
        let bytes = line.as_bytes();
        let packed = bytes
            .windows(2)
            .filter(|w| w[0] == b';' && (w[1].is_ascii_alphanumeric() || w[1] == b'_'))
            .count();
        packed >= 3
    })
}

/// Whether the plain JavaScript file `path` is described by a declaration file that
/// `exists`, which TypeDoc documents instead (with its types): `index.d.ts` for `index.js`,
/// and for the variants of one entry point (`index.browser.js`, `index.native.js`);
/// `.d.mts` / `.d.cts` for `.mjs` / `.cjs`.
pub(crate) fn has_declaration_file(path: &str, exists: impl Fn(&str) -> bool) -> bool {
    let (dir, file) = path.rsplit_once('/').map_or(("", path), |(d, f)| (d, f));
    let Some((stem, ext)) = file.rsplit_once('.') else {
        return false;
    };
    let declaration_ext = match ext {
        "js" | "jsx" => "d.ts",
        "mjs" => "d.mts",
        "cjs" => "d.cts",
        _ => return false,
    };
    let entry = stem.split('.').next().unwrap_or(stem);
    let prefix = if dir.is_empty() {
        String::new()
    } else {
        format!("{dir}/")
    };
    let wanted = [
        format!("{prefix}{stem}.{declaration_ext}"),
        format!("{prefix}{entry}.{declaration_ext}"),
    ];
    wanted.iter().any(|w| exists(w))
}

/// Whether the Python stub `path` (`x.pyi`) is beside the module it describes (`x.py`), which
/// `exists`: Sphinx autodoc imports and documents the module (its docstrings), never the
/// stub, and documenting both would list every name twice. A stub without a module (beside
/// a compiled extension) is documented.
pub(crate) fn has_runtime_module(path: &str, exists: impl Fn(&str) -> bool) -> bool {
    path.strip_suffix(".pyi")
        .is_some_and(|stem| exists(&format!("{stem}.py")))
}

/// A Markdown document (`.md`, `.mdx`, `.markdown`).
pub(crate) fn is_markdown(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    [".md", ".mdx", ".markdown"]
        .iter()
        .any(|ext| lower.ends_with(ext))
}

/// A reStructuredText document (`.rst`).
pub(crate) fn is_rst(path: &str) -> bool {
    path.to_ascii_lowercase().ends_with(".rst")
}

/// A Sphinx site's `conf.py` in a docs folder (`docs/conf.py`, `doc/source/conf.py`).
pub(crate) fn is_sphinx_config(path: &str) -> bool {
    path.strip_suffix("conf.py")
        .and_then(|dir| dir.strip_suffix('/'))
        .is_some_and(|dir| dir.split('/').any(|part| part.starts_with("doc")))
}

// Housekeeping: what a commit without a type changes when it changes nothing of the product.

/// Folders whose files are documentation, tests, examples, benchmarks, CI or editor set-up
/// wherever they are.
const HOUSEKEEPING_FOLDERS: &[&str] = &[
    "docs",
    "doc",
    "test",
    "tests",
    "__tests__",
    "testdata",
    "fixtures",
    "benches",
    "bench",
    "benchmark",
    "benchmarks",
    "examples",
    ".github",
    ".gitlab",
    ".circleci",
    ".devcontainer",
    ".vscode",
    ".idea",
    ".husky",
    ".changeset",
    "requirements",
];

/// Files that are documentation, CI, tooling configuration or lock files.
const HOUSEKEEPING_FILES: &[&str] = &[
    ".gitignore",
    ".gitattributes",
    ".gitmodules",
    ".mailmap",
    ".editorconfig",
    ".npmignore",
    ".prettierignore",
    ".eslintignore",
    ".travis.yml",
    ".gitlab-ci.yml",
    ".cirrus.yml",
    "appveyor.yml",
    "azure-pipelines.yml",
    "codecov.yml",
    ".codecov.yml",
    "renovate.json",
    ".renovaterc",
    ".renovaterc.json",
    "rustfmt.toml",
    ".rustfmt.toml",
    "clippy.toml",
    ".clippy.toml",
    "deny.toml",
    "rust-toolchain",
    "rust-toolchain.toml",
    ".golangci.yml",
    ".golangci.yaml",
    ".pre-commit-config.yaml",
    ".devcontainer.json",
    "CODEOWNERS",
    "Cargo.lock",
    "package-lock.json",
    "pnpm-lock.yaml",
    "yarn.lock",
    "bun.lockb",
    "go.sum",
    "poetry.lock",
    "uv.lock",
    "tox.ini",
    "noxfile.py",
    ".flake8",
    ".pylintrc",
    "mypy.ini",
    "pytest.ini",
    ".coveragerc",
    "ruff.toml",
    ".ruff.toml",
    ".readthedocs.yaml",
    ".readthedocs.yml",
    ".pre-commit-config.yml",
    ".pre-commit-hooks.yaml",
    ".nvmrc",
    ".node-version",
    ".python-version",
    ".tool-versions",
    ".dockerignore",
    ".prettierrc",
];

/// Whether a change to `path` alone is housekeeping: documentation (Markdown and other text
/// formats, images, `LICENSE`), tests (test folders, `*_test.go`, `*.test.js`, `test_*.py`),
/// CI, tooling configuration, lock files. Such a commit is not news for a changelog.
pub(crate) fn is_housekeeping_path(path: &str) -> bool {
    let (folders, name) = path.rsplit_once('/').unwrap_or(("", path));
    if folders
        .split('/')
        .any(|f| HOUSEKEEPING_FOLDERS.contains(&f))
    {
        return true;
    }
    if HOUSEKEEPING_FILES.contains(&name) {
        return true;
    }
    let lower = name.to_ascii_lowercase();
    let (stem, extension) = lower.rsplit_once('.').unwrap_or((lower.as_str(), ""));
    let prefixed = |p: &str| lower.starts_with(p);
    matches!(
        extension,
        "md" | "markdown"
            | "mdx"
            | "rst"
            | "adoc"
            | "txt"
            | "png"
            | "jpg"
            | "jpeg"
            | "gif"
            | "svg"
            | "webp"
            | "ico"
    ) || [
        "license",
        "licence",
        "copying",
        "authors",
        "contributors",
        "notice",
    ]
    .iter()
    .any(|p| prefixed(p))
        || prefixed(".eslintrc")
        || prefixed(".prettierrc")
        || prefixed("eslint.config.")
        || prefixed(".size-limit")
        || is_test_file(path)
        // Test files of languages the extractor does not read (`x_test.rb`, `x.spec.rb`).
        || stem.ends_with("_test")
        || stem.ends_with(".test")
        || stem.ends_with(".spec")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_files_per_language() {
        for path in [
            "pkg/export_test.go",
            "tests/it/main.rs",
            "crates/x/benches/b.rs",
            "pkg/tests/test_x.py",
            "pkg/test_export.py",
            "pkg/export_test.py",
            "conftest.py",
            "src/export.test.ts",
            "src/export.spec.tsx",
            "src/__tests__/export.ts",
            "test/prebuild.js",
            "packages/x/tests/helpers.ts",
        ] {
            assert!(is_test_file(path), "{path}");
        }
        for path in [
            "pkg/export.go",
            "src/tests.rs",
            "src/testing/mod.rs",
            "pkg/testing.py",
            "src/attest.ts",
            "src/latest.ts",
            "docs/tests/guide.md",
        ] {
            assert!(!is_test_file(path), "{path}");
        }
    }

    #[test]
    fn generated_and_minified_scripts() {
        let minified = r#"let a="useandom-26T198340PX75pxJACKVERYMINDBUSHWOLF_GQZbfghjklqvwyzrict";export let nanoid=(e=21)=>{let t="",r=crypto.getRandomValues(new Uint8Array(e|=0));for(;e--;)t+=a[63&r[e]];return t};"#;
        assert!(is_generated_script("nanoid.js", minified));
        assert!(is_generated_script("dist/app.min.js", "export let a = 1\n"));
        assert!(is_generated_script(
            "src/gen.ts",
            "// @generated by protoc\nexport const a = 1\n"
        ));
        assert!(is_generated_script(
            "dist/bundle.js",
            "/* eslint-disable */\nexport const a = 1\n"
        ));
        assert!(is_generated_script(
            "x.js",
            &format!("export const a = '{}'\n", "x".repeat(1200))
        ));
        let formatted = "export function customAlphabet(alphabet, defaultSize = 21) {\n  return customRandom(alphabet, defaultSize, random)\n}\n";
        assert!(!is_generated_script("index.js", formatted));
        // A long but ordinary line, and a for loop, are not minification.
        let long = format!(
            "export const message = 'a; b; c; {}'\nfor (;;) {{}}\n",
            "words ".repeat(30)
        );
        assert!(!is_generated_script("index.js", &long));
        assert!(!is_generated_script(
            "index.d.ts",
            "// @generated\nexport declare function f(): void\n"
        ));
        assert!(!is_generated_script("src/lib.rs", minified));
        // A doc comment's paragraph on one long line.
        let paragraph = format!(
            "/**\nBase class.\n\n{}\n*/\nexport declare class KyError {{}}\n",
            "The error has a `response` property. ".repeat(40)
        );
        assert!(!is_generated_script("errors/KyError.d.ts", &paragraph));
        let tuple = format!(
            "declare const names: readonly [{}];\nexport type Name = typeof names[number];\n",
            "\"Function\", ".repeat(200)
        );
        assert!(!is_generated_script("distribution/index.d.ts", &tuple));
        assert!(is_generated_script("distribution/index.js", &tuple));
        let after = format!("/** Doc. */\nexport const a = '{}'\n", "x".repeat(1200));
        assert!(is_generated_script("x.js", &after));
        let licensed = format!("/*! lib | MIT */var a='{}';\n", "x".repeat(1200));
        assert!(is_generated_script("lib.js", &licensed));
    }

    #[test]
    fn javascript_with_a_declaration_file_is_documented_by_it() {
        let files = [
            "index.js",
            "index.d.ts",
            "index.browser.js",
            "lib/a.mjs",
            "lib/a.d.mts",
            "b.js",
        ];
        let exists = |p: &str| files.contains(&p);
        assert!(has_declaration_file("index.js", exists));
        assert!(has_declaration_file("index.browser.js", exists));
        assert!(has_declaration_file("lib/a.mjs", exists));
        assert!(!has_declaration_file("b.js", exists));
        assert!(!has_declaration_file("index.d.ts", exists));
    }

    #[test]
    fn go_internal_packages_are_hidden_from_outside() {
        assert!(is_hidden_internal("internal/db/db.go", "."));
        assert!(is_hidden_internal("pkg/internal/db.go", "pkg"));
        assert!(!is_hidden_internal("pkg/internal/db.go", "pkg/internal"));
        assert!(!is_hidden_internal(
            "pkg/internal/db/db.go",
            "pkg/internal/db"
        ));
        assert!(!is_hidden_internal("pkg/internals.go", "pkg"));
        assert!(!is_hidden_internal("src/internal/x.rs", "src"));
    }

    #[test]
    fn python_private_modules_are_hidden_from_outside() {
        assert!(is_hidden_internal("pkg/_impl.py", "pkg"));
        assert!(is_hidden_internal("pkg/_vendor/six.py", "."));
        assert!(!is_hidden_internal("pkg/__init__.py", "pkg"));
        assert!(!is_hidden_internal("pkg/__main__.py", "pkg"));
        assert!(!is_hidden_internal("pkg/api.py", "pkg"));
        assert!(!is_hidden_internal("pkg/_impl.py", "pkg/_impl.py"));
        assert!(!is_hidden_internal("pkg/_vendor/six.py", "pkg/_vendor"));
    }

    #[test]
    fn python_stubs_beside_their_module_are_left_to_it() {
        let files = ["pkg/__init__.py", "pkg/__init__.pyi", "pkg/_ext.pyi"];
        let exists = |p: &str| files.contains(&p);
        assert!(has_runtime_module("pkg/__init__.pyi", exists));
        assert!(!has_runtime_module("pkg/_ext.pyi", exists));
        assert!(!has_runtime_module("pkg/__init__.py", exists));
        assert!(is_python_private("pkg/_ext.pyi"));
        assert!(!is_python_private("pkg/__init__.pyi"));
        assert!(is_hidden_internal("pkg/_cmp.pyi", "."));
    }
}

#[cfg(test)]
#[path = "roles_non_api_tests.rs"]
mod non_api_tests;
