//! Transport protocols, each a module in its own vocabulary:
//! - [`tcp`]: TCP Reno and NewReno as ns-2's one-way agents implement them, and DCTCP;
//! - [`dcqcn`]: RoCEv2's DCQCN (its switch marking, receiving and sending NICs).

pub mod dcqcn;
pub mod tcp;
