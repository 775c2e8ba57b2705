//! Lines and titles: list items, step numbers, and a step's title and lead read from its
//! first paragraph.

use super::MAX_TITLE_CHARS;
use crate::source::docs::vocabulary::{SHELL_LANGUAGES, imperative};

/// An ordered list item at the top level: the width of its marker and its text.
pub(crate) fn list_item(line: &str) -> Option<(usize, &str)> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let rest = &line[indent..];
    let digits = rest.chars().take_while(char::is_ascii_digit).count();
    if digits == 0 || digits > 9 {
        return None;
    }
    let after = &rest[digits..];
    let text = after.strip_prefix(['.', ')'])?;
    if !text.starts_with([' ', '\t']) {
        return None;
    }
    let spaces = text.len() - text.trim_start().len();
    Some((indent + digits + 1 + spaces, text.trim()))
}

/// `text` without anything that looks like an HTML tag (`<` then a letter or `/`, up to `>`).
fn strip_tags(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('<') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let tag = after.starts_with(|c: char| c.is_ascii_alphabetic() || c == '/');
        match after.find('>').filter(|_| tag) {
            Some(close) => rest = &after[close + 1..],
            None => {
                out.push('<');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

pub(crate) fn strip_indent(line: &str, width: usize) -> &str {
    let spaces = line.len() - line.trim_start_matches(' ').len();
    &line[spaces.min(width)..]
}

/// A step's body without the section numbers of its headings (`### 3.1. Model derived
/// values` → `### Model derived values`): the step titles that number them went.
pub(crate) fn without_section_numbers(body: &str) -> String {
    static NUMBERED: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        crate::builtin::regex(r"^(\s{0,3}#{1,6}\s+)\d{1,3}(?:\.\d{1,3})+\.?\s+(\S.*)$")
    });
    let mut fences = crate::source::docs::Fences::default();
    body.lines()
        .map(|line| {
            if fences.is_code(line) {
                return line.to_string();
            }
            NUMBERED.replace(line, "$1$2").into_owned()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The text of a step heading without its number (`Step 2: Configure` → `Configure`), or
/// `None` when the heading is not numbered as a step.
pub(crate) fn step_number(text: &str) -> Option<&str> {
    let lower = text.to_ascii_lowercase();
    let rest = if lower.starts_with("step") {
        let after = text[4..].trim_start();
        let digits = after.chars().take_while(char::is_ascii_digit).count();
        if digits == 0 {
            return None;
        }
        &after[digits..]
    } else {
        let digits = text.chars().take_while(char::is_ascii_digit).count();
        if digits == 0 || digits > 3 || !text[digits..].starts_with(['.', ')']) {
            return None;
        }
        &text[digits + 1..]
    };
    let rest = rest
        .trim_start_matches([':', '.', ')', '-', '–', '—', ' '])
        .trim();
    Some(if rest.is_empty() { text } else { rest })
}

/// A step title from the first line of a list item or paragraph: its first sentence or the
/// part before a colon, and the rest (which goes into the step's body).
/// A step's title from the first paragraph of its text, and the Markdown of that paragraph its
/// body keeps: the sentences after the title, or all of it when the title lost something
/// (inline code, links, emphasis, words past the length limit) or when `alone` (nothing else
/// would be in the body).
pub(crate) fn title_and_lead(lead: &str, alone: bool) -> (String, String) {
    let (title, first, rest) = split_title(lead);
    let plain = first
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .trim_end_matches([':', '.'])
        .trim()
        .to_string();
    if alone || title != plain {
        (title, lead.trim().to_string())
    } else {
        (title, rest.to_string())
    }
}

/// A title (see [`clean_title`]), the text it was made of and the rest.
fn split_title(text: &str) -> (String, &str, &str) {
    let text = text.trim();
    let mut cut = None;
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut in_code = false;
    for (n, (i, c)) in chars.iter().enumerate() {
        if *c == '`' {
            in_code = !in_code;
        }
        let next_is_space = chars.get(n + 1).is_none_or(|(_, c)| c.is_whitespace());
        if !in_code && matches!(c, '.' | ':' | '!' | '?') && next_is_space && *i >= 3 {
            cut = Some(*i);
            break;
        }
    }
    match cut {
        Some(i) => (clean_title(&text[..i]), &text[..i], text[i + 1..].trim()),
        None => (clean_title(text), text, ""),
    }
}

/// Markdown inline syntax taken out: HTML tags, link targets, emphasis, code ticks, line-break
/// backslashes; whitespace collapsed.
pub(crate) fn plain_text(text: &str) -> String {
    // Escaped punctuation is text (`rust::Box\<T\>` is no tag, `\_x\_` no emphasis): it is
    // set aside as private-use characters until the markup is gone.
    let text = strip_tags(&escapes_set_aside(text));
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(open) = rest.find('[') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        match after.find("](") {
            Some(close) if !after[..close].contains('[') => {
                out.push_str(&after[..close]);
                let target = &after[close + 2..];
                rest = target.find(')').map_or("", |end| &target[end + 1..]);
            }
            _ => {
                out.push('[');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    let joined = without_emphasis(&out)
        .replace("\\\n", " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    unescaped(&joined)
        .chars()
        .map(|c| match u32::from(c) {
            code @ ESCAPED..=ESCAPED_LAST => char::from_u32(code - ESCAPED).unwrap_or(c),
            _ => c,
        })
        .collect()
}

/// Where escaped ASCII punctuation is set aside among the private-use characters.
const ESCAPED: u32 = 0xE000;
const ESCAPED_LAST: u32 = ESCAPED + 0x7F;

fn escapes_set_aside(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match chars.peek() {
            Some(&next) if c == '\\' && next.is_ascii_punctuation() => {
                chars.next();
                out.push(char::from_u32(ESCAPED + u32::from(next)).unwrap_or(next));
            }
            _ => out.push(c),
        }
    }
    out
}

/// Markdown's backslash escapes and HTML's character references read, in one pass (so
/// `&amp;lt;` is `&lt;`): `Box\<T\> &mdash; x` → `Box<T> — x`.
pub(crate) fn unescaped(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(['\\', '&']) {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        if rest[at..].starts_with('\\') {
            match after.chars().next().filter(char::is_ascii_punctuation) {
                Some(c) => {
                    out.push(c);
                    rest = &after[1..];
                }
                None => {
                    out.push('\\');
                    rest = after;
                }
            }
            continue;
        }
        let reference = after
            .find(';')
            .filter(|end| *end <= 10)
            .and_then(|end| Some((character_reference(&after[..end])?, end)));
        match reference {
            Some((c, end)) => {
                out.push(c);
                rest = &after[end + 1..];
            }
            None => {
                out.push('&');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The character an HTML reference names (`mdash`, `#8212`, `#x2014`), for the names titles
/// use.
fn character_reference(name: &str) -> Option<char> {
    if let Some(number) = name.strip_prefix('#') {
        let code = match number.strip_prefix(['x', 'X']) {
            Some(hex) => u32::from_str_radix(hex, 16).ok()?,
            None => number.parse().ok()?,
        };
        return char::from_u32(code).filter(|c| !c.is_control() || c.is_whitespace());
    }
    Some(match name {
        "amp" => '&',
        "lt" => '<',
        "gt" => '>',
        "quot" => '"',
        "apos" => '\'',
        "nbsp" | "ensp" | "emsp" | "thinsp" => ' ',
        "mdash" => '\u{2014}',
        "ndash" => '\u{2013}',
        "hellip" => '\u{2026}',
        "rarr" => '\u{2192}',
        "larr" => '\u{2190}',
        "copy" => '\u{a9}',
        "trade" => '\u{2122}',
        "hearts" => '\u{2665}',
        "middot" => '\u{b7}',
        "laquo" => '\u{ab}',
        "raquo" => '\u{bb}',
        _ => return None,
    })
}

/// `text` without emphasis markers and code ticks: `*`, and `_` at a word's edge
/// (`_Black_`); code keeps its underscores (`` `__init__` ``, `snake_case`).
fn without_emphasis(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut code = false;
    let mut out = String::with_capacity(text.len());
    for (i, &c) in chars.iter().enumerate() {
        match c {
            '`' => code = !code,
            '*' if !code => {}
            '_' if !code => {
                let before = i.checked_sub(1).and_then(|j| chars.get(j));
                let after = chars.get(i + 1);
                let inner = |c: Option<&char>| c.is_some_and(|c| c.is_alphanumeric() || *c == '_');
                if inner(before) && inner(after) {
                    out.push(c);
                }
            }
            c => out.push(c),
        }
    }
    out
}

/// A title without Markdown syntax (emphasis, code ticks, link targets, HTML tags), at most
/// [`MAX_TITLE_CHARS`] long.
pub(crate) fn clean_title(text: &str) -> String {
    let cleaned = plain_text(text);
    let cleaned = cleaned.trim_end_matches([':', '.']).trim();
    if cleaned.chars().count() <= MAX_TITLE_CHARS {
        return cleaned.to_string();
    }
    let mut short = String::new();
    for word in cleaned.split(' ') {
        if short.chars().count() + word.chars().count() + 1 > MAX_TITLE_CHARS - 1 {
            break;
        }
        if !short.is_empty() {
            short.push(' ');
        }
        short.push_str(word);
    }
    if short.is_empty() {
        short = cleaned.chars().take(MAX_TITLE_CHARS - 1).collect();
    }
    short.push('…');
    short
}

/// Longest step title made from a sentence, in words; a longer sentence is no step's name.
const MAX_TITLE_WORDS: usize = 10;

/// Whether a title made from a sentence cannot name a step: longer than [`MAX_TITLE_WORDS`]
/// words, shortened, or holding a reference link (`[AliasChoices][pydantic.AliasChoices]`).
pub(crate) fn is_not_a_title(title: &str) -> bool {
    title.split_whitespace().count() > MAX_TITLE_WORDS
        || title.ends_with('…')
        || title.contains('[')
}

/// Whether an ordered list annotates the code block right above it: the block marks its
/// lines with MkDocs code annotations (`# (1)!`, `// (1)`), and the items are their notes.
pub(crate) fn annotates(code: &str) -> bool {
    code.lines().any(|l| {
        l.split_once("(1)").is_some_and(|(before, _)| {
            before.trim_end().ends_with(['#', '/', '-', '*']) || l.contains("(1)!")
        })
    })
}

/// Whether a title made from a sentence reads as a cut-off fragment rather than a step's name:
/// shortened, not an instruction ("It can be installed by running"), or ending on a word
/// that leads into what follows ("Or, to include the optional HTTP/2 support, use").
pub(crate) fn is_fragment(title: &str) -> bool {
    const LEADS_ON: &[&str] = &[
        "a",
        "an",
        "and",
        "as",
        "below",
        "by",
        "command",
        "commands",
        "following",
        "for",
        "from",
        "in",
        "into",
        "like",
        "of",
        "or",
        "run",
        "running",
        "the",
        "this",
        "these",
        "to",
        "type",
        "typing",
        "use",
        "using",
        "via",
        "with",
        "execute",
        "here",
        "is",
        "are",
        "be",
    ];
    let last = title
        .rsplit(|c: char| !c.is_alphanumeric())
        .find(|w| !w.is_empty())
        .map(str::to_lowercase)
        .unwrap_or_default();
    title.ends_with('…')
        || title.contains(',')
        || !imperative(title)
        || LEADS_ON.contains(&last.as_str())
}

/// A short imperative naming what a code block does, from its first command or statement:
/// `pip install httpx` → "Install with pip", `import httpx` → "Import httpx",
/// `git clone …` → "Clone the repository", another shell command → "Run <program>". `None` when the block says nothing recognisable.
pub(crate) fn command_title(code: &str, language: &str) -> Option<String> {
    const INSTALLERS: &[(&str, &str)] = &[
        ("python -m pip install", "pip"),
        ("python3 -m pip install", "pip"),
        ("pip install", "pip"),
        ("pip3 install", "pip"),
        ("pipx install", "pipx"),
        ("uv pip install", "uv"),
        ("uv add", "uv"),
        ("uv tool install", "uv"),
        ("poetry add", "Poetry"),
        ("pdm add", "PDM"),
        ("conda install", "conda"),
        ("mamba install", "mamba"),
        ("npm install", "npm"),
        ("npm i", "npm"),
        ("yarn add", "Yarn"),
        ("pnpm add", "pnpm"),
        ("pnpm install", "pnpm"),
        ("bun add", "Bun"),
        ("deno add", "Deno"),
        ("cargo add", "Cargo"),
        ("cargo install", "Cargo"),
        ("go get", "go get"),
        ("go install", "go install"),
        ("brew install", "Homebrew"),
        ("apt install", "apt"),
        ("apt-get install", "apt"),
        ("sudo apt install", "apt"),
        ("sudo apt-get install", "apt"),
        ("gem install", "RubyGems"),
        ("composer require", "Composer"),
        ("dotnet add package", "dotnet"),
    ];
    let line = code
        .lines()
        .map(|l| {
            l.trim()
                .trim_start_matches("$ ")
                .trim_start_matches("% ")
                .trim_start_matches(">>> ")
                .trim()
        })
        .find(|l| !l.is_empty() && !l.starts_with(['#', '/']) && !l.starts_with("```"))?;
    let words: Vec<&str> = line.split_whitespace().collect();
    let starts = |prefix: &str| {
        let p: Vec<&str> = prefix.split(' ').collect();
        words.len() > p.len() && words[..p.len()] == p[..]
    };
    if let Some((_, tool)) = INSTALLERS.iter().find(|(prefix, _)| starts(prefix)) {
        return Some(format!("Install with {tool}"));
    }
    let name = |word: &str| {
        let word = word.trim_end_matches([';', ',']);
        (!word.is_empty()
            && word.len() <= 40
            && word
                .chars()
                .all(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | '-')))
        .then(|| word.to_string())
    };
    match words.as_slice() {
        ["import", module, ..] | ["from", module, "import", ..] => {
            name(module).map(|m| format!("Import {m}"))
        }
        ["git", "clone", ..] => Some("Clone the repository".into()),
        [program, ..] if SHELL_LANGUAGES.contains(&language) => {
            name(program).map(|p| format!("Run {p}"))
        }
        _ => None,
    }
}
