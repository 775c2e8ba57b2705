//! A linear pre-scan that bounds how deeply a Markdown/MDX text can nest before markdown-rs
//! reads it. markdown-rs builds its tree by walking from the root for every event (time grows
//! with the square of the depth) and drops it recursively (a deep tree overflows the stack and
//! aborts the process), so depth has to be refused before parsing, not after.
//!
//! The estimate never undercounts what markdown-rs can build, at the price of overcounting
//! some unusual but harmless text:
//! - containers (block quotes, list items) of a line: every `>` or list marker of its prefix,
//!   plus one level per two columns of indentation (a nested list item needs at least two);
//! - inline nesting within a paragraph: `[`/`![` minus `]`, emphasis runs that can open minus
//!   runs that can only close (a run counts its length: one run of `n` can open `n` levels);
//! - JSX: `<Name` minus `</` and `/>`, over the whole document for lines starting with a tag
//!   (flow elements nest across paragraphs) and within the paragraph for the rest.
//!
//! Lines inside a fenced code block opened at column 0 are skipped: such a fence can only be
//! closed by a closing fence line, in MDX and here alike.

/// Where the text nests deeper than allowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TooDeep {
    /// 1-based.
    pub line: usize,
}

pub(crate) fn check(text: &str, max_depth: usize) -> Result<(), TooDeep> {
    let mut fence: Option<(u8, usize)> = None;
    let mut flow_jsx = 0usize;
    let mut inline = 0usize;
    for (index, line) in text.split('\n').enumerate() {
        let bytes = line.as_bytes();
        let too_deep = Err(TooDeep { line: index + 1 });
        if let Some((ch, len)) = fence {
            if closes_fence(bytes, ch, len) {
                fence = None;
            }
            continue;
        }
        if let Some(open) = opens_fence(bytes) {
            fence = Some(open);
            inline = 0;
            continue;
        }
        if bytes.iter().all(|b| matches!(b, b' ' | b'\t' | b'\r')) {
            inline = 0;
            continue;
        }
        let (containers, rest) = container_prefix(bytes);
        let starts_with_tag = rest.first() == Some(&b'<');
        let counter = if starts_with_tag {
            &mut flow_jsx
        } else {
            &mut inline
        };
        *counter = inline_depth(rest, *counter);
        if containers + flow_jsx + inline > max_depth {
            return too_deep;
        }
    }
    Ok(())
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

/// The inline depth after `text`, starting from `depth`.
fn inline_depth(text: &[u8], mut depth: usize) -> usize {
    let mut i = 0;
    while i < text.len() {
        let c = text[i];
        match c {
            b'\\' => {
                i += 2;
                continue;
            }
            b'[' => depth += 1,
            b']' => depth = depth.saturating_sub(1),
            b'<' => match text.get(i + 1) {
                Some(b'/') => depth = depth.saturating_sub(1),
                Some(n) if n.is_ascii_alphabetic() || *n == b'>' => depth += 1,
                _ => {}
            },
            b'/' if text.get(i + 1) == Some(&b'>') => depth = depth.saturating_sub(1),
            b'*' | b'_' => {
                let run = text[i..].iter().take_while(|b| **b == c).count();
                let before = if i == 0 { None } else { Some(text[i - 1]) };
                let after = text.get(i + run).copied();
                let (open, close) = flanking(c, before, after);
                if open {
                    depth += run;
                } else if close {
                    depth = depth.saturating_sub(run);
                }
                i += run;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    depth
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
        assert!(!depth_ok(&format!("{}x", "*a ".repeat(300))));
        assert!(!depth_ok(&"[".repeat(300)));
        assert!(!depth_ok(&"![".repeat(300)));
        assert!(!depth_ok(&"<A>".repeat(300)));
        // JSX flow elements nest across paragraphs.
        assert!(!depth_ok(&"<Note>\n\n".repeat(300)));
        assert!(!depth_ok(&format!("{}- x", "\t".repeat(200))));
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
    }
}
