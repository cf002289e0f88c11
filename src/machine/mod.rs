//! Machine description files (SPEC §8, after the Parasol I machine model of seed 004 §2
//! and App. A): processor types with per-instruction timings, a topology given as an
//! explicit link list with per-link latency and per-byte speed, and expressions with
//! references to other fields. `cpss --machine FILE` simulates on the machine so
//! described, whatever its network's shape.
//!
//! Depends on [`crate::expr`] (expressions), [`crate::topo`] (the [`Graph`] topology),
//! [`crate::vcode`] (instruction mnemonics), [`crate::vcode::cost`]'s [`TickCosts`] and
//! [`crate::rng`]; the simulator's setup depends on it.
//!
//! `parse` reads the text into sections and fields, `sections` reads those into the
//! descriptions below (every check that needs no value of an expression), `env`
//! evaluates the expressions of one run.
//!
//! # Format
//!
//! ```text
//! begin machine
//! name = "two T800s"          # fields: id, name, processors (types), topologies
//! begin processor              # one section per processor type
//!   id = 1
//!   name = "T800"
//!   smallloopspeedup = 1
//!   begin timings              # vCode mnemonic (as `cpcc -S` prints it) = timing
//!     ADDI = 1 0.1             # mean [sd], in time units
//!     MULI = 2 * pt(1).addi    # or an expression (sd 0)
//!   end timings
//! end processor
//! begin topology
//!   id = 1
//!   hardware = 1               # the topology simulated
//!   processors = 2
//!   links = 1
//!   begin procid
//!     p[1] = 1                 # processor 1 (pproc 0) is of type 1
//!     p[2] = 1
//!   end procid
//!   begin linklist
//!     begin link
//!       id = 1
//!       latency = 0            # time units added per packet per crossing
//!       speed = 0.25 0.01      # time units per byte
//!       connect = 2 1 2        # count, then the processors joined
//!     end link
//!   end linklist
//! end topology
//! end machine
//! ```
//!
//! Lines end with a newline, a vertical tab or `;`; `#` starts a comment; keys and
//! section names are case-insensitive; a field defined twice keeps its last definition
//! (seed 004 §2.1). Sections `cache` (`size`, `speed`, `speedratio`) and `combinations`
//! inside a processor, and `machinecombinations`, `pvm`, `express`, `mpi` at the top,
//! hold `name = expression` lines: they are checked and can be referred to, but do not
//! change the simulation.
//!
//! **Timings** are `mean` or `mean sd` (two numbers, `sd` ≥ 0), or an expression (sd 0).
//! They are in the simulator's time units, not seconds as in Parasol, so that they
//! compare with the vCode cost table; instructions a processor type does not list keep
//! their vCode cost. Processors are numbered from 1 in the file, as in the seed; the
//! simulator's processor `k-1` is the file's `k`.
//!
//! **Links** join two or more processors (`connect = 3 1 2 3` joins every pair of the
//! three, each pair being a network link of the same cost). A link is listed from its
//! first processor to the next (this orientation breaks routing ties, see
//! [`crate::topo::graph`]). The network must be connected. A pair joined by two links
//! (or more) has that many parallel links, each with its own costs, lanes and queue,
//! which routes use in turn, message by message ([`crate::net::LinkCost::copy_of`]).
//! Each directed link costs `flit_size × speed` per flit and `latency` per packet
//! crossing it (the network's [`crate::net::LinkCost`]).
//!
//! **The topology simulated** is the one with `hardware = 1` (the first such), else the
//! only one.
//!
//! **References** (seed 004 §2.9), indices being the `id` of the processor type or
//! topology: `ma.id|processors|topologies`, `pr(i).id|smallloopspeedup`,
//! `pt(i).MNEMONIC` (an instruction not listed gives its vCode cost),
//! `pc(i).size|speed|speedratio`, `po(i).NAME`, `mc.maxtotalspd`,
//! `to(i).id|hardware|creation|processors|links`, `tp(i)(k)` (type of processor k),
//! `tl(i)(l).id|latency|speed|connect(k)` (`connect(0)` is the count), `pv.NAME`,
//! `ex.NAME`, `mp.NAME`. A cycle of references is an error.
//!
//! # Sampling
//!
//! [`Machine::sample`] draws every timing with a non-zero sd once per run, from a
//! generator ([`crate::rng::Rng`]) seeded with `seed ^ SAMPLE_STREAM`, in file order
//! (processor sections and their timings, then each topology's creation time and links,
//! latency before speed): `max(0, mean + sd × z)` with `z` standard normal by the
//! Box–Muller transform `z = sqrt(-2 ln u1) cos(2π u2)` of two draws (`u1` in (0, 1],
//! `u2` in [0, 1)). Expressions are then evaluated on the drawn values. With every sd 0
//! no number is drawn and every run is the same.
mod env;
mod parse;
mod sections;

use crate::expr::Expr;
use crate::rng::Rng;
use crate::time::{Ticks, TICKS_PER_UNIT};
use crate::topo::{Graph, Topology};
use crate::vcode::cost::TickCosts;
use crate::vcode::Op;
use env::Env;
use parse::{Field, Item, Section};
use sections::{fields_only, parse_expr, parse_int, parse_string, proc_section, topo_section};
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// XORed into the run's seed to seed the timing draws, so that they do not repeat the
/// stream of `rand()` and of the random mapping.
pub const SAMPLE_STREAM: u64 = 0x6d61_6368_696e_6573;

/// What is wrong, without the place.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ErrorKind {
    #[error("expected `begin NAME`, `end NAME` or `KEY = VALUE`, found `{text}`")]
    BadLine { text: String },
    #[error("a machine description starts with `begin machine`, found {found}")]
    NotMachine { found: String },
    #[error("`end {name}` without a matching `begin`")]
    UnmatchedEnd { name: String },
    #[error("expected `end {expected}`, found `end {found}`")]
    WrongEnd { expected: String, found: String },
    #[error("`begin {name}` (line {line}) is never ended")]
    Unclosed { name: String, line: u32 },
    #[error("text after `end machine`")]
    AfterEnd,
    #[error("unknown section `{name}` in {parent} (expected {expected})")]
    UnknownSection { name: String, parent: String, expected: &'static str },
    #[error("unknown field `{key}` in {section} (expected {expected})")]
    UnknownField { key: String, section: String, expected: &'static str },
    #[error("`{name}` is not a vCode instruction (the mnemonics are those of `cpcc -S`)")]
    UnknownInstruction { name: String },
    #[error("{key}: `{value}` is not {what}")]
    BadValue { key: String, value: String, what: &'static str },
    #[error("{key}: {message}")]
    Expr { key: String, message: String },
    #[error("{what} is missing")]
    Missing { what: String },
    #[error("{what} is defined twice (also line {other})")]
    Duplicate { what: String, other: u32 },
    #[error("{what} = {given}, but the file defines {found}")]
    CountMismatch { what: &'static str, given: u64, found: u64 },
    #[error("connect: {message}")]
    Connect { message: String },
    #[error("the network is not usable: {message}")]
    Network { message: String },
    #[error("no topology to simulate: {message}")]
    NoTopology { message: String },
    #[error("processor {proc} is of type {ty}, which no processor section defines")]
    UnknownType { proc: u32, ty: i64 },
    #[error("references form a cycle through `{name}`")]
    Cycle { name: String },
    #[error("`{name}`: {message}")]
    Eval { name: String, message: String },
}

/// An error in a machine description: the file, the line (0 when it concerns the whole
/// file) and what is wrong.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{file}{}: {kind}", if *.line > 0 { format!(":{}", .line) } else { String::new() })]
pub struct MachineError {
    pub file: String,
    pub line: u32,
    pub kind: ErrorKind,
}

/// A value given by a number or by an expression.
#[derive(Clone, Debug, PartialEq)]
enum Value {
    Number(f64),
    Expr(Expr),
}

/// A measured value: its mean (a number or an expression) and standard deviation.
#[derive(Clone, Debug, PartialEq)]
struct Timing {
    mean: Value,
    sd: f64,
    line: u32,
}

#[derive(Clone, Debug, PartialEq)]
struct ProcType {
    id: i64,
    name: String,
    line: u32,
    timings: Vec<(Op, Timing)>,
    smallloop: Option<Timing>,
    /// `pc(i).…` and `po(i).…` fields: (reference prefix, name, value).
    extra: Vec<(String, Timing)>,
}

#[derive(Clone, Debug, PartialEq)]
struct LinkDesc {
    id: i64,
    line: u32,
    latency: Timing,
    speed: Timing,
    /// 1-based processor numbers as written.
    connect: Vec<u32>,
}

#[derive(Clone, Debug, PartialEq)]
struct TopoDesc {
    id: i64,
    name: String,
    line: u32,
    hardware: bool,
    creation: Option<Timing>,
    processors: u32,
    links_declared: Option<u64>,
    /// Type of each processor (index k-1), with the line that set it.
    types: Vec<Option<(i64, u32)>>,
    links: Vec<LinkDesc>,
}

/// A parsed and checked machine description. Cheap to share between runs (put it in an
/// `Arc`); each run draws its own timings with [`Machine::sample`].
#[derive(Clone, Debug, PartialEq)]
pub struct Machine {
    file: String,
    id: i64,
    name: String,
    procs: Vec<ProcType>,
    topos: Vec<TopoDesc>,
    /// The topology simulated (index into `topos`).
    hardware: usize,
    /// Its network (sampling changes costs, never the shape).
    topology: Topology,
    /// Expressions of the sections that do not drive the simulation: (reference, value).
    other: Vec<(String, Timing)>,
}

/// One link's drawn timing, in time units.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinkTiming {
    /// Time per byte.
    pub per_byte: f64,
    /// Added per packet per crossing.
    pub latency: f64,
    /// For a second (third…) link between one pair in one direction: the
    /// [`Topology::link_index`] of the first ([`crate::net::LinkCost::copy_of`]).
    pub copy_of: Option<u32>,
}

/// A machine with its timings drawn for one run.
#[derive(Clone, Debug)]
pub struct MachineRun {
    /// The network of the hardware topology.
    pub topology: Topology,
    /// Per processor (by simulator id), the timings of its type in ticks; processors of
    /// one type share one table.
    pub proc_costs: Vec<Arc<TickCosts>>,
    /// Per processor, its processor type's id (`None` when the topology gives it none).
    pub proc_types: Vec<Option<i64>>,
    /// Per directed link, indexed by [`Topology::link_index`], then the parallel links
    /// (a pair's second, third… link, each direction: [`LinkTiming::copy_of`]).
    pub links: Vec<LinkTiming>,
    /// The topology's creation time in ticks (0 when the file gives none): seed 004,
    /// "if a program ... uses this topology, the creation time must be added".
    pub creation: Ticks,
}

fn err(file: &str, line: u32, kind: ErrorKind) -> MachineError {
    MachineError { file: file.to_string(), line, kind }
}

/// The error for section `sub`, at its line, where `parent` allows only `expected`.
fn unknown_section(file: &str, sub: &Section, parent: &str, expected: &'static str) -> MachineError {
    err(file, sub.line, ErrorKind::UnknownSection { name: sub.name.clone(), parent: parent.into(), expected })
}

impl Machine {
    /// Parses and checks the description `text` read from `file` (the name used in
    /// errors). Everything but the values of expressions is checked here; expressions
    /// are evaluated (and their errors found) by a first [`Machine::sample`].
    pub fn parse(file: &str, text: &str) -> Result<Machine, MachineError> {
        let top = parse::parse(text).map_err(|(line, kind)| err(file, line, kind))?;
        let mut m = Machine {
            file: file.to_string(),
            id: 0,
            name: String::new(),
            procs: Vec::new(),
            topos: Vec::new(),
            hardware: 0,
            topology: Topology::default(),
            other: Vec::new(),
        };
        let mut declared_procs = None;
        let mut declared_topos = None;
        for item in &top.items {
            match item {
                Item::Field(f) => {
                    let at = |k| err(file, f.line, k);
                    match f.key.as_str() {
                        "id" => m.id = parse_int(f).map_err(at)?,
                        "name" => m.name = parse_string(f).map_err(at)?,
                        "processors" => declared_procs = Some((parse_int(f).map_err(at)?, f.line)),
                        "topologies" => declared_topos = Some((parse_int(f).map_err(at)?, f.line)),
                        _ => {
                            return Err(at(ErrorKind::UnknownField {
                                key: f.key.clone(),
                                section: "machine".into(),
                                expected: "id, name, processors, topologies",
                            }))
                        }
                    }
                }
                Item::Section(s) => match s.name.as_str() {
                    "processor" => m.procs.push(proc_section(file, s)?),
                    "topology" => m.topos.push(topo_section(file, s)?),
                    "machinecombinations" | "pvm" | "express" | "mpi" => {
                        let prefix = match s.name.as_str() {
                            "machinecombinations" => "mc",
                            "pvm" => "pv",
                            "express" => "ex",
                            _ => "mp",
                        };
                        for f in fields_only(file, s)? {
                            let value = Value::Expr(parse_expr(f).map_err(|k| err(file, f.line, k))?);
                            m.other
                                .push((format!("{prefix}.{}", f.key), Timing { mean: value, sd: 0.0, line: f.line }));
                        }
                    }
                    _ => {
                        return Err(unknown_section(
                            file,
                            s,
                            "machine",
                            "processor, topology, machinecombinations, pvm, express, mpi",
                        ))
                    }
                },
            }
        }
        for (what, declared, found) in
            [("processors", declared_procs, m.procs.len()), ("topologies", declared_topos, m.topos.len())]
        {
            if let Some((given, line)) = declared {
                if given != found as i64 {
                    let kind = ErrorKind::CountMismatch { what, given: given.max(0) as u64, found: found as u64 };
                    return Err(err(file, line, kind));
                }
            }
        }
        for (i, p) in m.procs.iter().enumerate() {
            if let Some(q) = m.procs[..i].iter().find(|q| q.id == p.id) {
                let what = format!("processor type {}", p.id);
                return Err(err(file, p.line, ErrorKind::Duplicate { what, other: q.line }));
            }
        }
        for (i, t) in m.topos.iter().enumerate() {
            if let Some(q) = m.topos[..i].iter().find(|q| q.id == t.id) {
                let what = format!("topology {}", t.id);
                return Err(err(file, t.line, ErrorKind::Duplicate { what, other: q.line }));
            }
        }
        m.hardware = match m.topos.iter().position(|t| t.hardware) {
            Some(k) => k,
            None if m.topos.len() == 1 => 0,
            None => {
                let message = if m.topos.is_empty() {
                    "the file has no topology section".to_string()
                } else {
                    format!("{} topologies and none has `hardware = 1`", m.topos.len())
                };
                return Err(err(file, 0, ErrorKind::NoTopology { message }));
            }
        };
        m.topology = m.build_network()?;
        // Evaluate once with the means, so a bad expression is reported at parse time.
        m.sample_with(None)?;
        Ok(m)
    }

    /// The machine's `name` field.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The file name given to [`Machine::parse`].
    pub fn file(&self) -> &str {
        &self.file
    }

    /// The simulated network (the hardware topology).
    pub fn topology(&self) -> &Topology {
        &self.topology
    }

    /// The `id` of the topology simulated.
    pub fn topology_id(&self) -> i64 {
        self.topos[self.hardware].id
    }

    /// The same machine simulating topology `id` instead of the `hardware = 1` one
    /// (`cpss --topology-id`).
    pub fn select_topology(&self, id: i64) -> Result<Machine, MachineError> {
        let Some(k) = self.topos.iter().position(|t| t.id == id) else {
            let ids: Vec<String> = self.topos.iter().map(|t| t.id.to_string()).collect();
            let message = format!("--topology-id {id}: the file's topologies are {}", ids.join(", "));
            return Err(err(&self.file, 0, ErrorKind::NoTopology { message }));
        };
        let mut m = self.clone();
        m.hardware = k;
        m.topology = m.build_network()?;
        m.sample_with(None)?;
        Ok(m)
    }

    /// What the file says that the simulation does not use, each once, with its line:
    /// values no simulated timing refers to (directly or through other expressions) —
    /// `smallloopspeedup`, cache and combination fields, the `machinecombinations`,
    /// `pvm`, `express` and `mpi` sections — and the topologies not simulated.
    pub fn warnings(&self) -> Vec<String> {
        // The references the simulation reads, closed over the expressions they use.
        let hw = &self.topos[self.hardware];
        let mut roots: Vec<&Timing> = self.procs.iter().flat_map(|p| p.timings.iter().map(|(_, t)| t)).collect();
        roots.extend(hw.creation.iter());
        roots.extend(hw.links.iter().flat_map(|l| [&l.latency, &l.speed]));
        let by_name: BTreeMap<String, &Timing> = self.named_timings().into_iter().collect();
        let mut used: BTreeSet<String> = BTreeSet::new();
        let mut stack: Vec<&Timing> = roots;
        while let Some(t) = stack.pop() {
            if let Value::Expr(e) = &t.mean {
                for r in e.references() {
                    let r = r.to_ascii_lowercase();
                    if used.insert(r.clone()) {
                        if let Some(next) = by_name.get(&r) {
                            stack.push(next);
                        }
                    }
                }
            }
        }
        let mut out = Vec::new();
        let mut unused = |name: String, line: u32, what: &str| {
            if !used.contains(&name) {
                out.push(format!(
                    "{}:{line}: `{name}` ({what}) is read but does not change the simulation: no simulated timing refers to it",
                    self.file
                ));
            }
        };
        for p in &self.procs {
            if let Some(t) = &p.smallloop {
                unused(format!("pr({}).smallloopspeedup", p.id), t.line, "small-loop speed-up");
            }
            for (name, t) in &p.extra {
                unused(name.clone(), t.line, "cache or combination field");
            }
        }
        for (name, t) in &self.other {
            unused(name.clone(), t.line, "machine-wide section");
        }
        for t in self.topos.iter().filter(|t| t.id != hw.id) {
            out.push(format!(
                "{}:{}: topology {} is not simulated (topology {} is; choose with --topology-id)",
                self.file, t.line, t.id, hw.id
            ));
        }
        out
    }

    /// Every timing with its reference name (lower case).
    fn named_timings(&self) -> Vec<(String, &Timing)> {
        let mut out = Vec::new();
        for p in &self.procs {
            if let Some(t) = &p.smallloop {
                out.push((format!("pr({}).smallloopspeedup", p.id), t));
            }
            for (op, t) in &p.timings {
                out.push((format!("pt({}).{}", p.id, op.mnemonic().to_ascii_lowercase()), t));
            }
            for (name, t) in &p.extra {
                out.push((name.to_ascii_lowercase(), t));
            }
        }
        for t in &self.topos {
            if let Some(c) = &t.creation {
                out.push((format!("to({}).creation", t.id), c));
            }
            for l in &t.links {
                out.push((format!("tl({})({}).latency", t.id, l.id), &l.latency));
                out.push((format!("tl({})({}).speed", t.id, l.id), &l.speed));
            }
        }
        for (name, t) in &self.other {
            out.push((name.to_ascii_lowercase(), t));
        }
        out
    }

    /// Whether any timing has a non-zero standard deviation (runs then differ by seed).
    pub fn has_spread(&self) -> bool {
        self.timings().any(|t| t.sd > 0.0)
    }

    /// Every timing in sampling order (see the module documentation).
    fn timings(&self) -> impl Iterator<Item = &Timing> {
        let procs = self.procs.iter().flat_map(|p| {
            p.smallloop.iter().chain(p.timings.iter().map(|(_, t)| t)).chain(p.extra.iter().map(|(_, t)| t))
        });
        let topos = self
            .topos
            .iter()
            .flat_map(|t| t.creation.iter().chain(t.links.iter().flat_map(|l| [&l.latency, &l.speed])));
        procs.chain(topos).chain(self.other.iter().map(|(_, t)| t))
    }

    fn build_network(&self) -> Result<Topology, MachineError> {
        let t = &self.topos[self.hardware];
        let file = &self.file;
        for (k, ty) in t.types.iter().enumerate() {
            match ty {
                None => {
                    let what = format!("the type of processor {} (`p[{}] = TYPE` in procid)", k + 1, k + 1);
                    return Err(err(file, t.line, ErrorKind::Missing { what }));
                }
                Some((id, line)) if !self.procs.iter().any(|p| p.id == *id) => {
                    return Err(err(file, *line, ErrorKind::UnknownType { proc: k as u32 + 1, ty: *id }));
                }
                Some(_) => {}
            }
        }
        let mut edges = Vec::new();
        let mut seen: BTreeMap<(u32, u32), i64> = BTreeMap::new();
        for l in &t.links {
            for (i, &a) in l.connect.iter().enumerate() {
                for &b in &l.connect[i + 1..] {
                    let key = (a.min(b), a.max(b));
                    // A pair joined again is a parallel link (sample_with adds it).
                    if seen.insert(key, l.id).is_none() {
                        edges.push((a - 1, b - 1));
                    }
                }
            }
        }
        let graph = Graph::new(t.processors, &edges)
            .map_err(|e| err(file, t.line, ErrorKind::Network { message: renumber(&e.to_string()) }))?;
        Ok(Topology::from_graph(graph))
    }

    /// The machine with its timings drawn from `seed` (see the module documentation).
    pub fn sample(&self, seed: u64) -> Result<MachineRun, MachineError> {
        self.sample_with(Some(seed))
    }

    /// `None`: every timing at its mean.
    fn sample_with(&self, seed: Option<u64>) -> Result<MachineRun, MachineError> {
        let mut rng = seed.map(|s| Rng::new(s ^ SAMPLE_STREAM));
        // Draw the numbers in file order; an expression's value comes later.
        let mut drawn: Vec<Option<f64>> = Vec::new();
        for t in self.timings() {
            drawn.push(match &t.mean {
                Value::Number(mean) => Some(match (&mut rng, t.sd > 0.0) {
                    (Some(r), true) => (mean + t.sd * normal(r)).max(0.0),
                    _ => *mean,
                }),
                Value::Expr(_) => None,
            });
        }
        let env = Env::new(self, &drawn);
        let file = &self.file;
        let value = |name: &str, line: u32| env.get(name).map_err(|kind| err(file, line, kind));
        let topo = &self.topos[self.hardware];
        let mut tables: BTreeMap<i64, Arc<TickCosts>> = BTreeMap::new();
        for p in &self.procs {
            let mut c = TickCosts::default();
            for (op, t) in &p.timings {
                let v = value(&format!("pt({}).{}", p.id, op.mnemonic().to_ascii_lowercase()), t.line)?;
                c.set(*op, to_ticks(v));
            }
            tables.insert(p.id, Arc::new(c));
        }
        let mut proc_costs = Vec::with_capacity(topo.types.len());
        let mut proc_types = Vec::with_capacity(topo.types.len());
        for ty in &topo.types {
            let c = ty.and_then(|(id, _)| tables.get(&id)).cloned();
            proc_costs.push(c.unwrap_or_default());
            proc_types.push(ty.map(|(id, _)| id));
        }
        let n = self.topology.link_count();
        let mut links = vec![LinkTiming { per_byte: 0.0, latency: 0.0, copy_of: None }; n];
        // The first link joining a pair sets its costs; each later one is a parallel link.
        let mut set = vec![false; n];
        for l in &topo.links {
            let lat = value(&format!("tl({})({}).latency", topo.id, l.id), l.latency.line)?;
            let speed = value(&format!("tl({})({}).speed", topo.id, l.id), l.speed.line)?;
            for &a in &l.connect {
                for &b in &l.connect {
                    let link = crate::topo::Link { from: a - 1, to: b - 1 };
                    let Some(i) = self.topology.link_index(link) else { continue };
                    match set.get(i) {
                        Some(false) => {
                            links[i] = LinkTiming { per_byte: speed, latency: lat, copy_of: None };
                            set[i] = true;
                        }
                        Some(true) => {
                            links.push(LinkTiming { per_byte: speed, latency: lat, copy_of: Some(i as u32) });
                        }
                        None => {}
                    }
                }
            }
        }
        let creation = match &topo.creation {
            Some(c) => to_ticks(value(&format!("to({}).creation", topo.id), c.line)?),
            None => 0,
        };
        // Every other expression too, so that an error anywhere is reported.
        for name in env.names() {
            value(&name, env.line_of(&name))?;
        }
        Ok(MachineRun { topology: self.topology.clone(), proc_costs, proc_types, links, creation })
    }
}

/// Graph errors count processors from 0; the file counts from 1.
fn renumber(message: &str) -> String {
    format!("{message} (processor numbers counted from 0 here: add 1 for the file's)")
}

/// Time units to ticks, rounded; negative values (from an expression) become 0.
fn to_ticks(v: f64) -> Ticks {
    (v.max(0.0) * TICKS_PER_UNIT as f64).round() as Ticks
}

/// A standard normal draw (Box–Muller, see the module documentation).
fn normal(r: &mut Rng) -> f64 {
    let u1 = r.next_f64_nonzero();
    let u2 = r.next_f64();
    (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
}

#[cfg(test)]
mod tests;
