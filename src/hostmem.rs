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
//!
//! **Large blocks aligned beyond the C allocator's 16 bytes** (the simulator's process
//! table, whose records are aligned to a cache line) are pages mapped for them alone, on
//! Linux: such a block grows by moving its pages (`mremap`), not by copying into a new
//! block while the old one is still held, so the table of a million processes does not
//! need twice its size for a moment when it grows. The system allocator would copy (it
//! cannot grow a block in place at an alignment beyond its own).
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

/// Blocks of at least this many bytes, aligned beyond 16 bytes and to at most a page,
/// are mapped pages of their own (module docs).
const MAPPED_FROM: usize = 1 << 20;

/// Whether a block of `layout` is mapped pages (decided by its layout alone, so that
/// `dealloc` and `realloc`, given the layout it was made with, know).
#[inline]
fn is_mapped(size: usize, align: usize) -> bool {
    cfg!(target_os = "linux") && size >= MAPPED_FROM && align > 16 && align <= 4096
}

/// Maps `size` bytes of zeroed pages (page-aligned); null when the host refuses.
#[cfg(target_os = "linux")]
fn map(size: usize) -> *mut u8 {
    // SAFETY: an anonymous private mapping at an address of the kernel's choosing
    // touches no existing memory.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            size,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    if p == libc::MAP_FAILED {
        std::ptr::null_mut()
    } else {
        p.cast()
    }
}

/// Moves the mapped block `ptr` of `old` bytes to `new` bytes, its contents kept (the
/// pages are moved, not copied); null when the host refuses (the block is then as it was).
#[cfg(target_os = "linux")]
unsafe fn remap(ptr: *mut u8, old: usize, new: usize) -> *mut u8 {
    // SAFETY: `ptr` is a mapping of `old` bytes made by `map` or `remap` (the caller's
    // contract); MREMAP_MAYMOVE lets the kernel move it.
    let p = unsafe { libc::mremap(ptr.cast(), old, new, libc::MREMAP_MAYMOVE) };
    if p == libc::MAP_FAILED {
        std::ptr::null_mut()
    } else {
        p.cast()
    }
}

#[cfg(not(target_os = "linux"))]
fn map(_: usize) -> *mut u8 {
    unreachable!("no mapped blocks off Linux")
}

#[cfg(not(target_os = "linux"))]
unsafe fn remap(_: *mut u8, _: usize, _: usize) -> *mut u8 {
    unreachable!("no mapped blocks off Linux")
}

// SAFETY: every call is passed to `System` unchanged, but for the large blocks aligned
// beyond its own (`is_mapped`), which are anonymous mappings of at least their size,
// page-aligned (so aligned to their layout's alignment, at most a page), zeroed, and
// unmapped or moved only by the calls given their layout. Only a null result is looked at.
unsafe impl GlobalAlloc for HostAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = if is_mapped(layout.size(), layout.align()) {
            map(layout.size())
        } else {
            // SAFETY: the caller's contract is `System.alloc`'s.
            unsafe { System.alloc(layout) }
        };
        if p.is_null() {
            self.refused(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = if is_mapped(layout.size(), layout.align()) {
            // Fresh anonymous pages are zero.
            map(layout.size())
        } else {
            // SAFETY: as `alloc`.
            unsafe { System.alloc_zeroed(layout) }
        };
        if p.is_null() {
            self.refused(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if is_mapped(layout.size(), layout.align()) {
            #[cfg(target_os = "linux")]
            // SAFETY: `ptr` is the mapping `alloc` or `realloc` made for this layout.
            unsafe {
                libc::munmap(ptr.cast(), layout.size());
            }
            return;
        }
        // SAFETY: as `alloc`.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let (was, will) = (is_mapped(layout.size(), layout.align()), is_mapped(new_size, layout.align()));
        let p = match (was, will) {
            // SAFETY: as `alloc`.
            (false, false) => unsafe { System.realloc(ptr, layout, new_size) },
            // SAFETY: `ptr` is the mapping made for `layout` (the caller's contract).
            (true, true) => unsafe { remap(ptr, layout.size(), new_size) },
            _ => {
                // Into or out of the mapped blocks: a new block, the contents copied.
                // SAFETY: the new layout has the old one's valid alignment and a size
                // the caller vouches for (`GlobalAlloc::realloc`'s contract).
                let new = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
                let q = if will {
                    map(new_size)
                } else {
                    // SAFETY: as `alloc`.
                    unsafe { System.alloc(new) }
                };
                if !q.is_null() {
                    // SAFETY: both blocks hold at least the smaller size and do not
                    // overlap; the old one is freed by the call matching how it was made.
                    unsafe {
                        std::ptr::copy_nonoverlapping(ptr, q, layout.size().min(new_size));
                        self.dealloc(ptr, layout);
                    }
                }
                q
            }
        };
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
    fn large_blocks_aligned_beyond_16_bytes_keep_their_contents_as_they_grow_and_shrink() {
        // A cache-line-aligned vector's block across the three kinds of change: mapped
        // to mapped (moved pages), mapped to the system's (copied), the system's to
        // mapped (copied). Each keeps the bytes below the smaller size (a pattern of the
        // byte's index mod 251, so a block moved by a page or copied short shows) and
        // the alignment of 64.
        let a = HostAlloc::new("test", 3, || {});
        let pattern = |i: usize| (i % 251) as u8;
        let check = |p: *mut u8, n: usize| {
            assert_eq!(p as usize % 64, 0);
            // SAFETY: `p` holds at least `n` initialised bytes (written below).
            let s = unsafe { std::slice::from_raw_parts(p, n) };
            assert!(s.iter().enumerate().all(|(i, &b)| b == pattern(i)));
        };
        let two = Layout::from_size_align(2 << 20, 64).unwrap();
        assert!(!is_mapped(512 << 10, 64) && !is_mapped(8 << 20, 16) && !is_mapped(8 << 20, 8192));
        assert_eq!(is_mapped(2 << 20, 64), cfg!(target_os = "linux"));
        // SAFETY: each call is given the block and layout of the one before.
        unsafe {
            let p = a.alloc_zeroed(two);
            assert!(std::slice::from_raw_parts(p, two.size()).iter().all(|&b| b == 0));
            for i in 0..two.size() {
                *p.add(i) = pattern(i);
            }
            let p = a.realloc(p, two, 8 << 20);
            check(p, two.size());
            for i in two.size()..8 << 20 {
                *p.add(i) = pattern(i);
            }
            let p = a.realloc(p, Layout::from_size_align(8 << 20, 64).unwrap(), 512 << 10);
            check(p, 512 << 10);
            let p = a.realloc(p, Layout::from_size_align(512 << 10, 64).unwrap(), 3 << 20);
            check(p, 512 << 10);
            a.dealloc(p, Layout::from_size_align(3 << 20, 64).unwrap());
        }
    }

    #[test]
    fn fallible_restores_the_flag() {
        assert!(!FALLIBLE.with(Cell::get));
        let inner = fallible(|| fallible(|| FALLIBLE.with(Cell::get)) && FALLIBLE.with(Cell::get));
        assert!(inner);
        assert!(!FALLIBLE.with(Cell::get));
    }
}
