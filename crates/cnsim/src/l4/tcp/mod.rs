//! TCP at segment level, after ns-2's one-way agents (reference l3-tcp.md §5): the
//! Reno and NewReno sender ([`sender`]) with RFC 3168 ECN, MECN or DCTCP ([`dctcp`]),
//! the retransmission timeout with its minimum, backoff and optional clock tick
//! ([`rto`]), and the cumulative-ACK sink ([`receiver`]).
//!
//! A connection ([`config::Connection`]) is a traffic entry of `kind = "tcp"`: its
//! segments are frames of the flow, through the flow's rate limiter (a QCN reaction
//! point drives it from beneath: TCP sees the delay, not a loss), and its ACKs are frames
//! from the destination back to the source; the data path drives it from
//! `sim/tcp.rs`.

pub mod cc;
pub mod config;
pub mod dctcp;
pub mod receiver;
pub mod report;
pub mod rto;
pub mod sender;

pub use config::{Connection, MecnParams, TcpParams};
pub use report::{DctcpSummary, TcpSummary};

pub use crate::wire::tcp::{Ack, Segment};
pub use receiver::{Echo, Receiver};
pub use rto::{Rto, RtoParams};
pub use sender::{CwndAction, Sender, SenderParams, Variant};
