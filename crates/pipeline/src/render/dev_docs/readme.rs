//! A README shown above the reference says again what a module's own doc comment says when
//! both carry the same examples (a Go package comment written from the README: pkg.go.dev
//! shows that comment as the package's overview, which the article shows under the
//! package). Such sections of the README are left out, so that no example is read twice.

use std::collections::HashSet;

/// Code lines shorter than this, once normalised, say too little to count as a repeat
/// (`}`, `fmt.Println(x)`).
const MIN_LINE_CHARS: usize = 12;
/// A section with at least this many code lines, of which at least half are in an
/// overview, repeats it.
const MIN_CODE_LINES: usize = 3;

/// A line as compared: its letters and digits, lowercase (`// A newline…` and `// a
/// newline…` are the same line; indentation and punctuation do not count).
fn normalised(line: &str) -> String {
    line.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

fn heading_level(line: &str) -> Option<usize> {
    let level = line.chars().take_while(|c| *c == '#').count();
    (level > 0 && level <= 6 && line[level..].starts_with(' ')).then_some(level)
}

/// `markdown` without the sections (a heading and what follows it until the next heading)
/// whose code blocks are mostly lines the `overviews` hold, and without the headings left
/// with nothing under them before the next heading of their level or above.
pub(crate) fn without_overview_repeats(markdown: &str, overviews: &[&str]) -> String {
    let known: HashSet<String> = overviews
        .iter()
        .flat_map(|o| o.lines())
        .map(normalised)
        .filter(|l| l.len() >= MIN_LINE_CHARS)
        .collect();
    if known.is_empty() {
        return markdown.to_string();
    }
    // Sections: (heading level, lines); the part before the first heading has level 0.
    let mut sections: Vec<(usize, Vec<&str>)> = vec![(0, Vec::new())];
    let mut fence: Option<&str> = None;
    for line in markdown.lines() {
        let trimmed = line.trim_start();
        if let Some(open) = fence {
            if trimmed.starts_with(open) {
                fence = None;
            }
        } else if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            fence = Some(&trimmed[..3]);
        } else if let Some(level) = heading_level(line) {
            sections.push((level, Vec::new()));
        }
        if let Some(last) = sections.last_mut() {
            last.1.push(line);
        }
    }
    let repeats = |lines: &[&str]| {
        let mut inside = false;
        let (mut code, mut found) = (0usize, 0usize);
        for line in lines {
            let trimmed = line.trim_start();
            if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
                inside = !inside;
                continue;
            }
            let line = normalised(line);
            if inside && line.len() >= MIN_LINE_CHARS {
                code += 1;
                found += usize::from(known.contains(&line));
            }
        }
        code >= MIN_CODE_LINES && found * 2 >= code
    };
    let mut kept: Vec<&(usize, Vec<&str>)> = sections
        .iter()
        .filter(|(level, lines)| *level == 0 || !repeats(lines))
        .collect();
    if kept.len() == sections.len() {
        return markdown.to_string();
    }
    // A heading with nothing left under it ("## Examples" over removed examples) goes too.
    let empty = |lines: &[&str]| lines.iter().skip(1).all(|l| l.trim().is_empty());
    let mut i = kept.len();
    while i > 0 {
        i -= 1;
        let (level, lines) = kept[i];
        let next = kept.get(i + 1).map_or(0, |(l, _)| *l);
        if *level > 0 && empty(lines) && next <= *level {
            kept.remove(i);
        }
    }
    let mut out = kept
        .iter()
        .flat_map(|(_, lines)| lines.iter().copied())
        .collect::<Vec<_>>()
        .join("\n");
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const OVERVIEW: &str = "Package color prints colors.\n\n\tcolor.Cyan(\"Prints text in cyan.\")\n\n\t// a newline will be appended automatically\n\tcolor.Blue(\"Prints %s in blue.\", \"text\")\n";

    #[test]
    fn sections_whose_examples_the_overview_shows_are_left_out() {
        let readme = "Color lets you print colors.\n\n## Install\n\n```\ngo get github.com/fatih/color\n```\n\n## Examples\n\n### Standard colors\n\n```go\n// Print with default helper functions\ncolor.Cyan(\"Prints text in cyan.\")\n\n// A newline will be appended automatically\ncolor.Blue(\"Prints %s in blue.\", \"text\")\n```\n\n### Disable color\n\n```go\nvar flagNoColor = flag.Bool(\"no-color\", false, \"Disable color output\")\ncolor.NoColor = true // disables colorized output\nc.DisableColor()\n```\n";
        let out = without_overview_repeats(readme, &[OVERVIEW]);
        assert!(!out.contains("Standard colors"), "{out}");
        assert!(out.contains("## Examples\n\n### Disable color"), "{out}");
        assert!(out.contains("## Install"), "{out}");
        // Nothing repeated: the README is kept as it is.
        let other = "# X\n\n```go\nx.Run(\"a long enough line\")\ny.Run(\"another long line\")\nz.Run(\"and a third one\")\n```\n";
        assert_eq!(without_overview_repeats(other, &[OVERVIEW]), other);
    }

    #[test]
    fn a_heading_left_empty_goes_with_its_examples() {
        let readme = "Intro.\n\n## Examples\n\n### Standard colors\n\n```go\ncolor.Cyan(\"Prints text in cyan.\")\n// A newline will be appended automatically\ncolor.Blue(\"Prints %s in blue.\", \"text\")\n```\n\n## License\n\nMIT\n";
        let out = without_overview_repeats(readme, &[OVERVIEW]);
        assert_eq!(out, "Intro.\n\n## License\n\nMIT\n");
    }
}
