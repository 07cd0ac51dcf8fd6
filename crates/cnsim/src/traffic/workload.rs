//! Flow-size workloads, as data-center studies run them (the HPCC ns-3 fork's
//! `traffic_gen.py`): at each source host flows arrive as a Poisson process whose rate
//! makes the offered load a fraction `load` of the host's link, each to a destination
//! of the pattern, each of a size drawn from an empirical distribution.
//!
//! A distribution ([`Cdf`]) is the fork's plain format: one point per line, a flow size
//! in bytes and the cumulative percentage of flows at or below it, linear between
//! points (its `custom_rand.py`). Lines starting with `#` are comments. The bundled
//! ones ([`BUNDLED`]) cite their sources in their files.

use crate::engine::{RngStream, Time, PS_PER_S};

/// The bundled size distributions: (name, text).
pub const BUNDLED: &[(&str, &str)] = &[
    ("websearch", include_str!("../../../../workloads/websearch.txt")),
    ("hadoop", include_str!("../../../../workloads/hadoop.txt")),
    ("datamining", include_str!("../../../../workloads/datamining.txt")),
];

/// The largest distribution file read, bytes.
pub const MAX_CDF_BYTES: u64 = 1 << 20;

/// An empirical flow-size distribution: points (bytes, cumulative %) from (x₀, 0) to
/// (xₙ, 100), sizes never decreasing, percentages always increasing (a size given twice
/// is a step: a share of flows of exactly that size).
#[derive(Clone, Debug, PartialEq)]
pub struct Cdf {
    points: Vec<(f64, f64)>,
}

impl Cdf {
    /// Reads the fork's format; `Err((line, message))` names the line (from 1) that
    /// breaks a rule.
    pub fn parse(text: &str) -> Result<Cdf, (usize, String)> {
        let mut points: Vec<(f64, f64)> = Vec::new();
        let mut last_line = 0;
        for (i, line) in text.lines().enumerate() {
            let n = i + 1;
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            last_line = n;
            let fields: Vec<&str> = line.split_whitespace().collect();
            let number = |s: &str, what: &str| {
                s.parse::<f64>().ok().filter(|v| v.is_finite() && *v >= 0.0).ok_or_else(|| {
                    (n, format!("{s:?} is not a {what}; expected a number at least 0, as \"10000 15\" is"))
                })
            };
            if fields.len() != 2 {
                return Err((
                    n,
                    format!("{line:?} is not a point; expected a flow size in bytes and a cumulative percentage, e.g. \"10000 15\""),
                ));
            }
            let (x, y) = (number(fields[0], "flow size")?, number(fields[1], "percentage")?);
            if y > 100.0 {
                return Err((
                    n,
                    format!("percentage {y} is above 100; expected cumulative percentages from 0 to 100"),
                ));
            }
            match points.last() {
                None if y != 0.0 => {
                    return Err((n, format!("the first point's percentage is {y}; expected 0 (the smallest size)")))
                }
                Some(&(px, _)) if x < px => {
                    return Err((
                        n,
                        format!("size {x} is below the previous point's {px}; expected sizes that never decrease"),
                    ))
                }
                Some(&(_, py)) if y <= py => {
                    return Err((
                        n,
                        format!("percentage {y} is not above the previous point's {py}; expected percentages that increase"),
                    ))
                }
                _ => {}
            }
            points.push((x, y));
        }
        match points.last() {
            None => Err((1, "no points; expected lines of a flow size and a cumulative percentage".into())),
            Some(&(_, y)) if y != 100.0 => Err((
                last_line,
                format!("the last point's percentage is {y}; expected 100 (the largest size)"),
            )),
            _ => Ok(Cdf { points }),
        }
    }

    /// Every flow of `bytes` (at least 1): a point mass.
    pub fn fixed(bytes: u64) -> Cdf {
        let b = bytes.max(1) as f64;
        Cdf { points: vec![(b, 0.0), (b, 100.0)] }
    }

    /// A bundled distribution by name.
    pub fn bundled(name: &str) -> Option<Cdf> {
        BUNDLED
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, t)| Cdf::parse(t).expect("bundled distributions parse"))
    }

    /// The mean flow size, bytes (the fork's `getAvg`: exact for the linear pieces).
    pub fn mean(&self) -> f64 {
        self.points.windows(2).map(|w| (w[0].0 + w[1].0) / 2.0 * (w[1].1 - w[0].1)).sum::<f64>() / 100.0
    }

    /// The flow size at cumulative fraction `u` in [0, 1), whole bytes, at least 1 (the
    /// fork's `rand`: the percentile 100·u, interpolated, truncated).
    pub fn sample(&self, u: f64) -> u64 {
        let r = u * 100.0;
        let i = self.points.iter().position(|p| r <= p.1).unwrap_or(self.points.len() - 1).max(1);
        let ((x0, y0), (x1, y1)) = (self.points[i - 1], self.points[i]);
        let x = x0 + (x1 - x0) / (y1 - y0) * (r - y0);
        (x as u64).max(1)
    }

    /// The fraction of flows of at most `x` bytes.
    pub fn at(&self, x: f64) -> f64 {
        match self.points.iter().rposition(|p| p.0 <= x) {
            None => 0.0,
            Some(i) if i + 1 == self.points.len() => 1.0,
            Some(i) => {
                let ((x0, y0), (x1, y1)) = (self.points[i], self.points[i + 1]);
                (y0 + (y1 - y0) * (x - x0) / (x1 - x0)) / 100.0
            }
        }
    }

    /// The largest size, bytes.
    pub fn max(&self) -> f64 {
        self.points.last().expect("a distribution has points").0
    }
}

/// Where a workload's flows go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// Each flow to a uniformly random other host of the entry (the fork's
    /// `traffic_gen.py`, all-to-all).
    Uniform,
    /// Each source to one partner, the same for all its flows: a random permutation of
    /// the entry's hosts with no host its own partner.
    Permutation,
    /// Every flow to one host (N-to-1 incast).
    To(u32),
    /// Incast events: at each arrival a uniformly random receiver and `fan_in` distinct
    /// other hosts, each sending it one flow, all starting at once.
    Incast {
        /// Senders per event.
        fan_in: u32,
    },
}

/// One arrival: a flow of `bytes` from host `src` to host `dst` (indices into the
/// entry's hosts, or the incast host's id for [`Pattern::To`]) starting at `start`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arrival {
    /// When the flow starts.
    pub(crate) start: Time,
    /// Source, an index into the hosts.
    pub(crate) src: u32,
    /// Destination, an index into the hosts (or the incast host's id).
    pub(crate) dst: u32,
    /// Flow size, bytes.
    pub(crate) bytes: u64,
}

/// The mean time between arrivals at a host whose link runs at `line_bps`, for flows of
/// mean size `mean_bytes` making a fraction `load` of it, ps.
pub fn mean_gap(mean_bytes: f64, load: f64, line_bps: u64) -> f64 {
    mean_bytes * 8.0 / (load * line_bps as f64) * PS_PER_S as f64
}

/// The arrivals at source `src` (an index into `n` hosts) in [`from`, `until`): gaps
/// exponential with mean `gap` ps, then the destination, then the size, each drawn in
/// that order from `rng` (the fork draws in the same order). `partner` is the source's
/// partner under [`Pattern::Permutation`].
#[allow(clippy::too_many_arguments)]
pub fn arrivals_at(
    src: u32,
    n: u32,
    pattern: Pattern,
    partner: u32,
    cdf: &Cdf,
    gap: f64,
    (from, until): (Time, Time),
    rng: &mut RngStream,
    out: &mut Vec<Arrival>,
) {
    let mut t = from as f64;
    loop {
        t += rng.exponential(gap);
        if t >= until as f64 {
            return;
        }
        let dst = match pattern {
            Pattern::Uniform => {
                // Uniform over the other n − 1 hosts.
                let k = rng.below(u64::from(n - 1)) as u32;
                if k >= src {
                    k + 1
                } else {
                    k
                }
            }
            Pattern::Permutation => partner,
            Pattern::To(host) => host,
            Pattern::Incast { .. } => unreachable!("incast events are drawn by incast_arrivals"),
        };
        let bytes = cdf.sample(rng.uniform());
        out.push(Arrival { start: t as Time, src, dst, bytes });
    }
}

/// The incast events among `n` hosts in [`from`, `until`): gaps exponential with mean
/// `gap` ps, then the receiver (uniform), then `fan_in` distinct senders (uniform among
/// the others, drawn in turn), then each sender's flow size, each drawn in that order
/// from `rng`.
pub fn incast_arrivals(
    n: u32,
    fan_in: u32,
    cdf: &Cdf,
    gap: f64,
    (from, until): (Time, Time),
    rng: &mut RngStream,
    out: &mut Vec<Arrival>,
) {
    let mut others: Vec<u32> = Vec::with_capacity(n as usize);
    let mut t = from as f64;
    loop {
        t += rng.exponential(gap);
        if t >= until as f64 {
            return;
        }
        let receiver = rng.below(u64::from(n)) as u32;
        others.clear();
        others.extend((0..n).filter(|&h| h != receiver));
        // A partial Fisher–Yates shuffle: the first `fan_in` are a uniform sample.
        for i in 0..fan_in as usize {
            let j = i + rng.below((others.len() - i) as u64) as usize;
            others.swap(i, j);
        }
        for &src in &others[..fan_in as usize] {
            let bytes = cdf.sample(rng.uniform());
            out.push(Arrival { start: t as Time, src, dst: receiver, bytes });
        }
    }
}

/// A permutation of `n` hosts in which no host is its own partner (a derangement),
/// drawn from `rng`: Sattolo's algorithm, a uniformly random single cycle.
pub fn derangement(n: u32, rng: &mut RngStream) -> Vec<u32> {
    let mut p: Vec<u32> = (0..n).collect();
    for i in (1..n as usize).rev() {
        let j = rng.below(i as u64) as usize;
        p.swap(i, j);
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stream() -> RngStream {
        RngStream::new(1, crate::engine::StreamKey { kind: "test", name: "workload" })
    }

    /// The web search mean by the trapezoid rule, by hand: 0.15·5 KB + 0.05·15 KB +
    /// 0.1·25 KB + 0.1·40 KB + 0.13·65 KB + 0.07·140 KB + 0.1·600 KB + 0.1·1.5 MB +
    /// 0.1·3.5 MB + 0.07·7.5 MB + 0.03·20 MB = 1 711 250 bytes.
    #[test]
    fn the_web_search_mean_is_the_trapezoid_sum() {
        let cdf = Cdf::bundled("websearch").unwrap();
        assert!((cdf.mean() - 1_711_250.0).abs() < 1e-6, "{}", cdf.mean());
        // Interpolated quantiles: 15 % at 10 KB, 17.5 % halfway to 20 KB.
        assert_eq!(cdf.sample(0.15), 10_000);
        assert_eq!(cdf.sample(0.175), 15_000);
        assert!((cdf.at(15_000.0) - 0.175).abs() < 1e-12);
        assert_eq!(cdf.at(30_000_000.0), 1.0);
        assert_eq!(cdf.at(-1.0), 0.0);
    }

    /// A step (one size twice) is a point mass: half the data-mining flows are exactly
    /// one 1460-byte packet.
    #[test]
    fn a_repeated_size_is_a_point_mass() {
        let cdf = Cdf::bundled("datamining").unwrap();
        assert_eq!(cdf.sample(0.0), 1460);
        assert_eq!(cdf.sample(0.3), 1460);
        assert_eq!(cdf.sample(0.499), 1460);
        assert!(cdf.sample(0.55) > 1460);
        assert!(Cdf::bundled("hadoop").is_some());
    }

    /// Kolmogorov–Smirnov: 10⁵ sizes drawn with the workload's stream are within the
    /// critical distance of their distribution at α = 0.01 (1.628 / √n).
    #[test]
    fn drawn_sizes_follow_their_distribution() {
        for name in ["websearch", "hadoop", "datamining"] {
            let cdf = Cdf::bundled(name).unwrap();
            let mut rng = stream();
            let n = 100_000;
            let mut x: Vec<u64> = (0..n).map(|_| cdf.sample(rng.uniform())).collect();
            x.sort_unstable();
            let mut d: f64 = 0.0;
            let mut i = 0;
            while i < n {
                let mut j = i;
                while j < n && x[j] == x[i] {
                    j += 1;
                }
                // Sizes are whole bytes: compare with the distribution at each value.
                let f = cdf.at(x[i] as f64 + 0.999_999);
                d = d
                    .max((j as f64 / n as f64 - f).abs())
                    .max((i as f64 / n as f64 - cdf.at(x[i] as f64 - 1e-9)).abs());
                i = j;
            }
            let critical = 1.628 / (n as f64).sqrt();
            assert!(d < critical, "{name}: D = {d}, critical {critical}");
        }
    }

    /// Malformed distributions are refused at their line.
    #[test]
    fn bad_distributions_name_their_line() {
        let e = |t: &str| Cdf::parse(t).unwrap_err();
        assert_eq!(e("0 0\n100 50\n50 100\n").0, 3);
        assert!(e("0 0\n100 50\n50 100\n").1.contains("never decrease"));
        assert_eq!(e("0 0\n100 50\n200 50\n300 100").0, 3);
        assert_eq!(e("# c\n10 5\n20 100").0, 2);
        assert!(e("0 0\n10 50").1.contains("expected 100"));
        assert!(e("0 0\nten 100").1.contains("\"ten\" is not a flow size"));
        assert!(e("0 0\n10 150").1.contains("above 100"));
        assert!(e("0 0 1\n10 100").1.contains("is not a point"));
        assert!(e("").1.contains("no points"));
    }

    /// Poisson arrivals at load ρ of a link: the bytes offered over a long window (about
    /// 220 000 web search flows, so that the heavy tail's noise is near 0.5 %) come
    /// within 2 % of ρ × rate × window; destinations avoid the source.
    #[test]
    fn arrivals_offer_the_target_load() {
        let cdf = Cdf::bundled("websearch").unwrap();
        let line = 100_000_000_000;
        let gap = mean_gap(cdf.mean(), 0.3, line);
        let mut rng = stream();
        let mut out = Vec::new();
        let window = 100 * PS_PER_S;
        arrivals_at(3, 8, Pattern::Uniform, 0, &cdf, gap, (0, window), &mut rng, &mut out);
        let bytes: u64 = out.iter().map(|a| a.bytes).sum();
        let load = bytes as f64 * 8.0 / (line as f64 * 100.0);
        assert!((load / 0.3 - 1.0).abs() < 0.02, "{load} from {} flows", out.len());
        assert!(out.iter().all(|a| a.dst != 3 && a.dst < 8 && a.start < window));
        assert!(out.windows(2).all(|w| w[0].start <= w[1].start));
    }

    /// Incast events: each has `fan_in` distinct senders, none the receiver, starting
    /// together (60-to-1 among 64 hosts); over a long window (300 000 events of 2-to-1)
    /// the bytes offered come within 2 % of the load of all hosts' links together.
    #[test]
    fn incast_events_gather_distinct_senders_at_the_load() {
        let cdf = Cdf::fixed(500_000);
        let line = 100_000_000_000u64;
        let mut rng = stream();
        let mut out = Vec::new();
        let gap = mean_gap(cdf.mean() * 60.0, 0.02, line * 64);
        incast_arrivals(64, 60, &cdf, gap, (0, PS_PER_S / 10), &mut rng, &mut out);
        assert!(out.len() >= 20 * 60, "{}", out.len());
        assert_eq!(out.len() % 60, 0);
        for event in out.chunks(60) {
            let mut senders: Vec<u32> = event.iter().map(|a| a.src).collect();
            senders.sort_unstable();
            senders.dedup();
            assert_eq!(senders.len(), 60);
            assert!(event
                .iter()
                .all(|a| a.dst == event[0].dst && a.src != a.dst && a.start == event[0].start));
            assert!(event.iter().all(|a| a.bytes == 500_000 && a.src < 64));
        }
        out.clear();
        let (n, load, window) = (8u32, 0.3, 10 * PS_PER_S);
        let gap = mean_gap(cdf.mean() * 2.0, load, line * u64::from(n));
        incast_arrivals(n, 2, &cdf, gap, (0, window), &mut rng, &mut out);
        let offered = out.len() as f64 * 500_000.0 * 8.0 / (line as f64 * f64::from(n) * 10.0);
        assert!((offered / load - 1.0).abs() < 0.02, "{offered} from {} events", out.len() / 2);
    }

    #[test]
    fn a_derangement_leaves_no_host_on_itself() {
        let mut rng = stream();
        for n in 2..20 {
            let p = derangement(n, &mut rng);
            let mut sorted = p.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, (0..n).collect::<Vec<_>>());
            assert!(p.iter().enumerate().all(|(i, &j)| i as u32 != j), "{p:?}");
        }
    }
}
