//! Located scenario errors: every message names the file, the key path, the bad value and
//! what was expected.

use std::fmt;

/// An invalid scenario.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScenarioError {
    /// The scenario file (or "<bundled:NAME>", or "--set" for a malformed override).
    pub file: String,
    /// Dotted key path, e.g. `topology.links[3].rate` (empty for whole-file problems).
    pub path: String,
    /// What is wrong and what was expected.
    pub message: String,
}

impl ScenarioError {
    /// An error at `path` in `file`. Values echoed in the message are made safe to print
    /// (see [`sanitize_message`]), as are the file and the key path.
    pub fn new(file: &str, path: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            file: shown_limited(file, MAX_SHOWN_PATH),
            path: shown_limited(&path.into(), MAX_SHOWN_PATH),
            message: sanitize_message(&message.into()),
        }
    }
}

/// Longest value shown whole in a message, in characters; longer ones are cut with "…".
pub const MAX_SHOWN_VALUE: usize = 80;
/// Longest file name or key path shown whole.
const MAX_SHOWN_PATH: usize = 200;
/// Longest message shown whole.
const MAX_SHOWN_MESSAGE: usize = 2000;

/// `text` made safe to print on a terminal: control characters escaped (`\n`,
/// `\u{1b}`), and cut to `max` characters with an ellipsis.
pub fn shown_limited(text: &str, max: usize) -> String {
    let mut out = String::new();
    for (i, c) in text.chars().enumerate() {
        if i == max {
            out.push('…');
            break;
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// A value as messages show it: control characters escaped, and cut to
/// [`MAX_SHOWN_VALUE`] characters with an ellipsis.
pub fn shown(value: &str) -> String {
    shown_limited(value, MAX_SHOWN_VALUE)
}

/// Makes a message safe to print: control characters are escaped, every quoted value
/// (messages quote the values they echo) and every unbroken run of characters longer
/// than [`MAX_SHOWN_VALUE`] is cut with an ellipsis, and the whole is cut at
/// [`MAX_SHOWN_MESSAGE`] characters. Applied to every [`ScenarioError`], so that no
/// value, however long or strange, reaches the terminal verbatim.
pub fn sanitize_message(message: &str) -> String {
    let cut_long_words = |segment: &str| segment.split(' ').map(shown).collect::<Vec<_>>().join(" ");
    let mut out = String::new();
    for (i, segment) in message.split('"').enumerate() {
        if i > 0 {
            out.push('"');
        }
        // Odd segments lie between quotes: a value.
        if i % 2 == 1 {
            out.push_str(&shown(segment));
        } else {
            out.push_str(&cut_long_words(segment));
        }
    }
    shown_limited(&out, MAX_SHOWN_MESSAGE)
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

/// The closest of `candidates` to `word`, if it is close enough to be a likely typo: a
/// few edits away (a transposition counts as one edit) or sharing most of its letters in
/// order (Jaro-Winkler similarity above 0.8).
pub fn did_you_mean<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let max_edits = (word.chars().count() / 3).max(1);
    let prefix = |c: &str| word.chars().zip(c.chars()).take_while(|(a, b)| a == b).count();
    // Fewest edits first, then the longest common prefix, then the most similar; the
    // first candidate wins a full tie.
    candidates
        .into_iter()
        .map(|c| {
            let edits = strsim::osa_distance(word, c);
            (edits, prefix(c), strsim::jaro_winkler(word, c), c)
        })
        .filter(|&(edits, _, score, c)| c != word && (edits <= max_edits || score > 0.8))
        .reduce(|best, x| {
            let better = x.0.cmp(&best.0).then(best.1.cmp(&x.1)).then(best.2.total_cmp(&x.2));
            if better.is_lt() {
                x
            } else {
                best
            }
        })
        .map(|(_, _, _, c)| c)
}

/// Rewrites serde's "unknown field `x`, expected one of `a`, `b`" into a message with a
/// suggestion; other messages pass through.
pub fn explain_serde_message(msg: &str) -> String {
    for (prefix, what) in [("unknown field `", "key"), ("unknown variant `", "value")] {
        if let Some(rest) = msg.strip_prefix(prefix) {
            let Some((word, tail)) = rest.split_once('`') else {
                break;
            };
            let expected: Vec<&str> =
                tail.split('`').enumerate().filter(|(i, _)| i % 2 == 1).map(|(_, s)| s).collect();
            let list = expected.iter().map(|e| format!("\"{e}\"")).collect::<Vec<_>>().join(", ");
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
    // Serde names integer types; say what they accept. TOML integers stop at 2^63 - 1, so
    // that is the largest a u64 key can be given.
    for (ty, range) in [
        ("u8", "0 to 255"),
        ("u32", "0 to 4294967295"),
        ("u64", "0 to 9223372036854775807 (the largest TOML integer)"),
    ] {
        if let Some(head) = msg.strip_suffix(&format!("expected {ty}")) {
            // A number too large for TOML arrives as a string of digits: say what it is.
            let digits = head
                .strip_prefix("invalid type: string \"")
                .and_then(|h| h.strip_suffix("\", "))
                .filter(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()));
            if let Some(d) = digits {
                return format!("{d} is too large; expected a whole number from {range}");
            }
            return format!("{head}expected a whole number from {range}");
        }
    }
    msg.to_string()
}

/// What a required key holds, for "missing key" messages.
fn required_key_example(parent: &str, key: &str) -> Option<String> {
    let in_traffic = parent.starts_with("traffic");
    Some(match key {
        "name" if in_traffic => "a name, e.g. name = \"bulk\"".into(),
        "name" => "a name, e.g. name = \"my-scenario\"".into(),
        "duration" => "a time, e.g. duration = \"10ms\"".into(),
        "topology" => {
            "a [topology] table with a generator (e.g. [topology.dumbbell]) or nodes and links".into()
        }
        "rate" => "a rate, e.g. rate = \"10Gbps\"".into(),
        "delay" => "a time, e.g. delay = \"1us\"".into(),
        "kind" if in_traffic => {
            "one of \"cbr\", \"onoff\", \"poisson\", \"saturated\", \"tcp\", e.g. kind = \"cbr\"".into()
        }
        "kind" => "\"host\" or \"switch\", e.g. kind = \"host\"".into(),
        "from" if in_traffic => "a source host, pattern or list, e.g. from = \"h1\"".into(),
        "to" if in_traffic => "a destination host, group or \"uniform\", e.g. to = \"h2\"".into(),
        "from" | "to" => format!("a node name, e.g. {key} = \"sw\""),
        "hosts" => "a list of host names, e.g. hosts = [\"h1\", \"h2\"]".into(),
        "link" | "sender_link" | "bottleneck" | "receiver_link" | "host_link" | "trunk" | "access_link" => {
            format!("a link, e.g. {key} = {{ rate = \"10Gbps\", delay = \"1us\" }}")
        }
        "senders" | "switches" | "hosts_per_switch" | "routers" | "hosts_per_router" => {
            format!("a count, e.g. {key} = 4")
        }
        "port" => "a port \"node->next\", e.g. port = \"r1->r2\"".into(),
        "capacity" => "a size, e.g. capacity = \"100 frames\"".into(),
        _ => return None,
    })
}

/// Turns a deserialization error at `path` into a located message: a missing key is
/// reported at the key itself (serde reports it at the enclosing table), unknown keys and
/// values get a suggestion.
pub fn locate_serde_error(path: String, msg: &str) -> (String, String) {
    // A rule checked where a table is read names its key: "key `KEY`: MESSAGE".
    if let Some((key, message)) = msg.strip_prefix("key `").and_then(|rest| rest.split_once("`: ")) {
        let full = if path.is_empty() { key.to_string() } else { format!("{path}.{key}") };
        return (full, message.to_string());
    }
    if let Some(rest) = msg.strip_prefix("missing field `") {
        if let Some((key, _)) = rest.split_once('`') {
            let full = if path.is_empty() { key.to_string() } else { format!("{path}.{key}") };
            let what =
                required_key_example(&path, key).map(|e| format!("; expected {e}")).unwrap_or_default();
            return (full, format!("missing required key \"{key}\"{what}"));
        }
    }
    (path, explain_serde_message(msg))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_the_closest_key() {
        let m = explain_serde_message("unknown field `duraton`, expected one of `name`, `duration`, `seed`");
        assert_eq!(
            m,
            "unknown key \"duraton\"; did you mean \"duration\"? (expected one of \"name\", \"duration\", \"seed\")"
        );
    }

    #[test]
    fn no_suggestion_for_unrelated_words() {
        let m = explain_serde_message("unknown field `zzz`, expected `name` or `seed`");
        assert_eq!(m, "unknown key \"zzz\" (expected one of \"name\", \"seed\")");
    }

    #[test]
    fn suggestions_for_short_names_and_transpositions() {
        assert_eq!(did_you_mean("dts", ["src", "sw", "dst"]), Some("dst"));
        assert_eq!(did_you_mean("d2", ["s1", "s2", "d1"]), Some("d1"));
        assert_eq!(did_you_mean("d2", ["r2", "d1"]), Some("d1"));
        assert_eq!(did_you_mean("d2", ["d1", "r2"]), Some("d1"));
        assert_eq!(did_you_mean("zzzzzz", ["src", "sw", "dst"]), None);
        assert_eq!(did_you_mean("x", ["s1", "d1"]), None);
    }

    #[test]
    fn missing_keys_are_reported_at_the_key() {
        let (path, msg) = locate_serde_error("traffic[2]".into(), "missing field `kind`");
        assert_eq!(path, "traffic[2].kind");
        assert!(msg.starts_with("missing required key \"kind\"; expected one of \"cbr\""), "{msg}");
        let (path, msg) = locate_serde_error(String::new(), "missing field `duration`");
        assert_eq!(path, "duration");
        assert_eq!(msg, "missing required key \"duration\"; expected a time, e.g. duration = \"10ms\"");
    }

    /// Regression: a 100 KB value made a 100 KB error line, and control characters
    /// (terminal escapes) reached the terminal.
    #[test]
    fn messages_cut_long_values_and_escape_control_characters() {
        let long = "x".repeat(100_000);
        let e =
            ScenarioError::new("f.toml", "a.b", format!("\"{long}\" is not a rate; expected e.g. \"1Gbps\""));
        assert!(e.message.len() < 200, "{}", e.message.len());
        assert!(e.message.contains("…\" is not a rate; expected e.g. \"1Gbps\""), "{e}");
        let e = ScenarioError::new("f\u{1b}[2J.toml", "k\n", "\"\u{1b}]0;pwned\u{7}\" is bad");
        let text = e.to_string();
        assert!(!text.chars().any(char::is_control), "{text:?}");
        assert!(text.contains("\\u{1b}]0;pwned\\u{7}"), "{text}");
        // Unquoted runs are cut too.
        let e = ScenarioError::new("f", "", format!("bad {long} here"));
        assert!(e.message.len() < 200 && e.message.ends_with(" here"), "{}", e.message);
    }

    /// Regression: `--set seed=18446744073709551615` was refused by a message claiming
    /// the range goes up to that very number.
    #[test]
    fn u64_range_is_what_toml_can_hold() {
        let m = explain_serde_message("invalid type: string \"18446744073709551615\", expected u64");
        assert!(
            m.ends_with("expected a whole number from 0 to 9223372036854775807 (the largest TOML integer)"),
            "{m}"
        );
    }

    #[test]
    fn unknown_variant_gets_a_suggestion() {
        let m = explain_serde_message("unknown variant `per_frame`, expected `standard` or `per-frame`");
        assert!(m.contains("did you mean \"per-frame\""), "{m}");
    }
}
