//! Reading the parsed sections into descriptions: each field's value and the checks on
//! it (missing, repeated or unknown fields, numbers, processors joined), each error
//! naming its line.
use super::*;

/// The fields of a section that must hold only fields.
pub(super) fn fields_only<'a>(file: &str, s: &'a Section) -> Result<Vec<&'a Field>, MachineError> {
    let mut out = Vec::new();
    for item in &s.items {
        match item {
            Item::Field(f) => out.push(f),
            Item::Section(sub) => return Err(unknown_section(file, sub, &s.name, "no section")),
        }
    }
    Ok(out)
}

pub(super) fn proc_section(file: &str, s: &Section) -> Result<ProcType, MachineError> {
    let mut p =
        ProcType { id: 1, name: String::new(), line: s.line, timings: Vec::new(), smallloop: None, extra: Vec::new() };
    let mut id_set = false;
    let mut sub_sections = Vec::new();
    for item in &s.items {
        match item {
            Item::Field(f) => {
                let at = |k| err(file, f.line, k);
                match f.key.as_str() {
                    "id" => {
                        p.id = parse_int(f).map_err(at)?;
                        id_set = true;
                    }
                    "name" => p.name = parse_string(f).map_err(at)?,
                    "smallloopspeedup" => p.smallloop = Some(parse_timing(f).map_err(at)?),
                    _ => {
                        return Err(at(ErrorKind::UnknownField {
                            key: f.key.clone(),
                            section: "processor".into(),
                            expected: "id, name, smallloopspeedup",
                        }))
                    }
                }
            }
            Item::Section(sub) => sub_sections.push(sub),
        }
    }
    if !id_set {
        return Err(err(file, s.line, ErrorKind::Missing { what: "the processor's `id`".into() }));
    }
    for sub in sub_sections {
        let fields = fields_only(file, sub)?;
        match sub.name.as_str() {
            "timings" => {
                for f in fields {
                    let at = |k| err(file, f.line, k);
                    let op = Op::from_mnemonic(&f.key)
                        .ok_or_else(|| at(ErrorKind::UnknownInstruction { name: f.key.clone() }))?;
                    let t = parse_timing(f).map_err(at)?;
                    // The last definition wins (seed 004 §2.3).
                    p.timings.retain(|(o, _)| *o != op);
                    p.timings.push((op, t));
                }
            }
            "cache" => {
                for f in fields {
                    if !matches!(f.key.as_str(), "size" | "speed" | "speedratio") {
                        return Err(err(
                            file,
                            f.line,
                            ErrorKind::UnknownField {
                                key: f.key.clone(),
                                section: "cache".into(),
                                expected: "size, speed, speedratio",
                            },
                        ));
                    }
                    let t = parse_timing(f).map_err(|k| err(file, f.line, k))?;
                    p.extra.push((format!("pc({}).{}", p.id, f.key), t));
                }
            }
            "combinations" => {
                for f in fields {
                    let e = parse_expr(f).map_err(|k| err(file, f.line, k))?;
                    p.extra.push((
                        format!("po({}).{}", p.id, f.key),
                        Timing { mean: Value::Expr(e), sd: 0.0, line: f.line },
                    ));
                }
            }
            _ => return Err(unknown_section(file, sub, "processor", "timings, cache, combinations")),
        }
    }
    Ok(p)
}

pub(super) fn topo_section(file: &str, s: &Section) -> Result<TopoDesc, MachineError> {
    let mut t = TopoDesc {
        id: 1,
        name: String::new(),
        line: s.line,
        hardware: false,
        creation: None,
        processors: 0,
        links_declared: None,
        types: Vec::new(),
        links: Vec::new(),
    };
    let mut procids: Vec<&Field> = Vec::new();
    let mut linklists: Vec<&Section> = Vec::new();
    for item in &s.items {
        match item {
            Item::Field(f) => {
                let at = |k| err(file, f.line, k);
                match f.key.as_str() {
                    "id" => t.id = parse_int(f).map_err(at)?,
                    "name" => t.name = parse_string(f).map_err(at)?,
                    "hardware" => {
                        t.hardware = match parse_int(f).map_err(at)? {
                            0 => false,
                            1 => true,
                            _ => {
                                return Err(at(ErrorKind::BadValue {
                                    key: f.key.clone(),
                                    value: f.value.clone(),
                                    what: "0 or 1",
                                }))
                            }
                        }
                    }
                    "creation" => t.creation = Some(parse_timing(f).map_err(at)?),
                    "processors" => {
                        let n = parse_int(f).map_err(at)?;
                        t.processors = u32::try_from(n).ok().filter(|&n| n >= 1).ok_or_else(|| {
                            at(ErrorKind::BadValue {
                                key: f.key.clone(),
                                value: f.value.clone(),
                                what: "a positive processor count",
                            })
                        })?;
                    }
                    "links" => {
                        let n = parse_int(f).map_err(at)?;
                        t.links_declared = Some(u64::try_from(n).map_err(|_| {
                            at(ErrorKind::BadValue { key: f.key.clone(), value: f.value.clone(), what: "a link count" })
                        })?);
                    }
                    _ => {
                        return Err(at(ErrorKind::UnknownField {
                            key: f.key.clone(),
                            section: "topology".into(),
                            expected: "id, name, hardware, creation, processors, links",
                        }))
                    }
                }
            }
            Item::Section(sub) => match sub.name.as_str() {
                "procid" => procids.extend(fields_only(file, sub)?),
                "linklist" => linklists.push(sub),
                _ => return Err(unknown_section(file, sub, "topology", "procid, linklist")),
            },
        }
    }
    if t.processors == 0 {
        return Err(err(file, s.line, ErrorKind::Missing { what: "the topology's `processors` count".into() }));
    }
    if u64::from(t.processors) > u64::from(crate::topo::MAX_GRAPH_NODES) {
        let message = format!("{} processors exceed the limit of {}", t.processors, crate::topo::MAX_GRAPH_NODES);
        return Err(err(file, s.line, ErrorKind::Network { message }));
    }
    t.types = vec![None; t.processors as usize];
    for f in procids {
        let at = |k| err(file, f.line, k);
        let k = f
            .key
            .strip_prefix("p[")
            .and_then(|r| r.strip_suffix(']'))
            .and_then(|n| n.parse::<u32>().ok())
            .ok_or_else(|| {
                at(ErrorKind::UnknownField { key: f.key.clone(), section: "procid".into(), expected: "p[N] = TYPE" })
            })?;
        let slot = k.checked_sub(1).and_then(|i| t.types.get_mut(i as usize)).ok_or_else(|| {
            at(ErrorKind::BadValue {
                key: f.key.clone(),
                value: k.to_string(),
                what: "a processor number from 1 to `processors`",
            })
        })?;
        *slot = Some((parse_int(f).map_err(at)?, f.line));
    }
    for list in linklists {
        for item in &list.items {
            let Item::Section(l) = item else {
                let line = match item {
                    Item::Field(f) => f.line,
                    Item::Section(s) => s.line,
                };
                return Err(err(
                    file,
                    line,
                    ErrorKind::Missing { what: "`begin link` (a link list holds only links)".into() },
                ));
            };
            if l.name != "link" {
                return Err(err(
                    file,
                    l.line,
                    ErrorKind::UnknownSection { name: l.name.clone(), parent: "linklist".into(), expected: "link" },
                ));
            }
            t.links.push(link_section(file, l, t.processors)?);
        }
    }
    for (i, l) in t.links.iter().enumerate() {
        if let Some(o) = t.links[..i].iter().find(|o| o.id == l.id) {
            return Err(err(file, l.line, ErrorKind::Duplicate { what: format!("link {}", l.id), other: o.line }));
        }
    }
    if let Some(n) = t.links_declared {
        if n != t.links.len() as u64 {
            return Err(err(
                file,
                s.line,
                ErrorKind::CountMismatch { what: "links", given: n, found: t.links.len() as u64 },
            ));
        }
    }
    Ok(t)
}

fn link_section(file: &str, s: &Section, procs: u32) -> Result<LinkDesc, MachineError> {
    let (mut id, mut latency, mut speed, mut connect) = (None, None, None, None);
    for f in fields_only(file, s)? {
        let at = |k| err(file, f.line, k);
        match f.key.as_str() {
            "id" => id = Some(parse_int(f).map_err(at)?),
            "latency" => latency = Some(parse_timing(f).map_err(at)?),
            "speed" => speed = Some(parse_timing(f).map_err(at)?),
            "connect" => {
                let nums: Option<Vec<u32>> = f.value.split_whitespace().map(|w| w.parse().ok()).collect();
                let bad = |message: String| at(ErrorKind::Connect { message });
                let nums = nums.ok_or_else(|| bad(format!("`{}` is not a list of processor numbers", f.value)))?;
                let (count, list) = nums.split_first().ok_or_else(|| bad("the count is missing".into()))?;
                if *count < 2 {
                    return Err(bad(format!("a link joins at least 2 processors, not {count}")));
                }
                if list.len() != *count as usize {
                    return Err(bad(format!("the count says {count} processors but {} follow", list.len())));
                }
                if let Some(p) = list.iter().find(|&&p| p == 0 || p > procs) {
                    return Err(bad(format!("processor {p} is not between 1 and {procs}")));
                }
                for (i, p) in list.iter().enumerate() {
                    if list[..i].contains(p) {
                        return Err(bad(format!("processor {p} is listed twice")));
                    }
                }
                connect = Some(list.to_vec());
            }
            _ => {
                return Err(at(ErrorKind::UnknownField {
                    key: f.key.clone(),
                    section: "link".into(),
                    expected: "id, latency, speed, connect",
                }))
            }
        }
    }
    let missing = |what: &str| err(file, s.line, ErrorKind::Missing { what: format!("the link's `{what}`") });
    Ok(LinkDesc {
        id: id.ok_or_else(|| missing("id"))?,
        line: s.line,
        latency: latency.ok_or_else(|| missing("latency"))?,
        speed: speed.ok_or_else(|| missing("speed"))?,
        connect: connect.ok_or_else(|| missing("connect"))?,
    })
}

pub(super) fn parse_int(f: &Field) -> Result<i64, ErrorKind> {
    let v = f.value.trim();
    let parsed = match v.strip_prefix("0x").or_else(|| v.strip_prefix("0X")) {
        Some(h) => i64::from_str_radix(h, 16).ok(),
        None => v.parse().ok(),
    };
    parsed.ok_or_else(|| ErrorKind::BadValue { key: f.key.clone(), value: v.to_string(), what: "an integer" })
}

pub(super) fn parse_string(f: &Field) -> Result<String, ErrorKind> {
    let v = f.value.trim();
    match v.strip_prefix('"').and_then(|s| s.strip_suffix('"')) {
        Some(s) => Ok(s.to_string()),
        None => Err(ErrorKind::BadValue { key: f.key.clone(), value: v.to_string(), what: "a quoted string" }),
    }
}

pub(super) fn parse_expr(f: &Field) -> Result<Expr, ErrorKind> {
    Expr::parse(&f.value).map_err(|e| {
        let col = e.span().col;
        ErrorKind::Expr { key: f.key.clone(), message: format!("column {col} of the value: {e}") }
    })
}

/// `mean`, `mean sd`, or an expression.
fn parse_timing(f: &Field) -> Result<Timing, ErrorKind> {
    let words: Vec<&str> = f.value.split_whitespace().collect();
    let numbers: Option<Vec<f64>> =
        if (1..=2).contains(&words.len()) { words.iter().map(|w| w.parse::<f64>().ok()).collect() } else { None };
    match numbers {
        Some(n) => {
            let (mean, sd) = (n[0], n.get(1).copied().unwrap_or(0.0));
            if !mean.is_finite() || mean < 0.0 || !sd.is_finite() || sd < 0.0 {
                return Err(ErrorKind::BadValue {
                    key: f.key.clone(),
                    value: f.value.clone(),
                    what: "a timing `mean [sd]` of non-negative numbers",
                });
            }
            Ok(Timing { mean: Value::Number(mean), sd, line: f.line })
        }
        None => Ok(Timing { mean: Value::Expr(parse_expr(f)?), sd: 0.0, line: f.line }),
    }
}
