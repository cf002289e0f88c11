//! # cppe — the Concordia Parallel Programming Environment as a Unix toolchain
//!
//! Five small programs share this library: `cpcc` compiles the parallel C dialect CPC to
//! vCode, `cpss` simulates a run on a configurable multicomputer, `cptrace` converts the
//! run record to trace formats, `cpperf` analyses it, and `cpmap` evaluates and searches
//! processor mappings. Each binary in `bin/` parses its flags, calls one library entry
//! point, renders errors and exits with a documented code ([`cli::exit`]).
//!
//! ## Data flow
//!
//! ```text
//!  CPC source ──lang──▶ Module ──vcode::cod──▶ .cod file
//!                         │
//!                         ▼
//!            sim (+ net, topo, expr mappings) ──trace──▶ run record ──▶ perf / trace writers
//! ```
//!
//! Data flows one way. Nothing downstream is imported upstream (see Layers): [`lang`]
//! knows nothing of the simulator, [`vcode`] depends only on the leaves [`crc`] and
//! [`time`], and the analysis reads only the run record, so it works the same on a
//! record from a file, a pipe or a converted PICL trace.
//!
//! ## Module map
//!
//! | module | what lives there |
//! |---|---|
//! | [`cli`] | input/output selection (`-`, terminal rules), atomic writes, exit codes, broken pipes |
//! | [`lang`] | the CPC front end: preprocessor, lexer, parser, AST, checker and code generator, diagnostics; the C library and `<mpi.h>`'s MPI library, written in C and linked on demand |
//! | [`vcode`] | the instruction set (one table: opcode, operands, cost, class), the cost tables in units and ticks, the program tables, the `.cod` format, the listing |
//! | [`topo`] | topologies, coordinates, hop distance, routes (whole, or walked hop by hop), link numbering, built-in mappings, map files, mapping metrics |
//! | [`params`] | the form of a run parameter's declaration (name, kind and range, default, doc, models, whether the debugger may set it, how to write and read it): one row per parameter, the tables beside what they configure (`net::params`, `sim::params`) |
//! | [`time`] | the tick and its unit, `NEVER`, reading and writing times, the priority queue keyed by time with a tie-break counter |
//! | [`span`] | id ranges as users write them (`7`, `0-3`, `0:3`), for every tool |
//! | [`textio`] | quoting for JSON strings (`serde_json`) and CSV records (`csv`), shared by every writer that streams its document; the source line and caret under an error message |
//! | [`crc`] | the CRC-32 of `.cod` files and run records |
//! | [`hostmem`] | the tools' global allocator (a refused allocation is a clean exit 3 naming the limit, not an abort) and the sections whose refusals are returned to the caller |
//! | [`dense`] | the map from mostly small, dense integer ids (processes, processors, messages) that the per-event work of `cptrace` and `cpperf` looks values up in |
//! | [`stat`] | Student's t quantile and Welch's test, for `cpss --runs` intervals and `cpperf compare` over repeated runs |
//! | [`rng`] | the one documented random generator (xoshiro256** seeded by SplitMix64) |
//! | [`expr`] | the expression engine of mapping strings (`cpmap`, `cpss --mapping`) and machine-file expressions |
//! | [`sim`] | the simulator core: `sim::engine` (one file each for the quantum scheduler and its state `Schedule`, the bridge to the network and its state `Bridge` (messages in flight, writes landing, the network's thread), processes, channels and remote accesses, MPI ranks with their globals and mailboxes, the instructions beyond the hot loop, the vCode interpreter, its translated form (straight stretches of operations) and the word arithmetic both share, and the network's own thread that runs a contention network ahead of the processors with identical results), the memory pool with owners, the default allocation, statistics; `sim::setup` (options to a ready configuration), `sim::groups` (group overrides of the machine parameters), `sim::run` (repetitions, sweeps), `sim::calibrate` (fitting parameters to observed values), `sim::debug` (the debugger) |
//! | [`machine`] | machine description files (seed 004): processor types with per-instruction timings `mean [sd]`, link-list topologies, expressions with references, per-run sampling |
//! | [`net`] | network models behind the `Network` trait: wormhole (flits, lanes, buffers), packet (store-and-forward, FIFO links), shortest-path (closed form), flow (max-min bandwidth sharing); per-link costs, route and link-load records; running ahead of the senders (`net::AheadStep`) |
//! | [`trace`] | the run record: event types, the writer the simulator calls, the streaming reader; the conversion driver, the selection, and the processor states and call stacks the writers and `cpperf` share; `trace::format`, one folder per trace format (PICL, SDDF, Chrome, Paraver, OTF2: writer, reader, files) and their registry |
//! | [`perf`] | `cpperf`: summary metrics, granularity, communication matrix, execution graph, critical path and weighted critical path (WCPA, the longest weighted path), processor time by state, phases, imbalance, link loads, what-if zeroing, cost per line |
//! | [`mapper`] | `cpmap`: communication matrices, mapping evaluation and ranking, greedy and annealing search |
//! | [`tools`] | the five tools' flags and entry points, and the typed error each `main` prints and exits by |
//!
//! ## Layers
//!
//! Each module may use only the modules listed after its name; everything else it must
//! not import (its tests may). `tests/it/architecture.rs` reads this list and fails when
//! the code imports across it, so the list is kept true.
//!
//! ```text
//! time:
//! span:
//! textio:
//! crc:
//! hostmem:
//! dense:
//! rng:
//! stat:
//! expr: textio
//! params: time
//! vcode: crc, time
//! lang: textio, vcode
//! topo: expr, rng, textio, vcode
//! net: hostmem, params, time, topo
//! trace: cli, crc, dense, span, textio, time, vcode
//! machine: expr, net, rng, time, topo, vcode
//! sim: hostmem, machine, net, params, rng, span, stat, textio, time, topo, trace, vcode
//! perf: dense, stat, textio, time, trace
//! mapper: rng, textio, time, topo, trace
//! cli: textio, time
//! tools: cli, lang, machine, mapper, net, params, perf, sim, span, textio, time, topo, trace, vcode
//! ```
//!
//! ## Invariants
//!
//! * `vcode` is the contract between compiler and simulator: an instruction's meaning is
//!   its doc comment in [`vcode::isa`]; opcode numbers and `.cod` section tags are
//!   append-only.
//! * Same inputs and seed give byte-identical outputs: no hash-map iteration reaches an
//!   output, simulated time is an integer, ties are broken by id.
//! * No input, however malformed, causes a panic: every reader returns a typed error.
//! * A run parameter (a number or a word of a fixed set that shapes a run) is declared
//!   only as a row of its table (`net::params::PARAMS`, `sim::params::PARAMS`): `cpss`'s
//!   flags, `--list-params`, config and sweep keys, the debugger's `set` and the man
//!   page's Parameters list (in OPTIONS) all follow from the rows (`tests/it/docs.rs` checks the page,
//!   `tests/it/params.rs` every way of setting each row).
//! * A trace format lives only in its folder under `trace::format` and its row of the
//!   registry (`trace::format::Format`): `cptrace` and `cpperf` dispatch through the
//!   registry and name no format's module.
//! * The files of `perf/` and of `trace/` do not import each other in a loop (checked by
//!   `tests/it/architecture.rs`): each section, format or pass can be read on its own.
//! * A tool's `main` (`bin/`) only parses its flags, calls its entry point in [`tools`]
//!   and exits with the code of the typed error it gets back.
pub mod cli;
pub mod crc;
pub mod dense;
pub mod expr;
pub mod hostmem;
pub mod lang;
pub mod machine;
pub mod mapper;
pub mod net;
pub mod params;
pub mod perf;
pub mod rng;
pub mod sim;
pub mod span;
pub mod stat;
pub mod textio;
pub mod time;
pub mod tools;
pub mod topo;
pub mod trace;
pub mod vcode;
