//! Measurements: time series sampled on a fixed grid, and the run summary.
//!
//! Counters live next to what they count (queues in [`crate::net::QueueStats`], flows in
//! [`crate::traffic::FlowStats`]); this module holds the sampled series and turns
//! counters into the `summary.json` document.

pub mod delay;
pub mod fct;
pub mod maxmin;
#[cfg(feature = "outputs")]
pub mod output;
pub mod pcap;
pub mod recorder;
pub mod summary;

/// One named column of a time series table.
#[derive(Clone, Debug, PartialEq)]
pub struct Column {
    /// Column name (a port like "r1->r2", or a flow name).
    pub name: String,
    /// One value per sample time.
    pub values: Vec<f64>,
}

/// A table of series sampled at common times.
#[derive(Clone, Debug, PartialEq)]
pub struct TimeSeries {
    /// File stem and title, e.g. "queue_length".
    pub name: String,
    /// Unit of every value, e.g. "frames", "bit/s".
    pub unit: String,
    /// Sample times in seconds.
    pub times_s: Vec<f64>,
    /// The series.
    pub columns: Vec<Column>,
}

impl TimeSeries {
    /// An empty table with the given columns.
    pub fn new(name: &str, unit: &str, columns: impl IntoIterator<Item = String>) -> Self {
        Self {
            name: name.to_string(),
            unit: unit.to_string(),
            times_s: Vec::new(),
            columns: columns.into_iter().map(|name| Column { name, values: Vec::new() }).collect(),
        }
    }

    /// Column by name.
    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|c| c.name == name)
    }

    /// Whether the table has nothing to show.
    pub fn is_empty(&self) -> bool {
        self.columns.is_empty() || self.times_s.is_empty()
    }
}

/// Mean and population standard deviation of `xs` (0, 0 when empty).
pub fn mean_std(xs: &[f64]) -> (f64, f64) {
    if xs.is_empty() {
        return (0.0, 0.0);
    }
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n;
    (mean, var.sqrt())
}

/// Jain's fairness index (Jain, Chiu, Hawe 1984): (Σx)² / (n·Σx²), 1 when all equal,
/// 1/n when one takes everything. Defined as 1 for an empty or all-zero set.
pub fn jain_index(xs: &[f64]) -> f64 {
    let sum: f64 = xs.iter().sum();
    let sq: f64 = xs.iter().map(|x| x * x).sum();
    if xs.is_empty() || sq == 0.0 {
        1.0
    } else {
        sum * sum / (xs.len() as f64 * sq)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jain_index_hand_examples() {
        assert_eq!(jain_index(&[1.0, 1.0, 1.0, 1.0]), 1.0);
        assert_eq!(jain_index(&[1.0, 0.0, 0.0, 0.0]), 0.25);
        // (1+2+3)² / (3·(1+4+9)) = 36/42
        assert!((jain_index(&[1.0, 2.0, 3.0]) - 36.0 / 42.0).abs() < 1e-12);
    }

    #[test]
    fn mean_std_hand_example() {
        assert_eq!(mean_std(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]), (5.0, 2.0));
    }
}
