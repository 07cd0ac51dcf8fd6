//! Transport protocols, each a module in its own vocabulary, and the applications
//! over them ([`app`]):
//! - [`tcp`]: TCP Reno and NewReno as ns-2's one-way agents implement them, and DCTCP;
//! - [`dcqcn`]: RoCEv2's DCQCN (its switch marking, receiving and sending NICs);
//! - [`rdma`]: RoCEv2's reliable-connection message transfer (PSNs, ACK/NAK, go-back-N);
//! - [`hpcc`]: HPCC's sender over in-band telemetry, on RDMA queue pairs;
//! - [`timely`]: TIMELY's RTT-gradient sender, on RDMA queue pairs.

pub mod app;
pub mod dcqcn;
pub mod hpcc;
pub mod rdma;
pub mod tcp;
pub mod timely;
