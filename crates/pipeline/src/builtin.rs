//! What every layer may use: the pipeline's own regular expressions.

/// A regular expression of the pipeline's own, a constant pattern: only those reach this, and
/// the tests of each module that declares one use it.
pub(crate) fn regex(pattern: &str) -> regex::Regex {
    regex::Regex::new(pattern).unwrap_or_else(|e| unreachable!("built-in pattern {pattern}: {e}"))
}
