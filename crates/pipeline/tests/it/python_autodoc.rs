//! What Sphinx autodoc and pydoc show of a Python class and module besides its public
//! names: `:meta private:` / `:meta public:` override the name's underscore, a special
//! method with a docstring of its own (`__call__`) is shown, `__version__` when `__all__`
//! lists it, and, when the project's docs are autodoc's, module data that is neither
//! documented nor listed in `__all__` is not (an internal id, a `TypeVar`).

use pipeline::SymbolSource;

use crate::fixture::{dev_docs, repo_of};

fn names(symbols: &[SymbolSource]) -> Vec<&str> {
    let mut names: Vec<&str> = symbols.iter().map(|s| s.name.as_str()).collect();
    names.sort();
    names
}

const HOOKS: &str = r#""""Hooks."""

import typing as t

F = t.TypeVar("F", bound=t.Callable[..., t.Any])
ANY_ID = 0

#: How many hooks a caller holds at most.
LIMIT = 3

RETRIES = 2
"""How often a call is retried."""


class Marker:
    """Marks hook functions."""

    def __init__(self, project: str) -> None:
        """:meta private:"""
        #: The project whose hooks it marks.
        self.project = project

    def __call__(self, function: F) -> F:
        """Mark `function` as a hook.

        :param function: The function to mark.
        """
        return function

    def __repr__(self) -> str:
        return "Marker"

    def _registry(self) -> dict:
        """The marked functions.

        :meta public:
        """
        return {}

    def internal(self) -> None:
        """Used by the manager.

        :meta private:
        """
"#;

#[test]
fn meta_fields_special_methods_and_undocumented_module_data_follow_autodoc() {
    let repo = repo_of(&[
        (
            "pkg/__init__.py",
            "\"\"\"The pkg package.\"\"\"\n\n__all__ = [\"__version__\", \"Marker\"]\n__author__ = \"me\"\n__version__ = \"1.2.0\"\n\nfrom .hooks import Marker\n",
        ),
        ("pkg/hooks.py", HOOKS),
        // The project's docs are Sphinx autodoc's: module data is shown as autodoc shows it.
        ("docs/conf.py", "extensions = [\"sphinx.ext.autodoc\"]\n"),
    ]);
    let (body, provenance) = dev_docs(&repo, "pkg");
    // `__version__` is listed in `__all__`; `__author__` is not.
    assert_eq!(
        names(&provenance.symbols),
        [
            "LIMIT",
            "Marker",
            "Marker.__call__",
            "Marker._registry",
            "Marker.project",
            "RETRIES",
            "__version__"
        ],
        "{body}"
    );
    assert!(body.contains("Mark `function` as a hook."), "{body}");
    assert!(!body.contains(":meta"), "{body}");
    assert!(
        !body.contains("ANY_ID") && !body.contains("TypeVar"),
        "{body}"
    );

    // Without a Sphinx configuration, pydoc's rule: every constant of the module is data.
    let repo = repo_of(&[
        ("pkg/__init__.py", "\"\"\"The pkg package.\"\"\"\n"),
        ("pkg/hooks.py", HOOKS),
    ]);
    let (body, _) = dev_docs(&repo, "pkg");
    assert!(body.contains("#### Constant `ANY_ID`"), "{body}");
}

#[test]
fn names_a_package_lists_in_all_follow_its_order_whatever_file_defines_them() {
    let repo = repo_of(&[
        (
            "pkg/__init__.py",
            "\"\"\"The pkg package.\"\"\"\n\nfrom ._hooks import HookOpts, Marker\nfrom ._manager import Manager\n\n__all__ = [\"Manager\", \"Marker\", \"HookOpts\"]\n",
        ),
        (
            "pkg/_hooks.py",
            "class HookOpts:\n    \"\"\"Options.\"\"\"\n\n\nclass Marker:\n    \"\"\"Marks.\"\"\"\n",
        ),
        (
            "pkg/_manager.py",
            "class Manager:\n    \"\"\"Manages.\"\"\"\n",
        ),
    ]);
    let (body, _) = dev_docs(&repo, "pkg");
    // autodoc's `bysource` order is the `__all__` order: the manager first.
    let at = |needle: &str| {
        body.find(needle)
            .unwrap_or_else(|| panic!("{needle}: {body}"))
    };
    assert!(at("Class `Manager`") < at("Class `Marker`"), "{body}");
    assert!(at("Class `Marker`") < at("Class `HookOpts`"), "{body}");
}

#[test]
fn a_class_shows_what_it_inherits_from_a_base_no_one_documents() {
    let repo = repo_of(&[
        (
            "pkg/__init__.py",
            "\"\"\"The pkg package.\"\"\"\n\nfrom ._core import Caller, Public, Retrying\n\n__all__ = [\"Caller\", \"Public\", \"Retrying\"]\n",
        ),
        (
            "pkg/_core.py",
            r#"class _Base:
    def __init__(self, attempts: int = 10, timeout: float = 45.0):
        """Set up the caller.

        :param attempts: How many tries.
        """

    def describe(self) -> str:
        """Say what it does."""
        return ""

    def _private(self):
        """Not shown."""


class BaseCaller(_Base):
    def wraps(self, f):
        """Wrap a function for retrying."""
        return f


class Caller(BaseCaller):
    """Calls with retries."""

    def describe(self) -> str:
        return "caller"


class Public:
    """A documented base."""

    def wraps(self, f):
        """Wrap it."""
        return f

    def more(self):
        """Only on the base."""


class Retrying(Public):
    """Retries."""

    def wraps(self, f):
        return f
"#,
        ),
        // A hostile hierarchy: a cycle, and a base list that is no Python.
        (
            "pkg/cycle.py",
            "class A(B):\n    \"\"\"A.\"\"\"\n\n\nclass B(A, (, metaclass=M):\n    \"\"\"B.\"\"\"\n\n    def run(self):\n        \"\"\"Run.\"\"\"\n",
        ),
    ]);
    let (body, provenance) = dev_docs(&repo, "pkg");
    let names = names(&provenance.symbols);
    // The constructor and members of the undocumented bases, under the public class.
    for name in ["Caller.__init__", "Caller.wraps", "Caller.describe"] {
        assert!(names.contains(&name), "{name}: {names:?}\n{body}");
    }
    assert!(!names.iter().any(|n| n.contains("_private")), "{body}");
    assert!(body.contains("attempts: int = 10"), "{body}");
    // An override without a docstring shows the one it overrides.
    assert!(body.contains("Say what it does."), "{body}");
    // A documented base keeps its members; the override shows the base's docstring.
    assert!(!names.contains(&"Retrying.more"), "{names:?}");
    assert!(body.contains("Wrap it."), "{body}");
}

#[test]
fn a_public_module_that_only_reexports_gets_a_section_naming_them() {
    let repo = repo_of(&[
        (
            "pkg/__init__.py",
            "\"\"\"The pkg package.\"\"\"\n\nfrom .hooks import Hook\n\n__all__ = [\"Hook\"]\n",
        ),
        ("pkg/hooks.py", "class Hook:\n    \"\"\"A hook.\"\"\"\n"),
        (
            "pkg/typing.py",
            "from .hooks import Hook\n\n__all__ = [\"Hook\"]\n",
        ),
        (
            "pkg/_private.py",
            "from .hooks import Hook\n\n__all__ = [\"Hook\"]\n",
        ),
    ]);
    let (body, _) = dev_docs(&repo, "pkg");
    assert!(
        body.contains("### `pkg.typing`\n\nIn `pkg/typing.py`.\n\nIt re-exports `Hook`, documented in another section of this page."),
        "{body}"
    );
    assert!(!body.contains("pkg._private"), "{body}");
}
