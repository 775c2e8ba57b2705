//! Python's public API as its users import it and Sphinx autodoc shows it: classes and
//! functions of private modules (`pkg/_core.py`) documented under the package that
//! re-exports them (`from ._core import X`, `from ._core import *`, `__all__`), followed
//! through sub-packages, once each, with "Defined in" their own file.

use pipeline::{Change, DriftChecker, SymbolSource};
use testkit::Repo;

use crate::fixture::{dev_docs as docs_of, repo_of};

fn names(symbols: &[SymbolSource]) -> Vec<&str> {
    let mut names: Vec<&str> = symbols.iter().map(|s| s.name.as_str()).collect();
    names.sort();
    names
}

/// The text of the section of module `name` (from its heading to the next module's).
fn section<'a>(body: &'a str, name: &str) -> &'a str {
    let heading = format!("### `{name}`\n");
    let Some(start) = body.find(&heading) else {
        return "";
    };
    let rest = &body[start + heading.len()..];
    let end = rest.find("\n### ").unwrap_or(rest.len());
    &rest[..end]
}

const CORE: &str = r#""""The client's machinery."""


class Client:
    """Sends requests."""

    def get(self, url: str) -> "Response":
        """Gets a URL."""


def helper(x: int) -> int:
    """Helps, under another name."""
    return x


def stray() -> None:
    """Not re-exported."""
"#;

#[test]
fn a_package_with_private_modules_behind_all_documents_them_under_the_package() {
    let repo = repo_of(&[
        (
            "src/pkg/__init__.py",
            "\"\"\"The pkg package.\"\"\"\n\nfrom ._core import Client, helper as make, stray\nfrom ._models import *\nfrom ._util import Internal\n\n__all__ = [\"Client\", \"make\", \"Response\", \"Status\", \"version\"]\n\n\ndef version() -> str:\n    \"\"\"The version.\"\"\"\n",
        ),
        ("src/pkg/_core.py", CORE),
        (
            "src/pkg/_models.py",
            "__all__ = [\"Response\", \"Status\"]\n\n\nclass Response:\n    \"\"\"A response.\"\"\"\n\n\nclass Status:\n    \"\"\"A status.\"\"\"\n\n\nclass Unlisted:\n    \"\"\"Not in __all__.\"\"\"\n",
        ),
        (
            "src/pkg/_util.py",
            "class Internal:\n    \"\"\"Internal.\"\"\"\n",
        ),
        ("src/pkg/py.typed", ""),
        // Stubs beside their modules: autodoc documents the modules, each name once.
        (
            "src/pkg/__init__.pyi",
            "from ._core import Client, helper as make, stray\nfrom ._util import Internal\n\ndef version() -> str: ...\n",
        ),
        (
            "src/pkg/_core.pyi",
            "class Client:\n    def get(self, url: str) -> Response: ...\n\ndef helper(x: int) -> int: ...\n",
        ),
    ]);
    for feature in [".", "src/pkg"] {
        let (body, provenance) = docs_of(&repo, feature);
        assert_eq!(
            names(&provenance.symbols),
            [
                "Client",
                "Client.get",
                "Response",
                "Status",
                "make",
                "version"
            ],
            "{feature}: {body}"
        );
        // One section, the package's, with the overview of its `__init__`.
        let pkg = section(&body, "pkg");
        assert!(pkg.contains("The pkg package."), "{body}");
        assert!(
            pkg.contains("#### Class `Client`\n\n```python\nclass Client")
                && pkg.contains("```\n\nSends requests."),
            "{body}"
        );
        assert!(pkg.contains("Gets a URL."), "{body}");
        // Renamed as imported, defined where it is.
        assert!(pkg.contains("`make`"), "{body}");
        assert!(pkg.contains("def make(x: int) -> int"), "{body}");
        assert!(
            pkg.contains("Defined in `src/pkg/_core.py`, line 4."),
            "{body}"
        );
        assert!(
            pkg.contains("Defined in `src/pkg/_models.py`, line 4."),
            "{body}"
        );
        assert_eq!(body.matches("Class `Client`").count(), 1, "{body}");
        assert_eq!(body.matches("Function `version`").count(), 1, "{body}");
        for absent in [
            "pkg._core",
            "pkg._models",
            "pkg._util",
            "stray",
            "Unlisted",
            "Internal",
            "machinery",
        ] {
            assert!(!body.contains(absent), "{absent} shown:\n{body}");
        }
        // Provenance: the defining file, once per symbol.
        let client: Vec<&SymbolSource> = provenance
            .symbols
            .iter()
            .filter(|s| s.name == "Client")
            .collect();
        assert_eq!(client.len(), 1);
        assert_eq!(client[0].path, "src/pkg/_core.py");
    }
}

#[test]
fn star_imports_without_all_bring_the_public_names_and_init_imports_are_reexports() {
    let repo = repo_of(&[
        (
            "pkg/__init__.py",
            "from ._impl import *\nfrom ._extra import Extra as Renamed\nfrom .api import Session\nfrom typing import Any\n\n\ndef version() -> str:\n    \"\"\"The version.\"\"\"\n",
        ),
        (
            "pkg/_impl.py",
            "import os\nfrom ._compat import to_bytes\n\n\nclass Engine:\n    \"\"\"An engine.\"\"\"\n\n\nclass _Hidden:\n    pass\n",
        ),
        ("pkg/_extra.py", "class Extra:\n    \"\"\"Extra.\"\"\"\n"),
        (
            "pkg/_compat.py",
            "def to_bytes(x):\n    \"\"\"Bytes.\"\"\"\n",
        ),
        (
            "pkg/api.py",
            "from ._compat import to_bytes\n\n\nclass Session:\n    \"\"\"A session.\"\"\"\n",
        ),
    ]);
    let (body, provenance) = docs_of(&repo, "pkg");
    // `to_bytes` is imported by `_impl`, so `import *` brings it along as Python does; but
    // `_impl` has no `__all__`, and what it makes public is what it defines.
    assert_eq!(
        names(&provenance.symbols),
        ["Engine", "Renamed", "Session", "version"],
        "{body}"
    );
    let pkg = section(&body, "pkg");
    assert!(pkg.contains("#### Class `Engine`"), "{body}");
    assert!(pkg.contains("#### Class `Renamed`"), "{body}");
    assert!(pkg.contains("```python\nclass Renamed\n```"), "{body}");
    assert!(!pkg.contains("Session"), "{body}");
    // A public module's class stays where it is defined, listed once.
    assert!(
        section(&body, "pkg.api").contains("#### Class `Session`"),
        "{body}"
    );
    assert_eq!(body.matches("Class `Session`").count(), 1, "{body}");
    assert!(!body.contains("to_bytes"), "{body}");
}

#[test]
fn a_recursive_chain_through_a_sub_package_and_a_cycle() {
    let repo = repo_of(&[
        (
            "pkg/__init__.py",
            "from pkg.sub import *\nfrom pkg._a import *\n__all__ = sub.__all__ + ['A', 'B']\n",
        ),
        (
            "pkg/sub/__init__.py",
            "from ._impl import Deep, deep_fn\n__all__ = ['Deep', 'deep_fn']\n",
        ),
        (
            "pkg/sub/_impl.py",
            "class Deep:\n    \"\"\"Deep down.\"\"\"\n\n    def run(self):\n        \"\"\"Runs.\"\"\"\n\n\ndef deep_fn():\n    \"\"\"A deep function.\"\"\"\n\n\nclass NotExported:\n    pass\n",
        ),
        (
            "pkg/_a.py",
            "from ._b import *\n\n\nclass A:\n    \"\"\"A.\"\"\"\n",
        ),
        (
            "pkg/_b.py",
            "from ._a import *\n\n\nclass B:\n    \"\"\"B.\"\"\"\n",
        ),
    ]);
    let (body, provenance) = docs_of(&repo, "pkg");
    // `__all__` is computed: the package's public names decide (its star imports).
    assert_eq!(
        names(&provenance.symbols),
        ["A", "B", "Deep", "Deep.run", "deep_fn"],
        "{body}"
    );
    // The package nearest the root shows them; `pkg.sub` re-exports them too but does not
    // list them a second time.
    let pkg = section(&body, "pkg");
    for name in [
        "Class `A`",
        "Class `B`",
        "Class `Deep`",
        "`deep_fn`",
        "Runs.",
    ] {
        assert!(pkg.contains(name), "{name}: {body}");
    }
    assert_eq!(body.matches("Class `Deep`").count(), 1, "{body}");
    assert!(
        pkg.contains("Defined in `pkg/sub/_impl.py`, line 1."),
        "{body}"
    );
    assert!(!body.contains("NotExported"), "{body}");
    // A feature of the sub-package alone shows them where users import them from: the
    // package above re-exports them (its `__init__` is read, outside the feature).
    let (body, provenance) = docs_of(&repo, "pkg/sub");
    assert_eq!(
        names(&provenance.symbols),
        ["Deep", "Deep.run", "deep_fn"],
        "{body}"
    );
    assert!(section(&body, "pkg").contains("Class `Deep`"), "{body}");
}

#[test]
fn a_private_folder_feature_shows_the_reexports_else_what_it_defines() {
    let files = [
        ("pkg/__init__.py", "from ._impl import Engine\n"),
        (
            "pkg/_impl/__init__.py",
            "from ._engine import Engine, Part\n",
        ),
        (
            "pkg/_impl/_engine.py",
            "class Engine:\n    \"\"\"An engine.\"\"\"\n\n\nclass Part:\n    \"\"\"A part.\"\"\"\n\n\nclass Spare:\n    \"\"\"A spare.\"\"\"\n",
        ),
    ];
    let repo = repo_of(&files);
    // The package re-exports one class of the folder: that is its API, under the package.
    let (body, provenance) = docs_of(&repo, "pkg/_impl");
    assert_eq!(names(&provenance.symbols), ["Engine"], "{body}");
    assert!(section(&body, "pkg").contains("Class `Engine`"), "{body}");
    assert!(
        body.contains("Defined in `pkg/_impl/_engine.py`, line 1."),
        "{body}"
    );
    // The package's `__init__`, read outside the feature, is what its docs depend on.
    assert!(
        provenance
            .files
            .iter()
            .any(|f| f.path == "pkg/__init__.py" && f.role == pipeline::FileRole::Module),
        "{provenance:?}"
    );
    // Nothing public re-exports from it: the folder documents what it defines, once each.
    let mut repo = repo;
    repo.write("pkg/__init__.py", "def main():\n    \"\"\"Main.\"\"\"\n");
    repo.commit("refactor: the package re-exports nothing");
    let (body, provenance) = docs_of(&repo, "pkg/_impl");
    assert_eq!(
        names(&provenance.symbols),
        ["Engine", "Part", "Spare"],
        "{body}"
    );
    assert_eq!(body.matches("Class `Engine`").count(), 1, "{body}");
    assert!(
        section(&body, "pkg._impl._engine").contains("Class `Spare`"),
        "{body}"
    );
    // A whole-package run of a package that re-exports nothing documents no private class.
    let (body, provenance) = docs_of(&repo, "pkg");
    assert_eq!(names(&provenance.symbols), ["main"], "{body}");
}

#[test]
fn drift_reads_a_python_package_as_the_run_documents_it() {
    let mut repo = repo_of(&[
        (
            "pkg/__init__.py",
            "from ._core import Client as Api\n__all__ = ['Api']\n",
        ),
        ("pkg/_core.py", CORE),
    ]);
    let (_, recorded) = docs_of(&repo, "pkg");
    assert_eq!(names(&recorded.symbols), ["Api", "Api.get"]);
    let check = |repo: &Repo| {
        DriftChecker::open(&repo.path, &pipeline::Limits::default())
            .unwrap()
            .check(&recorded)
            .unwrap()
    };
    assert_eq!(check(&repo), Vec::<Change>::new());
    // A change to what nothing re-exports, and a new private helper, are no drift.
    repo.write(
        "pkg/_core.py",
        CORE.replace("Not re-exported.", "Still not re-exported.")
            .replace(
                "def stray",
                "def new_helper() -> None:\n    pass\n\n\ndef stray",
            ),
    );
    repo.commit("refactor: helpers");
    assert_eq!(check(&repo), Vec::<Change>::new());
    // Re-exported under another name: the documented `Api` is gone, `Client` is new.
    repo.write(
        "pkg/__init__.py",
        "from ._core import Client\n__all__ = ['Client']\n",
    );
    repo.commit("feat: export Client by its name");
    let changes = check(&repo);
    assert_eq!(changes.len(), 2, "{changes:?}");
    assert!(
        changes.iter().all(|c| c.path == "pkg/_core.py"),
        "{changes:?}"
    );
    assert!(
        changes
            .iter()
            .any(|c| c.symbols.contains(&"Api".to_string())),
        "{changes:?}"
    );
    assert!(
        changes
            .iter()
            .any(|c| c.symbols.contains(&"Client".to_string())),
        "{changes:?}"
    );
}

#[test]
fn modules_follow_the_docs_order_and_reexported_names_show_their_import() {
    let mut repo = Repo::new();
    repo.write(
        "src/pkg/__init__.py",
        "\"\"\"The package.\"\"\"\nfrom .encoding import want_bytes\nfrom .serializer import Serializer\nfrom .signer import Signer\n",
    )
    .write(
        "src/pkg/encoding.py",
        "def want_bytes(s):\n    \"\"\"Bytes of s.\"\"\"\n    return s\n",
    )
    .write(
        "src/pkg/serializer.py",
        "class Serializer:\n    \"\"\"Serializes.\"\"\"\n\n    def dumps(self, obj):\n        \"\"\"Dump.\"\"\"\n",
    )
    .write(
        "src/pkg/signer.py",
        "class Signer:\n    \"\"\"Signs.\"\"\"\n",
    )
    .write(
        "docs/index.rst",
        "Pkg\n===\n\n.. toctree::\n\n   serializer\n   signer\n   encoding\n",
    )
    .write(
        "docs/serializer.rst",
        "Serializer\n==========\n\n.. autoclass:: pkg.Serializer\n    :members:\n",
    )
    .write(
        "docs/signer.rst",
        "Signer\n======\n\n.. module:: pkg.signer\n\n.. autoclass:: Signer\n",
    )
    .write(
        "docs/encoding.rst",
        "Encoding\n========\n\n.. autofunction:: pkg.encoding.want_bytes\n",
    );
    repo.commit("feat: pkg");
    let (body, _) = crate::fixture::dev_docs(&repo, "src/pkg");
    let at = |h: &str| body.find(h).unwrap_or_else(|| panic!("no {h}:\n{body}"));
    let order = [
        at("### `pkg`\n"),
        at("### `pkg.serializer`"),
        at("### `pkg.signer`"),
        at("### `pkg.encoding`"),
    ];
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{body}");
    assert!(
        body.contains("Import it with `from pkg import Signer`."),
        "{body}"
    );
    // A member is imported with its class.
    assert!(!body.contains("import Serializer.dumps"), "{body}");
}
