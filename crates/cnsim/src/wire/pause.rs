//! IEEE 802.3x PAUSE and 802.1Qbb PFC frames.

/// The PAUSE / PFC frame as the receiving port reads it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PauseFrame {
    /// Priorities to pause (PFC's priority enable vector, bit p = priority p); 0xFF for
    /// an 802.3x PAUSE, which stops the whole port.
    pub priorities: u8,
    /// Pause time in quanta of 512 bit times (0 = resume).
    pub quanta: u16,
}
