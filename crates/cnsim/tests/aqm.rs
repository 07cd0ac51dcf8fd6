//! Queue disciplines on hand-computed examples.

use cnsim::scenario::{build, parse};

/// h1 sends a burst of 20 frames of 1500 B at 10 Gbit/s (one per 1.2 µs) into a
/// 100 Mbit/s port (one frame per 120 µs): the first goes straight to the wire, frame k
/// (k ≥ 1) finds k − 1 frames waiting behind it. Returns the frames marked with K = 5.
fn burst(ecn: bool, occupancy: &str) -> u64 {
    let text = format!(
        r#"
name = "ecn-burst"
duration = "10ms"
[topology]
nodes = [{{ name = "h1", kind = "host" }}, {{ name = "sw", kind = "switch" }}, {{ name = "r", kind = "host" }}]
links = [
  {{ from = "h1", to = "sw", rate = "10Gbps", delay = "1us" }},
  {{ from = "sw", to = "r", rate = "100Mbps", delay = "1us" }},
]
[queues]
capacity = "100 frames"
occupancy = "{occupancy}"
[[traffic]]
name = "f"
kind = "cbr"
from = "h1"
to = "r"
rate = "10Gbps"
stop = "23.9us"
ecn = {ecn}
[protocols.ecn_threshold]
k = "5 frames"
"#
    );
    let s = parse(&text, "t.toml", &[]).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = build(&s, "t.toml").unwrap_or_else(|e| panic!("{e}"));
    sim.run_to_end();
    sim.check_conservation().unwrap();
    assert_eq!(sim.flows()[0].stats.delivered_frames, 20);
    let p = sim.net().port_by_name("sw->r").unwrap();
    sim.queue_stats(p).map(|q| q.marked_frames).sum()
}

#[test]
fn ecn_threshold_marks_arrivals_that_find_more_than_k() {
    // Counting the buffer (the frame on the wire too), frame k finds k frames: frames
    // 6..19 find more than 5, 14 marks.
    assert_eq!(burst(true, "buffer"), 14);
    // Counting waiting frames only, frame k finds k − 1: frames 7..19, 13 marks.
    assert_eq!(burst(true, "waiting"), 13);
    assert_eq!(burst(false, "buffer"), 0, "frames that are not ECN-capable are never marked");
}
