//! The max-min fair allocation of a scenario, the yardstick of the IEEE 802.1au
//! congestion-management tests: no flow can get more without taking from a flow that has
//! no more than it.
//!
//! Computed by progressive filling (water-filling), exact for fixed routes (Bertsekas &
//! Gallager, *Data Networks*, §6.5.2): every flow not yet frozen grows at the same pace
//! until it reaches its demand or a resource it crosses is full; a full resource freezes
//! every flow through it. The resources are the link directions (capacity: the link rate)
//! and the hosts that drain their input at a service rate (802.3x output-generated
//! hotspots): a host that serves 1 Gbit/s is a 1 Gbit/s resource for every flow to it.
//!
//! Where offered loads change during a run (flows that start or stop, on/off sources),
//! the allocation is that of each phase of constant offered load, averaged over the run
//! ([`water_fill_over_time`]): two on/off sources that are on together share a port with
//! the steady ones while on and leave it to them while off, which the water-filling of
//! their mean rates does not see.

use crate::engine::Time;
use crate::net::NONE;
use crate::sim::Sim;
use crate::traffic::{Destination, Pattern};

/// A flow of an allocation problem.
#[derive(Clone, Debug, PartialEq)]
pub struct Demand {
    /// The most it would send, bit/s (`f64::INFINITY`: as much as it gets).
    pub(crate) demand: f64,
    /// The resources it crosses (indices into the capacities).
    pub(crate) resources: Vec<usize>,
}

/// The max-min fair rates of `flows` over resources of `capacities` (same unit as the
/// demands). A flow that crosses no resource and demands without bound gets infinity.
pub fn water_fill(capacities: &[f64], flows: &[Demand]) -> Vec<f64> {
    let demands: Vec<f64> = flows.iter().map(|f| f.demand).collect();
    let scale = largest(capacities.iter().copied());
    Filling::new(capacities, scale, Paths::of(flows.iter().map(|f| f.resources.as_slice()))).fill(&demands)
}

/// The largest of `capacities`, at least 1: the scale of the filling's tolerance.
fn largest(capacities: impl IntoIterator<Item = f64>) -> f64 {
    capacities.into_iter().fold(1.0, f64::max)
}

/// The resources each flow of a problem crosses, one flat list (4 bytes a hop, where a
/// list per flow would cost a vector and an allocation each: the fair shares are
/// computed at the end of a run, on top of everything the run holds). Resources and
/// flows are numbered in 32 bits, as the ports and flows they stand for are.
struct Paths {
    /// Flow `f` crosses `hops[at[f]..at[f + 1]]`.
    at: Vec<usize>,
    hops: Vec<u32>,
}

impl Paths {
    fn new() -> Self {
        Self::with_capacity(0)
    }

    /// Room for `flows` flows' offsets.
    fn with_capacity(flows: usize) -> Self {
        let mut at = Vec::with_capacity(flows + 1);
        at.push(0);
        Paths { at, hops: Vec::new() }
    }

    fn of<'p>(paths: impl Iterator<Item = &'p [usize]>) -> Self {
        let mut all = Paths::new();
        for p in paths {
            all.push(p.iter().copied());
        }
        all
    }

    /// Adds the next flow, crossing `resources`.
    fn push(&mut self, resources: impl IntoIterator<Item = usize>) {
        self.hops.extend(resources.into_iter().map(|r| r as u32));
        self.at.push(self.hops.len());
    }

    fn len(&self) -> usize {
        self.at.len() - 1
    }
}

/// Relative tolerance of "full" and "satisfied": float rounding of the increments.
const EPS: f64 = 1e-9;

/// A water-filling problem's structure — which resources each flow crosses, which flows
/// each resource carries — built once and filled for any number of demand vectors.
///
/// Every flow not yet frozen holds the same allocation, the *level*, so the filling
/// moves from level to level instead of by increments over all flows: the next level is
/// the smaller of the least demand not yet met (flows sorted by demand) and the least
/// level at which a resource fills, `(capacity − load of its frozen flows) / its flows
/// not frozen` (a heap of resources, an entry renewed whenever one of its flows freezes).
/// A frozen flow keeps the level it froze at. Each flow freezes once and touches only its
/// own resources then: O((flows × path length) · log) per filling, where filling by
/// increments over every flow and resource costs that per distinct level. 4096 CBR
/// senders starting one by one over 4.5 ms have thousands of distinct demands in each
/// early phase: their 1-second run spent 2.55 G instructions filling by increments, more
/// than the simulation; filling by levels, the whole fair-share computation costs 0.01 G
/// (cachegrind), and the rates agree to the last digit or two of a double.
struct Filling<'a> {
    capacities: &'a [f64],
    /// The largest capacity of the problem (at least 1), which scales the tolerance of
    /// "full": given, so that resources no flow crosses may be left out of
    /// `capacities` without changing any result.
    scale: f64,
    paths: Paths,
    /// Resource `r` carries `carried[carried_at[r]..carried_at[r + 1]]`.
    carried_at: Vec<usize>,
    carried: Vec<u32>,
}

/// A resource's heap entry: the level at which it fills, as of its `version`.
#[derive(Clone, Copy, PartialEq)]
struct Fills {
    level: f64,
    resource: u32,
    version: u32,
}

impl Fills {
    /// Whether the entry is its resource's latest (`version`) and the resource still has
    /// flows not frozen (`crossing`): otherwise stale, and never current again.
    fn is_current(self, version: &[u32], crossing: &[u32]) -> bool {
        let r = self.resource as usize;
        self.version == version[r] && crossing[r] > 0
    }
}

impl Eq for Fills {}

impl Ord for Fills {
    /// Reversed, for a min-heap: the lowest level first, then the lowest index.
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        other.level.total_cmp(&self.level).then(other.resource.cmp(&self.resource))
    }
}

impl PartialOrd for Fills {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl<'a> Filling<'a> {
    fn new(capacities: &'a [f64], scale: f64, paths: Paths) -> Self {
        let mut carried_at = vec![0; capacities.len() + 1];
        for &r in &paths.hops {
            carried_at[r as usize + 1] += 1;
        }
        for r in 0..capacities.len() {
            carried_at[r + 1] += carried_at[r];
        }
        let mut carried = vec![0; paths.hops.len()];
        let mut next = carried_at.clone();
        for f in 0..paths.len() {
            for &r in &paths.hops[paths.at[f]..paths.at[f + 1]] {
                carried[next[r as usize]] = f as u32;
                next[r as usize] += 1;
            }
        }
        Self { capacities, scale, paths, carried_at, carried }
    }

    fn path(&self, f: usize) -> impl Iterator<Item = usize> + '_ {
        self.paths.hops[self.paths.at[f]..self.paths.at[f + 1]].iter().map(|&r| r as usize)
    }

    fn carried(&self, r: usize) -> impl Iterator<Item = usize> + '_ {
        self.carried[self.carried_at[r]..self.carried_at[r + 1]].iter().map(|&f| f as usize)
    }

    /// The max-min fair allocation of `demands` (one per flow).
    fn fill(&self, demands: &[f64]) -> Vec<f64> {
        let caps = self.capacities;
        let mut state = State {
            alloc: vec![0.0; demands.len()],
            frozen: demands.iter().map(|&d| d <= 0.0).collect(),
            load: vec![0.0; caps.len()],
            crossing: vec![0; caps.len()],
            version: vec![0; caps.len()],
            heap: std::collections::BinaryHeap::new(),
            level: 0.0,
            unfrozen: 0,
        };
        let mut order: Vec<u32> = (0..demands.len() as u32).filter(|&f| !state.frozen[f as usize]).collect();
        state.unfrozen = order.len();
        for &f in &order {
            for r in self.path(f as usize) {
                state.crossing[r] += 1;
            }
        }
        for r in 0..caps.len() {
            if state.crossing[r] > 0 {
                state.renew(caps, r);
            }
        }
        order.sort_by(|&a, &b| demands[a as usize].total_cmp(&demands[b as usize]));
        // Above any resource's tolerance: entries this close to the level are checked.
        let slack = EPS * self.scale;
        let (mut next, mut candidates, mut full) = (0, Vec::new(), Vec::new());
        while state.unfrozen > 0 {
            while next < order.len() && state.frozen[order[next] as usize] {
                next += 1;
            }
            let by_demand = order.get(next).map_or(f64::INFINITY, |&f| demands[f as usize]);
            let by_resource = state.top().map_or(f64::INFINITY, |e| e.level);
            let level = by_demand.min(by_resource);
            if level.is_infinite() {
                // Unbounded demands over no resource at all.
                for f in 0..demands.len() {
                    if !state.frozen[f] {
                        state.alloc[f] = f64::INFINITY;
                    }
                }
                break;
            }
            state.level = state.level.max(level);
            let level = state.level;
            // The resources full at this level: those within their tolerance of it.
            candidates.clear();
            full.clear();
            while let Some(e) = state.top() {
                if e.level > level + slack {
                    break;
                }
                state.heap.pop();
                let r = e.resource as usize;
                let residual = caps[r] - state.load[r] - f64::from(state.crossing[r]) * level;
                if residual <= EPS * caps[r].max(1.0) {
                    full.push(r);
                } else {
                    candidates.push(e);
                }
            }
            state.heap.extend(candidates.drain(..));
            let before = state.unfrozen;
            // Satisfied flows: demands sorted, and `d − EPS·max(d, 1)` grows with `d`.
            for &f in &order[next..] {
                let f = f as usize;
                let d = demands[f];
                if !d.is_finite() || d - level > EPS * d.max(1.0) {
                    break;
                }
                if !state.frozen[f] {
                    state.freeze(self, f);
                }
            }
            for &r in &full {
                state.freeze_carried(self, r);
            }
            if state.unfrozen == before {
                // Rounding left the resource that set the level a hair short of full.
                let r =
                    state.top().expect("a finite level comes from a demand or a resource").resource as usize;
                state.heap.pop();
                state.freeze_carried(self, r);
            }
        }
        state.alloc
    }
}

/// A filling in progress (see [`Filling`]).
struct State {
    alloc: Vec<f64>,
    frozen: Vec<bool>,
    /// Per resource: the allocations of its frozen flows.
    load: Vec<f64>,
    /// Per resource: its flows not frozen (a flow crossing it twice counts twice).
    crossing: Vec<u32>,
    /// Per resource: which of its heap entries is current.
    version: Vec<u32>,
    heap: std::collections::BinaryHeap<Fills>,
    level: f64,
    unfrozen: usize,
}

impl State {
    /// Enters resource `r`'s filling level anew (its earlier entries go stale).
    fn renew(&mut self, caps: &[f64], r: usize) {
        self.version[r] += 1;
        if self.heap.len() == self.heap.capacity() {
            // Rather than grow, drop the stale entries (a resource's entry is renewed
            // at every freeze of a flow through it: on a 4096-sender dumbbell three
            // stale entries for every current one). `top` would skip them, and none
            // becomes current again. Room for as many again keeps each entry's share
            // of the compactions constant.
            let (version, crossing) = (&self.version, &self.crossing);
            self.heap.retain(|&e| e.is_current(version, crossing));
            self.heap.reserve(self.heap.len());
        }
        let share = (caps[r] - self.load[r]) / f64::from(self.crossing[r]);
        self.heap.push(Fills { level: share.max(self.level), resource: r as u32, version: self.version[r] });
    }

    /// The lowest current heap entry of a resource with flows not frozen (stale ones
    /// dropped on the way).
    fn top(&mut self) -> Option<Fills> {
        while let Some(&e) = self.heap.peek() {
            if e.is_current(&self.version, &self.crossing) {
                return Some(e);
            }
            self.heap.pop();
        }
        None
    }

    /// Freezes every flow of resource `r` not frozen yet, at the present level.
    fn freeze_carried(&mut self, filling: &Filling, r: usize) {
        for f in filling.carried(r) {
            if !self.frozen[f] {
                self.freeze(filling, f);
            }
        }
    }

    /// Freezes flow `f` at the present level.
    fn freeze(&mut self, filling: &Filling, f: usize) {
        self.frozen[f] = true;
        self.alloc[f] = self.level;
        self.unfrozen -= 1;
        for r in filling.path(f) {
            self.load[r] += self.level;
            self.crossing[r] -= 1;
            if self.crossing[r] > 0 {
                self.renew(filling.capacities, r);
            }
        }
    }
}

/// A flow's offered load over time, bit/s.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Load {
    /// `rate` from `from` until `to` (ps).
    Steady {
        /// Rate, bit/s.
        rate: f64,
        /// Start, ps.
        from: Time,
        /// End, ps.
        to: Time,
    },
    /// `rate` during on-periods of `on` ps, each followed by `off` ps of silence, the
    /// first starting at `from`; nothing at or after `to`.
    OnOff {
        /// Rate while on, bit/s.
        rate: f64,
        /// Start of the first on-period, ps.
        from: Time,
        /// End, ps.
        to: Time,
        /// On-period, ps.
        on: Time,
        /// Off-period, ps.
        off: Time,
    },
}

impl Load {
    /// The rate while on, bit/s.
    pub fn rate(&self) -> f64 {
        match *self {
            Load::Steady { rate, .. } | Load::OnOff { rate, .. } => rate,
        }
    }

    /// Time spent on within [a, b), ps.
    pub fn on_time(&self, a: Time, b: Time) -> Time {
        match *self {
            Load::Steady { from, to, .. } => b.min(to).saturating_sub(a.max(from)),
            Load::OnOff { from, to, on, off, .. } => {
                let period = u128::from(on) + u128::from(off);
                // On-time from `from` to t.
                let upto = |t: Time| -> u128 {
                    let t = u128::from(t.clamp(from, to.max(from)) - from);
                    if period == 0 {
                        return 0;
                    }
                    (t / period) * u128::from(on) + (t % period).min(u128::from(on))
                };
                let (lo, hi) = (a.max(from), b.min(to));
                if hi <= lo {
                    0
                } else {
                    Time::try_from(upto(hi) - upto(lo)).unwrap_or(Time::MAX)
                }
            }
        }
    }

    /// The last instant in (0, `end`) at which the load changes (0 if none): it is
    /// constant from there to `end`.
    fn settled(&self, end: Time) -> Time {
        let inside = |t: Time| if 0 < t && t < end { t } else { 0 };
        match *self {
            // Still switching at the end.
            Load::OnOff { to, on, off, .. } if on > 0 && off > 0 && to >= end => end,
            // Switches, if any, end by `to`.
            Load::Steady { from, to, .. } | Load::OnOff { from, to, .. } => inside(from).max(inside(to)),
        }
    }

    /// Pushes the instants in (a, b) at which the load changes; false (and stops) once
    /// `out` would hold more than `limit`.
    fn changes(&self, a: Time, b: Time, out: &mut Vec<Time>, limit: usize) -> bool {
        let mut push = |t: Time| {
            if a < t && t < b {
                out.push(t);
            }
            out.len() <= limit
        };
        match *self {
            Load::Steady { from, to, .. } => push(from) && push(to),
            Load::OnOff { from, to, on, off, .. } => {
                if !(push(from) && push(to)) {
                    return false;
                }
                let period = on.saturating_add(off);
                if period == 0 || on == 0 || off == 0 {
                    return true;
                }
                let mut t = from;
                while t < to.min(b) {
                    if !(push(t) && push(t.saturating_add(on).min(to))) {
                        return false;
                    }
                    t = t.saturating_add(period);
                }
                true
            }
        }
    }
}

/// A flow of an allocation problem whose offered load changes over time.
#[derive(Clone, Debug, PartialEq)]
pub struct TimedDemand {
    /// Its offered load.
    pub(crate) load: Load,
    /// The resources it crosses (indices into the capacities).
    pub(crate) resources: Vec<usize>,
}

/// The most phases [`water_fill_over_time`] allocates separately; with more changes of
/// load than this, the run is cut into this many equal phases and each flow's demand in
/// a phase is its mean offered rate there (loads that switch that often, against the
/// run's length, are read as their means over a thousandth of it).
pub const MAX_PHASES: usize = 1000;

/// The max-min fair rates of `flows` averaged over [0, `end`) ps: the run is cut at
/// every change of any flow's offered load, each phase's demands are water-filled
/// ([`water_fill`]), and each flow's rates are averaged weighted by the phases' lengths.
/// A flow's demand in a phase is its mean offered rate there (its rate, where the phase
/// has no change of its load). Consecutive phases with the same demands share one
/// water-filling. With `end` = 0, the allocation of the loads while on.
pub fn water_fill_over_time(capacities: &[f64], flows: &[TimedDemand], end: Time) -> Vec<f64> {
    let paths = Paths::of(flows.iter().map(|f| f.resources.as_slice()));
    fill_over_time(capacities, largest(capacities.iter().copied()), |f| flows[f].load, paths, end)
}

/// [`water_fill_over_time`] of `paths.len()` flows, flow `f` with offered load `load(f)`
/// and crossing `paths`' `f`-th list (the loads are asked for as needed rather than
/// held: at the end of a run, on top of everything the run holds); `scale` is the
/// largest capacity (see [`Filling`]).
fn fill_over_time(
    capacities: &[f64],
    scale: f64,
    load: impl Fn(usize) -> Load,
    paths: Paths,
    end: Time,
) -> Vec<f64> {
    let flows = paths.len();
    if end == 0 {
        let steady: Vec<f64> = (0..flows).map(|f| load(f).rate()).collect();
        return Filling::new(capacities, scale, paths).fill(&steady);
    }
    let mut points = vec![0, end];
    let exact = (0..flows).all(|f| load(f).changes(0, end, &mut points, MAX_PHASES + 1));
    if exact {
        points.sort_unstable();
        points.dedup();
    }
    if !exact || points.len() > MAX_PHASES + 1 {
        let n = MAX_PHASES as u128;
        points = (0..=n).map(|k| (u128::from(end) * k / n) as Time).collect();
        points.dedup();
    }
    let filling = Filling::new(capacities, scale, paths);
    // From here on every load is constant: so are the demands of the phases after it.
    let settled = (0..flows).map(|f| load(f).settled(end)).max().unwrap_or(0);
    let mut total = vec![0.0; flows];
    let mut last: Option<(Vec<f64>, Vec<f64>)> = None;
    for (i, w) in points.windows(2).enumerate() {
        let (a, b) = (w[0], w[1]);
        let len = (b - a) as f64;
        // A phase after one that started at or past `settled` has that one's demands.
        let repeats = i > 0 && points[i - 1] >= settled;
        if !repeats {
            let demands: Vec<f64> = (0..flows)
                .map(|f| {
                    let l = load(f);
                    l.rate() * l.on_time(a, b) as f64 / len
                })
                .collect();
            if last.as_ref().is_none_or(|(d, _)| *d != demands) {
                let alloc = filling.fill(&demands);
                last = Some((demands, alloc));
            }
        }
        let (_, alloc) = last.as_ref().expect("filled above");
        for (t, r) in total.iter_mut().zip(alloc) {
            *t += r * len;
        }
    }
    total.into_iter().map(|t| t / end as f64).collect()
}

/// A flow's offered load: its CBR, Poisson or on/off rate, or its line rate if
/// saturated, from its start until its stop or `end`; on/off sources with fixed periods
/// switch as they do in the run, those with random periods count at their mean rate
/// throughout. A fixed rate limit caps the rate (a reaction point's limiter is
/// congestion control, not demand).
fn offered(f: &crate::traffic::Flow, end: Time) -> Load {
    let cap = |rate: f64| match &f.shaper {
        Some(s) if f.rp == NONE => rate.min(s.rate_bps as f64),
        _ => rate,
    };
    let (from, to) = (f.start, f.stop.min(end));
    match f.pattern {
        Pattern::Cbr { rate_bps, .. } | Pattern::Poisson { rate_bps } => {
            Load::Steady { rate: cap(rate_bps as f64), from, to }
        }
        Pattern::OnOff { rate_bps, on, off, exponential } => {
            let period = on.saturating_add(off);
            if period == 0 {
                Load::Steady { rate: 0.0, from, to }
            } else if exponential {
                let mean = rate_bps as f64 * on as f64 / period as f64;
                Load::Steady { rate: cap(mean), from, to }
            } else {
                Load::OnOff { rate: cap(rate_bps as f64), from, to, on, off }
            }
        }
        // A TCP connection takes what the network gives it.
        Pattern::Saturated | Pattern::Tcp => Load::Steady { rate: cap(f.line_bps as f64), from, to },
    }
}

/// The max-min fair rate of every flow of a run, bit/s, averaged over the run (see
/// [`water_fill_over_time`]): what a flow's delivered bits over the run's duration are
/// measured against. `None` for multicast flows (whose copies share no single rate),
/// unroutable ones and workload flows.
pub fn of_sim(sim: &Sim) -> Vec<Option<f64>> {
    let net = sim.net();
    // Computed on top of everything the run holds, so in as little memory as it takes:
    // a host's service resource is looked up only where some host has one, a flow's
    // place among the allocated ones is 4 bytes, the loads are made when asked for, and
    // only the resources some flow crosses are held.
    let ports = net.ports.len();
    let services = sim.link_control().map(|l| l.service_rates()).unwrap_or_default();
    let mut service = if services.is_empty() { Vec::new() } else { vec![NONE; net.nodes.len()] };
    for (k, &(host, _)) in services.iter().enumerate() {
        service[host as usize] = (ports + k) as u32;
    }
    let capacity =
        |r: usize| if r < ports { net.ports[r].rate_bps as f64 } else { services[r - ports].1 as f64 };
    let flows = sim.flows();
    let mut index = Vec::with_capacity(flows.len());
    let (mut allocated, mut paths) = (Vec::new(), Paths::with_capacity(flows.len()));
    for (i, f) in flows.iter().enumerate() {
        let Destination::Host(dst) = f.dst else {
            index.push(NONE);
            continue;
        };
        // Workload flows are judged by their completion times, not fair shares.
        if f.workload {
            index.push(NONE);
            continue;
        }
        let path = sim.routes().path(net, f.src, dst, i as u32);
        if path.is_empty() {
            index.push(NONE);
            continue;
        }
        let service = service.get(dst as usize).copied().filter(|&s| s != NONE);
        paths.push(path.iter().map(|&p| p as usize).chain(service.map(|s| s as usize)));
        index.push(allocated.len() as u32);
        allocated.push(i as u32);
    }
    // The resources crossed, renumbered in their order (ties in the filling go to the
    // lower number, so the order is kept); the tolerance keeps the scale of them all.
    let mut dense = vec![NONE; ports + services.len()];
    for &r in &paths.hops {
        dense[r as usize] = 0;
    }
    let mut capacities = Vec::new();
    for (r, d) in dense.iter_mut().enumerate() {
        if *d != NONE {
            *d = capacities.len() as u32;
            capacities.push(capacity(r));
        }
    }
    for r in &mut paths.hops {
        *r = dense[*r as usize];
    }
    drop(dense);
    let scale = largest((0..ports + services.len()).map(capacity));
    let end = sim.end();
    let rates =
        fill_over_time(&capacities, scale, |k| offered(&flows[allocated[k] as usize], end), paths, end);
    index.into_iter().map(|i| (i != NONE).then(|| rates[i as usize])).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const G: f64 = 1e9;

    fn flow(demand: f64, resources: &[usize]) -> Demand {
        Demand { demand, resources: resources.to_vec() }
    }

    /// Flows A over resources 1 and 3, B (demand 4) over 3 and 4, C over 4, of five
    /// resources of 5, 10, 10^12, 30 and 10 units: B stops at its demand (4), C then
    /// fills resource 4 at 6, A resource 1 at 10. Resources 0 and 2, which no flow
    /// crosses (2 the largest), left out and the rest renumbered in order, with the
    /// tolerance still scaled by all five, give the same rates to the last bit.
    #[test]
    fn resources_no_flow_crosses_may_be_left_out() {
        let inf = f64::INFINITY;
        let caps = [5.0, 10.0, 1e12, 30.0, 10.0];
        let all = water_fill(&caps, &[flow(inf, &[1, 3]), flow(4.0, &[3, 4]), flow(inf, &[4])]);
        assert_eq!(all, [10.0, 4.0, 6.0]);
        let crossed = [10.0, 30.0, 10.0];
        let paths = Paths::of([&[0, 1][..], &[1, 2], &[2]].into_iter());
        let left_out = Filling::new(&crossed, largest(caps), paths).fill(&[inf, 4.0, inf]);
        let bits = |rates: &[f64]| rates.iter().map(|r| r.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&left_out), bits(&all));
    }

    /// 1000 flows over their own 10-unit links and two shared resources, A (100) and B
    /// (1000), and 10 flows over B alone on their own 50-unit links. A fills first, at
    /// 0.1: its 1000 flows freeze at once, and each freeze renews B's heap entry, 1000
    /// entries with no entry taken between them, so the heap drops stale ones rather
    /// than grow. B is then left 900 for its 10 other flows, whose own links fill first:
    /// 50 each. A compaction that lost the current entries of those links (never
    /// renewed) would give them B's 90.
    #[test]
    fn the_heap_drops_stale_entries_and_keeps_the_current_ones() {
        let (n, m) = (1000, 10);
        let (a, b) = (n + m, n + m + 1);
        let mut caps = vec![10.0; n];
        caps.extend(vec![50.0; m]);
        caps.extend([100.0, 1000.0]);
        let mut flows: Vec<Demand> = (0..n).map(|i| flow(f64::INFINITY, &[i, a, b])).collect();
        flows.extend((n..n + m).map(|i| flow(f64::INFINITY, &[i, b])));
        let got = water_fill(&caps, &flows);
        let mut want = vec![0.1; n];
        want.extend(vec![50.0; m]);
        assert!(close(&got, &want), "{:?}", &got[n - 2..]);
    }

    fn close(a: &[f64], b: &[f64]) -> bool {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() <= 1e-6 * y.abs().max(1.0))
    }

    /// Roeck 2007 test 3: four 1 Gbit/s culprits to node 7, which serves 20 % of
    /// 10 Gbit/s; three 7 Gbit/s victims that share links with them but not node 7.
    /// Fair: 0.5 Gbit/s per culprit, 7 Gbit/s per victim.
    #[test]
    fn victims_keep_their_demand_while_culprits_share_the_hotspot() {
        // Resources: 0 = node 7's service (2 G); 1, 2 = switch links shared by a culprit
        // and a victim (10 G); 3 = the culprits' common last link (10 G).
        let caps = [2.0 * G, 10.0 * G, 10.0 * G, 10.0 * G];
        let flows = [
            flow(G, &[1, 3, 0]),
            flow(G, &[2, 3, 0]),
            flow(G, &[3, 0]),
            flow(G, &[3, 0]),
            flow(7.0 * G, &[1]),
            flow(7.0 * G, &[2]),
            flow(7.0 * G, &[]),
        ];
        let got = water_fill(&caps, &flows);
        assert!(close(&got, &[0.5 * G, 0.5 * G, 0.5 * G, 0.5 * G, 7.0 * G, 7.0 * G, 7.0 * G]), "{got:?}");
    }

    /// Roeck 2007 test 7 (hosts 1–3 and 6 on switch 1, 4, 5, 7, 8 on switch 2): four
    /// 9 Gbit/s flows to node 8 (one from switch 1) and one 9 Gbit/s flow 2 → 4 across
    /// the inter-switch link. Fair: 2.5 Gbit/s to node 8, 7.5 Gbit/s for 2 → 4.
    #[test]
    fn test_7_light_then_heavy_hotspot() {
        // 0 = sw1 → sw2, 1 = sw2 → node 8.
        let caps = [10.0 * G, 10.0 * G];
        let flows = [
            flow(9.0 * G, &[0, 1]),
            flow(9.0 * G, &[1]),
            flow(9.0 * G, &[1]),
            flow(9.0 * G, &[1]),
            flow(9.0 * G, &[0]),
        ];
        let got = water_fill(&caps, &flows);
        assert!(close(&got, &[2.5 * G, 2.5 * G, 2.5 * G, 2.5 * G, 7.5 * G]), "{got:?}");
    }

    /// Roeck 2007 test 8: 1 → 8 and 4 → 8, and 2 → 4, 3 → 5, 6 → 7 across the
    /// inter-switch link. Fair: 2.5 Gbit/s for the four flows into switch 2, 7.5 Gbit/s
    /// for 4 → 8.
    #[test]
    fn test_8_heavy_then_light_hotspot() {
        let caps = [10.0 * G, 10.0 * G];
        let flows = [
            flow(9.0 * G, &[0, 1]),
            flow(9.0 * G, &[1]),
            flow(9.0 * G, &[0]),
            flow(9.0 * G, &[0]),
            flow(9.0 * G, &[0]),
        ];
        let got = water_fill(&caps, &flows);
        assert!(close(&got, &[2.5 * G, 7.5 * G, 2.5 * G, 2.5 * G, 2.5 * G]), "{got:?}");
    }

    /// A parking lot of 7 links: one flow through all, one local flow per link; every
    /// flow gets C/2. With a second long flow, each link carries 3: C/3 for all.
    #[test]
    fn parking_lot_gives_half_to_every_flow() {
        let caps = [10.0 * G; 7];
        let mut flows = vec![flow(f64::INFINITY, &[0, 1, 2, 3, 4, 5, 6])];
        flows.extend((0..7).map(|l| flow(f64::INFINITY, &[l])));
        assert!(close(&water_fill(&caps, &flows), &[5.0 * G; 8]));
        flows.push(flow(f64::INFINITY, &[0, 1, 2, 3, 4, 5, 6]));
        assert!(close(&water_fill(&caps, &flows), &[10.0 / 3.0 * G; 9]));
    }

    /// Unequal bottlenecks: a flow limited by its own demand frees capacity for the
    /// others, and a local flow gets what the long flow leaves.
    #[test]
    fn demands_and_second_bottlenecks() {
        // Link 0 (10) carries a, b, c; link 1 (4) carries c, d. c and d get 2 at link 1;
        // a is content with 1; b takes 10 − 1 − 2 = 7.
        let caps = [10.0, 4.0];
        let flows =
            [flow(1.0, &[0]), flow(f64::INFINITY, &[0]), flow(f64::INFINITY, &[0, 1]), flow(9.0, &[1])];
        assert!(close(&water_fill(&caps, &flows), &[1.0, 7.0, 2.0, 2.0]));
        // No resources and no bound: infinite; zero demand: zero.
        assert_eq!(water_fill(&[], &[flow(f64::INFINITY, &[]), flow(0.0, &[])]), [f64::INFINITY, 0.0]);
    }

    /// Progressive filling by increments, literally: every flow not frozen grows by the
    /// same amount until a demand is met or a resource fills, over every flow and
    /// resource at each step. The yardstick of [`Filling`].
    fn filled_by_increments(capacities: &[f64], flows: &[Demand]) -> Vec<f64> {
        let mut alloc = vec![0.0; flows.len()];
        let mut frozen: Vec<bool> = flows.iter().map(|f| f.demand <= 0.0).collect();
        let mut residual = capacities.to_vec();
        while frozen.iter().any(|f| !f) {
            let mut crossing = vec![0usize; capacities.len()];
            for (_, d) in flows.iter().enumerate().filter(|(f, _)| !frozen[*f]) {
                for &r in &d.resources {
                    crossing[r] += 1;
                }
            }
            let unfrozen = || flows.iter().enumerate().filter(|(f, _)| !frozen[*f]);
            let by_demand = unfrozen().map(|(f, d)| d.demand - alloc[f]).fold(f64::INFINITY, f64::min);
            let by_resource = (0..capacities.len())
                .filter(|&r| crossing[r] > 0)
                .map(|r| residual[r].max(0.0) / crossing[r] as f64)
                .fold(f64::INFINITY, f64::min);
            let delta = by_demand.min(by_resource);
            if delta.is_infinite() {
                for (f, a) in alloc.iter_mut().enumerate() {
                    if !frozen[f] {
                        *a = f64::INFINITY;
                    }
                }
                break;
            }
            for (f, d) in flows.iter().enumerate().filter(|(f, _)| !frozen[*f]) {
                alloc[f] += delta;
                for &r in &d.resources {
                    residual[r] -= delta;
                }
            }
            let full: Vec<bool> = (0..capacities.len())
                .map(|r| crossing[r] > 0 && residual[r] <= EPS * capacities[r].max(1.0))
                .collect();
            for (f, d) in flows.iter().enumerate() {
                let satisfied = d.demand.is_finite() && d.demand - alloc[f] <= EPS * d.demand.max(1.0);
                if !frozen[f] && (satisfied || d.resources.iter().any(|&r| full[r])) {
                    frozen[f] = true;
                }
            }
        }
        alloc
    }

    proptest::proptest! {
        /// Level by level gives what increments give, on random networks: demands
        /// met, unbounded or nil, shared and private resources, flows crossing none.
        #[test]
        fn levels_fill_as_increments_do(
            caps in proptest::collection::vec(1u32..40, 1..7),
            raw in proptest::collection::vec((0u32..50, proptest::collection::vec(0usize..7, 0..4)), 1..14),
        ) {
            let flows: Vec<Demand> = raw
                .iter()
                .map(|(d, path)| {
                    let demand = match d % 10 { 0 => f64::INFINITY, 1 => 0.0, _ => f64::from(*d) };
                    let mut resources: Vec<usize> = path.iter().map(|&r| r % caps.len()).collect();
                    resources.sort_unstable();
                    resources.dedup();
                    flow(demand, &resources)
                })
                .collect();
            let caps: Vec<f64> = caps.iter().map(|&c| f64::from(c)).collect();
            let (got, want) = (water_fill(&caps, &flows), filled_by_increments(&caps, &flows));
            let same = got.iter().zip(&want).all(|(a, b)| a == b || (a - b).abs() <= 1e-9 * b.abs().max(1.0));
            proptest::prop_assert!(same, "{got:?} != {want:?}");
        }
    }

    /// 4096 flows with 4096 different demands over one shared resource: each is met
    /// in turn, or gets the share of what the smaller ones left.
    #[test]
    fn thousands_of_distinct_demands_fill_in_one_pass() {
        let n = 4096;
        let flows: Vec<Demand> = (0..n).map(|i| flow(f64::from(i + 1), &[0])).collect();
        // The first k flows are met while (n − k)·(k + 1) + k(k + 1)/2 > C; C = 4096·2048.
        let cap = f64::from(n) * 2048.0;
        let got = water_fill(&[cap], &flows);
        let total: f64 = got.iter().sum();
        assert!((total - cap).abs() <= 1e-6 * cap, "the resource is full: {total} of {cap}");
        let share = got[n as usize - 1];
        for (i, &a) in got.iter().enumerate() {
            let d = (i + 1) as f64;
            assert!(a == d || (a - share).abs() <= 1e-9 * share, "flow {i}: {a}, demand {d}, share {share}");
            assert!(a <= d * (1.0 + 1e-12));
        }
        assert_eq!(got, filled_by_increments(&[cap], &flows));
    }

    const MS: Time = 1_000_000_000;

    /// Roeck 2007 test 5, worked by hand: four sources of 10 Gbit/s into one 10 Gbit/s
    /// port (resource 0), the first two on for 20 ms and off for 20 ms, together, over
    /// 200 ms. While all four send each gets 2.5; while the pair is off the steady two get
    /// 5 each. Averaged: 1.25 for each on/off source, 3.75 for each steady one. The
    /// water-filling of the mean offered rates (5, 5, 10, 10) gives 2.5 to all four.
    #[test]
    fn on_off_sources_switching_together_share_per_phase() {
        let on_off = Load::OnOff { rate: 10.0 * G, from: 0, to: 200 * MS, on: 20 * MS, off: 20 * MS };
        let steady = Load::Steady { rate: 10.0 * G, from: 0, to: 200 * MS };
        let flows: Vec<TimedDemand> = [on_off, on_off, steady, steady]
            .into_iter()
            .map(|load| TimedDemand { load, resources: vec![0] })
            .collect();
        let got = water_fill_over_time(&[10.0 * G], &flows, 200 * MS);
        assert!(close(&got, &[1.25 * G, 1.25 * G, 3.75 * G, 3.75 * G]), "{got:?}");
        let means = [flow(5.0 * G, &[0]), flow(5.0 * G, &[0]), flow(10.0 * G, &[0]), flow(10.0 * G, &[0])];
        assert!(close(&water_fill(&[10.0 * G], &means), &[2.5 * G; 4]));
        // Run for 190 ms: it ends 10 ms into the pair's fifth off-period. All four send
        // for 5 × 20 ms (2.5 each); the steady two alone for 4 × 20 + 10 ms (5 each).
        let got = water_fill_over_time(&[10.0 * G], &flows, 190 * MS);
        let pair = 100.0 * 2.5 / 190.0 * G;
        let steady = (100.0 * 2.5 + 90.0 * 5.0) / 190.0 * G;
        assert!(close(&got, &[pair, pair, steady, steady]), "{got:?}");
    }

    /// Roeck 2007 test 1's window: a flow that sends from 10 to 90 ms of a 100 ms run,
    /// alone on its link, is due 80 % of its rate on average; a second flow on the same
    /// 10 Gbit/s link, always on at 10 Gbit/s, gets all of it outside that window and
    /// half of it inside.
    #[test]
    fn a_flow_active_for_part_of_the_run_is_due_that_part() {
        let part = Load::Steady { rate: 4.0 * G, from: 10 * MS, to: 90 * MS };
        assert_eq!(part.on_time(0, 100 * MS), 80 * MS);
        let flows = [TimedDemand { load: part, resources: vec![0] }];
        assert!(close(&water_fill_over_time(&[10.0 * G], &flows, 100 * MS), &[3.2 * G]));
        let always = Load::Steady { rate: 10.0 * G, from: 0, to: 100 * MS };
        let flows = [
            TimedDemand { load: part, resources: vec![0] },
            TimedDemand { load: always, resources: vec![0] },
        ];
        // Inside: 5 each (the first asks 4: it gets 4, the other 6). Outside: 10.
        let got = water_fill_over_time(&[10.0 * G], &flows, 100 * MS);
        assert!(close(&got, &[3.2 * G, (0.2 * 10.0 + 0.8 * 6.0) * G]), "{got:?}");
    }

    /// The last change inside the run: a start, a stop, or the end of an on/off source's
    /// switching; none for a load on throughout, and the end for one still switching.
    #[test]
    fn settled_is_the_last_change_inside_the_run() {
        let end = 100 * MS;
        let steady = |from, to| Load::Steady { rate: G, from, to };
        assert_eq!(steady(0, end).settled(end), 0);
        assert_eq!(steady(10 * MS, end).settled(end), 10 * MS);
        assert_eq!(steady(10 * MS, 60 * MS).settled(end), 60 * MS);
        let on_off = |to| Load::OnOff { rate: G, from: 5 * MS, to, on: MS, off: MS };
        assert_eq!(on_off(end).settled(end), end);
        assert_eq!(on_off(40 * MS).settled(end), 40 * MS);
        let never_off = Load::OnOff { rate: G, from: 5 * MS, to: end, on: MS, off: 0 };
        assert_eq!(never_off.settled(end), 5 * MS);
    }

    /// 1200 flows starting 1 µs apart over 1.2 ms of a 100 ms run: more changes than
    /// [`MAX_PHASES`], so 1000 equal phases, of which all but the first 13 repeat. The
    /// average is that of every phase filled on its own.
    #[test]
    fn phases_past_the_last_change_repeat_the_one_before() {
        let (end, us) = (100 * MS, 1_000_000);
        let flows: Vec<TimedDemand> = (1..=1200)
            .map(|k| TimedDemand {
                load: Load::Steady { rate: 0.01 * G, from: k * us, to: end },
                resources: vec![0],
            })
            .collect();
        let caps = [10.0 * G];
        let got = water_fill_over_time(&caps, &flows, end);
        let mut want = vec![0.0; flows.len()];
        for k in 0..MAX_PHASES as u64 {
            let (a, b) = (end * k / MAX_PHASES as u64, end * (k + 1) / MAX_PHASES as u64);
            let len = (b - a) as f64;
            let problem: Vec<Demand> = flows
                .iter()
                .map(|f| flow(f.load.rate() * f.load.on_time(a, b) as f64 / len, &f.resources))
                .collect();
            for (w, r) in want.iter_mut().zip(water_fill(&caps, &problem)) {
                *w += r * len / end as f64;
            }
        }
        assert!(close(&got, &want), "{:?} != {:?}", &got[..4], &want[..4]);
        // The bottleneck is full once 1000 flows send: the first ones get less than asked.
        assert!(got[0] < 0.01 * G && got[0] > 0.008 * G, "{}", got[0]);
    }

    /// With more changes of load than [`MAX_PHASES`], equal phases with each flow's mean
    /// rate in them: two 10 Gbit/s sources switching together every 1 µs over 100 ms
    /// (10^5 changes) on one 10 Gbit/s link ask 5 Gbit/s each on average in every phase
    /// and get it (a queue smooths microsecond bursts), where exact phases would give 5
    /// each while on and nothing while off: 2.5.
    #[test]
    fn many_changes_fall_back_to_equal_phases() {
        let us: Time = 1_000_000;
        let fast = Load::OnOff { rate: 10.0 * G, from: 0, to: 100 * MS, on: us, off: us };
        assert_eq!(fast.on_time(0, 100 * MS), 50 * MS);
        // On [0, 1), off [1, 2), on [2, 3) µs: from 0.5 to 3 µs, 0.5 + 1 µs on.
        assert_eq!(fast.on_time(us / 2, 3 * us), 3 * us / 2);
        let flows: Vec<TimedDemand> =
            (0..2).map(|_| TimedDemand { load: fast, resources: vec![0] }).collect();
        let got = water_fill_over_time(&[10.0 * G], &flows, 100 * MS);
        assert!(close(&got, &[5.0 * G, 5.0 * G]), "{got:?}");
    }
}
