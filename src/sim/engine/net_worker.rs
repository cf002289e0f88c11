//! The network on a second thread, running ahead of the processors ([`crate::net::AheadStep`]).
//!
//! While the processors run a quantum that starts at `qstart`, nothing they do can change
//! the network's events before `qstart + lookahead` (a message changes nothing before it
//! is ready to leave). So the simulator hands the network to a worker thread that
//! processes those events, collecting the arrivals, while the processors' sends of the
//! quantum are held back (first step). After the quantum, the worker enters the
//! held-back sends where they would have been had they been made first and processes
//! the events up to the quantum's end (second step), while the simulator delivers the
//! arrivals of the first step; then the network comes back with the arrivals of the
//! second step, which are delivered in turn. The network's state stays in the worker's
//! cache, and the results are the same as without the worker, byte for byte: the order
//! of every event, arrival and message id is unchanged.
//!
//! Each step stops early at the arrival of a remote-read request: its reply is a send
//! the simulator makes when it handles the arrival, before the network goes on, so the
//! simulator takes the network back there and goes on as without the worker.
//!
//! Each side waits for the other by spinning for a short while (a quantum takes tens of
//! microseconds), then by yielding its processor, then by parking.
use crate::net::{NetError, NetParams, Network};
use crate::time::Ticks;
use crate::time::NEVER;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::{self, JoinHandle, Thread};
use std::time::{Duration, Instant};

/// The work of one step: the network, how far to go, and what came out.
struct Job {
    net: Box<dyn Network>,
    until: Ticks,
    /// The second step of a quantum: first enter `sends` (the held-back ones) before
    /// the events made in the first step at the same times.
    late: bool,
    sends: Vec<Held>,
    /// Ids of the remote-read requests in the network: the worker stops after one arrives.
    stops: Vec<u64>,
    /// The arrivals, in the order the network gave them, and whether the last one is a
    /// remote-read request the worker stopped at.
    arrivals: Vec<(u64, Ticks)>,
    stopped: bool,
}

/// A send held back: (id, src, dst, bytes, now).
pub(super) type Held = (u64, u32, u32, u32, Ticks);

impl Job {
    fn run(&mut self) {
        if self.late {
            enter(&mut *self.net, &self.sends);
            self.late = false;
        }
        self.stopped = false;
        while let Some((id, t)) = self.net.next_arrival(self.until) {
            self.arrivals.push((id, t));
            if self.stops.contains(&id) {
                self.stopped = true;
                break;
            }
        }
    }
}

/// Makes the sends held back while `net` ran ahead, where they would have been
/// ([`crate::net::AheadStep`] steps 2 and 3).
pub(super) fn enter(net: &mut dyn Network, sends: &[Held]) {
    net.ahead(crate::net::AheadStep::Insert);
    for &(id, src, dst, bytes, now) in sends {
        let r = net.send(id, src, dst, bytes, now);
        debug_assert!(r.is_none());
    }
    net.ahead(crate::net::AheadStep::End);
}

const IDLE: u32 = 0;
const GO: u32 = 1;
const DONE: u32 = 2;
const QUIT: u32 = 3;
/// The worker ended without finishing its job (only a bug in a model can cause it).
const LOST: u32 = 4;

struct Shared {
    state: AtomicU32,
    job: Mutex<Option<Job>>,
    main: Thread,
}

/// Waits until `done` holds for the state, returning the state: spins a little, then
/// yields the processor (the other thread may be waiting for it), then parks.
fn wait_for(state: &AtomicU32, done: impl Fn(u32) -> bool) -> u32 {
    let mut start = None;
    let mut spins = 0u32;
    loop {
        let s = state.load(Ordering::Acquire);
        if done(s) {
            return s;
        }
        spins = spins.saturating_add(1);
        if spins < 128 {
            std::hint::spin_loop();
        } else if start.get_or_insert_with(Instant::now).elapsed() < Duration::from_millis(1) {
            thread::yield_now();
        } else {
            thread::park_timeout(Duration::from_millis(1));
        }
    }
}

/// Sets the state to `LOST` if the worker unwinds.
struct Guard<'a>(&'a Shared);

impl Drop for Guard<'_> {
    fn drop(&mut self) {
        if thread::panicking() {
            self.0.state.store(LOST, Ordering::Release);
            self.0.main.unpark();
        }
    }
}

fn work(shared: &Shared) {
    let _guard = Guard(shared);
    loop {
        if wait_for(&shared.state, |s| s == GO || s == QUIT) == QUIT {
            return;
        }
        let job = shared.job.lock().unwrap_or_else(PoisonError::into_inner).take();
        if let Some(mut job) = job {
            job.run();
            *shared.job.lock().unwrap_or_else(PoisonError::into_inner) = Some(job);
        }
        // DONE only after the job is back; not over a QUIT.
        if shared.state.compare_exchange(GO, DONE, Ordering::AcqRel, Ordering::Acquire).is_err() {
            return;
        }
        shared.main.unpark();
    }
}

/// Quanta per window of the policy.
const WINDOW: u32 = 64;
/// Windows per cycle of the policy: a probe with the network thread, one without, then
/// the faster way for the rest.
const CYCLE: u32 = 8;

/// Whether running ahead pays, measured: it does only when the worker gets a processor
/// of its own, which depends on what else the host runs, so the policy times a window
/// of quanta each way every cycle and runs the rest of the cycle the faster way. Only
/// the host time depends on it: the results are the same either way.
struct Policy {
    window: u32,
    in_window: u32,
    start: Instant,
    /// Host time per quantum of the last probe with and without the network thread.
    with: f64,
    without: f64,
    /// Every quantum, whatever the times.
    always: bool,
}

impl Policy {
    fn new(always: bool) -> Policy {
        Policy { window: 0, in_window: 0, start: Instant::now(), with: 0.0, without: 0.0, always }
    }

    /// Whether to run the next quantum ahead.
    fn next(&mut self) -> bool {
        if self.in_window == WINDOW {
            let per = self.start.elapsed().as_secs_f64() / f64::from(WINDOW);
            match self.window % CYCLE {
                0 => self.with = per,
                1 => self.without = per,
                _ => {}
            }
            self.window = self.window.wrapping_add(1);
            self.in_window = 0;
            self.start = Instant::now();
        }
        self.in_window += 1;
        match self.window % CYCLE {
            _ if self.always => true,
            0 => true,
            1 => false,
            _ => self.with < self.without,
        }
    }
}

/// The worker thread and the simulator's side of running ahead.
pub(super) struct NetWorker {
    shared: Arc<Shared>,
    worker: Option<JoinHandle<()>>,
    /// Whether the network is with the worker (the current quantum runs ahead).
    pub active: bool,
    /// Whether the worker has a step to finish.
    running: bool,
    /// The parameters of the network (for the sends held back).
    pub params: NetParams,
    /// The network's next event when the quantum started; the least time a held-back
    /// send is ready: together, what the network's next event would be now.
    pub next0: Ticks,
    pub min_ready: Ticks,
    /// Sends held back.
    pub held: Vec<Held>,
    /// What stands in for the network while the worker has it.
    pub spare: Option<Box<dyn Network>>,
    policy: Policy,
    /// Reused buffers of the job.
    stops: Vec<u64>,
    pool: Vec<Vec<(u64, Ticks)>>,
    held_spare: Vec<Held>,
}

impl NetWorker {
    /// Starts the worker, or `None` when the host has a single processor (running ahead
    /// would then only add the hand-overs) or the thread cannot be made.
    /// With `always`, every quantum runs ahead, whatever the host (see [`Policy`]).
    pub fn start(params: NetParams, always: bool) -> Option<NetWorker> {
        if !always && thread::available_parallelism().map_or(1, |n| n.get()) < 2 {
            return None;
        }
        let shared = Arc::new(Shared { state: AtomicU32::new(IDLE), job: Mutex::new(None), main: thread::current() });
        let s = Arc::clone(&shared);
        let worker = thread::Builder::new().name("cpss-network".into()).spawn(move || work(&s)).ok()?;
        let params_copy = params.clone();
        Some(NetWorker {
            shared,
            worker: Some(worker),
            active: false,
            running: false,
            params,
            next0: NEVER,
            min_ready: NEVER,
            held: Vec::new(),
            spare: Some(Box::new(Away(params_copy))),
            policy: Policy::new(always),
            stops: Vec::new(),
            pool: Vec::new(),
            held_spare: Vec::new(),
        })
    }

    /// Whether the next quantum should run ahead (see [`Policy`]).
    pub fn wanted(&mut self) -> bool {
        self.policy.next()
    }

    /// Hands `net` to the worker to process its events before `until`; `stops` are the
    /// remote-read requests in flight.
    pub fn give(&mut self, net: Box<dyn Network>, until: Ticks, next0: Ticks, stops: impl Iterator<Item = u64>) {
        let mut st = std::mem::take(&mut self.stops);
        st.clear();
        st.extend(stops);
        let arrivals = self.fresh();
        let sends = std::mem::take(&mut self.held_spare);
        *self.shared.job.lock().unwrap_or_else(PoisonError::into_inner) =
            Some(Job { net, until, late: false, sends, stops: st, arrivals, stopped: false });
        self.active = true;
        self.next0 = next0;
        self.min_ready = NEVER;
        self.held.clear();
        self.running = true;
        self.shared.state.store(GO, Ordering::Release);
        if let Some(w) = &self.worker {
            w.thread().unpark();
        }
    }

    /// Waits for the worker to finish its step (if one runs).
    fn wait(&mut self) {
        if !std::mem::take(&mut self.running) {
            return;
        }
        if wait_for(&self.shared.state, |s| s != GO) != DONE {
            // The model panicked on the worker: the same panic as without it.
            panic!("the network thread stopped");
        }
        self.shared.state.store(IDLE, Ordering::Release);
    }

    /// Waits for the worker's first step and returns its arrivals (hand the vector back
    /// with [`NetWorker::reuse`]) and whether it stopped at a remote-read request; the
    /// network stays with the worker.
    pub fn first(&mut self) -> (Vec<(u64, Ticks)>, bool) {
        self.active = false;
        self.wait();
        let fresh = self.fresh();
        let mut guard = self.shared.job.lock().unwrap_or_else(PoisonError::into_inner);
        let Some(job) = guard.as_mut() else { panic!("the network thread lost its job") };
        (std::mem::replace(&mut job.arrivals, fresh), job.stopped)
    }

    /// Starts the worker's second step: make the held-back sends, then process the
    /// events before `until` (the quantum's end); `stops` are the remote-read requests
    /// in flight now (the held-back sends among them).
    pub fn second(&mut self, until: Ticks, stops: impl Iterator<Item = u64>) {
        {
            let mut guard = self.shared.job.lock().unwrap_or_else(PoisonError::into_inner);
            let Some(job) = guard.as_mut() else { panic!("the network thread lost its job") };
            job.until = until;
            job.late = true;
            job.stops.clear();
            job.stops.extend(stops);
            job.sends.clear();
            std::mem::swap(&mut job.sends, &mut self.held);
        }
        self.running = true;
        self.shared.state.store(GO, Ordering::Release);
        if let Some(w) = &self.worker {
            w.thread().unpark();
        }
    }

    /// Waits for the worker and takes the network back with the arrivals of its last
    /// step (hand the vector back with [`NetWorker::reuse`]); when the step stopped at a
    /// remote-read request, the network gives the rest of the quantum's arrivals from
    /// where it stopped.
    pub fn take(&mut self) -> (Box<dyn Network>, Vec<(u64, Ticks)>) {
        self.active = false;
        self.wait();
        let job = self.shared.job.lock().unwrap_or_else(PoisonError::into_inner).take();
        let Some(mut job) = job else { panic!("the network thread lost its job") };
        self.stops = job.stops;
        job.sends.clear();
        self.held_spare = job.sends;
        (job.net, job.arrivals)
    }

    /// Keeps an arrivals' vector for the next quantum.
    pub fn reuse(&mut self, mut arrivals: Vec<(u64, Ticks)>) {
        arrivals.clear();
        self.pool.push(arrivals);
    }

    fn fresh(&mut self) -> Vec<(u64, Ticks)> {
        self.pool.pop().unwrap_or_default()
    }
}

/// What stands in for the network while the worker has it: the simulator makes no call
/// to it then (sends are held back, see [`NetWorker::held`]).
pub(super) struct Away(pub NetParams);

impl Network for Away {
    fn send(&mut self, _: u64, _: u32, _: u32, _: u32, _: Ticks) -> Option<Ticks> {
        debug_assert!(false, "a send while the network is on the worker");
        None
    }

    fn params(&self) -> &NetParams {
        &self.0
    }

    fn set_params(&mut self, _: NetParams) -> Result<(), NetError> {
        Err(NetError::BadValue { param: "network", message: "cannot change while the network runs ahead".into() })
    }
}

impl Drop for NetWorker {
    fn drop(&mut self) {
        self.shared.state.store(QUIT, Ordering::Release);
        if let Some(w) = self.worker.take() {
            w.thread().unpark();
            let _ = w.join();
        }
    }
}
