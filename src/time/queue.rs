//! A priority queue of items keyed by simulated time, earliest first, with equal times
//! taken in the order they were put in: an explicit tie-break counter, so the order
//! never depends on the heap's layout or on the items' own ordering, and runs are
//! deterministic.
use super::Ticks;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// Items by time; ties first in, first out.
#[derive(Debug, Clone)]
pub struct TimeQueue<T> {
    heap: BinaryHeap<Entry<T>>,
    /// The insertion number of the next item.
    next: u64,
}

#[derive(Debug, Clone)]
struct Entry<T> {
    time: Ticks,
    seq: u64,
    item: T,
}

impl<T> PartialEq for Entry<T> {
    fn eq(&self, o: &Self) -> bool {
        (self.time, self.seq) == (o.time, o.seq)
    }
}

impl<T> Eq for Entry<T> {}

impl<T> PartialOrd for Entry<T> {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

impl<T> Ord for Entry<T> {
    /// Reversed: the heap's greatest is the earliest time, then the first put in.
    fn cmp(&self, o: &Self) -> Ordering {
        (o.time, o.seq).cmp(&(self.time, self.seq))
    }
}

impl<T> Default for TimeQueue<T> {
    fn default() -> Self {
        TimeQueue { heap: BinaryHeap::new(), next: 0 }
    }
}

impl<T> TimeQueue<T> {
    /// An empty queue (no allocation until the first push).
    pub fn new() -> TimeQueue<T> {
        TimeQueue::default()
    }

    /// Puts `item` in at `time`.
    #[inline]
    pub fn push(&mut self, time: Ticks, item: T) {
        let seq = self.next;
        self.next += 1;
        self.heap.push(Entry { time, seq, item });
    }

    /// Takes out the earliest item (the first put in among equal times).
    #[inline]
    pub fn pop(&mut self) -> Option<(Ticks, T)> {
        self.heap.pop().map(|e| (e.time, e.item))
    }

    /// The earliest item without taking it out.
    #[inline]
    pub fn peek(&self) -> Option<(Ticks, &T)> {
        self.heap.peek().map(|e| (e.time, &e.item))
    }

    /// The earliest time (None: empty).
    #[inline]
    pub fn peek_time(&self) -> Option<Ticks> {
        self.heap.peek().map(|e| e.time)
    }

    /// The number of items.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// No item.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn earliest_first_and_equal_times_in_insertion_order() {
        let mut q = TimeQueue::new();
        // Items that would sort the other way by themselves: the order is the counter's.
        for (t, item) in [(30, 'z'), (10, 'y'), (30, 'a'), (20, 'x'), (10, 'b'), (30, 'm')] {
            q.push(t, item);
        }
        assert_eq!(q.len(), 6);
        assert_eq!(q.peek(), Some((10, &'y')));
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(order, [(10, 'y'), (10, 'b'), (20, 'x'), (30, 'z'), (30, 'a'), (30, 'm')]);
        assert!(q.is_empty() && q.peek_time().is_none());
    }

    #[test]
    fn items_put_in_after_a_take_keep_their_place_among_equal_times() {
        // Many items at a few times, taken and put in alternately: each time's items come
        // out in the order they went in, checked against a stable sort of the inserts.
        let mut q = TimeQueue::new();
        let mut put = Vec::new();
        let mut got = Vec::new();
        let mut x = 7u64;
        for n in 0..5000u32 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let t = 100 + (x >> 61);
            q.push(t, n);
            put.push((t, n));
            if n % 3 == 2 {
                got.extend(q.pop());
            }
        }
        got.extend(std::iter::from_fn(|| q.pop()));
        // Every item once; each time's items in insertion order.
        assert_eq!(got.len(), put.len());
        for t in 100..108 {
            let ins: Vec<u32> = put.iter().filter(|e| e.0 == t).map(|e| e.1).collect();
            let out: Vec<u32> = got.iter().filter(|e| e.0 == t).map(|e| e.1).collect();
            assert_eq!(ins, out, "time {t}");
        }
    }
}
