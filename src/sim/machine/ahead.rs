//! The network on a second thread, running ahead of the processors ([`crate::net::Ahead`]).
//!
//! While the processors run a quantum that starts at `qstart`, nothing they do can change
//! the network's events before `qstart + lookahead` (a message changes nothing before it
//! is ready to leave). So the simulator hands the network to a worker thread that
//! processes those events, collecting the arrivals, while the processors' sends of the
//! quantum are held back. After the quantum the network comes back, the held-back sends
//! are entered where they would have been had they been made first, the collected
//! arrivals are delivered in order, and the network goes on to the quantum's end as
//! usual. The results are the same as without the worker, byte for byte: the order of
//! every event, arrival and message id is unchanged (see `Simulator::run_quantum`).
//!
//! The worker stops early at the arrival of a remote-read request: its reply is a send
//! the simulator makes when it handles the arrival, before the network goes on.
//!
//! The threads hand the network over twice a quantum. Each side waits by spinning for a
//! short while (a quantum takes tens of microseconds), then by parking.
use crate::net::{NetError, NetParams, Network, Ticks, NEVER};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::{self, JoinHandle, Thread};
use std::time::{Duration, Instant};

/// The work of one quantum: the network, how far to go, and what came out.
pub(super) struct Job {
    pub net: Box<dyn Network>,
    pub until: Ticks,
    /// Ids of the remote-read requests in the network: the worker stops after one arrives.
    pub stops: Vec<u64>,
    /// The arrivals, in the order the network gave them.
    pub arrivals: Vec<(u64, Ticks)>,
}

impl Job {
    fn run(&mut self) {
        while let Some((id, t)) = self.net.next_arrival(self.until) {
            self.arrivals.push((id, t));
            if self.stops.contains(&id) {
                break;
            }
        }
    }
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
pub(super) struct Ahead {
    shared: Arc<Shared>,
    worker: Option<JoinHandle<()>>,
    /// Whether the network is with the worker (the current quantum runs ahead).
    pub active: bool,
    /// The parameters of the network (for the sends held back).
    pub params: NetParams,
    /// The network's next event when the quantum started; the least time a held-back
    /// send is ready: together, what the network's next event would be now.
    pub next0: Ticks,
    pub min_ready: Ticks,
    /// Sends held back: (id, src, dst, bytes, now).
    pub held: Vec<(u64, u32, u32, u32, Ticks)>,
    /// What stands in for the network while the worker has it.
    pub spare: Option<Box<dyn Network>>,
    policy: Policy,
    /// Reused buffers of the job.
    stops: Vec<u64>,
    arrivals: Vec<(u64, Ticks)>,
}

impl Ahead {
    /// Starts the worker, or `None` when the host has a single processor (running ahead
    /// would then only add the hand-overs) or the thread cannot be made.
    /// With `always`, every quantum runs ahead, whatever the host (see [`Policy`]).
    pub fn start(params: NetParams, always: bool) -> Option<Ahead> {
        if !always && thread::available_parallelism().map_or(1, |n| n.get()) < 2 {
            return None;
        }
        let shared = Arc::new(Shared { state: AtomicU32::new(IDLE), job: Mutex::new(None), main: thread::current() });
        let s = Arc::clone(&shared);
        let worker = thread::Builder::new().name("cpss-network".into()).spawn(move || work(&s)).ok()?;
        let params_copy = params.clone();
        Some(Ahead {
            shared,
            worker: Some(worker),
            active: false,
            params,
            next0: NEVER,
            min_ready: NEVER,
            held: Vec::new(),
            spare: Some(Box::new(Away(params_copy))),
            policy: Policy::new(always),
            stops: Vec::new(),
            arrivals: Vec::new(),
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
        let mut arrivals = std::mem::take(&mut self.arrivals);
        arrivals.clear();
        *self.shared.job.lock().unwrap_or_else(PoisonError::into_inner) = Some(Job { net, until, stops: st, arrivals });
        self.active = true;
        self.next0 = next0;
        self.min_ready = NEVER;
        self.held.clear();
        self.shared.state.store(GO, Ordering::Release);
        if let Some(w) = &self.worker {
            w.thread().unpark();
        }
    }

    /// Waits for the worker and takes the network back with the arrivals it collected
    /// (hand the vector back with [`Ahead::reuse`]).
    pub fn take(&mut self) -> (Box<dyn Network>, Vec<(u64, Ticks)>) {
        self.active = false;
        let s = wait_for(&self.shared.state, |s| s != GO);
        let job = self.shared.job.lock().unwrap_or_else(PoisonError::into_inner).take();
        let Some(job) = job.filter(|_| s == DONE) else {
            // The model panicked on the worker: the same panic as without it.
            panic!("the network thread stopped");
        };
        self.shared.state.store(IDLE, Ordering::Release);
        self.stops = job.stops;
        (job.net, job.arrivals)
    }

    /// Keeps the arrivals' vector for the next quantum.
    pub fn reuse(&mut self, arrivals: Vec<(u64, Ticks)>) {
        self.arrivals = arrivals;
    }
}

/// What stands in for the network while the worker has it: the simulator makes no call
/// to it then (sends are held back, see [`Ahead::held`]).
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

impl Drop for Ahead {
    fn drop(&mut self) {
        self.shared.state.store(QUIT, Ordering::Release);
        if let Some(w) = self.worker.take() {
            w.thread().unpark();
            let _ = w.join();
        }
    }
}
