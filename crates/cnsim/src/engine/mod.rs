//! The discrete-event core: simulated time, the event queue and seeded random streams.
//!
//! Everything here is protocol-agnostic. Events are plain `Copy` data
//! ([`Event`]); the run loop that interprets them lives in [`crate::sim`].

pub mod math;
pub mod queue;
pub mod rng;
pub mod time;
pub mod timer;

pub use queue::{Event, EventQueue, Ties};
pub use rng::{RngStream, StreamKey};
pub use time::{Time, PS_PER_MS, PS_PER_NS, PS_PER_S, PS_PER_US};
pub use timer::{Fired, TimerId, Timers};
