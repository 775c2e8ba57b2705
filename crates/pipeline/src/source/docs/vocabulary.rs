//! The words the document rules read headings and step titles by: sections about using
//! something, about the project, reference sections, procedures, imperative verbs, shell
//! languages; and the one way they are matched (whole lower-case words).

/// Heading words (lower case, whole words) of a section that tells how to use something.
pub(crate) const USAGE_HEADINGS: &[&str] = &[
    "usage",
    "getting started",
    "get started",
    "quick start",
    "quickstart",
    "quick-start",
    "installation",
    "install",
    "installing",
    "how to use",
    "setup",
    "set up",
    "tutorial",
    "walkthrough",
    "first steps",
    "example",
    "examples",
];

/// Heading words of a README's API reference, whose examples show one call each.
pub(crate) const REFERENCE_HEADINGS: &[&str] = &[
    "api",
    "api reference",
    "reference",
    "methods",
    "functions",
    "options",
    "parameters",
    "arguments",
    "props",
];

/// Heading words of sections about working on the project itself.
pub(crate) const PROJECT_HEADINGS: &[&str] = &[
    "contributing",
    "contribute",
    "contributors",
    "development",
    "developing",
    "hacking",
    "testing",
    "tests",
    "running tests",
    "license",
    "licence",
    "changelog",
    "release",
    "releasing",
    "building from source",
    "build from source",
    "benchmarks",
    "acknowledgements",
    "acknowledgments",
    "sponsors",
    "code of conduct",
    "security",
];

/// Heading words over an ordered list that make it a procedure.
pub(crate) const PROCEDURE_HEADINGS: &[&str] = &["how to", "steps", "procedure", "instructions"];

/// Verbs that start an instruction (lower case).
const IMPERATIVE_VERBS: &[&str] = &[
    "access",
    "activate",
    "add",
    "allow",
    "append",
    "apply",
    "attach",
    "build",
    "call",
    "change",
    "check",
    "choose",
    "clear",
    "click",
    "clone",
    "close",
    "compile",
    "configure",
    "confirm",
    "connect",
    "copy",
    "create",
    "define",
    "delete",
    "deploy",
    "disable",
    "download",
    "drag",
    "drop",
    "edit",
    "enable",
    "enter",
    "execute",
    "export",
    "extract",
    "fill",
    "find",
    "follow",
    "fork",
    "generate",
    "get",
    "give",
    "go",
    "grant",
    "import",
    "include",
    "initialize",
    "initialise",
    "insert",
    "install",
    "invoke",
    "launch",
    "link",
    "load",
    "log",
    "login",
    "make",
    "mount",
    "move",
    "navigate",
    "open",
    "paste",
    "pick",
    "place",
    "press",
    "provide",
    "publish",
    "pull",
    "push",
    "put",
    "read",
    "register",
    "reload",
    "remove",
    "rename",
    "replace",
    "require",
    "restart",
    "return",
    "review",
    "run",
    "save",
    "scroll",
    "search",
    "select",
    "send",
    "set",
    "setup",
    "share",
    "sign",
    "specify",
    "start",
    "stop",
    "submit",
    "switch",
    "tap",
    "type",
    "uncomment",
    "unzip",
    "update",
    "upgrade",
    "upload",
    "use",
    "verify",
    "visit",
    "wait",
    "wrap",
    "write",
];

/// Whether a step title starts with an instruction (`Open Reports`, `Then run it`).
pub(crate) fn imperative(title: &str) -> bool {
    let mut words = title
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase);
    let mut first = words.next().unwrap_or_default();
    if matches!(
        first.as_str(),
        "first" | "then" | "next" | "finally" | "now" | "and"
    ) {
        first = words.next().unwrap_or_default();
    }
    IMPERATIVE_VERBS.contains(&first.as_str())
}

pub(crate) const SHELL_LANGUAGES: &[&str] = &[
    "sh",
    "bash",
    "shell",
    "console",
    "zsh",
    "fish",
    "powershell",
    "pwsh",
    "ps",
    "cmd",
    "bat",
    "terminal",
    "shell-session",
    "shellsession",
    "sh-session",
];

/// Whether `text`, as lower-case words, contains one of `phrases`.
/// A navigation title that says where a page is rather than what it is about.
pub(crate) fn is_generic_nav_title(title: &str) -> bool {
    const GENERIC: &[&str] = &[
        "home",
        "index",
        "overview",
        "introduction",
        "intro",
        "welcome",
        "start",
        "readme",
        "about",
    ];
    GENERIC.contains(&title.trim().to_lowercase().as_str())
}

/// Words of text about who funds the project ("made possible by the generosity of the
/// sponsors below"): for the repository page's visitors, never a reader's introduction.
const FUNDING_WORDS: &[&str] = &[
    "sponsor",
    "sponsors",
    "sponsored",
    "sponsorship",
    "backers",
    "donate",
    "donation",
    "donations",
    "patreon",
    "opencollective",
    "open collective",
    "made possible by",
    // A sponsor's ad: "Sindre's open source work is supported by the community. Special
    // thanks to:" above the sponsor's logo and slogan.
    "supported by the community",
    "special thanks to",
];

/// Whether `text` speaks of the project's funding.
pub(crate) fn is_funding_text(text: &str) -> bool {
    matches_words(text, FUNDING_WORDS)
}

pub(crate) fn matches_words(text: &str, phrases: &[&str]) -> bool {
    let words: String = text
        .to_lowercase()
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '-' {
                c
            } else {
                ' '
            }
        })
        .collect();
    let padded = format!(
        " {} ",
        words.split_whitespace().collect::<Vec<_>>().join(" ")
    );
    phrases
        .iter()
        .any(|phrase| padded.contains(&format!(" {phrase} ")))
}
/// README sections the help center shows besides the walkthrough: how to use the feature.
pub(crate) const HELP_HEADINGS: &[&str] = &[
    "faq",
    "troubleshooting",
    "configuration",
    "configuring",
    "options",
    "how it works",
    "requirements",
    "prerequisites",
    "documentation",
    // What the project is and why: a reader's first question.
    "introduction",
    "overview",
    "about",
    "philosophy",
    "motivation",
    "why",
    "features",
    "concepts",
    "core concepts",
    "key concepts",
];

/// README sections no article shows: a table of contents (its links point into the README)
/// and sections about working on the project.
pub(crate) const LEFT_OUT_HEADINGS: &[&str] = &[
    "table of contents",
    "contents",
    "toc",
    "contributing",
    "contribute",
    "contributors",
    "license",
    "licence",
    "licensing",
    "changelog",
    "release notes",
    "code of conduct",
    "security policy",
    "reporting a vulnerability",
    "sponsors",
    "backers",
    "acknowledgements",
    "acknowledgments",
    "maintainers",
];
