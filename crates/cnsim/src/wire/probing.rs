//! The probes of Roeck 2007's "-P" variants and the congestion point's reply.

/// A probe on its way to the congestion point `cpid`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Probe {
    /// The congestion point asked (0 once answered).
    pub(crate) cpid: u32,
}

/// A congestion point's reply to a probe: its queue state, and under "-PR" its rate.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Reply {
    /// The answering CP.
    pub(crate) cpid: u32,
    /// Q − Qeq in the CP's unit (pages or frames), saturating.
    pub(crate) qoff: i16,
    /// Q − Qold, same unit.
    pub(crate) qdelta: i16,
    /// The CP's fair rate (suggested = maximum), kbit/s; 0 without rate guidance.
    pub(crate) rate_kbps: u32,
}
