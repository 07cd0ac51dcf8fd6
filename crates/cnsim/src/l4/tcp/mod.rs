//! TCP at segment level, after ns-2's one-way agents (reference l3-tcp.md §5): the
//! Reno and NewReno sender ([`sender`]), the retransmission timeout with its minimum,
//! backoff and optional clock tick ([`rto`]), and the cumulative-ACK sink
//! ([`receiver`]).
//!
//! A connection ([`config::Connection`]) is a traffic entry of `kind = "tcp"`: its
//! segments are frames of the flow, through the flow's rate limiter (a QCN reaction
//! point drives it from beneath: TCP sees the delay, not a loss), and its ACKs are frames
//! from the destination back to the source; the data path drives it from
//! `sim/tcp.rs`.

pub mod config;
pub mod receiver;
pub mod rto;
pub mod sender;

pub use config::{App, Connection, IncastGroup, TcpParams};
pub use receiver::Receiver;
pub use rto::{Rto, RtoParams};
pub use sender::{CwndAction, Sender, SenderParams, Variant};
