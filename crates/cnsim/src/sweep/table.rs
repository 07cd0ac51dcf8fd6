//! The results table of a sweep: one row per run, written as Parquet and CSV.
//!
//! Columns: `run` (the run's directory name), `point` (its grid point, from 0), one per
//! swept key (named by its key path), `seed`, then every scalar of the run's
//! `summary.json`, flattened:
//! - nested objects join their keys with dots: `frames.dropped`,
//!   `frames.by_kind.cnm.created`;
//! - lists of named things are indexed by the name: `flows[f1].throughput_bps`,
//!   `queues[r1->r2].mean_frames` (a queue of a port with several classes:
//!   `queues[r1->r2 class 1]`), `qcn.congestion_points[r1->r2].cnms_sent`,
//!   `qcn.reaction_points[f1].final_rate_bps`;
//! - other lists by position: `name[0]`.
//!
//! Units are those of `summary.json`, named by the key's suffix (`_s` seconds, `_bps`
//! bit/s, `_frames`, `_bytes`; plain counters count frames or messages). A key missing
//! from a run (a flow that only some points have) is null there.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::Arc;

use crate::run::outdir::write_listed;

use parquet::basic::{LogicalType, Repetition, Type as PhysicalType};
use parquet::data_type::{ByteArray, ByteArrayType, DoubleType, Int64Type};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::Type;
use serde_json::Value;

/// One cell.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    /// An integer (counters, seeds).
    Int(i64),
    /// A real number.
    Float(f64),
    /// Text.
    Text(String),
}

impl Cell {
    fn as_f64(&self) -> Option<f64> {
        match self {
            Cell::Int(i) => Some(*i as f64),
            Cell::Float(f) => Some(*f),
            Cell::Text(_) => None,
        }
    }

    /// A TOML value as a cell (tables and lists as their TOML text).
    pub fn of_toml(v: &toml::Value) -> Cell {
        match v {
            toml::Value::Integer(i) => Cell::Int(*i),
            toml::Value::Float(f) => Cell::Float(*f),
            toml::Value::Boolean(b) => Cell::Int(*b as i64),
            toml::Value::String(s) => Cell::Text(s.clone()),
            other => Cell::Text(other.to_string()),
        }
    }
}

/// The type of a column: the widest of its cells.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Int,
    Float,
    Text,
}

/// A table: named columns of optional cells, all of the same length.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    /// Column names, in order.
    pub(crate) names: Vec<String>,
    /// Columns, each one cell per row (`None`: null).
    pub(crate) columns: Vec<Vec<Option<Cell>>>,
    index: HashMap<String, usize>,
}

impl Table {
    /// Rows so far.
    pub fn rows(&self) -> usize {
        self.columns.first().map_or(0, Vec::len)
    }

    /// Appends a row of named cells; columns it lacks are null, names it brings first
    /// become new columns (null in earlier rows). The first cell of a name wins.
    pub fn push_row(&mut self, cells: Vec<(String, Cell)>) {
        let n = self.rows();
        for (name, cell) in cells {
            let i = match self.index.get(&name) {
                Some(&i) => i,
                None => {
                    self.names.push(name.clone());
                    self.columns.push(vec![None; n]);
                    self.index.insert(name, self.columns.len() - 1);
                    self.columns.len() - 1
                }
            };
            if self.columns[i].len() == n {
                self.columns[i].push(Some(cell));
            }
        }
        for c in &mut self.columns {
            if c.len() == n {
                c.push(None);
            }
        }
    }

    /// The column called `name`.
    pub fn column(&self, name: &str) -> Option<&[Option<Cell>]> {
        self.index.get(name).map(|&i| self.columns[i].as_slice())
    }

    fn kind(column: &[Option<Cell>]) -> Kind {
        column
            .iter()
            .flatten()
            .map(|c| match c {
                Cell::Int(_) => Kind::Int,
                Cell::Float(_) => Kind::Float,
                Cell::Text(_) => Kind::Text,
            })
            .max()
            .unwrap_or(Kind::Float)
    }

    /// The table as Parquet: INT64, DOUBLE or UTF-8 columns, all nullable.
    pub fn to_parquet(&self, metadata: &[(&str, String)]) -> Result<Vec<u8>, String> {
        let err = |e: parquet::errors::ParquetError| e.to_string();
        let mut fields = Vec::new();
        for (name, column) in self.names.iter().zip(&self.columns) {
            let builder = match Table::kind(column) {
                Kind::Int => Type::primitive_type_builder(name, PhysicalType::INT64),
                Kind::Float => Type::primitive_type_builder(name, PhysicalType::DOUBLE),
                Kind::Text => Type::primitive_type_builder(name, PhysicalType::BYTE_ARRAY)
                    .with_logical_type(Some(LogicalType::String)),
            };
            fields.push(Arc::new(builder.with_repetition(Repetition::OPTIONAL).build().map_err(err)?));
        }
        let schema = Arc::new(Type::group_type_builder("schema").with_fields(fields).build().map_err(err)?);
        let metadata =
            metadata.iter().map(|(k, v)| parquet::format::KeyValue::new(k.to_string(), v.clone())).collect();
        let props = Arc::new(
            WriterProperties::builder()
                .set_created_by(format!("cnsim {}", crate::VERSION))
                .set_key_value_metadata(Some(metadata))
                .build(),
        );
        let mut buffer: Vec<u8> = Vec::new();
        let mut writer = SerializedFileWriter::new(&mut buffer, schema, props).map_err(err)?;
        let mut rg = writer.next_row_group().map_err(err)?;
        let mut columns = self.columns.iter();
        while let Some(mut col) = rg.next_column().map_err(err)? {
            let column = columns.next().expect("one column per schema field");
            let levels: Vec<i16> = column.iter().map(|c| c.is_some() as i16).collect();
            match Table::kind(column) {
                Kind::Int => {
                    let v: Vec<i64> = column
                        .iter()
                        .flatten()
                        .map(|c| match c {
                            Cell::Int(i) => *i,
                            _ => unreachable!("an INT64 column holds integers only"),
                        })
                        .collect();
                    col.typed::<Int64Type>().write_batch(&v, Some(&levels), None).map_err(err)?;
                }
                Kind::Float => {
                    let v: Vec<f64> = column.iter().flatten().filter_map(Cell::as_f64).collect();
                    col.typed::<DoubleType>().write_batch(&v, Some(&levels), None).map_err(err)?;
                }
                Kind::Text => {
                    let v: Vec<ByteArray> =
                        column.iter().flatten().map(|c| ByteArray::from(text_of(c).as_str())).collect();
                    col.typed::<ByteArrayType>().write_batch(&v, Some(&levels), None).map_err(err)?;
                }
            }
            col.close().map_err(err)?;
        }
        rg.close().map_err(err)?;
        writer.close().map_err(err)?;
        Ok(buffer)
    }

    /// Writes the table as `<stem>.parquet` and `<stem>.csv` into `dir`, each file
    /// renamed into place only when complete.
    pub fn write_files(&self, dir: &Path, stem: &str, metadata: &[(&str, String)]) -> Result<(), String> {
        let parquet = dir.join(format!("{stem}.parquet"));
        let bytes = self.to_parquet(metadata).map_err(|e| format!("{}: {e}", parquet.display()))?;
        write_listed(dir, &format!("{stem}.parquet"), &bytes)?;
        let csv = dir.join(format!("{stem}.csv"));
        let bytes = self.to_csv().map_err(|e| format!("{}: {e}", csv.display()))?;
        write_listed(dir, &format!("{stem}.csv"), &bytes)
    }

    /// The table as CSV: a header, then one line per row; null is an empty field.
    pub fn to_csv(&self) -> Result<Vec<u8>, String> {
        let mut w = csv::Writer::from_writer(Vec::new());
        w.write_record(&self.names).map_err(|e| e.to_string())?;
        for r in 0..self.rows() {
            w.write_record(self.columns.iter().map(|c| c[r].as_ref().map(text_of).unwrap_or_default()))
                .map_err(|e| e.to_string())?;
        }
        w.into_inner().map_err(|e| e.to_string())
    }
}

/// A cell as text (numbers as Rust prints them: shortest round-trip form).
fn text_of(c: &Cell) -> String {
    match c {
        Cell::Int(i) => i.to_string(),
        Cell::Float(f) => f.to_string(),
        Cell::Text(s) => s.clone(),
    }
}

/// Fields that name an element of a list in `summary.json`, in order of preference.
const NAME_FIELDS: [&str; 4] = ["name", "port", "flow", "host"];

/// The label of a list element: its name (plus its class, for a queue of a port with
/// several), or its position.
fn element_label(element: &Value, i: usize) -> (String, Option<&'static str>) {
    if let Some(obj) = element.as_object() {
        for field in NAME_FIELDS {
            if let Some(Value::String(name)) = obj.get(field) {
                return match obj.get("class").and_then(Value::as_u64) {
                    Some(class) => (format!("{name} class {class}"), Some(field)),
                    None => (name.clone(), Some(field)),
                };
            }
        }
    }
    (i.to_string(), None)
}

/// Flattens a `summary.json` document into named scalar cells (see the module docs).
pub fn flatten(value: &Value) -> Vec<(String, Cell)> {
    let mut out = Vec::new();
    flatten_into(value, "", &mut out);
    out
}

fn flatten_into(value: &Value, prefix: &str, out: &mut Vec<(String, Cell)>) {
    let join = |key: &str| if prefix.is_empty() { key.to_string() } else { format!("{prefix}.{key}") };
    match value {
        Value::Null => {}
        Value::Bool(b) => out.push((prefix.to_string(), Cell::Int(*b as i64))),
        Value::Number(n) => {
            let cell = match (n.as_i64(), n.as_f64()) {
                (Some(i), _) => Cell::Int(i),
                (None, Some(f)) => Cell::Float(f),
                (None, None) => return,
            };
            out.push((prefix.to_string(), cell));
        }
        Value::String(s) => out.push((prefix.to_string(), Cell::Text(s.clone()))),
        Value::Object(map) => {
            for (k, v) in map {
                flatten_into(v, &join(k), out);
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                let (label, name_field) = element_label(item, i);
                let at = format!("{prefix}[{label}]");
                match (item, name_field) {
                    (Value::Object(map), Some(field)) => {
                        for (k, v) in map {
                            if k != field && k != "class" {
                                flatten_into(v, &format!("{at}.{k}"), out);
                            }
                        }
                    }
                    _ => flatten_into(item, &at, out),
                }
            }
        }
    }
}

/// Two-sided 97.5 % quantiles of Student's t for 1 to 30 degrees of freedom; beyond,
/// the normal 1.96 is within 2 %.
const T_975: [f64; 30] = [
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
    2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
];

/// Mean, sample standard deviation and the half-width of the 95 % confidence interval
/// of the mean (Student's t) of `values`; deviation and interval need two values.
pub fn mean_std_ci95(values: &[f64]) -> (f64, Option<f64>, Option<f64>) {
    let n = values.len();
    let mean = values.iter().sum::<f64>() / n.max(1) as f64;
    if n < 2 {
        return (mean, None, None);
    }
    let var = values.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / (n - 1) as f64;
    let std = var.sqrt();
    let t = T_975.get(n - 2).copied().unwrap_or(1.96);
    (mean, Some(std), Some(t * std / (n as f64).sqrt()))
}

/// Summarises `results` over seeds: one row per grid point with the point's columns
/// (`key_columns`), `runs`, and for every other numeric column `<name>.mean`,
/// `<name>.std` and `<name>.ci95` (half-width of the 95 % confidence interval of the
/// mean; null with a single seed). Columns `run` and `seed` are left out.
pub fn summarize(results: &Table, key_columns: &[String]) -> Table {
    let Some(points) = results.column("point") else {
        return Table::default();
    };
    let mut groups: BTreeMap<i64, Vec<usize>> = BTreeMap::new();
    for (r, p) in points.iter().enumerate() {
        if let Some(Cell::Int(p)) = p {
            groups.entry(*p).or_default().push(r);
        }
    }
    let skip = |name: &str| {
        name == "run" || name == "seed" || name == "point" || key_columns.iter().any(|k| k == name)
    };
    let mut out = Table::default();
    for (point, rows) in groups {
        let mut cells = vec![("point".to_string(), Cell::Int(point))];
        for k in key_columns {
            if let Some(Some(c)) = results.column(k).map(|c| &c[rows[0]]) {
                cells.push((k.clone(), c.clone()));
            }
        }
        cells.push(("runs".to_string(), Cell::Int(rows.len() as i64)));
        for (name, column) in results.names.iter().zip(&results.columns) {
            if skip(name) || Table::kind(column) == Kind::Text {
                continue;
            }
            let values: Vec<f64> =
                rows.iter().filter_map(|&r| column[r].as_ref().and_then(Cell::as_f64)).collect();
            if values.is_empty() {
                continue;
            }
            let (mean, std, ci) = mean_std_ci95(&values);
            cells.push((format!("{name}.mean"), Cell::Float(mean)));
            if let Some(std) = std {
                cells.push((format!("{name}.std"), Cell::Float(std)));
            }
            if let Some(ci) = ci {
                cells.push((format!("{name}.ci95"), Cell::Float(ci)));
            }
        }
        out.push_row(cells);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summaries_flatten_by_name() {
        let v: Value = serde_json::from_str(
            r#"{"seed": 3, "frames": {"dropped": 2, "by_kind": {"cnm": {"created": 5}}},
                "flows": [{"name": "f1", "src": "h1", "throughput_bps": 1.5e9}],
                "queues": [{"port": "r1->r2", "class": 1, "mean_frames": 2.5}],
                "list": [7, 8]}"#,
        )
        .unwrap();
        let cells = flatten(&v);
        let get = |k: &str| cells.iter().find(|(n, _)| n == k).map(|(_, c)| c.clone());
        assert_eq!(get("seed"), Some(Cell::Int(3)));
        assert_eq!(get("frames.by_kind.cnm.created"), Some(Cell::Int(5)));
        assert_eq!(get("flows[f1].throughput_bps"), Some(Cell::Float(1.5e9)));
        assert_eq!(get("flows[f1].src"), Some(Cell::Text("h1".into())));
        assert_eq!(get("flows[f1].name"), None);
        assert_eq!(get("queues[r1->r2 class 1].mean_frames"), Some(Cell::Float(2.5)));
        assert_eq!(get("list[1]"), Some(Cell::Int(8)));
    }

    #[test]
    fn rows_with_other_columns_leave_nulls() {
        let mut t = Table::default();
        t.push_row(vec![("a".into(), Cell::Int(1))]);
        t.push_row(vec![("b".into(), Cell::Float(2.0)), ("a".into(), Cell::Int(3))]);
        assert_eq!(t.names, ["a", "b"]);
        assert_eq!(t.column("b").unwrap(), &[None, Some(Cell::Float(2.0))]);
        assert_eq!(String::from_utf8(t.to_csv().unwrap()).unwrap(), "a,b\n1,\n3,2\n");
        assert!(t.to_parquet(&[]).unwrap().starts_with(b"PAR1"));
    }

    #[test]
    fn confidence_interval_by_hand() {
        // 1, 2, 3: mean 2, s = 1, t(0.975, 2) = 4.303, half-width 4.303 / √3 = 2.4843.
        let (m, s, ci) = mean_std_ci95(&[1.0, 2.0, 3.0]);
        assert_eq!((m, s), (2.0, Some(1.0)));
        assert!((ci.unwrap() - 2.4843).abs() < 1e-4);
        assert_eq!(mean_std_ci95(&[5.0]), (5.0, None, None));
    }

    #[test]
    fn summaries_group_by_point() {
        let mut t = Table::default();
        for (point, seed, x) in [(0, 1, 1.0), (0, 2, 3.0), (1, 1, 10.0)] {
            t.push_row(vec![
                ("point".into(), Cell::Int(point)),
                ("rate".into(), Cell::Text(format!("{point}Gbps"))),
                ("seed".into(), Cell::Int(seed)),
                ("x".into(), Cell::Float(x)),
            ]);
        }
        let s = summarize(&t, &["rate".to_string()]);
        assert_eq!(s.rows(), 2);
        assert_eq!(s.column("runs").unwrap(), &[Some(Cell::Int(2)), Some(Cell::Int(1))]);
        assert_eq!(s.column("x.mean").unwrap(), &[Some(Cell::Float(2.0)), Some(Cell::Float(10.0))]);
        assert_eq!(s.column("x.std").unwrap()[1], None);
        assert!(s.column("seed.mean").is_none());
    }
}
