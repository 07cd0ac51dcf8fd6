//! The seams through which protocols plug into the data path.
//!
//! The data path ([`crate::sim`]) knows frames, queues, links and nodes; everything a
//! protocol adds happens at one of these seams, each a trait whose hooks default to
//! doing nothing and an enum with one variant per protocol, dispatched by one `match`
//! per call (no `dyn`, no allocation) that a macro writes from the one list of the
//! variants: a new protocol implements the hooks it acts at and adds one variant and one
//! macro line.
//!
//! | seam | where the data path calls it | variants |
//! |---|---|---|
//! | [`AnyDiscipline`](crate::aqm::AnyDiscipline) | every frame offered to an egress queue, and every frame leaving it | drop-tail, ECN threshold marker |
//! | [`AnyCongestionPoint`] | every frame offered to a watched egress queue, any header (it may rewrite the header: FECN probes) | QCN CP, ECM CP, FECN switch |
//! | [`AnyReactionPoint`] | a flow's frames leaving its shaper, feedback and transport acknowledgements reaching its source, its timers (feedback and timers may send frames: probes) | QCN RP (with -P/-PR probes), ECM RP, E2CM RP, FECN source, DCQCN RP, HPCC sender (on transport ACKs) |
//! | [`AnyNotificationPoint`] | a flow's data frame reaching its destination marked CE (may answer the source) | DCQCN NP |
//! | [`AnyLinkControl`] | frames entering and leaving a node's buffer, link-local frames, host input | IEEE 802.3x PAUSE / 802.1Qbb PFC |
//! | host endpoint ([`crate::sim`]'s `deliver`) | a frame reaching a host, dispatched by its [`Header`](crate::net::Header) | data sink, QCN and ECM RPs, FECN probe reflector |
//!
//! A protocol never calls back into the data path: it is handed a [`Ctx`] with the
//! time, its timers and an [`Outbox`] of frames to send, which the data path sends when
//! the hook returns.
//!
//! A protocol reports on a run through [`report`]: its section of `summary.json` is one
//! field of [`Sections`] (a transport's, per flow, of [`FlowSections`]), built by the
//! protocol's own `of` constructor.

pub mod report;

use std::collections::VecDeque;

use crate::engine::{EventQueue, Time, TimerId, Timers};
use crate::l2::{e2cm, ecm, fecn, pause, qcn};
use crate::l4::{dcqcn, hpcc, timely};
use crate::net::{Classes, Frame, FrameId, Header, NodeId, PortId};

pub use report::{Finished, FinishedFlow, FlowSections, Sections};

/// The protocols of a run, by seam.
#[derive(Default)]
pub struct Protocols {
    /// Congestion points, indexed by `Port::cp`.
    pub(crate) congestion_points: Vec<AnyCongestionPoint>,
    /// Reaction points, indexed by `Flow::rp`.
    pub(crate) reaction_points: Vec<AnyReactionPoint>,
    /// Notification points, indexed by flow (empty when no protocol has one).
    pub(crate) notification_points: Vec<Option<AnyNotificationPoint>>,
    /// Link control (PAUSE / PFC), if any.
    pub(crate) link: Option<AnyLinkControl>,
    /// TCP connections, indexed by `Flow::tcp`.
    pub(crate) tcp: Vec<crate::l4::tcp::Connection>,
    /// Incast groups, indexed by `App::Incast::group`.
    pub(crate) incast: Vec<crate::l4::app::IncastGroup>,
    /// RDMA queue pairs, indexed by `Flow::qp`.
    pub(crate) rdma: Vec<crate::l4::rdma::Qp>,
    /// The unit multiplier of in-band telemetry records (HPCC's `int_multi`), or 0 when
    /// no flow collects telemetry: then frames carry no telemetry stacks at all.
    pub(crate) int_multi: u32,
    /// What the points of retired workload flows add to the run's totals.
    pub(crate) retired: Retired,
}

/// What the reaction and notification points of workload flows whose slots were used
/// again add to the totals of `summary.json`: their counters, and their state at the
/// end of the run (which stops changing when a flow finishes), as if they were kept.
#[derive(Clone, Debug, Default)]
pub struct Retired {
    /// DCQCN's.
    pub(crate) dcqcn: dcqcn::Retired,
    /// HPCC's.
    pub(crate) hpcc: hpcc::Retired,
}

impl Retired {
    /// Adds reaction point `rp`, of a run that ends at `end`.
    pub(crate) fn fold_rp(&mut self, rp: &AnyReactionPoint, end: Time) {
        match rp {
            AnyReactionPoint::Dcqcn(rp) => self.dcqcn.fold_rp(rp, end),
            AnyReactionPoint::Hpcc(rp) => self.hpcc.fold(rp),
            _ => {}
        }
    }

    /// Adds notification point `np`.
    pub(crate) fn fold_np(&mut self, np: &AnyNotificationPoint) {
        match np {
            AnyNotificationPoint::Dcqcn(np) => self.dcqcn.fold_np(np),
        }
    }
}

/// Cross-field rules of one parameter table that serde cannot check. A protocol states
/// its rules in its own module; the scenario builder locates a failure at the table's key.
pub trait Validate {
    /// `Ok`, or the failing key relative to the table (e.g. "w") and what was expected.
    fn validate(&self) -> Result<(), (String, String)>;
}

/// What a timer belongs to: the match that dispatches an expiry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimerOwner {
    /// The shaper (rate limiter) of a flow: its next release.
    Shaper {
        /// The flow.
        flow: u32,
    },
    /// One of the timers of a flow's reaction point (QCN: timer T). Which one is its
    /// distance from the first ([`FlowView::timer`]), so that an owner stays 8 bytes.
    ReactionPoint {
        /// The flow.
        flow: u32,
    },
    /// The TCP connection of a flow: its retransmission timer, or (tag 1) its start.
    Tcp {
        /// The flow.
        flow: u32,
    },
    /// The RDMA queue pair of a flow: its retransmission timer.
    Rdma {
        /// The flow.
        flow: u32,
    },
    /// A link-control timer (PAUSE expiry, PAUSE refresh, host input service).
    LinkControl {
        /// What the timer is for.
        owner: LinkTimer,
    },
}

/// What a link-control timer stands for: one variant per link-control protocol, whose
/// own payload only that protocol reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinkTimer {
    /// IEEE 802.3x PAUSE / 802.1Qbb PFC.
    Pause(pause::TimerRole),
}

/// Where a frame in the outbox goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Send {
    /// Looked up and forwarded from this node, like any frame it created.
    Forward {
        /// The node that sends the frame.
        node: NodeId,
    },
    /// Sent on this port ahead of every queued frame (a link-local MAC control frame,
    /// which PAUSE does not stop).
    OnPort {
        /// The port.
        port: PortId,
    },
}

/// Frames a protocol asked to send, in order. Kept by the simulator and reused, so
/// sending allocates nothing once it has grown.
#[derive(Debug, Default)]
pub struct Outbox {
    frames: VecDeque<(Send, Frame)>,
}

impl Outbox {
    /// Takes the oldest frame to send.
    #[inline]
    pub fn pop(&mut self) -> Option<(Send, Frame)> {
        self.frames.pop_front()
    }

    /// Whether nothing waits.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.frames.is_empty()
    }
}

/// What a protocol hook may use: the time, timers, and the outbox.
pub struct Ctx<'a> {
    /// The current time.
    pub(crate) now: Time,
    pub(crate) timers: &'a mut Timers<TimerOwner>,
    pub(crate) events: &'a mut EventQueue,
    pub(crate) outbox: &'a mut Outbox,
}

impl Ctx<'_> {
    /// Sends `frame` as `how` says, once the hook returns.
    #[inline]
    pub fn send(&mut self, how: Send, frame: Frame) {
        self.outbox.frames.push_back((how, frame));
    }

    /// Sends a message of `size` bytes at `priority` from node `node` back to the source
    /// of `frame`, about its flow (a CNM, a BCN, a probe reply).
    #[inline]
    pub fn send_to_source(&mut self, node: NodeId, frame: &Frame, size: u32, priority: u8, header: Header) {
        let message = Frame::message(size, priority, node, frame.src, frame.flow, self.now, header);
        self.send(Send::Forward { node }, message);
    }

    /// Arms (or re-arms) `timer` to expire at `at` with `tag`.
    pub fn arm(&mut self, timer: TimerId, at: Time, tag: u32) {
        self.timers.arm_in(self.events, timer, at, tag);
    }

    /// Cancels `timer` if armed.
    pub fn cancel(&mut self, timer: TimerId) {
        self.timers.cancel(timer);
    }
}

/// An egress queue as a protocol sees it when a frame arrives. Its length is counted
/// when asked for: most arrivals at a sampling congestion point never ask.
#[derive(Clone, Copy, Debug)]
pub struct PortView<'a> {
    /// The port.
    pub(crate) port: PortId,
    /// The node that owns it.
    pub(crate) node: NodeId,
    /// The port's class queues.
    pub(crate) classes: &'a Classes,
    /// The class of the arriving frame.
    pub(crate) class: u8,
    /// Whether the port is serializing a frame.
    pub(crate) serializing: bool,
}

impl PortView<'_> {
    /// Frames in the frame's class queue after the arrival was queued or dropped, counted
    /// by the port's [`Occupancy`](crate::net::Occupancy) convention.
    #[inline]
    pub fn frames(&self) -> u64 {
        self.classes.queue(self.class).len() + self.classes.on_wire(self.class, self.serializing).0
    }

    /// Bytes in the class queue, by the same convention.
    #[inline]
    pub fn bytes(&self) -> u64 {
        self.classes.queue(self.class).bytes() + self.classes.on_wire(self.class, self.serializing).1
    }
}

/// The flow a reaction point belongs to, for the frames it sends itself and the timers
/// it arms itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowView {
    /// Flow id.
    pub(crate) id: u32,
    /// Source host.
    pub(crate) src: NodeId,
    /// Destination host (`NONE` for a multicast or uniform flow).
    pub(crate) dst: NodeId,
    /// The first of the reaction point's [`timers`](ReactionPoint::timers); the others
    /// follow it.
    pub(crate) timers: TimerId,
}

impl FlowView {
    /// The reaction point's timer number `k`, to arm or cancel through a [`Ctx`].
    #[inline]
    pub fn timer(&self, k: u8) -> TimerId {
        debug_assert!(self.timers != crate::net::NONE, "the reaction point has no timers");
        self.timers + TimerId::from(k)
    }
}

/// What a congestion point does with a frame offered to its port; the quiet-bytes
/// hooks have defaults (every arrival seen), so a protocol implements `on_arrival`
/// alone unless it can take arrivals in bulk.
pub trait CongestionPoint {
    /// A frame was offered to the watched queue (after the queue discipline decided its
    /// fate); the congestion point may rewrite it and send frames through `ctx`.
    fn on_arrival(&mut self, ctx: &mut Ctx, queue: &PortView, frame: &mut Frame);

    /// Bytes of data-carrying frames (those with a [`Header::data_tag`]) that may arrive
    /// unseen: the port counts them and hands their number, and what is left of the
    /// grant, to [`absorb`](Self::absorb) before the next arrival it shows. Zero: every
    /// arrival is seen.
    ///
    /// [`Header::data_tag`]: crate::net::Header::data_tag
    fn grant_quiet(&mut self) -> u32 {
        0
    }

    /// `frames` data-carrying frames arrived unseen, leaving `left` bytes of the grant.
    fn absorb(&mut self, _frames: u32, _left: u32) {}
}

/// A congestion point attached to an egress port: sees every frame offered to the port's
/// queue, of any kind, after the queue discipline decided its fate.
#[derive(Clone, Debug)]
pub enum AnyCongestionPoint {
    /// An IEEE 802.1Qau QCN congestion point.
    Qcn(qcn::CongestionPoint),
    /// An ECM (BCN) congestion point.
    Ecm(ecm::CongestionPoint),
    /// A FECN switch port: computes the advertised rate and stamps probes.
    Fecn(fecn::CongestionPoint),
}

/// `$body` with `$cp` bound to the congestion point inside `$any`, whatever its
/// protocol: the one place that lists the variants.
macro_rules! each_congestion_point {
    ($any:expr, $cp:ident => $body:expr) => {
        match $any {
            AnyCongestionPoint::Qcn($cp) => $body,
            AnyCongestionPoint::Ecm($cp) => $body,
            AnyCongestionPoint::Fecn($cp) => $body,
        }
    };
}

impl AnyCongestionPoint {
    /// See [`CongestionPoint::on_arrival`].
    #[inline]
    pub fn on_arrival(&mut self, ctx: &mut Ctx, queue: &PortView, frame: &mut Frame) {
        each_congestion_point!(self, cp => CongestionPoint::on_arrival(cp, ctx, queue, frame))
    }

    /// See [`CongestionPoint::grant_quiet`].
    #[inline]
    pub fn grant_quiet(&mut self) -> u32 {
        each_congestion_point!(self, cp => CongestionPoint::grant_quiet(cp))
    }

    /// See [`CongestionPoint::absorb`].
    #[inline]
    pub fn absorb(&mut self, frames: u32, left: u32) {
        each_congestion_point!(self, cp => CongestionPoint::absorb(cp, frames, left))
    }
}

impl CongestionPoint for qcn::CongestionPoint {
    #[inline]
    fn on_arrival(&mut self, ctx: &mut Ctx, queue: &PortView, frame: &mut Frame) {
        qcn::CongestionPoint::on_arrival(self, ctx, queue, frame)
    }

    /// QCN's byte and sampling counters are sums, taken at once.
    #[inline]
    fn grant_quiet(&mut self) -> u32 {
        qcn::CongestionPoint::grant_quiet(self)
    }

    #[inline]
    fn absorb(&mut self, frames: u32, left: u32) {
        self.cp.absorb(frames, left)
    }
}

impl CongestionPoint for ecm::CongestionPoint {
    #[inline]
    fn on_arrival(&mut self, ctx: &mut Ctx, queue: &PortView, frame: &mut Frame) {
        ecm::CongestionPoint::on_arrival(self, ctx, queue, frame)
    }
}

impl CongestionPoint for fecn::CongestionPoint {
    #[inline]
    fn on_arrival(&mut self, ctx: &mut Ctx, queue: &PortView, frame: &mut Frame) {
        fecn::CongestionPoint::on_arrival(self, ctx, queue, frame)
    }
}

/// What a reaction point decided: a new rate for its flow's shaper and/or its first
/// timer (re)armed. Every reaction point's hooks return one; a reaction point with more
/// timers arms the others itself, through the hook's [`Ctx`] and [`FlowView::timer`].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RateChange {
    /// New limiter rate, bit/s.
    pub(crate) rate_bps: Option<u64>,
    /// Arm the reaction point's timer 0: fire after this delay with this tag (an epoch,
    /// so that a timer superseded by a later arming is recognised as stale).
    pub(crate) arm_timer: Option<(Time, u32)>,
}

/// A transport acknowledgement as the source's reaction point sees it (an RDMA ACK):
/// what a delay- or telemetry-driven rate control (HPCC, TIMELY) reads from it.
#[derive(Clone, Copy, Debug)]
pub struct AckView<'a> {
    /// Bytes of the message acknowledged in all.
    pub(crate) acked: u64,
    /// Bytes of the message sent or being sent: the next byte to send.
    pub(crate) next: u64,
    /// The in-band telemetry the acknowledged packet collected, echoed (empty when the
    /// flow collects none).
    pub(crate) int: &'a hpcc::IntStack,
    /// When the acknowledged packet was sent, as its header's timestamp echoes it (for
    /// a flow that measures RTTs; else 0).
    pub(crate) sent: Time,
}

/// What a reaction point does at each hook; every hook but the rate has a default
/// (nothing happens), so a protocol implements only the hooks it acts at. The data path
/// calls them through [`AnyReactionPoint`], one `match` per call, no `dyn`.
pub trait ReactionPoint {
    /// Whether this reaction point writes into its flow's data frames, for a flow whose
    /// frames are multicast or not.
    fn stamps(&self, _multicast: bool) -> bool {
        false
    }

    /// Fills what the flow's data frames carry for this protocol. Called for every
    /// data frame of flows whose reaction point [`stamps`](Self::stamps).
    fn stamp(&self, _frame: &mut Frame) {}

    /// How many timers the reaction point arms, numbered from 0 (one: timer 0, armed
    /// through [`RateChange::arm_timer`]).
    fn timers(&self) -> u8 {
        1
    }

    /// A feedback frame for this flow reached its source. `None` when the frame is not
    /// this protocol's feedback.
    fn on_feedback(
        &mut self,
        _ctx: &mut Ctx,
        _flow: &FlowView,
        _frame: &Frame,
        _line_bps: u64,
    ) -> Option<RateChange> {
        None
    }

    /// Bytes the flow may release before this reaction point must hear of a release:
    /// the flow counts them down and hands what is left of the grant to
    /// [`absorb`](Self::absorb) before any other call. Zero: every release is seen.
    fn grant_quiet(&mut self) -> u32 {
        0
    }

    /// The flow released bytes while the reaction point was quiet, leaving `left` of
    /// the grant.
    fn absorb(&mut self, _left: u32) {}

    /// The shaper released `bytes` of the flow; frames it sends go through `ctx`.
    fn on_transmit(&mut self, _ctx: &mut Ctx, _flow: &FlowView, _bytes: u32, _line_bps: u64) -> RateChange {
        RateChange::default()
    }

    /// The reaction point's timer number `timer` expired with `tag`; frames it sends go
    /// through `ctx`.
    fn on_timer(
        &mut self,
        _ctx: &mut Ctx,
        _flow: &FlowView,
        _timer: u8,
        _tag: u32,
        _line_bps: u64,
    ) -> RateChange {
        RateChange::default()
    }

    /// Whether the reaction point hears its flow's transport acknowledgements
    /// ([`on_ack`](Self::on_ack)).
    fn hears_acks(&self) -> bool {
        false
    }

    /// A transport acknowledgement of the flow reached its source (only where
    /// [`hears_acks`](Self::hears_acks)).
    fn on_ack(&mut self, _ctx: &mut Ctx, _flow: &FlowView, _ack: &AckView, _line_bps: u64) -> RateChange {
        RateChange::default()
    }

    /// The rate the reaction point currently allows, bit/s.
    fn current_rate(&self) -> u64;

    /// Feedback frames received since the last call (for the per-interval series).
    fn take_feedback_count(&mut self) -> u64 {
        0
    }

    /// The rate this reaction point contributes to Devkota & Reddy's "minrate" at a
    /// sample (the lowest rate any contributing reaction point allows), bit/s; `None`
    /// for a protocol that does not take part.
    fn minrate_sample(&self) -> Option<u64> {
        None
    }
}

/// The reaction point of a flow: sets the rate of the flow's shaper from feedback.
#[derive(Clone, Debug)]
pub enum AnyReactionPoint {
    /// An IEEE 802.1Qau QCN reaction point.
    Qcn(qcn::Rp),
    /// An ECM (BCN) reaction point: the flow's rate regulators.
    Ecm(ecm::Rp),
    /// An E2CM-P / E2CM-PR reaction point: ECM's regulators, with probes.
    E2cm(e2cm::Rp),
    /// A FECN source: probes its path and follows the advertised rate.
    Fecn(fecn::Rp),
    /// A DCQCN sending NIC's rate limiter.
    Dcqcn(dcqcn::Rp),
    /// An HPCC sender: rate (and window) from the telemetry its ACKs echo.
    Hpcc(hpcc::Rp),
    /// A TIMELY sender: rate from the RTTs its ACKs measure.
    Timely(timely::Timely),
}

/// `$body` with `$rp` bound to the reaction point inside `$any`, whatever its protocol:
/// the one place that lists the variants.
macro_rules! each_reaction_point {
    ($any:expr, $rp:ident => $body:expr) => {
        match $any {
            AnyReactionPoint::Qcn($rp) => $body,
            AnyReactionPoint::Ecm($rp) => $body,
            AnyReactionPoint::E2cm($rp) => $body,
            AnyReactionPoint::Fecn($rp) => $body,
            AnyReactionPoint::Dcqcn($rp) => $body,
            AnyReactionPoint::Hpcc($rp) => $body,
            AnyReactionPoint::Timely($rp) => $body,
        }
    };
}

impl AnyReactionPoint {
    /// See [`ReactionPoint::stamps`].
    pub fn stamps(&self, multicast: bool) -> bool {
        each_reaction_point!(self, rp => ReactionPoint::stamps(rp, multicast))
    }

    /// See [`ReactionPoint::stamp`].
    #[inline]
    pub fn stamp(&self, frame: &mut Frame) {
        each_reaction_point!(self, rp => ReactionPoint::stamp(rp, frame))
    }

    /// See [`ReactionPoint::timers`].
    pub fn timers(&self) -> u8 {
        each_reaction_point!(self, rp => ReactionPoint::timers(rp))
    }

    /// See [`ReactionPoint::on_feedback`].
    #[inline]
    pub fn on_feedback(
        &mut self,
        ctx: &mut Ctx,
        flow: &FlowView,
        frame: &Frame,
        line_bps: u64,
    ) -> Option<RateChange> {
        each_reaction_point!(self, rp => ReactionPoint::on_feedback(rp, ctx, flow, frame, line_bps))
    }

    /// See [`ReactionPoint::grant_quiet`].
    #[inline]
    pub fn grant_quiet(&mut self) -> u32 {
        each_reaction_point!(self, rp => ReactionPoint::grant_quiet(rp))
    }

    /// See [`ReactionPoint::absorb`].
    #[inline]
    pub fn absorb(&mut self, left: u32) {
        each_reaction_point!(self, rp => ReactionPoint::absorb(rp, left))
    }

    /// See [`ReactionPoint::on_transmit`].
    #[inline]
    pub fn on_transmit(&mut self, ctx: &mut Ctx, flow: &FlowView, bytes: u32, line_bps: u64) -> RateChange {
        each_reaction_point!(self, rp => ReactionPoint::on_transmit(rp, ctx, flow, bytes, line_bps))
    }

    /// See [`ReactionPoint::on_timer`].
    #[inline]
    pub fn on_timer(
        &mut self,
        ctx: &mut Ctx,
        flow: &FlowView,
        timer: u8,
        tag: u32,
        line_bps: u64,
    ) -> RateChange {
        each_reaction_point!(self, rp => ReactionPoint::on_timer(rp, ctx, flow, timer, tag, line_bps))
    }

    /// See [`ReactionPoint::hears_acks`].
    #[inline]
    pub fn hears_acks(&self) -> bool {
        each_reaction_point!(self, rp => ReactionPoint::hears_acks(rp))
    }

    /// See [`ReactionPoint::on_ack`].
    #[inline]
    pub fn on_ack(&mut self, ctx: &mut Ctx, flow: &FlowView, ack: &AckView, line_bps: u64) -> RateChange {
        each_reaction_point!(self, rp => ReactionPoint::on_ack(rp, ctx, flow, ack, line_bps))
    }

    /// See [`ReactionPoint::current_rate`].
    pub fn current_rate(&self) -> u64 {
        each_reaction_point!(self, rp => ReactionPoint::current_rate(rp))
    }

    /// See [`ReactionPoint::take_feedback_count`].
    pub fn take_feedback_count(&mut self) -> u64 {
        each_reaction_point!(self, rp => ReactionPoint::take_feedback_count(rp))
    }

    /// See [`ReactionPoint::minrate_sample`].
    pub fn minrate_sample(&self) -> Option<u64> {
        each_reaction_point!(self, rp => ReactionPoint::minrate_sample(rp))
    }

    /// The QCN reaction point, if this is one.
    pub fn as_qcn(&self) -> Option<&qcn::Rp> {
        match self {
            AnyReactionPoint::Qcn(rp) => Some(rp),
            _ => None,
        }
    }

    /// The HPCC sender, if this is one.
    pub fn as_hpcc(&self) -> Option<&hpcc::Rp> {
        match self {
            AnyReactionPoint::Hpcc(rp) => Some(rp),
            _ => None,
        }
    }

    /// The TIMELY sender, if this is one.
    pub fn as_timely(&self) -> Option<&timely::Timely> {
        match self {
            AnyReactionPoint::Timely(rp) => Some(rp),
            _ => None,
        }
    }

    /// The ECM reaction point, if this is one.
    pub fn as_ecm(&self) -> Option<&ecm::Rp> {
        match self {
            AnyReactionPoint::Ecm(rp) => Some(rp),
            AnyReactionPoint::E2cm(rp) => Some(&rp.ecm),
            _ => None,
        }
    }
}

impl ReactionPoint for qcn::Rp {
    fn stamps(&self, multicast: bool) -> bool {
        multicast && self.scheme != qcn::MulticastScheme::Standard
    }

    /// QCN's enhanced schemes: the representative on multicast frames.
    #[inline]
    fn stamp(&self, frame: &mut Frame) {
        if frame.multicast && self.scheme != qcn::MulticastScheme::Standard {
            frame.header = Header::Data(self.representative());
        }
    }

    #[inline]
    fn on_feedback(
        &mut self,
        _ctx: &mut Ctx,
        _flow: &FlowView,
        frame: &Frame,
        line_bps: u64,
    ) -> Option<RateChange> {
        match frame.header {
            Header::Cnm(cnm) => Some(self.on_cnm(cnm, line_bps)),
            Header::ProbeReply(reply) => Some(self.on_reply(reply, line_bps)),
            _ => None,
        }
    }

    #[inline]
    fn grant_quiet(&mut self) -> u32 {
        qcn::Rp::grant_quiet(self)
    }

    #[inline]
    fn absorb(&mut self, left: u32) {
        qcn::Rp::absorb(self, left)
    }

    #[inline]
    fn on_transmit(&mut self, ctx: &mut Ctx, flow: &FlowView, bytes: u32, line_bps: u64) -> RateChange {
        self.probe(ctx, flow, bytes);
        qcn::Rp::on_transmit(self, bytes, line_bps)
    }

    fn on_timer(
        &mut self,
        _ctx: &mut Ctx,
        _flow: &FlowView,
        _timer: u8,
        tag: u32,
        line_bps: u64,
    ) -> RateChange {
        qcn::Rp::on_timer(self, tag, line_bps)
    }

    fn current_rate(&self) -> u64 {
        qcn::Rp::current_rate(self)
    }

    fn take_feedback_count(&mut self) -> u64 {
        std::mem::take(&mut self.cnms_since_sample)
    }

    /// Its current rate CR.
    fn minrate_sample(&self) -> Option<u64> {
        Some(qcn::Rp::current_rate(self))
    }
}

impl ReactionPoint for ecm::Rp {
    /// The rate-regulator tag, on every data frame.
    fn stamps(&self, _multicast: bool) -> bool {
        true
    }

    #[inline]
    fn stamp(&self, frame: &mut Frame) {
        frame.header = Header::Data(qcn::Representative { fb: 0, cpid: self.tag() });
    }

    #[inline]
    fn on_feedback(
        &mut self,
        _ctx: &mut Ctx,
        _flow: &FlowView,
        frame: &Frame,
        _line_bps: u64,
    ) -> Option<RateChange> {
        match frame.header {
            Header::Bcn(bcn) => Some(self.on_bcn(bcn)),
            _ => None,
        }
    }

    /// ECM changes rates on feedback and drift only.
    fn grant_quiet(&mut self) -> u32 {
        u32::MAX
    }

    fn on_timer(
        &mut self,
        _ctx: &mut Ctx,
        _flow: &FlowView,
        _timer: u8,
        _tag: u32,
        _line_bps: u64,
    ) -> RateChange {
        ecm::Rp::on_timer(self)
    }

    fn current_rate(&self) -> u64 {
        self.rate()
    }

    fn take_feedback_count(&mut self) -> u64 {
        std::mem::take(&mut self.bcns_since_sample)
    }
}

impl ReactionPoint for e2cm::Rp {
    #[inline]
    fn on_feedback(
        &mut self,
        _ctx: &mut Ctx,
        _flow: &FlowView,
        frame: &Frame,
        _line_bps: u64,
    ) -> Option<RateChange> {
        match frame.header {
            Header::Bcn(bcn) => Some(self.on_bcn(bcn)),
            Header::ProbeReply(reply) => Some(self.on_reply(reply)),
            Header::PathProbe(probe) => Some(self.on_path_reply(probe)),
            _ => None,
        }
    }

    /// Probes are due by bytes sent: every release is seen (the default grant, 0).
    #[inline]
    fn on_transmit(&mut self, ctx: &mut Ctx, flow: &FlowView, bytes: u32, _line_bps: u64) -> RateChange {
        e2cm::Rp::on_transmit(self, ctx, flow, bytes)
    }

    fn on_timer(
        &mut self,
        _ctx: &mut Ctx,
        _flow: &FlowView,
        _timer: u8,
        _tag: u32,
        _line_bps: u64,
    ) -> RateChange {
        e2cm::Rp::on_timer(self)
    }

    fn current_rate(&self) -> u64 {
        self.rate()
    }

    fn take_feedback_count(&mut self) -> u64 {
        std::mem::take(&mut self.ecm.bcns_since_sample)
    }
}

impl ReactionPoint for fecn::Rp {
    #[inline]
    fn on_feedback(
        &mut self,
        _ctx: &mut Ctx,
        _flow: &FlowView,
        frame: &Frame,
        _line_bps: u64,
    ) -> Option<RateChange> {
        match frame.header {
            Header::Fecn(probe) => Some(self.on_probe(probe)),
            Header::Bcn(bcn) if bcn.severe => Some(self.on_severe()),
            _ => None,
        }
    }

    #[inline]
    fn grant_quiet(&mut self) -> u32 {
        self.quiet_bytes()
    }

    #[inline]
    fn on_transmit(&mut self, _ctx: &mut Ctx, _flow: &FlowView, _bytes: u32, _line_bps: u64) -> RateChange {
        fecn::Rp::on_transmit(self)
    }

    fn on_timer(
        &mut self,
        ctx: &mut Ctx,
        flow: &FlowView,
        _timer: u8,
        _tag: u32,
        _line_bps: u64,
    ) -> RateChange {
        fecn::Rp::on_timer(self, ctx, flow)
    }

    fn current_rate(&self) -> u64 {
        self.rate()
    }

    fn take_feedback_count(&mut self) -> u64 {
        std::mem::take(&mut self.probes_since_sample)
    }
}

impl ReactionPoint for dcqcn::Rp {
    fn timers(&self) -> u8 {
        dcqcn::Rp::timers(self)
    }

    #[inline]
    fn on_feedback(
        &mut self,
        ctx: &mut Ctx,
        flow: &FlowView,
        frame: &Frame,
        line_bps: u64,
    ) -> Option<RateChange> {
        match frame.header {
            Header::Cnp(_) => {
                let (change, decrease_at) = self.on_cnp(ctx.now, line_bps);
                if let Some(at) = decrease_at {
                    ctx.arm(flow.timer(dcqcn::DECREASE_CLOCK), at, 0);
                }
                Some(change)
            }
            _ => None,
        }
    }

    /// The fork's clocks change rates on CNPs and timers only.
    #[inline]
    fn grant_quiet(&mut self) -> u32 {
        if self.forked() {
            u32::MAX
        } else {
            self.rate.grant_quiet()
        }
    }

    #[inline]
    fn absorb(&mut self, left: u32) {
        if !self.forked() {
            self.rate.absorb(left)
        }
    }

    #[inline]
    fn on_transmit(&mut self, _ctx: &mut Ctx, _flow: &FlowView, bytes: u32, line_bps: u64) -> RateChange {
        if self.forked() {
            RateChange::default()
        } else {
            self.rate.on_transmit(bytes, line_bps)
        }
    }

    fn on_timer(
        &mut self,
        ctx: &mut Ctx,
        _flow: &FlowView,
        timer: u8,
        tag: u32,
        line_bps: u64,
    ) -> RateChange {
        match (timer, self.forked()) {
            (dcqcn::DECREASE_CLOCK, _) => self.fork_decrease(ctx.now),
            (_, true) => self.fork_increase(tag, line_bps),
            (_, false) => self.rate.on_timer(tag, line_bps),
        }
    }

    fn current_rate(&self) -> u64 {
        self.rate.current_rate()
    }

    fn take_feedback_count(&mut self) -> u64 {
        std::mem::take(&mut self.cnps_since_sample)
    }
}

impl ReactionPoint for hpcc::Rp {
    /// HPCC has no timers: every change comes with an ACK.
    fn timers(&self) -> u8 {
        0
    }

    fn hears_acks(&self) -> bool {
        true
    }

    /// The shaper's releases change nothing: the rate moves on ACKs only.
    #[inline]
    fn grant_quiet(&mut self) -> u32 {
        u32::MAX
    }

    #[inline]
    fn on_ack(&mut self, _ctx: &mut Ctx, _flow: &FlowView, ack: &AckView, _line_bps: u64) -> RateChange {
        RateChange { rate_bps: self.on_ack(ack.acked, ack.next, ack.int), arm_timer: None }
    }

    fn current_rate(&self) -> u64 {
        self.rate()
    }
}

impl ReactionPoint for timely::Timely {
    /// TIMELY has no timers: every change comes with an ACK.
    fn timers(&self) -> u8 {
        0
    }

    fn hears_acks(&self) -> bool {
        true
    }

    /// The shaper's releases change nothing: the rate moves on ACKs only.
    #[inline]
    fn grant_quiet(&mut self) -> u32 {
        u32::MAX
    }

    /// The RTT is now less the send time the ACK echoes.
    #[inline]
    fn on_ack(&mut self, ctx: &mut Ctx, _flow: &FlowView, ack: &AckView, _line_bps: u64) -> RateChange {
        let rtt = ctx.now.saturating_sub(ack.sent);
        RateChange { rate_bps: self.on_ack(ack.acked, ack.next, rtt), arm_timer: None }
    }

    fn current_rate(&self) -> u64 {
        self.rate().round() as u64
    }
}

/// The host endpoint's part for round-trip probes (FECN's rate-discovery probes, E2CM's
/// path probes): one reaching its destination goes back to its source, marked
/// returning. Returns false for a probe back at its source, which is the source's
/// feedback (and for any other frame).
pub fn reflect_probe(ctx: &mut Ctx, host: NodeId, frame: &Frame) -> bool {
    let header = match frame.header {
        Header::Fecn(p) if !p.returning => Header::Fecn(fecn::Probe { returning: true, ..p }),
        Header::PathProbe(p) if !p.returning => Header::PathProbe(e2cm::PathProbe { returning: true, ..p }),
        _ => return false,
    };
    let back = Frame { src: host, dst: frame.src, born: ctx.now, header, ..*frame };
    ctx.send(Send::Forward { node: host }, back);
    true
}

/// What a notification point does, at the destination host of its flow; the hook has a
/// default (nothing), like every seam's.
pub trait NotificationPoint {
    /// A data frame of the flow marked CE reached its destination `host`; the
    /// notification point may answer the source through `ctx`.
    fn on_marked(&mut self, _ctx: &mut Ctx, _host: NodeId, _frame: &Frame) {}
}

/// The notification point of a flow, at its destination host: it sees the flow's data
/// frames that arrive marked CE and may answer the source.
#[derive(Clone, Debug)]
pub enum AnyNotificationPoint {
    /// A DCQCN receiving NIC.
    Dcqcn(dcqcn::Np),
}

/// `$body` with `$np` bound to the notification point inside `$any`, whatever its
/// protocol: the one place that lists the variants.
macro_rules! each_notification_point {
    ($any:expr, $np:ident => $body:expr) => {
        match $any {
            AnyNotificationPoint::Dcqcn($np) => $body,
        }
    };
}

impl AnyNotificationPoint {
    /// See [`NotificationPoint::on_marked`].
    #[inline]
    pub fn on_marked(&mut self, ctx: &mut Ctx, host: NodeId, frame: &Frame) {
        each_notification_point!(self, np => NotificationPoint::on_marked(np, ctx, host, frame))
    }

    /// The DCQCN notification point, if this is one.
    pub fn as_dcqcn(&self) -> Option<&dcqcn::Np> {
        match self {
            AnyNotificationPoint::Dcqcn(np) => Some(np),
        }
    }
}

/// One CNP per flow per N, while marked packets arrive.
impl NotificationPoint for dcqcn::Np {
    #[inline]
    fn on_marked(&mut self, ctx: &mut Ctx, host: NodeId, frame: &Frame) {
        if dcqcn::Np::on_marked(self, ctx.now) {
            let (size, priority) = (self.cnp_size, self.cnp_priority);
            ctx.send_to_source(host, frame, size, priority, Header::Cnp(dcqcn::Cnp));
        }
    }
}

/// What happened to a frame that reached a host.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HostArrival {
    /// The host has no input model: the frame goes to its endpoint now.
    Deliver,
    /// Held in the input buffer until served.
    Held,
    /// Lost: the input buffer was full.
    Dropped,
}

/// What a link-control timer asks of the data path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimerAction {
    /// Nothing.
    None,
    /// A port may send again: start its transmitter if it is idle.
    Kick(PortId),
    /// A host finished serving a frame: hand it to the endpoint.
    Deliver(NodeId, FrameId),
}

/// What a link-control protocol does at each hook; every hook has a default (the link
/// is not controlled), so a protocol implements only those it acts at. The data path
/// calls them through [`AnyLinkControl`], one `match` per call, no `dyn`.
pub trait LinkControl {
    /// Whether class `class` of the port with link state `slot` may send.
    fn may_send(&self, _slot: u32, _class: u8, _now: Time) -> bool {
        true
    }

    /// A frame that entered node `node` through the port with link state `slot` was
    /// queued there.
    fn on_admitted(&mut self, _ctx: &mut Ctx, _slot: u32, _node: NodeId, _frame: &Frame) {}

    /// That frame left node `node`'s queues.
    fn on_left(&mut self, _ctx: &mut Ctx, _slot: u32, _node: NodeId, _frame: &Frame) {}

    /// A link-local frame reached the port with link state `slot`; `class_of` maps a
    /// priority to the port's class. Returns whether the port should try to send now.
    fn on_link_local(
        &mut self,
        _ctx: &mut Ctx,
        _slot: u32,
        _frame: &Frame,
        _class_of: impl Fn(u8) -> u8,
    ) -> bool {
        false
    }

    /// A frame reached host `host`.
    fn on_host_arrival(&mut self, _ctx: &mut Ctx, _host: NodeId, _id: FrameId, _size: u32) -> HostArrival {
        HostArrival::Deliver
    }

    /// One of its timers expired.
    fn on_timer(&mut self, _ctx: &mut Ctx, _timer: LinkTimer) -> TimerAction {
        TimerAction::None
    }

    /// Each host that drains its input at a service rate, and the rate in bit/s.
    fn service_rates(&self) -> Vec<(NodeId, u64)> {
        Vec::new()
    }

    /// Frames the link control holds (host input buffers).
    fn frames_held(&self) -> u64 {
        0
    }
}

/// The link-control seam: flow control between the two ends of a link.
#[derive(Clone, Debug)]
pub enum AnyLinkControl {
    /// IEEE 802.3x PAUSE / 802.1Qbb PFC with host input service.
    Pause(pause::Pause),
}

/// `$body` with `$lc` bound to the link control inside `$any`, whatever its protocol:
/// the one place that lists the variants.
macro_rules! each_link_control {
    ($any:expr, $lc:ident => $body:expr) => {
        match $any {
            AnyLinkControl::Pause($lc) => $body,
        }
    };
}

impl AnyLinkControl {
    /// The node a link-control timer acts at (see [`crate::sim::partition`]).
    pub(crate) fn timer_node(&self, timer: LinkTimer, node_of_port: impl Fn(PortId) -> NodeId) -> NodeId {
        match (self, timer) {
            (AnyLinkControl::Pause(p), LinkTimer::Pause(role)) => p.timer_node(role, node_of_port),
        }
    }

    /// Takes from `other`, another partition's replica, the state at the nodes `theirs`
    /// says are its.
    pub(crate) fn take_from(
        &mut self,
        other: &mut AnyLinkControl,
        node_of_port: impl Fn(PortId) -> NodeId,
        theirs: impl Fn(NodeId) -> bool,
    ) {
        match (self, other) {
            (AnyLinkControl::Pause(mine), AnyLinkControl::Pause(other)) => {
                mine.take_from(other, node_of_port, theirs)
            }
        }
    }

    /// Whether class `class` of a port whose link state is `slot` (`NONE` for a port no
    /// link control concerns) may send under `link`, if any.
    #[inline(always)] // in every enqueue; out of line it costs 1.5 % of dumbbell-tcp-64
    pub fn gate_open(link: &Option<AnyLinkControl>, slot: u32, class: u8, now: Time) -> bool {
        slot == crate::net::NONE || link.as_ref().is_none_or(|l| l.may_send(slot, class, now))
    }

    /// See [`LinkControl::service_rates`].
    pub fn service_rates(&self) -> Vec<(NodeId, u64)> {
        each_link_control!(self, lc => LinkControl::service_rates(lc))
    }

    /// See [`LinkControl::may_send`].
    #[inline]
    pub fn may_send(&self, slot: u32, class: u8, now: Time) -> bool {
        each_link_control!(self, lc => LinkControl::may_send(lc, slot, class, now))
    }

    /// See [`LinkControl::on_admitted`].
    #[inline]
    pub fn on_admitted(&mut self, ctx: &mut Ctx, slot: u32, node: NodeId, frame: &Frame) {
        each_link_control!(self, lc => LinkControl::on_admitted(lc, ctx, slot, node, frame))
    }

    /// See [`LinkControl::on_left`].
    #[inline]
    pub fn on_left(&mut self, ctx: &mut Ctx, slot: u32, node: NodeId, frame: &Frame) {
        each_link_control!(self, lc => LinkControl::on_left(lc, ctx, slot, node, frame))
    }

    /// See [`LinkControl::on_link_local`].
    pub fn on_link_local(
        &mut self,
        ctx: &mut Ctx,
        slot: u32,
        frame: &Frame,
        class_of: impl Fn(u8) -> u8,
    ) -> bool {
        each_link_control!(self, lc => LinkControl::on_link_local(lc, ctx, slot, frame, class_of))
    }

    /// See [`LinkControl::on_host_arrival`].
    #[inline]
    pub fn on_host_arrival(&mut self, ctx: &mut Ctx, host: NodeId, id: FrameId, size: u32) -> HostArrival {
        each_link_control!(self, lc => LinkControl::on_host_arrival(lc, ctx, host, id, size))
    }

    /// See [`LinkControl::on_timer`].
    pub fn on_timer(&mut self, ctx: &mut Ctx, timer: LinkTimer) -> TimerAction {
        each_link_control!(self, lc => LinkControl::on_timer(lc, ctx, timer))
    }

    /// See [`LinkControl::frames_held`].
    pub fn frames_held(&self) -> u64 {
        each_link_control!(self, lc => LinkControl::frames_held(lc))
    }

    /// The PAUSE state, if this is PAUSE.
    pub fn as_pause(&self) -> Option<&pause::Pause> {
        match self {
            AnyLinkControl::Pause(p) => Some(p),
        }
    }
}

impl LinkControl for pause::Pause {
    #[inline]
    fn may_send(&self, slot: u32, class: u8, now: Time) -> bool {
        pause::Pause::may_send(self, slot, class, now)
    }

    #[inline]
    fn on_admitted(&mut self, ctx: &mut Ctx, slot: u32, node: NodeId, frame: &Frame) {
        pause::Pause::on_admitted(self, ctx, slot, node, frame.priority, frame.size)
    }

    #[inline]
    fn on_left(&mut self, ctx: &mut Ctx, slot: u32, node: NodeId, frame: &Frame) {
        pause::Pause::on_left(self, ctx, slot, node, frame.priority, frame.size)
    }

    /// A PAUSE or PFC frame from the link's other end.
    fn on_link_local(
        &mut self,
        ctx: &mut Ctx,
        slot: u32,
        frame: &Frame,
        class_of: impl Fn(u8) -> u8,
    ) -> bool {
        match frame.header {
            Header::Pause(pause) => self.on_receive(ctx, slot, &pause, class_of),
            _ => false,
        }
    }

    #[inline]
    fn on_host_arrival(&mut self, ctx: &mut Ctx, host: NodeId, id: FrameId, size: u32) -> HostArrival {
        pause::Pause::on_host_arrival(self, ctx, host, id, size)
    }

    fn on_timer(&mut self, ctx: &mut Ctx, timer: LinkTimer) -> TimerAction {
        let LinkTimer::Pause(role) = timer;
        pause::Pause::on_timer(self, ctx, role)
    }

    fn service_rates(&self) -> Vec<(NodeId, u64)> {
        pause::Pause::service_rates(self).collect()
    }

    fn frames_held(&self) -> u64 {
        pause::Pause::frames_held(self)
    }
}
