//! Layer-2 protocols, each a module with its own vocabulary, plugged into the data path
//! through the seams of [`crate::protocol`]:
//! - [`qcn`]: IEEE 802.1Qau QCN (a congestion point and a reaction point), with the
//!   multicast schemes of Mliki et al. 2016;
//! - [`pause`]: IEEE 802.3x PAUSE and 802.1Qbb PFC (link control), and hosts that drain
//!   their input at a service rate.

pub mod ecm;
pub mod fecn;
pub mod pause;
pub mod qcn;
