//! The recorder: time series sampled on a fixed grid during a run.

use super::TimeSeries;
use crate::engine::time::as_secs;
use crate::engine::Time;
use crate::net::{Network, PortId};
use crate::protocol::AnyReactionPoint;
use crate::traffic::Flow;

/// Sampled series and how to sample them.
#[derive(Clone, Debug)]
pub struct Recorder {
    /// The packet trace (`metrics.pcap`), if one is taken.
    pub trace: Option<Box<super::pcap::Trace>>,
    /// Sampling period (0 = no series).
    pub interval: Time,
    /// Ports whose queue length is recorded.
    pub(crate) queue_ports: Vec<PortId>,
    /// Queue length in frames (all classes) per recorded port.
    pub queues: TimeSeries,
    /// The average queue of every recorded port whose first class's discipline keeps one
    /// ([`crate::aqm::Discipline::average`]), in the discipline's unit.
    pub avg_queues: TimeSeries,
    avg_ports: Vec<PortId>,
    /// The maximum marking probability of every port in `avg_queues`
    /// ([`crate::aqm::Discipline::max_p`], which an adaptive discipline moves).
    pub max_ps: TimeSeries,
    /// Utilisation of every recorded port's link over the previous interval (bytes sent
    /// × 8 ÷ interval ÷ rate).
    pub utilisation: TimeSeries,
    /// Per recorded port, the bits of its classes' frames serialized by the last sample.
    last_served_bits: Vec<u64>,
    /// Flows whose throughput is recorded.
    pub(crate) flow_ids: Vec<u32>,
    /// Delivered throughput per recorded flow over the previous interval, bit/s.
    pub throughput: TimeSeries,
    last_delivered: Vec<u64>,
    /// Rate of every recorded reaction point, bit/s (empty when not recorded).
    pub rates: TimeSeries,
    /// The reaction points of `rates`' columns, in order.
    rate_rps: Vec<u32>,
    /// Feedback frames received by every reaction point during the previous interval.
    pub cnms: TimeSeries,
    /// Sum over samples of the lowest rate any reaction point taking part allowed
    /// (Devkota & Reddy's "minrate"; see [`crate::protocol::ReactionPoint::minrate_sample`]),
    /// bit/s.
    pub(crate) minrate_sum: f64,
    /// Samples in that sum.
    pub(crate) minrate_samples: u64,
}

/// The size of one table a recorder keeps, known before the recorder is made (for the
/// memory estimate).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TableShape {
    /// The table's name (its file stem).
    pub(crate) name: &'static str,
    /// Its series.
    pub(crate) columns: u64,
    /// The bytes of its series' names, together.
    pub(crate) name_bytes: u64,
}

/// The average queue port `p`'s first class keeps, if its discipline keeps one.
fn average(net: &Network, p: PortId) -> Option<f64> {
    net.ports[p as usize].classes.queues().next().and_then(|q| q.discipline.average())
}

/// Bits of the port's class frames serialized by `now`: those of every frame it started,
/// less what is left to send of the one on the wire. Counting a frame whole when it
/// starts would put a frame that straddles two samples in the first interval, and a
/// busy link above 1.
fn served_bits(port: &crate::net::Port, now: Time) -> u64 {
    let started: u64 = port.classes.queues().map(|q| q.stats.sent_bytes).sum::<u64>() * 8;
    let left = match port.classes.serializing_size() {
        Some(size) if port.busy_until > now => {
            let bits = u128::from(port.busy_until - now) * u128::from(port.rate_bps);
            (bits.div_ceil(u128::from(crate::engine::PS_PER_S)) as u64).min(u64::from(size) * 8)
        }
        _ => 0,
    };
    started - left
}

/// The maximum marking probability of port `p`'s first class, if its discipline has one.
fn max_p(net: &Network, p: PortId) -> Option<f64> {
    net.ports[p as usize].classes.queues().next().and_then(|q| q.discipline.max_p())
}

impl Recorder {
    /// A recorder for the given ports and flows.
    pub fn new(
        interval: Time,
        net: &Network,
        queue_ports: Vec<PortId>,
        flows: &[Flow],
        flow_ids: Vec<u32>,
    ) -> Self {
        let queues = TimeSeries::new("queue_length", "frames", queue_ports.iter().map(|&p| net.port_name(p)));
        let utilisation = TimeSeries::new(
            "utilisation",
            "fraction of the link",
            queue_ports.iter().map(|&p| net.port_name(p)),
        );
        let last_served_bits = vec![0; queue_ports.len()];
        let avg_ports: Vec<PortId> =
            queue_ports.iter().copied().filter(|&p| average(net, p).is_some()).collect();
        let avg_queues =
            TimeSeries::new("queue_average", "frames or bytes", avg_ports.iter().map(|&p| net.port_name(p)));
        let max_ps = TimeSeries::new("max_p", "probability", avg_ports.iter().map(|&p| net.port_name(p)));
        let throughput =
            TimeSeries::new("throughput", "bit/s", flow_ids.iter().map(|&f| flows[f as usize].name.clone()));
        Self {
            trace: None,
            interval,
            last_delivered: vec![0; flow_ids.len()],
            queue_ports,
            queues,
            avg_queues,
            avg_ports,
            max_ps,
            utilisation,
            last_served_bits,
            flow_ids,
            throughput,
            rates: TimeSeries::new("rp_rate", "bit/s", std::iter::empty()),
            rate_rps: Vec::new(),
            cnms: TimeSeries::new("rp_cnms", "CNMs per interval", std::iter::empty()),
            minrate_sum: 0.0,
            minrate_samples: 0,
        }
    }

    /// The tables [`Recorder::new`] makes for these ports and flows and, with `rates`,
    /// [`Recorder::record_reaction_points`] adds, in the order the recorder keeps them:
    /// queue_length, queue_average, max_p, utilisation, throughput, rp_rate, rp_cnms.
    pub fn shapes(
        net: &Network,
        queue_ports: &[PortId],
        flows: &[Flow],
        flow_ids: &[u32],
        rates: bool,
    ) -> [TableShape; 7] {
        let shape = |name, names: &mut dyn Iterator<Item = usize>| {
            let (columns, name_bytes) = names.fold((0u64, 0u64), |(c, b), n| (c + 1, b + n as u64));
            TableShape { name, columns, name_bytes }
        };
        let port = |p: &PortId| net.port_name(*p).len();
        let rps = || flows.iter().filter(|f| rates && f.rp_recorded()).map(|f| f.name.len());
        [
            shape("queue_length", &mut queue_ports.iter().map(port)),
            shape("queue_average", &mut queue_ports.iter().filter(|&&p| average(net, p).is_some()).map(port)),
            shape("max_p", &mut queue_ports.iter().filter(|&&p| average(net, p).is_some()).map(port)),
            shape("utilisation", &mut queue_ports.iter().map(port)),
            shape("throughput", &mut flow_ids.iter().map(|&f| flows[f as usize].name.len())),
            shape("rp_rate", &mut rps()),
            shape("rp_cnms", &mut rps()),
        ]
    }

    /// Records the rate and feedback count of the reaction points of `flows` (those with
    /// one, in order, but workload flows: see [`Flow::rp_recorded`]).
    pub fn record_reaction_points(&mut self, flows: &[Flow]) {
        let recorded = || flows.iter().filter(|f| f.rp_recorded());
        self.rates = TimeSeries::new("rp_rate", "bit/s", recorded().map(|f| f.name.clone()));
        self.cnms = TimeSeries::new("rp_cnms", "CNMs per interval", recorded().map(|f| f.name.clone()));
        self.rate_rps = recorded().map(|f| f.rp).collect();
    }

    /// The ports of `avg_queues` and `max_ps`, in column order.
    pub(crate) fn avg_ports(&self) -> &[PortId] {
        &self.avg_ports
    }

    /// The reaction points of `rates` and `cnms`, in column order.
    pub(crate) fn rate_rps(&self) -> &[u32] {
        &self.rate_rps
    }

    /// Takes one sample of every series at `now`.
    pub fn sample(&mut self, now: Time, net: &Network, flows: &[Flow], rps: &mut [AnyReactionPoint]) {
        let t = as_secs(now);
        self.queues.times_s.push(t);
        self.utilisation.times_s.push(t);
        let secs = as_secs(self.interval);
        for (i, &p) in self.queue_ports.iter().enumerate() {
            let port = &net.ports[p as usize];
            self.queues.columns[i].values.push(port.classes.backlog() as f64);
            let served = served_bits(port, now);
            let delta = served.saturating_sub(self.last_served_bits[i]);
            self.last_served_bits[i] = served;
            // Rounding the frame on the wire to whole bits can put one bit too many in
            // an interval.
            let fraction = delta as f64 / secs / port.rate_bps as f64;
            self.utilisation.columns[i].values.push(fraction.min(1.0));
        }
        if !self.avg_ports.is_empty() {
            self.avg_queues.times_s.push(t);
            self.max_ps.times_s.push(t);
            for ((col, max), &p) in
                self.avg_queues.columns.iter_mut().zip(&mut self.max_ps.columns).zip(&self.avg_ports)
            {
                col.values.push(average(net, p).unwrap_or(f64::NAN));
                max.values.push(max_p(net, p).unwrap_or(f64::NAN));
            }
        }
        self.throughput.times_s.push(t);
        for (i, &f) in self.flow_ids.iter().enumerate() {
            let bytes = flows[f as usize].stats.delivered_bytes;
            let delta = bytes - self.last_delivered[i];
            self.last_delivered[i] = bytes;
            self.throughput.columns[i].values.push(delta as f64 * 8.0 / secs);
        }
        let minrate = rps.iter().filter_map(|rp| rp.minrate_sample()).min();
        if let Some(r) = minrate {
            self.minrate_sum += r as f64;
            self.minrate_samples += 1;
        }
        if !self.rates.columns.is_empty() {
            self.rates.times_s.push(t);
            self.cnms.times_s.push(t);
            for ((col, cnms), &rp) in
                self.rates.columns.iter_mut().zip(&mut self.cnms.columns).zip(&self.rate_rps)
            {
                let rp = &mut rps[rp as usize];
                col.values.push(rp.current_rate() as f64);
                cnms.values.push(rp.take_feedback_count() as f64);
            }
        }
    }

    /// Whether a sample falls exactly on the end time and has not been taken.
    pub fn due_at_end(&self, end: Time) -> bool {
        self.interval > 0
            && self.interval <= end
            && end.is_multiple_of(self.interval)
            && self.queues.times_s.last().copied() != Some(as_secs(end))
    }
}
