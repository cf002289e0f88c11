//! Turning user choices (flags, the program's `arch`/`phyArch`, files) into a simulator
//! configuration: the physical and virtual topologies, the mapping, network parameters,
//! the cost table, processor speeds and limits. The `cpss` binary parses flags into
//! [`RunOptions`] and calls [`setup`]; everything that can go wrong here is a
//! [`SetupError`] (exit code 2).
//!
//! With a machine description ([`crate::machine`]) the physical topology, each
//! processor's instruction costs and each link's cost come from the file, its timings
//! drawn from the run's seed; `--cost` and `--cost-file` still override single
//! instructions on every processor. The group overrides of seed 004 §3.2 then apply:
//! `--scale-costs F` multiplies every instruction cost by F, `--scale-link-speed F`
//! makes every link F times as fast (its time per flit divided by F; without a machine
//! file, `--link-delay` is), and `--scale-latency F` multiplies every link latency by F.
use super::{parse_override, CostError, CostTable, RunConfig, SimConfig, TickCosts};
use crate::machine::{Machine, MachineError};
use crate::net::{LinkCost, NetError, NetParams};
use crate::rng::Rng;
use crate::sim::groups::{self, GroupScale};
use crate::time::MAX_QUANTITY;
use crate::time::{Ticks, TICKS_PER_UNIT};
use crate::topo::{resolve_mapping, MapError, MapFile, Mapping, TopoError, Topology};
use crate::vcode::Module;
use std::sync::Arc;

/// The default of `--max-output` (64 MiB): far above what a program prints to be read,
/// far below a full disk. The library's own default ([`SimConfig::max_output`]) is no
/// cap; a tool's run gets this one unless `--trust`.
pub const DEFAULT_MAX_OUTPUT: u64 = 64 << 20;

/// What the user chose; `None` means "the program's declaration, else the default".
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// `--topology`: the physical architecture (default: the program's `phyArch`, else
    /// `mesh:4x4`, seed 000 App. A 2.4.1).
    pub topology: Option<String>,
    /// `--virtual`: overrides the program's `arch` (default: `arch`, else the physical
    /// topology).
    pub virtual_topology: Option<String>,
    /// `--mapping NAME|EXPR` (default `default`).
    pub mapping: Option<String>,
    /// `--map-file`: the text of a map file and its name.
    pub map_file: Option<(String, String)>,
    /// Network parameters (already in ticks and bytes).
    pub net: NetParams,
    /// `--quantum` in ticks.
    pub quantum: Option<Ticks>,
    /// `--cost OP=T`, in order.
    pub cost_overrides: Vec<String>,
    /// `--cost-file`: its name and text (`OP=T` per line, `#` comments).
    pub cost_file: Option<(String, String)>,
    /// `--seed`.
    pub seed: u64,
    /// `--vary-speed SEED` (a row of [`super::params::PARAMS`], as are the limits below).
    pub vary_speed: Option<u64>,
    /// Collect the busy time of every source line into [`crate::sim::Stats::lines`]
    /// (`cpss --runs N --lines`).
    pub lines: bool,
    pub max_time: Option<Ticks>,
    pub max_steps: Option<u64>,
    pub max_procs: Option<u32>,
    pub max_memory: Option<u32>,
    pub max_messages: Option<u64>,
    pub max_output: Option<u64>,
    pub alarm: Option<Ticks>,
    pub profile_step: Option<Ticks>,
    /// `--machine`: a parsed machine description (shared by the runs of a sweep).
    pub machine: Option<Arc<Machine>>,
    /// `--topology-id N`: simulate the machine file's topology N instead of its
    /// `hardware = 1` one.
    pub topology_id: Option<i64>,
    /// `--phase-mapping KEY=MAPPING`: (probe label or `#N`, mapping), in the order given.
    pub phase_mappings: Vec<(String, String)>,
    /// The sandbox folder, resolved ([`SimConfig::sandbox`]).
    pub sandbox: Option<std::path::PathBuf>,
    /// `--scale-costs`: factor on every instruction cost (default 1).
    pub scale_costs: Option<f64>,
    /// `--scale-link-speed`: factor on every link's speed (default 1).
    pub scale_link_speed: Option<f64>,
    /// `--scale-latency`: factor on every link's latency (default 1).
    pub scale_latency: Option<f64>,
    /// `--scale-group GROUP=F`, in the order given ([`crate::sim::groups`]).
    pub scale_groups: Vec<GroupScale>,
    /// `--fork-args child` ([`SimConfig::fork_args_child`]).
    pub fork_args_child: bool,
    /// `cpss prog.cod -- ARGS`: the program's `argv` ([`SimConfig::program_args`]).
    pub program_args: Vec<String>,
    /// `--env NAME=VALUE` ([`SimConfig::program_env`]).
    pub program_env: Vec<(String, String)>,
    /// `--ranks N` ([`SimConfig::ranks`]); by default one per virtual processor for a
    /// program that calls `MPI_Init`, else 1.
    pub ranks: Option<u32>,
    /// `--host-time`: the CSV and JSON statistics carry `host_seconds`
    /// ([`crate::sim::Stats::report_host_time`]).
    pub host_time: bool,
}

/// A ready configuration.
#[derive(Clone, Debug)]
pub struct Setup {
    pub config: SimConfig,
    pub physical: Topology,
    pub virtual_topology: Topology,
    pub mapping: Mapping,
    pub net: NetParams,
    /// Per directed link (by [`Topology::link_index`]) its cost, for `net::build`; empty
    /// when every link costs `net.link_delay` per flit.
    pub links: Vec<LinkCost>,
    /// Warnings to show the user (mapping fall-backs).
    pub warnings: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    #[error("{what}: {source}")]
    Topology { what: &'static str, source: TopoError },
    #[error("the program's {what} declaration: {source}")]
    Declared { what: &'static str, source: TopoError },
    #[error("mapping: {0}")]
    Mapping(#[from] MapError),
    #[error("{file}: {source}")]
    MapFile { file: String, source: MapError },
    #[error("map file {file} is for virtual {found}, but the run's virtual architecture is {expected}")]
    MapFileVirtual { file: String, found: String, expected: String },
    #[error("map file {file} is for physical {found}, but the run's physical architecture is {expected}")]
    MapFilePhysical { file: String, found: String, expected: String },
    #[error("--cost {0}")]
    Cost(CostError),
    #[error("{file}:{line}: {source}")]
    CostFile { file: String, line: usize, source: CostError },
    #[error("the quantum must be positive")]
    ZeroQuantum,
    #[error(transparent)]
    Net(#[from] NetError),
    #[error("unknown parameter `{0}` (known: {known}){hint}", known = RunOptions::names().join(", "),
        hint = crate::textio::did_you_mean(.0, RunOptions::names().iter().copied()))]
    UnknownParam(String),
    #[error("{param}: {message}")]
    BadValue { param: String, message: String },
    #[error(transparent)]
    Machine(#[from] MachineError),
    #[error("--topology and --machine both give the physical architecture; use one")]
    MachineAndTopology,
    #[error("--topology-id chooses a topology of a machine file: give --machine FILE")]
    TopologyIdWithoutMachine,
    #[error("--scale-group {group}: processor types are a machine file's; give --machine FILE")]
    GroupWithoutMachine { group: String },
    #[error("--scale-group {group}: the machine file's topology has no processor of type {ty} (its types: {types})")]
    GroupType { group: String, ty: i64, types: String },
    #[error("--phase-mapping {key}=…: {source}")]
    PhaseMapping { key: String, source: MapError },
}

impl RunOptions {
    /// Names [`RunOptions::set`] accepts besides the parameters of the tables
    /// ([`super::params::all`]): the options that are not numbers or words of a fixed set.
    pub const NAMES: [&'static str; 6] = ["topology", "virtual", "mapping", "cost", "machine", "scale-group"];

    /// Every name [`RunOptions::set`] accepts.
    pub fn names() -> Vec<&'static str> {
        Self::NAMES.iter().copied().chain(super::params::all().map(|i| i.name)).collect()
    }

    /// Sets several parameters of the tables ([`super::params::all`]) or options: the
    /// network's are checked as one set (so that a larger header and a larger packet may
    /// come in either order), the others one by one as [`RunOptions::set`] does.
    pub fn set_many(&mut self, values: &[(&str, &str)]) -> Result<(), SetupError> {
        let is_net = |n: &str| crate::params::find(crate::net::params::PARAMS, n).is_some();
        let net: Vec<(&str, &str)> = values.iter().copied().filter(|(n, _)| is_net(n)).collect();
        self.net.set_many(&net)?;
        for &(name, value) in values.iter().filter(|(n, _)| !is_net(n)) {
            self.set(name, value)?;
        }
        Ok(())
    }

    /// The value of a parameter of the tables ([`super::params::all`]) as text, as
    /// `--list-params` and the statistics write it; `None` for another name.
    pub fn get(&self, name: &str) -> Option<String> {
        if let Some(p) = crate::params::find(super::params::PARAMS, name) {
            return Some(p.get(self));
        }
        crate::params::find(crate::net::params::PARAMS, name).map(|p| p.get(&self.net))
    }

    /// Sets one parameter by its `cpss` flag name without `--` (`link-delay`,
    /// `topology`, `cost` with a value `OP=T`, …) from its textual value, as the flag
    /// would: the one place sweeps and the debugger change a configuration.
    pub fn set(&mut self, name: &str, value: &str) -> Result<(), SetupError> {
        let bad = |message: String| SetupError::BadValue { param: name.to_string(), message };
        if let Some(p) = crate::params::find(super::params::PARAMS, name) {
            return p.set(self, value).map_err(bad);
        }
        match name {
            "topology" => self.topology = Some(value.to_string()),
            "virtual" => self.virtual_topology = Some(value.to_string()),
            "mapping" => self.mapping = Some(value.to_string()),
            "cost" => {
                CostTable::default().apply(value).map_err(SetupError::Cost)?;
                self.cost_overrides.push(value.to_string());
            }
            "machine" => {
                let text = std::fs::read_to_string(value).map_err(|e| bad(format!("{value}: {e}")))?;
                self.machine = Some(Arc::new(Machine::parse(value, &text)?));
            }
            "scale-group" => self.scale_groups.push(groups::parse(value).map_err(bad)?),
            _ if crate::params::find(crate::net::params::PARAMS, name).is_some() => self.net.set(name, value)?,
            _ => return Err(SetupError::UnknownParam(name.to_string())),
        }
        Ok(())
    }
}

/// The configuration of a run as its statistics state it; `options` are the options that
/// shaped it (`(long option, value)`, as the run record keeps them).
pub fn configuration(module: &Module, s: &Setup, opts: &RunOptions, options: Vec<(String, String)>) -> RunConfig {
    let mapping = match (&opts.mapping, &opts.map_file) {
        (Some(m), _) => m.clone(),
        (None, Some((name, _))) => format!("map file {name}"),
        (None, None) => "default".to_string(),
    };
    // A row that changes nothing is not listed (as the run record leaves it out), so that
    // runs without it state the same configuration.
    let mut parameters = s.net.stated_pairs();
    parameters.push(("quantum".into(), crate::time::format_time(s.config.quantum)));
    RunConfig {
        program: module.source_name.clone(),
        topology: opts.machine.as_ref().map_or_else(|| s.physical.to_string(), |m| format!("machine:{}", m.file())),
        virtual_topology: s.virtual_topology.to_string(),
        mapping,
        network: s.net.model.name().to_string(),
        parameters,
        seed: s.config.seed,
        options,
    }
}

/// Builds the configuration of a run of `module`.
pub fn setup(module: &Module, opts: &RunOptions) -> Result<Setup, SetupError> {
    let machine = match (&opts.machine, opts.topology_id) {
        (Some(m), Some(id)) => Some(Arc::new(m.select_topology(id)?)),
        (Some(m), None) => Some(Arc::clone(m)),
        (None, Some(_)) => return Err(SetupError::TopologyIdWithoutMachine),
        (None, None) => None,
    };
    let drawn = match &machine {
        Some(_) if opts.topology.is_some() => return Err(SetupError::MachineAndTopology),
        Some(m) => Some(m.sample(opts.seed)?),
        None => None,
    };
    let physical = match (&drawn, &opts.topology) {
        (Some(run), _) => run.topology.clone(),
        (None, Some(t)) => Topology::parse(t).map_err(|source| SetupError::Topology { what: "--topology", source })?,
        (None, None) => match &module.phy_arch {
            Some(a) => Topology::from_arch(a).map_err(|source| SetupError::Declared { what: "phyArch", source })?,
            None => Topology::default(),
        },
    };
    let virtual_topology = match &opts.virtual_topology {
        Some(t) => Topology::parse(t).map_err(|source| SetupError::Topology { what: "--virtual", source })?,
        None => match &module.arch {
            Some(a) => Topology::from_arch(a).map_err(|source| SetupError::Declared { what: "arch", source })?,
            None => physical.clone(),
        },
    };
    let mapping = match &opts.map_file {
        Some((file, text)) => {
            let mf = MapFile::parse(text).map_err(|source| SetupError::MapFile { file: file.clone(), source })?;
            if mf.virt.nodes() != virtual_topology.nodes() || mf.virt.shape() != virtual_topology.shape() {
                return Err(SetupError::MapFileVirtual {
                    file: file.clone(),
                    found: mf.virt.to_string(),
                    expected: virtual_topology.to_string(),
                });
            }
            if mf.phys != physical {
                return Err(SetupError::MapFilePhysical {
                    file: file.clone(),
                    found: mf.phys.to_string(),
                    expected: physical.to_string(),
                });
            }
            mf.mapping
        }
        None => {
            let spec = opts.mapping.as_deref().unwrap_or("default");
            resolve_mapping(spec, &virtual_topology, &physical, opts.seed)?
        }
    };
    mapping.validate(&virtual_topology, &physical)?;
    let mut phase_mappings = Vec::with_capacity(opts.phase_mappings.len());
    for (key, spec) in &opts.phase_mappings {
        let m = resolve_mapping(spec, &virtual_topology, &physical, opts.seed)
            .and_then(|m| m.validate(&virtual_topology, &physical).map(|()| m))
            .map_err(|source| SetupError::PhaseMapping { key: key.clone(), source })?;
        phase_mappings.push((key.clone(), m.table));
    }
    // Overrides in order: the cost file's lines, then the --cost flags.
    let mut overrides = Vec::new();
    if let Some((file, text)) = &opts.cost_file {
        for (k, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let o = parse_override(line).map_err(|source| SetupError::CostFile {
                file: file.clone(),
                line: k + 1,
                source,
            })?;
            overrides.push(o);
        }
    }
    for c in &opts.cost_overrides {
        overrides.push(parse_override(c).map_err(SetupError::Cost)?);
    }
    let mut costs = CostTable::default();
    for &(op, c) in &overrides {
        costs.set(op, c);
    }
    let pprocs = physical.nodes();
    let scale_costs = opts.scale_costs.unwrap_or(1.0);
    let scales = &opts.scale_groups;
    for s in scales {
        let Some(ty) = s.group.needs_types() else { continue };
        let group = s.text.clone();
        let run = drawn.as_ref().ok_or_else(|| SetupError::GroupWithoutMachine { group: group.clone() })?;
        if !run.proc_types.contains(&Some(ty)) {
            let mut types: Vec<i64> = run.proc_types.iter().flatten().copied().collect();
            types.sort_unstable();
            types.dedup();
            let types = types.iter().map(i64::to_string).collect::<Vec<_>>().join(", ");
            return Err(SetupError::GroupType { group, ty, types });
        }
    }
    let by_instruction_group = scales.iter().any(|s| s.group.is_instructions());
    let adjust = |t: &TickCosts, ty: Option<i64>| {
        let mut t = t.clone();
        for &(op, c) in &overrides {
            t.set(op, Ticks::from(c) * TICKS_PER_UNIT);
        }
        if scale_costs != 1.0 {
            t = t.scaled(scale_costs);
        }
        if by_instruction_group {
            t = t.scaled_by(|slot| groups::slot_factor(scales, slot, ty));
        }
        Arc::new(t)
    };
    let proc_costs: Vec<Arc<TickCosts>> = match &drawn {
        Some(run) => {
            // Adjust each type's table once; processors of a type keep sharing it.
            let mut done: Vec<(*const TickCosts, Option<i64>, Arc<TickCosts>)> = Vec::new();
            run.proc_costs
                .iter()
                .zip(&run.proc_types)
                .map(|(t, &ty)| match done.iter().find(|(p, y, _)| std::ptr::eq(*p, &**t) && *y == ty) {
                    Some((_, _, a)) => Arc::clone(a),
                    None => {
                        let a = adjust(t, ty);
                        done.push((&**t, ty, Arc::clone(&a)));
                        a
                    }
                })
                .collect()
        }
        None if scale_costs != 1.0 || by_instruction_group => {
            vec![adjust(&TickCosts::from(&CostTable::default()), None); pprocs as usize]
        }
        None => Vec::new(),
    };
    let mut net = opts.net.clone();
    let speed = opts.scale_link_speed.unwrap_or(1.0);
    let latency = opts.scale_latency.unwrap_or(1.0);
    let ticks = |units: f64| (units * TICKS_PER_UNIT as f64).round() as Ticks;
    let links: Vec<LinkCost> = match &drawn {
        Some(run) => {
            let ends = physical.links();
            let ty = |p: u32| run.proc_types.get(p as usize).copied().flatten();
            (0..run.links.len())
                .map(|k| {
                    let l = &run.links[k];
                    let base = l.copy_of.map_or(k, |b| b as usize);
                    let (gs, gl) = match ends.get(base) {
                        Some(e) => groups::link_factors(scales, ty(e.from), ty(e.to)),
                        None => (1.0, 1.0),
                    };
                    LinkCost {
                        per_flit: ticks(f64::from(net.flit_size) * l.per_byte / (speed * gs)),
                        latency: ticks(l.latency * latency * gl),
                        copy_of: l.copy_of,
                    }
                })
                .collect()
        }
        None => {
            if speed != 1.0 {
                net.link_delay = (net.link_delay as f64 / speed).round() as Ticks;
            }
            Vec::new()
        }
    };
    let spmd = groups::msg_init_factor(scales);
    if spmd != 1.0 {
        net.msg_init = (net.msg_init as f64 * spmd).round() as Ticks;
    }
    // Every single time quantity stays within MAX_QUANTITY, so that sums of them reach
    // the clock's end (a limit error) long before they could overflow.
    let too_large = |what: String, t: Ticks| {
        (t > MAX_QUANTITY).then(|| SetupError::BadValue {
            param: what,
            message: format!("more than 10^12 units, the largest time quantity ({} ticks)", t.min(u64::MAX - 1)),
        })
    };
    for (k, t) in proc_costs.iter().enumerate() {
        if let Some(&c) = t.by_slot().iter().max() {
            if let Some(e) = too_large(format!("an instruction cost on processor {k}"), c) {
                return Err(e);
            }
        }
    }
    for l in &links {
        for (what, t) in [("time per flit", l.per_flit), ("latency", l.latency)] {
            if let Some(e) = too_large(format!("a link's {what} in the machine file"), t) {
                return Err(e);
            }
        }
    }
    for (what, t) in [
        ("link-delay", net.link_delay),
        ("msg-init", net.msg_init),
        ("packet-init", net.packet_init),
        ("local-cost", net.local_cost),
    ] {
        if let Some(e) = too_large(what.to_string(), t) {
            return Err(e);
        }
    }
    // --vary-speed: processor i's speed is increased by the factor 1/r_i, r_i in (0,1]
    // from SEED (seed 000 §4.2.3: "a random number r_i between 0 and 1 for each physical
    // processor i that will be used to increase the speed by a factor of 1/r_i"): every
    // instruction on it takes r_i times as long. A time unit is 1000 ticks, so r_i is kept
    // to three decimals; an r_i below 0.0005 (one chance in 2000 per processor) counts as
    // 0.001, so that no instruction that costs time costs nothing.
    let speeds = match opts.vary_speed {
        Some(seed) => {
            let mut rng = Rng::new(seed);
            (0..pprocs).map(|_| ((TICKS_PER_UNIT as f64) * rng.next_f64_nonzero()).round().max(1.0) as Ticks).collect()
        }
        None => Vec::new(),
    };
    let defaults = SimConfig::default();
    let quantum = opts.quantum.unwrap_or(defaults.quantum);
    if quantum == 0 {
        return Err(SetupError::ZeroQuantum);
    }
    let config = SimConfig {
        quantum,
        costs,
        proc_costs,
        mapping: mapping.table.clone(),
        pprocs,
        speeds,
        seed: opts.seed,
        fork_args_child: opts.fork_args_child,
        program_args: opts.program_args.clone(),
        program_env: opts.program_env.clone(),
        ranks: opts.ranks.unwrap_or(if module.uses_mpi() { virtual_topology.nodes() } else { 1 }),
        max_time: opts.max_time,
        max_steps: opts.max_steps,
        max_procs: opts.max_procs.unwrap_or(defaults.max_procs),
        max_memory: opts.max_memory.unwrap_or(defaults.max_memory),
        max_messages: opts.max_messages.unwrap_or(defaults.max_messages),
        max_output: opts.max_output.unwrap_or(DEFAULT_MAX_OUTPUT),
        alarm: opts.alarm,
        profile_step: opts.profile_step,
        sandbox: opts.sandbox.clone(),
        start_delay: drawn.as_ref().map_or(0, |d| d.creation),
        phase_mappings,
        topologies: Some(Arc::new((virtual_topology.clone(), physical.clone()))),
        ..defaults
    };
    let mut warnings = mapping.warnings.clone();
    if let Some(m) = &machine {
        warnings.extend(m.warnings());
    }
    // A --phase-mapping key that no probe can have (when every label is a literal):
    // neither `#N` nor a label of the program.
    if let Some(labels) = module.probe_labels() {
        for (key, _) in &config.phase_mappings {
            let nth = key.strip_prefix('#').is_some_and(|n| n.parse::<u64>().is_ok_and(|n| n >= 1));
            if !nth && !labels.contains(key) {
                let known = if labels.is_empty() {
                    "the program has no probes".to_string()
                } else {
                    format!(
                        "its probes' labels: {}",
                        labels.iter().map(|l| format!("\"{l}\"")).collect::<Vec<_>>().join(", ")
                    )
                };
                warnings.push(format!("--phase-mapping {key}=…: no probe of the program has the label \"{key}\", so this mapping is never used ({known}; #N names the N-th probe run)"));
            }
        }
    }
    Ok(Setup { config, physical, virtual_topology, mapping, net, links, warnings })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_by_name() {
        let mut o = RunOptions::default();
        o.set("topology", "torus:4x4").unwrap();
        o.set("quantum", "20").unwrap();
        o.set("link-delay", "3").unwrap();
        o.set("cost", "ADDI=2").unwrap();
        o.set("seed", "7").unwrap();
        assert_eq!(o.topology.as_deref(), Some("torus:4x4"));
        assert_eq!(o.quantum, Some(20 * TICKS_PER_UNIT));
        assert_eq!(o.net.link_delay, 3 * TICKS_PER_UNIT);
        assert_eq!(o.cost_overrides, vec!["ADDI=2".to_string()]);
        assert_eq!(o.seed, 7);
        assert!(matches!(o.set("cost", "NOPE=1"), Err(SetupError::Cost(_))));
        assert!(matches!(o.set("lanes-per-link", "2"), Err(SetupError::UnknownParam(_))));
        assert!(matches!(o.set("seed", "-1"), Err(SetupError::BadValue { .. })));
    }
}
