//! The event queue.
//!
//! Events are plain data ([`Event`], 12 bytes, `Copy`): no boxed closure per event. The
//! queue orders them by time and, for equal times, by a rule ([`Ties`]): by default the
//! order in which they were scheduled, so a run is a pure function of the scenario and
//! seed; for a partitioned run, by what the events are ([`Ties::Content`]), a rule that
//! does not depend on which partition scheduled what first.
//!
//! Choice of structure: a priority queue over the 128-bit key `time << 64 | sequence`,
//! with a *replace-top* operation, and *lanes*. The queue proper is a short sorted array
//! in front of a 4-ary min-heap ([`Pending`]): the data path of a dumbbell rarely has more
//! than a dozen events pending, a fabric's a few dozen, and moving the few entries on the
//! nearer side of a rescheduled event's place costs less than sifting it through a heap.
//! Most events reschedule themselves — a source's next frame, a busy port's next
//! transmission, the next sample — and replacing the top costs one sift-down where a pop
//! and a push cost a sift-down and a sift-up.
//! A lane is a FIFO of events scheduled in non-decreasing time order (for example all CBR
//! sources of the same period): only its first event sits in the heap, so the heap holds
//! about as many entries as there are lanes, links and busy ports rather than sources —
//! about 15 instead of 75 in the reference scenario. (The simulator does the same for
//! frames on a link, which arrive in the order they were sent.) The sequence number makes
//! ties first-in first-out, and lanes preserve exactly the order a single heap would give.
//! Measured alternatives (callgrind, reference scenario): a radix heap over the same keys
//! spends about 10 % more instructions than the plain 4-ary heap, and the lanes remove
//! about half of the heap's work. Every entry of the heap has its four child slots, those
//! past the last entry holding sentinels (the largest key): a sift takes the smallest of
//! four at every level without asking how many children exist, a question whose answer
//! changes with the heap's size at nearly every event and defeats branch prediction
//! (4 % faster on `dumbbell-cbr-64`, 7 % on `dumbbell-qcn-64`, whose heap size varies
//! more). Sifts take the entry they place by value rather than reading it back from the
//! slot it was just written to (8 % on `dumbbell-cbr-64`, 3 % on `dumbbell-qcn-64`).
//! *Delay lanes* do the same for events scheduled a fixed delay after the present (a
//! frame's arrival at the next node, `serialization + propagation + processing` after it
//! starts): the clock never goes back, so each delay's events come in time order. On the
//! 802.1au chain they take the heap from about 53 entries (41 of them arrivals, one per
//! busy link) to about 14, and a 40 ms run from 3.11 G to 2.85 G instructions (cachegrind).
//! Their heads wait beside the pending entries, like the timers' head, in a winner tree
//! ([`DelayLanes`]): a lane's next event replays a few branch-free matches instead of
//! finding its place among the pending entries (on `fattree-k8-websearch`, 4.4 % fewer
//! instructions and 0.92 of the CPU time).

use std::collections::VecDeque;

use super::time::Time;

/// Something that happens at an instant. Variants carry indices into the simulator's
/// flat tables (flows, ports), never pointers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// Traffic source `flow` produces its next frame.
    SourceEmit { flow: u32 },
    /// Port `port` has finished serializing a frame and may start the next one.
    PortFree { port: u32 },
    /// The first frame in flight on the link of port `port` reaches the next node (after
    /// that node's processing latency).
    Arrive { port: u32 },
    /// Frame `frame`, sent by port `port`, reaches the next node (after that node's
    /// processing latency): a frame with an event of its own, which needs no place in
    /// the link's list of frames in flight.
    ArriveFrame { port: u32, frame: u32 },
    /// A generic timer (see [`super::timer`]) fires; `generation` tells a live event
    /// from one its timer has superseded.
    Timer { timer: u32, generation: u32 },
    /// Workload arrival `arrival` (an index into the run's flow records) is due: its
    /// flow is built and starts.
    FlowArrives { arrival: u32 },
    /// Take a sample of every recorded time series.
    Sample,
}

#[derive(Clone, Copy)]
struct Entry {
    key: u128,
    event: Event,
    /// Lane the event was scheduled in, or `NO_LANE`. An entry in the heap is its lane's
    /// head only if its key is the lane's `head`; otherwise it came out of order and sits
    /// in the heap on its own.
    lane: u32,
}

const ARITY: usize = 4;
/// Slots of [`EventQueue::schedule_after`]'s table of delay lanes, a power of two. A
/// delay's slot is fixed by its hash; a delay whose slot holds another delay's lane,
/// busy, is pending outside lanes. A fabric's flight times are many — every frame size
/// at every link rate, the last segments of flows of every length — and a few common
/// ones (full segments and ACKs at each rate) carry most frames.
const DELAY_SLOTS: usize = 16;
/// Levels of [`DelayLanes`]' winner tree over its [`DELAY_SLOTS`] heads.
const DELAY_LEVELS: usize = DELAY_SLOTS.trailing_zeros() as usize;
const _: () = assert!(DELAY_SLOTS.is_power_of_two());
/// Pending entries (delay lanes' heads aside) below which
/// [`EventQueue::schedule_after`] uses no delay lane: on the reference dumbbell (about 8
/// entries) delay lanes cost more than they save.
const DELAY_LANES_FROM: usize = 12;
const NO_LANE: u32 = u32::MAX;

/// A FIFO of events with increasing keys; its head is in the heap.
#[derive(Default)]
struct Lane {
    /// Key of the head (in the heap), if the lane is not empty.
    head: Option<u128>,
    /// Events after the head.
    rest: VecDeque<Entry>,
    /// Key of the lane's last event.
    last: u128,
}

/// The timer lane: every [`Event::Timer`] goes here, never to the heap. Timers are many
/// — one per rate limiter and reaction point, most of them far off — while data-path
/// events are few and nearly all of the work: the timers wait in a heap of their own,
/// out of the data path's way (on the QCN dumbbell the heap holds about 8 entries instead
/// of 90 with 64 senders' timers in it). The earliest timer, the head, is kept beside the
/// heap rather than in it, and the next event is the earlier of the heap's top and the
/// head: a rate limiter's release, which fires and re-arms itself at every frame it lets
/// go, then sifts through the timers' heap only, not through both.
struct Timers {
    /// The earliest timer event, or [`SENTINEL`] when none is pending.
    head: Entry,
    /// Timer events after the head.
    rest: Heap,
}

impl Default for Timers {
    fn default() -> Self {
        Self { head: SENTINEL, rest: Heap::default() }
    }
}

impl Timers {
    /// Whether a timer is pending (then `head` is the earliest).
    #[inline]
    fn has_head(&self) -> bool {
        self.head.key != SENTINEL.key
    }
}

/// The delay lanes (see [`EventQueue::schedule_after`]): one lane per slot of a table
/// of [`DELAY_SLOTS`], and their heads in a winner tree beside the pending entries
/// rather than among them.
///
/// On a fabric nearly every event is a frame's arrival, in the lane of its flight
/// time, and a lane's next arrival became its head in the sorted window of pending
/// entries, moving the entries on the nearer side of its place: on
/// `fattree-k8-websearch` that promotion was a sixth of the instructions and a third
/// of the mispredicted branches (Cachegrind). In the tree a new head plays one match
/// per level, [`DELAY_LEVELS`] in all, each a comparison of two keys whose result
/// only selects the winner, without a branch.
struct DelayLanes {
    /// Slot `i`'s lane's head, or [`SENTINEL`] when the lane is empty.
    heads: [Entry; DELAY_SLOTS],
    /// The winner tree: node `n`, for `n` in `1..DELAY_SLOTS`, holds the key and slot
    /// of the earliest head below it (node 1 the root, node `n`'s children `2n` and
    /// `2n + 1`); node `DELAY_SLOTS + i` holds slot `i`'s head's key. A match reads
    /// the rival's key where it lies, not through its slot.
    tree: [Match; 2 * DELAY_SLOTS],
    /// The delay whose lane each slot holds (`Time::MAX` for none yet: no event is
    /// scheduled that far after the present).
    delays: [Time; DELAY_SLOTS],
    /// Each lane's events after its head.
    rest: [Ring; DELAY_SLOTS],
    /// The key of each lane's last event.
    last: [u128; DELAY_SLOTS],
    /// Lanes that hold a head.
    busy: usize,
}

/// A node of [`DelayLanes`]' winner tree: the earliest key below it, and its slot.
#[derive(Clone, Copy)]
struct Match {
    key: u128,
    slot: usize,
}

/// What [`DelayLanes::enter`] did with an event.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Entered {
    /// It is its lane's head.
    Head,
    /// It waits behind its lane's last event.
    Behind,
    /// Not taken: it would break its lane's order.
    Refused,
}

impl Default for DelayLanes {
    fn default() -> Self {
        let mut tree = [Match { key: SENTINEL.key, slot: 0 }; 2 * DELAY_SLOTS];
        for (i, m) in tree[DELAY_SLOTS..].iter_mut().enumerate() {
            m.slot = i;
        }
        Self {
            heads: [SENTINEL; DELAY_SLOTS],
            tree,
            delays: [Time::MAX; DELAY_SLOTS],
            rest: Default::default(),
            last: [0; DELAY_SLOTS],
            busy: 0,
        }
    }
}

impl DelayLanes {
    /// The key of the earliest head ([`SENTINEL`]'s when every lane is empty).
    #[inline(always)]
    fn first_key(&self) -> u128 {
        self.tree[1].key
    }

    /// The slot of the earliest head.
    #[inline(always)]
    fn winning_slot(&self) -> usize {
        self.tree[1].slot & (DELAY_SLOTS - 1)
    }

    /// The earliest head ([`SENTINEL`] when every lane is empty).
    #[inline(always)]
    fn winner(&self) -> &Entry {
        &self.heads[self.winning_slot()]
    }

    /// Slot `slot`'s head has changed: its matches are played again, from its leaf to
    /// the root. Keys are distinct but for empty lanes' sentinels, which never win
    /// against a head.
    #[inline(always)]
    fn replay(&mut self, slot: usize) {
        let slot = slot & (DELAY_SLOTS - 1);
        let mut key = self.heads[slot].key;
        let mut winner = slot;
        let mut n = DELAY_SLOTS + slot;
        self.tree[n].key = key;
        for _ in 0..DELAY_LEVELS {
            let rival = self.tree[(n ^ 1) & (2 * DELAY_SLOTS - 1)];
            // A select rather than a branch: which side wins is a coin toss to a
            // branch predictor.
            let rival_wins = u128::from(rival.key < key).wrapping_neg();
            key = rival.key & rival_wins | key & !rival_wins;
            winner = rival.slot & rival_wins as usize | winner & !(rival_wins as usize);
            n >>= 1;
            self.tree[n] = Match { key, slot: winner };
        }
    }

    /// Whether slot `slot` may take a lane of `delay`: it holds one already, or its lane
    /// is empty (then it becomes `delay`'s). A delay seen once does not keep a common
    /// one out of its slot for long, and no search over the slots runs per event (a
    /// loop whose length changed with the delay mispredicted once per hop on a fabric).
    #[inline(always)]
    fn take(&mut self, slot: usize, delay: Time) -> bool {
        if self.delays[slot] == delay {
            return true;
        }
        if self.heads[slot].key != SENTINEL.key {
            return false;
        }
        self.delays[slot] = delay;
        true
    }

    /// Appends `e` to slot `slot`'s lane, unless it would break the lane's order (a
    /// tie-break under [`Ties::Content`] may put an event due at the same instant as
    /// the lane's last before it).
    #[inline(always)]
    fn enter(&mut self, slot: usize, key: u128, event: Event) -> Entered {
        if self.heads[slot].key == SENTINEL.key {
            let head = &mut self.heads[slot];
            (head.key, head.event, head.lane) = (key, event, NO_LANE);
            self.last[slot] = key;
            self.busy += 1;
            self.replay(slot);
            Entered::Head
        } else if key > self.last[slot] {
            self.last[slot] = key;
            self.rest[slot].push_back(key, event);
            Entered::Behind
        } else {
            Entered::Refused
        }
    }

    /// Removes the earliest head; its lane's next event takes its place.
    #[inline(always)]
    fn pop_winner(&mut self) {
        let w = self.winning_slot();
        self.heads[w] = match self.rest[w].pop_front() {
            Some(next) => next,
            None => {
                self.busy -= 1;
                SENTINEL
            }
        };
        self.replay(w);
    }

    /// Replaces the earliest head by `e`, of the same lane: as its head when due before
    /// the lane's next event or when there is none, as its last when due after its last
    /// (its next event becomes the head); `e` is given back otherwise. Out of line: a
    /// link's next frame replaces its arrival this way only where frames wait in the
    /// link's list (not on a fabric, whose frames each have their own arrival event).
    #[inline(never)]
    fn replace_winner(&mut self, e: Entry) -> Option<Entry> {
        let w = self.winning_slot();
        match self.rest[w].front() {
            None => {
                self.heads[w] = e;
                self.last[w] = e.key;
            }
            Some(next) if e.key < next.key => self.heads[w] = e,
            Some(_) if e.key > self.last[w] => {
                self.last[w] = e.key;
                self.rest[w].push_back(e.key, e.event);
                self.heads[w] = self.rest[w].pop_front().expect("a next event");
            }
            Some(_) => {
                self.pop_winner();
                return Some(e);
            }
        }
        self.replay(w);
        None
    }

    /// Events in the lanes.
    fn len(&self) -> usize {
        self.busy + self.rest.iter().map(Ring::len).sum::<usize>()
    }
}

/// An event as two integers, which a call takes in registers: what
/// [`EventQueue::schedule_after`] hands its out-of-line lane path. An `Event` (12
/// bytes) is passed by reference: written to memory field by field and read back 8
/// bytes at a time, a load that waits for the stores before it to reach the cache (a
/// failed store forwarding).
#[derive(Clone, Copy)]
struct EventBits(u64, u32);

impl EventBits {
    /// `event`'s kind (bits 0–31) and first field (bits 32–63), and its second field.
    #[inline(always)]
    fn of(event: Event) -> Self {
        let (kind, a, b) = match event {
            Event::Sample => (0, 0, 0),
            Event::SourceEmit { flow } => (1, flow, 0),
            Event::PortFree { port } => (2, port, 0),
            Event::Arrive { port } => (3, port, 0),
            Event::ArriveFrame { port, frame } => (4, port, frame),
            Event::Timer { timer, generation } => (5, timer, generation),
            Event::FlowArrives { arrival } => (6, arrival, 0),
        };
        EventBits(kind | u64::from(a) << 32, b)
    }

    /// The event again.
    #[inline(always)]
    fn event(self) -> Event {
        let (a, b) = ((self.0 >> 32) as u32, self.1);
        match self.0 as u32 {
            0 => Event::Sample,
            1 => Event::SourceEmit { flow: a },
            2 => Event::PortFree { port: a },
            3 => Event::Arrive { port: a },
            4 => Event::ArriveFrame { port: a, frame: b },
            5 => Event::Timer { timer: a, generation: b },
            _ => Event::FlowArrives { arrival: a },
        }
    }
}

/// A FIFO of entries in a ring of a power-of-two size, as `VecDeque` but with its
/// `push_back` and `pop_front` always inline, and an entry written field by field
/// where it goes. `VecDeque::push_back`, left out of line, took its entry by
/// reference, which the caller had just written field by field; it read the entry
/// back 16 bytes at a time, a load that waits for the stores before it to reach the
/// cache (a failed store forwarding), at every frame a fabric's link sends.
#[derive(Default)]
struct Ring {
    slots: Vec<Entry>,
    /// Index of the first entry.
    head: usize,
    len: usize,
}

impl Ring {
    #[inline]
    fn len(&self) -> usize {
        self.len
    }

    #[inline]
    fn front(&self) -> Option<&Entry> {
        (self.len > 0).then(|| &self.slots[self.head])
    }

    /// Appends the entry of `event` due with `key`, outside any [`Lane`].
    #[inline(always)]
    fn push_back(&mut self, key: u128, event: Event) {
        if self.len == self.slots.len() {
            self.grow();
        }
        let i = (self.head + self.len) & (self.slots.len() - 1);
        let slot = &mut self.slots[i];
        slot.key = key;
        slot.event = event;
        slot.lane = NO_LANE;
        self.len += 1;
    }

    #[inline(always)]
    fn pop_front(&mut self) -> Option<Entry> {
        if self.len == 0 {
            return None;
        }
        let e = self.slots[self.head];
        self.head = (self.head + 1) & (self.slots.len() - 1);
        self.len -= 1;
        Some(e)
    }

    /// Doubles the ring (at least 16 slots), its entries from slot 0 in order.
    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        let size = (2 * self.slots.len()).max(16);
        let mut slots = Vec::with_capacity(size);
        slots.extend((0..self.len).map(|k| self.slots[(self.head + k) & (self.slots.len() - 1)]));
        slots.resize(size, SENTINEL);
        self.slots = slots;
        self.head = 0;
    }
}

/// The largest key: what a [`Heap`]'s slots past its last entry hold, and the timer
/// lane's head when no timer is pending.
const SENTINEL: Entry = Entry { key: u128::MAX, event: Event::Sample, lane: NO_LANE };

/// A 4-ary min-heap in which every entry has its four child slots: those past the last
/// entry hold [`SENTINEL`]s. A sift then compares four children at every level and
/// stops on keys alone, never on the heap's size, which changes by one at almost every
/// event in ways a branch predictor cannot follow.
#[derive(Default)]
struct Heap {
    slots: Vec<Entry>,
    len: usize,
}

impl Heap {
    fn with_capacity(n: usize) -> Self {
        Self { slots: Vec::with_capacity(ARITY * n + 1), len: 0 }
    }

    #[inline]
    fn len(&self) -> usize {
        self.len
    }

    #[inline]
    fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The earliest entry, if any.
    #[inline]
    fn first(&self) -> Option<&Entry> {
        (self.len > 0).then(|| &self.slots[0])
    }

    /// The earliest entry; the heap must not be empty.
    #[inline]
    fn top(&self) -> Entry {
        debug_assert!(self.len > 0);
        self.slots[0]
    }

    #[inline]
    fn push(&mut self, e: Entry) {
        let needed = ARITY * (self.len + 1) + 1;
        if self.slots.len() < needed {
            self.slots.resize(needed, SENTINEL);
        }
        self.len += 1;
        sift_up(&mut self.slots, self.len - 1, e);
    }

    /// Replaces the earliest entry by `e`.
    #[inline]
    fn replace_top(&mut self, e: Entry) {
        debug_assert!(self.len > 0);
        sift_down(&mut self.slots, self.len, 0, e);
    }

    /// Removes the earliest entry; the heap must not be empty.
    #[inline]
    fn pop_top(&mut self) -> Entry {
        let first = self.top();
        self.len -= 1;
        let last = std::mem::replace(&mut self.slots[self.len], SENTINEL);
        if self.len > 0 {
            self.replace_top(last);
        }
        first
    }
}

/// The data path's pending entries: the earliest, up to [`NEAR_MAX`] of them, in a
/// sorted window of an array (`slots[lo..hi]`), any later ones in a [`Heap`] (`far`).
///
/// The data path usually has a handful of events pending (about 10 on the TCP dumbbell,
/// 8 on the CBR one, about 36 on a k = 8 fat-tree): the lanes and the timer lane hold the
/// rest. A new event then moves past the few on one side of its place, where a heap would
/// sift it from the root through every level, with a hard-to-predict branch at each. The window runs from the
/// earliest entry to the latest and can grow at either end, so an event moves the
/// entries on the shorter side of its place: those due before it when it is due early
/// (a port's next transmission), those due after it when it is due late (most arrivals,
/// on a dumbbell, are due after nearly everything pending). Taking the earliest entry
/// away moves nothing. When more are pending, the later ones wait in the heap, so that a
/// run with thousands of pending events keeps the heap's logarithmic cost. Two rules
/// hold: every entry in `far` is due after every entry in the window, and the window is
/// empty only when `far` is; the earliest entry is therefore always the window's first,
/// and only a change asks whether `far` is in use (it drains back into the window as the
/// window empties).
struct Pending {
    /// `slots[lo..hi]`, sorted from the earliest entry to the latest, is the window;
    /// the slots around it are free (their contents stale).
    slots: [Entry; NEAR_SLOTS],
    lo: usize,
    hi: usize,
    far: Heap,
}

/// Entries the sorted window of [`Pending`] holds at most. A fabric keeps about 36
/// events pending (`fattree-k8-websearch`): in a window of 16, refilled from the heap
/// when it falls to 8, most of them sat in the heap, and every arrival that became its
/// lane's head sifted through it. A window of 64 holds them all, and a new entry moves
/// the few on the nearer side of its place. Cachegrind, against 16: 1.7 % fewer
/// instructions on `fattree-k8-websearch` (10 ms), 4.5 % on `chain-10x3` (40 ms), 1.8 %
/// on `dumbbell-tcp-64` (100 ms), the same to 0.1 % on the CBR and QCN dumbbells; 0.4 %
/// more on the HPCC paper's 320-host fabric (2 ms), 2.4 % more there with a window of
/// 128.
///
/// On `dumbbell-tcp-64`, whose arrivals are due after nearly everything pending, an
/// array that grew at its start only moved 6.7 of about 10 entries per insertion; the
/// window that grows at the nearer end runs 4.7 % fewer instructions (cachegrind, 100
/// simulated ms).
const NEAR_MAX: usize = 64;

/// Slots of the array the window slides in: as the earliest entries go and later ones
/// come, the window drifts towards the end, and when it reaches an end it moves back to
/// the middle (one copy of at most [`NEAR_MAX`] entries every 224 or more steps; an
/// emptied window starts again in the middle). A power of two: an index masked by
/// [`SLOT_MASK`] needs no bounds check.
const NEAR_SLOTS: usize = 8 * NEAR_MAX;
const SLOT_MASK: usize = NEAR_SLOTS - 1;
const _: () = assert!(NEAR_SLOTS.is_power_of_two());

impl Default for Pending {
    fn default() -> Self {
        Self::with_capacity(0)
    }
}

impl Pending {
    fn with_capacity(n: usize) -> Self {
        let middle = NEAR_SLOTS / 2;
        Self { slots: [SENTINEL; NEAR_SLOTS], lo: middle, hi: middle, far: Heap::with_capacity(n) }
    }

    /// The window's entries, earliest first.
    #[cfg(test)]
    fn near(&self) -> &[Entry] {
        &self.slots[self.lo..self.hi]
    }

    /// Slot `i`, which lies in the array (the mask only spares a bounds check).
    #[inline(always)]
    fn slot(&mut self, i: usize) -> &mut Entry {
        debug_assert!(i < NEAR_SLOTS);
        &mut self.slots[i & SLOT_MASK]
    }

    /// The key in slot `i`, which lies in the array.
    #[inline(always)]
    fn key(&self, i: usize) -> u128 {
        debug_assert!(i < NEAR_SLOTS);
        self.slots[i & SLOT_MASK].key
    }

    #[inline]
    fn near_len(&self) -> usize {
        self.hi - self.lo
    }

    #[inline]
    fn len(&self) -> usize {
        self.near_len() + self.far.len()
    }

    /// The earliest entry, if any.
    #[inline]
    fn first(&self) -> Option<&Entry> {
        (self.lo < self.hi).then(|| &self.slots[self.lo & SLOT_MASK])
    }

    /// The earliest entry; there must be one.
    #[inline]
    fn top(&self) -> Entry {
        debug_assert!(self.lo < self.hi, "an entry is pending");
        self.slots[self.lo & SLOT_MASK]
    }

    #[inline(always)]
    fn push(&mut self, e: Entry) {
        if self.far.is_empty() && self.near_len() < NEAR_MAX {
            self.insert_near(e);
        } else {
            self.push_beyond(e);
        }
    }

    /// [`push`](Self::push) when entries wait in the heap or the window is full.
    #[cold]
    #[inline(never)]
    fn push_beyond(&mut self, e: Entry) {
        let full = self.near_len() == NEAR_MAX;
        // Due after the heap's earliest entry, or after the whole full window: `e` waits
        // in the heap. (With entries in the heap, the window is not empty.)
        if self.far.first().is_some_and(|f| e.key > f.key) || (full && self.key(self.hi - 1) < e.key) {
            self.far.push(e);
            return;
        }
        if full {
            // The window's latest entry makes room: it is due before everything in the heap.
            self.hi -= 1;
            let latest = *self.slot(self.hi);
            self.far.push(latest);
        }
        self.insert_near(e);
    }

    /// Adds `e`, due before everything in the heap, to the window, which has room.
    #[inline(always)]
    fn insert_near(&mut self, e: Entry) {
        let n = self.near_len();
        if n == 0 {
            let middle = NEAR_SLOTS / 2;
            (self.lo, self.hi) = (middle, middle + 1);
            *self.slot(middle) = e;
        } else if e.key < self.key(self.lo + n / 2) {
            // In the earlier half: the window grows at its start, and the entries due
            // before `e` move one slot towards it. The middle entry stops the search.
            if self.lo == 0 {
                self.recentre();
            }
            self.lo -= 1;
            self.fill_from_start(self.lo, e);
        } else {
            // In the later half: the window grows at its end, and the entries due after
            // `e` move one slot towards it. The middle entry stops the search.
            self.fill_from_end(e);
        }
    }

    /// Puts `e` in slot `hole` at the window's start (free, or holding the entry `e`
    /// replaces) or after it, moving the entries due before `e` one slot back. An entry
    /// due after `e` must lie in the window: it stops the search.
    #[inline(always)]
    fn fill_from_start(&mut self, hole: usize, e: Entry) {
        let mut i = hole;
        while self.key(i + 1) < e.key {
            *self.slot(i) = *self.slot(i + 1);
            i += 1;
        }
        *self.slot(i) = e;
    }

    /// Grows the window by a slot at its end and puts `e` there or before it, moving
    /// the entries due after `e` one slot on. An entry due before `e` must lie in the
    /// window: it stops the search.
    #[inline(always)]
    fn fill_from_end(&mut self, e: Entry) {
        if self.hi == NEAR_SLOTS {
            self.recentre();
        }
        let mut i = self.hi;
        self.hi += 1;
        while self.key(i - 1) > e.key {
            *self.slot(i) = *self.slot(i - 1);
            i -= 1;
        }
        *self.slot(i) = e;
    }

    /// Appends `e`, due after every entry in the window, as its latest.
    #[inline(always)]
    fn append(&mut self, e: Entry) {
        if self.hi == NEAR_SLOTS {
            self.recentre();
        }
        *self.slot(self.hi) = e;
        self.hi += 1;
    }

    /// Replaces the earliest entry by `e`.
    #[inline(always)]
    fn replace_top(&mut self, e: Entry) {
        let n = self.near_len();
        match self.far.first() {
            Some(&next) if next.key < e.key => {
                // `e` waits in the heap, whose earliest entry joins the window as its
                // latest: it is due after every entry left there.
                self.far.replace_top(e);
                self.lo += 1;
                self.append(next);
            }
            _ if n == 1 => *self.slot(self.lo) = e,
            // With two or more, the middle entry is not the one replaced, and stops the
            // search from either end.
            _ if e.key > self.key(self.lo + n / 2) => {
                self.lo += 1;
                self.fill_from_end(e);
            }
            _ => self.fill_from_start(self.lo, e),
        }
    }

    /// Removes the earliest entry; there must be one.
    #[inline(always)]
    fn pop_top(&mut self) -> Entry {
        let first = self.top();
        self.lo += 1;
        if !self.far.is_empty() && self.near_len() < NEAR_MAX / 2 {
            self.refill();
        }
        first
    }

    /// The heap's earliest entry joins the window as its latest.
    #[cold]
    #[inline(never)]
    fn refill(&mut self) {
        let next = self.far.pop_top();
        self.append(next);
    }

    /// Moves the window to the middle of the slots, so that it can grow at either end.
    #[cold]
    #[inline(never)]
    fn recentre(&mut self) {
        let n = self.near_len();
        let lo = (NEAR_SLOTS - n) / 2;
        self.slots.copy_within(self.lo..self.hi, lo);
        self.lo = lo;
        self.hi = lo + n;
    }
}

/// How a queue orders events due at the same instant.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Ties {
    /// In the order they were scheduled (first in, first out).
    #[default]
    Scheduling,
    /// By their content, a rule a partitioned run can follow in every partition alone:
    /// first by *depth* — 0 for an event scheduled before its instant, one more than
    /// the event being handled for one scheduled at that event's own instant, so an
    /// event never sorts before the one that made it — then by kind (a sample first,
    /// then arrivals, transmitters, sources, timers and workload arrivals), then by the
    /// port, flow, timer (and its generation) or arrival it names, shuffled by a
    /// permutation that changes from one instant to the next. No two pending events
    /// share all of these, and none depends on when, or in which partition, an event
    /// was scheduled. The shuffle keeps ties from favouring low ids. Ordered by the id
    /// itself, the lowest-numbered port or flow goes first at every tie: the eight
    /// NewReno connections of the drop-tail dumbbell in `tests/tcp.rs` (equal links,
    /// round delays: simultaneous events are common), run by the sequential engine
    /// under that rule, got 950, 4.5, 6.6, 1.7, 0.2, 0.2, 2.8 and 1.4 Mbit/s of
    /// 1 Gbit/s; shuffled, they pass that test's fairness bound (Jain's index above
    /// 0.9) as under first-in first-out ties.
    Content,
}

/// Bits of a [`Ties::Content`] tie-break: depth above kind above the id above a
/// timer's generation.
const DEPTH_SHIFT: u32 = 56;
const KIND_SHIFT: u32 = 53;
const ID_SHIFT: u32 = 21;
const GENERATION_MASK: u64 = (1 << ID_SHIFT) - 1;
const MAX_DEPTH: u64 = 0xff;

/// What of `event` its [`Ties::Content`] tie-break reads: its kind, its id and, for a
/// timer's, its generation.
#[inline(always)]
fn tie_ids(event: Event) -> (u64, u32, u32) {
    match event {
        Event::Sample => (0, 0, 0),
        // One kind: a link's frames arrive one at a time, by either event.
        Event::Arrive { port } | Event::ArriveFrame { port, .. } => (1, port, 0),
        Event::PortFree { port } => (2, port, 0),
        Event::SourceEmit { flow } => (3, flow, 0),
        Event::Timer { timer, generation } => (4, timer, generation),
        Event::FlowArrives { arrival } => (5, arrival, 0),
    }
}

/// The [`Ties::Content`] tie-break of an event with `ids` ([`tie_ids`]) due at `at`, at
/// depth `depth`.
#[inline]
fn content_tie((kind, id, generation): (u64, u32, u32), depth: u64, at: Time) -> u64 {
    depth.min(MAX_DEPTH) << DEPTH_SHIFT
        | kind << KIND_SHIFT
        | shuffle(u64::from(id) << ID_SHIFT | u64::from(generation) & GENERATION_MASK, at)
}

/// The bits of a [`Ties::Content`] tie-break below the kind.
const WITHIN_KIND: u64 = (1 << KIND_SHIFT) - 1;

/// Multiplier that mixes the instant into a [`shuffle`] (SplitMix64's increment).
const INSTANT_MIX: u64 = 0x9E37_79B9_7F4A_7C15;
/// Odd multiplier of a [`shuffle`] (SplitMix64's first), invertible modulo 2^53.
const SHUFFLE_MULTIPLIER: u64 = 0xBF58_476D_1CE4_E5B9;

/// A permutation of the values below [`WITHIN_KIND`] that depends on the instant `at`:
/// an exclusive or with a mix of `at`, then a multiplication by an odd constant, which
/// is invertible modulo 2^53. Distinct ids stay distinct at one instant, and which of
/// two ids comes first changes from one instant to the next.
#[inline]
fn shuffle(x: u64, at: Time) -> u64 {
    let x = x ^ (at.wrapping_mul(INSTANT_MIX) & WITHIN_KIND);
    x.wrapping_mul(SHUFFLE_MULTIPLIER) & WITHIN_KIND
}

/// Where the next event waits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Front {
    /// Among the data path's pending entries.
    Pending,
    /// At the head of a delay lane.
    DelayLane,
    /// At the head of the timer lane.
    Timer,
}

/// A priority queue of events keyed by (time, tie-break): see [`Ties`].
pub struct EventQueue {
    /// The data path's pending events: lane heads and events outside lanes.
    pending: Pending,
    lanes: Vec<Lane>,
    /// Lanes of events scheduled a fixed delay after the present: slot
    /// [`delay_slot`]`(delay)` holds a delay's lane.
    delay_lanes: DelayLanes,
    timers: Timers,
    next_seq: u64,
    now: Time,
    /// How simultaneous events are ordered.
    ties: Ties,
    /// The tie-break of the event being handled (under [`Ties::Content`], its depth is
    /// in the top bits).
    front_tie: u64,
    /// Where the event being handled waits, noted by [`EventQueue::front`] for
    /// [`EventQueue::retire`] and [`EventQueue::reschedule`]: events scheduled
    /// meanwhile sort after it, so it stays the earliest.
    front_from: Front,
    /// Which of the timer lane's head and the delay lanes' earliest head is due first
    /// ([`EventQueue::settle_beside`]), and its key.
    beside: Front,
    beside_key: u128,
}

impl Default for EventQueue {
    fn default() -> Self {
        Self::new()
    }
}

impl EventQueue {
    /// An empty queue at time 0.
    pub fn new() -> Self {
        Self {
            pending: Pending::with_capacity(1024),
            lanes: Vec::new(),
            delay_lanes: DelayLanes::default(),
            timers: Timers::default(),
            next_seq: 0,
            now: 0,
            ties: Ties::Scheduling,
            front_tie: 0,
            front_from: Front::Timer,
            beside: Front::Timer,
            beside_key: SENTINEL.key,
        }
    }

    /// Orders simultaneous events by `ties` from now on; set before anything is
    /// scheduled.
    pub fn set_ties(&mut self, ties: Ties) {
        debug_assert!(self.is_empty(), "the tie rule is set on an empty queue");
        self.ties = ties;
    }

    /// The rule that orders simultaneous events.
    pub fn ties(&self) -> Ties {
        self.ties
    }

    /// The current simulation time: that of the event being handled.
    #[inline]
    pub fn now(&self) -> Time {
        self.now
    }

    /// Creates a lane and returns its id.
    pub fn add_lane(&mut self) -> u32 {
        self.lanes.push(Lane::default());
        (self.lanes.len() - 1) as u32
    }

    /// Schedules `event` `delay` after now in the lane of that delay: events a fixed
    /// delay after the present come in time order, so each delay's events form a lane.
    #[inline(always)]
    pub fn schedule_after(&mut self, delay: Time, event: Event) {
        // A short pending list is cheaper than a lane's bookkeeping.
        if self.pending.len() >= DELAY_LANES_FROM && self.schedule_in_delay_lane(delay, EventBits::of(event))
        {
            return;
        }
        self.schedule(self.now + delay, event)
    }

    /// [`schedule_after`](Self::schedule_after) with the path into a delay lane inline,
    /// for a fabric's frame arrivals: nearly all of them take that path, and out of
    /// line it cost each a call. `schedule_after` keeps it out of line for the callers
    /// whose events mostly go outside lanes (a dumbbell's), which inline it would cost
    /// saved registers at every call.
    #[inline(always)]
    pub fn schedule_after_in_lane(&mut self, delay: Time, event: Event) {
        if self.pending.len() >= DELAY_LANES_FROM && self.enter_delay_lane(delay, event) {
            return;
        }
        self.schedule(self.now + delay, event)
    }

    /// [`schedule_after`](Self::schedule_after) in the lane of `delay`, if its slot may
    /// take it. Out of line: inline, its registers were saved and restored at every
    /// call, most of which (on a dumbbell) schedule outside lanes.
    #[inline(never)]
    fn schedule_in_delay_lane(&mut self, delay: Time, bits: EventBits) -> bool {
        self.enter_delay_lane(delay, bits.event())
    }

    /// Enters `event` in the lane of `delay`, if its slot may take it.
    #[inline(always)]
    fn enter_delay_lane(&mut self, delay: Time, event: Event) -> bool {
        let slot = delay_slot(delay);
        if !self.delay_lanes.take(slot, delay) {
            return false;
        }
        debug_assert!(!matches!(event, Event::Timer { .. }), "timer events have their own lane");
        let key = self.key(self.now + delay, event);
        match self.delay_lanes.enter(slot, key, event) {
            Entered::Head => self.settle_beside(),
            Entered::Behind => {}
            Entered::Refused => self.pending.push(Entry { key, event, lane: NO_LANE }),
        }
        true
    }

    #[inline(always)]
    fn key(&mut self, at: Time, event: Event) -> u128 {
        debug_assert!(at >= self.now, "event scheduled in the past: {at} < {}", self.now);
        let at = at.max(self.now);
        let tie = match self.ties {
            Ties::Scheduling => {
                self.next_seq += 1;
                self.next_seq - 1
            }
            Ties::Content => self.content_key(at, tie_ids(event)),
        };
        (at as u128) << 64 | tie as u128
    }

    /// The [`Ties::Content`] tie-break of an event with `ids` ([`tie_ids`]) scheduled
    /// for `at`. Out of line, and given the event's ids rather than the event: an
    /// event passed by reference must be in memory, and was written there field by
    /// field and read back whole on every path that schedules, a failed store
    /// forwarding.
    #[inline(never)]
    fn content_key(&self, at: Time, ids: (u64, u32, u32)) -> u64 {
        let depth = if at == self.now { (self.front_tie >> DEPTH_SHIFT) + 1 } else { 0 };
        debug_assert!(depth <= MAX_DEPTH, "more than {MAX_DEPTH} events chained at one instant");
        content_tie(ids, depth, at)
    }

    /// Notes the tie-break of the event about to be handled, whose key is `key` (a
    /// store, cheaper than asking whether the rule needs it).
    #[inline]
    fn enter(&mut self, key: u128) {
        self.front_tie = key as u64;
    }

    /// Reserves `n` sequence numbers for events scheduled later with
    /// [`schedule_reserved`](Self::schedule_reserved), and returns the first: those
    /// events sort among simultaneous ones as if they had been scheduled now.
    pub fn reserve(&mut self, n: u64) -> u64 {
        let first = self.next_seq;
        self.next_seq += n;
        first
    }

    /// Schedules `event` at `at` (never before now) under sequence number `seq`, one
    /// that [`reserve`](Self::reserve) gave and not used before.
    pub fn schedule_reserved(&mut self, at: Time, seq: u64, event: Event) {
        debug_assert!(seq < self.next_seq && at >= self.now);
        debug_assert!(!matches!(event, Event::Timer { .. }), "timer events have their own lane");
        let key = match self.ties {
            Ties::Scheduling => (at.max(self.now) as u128) << 64 | seq as u128,
            Ties::Content => self.key(at, event),
        };
        self.pending.push(Entry { key, event, lane: NO_LANE });
    }

    /// Schedules `event` at absolute time `at` (never before now). Timer events go to
    /// the timer lane.
    #[inline]
    pub fn schedule(&mut self, at: Time, event: Event) {
        let key = self.key(at, event);
        let e = Entry { key, event, lane: NO_LANE };
        match event {
            Event::Timer { .. } => self.enter_timers(e),
            _ => self.pending.push(e),
        }
    }

    /// Puts timer event `e` in the timer lane: behind the head, or as the new head when
    /// it is due first (the old head then waits behind it).
    #[inline]
    fn enter_timers(&mut self, e: Entry) {
        let t = &mut self.timers;
        if e.key > t.head.key {
            t.rest.push(e);
        } else {
            let had_head = t.has_head();
            let old = std::mem::replace(&mut t.head, e);
            if had_head {
                t.rest.push(old);
            }
            self.settle_beside();
        }
    }

    /// Notes which of the timer lane's head and the delay lanes' earliest head comes
    /// first, after either has changed: the two wait beside the data path's pending
    /// entries, and the next event is the earlier of those entries' first and this
    /// one (one comparison per event, where comparing all three took two).
    #[inline(always)]
    fn settle_beside(&mut self) {
        let timer = self.timers.head.key;
        let delayed = self.delay_lanes.first_key();
        (self.beside_key, self.beside) =
            if delayed < timer { (delayed, Front::DelayLane) } else { (timer, Front::Timer) };
    }

    /// The earliest of the pending entries' first, the delay lanes' earliest head and
    /// the timer lane's head; `None` when nothing is pending.
    #[inline]
    fn first(&self) -> Option<&Entry> {
        let (e, _) = self.earliest();
        (e.key != SENTINEL.key).then_some(e)
    }

    /// The earliest entry ([`SENTINEL`] when nothing is pending) and where it waits.
    #[inline(always)]
    fn earliest(&self) -> (&Entry, Front) {
        match self.pending.first() {
            Some(e) if e.key < self.beside_key => (e, Front::Pending),
            _ if self.beside == Front::DelayLane => (self.delay_lanes.winner(), Front::DelayLane),
            _ => (&self.timers.head, Front::Timer),
        }
    }

    /// Schedules `event` at `at` in lane `lane`. Events should arrive in a lane in
    /// non-decreasing time order; one that does not goes to the heap on its own, so the
    /// order of events is the same either way.
    #[inline]
    pub fn schedule_in_lane(&mut self, lane: u32, at: Time, event: Event) {
        debug_assert!(!matches!(event, Event::Timer { .. }), "timer events have their own lane");
        let key = self.key(at, event);
        self.enter_lane(Entry { key, event, lane });
    }

    /// Appends `e` to its lane, or to the heap when the lane is empty (as head) or when
    /// `e` would break the lane's order.
    #[inline]
    fn enter_lane(&mut self, e: Entry) {
        let l = &mut self.lanes[e.lane as usize];
        if l.head.is_none() {
            l.head = Some(e.key);
            l.last = e.key;
            self.pending.push(e);
        } else if e.key > l.last {
            l.last = e.key;
            l.rest.push_back(e);
        } else {
            self.pending.push(e);
        }
    }

    /// The next event, without removing it; advances the clock to its time. The caller
    /// must then [`retire`](Self::retire) or [`reschedule`](Self::reschedule) it before
    /// asking again. Events scheduled meanwhile always sort after it.
    #[inline]
    pub fn front(&mut self) -> Option<(Time, Event)> {
        let (e, from) = self.earliest();
        let (key, event) = (e.key, e.event);
        (key != SENTINEL.key).then(|| self.hand_out(key, event, from))
    }

    /// The next event if it comes before `until` (the clock moves to it); `None`, with
    /// the clock left where it was, otherwise. An empty queue's [`SENTINEL`] is due at
    /// the largest time, never before `until`.
    #[inline]
    pub fn front_before(&mut self, until: Time) -> Option<(Time, Event)> {
        let (e, from) = self.earliest();
        let (key, event) = (e.key, e.event);
        (((key >> 64) as Time) < until).then(|| self.hand_out(key, event, from))
    }

    /// The event of key `key`, waiting at `from`, is the one being handled: the clock
    /// moves to it, and [`retire`](Self::retire) and [`reschedule`](Self::reschedule)
    /// will find it where it waits.
    #[inline(always)]
    fn hand_out(&mut self, key: u128, event: Event, from: Front) -> (Time, Event) {
        let at = (key >> 64) as Time;
        self.now = at;
        self.enter(key);
        self.front_from = from;
        (at, event)
    }

    /// Time of the next event, if any.
    #[inline]
    pub fn peek_time(&self) -> Option<Time> {
        self.first().map(|e| (e.key >> 64) as Time)
    }

    /// Removes the event returned by [`front`](Self::front).
    #[inline]
    pub fn retire(&mut self) {
        match self.front_from {
            Front::Pending => {}
            Front::DelayLane => {
                self.delay_lanes.pop_winner();
                return self.settle_beside();
            }
            Front::Timer => {
                // The timer lane's head: the earliest waiting timer takes its place.
                let t = &mut self.timers;
                assert!(t.has_head(), "retire on an empty queue");
                t.head = if t.rest.is_empty() { SENTINEL } else { t.rest.pop_top() };
                return self.settle_beside();
            }
        }
        let top = self.pending.top();
        if top.lane != NO_LANE && self.lanes[top.lane as usize].head == Some(top.key) {
            if self.promote_next(top.lane) {
                return;
            }
            self.lanes[top.lane as usize].head = None;
        }
        self.pending.pop_top();
    }

    /// The heap's top, the head of lane `lane`, is done: the lane's next event takes its
    /// place at the top (one sift). False if the lane has no next event.
    #[inline]
    fn promote_next(&mut self, lane: u32) -> bool {
        let l = &mut self.lanes[lane as usize];
        let Some(next) = l.rest.pop_front() else { return false };
        l.head = Some(next.key);
        self.pending.replace_top(next);
        true
    }

    /// Replaces the event returned by [`front`](Self::front) by `event` at `at`, in the same
    /// lane: usually one sift-down instead of a pop and a push.
    #[inline]
    pub fn reschedule(&mut self, at: Time, event: Event) {
        let key = self.key(at, event);
        let front = self.front_from;
        if let Event::Timer { .. } = event {
            // Timer events come from the timer lane's head only.
            debug_assert!(front == Front::Timer && self.timers.has_head());
            let entry = Entry { key, event, lane: NO_LANE };
            let t = &mut self.timers;
            match t.rest.first() {
                // The earliest waiting timer becomes the head, and the new event waits in
                // its place: one sift, in the timers' heap.
                Some(waiting) if waiting.key < key => {
                    let next = t.rest.top();
                    t.rest.replace_top(entry);
                    t.head = next;
                }
                // Still the earliest timer: it stays the head.
                _ => t.head = entry,
            }
            return self.settle_beside();
        }
        if front == Front::DelayLane {
            let back = self.delay_lanes.replace_winner(Entry { key, event, lane: NO_LANE });
            self.settle_beside();
            if let Some(e) = back {
                self.pending.push(e);
            }
            return;
        }
        let top = self.pending.top();
        debug_assert!(!matches!(top.event, Event::Timer { .. }), "an event changes kind");
        if top.lane != NO_LANE {
            let l = &mut self.lanes[top.lane as usize];
            let alone = l.head == Some(top.key) && l.rest.is_empty();
            if !alone && l.head == Some(top.key) && key > l.last {
                // The lane's next event becomes its head, and the new one joins the
                // lane's tail: one sift instead of a retire and a re-entry.
                l.last = key;
                l.rest.push_back(Entry { key, event, lane: top.lane });
                let promoted = self.promote_next(top.lane);
                debug_assert!(promoted, "a lane not alone has a next event");
                return;
            }
            if !alone {
                self.retire();
                self.enter_lane(Entry { key, event, lane: top.lane });
                return;
            }
            // The lane holds only the event being replaced: it stays the head.
            l.head = Some(key);
            l.last = key;
        }
        self.pending.replace_top(Entry { key, event, lane: top.lane });
    }

    /// Removes and returns the next event, advancing the clock.
    pub fn pop(&mut self) -> Option<(Time, Event)> {
        let out = self.front()?;
        self.retire();
        Some(out)
    }

    /// Number of pending events.
    pub fn len(&self) -> usize {
        self.pending.len()
            + self.delay_lanes.len()
            + self.timers.has_head() as usize
            + self.timers.rest.len()
            + self.lanes.iter().map(|l| l.rest.len()).sum::<usize>()
    }

    /// True when nothing is pending.
    pub fn is_empty(&self) -> bool {
        self.first().is_none()
    }
}

/// The slot of `delay` in [`EventQueue`]'s table of delay lanes (Fibonacci hashing: the
/// top bits of a product, so that delays differing in low bits spread).
#[inline(always)]
fn delay_slot(delay: Time) -> usize {
    (delay.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - DELAY_SLOTS.trailing_zeros())) as usize
}

/// Puts `e` in the hole at `i` (a slot whose entry has moved away, or the new last one)
/// or above it. Like [`sift_down`], it takes `e` by value: writing it to the hole and
/// reading it back at once would read a 32-byte entry just written in smaller parts, which
/// the processor cannot forward from its store buffer (a stall of a dozen cycles on the
/// busiest line of the simulator).
#[inline]
fn sift_up(heap: &mut [Entry], mut i: usize, e: Entry) {
    while i > 0 {
        let parent = (i - 1) / ARITY;
        if heap[parent].key <= e.key {
            break;
        }
        heap[i] = heap[parent];
        i = parent;
    }
    heap[i] = e;
}

/// Puts `e` in the hole at `i` of a [`Heap`]'s slots or below it, moving smaller
/// children up. Every entry has four child slots (sentinels past the last entry), so each
/// level is one tournament of four and the loop ends on a key comparison only.
#[inline]
fn sift_down(heap: &mut [Entry], n: usize, mut i: usize, e: Entry) {
    loop {
        let first = ARITY * i + 1;
        if first >= n {
            break;
        }
        let c: &[Entry; ARITY] = heap[first..first + ARITY].try_into().expect("child slots");
        let (a, ka) = if c[1].key < c[0].key { (first + 1, c[1].key) } else { (first, c[0].key) };
        let (b, kb) = if c[3].key < c[2].key { (first + 3, c[3].key) } else { (first + 2, c[2].key) };
        let (best, best_key) = if kb < ka { (b, kb) } else { (a, ka) };
        if best_key >= e.key {
            break;
        }
        heap[i] = heap[best];
        i = best;
    }
    heap[i] = e;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every event of `q`, in the order it hands them out.
    fn drain(q: &mut EventQueue) -> Vec<(Time, Event)> {
        std::iter::from_fn(|| q.pop()).collect()
    }

    #[test]
    fn content_ties_do_not_depend_on_scheduling_order() {
        let events = [
            (10, Event::Timer { timer: 3, generation: 2 }),
            (10, Event::PortFree { port: 9 }),
            (10, Event::Arrive { port: 4 }),
            (10, Event::Sample),
            (10, Event::Arrive { port: 2 }),
            (5, Event::SourceEmit { flow: 8 }),
            (10, Event::Timer { timer: 3, generation: 1 }),
            (10, Event::FlowArrives { arrival: 0 }),
        ];
        let run = |order: &[usize]| {
            let mut q = EventQueue::new();
            q.set_ties(Ties::Content);
            for &i in order {
                q.schedule(events[i].0, events[i].1);
            }
            drain(&mut q)
        };
        let forward = run(&[0, 1, 2, 3, 4, 5, 6, 7]);
        assert_eq!(forward, run(&[7, 6, 5, 4, 3, 2, 1, 0]));
        assert_eq!(forward, run(&[3, 0, 6, 2, 7, 1, 5, 4]));
        // Time first; then a sample, the arrivals, the transmitter, the timers, the
        // workload arrival; the two arrivals, and the two timers, by their shuffled ids.
        let by_shuffle = |a: (u64, Event), b: (u64, Event)| {
            if shuffle(a.0, 10) < shuffle(b.0, 10) {
                [a.1, b.1]
            } else {
                [b.1, a.1]
            }
        };
        let arrivals = by_shuffle(
            (4 << ID_SHIFT, Event::Arrive { port: 4 }),
            (2 << ID_SHIFT, Event::Arrive { port: 2 }),
        );
        let timers = by_shuffle(
            (3 << ID_SHIFT | 2, Event::Timer { timer: 3, generation: 2 }),
            (3 << ID_SHIFT | 1, Event::Timer { timer: 3, generation: 1 }),
        );
        let mut expected = vec![(5, Event::SourceEmit { flow: 8 }), (10, Event::Sample)];
        expected.extend(arrivals.map(|e| (10, e)));
        expected.push((10, Event::PortFree { port: 9 }));
        expected.extend(timers.map(|e| (10, e)));
        expected.push((10, Event::FlowArrives { arrival: 0 }));
        assert_eq!(forward, expected);
    }

    /// Two arrivals tie at each of 1000 instants: the lower port comes first at 500 of
    /// them, within the 469–531 that hold 95 % of 1000 fair coin flips, where ordering
    /// by the id would put it first at every one. And the shuffle is a permutation: its
    /// inverse (the constant's multiplicative inverse modulo 2^64, then the same
    /// exclusive or) gives back every id.
    #[test]
    fn content_ties_favour_no_id() {
        let mut first = 0;
        for t in 1..=1000 {
            let mut q = EventQueue::new();
            q.set_ties(Ties::Content);
            q.schedule(t, Event::Arrive { port: 1 });
            q.schedule(t, Event::Arrive { port: 2 });
            first += usize::from(q.pop() == Some((t, Event::Arrive { port: 1 })));
        }
        assert!((469..=531).contains(&first), "{first}");
        let inverse =
            |c: u64| (0..6).fold(c, |i: u64, _| i.wrapping_mul(2u64.wrapping_sub(c.wrapping_mul(i))));
        let unshuffle = |y: u64, at: Time| {
            let x = y.wrapping_mul(inverse(SHUFFLE_MULTIPLIER)) & WITHIN_KIND;
            x ^ (at.wrapping_mul(INSTANT_MIX) & WITHIN_KIND)
        };
        let mut rng =
            crate::engine::RngStream::new(7, crate::engine::StreamKey { kind: "test", name: "shuffle" });
        for _ in 0..10_000 {
            let (x, at) = (rng.below(WITHIN_KIND + 1), rng.below(1 << 50));
            assert_eq!(unshuffle(shuffle(x, at), at), x);
        }
    }

    #[test]
    fn content_ties_put_an_event_made_at_its_instant_after_its_maker() {
        let mut q = EventQueue::new();
        q.set_ties(Ties::Content);
        q.schedule(10, Event::PortFree { port: 5 });
        q.schedule(10, Event::PortFree { port: 7 });
        let (a, b) = if shuffle(5 << ID_SHIFT, 10) < shuffle(7 << ID_SHIFT, 10) { (5, 7) } else { (7, 5) };
        // The first, handled, makes an arrival at its own instant: a lower kind, but it
        // comes after both transmitters, which were scheduled before the instant.
        assert_eq!(q.front(), Some((10, Event::PortFree { port: a })));
        q.reschedule(10, Event::Arrive { port: 1 });
        assert_eq!(q.pop(), Some((10, Event::PortFree { port: b })));
        assert_eq!(q.front(), Some((10, Event::Arrive { port: 1 })));
        // Which makes another, deeper still, after an event of its own depth.
        q.schedule(10, Event::Sample);
        q.retire();
        q.schedule(12, Event::Arrive { port: 0 });
        assert_eq!(drain(&mut q), vec![(10, Event::Sample), (12, Event::Arrive { port: 0 })]);
    }

    #[test]
    fn pops_in_time_order_and_fifo_on_ties() {
        let mut q = EventQueue::new();
        q.schedule(30, Event::Sample);
        q.schedule(10, Event::PortFree { port: 1 });
        q.schedule(10, Event::PortFree { port: 2 });
        q.schedule(20, Event::SourceEmit { flow: 7 });
        q.schedule(10, Event::PortFree { port: 3 });
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            order,
            vec![
                (10, Event::PortFree { port: 1 }),
                (10, Event::PortFree { port: 2 }),
                (10, Event::PortFree { port: 3 }),
                (20, Event::SourceEmit { flow: 7 }),
                (30, Event::Sample),
            ]
        );
        assert_eq!(q.now(), 30);
    }

    #[test]
    fn reschedule_moves_the_top_event() {
        let mut q = EventQueue::new();
        q.schedule(5, Event::SourceEmit { flow: 1 });
        q.schedule(7, Event::SourceEmit { flow: 2 });
        assert_eq!(q.front(), Some((5, Event::SourceEmit { flow: 1 })));
        q.reschedule(9, Event::SourceEmit { flow: 1 });
        assert_eq!(q.pop(), Some((7, Event::SourceEmit { flow: 2 })));
        assert_eq!(q.pop(), Some((9, Event::SourceEmit { flow: 1 })));
        assert!(q.is_empty());
    }

    #[test]
    fn matches_a_sorted_reference_on_random_operations() {
        // Random pushes, pops and reschedules of data-path events, lane events and timer
        // events against a sorted list.
        let mut rng = crate::engine::RngStream::new(3, crate::engine::StreamKey { kind: "t", name: "q" });
        let mut q = EventQueue::new();
        let lanes = [q.add_lane(), q.add_lane()];
        let event = |id: u32| {
            if id.is_multiple_of(3) {
                Event::Timer { timer: id, generation: 0 }
            } else {
                Event::PortFree { port: id }
            }
        };
        let mut reference: Vec<(Time, u64, u32)> = Vec::new();
        let mut seq = 0u64;
        let mut timers_seen = 0;
        let mut delay_heads_seen = 0;
        for step in 0..30_000u32 {
            let now = q.now();
            match rng.below(4) {
                0 | 1 => {
                    // Data-path or timer events, near or far.
                    let horizon = if rng.below(2) == 0 { 50 } else { 5_000 };
                    let at = now + rng.below(horizon);
                    q.schedule(at, event(step));
                    reference.push((at, seq, step));
                    seq += 1;
                }
                2 if step % 3 != 0 => {
                    // Lane events, mostly but not always in time order, and events a
                    // fixed delay after now (more delays than delay lanes).
                    let at = if step % 3 == 1 {
                        let at = now + rng.below(50);
                        q.schedule_in_lane(lanes[step as usize % 2], at, Event::PortFree { port: step });
                        at
                    } else {
                        let delay = 10 * rng.below(12);
                        q.schedule_after(delay, Event::PortFree { port: step });
                        now + delay
                    };
                    reference.push((at, seq, step));
                    seq += 1;
                }
                _ => {
                    reference.sort();
                    if reference.is_empty() {
                        continue;
                    }
                    let (t, _, id) = reference.remove(0);
                    assert_eq!(q.front(), Some((t, event(id))));
                    timers_seen += (id % 3 == 0) as u32;
                    delay_heads_seen += u32::from(q.front_from == Front::DelayLane);
                    if rng.below(2) == 0 {
                        q.retire();
                    } else {
                        let at = t + rng.below(50);
                        q.reschedule(at, event(id));
                        reference.push((at, seq, id));
                        seq += 1;
                    }
                }
            }
            assert_eq!(q.len(), reference.len());
        }
        assert!(timers_seen > 1000, "{timers_seen}");
        assert!(delay_heads_seen > 300, "{delay_heads_seen}");
        assert!(!q.timers.rest.is_empty(), "timers waited behind the timer lane's head");
    }

    #[test]
    fn a_timer_due_before_the_timer_lanes_head_still_comes_first() {
        let mut q = EventQueue::new();
        q.schedule(100, Event::Timer { timer: 1, generation: 0 });
        q.schedule(200, Event::Timer { timer: 2, generation: 0 });
        q.schedule(50, Event::Timer { timer: 3, generation: 0 });
        q.schedule(60, Event::PortFree { port: 9 });
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).map(|(t, _)| t).collect();
        assert_eq!(order, vec![50, 60, 100, 200]);
    }

    #[test]
    fn timers_wait_beside_the_heap_and_a_rearmed_timer_sifts_only_their_own() {
        let timer = |t: u32| Event::Timer { timer: t, generation: 0 };
        let mut q = EventQueue::new();
        q.schedule(10, Event::PortFree { port: 1 });
        for t in 0..5 {
            q.schedule(100 + 10 * u64::from(t), timer(t));
        }
        assert_eq!(q.pending.len(), 1, "timers never enter the data path's pending entries");
        assert_eq!(q.timers.head.event, timer(0));
        // A timer due before the head becomes the head; the old head waits behind it.
        q.schedule(50, timer(9));
        assert_eq!((q.timers.head.event, q.timers.rest.len()), (timer(9), 5));
        assert_eq!(q.len(), 7);
        assert_eq!(q.pop(), Some((10, Event::PortFree { port: 1 })));
        assert_eq!(q.front(), Some((50, timer(9))));
        // Re-armed after the others: the earliest waiting timer becomes the head.
        q.reschedule(200, timer(9));
        assert_eq!(q.timers.head.event, timer(0));
        assert_eq!(q.pending.len(), 0);
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            order,
            vec![
                (100, timer(0)),
                (110, timer(1)),
                (120, timer(2)),
                (130, timer(3)),
                (140, timer(4)),
                (200, timer(9))
            ]
        );
        assert!(q.is_empty());
    }

    /// `front` hands out any pending event, one due at the largest time included;
    /// `front_before` only those due before its bound, and never an empty queue's
    /// sentinel.
    #[test]
    fn an_event_due_at_the_largest_time_still_comes_out() {
        let mut q = EventQueue::new();
        assert_eq!(q.front_before(Time::MAX), None);
        q.schedule(Time::MAX, Event::Sample);
        assert_eq!(q.front_before(Time::MAX), None);
        assert_eq!(q.pop(), Some((Time::MAX, Event::Sample)));
        assert_eq!(q.front(), None);
    }

    #[test]
    fn event_bits_give_back_every_kind_of_event() {
        let events = [
            Event::Sample,
            Event::SourceEmit { flow: 7 },
            Event::PortFree { port: u32::MAX },
            Event::Arrive { port: 3 },
            Event::ArriveFrame { port: 1 << 31, frame: u32::MAX - 1 },
            Event::Timer { timer: 9, generation: 1 << 20 },
            Event::FlowArrives { arrival: 12 },
        ];
        for e in events {
            assert_eq!(EventBits::of(e).event(), e);
        }
    }

    #[test]
    fn a_ring_keeps_its_order_as_it_wraps_and_grows() {
        // Pushes run ahead of pops by 3 to 40 entries: the ring wraps at 16 slots, then
        // grows to 32 and 64 with entries on both sides of its end. `next` counts the
        // entries pushed and popped.
        let mut ring = Ring::default();
        let mut next = (0u128, 0u128);
        for round in 0..200u128 {
            let ahead = 3 + (round * 7) % 38;
            while next.0 - next.1 < ahead {
                ring.push_back(next.0, Event::Arrive { port: next.0 as u32 });
                next.0 += 1;
            }
            for _ in 0..(round % 5) {
                let e = ring.pop_front().expect("an entry");
                assert_eq!(
                    (e.key, e.event, e.lane),
                    (next.1, Event::Arrive { port: next.1 as u32 }, NO_LANE)
                );
                next.1 += 1;
            }
            assert_eq!(ring.len() as u128, next.0 - next.1);
            assert_eq!(ring.front().map(|e| e.key), (ring.len() > 0).then_some(next.1));
        }
        while let Some(e) = ring.pop_front() {
            assert_eq!(e.key, next.1);
            next.1 += 1;
        }
        assert_eq!(next.0, next.1);
        assert_eq!(ring.slots.len(), 64);
    }

    #[test]
    fn the_inline_lane_path_orders_events_as_the_other() {
        // The same events through `schedule_after` and `schedule_after_in_lane`, with
        // more than `DELAY_LANES_FROM` pending so that lanes take them.
        let run = |inline: bool| {
            let mut q = EventQueue::new();
            for i in 0..20 {
                q.schedule(1000 + i, Event::SourceEmit { flow: i as u32 });
            }
            for i in 0..300u32 {
                let delay = [30, 70, 30, 1200, 5][i as usize % 5] + u64::from(i % 3);
                let event = Event::ArriveFrame { port: i % 7, frame: i };
                if inline {
                    q.schedule_after_in_lane(delay, event);
                } else {
                    q.schedule_after(delay, event);
                }
                if i % 4 == 3 {
                    q.pop();
                }
            }
            drain(&mut q)
        };
        assert_eq!(run(true), run(false));
    }

    #[test]
    #[should_panic(expected = "retire on an empty queue")]
    fn retiring_from_an_empty_queue_is_a_bug() {
        let mut q = EventQueue::new();
        q.schedule(5, Event::Timer { timer: 1, generation: 0 });
        q.pop();
        q.retire();
    }

    /// An event scheduled later under a reserved sequence number sorts among
    /// simultaneous events as if it had been scheduled when the number was reserved.
    #[test]
    fn reserved_events_keep_the_place_of_their_reservation() {
        let mut q = EventQueue::new();
        q.schedule(50, Event::Arrive { port: 1 });
        let seq = q.reserve(2);
        q.schedule(50, Event::Arrive { port: 2 });
        q.schedule(50, Event::PortFree { port: 3 });
        q.schedule(10, Event::Sample);
        assert_eq!(q.pop(), Some((10, Event::Sample)));
        q.schedule_reserved(50, seq, Event::FlowArrives { arrival: 0 });
        q.schedule_reserved(60, seq + 1, Event::FlowArrives { arrival: 1 });
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            order,
            [
                (50, Event::Arrive { port: 1 }),
                (50, Event::FlowArrives { arrival: 0 }),
                (50, Event::Arrive { port: 2 }),
                (50, Event::PortFree { port: 3 }),
                (60, Event::FlowArrives { arrival: 1 }),
            ]
        );
    }

    #[test]
    fn a_delay_takes_over_its_slot_only_when_the_lane_there_is_empty() {
        // Two delays that share a slot: the second waits outside lanes while the first's
        // lane holds an event, then takes the emptied lane over (no second lane made).
        let a = 1_000;
        let b = (a + 1..).find(|&d| delay_slot(d) == delay_slot(a)).expect("slots collide");
        let mut q = EventQueue::new();
        for port in 0..DELAY_LANES_FROM as u32 {
            q.schedule(1_000_000, Event::PortFree { port: 100 + port });
        }
        let slot = delay_slot(a);
        q.schedule_after(a, Event::Arrive { port: 1 });
        assert_eq!(q.delay_lanes.delays[slot], a);
        q.schedule_after(b, Event::Arrive { port: 2 });
        assert_eq!(q.delay_lanes.delays[slot], a, "the busy lane stays the first delay's");
        assert_eq!(q.delay_lanes.heads[slot].key, (a as u128) << 64 | DELAY_LANES_FROM as u128);
        assert_eq!(q.pending.len(), DELAY_LANES_FROM + 1, "the second delay's event waits outside lanes");
        assert_eq!(q.pop(), Some((a, Event::Arrive { port: 1 })));
        assert_eq!((q.delay_lanes.heads[slot].key, q.delay_lanes.busy), (SENTINEL.key, 0));
        q.schedule_after(b, Event::Arrive { port: 3 });
        assert_eq!(q.delay_lanes.delays[slot], b);
        assert_eq!(q.pop(), Some((b, Event::Arrive { port: 2 })));
        assert_eq!(q.pop(), Some((a + b, Event::Arrive { port: 3 })));
        assert!(q.lanes.is_empty(), "delay lanes are not among the other lanes");
    }

    /// The winner tree, worked by hand: heads 50, 20 and 70 in slots 3, 9 and 12. The
    /// root is slot 9 (20); node 1's children are nodes 2 (slots 0–7: slot 3, 50) and
    /// 3 (slots 8–15: slot 9, 20). Slot 9's lane goes on to 90: slot 3 wins (50), and
    /// node 3 now holds slot 12 (70). Replacing slot 3's head by 95, behind a next
    /// event at 60, makes 60 the head and puts 95 last; a replacement due between a
    /// lane's next event and its last is given back.
    #[test]
    fn the_delay_lanes_winner_tree_keeps_the_earliest_head_at_its_root() {
        let entry = |key: u128| Entry { key, event: Event::Arrive { port: key as u32 }, lane: NO_LANE };
        let mut d = DelayLanes::default();
        assert_eq!((d.first_key(), d.busy), (SENTINEL.key, 0));
        assert_eq!(d.enter(3, 50, Event::Arrive { port: 50 }), Entered::Head);
        assert_eq!(d.enter(9, 20, Event::Arrive { port: 20 }), Entered::Head);
        assert_eq!(d.enter(12, 70, Event::Arrive { port: 70 }), Entered::Head);
        assert_eq!(d.enter(9, 90, Event::Arrive { port: 90 }), Entered::Behind);
        assert_eq!(d.enter(9, 85, Event::Arrive { port: 85 }), Entered::Refused, "before the lane's last");
        assert_eq!((d.winning_slot(), d.first_key(), d.busy), (9, 20, 3));
        assert_eq!((d.tree[2].slot, d.tree[2].key, d.tree[3].slot, d.tree[3].key), (3, 50, 9, 20));
        d.pop_winner();
        assert_eq!((d.winning_slot(), d.first_key()), (3, 50));
        assert_eq!((d.tree[3].slot, d.tree[3].key), (12, 70));
        assert_eq!(d.heads[9].key, 90, "the lane's next event is its head");
        assert_eq!(d.enter(3, 60, Event::Arrive { port: 60 }), Entered::Behind);
        assert!(d.replace_winner(entry(95)).is_none());
        assert_eq!((d.heads[3].key, d.last[3], d.first_key()), (60, 95, 60));
        // Due before its lane's next event, a replacement stays the head; due between
        // the next and the last, it is given back and the next becomes the head.
        assert!(d.replace_winner(entry(65)).is_none());
        assert_eq!((d.heads[3].key, d.first_key()), (65, 65));
        assert_eq!(d.enter(3, 97, Event::Arrive { port: 97 }), Entered::Behind);
        assert_eq!(d.replace_winner(entry(96)).map(|e| e.key), Some(96));
        assert_eq!((d.heads[3].key, d.winning_slot()), (95, 12));
        let mut order = Vec::new();
        while d.first_key() != SENTINEL.key {
            order.push(d.first_key());
            d.pop_winner();
        }
        assert_eq!((order, d.busy, d.len()), (vec![70, 90, 95, 97], 0, 0));
    }

    #[test]
    fn events_a_fixed_delay_after_now_keep_time_order_and_fifo_ties() {
        // Two delays, each its own lane, interleaved with heap events: the order is the
        // single heap's (time, then scheduling order).
        let mut q = EventQueue::new();
        // A heap large enough for delay lanes to be used.
        for port in 0..DELAY_LANES_FROM as u32 {
            q.schedule(1_000_000, Event::PortFree { port: 100 + port });
        }
        q.schedule_after(100, Event::Arrive { port: 1 }); // at 100
        q.schedule_after(30, Event::Arrive { port: 2 }); // at 30
        q.schedule(100, Event::PortFree { port: 3 }); // at 100, after port 1's
        assert_eq!(q.pop(), Some((30, Event::Arrive { port: 2 })));
        q.schedule_after(70, Event::Arrive { port: 4 }); // at 100, last of the ties
        q.schedule_after(30, Event::Arrive { port: 5 }); // at 60
        q.schedule_after(30, Event::Arrive { port: 6 }); // at 60, after port 5's
        assert_eq!(q.front(), Some((60, Event::Arrive { port: 5 })));
        // Replaced by a later event of its lane: port 6's becomes the lane's head, the
        // new one its tail.
        q.reschedule(160, Event::Arrive { port: 5 });
        assert_eq!(q.delay_lanes.busy, 3, "the lanes of delays 100, 70 and 30 hold events");
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).take(5).collect();
        assert_eq!(
            order,
            vec![
                (60, Event::Arrive { port: 6 }),
                (100, Event::Arrive { port: 1 }),
                (100, Event::PortFree { port: 3 }),
                (100, Event::Arrive { port: 4 }),
                (160, Event::Arrive { port: 5 }),
            ]
        );
    }

    #[test]
    fn every_heap_entry_has_four_child_slots_and_only_sentinels_follow_the_last() {
        let mut h = Heap::default();
        let entry = |key: u128| Entry { key, event: Event::Sample, lane: NO_LANE };
        let mut rng = crate::engine::RngStream::new(5, crate::engine::StreamKey { kind: "t", name: "h" });
        let mut reference = Vec::new();
        for step in 0..5_000u128 {
            if rng.below(3) == 0 && !h.is_empty() {
                reference.sort();
                assert_eq!(h.pop_top().key, reference.remove(0));
            } else {
                let key = (rng.below(1000) as u128) << 64 | step;
                h.push(entry(key));
                reference.push(key);
            }
            assert_eq!(h.len(), reference.len());
            assert!(h.slots.len() > ARITY * h.len(), "child slots of the last entry");
            assert!(h.slots[h.len()..].iter().all(|e| e.key == u128::MAX), "sentinels after the last entry");
        }
        assert!(h.len() > 100, "the heap grew: {}", h.len());
    }

    #[test]
    fn the_window_grows_at_the_end_nearer_an_entry_and_recentres() {
        let entry = |key: u128| Entry { key, event: Event::Sample, lane: NO_LANE };
        let keys = |p: &Pending| p.near().iter().map(|e| e.key).collect::<Vec<_>>();
        let mut p = Pending::default();
        for k in (10..=150).step_by(10) {
            p.push(entry(k));
        }
        assert_eq!(keys(&p), (10..=150).step_by(10).collect::<Vec<_>>());
        // 145 is due after 14 of the 15: the window grows at its end, 150 moves on and
        // the other 14 stay in their slots.
        let (lo, hi) = (p.lo, p.hi);
        p.push(entry(145));
        assert_eq!((p.lo, p.hi), (lo, hi + 1));
        assert_eq!(&keys(&p)[13..], &[140, 145, 150]);
        // Replacing the earliest (10) by 15, due before all the rest: the hole takes it,
        // nothing moves.
        p.replace_top(entry(15));
        assert_eq!((p.lo, p.hi), (lo, hi + 1));
        assert_eq!(&keys(&p)[..3], &[15, 20, 30]);
        // Replacing the earliest (15) by 147: the window's start moves on and 147 goes
        // in before 150 from the end.
        p.replace_top(entry(147));
        assert_eq!((p.lo, p.hi), (lo + 1, hi + 2));
        assert_eq!(&keys(&p)[13..], &[145, 147, 150]);
        // Filled with later entries, a full window keeps its `NEAR_MAX` earliest: 5 goes
        // in at the start and the latest to the heap.
        let mut last = 150;
        while p.near().len() < NEAR_MAX {
            last += 10;
            p.push(entry(last));
        }
        let before = keys(&p);
        p.push(entry(5));
        assert_eq!((p.near().len(), p.far.len()), (NEAR_MAX, 1));
        assert_eq!((keys(&p)[0], keys(&p)[NEAR_MAX - 1], p.far.top().key), (5, before[NEAR_MAX - 2], last));
        // Each earliest entry replaced by one due last drifts the window towards the
        // slots' end; it moves back to the middle and keeps its order.
        let mut recentred = 0;
        for _ in 0..4 * NEAR_SLOTS {
            let lo = p.lo;
            last += 10;
            p.replace_top(entry(last));
            recentred += usize::from(p.lo < lo);
            assert!(p.near().windows(2).all(|w| w[0].key < w[1].key));
            assert!(p.hi <= NEAR_SLOTS);
        }
        assert!(recentred >= 4, "recentred {recentred} times");
        let mut out = Vec::new();
        while p.len() > 0 {
            out.push(p.pop_top().key);
        }
        assert!(out.windows(2).all(|w| w[0] < w[1]) && out.len() == NEAR_MAX + 1);
    }

    #[test]
    fn pending_entries_come_out_in_key_order_whether_few_or_many() {
        let entry = |key: u128| Entry { key, event: Event::Sample, lane: NO_LANE };
        let mut rng = crate::engine::RngStream::new(7, crate::engine::StreamKey { kind: "t", name: "p" });
        let mut p = Pending::default();
        let mut reference: Vec<u128> = Vec::new();
        let (mut with_far, mut max_len) = (0, 0);
        // Grows to hundreds of entries (the heap in use), drains to a few (the array
        // alone), and grows again; keys near and far ahead of the earliest.
        for step in 0..20_000u128 {
            let phase = (step / 2_500) % 2;
            let op = rng.below(10);
            let earliest = reference.iter().min().copied().unwrap_or(0) >> 64;
            let ahead = if rng.below(2) == 0 { 20 } else { 5_000 };
            let key = (earliest + rng.below(ahead) as u128) << 64 | step;
            if !reference.is_empty() && op < 3 + 4 * phase as u64 {
                reference.sort();
                assert_eq!(p.pop_top().key, reference.remove(0));
            } else if !reference.is_empty() && op < 6 + 2 * phase as u64 {
                reference.sort();
                assert_eq!(p.top().key, reference[0]);
                p.replace_top(entry(key));
                reference[0] = key;
            } else {
                p.push(entry(key));
                reference.push(key);
            }
            assert_eq!(p.len(), reference.len());
            assert_eq!(p.first().map(|e| e.key), reference.iter().min().copied());
            assert!(p.near().windows(2).all(|w| w[0].key < w[1].key), "the window runs earliest first");
            assert!(p.near().len() <= NEAR_MAX);
            if let Some(f) = p.far.first() {
                with_far += 1;
                assert!(p.near().iter().all(|n| n.key < f.key), "the heap's entries come after the array's");
            }
            max_len = max_len.max(p.len());
        }
        assert!(max_len > 4 * NEAR_MAX, "many pending: {max_len}");
        assert!(with_far > 1_000 && with_far < 19_000, "both with and without the heap: {with_far}");
    }

    #[test]
    fn event_is_small() {
        assert!(std::mem::size_of::<Event>() <= 12);
    }
}
