//! The grid of a sweep: axes of values for scenario keys, crossed (cartesian product) or
//! zipped (varied together), and the seeds each point is run with.
//!
//! An axis comes from the command line (`--grid 'traffic[0].rate=[1,2,5]Gbps'`, `--zip
//! ...`) or from the scenario file's `[sweep]` table, in the spirit of OMNeT++'s `${...}`
//! iteration variables:
//!
//! ```toml
//! [sweep]
//! repeat = 10                                   # seeds: seed, seed + 1, ..., seed + 9
//! grid = { "protocols.qcn.cp.qeq" = ["25 frames", "50 frames", "75 frames"] }
//! zip = { "traffic[0].rate" = ["1Gbps", "2Gbps"], "traffic[1].rate" = ["2Gbps", "1Gbps"] }
//! ```

use crate::scenario::{override_value, ScenarioError};

/// Where sweep errors in a scenario file's `[sweep]` table are located.
const TABLE: &str = "sweep";

/// One swept key and its values.
#[derive(Clone, Debug, PartialEq)]
pub struct Axis {
    /// Key path, e.g. `traffic[0].rate`.
    pub key: String,
    /// Values, in order.
    pub values: Vec<toml::Value>,
    /// Where it was given (`--grid`, `--zip`, or the file's `[sweep]` table), for errors.
    pub source: String,
}

/// The grid: crossed axes, one group of zipped axes (crossed with the rest), and seeds.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Grid {
    /// Axes whose values are crossed with every other axis.
    pub cross: Vec<Axis>,
    /// Axes varied together (all of the same length); the group counts as one axis.
    pub zip: Vec<Axis>,
    /// Seeds per point: `repeat` consecutive seeds from `first_seed`.
    pub(crate) repeat: u64,
    /// First seed (the scenario's own seed unless given).
    pub(crate) first_seed: Option<u64>,
}

/// Most runs one sweep may have.
pub const MAX_RUNS: u64 = 100_000;

/// A value as the user would type it: strings bare, other values in TOML.
pub fn shown_value(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Splits `a, "b,c", [d, e]` at top-level commas, keeping quoted strings and brackets
/// whole.
fn split_items(list: &str) -> Vec<String> {
    let (mut items, mut current, mut depth, mut quote) = (Vec::new(), String::new(), 0i32, None);
    for c in list.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (None, '"' | '\'') => quote = Some(c),
            (None, '[' | '{') => depth += 1,
            (None, ']' | '}') => depth -= 1,
            (None, ',') if depth == 0 => {
                items.push(std::mem::take(&mut current).trim().to_string());
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    items.push(current.trim().to_string());
    items
}

/// Parses a command-line axis `KEY=[v1,v2,...]SUFFIX` (or `KEY=v1,v2,...`): each value
/// gets the suffix appended (`qeq=[25,50] frames` gives "25 frames" and "50 frames") and
/// is then read as a `--set` value is. `flag` (`--grid`, `--zip`) names the source in
/// errors.
pub fn parse_axis(text: &str, flag: &str) -> Result<Axis, ScenarioError> {
    let fail = |key: &str, msg: String| ScenarioError::new(flag, key, msg);
    let example = "expected KEY=[v1,v2,...] with an optional unit after the list, e.g. \
                   'traffic[0].rate=[1,2,5]Gbps'";
    let Some((key, rest)) = text.split_once('=') else {
        return Err(fail(
            "",
            format!("\"{}\" is not an axis; {example}", crate::scenario::error::shown(text)),
        ));
    };
    let (key, rest) = (key.trim(), rest.trim());
    if key.is_empty() {
        return Err(fail("", format!("\"{}\" names no key; {example}", crate::scenario::error::shown(text))));
    }
    let (list, suffix) = match rest.strip_prefix('[') {
        Some(inner) => match inner.rfind(']') {
            Some(end) => (&inner[..end], &inner[end + 1..]),
            None => {
                return Err(fail(
                    key,
                    format!(
                        "\"{}\": the list has no closing \"]\"; {example}",
                        crate::scenario::error::shown(rest)
                    ),
                ))
            }
        },
        None => (rest, ""),
    };
    let items = split_items(list);
    if items.iter().any(String::is_empty) {
        return Err(fail(
            key,
            format!("\"{}\" has an empty value; {example}", crate::scenario::error::shown(rest)),
        ));
    }
    let values = items.iter().map(|item| override_value(&format!("{item}{suffix}"))).collect();
    check_values(Axis { key: key.to_string(), values, source: flag.to_string() }, flag)
}

fn check_values(axis: Axis, source: &str) -> Result<Axis, ScenarioError> {
    let mut seen: Vec<&toml::Value> = Vec::new();
    for v in &axis.values {
        if seen.contains(&v) {
            return Err(ScenarioError::new(
                source,
                &axis.key,
                format!("the value \"{}\" is given twice; expected each value once", shown_value(v)),
            ));
        }
        seen.push(v);
    }
    if axis.values.is_empty() {
        return Err(ScenarioError::new(source, &axis.key, "has no values; expected at least one"));
    }
    Ok(axis)
}

impl Grid {
    /// Reads a scenario file's `[sweep]` table (`file` names it in errors).
    pub fn from_table(table: &toml::Value, file: &str) -> Result<Grid, ScenarioError> {
        let fail = |key: &str, msg: String| {
            ScenarioError::new(file, format!("{TABLE}.{key}").trim_end_matches('.').to_string(), msg)
        };
        let Some(t) = table.as_table() else {
            return Err(fail(
                "",
                "is not a table; expected [sweep] with grid, zip, repeat or seed".to_string(),
            ));
        };
        let mut grid = Grid { repeat: 1, ..Grid::default() };
        for (k, v) in t {
            match k.as_str() {
                "grid" | "zip" => {
                    let Some(axes) = v.as_table() else {
                        return Err(fail(
                            k,
                            format!("is not a table; expected {k} = {{ \"KEY\" = [values] }}"),
                        ));
                    };
                    for (key, values) in axes {
                        let Some(list) = values.as_array() else {
                            return Err(fail(
                                &format!("{k}.\"{key}\""),
                                "is not a list; expected a list of values, e.g. [\"1Gbps\", \"2Gbps\"]"
                                    .into(),
                            ));
                        };
                        let axis = check_values(
                            Axis {
                                key: key.clone(),
                                values: list.clone(),
                                source: format!("{file} [sweep]"),
                            },
                            file,
                        )?;
                        if k == "grid" {
                            grid.cross.push(axis)
                        } else {
                            grid.zip.push(axis)
                        }
                    }
                }
                "repeat" => {
                    grid.repeat =
                        v.as_integer().filter(|&n| (1..=MAX_RUNS as i64).contains(&n)).ok_or_else(|| {
                            fail(
                                k,
                                format!(
                                    "{v} is not a number of seeds; expected an integer from 1 to {MAX_RUNS}"
                                ),
                            )
                        })? as u64;
                }
                "seed" => {
                    grid.first_seed = Some(
                        v.as_integer()
                            .filter(|&n| n >= 0)
                            .ok_or_else(|| fail(k, format!("{v} is not a seed; expected an integer ≥ 0")))?
                            as u64,
                    );
                }
                other => {
                    return Err(fail(other, "is not a sweep key; expected grid, zip, repeat or seed".into()));
                }
            }
        }
        Ok(grid)
    }

    /// Adds (or replaces, for a key already there) an axis given on the command line.
    pub fn set_axis(&mut self, axis: Axis, zipped: bool) {
        self.cross.retain(|a| a.key != axis.key);
        self.zip.retain(|a| a.key != axis.key);
        if zipped {
            self.zip.push(axis);
        } else {
            self.cross.push(axis);
        }
    }

    /// Checks that zipped axes have equal lengths and that the sweep is not too large.
    pub fn check(&self, source: &str) -> Result<(), ScenarioError> {
        if let Some(first) = self.zip.first() {
            for a in &self.zip[1..] {
                if a.values.len() != first.values.len() {
                    return Err(ScenarioError::new(
                        source,
                        &a.key,
                        format!(
                            "has {} values but the zipped key {} has {}; expected zipped keys of equal length",
                            a.values.len(),
                            first.key,
                            first.values.len()
                        ),
                    ));
                }
            }
        }
        let runs = self.points().len() as u64 * self.repeat;
        if runs > MAX_RUNS {
            return Err(ScenarioError::new(
                source,
                "",
                format!("the sweep has {runs} runs; expected at most {MAX_RUNS} (fewer values or seeds)"),
            ));
        }
        Ok(())
    }

    /// Every axis, crossed ones first, in order.
    pub fn axes(&self) -> impl Iterator<Item = &Axis> {
        self.cross.iter().chain(&self.zip)
    }

    /// The grid's points: for each, one value per axis (in [`Grid::axes`] order). The
    /// first crossed axis varies slowest; the zipped group varies fastest.
    pub fn points(&self) -> Vec<Vec<toml::Value>> {
        let zip_len = self.zip.first().map_or(1, |a| a.values.len());
        let mut points: Vec<Vec<toml::Value>> = vec![Vec::new()];
        for axis in &self.cross {
            points = points
                .into_iter()
                .flat_map(|p| {
                    axis.values.iter().map(move |v| {
                        let mut q = p.clone();
                        q.push(v.clone());
                        q
                    })
                })
                .collect();
        }
        points
            .into_iter()
            .flat_map(|p| {
                (0..zip_len).map(move |i| {
                    let mut q = p.clone();
                    q.extend(self.zip.iter().map(|a| a.values[i].clone()));
                    q
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(a: &Axis) -> Vec<String> {
        a.values.iter().map(shown_value).collect()
    }

    #[test]
    fn an_axis_takes_a_unit_after_its_list() {
        let a = parse_axis("protocols.qcn.cp.qeq=[25,50,75] frames", "--grid").unwrap();
        assert_eq!(a.key, "protocols.qcn.cp.qeq");
        assert_eq!(strings(&a), ["25 frames", "50 frames", "75 frames"]);
        let a = parse_axis("traffic[0].rate=[1,2,5]Gbps", "--grid").unwrap();
        assert_eq!(strings(&a), ["1Gbps", "2Gbps", "5Gbps"]);
        // Without a unit, numbers stay numbers; a list without brackets works too.
        let a = parse_axis("topology.dumbbell.senders=4,8", "--grid").unwrap();
        assert_eq!(a.values, [toml::Value::Integer(4), toml::Value::Integer(8)]);
        let a = parse_axis("name=[\"a,b\", c]", "--grid").unwrap();
        assert_eq!(strings(&a), ["a,b", "c"]);
    }

    #[test]
    fn bad_axes_are_located_errors() {
        for (text, says) in [
            ("qeq", "is not an axis"),
            ("=[1]", "names no key"),
            ("qeq=[1,2", "no closing"),
            ("qeq=[1,,2]", "empty value"),
            ("qeq=[1,1]", "given twice"),
        ] {
            let e = parse_axis(text, "--grid").unwrap_err().to_string();
            assert!(e.contains("--grid") && e.contains(says), "{text}: {e}");
        }
    }

    #[test]
    fn points_cross_axes_and_zip_groups() {
        let mut g = Grid { repeat: 1, ..Grid::default() };
        g.set_axis(parse_axis("a=[1,2]", "--grid").unwrap(), false);
        g.set_axis(parse_axis("b=[x,y,z]", "--grid").unwrap(), false);
        assert_eq!(g.points().len(), 6);
        assert_eq!(g.points()[1].iter().map(shown_value).collect::<Vec<_>>(), ["1", "y"]);
        g.set_axis(parse_axis("c=[10,20]", "--zip").unwrap(), true);
        g.set_axis(parse_axis("d=[30,40]", "--zip").unwrap(), true);
        let p = g.points();
        assert_eq!(p.len(), 12);
        assert_eq!(p[1].iter().map(shown_value).collect::<Vec<_>>(), ["1", "x", "20", "40"]);
        // A key given again replaces its axis.
        g.set_axis(parse_axis("a=[1,2,3]", "--grid").unwrap(), false);
        assert_eq!(g.points().len(), 18);
        g.set_axis(parse_axis("d=[30]", "--zip").unwrap(), true);
        assert!(g.check("--zip").unwrap_err().to_string().contains("equal length"));
    }

    #[test]
    fn a_sweep_table_reads_like_the_command_line() {
        let doc: toml::Value = toml::from_str(
            "repeat = 3\nseed = 7\ngrid = { \"traffic[0].rate\" = [\"1Gbps\", \"2Gbps\"] }\nzip = { a = [1, 2], b = [3, 4] }",
        )
        .unwrap();
        let g = Grid::from_table(&doc, "s.toml").unwrap();
        assert_eq!((g.repeat, g.first_seed), (3, Some(7)));
        assert_eq!(g.cross[0].key, "traffic[0].rate");
        assert_eq!(g.points().len(), 4);
        for (bad, says) in [
            ("repeat = 0", "sweep.repeat"),
            ("grid = { a = 5 }", "is not a list"),
            ("runs = 3", "sweep.runs"),
        ] {
            let doc: toml::Value = toml::from_str(bad).unwrap();
            let e = Grid::from_table(&doc, "s.toml").unwrap_err().to_string();
            assert!(e.contains("s.toml") && e.contains(says), "{bad}: {e}");
        }
    }
}
