//! Simulated time: the one definition of the tick, its unit, "never", how times are read
//! from and written for users, and the priority queue every event list of the simulator
//! is ordered by ([`queue::TimeQueue`]).
//!
//! A leaf: depends on nothing else in the crate. Everything that speaks of simulated
//! time (the simulator, the networks, the run record, the machine descriptions, the
//! analysis) takes its `Ticks` from here.

pub mod queue;

pub use queue::TimeQueue;

/// Simulated time in ticks: 1 time unit = [`TICKS_PER_UNIT`] ticks.
pub type Ticks = u64;

/// Resolution of simulated time: ticks per time unit (fine enough for fractional speed
/// factors). Instruction costs, `--quantum` and every time printed to users are in time
/// units; the simulator and the run record count ticks.
pub const TICKS_PER_UNIT: Ticks = 1000;

/// "Never": no event pending.
pub const NEVER: Ticks = Ticks::MAX;

/// The end of the simulated clock's range, 2^62 ticks (about 4.6 * 10^15 units): a run
/// whose clock would pass it stops with a limit error instead of wrapping or
/// saturating (a saturated clock stops advancing).
pub const MAX_TIME: Ticks = 1 << 62;

/// The largest single time quantity a run may be given (an instruction cost, a link's
/// time per flit or latency, after scaling): 10^12 units.
pub const MAX_QUANTITY: Ticks = 1_000_000_000_000 * TICKS_PER_UNIT;

/// A time in units as written by a user (`2.5`), in ticks.
pub fn parse_time(s: &str) -> Result<Ticks, String> {
    let v: f64 = s.trim().parse().map_err(|_| format!("`{s}` is not a number of time units"))?;
    if !v.is_finite() || !(0.0..=1e15).contains(&v) {
        return Err(format!("`{s}` is not a time between 0 and 10^15 units"));
    }
    Ok((v * TICKS_PER_UNIT as f64).round() as Ticks)
}

/// A sum of times over processors or processes (idle time, a line's waits): wider than
/// [`Ticks`], since 2^24 processors idle for 2^62 ticks pass any 64-bit count.
pub type Total = u128;

/// Renders ticks as time units: `1234`, or `12.5` when there is a fraction. Every time
/// the tools print is written by this function, [`format_total`] or the three below.
pub fn format_time(t: Ticks) -> String {
    format_total(Total::from(t))
}

/// [`format_time`] of a [`Total`].
pub fn format_total(t: Total) -> String {
    let whole = t / Total::from(TICKS_PER_UNIT);
    let frac = t % Total::from(TICKS_PER_UNIT);
    if frac == 0 {
        whole.to_string()
    } else {
        let f = format!("{frac:03}");
        format!("{whole}.{}", f.trim_end_matches('0'))
    }
}

/// A signed difference of ticks as time units, as [`format_time`] writes its size.
pub fn format_signed(t: i128) -> String {
    let u = format_time(t.unsigned_abs().min(u128::from(Ticks::MAX)) as Ticks);
    if t < 0 {
        format!("-{u}")
    } else {
        u
    }
}

/// A mean or other fraction of ticks as time units, rounded to a tick (three decimals)
/// and written as [`format_time`] writes whole ticks: `12.5`, `3`.
pub fn format_mean(t: f64) -> String {
    let s = format!("{:.3}", t / TICKS_PER_UNIT as f64);
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// A fraction of ticks as time units with exactly three decimals (`12.500`), for
/// columns of weights whose decimals line up.
pub fn format_fixed(t: f64) -> String {
    format!("{:.3}", t / TICKS_PER_UNIT as f64)
}
