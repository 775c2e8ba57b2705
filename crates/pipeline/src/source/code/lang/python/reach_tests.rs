use std::collections::HashMap;
use std::sync::Arc;

use super::*;
use crate::limits::Limits;
use crate::source::code::{Extractor, Language};

/// The facts and symbols of a package of `files`, placed for a feature of `feature` files.
fn placed(
    files: &[(&str, &str)],
    feature: &[&str],
    own: &dyn Fn(&str) -> bool,
) -> (Vec<(String, String, String)>, Vec<String>) {
    let mut extractor = Extractor::new(&Limits::default());
    let mut facts: HashMap<String, Arc<PythonModuleFacts>> = HashMap::new();
    let mut symbols = Vec::new();
    for (path, text) in files {
        let found = extractor.python_module_facts(path, text).unwrap();
        facts.insert(path.to_string(), Arc::new(found));
        if feature.contains(path) {
            symbols.extend(extractor.symbols(path, Language::Python, text).unwrap());
        }
    }
    let mut read = |path: &str| facts.get(path).cloned();
    let api = PythonApi::new(feature, own, &mut read);
    let mut shown: Vec<(String, String, String)> = api
        .apply(symbols)
        .into_iter()
        .map(|s| (s.module, s.name, s.path))
        .collect();
    shown.sort();
    let mut private = api.private_modules().to_vec();
    private.sort();
    (shown, private)
}

fn triple(module: &str, name: &str, path: &str) -> (String, String, String) {
    (module.into(), name.into(), path.into())
}

const NOT_OWN: &dyn Fn(&str) -> bool = &|_| false;

#[test]
fn module_facts_read_imports_all_and_definitions() {
    let text = r#"
"""Doc."""
from __future__ import annotations
import os.path
import json as j
from ._core import Foo, bar as baz
from .. import sibling
from pkg.sub import *
from typing import TYPE_CHECKING
if TYPE_CHECKING:
    from ._types import Hidden
try:
    from ._speedups import fast
except ImportError:
    from ._native import fast
__all__ = ["Foo", "baz"] + ["fast"]
__all__ += ("Extra",)
__all__.append("More")
class Extra: pass
def _private(): pass
VALUE, other = 1, 2
"#;
    let mut extractor = Extractor::new(&Limits::default());
    let facts = extractor
        .python_module_facts("pkg/__init__.py", text)
        .unwrap();
    let imports: Vec<(usize, String, Option<&str>, Option<&str>)> = facts
        .imports
        .iter()
        .map(|i| {
            (
                i.level,
                i.module.join("."),
                i.name.as_deref(),
                i.alias.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        imports,
        [
            (1, "_core".to_string(), Some("Foo"), None),
            (1, "_core".to_string(), Some("bar"), Some("baz")),
            (2, String::new(), Some("sibling"), None),
            (0, "pkg.sub".to_string(), None, None),
            (0, "typing".to_string(), Some("TYPE_CHECKING"), None),
            (1, "_speedups".to_string(), Some("fast"), None),
            (1, "_native".to_string(), Some("fast"), None),
        ]
    );
    assert_eq!(
        facts.all.as_deref(),
        Some(&["Foo", "baz", "fast", "Extra", "More"].map(String::from)[..])
    );
    assert_eq!(
        facts.defined,
        ["os", "j", "Extra", "_private", "VALUE", "other"]
    );
    // A computed `__all__` is read as none: the module's public names decide.
    let computed = extractor
        .python_module_facts("m.py", "__all__ = [n for n in dir()]\n")
        .unwrap();
    assert_eq!(computed.all, None);
    let extended = extractor
        .python_module_facts("m.py", "__all__ = ['a']\n__all__ += other.__all__\n")
        .unwrap();
    assert_eq!(extended.all, None);
}

#[test]
fn private_modules_behind_all_are_documented_under_the_package() {
    let files = [
        (
            "pkg/__init__.py",
            "from ._core import Client, helper as make\nfrom ._util import Internal\n__all__ = ['Client', 'make']\n",
        ),
        (
            "pkg/_core.py",
            "class Client:\n    def get(self): pass\n\ndef helper(): pass\n\ndef stray(): pass\n",
        ),
        ("pkg/_util.py", "class Internal: pass\n"),
        (
            "pkg/api.py",
            "def request(): pass\n\ndef other(): pass\n__all__ = ['request']\n",
        ),
    ];
    let feature = [
        "pkg/__init__.py",
        "pkg/_core.py",
        "pkg/_util.py",
        "pkg/api.py",
    ];
    let (shown, private) = placed(&files, &feature, NOT_OWN);
    assert_eq!(
        shown,
        [
            triple("pkg/__init__.py", "Client", "pkg/_core.py"),
            triple("pkg/__init__.py", "Client.get", "pkg/_core.py"),
            triple("pkg/__init__.py", "make", "pkg/_core.py"),
            triple("pkg/api.py", "request", "pkg/api.py"),
        ]
    );
    assert_eq!(private, ["pkg/_core.py", "pkg/_util.py"]);
}

#[test]
fn star_imports_follow_all_or_public_names_through_sub_packages_and_cycles() {
    let files = [
        (
            "pkg/__init__.py",
            "from pkg.sub import *\nfrom ._loop import *\n",
        ),
        (
            "pkg/sub/__init__.py",
            "from ._impl import *\nfrom ._plain import *\n",
        ),
        (
            "pkg/sub/_impl.py",
            "__all__ = ['Shown']\nclass Shown: pass\nclass NotListed: pass\n",
        ),
        (
            "pkg/sub/_plain.py",
            "from os import path\nclass Plain: pass\nclass _Hidden: pass\n",
        ),
        ("pkg/_loop.py", "from ._cycle import *\nclass Loop: pass\n"),
        ("pkg/_cycle.py", "from ._loop import *\nclass Cycle: pass\n"),
    ];
    let feature: Vec<&str> = files.iter().map(|(p, _)| *p).collect();
    let (shown, _) = placed(&files, &feature, NOT_OWN);
    assert_eq!(
        shown,
        [
            triple("pkg/__init__.py", "Cycle", "pkg/_cycle.py"),
            triple("pkg/__init__.py", "Loop", "pkg/_loop.py"),
            triple("pkg/__init__.py", "Plain", "pkg/sub/_plain.py"),
            triple("pkg/__init__.py", "Shown", "pkg/sub/_impl.py"),
        ]
    );
}

#[test]
fn explicit_imports_reexport_from_a_package_init_or_as_themselves() {
    let files = [
        ("pkg/__init__.py", "from .api import Session\n"),
        (
            "pkg/api.py",
            "from ._compat import to_bytes\nfrom ._types import Url as Url\nclass Session: pass\n",
        ),
        ("pkg/_compat.py", "def to_bytes(): pass\n"),
        ("pkg/_types.py", "class Url: pass\n"),
    ];
    let feature: Vec<&str> = files.iter().map(|(p, _)| *p).collect();
    let (shown, _) = placed(&files, &feature, NOT_OWN);
    // `Session` stays where it is defined (a public module); `to_bytes` is an
    // implementation detail of `pkg.api`; `Url` is re-exported explicitly.
    assert_eq!(
        shown,
        [
            triple("pkg/api.py", "Session", "pkg/api.py"),
            triple("pkg/api.py", "Url", "pkg/_types.py"),
        ]
    );
}

#[test]
fn a_package_that_marks_its_reexports_keeps_its_plain_imports_private() {
    let files = [
        (
            "pkg/__init__.py",
            "from ._lazy import install\nif not install():\n    from ._core import run as run\n",
        ),
        ("pkg/_lazy.py", "def install(): pass\n"),
        ("pkg/_core.py", "def run(): pass\n"),
    ];
    let feature: Vec<&str> = files.iter().map(|(p, _)| *p).collect();
    let (shown, _) = placed(&files, &feature, NOT_OWN);
    assert_eq!(shown, [triple("pkg/__init__.py", "run", "pkg/_core.py")]);
}

#[test]
fn a_private_folder_shows_what_the_package_reexports_else_what_it_defines() {
    let files = [
        ("pkg/__init__.py", "from ._impl import Engine\n"),
        (
            "pkg/_impl/__init__.py",
            "from ._engine import Engine, Part\n",
        ),
        (
            "pkg/_impl/_engine.py",
            "class Engine: pass\nclass Part: pass\nclass Spare: pass\n",
        ),
    ];
    let feature = ["pkg/_impl/__init__.py", "pkg/_impl/_engine.py"];
    let own = |p: &str| p.starts_with("pkg/_impl/");
    let (shown, private) = placed(&files, &feature, &own);
    assert_eq!(
        shown,
        [triple("pkg/__init__.py", "Engine", "pkg/_impl/_engine.py")]
    );
    assert_eq!(private, feature);
    // Nothing public re-exports from the folder: it documents what it defines, once.
    let files = [
        ("pkg/__init__.py", "def main(): pass\n"),
        ("pkg/_impl/__init__.py", "from ._engine import Engine\n"),
        (
            "pkg/_impl/_engine.py",
            "class Engine: pass\nclass Spare: pass\n",
        ),
    ];
    let (shown, private) = placed(&files, &feature, &own);
    assert_eq!(
        shown,
        [
            triple("pkg/_impl/_engine.py", "Engine", "pkg/_impl/_engine.py"),
            triple("pkg/_impl/_engine.py", "Spare", "pkg/_impl/_engine.py"),
        ]
    );
    assert!(private.is_empty());
}

#[test]
fn a_renamed_signature_reads_the_new_name() {
    assert_eq!(
        renamed("def helper(x: int) -> int", "helper", "make"),
        "def make(x: int) -> int"
    );
    assert_eq!(
        renamed(
            "@cache\nasync def helper_x(): ...\nasync def helper()",
            "helper",
            "make"
        ),
        "@cache\nasync def helper_x(): ...\nasync def make()"
    );
    assert_eq!(
        renamed("class Extra(Base)", "Extra", "Renamed"),
        "class Renamed(Base)"
    );
    assert_eq!(renamed("VALUE = 1", "VALUE", "OTHER"), "VALUE = 1");
}

#[test]
fn module_variables_are_shown_where_an_all_lists_them() {
    let files = [
        (
            "pkg/__init__.py",
            "from ._next import define, frozen, logger\n__all__ = ['define', 'frozen']\n",
        ),
        (
            "pkg/_next.py",
            "import logging\nlogger = logging.getLogger(__name__)\ndef define(): pass\nfrozen = partial(define, frozen=True)\n",
        ),
        (
            "pkg/api.py",
            "session = Session()\nLIMIT = 3\n__all__ = ['session', 'LIMIT', 'missing']\n",
        ),
        ("pkg/plain.py", "cache = {}\nLIMIT = 4\n"),
    ];
    let feature: Vec<&str> = files.iter().map(|(p, _)| *p).collect();
    let (shown, _) = placed(&files, &feature, NOT_OWN);
    assert_eq!(
        shown,
        [
            triple("pkg/__init__.py", "define", "pkg/_next.py"),
            triple("pkg/__init__.py", "frozen", "pkg/_next.py"),
            triple("pkg/api.py", "LIMIT", "pkg/api.py"),
            triple("pkg/api.py", "session", "pkg/api.py"),
            triple("pkg/plain.py", "LIMIT", "pkg/plain.py"),
        ]
    );
}

#[test]
fn chains_are_followed_within_a_bound() {
    let chain = |length: usize| -> Vec<(String, String)> {
        let mut files = vec![(
            "pkg/__init__.py".to_string(),
            "from ._m1 import *\n".to_string(),
        )];
        for i in 1..length {
            files.push((
                format!("pkg/_m{i}.py"),
                format!("from ._m{} import *\n", i + 1),
            ));
        }
        files.push((
            format!("pkg/_m{length}.py"),
            "class Deep: pass\n".to_string(),
        ));
        files
    };
    for (length, found) in [(8, true), (40, false)] {
        let files = chain(length);
        let files: Vec<(&str, &str)> = files
            .iter()
            .map(|(p, t)| (p.as_str(), t.as_str()))
            .collect();
        let feature: Vec<&str> = files.iter().map(|(p, _)| *p).collect();
        let (shown, _) = placed(&files, &feature, NOT_OWN);
        assert_eq!(!shown.is_empty(), found, "{length}: {shown:?}");
    }
    // A module that star-imports itself, and two that import a name from each other.
    let files = [
        ("pkg/__init__.py", "from . import *\nfrom ._a import X\n"),
        ("pkg/_a.py", "from ._b import X\n"),
        ("pkg/_b.py", "from ._a import X\nclass Y: pass\n"),
    ];
    let feature: Vec<&str> = files.iter().map(|(p, _)| *p).collect();
    let (shown, private) = placed(&files, &feature, NOT_OWN);
    assert!(shown.is_empty(), "{shown:?}");
    assert_eq!(private, ["pkg/_a.py", "pkg/_b.py"]);
}

#[test]
fn module_depth_puts_the_package_first() {
    assert!(module_depth("pkg/__init__.py") < module_depth("pkg/sub/__init__.py"));
    assert_eq!(
        module_depth("pkg/sub/__init__.py"),
        module_depth("pkg/api.py")
    );
    assert_eq!(join("", "a"), "a");
    assert_eq!(parent("a/b.py"), "a");
}

#[test]
fn a_second_name_an_all_lists_is_an_alias_and_the_import_line_keeps_the_own_name() {
    let files = [
        (
            "pkg/__init__.py",
            "from .wait import wait_random as wait_full_jitter\nfrom .wait import wait_random\n__all__ = ['wait_random', 'wait_full_jitter']\n",
        ),
        (
            "pkg/wait.py",
            "class wait_random:\n    \"\"\"Wait randomly.\"\"\"\n",
        ),
    ];
    let feature: Vec<&str> = files.iter().map(|(p, _)| *p).collect();
    let (shown, _) = placed(&files, &feature, NOT_OWN);
    assert_eq!(
        shown,
        [
            triple("pkg/__init__.py", "wait_full_jitter", "pkg/wait.py"),
            triple("pkg/wait.py", "wait_random", "pkg/wait.py"),
        ]
    );
    let mut extractor = Extractor::new(&Limits::default());
    let mut facts: HashMap<String, Arc<PythonModuleFacts>> = HashMap::new();
    let mut symbols = Vec::new();
    for (path, text) in files {
        facts.insert(
            path.into(),
            Arc::new(extractor.python_module_facts(path, text).unwrap()),
        );
        symbols.extend(extractor.symbols(path, Language::Python, text).unwrap());
    }
    let mut read = |path: &str| facts.get(path).cloned();
    let out = PythonApi::new(&feature, NOT_OWN, &mut read).apply(symbols);
    let original = out.iter().find(|s| s.name == "wait_random").unwrap();
    assert_eq!(
        original.reexport,
        Some(("pkg/__init__.py".into(), "wait_random".into()))
    );
    let alias = out.iter().find(|s| s.name == "wait_full_jitter").unwrap();
    assert_eq!(alias.signature, "wait_full_jitter = wait_random");
    assert_eq!(
        alias.comment.text,
        "Alias of [`wait_random`](doc:wait_random)."
    );
}
