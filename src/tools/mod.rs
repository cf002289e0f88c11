//! The five tools' entry points: each tool's flags (a clap `Parser`) and the one function
//! its `main` in `bin/` calls, which does the tool's work through the library and returns
//! the exit code, or a typed [`Error`] that knows its own ([`Error::exit_code`]). A
//! binary is then only: parse the flags, call the entry point, print the error once
//! ([`crate::cli::finish`]), exit.
//!
//! | tool | entry point |
//! |---|---|
//! | `cpcc` | [`cpcc::main`] |
//! | `cpss` | [`cpss::main`] (it reads the configuration files into the flags first) |
//! | `cptrace` | [`cptrace::main`] |
//! | `cpperf` | [`cpperf::main`] |
//! | `cpmap` | [`cpmap::main`] |
//!
//! This is the top layer: it may use every module, and no module uses it.
pub mod cpcc;
pub mod cpmap;
pub mod cpperf;
pub mod cpss;
pub mod cptrace;

use crate::cli::exit;

/// Why a tool failed: the library's typed errors, a flag or input the tool refuses
/// ([`Error::Usage`]), and what the tool was doing when it failed ([`Error::Context`]).
/// Each variant says the exit code it ends with.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A bad flag, flag combination or input, said in a sentence.
    #[error("{0}")]
    Usage(String),
    /// What was being done (a file name, a flag), and why it failed.
    #[error("{context}")]
    Context {
        /// What was being done.
        context: String,
        /// Why it failed.
        #[source]
        source: Box<Error>,
    },
    /// The command line itself (clap's message; the binary prints it as clap does).
    #[error("{0}")]
    Clap(#[from] clap::Error),
    /// Reading or writing a file or stream.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// The simulation failed or stopped at a limit.
    #[error("{0}")]
    Sim(#[from] crate::sim::SimError),
    /// A run of `--runs` or `--sweep` could not start.
    #[error("{0}")]
    Run(#[from] crate::sim::run::RunError),
    /// The analysis failed.
    #[error("{0}")]
    Perf(#[from] crate::perf::PerfError),
    /// A trace could not be written.
    #[error("{0}")]
    Trace(#[from] crate::trace::format::WriteError),
    /// Any other of the library's errors (a record, a machine file, a mapping, a
    /// topology, a parameter…): bad input, exit 2.
    #[error("{0}")]
    Input(#[source] Box<dyn std::error::Error + Send + Sync + 'static>),
}

impl Error {
    /// The documented exit code ([`crate::cli::exit`]): a simulation's own, 3 for a
    /// limit (an analysis too large, a limit hit before a run starts), 2 for the rest.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Context { source, .. } => source.exit_code(),
            Error::Sim(s) | Error::Run(crate::sim::run::RunError::Start(s)) => s.exit_code(),
            Error::Perf(crate::perf::PerfError::TooLarge { .. }) => exit::LIMIT,
            Error::Clap(e) => e.exit_code(),
            _ => exit::USAGE,
        }
    }

    /// The clap error at the root of this one, which the binary prints and exits with
    /// as clap does (`--help` and `--version` are clap "errors" too).
    pub fn clap(&self) -> Option<&clap::Error> {
        match self {
            Error::Clap(e) => Some(e),
            Error::Context { source, .. } => source.clap(),
            _ => None,
        }
    }
}

/// The library's errors that carry no exit code of their own: each is bad input.
macro_rules! input_errors {
    ($($t:ty),* $(,)?) => {
        $(impl From<$t> for Error {
            fn from(e: $t) -> Error {
                Error::Input(Box::new(e))
            }
        })*
    };
}
input_errors!(
    crate::trace::RecordError,
    crate::trace::convert::ConvertError,
    crate::trace::filter::FilterError,
    crate::sim::setup::SetupError,
    crate::machine::MachineError,
    crate::topo::TopoError,
    crate::mapper::MapperError,
    crate::cli::config::ConfigError,
    crate::perf::compare::CompareError,
    crate::perf::sweep::SweepError,
    crate::net::NetError,
    crate::topo::mapping::MapError,
    crate::trace::format::import::ImportError,
    crate::vcode::cod::CodError,
    crate::sim::calibrate::CalibrateError,
    csv::Error,
);

/// A tool's result.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// [`Error::Usage`] from a format string.
macro_rules! usage {
    ($($t:tt)*) => {
        $crate::tools::Error::Usage(format!($($t)*))
    };
}
pub(crate) use usage;

/// Returns [`Error::Usage`] from a format string.
macro_rules! bail {
    ($($t:tt)*) => {
        return Err($crate::tools::usage!($($t)*))
    };
}
pub(crate) use bail;

/// Says what was being done when a result failed, as [`Error::Context`]; on an
/// `Option`, `None` becomes [`Error::Usage`] with that sentence.
pub trait Context<T> {
    /// With a fixed context.
    fn context(self, context: impl Into<String>) -> Result<T>;
    /// With a context made only when it fails.
    fn with_context<S: Into<String>>(self, f: impl FnOnce() -> S) -> Result<T>;
}

impl<T, E: Into<Error>> Context<T> for std::result::Result<T, E> {
    fn context(self, context: impl Into<String>) -> Result<T> {
        self.map_err(|e| Error::Context { context: context.into(), source: Box::new(e.into()) })
    }
    fn with_context<S: Into<String>>(self, f: impl FnOnce() -> S) -> Result<T> {
        self.map_err(|e| Error::Context { context: f().into(), source: Box::new(e.into()) })
    }
}

impl<T> Context<T> for Option<T> {
    fn context(self, context: impl Into<String>) -> Result<T> {
        self.ok_or_else(|| Error::Usage(context.into()))
    }
    fn with_context<S: Into<String>>(self, f: impl FnOnce() -> S) -> Result<T> {
        self.ok_or_else(|| Error::Usage(f().into()))
    }
}

/// The one `main` of every tool: runs `entry` (the tool's entry point with its parsed
/// flags), prints clap's own messages as clap does and any other error once, and returns
/// the exit code.
pub fn finish(tool: &str, result: Result<i32>) -> i32 {
    if let Err(e) = &result {
        if let Some(c) = e.clap() {
            c.exit();
        }
    }
    crate::cli::finish(tool, result, Error::exit_code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_keeps_its_exit_code_under_context() {
        // A limit hit by the simulation exits 3 however many contexts wrap it; a usage
        // error exits 2.
        let limit: Result<()> = Err(Error::Perf(crate::perf::PerfError::TooLarge { limit: 1, events: 2 }));
        let wrapped = limit.context("run.cpt").context("again");
        assert_eq!(wrapped.unwrap_err().exit_code(), exit::LIMIT);
        let bad: Result<()> = Err(usage!("--from must be before --to"));
        assert_eq!(bad.context("x").unwrap_err().exit_code(), exit::USAGE);
    }

    #[test]
    fn an_error_reads_as_what_then_why_once() {
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "No such file or directory");
        let e = Err::<(), _>(io).context("in.cod").unwrap_err();
        assert_eq!(crate::cli::error_text(&e), "in.cod: No such file or directory");
    }
}
