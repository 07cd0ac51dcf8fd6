//! Writers for time series: Parquet (one row per sample, one column per series, plus
//! `time_s`) and CSV with the same layout.

use std::path::Path;
use std::sync::Arc;

use parquet::basic::{Repetition, Type as PhysicalType};
use parquet::data_type::DoubleType;
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::Type;

use super::TimeSeries;

/// Writes `ts` as a Parquet file with a DOUBLE column `time_s` and one per series.
pub fn write_parquet(ts: &TimeSeries, path: &Path) -> Result<(), String> {
    let err = |e: parquet::errors::ParquetError| format!("{}: {e}", path.display());
    let mut fields = vec![Arc::new(
        Type::primitive_type_builder("time_s", PhysicalType::DOUBLE)
            .with_repetition(Repetition::REQUIRED)
            .build()
            .map_err(err)?,
    )];
    for c in &ts.columns {
        fields.push(Arc::new(
            Type::primitive_type_builder(&c.name, PhysicalType::DOUBLE)
                .with_repetition(Repetition::REQUIRED)
                .build()
                .map_err(err)?,
        ));
    }
    let schema = Arc::new(Type::group_type_builder("schema").with_fields(fields).build().map_err(err)?);
    let props = Arc::new(
        WriterProperties::builder()
            .set_created_by(format!("cnsim {}", crate::VERSION))
            .set_key_value_metadata(Some(vec![parquet::format::KeyValue::new(
                "unit".to_string(),
                ts.unit.clone(),
            )]))
            .build(),
    );
    // Encoded in memory, then written in one go, so that an I/O error (a full disk) is
    // reported as such rather than as the encoder's "transport error".
    let mut buffer: Vec<u8> = Vec::new();
    let mut writer = SerializedFileWriter::new(&mut buffer, schema, props).map_err(err)?;
    let mut rg = writer.next_row_group().map_err(err)?;
    let mut columns = std::iter::once(&ts.times_s).chain(ts.columns.iter().map(|c| &c.values));
    while let Some(mut col) = rg.next_column().map_err(err)? {
        let values = columns.next().expect("one value vector per schema column");
        col.typed::<DoubleType>().write_batch(values, None, None).map_err(err)?;
        col.close().map_err(err)?;
    }
    rg.close().map_err(err)?;
    writer.close().map_err(err)?;
    std::fs::write(path, buffer).map_err(|e| format!("{}: {e}", path.display()))
}

/// Writes `ts` as CSV: a header `time_s,<series>...` then one row per sample.
pub fn write_csv(ts: &TimeSeries, path: &Path) -> Result<(), String> {
    let io = |e: csv::Error| format!("{}: {e}", path.display());
    let mut w = csv::Writer::from_writer(Vec::new());
    let mut header = vec!["time_s".to_string()];
    header.extend(ts.columns.iter().map(|c| c.name.clone()));
    w.write_record(&header).map_err(io)?;
    for (i, t) in ts.times_s.iter().enumerate() {
        let mut row = vec![t.to_string()];
        row.extend(ts.columns.iter().map(|c| c.values[i].to_string()));
        w.write_record(&row).map_err(io)?;
    }
    let bytes = w.into_inner().map_err(|e| format!("{}: {e}", path.display()))?;
    std::fs::write(path, bytes).map_err(|e| format!("{}: {e}", path.display()))
}

/// Writes `value` as pretty JSON with a trailing newline, streamed to the file: a
/// summary of thousands of flows is megabytes of text that need not sit in memory
/// beside the run.
pub fn write_json<T: serde::Serialize>(value: &T, path: &Path) -> Result<(), String> {
    use std::io::Write;
    let err = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    let file = std::fs::File::create(path).map_err(|e| err(&e))?;
    let mut out = std::io::BufWriter::with_capacity(1 << 16, file);
    serde_json::to_writer_pretty(&mut out, value).map_err(|e| err(&e))?;
    out.write_all(b"\n").map_err(|e| err(&e))?;
    out.flush().map_err(|e| err(&e))
}

/// Writes the workload flows' outcomes as Parquet: `flow`, `src`, `dst` (UTF-8),
/// `bytes` (INT64), `start_s`, `ideal_fct_s` (DOUBLE), and `fct_s`, `slowdown`
/// (DOUBLE, null for an unfinished flow).
pub fn write_fct_parquet(rows: &[super::fct::FctRow], path: &Path) -> Result<(), String> {
    use parquet::basic::{ConvertedType, LogicalType};
    use parquet::data_type::{ByteArray, ByteArrayType, Int64Type};
    let err = |e: parquet::errors::ParquetError| format!("{}: {e}", path.display());
    let column = |name: &str, ty: PhysicalType, repetition: Repetition| {
        let mut b = Type::primitive_type_builder(name, ty).with_repetition(repetition);
        if ty == PhysicalType::BYTE_ARRAY {
            b = b.with_logical_type(Some(LogicalType::String)).with_converted_type(ConvertedType::UTF8);
        }
        b.build().map(Arc::new).map_err(err)
    };
    use Repetition::{OPTIONAL, REQUIRED};
    let fields = vec![
        column("flow", PhysicalType::BYTE_ARRAY, REQUIRED)?,
        column("src", PhysicalType::BYTE_ARRAY, REQUIRED)?,
        column("dst", PhysicalType::BYTE_ARRAY, REQUIRED)?,
        column("bytes", PhysicalType::INT64, REQUIRED)?,
        column("start_s", PhysicalType::DOUBLE, REQUIRED)?,
        column("fct_s", PhysicalType::DOUBLE, OPTIONAL)?,
        column("ideal_fct_s", PhysicalType::DOUBLE, REQUIRED)?,
        column("slowdown", PhysicalType::DOUBLE, OPTIONAL)?,
    ];
    let schema = Arc::new(Type::group_type_builder("schema").with_fields(fields).build().map_err(err)?);
    let props =
        Arc::new(WriterProperties::builder().set_created_by(format!("cnsim {}", crate::VERSION)).build());
    let mut buffer: Vec<u8> = Vec::new();
    let mut writer = SerializedFileWriter::new(&mut buffer, schema, props).map_err(err)?;
    let mut rg = writer.next_row_group().map_err(err)?;
    let strings = |f: &dyn Fn(&super::fct::FctRow) -> &str| -> Vec<ByteArray> {
        rows.iter().map(|r| ByteArray::from(f(r))).collect()
    };
    let optional = |f: &dyn Fn(&super::fct::FctRow) -> Option<f64>| -> (Vec<f64>, Vec<i16>) {
        let values = rows.iter().filter_map(f).collect();
        let levels = rows.iter().map(|r| i16::from(f(r).is_some())).collect();
        (values, levels)
    };
    let mut k = 0;
    while let Some(mut col) = rg.next_column().map_err(err)? {
        match k {
            0 => col.typed::<ByteArrayType>().write_batch(&strings(&|r| &r.flow), None, None),
            1 => col.typed::<ByteArrayType>().write_batch(&strings(&|r| &r.src), None, None),
            2 => col.typed::<ByteArrayType>().write_batch(&strings(&|r| &r.dst), None, None),
            3 => {
                let bytes: Vec<i64> = rows.iter().map(|r| r.bytes as i64).collect();
                col.typed::<Int64Type>().write_batch(&bytes, None, None)
            }
            4 => {
                let start: Vec<f64> = rows.iter().map(|r| r.start_s).collect();
                col.typed::<DoubleType>().write_batch(&start, None, None)
            }
            5 => {
                let (values, levels) = optional(&|r| r.fct_s);
                col.typed::<DoubleType>().write_batch(&values, Some(&levels), None)
            }
            6 => {
                let ideal: Vec<f64> = rows.iter().map(|r| r.ideal_fct_s).collect();
                col.typed::<DoubleType>().write_batch(&ideal, None, None)
            }
            _ => {
                let (values, levels) = optional(&|r| r.slowdown);
                col.typed::<DoubleType>().write_batch(&values, Some(&levels), None)
            }
        }
        .map_err(err)?;
        col.close().map_err(err)?;
        k += 1;
    }
    rg.close().map_err(err)?;
    writer.close().map_err(err)?;
    std::fs::write(path, buffer).map_err(|e| format!("{}: {e}", path.display()))
}

/// Writes the workload flows' outcomes as CSV, the columns of [`write_fct_parquet`]
/// (an unfinished flow's `fct_s` and `slowdown` empty).
pub fn write_fct_csv(rows: &[super::fct::FctRow], path: &Path) -> Result<(), String> {
    let io = |e: csv::Error| format!("{}: {e}", path.display());
    let mut w = csv::Writer::from_writer(Vec::new());
    for r in rows {
        w.serialize(r).map_err(io)?;
    }
    let bytes = w.into_inner().map_err(|e| format!("{}: {e}", path.display()))?;
    std::fs::write(path, bytes).map_err(|e| format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::TimeSeries;

    /// Regression: a full disk made the Parquet writer fail with "External: transport
    /// error"; every writer now says "No space left on device". (`/dev/full` fails every
    /// write with ENOSPC.)
    #[cfg(target_os = "linux")]
    #[test]
    fn a_full_disk_is_reported_as_such() {
        let full = Path::new("/dev/full");
        if !full.exists() {
            return;
        }
        let mut ts = TimeSeries::new("q", "frames", ["a".to_string()]);
        ts.times_s.push(0.0);
        ts.columns[0].values.push(1.0);
        for result in [write_parquet(&ts, full), write_csv(&ts, full), write_json(&1, full)] {
            let e = result.unwrap_err();
            assert!(e.contains("No space left on device"), "{e}");
        }
        let style =
            crate::report::plot::ChartStyle { step: crate::report::plot::Step::None, worst_is_lowest: false };
        let e = crate::report::plot::plot_time_series(&ts, full, 1.0, "frames", "", style).unwrap_err();
        assert!(e.contains("No space left on device"), "{e}");
    }
}
