//! Scenario files: loading (with `--set` overrides), validation with located errors, and
//! building a runnable [`Sim`](crate::sim::Sim).

pub mod build;
pub mod bundled;
pub mod error;
pub mod generators;
pub mod schema;
pub mod units;

use std::path::Path;

pub use build::build;
pub use error::ScenarioError;
pub use schema::Scenario;

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

/// Applies one `key.path=value` override to a parsed TOML document. The value is read
/// as a TOML value when it parses as one (`5`, `true`, `[1, 2]`, `"x"`), otherwise as a
/// bare string (`10Gbps`).
pub fn apply_override(doc: &mut toml::Value, assignment: &str) -> Result<(), ScenarioError> {
    let err = |path: &str, msg: String| ScenarioError::new("--set", path, msg);
    let Some((key, raw)) = assignment.split_once('=') else {
        return Err(err(
            assignment,
            format!("\"{assignment}\" is not an override; expected key.path=value"),
        ));
    };
    let key = key.trim();
    let raw = raw.trim();
    let segments = parse_key_path(key).ok_or_else(|| {
        err(key, format!("\"{key}\" is not a key path; expected e.g. topology.dumbbell.senders or traffic[0].rate"))
    })?;
    let value = toml::from_str::<toml::Table>(&format!("v = {raw}"))
        .ok()
        .and_then(|mut t| t.remove("v"))
        .unwrap_or_else(|| toml::Value::String(raw.to_string()));
    let mut at = doc;
    let last = segments.len() - 1;
    for (i, seg) in segments.iter().enumerate() {
        match seg {
            Segment::Key(k) => {
                let table = at.as_table_mut().ok_or_else(|| {
                    err(
                        key,
                        format!("cannot set \"{k}\": its parent is not a table"),
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
                let arr = at
                    .as_array_mut()
                    .ok_or_else(|| err(key, format!("cannot index [{n}]: not a list")))?;
                let len = arr.len();
                let slot = arr.get_mut(*n).ok_or_else(|| {
                    err(
                        key,
                        format!("index [{n}] is out of range; the list has {len} entries"),
                    )
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

/// Parses scenario text, applies overrides and deserializes it. `file` names the source
/// in error messages.
pub fn parse(text: &str, file: &str, overrides: &[String]) -> Result<Scenario, ScenarioError> {
    let table: toml::Table = toml::from_str(text).map_err(|e| {
        let msg = e.message().to_string();
        let loc = e
            .span()
            .map(|s| {
                let line = text[..s.start.min(text.len())].matches('\n').count() + 1;
                format!(" (line {line})")
            })
            .unwrap_or_default();
        ScenarioError::new(file, "", format!("not valid TOML{loc}: {msg}"))
    })?;
    let mut doc = toml::Value::Table(table);
    for o in overrides {
        apply_override(&mut doc, o)?;
    }
    let scenario: Scenario = serde_path_to_error::deserialize(doc).map_err(|e| {
        let path = e.path().to_string();
        let path = if path == "." { String::new() } else { path };
        let inner = e.into_inner();
        ScenarioError::new(file, path, error::explain_serde_message(&inner.to_string()))
    })?;
    Ok(scenario)
}

/// Reads and parses a scenario file, or a bundled scenario by name when no such file
/// exists.
pub fn load(path: &str, overrides: &[String]) -> Result<Scenario, ScenarioError> {
    let p = Path::new(path);
    if !p.exists() {
        if let Some(text) = bundled::get(path) {
            return parse(text, &format!("<bundled:{path}>"), overrides);
        }
        let hint = bundled::names()
            .find(|n| strsim::jaro_winkler(n, path) > 0.85)
            .map(|n| format!("; did you mean the bundled scenario \"{n}\"?"))
            .unwrap_or_else(|| "; `cnsim list` shows the bundled scenarios".to_string());
        return Err(ScenarioError::new(
            path,
            "",
            format!("no such file or bundled scenario{hint}"),
        ));
    }
    let text = std::fs::read_to_string(p)
        .map_err(|e| ScenarioError::new(path, "", format!("cannot read: {e}")))?;
    parse(&text, path, overrides)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_paths() {
        assert_eq!(
            parse_key_path("traffic[0].rate"),
            Some(vec![
                Segment::Key("traffic".into()),
                Segment::Index(0),
                Segment::Key("rate".into())
            ])
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
}
