//! DCQCN's congestion notification packet (CNP).

/// A congestion notification packet, from a flow's receiver back to its source.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cnp;
