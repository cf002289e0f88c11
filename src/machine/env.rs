//! The reference table of one run: every timing's drawn number or expression, evaluated
//! on demand with references to other fields, cycles refused.
use super::*;

/// The reference table of one run: each reference's drawn number or expression, and the
/// values computed so far.
pub(super) struct Env<'a> {
    slots: BTreeMap<String, (Slot<'a>, u32)>,
    memo: RefCell<BTreeMap<String, f64>>,
    active: RefCell<BTreeSet<String>>,
    failure: RefCell<Option<ErrorKind>>,
}

enum Slot<'a> {
    Number(f64),
    Expr(&'a Expr),
}

impl<'a> Env<'a> {
    pub(super) fn new(m: &'a Machine, drawn: &[Option<f64>]) -> Env<'a> {
        let mut slots: BTreeMap<String, (Slot<'a>, u32)> = BTreeMap::new();
        let mut k = 0;
        let mut next = |t: &'a Timing| {
            let d = drawn.get(k).copied().flatten();
            k += 1;
            match (&t.mean, d) {
                (Value::Expr(e), _) => (Slot::Expr(e), t.line),
                (Value::Number(v), d) => (Slot::Number(d.unwrap_or(*v)), t.line),
            }
        };
        let mut fixed = |name: String, v: f64| {
            slots.insert(name, (Slot::Number(v), 0));
        };
        // The order of `next` calls is that of `Machine::timings`.
        let mut timed: Vec<(String, (Slot<'a>, u32))> = Vec::new();
        for p in &m.procs {
            if let Some(t) = &p.smallloop {
                timed.push((format!("pr({}).smallloopspeedup", p.id), next(t)));
            }
            for (op, t) in &p.timings {
                timed.push((format!("pt({}).{}", p.id, op.mnemonic().to_ascii_lowercase()), next(t)));
            }
            for (name, t) in &p.extra {
                timed.push((name.clone(), next(t)));
            }
        }
        for t in &m.topos {
            if let Some(c) = &t.creation {
                timed.push((format!("to({}).creation", t.id), next(c)));
            }
            for l in &t.links {
                timed.push((format!("tl({})({}).latency", t.id, l.id), next(&l.latency)));
                timed.push((format!("tl({})({}).speed", t.id, l.id), next(&l.speed)));
            }
        }
        for (name, t) in &m.other {
            timed.push((name.clone(), next(t)));
        }
        fixed("ma.id".into(), m.id as f64);
        fixed("ma.processors".into(), m.procs.len() as f64);
        fixed("ma.topologies".into(), m.topos.len() as f64);
        for p in &m.procs {
            fixed(format!("pr({}).id", p.id), p.id as f64);
            // Instructions a type does not list keep their vCode cost.
            for &op in Op::ALL {
                fixed(format!("pt({}).{}", p.id, op.mnemonic().to_ascii_lowercase()), f64::from(op.default_cost()));
            }
        }
        for t in &m.topos {
            fixed(format!("to({}).id", t.id), t.id as f64);
            fixed(format!("to({}).hardware", t.id), f64::from(u8::from(t.hardware)));
            fixed(format!("to({}).processors", t.id), f64::from(t.processors));
            fixed(format!("to({}).links", t.id), t.links.len() as f64);
            for (k, ty) in t.types.iter().enumerate() {
                if let Some((id, _)) = ty {
                    fixed(format!("tp({})({})", t.id, k + 1), *id as f64);
                }
            }
            for l in &t.links {
                fixed(format!("tl({})({}).id", t.id, l.id), l.id as f64);
                fixed(format!("tl({})({}).connect(0)", t.id, l.id), l.connect.len() as f64);
                for (i, &p) in l.connect.iter().enumerate() {
                    fixed(format!("tl({})({}).connect({})", t.id, l.id, i + 1), f64::from(p));
                }
            }
        }
        slots.extend(timed);
        Env {
            slots,
            memo: RefCell::new(BTreeMap::new()),
            active: RefCell::new(BTreeSet::new()),
            failure: RefCell::new(None),
        }
    }

    pub(super) fn names(&self) -> Vec<String> {
        self.slots.iter().filter(|(_, (s, _))| matches!(s, Slot::Expr(_))).map(|(k, _)| k.clone()).collect()
    }

    pub(super) fn line_of(&self, name: &str) -> u32 {
        self.slots.get(name).map(|s| s.1).unwrap_or(0)
    }

    /// The value of reference `name` (lower case), evaluating expressions on demand.
    pub(super) fn get(&self, name: &str) -> Result<f64, ErrorKind> {
        let v = self.lookup(name);
        if let Some(k) = self.failure.borrow_mut().take() {
            return Err(k);
        }
        v.ok_or_else(|| ErrorKind::Eval { name: name.to_string(), message: "unknown reference".into() })
    }

    fn lookup(&self, name: &str) -> Option<f64> {
        let name = name.to_ascii_lowercase();
        if let Some(v) = self.memo.borrow().get(&name) {
            return Some(*v);
        }
        let (slot, _) = self.slots.get(&name)?;
        let v = match slot {
            Slot::Number(v) => *v,
            Slot::Expr(e) => {
                if !self.active.borrow_mut().insert(name.clone()) {
                    self.fail(ErrorKind::Cycle { name: name.clone() });
                    return Some(0.0);
                }
                let r = e.eval_with(&|n: &str| self.lookup(n));
                self.active.borrow_mut().remove(&name);
                match r {
                    Ok(v) => v,
                    Err(e) => {
                        self.fail(ErrorKind::Eval { name: name.clone(), message: e.to_string() });
                        return Some(0.0);
                    }
                }
            }
        };
        self.memo.borrow_mut().insert(name, v);
        Some(v)
    }

    /// Keeps the first failure (the innermost, which names the real culprit).
    fn fail(&self, kind: ErrorKind) {
        let mut f = self.failure.borrow_mut();
        if f.is_none() {
            *f = Some(kind);
        }
    }
}
