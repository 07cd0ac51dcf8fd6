//! The TCP sender: Reno and NewReno as ns-2's one-way agents implement them (reference
//! l3-tcp.md §5.1–5.7), with ns-2's names for the state.
//!
//! Sequence numbers count segments. With `syn`, segment 0 is a 40-byte SYN and data
//! occupies 1…N (ns-2 `syn_`); the window starts at 1 and opens to `window_init` when
//! the SYN is acknowledged. An ACK carries the highest in-order segment received.
//!
//! - **Sending** (`send_much`): while t_seqno ≤ highest_ack + window() and t_seqno <
//!   curseq, with window() = min(⌊cwnd⌋ + dupwnd, wnd). Sending a segment above maxseq
//!   starts an RTT measurement if none is active (Karn: retransmissions are never timed);
//!   sending arms the retransmission timer if it is idle.
//! - **New ACK**: dupacks = 0, the ACK advances last_ack and t_seqno, takes the RTT sample
//!   if it covers the timed segment, re-arms the timer while data is outstanding (else
//!   cancels it), then opens cwnd: +1 per ACK below ssthresh, +1/cwnd above.
//! - **Duplicate ACKs**: the 1st and 2nd send one new segment each (Limited Transmit,
//!   `singledup_`); the 3rd is fast retransmit if the sender has recovered from its last
//!   response (highest_ack > recover, or highest_ack = 0; Reno also while its last action
//!   is still a fast retransmit): recover = maxseq, ssthresh = max(2, ⌊w/2⌋), cwnd = w/2
//!   (w = min(cwnd, wnd)), the timer restarts, last_ack + 1 is resent and dupwnd = 3; each
//!   further duplicate inflates dupwnd by one.
//! - **Reno** leaves recovery at the first new ACK (dupwnd = 0). **NewReno** leaves it at
//!   an ACK ≥ recover; an ACK below it is partial: it deflates the window by what it
//!   acknowledged (dupwnd −= d − 1 if dupwnd > d, else cwnd −= d − dupwnd and dupwnd =
//!   1), resends ack + 1 at once, restarts the timer on the episode's first partial ACK
//!   only, and lets at most two segments out per ACK while in recovery.
//! - **Timeout**: ssthresh = max(2, ⌊w/2⌋), cwnd = 1, recover = maxseq, backoff doubles,
//!   and go-back-N: t_seqno = highest_ack + 1.
//! - **What a cut halves** ([`CutBase`], `tcp.ssthresh_from`): w above is ns-2's
//!   min(cwnd, wnd); RFC 5681 eq. (4) halves FlightSize instead, the segments sent and
//!   not yet acknowledged (at the third duplicate without those Limited Transmit sent,
//!   RFC 5681 §3.2 step 2), and its fast retransmit leaves cwnd = ssthresh ≥ 2 where
//!   ns-2's leaves w/2 ≥ 1. Then ssthresh = max(2, ⌊f/2⌋), cwnd = max(2, f/2).
//! - **ECN** (RFC 3168 as ns-2 models it, reference §3.5): an ACK echoing congestion
//!   acts at most once per window (its ACK above recover, or after a timeout): recover =
//!   maxseq, cwnd and ssthresh halved (cwnd at least `ecn_floor`: 1 in ns-2 and RFC 3168
//!   §6.1.2, 2 in ns-3; an echo at cwnd 1 the second time doubles the RTO backoff
//!   instead), and the next segment sent carries CWR. The echoing ACK opens no window.
//!   Three duplicates after an ECN response in the same window retransmit without a
//!   second cut.
//! - **MECN** (Durresi, Sridharan, Jain et al.; the seed of Sridharan et al. and
//!   reference §4.4): as ECN, but an echo of incipient congestion takes cwnd ← (1 − β1)·w
//!   and of moderate congestion (1 − β2)·w (at least `ecn_floor`), ssthresh ←
//!   max(2, ⌊cwnd⌋); loss is β3 = ½.
//! - **DCTCP** (Alizadeh et al. 2010, [`super::dctcp`]): as ECN, but the cut is
//!   cwnd ← w·(1 − α/2) (at least `ecn_floor`), ssthresh ← max(2, ⌊cwnd⌋), with α
//!   updated by every ACK before it acts.
//! - **Send overhead** (ns-2 `overhead_`, tcp.cc `send_much`): with overhead > 0, a call
//!   to send new segments that finds the window open sends nothing but starts a
//!   delayed-send timer of uniform random length in [0, overhead), unless one is
//!   pending; when it expires, everything the window then allows goes at once
//!   (`send_much(force = 1, maxburst_ = 0)`, so NewReno's limit of two per ACK in
//!   recovery does not apply to it). Retransmissions sent directly — fast retransmit,
//!   NewReno's partial-ACK retransmission, Limited Transmit's segments — are not
//!   delayed; a timeout's go-back-N goes through `send_much` and is. Random send times
//!   break the deterministic phase effects of drop-tail queues (Floyd & Jacobson 1992).

use super::rto::{Rto, RtoParams};
use crate::engine::{RngStream, Time};

/// Reno or NewReno.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Variant {
    /// Agent/TCP/Reno.
    Reno,
    /// Agent/TCP/Newreno.
    #[default]
    #[serde(rename = "newreno")]
    NewReno,
}

/// The sender's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SenderParams {
    /// Reno or NewReno.
    pub(crate) variant: Variant,
    /// Largest window, segments (ns-2 `window_`, 20; no receive buffer is modelled).
    pub(crate) window: u32,
    /// Window once the SYN is acknowledged (ns-2 `windowInit_`, 2).
    pub(crate) window_init: u32,
    /// Model the SYN as segment 0 (ns-2 `syn_`).
    pub(crate) syn: bool,
    /// Limited Transmit on the first two duplicate ACKs (ns-2 `singledup_`).
    pub(crate) limited_transmit: bool,
    /// The retransmission timeout.
    pub(crate) rto: RtoParams,
    /// The response to echoed congestion marks.
    pub(crate) ecn: EcnResponse,
    /// What window cuts halve, and the floor of an ECN cut.
    pub(crate) cut: CutRules,
    /// ns-2 `overhead_`: the longest random delay before a send (0: none).
    pub(crate) overhead: Time,
}

/// What a window cut halves (`tcp.ssthresh_from`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CutBase {
    /// ns-2 `slowdown`: w = min(cwnd, wnd).
    #[default]
    Cwnd,
    /// RFC 5681 eq. (4) and ns-3's `BytesInFlight`: the segments sent and not yet
    /// acknowledged.
    Flight,
}

/// The rules that differ between ns-2, the RFCs and ns-3 (`tcp.rules`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CutRules {
    /// What a cut halves.
    pub(crate) base: CutBase,
    /// The least cwnd an ECN or MECN cut leaves, segments.
    pub(crate) ecn_floor: u32,
}

impl Default for CutRules {
    fn default() -> Self {
        CutRules { base: CutBase::Cwnd, ecn_floor: 1 }
    }
}

/// How a sender answers echoed congestion marks.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum EcnResponse {
    /// Not ECN-capable: marks never come back.
    #[default]
    Off,
    /// RFC 3168: halve once per window.
    Ecn,
    /// Multi-level ECN: cut by β1 on incipient, β2 on moderate congestion.
    Mecn {
        /// Fraction of cwnd removed on incipient congestion (codepoint 10).
        beta1: f64,
        /// Fraction removed on moderate congestion (codepoint 11).
        beta2: f64,
    },
    /// DCTCP: cut in proportion to the fraction of marked data ([`super::dctcp`]).
    Dctcp(super::dctcp::DctcpParams),
}

/// The last congestion response (ns-2 `last_cwnd_action_`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CwndAction {
    /// None yet.
    None,
    /// A fast retransmit.
    DupAck,
    /// A retransmission timeout.
    Timeout,
    /// Recovery ended.
    Exited,
    /// A response to an ECN (or MECN) echo.
    Ecn,
}

/// Per-connection counters.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct SenderStats {
    /// Segments sent, retransmissions included.
    pub segments_sent: u64,
    /// Retransmissions.
    pub retransmits: u64,
    /// Fast retransmits.
    pub(crate) fast_retransmits: u64,
    /// Retransmission timeouts.
    pub timeouts: u64,
    /// Window cuts in answer to echoed congestion marks.
    #[serde(skip_serializing_if = "crate::units::is_zero")]
    pub ecn_responses: u64,
}

/// A TCP sender.
#[derive(Clone, Debug)]
pub struct Sender {
    p: SenderParams,
    /// Next segment to send.
    pub(crate) t_seqno: i64,
    /// Highest segment sent.
    pub(crate) maxseq: i64,
    /// Highest cumulative ACK (−1 before any).
    pub(crate) highest_ack: i64,
    last_ack: i64,
    /// Segments the application has made available (+1 for the SYN).
    pub(crate) curseq: i64,
    /// Congestion window, segments.
    pub(crate) cwnd: f64,
    /// Slow-start threshold, segments.
    pub(crate) ssthresh: i64,
    /// Duplicate ACKs in a row.
    pub(crate) dupacks: u32,
    /// Window inflation during fast recovery.
    pub(crate) dupwnd: u32,
    /// maxseq at the last congestion response.
    pub(crate) recover: i64,
    /// The last congestion response.
    pub(crate) last_action: CwndAction,
    rtt_active: bool,
    rtt_seq: i64,
    rtt_ts: Time,
    first_partial: bool,
    /// The RTO estimator.
    pub(crate) rto: Rto,
    /// When the retransmission timer expires, if armed.
    pub(crate) deadline: Option<Time>,
    /// Segments to put on the wire, in order (drained by the endpoint).
    pub(crate) out: Vec<i64>,
    /// The segment of `out` that carries CWR (the first sent after a window cut, when
    /// ECN-capable).
    pub(crate) cwr_seq: Option<i64>,
    cong_action: bool,
    ecn_backoff: bool,
    /// Segments Limited Transmit sent since the last new ACK.
    lt_sent: i64,
    /// When the delayed-send timer (`overhead`) expires, if pending.
    pub(crate) delsnd: Option<Time>,
    /// The stream the send delays are drawn from (with an `overhead` only).
    overhead_rng: Option<RngStream>,
    /// The answer to echoed congestion ([`super::cc`]).
    pub(crate) cc: super::cc::Controller,
    /// Counters.
    pub(crate) stats: SenderStats,
}

impl Sender {
    /// Whether segment 0 is a SYN.
    pub fn syn(&self) -> bool {
        self.p.syn
    }

    /// A sender with nothing to send yet; `boot` is its RTO clock phase.
    pub fn new(p: SenderParams, boot: Time) -> Self {
        Sender {
            p,
            t_seqno: 0,
            maxseq: -1,
            highest_ack: -1,
            last_ack: -1,
            curseq: if p.syn { 1 } else { 0 },
            cwnd: if p.syn { 1.0 } else { f64::from(p.window_init) },
            ssthresh: i64::from(p.window),
            dupacks: 0,
            dupwnd: 0,
            recover: 0,
            last_action: CwndAction::None,
            rtt_active: false,
            rtt_seq: -1,
            rtt_ts: 0,
            first_partial: false,
            rto: Rto::new(p.rto, boot),
            deadline: None,
            out: Vec::new(),
            cwr_seq: None,
            cong_action: false,
            ecn_backoff: false,
            lt_sent: 0,
            delsnd: None,
            overhead_rng: None,
            cc: super::cc::Controller::new(p.ecn),
            stats: SenderStats::default(),
        }
    }

    /// The sender with its send delays drawn from `rng`, if it has an `overhead`.
    pub fn with_overhead(mut self, rng: RngStream) -> Self {
        if self.p.overhead > 0 {
            self.overhead_rng = Some(rng);
        }
        self
    }

    /// The longest random delay before a send (ns-2 `overhead_`; 0: none).
    pub fn overhead(&self) -> Time {
        self.p.overhead
    }

    /// The first data segment's sequence number (1 with a SYN, else 0).
    pub fn first_data(&self) -> i64 {
        i64::from(self.p.syn)
    }

    /// Answers marks as `response` says from now on (a sender's response is fixed at
    /// its creation; tests change it on a sender already under way).
    #[cfg(test)]
    fn answer_marks(&mut self, response: EcnResponse) {
        self.p.ecn = response;
        self.cc = super::cc::Controller::new(response);
    }

    /// ns-2 `window()`: min(⌊cwnd⌋ + dupwnd, wnd).
    pub fn window(&self) -> i64 {
        (self.cwnd as i64 + i64::from(self.dupwnd)).min(i64::from(self.p.window))
    }

    /// The application hands `segments` more to send; sends what the window allows.
    pub fn app_send(&mut self, segments: u64, now: Time) {
        self.curseq += segments as i64;
        self.send_much(now, 0, false);
    }

    /// A new object after an idle period: slow start again from the initial window
    /// (RFC 5681 §4.1's restart window), the RTT estimate and sequence space kept.
    pub fn restart_after_idle(&mut self) {
        self.cwnd = f64::from(self.p.window_init);
        self.ssthresh = i64::from(self.p.window);
        self.dupacks = 0;
        self.dupwnd = 0;
        self.last_action = CwndAction::None;
    }

    /// The application stops (an FTP source's `stop`): nothing new is sent; what was sent
    /// may still be retransmitted.
    pub fn app_stop(&mut self) {
        self.curseq = self.curseq.min(self.maxseq + 1);
    }

    /// Whether every segment the application gave has been acknowledged.
    pub fn all_acked(&self) -> bool {
        self.highest_ack + 1 >= self.curseq
    }

    /// Segments sent and not yet acknowledged.
    pub fn outstanding(&self) -> bool {
        self.maxseq > self.highest_ack
    }

    fn set_timer(&mut self, now: Time) {
        self.deadline = Some(now + self.rto.timeout());
    }

    /// ns-2 `output`: segment `seq` goes on the wire.
    fn output(&mut self, seq: i64, now: Time) {
        if seq > self.maxseq {
            self.maxseq = seq;
            if !self.rtt_active && seq > self.rtt_seq {
                self.rtt_active = true;
                self.rtt_seq = seq;
                self.rtt_ts = now;
            }
        } else {
            self.stats.retransmits += 1;
        }
        self.stats.segments_sent += 1;
        if self.cong_action && self.cc.answers_marks() {
            // ns-2 before SetCWRonRetransmit_ (2008) sets CWR on whatever goes next.
            self.cong_action = false;
            self.cwr_seq = Some(seq);
        }
        self.out.push(seq);
        if self.deadline.is_none() {
            self.set_timer(now);
        }
    }

    /// ns-2 `send_much`: new segments while the window allows, at most `maxburst` (0:
    /// no limit). With an overhead and not `force`d, the first segment the window allows
    /// starts the delayed-send timer instead, and nothing goes while it is pending.
    fn send_much(&mut self, now: Time, maxburst: u32, force: bool) {
        if self.overhead_rng.is_some() && !force {
            // ns-2: nothing while the timer is pending, else the first segment the window
            // allows sets it: delsnd_timer_.resched(Random::uniform(overhead_)).
            let open = self.t_seqno <= self.highest_ack + self.window() && self.t_seqno < self.curseq;
            if let (None, true, Some(rng)) = (self.delsnd, open, &mut self.overhead_rng) {
                self.delsnd = Some(now + rng.below(self.p.overhead));
            }
            return;
        }
        let mut sent = 0;
        while self.t_seqno <= self.highest_ack + self.window() && self.t_seqno < self.curseq {
            self.output(self.t_seqno, now);
            self.t_seqno += 1;
            sent += 1;
            if maxburst != 0 && sent == maxburst {
                break;
            }
        }
    }

    /// The delayed-send timer expired: everything the window allows goes now (ns-2
    /// `timeout_nonrtx(TCP_TIMER_DELSND)`: `send_much(1, …, maxburst_)`).
    pub fn on_delayed_send(&mut self, now: Time) {
        self.delsnd = None;
        self.send_much(now, 0, true);
    }

    /// ns-2 `send_one` (Limited Transmit).
    fn send_one(&mut self, now: Time) {
        let cap = self.highest_ack as f64 + self.cwnd + f64::from(self.dupacks);
        if self.t_seqno <= self.highest_ack + i64::from(self.p.window)
            && self.t_seqno < self.curseq
            && self.t_seqno as f64 <= cap
        {
            self.output(self.t_seqno, now);
            self.t_seqno += 1;
            self.lt_sent += 1;
        }
    }

    /// What a cut at an ACK for `ack` halves, segments: min(cwnd, wnd), or the segments
    /// in flight once `ack` is counted, less `exclude` (those Limited Transmit sent, at a
    /// fast retransmit).
    fn cut_base(&self, ack: i64, exclude: i64) -> f64 {
        match self.p.cut.base {
            CutBase::Cwnd => self.cwnd.min(f64::from(self.p.window)),
            CutBase::Flight => (self.maxseq - self.highest_ack.max(ack) - exclude).max(0) as f64,
        }
    }

    /// ns-2 `slowdown(CLOSE_SSTHRESH_HALF | CLOSE_CWND_HALF)` on base `w`: ssthresh =
    /// max(2, ⌊w/2⌋) and cwnd = w/2, at least `floor`; with `to_one` cwnd = 1 (a timeout).
    fn slowdown(&mut self, w: f64, to_one: bool, floor: f64) {
        self.ssthresh = ((w / 2.0) as i64).max(2);
        self.cwnd = if to_one { 1.0 } else { (w / 2.0).max(floor) };
        self.cong_action = true;
    }

    /// The least cwnd a fast retransmit leaves: ns-2's 1, or RFC 5681's 2 (cwnd =
    /// ssthresh ≥ 2·SMSS) when cuts halve the flight.
    fn loss_floor(&self) -> f64 {
        match self.p.cut.base {
            CutBase::Cwnd => 1.0,
            CutBase::Flight => 2.0,
        }
    }

    /// ns-2 `ecn`: the answer to an ACK echoing congestion `level` (1 incipient or
    /// RFC 3168's ECE, 2 moderate), once per window.
    fn ecn(&mut self, ack: i64, level: u8) {
        if !(ack > self.recover || self.last_action == CwndAction::Timeout) {
            return;
        }
        self.recover = self.maxseq;
        self.last_action = CwndAction::Ecn;
        if self.cwnd <= 1.0 {
            if self.ecn_backoff {
                self.rto.back_off();
            } else {
                self.ecn_backoff = true;
            }
        } else {
            self.ecn_backoff = false;
        }
        let (w, floor) = (self.cut_base(ack, 0), f64::from(self.p.cut.ecn_floor));
        let Some(cwnd) = self.cc.cut(w, level) else { return };
        self.cwnd = cwnd.max(floor);
        self.ssthresh = (self.cwnd as i64).max(2);
        self.cong_action = true;
        self.stats.ecn_responses += 1;
    }

    /// ns-2 `opencwnd`.
    fn opencwnd(&mut self) {
        if self.cwnd < self.ssthresh as f64 {
            self.cwnd += 1.0;
        } else {
            self.cwnd += 1.0 / self.cwnd;
        }
    }

    /// ns-2 `newack`: the common part of a new cumulative ACK.
    fn newack(&mut self, ack: i64, now: Time) {
        self.dupacks = 0;
        self.lt_sent = 0;
        self.last_ack = ack;
        self.highest_ack = ack;
        self.t_seqno = self.t_seqno.max(ack + 1);
        if self.rtt_active && ack >= self.rtt_seq {
            self.rtt_active = false;
            self.rto.sample(self.rtt_ts, now);
        }
        if self.t_seqno > ack + 1 || ack < self.maxseq {
            self.set_timer(now);
        } else {
            self.deadline = None;
        }
    }

    /// A new ACK outside recovery: newack, open the window (not on an ACK echoing
    /// congestion), leave a fast recovery.
    fn recv_newack(&mut self, ack: i64, echo: u8, now: Time) {
        self.newack(ack, now);
        if echo == 0 {
            self.opencwnd();
        }
        if self.last_action == CwndAction::DupAck {
            self.last_action = CwndAction::Exited;
        }
        if ack == 0 && self.p.syn {
            self.cwnd = f64::from(self.p.window_init);
        }
    }

    /// The third duplicate ACK: fast retransmit, if allowed.
    fn dupack_action(&mut self, now: Time) {
        let recovered = self.highest_ack > self.recover;
        let allowed = match self.p.variant {
            Variant::Reno => recovered || self.last_action == CwndAction::DupAck || self.highest_ack == 0,
            Variant::NewReno => recovered || self.highest_ack == 0,
        };
        if !allowed {
            if self.last_action == CwndAction::Ecn {
                // Loss after an ECN cut in the same window: retransmit, no second cut.
                self.retransmit_first_hole(now);
            }
            return; // bugFix_: no second response in the same window
        }
        self.recover = self.maxseq;
        let w = self.cut_base(self.highest_ack, self.lt_sent);
        self.slowdown(w, false, self.loss_floor());
        self.retransmit_first_hole(now);
    }

    /// The fast retransmission itself: last_ack + 1 goes again, the timer restarts
    /// without backoff (ns-2 `reset_rtx_timer(mild)`), the RTT measurement is dropped, and
    /// the window is inflated by the three duplicates.
    fn retransmit_first_hole(&mut self, now: Time) {
        self.last_action = CwndAction::DupAck;
        self.set_timer(now);
        self.rtt_active = false;
        self.stats.fast_retransmits += 1;
        self.output(self.last_ack + 1, now);
        self.dupwnd = 3;
        self.first_partial = false;
    }

    /// An ACK for segments up to `ack` arrived, echoing no congestion.
    pub fn on_ack(&mut self, ack: i64, now: Time) {
        self.on_ack_echo(ack, 0, now);
    }

    /// An ACK for segments up to `ack` arrived, echoing congestion `level` (0 none; 1
    /// RFC 3168's ECE or MECN's incipient; 2 MECN's moderate).
    pub fn on_ack_echo(&mut self, ack: i64, level: u8, now: Time) {
        let echo = if self.cc.answers_marks() { level } else { 0 };
        self.cc.on_ack(ack, (ack - self.highest_ack).max(0) as u64, echo, self.t_seqno);
        if echo > 0 {
            self.ecn(ack, echo);
        }
        if ack < self.last_ack {
            return;
        }
        if ack > self.last_ack {
            let partial = self.p.variant == Variant::NewReno
                && self.last_action == CwndAction::DupAck
                && ack < self.recover;
            if partial {
                self.partial_ack(ack, now);
                self.send_much(now, 2, false);
            } else {
                self.dupwnd = 0;
                self.recv_newack(ack, echo, now);
                self.send_much(now, 0, false);
            }
            return;
        }
        // A duplicate.
        self.dupacks += 1;
        let in_recovery = self.last_action == CwndAction::DupAck;
        if self.dupacks == 3 {
            self.dupack_action(now);
        } else if self.dupacks > 3 && in_recovery {
            self.dupwnd += 1;
        } else if self.dupacks < 3 && self.p.limited_transmit {
            self.send_one(now);
        }
        match self.p.variant {
            Variant::Reno if self.dupacks >= 3 => self.send_much(now, 0, false),
            Variant::NewReno if self.dupacks >= 3 && self.last_action == CwndAction::DupAck => {
                self.send_much(now, 2, false)
            }
            _ => {}
        }
    }

    /// NewReno: an ACK above last_ack and below recover while in fast recovery.
    fn partial_ack(&mut self, ack: i64, now: Time) {
        let d = (ack - self.last_ack) as u32;
        if self.dupwnd > d {
            self.dupwnd -= d - 1;
        } else {
            self.cwnd = (self.cwnd - f64::from(d - self.dupwnd)).max(1.0);
            self.dupwnd = 1;
        }
        self.last_ack = ack;
        self.highest_ack = ack;
        self.t_seqno = self.t_seqno.max(ack + 1);
        if self.rtt_active && ack >= self.rtt_seq {
            self.rtt_active = false;
            self.rto.backoff = 1;
        }
        if !self.first_partial {
            self.first_partial = true;
            self.set_timer(now);
        }
        self.output(ack + 1, now);
    }

    /// The retransmission timer expired at `now`.
    pub fn on_timeout(&mut self, now: Time) {
        self.deadline = None;
        self.dupwnd = 0;
        self.dupacks = 0;
        if !self.outstanding() {
            return;
        }
        self.stats.timeouts += 1;
        self.recover = self.maxseq;
        let w = self.cut_base(self.highest_ack, 0);
        self.slowdown(w, true, 1.0);
        self.rto.back_off();
        self.set_timer(now);
        self.t_seqno = self.highest_ack + 1;
        self.rtt_active = false;
        self.last_action = CwndAction::Timeout;
        self.send_much(now, 0, false);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{PS_PER_MS, PS_PER_S, PS_PER_US};

    fn params(variant: Variant) -> SenderParams {
        SenderParams {
            variant,
            window: 1000,
            window_init: 2,
            syn: false,
            limited_transmit: false,
            rto: RtoParams {
                tick: 0,
                min_rto: 200 * PS_PER_MS,
                max_rto: 60 * PS_PER_S,
                initial_rto: 3 * PS_PER_S,
            },
            ecn: EcnResponse::Off,
            cut: CutRules::default(),
            overhead: 0,
        }
    }

    /// A sender that has had segments 0..=10 acknowledged and sent 11..=20, with
    /// cwnd 10 and ssthresh 20 (reference §5.11's starting point).
    fn at_ten(variant: Variant) -> Sender {
        let mut s = Sender::new(params(variant), 0);
        s.curseq = 1000;
        s.highest_ack = 10;
        s.last_ack = 10;
        s.t_seqno = 11;
        s.maxseq = 10;
        s.cwnd = 10.0;
        s.ssthresh = 20;
        s.send_much(0, 0, false);
        assert_eq!(s.out.drain(..).collect::<Vec<_>>(), (11..=20).collect::<Vec<_>>());
        s
    }

    /// DCTCP from α = 0, cwnd 10 in congestion avoidance: ACK 0 (unmarked) opens cwnd
    /// to 10.1; ACK 1 echoing CE completes the first window (ACK 1 > window_end 0) with
    /// F = 1/2, so α = 1/32, then cuts cwnd to 10.1·(1 − 1/64) and ssthresh to 9; ACK 2
    /// echoing CE in the same window cuts nothing more.
    #[test]
    fn dctcp_cuts_by_half_alpha_once_per_window() {
        let mut p = params(Variant::NewReno);
        p.ecn = EcnResponse::Dctcp(super::super::dctcp::DctcpParams { g: 1.0 / 16.0, alpha_init: 0.0 });
        let mut s = Sender::new(p, 0);
        s.cwnd = 10.0;
        s.ssthresh = 5;
        s.app_send(100, 0);
        assert_eq!(s.out.drain(..).count(), 10);
        s.on_ack_echo(0, 0, PS_PER_US);
        assert!((s.cwnd - 10.1).abs() < 1e-12);
        s.on_ack_echo(1, 1, 2 * PS_PER_US);
        let d = *s.cc.dctcp().unwrap();
        assert_eq!(d.alpha, 1.0 / 32.0);
        assert!((s.cwnd - 10.1 * 63.0 / 64.0).abs() < 1e-12, "{}", s.cwnd);
        assert_eq!((s.ssthresh, s.stats.ecn_responses), (9, 1));
        s.on_ack_echo(2, 1, 3 * PS_PER_US);
        assert_eq!(s.stats.ecn_responses, 1, "once per window");
        assert!((s.cwnd - 10.1 * 63.0 / 64.0).abs() < 1e-12, "an echoing ACK opens nothing");
    }

    #[test]
    fn slow_start_opens_one_per_ack_then_one_per_window() {
        let mut s = Sender::new(params(Variant::NewReno), 0);
        s.ssthresh = 4;
        s.app_send(100, 0);
        assert_eq!(s.out.drain(..).collect::<Vec<_>>(), vec![0, 1], "initial window 2");
        s.on_ack(0, PS_PER_US);
        assert_eq!(s.cwnd, 3.0);
        assert_eq!(s.out.drain(..).collect::<Vec<_>>(), vec![2, 3], "one acked, window 3");
        s.on_ack(1, 2 * PS_PER_US);
        assert_eq!(s.cwnd, 4.0);
        s.on_ack(2, 3 * PS_PER_US);
        assert_eq!(s.cwnd, 4.25, "congestion avoidance at ssthresh: +1/cwnd");
    }

    /// Reference §5.11, Reno: 11 lost; three duplicates give ssthresh 5, cwnd 5.0,
    /// dupwnd 3, window 8 and 11 resent; each further duplicate adds 1 to the window;
    /// the ACK for 20 ends recovery with cwnd 5 + 1/5.
    #[test]
    fn reno_fast_retransmit_and_recovery() {
        let mut s = at_ten(Variant::Reno);
        for _ in 0..3 {
            s.on_ack(10, PS_PER_MS);
        }
        assert_eq!((s.ssthresh, s.cwnd, s.dupwnd, s.window()), (5, 5.0, 3, 8));
        assert_eq!(s.out.drain(..).collect::<Vec<_>>(), vec![11]);
        assert_eq!(s.stats.fast_retransmits, 1);
        s.on_ack(10, PS_PER_MS);
        assert_eq!(s.window(), 9);
        // Window 9 from 10: up to 19 may be out, all already sent.
        assert!(s.out.is_empty());
        for _ in 0..5 {
            s.on_ack(10, PS_PER_MS);
        }
        // dupwnd 9: window 14, segments 21..=24 go.
        assert_eq!(s.out.drain(..).collect::<Vec<_>>(), vec![21, 22, 23, 24]);
        s.on_ack(20, 2 * PS_PER_MS);
        assert_eq!(s.dupwnd, 0);
        assert!((s.cwnd - 5.2).abs() < 1e-12);
        assert_eq!(s.last_action, CwndAction::Exited);
    }

    /// Reference §5.11, NewReno: 11 and 15 lost; 8 duplicates (fast retransmit at the
    /// third, dupwnd 8 at the end); the resent 11 brings the ACK for 14, partial:
    /// d = 4 < dupwnd, so dupwnd = 8 − 3 = 5, cwnd stays 5, and 15 is resent at once.
    #[test]
    fn newreno_partial_ack() {
        let mut s = at_ten(Variant::NewReno);
        for _ in 0..8 {
            s.on_ack(10, PS_PER_MS);
        }
        assert_eq!((s.dupwnd, s.cwnd, s.recover), (8, 5.0, 20));
        let sent: Vec<i64> = s.out.drain(..).collect();
        assert_eq!(sent[0], 11);
        s.on_ack(14, 2 * PS_PER_MS);
        assert_eq!((s.dupwnd, s.cwnd), (5, 5.0));
        assert_eq!(s.out.first(), Some(&15), "the next hole at once");
        assert_eq!(s.last_action, CwndAction::DupAck, "still in recovery");
        let first_deadline = s.deadline;
        // A second partial ACK does not restart the timer.
        s.out.clear();
        s.on_ack(15, 3 * PS_PER_MS);
        assert_eq!(s.deadline, first_deadline);
        // The full ACK ends recovery.
        s.on_ack(24, 4 * PS_PER_MS);
        assert_eq!((s.dupwnd, s.last_action), (0, CwndAction::Exited));
    }

    /// Reno after a partial ACK: recovery is over, and a later triple duplicate is refused
    /// (highest_ack ≤ recover, last action no longer a fast retransmit): the flow waits
    /// for its timeout (reference §5.4, the incast timeouts).
    #[test]
    fn reno_second_loss_waits_for_the_timeout() {
        let mut s = at_ten(Variant::Reno);
        for _ in 0..3 {
            s.on_ack(10, PS_PER_MS);
        }
        s.on_ack(14, 2 * PS_PER_MS);
        assert_eq!(s.last_action, CwndAction::Exited);
        s.out.clear();
        for _ in 0..3 {
            s.on_ack(14, 3 * PS_PER_MS);
        }
        assert_eq!(s.stats.fast_retransmits, 1, "refused");
        assert!(!s.out.contains(&15));
    }

    /// Timeout: ssthresh = max(2, w/2), cwnd 1, backoff doubles, go-back-N from
    /// highest_ack + 1.
    #[test]
    fn timeout_goes_back_n() {
        let mut s = at_ten(Variant::NewReno);
        let deadline = s.deadline.unwrap();
        assert_eq!(deadline, 3 * PS_PER_S, "no sample yet: the initial RTO");
        s.on_timeout(deadline);
        assert_eq!((s.ssthresh, s.cwnd, s.recover), (5, 1.0, 20));
        assert_eq!(s.rto.backoff, 2);
        assert_eq!(s.out.drain(..).collect::<Vec<_>>(), vec![11], "go-back-N, window 1");
        assert_eq!(s.deadline, Some(deadline + 6 * PS_PER_S));
        // The ACK for 11: slow start from 1, and 12, 13 go (again).
        s.on_ack(11, deadline + PS_PER_MS);
        assert_eq!(s.cwnd, 2.0);
        assert_eq!(s.out.drain(..).collect::<Vec<_>>(), vec![12, 13]);
        // Duplicates from the go-back-N resends cannot trigger a fast retransmit below
        // recover.
        for _ in 0..3 {
            s.on_ack(11, deadline + 2 * PS_PER_MS);
        }
        assert_eq!(s.stats.fast_retransmits, 0);
    }

    /// With a SYN: the window is 1 for segment 0 and opens to window_init at its ACK;
    /// the first RTT sample sets the timer.
    #[test]
    fn syn_then_initial_window() {
        let p = SenderParams { syn: true, ..params(Variant::NewReno) };
        let mut s = Sender::new(p, 0);
        s.app_send(10, 0);
        assert_eq!(s.out.drain(..).collect::<Vec<_>>(), vec![0], "the SYN alone");
        s.on_ack(0, 100 * PS_PER_US);
        assert_eq!(s.cwnd, 2.0);
        assert_eq!(s.out.drain(..).collect::<Vec<_>>(), vec![1, 2]);
        assert_eq!(s.deadline, Some(100 * PS_PER_US + 200 * PS_PER_MS), "RTO at its minimum");
    }

    /// Limited Transmit: each of the first two duplicates lets one new segment out.
    #[test]
    fn limited_transmit() {
        let mut s = at_ten(Variant::NewReno);
        s.p.limited_transmit = true;
        s.on_ack(10, PS_PER_MS);
        s.on_ack(10, PS_PER_MS);
        assert_eq!(s.out.drain(..).collect::<Vec<_>>(), vec![21, 22]);
    }

    fn with_ecn(variant: Variant, ecn: EcnResponse) -> Sender {
        let mut s = at_ten(variant);
        s.answer_marks(ecn);
        s
    }

    /// RFC 3168 as ns-2 models it: an echo halves cwnd and ssthresh once per window,
    /// opens nothing, and the next segment sent carries CWR.
    #[test]
    fn ecn_halves_once_per_window() {
        let mut s = with_ecn(Variant::Reno, EcnResponse::Ecn);
        s.on_ack_echo(11, 1, PS_PER_MS);
        assert_eq!((s.cwnd, s.ssthresh, s.recover), (5.0, 5, 20));
        assert_eq!(s.last_action, CwndAction::Ecn);
        assert_eq!(s.stats.ecn_responses, 1);
        // Window 5 from 11: nothing new may go yet (11..=20 are out).
        assert!(s.out.is_empty());
        // Further echoes in the same window: no cut, and no opening either.
        for ack in 12..=16 {
            s.on_ack_echo(ack, 1, PS_PER_MS);
        }
        assert_eq!((s.cwnd, s.stats.ecn_responses), (5.0, 1));
        // An unmarked ACK opens (congestion avoidance, +1/cwnd); 21 goes with CWR.
        s.on_ack_echo(17, 0, PS_PER_MS);
        assert!((s.cwnd - 5.2).abs() < 1e-12);
        assert_eq!(s.out.drain(..).collect::<Vec<_>>(), vec![21, 22]);
        assert_eq!(s.cwr_seq, Some(21));
        // An echo for data sent after the cut: a new window, a new cut.
        s.on_ack_echo(21, 1, 2 * PS_PER_MS);
        assert_eq!((s.cwnd, s.ssthresh, s.stats.ecn_responses), (2.6, 2, 2));
    }

    /// Without ECN negotiated, echoes are ignored.
    #[test]
    fn echoes_without_ecn_are_ignored() {
        let mut s = at_ten(Variant::Reno);
        s.on_ack_echo(11, 2, PS_PER_MS);
        assert_eq!((s.cwnd, s.stats.ecn_responses), (11.0, 0));
    }

    /// MECN: incipient cuts by β1, moderate by β2, each once per window.
    #[test]
    fn mecn_cuts_by_level() {
        let mut s = with_ecn(Variant::Reno, EcnResponse::Mecn { beta1: 0.2, beta2: 0.4 });
        s.on_ack_echo(11, 1, PS_PER_MS);
        assert_eq!((s.cwnd, s.ssthresh), (8.0, 8));
        s.on_ack_echo(12, 2, PS_PER_MS);
        assert_eq!(s.cwnd, 8.0, "same window: no second cut");
        s.recover = 0; // a later window
        s.on_ack_echo(13, 2, PS_PER_MS);
        assert!((s.cwnd - 4.8).abs() < 1e-12);
        assert_eq!(s.ssthresh, 4);
    }

    /// Three duplicates after an ECN cut in the same window: a retransmission without a
    /// second cut (ns-2 `dupack_action`).
    #[test]
    fn loss_after_ecn_cut_retransmits_without_cutting_again() {
        for variant in [Variant::Reno, Variant::NewReno] {
            let mut s = with_ecn(variant, EcnResponse::Ecn);
            s.on_ack_echo(11, 1, PS_PER_MS);
            assert_eq!(s.cwnd, 5.0);
            for _ in 0..3 {
                s.on_ack(11, PS_PER_MS);
            }
            assert_eq!(s.out.drain(..).collect::<Vec<_>>(), vec![12], "{variant:?}");
            assert_eq!((s.cwnd, s.ssthresh, s.dupwnd), (5.0, 5, 3), "{variant:?}");
            assert_eq!(s.last_action, CwndAction::DupAck);
        }
    }

    /// An echo at cwnd 1: the first only notes it, the next doubles the RTO backoff.
    #[test]
    fn echo_at_one_segment_backs_the_timer_off() {
        let mut s = with_ecn(Variant::Reno, EcnResponse::Ecn);
        s.cwnd = 1.0;
        s.on_ack_echo(11, 1, PS_PER_MS);
        let before = s.rto.timeout(); // after the RTT sample this ACK carried
        assert_eq!(s.cwnd, 1.0);
        s.recover = 0;
        s.on_ack_echo(12, 1, PS_PER_MS);
        assert_eq!(s.rto.timeout(), (2 * before).min(60 * PS_PER_S));
    }

    fn with_rules(mut s: Sender, base: CutBase, ecn_floor: u32) -> Sender {
        s.p.cut = CutRules { base, ecn_floor };
        s
    }

    /// The three presets of `tcp.rules` (ns-2, the RFCs, ns-3) as (base, ECN floor).
    const PRESETS: [(CutBase, u32); 3] = [(CutBase::Cwnd, 1), (CutBase::Flight, 1), (CutBase::Flight, 2)];

    /// A sender at reference §5.11's starting point whose cwnd has grown to 16 while the
    /// application had nothing more to give: 11..=20 in flight (10 segments), cwnd 16.
    fn app_limited(variant: Variant) -> Sender {
        let mut s = at_ten(variant);
        s.curseq = 21;
        s.cwnd = 16.0;
        s
    }

    /// Fast retransmit with 10 segments in flight and cwnd 16: ns-2 halves min(cwnd, wnd)
    /// (ssthresh 8, cwnd 8.0, window 8 + 3 = 11); RFC 5681 and ns-3 halve FlightSize
    /// (ssthresh 5, cwnd 5.0, window 8).
    #[test]
    fn fast_retransmit_halves_cwnd_or_flight() {
        for (base, floor) in PRESETS {
            let mut s = with_rules(app_limited(Variant::Reno), base, floor);
            for _ in 0..3 {
                s.on_ack(10, PS_PER_MS);
            }
            let want = if base == CutBase::Cwnd { (8, 8.0, 11) } else { (5, 5.0, 8) };
            assert_eq!((s.ssthresh, s.cwnd, s.window()), want, "{base:?}");
            assert_eq!(s.out.drain(..).collect::<Vec<_>>(), vec![11]);
        }
    }

    /// A small flight: 11..=13 out, cwnd 3. ns-2: ssthresh max(2, ⌊1.5⌋) = 2 and cwnd
    /// 1.5; RFC 5681: ssthresh = cwnd = max(FlightSize/2, 2·SMSS) = 2.
    #[test]
    fn fast_retransmit_floor() {
        for (base, floor) in PRESETS {
            let mut s = with_rules(Sender::new(params(Variant::Reno), 0), base, floor);
            (s.curseq, s.highest_ack, s.last_ack, s.t_seqno, s.maxseq, s.cwnd) = (100, 10, 10, 11, 10, 3.0);
            s.send_much(0, 0, false);
            assert_eq!(s.out.drain(..).collect::<Vec<_>>(), vec![11, 12, 13]);
            for _ in 0..3 {
                s.on_ack(10, PS_PER_MS);
            }
            let want = if base == CutBase::Cwnd { (2, 1.5) } else { (2, 2.0) };
            assert_eq!((s.ssthresh, s.cwnd), want, "{base:?}");
        }
    }

    /// RFC 5681 §3.2 step 2: segments Limited Transmit sent are not counted in FlightSize.
    /// 11..=20 out, the first two duplicates send 21 and 22 (12 in flight); the third
    /// halves 12 − 2 = 10: ssthresh 5 (6 had they been counted).
    #[test]
    fn limited_transmit_is_not_flight() {
        let mut s = with_rules(at_ten(Variant::NewReno), CutBase::Flight, 1);
        s.p.limited_transmit = true;
        for _ in 0..3 {
            s.on_ack(10, PS_PER_MS);
        }
        assert_eq!(s.out.drain(..).collect::<Vec<_>>(), vec![21, 22, 11]);
        assert_eq!((s.ssthresh, s.cwnd), (5, 5.0));
        // The next series starts from zero: a new ACK clears the count.
        s.on_ack(22, 2 * PS_PER_MS);
        assert_eq!(s.lt_sent, 0);
    }

    /// A timeout with 10 in flight and cwnd 16: ssthresh 8 (ns-2) or 5 (flight), cwnd 1.
    /// The same segment timing out again: ns-2 halves the window of 1 (ssthresh 2); the
    /// flight is unchanged (go-back-N resends below maxseq), so RFC 5681's ssthresh stays
    /// 5, as its rule for a segment already resent by the timer asks.
    #[test]
    fn timeout_halves_cwnd_or_flight() {
        for (base, floor) in PRESETS {
            let mut s = with_rules(app_limited(Variant::NewReno), base, floor);
            let t = s.deadline.unwrap();
            s.on_timeout(t);
            let first = if base == CutBase::Cwnd { 8 } else { 5 };
            assert_eq!((s.ssthresh, s.cwnd), (first, 1.0), "{base:?}");
            assert_eq!(s.out.drain(..).collect::<Vec<_>>(), vec![11]);
            s.on_timeout(s.deadline.unwrap());
            let second = if base == CutBase::Cwnd { 2 } else { 5 };
            assert_eq!((s.ssthresh, s.cwnd), (second, 1.0), "{base:?}");
        }
    }

    /// An echo on the ACK for 11 with 11..=20 out and cwnd 10: ns-2 halves cwnd (5.0,
    /// ssthresh 5); the flight once 11 is acknowledged is 9 (cwnd 4.5, ssthresh 4).
    #[test]
    fn ecn_halves_cwnd_or_flight() {
        for (base, floor) in PRESETS {
            let mut s = with_rules(with_ecn(Variant::Reno, EcnResponse::Ecn), base, floor);
            s.on_ack_echo(11, 1, PS_PER_MS);
            let want = if base == CutBase::Cwnd { (5.0, 5) } else { (4.5, 4) };
            assert_eq!((s.cwnd, s.ssthresh), want, "{base:?}");
        }
    }

    /// The ECN floor: 11 and 12 out, cwnd 2, an echo on the ACK for 11. ns-2 halves 2 to
    /// 1; RFC 3168 halves the flight of 1 to 0.5 and bounds it below by one MSS: 1; ns-3
    /// sets cwnd = ssthresh = max(2·SMSS, flight/2) = 2. ssthresh is 2 in all. The floor
    /// on its own (`ecn_floor = 2` with ns-2's base) gives 2 too.
    #[test]
    fn ecn_floor() {
        for (base, floor, want) in [
            (CutBase::Cwnd, 1, 1.0),
            (CutBase::Flight, 1, 1.0),
            (CutBase::Flight, 2, 2.0),
            (CutBase::Cwnd, 2, 2.0),
        ] {
            let mut s = with_rules(Sender::new(params(Variant::Reno), 0), base, floor);
            s.answer_marks(EcnResponse::Ecn);
            (s.curseq, s.highest_ack, s.last_ack, s.t_seqno, s.maxseq, s.cwnd) = (100, 10, 10, 11, 10, 2.0);
            s.send_much(0, 0, false);
            assert_eq!(s.out.drain(..).collect::<Vec<_>>(), vec![11, 12]);
            s.on_ack_echo(11, 1, PS_PER_MS);
            assert_eq!((s.cwnd, s.ssthresh), (want, 2), "{base:?} {floor}");
        }
    }

    /// MECN's cut by β2 = 0.4 at cwnd 2 leaves 1.2 under ns-2's floor of 1, 2 under a
    /// floor of 2.
    #[test]
    fn mecn_floor() {
        for (floor, want) in [(1, 1.2), (2, 2.0)] {
            let mut s = Sender::new(params(Variant::Reno), 0);
            s.answer_marks(EcnResponse::Mecn { beta1: 0.2, beta2: 0.4 });
            s.p.cut.ecn_floor = floor;
            (s.curseq, s.highest_ack, s.last_ack, s.t_seqno, s.maxseq, s.cwnd) = (100, 10, 10, 11, 10, 2.0);
            s.send_much(0, 0, false);
            s.on_ack_echo(11, 2, PS_PER_MS);
            assert!((s.cwnd - want).abs() < 1e-12, "floor {floor}: {}", s.cwnd);
            assert_eq!(s.ssthresh, 2);
        }
    }

    const OVERHEAD: Time = PS_PER_MS;

    fn overhead_stream() -> RngStream {
        RngStream::new(7, crate::engine::StreamKey { kind: "tcp-overhead", name: "test" })
    }

    fn with_overhead(mut s: Sender) -> Sender {
        s.p.overhead = OVERHEAD;
        s.with_overhead(overhead_stream())
    }

    /// ns-2 `overhead_`: the first send waits a draw below the overhead, then the whole
    /// window goes at once; while a delayed send is pending nothing else goes, and its
    /// expiry sends what the window then allows.
    #[test]
    fn overhead_delays_sends_and_then_sends_the_window() {
        let mut s = with_overhead(Sender::new(params(Variant::NewReno), 0));
        let mut draws = overhead_stream();
        s.app_send(100, 0);
        assert!(s.out.is_empty(), "nothing at once");
        let first = draws.below(OVERHEAD);
        assert_eq!(s.delsnd, Some(first));
        s.on_delayed_send(first);
        assert_eq!(s.out.drain(..).collect::<Vec<_>>(), vec![0, 1], "the initial window at once");
        assert_eq!(s.delsnd, None);
        // The ACK for 0 opens the window to 3 (1 and 2 more may go): a new delay.
        let t = 10 * PS_PER_MS;
        s.on_ack(0, t);
        assert!(s.out.is_empty());
        let second = t + draws.below(OVERHEAD);
        assert_eq!(s.delsnd, Some(second));
        // The ACK for 1 before it expires: the window opens to 4, the delay stays.
        s.on_ack(1, t + 1);
        assert_eq!((s.delsnd, s.out.len()), (Some(second), 0));
        s.on_delayed_send(second);
        assert_eq!(s.out.drain(..).collect::<Vec<_>>(), vec![2, 3, 4, 5], "window 4 from 1");
    }

    /// Retransmissions made directly are not delayed: the fast retransmit goes at once.
    /// A timeout's go-back-N goes through `send_much` and waits.
    #[test]
    fn overhead_spares_fast_retransmit_but_not_go_back_n() {
        let mut s = with_overhead(at_ten(Variant::Reno));
        for _ in 0..3 {
            s.on_ack(10, PS_PER_MS);
        }
        assert_eq!(s.out.drain(..).collect::<Vec<_>>(), vec![11]);
        let mut s = with_overhead(at_ten(Variant::NewReno));
        let t = s.deadline.unwrap();
        s.on_timeout(t);
        assert!(s.out.is_empty());
        let at = s.delsnd.expect("a delayed send");
        assert!(at >= t && at < t + OVERHEAD);
        s.on_delayed_send(at);
        assert_eq!(s.out.drain(..).collect::<Vec<_>>(), vec![11]);
    }
}
