//! What each physical processor is doing when it is not running a process: why its
//! processes wait. One state machine, shared by the Paraver, OTF2 and Chrome writers (their
//! state records and wait regions), the HTML report and `cpperf` (time per state per
//! processor), so they always agree.
//!
//! A processor runs (state [`PState::Running`]) during its busy intervals. Between them
//! it is idle, and at every instant of an idle stretch it shows the state of the
//! processes placed on it at that instant: waiting for a message if one of them waits in
//! a receive, else for a remote read's reply, else for a lock, else for children
//! (`join`, `forall`, the end of a parent), else delayed, else idle (none alive and
//! waiting: all ended, ready, or none placed there). A processor is idle only when no
//! process on it waits for something.
//!
//! The idle state changes whenever one of the processor's processes begins or ends a
//! wait, which need not be at the end of a busy interval: a turn whose instructions cost
//! nothing leaves no interval, and the state change that ends a turn may be recorded
//! after the turn's interval (a `join`). A busy interval is recorded at its end, after
//! the events that happened during it, so a change is not known to lie in an idle stretch
//! until the processor's next interval (or the end) is read: each processor keeps the
//! changes since its open stretch began, in time order, and splits the stretch at them
//! when it closes. A change inside the next interval is that interval's own; one at or
//! before the open stretch's start sets the stretch's state. Streaming: memory per live
//! process and per processor, plus the changes of a processor's open stretch.
//!
//! Depends on [`super::event`].
use super::event::{Event, ProcState, Reason};
use crate::time::Ticks;
use std::collections::{BTreeMap, BTreeSet};

/// A processor's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum PState {
    /// No process placed on it is alive and waiting.
    Idle,
    /// Running a process.
    Running,
    /// A process on it waits in a channel receive.
    Message,
    /// A process on it waits for a remote read's reply.
    RemoteRead,
    /// A process on it waits for a spinlock.
    Lock,
    /// A process on it waits for its children (`join`, `forall`, its end).
    Children,
    /// A process on it sleeps in `delay`.
    Delay,
}

impl PState {
    /// Every state, in the order reports list them.
    pub const ALL: [PState; 7] = [
        PState::Running,
        PState::Message,
        PState::RemoteRead,
        PState::Lock,
        PState::Children,
        PState::Delay,
        PState::Idle,
    ];

    /// Its place in [`Self::ALL`] (`PState::ALL[s.report_index()] == s`), without a
    /// search: the time per state is added up at every busy interval.
    pub const fn report_index(self) -> usize {
        match self {
            PState::Running => 0,
            PState::Message => 1,
            PState::RemoteRead => 2,
            PState::Lock => 3,
            PState::Children => 4,
            PState::Delay => 5,
            PState::Idle => 6,
        }
    }

    /// The waiting states, strongest first: an idle processor shows the first one any of
    /// its processes is in.
    const WAITS: [PState; 5] = [PState::Message, PState::RemoteRead, PState::Lock, PState::Children, PState::Delay];

    /// Its name in reports.
    pub const fn name(self) -> &'static str {
        match self {
            PState::Idle => "idle",
            PState::Running => "running",
            PState::Message => "waiting for a message",
            PState::RemoteRead => "waiting for a remote read",
            PState::Lock => "waiting for a lock",
            PState::Children => "waiting for children",
            PState::Delay => "delayed",
        }
    }

    /// Its short name (CSV and JSON keys).
    pub fn key(self) -> &'static str {
        match self {
            PState::Idle => "idle",
            PState::Running => "running",
            PState::Message => "message",
            PState::RemoteRead => "remote_read",
            PState::Lock => "lock",
            PState::Children => "children",
            PState::Delay => "delay",
        }
    }

    /// Its Paraver state number: Paraver's own where one means the same (0 Idle, 1
    /// Running, 3 Waiting a message, 5 Synchronization, 7 Scheduling and Fork/Join),
    /// numbers of our own above Paraver's table for the others.
    pub fn paraver(self) -> u32 {
        match self {
            PState::Idle => 0,
            PState::Running => 1,
            PState::Message => 3,
            PState::Lock => 5,
            PState::Children => 7,
            PState::RemoteRead => 20,
            PState::Delay => 21,
        }
    }

    /// Its colour in every picture (the HTML report, the SVG charts, Paraver's `.pcf`),
    /// as `#rrggbb`: from Okabe and Ito's palette, which reads for the colour-blind, and
    /// never one of [`palette`]'s path and message colours.
    pub fn colour(self) -> &'static str {
        match self {
            PState::Running => palette::BLUE,
            PState::Message => palette::SKY_BLUE,
            PState::RemoteRead => palette::ORANGE,
            PState::Lock => palette::YELLOW,
            PState::Children => palette::BLUISH_GREEN,
            PState::Delay => palette::GREY,
            PState::Idle => palette::WHITE,
        }
    }

    /// Its place in [`Self::WAITS`], if a wait.
    fn wait_index(self) -> Option<usize> {
        match self {
            PState::Message => Some(0),
            PState::RemoteRead => Some(1),
            PState::Lock => Some(2),
            PState::Children => Some(3),
            PState::Delay => Some(4),
            PState::Idle | PState::Running => None,
        }
    }
}

/// The colours of the pictures, defined once: Okabe and Ito's palette (2008), which
/// reads for the colour-blind, for the states ([`PState::colour`]), the critical path,
/// the weighted critical path and the message lines, so that no two of these share a
/// colour. A test checks that they are distinct.
pub mod palette {
    pub const BLUE: &str = "#0072b2";
    pub const SKY_BLUE: &str = "#56b4e9";
    pub const ORANGE: &str = "#e69f00";
    pub const YELLOW: &str = "#f0e442";
    pub const BLUISH_GREEN: &str = "#009e73";
    pub const GREY: &str = "#999999";
    pub const WHITE: &str = "#ffffff";
    /// The elapsed-time critical path: vermillion.
    pub const CRITICAL_PATH: &str = "#d55e00";
    /// The weighted critical path: reddish purple.
    pub const WEIGHTED_PATH: &str = "#cc79a7";
    /// Channel messages: black.
    pub const MESSAGE: &str = "#000000";
    /// Remote reads (request and reply): dark brown.
    pub const REMOTE_READ: &str = "#7a4a1e";
    /// Remote writes: indigo.
    pub const REMOTE_WRITE: &str = "#4b2882";
    /// The lines of the pictures, in the order the HTML report numbers message kinds
    /// (channel, remote read, remote write), then the two paths.
    pub const LINES: [&str; 5] = [MESSAGE, REMOTE_READ, REMOTE_WRITE, CRITICAL_PATH, WEIGHTED_PATH];

    /// The red, green and blue of a colour `#rrggbb` of this palette.
    pub fn rgb(hex: &str) -> [u8; 3] {
        let c = |i: usize| hex.get(i..i + 2).and_then(|x| u8::from_str_radix(x, 16).ok()).unwrap_or(0);
        [c(1), c(3), c(5)]
    }
}

/// The state a process enters with a state change, if it is a wait (shared with the OTF2
/// writer's wait regions).
pub fn wait_of(state: ProcState, reason: Reason) -> Option<PState> {
    match (state, reason) {
        (ProcState::Blocked, Reason::Channel { .. }) => Some(PState::Message),
        (ProcState::Blocked, Reason::RemoteRead { .. }) => Some(PState::RemoteRead),
        (_, Reason::Lock { .. }) => Some(PState::Lock),
        (ProcState::Blocked, Reason::Join | Reason::Forall | Reason::Children) => Some(PState::Children),
        (ProcState::Delayed, _) => Some(PState::Delay),
        _ => None,
    }
}

/// Values by small integer keys (process and processor ids): a vector for keys below
/// [`Slots::DENSE`], a map above (ids from a damaged record cannot make it huge). Not
/// [`crate::dense::DenseMap`], whose window may slide: ids of processes and processors
/// never do, and these look-ups, on the reading thread of `cpperf`, are among the
/// hottest of the analysis.
#[derive(Debug, Clone)]
struct Slots<V> {
    dense: Vec<Option<V>>,
    sparse: BTreeMap<u32, V>,
}

impl<V> Default for Slots<V> {
    fn default() -> Self {
        Slots { dense: Vec::new(), sparse: BTreeMap::new() }
    }
}

impl<V> Slots<V> {
    const DENSE: u32 = 1 << 22;

    #[inline]
    fn get(&self, k: u32) -> Option<&V> {
        if k < Self::DENSE {
            self.dense.get(k as usize).and_then(Option::as_ref)
        } else {
            self.sparse.get(&k)
        }
    }

    #[inline]
    fn get_mut(&mut self, k: u32) -> Option<&mut V> {
        if k < Self::DENSE {
            self.dense.get_mut(k as usize).and_then(Option::as_mut)
        } else {
            self.sparse.get_mut(&k)
        }
    }

    #[inline]
    fn insert(&mut self, k: u32, v: V) {
        if k < Self::DENSE {
            if self.dense.len() <= k as usize {
                self.dense.resize_with(k as usize + 1, || None);
            }
            self.dense[k as usize] = Some(v);
        } else {
            self.sparse.insert(k, v);
        }
    }

    fn remove(&mut self, k: u32) {
        if k < Self::DENSE {
            if let Some(x) = self.dense.get_mut(k as usize) {
                *x = None;
            }
        } else {
            self.sparse.remove(&k);
        }
    }

    fn clear(&mut self) {
        self.dense.clear();
        self.sparse.clear();
    }
}

/// A stretch of one processor's time: `(pproc, from, to, state)`.
pub type Stretch = (u32, Ticks, Ticks, PState);

/// Follows the run record and reports each processor's idle stretches with their state.
#[derive(Debug, Default, Clone)]
pub struct ProcessorStates {
    /// Each live process: its processor, and its wait with when it began, if waiting.
    procs: Slots<(u32, Option<(PState, Ticks)>)>,
    /// Per processor: its processes waiting in each of [`PState::WAITS`].
    waiting: Slots<[u32; 5]>,
    /// Per processor: the start of its open stretch (the end of its last busy interval,
    /// or where it was begun or cut) and the state it opened with.
    last: Slots<(Ticks, PState)>,
    /// Per processor: the changes of its idle state since the open stretch began, in
    /// time order: `(time, state from then on)`.
    changes: Slots<Vec<(Ticks, PState)>>,
    /// `(open stretch's start, processor)` of every processor begun with
    /// [`Self::begin`]: the writers hold their records back to the earliest.
    held: BTreeSet<(Ticks, u32)>,
}

impl ProcessorStates {
    /// The state an idle processor `p` would show now, by its processes' waits.
    fn idle_state(&self, p: u32) -> PState {
        let w = self.waiting.get(p).copied().unwrap_or_default();
        PState::WAITS.iter().zip(w).find(|&(_, n)| n > 0).map_or(PState::Idle, |(&s, _)| s)
    }

    /// Processor `p`'s state as of its latest known change.
    fn current(&self, p: u32) -> PState {
        match self.changes.get(p).and_then(|c| c.last()) {
            Some(&(_, s)) => s,
            None => self.last.get(p).map_or(PState::Idle, |l| l.1),
        }
    }

    /// Process `pid` begins (`Some`) or ends (`None`) a wait at `t`.
    fn set_wait(&mut self, pid: u32, wait: Option<(PState, Ticks)>, t: Ticks) {
        let Some(entry) = self.procs.get_mut(pid) else { return };
        let (p, old) = *entry;
        entry.1 = wait;
        let (was, now) = (old.and_then(|w| w.0.wait_index()), wait.and_then(|w| w.0.wait_index()));
        if was == now {
            return;
        }
        if self.waiting.get(p).is_none() {
            self.waiting.insert(p, [0; 5]);
        }
        let Some(counts) = self.waiting.get_mut(p) else { return };
        if let Some(i) = was {
            counts[i] = counts[i].saturating_sub(1);
        }
        if let Some(i) = now {
            counts[i] += 1;
        }
        let state = self.idle_state(p);
        if state != self.current(p) {
            match self.changes.get_mut(p) {
                Some(c) => c.push((t, state)),
                None => self.changes.insert(p, vec![(t, state)]),
            }
        }
    }

    /// Moves processor `p`'s open stretch to start at `from` in `state`.
    fn reopen(&mut self, p: u32, from: Ticks, state: PState) {
        if let Some(l) = self.last.get_mut(p) {
            let old = std::mem::replace(l, (from, state));
            if old.0 != from && self.held.remove(&(old.0, p)) {
                self.held.insert((from, p));
            }
        } else {
            self.last.insert(p, (from, state));
        }
    }

    /// Reports processor `p`'s stretches from its open stretch's start up to `to`, split
    /// at the changes before `to`, and opens its stretch at `to` in the state reached.
    fn close(&mut self, p: u32, to: Ticks, stretch: &mut impl FnMut(u32, Ticks, Ticks, PState)) {
        let (mut from, mut state) = self.last.get(p).copied().unwrap_or((0, PState::Idle));
        let mut taken = 0;
        if let Some(changes) = self.changes.get(p) {
            for &(t, s) in changes.iter().take_while(|&&(t, _)| t < to) {
                if t > from && s != state {
                    stretch(p, from, t, state);
                    from = t;
                }
                state = s;
                taken += 1;
            }
        }
        if to > from {
            stretch(p, from, to, state);
        }
        if let Some(c) = self.changes.get_mut(p) {
            c.drain(..taken);
        }
        self.reopen(p, to.max(from), state);
    }

    /// Takes one event into account, handing each stretch it closes to `stretch`
    /// (`pproc, from, to, state`): for a busy interval, the idle stretches before it
    /// (when nonempty, [`PState::Idle`] included) and the interval itself as
    /// [`PState::Running`]; none for other events.
    #[inline]
    pub fn each(&mut self, e: &Event, mut stretch: impl FnMut(u32, Ticks, Ticks, PState)) {
        match *e {
            Event::ProcCreate { pid, pproc, .. } => {
                self.procs.insert(pid, (pproc, None));
            }
            Event::ProcEnd { time, pid } => {
                self.set_wait(pid, None, time);
                self.procs.remove(pid);
            }
            Event::State { time, pid, state, reason } => {
                self.set_wait(pid, wait_of(state, reason).map(|w| (w, time)), time)
            }
            Event::RecvDone { time, pid, .. } => self.set_wait(pid, None, time),
            Event::Busy { pproc, pid, start, end, .. } if end > start => {
                // A process that ran was not waiting from then on (records without
                // `Running` state changes say so only this way).
                if self.procs.get(pid).and_then(|e| e.1).is_some_and(|(_, since)| since < start) {
                    self.set_wait(pid, None, start);
                }
                let open = self.last.get(pproc).map_or(0, |l| l.0);
                if start > open {
                    self.close(pproc, start, &mut stretch);
                }
                stretch(pproc, start.max(open), end, PState::Running);
                // The changes up to the interval's end happened in it: the state after
                // it is the last of them.
                let mut state = self.last.get(pproc).map_or(PState::Idle, |l| l.1);
                if let Some(c) = self.changes.get_mut(pproc) {
                    let k = c.iter().take_while(|&&(t, _)| t <= end).count();
                    if let Some(&(_, s)) = c[..k].last() {
                        state = s;
                    }
                    c.drain(..k);
                }
                self.reopen(pproc, end.max(open), state);
            }
            _ => {}
        }
    }

    /// Opens processor `p`'s stretch at `from` with the idle state (at the start), and
    /// holds it in [`Self::earliest_open`].
    pub fn begin(&mut self, p: u32, from: Ticks) {
        if let Some(old) = self.last.get(p) {
            self.held.remove(&(old.0, p));
        }
        self.last.insert(p, (from, PState::Idle));
        self.held.insert((from, p));
    }

    /// [`Self::begin`] for a reader that does not ask for [`Self::earliest_open`]: the
    /// stretch is not held, so moving it costs no update of the ordered set (a stretch
    /// never opened starts at 0 idle, as if opened at 0).
    pub fn open(&mut self, p: u32, from: Ticks) {
        debug_assert!(self.held.is_empty(), "open and begin are not mixed");
        self.last.insert(p, (from, PState::Idle));
    }

    /// The earliest start of the open stretch of a processor begun with
    /// [`Self::begin`]: no stretch reported later starts before it.
    pub fn earliest_open(&self) -> Ticks {
        self.held.first().map_or(Ticks::MAX, |&(t, _)| t)
    }

    /// The processors begun with [`Self::begin`] whose open stretch starts before `t`.
    pub fn open_before(&self, t: Ticks) -> Vec<u32> {
        self.held.range(..(t, 0)).map(|&(_, p)| p).collect()
    }

    /// Reports processor `p`'s stretches up to `at` (no busy interval read later starts
    /// before it); the rest goes on in the state reached.
    pub fn cut(&mut self, p: u32, at: Ticks, mut stretch: impl FnMut(u32, Ticks, Ticks, PState)) {
        if self.last.get(p).is_some_and(|l| l.0 < at) {
            self.close(p, at, &mut stretch);
        }
    }

    /// Closes every processor's last idle stretch at `end`; `procs` are the processors
    /// to report (those never busy are idle throughout, but for their processes' waits).
    pub fn finish(
        &mut self,
        end: Ticks,
        procs: impl Iterator<Item = u32>,
        mut stretch: impl FnMut(u32, Ticks, Ticks, PState),
    ) {
        for p in procs {
            self.close(p, end, &mut stretch);
        }
        self.last.clear();
        self.changes.clear();
        self.held.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The states, the two paths and the message kinds never share a colour.
    #[test]
    fn states_paths_and_messages_have_distinct_colours() {
        let mut all: Vec<&str> = PState::ALL.iter().map(|s| s.colour()).collect();
        all.extend(palette::LINES);
        let mut unique = all.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), all.len(), "{all:?}");
        assert!(all.iter().all(|c| c.len() == 7 && palette::rgb(c) != [0, 0, 0] || *c == palette::MESSAGE), "{all:?}");
        assert_eq!(palette::rgb(palette::CRITICAL_PATH), [213, 94, 0]);
    }

    #[test]
    fn report_and_wait_indices_are_places_in_all_and_waits() {
        for (k, s) in PState::ALL.iter().enumerate() {
            assert_eq!(s.report_index(), k, "{s:?}");
            assert_eq!(s.wait_index(), PState::WAITS.iter().position(|w| w == s), "{s:?}");
        }
    }
    use crate::trace::BusyClass;

    /// A stretch opened with `open` is reported as one opened with `begin` (only the
    /// ordered set of open stretches differs, which `open` leaves empty): processor 0
    /// opened at 20, busy 30..40, closed at 60; processor 1 opened at 20, never busy.
    #[test]
    fn open_reports_the_stretches_begin_does() {
        let evs = [busy(0, 0, 30, 40)];
        let run = |held: bool| {
            let mut s = ProcessorStates::default();
            for p in [0, 1] {
                if held {
                    s.begin(p, 20);
                } else {
                    s.open(p, 20);
                }
            }
            let mut got = Vec::new();
            for e in &evs {
                s.each(e, |p, a, b, st| got.push((p, a, b, st)));
            }
            let earliest = s.earliest_open();
            s.finish(60, [0, 1].into_iter(), |p, a, b, st| got.push((p, a, b, st)));
            (got, earliest)
        };
        let want = vec![
            (0, 20, 30, PState::Idle),
            (0, 30, 40, PState::Running),
            (0, 40, 60, PState::Idle),
            (1, 20, 60, PState::Idle),
        ];
        assert_eq!(run(true), (want.clone(), 20));
        assert_eq!(run(false), (want, Ticks::MAX));
    }

    fn busy(pproc: u32, pid: u32, start: Ticks, end: Ticks) -> Event {
        Event::Busy { pproc, pid, start, end, line: 1, class: BusyClass::Work }
    }

    /// By hand: processor 0 runs process 0 0..10, which then waits for a message until
    /// 30 and runs 30..40; process 1 (also on 0) is created at 5 and sleeps in delay from
    /// the start. Idle 10..30 shows the message (stronger than the delay); after 40
    /// (process 0 ended) the delay shows until the end, 50. Processor 1 never runs: idle.
    #[test]
    fn an_idle_processor_shows_its_strongest_wait() {
        let chan = Reason::Channel { channel: 0, index: 0 };
        let evs = vec![
            Event::ProcCreate { time: 0, parent: None, pid: 0, vproc: None, pproc: 0, function: 0, line: 0 },
            Event::ProcCreate { time: 5, parent: Some(0), pid: 1, vproc: None, pproc: 0, function: 0, line: 0 },
            Event::State { time: 5, pid: 1, state: ProcState::Delayed, reason: Reason::Delay { until: 90 } },
            Event::State { time: 10, pid: 0, state: ProcState::Blocked, reason: chan },
            busy(0, 0, 0, 10),
            Event::State { time: 30, pid: 0, state: ProcState::Running, reason: Reason::None },
            Event::ProcEnd { time: 40, pid: 0 },
            busy(0, 0, 30, 40),
        ];
        let mut s = ProcessorStates::default();
        let mut got = Vec::new();
        for e in &evs {
            s.each(e, |p, a, b, st| got.push((p, a, b, st)));
        }
        s.finish(50, [0, 1].into_iter(), |p, a, b, st| got.push((p, a, b, st)));
        assert_eq!(
            got,
            vec![
                (0, 0, 10, PState::Running),
                (0, 10, 30, PState::Message),
                (0, 30, 40, PState::Running),
                (0, 40, 50, PState::Delay),
                (1, 0, 50, PState::Idle),
            ]
        );
    }
}
