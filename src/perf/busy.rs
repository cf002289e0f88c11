//! The run's busy time as the analyses query it: [`BusyProfile`] (how many processors
//! were busy over any interval, and the concurrency histogram) and [`CpuTime`] (each
//! process's CPU time over any interval), with the sorting and sweeping that keep those
//! queries cheap: two binary searches each, or amortised constant time when the times
//! come nearly in order, as an execution graph's nodes do.
//!
//! Depends only on [`crate::trace`] (its tick type).
use crate::dense::DenseMap;
use crate::time::Ticks;

/// Sorts `v` by value unless it is sorted already. A record lists busy intervals by
/// their end, so their starts come nearly in order: each at most a few hundred places
/// from where it belongs (at most 887, 316 on average, for the 6.3 million starts of
/// `scripts/bench-perf.sh`'s record). Such input is sorted by `sort_nearly`: blocks of
/// `BLOCK` sorted side by side, then each merged with the one before; that is checked,
/// and anything it leaves out of order (values displaced by more than a block) is sorted
/// whole by rayon's parallel pattern-defeating quicksort. Whichever way, the sorted
/// numbers are the same.
pub fn sort_ticks<T: Tick>(v: &mut [T]) {
    use rayon::slice::ParallelSliceMut;
    if v.is_sorted() {
        return;
    }
    if v.len() >= 4 * BLOCK && sort_nearly(v) {
        return;
    }
    v.par_sort_unstable();
}

/// The block of [`sort_nearly`]: 32 KiB of ticks, sorted within the first-level cache,
/// and several times the displacement of a record's interval starts.
const BLOCK: usize = 4096;

/// Sorts every block of [`BLOCK`] values, then merges each block with the one before it
/// (as already merged with its own predecessor), in order; `true` when `v` ends sorted.
/// That is the case whenever no value lies more than a block from its sorted place:
/// the values of sorted places `[kB, (k+1)B)` then come from blocks k−1, k and k+1, and
/// once block k has been merged with block k+1, block k holds exactly them (the places
/// before it hold the smaller values by induction, and every value not yet placed from
/// blocks up to k+1 is in blocks k and k+1). Each merge moves only the values of the
/// earlier block above the later block's first, so nearly sorted input costs little
/// more than the blocks' sorts: about half the work of sorting the whole.
fn sort_nearly<T: Tick>(v: &mut [T]) -> bool {
    use rayon::prelude::*;
    v.par_chunks_mut(BLOCK).for_each(|b| b.sort_unstable());
    let mut carry: Vec<T> = Vec::with_capacity(BLOCK);
    let mut mid = BLOCK;
    while mid < v.len() {
        let hi = (mid + BLOCK).min(v.len());
        let first = v[mid];
        // The earlier block's values above the later block's first: those move.
        let from = mid - BLOCK + v[mid - BLOCK..mid].partition_point(|&x| x <= first);
        if from < mid {
            carry.clear();
            carry.extend_from_slice(&v[from..mid]);
            // Writes stay at or below the next unread value of the later block:
            // w = j - (values of `carry` not yet written).
            let (mut i, mut j, mut w) = (0, mid, from);
            while i < carry.len() && j < hi {
                if v[j] < carry[i] {
                    v[w] = v[j];
                    j += 1;
                } else {
                    v[w] = carry[i];
                    i += 1;
                }
                w += 1;
            }
            v[w..w + carry.len() - i].copy_from_slice(&carry[i..]);
        }
        mid = hi;
    }
    v.is_sorted()
}

/// A time as the busy intervals' bounds keep it: `u32` while every time of the run fits
/// (half the memory, and half the bytes to sort and sweep), else [`Ticks`].
pub trait Tick: Copy + Ord + Send + Sync + Into<u64> + std::fmt::Debug + 'static {}
impl Tick for u32 {}
impl Tick for u64 {}

/// The starts and the ends of busy intervals, in the order given: 4 bytes each while
/// every end fits 32 bits (the times of most runs), widened to 8 once one does not.
#[derive(Debug, Clone)]
pub enum Bounds {
    /// Every end (so every start) below 2^32.
    Narrow {
        /// The starts.
        starts: Vec<u32>,
        /// The ends.
        ends: Vec<u32>,
    },
    /// Some end of 2^32 or more.
    Wide {
        /// The starts.
        starts: Vec<Ticks>,
        /// The ends.
        ends: Vec<Ticks>,
    },
}

impl Default for Bounds {
    fn default() -> Self {
        Bounds::Narrow { starts: Vec::new(), ends: Vec::new() }
    }
}

impl Bounds {
    /// Appends the interval `[start, end]`, `start <= end`.
    #[inline]
    pub fn push(&mut self, start: Ticks, end: Ticks) {
        debug_assert!(start <= end);
        match self {
            Bounds::Narrow { starts, ends } => match u32::try_from(end) {
                // start <= end: it fits too.
                Ok(e) => {
                    starts.push(start as u32);
                    ends.push(e);
                }
                Err(_) => self.widen(start, end),
            },
            Bounds::Wide { starts, ends } => {
                starts.push(start);
                ends.push(end);
            }
        }
    }

    /// Widens narrow bounds to [`Ticks`] and appends `[start, end]`.
    #[cold]
    fn widen(&mut self, start: Ticks, end: Ticks) {
        let (mut starts, mut ends) = self.iter().unzip::<Ticks, Ticks, Vec<Ticks>, Vec<Ticks>>();
        starts.push(start);
        ends.push(end);
        *self = Bounds::Wide { starts, ends };
    }

    /// The number of intervals.
    pub fn len(&self) -> usize {
        match self {
            Bounds::Narrow { ends, .. } => ends.len(),
            Bounds::Wide { ends, .. } => ends.len(),
        }
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The intervals `(start, end)` in the order given (sorted, once [`Self::sort`]ed).
    pub fn iter(&self) -> Box<dyn Iterator<Item = (Ticks, Ticks)> + '_> {
        match self {
            Bounds::Narrow { starts, ends } => {
                Box::new(starts.iter().zip(ends).map(|(&s, &e)| (Ticks::from(s), Ticks::from(e))))
            }
            Bounds::Wide { starts, ends } => Box::new(starts.iter().copied().zip(ends.iter().copied())),
        }
    }

    /// Sorts the starts and the ends, each on its own ([`sort_ticks`], side by side).
    pub fn sort(&mut self) {
        match self {
            Bounds::Narrow { starts, ends } => {
                rayon::join(|| sort_ticks(starts), || sort_ticks(ends));
            }
            Bounds::Wide { starts, ends } => {
                rayon::join(|| sort_ticks(starts), || sort_ticks(ends));
            }
        }
    }
}

/// The average fraction of `n` processors busy over `span` ticks in which they were busy
/// `area` processor-ticks, at most 1: [`BusyProfile::parallelism`].
pub fn busy_fraction(area: u128, n: u32, span: Ticks) -> f64 {
    (wide_to_f64(area) / (f64::from(n) * span as f64)).min(1.0)
}

/// The P of an edge's WCPA weight: the average fraction busy, over `span` ticks in which
/// the `n` processors were busy `area` processor-ticks, of the processors other than the
/// one the edge's activity occupies. A computation (`own`: its process's busy ticks
/// during the edge, inside `area`) occupies its processor, so P is the busy share of the
/// other n − 1 (seed 003 §3.4: a computation during which "all other nodes are idle" has
/// P = 0 and weighs nΔt; with n = 1 there is no other, and P = 1); a message, a spawn or
/// a join occupies none, so P is the busy share of all n. At most 1. The weighted
/// critical path's pass, [`BusyProfile::edge_parallelism`] and the phases use it alike.
pub fn edge_busy_fraction(area: u128, own: Option<f64>, n: u32, span: Ticks) -> f64 {
    match own {
        None => busy_fraction(area, n, span),
        Some(_) if n <= 1 => 1.0,
        Some(own) => ((wide_to_f64(area) - own).max(0.0) / (f64::from(n - 1) * span as f64)).min(1.0),
    }
}

/// `x as f64`, through the hardware's conversion of a 64-bit integer when `x` fits one
/// (the usual case: an edge's busy area); the software conversion of a 128-bit one
/// otherwise. The same value either way: both round the same integer to the nearest
/// double.
#[inline]
fn wide_to_f64(x: u128) -> f64 {
    match u64::try_from(x) {
        Ok(x) => x as f64,
        Err(_) => x as f64,
    }
}

/// Starts (ends) of a [`BusyProfile`] per stored running sum of them.
const SUM_STEP: usize = 32;

/// The most values a [`Sweep`] walks forward one by one before it gallops.
const WALK: usize = 64;

/// How many processors were busy over time, from the sorted starts and the sorted ends of
/// the `Busy` intervals and running sums of each every `SUM_STEP` of them. The busy area
/// (processor-ticks) from time 0 to t is Σ over starts before t of (t − start) minus Σ
/// over ends before t of (t − end): two binary searches and at most `SUM_STEP` steps
/// each. About 9 bytes an interval (17 when the run's times do not fit 32 bits,
/// [`Bounds`]); the run's one copy of this is shared by the critical path, the phases
/// and the concurrency histogram.
#[derive(Debug, Default, Clone)]
pub struct BusyProfile {
    /// The sorted starts and the sorted ends.
    bounds: Bounds,
    /// Σ `starts[..SUM_STEP·j]`.
    start_sums: Vec<u128>,
    /// Σ `ends[..SUM_STEP·j]`.
    end_sums: Vec<u128>,
}

/// `u128::from(x)` of a [`Tick`].
#[inline(always)]
fn wide<T: Tick>(x: T) -> u128 {
    u128::from(x.into())
}

/// Whether `x < t`.
#[inline(always)]
fn lt<T: Tick>(x: T, t: Ticks) -> bool {
    x.into() < t
}

/// The running sums of `v` every [`SUM_STEP`] values, from the empty one.
fn step_sums<T: Tick>(v: &[T]) -> Vec<u128> {
    let mut sums = Vec::with_capacity(v.len() / SUM_STEP + 1);
    let mut sum = 0u128;
    sums.push(0);
    for chunk in v.chunks_exact(SUM_STEP) {
        sum += chunk.iter().map(|&x| wide(x)).sum::<u128>();
        sums.push(sum);
    }
    sums
}

/// Σ over the values of sorted `v` below `t` of (t − value), with the running sums of
/// [`step_sums`].
fn below<T: Tick>(v: &[T], sums: &[u128], t: Ticks) -> u128 {
    let k = v.partition_point(|&x| lt(x, t));
    let from = k / SUM_STEP * SUM_STEP;
    let sum = sums.get(k / SUM_STEP).copied().unwrap_or(0) + v[from..k].iter().map(|&x| wide(x)).sum::<u128>();
    k as u128 * u128::from(t) - sum
}

/// A cursor in sorted values and their [`step_sums`]: [`below`] for times that mostly
/// increase, in amortised constant time.
struct Sweep<'a, T> {
    v: &'a [T],
    sums: &'a [u128],
    /// The number of values below the last time asked.
    k: usize,
    /// Their sum.
    sum: u128,
}

impl<T: Tick> Sweep<'_, T> {
    /// Σ over the values below `t` of (t − value), as [`below`]. The new position is
    /// first walked to, up to [`WALK`] values forward (the usual case when the times come
    /// nearly in order: a walk with one mispredicted branch at its end is cheaper than
    /// the probes of a gallop, each as hard to predict); when the walk ran out, or the
    /// answer lies behind, it is found by galloping from where the walk stopped, and the
    /// sum kept by walking when it moved little, or taken from the step sums.
    fn below(&mut self, t: Ticks) -> u128 {
        let v = self.v;
        let (start, lim) = (self.k, v.len().min(self.k + WALK));
        while self.k < lim && lt(v[self.k], t) {
            self.sum += wide(v[self.k]);
            self.k += 1;
        }
        // Done unless the walk ran out (the answer lies further on) or did not move and
        // the answer lies behind.
        let k = self.k;
        if (k < lim || k == v.len()) && (k > start || k == 0 || lt(v[k - 1], t)) {
            return k as u128 * u128::from(t) - self.sum;
        }
        let k = gallop(v, k, t);
        if k.abs_diff(self.k) < SUM_STEP {
            while self.k < k {
                self.sum += wide(v[self.k]);
                self.k += 1;
            }
            while self.k > k {
                self.k -= 1;
                self.sum -= wide(v[self.k]);
            }
        } else {
            let from = k / SUM_STEP * SUM_STEP;
            self.sum = self.sums[k / SUM_STEP] + v[from..k].iter().map(|&x| wide(x)).sum::<u128>();
            self.k = k;
        }
        k as u128 * u128::from(t) - self.sum
    }
}

/// `v.partition_point(|x| x < t)` for sorted `v`, searched outwards from `k`: steps of
/// 1, 2, 4, … then a binary search inside the last step, so a nearby answer costs a few
/// comparisons near `k`.
fn gallop<T: Tick>(v: &[T], k: usize, t: Ticks) -> usize {
    let k = k.min(v.len());
    if k < v.len() && lt(v[k], t) {
        // Forward: v[lo] < t.
        let (mut lo, mut step) = (k, 1);
        loop {
            let hi = lo + step;
            if hi >= v.len() || !lt(v[hi], t) {
                let hi = hi.min(v.len());
                return lo + 1 + v[lo + 1..hi].partition_point(|&x| lt(x, t));
            }
            lo = hi;
            step *= 2;
        }
    }
    // Backward: every value from k on is >= t.
    if k == 0 || lt(v[k - 1], t) {
        return k;
    }
    let (mut hi, mut step) = (k - 1, 1);
    loop {
        // v[hi] >= t.
        if hi < step {
            return v[..hi].partition_point(|&x| lt(x, t));
        }
        let lo = hi - step;
        if lt(v[lo], t) {
            return lo + 1 + v[lo + 1..hi].partition_point(|&x| lt(x, t));
        }
        hi = lo;
        step *= 2;
    }
}

impl BusyProfile {
    /// Builds the profile from `(start, end)` busy intervals.
    pub fn new(intervals: &[(Ticks, Ticks)]) -> BusyProfile {
        BusyProfile::from_intervals(intervals.iter().copied())
    }

    /// Builds the profile from `(start, end)` busy intervals in any order; empty ones do
    /// not count.
    pub fn from_intervals(intervals: impl Iterator<Item = (Ticks, Ticks)>) -> BusyProfile {
        let mut bounds = Bounds::default();
        for (s, e) in intervals.filter(|&(s, e)| e > s) {
            bounds.push(s, e);
        }
        bounds.sort();
        Self::from_sorted(bounds)
    }

    /// The profile of the intervals whose starts and ends, each sorted, are given
    /// ([`Bounds::sort`]: a record lists busy intervals by their end, so the ends are
    /// usually sorted already and the starts nearly so).
    pub fn from_sorted(bounds: Bounds) -> BusyProfile {
        let (start_sums, end_sums) = match &bounds {
            Bounds::Narrow { starts, ends } => (step_sums(starts), step_sums(ends)),
            Bounds::Wide { starts, ends } => (step_sums(starts), step_sums(ends)),
        };
        BusyProfile { bounds, start_sums, end_sums }
    }

    /// Busy processor-ticks from time 0 to `t`: every interval that started before `t`
    /// counts from its start to `t`, less what lies after its end for those that ended.
    fn area_to(&self, t: Ticks) -> u128 {
        let (s, e) = (&self.start_sums, &self.end_sums);
        match &self.bounds {
            Bounds::Narrow { starts, ends } => below(starts, s, t).saturating_sub(below(ends, e, t)),
            Bounds::Wide { starts, ends } => below(starts, s, t).saturating_sub(below(ends, e, t)),
        }
    }

    /// `Self::area_to` of every time of `times`, in one sweep when the times mostly
    /// increase (a cursor in the starts and one in the ends, each jumping by binary
    /// search when a time lies far from it).
    pub fn areas_at(&self, times: impl Iterator<Item = Ticks>) -> Vec<u128> {
        times.map(self.area_sweep()).collect()
    }

    /// A closure that answers `Self::area_to` as [`Self::areas_at`] does, one time at
    /// a time: for callers that keep each answer beside other figures.
    pub fn area_sweep(&self) -> impl FnMut(Ticks) -> u128 + '_ {
        /// The two cursors, of the bounds' width.
        enum Cursors<'a> {
            Narrow(Sweep<'a, u32>, Sweep<'a, u32>),
            Wide(Sweep<'a, Ticks>, Sweep<'a, Ticks>),
        }
        let (ss, es) = (&self.start_sums[..], &self.end_sums[..]);
        let mut c = match &self.bounds {
            Bounds::Narrow { starts, ends } => {
                Cursors::Narrow(Sweep { v: starts, sums: ss, k: 0, sum: 0 }, Sweep { v: ends, sums: es, k: 0, sum: 0 })
            }
            Bounds::Wide { starts, ends } => {
                Cursors::Wide(Sweep { v: starts, sums: ss, k: 0, sum: 0 }, Sweep { v: ends, sums: es, k: 0, sum: 0 })
            }
        };
        move |t| match &mut c {
            Cursors::Narrow(s, e) => s.below(t).saturating_sub(e.below(t)),
            Cursors::Wide(s, e) => s.below(t).saturating_sub(e.below(t)),
        }
    }

    /// Busy processor-ticks in `[a, b]`.
    pub fn busy_area(&self, a: Ticks, b: Ticks) -> u128 {
        self.area_to(b).saturating_sub(self.area_to(a))
    }

    /// Average fraction P of `n` processors busy during `[a, b]` (0 for an empty interval).
    pub fn parallelism(&self, a: Ticks, b: Ticks, n: u32) -> f64 {
        if b <= a || n == 0 {
            return 0.0;
        }
        busy_fraction(self.busy_area(a, b), n, b - a)
    }

    /// The P of the WCPA weight of an edge over `[a, b]` (0 for an empty interval):
    /// [`edge_busy_fraction`], `own` the busy ticks of a computation's process.
    pub fn edge_parallelism(&self, a: Ticks, b: Ticks, n: u32, own: Option<f64>) -> f64 {
        if b <= a || n == 0 {
            return 0.0;
        }
        edge_busy_fraction(self.busy_area(a, b), own, n, b - a)
    }

    /// The concurrency histogram over `[0, end]`: entry k is the time during which
    /// exactly k intervals were open (ParaGraph's concurrency profile); its entries sum
    /// to `end`. Time after `end` is left out. One sweep over the change points (ends
    /// before starts at equal times; a time's changes all apply before the next stretch).
    pub fn concurrency(&self, end: Ticks) -> Vec<Ticks> {
        match &self.bounds {
            Bounds::Narrow { starts, ends } => concurrency(starts, ends, end),
            Bounds::Wide { starts, ends } => concurrency(starts, ends, end),
        }
    }
}

/// [`BusyProfile::concurrency`] of the sorted `starts` and `ends`.
fn concurrency<T: Tick>(starts: &[T], ends: &[T], end: Ticks) -> Vec<Ticks> {
    let mut hist: Vec<Ticks> = vec![0];
    let mut add = |open: u64, dt: Ticks| {
        let k = usize::try_from(open).unwrap_or(usize::MAX - 1);
        if hist.len() <= k {
            hist.resize(k + 1, 0);
        }
        hist[k] += dt;
    };
    let (mut i, mut j) = (0, 0);
    let (mut from, mut open) = (0 as Ticks, 0u64);
    while j < ends.len() {
        let t = match starts.get(i) {
            Some(&s) if s < ends[j] => s.into(),
            _ => ends[j].into(),
        };
        if t >= end {
            break;
        }
        add(open, t - from);
        // Every start precedes its interval's end, so the count never goes below 0.
        while j < ends.len() && ends[j].into() == t {
            open = open.saturating_sub(1);
            j += 1;
        }
        while i < starts.len() && starts[i].into() == t {
            open += 1;
            i += 1;
        }
        from = t;
    }
    add(open, end.saturating_sub(from));
    hist
}

/// Each process's CPU time over any interval, from the run's busy intervals: the
/// intervals sorted by (process, start) with running sums, two binary searches a query.
#[derive(Debug, Default, Clone)]
pub struct CpuTime {
    /// Every nonempty interval, sorted by process then time (one process's intervals
    /// never overlap), each with the lengths of the intervals before it in this order:
    /// what a query needs of an interval is in one record (one cache line).
    intervals: Vec<Iv>,
    /// The lengths of all intervals.
    total: Ticks,
}

/// One busy interval of [`CpuTime`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
struct Iv {
    pid: u32,
    start: Ticks,
    end: Ticks,
    /// The lengths of the intervals before it.
    before: Ticks,
}

impl CpuTime {
    /// From busy intervals `(pid, start, end)`. With none at all (a trace that records
    /// no busy time), every query answers the elapsed time. A record lists each
    /// process's intervals in time order, so a stable counting sort by process sorts
    /// them in linear time (any process whose intervals are not in order is sorted).
    pub fn new(busy: &[(u32, Ticks, Ticks)]) -> CpuTime {
        let nonempty = || busy.iter().filter(|b| b.2 > b.1);
        let max_pid = nonempty().map(|b| b.0 as usize).max().unwrap_or(0);
        let count = nonempty().count();
        let iv = |pid, start, end| Iv { pid, start, end, before: 0 };
        let mut intervals: Vec<Iv> = Vec::with_capacity(count);
        if max_pid <= 2 * count + 1024 {
            let mut at = vec![0usize; max_pid + 2];
            for b in nonempty() {
                at[b.0 as usize + 1] += 1;
            }
            for k in 1..at.len() {
                at[k] += at[k - 1];
            }
            let bounds = at.clone();
            intervals.resize(count, Iv::default());
            for &(pid, s, e) in nonempty() {
                intervals[at[pid as usize]] = iv(pid, s, e);
                at[pid as usize] += 1;
            }
            for w in bounds.windows(2) {
                let slice = &mut intervals[w[0]..w[1]];
                if !slice.is_sorted() {
                    slice.sort_unstable();
                }
            }
        } else {
            intervals.extend(nonempty().map(|&(pid, s, e)| iv(pid, s, e)));
            intervals.sort_unstable();
        }
        let mut total = 0;
        for x in &mut intervals {
            x.before = total;
            total += x.end - x.start;
        }
        CpuTime { intervals, total }
    }

    /// The lengths of the intervals before index `k` (all of them past the end).
    fn sum_before(&self, k: usize) -> Ticks {
        self.intervals.get(k).map_or(self.total, |x| x.before)
    }

    /// For each `(pid, t)`, `pid`'s busy time before `t`; `None` when there are no busy
    /// intervals at all (then a compute edge weighs its elapsed time). One cursor per
    /// process: linear when each process's times come in order, as its nodes do.
    pub fn cumulative(&self, at: impl Iterator<Item = (u32, Ticks)>) -> Option<Vec<Ticks>> {
        if self.intervals.is_empty() {
            return None;
        }
        let v = &self.intervals;
        // Per process: its first interval, the cursor, the last time asked, and the
        // lengths before its first interval.
        let mut cursors: DenseMap<(usize, usize, Ticks, Ticks)> = DenseMap::default();
        let out = at
            .map(|(pid, t)| {
                let c = cursors.get_or_insert_with(u64::from(pid), || {
                    let first = v.partition_point(|x| x.pid < pid);
                    (first, first, 0, self.sum_before(first))
                });
                let first = c.0;
                if t < c.2 {
                    c.1 = first + v[first..].partition_point(|x| x.pid == pid && x.end <= t);
                } else {
                    while c.1 < v.len() && v[c.1].pid == pid && v[c.1].end <= t {
                        c.1 += 1;
                    }
                }
                c.2 = t;
                match v.get(c.1) {
                    Some(x) if x.pid == pid => x.before - c.3 + t.saturating_sub(x.start),
                    _ => self.sum_before(c.1) - c.3,
                }
            })
            .collect();
        Some(out)
    }

    /// Whether there are no busy intervals (queries answer the elapsed time).
    pub fn is_empty(&self) -> bool {
        self.intervals.is_empty()
    }

    /// `pid`'s busy time before `t`.
    fn before(&self, pid: u32, first: usize, t: Ticks) -> Ticks {
        let v = &self.intervals;
        let k = first + v[first..].partition_point(|x| x.pid == pid && x.end <= t);
        let part = match v.get(k) {
            Some(x) if x.pid == pid && x.start < t => t - x.start,
            _ => 0,
        };
        self.sum_before(k) - self.sum_before(first) + part
    }

    /// `pid`'s busy time in `[a, b]`.
    pub fn between(&self, pid: u32, a: Ticks, b: Ticks) -> Ticks {
        if self.intervals.is_empty() {
            return b.saturating_sub(a);
        }
        let first = self.intervals.partition_point(|x| x.pid < pid);
        self.before(pid, first, b).saturating_sub(self.before(pid, first, a))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    /// Interval starts as a record lists them (by end): sorted ends minus durations
    /// below `spread`, so each start lies at most a few `spread`s of places from its
    /// sorted one. The blocks-and-merges pass sorts them alone when that displacement
    /// is below a block, and `sort_ticks` gives the standard sort's numbers either way,
    /// for lengths around block multiples (a short last block, a single merge).
    #[test]
    fn nearly_sorted_starts_sort_as_the_standard_sort() {
        for (n, spread, alone) in [
            (4 * BLOCK, 50, true),
            (4 * BLOCK + 1, 300, true),
            (7 * BLOCK - 5, 1000, true),
            (10 * BLOCK, 40_000, false),
        ] {
            let mut r = Rng::new(n as u64);
            let mut end = 0;
            let starts: Vec<Ticks> = (0..n)
                .map(|_| {
                    end += r.below(3);
                    end.saturating_sub(r.below(spread))
                })
                .collect();
            let mut want = starts.clone();
            want.sort_unstable();
            let mut got = starts.clone();
            assert_eq!(sort_nearly(&mut got), alone, "n {n} spread {spread}");
            if alone {
                assert_eq!(got, want, "n {n} spread {spread}");
            }
            let mut got = starts;
            sort_ticks(&mut got);
            assert_eq!(got, want, "n {n} spread {spread}");
        }
    }

    /// A value a block and more from its place is beyond the merges (it is found out
    /// of order and the whole is sorted by the standard sort); random values as well.
    #[test]
    fn far_displaced_and_random_values_fall_back_to_the_whole_sort() {
        let mut v: Vec<Ticks> = (0..5 * BLOCK as u64).collect();
        v.swap(10, 3 * BLOCK);
        let mut got = v.clone();
        assert!(!sort_nearly(&mut got));
        sort_ticks(&mut v);
        assert!(v.iter().copied().eq(0..5 * BLOCK as u64));
        let mut r = Rng::new(7);
        let mut random: Vec<Ticks> = (0..6 * BLOCK).map(|_| r.next_u64()).collect();
        let mut want = random.clone();
        want.sort_unstable();
        sort_ticks(&mut random);
        assert_eq!(random, want);
    }

    /// Values that fit 64 bits convert as the 128-bit conversion does, rounding
    /// included: 2^53 + 1 is not a double and rounds to even (2^53), 2^64 - 1 rounds up
    /// to 2^64; beyond 64 bits the 128-bit conversion itself answers.
    #[test]
    fn wide_to_f64_is_the_128_bit_conversion() {
        for x in [0u128, 1, (1 << 53) + 1, (1 << 53) + 3, u128::from(u64::MAX), 1 << 64, (1 << 100) + 12345, u128::MAX]
        {
            assert_eq!(wide_to_f64(x).to_bits(), (x as f64).to_bits(), "{x}");
        }
        assert_eq!(wide_to_f64((1 << 53) + 1), 9_007_199_254_740_992.0);
        assert_eq!(wide_to_f64(u128::from(u64::MAX)), 18_446_744_073_709_551_616.0);
    }

    /// CPU time per process by hand: process 1 busy 0..40, 60..100 and 250..400,
    /// process 2 110..200, process 3 0..300. Process 1 in [0, 100] computed 80 (it waited
    /// 20), in [200, 300] 50, in [30, 70] 10 + 10 = 20; process 2 in [100, 110] nothing;
    /// a process with no intervals never computed; with no intervals at all, a query
    /// answers the elapsed time.
    #[test]
    fn cpu_time_sums_a_process_s_busy_intervals() {
        let cpu = CpuTime::new(&[(1, 0, 40), (1, 60, 100), (2, 110, 200), (1, 250, 400), (3, 0, 300)]);
        assert_eq!(cpu.between(1, 0, 100), 80);
        assert_eq!(cpu.between(1, 200, 300), 50);
        assert_eq!(cpu.between(1, 30, 70), 20);
        assert_eq!(cpu.between(2, 100, 110), 0);
        assert_eq!(cpu.between(2, 100, 500), 90);
        assert_eq!(cpu.between(9, 0, 500), 0);
        assert_eq!(CpuTime::default().between(1, 10, 35), 25);
    }

    #[test]
    fn busy_profile_agrees_with_summing_overlaps() {
        // The reference is the definition: the busy area of [a, b] is the sum of each
        // interval's overlap with it, and concurrency bucket k the time with exactly k
        // intervals open, counted tick by tick. Pseudo-random intervals (empty ones and
        // equal times among them), in record order (by end) and reversed, enough of them
        // for several stored area totals.
        let mut r = Rng::new(7);
        let mut next = |m: u64| r.below(m);
        let mut iv: Vec<(Ticks, Ticks)> = (0..300)
            .map(|_| {
                let s = next(400);
                (s, s + next(40))
            })
            .collect();
        iv.sort_by_key(|&(_, e)| e);
        let end = 450;
        let open_at = |t: Ticks| iv.iter().filter(|&&(s, e)| s <= t && t < e).count();
        let mut want_hist = vec![0 as Ticks; iv.len() + 1];
        for t in 0..end {
            want_hist[open_at(t)] += 1;
        }
        let used = want_hist.iter().rposition(|&n| n > 0).unwrap_or(0);
        want_hist.truncate(used + 1);
        for order in [iv.clone(), iv.iter().rev().copied().collect()] {
            let p = BusyProfile::new(&order);
            for _ in 0..200 {
                let a = next(460);
                let b = a + next(100);
                let want: u64 = iv.iter().map(|&(s, e)| e.min(b).saturating_sub(s.max(a))).sum();
                assert_eq!(p.busy_area(a, b), u128::from(want), "[{a}, {b}]");
            }
            assert_eq!(p.concurrency(end), want_hist);
        }
    }

    #[test]
    fn sweeps_answer_as_the_direct_queries() {
        // The reference is the direct query (binary searches): areas at times in order
        // (close together, about the forward walk's length apart and further),
        // nearly in order (small steps back) and at random; CPU time before each time
        // per process, in order and out of order.
        let mut r = Rng::new(11);
        let mut next = |m: u64| r.below(m);
        let iv: Vec<(Ticks, Ticks)> = (0..3000)
            .map(|_| {
                let s = next(100_000);
                (s, s + next(500))
            })
            .collect();
        let p = BusyProfile::new(&iv);
        let mut sorted: Vec<Ticks> = (0..2000).map(|_| next(101_000)).collect();
        sorted.sort_unstable();
        let nearly: Vec<Ticks> = sorted.iter().map(|&t| t.saturating_sub(next(300))).collect();
        let random: Vec<Ticks> = (0..2000).map(|_| next(101_000)).collect();
        // In order but far apart: about 150 values between two times, past the walk of
        // WALK values, and about WALK values apart.
        let sparse: Vec<Ticks> = sorted.iter().step_by(50).copied().collect();
        let walk: Vec<Ticks> = sorted.iter().step_by(21).copied().collect();
        for times in [sorted, nearly, random, sparse, walk] {
            let want: Vec<u128> = times.iter().map(|&t| p.area_to(t)).collect();
            assert_eq!(p.areas_at(times.iter().copied()), want);
        }
        // Busy intervals of 5 processes, disjoint per process, listed by end.
        let mut busy: Vec<(u32, Ticks, Ticks)> = Vec::new();
        for pid in 0..5u32 {
            let mut t = 0;
            for _ in 0..200 {
                let s = t + next(50);
                let e = s + 1 + next(50);
                busy.push((pid, s, e));
                t = e;
            }
        }
        busy.sort_by_key(|b| b.2);
        let cpu = CpuTime::new(&busy);
        let queries: Vec<(u32, Ticks)> = (0..3000).map(|_| (next(6) as u32, next(25_000))).collect();
        let mut ordered = queries.clone();
        ordered.sort_by_key(|q| q.1);
        for q in [queries, ordered] {
            let want: Vec<Ticks> = q.iter().map(|&(pid, t)| cpu.between(pid, 0, t)).collect();
            assert_eq!(cpu.cumulative(q.iter().copied()), Some(want));
        }
        assert_eq!(CpuTime::new(&[]).cumulative([(0, 5)].into_iter()), None);
    }

    #[test]
    fn bounds_stay_narrow_below_2_pow_32_and_widen_beyond_with_the_same_answers() {
        // Times below 2^32 are kept in 4 bytes; the first end beyond widens every bound
        // to 8, in the order given. A profile answers the same from narrow bounds as from
        // the same intervals kept wide (the reference: built wide by hand).
        let mut r = Rng::new(5);
        let iv: Vec<(Ticks, Ticks)> = (0..2000)
            .map(|_| {
                let s = r.below(1 << 20);
                (s, s + 1 + r.below(3000))
            })
            .collect();
        let mut b = Bounds::default();
        for &(s, e) in &iv {
            b.push(s, e);
        }
        assert!(matches!(b, Bounds::Narrow { .. }));
        let big = (u64::from(u32::MAX) - 5, u64::from(u32::MAX) + 7);
        let mut widened = b.clone();
        widened.push(big.0, big.1);
        assert!(matches!(widened, Bounds::Wide { .. }));
        let mut want = iv.clone();
        want.push(big);
        assert_eq!(widened.iter().collect::<Vec<_>>(), want);
        assert_eq!((b.len(), widened.len()), (2000, 2001));
        let (starts, ends) = iv.iter().copied().unzip();
        let mut wide = Bounds::Wide { starts, ends };
        b.sort();
        wide.sort();
        let (narrow, wide) = (BusyProfile::from_sorted(b), BusyProfile::from_sorted(wide));
        let times: Vec<Ticks> = (0..3000).map(|_| r.below(1 << 20)).collect();
        assert_eq!(narrow.areas_at(times.iter().copied()), wide.areas_at(times.iter().copied()));
        for w in times.windows(2) {
            assert_eq!(narrow.busy_area(w[0], w[1]), wide.busy_area(w[0], w[1]));
        }
        assert_eq!(narrow.concurrency(1 << 21), wide.concurrency(1 << 21));
        // Beyond 32 bits a narrow profile's queries still answer (every interval ended).
        let total: u64 = iv.iter().map(|&(s, e)| e - s).sum();
        assert_eq!(narrow.busy_area(0, u64::MAX), u128::from(total));
    }

    #[test]
    fn busy_profile_integrates_overlapping_intervals() {
        // Busy count: [0,10) 1, [10,20) 2, [20,30) 1, [30,40) 0, [40,50) 1.
        let p = BusyProfile::new(&[(0, 20), (10, 30), (40, 50)]);
        assert_eq!(p.busy_area(0, 50), 20 + 20 + 10);
        // [5,15]: 5·1 + 5·2 = 15.
        assert_eq!(p.busy_area(5, 15), 15);
        // [30,40] idle.
        assert_eq!(p.busy_area(30, 40), 0);
        // P over [10,20] on 2 processors: area 20 / (2·10) = 1.
        assert_eq!(p.parallelism(10, 20, 2), 1.0);
        // Beyond the last change point nothing is busy.
        assert_eq!(p.busy_area(50, 90), 0);
    }
}
