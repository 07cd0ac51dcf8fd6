//! FECN's rate-discovery probe.

/// A rate-discovery probe: the smallest advertised rate on the path so far, kbit/s, and
/// whether the destination has returned it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Probe {
    /// Rate field, kbit/s.
    pub(crate) rate_kbps: u32,
    /// On its way back to the source.
    pub(crate) returning: bool,
}
