//! Scenario files: loading (with `--set` overrides), validation with located errors, and
//! building a runnable [`Sim`](crate::sim::Sim).

pub mod budget;
pub mod build;
pub mod bundled;
pub mod error;
pub mod generators;
pub mod hpcc;
pub mod install;
pub mod periodic;
pub mod schema;
pub use crate::units;
pub mod warnings;
pub mod workload;

use std::path::Path;

pub use budget::Limits;
#[cfg(feature = "outputs")]
pub(crate) use build::build_unstarted;
pub use build::{build, build_partitioned, build_until, build_with, BuildError};
pub use error::ScenarioError;
pub use schema::Scenario;
pub use warnings::warnings;

/// Parses a `--set` key path such as `traffic[0].rate` or `topology.dumbbell.senders`
/// into segments.
fn parse_key_path(path: &str) -> Option<Vec<Segment>> {
    let mut out = Vec::new();
    for part in path.split('.') {
        let (name, mut rest) = match part.find('[') {
            Some(i) => (&part[..i], &part[i..]),
            None => (part, ""),
        };
        if name.is_empty() && (out.is_empty() || rest.is_empty()) {
            return None;
        }
        if !name.is_empty() {
            out.push(Segment::Key(name.to_string()));
        }
        while let Some(r) = rest.strip_prefix('[') {
            let (idx, tail) = r.split_once(']')?;
            out.push(Segment::Index(idx.trim().parse().ok()?));
            rest = tail;
        }
        if !rest.is_empty() {
            return None;
        }
    }
    (!out.is_empty()).then_some(out)
}

#[derive(Debug, Clone, PartialEq)]
enum Segment {
    Key(String),
    Index(usize),
}

/// The `file` of errors in a `--set` override itself (as opposed to errors in the values
/// it sets, which are reported against the scenario file at the overridden key).
pub const OVERRIDE_FILE: &str = "--set";

/// Applies one `key.path=value` override to a parsed TOML document. The value is read
/// as a TOML value when it parses as one (`5`, `true`, `[1, 2]`, `"x"`), otherwise as a
/// bare string (`10Gbps`).
pub fn apply_override(doc: &mut toml::Value, assignment: &str) -> Result<(), ScenarioError> {
    let err = |path: &str, msg: String| ScenarioError::new(OVERRIDE_FILE, path, msg);
    let Some((key, raw)) = assignment.split_once('=') else {
        return Err(err(
            "",
            format!("\"{assignment}\" is not an override; expected key.path=value, e.g. duration=10ms"),
        ));
    };
    set_key(doc, key.trim(), override_value(raw.trim()), assignment)
}

/// An override's value: a TOML value when `raw` parses as one (`5`, `true`, `[1, 2]`,
/// `"x"`), otherwise the bare string (`10Gbps`).
pub fn override_value(raw: &str) -> toml::Value {
    toml::from_str::<toml::Table>(&format!("v = {raw}"))
        .ok()
        .and_then(|mut t| t.remove("v"))
        .unwrap_or_else(|| toml::Value::String(raw.to_string()))
}

/// The value at key path `key` (e.g. `traffic[0].rate`) of a scenario document, if
/// there is one: what an error at that key is about, as the user wrote it.
pub fn value_at<'a>(doc: &'a toml::Value, key: &str) -> Option<&'a toml::Value> {
    parse_key_path(key)?.iter().try_fold(doc, |at, seg| match seg {
        Segment::Key(k) => at.as_table()?.get(k),
        Segment::Index(n) => at.as_array()?.get(*n),
    })
}

/// Sets the value at key path `key` (e.g. `traffic[0].rate`) of a scenario document;
/// `assignment` is how errors show what was asked.
pub fn set_key(
    doc: &mut toml::Value,
    key: &str,
    value: toml::Value,
    assignment: &str,
) -> Result<(), ScenarioError> {
    let err = |path: &str, msg: String| ScenarioError::new(OVERRIDE_FILE, path, msg);
    let segments = parse_key_path(key).ok_or_else(|| {
        err(
            key,
            format!(
                "\"{key}\" is not a key path; expected e.g. topology.dumbbell.senders or traffic[0].rate"
            ),
        )
    })?;
    let mut at = doc;
    let last = segments.len() - 1;
    for (i, seg) in segments.iter().enumerate() {
        match seg {
            Segment::Key(k) => {
                let table = at.as_table_mut().ok_or_else(|| {
                    err(
                        key,
                        format!(
                            "{assignment}: cannot set \"{k}\", its parent is not a table; expected a key path through tables"
                        ),
                    )
                })?;
                if i == last {
                    table.insert(k.clone(), value);
                    return Ok(());
                }
                let next_is_index = matches!(segments[i + 1], Segment::Index(_));
                at = table.entry(k.clone()).or_insert_with(|| {
                    if next_is_index {
                        toml::Value::Array(Vec::new())
                    } else {
                        toml::Value::Table(toml::Table::new())
                    }
                });
            }
            Segment::Index(n) => {
                let arr = at.as_array_mut().ok_or_else(|| {
                    err(
                        key,
                        format!("{assignment}: cannot index [{n}], the value there is not a list; expected a key without [{n}]"),
                    )
                })?;
                let len = arr.len();
                let slot = arr.get_mut(*n).ok_or_else(|| {
                    let expected = match len {
                        0 => "the list is empty and --set cannot add entries".to_string(),
                        1 => "expected index [0]: the list has 1 entry".to_string(),
                        _ => {
                            format!("expected an index from [0] to [{}]: the list has {len} entries", len - 1)
                        }
                    };
                    err(key, format!("{assignment}: index [{n}] is out of range; {expected}"))
                })?;
                if i == last {
                    *slot = value;
                    return Ok(());
                }
                at = slot;
            }
        }
    }
    Ok(())
}

/// Describes a TOML syntax error: line, column, the offending line and the parser's
/// message.
fn toml_syntax_error(text: &str, file: &str, e: &toml::de::Error) -> ScenarioError {
    let msg = e.message().lines().map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join("; ");
    let loc = e
        .span()
        .map(|s| {
            // Byte offsets: never slice the text itself, the offset may not fall on a
            // character boundary.
            let bytes = text.as_bytes();
            let start = s.start.min(bytes.len());
            let line_start = bytes[..start].iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
            let line_end = bytes[start..].iter().position(|&b| b == b'\n').map_or(bytes.len(), |i| start + i);
            let line = bytes[..start].iter().filter(|&&b| b == b'\n').count() + 1;
            let column = String::from_utf8_lossy(&bytes[line_start..start]).chars().count() + 1;
            let shown: String =
                String::from_utf8_lossy(&bytes[line_start..line_end]).trim().chars().take(80).collect();
            if shown.is_empty() {
                format!(" at line {line}, column {column}")
            } else {
                format!(" at line {line}, column {column} (`{shown}`)")
            }
        })
        .unwrap_or_default();
    let mut hint = String::new();
    if msg.contains("duplicate key") {
        hint.push_str("; expected each key once per table");
    }
    if let Some(fix) = e.span().and_then(|sp| unquoted_quantity(text, sp.start)) {
        hint.push_str(&format!("; values with units are strings: expected {fix}"));
    }
    ScenarioError::new(file, "", format!("not valid TOML{loc}: {msg}{hint}"))
}

/// If the line holding byte `at` reads `key = 10Gbps` (a quantity without quotes), the
/// quoted form `key = "10Gbps"`.
fn unquoted_quantity(text: &str, at: usize) -> Option<String> {
    let bytes = text.as_bytes();
    let at = at.min(bytes.len());
    let start = bytes[..at].iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let end = bytes[at..].iter().position(|&b| b == b'\n').map_or(bytes.len(), |i| at + i);
    let line = std::str::from_utf8(&bytes[start..end]).ok()?;
    let (key, value) = line.split_once('=')?;
    let (key, value) = (key.trim(), value.trim());
    let looks_like_quantity = value.starts_with(|c: char| c.is_ascii_digit())
        && value.contains(|c: char| c.is_ascii_alphabetic())
        && !value.contains(['"', '\'', '#', ',', '{', '[']);
    looks_like_quantity.then(|| format!("{key} = \"{value}\""))
}

/// Parses scenario text, applies overrides and deserializes it. `file` names the source
/// in error messages.
pub fn parse(text: &str, file: &str, overrides: &[String]) -> Result<Scenario, ScenarioError> {
    from_document(document(text, file)?, file, overrides)
}

/// Parses scenario text into a TOML document (no validation beyond the syntax).
pub fn document(text: &str, file: &str) -> Result<toml::Value, ScenarioError> {
    let table: toml::Table = toml::from_str(text).map_err(|e| toml_syntax_error(text, file, &e))?;
    Ok(toml::Value::Table(table))
}

/// The key of a scenario file's sweep table, which a single run ignores (see
/// `crate::sweep`).
pub const SWEEP_KEY: &str = "sweep";

/// Applies overrides to a scenario document and deserializes it. A `[sweep]` table is
/// set aside: it describes a sweep over the scenario, not the scenario.
pub fn from_document(
    mut doc: toml::Value,
    file: &str,
    overrides: &[String],
) -> Result<Scenario, ScenarioError> {
    if let Some(t) = doc.as_table_mut() {
        t.remove(SWEEP_KEY);
    }
    for o in overrides {
        apply_override(&mut doc, o)?;
    }
    deserialize(doc, file).map_err(|e| blame_override(e, overrides))
}

/// An error at a key an override set is the override's: it names `--set` instead of the
/// file (the file never had that value).
pub fn blame_override(e: ScenarioError, overrides: &[String]) -> ScenarioError {
    let set_here = |o: &String| {
        let key = o.split_once('=').map_or("", |(k, _)| k.trim());
        !key.is_empty()
            && (e.path == key || e.path.strip_prefix(key).is_some_and(|rest| rest.starts_with(['.', '['])))
    };
    match overrides.iter().rev().find(|o| set_here(o)) {
        Some(_) => ScenarioError::new(OVERRIDE_FILE, e.path.clone(), e.message),
        None => e,
    }
}

/// Deserializes a scenario document whose overrides are applied, with located errors.
pub fn deserialize(doc: toml::Value, file: &str) -> Result<Scenario, ScenarioError> {
    let scenario: Scenario = serde_path_to_error::deserialize(doc).map_err(|e| {
        let path = e.path().to_string();
        let path = if path == "." { String::new() } else { path };
        let inner = e.into_inner();
        // `message()`, not `to_string()`: the latter appends the key path again.
        let (path, message) = error::locate_serde_error(path, inner.message());
        ScenarioError::new(file, path, message)
    })?;
    check_scenario_name(&scenario.name, file)?;
    Ok(scenario)
}

/// Longest scenario name, in bytes (it names a directory: file systems allow 255).
pub const MAX_NAME_BYTES: usize = 100;

/// A scenario name names the default run directory `runs/<name>`, so it must be a plain
/// name: not empty, not `.` or `..`, without path separators or control characters.
fn check_scenario_name(name: &str, file: &str) -> Result<(), ScenarioError> {
    let why = if name.is_empty() {
        Some("is empty")
    } else if name == "." || name == ".." {
        Some("is a path, not a name")
    } else if name.contains(['/', '\\']) {
        Some("contains a path separator")
    } else if name.chars().any(char::is_control) {
        Some("contains a control character")
    } else if name.len() > MAX_NAME_BYTES {
        Some("is too long")
    } else if name.starts_with(".cnsim-") {
        Some("uses the prefix cnsim keeps for its temporary directories")
    } else {
        None
    };
    match why {
        None => Ok(()),
        Some(why) => Err(ScenarioError::new(
            file,
            "name",
            format!(
                "{:?} {why}; expected a plain name of 1 to {MAX_NAME_BYTES} bytes without \"/\", \"\\\" \
                 or control characters, other than \".\" and \"..\", e.g. name = \"my-scenario\"",
                error::shown(name)
            ),
        )),
    }
}

/// Largest scenario file read, in bytes.
pub const MAX_FILE_BYTES: u64 = 16 << 20;

/// Reads a scenario file: only a regular file (a named pipe would block, a device such as
/// `/dev/zero` would never end), and at most [`MAX_FILE_BYTES`].
fn read_scenario_file(path: &str) -> Result<String, ScenarioError> {
    use std::io::Read;
    let fail = |msg: String| ScenarioError::new(path, "", msg);
    let meta = std::fs::metadata(path).map_err(|e| fail(format!("cannot read: {e}")))?;
    if !meta.is_file() {
        let what =
            if meta.is_dir() { "a directory" } else { "not a regular file (a pipe, socket or device)" };
        return Err(fail(format!("is {what}; expected a scenario file (TOML)")));
    }
    let too_big = || {
        fail(format!(
            "is larger than {} MiB; expected a scenario file of at most that size",
            MAX_FILE_BYTES >> 20
        ))
    };
    if meta.len() > MAX_FILE_BYTES {
        return Err(too_big());
    }
    let file = std::fs::File::open(path).map_err(|e| fail(format!("cannot read: {e}")))?;
    // Stat again through the handle: the path may have been swapped since.
    if !file.metadata().is_ok_and(|m| m.is_file()) {
        return Err(fail("is not a regular file; expected a scenario file (TOML)".into()));
    }
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes).map_err(|e| fail(format!("cannot read: {e}")))?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(too_big());
    }
    String::from_utf8(bytes).map_err(|e| {
        fail(format!(
            "is not UTF-8 text (invalid byte at offset {}); expected a TOML file",
            e.utf8_error().valid_up_to()
        ))
    })
}

/// How errors name the scenario given as `path`: the path itself, or "<bundled:NAME>"
/// when no such file exists and `path` names a bundled scenario.
pub fn display_name(path: &str) -> String {
    if !Path::new(path).exists() && bundled::get(path).is_some() {
        format!("<bundled:{path}>")
    } else {
        path.to_string()
    }
}

/// Reads and parses a scenario file, or a bundled scenario by name when no such file
/// exists.
pub fn load(path: &str, overrides: &[String]) -> Result<Scenario, ScenarioError> {
    let (doc, file) = load_document(path)?;
    from_document(doc, &file, overrides)
}

/// Reads a scenario file (or a bundled scenario by name when no such file exists) into a
/// TOML document, with the name errors should give it.
pub fn load_document(path: &str) -> Result<(toml::Value, String), ScenarioError> {
    let p = Path::new(path);
    if !p.exists() {
        if let Some(text) = bundled::get(path) {
            let file = display_name(path);
            return Ok((document(text, &file)?, file));
        }
        let hint = bundled::names()
            .find(|n| strsim::jaro_winkler(n, path) > 0.85)
            .map(|n| format!("; did you mean the bundled scenario \"{n}\"?"))
            .unwrap_or_else(|| "; `cnsim list` shows the bundled scenarios".to_string());
        return Err(ScenarioError::new(path, "", format!("no such file or bundled scenario{hint}")));
    }
    let text = read_scenario_file(path)?;
    Ok((document(&text, path)?, path.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_at_follows_keys_and_indices() {
        let doc =
            document("a = 1\n[[traffic]]\nrate = \"1Gbps\"\n[[traffic]]\nrate = \"2Gbps\"\n", "f").unwrap();
        assert_eq!(value_at(&doc, "traffic[1].rate"), Some(&toml::Value::String("2Gbps".into())));
        assert_eq!(value_at(&doc, "a"), Some(&toml::Value::Integer(1)));
        assert_eq!(value_at(&doc, "traffic[2].rate"), None);
        assert_eq!(value_at(&doc, "a.b"), None);
        assert_eq!(value_at(&doc, "not a path["), None);
    }

    #[test]
    fn key_paths() {
        assert_eq!(
            parse_key_path("traffic[0].rate"),
            Some(vec![Segment::Key("traffic".into()), Segment::Index(0), Segment::Key("rate".into())])
        );
        assert_eq!(parse_key_path("a..b"), None);
        assert_eq!(parse_key_path("a[x]"), None);
        assert_eq!(parse_key_path(""), None);
    }

    #[test]
    fn overrides_set_nested_values() {
        let mut doc: toml::Value = toml::from_str("[a]\nb = 1\n[[t]]\nr = \"1Gbps\"").unwrap();
        apply_override(&mut doc, "a.b=5").unwrap();
        apply_override(&mut doc, "a.c.d=10Gbps").unwrap();
        apply_override(&mut doc, "t[0].r=2Gbps").unwrap();
        assert_eq!(doc["a"]["b"].as_integer(), Some(5));
        assert_eq!(doc["a"]["c"]["d"].as_str(), Some("10Gbps"));
        assert_eq!(doc["t"][0]["r"].as_str(), Some("2Gbps"));
        let e = apply_override(&mut doc, "t[3].r=1").unwrap_err();
        assert!(e.message.contains("out of range"), "{e}");
        assert!(apply_override(&mut doc, "novalue").is_err());
    }

    /// Syntax errors are located by byte offsets, never by slicing the text (which
    /// panics off a character boundary), and show the offending line.
    #[test]
    fn syntax_errors_after_multibyte_text() {
        for text in [
            "name = \"é\"\nµé = \n",
            "a = \"\u{1F600}\u{1F600}\n",
            "µ",
            "a = 1\n[\u{1F600}",
            "x = \"\u{1F600}",
        ] {
            let e = parse(text, "f.toml", &[]).unwrap_err();
            assert_eq!(e.path, "", "{e}");
            assert!(e.message.starts_with("not valid TOML at line "), "{e}");
        }
        let e = parse("name = \"é\"\nµé = \n", "f.toml", &[]).unwrap_err();
        assert!(e.message.contains("line 2, column 1 (`µé =`)"), "{e}");
    }

    /// Regression: the name is the default run directory, and `..`, `/abs/dir`,
    /// `../../x` or `""` made cnsim write (and, with --force, delete) outside `runs/`.
    #[test]
    fn names_are_names_not_paths() {
        let base = "duration = \"1ms\"\n[topology.star]\nhosts = [\"a\", \"b\"]\nlink = { rate = \"1Gbps\", delay = \"1us\" }\n";
        for bad in ["", ".", "..", "/abs/dir", "../../x", "a/b", "a\\\\b", "a\\u0007b", ".cnsim-tmp-1-0-x"] {
            let text = format!("name = \"{bad}\"\n{base}");
            let e = parse(&text, "f.toml", &[]).unwrap_err();
            assert_eq!(e.path, "name", "{bad:?}: {e}");
            assert!(e.message.contains("expected a plain name"), "{e}");
        }
        let e = parse(&format!("name = \"{}\"\n{base}", "n".repeat(101)), "f.toml", &[]).unwrap_err();
        assert!(e.message.contains("is too long"), "{e}");
        for good in ["x", "my run", "mliki2016-star", "ünï"] {
            parse(&format!("name = \"{good}\"\n{base}"), "f.toml", &[]).unwrap_or_else(|e| panic!("{e}"));
        }
    }

    /// Regression: a named pipe blocked the loader, `/dev/zero` was read until memory ran
    /// out.
    #[cfg(unix)]
    #[test]
    fn only_regular_files_of_bounded_size_are_read() {
        for special in ["/dev/zero", "/dev/null", "/"] {
            if std::path::Path::new(special).exists() {
                let e = load(special, &[]).unwrap_err();
                assert!(e.message.contains("expected a scenario file"), "{e}");
            }
        }
        let dir = std::env::temp_dir().join(format!("cnsim-load-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let big = dir.join("big.toml");
        std::fs::write(&big, vec![b'#'; (MAX_FILE_BYTES + 1) as usize]).unwrap();
        let e = load(big.to_str().unwrap(), &[]).unwrap_err();
        assert!(e.message.contains("larger than 16 MiB"), "{e}");
        let fifo = dir.join("pipe.toml");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status().is_ok_and(|s| s.success());
        if made {
            let e = load(fifo.to_str().unwrap(), &[]).unwrap_err();
            assert!(e.message.contains("not a regular file"), "{e}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn unquoted_quantities_get_a_hint() {
        let e = parse("duration = 10ms\n", "f.toml", &[]).unwrap_err();
        assert!(e.message.contains("expected duration = \"10ms\""), "{e}");
        assert_eq!(unquoted_quantity("a = 5\n", 0), None);
        assert_eq!(unquoted_quantity("a = \"5x\"", 0), None);
    }
}
