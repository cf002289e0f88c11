//! Generated programs with the C that real programs use, compared with gcc's builds: every
//! statement kind of C (loops of every form with `break` and `continue`, `switch` with
//! fall-through, `goto`), functions of every scalar type with `static` locals, calls
//! through an array of function pointers, recursion, structs passed and returned by
//! value, 2-D arrays, pointers into arrays and to pointers, a list on the heap, unions,
//! enums, the string functions, `sprintf`, and `printf` with random flags, widths,
//! precisions and length modifiers. [`ProgGen`] says what keeps them defined C.
use crate::conformance::{int_only, real, render, Third, OPS, TYPES};
use crate::fuzz::Gen;
use crate::harness::{run_in, tempdir};

/// The header every generated program starts with: the guards that keep arithmetic
/// defined ([`super::conformance`]'s), and the types and helpers the statements use.
const PRELUDE: &str = "#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <stdarg.h>
#define DIV(a, b) ((b) == 0 || (b) == -1 ? (a) : (a) / (b))
#define DIVM(a, b) ((b) == 0 || (b) == -1 ? (a) : (a) % (b))
#define UMOD(a, n) ((unsigned)(a) % (n))
#define D2I(x) ((x) >= 2e9 || (x) <= -2e9 || (x) != (x) ? 0 : (int)(x))
struct S { int a; unsigned char b; short c[4]; double d; long long e; };
struct node { long v; struct node *next; };
struct U { int tag; union { int i; double d; }; };
typedef struct U U_t;
enum col { RED, GREEN = 5, BLUE };
struct S gs[3];
int gm[3][4];
char buf[64];
long rec(int n, int k) { if (n <= 0) return k; return (n & 1 ? n * 3 : -n) + rec(n - 1, k ^ n); }
int h0(int a, int b) { return a - b; }
int h1(int a, int b) { return (a ^ b) + 1; }
int h2(int a, int b) { return a > b ? a : b; }
int (*hp[3])(int, int) = { h0, h1, &h2 };
struct S twist(struct S x, int k) { x.e += k; x.d = x.d * 0.5 + k; x.c[3] = x.c[0] - k; return x; }
struct B { unsigned a : 3; int b : 5; unsigned c : 12; signed d : 1; } gb;
long vsum(int n, ...) { va_list ap; long s = 0; int i; va_start(ap, n);
  for (i = 0; i < n; i++) s = s * 31 + va_arg(ap, int); va_end(ap); return s; }
double vmix(int n, ...) { va_list ap; double s = 0.5; int i; va_start(ap, n);
  for (i = 0; i < n; i++) s = s * 0.75 + va_arg(ap, double); va_end(ap); return s; }
";

type Var = (String, &'static str);

/// What a function's statements may use.
#[derive(Default)]
struct Scope {
    vars: Vec<Var>,
    arrs: Vec<(String, &'static str, usize)>,
    /// Declarations the statements added (loop counters, pointers, call results), put
    /// at the top of the function.
    decls: Vec<String>,
    n: u32,
    /// Loop counters of the loops around: never assigned by the body.
    ro: Vec<String>,
}

struct Func {
    name: String,
    ret: &'static str,
    params: Vec<&'static str>,
}

/// A generated program. It is defined C whatever the values, so gcc's build is the
/// expected output: a division or remainder by 0 or -1 gives its left operand; shift
/// counts are masked to 0..15; a floating value becomes an integer only through `D2I`;
/// an index is masked or reduced into its array; loops run a constant number of
/// times and their counters are not assigned in their bodies; no expression has a side
/// effect, and a function (which may change globals) is called only as a whole
/// statement `t = f(...)` whose result goes to a fresh local, so no order of evaluation
/// the standard leaves open shows. gcc builds with `-fwrapv` (wrapping signed overflow,
/// as cpss) and `-funsigned-char` (plain `char` is unsigned in CPC). Every `printf` is
/// labelled, so a difference names its statement.
struct ProgGen {
    g: Gen,
    funcs: Vec<Func>,
    globals: Vec<Var>,
    garrs: Vec<(String, &'static str, usize)>,
    lab: u32,
}

impl ProgGen {
    fn pick<T: Copy>(&mut self, from: &[T]) -> T {
        from[self.g.below(from.len())]
    }

    fn chance(&mut self, k: usize) -> bool {
        self.g.below(k) == 0
    }

    fn ty(&mut self) -> &'static str {
        if self.chance(6) {
            self.pick(&["double", "float"])
        } else {
            let ints: Vec<&'static str> = TYPES.into_iter().filter(|t| !real(t)).collect();
            self.pick(&ints)
        }
    }

    fn label(&mut self) -> u32 {
        self.lab += 1;
        self.lab
    }

    /// An index into an array of `n` elements: a constant, or an integer variable masked
    /// (`n` a power of two) or reduced into it.
    fn index(&mut self, sc: &Scope, n: usize) -> String {
        let ints: Vec<&Var> = sc.vars.iter().filter(|v| !real(v.1)).collect();
        if self.chance(3) || ints.is_empty() {
            return self.g.below(n).to_string();
        }
        let v = ints[self.g.below(ints.len())].0.clone();
        if n.is_power_of_two() {
            format!("(({v}) & {})", n - 1)
        } else {
            format!("UMOD({v}, {n})")
        }
    }

    fn leaf(&mut self, sc: &Scope, want_int: bool) -> (String, bool) {
        if self.chance(5) {
            let k = self.pick(&[
                "0",
                "1",
                "-1",
                "3",
                "7",
                "31",
                "255",
                "65536",
                "2147483647",
                "4294967295u",
                "-5",
                "100000",
                "1L",
                "0x80000000",
            ]);
            return (k.to_string(), false);
        }
        let kind = self.g.below(10);
        let (e, r) = if kind < 6 || sc.arrs.is_empty() {
            let (v, t) = sc.vars[self.g.below(sc.vars.len())].clone();
            (v, real(t))
        } else if kind < 8 {
            let (a, t, n) = sc.arrs[self.g.below(sc.arrs.len())].clone();
            (format!("{a}[{}]", self.index(sc, n)), real(t))
        } else if self.chance(3) {
            (format!("gm[{}][{}]", self.index(sc, 3), self.index(sc, 4)), false)
        } else {
            let (f, t) = self.pick(&[
                ("a", "int"),
                ("b", "unsigned char"),
                ("d", "double"),
                ("e", "long long"),
                ("c[0]", "short"),
                ("c[3]", "short"),
            ]);
            (format!("gs[{}].{f}", self.index(sc, 3)), real(t))
        };
        if r && want_int {
            (format!("D2I({e})"), false)
        } else {
            (e, r)
        }
    }

    fn expr(&mut self, sc: &Scope, depth: u32, want_int: bool) -> (String, bool) {
        if depth == 0 || self.chance(4) {
            return self.leaf(sc, want_int);
        }
        let op = self.pick(&OPS);
        let a = self.expr(sc, depth - 1, want_int || int_only(op));
        let b = self.expr(sc, depth - 1, want_int || int_only(op));
        let third = match op {
            "cast" => Third::Cast(self.ty()),
            "?:" => Third::Else(self.expr(sc, depth - 1, want_int)),
            _ => Third::None,
        };
        render(op, a, b, want_int, third)
    }

    fn lvalue(&mut self, sc: &Scope) -> (String, &'static str) {
        let k = self.g.below(10);
        if k < 5 || sc.arrs.is_empty() {
            return sc.vars[self.g.below(sc.vars.len())].clone();
        }
        if k < 8 {
            let (a, t, n) = sc.arrs[self.g.below(sc.arrs.len())].clone();
            return (format!("{a}[{}]", self.index(sc, n)), t);
        }
        let (f, t) =
            self.pick(&[("a", "int"), ("b", "unsigned char"), ("d", "double"), ("e", "long long"), ("c[1]", "short")]);
        (format!("gs[{}].{f}", self.index(sc, 3)), t)
    }

    fn assign(&mut self, sc: &Scope, ind: &str) -> String {
        let (lv, t) = self.lvalue(sc);
        if sc.ro.contains(&lv) {
            return String::new();
        }
        match self.g.below(12) {
            0 if !real(t) => return format!("{ind}{}{lv};\n", self.pick(&["++", "--"])),
            1 if !real(t) => return format!("{ind}{lv}{};\n", self.pick(&["++", "--"])),
            _ => {}
        }
        let op = self.pick(&["=", "=", "+=", "-=", "*=", "&=", "|=", "^=", "<<=", ">>="]);
        match (real(t), op) {
            (true, "&=" | "|=" | "^=" | "<<=" | ">>=") => format!("{ind}{lv} = {};\n", self.expr(sc, 2, false).0),
            (true, _) => format!("{ind}{lv} {op} {};\n", self.expr(sc, 2, false).0),
            (false, "<<=" | ">>=") => format!("{ind}{lv} {op} (({}) & 15);\n", self.expr(sc, 2, true).0),
            (false, _) => format!("{ind}{lv} {op} {};\n", self.expr(sc, 2, true).0),
        }
    }

    fn newvar(&mut self, sc: &mut Scope, t: &str) -> String {
        sc.n += 1;
        let name = format!("t{}", sc.n);
        sc.decls.push(if t.ends_with('*') { format!("{t} {name};") } else { format!("{t} {name} = 0;") });
        name
    }

    fn block(&mut self, sc: &mut Scope, ind: &str, depth: u32, in_loop: bool, ro: Option<&str>) -> String {
        if let Some(r) = ro {
            sc.ro.push(r.to_string());
        }
        let mut out = String::from("{\n");
        let inner = format!("{ind}    ");
        for _ in 0..1 + self.g.below(3) {
            out += &self.stmt(sc, &inner, depth, in_loop);
        }
        if ro.is_some() {
            sc.ro.pop();
        }
        out + ind + "}"
    }

    /// Formats and arguments for a `printf` of one to three random conversions.
    fn conversions(&mut self, sc: &Scope) -> (String, String) {
        let (mut convs, mut args) = (Vec::new(), Vec::new());
        for _ in 0..1 + self.g.below(3) {
            let mut flags = String::new();
            for _ in 0..self.g.below(3) {
                let f = self.pick(&['-', '+', ' ', '0', '#']);
                if !flags.contains(f) {
                    flags.push(f);
                }
            }
            let width = self.pick(&["", "", "5", "12", "1"]);
            let kind = self.pick(&[
                "d", "i", "u", "x", "X", "o", "ld", "lld", "lu", "lx", "hd", "hu", "hhd", "hhu", "c", "f", "e", "E",
                "g", "G", "a",
            ]);
            let mut prec = self.pick(&["", "", ".0", ".3", ".10"]);
            let cast = match kind {
                "d" | "i" | "hd" | "hhd" | "c" => "int",
                "u" | "x" | "X" | "o" | "hu" | "hhu" => "unsigned",
                "ld" => "long",
                "lld" => "long long",
                "lu" | "lx" => "unsigned long",
                _ => "double",
            };
            if kind == "c" {
                flags.retain(|f| f != '0' && f != '#');
                prec = "";
            }
            if kind == "a" && prec.len() > 2 {
                prec = ".2";
            }
            let (mut e, r) = self.expr(sc, 2, cast != "double");
            if kind == "c" {
                e = format!("(({e}) & 63) + 48");
            }
            if cast == "double" && !r && self.chance(3) {
                e = format!("({e}) / 7.0");
            }
            convs.push(format!("%{flags}{width}{prec}{kind}"));
            args.push(format!("({cast})({e})"));
        }
        (convs.join("] ["), args.join(", "))
    }

    fn stmt(&mut self, sc: &mut Scope, ind: &str, depth: u32, in_loop: bool) -> String {
        let k = self.g.below(32);
        if depth == 0 || k < 6 {
            return self.assign(sc, ind);
        }
        let d = depth - 1;
        match k {
            6 => {
                let c = self.expr(sc, 2, true).0;
                let body = self.block(sc, ind, d, in_loop, None);
                let els = if self.chance(2) {
                    format!(" else {}", self.block(sc, ind, d, in_loop, None))
                } else {
                    String::new()
                };
                format!("{ind}if ({c}) {body}{els}\n")
            }
            7 => {
                let i = self.newvar(sc, "int");
                let n = 1 + self.g.below(5);
                let body = self.block(sc, ind, d, true, Some(&i));
                format!("{ind}for ({i} = 0; {i} < {n}; {i}++) {body}\n")
            }
            8 => {
                let i = self.newvar(sc, "int");
                let n = 1 + self.g.below(4);
                let body = self.block(sc, ind, d, true, Some(&i));
                format!("{ind}{i} = {n};\n{ind}while ({i}-- > 0) {body}\n")
            }
            9 => {
                let i = self.newvar(sc, "int");
                let n = 1 + self.g.below(3);
                let body = self.block(sc, ind, d, true, Some(&i));
                format!("{ind}{i} = 0;\n{ind}do {body} while (++{i} < {n});\n")
            }
            10 => {
                let c = self.expr(sc, 2, true).0;
                let mut out = format!("{ind}switch (({c}) & 7) {{\n");
                let inner = format!("{ind}    ");
                let mut cases: Vec<usize> = (0..8).collect();
                for _ in 0..1 + self.g.below(4) {
                    let cv = cases.remove(self.g.below(cases.len()));
                    out += &format!("{ind}case {cv}:\n{}", self.stmt(sc, &inner, d, in_loop));
                    if self.chance(2) {
                        out += &format!("{inner}break;\n");
                    }
                }
                if self.chance(2) {
                    out += &format!("{ind}default:\n{}", self.stmt(sc, &inner, d, in_loop));
                }
                out + ind + "}\n"
            }
            11 if in_loop => {
                let c = self.expr(sc, 2, true).0;
                format!("{ind}if ({c}) {};\n", self.pick(&["break", "continue"]))
            }
            12 if !sc.arrs.is_empty() => {
                // Through a pointer into an array: its first half, so that `p[i]` and
                // `*(p + 1)` stay inside.
                let (a, t, n) = sc.arrs[self.g.below(sc.arrs.len())].clone();
                let p = self.newvar(sc, &format!("{t} *"));
                let half = n / 2;
                let (i, j) = if half.is_power_of_two() {
                    (self.index(sc, half), self.index(sc, half))
                } else {
                    ("0".into(), "1".into())
                };
                let e = self.expr(sc, 2, !real(t)).0;
                format!("{ind}{p} = &{a}[{i}];\n{ind}{p}[{j}] += {e};\n{ind}*({p} + 1) = *{p};\n")
            }
            13 if !self.funcs.is_empty() => {
                let f = self.g.below(self.funcs.len());
                let params = self.funcs[f].params.clone();
                let args: Vec<String> = params.iter().map(|t| self.expr(sc, 2, !real(t)).0).collect();
                let (name, ret) = (self.funcs[f].name.clone(), self.funcs[f].ret);
                let v = self.newvar(sc, ret);
                sc.vars.push((v.clone(), ret));
                format!("{ind}{v} = {name}({});\n", args.join(", "))
            }
            15 => {
                let (convs, args) = self.conversions(sc);
                let l = self.label();
                format!("{ind}printf(\"P{l}: [{convs}]\\n\", {args});\n")
            }
            16 => {
                let l = self.label();
                let (e1, e2) = (self.expr(sc, 2, true).0, self.expr(sc, 2, false).0);
                format!(
                    "{ind}sprintf(buf, \"%d|%.4g|%x\", (int)({e1}), (double)({e2}), (unsigned)({e1}));\n\
                     {ind}printf(\"S{l}: %s %d\\n\", buf, (int)strlen(buf));\n"
                )
            }
            17 => {
                let v = self.newvar(sc, "long");
                sc.vars.push((v.clone(), "long"));
                let (n, k) = (self.expr(sc, 2, true).0, self.expr(sc, 2, true).0);
                format!("{ind}{v} = rec(UMOD({n}, 7), {k});\n")
            }
            18 => {
                let v = self.newvar(sc, "int");
                sc.vars.push((v.clone(), "int"));
                let (f, a, b) = (self.expr(sc, 1, true).0, self.expr(sc, 2, true).0, self.expr(sc, 2, true).0);
                format!("{ind}{v} = hp[UMOD({f}, 3)]((int)({a}), (int)({b}));\n")
            }
            19 => {
                let (i, j, c) = (self.index(sc, 3), self.index(sc, 3), self.index(sc, 4));
                let (e, k) = (self.expr(sc, 2, true).0, self.expr(sc, 1, true).0);
                format!("{ind}{{ struct S sv = gs[{i}]; sv.a += {e}; sv.c[{c}] = sv.b; gs[{j}] = twist(sv, {k}); }}\n")
            }
            20 => {
                let (i, j) = (self.index(sc, 3), self.index(sc, 4));
                let op = self.pick(&["=", "+=", "^="]);
                format!("{ind}gm[{i}][{j}] {op} {};\n", self.expr(sc, 2, true).0)
            }
            21 => {
                let l = self.label();
                let c = self.expr(sc, 2, true).0;
                format!("{ind}if ({c}) goto skip{l};\n{}{ind}skip{l}: ;\n", self.assign(sc, ind))
            }
            22 => {
                let l = self.label();
                let (n, m) = (self.expr(sc, 1, true).0, self.expr(sc, 1, true).0);
                format!(
                    "{ind}{{ struct node *h = 0, *q; int i, m = UMOD({n}, 6) + 1; long sum = 0;\n\
                     {ind}  for (i = 0; i < m; i++) {{ q = (struct node *)malloc(sizeof(struct node)); q->v = i * {m}; q->next = h; h = q; }}\n\
                     {ind}  for (q = h; q != NULL; q = q->next) sum = sum * 3 + q->v;\n\
                     {ind}  while (h) {{ q = h->next; free(h); h = q; }}\n\
                     {ind}  printf(\"N{l}: %ld\\n\", sum); }}\n"
                )
            }
            23 => {
                let l = self.label();
                let e = self.expr(sc, 2, true).0;
                format!(
                    "{ind}{{ char a[40], b[40]; int i;\n\
                     {ind}  sprintf(a, \"%d\", (int)({e})); strcpy(b, \"x=\"); strcat(b, a); strncat(b, \"abcdef\", UMOD({e}, 5));\n\
                     {ind}  for (i = 0; b[i]; i++) if (b[i] >= '0' && b[i] <= '9') b[i] = 'a' + (b[i] - '0');\n\
                     {ind}  memset(a, 'z', 3); a[3] = 0;\n\
                     {ind}  printf(\"T{l}: %s %s %d %d %d\\n\", b, a, (int)strlen(b), strcmp(a, b) > 0, strncmp(b, \"x=\", 2)); }}\n"
                )
            }
            24 => {
                let l = self.label();
                let (t, e) = (self.expr(sc, 1, true).0, self.expr(sc, 2, false).0);
                format!(
                    "{ind}{{ U_t u; u.tag = UMOD({t}, 2);\n\
                     {ind}  if (u.tag) u.d = {e}; else u.i = D2I({e});\n\
                     {ind}  printf(\"U{l}: %d %.17g\\n\", u.tag, u.tag ? u.d : (double)u.i); }}\n"
                )
            }
            25 => {
                let l = self.label();
                let a = self.expr(sc, 1, true).0;
                format!(
                    "{ind}{{ int i, j, c = 0; for (i = 0, j = UMOD({a}, 9); i < j; i++, j--) c += i * j;\n\
                     {ind}  printf(\"C{l}: %d %d %d\\n\", i, j, c); }}\n"
                )
            }
            26 => {
                let l = self.label();
                let x = self.expr(sc, 2, true).0;
                format!(
                    "{ind}{{ int **pp, *p, x = (int)({x}); enum col e = UMOD(x, 3);\n\
                     {ind}  p = &x; pp = &p; **pp += e == GREEN ? 10 : e == BLUE ? 20 : 30;\n\
                     {ind}  p = &gm[UMOD(x, 3)][0]; p[UMOD(x, 4)] ^= x; printf(\"Q{l}: %d %d %d\\n\", x, (int)(&gm[2][3] - p), *p); }}\n"
                )
            }
            27 => {
                // Bit-fields: every store wraps into the field's bits (gcc's choice for
                // the signed ones, which cpcc documents as its own).
                let l = self.label();
                let f = self.pick(&["a", "b", "c", "d"]);
                let op = self.pick(&["=", "+=", "^=", "-="]);
                let e = self.expr(sc, 2, true).0;
                format!(
                    "{ind}gb.{f} {op} {e};\n\
                     {ind}printf(\"B{l}: %u %d %u %d\\n\", gb.a, gb.b, gb.c, gb.d);\n"
                )
            }
            28 => {
                let v = self.newvar(sc, "long");
                sc.vars.push((v.clone(), "long"));
                let args: Vec<String> = (0..3).map(|_| format!("(int)({})", self.expr(sc, 2, true).0)).collect();
                let n = 1 + self.g.below(3);
                format!("{ind}{v} = vsum({n}, {});\n", args.join(", "))
            }
            29 => {
                let v = self.newvar(sc, "double");
                sc.vars.push((v.clone(), "double"));
                let args: Vec<String> = (0..2).map(|_| format!("(double)({})", self.expr(sc, 2, false).0)).collect();
                format!("{ind}{v} = vmix(2, {});\n", args.join(", "))
            }
            30 => {
                let (i, j, k) = (self.index(sc, 3), self.index(sc, 4), self.index(sc, 4));
                let e = self.expr(sc, 2, true).0;
                format!(
                    "{ind}{{ struct S *sp = &gs[{i}]; sp->a ^= {e};\n\
                     {ind}  sp->c[{j}] += (struct S){{1, 2, {{3, 4, 5}}, 0.5, 6}}.c[{k}]; }}\n"
                )
            }
            31 => {
                let v = self.newvar(sc, "int");
                sc.vars.push((v.clone(), "int"));
                let e = self.expr(sc, 2, true).0;
                format!("{ind}{v} = \"hello, World\"[UMOD({e}, 12)] + 'A' - 'a';\n")
            }
            _ => {
                let l = self.label();
                format!("{ind}printf(\"L{l}: %llu\\n\", (unsigned long long){});\n", self.expr(sc, 3, true).0)
            }
        }
    }

    fn func(&mut self, idx: usize) -> String {
        let name = format!("f{idx}");
        let ret = self.ty();
        let params: Vec<&'static str> = (0..self.g.below(4)).map(|_| self.ty()).collect();
        let mut sc = Scope::default();
        let pvars: Vec<Var> = params.iter().enumerate().map(|(i, t)| (format!("p{i}"), *t)).collect();
        // Locals' initialisers read the parameters and the globals only.
        let init = Scope {
            vars: pvars.iter().cloned().chain(self.globals.iter().cloned()).collect(),
            arrs: self.garrs.clone(),
            ..Scope::default()
        };
        sc.vars = pvars;
        let mut head = String::from("    static int calls = 0;\n    calls++;\n");
        for i in 0..1 + self.g.below(3) {
            let t = self.ty();
            head += &format!("    {t} l{i} = {};\n", self.expr(&init, 1, !real(t)).0);
            sc.vars.push((format!("l{i}"), t));
        }
        if self.chance(2) {
            let t = self.ty();
            head += &format!("    {t} la[8] = {{1, 2, 3}};\n");
            sc.arrs.push(("la".into(), t, 8));
        }
        sc.vars.extend(self.globals.iter().cloned());
        sc.arrs.extend(self.garrs.iter().cloned());
        let mut body = String::new();
        for _ in 0..2 + self.g.below(4) {
            body += &self.stmt(&mut sc, "    ", 2, false);
        }
        let decls: String = sc.decls.iter().map(|d| format!("    {d}\n")).collect();
        let r = self.expr(&sc, 3, !real(ret)).0;
        let sig = if params.is_empty() {
            "void".to_string()
        } else {
            params.iter().enumerate().map(|(i, t)| format!("{t} p{i}")).collect::<Vec<_>>().join(", ")
        };
        self.funcs.push(Func { name: name.clone(), ret, params });
        format!("{ret} {name}({sig}) {{\n{head}{decls}{body}    return ({ret})({r}) + calls;\n}}\n")
    }

    fn program(seed: u64) -> String {
        Self::program_of(seed, false)
    }

    /// With `parallel`, a CPC program: `main` forks 1 to 6 workers onto a virtual
    /// fully connected machine mapped onto a mesh of 2 to 6 processors (so that some
    /// share a processor), each worker runs generated statements over the shared globals
    /// and sends a value on a channel, and `main` prints what it receives, joins them
    /// and prints the globals.
    fn program_of(seed: u64, parallel: bool) -> String {
        let mut x = ProgGen { g: Gen(seed), funcs: Vec::new(), globals: Vec::new(), garrs: Vec::new(), lab: 0 };
        let mut out = String::from(PRELUDE);
        for i in 0..8 {
            let t = x.ty();
            let v = x.pick(&["0", "1", "-1", "7", "255", "65535", "2147483647", "-98765"]);
            out += &format!("{t} g{i} = {v};\n");
            x.globals.push((format!("g{i}"), t));
        }
        for i in 0..3 {
            let (t, n) = (x.ty(), x.pick(&[8, 4, 5]));
            out += &format!("{t} ga{i}[{n}];\n");
            x.garrs.push((format!("ga{i}"), t, n));
        }
        for i in 0..2 + x.g.below(4) {
            out += &x.func(i);
        }
        let workers = 1 + x.g.below(6);
        if parallel {
            let (rows, cols) = x.pick(&[(1, 2), (2, 2), (2, 3), (1, 3)]);
            out += &format!(
                "arch fullconnect F[{}];\nphyArch mesh PM[{rows}][{cols}];\nchannel int reply;\n",
                workers + 1
            );
            let mut sc = Scope { vars: vec![("w".into(), "int")], arrs: x.garrs.clone(), ..Scope::default() };
            sc.vars.extend(x.globals.iter().cloned());
            let mut body = String::new();
            for _ in 0..2 + x.g.below(5) {
                body += &x.stmt(&mut sc, "    ", 3, false);
            }
            let r = x.expr(&sc, 3, true).0;
            let decls: String = sc.decls.iter().map(|d| format!("    {d}\n")).collect();
            out += &format!("void worker(int w) {{\n{decls}{body}    reply = (int)({r}) * 8 + w;\n}}\n");
        }
        let mut sc = Scope { vars: x.globals.clone(), arrs: x.garrs.clone(), ..Scope::default() };
        let mut body = String::new();
        for i in 0..3 {
            body += &format!(
                "    gs[{i}].a = {}; gs[{i}].d = {i}.5; gs[{i}].e = {i}000000000LL; gs[{i}].b = {};\n",
                i * 7 - 3,
                200 + i
            );
        }
        for _ in 0..4 + x.g.below(6) {
            body += &x.stmt(&mut sc, "    ", 3, false);
        }
        if parallel {
            body += &format!(
                "    {{ int w, k;\n      for (w = 1; w <= {workers}; w++) fork [w] worker(w);\n\
                 \x20     for (k = 0; k < {workers}; k++) printf(\"got %d\\n\", reply);\n\
                 \x20     for (w = 1; w <= {workers}; w++) join; }}\n"
            );
        }
        let show = |t: &str| if real(t) { "\"%.17g\\n\", (double)" } else { "\"%llu\\n\", (unsigned long long)" };
        for f in 0..x.funcs.len() {
            let params = x.funcs[f].params.clone();
            let args: Vec<String> = params.iter().map(|t| x.expr(&sc, 2, !real(t)).0).collect();
            body += &format!("    printf({}{}({}));\n", show(x.funcs[f].ret), x.funcs[f].name, args.join(", "));
        }
        for (v, t) in &x.globals {
            body += &format!("    printf(\"{v} \"); printf({}{v});\n", show(t));
        }
        for (a, t, n) in &x.garrs {
            for k in 0..*n {
                body += &format!("    printf({}{a}[{k}]);\n", show(t));
            }
        }
        body += "    printf(\"%u %d %u %d\\n\", gb.a, gb.b, gb.c, gb.d);\n";
        for i in 0..3 {
            body += &format!(
                "    printf(\"%d %d %d %.17g %lld | %d %d %d %d | %d %d\\n\", gs[{i}].a, gs[{i}].b, gs[{i}].c[1], \
                 gs[{i}].d, gs[{i}].e, gm[{i}][0], gm[{i}][1], gm[{i}][2], gm[{i}][3], gs[{i}].c[0], gs[{i}].c[3]);\n"
            );
        }
        let decls: String = sc.decls.iter().map(|d| format!("    {d}\n")).collect();
        out + &format!("int main() {{\n{decls}{body}    return 0;\n}}\n")
    }
}

/// 200 generated parallel programs ([`ProgGen::program_of`], fixed seeds) print the same
/// output and statistics, and end the same way, under the debugger as in a plain run
/// (the processes race on the globals, so a division guard may read another value than
/// the division it guards: a runtime error, deterministic too), where processors share
/// the pool (remote reads and writes of the globals, a channel, processes sharing a
/// processor) and the interpreter takes its checked stretches. A longer campaign:
/// `CPPE_GEN_SEEDS=A..B`.
#[test]
fn generated_parallel_programs_run_the_same_under_the_debugger() {
    let range = seeds(200);
    let dir = tempdir("generated-parallel");
    let mut failures = Vec::new();
    for seed in range {
        let c = dir.join(format!("p{seed}.c"));
        std::fs::write(&c, ProgGen::program_of(seed, true)).unwrap();
        let cod = dir.join(format!("p{seed}.cod"));
        let out = run_in(&dir, "cpcc", &[c.to_str().unwrap(), "-o", cod.to_str().unwrap()], b"");
        if out.status.code() != Some(0) {
            failures.push(format!("cpcc on {}: {}", c.display(), String::from_utf8_lossy(&out.stderr)));
            continue;
        }
        if let Some(d) = same_under_the_debugger(&dir, &cod) {
            failures.push(format!("{}: {d}", c.display()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The seeds `CPPE_GEN_SEEDS` gives (`A..B`, both included), else 1 to `n`.
fn seeds(n: u64) -> std::ops::RangeInclusive<u64> {
    let given = std::env::var("CPPE_GEN_SEEDS").ok().and_then(|s| {
        let (a, b) = s.split_once("..")?;
        Some(a.parse().ok()?..=b.parse().ok()?)
    });
    given.unwrap_or(1..=n)
}

/// The program's output and statistics (but the host time) of a plain run of `cod`, where
/// the interpreter runs translated stretches and the flat form, and of a run under the
/// debugger (`run`), where it runs every instruction alone: `None` when they are equal,
/// else the first line that differs.
fn same_under_the_debugger(dir: &std::path::Path, cod: &std::path::Path) -> Option<String> {
    let c = cod.to_str().unwrap();
    let plain = run_in(dir, "cpss", &[c], b"");
    let debug = run_in(dir, "cpss", &[c, "--debug"], b"run\n");
    // A race between processes may end the run with a runtime error: the same one.
    if (plain.status.code(), &plain.stderr) != (debug.status.code(), &debug.stderr) {
        return Some(format!(
            "a plain run exits {:?} ({}), under the debugger {:?} ({})",
            plain.status.code(),
            String::from_utf8_lossy(&plain.stderr).trim(),
            debug.status.code(),
            String::from_utf8_lossy(&debug.stderr).trim()
        ));
    }
    let keep = |l: &&str| !l.starts_with("Host Time") && !l.starts_with("The run stopped: ");
    let plain = String::from_utf8_lossy(&plain.stdout).into_owned();
    let debug = String::from_utf8_lossy(&debug.stdout).replace("(cpss) ", "");
    let debug: Vec<&str> =
        debug.lines().filter(|l| !l.starts_with("The program ended at time") && *l != "quit").filter(keep).collect();
    let plain: Vec<&str> = plain.lines().filter(keep).collect();
    if plain == debug {
        return None;
    }
    let k = plain.iter().zip(&debug).position(|(a, b)| a != b).unwrap_or(plain.len().min(debug.len()));
    Some(format!(
        "line {} of a plain run is {:?}, under the debugger {:?}",
        k + 1,
        plain.get(k).unwrap_or(&""),
        debug.get(k).unwrap_or(&"")
    ))
}

/// 160 generated programs (fixed seeds; about 10 s) print under cpss what gcc's builds print, line
/// for line, and print it and the same statistics under the debugger, whose interpreter
/// runs one instruction at a time ([`same_under_the_debugger`]). Skipped, and says so,
/// without gcc. (A longer campaign: `CPPE_GEN_SEEDS=A..B`.)
/// It can fail: with `printf`'s `h` ignored, seeds 116 and 159 print other lines; the
/// first campaigns found that, `hh`, and the sign of a NaN.
#[test]
fn generated_programs_print_what_gcc_s_builds_print() {
    if !crate::conformance::have_gcc("generated programs are not compared with it") {
        return;
    }
    let range = seeds(160);
    let dir = tempdir("generated");
    let mut failures = Vec::new();
    for seed in range {
        let c = dir.join(format!("g{seed}.c"));
        std::fs::write(&c, ProgGen::program(seed)).unwrap();
        let want = crate::conformance::generated_gcc_output(&c);
        let cod = dir.join(format!("g{seed}.cod"));
        let out = run_in(&dir, "cpcc", &[c.to_str().unwrap(), "-o", cod.to_str().unwrap()], b"");
        if out.status.code() != Some(0) {
            failures.push(format!("cpcc on {}: {}", c.display(), String::from_utf8_lossy(&out.stderr)));
            continue;
        }
        let run = run_in(&dir, "cpss", &[cod.to_str().unwrap(), "--stats", "none"], b"");
        let (want, got) = (String::from_utf8_lossy(&want), String::from_utf8_lossy(&run.stdout));
        if run.status.code() != Some(0) {
            failures.push(format!("cpss on {}: {}", c.display(), String::from_utf8_lossy(&run.stderr)));
        } else if let Some((w, g)) = want.lines().zip(got.lines()).find(|(w, g)| w != g) {
            failures.push(format!("{}: gcc's build prints {w:?}, cpss {g:?}", c.display()));
        } else if want.lines().count() != got.lines().count() {
            failures.push(format!(
                "{}: {} lines from gcc's build, {} from cpss",
                c.display(),
                want.lines().count(),
                got.lines().count()
            ));
        } else if let Some(d) = same_under_the_debugger(&dir, &cod) {
            failures.push(format!("{}: {d}", c.display()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
