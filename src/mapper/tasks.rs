//! Task costs for the load-aware mapping heuristics (seed 001 §8): the computation time
//! of every task, the time a byte takes per hop, and the cost function those heuristics
//! minimise — the time of the most loaded processor.
//!
//! A task is a virtual processor: every process placed on one moves with it, so its
//! computation cost is their busy time together. Seed 001 writes `ex(t)` for the
//! computation time of task `t` and `comm(t, t')` for the communication time between two
//! tasks, and takes as cost function the load of the most loaded processor, computation
//! plus the communication its tasks have with tasks elsewhere. The seed's basic function
//! ignores message length and topology; here `comm(t, t')` is the bytes the two exchange
//! (both ways) × the hops between their processors × the time of one byte over one link,
//! so the same function also sees the physical architecture. Times are integer ticks, so
//! every figure is exact and deterministic.
use std::collections::BTreeMap;

use super::comm::Adjacency;
use super::search::Distances;
use super::MapperError;
use crate::time::{parse_time, Ticks, TICKS_PER_UNIT};
use crate::trace::{Event, RunHeader, RunRecordReader};

/// The computation cost of every task and the price of communication.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TaskCosts {
    /// Computation time of each virtual processor, in ticks (index = virtual id).
    pub work: Vec<Ticks>,
    /// Time of one byte over one link, in ticks.
    pub byte_time: Ticks,
}

/// The time of one byte over one link when nothing says otherwise: one time unit.
pub const DEFAULT_BYTE_TIME: Ticks = TICKS_PER_UNIT;

impl TaskCosts {
    /// Parses the CSV form: a header `vproc,cost`, then one line per task with its
    /// virtual processor id and its computation cost in time units (`12.5` allowed). A
    /// task listed twice is summed; a task not listed costs 0; `#` starts a comment.
    pub fn parse_csv(text: &str) -> Result<BTreeMap<u32, Ticks>, MapperError> {
        let err = |line: usize, message: String| MapperError::WorkSyntax { line, message };
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(false)
            .comment(Some(b'#'))
            .trim(csv::Trim::All)
            .flexible(true)
            .from_reader(text.as_bytes());
        let mut out: BTreeMap<u32, Ticks> = BTreeMap::new();
        let mut header = false;
        for record in reader.records() {
            let record = record.map_err(|e| {
                let line = e.position().map_or(0, |p| p.line() as usize);
                err(line, e.to_string())
            })?;
            let line = record.position().map_or(0, |p| p.line() as usize);
            if record.iter().all(str::is_empty) {
                continue;
            }
            let fields: Vec<&str> = record.iter().collect();
            if !header {
                if fields != ["vproc", "cost"] {
                    return Err(err(line, format!("expected the header `vproc,cost`, found `{}`", fields.join(","))));
                }
                header = true;
                continue;
            }
            let [v, c] = fields.as_slice() else {
                return Err(err(line, format!("expected two fields `vproc,cost`, found {}", fields.len())));
            };
            let v: u32 = v.parse().map_err(|_| err(line, format!("`{v}` is not a virtual processor id")))?;
            let c = parse_time(c).map_err(|m| err(line, m))?;
            let slot = out.entry(v).or_insert(0);
            *slot = slot.saturating_add(c);
        }
        if !header {
            return Err(err(1, "empty: expected the header `vproc,cost`".into()));
        }
        Ok(out)
    }

    /// Reads the computation cost of every virtual processor from a run record: the
    /// busy time of the processes created on it (processes without one, such as the
    /// main process, are left out). Also returns the header, whose network parameters
    /// give the time of a byte ([`byte_time_of`]).
    pub fn read_run_record<R: std::io::Read>(input: R) -> Result<(BTreeMap<u32, Ticks>, RunHeader), MapperError> {
        let record = |e: crate::trace::RecordError| MapperError::Record(e.to_string());
        let (mut reader, header) = RunRecordReader::open(input).map_err(record)?;
        let mut vproc_of: BTreeMap<u32, u32> = BTreeMap::new();
        let mut work: BTreeMap<u32, Ticks> = BTreeMap::new();
        while let Some(e) = reader.next_event().map_err(record)? {
            match e {
                Event::ProcCreate { pid, vproc: Some(v), .. } => {
                    vproc_of.insert(pid, v);
                    work.entry(v).or_insert(0);
                }
                Event::Busy { pid, start, end, .. } => {
                    if let Some(&v) = vproc_of.get(&pid) {
                        let slot = work.entry(v).or_insert(0);
                        *slot = slot.saturating_add(end.saturating_sub(start));
                    }
                }
                _ => {}
            }
        }
        reader.footer().map_err(record)?;
        Ok((work, header))
    }

    /// The costs of `vprocs` tasks from a map of those given; an id beyond the virtual
    /// architecture is an error.
    pub fn new(given: &BTreeMap<u32, Ticks>, vprocs: u32, byte_time: Ticks) -> Result<TaskCosts, MapperError> {
        if let Some((&v, _)) = given.range(vprocs..).next() {
            return Err(MapperError::WorkOutOfRange { vproc: v, vprocs });
        }
        let mut work = vec![0; vprocs as usize];
        for (&v, &c) in given {
            work[v as usize] = c;
        }
        Ok(TaskCosts { work, byte_time })
    }
}

fn square(x: Ticks) -> u128 {
    u128::from(x) * u128::from(x)
}

/// The time of one byte over one link a run record's network implies: its link delay
/// (time per flit) over its flit size; `None` when the record does not say.
pub fn byte_time_of(header: &RunHeader) -> Option<Ticks> {
    let param = |name: &str| header.network_params.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str());
    let delay = parse_time(param("link-delay")?).ok()?;
    let flit: u64 = param("flit-size")?.parse().ok().filter(|&f| f > 0)?;
    Some(delay / flit)
}

/// The load model of one mapping under [`TaskCosts`]: every processor's computation and
/// its global load (computation plus the communication time of its tasks with tasks on
/// other processors), kept up to date move by move in O(degree).
pub(super) struct Loads<'a> {
    pub adj: &'a Adjacency,
    pub dist: &'a Distances<'a>,
    pub costs: &'a TaskCosts,
    /// Processor of each task.
    pub table: Vec<u32>,
    /// Computation time per processor.
    pub work: Vec<Ticks>,
    /// Computation plus external communication time per processor.
    pub global: Vec<Ticks>,
    /// Σ over communicating pairs on different processors of their communication time.
    pub comm: Ticks,
    /// Σ over processors of the square of their global load: of two mappings with the
    /// same most loaded processor, the better balanced one has the smaller sum.
    pub squares: u128,
}

impl<'a> Loads<'a> {
    /// The loads of `table`.
    pub fn new(table: Vec<u32>, adj: &'a Adjacency, dist: &'a Distances<'a>, costs: &'a TaskCosts) -> Loads<'a> {
        let np = dist.nodes();
        let mut l = Loads { adj, dist, costs, table, work: vec![0; np], global: vec![0; np], comm: 0, squares: 0 };
        for t in 0..l.table.len() {
            let p = l.table[t] as usize;
            l.work[p] = l.work[p].saturating_add(costs.work[t]);
            l.global[p] = l.global[p].saturating_add(costs.work[t]);
            for &(u, _) in adj.partners(t as u32) {
                if (u as usize) > t {
                    let q = l.table[u as usize];
                    let c = l.pair(t as u32, u, l.table[t], q);
                    if c > 0 {
                        l.global[p] = l.global[p].saturating_add(c);
                        l.global[q as usize] = l.global[q as usize].saturating_add(c);
                        l.comm = l.comm.saturating_add(c);
                    }
                }
            }
        }
        l.squares = l.global.iter().fold(0u128, |a, &g| a.saturating_add(square(g)));
        l
    }

    /// Sets processor `p`'s global load, keeping [`Loads::squares`].
    fn set_global(&mut self, p: usize, value: Ticks) {
        let old = self.global[p];
        self.squares = self.squares.saturating_sub(square(old)).saturating_add(square(value));
        self.global[p] = value;
    }

    /// The communication time of tasks `t` and `u` (partners) on processors `p`, `q`.
    fn pair(&self, t: u32, u: u32, p: u32, q: u32) -> Ticks {
        if p == q {
            return 0;
        }
        let bytes = self.adj.partners(t).iter().find(|&&(n, _)| n == u).map_or(0, |&(_, b)| b);
        self.cost(bytes, p, q)
    }

    /// The time of `bytes` between processors `p` and `q`.
    pub fn cost(&self, bytes: u64, p: u32, q: u32) -> Ticks {
        bytes.saturating_mul(self.dist.get(p, q)).saturating_mul(self.costs.byte_time)
    }

    /// The cost function: the global load of the most loaded processor.
    pub fn max_time(&self) -> Ticks {
        self.global.iter().copied().max().unwrap_or(0)
    }

    /// Moves task `t` to processor `to`, updating every load it touches.
    pub fn apply(&mut self, t: u32, to: u32) {
        let from = self.table[t as usize];
        if from == to {
            return;
        }
        let w = self.costs.work[t as usize];
        let (fu, tu) = (from as usize, to as usize);
        self.work[fu] = self.work[fu].saturating_sub(w);
        self.work[tu] = self.work[tu].saturating_add(w);
        self.set_global(fu, self.global[fu].saturating_sub(w));
        self.set_global(tu, self.global[tu].saturating_add(w));
        let adj = self.adj;
        for &(u, bytes) in adj.partners(t) {
            let q = self.table[u as usize];
            let before = if q == from { 0 } else { self.cost(bytes, from, q) };
            let after = if q == to { 0 } else { self.cost(bytes, to, q) };
            let qu = q as usize;
            self.set_global(fu, self.global[fu].saturating_sub(before));
            self.set_global(qu, self.global[qu].saturating_sub(before).saturating_add(after));
            self.set_global(tu, self.global[tu].saturating_add(after));
            self.comm = self.comm.saturating_sub(before).saturating_add(after);
        }
        self.table[t as usize] = to;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mapper::CommMatrix;
    use crate::topo::Topology;

    #[test]
    fn csv_sums_repeats_and_names_bad_lines() {
        let m = TaskCosts::parse_csv("# costs\nvproc,cost\n0, 10\n2,2.5\n0,1\n\n");
        let m = m.map(|m| m.into_iter().collect::<Vec<_>>());
        assert_eq!(m, Ok(vec![(0, 11_000), (2, 2_500)]));
        let e = TaskCosts::parse_csv("vproc,cost\n0,ten\n").map_err(|e| e.to_string());
        assert_eq!(e, Err("task cost line 2: `ten` is not a number of time units".into()));
        let e = TaskCosts::parse_csv("v,c\n").map_err(|e| e.to_string());
        assert_eq!(e, Err("task cost line 1: expected the header `vproc,cost`, found `v,c`".into()));
        let e = TaskCosts::parse_csv("vproc,cost\n1,2,3\n").map_err(|e| e.to_string());
        assert_eq!(e, Err("task cost line 2: expected two fields `vproc,cost`, found 3".into()));
        let given = BTreeMap::from([(4u32, 1u64)]);
        let e = TaskCosts::new(&given, 4, 1).map_err(|e| e.to_string());
        assert_eq!(e, Err("task costs name virtual processor 4, beyond the 4 of the virtual architecture".into()));
    }

    /// Four tasks on line:2 (one hop apart), costs 5, 3, 2, 1 units, 10 bytes between 0
    /// and 1 at 1 unit per byte-hop: with 0, 1 on processor 0 and 2, 3 on processor 1 the
    /// pair is internal, loads 8 and 3; moving task 1 to processor 1 makes the pair cost
    /// 10 units on both sides: processor 0 has 5 + 10 = 15, processor 1 has 6 + 10 = 16.
    #[test]
    fn loads_by_hand_and_moves_keep_them() {
        let phys = Topology::parse("line:2").unwrap_or_else(|e| panic!("{e}"));
        let dist = Distances::new(&phys);
        let adj = CommMatrix::from_triples([(0, 1, 10)]).adjacency(4);
        let costs = TaskCosts { work: vec![5_000, 3_000, 2_000, 1_000], byte_time: 1_000 };
        let mut l = Loads::new(vec![0, 0, 1, 1], &adj, &dist, &costs);
        assert_eq!((l.global.clone(), l.comm, l.max_time()), (vec![8_000, 3_000], 0, 8_000));
        l.apply(1, 1);
        assert_eq!((l.work.clone(), l.global.clone(), l.comm), (vec![5_000, 6_000], vec![15_000, 16_000], 10_000));
        let fresh = Loads::new(l.table.clone(), &adj, &dist, &costs);
        assert_eq!((fresh.global, fresh.comm, fresh.squares), (l.global.clone(), l.comm, l.squares));
        assert_eq!(l.squares, 15_000u128.pow(2) + 16_000u128.pow(2));
        l.apply(1, 0);
        assert_eq!(l.global, vec![8_000, 3_000]);
    }
}
