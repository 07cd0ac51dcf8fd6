//! E2CM's path probe.

/// An E2CM path probe: the queueing delay gathered on the way to the destination, and
/// whether the destination has returned it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PathProbe {
    /// Sum over the ports passed of Q/C, nanoseconds (saturating).
    pub(crate) delay_ns: u32,
    /// On its way back to the source.
    pub(crate) returning: bool,
}
