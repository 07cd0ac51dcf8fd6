//! DCQCN's notification point: the receiving NIC (Zhu et al. 2015 §3.2). When a
//! CE-marked packet of a flow arrives and no CNP has been sent for that flow in the
//! last N (50 µs), a CNP goes back to the flow's source at once.

use crate::engine::Time;

/// The notification point of one flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Np {
    /// N: the least time between two CNPs of the flow.
    interval: Time,
    /// A CNP's size on the wire, bytes.
    pub(crate) cnp_size: u32,
    /// A CNP's priority.
    pub(crate) cnp_priority: u8,
    /// When the last CNP was sent.
    last: Option<Time>,
    /// CNPs sent.
    pub(crate) cnps: u64,
    /// CE-marked packets received.
    pub(crate) marked: u64,
}

impl Np {
    /// A notification point that sends at most one CNP per `interval`, of `cnp_size`
    /// bytes at `cnp_priority`.
    pub fn new(interval: Time, cnp_size: u32, cnp_priority: u8) -> Self {
        Np { interval, cnp_size, cnp_priority, last: None, cnps: 0, marked: 0 }
    }

    /// A CE-marked packet of the flow arrived at `now`: whether a CNP goes back.
    pub fn on_marked(&mut self, now: Time) -> bool {
        self.marked += 1;
        if self.last.is_some_and(|t| now - t < self.interval) {
            return false;
        }
        self.last = Some(now);
        self.cnps += 1;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::PS_PER_US;

    /// Marked packets at 0, 10, 49, 50, 120 µs with N = 50 µs: CNPs at 0, 50 and 120.
    #[test]
    fn one_cnp_per_interval_while_marks_arrive() {
        let mut np = Np::new(50 * PS_PER_US, 64, 6);
        let sent: Vec<bool> = [0, 10, 49, 50, 120].iter().map(|&t| np.on_marked(t * PS_PER_US)).collect();
        assert_eq!(sent, [true, false, false, true, true]);
        assert_eq!((np.cnps, np.marked), (3, 5));
    }
}
