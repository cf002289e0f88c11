//! vCode: the instruction set ([`isa`]), the compiled program ([`module`]), the `.cod`
//! file format ([`cod`]) and the listing ([`listing`]).
//!
//! Invariant: this module depends on nothing else in the crate but the leaf `crc`; the compiler writes a
//! [`Module`], the simulator reads one.
pub mod cod;
pub mod cost;
pub mod isa;
pub mod listing;
pub mod module;

pub use isa::{file_op, mpi_op, Class, DecodeError, Instr, MathFn, Op, Scalar, MAPPING_PREFIX, MAPPING_PROBE_ID};
pub use module::*;
