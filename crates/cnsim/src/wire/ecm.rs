//! ECM's backward congestion notification (BCN) message.

/// A BCN message (reference §4.1): the queue offset and change at the sample, in pages,
/// signed and saturating at 16 bits like the 802.1Qau CNM's cnmQOffset and cnmQDelta,
/// the CP that sent it, and the severe-congestion bit (BCN(0,0)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Bcn {
    /// Q − Qeq, pages.
    pub(crate) qoff: i16,
    /// Q − Qold, pages.
    pub(crate) qdelta: i16,
    /// Congestion point identifier (the CP's port id + 1).
    pub(crate) cpid: u32,
    /// Severe congestion: Q ≥ Qsc. Qoff and Qdelta are 0.
    pub(crate) severe: bool,
}
