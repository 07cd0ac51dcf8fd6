//! Every kind of bad scenario input gets one located error: the file, the exact key path
//! and a message that quotes the bad value and says what was expected.

use cnsim::scenario::{self, ScenarioError};

const FILE: &str = "bad.toml";

/// A small valid dumbbell: s1, s2 -> r1 -> r2 -> d1.
const DUMBBELL: &str = r#"
name = "t"
duration = "1ms"

[topology.dumbbell]
senders = 2
sender_link = { rate = "10Gbps", delay = "1us" }
bottleneck = { rate = "10Gbps", delay = "1us" }
receiver_link = { rate = "10Gbps", delay = "1us" }

[[traffic]]
name = "a"
kind = "cbr"
from = "s1"
to = "d1"
rate = "1Gbps"
"#;

/// A small valid explicit topology: src - sw - dst.
const EXPLICIT: &str = r#"
name = "t"
duration = "1ms"

[[topology.nodes]]
name = "src"
kind = "host"

[[topology.nodes]]
name = "sw"
kind = "switch"

[[topology.nodes]]
name = "dst"
kind = "host"

[[topology.links]]
from = "src"
to = "sw"
rate = "10Gbps"
delay = "1us"

[[topology.links]]
from = "sw"
to = "dst"
rate = "10Gbps"
delay = "1us"

[[traffic]]
name = "a"
kind = "cbr"
from = "src"
to = "dst"
rate = "1Gbps"
"#;

/// A QCN-enabled dumbbell; the `[protocols.qcn.*]` tables are appended by the tests.
fn with_qcn(extra: &str) -> String {
    format!("{DUMBBELL}\n[protocols.qcn]\ncongestion_points = [\"r1->r2\"]\nflows = \"*\"\n{extra}")
}

/// `base` with `from` replaced by `to` (which must occur exactly once).
fn edit(base: &str, from: &str, to: &str) -> String {
    assert_eq!(base.matches(from).count(), 1, "{from:?} must occur once");
    base.replace(from, to)
}

/// Parses and builds `text`; the error of whichever step fails.
fn error_of(text: &str, overrides: &[&str]) -> ScenarioError {
    let overrides: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    let s = match scenario::parse(text, FILE, &overrides) {
        Ok(s) => s,
        Err(e) => return e,
    };
    match scenario::build(&s, FILE) {
        Ok(_) => panic!("expected an error, but the scenario built:\n{text}"),
        Err(e) => e,
    }
}

/// Asserts the error is in `file` at exactly `path` and its message contains every one
/// of `parts` (the bad value, what was expected). `SHOW_ERRORS=1` prints every error, to
/// review the messages as a user sees them.
fn assert_error(e: &ScenarioError, file: &str, path: &str, parts: &[&str]) {
    if std::env::var_os("SHOW_ERRORS").is_some() {
        eprintln!("ERR {e}");
    }
    assert_eq!(e.file, file, "file of: {e}");
    assert_eq!(e.path, path, "path of: {e}");
    for p in parts {
        assert!(e.message.contains(p), "message of `{e}` lacks {p:?}");
    }
}

fn assert_located(e: &ScenarioError, path: &str, parts: &[&str]) {
    assert_error(e, FILE, path, parts);
}

#[test]
fn the_fixtures_are_valid() {
    for text in [DUMBBELL, EXPLICIT, with_qcn("").as_str()] {
        let s = scenario::parse(text, FILE, &[]).unwrap_or_else(|e| panic!("{e}"));
        if let Err(e) = scenario::build(&s, FILE) {
            panic!("{e}");
        }
    }
}

// ---- keys and values the parser rejects ----------------------------------------------

#[test]
fn unknown_top_level_key_suggests_the_closest() {
    let e = error_of(&edit(DUMBBELL, "duration =", "duraton ="), &[]);
    assert_located(
        &e,
        "duraton",
        &["unknown key \"duraton\"", "did you mean \"duration\"?", "expected one of"],
    );
}

#[test]
fn unknown_nested_key_suggests_the_closest() {
    let e = error_of(&edit(DUMBBELL, "sender_link =", "sender_lnk ="), &[]);
    assert_located(
        &e,
        "topology.dumbbell.sender_lnk",
        &["unknown key \"sender_lnk\"", "did you mean \"sender_link\"?", "expected one of"],
    );
}

#[test]
fn unknown_enum_value_suggests_the_closest() {
    let e = error_of(&with_qcn("[protocols.qcn.cp]\nsampling = \"per_frame\"\n"), &[]);
    assert_located(
        &e,
        "protocols.qcn.cp.sampling",
        &[
            "unknown value \"per_frame\"",
            "did you mean \"per-frame\"?",
            "expected one of \"standard\", \"per-frame\"",
        ],
    );
}

#[test]
fn unknown_traffic_kind() {
    let e = error_of(&edit(DUMBBELL, "kind = \"cbr\"", "kind = \"cbrr\""), &[]);
    assert_located(
        &e,
        "traffic[0].kind",
        &["unknown value \"cbrr\"", "did you mean \"cbr\"?", "expected one of"],
    );
}

#[test]
fn wrong_rate_unit_on_an_explicit_link() {
    let text = edit(EXPLICIT, "to = \"dst\"\nrate = \"10Gbps\"", "to = \"dst\"\nrate = \"10Gbs\"");
    let e = error_of(&text, &[]);
    assert_located(&e, "topology.links[1].rate", &["\"10Gbs\" is not a rate, expected e.g. \"10Gbps\""]);
}

#[test]
fn rate_without_unit() {
    let e = error_of(&edit(DUMBBELL, "rate = \"1Gbps\"", "rate = 1"), &[]);
    assert_located(&e, "traffic[0].rate", &["1 has no unit", "expected a rate with a unit, e.g. \"10Gbps\""]);
}

#[test]
fn time_without_unit() {
    let text = edit(
        DUMBBELL,
        "bottleneck = { rate = \"10Gbps\", delay = \"1us\" }",
        "bottleneck = { rate = \"10Gbps\", delay = 5 }",
    );
    let e = error_of(&text, &[]);
    assert_located(
        &e,
        "topology.dumbbell.bottleneck.delay",
        &["5 has no unit", "expected a time with a unit"],
    );
}

#[test]
fn fractional_time_without_unit() {
    let e = error_of(&edit(DUMBBELL, "duration = \"1ms\"", "duration = 1.5"), &[]);
    assert_located(&e, "duration", &["1.5 has no unit", "expected a time with a unit"]);
}

#[test]
fn size_without_unit() {
    let e = error_of(&format!("{DUMBBELL}\n[queues]\ncapacity = 100\n"), &[]);
    assert_located(
        &e,
        "queues.capacity",
        &["100 has no unit", "expected a size with a unit, e.g. \"100B\" or \"100 frames\""],
    );
}

#[test]
fn size_with_an_unknown_unit() {
    let e = error_of(&format!("{DUMBBELL}\n[queues]\ncapacity = \"12 parsecs\"\n"), &[]);
    assert_located(&e, "queues.capacity", &["\"12 parsecs\" is not a size", "expected e.g. \"150KB\""]);
}

#[test]
fn zero_rate() {
    let e = error_of(&edit(DUMBBELL, "rate = \"1Gbps\"", "rate = \"0Gbps\""), &[]);
    assert_located(&e, "traffic[0].rate", &["\"0Gbps\" is zero", "expected a positive rate"]);
}

#[test]
fn negative_rate() {
    let e = error_of(&edit(DUMBBELL, "rate = \"1Gbps\"", "rate = \"-1Gbps\""), &[]);
    assert_located(&e, "traffic[0].rate", &["\"-1Gbps\" is negative", "expected a positive rate"]);
}

#[test]
fn negative_rate_without_unit() {
    let text = edit(DUMBBELL, "sender_link = { rate = \"10Gbps\"", "sender_link = { rate = -10");
    let e = error_of(&text, &[]);
    assert_located(
        &e,
        "topology.dumbbell.sender_link.rate",
        &["-10 has no unit", "expected a rate with a unit"],
    );
}

#[test]
fn negative_time() {
    let e = error_of(&edit(DUMBBELL, "duration = \"1ms\"", "duration = \"-3ms\""), &[]);
    assert_located(&e, "duration", &["\"-3ms\" is negative", "expected a time of zero or more"]);
}

#[test]
fn negative_count() {
    let e = error_of(&edit(DUMBBELL, "senders = 2", "senders = -2"), &[]);
    assert_located(&e, "topology.dumbbell.senders", &["-2", "expected a whole number from 0 to 4294967295"]);
}

#[test]
fn wrong_type() {
    let e = error_of(&edit(DUMBBELL, "senders = 2", "senders = \"two\""), &[]);
    assert_located(
        &e,
        "topology.dumbbell.senders",
        &["\"two\"", "expected a whole number from 0 to 4294967295"],
    );
}

#[test]
fn time_beyond_one_day() {
    let e = error_of(&edit(DUMBBELL, "duration = \"1ms\"", "duration = \"100000s\""), &[]);
    assert_located(&e, "duration", &["\"100000s\" is too long a time", "expected at most 86400s"]);
}

#[test]
fn zero_duration() {
    let e = error_of(&edit(DUMBBELL, "duration = \"1ms\"", "duration = \"0s\""), &[]);
    assert_located(&e, "duration", &["\"0s\" is not a duration", "expected a positive time"]);
}

#[test]
fn reversed_start_range() {
    let text =
        edit(DUMBBELL, "rate = \"1Gbps\"\n", "rate = \"1Gbps\"\nstart = { uniform = [\"10us\", \"1us\"] }\n");
    let e = error_of(&text, &[]);
    assert_located(&e, "traffic[0].start", &["[\"10us\", \"1us\"] is reversed", "expected [low, high]"]);
}

// ---- missing keys --------------------------------------------------------------------

#[test]
fn missing_duration() {
    let e = error_of(&edit(DUMBBELL, "duration = \"1ms\"\n", ""), &[]);
    assert_located(
        &e,
        "duration",
        &["missing required key \"duration\"", "expected a time, e.g. duration = \"10ms\""],
    );
}

#[test]
fn missing_nested_key() {
    let text = edit(
        DUMBBELL,
        "bottleneck = { rate = \"10Gbps\", delay = \"1us\" }",
        "bottleneck = { rate = \"10Gbps\" }",
    );
    let e = error_of(&text, &[]);
    assert_located(
        &e,
        "topology.dumbbell.bottleneck.delay",
        &["missing required key \"delay\"", "expected a time"],
    );
}

#[test]
fn missing_traffic_kind() {
    let e = error_of(&edit(DUMBBELL, "kind = \"cbr\"\n", ""), &[]);
    assert_located(&e, "traffic[0].kind", &["missing required key \"kind\"", "expected one of \"cbr\""]);
}

#[test]
fn cbr_source_without_rate() {
    let e = error_of(&edit(DUMBBELL, "rate = \"1Gbps\"\n", ""), &[]);
    assert_located(
        &e,
        "traffic[0].rate",
        &["missing required key \"rate\"", "a cbr source needs a rate, e.g. rate = \"1Gbps\""],
    );
}

#[test]
fn onoff_source_without_off_period() {
    let text = edit(DUMBBELL, "kind = \"cbr\"", "kind = \"onoff\"\non = \"1us\"");
    let e = error_of(&text, &[]);
    assert_located(
        &e,
        "traffic[0].off",
        &["missing required key \"off\"", "an onoff source needs an off-period, e.g. off = \"20ms\""],
    );
}

#[test]
fn no_topology_at_all() {
    let e = error_of("name = \"t\"\nduration = \"1ms\"\n[topology]\n", &[]);
    assert_located(&e, "topology", &["no nodes", "expected a generator"]);
}

// ---- names that must exist -----------------------------------------------------------

#[test]
fn link_to_a_missing_node() {
    let text = edit(EXPLICIT, "from = \"sw\"\nto = \"dst\"", "from = \"sw\"\nto = \"dts\"");
    let e = error_of(&text, &[]);
    assert_located(&e, "topology.links[1].to", &["no node named \"dts\"", "did you mean \"dst\"?"]);
}

#[test]
fn link_to_a_missing_node_without_a_close_name() {
    let text = edit(EXPLICIT, "from = \"sw\"\nto = \"dst\"", "from = \"zzzzzz\"\nto = \"dst\"");
    let e = error_of(&text, &[]);
    assert_located(
        &e,
        "topology.links[1].from",
        &["no node named \"zzzzzz\"", "expected one of \"src\", \"sw\", \"dst\""],
    );
}

#[test]
fn link_from_a_node_to_itself() {
    let text = edit(EXPLICIT, "from = \"sw\"\nto = \"dst\"", "from = \"sw\"\nto = \"sw\"");
    let e = error_of(&text, &[]);
    assert_located(
        &e,
        "topology.links[1].to",
        &["link from \"sw\" to itself", "expected a link between two different nodes"],
    );
}

#[test]
fn duplicate_explicit_node_names() {
    let text = edit(EXPLICIT, "name = \"dst\"\nkind = \"host\"", "name = \"sw\"\nkind = \"host\"");
    let e = error_of(&text, &[]);
    assert_located(
        &e,
        "topology.nodes[2].name",
        &[
            "duplicate node name \"sw\"",
            "already defined at topology.nodes[1].name",
            "expected unique node names",
        ],
    );
}

#[test]
fn duplicate_generated_node_names() {
    let e = error_of(&edit(DUMBBELL, "senders = 2\n", "senders = 2\nleft = \"d1\"\n"), &[]);
    assert_located(
        &e,
        "topology.dumbbell.receiver_prefix",
        &["duplicate node name \"d1\"", "already defined at topology.dumbbell.left"],
    );
}

#[test]
fn explicit_node_named_like_a_generated_one() {
    let text = format!("{DUMBBELL}\n[[topology.nodes]]\nname = \"s2\"\nkind = \"host\"\n");
    let e = error_of(&text, &[]);
    assert_located(
        &e,
        "topology.nodes[0].name",
        &["duplicate node name \"s2\"", "already defined at topology.dumbbell.sender_prefix"],
    );
}

#[test]
fn unusable_node_name_in_a_star() {
    let text = r#"
name = "t"
duration = "1ms"
[topology.star]
hosts = ["h1", "h 2"]
link = { rate = "1Gbps", delay = "1us" }
"#;
    let e = error_of(text, &[]);
    assert_located(
        &e,
        "topology.star.hosts[1]",
        &["\"h 2\" is not a usable node name", "expected a non-empty name"],
    );
}

#[test]
fn queue_override_for_an_unknown_port() {
    let text = format!("{DUMBBELL}\n[queues]\nports = [{{ port = \"r1->r3\", capacity = \"10 frames\" }}]\n");
    let e = error_of(&text, &[]);
    assert_located(&e, "queues.ports[0].port", &["no port named \"r1->r3\"", "did you mean \"r1->r2\"?"]);
}

#[test]
fn queue_override_for_a_port_without_close_name() {
    let text = format!("{DUMBBELL}\n[queues]\nports = [{{ port = \"x\", capacity = \"10 frames\" }}]\n");
    let e = error_of(&text, &[]);
    assert_located(
        &e,
        "queues.ports[0].port",
        &["no port named \"x\"", "expected a port named \"node->next\", e.g. \"r1->r2\""],
    );
}

#[test]
fn group_member_that_does_not_exist() {
    let text = format!("{DUMBBELL}\n[groups]\nG = [\"d1\", \"d9\"]\n");
    let e = error_of(&text, &[]);
    assert_located(&e, "groups.G[1]", &["no node named \"d9\"", "did you mean \"d1\"?"]);
}

#[test]
fn group_member_that_is_a_switch() {
    let text = format!("{DUMBBELL}\n[groups]\nG = [\"d1\", \"r2\"]\n");
    let e = error_of(&text, &[]);
    assert_located(&e, "groups.G[1]", &["\"r2\" is a switch", "expected a host"]);
}

#[test]
fn group_without_members() {
    let text = format!("{DUMBBELL}\n[groups]\nG = []\n");
    let e = error_of(&text, &[]);
    assert_located(&e, "groups.G", &["no members", "expected a list of host names"]);
}

#[test]
fn more_than_one_topology_generator() {
    let text = format!(
        "{DUMBBELL}\n[topology.star]\nhosts = [\"a\"]\nlink = {{ rate = \"1Gbps\", delay = \"1us\" }}\n"
    );
    let e = error_of(&text, &[]);
    assert_located(
        &e,
        "topology.dumbbell",
        &["more than one topology generator (star, dumbbell)", "expected at most one"],
    );
}

#[test]
fn topology_too_large_to_route() {
    let e = error_of(&edit(DUMBBELL, "senders = 2", "senders = 4000000000"), &[]);
    assert_located(
        &e,
        "topology.dumbbell.senders",
        &["senders = 4000000000 gives a topology of 4000000003 nodes", "expected at most 1000000 nodes"],
    );
}

#[test]
fn chain_too_large_to_route() {
    let text = r#"
name = "t"
duration = "1ms"
[topology.chain]
switches = 4294967295
hosts_per_switch = 4294967295
host_link = { rate = "1Gbps", delay = "1us" }
trunk = { rate = "1Gbps", delay = "1us" }
"#;
    let e = error_of(text, &[]);
    assert_located(
        &e,
        "topology.chain.switches",
        &["switches = 4294967295 gives a topology of", "expected at most"],
    );
}

// ---- traffic -------------------------------------------------------------------------

#[test]
fn destination_in_another_component() {
    // src - sw   and   dst - sw2: two components.
    let text = edit(
        EXPLICIT,
        "[[topology.links]]\nfrom = \"sw\"\nto = \"dst\"",
        "[[topology.nodes]]\nname = \"sw2\"\nkind = \"switch\"\n\n\
         [[topology.links]]\nfrom = \"sw2\"\nto = \"dst\"",
    );
    let e = error_of(&text, &[]);
    assert_located(
        &e,
        "traffic[0].to",
        &["\"dst\" is not reachable from \"src\"", "disconnected", "expected a host connected to the source"],
    );
}

#[test]
fn destination_that_does_not_exist() {
    let e = error_of(&edit(DUMBBELL, "to = \"d1\"", "to = \"d2\""), &[]);
    assert_located(
        &e,
        "traffic[0].to",
        &["\"d2\" is not a host, a group or \"uniform\"", "did you mean \"d1\"?"],
    );
}

#[test]
fn destination_that_is_a_switch() {
    let e = error_of(&edit(DUMBBELL, "to = \"d1\"", "to = \"r1\""), &[]);
    assert_located(&e, "traffic[0].to", &["\"r1\" is a switch", "expected a host, a group or \"uniform\""]);
}

#[test]
fn source_that_is_a_switch() {
    let e = error_of(&edit(DUMBBELL, "from = \"s1\"", "from = \"r2\""), &[]);
    assert_located(&e, "traffic[0].from", &["\"r2\" is a switch", "expected a host"]);
}

#[test]
fn source_that_sends_to_itself() {
    let e = error_of(&edit(DUMBBELL, "from = \"s1\"", "from = \"d1\""), &[]);
    assert_located(
        &e,
        "traffic[0].to",
        &["\"d1\" sends to itself", "expected a destination other than the source"],
    );
}

#[test]
fn glob_that_matches_nothing() {
    let e = error_of(&edit(DUMBBELL, "from = \"s1\"", "from = \"x*\""), &[]);
    assert_located(
        &e,
        "traffic[0].from",
        &[
            "pattern \"x*\" matches no host",
            "expected a pattern matching at least one of the hosts \"s1\", \"s2\", \"d1\"",
        ],
    );
}

#[test]
fn glob_in_a_list_that_matches_nothing() {
    let e = error_of(&edit(DUMBBELL, "from = \"s1\"", "from = [\"s1\", \"q?\"]"), &[]);
    assert_located(&e, "traffic[0].from[1]", &["pattern \"q?\" matches no host"]);
}

#[test]
fn flow_defined_twice() {
    let e = error_of(&edit(DUMBBELL, "from = \"s1\"", "from = [\"s1\", \"s1\"]"), &[]);
    assert_located(
        &e,
        "traffic[0].name",
        &["flow \"a/s1\" is defined twice", "expected each source host once per traffic entry"],
    );
}

#[test]
fn frame_size_in_frames() {
    let text = edit(DUMBBELL, "rate = \"1Gbps\"\n", "rate = \"1Gbps\"\nframe_size = \"2 frames\"\n");
    let e = error_of(&text, &[]);
    assert_located(
        &e,
        "traffic[0].frame_size",
        &["\"2 frames\" is not a frame size", "expected a positive size in bytes"],
    );
}

/// Ethernet frames are 64 to 9216 bytes unless the entry allows any size.
#[test]
fn frame_size_outside_ethernet() {
    for size in ["63B", "9217B"] {
        let text =
            edit(DUMBBELL, "rate = \"1Gbps\"\n", &format!("rate = \"1Gbps\"\nframe_size = \"{size}\"\n"));
        let e = error_of(&text, &[]);
        assert_located(
            &e,
            "traffic[0].frame_size",
            &[
                &format!("\"{size}\" is outside Ethernet's frame sizes"),
                "expected 64 to 9216 bytes",
                "allow_any_frame_size = true",
            ],
        );
    }
    let text = edit(
        DUMBBELL,
        "rate = \"1Gbps\"\n",
        "rate = \"1Gbps\"\nframe_size = \"32B\"\nallow_any_frame_size = true\n",
    );
    assert!(cnsim::scenario::parse(&text, "t.toml", &[])
        .and_then(|s| cnsim::scenario::build(&s, "t.toml").map(|_| ()))
        .is_ok());
}

#[test]
fn frame_too_large_for_the_slowest_link() {
    let text = edit(DUMBBELL, "bottleneck = { rate = \"10Gbps\"", "bottleneck = { rate = \"1bps\"");
    let text = edit(
        &text,
        "rate = \"1Gbps\"\n",
        "rate = \"1Gbps\"\nframe_size = \"4GB\"\nallow_any_frame_size = true\n",
    );
    let e = error_of(&text, &[]);
    assert_located(
        &e,
        "traffic[0].frame_size",
        &[
            "\"4000MB\" frames take 32000000000s each at 1bps (topology.dumbbell.bottleneck.rate)",
            "expected frames that take at most 86400s",
        ],
    );
}

#[test]
fn saturated_source_with_a_rate() {
    let e = error_of(&edit(DUMBBELL, "kind = \"cbr\"", "kind = \"saturated\""), &[]);
    assert_located(
        &e,
        "traffic[0].rate",
        &[
            "rate = \"1Gbps\" given, but a saturated source has no rate of its own",
            "expected no rate (use rate_limit to cap it)",
        ],
    );
}

/// Regression: `periods` on a CBR source was accepted and ignored; it is onoff's key.
#[test]
fn periods_belong_to_onoff_sources() {
    let e = error_of(&edit(DUMBBELL, "kind = \"cbr\"", "kind = \"cbr\"\nperiods = \"exponential\""), &[]);
    assert_located(
        &e,
        "traffic[0].periods",
        &["\"periods\" is not a key of a cbr source; it belongs to kind = \"onoff\""],
    );
}

/// CBR jitter is a fraction of the frame gap, and only CBR sources have it.
#[test]
fn cbr_jitter_is_a_fraction_of_a_cbr_source() {
    let e = error_of(&edit(DUMBBELL, "kind = \"cbr\"", "kind = \"cbr\"\njitter = 1.5"), &[]);
    assert_located(&e, "traffic[0].jitter", &["1.5 is not a jitter", "from 0 to 1"]);
    let e = error_of(&edit(DUMBBELL, "kind = \"cbr\"", "kind = \"poisson\"\njitter = 0.5"), &[]);
    assert_located(&e, "traffic[0].jitter", &["not a key of a poisson source; it belongs to kind = \"cbr\""]);
}

/// Each kind reads its own keys: an on-period on a CBR source is refused, not ignored.
#[test]
fn a_key_of_another_kind() {
    let e = error_of(&edit(DUMBBELL, "kind = \"cbr\"", "kind = \"cbr\"\non = \"1ms\""), &[]);
    assert_located(
        &e,
        "traffic[0].on",
        &["\"on\" is not a key of a cbr source; it belongs to kind = \"onoff\""],
    );
    let e = error_of(&edit(DUMBBELL, "kind = \"cbr\"", "kind = \"onoff\"\non = \"1ms\""), &[]);
    assert_located(&e, "traffic[0].off", &["missing required key \"off\"", "e.g. off = \"20ms\""]);
}

#[test]
fn sampling_interval_too_fine() {
    let text = format!("{DUMBBELL}\n[metrics]\ninterval = \"1ps\"\n");
    let e = error_of(&text, &[]);
    assert_located(
        &e,
        "metrics.interval",
        &[
            "\"1ps\" gives 1000000000 samples over the duration \"1ms\"",
            "expected at most 10000000 samples",
            "at least \"100ps\"",
        ],
    );
    // Finer than the old one-million cap: 2 million 10 ns samples of one queue.
    let text = format!("{DUMBBELL}\n[metrics]\ninterval = \"10ns\"\nqueues = [\"r1->r2\"]\n");
    let s = scenario::parse(&text.replace("duration = \"1ms\"", "duration = \"20ms\""), FILE, &[]).unwrap();
    assert!(scenario::build(&s, FILE).is_ok());
}

#[test]
fn unknown_queue_in_metrics() {
    let text = format!("{DUMBBELL}\n[metrics]\nqueues = [\"r2->r1\", \"r2->d2\"]\n");
    let e = error_of(&text, &[]);
    assert_located(&e, "metrics.queues[1]", &["no port named \"r2->d2\"", "did you mean \"r2->d1\"?"]);
}

// ---- TOML syntax ---------------------------------------------------------------------

#[test]
fn invalid_toml_names_the_line() {
    // Line 16 of the text (it starts with a newline) holds the unquoted rate.
    let text = edit(DUMBBELL, "rate = \"1Gbps\"", "rate = 1Gbps");
    assert_eq!(text.lines().position(|l| l == "rate = 1Gbps"), Some(15), "fixture changed");
    let e = error_of(&text, &[]);
    assert_located(
        &e,
        "",
        &[
            "not valid TOML at line 16, column 9",
            "`rate = 1Gbps`",
            "values with units are strings: expected rate = \"1Gbps\"",
        ],
    );
}

#[test]
fn invalid_toml_after_multibyte_text() {
    let text = edit(DUMBBELL, "name = \"t\"", "name = \"tµ\"\nµ = ");
    let e = error_of(&text, &[]);
    assert_located(&e, "", &["not valid TOML at line 3", "`µ =`"]);
}

#[test]
fn duplicate_toml_key() {
    let text = edit(DUMBBELL, "duration = \"1ms\"", "duration = \"1ms\"\nduration = \"2ms\"");
    let e = error_of(&text, &[]);
    assert_located(
        &e,
        "",
        &["not valid TOML at line 4", "duplicate key `duration`", "expected each key once"],
    );
}

// ---- --set overrides -----------------------------------------------------------------

#[test]
fn override_index_out_of_range() {
    let e = error_of(DUMBBELL, &["traffic[3].rate=2Gbps"]);
    assert_error(
        &e,
        "--set",
        "traffic[3].rate",
        &["traffic[3].rate=2Gbps: index [3] is out of range", "expected index [0]: the list has 1 entry"],
    );
}

#[test]
fn override_without_equals_sign() {
    let e = error_of(DUMBBELL, &["duration"]);
    assert_error(&e, "--set", "", &["\"duration\" is not an override", "expected key.path=value"]);
}

#[test]
fn override_with_a_malformed_key_path() {
    let e = error_of(DUMBBELL, &["traffic[x].rate=1Gbps"]);
    assert_error(&e, "--set", "traffic[x].rate", &["\"traffic[x].rate\" is not a key path", "expected e.g."]);
}

#[test]
fn override_through_a_value_that_is_not_a_table() {
    let e = error_of(DUMBBELL, &["duration.x=1"]);
    assert_error(&e, "--set", "duration.x", &["cannot set \"x\", its parent is not a table", "expected"]);
}

#[test]
/// The value came from `--set`, not from the file: the error names `--set`.
fn override_with_a_bad_value_is_reported_at_the_key() {
    let e = error_of(DUMBBELL, &["traffic[0].rate=10Gbs"]);
    assert_error(&e, "--set", "traffic[0].rate", &["\"10Gbs\" is not a rate, expected e.g. \"10Gbps\""]);
    // A bad value the file itself holds still names the file.
    let e = error_of(&DUMBBELL.replacen("rate = \"1Gbps\"", "rate = \"1Gbs\"", 1), &["duration=5ms"]);
    assert_eq!(e.file, FILE, "{e}");
}

#[test]
fn override_with_an_unknown_key() {
    let e = error_of(DUMBBELL, &["topology.dumbbell.sendrs=3"]);
    assert_error(
        &e,
        "--set",
        "topology.dumbbell.sendrs",
        &["unknown key \"sendrs\"", "did you mean \"senders\"?"],
    );
}

// ---- QCN parameters ------------------------------------------------------------------

#[test]
fn qcn_zero_set_point() {
    let e = error_of(&with_qcn("[protocols.qcn.cp]\nqeq = \"0 frames\"\n"), &[]);
    assert_located(&e, "protocols.qcn.cp.qeq", &["\"0 frames\" is zero", "expected a positive set point"]);
}

#[test]
fn qcn_decrease_gain_too_large() {
    let e = error_of(&with_qcn("[protocols.qcn.rp]\ngd = 0.5\n"), &[]);
    assert_located(&e, "protocols.qcn.rp.gd", &["0.5 is out of range", "expected 0 < Gd ≤ 1/63"]);
}

#[test]
fn qcn_reversed_jitter() {
    let e = error_of(&with_qcn("[protocols.qcn.cp]\njitter = [1.15, 0.85]\n"), &[]);
    assert_located(
        &e,
        "protocols.qcn.cp.jitter",
        &["[1.15, 0.85] is reversed", "expected [low, high] with 0 < low ≤ high"],
    );
}

#[test]
fn qcn_jitter_too_wide() {
    let e = error_of(&with_qcn("[protocols.qcn.rp]\njitter = [1.0, 1e300]\n"), &[]);
    assert_located(&e, "protocols.qcn.rp.jitter", &["[1.0, 1e300] is out of range", "high ≤ 10"]);
}

#[test]
fn qcn_jitter_of_the_wrong_length() {
    let e = error_of(&with_qcn("[protocols.qcn.rp]\njitter = [0.9, 1.0, 1.1]\n"), &[]);
    assert_located(&e, "protocols.qcn.rp.jitter", &["invalid length 3", "expected fewer elements"]);
}

#[test]
fn qcn_negative_weight() {
    let e = error_of(&with_qcn("[protocols.qcn.cp]\nw = -1.0\n"), &[]);
    assert_located(
        &e,
        "protocols.qcn.cp.w",
        &["-1.0 is not a weight", "expected a non-negative finite number"],
    );
}

#[test]
fn qcn_zero_timer() {
    let e = error_of(&with_qcn("[protocols.qcn.rp]\ntimer = \"0ms\"\n"), &[]);
    assert_located(
        &e,
        "protocols.qcn.rp.timer",
        &["\"0s\" is not a timer period", "expected a positive time"],
    );
}

#[test]
fn qcn_unknown_congestion_point() {
    let text = edit(&with_qcn(""), "congestion_points = [\"r1->r2\"]", "congestion_points = [\"r1->r9\"]");
    let e = error_of(&text, &[]);
    assert_located(
        &e,
        "protocols.qcn.congestion_points[0]",
        &["no port named \"r1->r9\"", "did you mean \"r1->r2\"?"],
    );
}

#[test]
fn qcn_bad_port_selection_word() {
    let text = edit(&with_qcn(""), "congestion_points = [\"r1->r2\"]", "congestion_points = \"everything\"");
    let e = error_of(&text, &[]);
    assert_located(
        &e,
        "protocols.qcn.congestion_points",
        &["\"everything\" is not a port selection", "expected \"switches\", \"all\", \"none\""],
    );
}

// ---- files ---------------------------------------------------------------------------

#[test]
fn missing_file_suggests_a_bundled_scenario() {
    let e = match scenario::load("dumbbell-cbr-46", &[]) {
        Ok(_) => panic!("loaded a scenario that does not exist"),
        Err(e) => e,
    };
    assert_error(
        &e,
        "dumbbell-cbr-46",
        "",
        &["no such file or bundled scenario", "did you mean the bundled scenario \"dumbbell-cbr-64\"?"],
    );
}

#[test]
fn qcn_without_flows_is_not_switched_on_everywhere() {
    let text = format!("{DUMBBELL}\n[protocols.qcn]\ncongestion_points = \"switches\"\n");
    let e = error_of(&text, &[]);
    assert_located(&e, "protocols.qcn.flows", &["missing required key"]);
    // One key set on the command line does not switch QCN on either.
    let e = error_of(DUMBBELL, &["protocols.qcn.cp.w=4.0"]);
    assert!(e.path.starts_with("protocols.qcn"), "{e}");
}

#[test]
fn qcn_flows_must_name_traffic() {
    let text = edit(&with_qcn(""), "flows = \"*\"", "flows = [\"nope\"]");
    let e = error_of(&text, &[]);
    assert_located(&e, "protocols.qcn.flows", &["\"nope\" names no traffic entry"]);
}

#[test]
fn pause_xon_must_be_below_xoff() {
    let text = format!(
        "{DUMBBELL}\n[protocols.pause]\n[protocols.pause.switches]\nxoff = \"10 frames\"\nxon = \"10 frames\"\n"
    );
    let e = error_of(&text, &[]);
    assert_located(&e, "protocols.pause.switches.xon", &["\"10 frames\" is not below xoff"]);
}

#[test]
fn pause_host_must_exist_and_fit_its_buffer() {
    let host = "[[protocols.pause.hosts]]\nhosts = \"nobody\"\nservice_rate = \"1Gbps\"\ninput_buffer = \"10 frames\"\n";
    let e = error_of(&format!("{DUMBBELL}\n[protocols.pause]\n{host}"), &[]);
    assert_located(&e, "protocols.pause.hosts[0].hosts", &["\"nobody\" matches no host"]);
    let host = "[[protocols.pause.hosts]]\nhosts = \"d1\"\nservice_rate = \"1Gbps\"\ninput_buffer = \"10 frames\"\nxoff = \"20 frames\"\nxon = \"5 frames\"\n";
    let e = error_of(&format!("{DUMBBELL}\n[protocols.pause]\n{host}"), &[]);
    assert_located(&e, "protocols.pause.hosts[0].xoff", &["does not fit the input buffer"]);
}

#[test]
fn priorities_and_classes_are_range_checked() {
    let e = error_of(DUMBBELL, &["traffic[0].priority=8"]);
    assert_located(&e, "traffic[0].priority", &["8 is not a priority", "0 to 7"]);
    let e = error_of(DUMBBELL, &["queues.classes=9"]);
    assert_located(&e, "queues.classes", &["9 classes", "1 to 8"]);
    let e = error_of(DUMBBELL, &["queues.classes=2", "queues.scheduler=\"dwrr\"", "queues.weights=[1]"]);
    assert_located(&e, "queues.weights", &["2 positive weights"]);
}

#[test]
fn generator_rules_are_located_at_the_generator_key() {
    let text = r#"
name = "t"
duration = "1ms"
[topology.chain]
switches = 0
hosts_per_switch = 2
host_link = { rate = "10Gbps", delay = "1us" }
trunk = { rate = "10Gbps", delay = "1us" }
"#;
    let e = error_of(text, &[]);
    assert_located(&e, "topology.chain.switches", &["0 switches", "expected at least 1"]);
}

/// An ECM-enabled dumbbell; the `[protocols.ecm.*]` tables are appended by the tests.
fn with_ecm(extra: &str) -> String {
    format!("{DUMBBELL}\n[protocols.ecm]\ncongestion_points = [\"r1->r2\"]\nflows = \"*\"\n{extra}")
}

#[test]
fn ecm_fixture_is_valid() {
    let s = scenario::parse(&with_ecm(""), FILE, &[]).unwrap_or_else(|e| panic!("{e}"));
    scenario::build(&s, FILE).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn ecm_severe_threshold_below_the_set_point() {
    let e = error_of(&with_ecm("[protocols.ecm.cp]\nqsc = 300.0\n"), &[]);
    assert_located(
        &e,
        "protocols.ecm.cp.qsc",
        &["300.0 is not above qeq (375.0)", "expected a severe threshold"],
    );
}

#[test]
fn ecm_decrease_gain_that_would_cut_below_zero() {
    let e = error_of(&with_ecm("[protocols.ecm.rp]\ngd = 0.001\n"), &[]);
    assert_located(
        &e,
        "protocols.ecm.rp.gd",
        &["largest |Fb| (qeq·(2w+1) = 1875)", "expected Gd ≤ 0.00053333"],
    );
}

#[test]
fn ecm_and_qcn_on_one_port() {
    let text = format!("{}\n[protocols.qcn]\ncongestion_points = [\"r1->r2\"]\nflows = []\n", with_ecm(""));
    let e = error_of(&text, &[]);
    assert_located(&e, "protocols.ecm.congestion_points", &["port r1->r2 already has a congestion point"]);
}

/// A FECN-enabled dumbbell with two traffic classes (the default probes, at priority 7,
/// pass the data's class); the `[protocols.fecn.*]` tables are appended by the tests.
fn with_fecn(extra: &str) -> String {
    with_fecn_classes(2, extra)
}

fn with_fecn_classes(classes: u8, extra: &str) -> String {
    format!(
        "{DUMBBELL}\n[queues]\nclasses = {classes}\n\
         [protocols.fecn]\ncongestion_points = [\"r1->r2\"]\nflows = \"*\"\n{extra}"
    )
}

#[test]
fn fecn_high_priority_probes_need_a_second_class() {
    let e = error_of(&with_fecn_classes(1, ""), &[]);
    assert_located(
        &e,
        "protocols.fecn.probe_class",
        &[
            "priority 7",
            "queues.classes = 1",
            "expected queues.classes = 2 or more, or probe_class = \"data\"",
        ],
    );
    // In the data's class, one class will do.
    let s = scenario::parse(&with_fecn_classes(1, "probe_class = \"data\"\n"), FILE, &[]).unwrap();
    scenario::build(&s, FILE).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn fecn_probe_priority_in_the_data_class() {
    // With two classes priorities 0-3 share class 0 with the data (priority 0).
    let e = error_of(&with_fecn("probe_priority = 3\n"), &[]);
    assert_located(&e, "protocols.fecn.probe_priority", &["3 selects class 0", "not above class 0"]);
    let e = error_of(&with_fecn("probe_class = \"data\"\nprobe_priority = 7\n"), &[]);
    assert_located(&e, "protocols.fecn.probe_priority", &["no effect with probe_class = \"data\""]);
}

#[test]
fn fecn_fixture_is_valid() {
    let s = scenario::parse(&with_fecn(""), FILE, &[]).unwrap_or_else(|e| panic!("{e}"));
    scenario::build(&s, FILE).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn fecn_queue_control_out_of_range() {
    let e = error_of(&with_fecn("[protocols.fecn.switch]\na = 0.9\n"), &[]);
    assert_located(&e, "protocols.fecn.switch.a", &["0.9 is out of range", "expected A > 1"]);
}

#[test]
fn fecn_set_point_in_frames() {
    let e = error_of(&with_fecn("[protocols.fecn.switch]\nqeq = \"16 frames\"\n"), &[]);
    assert_located(&e, "protocols.fecn.switch.qeq", &["\"16 frames\" is in frames", "expected bytes"]);
}

#[test]
fn fecn_zero_period() {
    let e = error_of(&with_fecn("t = \"0s\"\n"), &[]);
    assert_located(&e, "protocols.fecn.t", &["\"0s\" is not a period"]);
}

#[test]
fn ecm_on_a_flow_qcn_already_regulates() {
    let text = format!(
        "{DUMBBELL}\n[protocols.qcn]\ncongestion_points = \"none\"\nflows = \"*\"\n\
         [protocols.ecm]\ncongestion_points = \"none\"\nflows = \"*\"\n"
    );
    let e = error_of(&text, &[]);
    assert_located(
        &e,
        "protocols.ecm.flows",
        &["already has a reaction point", "expected one protocol per flow"],
    );
}

#[test]
fn fecn_b_bcn_smaller_than_a_frame() {
    let e = error_of(&with_fecn("[protocols.fecn.severe]\nbcn_size = \"20B\"\n"), &[]);
    assert_located(&e, "protocols.fecn.severe.bcn_size", &["\"20B\" is out of range", "at least 64 bytes"]);
}

#[test]
fn fecn_b_decrease_of_one() {
    let e = error_of(&with_fecn("[protocols.fecn.source]\nsevere_decrease = 1.0\n"), &[]);
    assert_located(&e, "protocols.fecn.source.severe_decrease", &["1.0 is out of range", "(0, 1)"]);
}

/// An E2CM-enabled dumbbell; the `[protocols.e2cm.*]` tables are appended by the tests.
fn with_e2cm(extra: &str) -> String {
    format!("{DUMBBELL}\n[protocols.e2cm]\ncongestion_points = [\"r1->r2\"]\nflows = \"*\"\n{extra}")
}

#[test]
fn e2cm_fixture_is_valid() {
    let s = scenario::parse(&with_e2cm("[protocols.e2cm.guidance]\n"), FILE, &[])
        .unwrap_or_else(|e| panic!("{e}"));
    scenario::build(&s, FILE).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn e2cm_probe_interval_in_frames() {
    let e = error_of(&with_e2cm("[protocols.e2cm.probes]\ninterval = \"10 frames\"\n"), &[]);
    assert_located(&e, "protocols.e2cm.probes.interval", &["\"10 frames\" is not a probe interval", "bytes"]);
}

#[test]
fn e2cm_guidance_weight_out_of_range() {
    let e = error_of(&with_e2cm("[protocols.e2cm.guidance]\nswitch_rate_weight = 1.5\n"), &[]);
    assert_located(&e, "protocols.e2cm.guidance.switch_rate_weight", &["1.5 is not a weight", "(0, 1]"]);
}

#[test]
fn e2cm_shares_ecm_rules() {
    let e = error_of(&with_e2cm("[protocols.e2cm.rp]\ngd = 0.001\n"), &[]);
    assert_located(&e, "protocols.e2cm.rp.gd", &["would cut a rate below zero"]);
}

#[test]
fn qcn_base_probability_out_of_range() {
    let e =
        error_of(&with_qcn("[protocols.qcn.cp]\nsampling = \"probability\"\nbase_probability = 0.5\n"), &[]);
    assert_located(&e, "protocols.qcn.cp.base_probability", &["0.5 is not a base probability", "(0, 0.1]"]);
}

#[test]
fn qcn_drift_factor_below_one() {
    let e = error_of(&with_qcn("[protocols.qcn.rp]\ndrift_factor = 0.99\n"), &[]);
    assert_located(&e, "protocols.qcn.rp.drift_factor", &["0.99 is not a drift factor", "≥ 1"]);
}

#[test]
fn qcn_probe_priority_out_of_range() {
    let e = error_of(&with_qcn("[protocols.qcn.rp.probes]\npriority = 9\n"), &[]);
    assert_located(&e, "protocols.qcn.rp.probes.priority", &["9 is not a priority"]);
}

#[test]
fn e2cm_guidance_with_path_probes() {
    let e = error_of(&with_e2cm("probe_to = \"destination\"\n[protocols.e2cm.guidance]\n"), &[]);
    assert_located(&e, "protocols.e2cm.guidance", &["probe_to = \"destination\"", "E2CM-PR"]);
}

/// The dumbbell with its CBR entry made a TCP connection (no rate).
fn with_tcp(extra: &str) -> String {
    edit(
        DUMBBELL,
        "kind = \"cbr\"\nfrom = \"s1\"\nto = \"d1\"\nrate = \"1Gbps\"",
        &format!("kind = \"tcp\"\nfrom = \"s1\"\nto = \"d1\"\n{extra}"),
    )
}

#[test]
fn tcp_fixture_is_valid() {
    let s = scenario::parse(&with_tcp("bytes = \"1MB\""), FILE, &[]).unwrap_or_else(|e| panic!("{e}"));
    scenario::build(&s, FILE).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn tcp_source_with_a_rate() {
    let e = error_of(&edit(DUMBBELL, "kind = \"cbr\"", "kind = \"tcp\""), &[]);
    assert_located(&e, "traffic[0].rate", &["a tcp source has no rate of its own", "expected no rate"]);
}

#[test]
fn tcp_to_every_host() {
    let e = error_of(&with_tcp("").replace("to = \"d1\"", "to = \"uniform\""), &[]);
    assert_located(&e, "traffic[0].to", &["\"uniform\" is not one host", "expected the one host"]);
}

#[test]
fn tcp_keys_on_a_cbr_source() {
    let e = error_of(&edit(DUMBBELL, "kind = \"cbr\"", "kind = \"cbr\"\nbytes = \"1MB\""), &[]);
    assert_located(
        &e,
        "traffic[0].bytes",
        &["\"bytes\" is not a key of a cbr source; it belongs to kind = \"tcp\""],
    );
}

#[test]
fn tcp_header_as_big_as_the_segment() {
    let e = error_of(&with_tcp("frame_size = \"64B\"\ntcp = { header = \"64B\" }"), &[]);
    assert_located(
        &e,
        "traffic[0].tcp.header",
        &["leaves no data in a 64-byte segment", "expected a header smaller"],
    );
}

#[test]
fn tcp_unknown_variant() {
    let e = error_of(&with_tcp("tcp = { variant = \"cubic\" }"), &[]);
    assert_located(&e, "traffic[0].tcp.variant", &["\"cubic\"", "reno"]);
}

#[test]
fn tcp_max_rto_below_min_rto() {
    let e = error_of(&with_tcp("tcp = { min_rto = \"1s\", max_rto = \"100ms\" }"), &[]);
    assert_located(
        &e,
        "traffic[0].tcp.max_rto",
        &["is below min_rto", "expected a maximum at or above the minimum"],
    );
}

#[test]
fn sru_with_bytes() {
    let e = error_of(&with_tcp("bytes = \"1MB\"\nsru = \"256KB\""), &[]);
    assert_located(&e, "traffic[0].sru", &["\"sru\" given with \"bytes\"", "expected one of them"]);
}

#[test]
fn sru_on_a_cbr_source() {
    let e = error_of(&edit(DUMBBELL, "kind = \"cbr\"", "kind = \"cbr\"\nsru = \"256KB\""), &[]);
    assert_located(
        &e,
        "traffic[0].sru",
        &["\"sru\" is not a key of a cbr source; it belongs to kind = \"tcp\""],
    );
}

/// Regression: a rate floor above the line rate passed `validate` and then panicked in a
/// `clamp` at the first rate change (FECN's switch and source, QCN's guided increase).
/// It is refused at the key, naming the flow or port and its rate.
#[test]
fn rate_floors_above_the_line_rate() {
    let cases = [
        (with_fecn("[protocols.fecn.switch]\nmin_rate = \"20Gbps\"\n"), "protocols.fecn.switch.min_rate", "port r1->r2 (10Gbps)"),
        (with_fecn("[protocols.fecn.source]\nmin_rate = \"11Gbps\"\n"), "protocols.fecn.source.min_rate", "flow a/s1 (10Gbps)"),
        (with_qcn("[protocols.qcn.rp]\nmin_rate = \"20Gbps\"\n"), "protocols.qcn.rp.min_rate", "flow a/s1 (10Gbps)"),
        (
            format!("{DUMBBELL}\n[protocols.ecm]\ncongestion_points = [\"r1->r2\"]\nflows = \"*\"\n[protocols.ecm.rp]\nrmin = \"12Gbps\"\n"),
            "protocols.ecm.rp.rmin",
            "flow a/s1 (10Gbps)",
        ),
        (
            format!("{DUMBBELL}\n[protocols.e2cm]\ncongestion_points = [\"r1->r2\"]\nflows = \"*\"\n[protocols.e2cm.rp]\nrmin = \"12Gbps\"\n"),
            "protocols.e2cm.rp.rmin",
            "flow a/s1 (10Gbps)",
        ),
    ];
    for (text, path, names) in cases {
        let e = error_of(&text, &[]);
        assert_located(&e, path, &["is above the", names, "expected a rate floor at most"]);
    }
    // At the line rate it is accepted.
    let s =
        scenario::parse(&with_fecn("[protocols.fecn.switch]\nmin_rate = \"10Gbps\"\n"), FILE, &[]).unwrap();
    scenario::build(&s, FILE).unwrap_or_else(|e| panic!("{e}"));
}

/// Regression: periodic protocol timers took any period, and "1ps" ran practically
/// forever (10^9 probes in a millisecond). Each period is refused where it is set once
/// its firings over the run, all flows together, pass 10^8.
#[test]
fn periodic_timers_are_bounded() {
    let e = error_of(&with_fecn("t = \"1ps\"\n"), &[]);
    assert_located(
        &e,
        "protocols.fecn.t",
        &[
            "\"1ps\" gives 1000000000 probes over the duration \"1ms\"",
            "expected at most 100000000 probes, i.e. a period of at least \"10ps\"",
        ],
    );
    // Half the period after fast recovery, and a jitter down to 0.85 by default.
    let e = error_of(&with_qcn("[protocols.qcn.rp]\ntimer = \"20ps\"\n"), &[]);
    assert_located(
        &e,
        "protocols.qcn.rp.timer",
        &[
            "\"20ps\" gives 125000000 timer expiries",
            "(1 reaction point × 125000000, one every 8ps at the shortest)",
            "expected at most 100000000 timer expiries, i.e. a period of at least \"24ps\"",
        ],
    );
    let e = error_of(&with_ecm("[protocols.ecm.rp]\ntd = \"1ps\"\n"), &[]);
    assert_located(&e, "protocols.ecm.rp.td", &["gives 1000000000 drift timer expiries"]);
    let e = error_of(&with_e2cm("[protocols.e2cm.rp]\ntd = \"1ps\"\n"), &[]);
    assert_located(&e, "protocols.e2cm.rp.td", &["gives 1000000000 drift timer expiries"]);
    // Without drift there is no drift timer to bound.
    let text = with_ecm("[protocols.ecm.rp]\ntd = \"1ps\"\ndrift = false\n");
    let s = scenario::parse(&text, FILE, &[]).unwrap_or_else(|e| panic!("{e}"));
    scenario::build(&s, FILE).unwrap_or_else(|e| panic!("{e}"));
    // Periods the limit allows build.
    for text in [with_fecn("t = \"10ps\"\n"), with_qcn("[protocols.qcn.rp]\ntimer = \"24ps\"\n")] {
        let s = scenario::parse(&text, FILE, &[]).unwrap_or_else(|e| panic!("{e}"));
        scenario::build(&s, FILE).unwrap_or_else(|e| panic!("{e}"));
    }
}

/// Link loss: a probability in [0, 1] or a Gilbert–Elliott table of probabilities, each
/// refused at its own key.
#[test]
fn link_loss_out_of_range() {
    let e = error_of(&format!("{DUMBBELL}\n[queues]\nloss = 1.5\n"), &[]);
    assert_located(&e, "queues.loss", &["1.5 is not a probability", "expected a number in [0, 1]"]);
    let e = error_of(
        &format!("{DUMBBELL}\n[queues]\nports = [{{ port = \"r1->r2\", loss = {{ good_to_bad = 0.1, bad_to_good = -1 }} }}]\n"),
        &[],
    );
    assert_located(&e, "queues.ports[0].loss.bad_to_good", &["-1.0 is not a probability"]);
    let e = error_of(&format!("{DUMBBELL}\n[queues]\nloss = \"1%\"\n"), &[]);
    assert_located(&e, "queues.loss", &["expected a probability such as 0.001"]);
    let e = error_of(&format!("{DUMBBELL}\n[queues]\nloss = {{ good_to_bad = 0.1 }}\n"), &[]);
    assert_located(&e, "queues.loss.bad_to_good", &["missing required key \"bad_to_good\""]);
    let e = error_of(&format!("{DUMBBELL}\n[queues]\nports = [{{ port = \"r9->r2\", loss = 0.1 }}]\n"), &[]);
    assert_located(&e, "queues.ports[0].port", &["r9->r2"]);
}

/// The warnings of a valid scenario, as "key path: message".
fn warnings_of(text: &str, overrides: &[&str]) -> Vec<String> {
    let overrides: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    let s = scenario::parse(text, FILE, &overrides).unwrap_or_else(|e| panic!("{e}"));
    let sim = scenario::build(&s, FILE).unwrap_or_else(|e| panic!("{e}"));
    scenario::warnings(&s, &sim, FILE).iter().map(|w| format!("{}: {}", w.path, w.message)).collect()
}

/// A priority with one class per port selects nothing (a 9 Gbit/s priority-7 flow
/// beside a 10 Gbit/s one would lose most of its frames without a word).
#[test]
fn a_priority_without_classes_is_a_warning() {
    let w = warnings_of(DUMBBELL, &["traffic[0].priority=7"]);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].starts_with("traffic[0].priority: 7 has no effect") && w[0].contains("queues.classes"));
    assert!(warnings_of(DUMBBELL, &["traffic[0].priority=7", "queues.classes=8"]).is_empty());
    assert!(warnings_of(DUMBBELL, &[]).is_empty());
}

/// A congestion point named on a port no flow crosses never acts; one put on every
/// switch port by "switches" is not named, so says nothing.
#[test]
fn a_congestion_point_named_on_an_unused_port_is_a_warning() {
    let qcn =
        |ports: &str| format!("{DUMBBELL}\n[protocols.qcn]\ncongestion_points = {ports}\nflows = \"*\"\n");
    let w = warnings_of(&qcn("[\"r1->r2\", \"r2->r1\"]"), &[]);
    assert_eq!(
        w,
        ["protocols.qcn.congestion_points[1]: \"r2->r1\" has no effect: no flow crosses that port, so its \
          congestion point never sees a frame; expected a port on some flow's path"]
    );
    assert!(warnings_of(&qcn("[\"r1->r2\"]"), &[]).is_empty());
    assert!(warnings_of(&qcn("\"switches\""), &[]).is_empty());
}

#[test]
fn packet_trace_settings_are_checked() {
    let pcap = |table: &str| format!("{DUMBBELL}\n[metrics]\npcap = {table}\n");
    let e = error_of(&pcap("{ ports = [\"r1->r3\"] }"), &[]);
    assert_located(&e, "metrics.pcap.ports[0]", &["no port named \"r1->r3\"", "did you mean \"r1->r2\"?"]);
    let e = error_of(&pcap("{ ports = [] }"), &[]);
    assert_located(&e, "metrics.pcap.ports", &["names no port"]);
    let e = error_of(&pcap("{ ports = [\"r1->r2\"], snaplen = 10 }"), &[]);
    assert_located(&e, "metrics.pcap.snaplen", &["10 is not a snap length; expected 64 to 262144 bytes"]);
    let e = error_of(&pcap("{ ports = [\"r1->r2\"], max_size = \"100 frames\" }"), &[]);
    assert_located(&e, "metrics.pcap.max_size", &["\"100 frames\" is not a trace size"]);
    let e = error_of(&pcap("{ ports = [\"r1->r2\"], start = \"2ms\", stop = \"1ms\" }"), &[]);
    assert_located(&e, "metrics.pcap.stop", &["stops before it starts"]);
    let e = error_of(&pcap("{ ports = [\"r1->r2\"], max_size = \"500GiB\" }"), &[]);
    assert_located(&e, "metrics.pcap.max_size", &["packet trace"]);
}

#[test]
fn dctcp_keys_are_checked() {
    let e = error_of(&with_tcp("tcp = { dctcp = { g = 1.5 } }"), &[]);
    assert_located(&e, "traffic[0].tcp.dctcp.g", &["1.5 is not a weight", "expected a fraction in (0, 1]"]);
    let e = error_of(&with_tcp("tcp = { dctcp = { alpha_init = -1 } }"), &[]);
    assert_located(&e, "traffic[0].tcp.dctcp.alpha_init", &["-1 is not a fraction"]);
    let e = error_of(&with_tcp("tcp = { dctcp = {}, mecn = {} }"), &[]);
    assert_located(&e, "traffic[0].tcp.dctcp", &["given with \"mecn\""]);
    let e = error_of(&with_tcp("tcp = { dctcp = { k = 3 } }"), &[]);
    assert_located(&e, "traffic[0].tcp.dctcp.k", &["unknown"]);
}

/// A marking threshold at or above the port's buffer would never mark.
#[test]
fn an_ecn_threshold_above_the_buffer_is_an_error() {
    let marked = |k: &str| {
        format!("{DUMBBELL}\n[queues]\ncapacity = \"100 frames\"\n[protocols.ecn_threshold]\nk = \"{k}\"\nports = [\"r1->r2\"]\n")
    };
    let e = error_of(&marked("100 frames"), &[]);
    assert_located(
        &e,
        "protocols.ecn_threshold.k",
        &[
            "\"100 frames\" is not below the capacity of port \"r1->r2\" (100 frames)",
            "expected a threshold below",
        ],
    );
    assert!(warnings_of(&marked("99 frames"), &[]).is_empty());
}

/// DCTCP on paths where no queue marks is NewReno: a warning at its table.
#[test]
fn dctcp_without_marking_is_a_warning() {
    let dctcp = with_tcp("tcp = { dctcp = {} }");
    let w = warnings_of(&dctcp, &[]);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].starts_with("traffic[0].tcp.dctcp: has no effect: no queue on the flows' paths marks CE"),
        "{w:?}"
    );
    let marked = format!("{dctcp}\n[protocols.ecn_threshold]\nk = \"20 frames\"\nports = [\"r1->r2\"]\n");
    assert!(warnings_of(&marked, &[]).is_empty());
    let elsewhere = format!("{dctcp}\n[protocols.ecn_threshold]\nk = \"20 frames\"\nports = [\"r2->r1\"]\n");
    assert_eq!(warnings_of(&elsewhere, &[]).len(), 1);
}

/// DCQCN flows whose paths cross no marking port never hear a CNP: a warning; so is
/// DCQCN without PFC, whose losses nothing recovers.
#[test]
fn dcqcn_without_marking_on_the_path_is_a_warning() {
    let pfc = "[protocols.pause]\nmode = \"pfc\"\n[protocols.pause.switches]\nxoff = \"80 frames\"\nxon = \"40 frames\"\n";
    let dcqcn = |ports: &str| {
        format!("{DUMBBELL}\n[protocols.dcqcn]\ncongestion_points = {ports}\nflows = \"*\"\n{pfc}")
    };
    let w = warnings_of(&dcqcn("[\"r2->r1\"]"), &[]);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].starts_with(
            "protocols.dcqcn.congestion_points: has no effect on 1 of the 1 DCQCN flows (\"a/s1\" first)"
        ),
        "{w:?}"
    );
    assert!(warnings_of(&dcqcn("[\"r1->r2\"]"), &[]).is_empty());
    assert!(warnings_of(&dcqcn("\"switches\""), &[]).is_empty());
    let lossy = dcqcn("\"switches\"").replace(pfc, "");
    let w = warnings_of(&lossy, &[]);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].starts_with("protocols.dcqcn: runs without switch flow control"), "{w:?}");
}

#[test]
fn dcqcn_keys_are_checked() {
    let dcqcn = |extra: &str| {
        format!("{DUMBBELL}\n[protocols.dcqcn]\ncongestion_points = \"switches\"\nflows = \"*\"\n{extra}\n")
    };
    let e = error_of(&dcqcn("kmin = \"200KB\"\nkmax = \"5KB\""), &[]);
    assert_located(&e, "protocols.dcqcn.kmax", &["\"5KB\" is not above kmin (\"200KB\")"]);
    let e = error_of(&dcqcn("pmax = 0"), &[]);
    assert_located(&e, "protocols.dcqcn.pmax", &["0 is not a probability", "expected (0, 1]"]);
    let e = error_of(&dcqcn("pmax = 1.5"), &[]);
    assert_located(&e, "protocols.dcqcn.pmax", &["1.5 is not a probability"]);
    let e = error_of(&dcqcn("cnp_interval = \"0us\""), &[]);
    assert_located(&e, "protocols.dcqcn.cnp_interval", &["\"0s\" is not an interval"]);
    let e = error_of(&dcqcn("cnp_priority = 9"), &[]);
    assert_located(&e, "protocols.dcqcn.cnp_priority", &["9 is not a priority"]);
    let e = error_of(&dcqcn("[protocols.dcqcn.rp]\ng = 2"), &[]);
    assert_located(&e, "protocols.dcqcn.rp.g", &["2 is not a weight"]);
    let e = error_of(&dcqcn("[protocols.dcqcn.rp]\ntimer = \"0s\""), &[]);
    assert_located(&e, "protocols.dcqcn.rp.timer", &["is not a period"]);
    let e =
        error_of(&dcqcn("[protocols.dcqcn.rp]\nclocks = \"fork\"\nrate_decrease_interval = \"0us\""), &[]);
    assert_located(&e, "protocols.dcqcn.rp.rate_decrease_interval", &["is not a period", "\"4us\""]);
    let e = error_of(
        &dcqcn("[protocols.dcqcn.rp]\nclocks = \"fork\"\ntarget_on_cut = \"after-byte-cycle\""),
        &[],
    );
    assert_located(&e, "protocols.dcqcn.rp.target_on_cut", &["needs a byte counter"]);
    let e = error_of(&dcqcn("[protocols.dcqcn.rp]\nclocks = \"mellanox\""), &[]);
    assert_located(&e, "protocols.dcqcn.rp.clocks", &["mellanox"]);
    let e = error_of(&dcqcn("[protocols.dcqcn.rp]\nrate_on_first_cnp = 0"), &[]);
    assert_located(&e, "protocols.dcqcn.rp.rate_on_first_cnp", &["0 is not a fraction"]);
    let e = error_of(&dcqcn("[protocols.dcqcn.rp]\nmin_rate = \"20Gbps\""), &[]);
    assert_located(&e, "protocols.dcqcn.rp.min_rate", &["is above the line rate"]);
    let e = error_of(&format!("{}\n[queues]\ncapacity = \"4KB\"\n", dcqcn("")), &[]);
    assert_located(&e, "protocols.dcqcn.kmin", &["\"5KB\" is not below the capacity of port"]);
}

/// Two RDMA queue pairs into one receiver, every link at 100 Gbit/s.
const RDMA_100G: &str = r#"
name = "t"
duration = "1ms"

[topology.dumbbell]
senders = 2
sender_link = { rate = "100Gbps", delay = "1us" }
bottleneck = { rate = "100Gbps", delay = "1us" }
receiver_link = { rate = "100Gbps", delay = "1us" }

[[traffic]]
name = "q"
kind = "rdma"
from = "s*"
to = "d1"
frame_size = "1000B"
"#;

#[test]
fn hpcc_keys_are_checked() {
    let hpcc = |extra: &str| format!("{RDMA_100G}\n[protocols.hpcc]\nflows = \"*\"\n{extra}\n");
    let s = scenario::parse(&hpcc("window = \"bdp\""), FILE, &[]).unwrap_or_else(|e| panic!("{e}"));
    scenario::build(&s, FILE).unwrap_or_else(|e| panic!("{e}"));
    let e = error_of(&hpcc("eta = 0"), &[]);
    assert_located(&e, "protocols.hpcc.eta", &["0 is not a target utilisation", "expected (0, 1]"]);
    let e = error_of(&hpcc("eta = 1.5"), &[]);
    assert_located(&e, "protocols.hpcc.eta", &["1.5 is not a target utilisation"]);
    let e = error_of(&hpcc("max_stage = 5000"), &[]);
    assert_located(&e, "protocols.hpcc.max_stage", &["5000 is too many additive steps", "0 to 1000"]);
    let e = error_of(&hpcc("r_ai = \"0bps\""), &[]);
    assert_located(&e, "protocols.hpcc.r_ai", &["is zero"]);
    let e = error_of(&hpcc("min_rate = \"0bps\""), &[]);
    assert_located(&e, "protocols.hpcc.min_rate", &["is zero"]);
    let e = error_of(&hpcc("min_rate = \"200Gbps\""), &[]);
    assert_located(&e, "protocols.hpcc.min_rate", &["is above the line rate"]);
    let e = error_of(&hpcc("int_multi = 0"), &[]);
    assert_located(&e, "protocols.hpcc.int_multi", &["0 is not a unit multiplier"]);
    let e = error_of(&hpcc("window = \"cwnd\""), &[]);
    assert_located(&e, "protocols.hpcc.window", &["cwnd"]);
    let e = error_of(&hpcc("base_rtt = \"mean\""), &[]);
    assert_located(&e, "protocols.hpcc.base_rtt", &["mean"]);
}

#[test]
fn timely_keys_are_checked() {
    let timely = |extra: &str| format!("{RDMA_100G}\n[protocols.timely]\nflows = \"*\"\n{extra}\n");
    let s = scenario::parse(&timely("window = \"bdp\""), FILE, &[]).unwrap_or_else(|e| panic!("{e}"));
    scenario::build(&s, FILE).unwrap_or_else(|e| panic!("{e}"));
    let e = error_of(&timely("alpha = 0"), &[]);
    assert_located(&e, "protocols.timely.alpha", &["0 is not an EWMA weight", "expected (0, 1]"]);
    let e = error_of(&timely("beta = 1.5"), &[]);
    assert_located(&e, "protocols.timely.beta", &["1.5 is not a decrease factor"]);
    let e = error_of(&timely("t_low = \"600us\""), &[]);
    assert_located(&e, "protocols.timely.t_high", &["500us is not above t_low (600us)"]);
    let e = error_of(&timely("min_rtt = \"0s\""), &[]);
    assert_located(&e, "protocols.timely.min_rtt", &["cannot normalise a gradient"]);
    let e = error_of(&timely("delta = \"0bps\""), &[]);
    assert_located(&e, "protocols.timely.delta", &["is zero"]);
    let e = error_of(&timely("min_rate = \"200Gbps\""), &[]);
    assert_located(&e, "protocols.timely.min_rate", &["is above the line rate"]);
    let e = error_of(&timely("window = \"cwnd\""), &[]);
    assert_located(&e, "protocols.timely.window", &["cwnd"]);
    let e = error_of(&format!("{DUMBBELL}\n[protocols.timely]\nflows = \"*\"\n"), &[]);
    assert_located(&e, "protocols.timely.flows", &["flow a/s1 is not an RDMA queue pair"]);
    let dcqcn_win = format!(
        "{DUMBBELL}\n[protocols.dcqcn]\ncongestion_points = \"switches\"\nflows = \"*\"\nwindow = \"bdp\"\n"
    );
    let e = error_of(&dcqcn_win, &[]);
    assert_located(&e, "protocols.dcqcn.window", &["flow a/s1 is not an RDMA queue pair"]);
}

#[test]
fn hpcc_runs_on_rdma_flows_alone_and_on_links_int_can_name() {
    let e = error_of(&format!("{DUMBBELL}\n[protocols.hpcc]\nflows = \"*\"\n"), &[]);
    assert_located(&e, "protocols.hpcc.flows", &["flow a/s1 is not an RDMA queue pair", "kind = \"rdma\""]);
    let both = format!(
        "{RDMA_100G}\n[protocols.dcqcn]\ncongestion_points = \"switches\"\nflows = \"*\"\n\
         [protocols.hpcc]\nflows = \"*\"\n"
    );
    let e = error_of(&both, &[]);
    assert_located(&e, "protocols.hpcc.flows", &["flow q/s1 already has a reaction point"]);
    let e = error_of(
        &format!("{RDMA_100G}\n[protocols.hpcc]\nflows = \"*\"\n"),
        &["topology.dumbbell.bottleneck.rate=\"40Gbps\""],
    );
    assert_located(
        &e,
        "protocols.hpcc.flows",
        &["port r1->r2 on the path of flow q/s1 runs at 40Gbps", "25, 50, 100, 200 or 400 Gbit/s"],
    );
    let chain = r#"
name = "t"
duration = "1ms"

[topology.chain]
switches = 7
hosts_per_switch = 1
host_link = { rate = "100Gbps", delay = "1us" }
trunk = { rate = "100Gbps", delay = "1us" }

[[traffic]]
name = "q"
kind = "rdma"
from = "h1"
to = "h7"
frame_size = "1000B"

[protocols.hpcc]
flows = "*"
"#;
    let e = error_of(chain, &[]);
    assert_located(&e, "protocols.hpcc.flows", &["flow q/h1 crosses 7 switches", "at most 5"]);
    let direct = r#"
name = "t"
duration = "1ms"

[[topology.nodes]]
name = "a"
kind = "host"
[[topology.nodes]]
name = "b"
kind = "host"
[[topology.links]]
from = "a"
to = "b"
rate = "100Gbps"
delay = "1us"

[[traffic]]
name = "q"
kind = "rdma"
from = "a"
to = "b"
frame_size = "1000B"

[protocols.hpcc]
flows = "*"
"#;
    let e = error_of(direct, &[]);
    assert_located(&e, "protocols.hpcc.flows", &["flow q/a crosses no switch", "at least one switch"]);
}
