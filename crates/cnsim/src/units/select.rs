//! Selections as scenarios write them: which egress ports (`"switches"`, `"all"`,
//! `"none"` or port names) and which hosts or traffic entries (a name, a glob pattern, or
//! a list) a table applies to. Protocol tables at every layer, queue disciplines
//! included, name them as field types; the scenario builder resolves them against the
//! network.

use std::fmt;

use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::{Deserialize, Serialize, Serializer};

/// Source hosts: a name, a glob pattern ("s*", "h?"), or a list of names.
#[derive(Clone, Debug, PartialEq)]
pub struct HostSel(pub Vec<String>);

impl Serialize for HostSel {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.0.len() == 1 {
            s.serialize_str(&self.0[0])
        } else {
            self.0.serialize(s)
        }
    }
}

impl<'de> Deserialize<'de> for HostSel {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = HostSel;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                write!(f, "a host name, a pattern such as \"s*\", or a list of host names")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<HostSel, E> {
                Ok(HostSel(vec![s.to_string()]))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<HostSel, A::Error> {
                let mut out = Vec::new();
                while let Some(s) = seq.next_element::<String>()? {
                    out.push(s);
                }
                Ok(HostSel(out))
            }
        }
        d.deserialize_any(V)
    }
}

/// Which egress queues a protocol applies to.
#[derive(Clone, Debug, PartialEq)]
pub enum PortSel {
    /// Every switch egress port.
    Switches,
    /// Every port, hosts included.
    All,
    /// None.
    None,
    /// The named ports ("node->next").
    List(Vec<String>),
}

impl Serialize for PortSel {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            PortSel::Switches => s.serialize_str("switches"),
            PortSel::All => s.serialize_str("all"),
            PortSel::None => s.serialize_str("none"),
            PortSel::List(l) => l.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for PortSel {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = PortSel;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                write!(f, "\"switches\", \"all\", \"none\" or a list of ports like [\"r1->r2\"]")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<PortSel, E> {
                match s {
                    "switches" => Ok(PortSel::Switches),
                    "all" => Ok(PortSel::All),
                    "none" => Ok(PortSel::None),
                    _ => Err(E::custom(format!(
                        "\"{s}\" is not a port selection; expected \"switches\", \"all\", \"none\" or a list of ports like [\"r1->r2\"]"
                    ))),
                }
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<PortSel, A::Error> {
                let mut out = Vec::new();
                while let Some(s) = seq.next_element::<String>()? {
                    out.push(s);
                }
                Ok(PortSel::List(out))
            }
        }
        d.deserialize_any(V)
    }
}

impl PortSel {
    /// Every switch port (a serde default).
    pub fn switches() -> Self {
        PortSel::Switches
    }
}
