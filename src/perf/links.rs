//! Link traffic load (SPEC §6 "link traffic load when routes are traced"): from the
//! per-hop events `cpss --trace-routes` records ([`Event::Hop`]), for each directed link
//! `from -> to` that carried anything:
//!
//! * **packets** — crossings of the link (one per packet of each message);
//! * **messages** and **bytes** — the messages that crossed it and their payload bytes,
//!   each message counted once per link (all packets of a message follow its route, so
//!   its packet 0 crosses every link it uses); remote memory traffic, whose size the
//!   record does not hold, counts as messages without bytes;
//! * **occupied** — the time during which at least one packet was on the link, from its
//!   head entering to its tail leaving (time blocked on the link included), i.e. the
//!   union of the crossings' intervals; **utilization** = occupied / parallel time.
//!   (`cpss --link-stats` counts only the time spent moving flits, so it can be lower.)
//!
//! A record without hop events (routes not traced) has no link section. Linear in the
//! events (a scan of the few links of a processor per crossing; the crossings of a link come in the order
//! they end, which is all the union needs). Depends only on [`crate::trace`].
use super::table::{table_csv, table_json, Cell};
use crate::time::format_time;
use crate::time::Ticks;
use crate::trace::Event;
use std::collections::BTreeMap;
use std::fmt::Write;

/// The load of one directed link.
#[derive(Debug, Clone, PartialEq)]
pub struct LinkLoad {
    /// Processor the link leaves.
    pub from: u32,
    /// Processor the link enters.
    pub to: u32,
    /// Crossings (packets).
    pub packets: u64,
    /// Messages that crossed it.
    pub messages: u64,
    /// Their payload bytes.
    pub bytes: u64,
    /// Ticks with at least one packet on the link.
    pub occupied: Ticks,
    /// Occupied / parallel time, in percent.
    pub utilization: f64,
}

/// The link loads of a run; `traced` is false when the record has no hop events.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Links {
    /// Whether routes were traced (any hop event).
    pub traced: bool,
    /// Every link that carried a packet, in `(from, to)` order.
    pub links: Vec<LinkLoad>,
    /// The network's number of directed links m, when the record states it (the
    /// header's `links` network parameter; traces of other formats do not).
    pub network_links: Option<u64>,
}

impl Links {
    /// The traffic load of the network, seed 003 §3.3: L = Σ U_link / m, the mean
    /// utilization over all m directed links of the network (idle ones count 0), as a
    /// fraction; `None` when routes were not traced or m is unknown. The utilizations are
    /// those of [`LinkLoad::utilization`], over the run's (or window's) parallel time.
    pub fn network_load(&self) -> Option<f64> {
        let m = self.network_links.filter(|&m| m > 0 && self.traced)?;
        let sum: f64 = self.links.iter().map(|l| l.utilization / 100.0).sum();
        Some(sum / m as f64)
    }

    /// The `n` busiest links by utilization (ties in link order).
    pub fn busiest(&self, n: usize) -> Vec<&LinkLoad> {
        let mut v: Vec<&LinkLoad> = self.links.iter().collect();
        v.sort_by(|a, b| b.occupied.cmp(&a.occupied).then((a.from, a.to).cmp(&(b.from, b.to))));
        v.truncate(n);
        v
    }
}

/// One crossing of a link: `(enter, leave, message, packet)`.
type Crossing = (Ticks, Ticks, u64, u32);

/// Collects messages' sizes and the link crossings.
#[derive(Debug, Default)]
pub struct LinkBuilder {
    /// `(message, bytes)` of every send, in record order.
    sends: Vec<(u64, u32)>,
    /// Index into `crossings` of each link, by its `from` then `to`: a processor has few
    /// links, so a short scan finds one.
    index: Vec<Vec<(u32, usize)>>,
    /// The same for `from` beyond [`DENSE`] (a damaged trace).
    sparse: BTreeMap<(u32, u32), usize>,
    /// Per link, its crossings in record order (that is, by leave time).
    crossings: Vec<Vec<Crossing>>,
}

/// Processor ids below this index links in a vector; larger ones (a damaged trace) a map.
const DENSE: u32 = 1 << 16;

impl LinkBuilder {
    /// The index of link `from -> to` in `crossings`, added when new.
    fn link(&mut self, from: u32, to: u32) -> usize {
        let n = self.crossings.len();
        let k = if from < DENSE {
            let i = from as usize;
            if self.index.len() <= i {
                self.index.resize(i + 1, Vec::new());
            }
            match self.index[i].iter().find(|l| l.0 == to) {
                Some(&(_, k)) => k,
                None => {
                    self.index[i].push((to, n));
                    n
                }
            }
        } else {
            *self.sparse.entry((from, to)).or_insert(n)
        };
        if k == n {
            self.crossings.push(Vec::new());
        }
        k
    }

    /// Takes one event into account.
    #[inline]
    pub fn event(&mut self, e: &Event) {
        match *e {
            Event::MsgSend { msg, bytes, .. } => self.sends.push((msg, bytes)),
            Event::Hop { msg, packet, from, to, enter, leave } => {
                let k = self.link(from, to);
                self.crossings[k].push((enter, leave.max(enter), msg, packet));
            }
            _ => {}
        }
    }

    /// The loads, utilization relative to `par_ticks`, in a network of `network_links`
    /// directed links (when known).
    pub fn finish(mut self, par_ticks: Ticks, network_links: Option<u64>) -> Links {
        if self.crossings.is_empty() {
            return Links { network_links, ..Links::default() };
        }
        // The simulator numbers messages in send order; sort in case a trace does not.
        if !self.sends.is_sorted_by_key(|s| s.0) {
            self.sends.sort_unstable();
        }
        let sends = &self.sends;
        let bytes_of =
            |msg: u64| -> u64 { sends.binary_search_by_key(&msg, |s| s.0).map_or(0, |k| u64::from(sends[k].1)) };
        let mut order: Vec<((u32, u32), usize)> = (0u32..)
            .zip(&self.index)
            .flat_map(|(from, v)| v.iter().map(move |&(to, k)| ((from, to), k)))
            .chain(self.sparse.iter().map(|(&l, &k)| (l, k)))
            .collect();
        order.sort_unstable();
        let mut links: Vec<LinkLoad> = Vec::with_capacity(self.crossings.len());
        for ((from, to), k) in order {
            let hops = &mut self.crossings[k];
            let first = hops.iter().filter(|h| h.3 == 0);
            let (messages, bytes) = first.fold((0, 0), |(n, b), h| (n + 1, b + bytes_of(h.2)));
            // The union of the crossings: sorted by leave time (the record's order), a
            // sweep from the last one back merges each into the block it reaches.
            if !hops.is_sorted_by_key(|h| h.1) {
                hops.sort_unstable_by_key(|h| h.1);
            }
            let mut occupied = 0;
            let mut block: Option<(Ticks, Ticks)> = None;
            for &(enter, leave, _, _) in hops.iter().rev() {
                block = match block {
                    Some((a, b)) if leave >= a => Some((a.min(enter), b)),
                    Some((a, b)) => {
                        occupied += b - a;
                        Some((enter, leave))
                    }
                    None => Some((enter, leave)),
                };
            }
            if let Some((a, b)) = block {
                occupied += b - a;
            }
            let utilization = if par_ticks > 0 { 100.0 * occupied as f64 / par_ticks as f64 } else { 0.0 };
            links.push(LinkLoad { from, to, packets: hops.len() as u64, messages, bytes, occupied, utilization });
        }
        Links { traced: true, links, network_links }
    }
}

/// The text section: the `top` busiest links, or a note that routes were not traced.
pub fn text(l: &Links, top: usize) -> String {
    let mut o = String::new();
    if !l.traced {
        let _ = writeln!(o, "\nLink traffic: routes not traced (record them with cpss --trace-routes)");
        return o;
    }
    let shown = l.busiest(top);
    let _ = writeln!(o, "\nLink traffic ({} links used; the {} busiest)", l.links.len(), shown.len());
    let _ = writeln!(
        o,
        "  {:>11}  {:>8}  {:>8}  {:>10}  {:>12}  {:>8}",
        "link", "packets", "messages", "bytes", "occupied", "util"
    );
    for x in shown {
        let link = format!("{} -> {}", x.from, x.to);
        let _ = writeln!(
            o,
            "  {link:>11}  {:>8}  {:>8}  {:>10}  {:>12}  {:6.2} %",
            x.packets,
            x.messages,
            x.bytes,
            format_time(x.occupied),
            x.utilization
        );
    }
    o
}

/// The columns of the link table, in CSV and JSON alike.
const COLUMNS: [&str; 7] = ["from", "to", "packets", "messages", "bytes", "occupied", "utilization"];

fn cells(x: &LinkLoad) -> [Cell; 7] {
    [
        Cell::Num(x.from.to_string()),
        Cell::Num(x.to.to_string()),
        Cell::Num(x.packets.to_string()),
        Cell::Num(x.messages.to_string()),
        Cell::Num(x.bytes.to_string()),
        Cell::Num(format_time(x.occupied)),
        Cell::Num(format!("{:.4}", x.utilization)),
    ]
}

/// The JSON value: `null` when routes were not traced, else an array of every link.
pub fn json(l: &Links) -> serde_json::Value {
    if !l.traced {
        return serde_json::Value::Null;
    }
    table_json(&COLUMNS, l.links.iter().map(cells))
}

/// The CSV table `from,to,packets,messages,bytes,occupied,utilization` (header only when
/// routes were not traced).
pub fn csv(l: &Links) -> String {
    table_csv(&COLUMNS, l.links.iter().map(cells))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hop(msg: u64, packet: u32, from: u32, to: u32, enter: Ticks, leave: Ticks) -> Event {
        Event::Hop { msg, packet, from, to, enter, leave }
    }

    #[test]
    fn loads_count_packets_messages_bytes_and_the_union_of_crossings() {
        let send = |msg, bytes| Event::MsgSend {
            time: 0,
            msg,
            src_pid: 0,
            src_pproc: 0,
            dst_pid: None,
            dst_pproc: 2,
            purpose: crate::trace::MsgPurpose::RemoteWrite { addr: 0 },
            bytes,
            line: 0,
        };
        let mut b = LinkBuilder::default();
        for e in [
            send(1, 40),
            send(2, 8),
            // Message 1 in two packets over 0->1 (10..20, 20..30), then packet 0 over 1->2.
            hop(1, 0, 0, 1, 10, 20),
            hop(1, 1, 0, 1, 20, 30),
            hop(1, 0, 1, 2, 20, 35),
            // Message 2 over 0->1 overlapping packet 1 (25..40), and later alone (50..60).
            hop(2, 0, 0, 1, 25, 40),
            hop(2, 0, 1, 2, 50, 60),
        ] {
            b.event(&e);
        }
        let l = b.finish(100, Some(8));
        assert!(l.traced);
        let rows: Vec<(u32, u32, u64, u64, u64, Ticks)> =
            l.links.iter().map(|x| (x.from, x.to, x.packets, x.messages, x.bytes, x.occupied)).collect();
        // 0->1: 3 packets, messages 1 and 2 (40 + 8 bytes), occupied [10,40) = 30.
        // 1->2: 2 packets, 2 messages, 48 bytes, occupied [20,35) + [50,60) = 25.
        assert_eq!(rows, vec![(0, 1, 3, 2, 48, 30), (1, 2, 2, 2, 48, 25)]);
        // Utilization of a 100-tick run: 30 % and 25 %.
        assert_eq!(l.links[0].utilization, 30.0);
        assert_eq!(l.busiest(1)[0].from, 0);
        // Network load over m = 8 directed links, six of them idle: (0.30 + 0.25) / 8.
        assert!((l.network_load().unwrap() - 0.55 / 8.0).abs() < 1e-12);
        // No hops: routes were not traced, so no load whatever m is.
        let mut b = LinkBuilder::default();
        b.event(&send(1, 4));
        let l = b.finish(10, Some(8));
        assert!(!l.traced && l.links.is_empty());
        assert_eq!(l.network_load(), None);
        // Traced, but a network of unknown size (a trace without the header's count).
        let mut b = LinkBuilder::default();
        b.event(&hop(1, 0, 0, 1, 0, 5));
        assert_eq!(b.finish(10, None).network_load(), None);
    }
}
