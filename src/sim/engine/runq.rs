//! [`RunQueue`]: the run queue of a processor whose queue is not indexed ([`super::ready`]),
//! its processes in turn order. A machine of a million processors with a process or two
//! each holds a million of them, so a queue of up to three processes lives in its 16
//! bytes with no allocation (a `VecDeque` took 32 bytes and a 32-byte heap block from
//! its first process on); a longer one moves to the heap. A queue is indexed once it
//! holds more than `queue_index_at` processes (32 by default), so it stays short and
//! its operations move a few words.

/// Processes in turn order (see the module docs).
#[derive(Clone, Debug)]
pub(super) enum RunQueue {
    /// Up to [`RunQueue::FEW`] processes: the first `len` of the array.
    Few(u8, [u32; RunQueue::FEW]),
    /// More, once: a queue that grew past [`RunQueue::FEW`] stays here until it empties.
    /// Boxed so that the queue is 16 bytes, not 32 (a `Vec` is 24).
    #[allow(clippy::box_collection)]
    Many(Box<Vec<u32>>),
}

impl Default for RunQueue {
    fn default() -> Self {
        RunQueue::Few(0, [0; RunQueue::FEW])
    }
}

impl RunQueue {
    /// The processes held in place.
    const FEW: usize = 3;

    /// The processes, front first.
    #[inline]
    pub(super) fn as_slice(&self) -> &[u32] {
        match self {
            RunQueue::Few(n, a) => &a[..*n as usize],
            RunQueue::Many(v) => v,
        }
    }

    #[inline]
    fn as_mut_slice(&mut self) -> &mut [u32] {
        match self {
            RunQueue::Few(n, a) => &mut a[..*n as usize],
            RunQueue::Many(v) => v,
        }
    }

    #[inline]
    pub(super) fn len(&self) -> usize {
        self.as_slice().len()
    }

    /// `pid` joins the back.
    pub(super) fn push_back(&mut self, pid: u32) {
        match self {
            RunQueue::Few(n, a) if (*n as usize) < RunQueue::FEW => {
                a[*n as usize] = pid;
                *n += 1;
            }
            RunQueue::Few(_, a) => {
                let mut v = Vec::with_capacity(2 * RunQueue::FEW + 2);
                v.extend_from_slice(a);
                v.push(pid);
                *self = RunQueue::Many(Box::new(v));
            }
            RunQueue::Many(v) => v.push(pid),
        }
    }

    /// Takes out the process at place `k` (the others keep their order); an emptied
    /// queue gives its heap block back.
    pub(super) fn remove(&mut self, k: usize) -> Option<u32> {
        let s = self.as_mut_slice();
        let pid = *s.get(k)?;
        s[k..].rotate_left(1);
        match self {
            RunQueue::Few(n, _) => *n -= 1,
            RunQueue::Many(v) => {
                v.pop();
                if v.is_empty() {
                    *self = RunQueue::default();
                }
            }
        }
        Some(pid)
    }

    /// The process at place `k` goes to the back (the ones behind it move up one).
    #[inline]
    pub(super) fn move_to_back(&mut self, k: usize) {
        if let Some(s) = self.as_mut_slice().get_mut(k..) {
            s.rotate_left(1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    #[test]
    fn holds_three_in_place_and_behaves_as_a_deque() {
        assert_eq!(std::mem::size_of::<RunQueue>(), 16);
        // Against a VecDeque doing the same: pushes past three (to the heap), removals
        // at the front, middle and back, moves to the back, down to empty and up again.
        let (mut q, mut d) = (RunQueue::default(), VecDeque::new());
        let check = |q: &RunQueue, d: &VecDeque<u32>| {
            assert_eq!(q.as_slice(), d.iter().copied().collect::<Vec<_>>().as_slice());
        };
        for pid in 0..5 {
            q.push_back(pid);
            d.push_back(pid);
            check(&q, &d);
            assert_eq!(matches!(q, RunQueue::Few(..)), pid < 3, "in place up to three");
        }
        q.move_to_back(1);
        let x = d.remove(1).unwrap();
        d.push_back(x);
        check(&q, &d);
        q.move_to_back(4);
        check(&q, &d);
        for k in [2, 0, 2, 0, 0] {
            assert_eq!(q.remove(k), d.remove(k));
            check(&q, &d);
        }
        assert_eq!(q.remove(0), None);
        assert!(matches!(q, RunQueue::Few(0, _)), "an emptied queue holds no heap block");
        for pid in [7, 8] {
            q.push_back(pid);
        }
        q.move_to_back(0);
        assert_eq!(q.as_slice(), &[8, 7]);
        assert_eq!(q.remove(1), Some(7));
        assert_eq!((q.len(), q.remove(3)), (1, None));
    }
}
