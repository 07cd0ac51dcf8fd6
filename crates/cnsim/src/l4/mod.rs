//! Transport protocols, each a module in its own vocabulary:
//! - [`tcp`]: TCP Reno and NewReno as ns-2's one-way agents implement them.

pub mod tcp;
