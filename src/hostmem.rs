//! The tools' global allocator: the system's, except that a refused allocation ends the
//! process with the tool's limit exit code (3, `cli::exit::LIMIT`) and one line naming
//! the host's memory limit, its temporaries removed (by the tool's cleanup function),
//! instead of Rust's abort (exit 134, a backtrace).
//!
//! A request the library can do without (the simulator's memory pool growing for a
//! `malloc`) asks inside [`fallible`]: there a refusal is returned as usual (`try_reserve`
//! gives its error) and the caller stops cleanly with its own limit error and the
//! statistics so far. Each binary installs the allocator:
//!
//! ```ignore
//! #[global_allocator]
//! static ALLOC: cppe::hostmem::HostAlloc =
//!     cppe::hostmem::HostAlloc::new("cpss", cppe::cli::exit::LIMIT, cppe::cli::interrupt::remove_temporaries);
//! ```
//!
//! Without the allocator installed (the library's tests), [`fallible`] changes nothing.
//! A leaf: depends on nothing in the crate.
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

thread_local! {
    /// Inside [`fallible`]: a refusal is returned, not fatal.
    static FALLIBLE: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f` with refused allocations returned to it (as `try_reserve`'s error) rather
/// than ending the process.
pub fn fallible<T>(f: impl FnOnce() -> T) -> T {
    let before = FALLIBLE.with(|c| c.replace(true));
    let r = f();
    FALLIBLE.with(|c| c.set(before));
    r
}

/// Tunes the C library's allocator for a program that holds and frees hundreds of
/// thousands of small blocks (the simulator's processes, frames and messages): with
/// glibc, no "fast bins" (`mallopt(M_MXFAST, 0)`), whose every block glibc walks again
/// each time a large block is freed or a large vector grows; small blocks still go
/// through its per-thread cache. 262 144 sleeping processes run in 0.94x the time
/// (65 536 in 0.96x), a small program's time and any run's peak memory are unchanged.
/// Elsewhere it does nothing.
pub fn tune_for_many_blocks() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets a parameter of the allocator; called before any thread
    // starts, and a refusal (return 0) leaves the defaults.
    unsafe {
        libc::mallopt(libc::M_MXFAST, 0);
    }
}

/// The system allocator with a clean end when the host refuses memory (module docs).
pub struct HostAlloc {
    tool: &'static str,
    code: i32,
    cleanup: fn(),
}

impl HostAlloc {
    /// The allocator of the tool `tool` (the name its error line starts with), which
    /// exits with `code` after calling `cleanup` (it must not allocate).
    pub const fn new(tool: &'static str, code: i32, cleanup: fn()) -> HostAlloc {
        HostAlloc { tool, code, cleanup }
    }

    #[cold]
    fn refused(&self, size: usize) {
        // A thread being torn down has no flag left: treat it as fatal.
        if FALLIBLE.try_with(Cell::get).unwrap_or(false) {
            return;
        }
        out_of_memory(self, size);
    }
}

// SAFETY: every call is passed to `System` unchanged; only a null result is looked at.
unsafe impl GlobalAlloc for HostAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract is `System.alloc`'s.
        let p = unsafe { System.alloc(layout) };
        if p.is_null() {
            self.refused(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as `alloc`.
        let p = unsafe { System.alloc_zeroed(layout) };
        if p.is_null() {
            self.refused(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as `alloc`.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as `alloc`.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if p.is_null() {
            self.refused(new_size);
        }
        p
    }
}

/// Appends the decimal digits of `v` to `buf` at `*at`.
fn put_number(buf: &mut [u8], at: &mut usize, mut v: usize) {
    let mut digits = [0u8; 20];
    let mut n = 0;
    loop {
        digits[n] = b'0' + (v % 10) as u8;
        n += 1;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    for &d in digits[..n].iter().rev() {
        if *at < buf.len() {
            buf[*at] = d;
            *at += 1;
        }
    }
}

fn put(buf: &mut [u8], at: &mut usize, s: &[u8]) {
    let n = s.len().min(buf.len() - *at);
    buf[*at..*at + n].copy_from_slice(&s[..n]);
    *at += n;
}

/// The line a refused allocation of `size` bytes prints, built without allocating.
fn message(tool: &str, size: usize, buf: &mut [u8; 512]) -> usize {
    let mut at = 0;
    put(buf, &mut at, tool.as_bytes());
    put(buf, &mut at, b": error: the host refused ");
    put_number(buf, &mut at, size);
    put(
        buf,
        &mut at,
        b" bytes of memory (a limit such as `ulimit -v`, or the machine's memory is used up): \
          ask for less (a smaller topology, --max-memory, --max-procs, a shorter input) or raise the limit\n",
    );
    at
}

/// Ends the process: cleans up, prints the line and exits with the tool's code.
/// Allocates nothing (the allocator has just refused).
fn out_of_memory(a: &HostAlloc, size: usize) -> ! {
    let mut buf = [0u8; 512];
    let n = message(a.tool, size, &mut buf);
    (a.cleanup)();
    #[cfg(unix)]
    // SAFETY: writes `n` initialised bytes of `buf` to standard error, then ends the
    // process without running destructors or allocating.
    unsafe {
        libc::write(2, buf.as_ptr().cast(), n);
        libc::_exit(a.code);
    }
    #[cfg(not(unix))]
    {
        use std::io::Write;
        let _ = std::io::stderr().write_all(&buf[..n]);
        std::process::exit(a.code);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_message_names_the_tool_the_size_and_the_limit() {
        let mut buf = [0u8; 512];
        let n = message("cpss", 4_096_008_192, &mut buf);
        let text = std::str::from_utf8(&buf[..n]).unwrap();
        assert!(
            text.starts_with("cpss: error: the host refused 4096008192 bytes of memory (a limit such as `ulimit -v`")
        );
        assert!(text.ends_with("or raise the limit\n"), "{text}");
        let n = message("cpss", 0, &mut buf);
        assert!(std::str::from_utf8(&buf[..n]).unwrap().contains("refused 0 bytes"));
    }

    #[test]
    fn fallible_restores_the_flag() {
        assert!(!FALLIBLE.with(Cell::get));
        let inner = fallible(|| fallible(|| FALLIBLE.with(Cell::get)) && FALLIBLE.with(Cell::get));
        assert!(inner);
        assert!(!FALLIBLE.with(Cell::get));
    }
}
