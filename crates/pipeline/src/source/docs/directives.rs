//! What a MyST or Sphinx directive becomes when its page is read: an admonition, a code block
//! (a code directive, or a directive of the site's own around a console session), or nothing
//! (what only the site's build can resolve), and the sentence that introduced a dropped one.

/// Admonition kinds of MyST, Sphinx and docs frameworks, as the `:::` admonitions
/// `render::mdx::convert` reads.
pub(super) fn admonition(kind: &str) -> Option<&'static str> {
    Some(match kind.to_ascii_lowercase().as_str() {
        "note" | "info" | "important" | "seealso" | "see-also" | "admonition" | "default"
        | "neutral" | "check" => "note",
        "tip" | "hint" | "success" => "tip",
        "warning" | "caution" | "danger" | "attention" | "error" | "warn" | "deprecated" => {
            "warning"
        }
        _ => return None,
    })
}

/// Directives whose content is code.
pub(super) const CODE_DIRECTIVES: &[&str] = &[
    "code-block",
    "code",
    "sourcecode",
    "code-cell",
    "testcode",
    "testoutput",
    "doctest",
    "ipython",
    "jupyter-execute",
];

/// The fence language of a code directive: its argument, or the one its name implies.
pub(super) fn code_language<'a>(name: &str, argument: &'a str) -> &'a str {
    match argument.split_whitespace().next() {
        Some(language) if name != "doctest" && name != "testoutput" => language,
        _ if matches!(name, "doctest" | "ipython") => "pycon",
        _ => "",
    }
}

/// Lines of a Python console session (`>>> x`, then `...` continuations and output).
pub(super) fn is_console_prompt(line: &str) -> bool {
    let trimmed = line.trim_start();
    line.len() - trimmed.len() <= 3 && (trimmed == ">>>" || trimmed.starts_with(">>> "))
}

/// The fence language of a directive body that is a console session: its first line a shell
/// prompt (`$ pip install x`) or a Python one (`>>> x`).
pub(super) fn session_language(body: &[&str]) -> Option<&'static str> {
    let first = body.iter().find(|l| !l.trim().is_empty())?.trim_start();
    if first.starts_with("$ ") {
        Some("console")
    } else if is_console_prompt(first) {
        Some("pycon")
    } else {
        None
    }
}

/// When a directive is dropped, the sentence that introduced it (ending in ":") must not
/// point at nothing: its colon becomes a full stop.
pub(super) fn close_dangling_colon(out: &mut [String]) {
    let Some(last) = out.iter_mut().rev().find(|l| !l.trim().is_empty()) else {
        return;
    };
    let trimmed = last.trim_end();
    if trimmed.ends_with(':') && !trimmed.ends_with("::") && !trimmed.starts_with([':', '`', '~']) {
        let cut = trimmed.len() - 1;
        last.truncate(cut);
        last.push('.');
    }
}
