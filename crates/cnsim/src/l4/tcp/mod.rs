//! TCP at segment level, after ns-2's one-way agents (reference l3-tcp.md §5): the
//! Reno and NewReno sender ([`sender`]), the retransmission timeout with its minimum,
//! backoff and optional clock tick ([`rto`]), and the cumulative-ACK sink
//! ([`receiver`]).
//!
//! These are the state machines, tested on the reference's hand-worked sequences; their
//! host endpoint (segments and ACKs as frames, the QCN rate limiter beneath the sender)
//! and the incast application come next.

pub mod receiver;
pub mod rto;
pub mod sender;

pub use receiver::Receiver;
pub use rto::{Rto, RtoParams};
pub use sender::{CwndAction, Sender, SenderParams, Variant};
