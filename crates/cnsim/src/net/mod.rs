//! The network model: frames, egress queues, ports and links, nodes, and forwarding.
//!
//! The model is output-queued: a frame arriving at a switch is looked up, then placed in
//! the queue of its egress port (one copy per egress port for multicast); the port
//! serializes frames one at a time onto a full-duplex point-to-point link whose far
//! end is the ingress port of the next node.

pub mod classes;
pub mod frame;
pub mod loss;
pub mod queue;
pub mod reach;
pub mod routing;
pub mod topology;

pub use classes::{Classes, Finishing, Occupancy, Scheduler, MAX_CLASSES};
pub use frame::{Ecn, Frame, FrameArena, FrameId, Header, HeaderKind, KindCounters};
pub use loss::{LinkLoss, LossSpec};
pub use queue::{Capacity, EgressQueue, QueueStats, SharedPool};
pub use routing::{MulticastTrees, Routes, TreeId};
pub(crate) use topology::Flight;
pub use topology::{Network, Node, NodeId, NodeKind, Port, PortId, NONE};
