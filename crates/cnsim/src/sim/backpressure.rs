//! Back-pressure at the source host: a saturated source makes no frame its host's port
//! cannot take.
//!
//! A NIC is back-pressured by its own transmit queue (and, through it, by PAUSE): an
//! application that always has data hands the NIC a frame only when the queue of the
//! frame's class has room for it. A saturated source whose next frame would not fit
//! waits, without a timer, in a FIFO of its port and class; each frame that leaves that
//! queue for the wire wakes the source at the head, which then sends as its rate limiter
//! allows. Sources of one host thus take the room in turn, round robin, as the port
//! frees it, instead of the first to draw winning and the others losing frames at
//! their own queue. When the queue empties, every source waiting on the port is woken.
//!
//! Only saturated sources are back-pressured: a CBR, on/off or Poisson source models an
//! application with its own timing, and what its host cannot send is lost at the host.

use std::collections::{HashMap, VecDeque};

use super::Sim;
use crate::engine::Time;
use crate::net::{PortId, NONE};
use crate::protocol::AnyLinkControl;

/// The saturated sources waiting for room, per port and class, in the order they began
/// to wait.
#[derive(Clone, Debug, Default)]
pub(super) struct RoomWaiters {
    waiting: HashMap<(PortId, u8), VecDeque<u32>>,
}

impl Sim {
    /// The port flow `f`'s frames leave its host by, when it has one whatever the
    /// frame: the host's only port, or the first hop of its one destination. `NONE`
    /// for a source whose frames may leave by several ports (then it is not
    /// back-pressured).
    pub(super) fn egress_of(&self, f: u32) -> u32 {
        let flow = &self.flows[f as usize];
        let ports = &self.net.nodes[flow.src as usize].ports;
        match (ports.as_slice(), &flow.dst) {
            ([p], _) => *p,
            (_, crate::traffic::Destination::Host(dst)) => self.routes.next_port(flow.src, *dst, f),
            _ => NONE,
        }
    }

    /// Whether port `p` takes a frame of `size` bytes at `priority` now: it would go
    /// straight onto an idle wire, or its class queue has room (as drop-tail judges
    /// room, under the port's occupancy convention). Not while the transmitter is due to
    /// take its next frame at this very instant: a source offering one then waits for
    /// the transmitter to choose first, and is woken by it (else the source whose
    /// release comes first at that instant would take every slot the port frees).
    pub(super) fn port_takes(&self, p: PortId, priority: u8, size: u32, now: Time) -> bool {
        let port = &self.net.ports[p as usize];
        if port.wake_pending && port.busy_until == now && port.classes.backlog() > 0 {
            return false;
        }
        let class = port.classes.class_of(priority);
        let straight = port.classes.backlog() == 0
            && port.busy_until <= now
            && !port.control_waiting()
            && AnyLinkControl::gate_open(&self.protocols.link, port.link, class, now);
        straight || {
            let on_wire = port.classes.on_wire(class, port.busy_until > now);
            port.classes.queue(class).view(false, on_wire).admits(size)
        }
    }

    /// Whether port `p` takes a saturated source's next frame, at `priority`, `size`
    /// bytes: as [`Sim::port_takes`]; for a queue pair (`qp` not `NONE`) only when
    /// nothing waits in its class queue besides. A NIC schedules its queue pairs' packets
    /// as the link frees (the HPCC fork's `QbbNetDevice::DequeueAndTransmit`), so they
    /// never fill the host's queue, and the acknowledgements and CNPs the host sends meet
    /// at most one data packet.
    pub(super) fn source_takes(&self, qp: u32, p: PortId, priority: u8, size: u32, now: Time) -> bool {
        let classes = &self.net.ports[p as usize].classes;
        (qp == NONE || classes.queue(classes.class_of(priority)).is_empty())
            && self.port_takes(p, priority, size, now)
    }

    /// Saturated flow `f` waits for room at port `p`: its shaper stays idle, without a
    /// timer, until a frame leaves the queue of its class.
    pub(super) fn wait_for_room(&mut self, f: u32, p: PortId) {
        let flow = &mut self.flows[f as usize];
        let port = &mut self.net.ports[p as usize];
        let class = port.classes.class_of(flow.priority);
        port.sources_wait = true;
        flow.shaper.as_mut().expect("a saturated flow has a shaper").idle();
        self.room.waiting.entry((p, class)).or_default().push_back(f);
    }

    /// Flow `f` waits for room no longer (it is retired).
    pub(super) fn forget_waiter(&mut self, f: u32) {
        let flow = &self.flows[f as usize];
        let port = &self.net.ports[flow.egress as usize];
        let class = port.classes.class_of(flow.priority);
        if let Some(q) = self.room.waiting.get_mut(&(flow.egress, class)) {
            q.retain(|&w| w != f);
        }
    }

    /// A frame of class `class` left port `p`'s queue for the wire: the source waiting
    /// longest on that class may send; if the port has nothing left to send, every
    /// source waiting on it may.
    pub(super) fn room_freed(&mut self, p: PortId, class: u8, now: Time) {
        let empty = self.net.ports[p as usize].classes.backlog() == 0;
        let classes = self.net.ports[p as usize].classes.count();
        for c in 0..classes {
            if c != class && !empty {
                continue;
            }
            let Some(waiting) = self.room.waiting.get_mut(&(p, c)) else { continue };
            let woken: Vec<u32> =
                if empty { waiting.drain(..).collect() } else { waiting.pop_front().into_iter().collect() };
            if waiting.is_empty() {
                self.room.waiting.remove(&(p, c));
            }
            for f in woken {
                self.wake_source(f, now);
            }
        }
        if !(0..classes).any(|c| self.room.waiting.contains_key(&(p, c))) {
            self.net.ports[p as usize].sources_wait = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::PS_PER_US;

    /// Three saturated sources of one host at its 10 Gbit/s line rate, a two-frame host
    /// queue: 1500-byte frames take 1.2 µs, so 100 µs send 83 frames in all. Each
    /// freed slot goes to the source that waited longest: the three send 27 to 28 frames
    /// each, in turn, the queue never holds more than its two frames, and nothing is lost.
    #[test]
    fn sources_of_one_host_take_the_room_in_turn() {
        let text = r#"
name = "turns"
duration = "100us"
[topology.star]
hosts = ["a", "b", "c", "d"]
link = { rate = "10Gbps", delay = "1us" }
[queues]
capacity = "1000 frames"
host_capacity = "2 frames"
[[traffic]]
name = "x"
kind = "saturated"
from = "a"
to = ["b", "c", "d"]
"#;
        // One entry per destination: three flows from a.
        let text = text.replace("to = [\"b\", \"c\", \"d\"]", "to = \"b\"")
            + "[[traffic]]\nname = \"y\"\nkind = \"saturated\"\nfrom = \"a\"\nto = \"c\"\n"
            + "[[traffic]]\nname = \"z\"\nkind = \"saturated\"\nfrom = \"a\"\nto = \"d\"\n";
        let s = crate::scenario::parse(&text, "t.toml", &[]).unwrap_or_else(|e| panic!("{e}"));
        let mut sim = crate::scenario::build(&s, "t.toml").unwrap_or_else(|e| panic!("{e}"));
        sim.run_to_end();
        sim.check_conservation().unwrap();
        assert_eq!(sim.counters().dropped, 0);
        let sent: Vec<u64> = sim.flows().iter().map(|f| f.stats.sent_frames).collect();
        let total: u64 = sent.iter().sum();
        assert!((83..=86).contains(&total), "{sent:?}");
        assert!(sent.iter().all(|&n| (27..=29).contains(&n)), "{sent:?}");
        let host_port = sim.net().nodes[sim.flows()[0].src as usize].ports[0];
        let q = sim.net().ports[host_port as usize].classes.queue(0);
        assert!(q.stats.max_frames <= 2, "{}", q.stats.max_frames);
        assert_eq!(sim.end(), 100 * PS_PER_US);
    }
}
