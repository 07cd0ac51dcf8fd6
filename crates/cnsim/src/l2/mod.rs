//! Layer-2 congestion management protocols.
//!
//! Each protocol is a module with its own vocabulary. The simulator calls a protocol at
//! three seams only: a data frame arriving at an egress queue (the congestion point), a
//! control frame reaching a host (the reaction point) and the bytes a rate limiter lets
//! through; protocols answer with frames to send and rates to set.

pub mod qcn;
