//! Packet traces (`metrics.pcap`) read back by Wireshark's tshark: it must see the
//! frames cnsim sent, with the fields cnsim gave them.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{cnsim, stderr, TempDir};

/// tshark, if installed; without it the tests skip, saying so, unless
/// CNSIM_REQUIRE_TSHARK is set (as CI sets it).
fn tshark() -> Option<PathBuf> {
    let found = std::env::var_os("PATH")?
        .to_str()?
        .split(':')
        .map(|d| Path::new(d).join("tshark"))
        .find(|p| p.is_file());
    if found.is_none() {
        assert!(
            std::env::var_os("CNSIM_REQUIRE_TSHARK").is_none(),
            "CNSIM_REQUIRE_TSHARK is set but tshark is not installed"
        );
        eprintln!("skipped: no tshark on PATH (Debian: apt-get install tshark)");
    }
    found
}

/// The given fields of every frame tshark reads from `trace` matching `filter`, one
/// row per frame.
fn fields(tshark: &Path, trace: &Path, filter: &str, names: &[&str]) -> Vec<Vec<String>> {
    let mut cmd = Command::new(tshark);
    cmd.args(["-r"]).arg(trace).args(["-Y", filter, "-T", "fields", "-E", "separator=;"]);
    for n in names {
        cmd.args(["-e", n]);
    }
    let out = cmd.output().expect("run tshark");
    assert!(out.status.success(), "tshark: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| l.split(';').map(str::to_string).collect())
        .collect()
}

fn summary(run: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(run.join("summary.json")).unwrap()).unwrap()
}

/// The QCN dumbbell: every CNM the congestion point sent to s1 is on r1->s1, tagged,
/// EtherType 0x22E9, with a quantized |Fb| of 1 to 63 and the congestion point's CPID;
/// data frames on r1->r2 carry their priority in the 802.1Q tag.
#[test]
fn wireshark_reads_the_cnms_of_the_qcn_dumbbell() {
    let Some(tshark) = tshark() else { return };
    let dir = TempDir::new("trace-qcn");
    let d = dir.path();
    let o = cnsim(
        d,
        &[
            "run",
            "dumbbell-qcn-64",
            "--set",
            "duration=5ms",
            "--set",
            "metrics.pcap={ports=[\"r1->s1\", \"r1->r2\"]}",
            "--out",
            "r",
            "-q",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let trace = d.join("r/trace.pcapng");
    let s = summary(&d.join("r"));
    let cpid = s["qcn"]["congestion_points"][0]["cpid"].as_u64().unwrap();
    let to_s1 = s["qcn"]["reaction_points"][0]["cnms"].as_u64().unwrap();
    let cnms =
        fields(&tshark, &trace, "vlan.etype == 0x22e9", &["frame.interface_name", "eth.dst", "data.data"]);
    assert!(to_s1 > 0, "the run must send s1 feedback for the test to mean anything");
    assert_eq!(cnms.len() as u64, to_s1, "one traced CNM per CNM s1 received");
    for row in &cnms {
        assert_eq!(row[0], "r1->s1");
        let pdu: Vec<u8> = (0..row[2].len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&row[2][i..i + 2], 16).unwrap())
            .collect();
        let fb = u16::from_be_bytes([pdu[0], pdu[1]]);
        assert!((1..=63).contains(&fb), "QntzFb {fb}");
        assert_eq!(u64::from_be_bytes(pdu[2..10].try_into().unwrap()), cpid, "CPID");
    }
    let data = fields(&tshark, &trace, "frame.interface_name == \"r1->r2\"", &["vlan.priority", "frame.len"]);
    assert!(data.len() > 100);
    assert!(data.iter().all(|r| r[0] == "0" && r[1] == "1500"), "{:?}", &data[..3]);
}

/// Two hosts into one slower host through two switches with PFC: Wireshark reads the
/// PFC frames sw2 sends back to sw1 as MAC Control opcode 0x0101 pausing class 0, and
/// counts as many as the summary says the port sent.
#[test]
fn wireshark_reads_pfc_frames() {
    let Some(tshark) = tshark() else { return };
    let dir = TempDir::new("trace-pfc");
    let d = dir.path();
    let text = r#"
name = "pfc"
duration = "2ms"
[topology]
nodes = [
  { name = "a", kind = "host" }, { name = "b", kind = "host" },
  { name = "sw1", kind = "switch" }, { name = "sw2", kind = "switch" }, { name = "r", kind = "host" },
]
links = [
  { from = "a", to = "sw1", rate = "10Gbps", delay = "1us" },
  { from = "b", to = "sw1", rate = "10Gbps", delay = "1us" },
  { from = "sw1", to = "sw2", rate = "10Gbps", delay = "1us" },
  { from = "sw2", to = "r", rate = "5Gbps", delay = "1us" },
]
[[traffic]]
name = "f"
kind = "cbr"
from = ["a", "b"]
to = "r"
rate = "5Gbps"
[protocols.pause]
mode = "pfc"
[protocols.pause.switches]
xoff = "20 frames"
xon = "10 frames"
[metrics]
pcap = { ports = ["sw2->sw1"] }
"#;
    std::fs::write(d.join("pfc.toml"), text).unwrap();
    let o = cnsim(d, &["run", "pfc.toml", "--out", "r", "-q"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let rows = fields(
        &tshark,
        &d.join("r/trace.pcapng"),
        "macc",
        &["eth.dst", "macc.opcode", "macc.cbfc.enbv", "macc.cbfc.pause_time.c0"],
    );
    assert!(!rows.is_empty(), "sw2 paused sw1");
    let mut pauses = 0;
    for r in &rows {
        assert_eq!((r[0].as_str(), r[1].as_str()), ("01:80:c2:00:00:01", "0x0101"), "{r:?}");
        assert_eq!(r[2], "0x0001", "class 0 only");
        pauses += usize::from(r[3] != "0");
    }
    assert!(pauses > 0, "some pause, not only resumes: {rows:?}");
    let s = summary(&d.join("r"));
    let sent: u64 = s["pause"]["ports"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["port"] == "sw2->sw1")
        .map(|p| p["pause_sent"].as_u64().unwrap() + p["resume_sent"].as_u64().unwrap())
        .sum();
    assert_eq!(rows.len() as u64, sent, "{}", s["pause"]);
}

/// TCP over the dumbbell: a SYN at sequence number 0, then segments with byte sequence
/// numbers (segment n at 1 + (n − 1) × 1460, the scenario's payload), ECN-capable transport in the IP header, and the
/// sender's and receiver's ports.
#[test]
fn wireshark_reads_tcp_sequence_numbers_and_ecn_bits() {
    let Some(tshark) = tshark() else { return };
    let dir = TempDir::new("trace-tcp");
    let d = dir.path();
    let o = cnsim(
        d,
        &[
            "run",
            "dumbbell-tcp-64",
            "--set",
            "duration=2ms",
            "--set",
            "topology.dumbbell.senders=2",
            "--set",
            "metrics.pcap={ports=[\"s1->r1\"]}",
            "--out",
            "r",
            "-q",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let scenario = std::fs::read_to_string(d.join("r/scenario.toml")).unwrap();
    let syn = fields(&tshark, &d.join("r/trace.pcapng"), "tcp.flags.syn == 1", &["tcp.seq_raw", "tcp.len"]);
    assert_eq!(syn, [["0", "0"]], "one SYN, sequence number 0, no data");
    let rows = fields(
        &tshark,
        &d.join("r/trace.pcapng"),
        "tcp.len > 0",
        &["tcp.srcport", "tcp.dstport", "tcp.seq_raw", "ip.dsfield.ecn", "frame.len"],
    );
    assert!(rows.len() > 10, "{} segments", rows.len());
    // 1500-byte IP packets (40 header bytes, 1460 of data) in 1518-byte Ethernet frames.
    assert!(scenario.contains("frame_size = \"1500B\""));
    assert!(rows.iter().all(|r| r[4] == "1518"), "{:?}", &rows[..3]);
    let payload = 1460;
    let seqs: Vec<u64> = rows.iter().map(|r| r[2].parse().unwrap()).collect();
    // Data starts at byte 1, after the SYN, in whole segments.
    assert_eq!(seqs[0], 1);
    assert!(seqs.iter().all(|s| (s - 1) % payload == 0), "whole segments: {:?}", &seqs[..5]);
    assert!(seqs.windows(2).take(5).all(|w| w[1] == w[0] + payload), "in order at first: {:?}", &seqs[..6]);
    assert!(rows.iter().all(|r| r[1] == "5001" && r[0].parse::<u32>().unwrap() >= 10_000));
    let ecn_capable = scenario.contains("ecn = true");
    assert!(rows.iter().all(|r| (r[3] != "0") == ecn_capable), "{:?}", &rows[..3]);
}

/// DCQCN's 8:1 incast: Wireshark reads RoCEv2 (UDP 4791, InfiniBand BTH): data on
/// r1->r2 as RC SEND Only (opcode 4) ECN-capable, some marked CE (3); CNPs (opcode 129)
/// on the receiver's link back, as many as the notification points sent.
#[test]
fn wireshark_reads_rocev2_data_and_cnps() {
    let Some(tshark) = tshark() else { return };
    let dir = TempDir::new("trace-rocev2");
    let d = dir.path();
    let o = cnsim(
        d,
        &[
            "run",
            "dcqcn-incast",
            "--set",
            "duration=1ms",
            "--set",
            "topology.dumbbell.senders=8",
            "--set",
            "metrics.pcap={ports=[\"r1->r2\", \"d1->r2\"], snaplen=128}",
            "--out",
            "r",
            "-q",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let trace = d.join("r/trace.pcapng");
    let data = fields(
        &tshark,
        &trace,
        "frame.interface_name == \"r1->r2\"",
        &["udp.dstport", "infiniband.bth.opcode", "ip.dsfield.ecn", "frame.len"],
    );
    assert!(data.len() > 100, "{} frames", data.len());
    assert!(data.iter().all(|r| r[0] == "4791" && r[1] == "4" && r[3] == "1000"), "{:?}", &data[..3]);
    let marked = data.iter().filter(|r| r[2] == "3").count();
    assert!(marked > 0 && data.iter().all(|r| r[2] == "2" || r[2] == "3"), "{marked} marked");
    let cnps =
        fields(&tshark, &trace, "infiniband.bth.opcode == 129", &["udp.dstport", "infiniband.bth.destqp"]);
    let s = summary(&d.join("r"));
    assert_eq!(cnps.len() as u64, s["dcqcn"]["cnps_sent"].as_u64().unwrap(), "every CNP, once");
    assert!(!cnps.is_empty());
}

/// An RDMA message alone: Wireshark reads its packets as RC SEND First, Middle and Last
/// with PSNs 0, 1, … in order (AckReq on the last), and the receiver's acknowledgements
/// as RC Acknowledge with an AETH ACK syndrome naming each PSN received.
#[test]
fn wireshark_reads_rdma_psns_and_acknowledgements() {
    let Some(tshark) = tshark() else { return };
    let dir = TempDir::new("trace-rdma");
    let d = dir.path();
    let o = cnsim(
        d,
        &[
            "run",
            "rdma-incast",
            "--set",
            "topology.dumbbell.senders=1",
            "--set",
            "traffic[0].bytes=\"10KB\"",
            "--set",
            "metrics.pcap={ports=[\"r1->r2\", \"d1->r2\"], snaplen=128}",
            "--out",
            "r",
            "-q",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let trace = d.join("r/trace.pcapng");
    let data = fields(
        &tshark,
        &trace,
        "frame.interface_name == \"r1->r2\"",
        &["infiniband.bth.opcode", "infiniband.bth.psn", "infiniband.bth.a", "frame.len"],
    );
    // 10 000 bytes: 10 packets of 938 and one of 620 (682 on the wire).
    assert_eq!(data.len(), 11, "{data:?}");
    for (k, r) in data.iter().enumerate() {
        let opcode = match k {
            0 => "0",
            10 => "2",
            _ => "1",
        };
        assert_eq!((r[0].as_str(), r[1].as_str()), (opcode, k.to_string().as_str()), "{r:?}");
        assert_eq!(r[2] == "1" || r[2] == "True", k == 10, "AckReq on the last only: {r:?}");
    }
    assert_eq!(data[10][3], "682");
    let acks = fields(
        &tshark,
        &trace,
        "frame.interface_name == \"d1->r2\"",
        &["infiniband.bth.opcode", "infiniband.bth.psn", "infiniband.aeth.syndrome"],
    );
    assert_eq!(acks.len(), 11, "{acks:?}");
    for (k, r) in acks.iter().enumerate() {
        assert_eq!((r[0].as_str(), r[1].as_str()), ("17", k.to_string().as_str()), "{r:?}");
        assert_eq!(r[2], "31", "ACK syndrome: {r:?}");
    }
}
