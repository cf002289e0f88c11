//! The trace formats, one folder each: a format's writer (a [`TraceWriter`] that
//! [`convert`](crate::trace::convert) streams a run record through), its reader when
//! `cpperf` reads it back (`read.rs`), and the assembly of its files when it has more than
//! one. [`Format`] is the registry: every format with what it can do ([`Info`]), how to
//! make its writer, how to tell it from its first line and how to read it. `cptrace` and
//! `cpperf` dispatch through it and name no format's module.
//!
//! | folder | formats | reader |
//! |---|---|---|
//! | [`picl`] | `picl` (PICL 2.0, ParaGraph), `picl1` (the old compact format) | both |
//! | [`sddf`] | `sddf` (ASCII Pablo SDDF) | yes |
//! | [`chrome`] | `chrome` (Chrome Trace Event JSON, Perfetto) | no |
//! | [`paraver`] | `paraver` (`.prv`, `.pcf`, `.row`) | no |
//! | [`otf2`] | `otf2` (an OTF2 archive: anchor, definitions, one file per process) | no |
//!
//! [`import`] holds what the readers share: the [`import::Imported`] trace and
//! the statistics made up when a trace holds none.
//!
//! Invariant: a format lives only in its folder and its row of [`Format::info`]; the
//! conversion driver, the filter and the processor states it uses are the trace layer's
//! and know no format.
pub mod chrome;
pub mod import;
pub mod otf2;
pub mod paraver;
pub mod picl;
pub mod sddf;

use crate::trace::convert::{convert_with, ConvertError, Report, TraceWriter};
use crate::trace::filter::Selection;
use import::{ImportError, Imported};
use std::io::{BufRead, BufWriter, Read, Write};
use std::path::Path;

/// The output formats of `cptrace` (the value of `--format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// PICL 2.0 new format (ParaGraph).
    Picl,
    /// Old compact PICL format.
    Picl1,
    /// ASCII Pablo SDDF.
    Sddf,
    /// Chrome Trace Event JSON (Perfetto).
    Chrome,
    /// Paraver .prv/.pcf/.row (needs -o).
    Paraver,
    /// OTF2 archive: NAME.otf2, NAME.def and NAME/ (needs -o NAME.otf2).
    Otf2,
}

/// Where a format's output goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output {
    /// One stream: a file or standard output.
    Stream,
    /// A main file named by `-o` and companions beside it, with these extensions.
    Files(&'static [&'static str]),
    /// A directory of files beside an anchor `NAME.otf2` named by `-o`.
    Archive,
}

/// What a format can do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Info {
    /// The name `--format` takes.
    pub name: &'static str,
    /// `cpperf` reads it back.
    pub readable: bool,
    /// It shows why a process waits (message, remote read, lock, children, processor),
    /// not only busy and idle.
    pub states: bool,
    /// It carries the per-hop routes of a record made with `cpss --trace-routes`.
    pub routes: bool,
    /// It can end with the run's final statistics (`cptrace --stats`).
    pub stats: bool,
    /// Where its output goes.
    pub output: Output,
}

impl Format {
    /// Every format, in `--format`'s order.
    pub const ALL: [Format; 6] =
        [Format::Picl, Format::Picl1, Format::Sddf, Format::Chrome, Format::Paraver, Format::Otf2];

    /// What the format can do.
    pub fn info(self) -> Info {
        let stream = |name, readable, states, routes, stats| Info {
            name,
            readable,
            states,
            routes,
            stats,
            output: Output::Stream,
        };
        match self {
            Format::Picl => stream("picl", true, false, false, true),
            Format::Picl1 => stream("picl1", true, false, false, false),
            Format::Sddf => stream("sddf", true, true, true, true),
            Format::Chrome => stream("chrome", false, true, false, false),
            Format::Paraver => Info {
                name: "paraver",
                readable: false,
                states: true,
                routes: false,
                stats: false,
                output: Output::Files(&["pcf", "row"]),
            },
            Format::Otf2 => Info {
                name: "otf2",
                readable: false,
                states: true,
                routes: false,
                stats: false,
                output: Output::Archive,
            },
        }
    }

    /// The format's writer into one stream (its companion files in the conversion's
    /// [`Report::extra`]); `None` for an archive, whose writer writes its own files
    /// ([`otf2::Otf2Writer`]).
    pub fn writer(self) -> Option<Box<dyn TraceWriter>> {
        Some(match self {
            Format::Picl => Box::new(picl::PiclWriter::new(false)),
            Format::Picl1 => Box::new(picl::PiclWriter::new(true)),
            Format::Sddf => Box::new(sddf::SddfWriter::new()),
            Format::Chrome => Box::new(chrome::ChromeWriter::new()),
            Format::Paraver => Box::new(paraver::ParaverWriter::new()),
            Format::Otf2 => return None,
        })
    }

    /// The readable format whose trace starts with the line `first` (its first non-blank
    /// line, trimmed), if one does.
    pub fn detect(first: &str) -> Option<Format> {
        if first == sddf::read::FIRST_LINE {
            Some(Format::Sddf)
        } else if picl::read::looks_like_picl(first) {
            Some(Format::Picl)
        } else if picl::read_old::looks_like_picl1(first) {
            Some(Format::Picl1)
        } else {
            None
        }
    }

    /// Reads a trace of this format whole; `None` for a format `cpperf` does not read.
    pub fn read(self, input: &mut dyn BufRead) -> Option<Result<Imported, ImportError>> {
        match self {
            Format::Picl => Some(picl::read::read(input)),
            Format::Picl1 => Some(picl::read_old::read(input)),
            Format::Sddf => Some(sddf::read::read(input)),
            Format::Chrome | Format::Paraver | Format::Otf2 => None,
        }
    }

    /// The final statistics records appended to a trace of this format (empty for a
    /// format without them).
    pub fn stats_trailer(self, report: &Report) -> String {
        match self {
            Format::Picl => picl::stats_record(&report.stats, report.ticks_per_unit),
            Format::Sddf => sddf::stats_records(&report.stats, report.ticks_per_unit),
            _ => String::new(),
        }
    }
}

/// Converts the run record read from `input` to `format`, writing to `out` (a format
/// whose output is one stream, with its companion files in the report).
pub fn convert<R: Read>(
    input: R,
    format: Format,
    selection: Selection,
    out: &mut dyn Write,
) -> Result<Report, ConvertError> {
    let Some(mut writer) = format.writer() else {
        return Err(ConvertError::NotAStream(format.info().name));
    };
    convert_with(input, writer.as_mut(), selection, out)
}

/// Why `cptrace` could not write a trace.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// A flag combination the format does not take.
    #[error("{0}")]
    Usage(String),
    /// The run record could not be read (`name` says which).
    #[error("{name}")]
    Input {
        /// The record's name as given.
        name: String,
        /// Why.
        #[source]
        source: ConvertError,
    },
    /// An output file could not be written.
    #[error("{}", path.display())]
    Output {
        /// The file.
        path: std::path::PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// Standard output could not be written.
    #[error("writing standard output")]
    Stdout(#[source] std::io::Error),
}

/// What `cptrace` writes: the format, where (`None`: standard output), and whether the
/// final statistics follow the events.
#[derive(Debug, Clone)]
pub struct Request<'a> {
    /// The format.
    pub format: Format,
    /// `-o`: the file (the main file of several, the archive's anchor).
    pub output: Option<&'a Path>,
    /// `--stats` (or a whole run without `--no-stats`).
    pub stats: bool,
}

/// Converts the run record `input` (named `name` in errors) to `req.format` with the
/// selection `sel`, writing its file, files or standard output; nothing is left in place
/// of an output unless all of it is written. Returns the conversion's report.
pub fn write(input: Box<dyn Read>, name: &str, sel: Selection, req: &Request<'_>) -> Result<Report, WriteError> {
    let info = req.format.info();
    if req.stats && !info.stats {
        return Err(WriteError::Usage("--stats needs --format picl or sddf".into()));
    }
    let input_error = |source| WriteError::Input { name: name.to_string(), source };
    match (info.output, req.output) {
        (Output::Archive, Some(anchor)) => otf2::write_archive(input, sel, anchor, name),
        (Output::Archive, None) => Err(WriteError::Usage(
            "--format otf2 writes an archive of several files: name its anchor with -o NAME.otf2".into(),
        )),
        (Output::Files(_), Some(main)) => paraver::write_files(input, sel, main, name),
        (Output::Files(_), None) => {
            Err(WriteError::Usage(format!("--format {} writes three files: name the .prv with -o", info.name)))
        }
        (Output::Stream, Some(path)) => {
            let out_error = |source| WriteError::Output { path: path.to_path_buf(), source };
            let mut file = crate::cli::AtomicFile::create(path).map_err(out_error)?;
            let report = convert(input, req.format, sel, &mut file).map_err(|e| match e {
                ConvertError::Io(io) => WriteError::Output { path: path.to_path_buf(), source: io },
                e => input_error(e),
            })?;
            let trailer = if req.stats { req.format.stats_trailer(&report) } else { String::new() };
            file.write_all(trailer.as_bytes()).map_err(out_error)?;
            file.commit().map_err(out_error)?;
            Ok(report)
        }
        (Output::Stream, None) => {
            crate::cli::require_stdout().map_err(WriteError::Stdout)?;
            let mut out = BufWriter::new(std::io::stdout().lock());
            let report = convert(input, req.format, sel, &mut out).map_err(|e| match e {
                ConvertError::Io(io) => WriteError::Stdout(io),
                e => input_error(e),
            })?;
            let trailer = if req.stats { req.format.stats_trailer(&report) } else { String::new() };
            out.write_all(trailer.as_bytes()).and_then(|()| out.flush()).map_err(WriteError::Stdout)?;
            Ok(report)
        }
    }
}

/// The error of writing `path`.
fn output_error(path: &Path) -> impl Fn(std::io::Error) -> WriteError + '_ {
    move |source| WriteError::Output { path: path.to_path_buf(), source }
}

/// The folder an output file's companions and scratch files go in: its own, or `.`.
fn folder_of(path: &Path) -> std::path::PathBuf {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_format_is_listed_once_under_its_clap_name() {
        use clap::ValueEnum;
        for f in Format::ALL {
            let name = f.to_possible_value().unwrap().get_name().to_string();
            assert_eq!(f.info().name, name, "{f:?}");
        }
        assert_eq!(Format::value_variants().len(), Format::ALL.len());
    }

    #[test]
    fn the_readable_formats_are_those_with_a_reader() {
        for f in Format::ALL {
            assert_eq!(f.read(&mut &b""[..]).is_some(), f.info().readable, "{f:?}");
        }
    }

    #[test]
    fn first_lines_tell_the_readable_formats_apart() {
        // The first line each writer writes: SDDF's magic, a PICL 2.0 record (negative
        // record type), an old-format trace-start record (type 1, event level 4).
        assert_eq!(Format::detect("SDDFA"), Some(Format::Sddf));
        assert_eq!(Format::detect("-3 -901 0.000000000 0 0 0"), Some(Format::Picl));
        assert_eq!(Format::detect("1 0 0 0 4 1 0"), Some(Format::Picl1));
        assert_eq!(Format::detect("seq_time,par_time"), None);
    }
}
