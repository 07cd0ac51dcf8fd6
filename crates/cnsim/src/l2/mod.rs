//! Layer-2 protocols, each a module with its own vocabulary, plugged into the data path
//! through the seams of [`crate::protocol`]:
//! - [`qcn`]: IEEE 802.1Qau QCN (a congestion point and a reaction point), with the
//!   multicast schemes of Mliki et al. 2016;
//! - [`ecm`]: ECM (BCN), and [`e2cm`]: its E2CM-P and E2CM-PR variants;
//! - [`fecn`]: FECN (and FECN-B) with rate-discovery probes;
//! - [`probing`]: the probes and rate guidance of Roeck 2007's "-P" and "-PR" variants;
//! - [`pause`]: IEEE 802.3x PAUSE and 802.1Qbb PFC (link control), and hosts that drain
//!   their input at a service rate.

pub mod e2cm;
pub mod ecm;
pub mod fecn;
pub mod pause;
pub mod probing;
pub mod qcn;
