//! The max-min fair allocation computed from a scenario's routes, link rates and host
//! service rates: Roeck 2007 tests 7 and 8 (their stated fair shares) and an
//! output-generated hotspot.

use cnsim::metrics::maxmin;
use cnsim::scenario::{build, bundled, parse};

const G: f64 = 1e9;

/// (flow name, fair rate in Gbit/s) of a scenario, without running it.
fn fair(text: &str, name: &str) -> Vec<(String, Option<f64>)> {
    let s = parse(text, name, &[]).unwrap_or_else(|e| panic!("{e}"));
    let sim = build(&s, name).unwrap_or_else(|e| panic!("{e}"));
    sim.flows().iter().zip(maxmin::of_sim(&sim)).map(|(f, r)| (f.name.clone(), r.map(|r| r / G))).collect()
}

fn assert_fair(got: &[(String, Option<f64>)], want: &[(&str, f64)]) {
    assert_eq!(got.len(), want.len(), "{got:?}");
    for ((name, rate), (w_name, w_rate)) in got.iter().zip(want) {
        assert_eq!(name, w_name);
        let rate = rate.unwrap_or_else(|| panic!("{name} has no fair rate"));
        // The flows start within the first 10 µs of the run: their fair rates, averaged
        // over it, are those of the stated allocation within 0.1 %.
        assert!((rate - w_rate).abs() < 1e-3 * w_rate, "{name}: {rate} Gbit/s, expected {w_rate}");
    }
}

#[test]
fn roeck_test_7_gives_2_5_to_the_hotspot_and_7_5_to_the_light_flow() {
    let got = fair(bundled::get("roeck2007-test7").unwrap(), "roeck2007-test7");
    assert_fair(
        &got,
        &[("hot/n1", 2.5), ("hot/n4", 2.5), ("hot/n5", 2.5), ("hot/n7", 2.5), ("light/n2", 7.5)],
    );
}

/// Test 3 (our reconstruction of its wiring): node 7's 2 Gbit/s split over the four
/// culprits, and every victim its 7 Gbit/s, the seed's stated allocation.
#[test]
fn roeck_test_3_gives_0_5_to_the_culprits_and_7_to_the_victims() {
    let got = fair(bundled::get("roeck2007-test3").unwrap(), "roeck2007-test3");
    assert_fair(
        &got,
        &[
            ("culprit/n1", 0.5),
            ("culprit/n4", 0.5),
            ("culprit/n8", 0.5),
            ("culprit/n9", 0.5),
            ("victim-n2/n2", 7.0),
            ("victim-n5/n5", 7.0),
            ("victim-n10/n10", 7.0),
        ],
    );
}

#[test]
fn roeck_test_8_gives_2_5_into_switch_2_and_7_5_to_the_local_flow() {
    let got = fair(bundled::get("roeck2007-test8").unwrap(), "roeck2007-test8");
    assert_fair(
        &got,
        &[("hot/n1", 2.5), ("hot/n4", 7.5), ("n2-n4/n2", 2.5), ("n3-n5/n3", 2.5), ("n6-n7/n6", 2.5)],
    );
}

/// Three 5 Gbit/s senders into a host that serves 1.5 Gbit/s: the host, not its
/// 10 Gbit/s link, is the bottleneck, so each gets 0.5; a fourth flow to another host
/// keeps its 2 Gbit/s. A multicast flow has no single fair rate.
#[test]
fn a_host_service_rate_is_a_bottleneck() {
    let text = r#"
name = "hotspot"
duration = "1ms"
[topology.star]
hosts = ["a", "b", "c", "r", "other"]
link = { rate = "10Gbps", delay = "1us" }
[groups]
g = ["r", "other"]
[[traffic]]
name = "hot"
kind = "cbr"
from = ["a", "b", "c"]
to = "r"
rate = "5Gbps"
[[traffic]]
name = "cold"
kind = "cbr"
from = "a"
to = "other"
rate = "2Gbps"
[[traffic]]
name = "mc"
kind = "cbr"
from = "b"
to = "g"
rate = "1Mbps"
[protocols.pause]
[[protocols.pause.hosts]]
hosts = "r"
service_rate = "1.5Gbps"
input_buffer = "100 frames"
"#;
    let got = fair(text, "hotspot");
    assert_fair(&got[..4], &[("hot/a", 0.5), ("hot/b", 0.5), ("hot/c", 0.5), ("cold/a", 2.0)]);
    assert_eq!(got[4], ("mc/b".to_string(), None));
}

/// A sequential run works its fair shares out before it starts (`Finished::fair`): they
/// equal those of the finished simulator, bit for bit, in every bundled scenario (flows
/// that arrive during the run, as workload flows do, have none either way).
#[test]
fn fair_shares_worked_out_before_a_run_equal_those_after_it() {
    let bits = |rates: &[Option<f64>]| rates.iter().map(|r| r.map(f64::to_bits)).collect::<Vec<_>>();
    let mut some = 0;
    for name in bundled::names() {
        let keys = ["duration=300us".to_string()];
        let s = parse(bundled::get(name).unwrap(), name, &keys).unwrap_or_else(|e| panic!("{name}: {e}"));
        let done = cnsim::run::simulate(&s, name, &mut |_| true).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(bits(&done.fair), bits(&maxmin::of_sim(&done.sim)), "{name}");
        some += done.fair.iter().filter(|r| r.is_some()).count();
    }
    assert!(some > 100, "only {some} flows had fair shares");
}
