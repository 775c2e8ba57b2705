//! Which files make a feature's public API: tests are not API (each language's convention
//! for where tests live), nor a Go `internal/` package seen from outside it. Go examples
//! (`ExampleX` functions of `_test.go` files) are the one thing taken from tests: they become
//! the examples of the symbol they name, as pkg.go.dev shows them.

use super::Symbol;
use super::docs::Example;

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
        return in_dir(&["__tests__", "__mocks__"])
            || stem_parts
                .iter()
                .skip(1)
                .any(|part| *part == "test" || *part == "spec");
    }
    false
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
    } else if path.ends_with(".py") {
        segments.iter().position(|s| {
            s.starts_with('_')
                && !(s.starts_with("__") && s.trim_end_matches(".py").ends_with("__"))
        })
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

/// A Go `ExampleX` function of a test file.
pub(crate) struct GoExample {
    /// The folder of its package.
    pub dir: String,
    /// The function's name.
    pub name: String,
    pub example: Example,
}

/// What a Go example documents: `Example` the package (empty), `ExampleF` → `F`,
/// `ExampleT_M` → `T.M`, each with an optional `_suffix` that starts with a lower-case letter.
fn go_example_target(name: &str) -> Option<(String, String)> {
    let rest = name.strip_prefix("Example")?;
    if rest
        .chars()
        .next()
        .is_some_and(|c| !c.is_uppercase() && c != '_')
    {
        return None;
    }
    let mut parts: Vec<&str> = rest.split('_').collect();
    let mut suffix = String::new();
    if parts.len() > 1
        && parts
            .last()
            .and_then(|s| s.chars().next())
            .is_some_and(|c| c.is_lowercase())
    {
        suffix = parts.pop().unwrap_or_default().to_string();
    }
    let target = match parts.as_slice() {
        [""] => String::new(),
        [symbol] => (*symbol).to_string(),
        [ty, method] => format!("{ty}.{method}"),
        _ => return None,
    };
    Some((target, suffix))
}

/// Puts each Go example under the symbol it names in the same folder; returns the examples
/// of packages (`func Example()`), by folder.
pub(crate) fn attach_go_examples(
    symbols: &mut [Symbol],
    examples: Vec<GoExample>,
) -> Vec<(String, Example)> {
    let mut package_examples = Vec::new();
    for found in examples {
        let Some((target, suffix)) = go_example_target(&found.name) else {
            continue;
        };
        let mut example = found.example;
        example.label = suffix;
        if target.is_empty() {
            package_examples.push((found.dir, example));
            continue;
        }
        if let Some(symbol) = symbols
            .iter_mut()
            .find(|s| s.language == "go" && s.module == found.dir && s.name == target)
        {
            symbol.examples.push(example);
        }
    }
    package_examples
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
    fn go_example_names() {
        assert_eq!(
            go_example_target("Example"),
            Some((String::new(), String::new()))
        );
        assert_eq!(
            go_example_target("ExampleParse"),
            Some(("Parse".into(), String::new()))
        );
        assert_eq!(
            go_example_target("ExampleReader_Read_second"),
            Some(("Reader.Read".into(), "second".into()))
        );
        assert_eq!(
            go_example_target("ExampleParse_json"),
            Some(("Parse".into(), "json".into()))
        );
        assert_eq!(go_example_target("Examples"), None);
        assert_eq!(go_example_target("TestX"), None);
    }
}
