//! Located scenario errors: every message names the file, the key path, the bad value and
//! what was expected.

use std::fmt;

/// An invalid scenario.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScenarioError {
    /// The scenario file (or "<bundled:NAME>", "<command line>").
    pub file: String,
    /// Dotted key path, e.g. `topology.links[3].rate` (empty for whole-file problems).
    pub path: String,
    /// What is wrong and what was expected.
    pub message: String,
}

impl ScenarioError {
    /// An error at `path` in `file`.
    pub fn new(file: &str, path: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            file: file.to_string(),
            path: path.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}: {}", self.file, self.message)
        } else {
            write!(f, "{}: {}: {}", self.file, self.path, self.message)
        }
    }
}

impl std::error::Error for ScenarioError {}

/// The closest of `candidates` to `word`, if it is close enough to be a likely typo.
pub fn did_you_mean<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    candidates
        .into_iter()
        .map(|c| (strsim::jaro_winkler(word, c), c))
        .filter(|(score, _)| *score > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c)
}

/// Rewrites serde's "unknown field `x`, expected one of `a`, `b`" into a message with a
/// suggestion; other messages pass through.
pub fn explain_serde_message(msg: &str) -> String {
    for (prefix, what) in [("unknown field `", "key"), ("unknown variant `", "value")] {
        if let Some(rest) = msg.strip_prefix(prefix) {
            let Some((word, tail)) = rest.split_once('`') else {
                break;
            };
            let expected: Vec<&str> = tail
                .split('`')
                .enumerate()
                .filter(|(i, _)| i % 2 == 1)
                .map(|(_, s)| s)
                .collect();
            let list = expected
                .iter()
                .map(|e| format!("\"{e}\""))
                .collect::<Vec<_>>()
                .join(", ");
            let mut out = format!("unknown {what} \"{word}\"");
            if let Some(s) = did_you_mean(word, expected.iter().copied()) {
                out.push_str(&format!("; did you mean \"{s}\"?"));
            }
            if !expected.is_empty() {
                out.push_str(&format!(" (expected one of {list})"));
            } else if tail.contains("there are no fields") {
                out.push_str(" (this table takes no keys)");
            }
            return out;
        }
    }
    msg.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_the_closest_key() {
        let m = explain_serde_message(
            "unknown field `duraton`, expected one of `name`, `duration`, `seed`",
        );
        assert_eq!(
            m,
            "unknown key \"duraton\"; did you mean \"duration\"? (expected one of \"name\", \"duration\", \"seed\")"
        );
    }

    #[test]
    fn no_suggestion_for_unrelated_words() {
        let m = explain_serde_message("unknown field `zzz`, expected `name` or `seed`");
        assert_eq!(
            m,
            "unknown key \"zzz\" (expected one of \"name\", \"seed\")"
        );
    }

    #[test]
    fn unknown_variant_gets_a_suggestion() {
        let m = explain_serde_message(
            "unknown variant `per_frame`, expected `standard` or `per-frame`",
        );
        assert!(m.contains("did you mean \"per-frame\""), "{m}");
    }
}
