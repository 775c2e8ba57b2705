//! A linear pre-scan that bounds how deeply a Markdown/MDX text can nest before markdown-rs
//! reads it. markdown-rs builds its tree by walking from the root for every event (time grows
//! with the square of the depth) and drops it recursively (a deep tree overflows the stack and
//! aborts the process), so depth has to be refused before parsing, not after.
//!
//! The estimate never undercounts what markdown-rs can build, at the price of overcounting
//! some unusual but harmless text. It is taken at every point of a line, not only at its end:
//! - containers (block quotes, list items) of a line: every `>` or list marker of its prefix,
//!   plus one level per two columns of indentation (a nested list item needs at least two);
//! - JSX: `<Name …>` opens a level, `</Name>` closes one, `<Name … />` neither; a line made
//!   only of tags and expressions is flow JSX, whose elements nest across paragraphs and are
//!   counted over the whole document; tags in a line of text are counted within its paragraph
//!   (markdown-rs refuses a text element left open at the paragraph's end). Attribute values
//!   and expressions (`{…}`, braces counted as markdown-rs counts them) are skipped, across
//!   lines too;
//! - links and emphasis within a paragraph: `[`/`![` minus `]`, emphasis runs that can open
//!   minus runs that can only close (a run counts its length: one run of `n` can open `n`
//!   levels), each at most the closers (`]`, runs that can close) the rest of the paragraph
//!   holds, as every level needs one: the text is read twice, the first time to count them;
//! - a code span (a backtick run and the next run of the same length on the line, without a
//!   `|` between, which a table row splits at) is skipped, until something that can hold a
//!   backtick markdown-rs would not read as code (a link destination or reference label, a
//!   run left unpaired) has appeared in the paragraph.
//!
//! Lines inside a fenced code block opened at column 0 are skipped: such a fence can only be
//! closed by a closing fence line, in MDX and here alike. A paragraph, here, ends at a blank
//! line or a fence, never earlier than markdown-rs ends it.

/// Open `[` a paragraph may hold, closed or not (see the `[` arm of `Walker::scan`).
const MAX_OPEN_BRACKETS: usize = 4_096;

/// Where the text nests deeper than allowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TooDeep {
    /// 1-based.
    pub line: usize,
}

pub(crate) fn check(text: &str, max_depth: usize) -> Result<(), TooDeep> {
    // First pass: the closers of each paragraph, which bound its links and emphasis.
    let mut counting = Walker::new(None, max_depth);
    for line in text.split('\n') {
        // Without a bound to check against, the first pass never stops early.
        let _ = counting.line(line.as_bytes());
    }
    counting.end_paragraph();
    let mut walker = Walker::new(Some(counting.closers), max_depth);
    for (index, line) in text.split('\n').enumerate() {
        walker
            .line(line.as_bytes())
            .map_err(|Deep| TooDeep { line: index + 1 })?;
    }
    Ok(())
}

/// Nesting past the limit, found within a line.
struct Deep;

/// Open levels of one kind of content.
#[derive(Clone, Copy, Default)]
struct Counts {
    jsx: usize,
    brackets: usize,
    emphasis: usize,
}

/// Closers seen in a paragraph: `]`, and the characters of emphasis runs that can close.
#[derive(Clone, Copy, Default)]
struct Closers {
    brackets: usize,
    emphasis: usize,
}

/// Which count a line's constructs go to.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Counter {
    /// Flow JSX (a line of tags and expressions): counted over the document.
    Flow,
    /// A paragraph's text: counted until the paragraph ends.
    Text,
}

/// A JSX tag or an expression not closed yet.
#[derive(Clone, Copy)]
enum Construct {
    Tag {
        closing: bool,
        /// The quote of the attribute value the scan is in.
        quote: Option<u8>,
        /// Braces of the attribute expression the scan is in.
        braces: usize,
        /// The last byte outside values and whitespace: `/` before `>` closes the element.
        last: u8,
    },
    Expression {
        braces: usize,
    },
}

impl Construct {
    /// Reads on from `from`: the index after the construct's end when the text holds it.
    fn scan(&mut self, text: &[u8], from: usize) -> Option<usize> {
        for (j, &c) in text.iter().enumerate().skip(from) {
            match self {
                Construct::Expression { braces } => match c {
                    b'{' => *braces += 1,
                    b'}' => {
                        *braces = braces.saturating_sub(1);
                        if *braces == 0 {
                            return Some(j + 1);
                        }
                    }
                    _ => {}
                },
                Construct::Tag {
                    quote: quote @ Some(_),
                    last,
                    ..
                } => {
                    if Some(c) == *quote {
                        *quote = None;
                        *last = c;
                    }
                }
                Construct::Tag { braces, last, .. } if *braces > 0 => match c {
                    b'{' => *braces += 1,
                    b'}' => {
                        *braces -= 1;
                        *last = c;
                    }
                    _ => {}
                },
                Construct::Tag {
                    quote,
                    braces,
                    last,
                    ..
                } => match c {
                    b'"' | b'\'' => {
                        *quote = Some(c);
                        *last = c;
                    }
                    b'{' => *braces = 1,
                    b'>' => return Some(j + 1),
                    b' ' | b'\t' | b'\r' => {}
                    _ => *last = c,
                },
            }
        }
        None
    }

    /// What the closed construct does to the depth: +1, -1 or nothing.
    fn delta(&self) -> isize {
        match self {
            Construct::Tag { closing: true, .. } => -1,
            Construct::Tag { last: b'/', .. } | Construct::Expression { .. } => 0,
            Construct::Tag { .. } => 1,
        }
    }
}

/// A `<` that starts a tag for markdown-rs (anything else but whitespace after it is a tag
/// or an error that fails the parse).
fn starts_tag(text: &[u8], at: usize) -> bool {
    text.get(at) == Some(&b'<')
        && text
            .get(at + 1)
            .is_some_and(|n| !matches!(n, b' ' | b'\t' | b'\r'))
}

fn tag(text: &[u8], at: usize) -> Construct {
    Construct::Tag {
        closing: text.get(at + 1) == Some(&b'/'),
        quote: None,
        braces: 0,
        last: 0,
    }
}

/// Whether a line (after its container prefix) is flow: only tags and expressions, with
/// whitespace between. A construct the line leaves open counts as flow, the larger count.
fn is_flow(rest: &[u8]) -> bool {
    let mut i = 0;
    loop {
        while rest
            .get(i)
            .is_some_and(|c| matches!(c, b' ' | b'\t' | b'\r'))
        {
            i += 1;
        }
        let mut construct = match rest.get(i) {
            None => return true,
            Some(b'{') => Construct::Expression { braces: 1 },
            Some(b'<') if starts_tag(rest, i) => tag(rest, i),
            Some(_) => return false,
        };
        match construct.scan(rest, i + 1) {
            Some(end) => i = end,
            None => return true,
        }
    }
}

/// One reading of a text, line by line.
struct Walker {
    max: usize,
    /// The closers of each paragraph: filled by the first reading, read by the second
    /// (`checking`), which alone compares depths with `max`.
    closers: Vec<Closers>,
    checking: bool,
    paragraph: usize,
    /// Closers passed in the current paragraph.
    seen: Closers,
    fence: Option<(u8, usize)>,
    open: Option<(Construct, Counter)>,
    containers: usize,
    flow: Counts,
    text: Counts,
    /// Whether a backtick run may still be taken for a code span in this paragraph.
    code_spans: bool,
}

impl Walker {
    fn new(closers: Option<Vec<Closers>>, max: usize) -> Self {
        Self {
            max,
            checking: closers.is_some(),
            closers: closers.unwrap_or_default(),
            paragraph: 0,
            seen: Closers::default(),
            fence: None,
            open: None,
            containers: 0,
            flow: Counts::default(),
            text: Counts::default(),
            code_spans: true,
        }
    }

    fn end_paragraph(&mut self) {
        if !self.checking {
            self.closers.push(self.seen);
        }
        self.paragraph += 1;
        self.seen = Closers::default();
        self.text = Counts::default();
        self.code_spans = true;
    }

    fn line(&mut self, bytes: &[u8]) -> Result<(), Deep> {
        let (containers, rest) = container_prefix(bytes);
        self.containers = containers;
        if let Some((mut construct, counter)) = self.open.take() {
            // A tag or expression goes on over the line whatever its prefix looks like.
            match construct.scan(bytes, 0) {
                Some(end) => {
                    self.apply(construct.delta(), counter)?;
                    self.scan(bytes, end, counter)?;
                }
                None => self.open = Some((construct, counter)),
            }
            return self.verify();
        }
        if let Some((ch, len)) = self.fence {
            if closes_fence(bytes, ch, len) {
                self.fence = None;
            }
            return Ok(());
        }
        if let Some(open) = opens_fence(bytes) {
            self.fence = Some(open);
            self.end_paragraph();
            return Ok(());
        }
        if bytes.iter().all(|b| matches!(b, b' ' | b'\t' | b'\r')) {
            self.end_paragraph();
            return Ok(());
        }
        if starts_bullet_item(bytes) {
            // A new list item ends the paragraph before it (a tight list has no blank line).
            self.end_paragraph();
        }
        let counter = if matches!(rest.first(), Some(b'<' | b'{')) && is_flow(rest) {
            Counter::Flow
        } else {
            Counter::Text
        };
        self.scan(rest, 0, counter)?;
        self.verify()
    }

    /// The depth now: what is open, links and emphasis at most what the rest of the
    /// paragraph can close.
    fn depth(&self) -> usize {
        let total = self.closers.get(self.paragraph).copied();
        let after = |total: Option<usize>, seen: usize| {
            total.map_or(usize::MAX, |t| t.saturating_sub(seen))
        };
        let brackets = after(total.map(|t| t.brackets), self.seen.brackets);
        let emphasis = after(total.map(|t| t.emphasis), self.seen.emphasis);
        self.containers
            .saturating_add(self.flow.jsx)
            .saturating_add(self.flow.brackets)
            .saturating_add(self.flow.emphasis)
            .saturating_add(self.text.jsx)
            .saturating_add(self.text.brackets.min(brackets))
            .saturating_add(self.text.emphasis.min(emphasis))
    }

    fn verify(&self) -> Result<(), Deep> {
        if self.checking && self.depth() > self.max {
            Err(Deep)
        } else {
            Ok(())
        }
    }

    fn counts(&mut self, counter: Counter) -> &mut Counts {
        match counter {
            Counter::Flow => &mut self.flow,
            Counter::Text => &mut self.text,
        }
    }

    fn apply(&mut self, delta: isize, counter: Counter) -> Result<(), Deep> {
        let counts = self.counts(counter);
        match delta {
            1 => counts.jsx += 1,
            -1 => counts.jsx = counts.jsx.saturating_sub(1),
            _ => return Ok(()),
        }
        self.verify()
    }

    /// Reads `text` from `i`, counting into `counter`; a construct left open at the end of
    /// the line is kept for the next.
    fn scan(&mut self, text: &[u8], mut i: usize, counter: Counter) -> Result<(), Deep> {
        while i < text.len() {
            let c = text[i];
            match c {
                b'\\' => {
                    i += 2;
                    continue;
                }
                b'`' => {
                    let run = text[i..].iter().take_while(|b| **b == b'`').count();
                    if self.code_spans
                        && let Some(end) = closing_ticks(text, i + run, run)
                    {
                        i = end + run;
                        continue;
                    }
                    // A run left unpaired may close on a later line, or not at all: which
                    // later run opens code is no longer known.
                    self.code_spans = false;
                    i += run;
                    continue;
                }
                b'<' | b'{' if c == b'{' || starts_tag(text, i) => {
                    let mut construct = if c == b'{' {
                        Construct::Expression { braces: 1 }
                    } else {
                        tag(text, i)
                    };
                    match construct.scan(text, i + 1) {
                        Some(end) => {
                            self.apply(construct.delta(), counter)?;
                            i = end;
                            continue;
                        }
                        None => {
                            self.open = Some((construct, counter));
                            return Ok(());
                        }
                    }
                }
                b'[' => {
                    let open = {
                        let counts = self.counts(counter);
                        counts.brackets += 1;
                        counts.brackets
                    };
                    // Unclosed `[` nest nothing, but markdown-rs's time grows with the square
                    // of how many a paragraph holds (100,000 take seconds): past a bound, the
                    // text is refused as too deep, as it always was.
                    if self.checking && open > MAX_OPEN_BRACKETS.max(self.max) {
                        return Err(Deep);
                    }
                    self.verify()?;
                }
                b']' => {
                    let counts = self.counts(counter);
                    counts.brackets = counts.brackets.saturating_sub(1);
                    self.seen.brackets += 1;
                    if matches!(text.get(i + 1), Some(b'(' | b'[')) {
                        // A destination, title or reference label can hold backticks.
                        self.code_spans = false;
                    }
                }
                b'*' | b'_' => {
                    let run = text[i..].iter().take_while(|b| **b == c).count();
                    let before = if i == 0 { None } else { Some(text[i - 1]) };
                    let after = text.get(i + run).copied();
                    let (open, close) = flanking(c, before, after);
                    if close {
                        self.seen.emphasis += run;
                    }
                    let counts = self.counts(counter);
                    if open {
                        counts.emphasis += run;
                        self.verify()?;
                    } else if close {
                        counts.emphasis = counts.emphasis.saturating_sub(run);
                    }
                    i += run;
                    continue;
                }
                _ => {}
            }
            i += 1;
        }
        Ok(())
    }
}

/// The start of the next run of exactly `run` backticks from `from`, when no `|` comes first.
fn closing_ticks(text: &[u8], from: usize, run: usize) -> Option<usize> {
    let mut j = from;
    while j < text.len() {
        match text[j] {
            b'|' => return None,
            b'`' => {
                let len = text[j..].iter().take_while(|b| **b == b'`').count();
                if len == run {
                    return Some(j);
                }
                j += len;
            }
            _ => j += 1,
        }
    }
    None
}

/// Fence opened at column 0 (never inside a container): its char and length.
fn opens_fence(line: &[u8]) -> Option<(u8, usize)> {
    let ch = *line.first().filter(|c| matches!(c, b'`' | b'~'))?;
    let len = line.iter().take_while(|c| **c == ch).count();
    if len < 3 || (ch == b'`' && line[len..].contains(&b'`')) {
        return None;
    }
    Some((ch, len))
}

/// MDX has no indented code, so a closing fence may be indented by any amount.
fn closes_fence(line: &[u8], ch: u8, len: usize) -> bool {
    let start = line
        .iter()
        .position(|c| !matches!(c, b' ' | b'\t'))
        .unwrap_or(line.len());
    let run = line[start..].iter().take_while(|c| **c == ch).count();
    run >= len
        && line[start + run..]
            .iter()
            .all(|c| matches!(c, b' ' | b'\t' | b'\r'))
}

/// Container levels a line's prefix can open or continue, and the rest of the line.
fn container_prefix(line: &[u8]) -> (usize, &[u8]) {
    let (mut markers, mut columns, mut i) = (0usize, 0usize, 0);
    // The space or tab right after a marker belongs to the marker.
    let after_marker = |i: usize| i + usize::from(matches!(line.get(i), Some(b' ' | b'\t')));
    while i < line.len() {
        match line[i] {
            b' ' => columns += 1,
            b'\t' => columns += 4 - columns % 4,
            b'>' => {
                markers += 1;
                i = after_marker(i + 1);
                continue;
            }
            b'-' | b'+' | b'*' if line.get(i + 1).is_none_or(|c| matches!(c, b' ' | b'\t')) => {
                markers += 1;
                i = after_marker(i + 1);
                continue;
            }
            b'0'..=b'9' => {
                let digits = line[i..].iter().take_while(|c| c.is_ascii_digit()).count();
                let after = i + digits;
                if digits <= 9
                    && matches!(line.get(after), Some(b'.' | b')'))
                    && line
                        .get(after + 1)
                        .is_none_or(|c| matches!(c, b' ' | b'\t'))
                {
                    markers += 1;
                    i = after_marker(after + 1);
                    continue;
                }
                break;
            }
            _ => break,
        }
        i += 1;
    }
    (markers + columns.div_ceil(2), &line[i..])
}

/// Whether a line starts a bullet list item with content, after its block quote markers: at
/// most three spaces, `-`, `+` or `*`, a space or tab, then text. Such a line ends the
/// paragraph before it in markdown-rs whatever that paragraph's container (a sibling item, a
/// nested list, or a list that interrupts it); a deeper indented one may be a paragraph's
/// continuation and is left alone.
fn starts_bullet_item(line: &[u8]) -> bool {
    let mut i = 0;
    loop {
        let spaces = line[i..].iter().take_while(|c| **c == b' ').count();
        if spaces > 3 {
            return false;
        }
        i += spaces;
        match line.get(i) {
            Some(b'>') => {
                i += 1;
                if line.get(i) == Some(&b' ') {
                    i += 1;
                }
            }
            Some(b'-' | b'+' | b'*') if matches!(line.get(i + 1), Some(b' ' | b'\t')) => {
                return line[i + 2..]
                    .iter()
                    .any(|c| !matches!(c, b' ' | b'\t' | b'\r'));
            }
            _ => return false,
        }
    }
}

/// Whether a delimiter run can open and can close emphasis (CommonMark's flanking rules,
/// bytes ≥ 0x80 counted as letters).
fn flanking(c: u8, before: Option<u8>, after: Option<u8>) -> (bool, bool) {
    let space = |b: Option<u8>| b.is_none_or(|b| b.is_ascii_whitespace());
    let punct = |b: Option<u8>| b.is_some_and(|b| b.is_ascii_punctuation());
    let left = !space(after) && (!punct(after) || space(before) || punct(before));
    let right = !space(before) && (!punct(before) || space(after) || punct(after));
    if c == b'_' {
        (
            left && (!right || punct(before)),
            right && (!left || punct(after)),
        )
    } else {
        (left, right)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_paragraph_of_unclosed_brackets_is_refused_past_its_bound() {
        // markdown-rs takes seconds over 100,000 of them, though they nest nothing.
        assert!(super::check(&"[".repeat(100_000), 256).is_err());
        assert!(super::check(&"[".repeat(4_000), 256).is_ok());
    }

    #[test]
    fn what_the_portal_refuses_to_render_is_refused_here() {
        // The portal parses untrusted articles with this bound before markdown-rs reads them
        // (its render tests); each of these takes markdown-rs deep or slow.
        for deep in [
            "> ".repeat(100_000),
            "- ".repeat(50_000),
            "<A>".repeat(5_000),
            "[".repeat(100_000),
            "a**".repeat(200_000),
        ] {
            assert!(super::check(&deep, 256).is_err(), "{}", &deep[..12]);
        }
    }

    use super::*;

    fn depth_ok(text: &str) -> bool {
        check(text, 256).is_ok()
    }

    #[test]
    fn hostile_nesting_is_refused() {
        assert_eq!(check(&"> ".repeat(40_000), 256), Err(TooDeep { line: 1 }));
        assert!(!depth_ok(&"- ".repeat(20_000)));
        assert!(!depth_ok(&"1. ".repeat(300)));
        let lists: String = (0..20_000)
            .map(|i| format!("{}- x\n", "  ".repeat(i)))
            .collect();
        assert_eq!(check(&lists, 256), Err(TooDeep { line: 257 }));
        assert!(!depth_ok(&"a**".repeat(100_000)));
        assert!(!depth_ok(&format!(
            "{}b{}",
            "*a ".repeat(300),
            "*".repeat(300)
        )));
        assert!(!depth_ok(&format!(
            "{}x{}",
            "![".repeat(300),
            "](u)".repeat(300)
        )));
        assert!(!depth_ok(&"<A>".repeat(300)));
        assert!(!depth_ok(&"<é>".repeat(300)));
        assert!(!depth_ok(&"<$>".repeat(300)));
        // JSX flow elements nest across paragraphs.
        assert!(!depth_ok(&"<Note>\n\n".repeat(300)));
        assert!(!depth_ok(&"<Note\n  title=\"a\"\n>\n\n".repeat(300)));
        assert!(!depth_ok(&"{/* a */}<Note>\n\n".repeat(300)));
        assert!(!depth_ok(&format!("{}- x", "\t".repeat(200))));
    }

    #[test]
    fn nesting_within_a_line_is_counted_where_it_is_deepest() {
        assert_eq!(
            check(
                &format!("a\n{}{}", "<A>".repeat(300), "</A>".repeat(300)),
                256
            ),
            Err(TooDeep { line: 2 })
        );
        assert!(!depth_ok(&format!(
            "{}x{}",
            "**a ".repeat(200),
            " b**".repeat(200)
        )));
        // `/>` closes a tag, not an element opened before it.
        assert!(!depth_ok(&"<A>/>".repeat(300)));
    }

    #[test]
    fn what_could_hide_a_tag_from_a_code_span_is_not_taken_for_one() {
        let deep = "<A>".repeat(300);
        // A run left unpaired on one line may close on the next.
        assert!(!depth_ok(&format!("`a\nb` {deep} `c`")));
        // A link destination or reference label can hold a backtick.
        assert!(!depth_ok(&format!("[a](`) {deep} `")));
        assert!(!depth_ok(&format!("[a][x`] {deep} `")));
        // A table row splits at `|`, even inside code.
        assert!(!depth_ok(&format!("| `x| {deep} |y` |")));
        // Inside a tag or an expression a backtick is no code.
        assert!(!depth_ok(&format!("<a b=\"`\" /> {deep} `")));
        assert!(!depth_ok(&format!("{{`}} {deep} `")));
        // An escaped backtick opens nothing.
        assert!(!depth_ok(&format!("\\` {deep} `")));
        // A tag that goes on over the next line ends at its `>`, whatever the line's prefix.
        assert!(!depth_ok(&format!("<A\n> \"{deep}\"")));
        // A line that only looks like a list item continues the paragraph: indented four
        // spaces (a lazy continuation), an empty item, or a tab before the marker.
        assert!(!depth_ok(&format!("[a](`)\n    - {deep} `")));
        assert!(!depth_ok(&format!("[a](`)\n-\n{deep} `")));
        assert!(!depth_ok(&format!("[a](`)\n\t- {deep} `")));
    }

    #[test]
    fn ordinary_articles_pass() {
        let body = "---\ntitle: \"x\"\n---\n\n<Steps>\n<Step title=\"a\">\n\n- **bold** and *em* and [link](https://x.y)\n  - nested `code` item\n\n> quote with _em_ and snake_case_name\n\n<Frame>\n  <img src=\"/a.png\" alt=\"a\" />\n</Frame>\n\n</Step>\n</Steps>\n";
        assert!(depth_ok(&body.repeat(500)));
        // Generics and pointers in code fences are not counted.
        let code = format!(
            "```rust\n{}```\n",
            "fn f(x: *const Vec<Option<T>>) {}\n".repeat(1000)
        );
        assert!(depth_ok(&code));
        // A paragraph boundary resets inline nesting.
        assert!(depth_ok(&"a <b and *c\n\n".repeat(1000)));
        // Balanced emphasis and links do not accumulate.
        assert!(depth_ok(&"**a** *b* [c](d) <Note>x</Note> ".repeat(2000)));
        assert!(depth_ok(&"2 ** 10 ** 3 ".repeat(1000)));
        // Openers nothing closes open nothing.
        assert!(depth_ok(&format!("{}x", "*a ".repeat(300))));
        assert!(depth_ok(&"[0, 1) ".repeat(1000)));
    }

    #[test]
    fn many_lines_of_text_starting_with_a_tag_do_not_add_up() {
        // A list item per field, each starting with its anchor: text, not flow JSX.
        let fields = "- <a id=\"m-T-f\" />`f: Array<Map<string, T>>`: the *f [x\n\n".repeat(2000);
        assert!(depth_ok(&fields));
        // Rows of a table: code spans are code, whatever they hold.
        let rows = format!(
            "| Name | Summary |\n| --- | --- |\n{}",
            "| <a id=\"m-f\" />`f` | Takes `**kwargs` and `Option<Vec<T>>`, the `*mut T`. |\n"
                .repeat(2000)
        );
        assert!(depth_ok(&rows));
        // A tight list: each item is its own paragraph, so an item whose link destination
        // stops code spans from being taken does not turn the next items' generics into tags.
        let tight = format!(
            "- see [x](#a-b)\n{}",
            "- <a id=\"m-f\" />`f?: Handler<T> | null`\n".repeat(2000)
        );
        assert!(depth_ok(&tight));
        assert!(depth_ok(&format!(
            "> - [x](#a)\n{}",
            "> - `Array<T>`\n".repeat(2000)
        )));
        // Attribute values are not text.
        assert!(depth_ok(
            &"<Step title=\"[a *b <c\">\n\n</Step>\n\n".repeat(1000)
        ));
        assert!(depth_ok(
            &"<img\n  src=\"/a.png\"\n  alt=\"[\" />\n\n".repeat(1000)
        ));
    }
}
