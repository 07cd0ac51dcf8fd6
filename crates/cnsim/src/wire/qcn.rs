//! IEEE 802.1Qau QCN's headers: the CNM, and the representative the enhanced multicast
//! schemes of Mliki et al. 2016 stamp on data frames.

/// The CNM PDU as the reaction point reads it (IEEE 802.1Qau §33.4; reference §1.8):
/// the quantized feedback and the congestion point that sent it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cnm {
    /// Quantized |Fb| (1..=63).
    pub(crate) fb: u8,
    /// Congestion point identifier (the CP's port id + 1).
    pub(crate) cpid: u32,
}

/// The representative a multicast data frame carries under the enhanced schemes of
/// Mliki et al. 2016 §3: the |Fb| its source holds and the CP that produced it (both 0
/// when the source has none, and on every frame under standard QCN).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Representative {
    /// The source's F̂b (0..=63).
    pub(crate) fb: u8,
    /// CPID of the CP that set it (0 = none).
    pub(crate) cpid: u32,
}
