//! Fenced code blocks as MDX reads them, and ATX headings, for every pass over a document's
//! lines.

/// A line opening a fence: its char, length and info string. MDX has no indented code, so
/// any indentation is allowed.
pub(crate) fn opens_fence(line: &str) -> Option<(char, usize, &str)> {
    let trimmed = line.trim_start_matches([' ', '\t']);
    let ch = trimmed.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let len = trimmed.chars().take_while(|c| *c == ch).count();
    let info = &trimmed[len..];
    if len < 3 || (ch == '`' && info.contains('`')) {
        return None;
    }
    Some((ch, len, info))
}

/// MDX has no indented code, so a closing fence may be indented by any amount.
pub(crate) fn closes_fence(line: &str, ch: char, len: usize) -> bool {
    let trimmed = line.trim_start_matches([' ', '\t']);
    let run = trimmed.chars().take_while(|c| *c == ch).count();
    run >= len && trimmed[run * ch.len_utf8()..].trim().is_empty()
}

/// Which lines of a document belong to a fenced code block, fences included, read line by
/// line: the one fence state every pass over a document's lines keeps.
#[derive(Default)]
pub(crate) struct Fences {
    open: Option<(char, usize)>,
}

impl Fences {
    /// Whether `line`, the next line of the document, is code or a fence.
    pub(crate) fn is_code(&mut self, line: &str) -> bool {
        if let Some((ch, len)) = self.open {
            if closes_fence(line, ch, len) {
                self.open = None;
            }
            return true;
        }
        if let Some((ch, len, _)) = opens_fence(line) {
            self.open = Some((ch, len));
            return true;
        }
        false
    }
}

/// An ATX heading's level and text (at most three spaces of indentation, as CommonMark).
pub(crate) fn atx_heading(line: &str) -> Option<(usize, &str)> {
    let trimmed = line.trim_start_matches(' ');
    if line.len() - trimmed.len() > 3 {
        return None;
    }
    let level = trimmed.chars().take_while(|c| *c == '#').count();
    let rest = &trimmed[level..];
    if !(1..=6).contains(&level) || !(rest.is_empty() || rest.starts_with([' ', '\t'])) {
        return None;
    }
    Some((level, rest.trim().trim_end_matches('#').trim()))
}
