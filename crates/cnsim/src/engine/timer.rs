//! Generic timers: any component (a rate limiter, a reaction point, later TCP's RTO)
//! owns timers by [`TimerId`], and one event kind, [`Event::Timer`], stands for them all.
//!
//! A timer that is re-armed often (QCN's RP timer restarts on every CNM) would leave a
//! stale heap entry per restart if each arming scheduled an event. Instead a timer keeps
//! at most one *live* entry and a *deadline*: arming it later than its live entry only
//! moves the deadline, and the entry, when it fires early, moves itself to the deadline
//! (one replace-top); arming it earlier schedules a new entry under a new *generation*,
//! and the old one, when it fires, is recognised as stale and dropped. Events stay 12
//! bytes: the timer's id and the generation.

use super::queue::{Event, EventQueue};
use super::time::Time;

/// Index of a timer in [`Timers`].
pub type TimerId = u32;

/// The time a slot holds for "not armed" and "no live event": a timer armed for the end
/// of time never expires, which is all such an arming could mean.
const NEVER: Time = Time::MAX;

/// One timer, in 32 bytes aligned to 32 (with an 8-byte owner): a timer event reads one
/// cache line, never two, and a line holds two timers.
#[derive(Clone, Copy, Debug)]
#[repr(align(32))]
struct Slot<O> {
    /// What the timer belongs to (kept beside its state: one memory access per event).
    owner: O,
    /// When the timer expires, or `NEVER` if it is not armed.
    deadline: Time,
    /// Time of the live event, or `NEVER` if none is pending.
    live_at: Time,
    /// The tag its owner gave when arming it.
    tag: u32,
    /// Generation of the live event; events of older generations are stale.
    generation: u32,
}

/// What an event of a timer means when it fires.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fired<O> {
    /// Superseded, or the timer was cancelled: nothing to do.
    Stale,
    /// Fired before the deadline (the timer was re-armed later): the same event moves
    /// to this time.
    Moved(Time, Event),
    /// The timer expired: its owner, and the tag it was armed with.
    Expired(O, u32),
}

/// Every timer of a simulation, each with its owner `O` (what its expiry is dispatched
/// to).
#[derive(Clone, Debug)]
pub struct Timers<O> {
    slots: Vec<Slot<O>>,
}

impl<O: Copy> Default for Timers<O> {
    fn default() -> Self {
        Self { slots: Vec::new() }
    }
}

impl<O: Copy> Timers<O> {
    /// No timers.
    pub fn new() -> Self {
        Self::default()
    }

    /// A new, unarmed timer belonging to `owner`.
    pub fn add(&mut self, owner: O) -> TimerId {
        self.slots.push(Slot { owner, deadline: NEVER, live_at: NEVER, tag: 0, generation: 0 });
        (self.slots.len() - 1) as TimerId
    }

    /// Whom timer `id` belongs to.
    #[inline]
    pub fn owner(&self, id: TimerId) -> O {
        self.slots[id as usize].owner
    }

    /// The deadline of timer `id`, if armed.
    #[inline]
    pub fn deadline(&self, id: TimerId) -> Option<Time> {
        let deadline = self.slots[id as usize].deadline;
        (deadline != NEVER).then_some(deadline)
    }

    /// Arms timer `id` to expire at `deadline` with `tag` (replacing any earlier arming).
    /// Returns the event to schedule at `deadline` when a new one is needed (no live
    /// event, or the live one is later than `deadline`).
    #[inline]
    pub fn arm(&mut self, id: TimerId, deadline: Time, tag: u32) -> Option<(Time, Event)> {
        let slot = &mut self.slots[id as usize];
        (slot.deadline, slot.tag) = (deadline, tag);
        if slot.live_at <= deadline {
            return None;
        }
        slot.generation = slot.generation.wrapping_add(1);
        slot.live_at = deadline;
        Some((deadline, Event::Timer { timer: id, generation: slot.generation }))
    }

    /// Arms timer `id` for `deadline` with `tag` and schedules the event in `events` when
    /// a new one is needed.
    #[inline]
    pub fn arm_in(&mut self, events: &mut EventQueue, id: TimerId, deadline: Time, tag: u32) {
        if let Some((at, event)) = self.arm(id, deadline, tag) {
            events.schedule(at, event);
        }
    }

    /// Disarms timer `id`; its live event, if any, will be stale.
    pub fn cancel(&mut self, id: TimerId) {
        self.slots[id as usize].deadline = NEVER;
    }

    /// The event `generation` of timer `id` fires at `now`.
    #[inline]
    pub fn fire(&mut self, id: TimerId, generation: u32, now: Time) -> Fired<O> {
        let slot = &mut self.slots[id as usize];
        if slot.generation != generation || slot.live_at == NEVER {
            return Fired::Stale;
        }
        match slot.deadline {
            NEVER => {
                slot.live_at = NEVER;
                Fired::Stale
            }
            deadline if deadline > now => {
                slot.live_at = deadline;
                Fired::Moved(deadline, Event::Timer { timer: id, generation })
            }
            _ => {
                slot.live_at = NEVER;
                slot.deadline = NEVER;
                Fired::Expired(slot.owner, slot.tag)
            }
        }
    }

    /// From the handler of timer `id`'s expiry: arm it again at `at` with the event that
    /// just fired, which the caller reschedules in place (one replace-top).
    #[inline]
    pub fn continue_at(&mut self, id: TimerId, at: Time, tag: u32) -> (Time, Event) {
        let slot = &mut self.slots[id as usize];
        (slot.deadline, slot.tag) = (at, tag);
        slot.live_at = at;
        (at, Event::Timer { timer: id, generation: slot.generation })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn generation(e: Event) -> u32 {
        match e {
            Event::Timer { generation, .. } => generation,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_timer_takes_half_a_cache_line() {
        assert_eq!(std::mem::size_of::<Slot<crate::protocol::TimerOwner>>(), 32);
        assert_eq!(std::mem::align_of::<Slot<crate::protocol::TimerOwner>>(), 32);
    }

    #[test]
    fn a_timer_armed_for_the_end_of_time_never_expires() {
        let mut t = Timers::new();
        let id = t.add('x');
        assert_eq!(t.arm(id, Time::MAX, 0), None);
        assert_eq!(t.deadline(id), None);
        // With a live event, the event finds nothing to do.
        let (_, e) = t.arm(id, 10, 0).unwrap();
        assert_eq!(t.arm(id, Time::MAX, 0), None);
        assert_eq!(t.fire(id, generation(e), 10), Fired::Stale);
    }

    #[test]
    fn arming_later_moves_the_deadline_not_the_event() {
        let mut t = Timers::new();
        let id = t.add('x');
        let (at, e) = t.arm(id, 100, 1).unwrap();
        assert_eq!(at, 100);
        // Restarted later twice: no new event.
        assert_eq!(t.arm(id, 150, 2), None);
        assert_eq!(t.arm(id, 180, 3), None);
        // The event fires at 100, moves to 180, then expires with the last tag.
        assert_eq!(t.fire(id, generation(e), 100), Fired::Moved(180, e));
        assert_eq!(t.fire(id, generation(e), 180), Fired::Expired('x', 3));
        assert_eq!(t.deadline(id), None);
        assert_eq!(t.fire(id, generation(e), 180), Fired::Stale);
    }

    #[test]
    fn arming_earlier_supersedes_the_live_event() {
        let mut t = Timers::new();
        let id = t.add('x');
        let (_, old) = t.arm(id, 100, 0).unwrap();
        let (at, new) = t.arm(id, 40, 0).unwrap();
        assert_eq!(at, 40);
        assert_ne!(generation(old), generation(new));
        assert_eq!(t.fire(id, generation(new), 40), Fired::Expired('x', 0));
        assert_eq!(t.fire(id, generation(old), 100), Fired::Stale);
    }

    #[test]
    fn cancelled_timers_do_not_expire_and_handlers_can_continue() {
        let mut t = Timers::new();
        let id = t.add('x');
        let (_, e) = t.arm(id, 10, 0).unwrap();
        t.cancel(id);
        assert_eq!(t.fire(id, generation(e), 10), Fired::Stale);
        let (_, e) = t.arm(id, 20, 0).unwrap();
        assert_eq!(t.fire(id, generation(e), 20), Fired::Expired('x', 0));
        // The handler keeps the same event going, 5 later.
        assert_eq!(t.continue_at(id, 25, 7), (25, e));
        assert_eq!(t.fire(id, generation(e), 25), Fired::Expired('x', 7));
    }
}
