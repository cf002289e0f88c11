//! What each physical processor is doing when it is not running a process: why its
//! processes wait. One state machine, shared by the Paraver writer (its state records)
//! and `cpperf` (time per state per processor), so the two always agree.
//!
//! A processor runs (state [`PState::Running`]) during its busy intervals. Between them
//! it is idle, and the idle stretch takes the state of the processes placed on it at
//! the moment it fell idle (the end of the busy interval before): waiting for a message
//! if one of them waits in a receive, else for a remote read's reply, else for a lock,
//! else for children (`join`, `forall`, the end of a parent), else delayed, else idle
//! (none alive, or all ended). A processor's processes change state only when one of
//! them runs (it blocks at the end of its turn; it resumes at the start of a turn), so
//! the state at the start of an idle stretch holds through it. The state changes come
//! before the busy interval they end in a run record (a turn's events are recorded
//! before its busy interval), so the state at an interval's end is known when the
//! interval is read. Streaming: memory per live process and per processor.
//!
//! Depends on [`super::event`].
use super::event::{Event, ProcState, Reason, Ticks};
use std::collections::BTreeMap;

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
    pub fn name(self) -> &'static str {
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

/// The state a process enters with a state change, if it is a wait.
fn wait_of(state: ProcState, reason: Reason) -> Option<PState> {
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
    /// Per processor: the end of its last busy interval and its state from then on.
    last: Slots<(Ticks, PState)>,
}

impl ProcessorStates {
    /// The state an idle processor `p` shows now.
    fn idle_state(&self, p: u32) -> PState {
        let w = self.waiting.get(p).copied().unwrap_or_default();
        PState::WAITS.iter().zip(w).find(|&(_, n)| n > 0).map_or(PState::Idle, |(&s, _)| s)
    }

    fn set_wait(&mut self, pid: u32, wait: Option<(PState, Ticks)>) {
        let Some(entry) = self.procs.get_mut(pid) else { return };
        let (p, old) = *entry;
        entry.1 = wait;
        if self.waiting.get(p).is_none() {
            self.waiting.insert(p, [0; 5]);
        }
        let Some(counts) = self.waiting.get_mut(p) else { return };
        if let Some(i) = old.and_then(|w| w.0.wait_index()) {
            counts[i] = counts[i].saturating_sub(1);
        }
        if let Some(i) = wait.and_then(|w| w.0.wait_index()) {
            counts[i] += 1;
        }
    }

    /// Takes one event into account; returns the stretches `(pproc, from, to, state)` it
    /// closes: for a busy interval, the idle stretch before it (when nonempty, state
    /// [`PState::Idle`] included) and the interval itself as [`PState::Running`]; none
    /// for other events. No allocation: at most two, in an array.
    pub fn event(&mut self, e: &Event) -> impl Iterator<Item = Stretch> {
        let mut out: [Option<Stretch>; 2] = [None, None];
        let mut n = 0;
        self.each(e, |p, a, b, st| {
            out[n] = Some((p, a, b, st));
            n += 1;
        });
        out.into_iter().flatten()
    }

    /// [`Self::event`] handing each stretch it closes to `stretch`, in the same order:
    /// for the analysis, which takes one for every busy interval of a run.
    #[inline]
    pub fn each(&mut self, e: &Event, mut stretch: impl FnMut(u32, Ticks, Ticks, PState)) {
        match *e {
            Event::ProcCreate { pid, pproc, .. } => {
                self.procs.insert(pid, (pproc, None));
            }
            Event::ProcEnd { pid, .. } => {
                self.set_wait(pid, None);
                self.procs.remove(pid);
            }
            Event::State { time, pid, state, reason } => self.set_wait(pid, wait_of(state, reason).map(|w| (w, time))),
            Event::RecvDone { pid, .. } => self.set_wait(pid, None),
            Event::Busy { pproc, pid, start, end, .. } if end > start => {
                // A process that ran was not waiting from then on (records without
                // `Running` state changes say so only this way).
                if self.procs.get(pid).and_then(|e| e.1).is_some_and(|(_, since)| since < start) {
                    self.set_wait(pid, None);
                }
                let now = self.idle_state(pproc);
                // The open stretch: since the end of the last busy interval, or idle
                // since the start.
                let (from, state) = match self.last.get_mut(pproc) {
                    Some(last) => std::mem::replace(last, (end.max(last.0), now)),
                    None => {
                        self.last.insert(pproc, (end, now));
                        (0, PState::Idle)
                    }
                };
                if start > from {
                    stretch(pproc, from, start, state);
                }
                stretch(pproc, start, end, PState::Running);
            }
            _ => {}
        }
    }

    /// Processor `p`'s open stretch (since the end of its last busy interval, or the
    /// start of the trace): its start and state.
    pub fn open(&self, p: u32) -> Option<(Ticks, PState)> {
        self.last.get(p).copied()
    }

    /// Opens processor `p`'s stretch at `from` with the idle state (at the start).
    pub fn begin(&mut self, p: u32, from: Ticks) {
        self.last.insert(p, (from, PState::Idle));
    }

    /// Cuts processor `p`'s open stretch at `at` (its part before `at` was reported):
    /// the rest goes on in the same state.
    pub fn cut(&mut self, p: u32, at: Ticks) {
        if let Some(l) = self.last.get_mut(p) {
            l.0 = l.0.max(at);
        }
    }

    /// Closes every processor's last idle stretch at `end`; `procs` are the processors
    /// to report (those never busy are idle throughout).
    pub fn finish(
        &mut self,
        end: Ticks,
        procs: impl Iterator<Item = u32>,
        mut stretch: impl FnMut(u32, Ticks, Ticks, PState),
    ) {
        for p in procs {
            let (from, state) = self.last.get(p).copied().unwrap_or((0, PState::Idle));
            if end > from {
                stretch(p, from, end, state);
            }
        }
        self.last.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_and_wait_indices_are_places_in_all_and_waits() {
        for (k, s) in PState::ALL.iter().enumerate() {
            assert_eq!(s.report_index(), k, "{s:?}");
            assert_eq!(s.wait_index(), PState::WAITS.iter().position(|w| w == s), "{s:?}");
        }
    }
    use crate::trace::BusyClass;

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
            got.extend(s.event(e));
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
