//! Plumbing shared by the five tools: where input comes from and output goes (`-` means
//! standard input/output; binary data is never written to a terminal), atomic file writes
//! (a failed or interrupted run never leaves a truncated file that looks complete), the
//! documented exit codes, and quiet handling of broken pipes.
//!
//! Interrupts: while a temporary output file exists, every catchable ending signal removes it
//! before the process ends by the signal (see [`interrupt`]), so `^C` during a long run
//! leaves neither the output nor its temporary behind.
//!
//! Invariant: this module knows nothing of the domain; the binaries call it.
pub mod config;

use std::fs;
use std::io::{self, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};

/// Exit codes of every tool (SPEC §1).
pub mod exit {
    /// Success.
    pub const OK: i32 = 0;
    /// The user program failed at run time (runtime error, deadlock), or `compare` found
    /// a regression.
    pub const RUNTIME: i32 = 1;
    /// Bad usage or bad input (syntax error, corrupt file, bad flag).
    pub const USAGE: i32 = 2;
    /// A limit was hit (`--max-time`, `--max-steps`, memory).
    pub const LIMIT: i32 = 3;
    /// Interrupted by `^C`: 128 + SIGINT, as a shell reports (`cpss` first prints the
    /// statistics so far).
    pub const INTERRUPTED: i32 = 130;
    /// Standard output was closed early (e.g. `| head`): 128 + SIGPIPE, as a shell reports.
    pub const BROKEN_PIPE: i32 = 141;
}

/// An input read whole: its display name (`<stdin>` for standard input) and bytes.
pub struct Input {
    pub name: String,
    pub path: Option<PathBuf>,
    pub bytes: Vec<u8>,
}

/// Reads a file, or standard input for `None` or `-`. Errors name the file.
pub fn read_input(path: Option<&Path>) -> io::Result<Input> {
    read_input_within(path, MAX_INPUT, None)
}

/// The most bytes [`read_input`] holds: 1 GiB (readers of text that is read whole, such
/// as sources and option files, pass their own smaller limits).
pub const MAX_INPUT: u64 = 1 << 30;

/// The most bytes of a text read whole: a source file, a map, cost, machine or option
/// file: 64 MiB.
pub const MAX_TEXT: u64 = 64 << 20;

/// [`read_input`] that holds at most `limit` bytes (more is an error naming the file and
/// the limit) and, given `magic`, checks that the input starts with those bytes before
/// reading on (the error then says what the input should have been).
pub fn read_input_within(path: Option<&Path>, limit: u64, magic: Option<(&[u8], &str)>) -> io::Result<Input> {
    let (name, pathbuf, mut reader): (String, Option<PathBuf>, Box<dyn Read>) = match path {
        None => ("<stdin>".into(), None, Box::new(io::stdin().lock())),
        Some(p) if p.as_os_str() == "-" => ("<stdin>".into(), None, Box::new(io::stdin().lock())),
        Some(p) => (p.display().to_string(), Some(p.to_path_buf()), Box::new(open_input(p)?)),
    };
    let named = |e: io::Error| io::Error::new(e.kind(), format!("{name}: {e}"));
    let mut bytes = Vec::new();
    if let Some((m, what)) = magic {
        (&mut reader).take(m.len() as u64).read_to_end(&mut bytes).map_err(named)?;
        // A shorter input is left to the format's reader, which says it is truncated.
        if bytes.len() == m.len() && bytes != m {
            return Err(io::Error::new(io::ErrorKind::InvalidData, format!("{name}: not {what}")));
        }
    }
    reader.take(limit.saturating_sub(bytes.len() as u64) + 1).read_to_end(&mut bytes).map_err(named)?;
    if bytes.len() as u64 > limit {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{name}: larger than the {} MiB this input may hold", limit >> 20),
        ));
    }
    Ok(Input { name, path: pathbuf, bytes })
}

/// Whether standard output is a terminal (binary output must then go to a file).
pub fn stdout_is_terminal() -> bool {
    io::stdout().is_terminal()
}

/// Whether standard error is a terminal (progress bars only then).
pub fn stderr_is_terminal() -> bool {
    io::stderr().is_terminal()
}

/// Writes `bytes` to `path` as [`AtomicFile`] does: atomically for a regular file (a
/// temporary in the same folder, synced, then renamed over the target; on any error the
/// temporary is removed and the target untouched), in place for a device, FIFO or socket.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut f = AtomicFile::create(path)?;
    f.write_all(bytes).map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
    f.commit()
}

/// Opens a named input for reading: noted as an input of the run ([`note_input`]); a
/// directory is an error (reading one would look like an empty file).
pub fn open_input(path: &Path) -> io::Result<fs::File> {
    note_input(path);
    let named = |e: io::Error| io::Error::new(e.kind(), format!("{}: {e}", path.display()));
    let f = fs::File::open(path).map_err(named)?;
    if f.metadata().map_err(named)?.is_dir() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, format!("{}: is a directory", path.display())));
    }
    Ok(f)
}

/// The identities (device, inode) of the files this run reads: an output may not replace
/// one ([`note_input`]).
static INPUTS: std::sync::Mutex<Vec<(u64, u64)>> = std::sync::Mutex::new(Vec::new());

/// Notes that this run reads `path`, so that no output of the run may be written over it
/// (`cpcc a.c -o a.c` would replace the source). Every reader of a named file calls it;
/// [`read_input`] does.
pub fn note_input(path: &Path) {
    #[cfg(unix)]
    if let Ok(m) = fs::metadata(path) {
        use std::os::unix::fs::MetadataExt;
        if m.is_file() {
            if let Ok(mut v) = INPUTS.lock() {
                v.push((m.dev(), m.ino()));
            }
        }
    }
}

/// Where an output named `target` really goes: a regular file (or a new one) is written
/// through a temporary and renamed, at the end of any chain of symbolic links (the link
/// stays a link); a device, FIFO or socket is written in place. A directory, or a file
/// this run reads ([`note_input`]), is refused.
enum Destination {
    Replace(PathBuf),
    InPlace(PathBuf),
}

fn destination(target: &Path) -> io::Result<Destination> {
    let err = |kind: io::ErrorKind, what: &str| io::Error::new(kind, format!("{}: {what}", target.display()));
    // Follow symbolic links to the file they name (a dangling link names a new file); a
    // chain of more than 40 is a loop, refused as the system refuses to open one.
    let mut path = target.to_path_buf();
    let mut links = 0;
    while fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink()) {
        if links == 40 {
            return Err(err(io::ErrorKind::InvalidInput, "too many levels of symbolic links"));
        }
        links += 1;
        let link = fs::read_link(&path)?;
        path = match path.parent() {
            Some(dir) if link.is_relative() => dir.join(link),
            _ => link,
        };
    }
    match fs::metadata(&path) {
        Ok(m) if m.is_dir() => Err(err(io::ErrorKind::InvalidInput, "is a directory")),
        Ok(m) if !m.is_file() => Ok(Destination::InPlace(path)),
        Ok(m) => {
            #[cfg(unix)]
            {
                use std::os::unix::fs::MetadataExt;
                if INPUTS.lock().is_ok_and(|v| v.contains(&(m.dev(), m.ino()))) {
                    return Err(err(
                        io::ErrorKind::InvalidInput,
                        "is also an input of this run: refusing to write over it (give another output)",
                    ));
                }
            }
            let _ = m;
            Ok(Destination::Replace(path))
        }
        Err(_) => Ok(Destination::Replace(path)),
    }
}

/// Whether standard output is open. A tool started with it closed (`>&-`) would have
/// its output discarded without an error (the runtime puts /dev/null in its place), so
/// the tools check before writing to it.
pub fn stdout_is_open() -> bool {
    // The Rust runtime reopens a closed standard descriptor on /dev/null, read-write,
    // before `main`; a shell's `>/dev/null` opens it write-only.
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::fs::MetadataExt;
        let flags = fs::read_to_string("/proc/self/fdinfo/1").ok().and_then(|info| {
            info.lines().find_map(|l| l.strip_prefix("flags:")).and_then(|v| u32::from_str_radix(v.trim(), 8).ok())
        });
        let read_write = flags.is_some_and(|f| f & 3 == 2);
        let null = |p: &str| fs::metadata(p).ok().filter(|m| !m.is_file()).map(|m| m.rdev());
        if read_write && null("/proc/self/fd/1").is_some() && null("/proc/self/fd/1") == null("/dev/null") {
            return false;
        }
    }
    #[cfg(unix)]
    {
        // SAFETY: F_GETFD only reads the descriptor's flags; an invalid descriptor gives -1.
        unsafe { libc::fcntl(1, libc::F_GETFD) != -1 }
    }
    #[cfg(not(unix))]
    {
        true
    }
}

/// An error unless standard output is open ([`stdout_is_open`]) and is not a file this
/// run reads ([`stdout_is_an_input`]).
pub fn require_stdout() -> io::Result<()> {
    if !stdout_is_open() {
        return Err(io::Error::other(
            "standard output is closed: nothing could be written (redirect it or give -o FILE)",
        ));
    }
    stdout_is_an_input()
}

/// An error when standard output is a regular file this run reads ([`note_input`]):
/// `cptrace rr.cpt --format picl >> rr.cpt` would append to the record it reads. As
/// `cat` does, the device and inode of descriptor 1 are compared with every input's.
pub fn stdout_is_an_input() -> io::Result<()> {
    #[cfg(unix)]
    {
        // SAFETY: fstat writes into the zeroed struct it is given; an invalid descriptor
        // gives -1 and leaves it alone.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        if unsafe { libc::fstat(1, &mut st) } == 0 && (st.st_mode & libc::S_IFMT) == libc::S_IFREG {
            let id = (st.st_dev as u64, st.st_ino as u64);
            if INPUTS.lock().is_ok_and(|v| v.contains(&id)) {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "standard output is a file this run reads (input file is output file): refusing to write to it",
                ));
            }
        }
    }
    Ok(())
}

/// Writes to standard output and flushes. Errors, a broken pipe among them, go back to
/// the caller, which ends through [`finish`]; a closed standard output is an error.
pub fn write_stdout(bytes: &[u8]) -> io::Result<()> {
    require_stdout()?;
    let mut out = io::stdout().lock();
    out.write_all(bytes).and_then(|_| out.flush())
}

/// Text written with `write!` onto a byte stream: the first error of the stream is
/// kept ([`FmtIo::finish`] returns it), as `fmt::Write` has no room for it.
pub struct FmtIo<W: Write> {
    out: W,
    error: Option<io::Error>,
}

impl<W: Write> FmtIo<W> {
    pub fn new(out: W) -> FmtIo<W> {
        FmtIo { out, error: None }
    }

    /// The stream, or the first error writing to it.
    pub fn finish(self) -> io::Result<W> {
        match self.error {
            Some(e) => Err(e),
            None => Ok(self.out),
        }
    }
}

impl<W: Write> std::fmt::Write for FmtIo<W> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        if self.error.is_some() {
            return Err(std::fmt::Error);
        }
        self.out.write_all(s.as_bytes()).map_err(|e| {
            self.error = Some(e);
            std::fmt::Error
        })
    }
}

/// The one ending of every tool's `main`: the exit code of `Ok`, or for an error, quiet
/// [`exit::BROKEN_PIPE`] when standard output was closed early ([`is_broken_pipe`]),
/// else the error printed once ([`error_text`]) as `TOOL: error: …` and the code
/// `code_of` gives it (the tool's typed errors pick theirs; [`exit::USAGE`] by default).
pub fn finish<E: std::error::Error + 'static>(tool: &str, result: Result<i32, E>, code_of: impl Fn(&E) -> i32) -> i32 {
    match result {
        Ok(code) => code,
        Err(e) => {
            if is_broken_pipe(&e) {
                return exit::BROKEN_PIPE;
            }
            eprintln!("{tool}: error: {}", crate::textio::shorten_quotes(&error_text(&e)));
            code_of(&e)
        }
    }
}

/// Where an output goes: a file given with `-o`, or standard output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Sink {
    Stdout,
    File(PathBuf),
}

impl Sink {
    /// `-o -` and no `-o` mean standard output.
    pub fn from_arg(arg: Option<&Path>) -> Sink {
        match arg {
            Some(p) if p.as_os_str() != "-" => Sink::File(p.to_path_buf()),
            _ => Sink::Stdout,
        }
    }

    /// Writes the whole output (atomically for a file).
    pub fn write(&self, bytes: &[u8]) -> io::Result<()> {
        match self {
            Sink::Stdout => write_stdout(bytes),
            Sink::File(p) => write_atomic(p, bytes),
        }
    }
}

/// Splits a command line written as one string into words as a POSIX shell does, without
/// expansions: blanks separate words; `'...'` keeps everything literally; `"..."` keeps
/// everything but `\"`, `\\`, `\$` and `` \` ``; elsewhere `\` quotes the next
/// character. An unterminated quote or a trailing `\` is an error.
pub fn shell_words(text: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut started = false;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' | '\n' => {
                if started {
                    words.push(std::mem::take(&mut word));
                    started = false;
                }
            }
            '\'' => {
                started = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err(format!("`{text}`: a ' is not closed")),
                    }
                }
            }
            '"' => {
                started = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\' | '$' | '`')) => word.push(c),
                            Some(c) => {
                                word.push('\\');
                                word.push(c);
                            }
                            None => return Err(format!("`{text}`: a \" is not closed")),
                        },
                        Some(c) => word.push(c),
                        None => return Err(format!("`{text}`: a \" is not closed")),
                    }
                }
            }
            '\\' => match chars.next() {
                Some(c) => {
                    started = true;
                    word.push(c);
                }
                None => return Err(format!("`{text}`: it ends with \\")),
            },
            c => {
                started = true;
                word.push(c);
            }
        }
    }
    if started {
        words.push(word);
    }
    Ok(words)
}

/// Splits a colon-separated search path (the `CPPE` environment variable).
pub fn split_search_path(value: &str) -> Vec<PathBuf> {
    value.split(':').filter(|s| !s.is_empty()).map(PathBuf::from).collect()
}

/// A file written through a temporary beside it and renamed into place by
/// [`AtomicFile::commit`]; dropped without commit, or when the commit fails, the
/// temporary is removed and the target is untouched. For outputs too large to hold in
/// memory (run records). The temporary is `tempfile`'s (a fresh random name,
/// `.NAME.tmpXXXXXX`, created exclusively, so two runs writing the same output do not
/// share one), made with the permissions a new file gets (0666 less the umask), so the
/// output has them too.
pub struct AtomicFile {
    target: PathBuf,
    /// The temporary's path (removed when dropped); `None` for a file written in place.
    tmp: Option<tempfile::TempPath>,
    file: Option<io::BufWriter<fs::File>>,
    _guard: interrupt::Guard,
}

impl AtomicFile {
    /// Creates the temporary file for `target` (see [`write_atomic`] for where it goes);
    /// a device, FIFO or socket is opened for writing in place instead.
    pub fn create(target: &Path) -> io::Result<AtomicFile> {
        let named = |e: io::Error| io::Error::new(e.kind(), format!("{}: {e}", target.display()));
        let path = match destination(target)? {
            Destination::InPlace(p) => {
                let file = fs::OpenOptions::new().write(true).open(&p).map_err(named)?;
                return Ok(AtomicFile {
                    target: p,
                    tmp: None,
                    file: Some(io::BufWriter::new(file)),
                    _guard: interrupt::Guard::none(),
                });
            }
            Destination::Replace(p) => p,
        };
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).ok_or_else(|| {
            io::Error::new(io::ErrorKind::InvalidInput, format!("{}: not a file name", target.display()))
        })?;
        let prefix = format!(".{name}.tmp");
        let mut builder = tempfile::Builder::new();
        builder.prefix(&prefix);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            builder.permissions(fs::Permissions::from_mode(0o666));
        }
        let (file, tmp) = builder.tempfile_in(&dir).map_err(named)?.into_parts();
        let guard = interrupt::remove_on_signal(&tmp);
        Ok(AtomicFile { target: path, tmp: Some(tmp), file: Some(io::BufWriter::new(file)), _guard: guard })
    }

    /// Flushes, syncs and renames the temporary over the target (a file written in place
    /// is only flushed). On an error the temporary is removed.
    pub fn commit(mut self) -> io::Result<()> {
        let result = (|| {
            let file = self.file.take().ok_or_else(|| io::Error::other("already committed"))?;
            let file = file.into_inner().map_err(|e| e.into_error())?;
            let Some(tmp) = self.tmp.take() else { return Ok(()) };
            file.sync_all()?;
            drop(file);
            tmp.persist(&self.target).map_err(|e| e.error)
        })();
        result.map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", self.target.display())))
    }
}

impl AtomicFile {
    /// Flushes and syncs what was written so far, keeping the temporary: a set of files
    /// ([`OutputSet`]) is all on disk before any is renamed into place.
    fn sync(&mut self) -> io::Result<()> {
        let named = |e: io::Error| io::Error::new(e.kind(), format!("{}: {e}", self.target.display()));
        match self.file.as_mut() {
            Some(f) if self.tmp.is_some() => f.flush().and_then(|()| f.get_ref().sync_all()).map_err(named),
            Some(f) => f.flush().map_err(named),
            None => Ok(()),
        }
    }
}

/// Folders created for an output, removed again (when empty) unless [`kept`](Self::keep):
/// an output that fails leaves no new folder behind.
#[derive(Default)]
pub struct NewFolders {
    created: Vec<PathBuf>,
}

impl NewFolders {
    /// Creates `dir` and its missing parents, remembering the ones it created.
    pub fn create(&mut self, dir: &Path) -> io::Result<()> {
        let mut missing = Vec::new();
        let mut cur = Some(dir);
        while let Some(d) = cur.filter(|d| !d.as_os_str().is_empty() && !d.exists()) {
            missing.push(d.to_path_buf());
            cur = d.parent();
        }
        for d in missing.into_iter().rev() {
            match fs::create_dir(&d) {
                Ok(()) => self.created.push(d),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists && d.is_dir() => {}
                Err(e) => return Err(io::Error::new(e.kind(), format!("{}: {e}", d.display()))),
            }
        }
        if !dir.as_os_str().is_empty() && !dir.is_dir() {
            return Err(io::Error::new(io::ErrorKind::AlreadyExists, format!("{}: not a folder", dir.display())));
        }
        Ok(())
    }

    /// Keeps the folders created.
    pub fn keep(mut self) {
        self.created.clear();
    }
}

impl Drop for NewFolders {
    fn drop(&mut self) {
        for d in self.created.iter().rev() {
            let _ = fs::remove_dir(d);
        }
    }
}

/// Several output files written as one (the charts of `cpperf --svg DIR`): each is
/// written to its temporary and synced as it is added, and only when every one is on
/// disk does [`commit`](Self::commit) rename them into place. Dropped uncommitted (a
/// full disk, an error, a signal), it removes every temporary and every folder it
/// created, so no output of the set replaces an older file: all of them or none.
#[derive(Default)]
pub struct OutputSet {
    files: Vec<AtomicFile>,
    folders: NewFolders,
}

impl OutputSet {
    /// An empty set.
    pub fn new() -> OutputSet {
        OutputSet::default()
    }

    /// Creates the folder `dir` (and its parents) for files of the set.
    pub fn create_dir(&mut self, dir: &Path) -> io::Result<()> {
        self.folders.create(dir)
    }

    /// Writes `bytes` as the file `path` of the set (to its temporary, synced).
    pub fn add(&mut self, path: &Path, bytes: &[u8]) -> io::Result<()> {
        let mut f = AtomicFile::create(path)?;
        f.write_all(bytes).map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
        f.sync()?;
        self.files.push(f);
        Ok(())
    }

    /// Adds a file already written through its own [`AtomicFile`] (a stream too large
    /// to hold), synced now.
    pub fn add_file(&mut self, mut f: AtomicFile) -> io::Result<()> {
        f.sync()?;
        self.files.push(f);
        Ok(())
    }

    /// Renames every file into place; returns their paths, in the order they were added.
    pub fn commit(mut self) -> io::Result<Vec<PathBuf>> {
        let mut written = Vec::with_capacity(self.files.len());
        for f in std::mem::take(&mut self.files) {
            written.push(f.target.clone());
            f.commit()?;
        }
        std::mem::take(&mut self.folders).keep();
        Ok(written)
    }
}

impl Drop for OutputSet {
    fn drop(&mut self) {
        // The temporaries go before the folders that hold them.
        self.files.clear();
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self.file.as_mut() {
            Some(f) => f.write(buf),
            None => Err(io::Error::other("file already committed")),
        }
    }
    fn flush(&mut self) -> io::Result<()> {
        match self.file.as_mut() {
            Some(f) => f.flush(),
            None => Ok(()),
        }
    }
}

/// A progress line on standard error for long work: shown only when standard error is
/// a terminal and the work has lasted longer than a second; it shows the host seconds
/// so far and the message `status` gives, asked ten times a second.
pub struct Progress {
    done: std::sync::Arc<std::sync::atomic::AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Progress {
    /// A progress line saying just `label`.
    pub fn spinner(label: &'static str) -> Progress {
        Progress::start(move || label.to_string())
    }

    /// Starts watching; `status` gives the message shown after the elapsed time.
    pub fn start(status: impl Fn() -> String + Send + 'static) -> Progress {
        use std::sync::atomic::Ordering;
        let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        if !stderr_is_terminal() {
            return Progress { done, thread: None };
        }
        let flag = std::sync::Arc::clone(&done);
        let thread = std::thread::spawn(move || {
            let start = std::time::Instant::now();
            while start.elapsed() < std::time::Duration::from_secs(1) {
                if flag.load(Ordering::Relaxed) {
                    return;
                }
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            let bar = indicatif::ProgressBar::new_spinner();
            bar.set_style(
                indicatif::ProgressStyle::with_template("{spinner} {msg}")
                    .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner()),
            );
            while !flag.load(Ordering::Relaxed) {
                bar.set_message(format!("{:.0} s · {}", start.elapsed().as_secs_f64(), status()));
                bar.tick();
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
            bar.finish_and_clear();
        });
        Progress { done, thread: Some(thread) }
    }

    /// Stops and clears the progress line (as dropping it does, on an early return too).
    pub fn finish(self) {}
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.done.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Removal of temporary output files when the process is interrupted.
///
/// A temporary is registered by [`remove_on_signal`](interrupt::remove_on_signal) for as
/// long as its [`Guard`](interrupt::Guard) lives.
/// The first registration installs a handler for every catchable signal that ends a
/// process (SIGHUP, SIGINT, SIGQUIT, SIGABRT, SIGUSR1, SIGUSR2, SIGALRM, SIGTERM,
/// SIGVTALRM, SIGPROF; SIGABRT is also how a release build ends on a panic; unless the
/// signal was ignored when the process started, as under `nohup`) that unlinks every
/// registered temporary, restores the default action and raises the signal again, so
/// the process ends as interrupted (a shell reports status 130 for `^C`). The handler
/// only reads pre-built C strings from atomic slots and calls `unlink`, `signal` and
/// `raise`, which are async-signal-safe.
pub mod interrupt {
    use std::path::Path;

    /// Keeps a temporary registered; dropping it unregisters (the file itself is left to
    /// its owner).
    pub struct Guard(Option<usize>);

    impl Guard {
        /// A guard that registers nothing (an output written in place has no temporary).
        pub fn none() -> Guard {
            Guard(None)
        }
    }

    impl Drop for Guard {
        fn drop(&mut self) {
            if let Some(slot) = self.0 {
                imp::unregister(slot);
            }
        }
    }

    /// Makes the first SIGINT (`^C`) set the returned flag instead of ending the process,
    /// for work that stops itself cleanly when asked (a simulation reports its
    /// statistics so far); a second SIGINT, or SIGTERM or SIGHUP, ends it as usual,
    /// removing the registered temporaries. Without signals (not Unix) the flag is never
    /// set.
    pub fn catch_sigint() -> &'static std::sync::atomic::AtomicBool {
        imp::catch_sigint();
        &imp::STOP
    }

    /// Registers `tmp` for removal on an ending signal until the guard drops.
    /// With more temporaries alive than there are slots (16), the extra ones are not
    /// registered (the tools hold at most a few).
    pub fn remove_on_signal(tmp: &Path) -> Guard {
        Guard(imp::register(tmp))
    }

    #[cfg(unix)]
    mod imp {
        use libc::{c_char, c_int, SIG_DFL, SIG_ERR, SIG_IGN};
        use libc::{SIGABRT, SIGALRM, SIGHUP, SIGINT, SIGPROF, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGVTALRM, SIGXFSZ};
        use std::ffi::CString;
        use std::os::unix::ffi::OsStrExt;
        use std::path::Path;
        use std::ptr::null_mut;
        use std::sync::atomic::{AtomicBool, AtomicPtr, Ordering};
        use std::sync::Once;

        /// The signals that end a process by default and can be caught (their numbers
        /// are the platform's, from `libc`).
        const ENDING: [c_int; 10] =
            [SIGHUP, SIGINT, SIGQUIT, SIGABRT, SIGUSR1, SIGUSR2, SIGALRM, SIGTERM, SIGVTALRM, SIGPROF];

        /// Past a file size limit (`ulimit -f`) a write fails with "File too large"
        /// instead of the process dying by SIGXFSZ with no message and its temporary left.
        pub fn ignore_file_size_signal() {
            // SAFETY: setting a signal's disposition to SIG_IGN.
            unsafe { libc::signal(SIGXFSZ, SIG_IGN) };
        }

        static SLOTS: [AtomicPtr<c_char>; 16] = [const { AtomicPtr::new(null_mut()) }; 16];
        /// Whether the first SIGINT only sets [`STOP`].
        static GRACEFUL: AtomicBool = AtomicBool::new(false);
        pub static STOP: AtomicBool = AtomicBool::new(false);

        pub fn catch_sigint() {
            install();
            GRACEFUL.store(true, Ordering::SeqCst);
        }

        extern "C" fn on_signal(sig: c_int) {
            if sig == SIGINT && GRACEFUL.load(Ordering::SeqCst) && !STOP.swap(true, Ordering::SeqCst) {
                return;
            }
            remove_temporaries();
            // SAFETY: plain libc calls with valid arguments; both are async-signal-safe.
            unsafe {
                libc::signal(sig, SIG_DFL);
                libc::raise(sig);
            }
        }

        /// Unlinks every registered temporary (async-signal-safe, allocates nothing).
        pub fn remove_temporaries() {
            for slot in &SLOTS {
                let p = slot.swap(null_mut(), Ordering::SeqCst);
                if !p.is_null() {
                    // SAFETY: `p` came from `CString::into_raw` in `register` and was taken
                    // out of its slot by this swap, so nothing frees it meanwhile (it is
                    // leaked: the process is ending).
                    unsafe { libc::unlink(p) };
                }
            }
        }

        fn install() {
            static ONCE: Once = Once::new();
            ONCE.call_once(|| {
                for sig in ENDING {
                    let handler = on_signal as extern "C" fn(c_int) as libc::sighandler_t;
                    // SAFETY: installs a handler that only does async-signal-safe work
                    // (see the module documentation).
                    let old = unsafe { libc::signal(sig, handler) };
                    if old == SIG_IGN || old == SIG_ERR {
                        // Ignored on entry (`nohup`, background jobs): keep it ignored.
                        // SAFETY: restores the disposition `signal` just returned.
                        unsafe { libc::signal(sig, old) };
                    }
                }
            });
        }

        pub fn register(tmp: &Path) -> Option<usize> {
            let c = CString::new(tmp.as_os_str().as_bytes()).ok()?;
            install();
            let p = c.into_raw();
            for (k, slot) in SLOTS.iter().enumerate() {
                if slot.compare_exchange(null_mut(), p, Ordering::SeqCst, Ordering::SeqCst).is_ok() {
                    return Some(k);
                }
            }
            // SAFETY: `p` came from `into_raw` above and was stored nowhere.
            drop(unsafe { CString::from_raw(p) });
            None
        }

        pub fn unregister(slot: usize) {
            let p = SLOTS.get(slot).map_or(null_mut(), |s| s.swap(null_mut(), Ordering::SeqCst));
            if !p.is_null() {
                // SAFETY: `p` came from `into_raw` in `register`; the swap took it out of
                // the slot, so the handler can no longer see it.
                drop(unsafe { CString::from_raw(p) });
            }
        }
    }

    /// Removes every registered temporary now, for a process about to end without its
    /// destructors (a refused allocation, `crate::hostmem`); allocates nothing.
    pub fn remove_temporaries() {
        imp::remove_temporaries();
    }

    /// Prepares a tool's process: a write past a file size limit fails with an error
    /// (which removes the temporary and names the file) instead of killing the process.
    pub fn prepare() {
        imp::ignore_file_size_signal();
    }

    #[cfg(not(unix))]
    mod imp {
        pub fn ignore_file_size_signal() {}
        pub static STOP: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
        pub fn catch_sigint() {}
        pub fn remove_temporaries() {}
        pub fn register(_tmp: &std::path::Path) -> Option<usize> {
            None
        }
        pub fn unregister(_slot: usize) {}
    }
}

/// An error and its causes on one line, `what: why: deeper`, each said once: a cause
/// whose text is already in what came before it (an error whose message includes its
/// source's) is not repeated. Every tool prints its errors through this.
pub fn error_text(e: &(dyn std::error::Error + 'static)) -> String {
    let mut out = e.to_string();
    let mut cur = e.source();
    while let Some(c) = cur {
        let t = c.to_string();
        if !t.is_empty() && !out.contains(&t) {
            out.push_str(": ");
            out.push_str(&t);
        }
        cur = c.source();
    }
    out
}

/// Writes the completion script of the tool `name` (flags as defined for `--help`) for
/// `shell` to standard output: the `--completions SHELL` of every tool.
pub fn print_completions(shell: clap_complete::Shell, cmd: &mut clap::Command, name: &str) -> io::Result<()> {
    let mut out = Vec::new();
    clap_complete::generate(shell, cmd, name, &mut out);
    let mut stdout = io::stdout().lock();
    stdout.write_all(&out)?;
    stdout.flush()
}

/// Whether `path` names standard input (`-`).
pub fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// Whether an error, or any error it wraps, is standard output closed early (`… | head`):
/// the tools then exit quietly with [`exit::BROKEN_PIPE`].
pub fn is_broken_pipe(e: &(dyn std::error::Error + 'static)) -> bool {
    let mut cur = Some(e);
    while let Some(err) = cur {
        if err.downcast_ref::<io::Error>().is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe) {
            return true;
        }
        cur = err.source();
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_words_split_as_a_shell_does() {
        // Each case as `sh -c 'printf "[%s]" ARGS'` prints it.
        let w = |t: &str| shell_words(t).unwrap();
        assert_eq!(w("  --topology mesh:4x4   --link-delay 2 "), ["--topology", "mesh:4x4", "--link-delay", "2"]);
        assert_eq!(w(r#"--mapping 'x + 1' --cost "ADD=2 MUL=3""#), ["--mapping", "x + 1", "--cost", "ADD=2 MUL=3"]);
        assert_eq!(w(r#"a\ b "c\"d" 'e\f' "g\h" ''"#), ["a b", "c\"d", "e\\f", "g\\h", ""]);
        assert_eq!(w(""), Vec::<String>::new());
        assert!(shell_words("'open").is_err());
        assert!(shell_words("\"open").is_err());
        assert!(shell_words("end\\").is_err());
    }

    #[test]
    fn atomic_write_replaces_whole_file() {
        let dir = std::env::temp_dir().join(format!("cppe-cli-test-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let p = dir.join("out.bin");
        write_atomic(&p, b"first").unwrap();
        write_atomic(&p, b"second").unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"second");
        // No temporary files are left behind.
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 1);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn atomic_write_into_missing_folder_fails_cleanly() {
        let p = Path::new("/nonexistent-cppe-dir/x.cod");
        let e = write_atomic(p, b"x").unwrap_err();
        assert!(e.to_string().contains("/nonexistent-cppe-dir/x.cod"), "{e}");
    }

    #[test]
    fn search_path_splits_on_colons_and_skips_empty() {
        assert_eq!(split_search_path("a::b/c:"), vec![PathBuf::from("a"), PathBuf::from("b/c")]);
    }

    #[test]
    fn sink_dash_is_stdout() {
        assert_eq!(Sink::from_arg(Some(Path::new("-"))), Sink::Stdout);
        assert_eq!(Sink::from_arg(None), Sink::Stdout);
        assert_eq!(Sink::from_arg(Some(Path::new("a.cod"))), Sink::File("a.cod".into()));
    }
}
