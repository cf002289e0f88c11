//! Tests of [`super`] (the parser).
use super::super::{parse_text, SourceMap};
use super::*;
use proptest::prelude::*;

/// Figure 28 of seed 000 with the OCR damage repaired (`fixtures/matmul.c`).
const MATMUL: &str = include_str!("../../../fixtures/matmul.c");

fn ok(src: &str) -> Program {
    let (p, d) = parse_text(src);
    assert!(d.is_empty(), "unexpected diagnostics: {d:#?}");
    p
}

fn diags(src: &str) -> Vec<(u32, u32, String)> {
    parse_text(src).1.into_iter().map(|d| (d.loc.line, d.loc.col, d.message)).collect()
}

fn funcs(p: &Program) -> Vec<&FuncDef> {
    p.items.iter().filter_map(|i| if let Item::Func(f) = i { Some(f) } else { None }).collect()
}

/// A compact rendering of an expression tree: binary `(op l r)`, unary `(op e)`.
fn sexp(e: &Expr) -> String {
    match &e.kind {
        ExprKind::IntLit(v) => v.to_string(),
        ExprKind::UIntLit(v) => format!("{v}u"),
        ExprKind::LongLit(v) => format!("{v}L"),
        ExprKind::ULongLit(v) => format!("{v}UL"),
        ExprKind::FloatLit(v) => format!("{v:?}f"),
        ExprKind::DoubleLit(v) => format!("{v:?}"),
        ExprKind::CharLit(c) => format!("'{}'", *c as char),
        ExprKind::StrLit(s) => format!("{:?}", String::from_utf8_lossy(s)),
        ExprKind::WStrLit(s) => format!("L{:?}", s),
        ExprKind::Ident(n) => n.to_string(),
        ExprKind::Unary(op, x) => format!("({op:?} {})", sexp(x)),
        ExprKind::Binary(op, ab) => format!("({op:?} {} {})", sexp(&ab.0), sexp(&ab.1)),
        ExprKind::Assign(op, ab) => format!("(= {op:?} {} {})", sexp(&ab.0), sexp(&ab.1)),
        ExprKind::IncDec { pre, inc, expr } => {
            format!("({}{} {})", if *pre { "pre" } else { "post" }, if *inc { "++" } else { "--" }, sexp(expr))
        }
        ExprKind::Cond(c, a, b) => format!("(? {} {} {})", sexp(c), sexp(a), sexp(b)),
        ExprKind::Call { name, args, .. } => {
            format!("(call {name}{})", args.iter().map(|a| format!(" {}", sexp(a))).collect::<String>())
        }
        ExprKind::Index(ai) => format!("([] {} {})", sexp(&ai.0), sexp(&ai.1)),
        ExprKind::Member { expr, field, arrow, .. } => {
            format!("({} {} {field})", if *arrow { "->" } else { "." }, sexp(expr))
        }
        ExprKind::Cast(t, x) => format!("(cast {:?}{} {})", t.base.base, "*".repeat(t.pointers as usize), sexp(x)),
        ExprKind::SizeofType(t) => format!("(sizeof {:?})", t.base.base),
        ExprKind::SizeofExpr(x) => format!("(sizeof {})", sexp(x)),
        ExprKind::Comma(ab) => format!("(, {} {})", sexp(&ab.0), sexp(&ab.1)),
        ExprKind::Compound(ti) => format!("(compound {:?})", ti.0.base.base),
        ExprKind::CallPtr(f, args) => {
            format!("(callptr {}{})", sexp(f), args.iter().map(|a| format!(" {}", sexp(a))).collect::<String>())
        }
    }
}

fn body(p: &Program, i: usize) -> &[Stmt] {
    funcs(p).get(i).and_then(|f| f.body.as_ref()).map_or(&[], |b| &b.stmts)
}

fn expr_of(src: &str) -> String {
    let p = ok(&format!("void f() {{ {src}; }}"));
    match &body(&p, 0)[0].kind {
        StmtKind::Expr(e) => sexp(e),
        other => panic!("not an expression statement: {other:?}"),
    }
}

#[test]
fn matmul_figure_28_parses() {
    let p = ok(MATMUL);
    let names: Vec<_> = funcs(&p).iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["main", "pMultify", "multiply"]);
    let Item::Arch(a) = &p.items[0] else { panic!("{:?}", p.items[0]) };
    assert_eq!((a.topo.as_str(), a.name.as_str(), a.dims.len()), ("torus", "T", 2));
    // `n` was replaced by 8 at the places `n` was written (line 3, columns 14 and 17).
    assert_eq!(a.dims[0].kind, ExprKind::IntLit(8));
    assert_eq!((a.dims[0].loc.line, a.dims[0].loc.col), (3, 14));
    assert_eq!((a.dims[1].loc.line, a.dims[1].loc.col), (3, 17));
    let Item::PhyArch(l) = &p.items[1] else { panic!() };
    assert_eq!((l.topo.as_str(), l.dims.len()), ("mesh", 2));
    let Item::Channel(c) = &p.items[2] else { panic!() };
    assert_eq!(c.ty.base, BaseType::Float);
    let chans: Vec<_> = c.decls.iter().map(|d| (&*d.name, d.dims.len())).collect();
    assert_eq!(chans, [("Achan", 2), ("Bchan", 2)]);

    let pm = funcs(&p)[1];
    assert_eq!(pm.params.len(), 3);
    assert!(pm.params.iter().all(|q| q.decl.is_ref && q.decl.dims.len() == 2 && q.ty.base == BaseType::Float));
    let StmtKind::Forall { var, lo, hi, grouping: None, body: inner, .. } = &body(&p, 1)[1].kind else {
        panic!("{:?}", body(&p, 1)[1])
    };
    assert_eq!((var.as_str(), sexp(lo), sexp(hi)), ("i", "0".to_string(), "(Sub 8 1)".to_string()));
    let StmtKind::Forall { var, body: fork, .. } = &inner.kind else { panic!() };
    assert_eq!(var, "j");
    let StmtKind::Fork { vproc: Some(v), chans, call } = &fork.kind else { panic!("{fork:?}") };
    assert_eq!(sexp(v), "(Add (Mul i 8) j)");
    assert_eq!(chans.iter().map(sexp).collect::<Vec<_>>(), ["([] ([] Achan i) j)", "([] ([] Bchan i) j)"]);
    let ExprKind::Call { name, args, .. } = &call.kind else { panic!() };
    assert_eq!((&**name, args.len()), ("multiply", 5));

    let mul = funcs(&p)[2];
    assert_eq!(mul.params.iter().filter(|q| q.decl.is_ref).count(), 1);
    // Declarations, two if/else, `myC = 0`, the for loop, the final assignment.
    assert_eq!(body(&p, 2).len(), 7);
}

#[test]
fn precedence_and_associativity() {
    assert_eq!(expr_of("a + b * c"), "(Add a (Mul b c))");
    assert_eq!(expr_of("a - b - c"), "(Sub (Sub a b) c)");
    assert_eq!(expr_of("a = b = c"), "(= None a (= None b c))");
    assert_eq!(expr_of("a += b -= 2"), "(= Some(Add) a (= Some(Sub) b 2))");
    assert_eq!(expr_of("x ? y : z ? w : v"), "(? x y (? z w v))");
    assert_eq!(expr_of("-a[i]"), "(Neg ([] a i))");
    assert_eq!(expr_of("*p++"), "(Deref (post++ p))");
    assert_eq!(expr_of("(float)x / 2"), "(Div (cast Float x) 2)");
    assert_eq!(expr_of("a, b = 1, c"), "(, (, a (= None b 1)) c)");
    assert_eq!(
        expr_of("a || b && c | d ^ e & f == g < h << i"),
        "(Or a (And b (BitOr c (BitXor d (BitAnd e (Eq f (Lt g (Shl h i))))))))"
    );
    assert_eq!(expr_of("!~-x"), "(Not (BitNot (Neg x)))");
    assert_eq!(expr_of("&s.f->g[1]"), "(Addr ([] (-> (. s f) g) 1))");
    assert_eq!(expr_of("sizeof(int) + sizeof x + sizeof(y)"), "(Add (Add (sizeof Int) (sizeof x)) (sizeof y))");
    assert_eq!(expr_of("(char*)p"), "(cast Char* p)");
    assert_eq!(expr_of("++i + i--"), "(Add (pre++ i) (post-- i))");
    assert_eq!(expr_of("f(a, (b, c))"), "(call f a (, b c))");
    assert_eq!(expr_of(r#"printf("a" "b", 'c')"#), r#"(call printf "ab" 'c')"#);
    assert_eq!(expr_of("a ? b , c : d"), "(? a (, b c) d)");
}

#[test]
fn declarations_and_statements() {
    let src = "struct P { int x, y; float w[2]; };
struct Q { struct P p; } q, *qp;
spinlock s;
int v[2][3] = {{1, 2, 3}, {4}};
int f(void);
int g(int, float *, int a[]);
main() {
int to = 1, from = 2;
struct { int k; } anon;
for (int i = 0; i < 3; i++) { continue; }
do to--; while (to > 0);
switch (from) { case 1: break; default: to = 0; }
int inner(int z) { return z + from; }
fork inner(1);
fork [3] inner(2);
forall (i from 0 to 7 grouping 2) lock(s);
join;
return;
}";
    let p = ok(src);
    let kinds: Vec<String> = p
        .items
        .iter()
        .map(|i| match i {
            Item::Struct(s) => format!("struct {}", s.name),
            Item::Var(v) => {
                format!("var {}", v.decls.iter().map(|d| &*d.name).collect::<Vec<_>>().join(","))
            }
            Item::Func(f) => format!("func {}{}", f.name, if f.body.is_some() { "{}" } else { ";" }),
            other => format!("{other:?}"),
        })
        .collect();
    assert_eq!(kinds, ["struct P", "struct Q", "var q,qp", "var s", "var v", "func f;", "func g;", "func main{}"]);
    let Item::Var(qs) = &p.items[2] else { panic!() };
    assert_eq!(qs.ty.base, BaseType::Struct("Q".into()));
    assert_eq!(qs.decls[1].pointers, 1);
    let Item::Func(g) = &p.items[6] else { panic!() };
    let pd: Vec<_> = g.params.iter().map(|q| (&*q.decl.name, q.decl.pointers, q.decl.dims.len())).collect();
    assert_eq!(pd, [("", 0, 0), ("", 1, 0), ("a", 0, 1)]);
    let Item::Var(v) = &p.items[4] else { panic!() };
    let Some(Init::List(rows, _)) = &v.decls[0].init else { panic!() };
    assert_eq!(rows.len(), 2);
    let stmts: Vec<&str> = body(&p, 2)
        .iter()
        .map(|s| match &s.kind {
            StmtKind::Decl(_) => "decl",
            StmtKind::Struct(_) => "struct",
            StmtKind::For { init: Some(_), .. } => "for",
            StmtKind::DoWhile { .. } => "do",
            StmtKind::Switch { body, .. } if body.stmts.len() == 4 => "switch",
            StmtKind::Func(f) if f.body.is_some() => "func",
            StmtKind::Fork { vproc: None, chans, .. } if chans.is_empty() => "fork",
            StmtKind::Fork { vproc: Some(_), chans, .. } if chans.is_empty() => "fork[v]",
            StmtKind::Forall { grouping: Some(_), .. } => "forall",
            StmtKind::Join => "join",
            StmtKind::Return(None) => "return",
            _ => "?",
        })
        .collect();
    // The anonymous struct is hoisted before the declaration that uses it.
    assert_eq!(
        stmts,
        ["decl", "struct", "decl", "for", "do", "switch", "func", "fork", "fork[v]", "forall", "join", "return"]
    );
}

#[test]
fn missing_semicolon_points_after_the_previous_token() {
    let src = "void main() {\n  int x;\n  x = 1\n}\n";
    let (_, d) = parse_text(src);
    let mut sm = SourceMap::default();
    sm.add("p.c", src);
    assert_eq!(d.len(), 1);
    assert_eq!(
        sm.render(&d[0]),
        "p.c:3:8: error: expected `;` after expression, found `}`\n 3 |   x = 1\n   |        ^\n"
    );
    // On a later line the `;` is taken as forgotten and the next statement still parses.
    let (p, d) = parse_text("void f() {\n  a = 1\n  b = 2;\n}");
    assert_eq!(d.len(), 1);
    assert_eq!(body(&p, 0).len(), 2);
}

#[test]
fn lexical_errors_through_the_whole_front_end() {
    assert_eq!(diags("int x;\n  /* oops\nint y;"), [(2, 3, "unterminated comment".to_string())]);
    assert_eq!(
        diags("void f() {\n  printf(\"hi);\n}\n"),
        [
            (2, 10, "unterminated string literal".to_string()),
            (3, 1, "expected `)` to close the argument list, found `}`".to_string())
        ]
    );
    // The unterminated literal `'a;` is 3 bytes long, so the `;` belongs at column 13.
    assert_eq!(
        diags("char c = 'a;\n"),
        [
            (1, 10, "unterminated character literal".to_string()),
            (1, 13, "expected `;` after declaration, found end of file".to_string())
        ]
    );
}

#[test]
fn preprocessor_errors_through_the_whole_front_end() {
    assert_eq!(diags("#pragmatic x\nint y;"), [(1, 2, "unknown preprocessor directive `#pragmatic`".to_string())]);
    assert_eq!(diags("#error stop here\nint y;"), [(1, 2, "#error stop here".to_string())]);
    assert_eq!(diags("int y;\n#include \"x.h\"\n"), [(2, 10, "cannot find include file `x.h`".to_string())]);
    // C's rule: the inner `A` stays as it is; parsing it is no error (the checker then
    // reports it undeclared, explained as a recursive macro expansion).
    assert_eq!(diags("#define A B\n#define B A\nint x = A;\n"), []);
    assert_eq!(
        diags("int a;\n#else\nint b;\n#endif\n"),
        [
            (2, 2, "`#else` without `#if`, `#ifdef` or `#ifndef`".to_string()),
            (4, 2, "`#endif` without `#if`, `#ifdef` or `#ifndef`".to_string())
        ]
    );
}

#[test]
fn unexpected_tokens() {
    assert_eq!(diags("int x = );"), [(1, 9, "expected an expression, found `)`".to_string())]);
    assert_eq!(
        diags("void f() { if x) y(); }"),
        [(1, 15, "expected `(` after `if`, found identifier `x`".to_string())]
    );
    assert_eq!(diags("quux d;"), [(1, 1, "unknown type name `quux`".to_string())]);
    assert_eq!(
        diags("void f() { forall (i = 0 to 3) g(); }"),
        [(1, 22, "expected `from` in the `forall` header, found `=`".to_string())]
    );
    assert_eq!(
        diags("void f() {\n  x = 1;\n"),
        [(3, 1, "expected `}` to close the block opened at line 1, found end of file".to_string())]
    );
}

#[test]
fn several_errors_in_one_file_are_all_reported() {
    let src = "int a = ;\nvoid f() {\n  x = 1 + * ;\n  if (x) { y = 2 }\n  z = 3;\n}\nint ok;\n";
    assert_eq!(
        diags(src),
        [
            (1, 9, "expected an expression, found `;`".to_string()),
            (3, 13, "expected an expression, found `;`".to_string()),
            (4, 17, "expected `;` after expression, found `}`".to_string()),
        ]
    );
    // Recovery keeps the later good declarations.
    let (p, _) = parse_text(src);
    assert!(matches!(p.items.last(), Some(Item::Var(v)) if &*v.decls[0].name == "ok"));
    assert_eq!(body(&p, 0).len(), 2, "the `if` and `z = 3;` survive");
}

/// Runs `f` on a thread with the 8 MiB stack a program's main thread gets, since the
/// unoptimised test build spends several KiB of stack per nesting level (optimised
/// builds a fraction of that).
fn with_main_stack(f: impl FnOnce() + Send + 'static) {
    let h = std::thread::Builder::new().stack_size(8 << 20).spawn(f);
    assert!(h.map(|h| h.join().is_ok()).unwrap_or(false), "deep-nesting check failed");
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    with_main_stack(deep_nesting_checks);
}

fn deep_nesting_checks() {
    let deep = format!("int x = {}1{};\nint y;", "(".repeat(100_000), ")".repeat(100_000));
    let d = diags(&deep);
    assert_eq!(d.len(), 1, "{:?}", &d[..d.len().min(5)]);
    assert!(d[0].2.starts_with("nesting too deep"));
    let blocks = format!("void f() {}{}\nint z;", "{".repeat(50_000), "}".repeat(50_000));
    let (p, d) = parse_text(&blocks);
    assert_eq!(d.len(), 1, "{d:?}");
    // Parsing stops at the error: `f` is kept (truncated), `z` is not reached.
    assert_eq!(p.items.len(), 1);
    let unary = format!("int x = {}1;", "-".repeat(100_000));
    assert_eq!(diags(&unary).len(), 1);
    // Every other way to nest: one "nesting too deep" error each, no stack overflow.
    let n = 5_000;
    for (open, close) in [
        ("void f() { ", "}"),
        ("if (x) ", ""),
        ("x = f(", ")"),
        ("x = (int)", ""),
        ("x = sizeof ", ""),
        ("x = a[", "]"),
        ("x = c ? d : ", ""),
        ("x = y = ", ""),
        ("struct S { struct T { ", "} t; }"),
        ("while (1) for (;;) do ", " while (1);"),
        ("forall (i from 0 to 1) ", ""),
    ] {
        let src = format!(
            "int v[1] = {}1{};\nvoid g() {{ {} 0; {} }}",
            "{".repeat(n),
            "}".repeat(n),
            open.repeat(n),
            close.repeat(n)
        );
        // The init list nests too deeply first; parsing stops there.
        let d = diags(&src);
        assert_eq!(d.len(), 1, "{open}: {:?}", &d[..d.len().min(3)]);
        assert!(d[0].2.starts_with("nesting too deep"));
        let src = format!("void g() {{ {} 0; {} }}", open.repeat(n), close.repeat(n));
        let d = diags(&src);
        assert_eq!(d.len(), 1, "{open}: {:?}", &d[..d.len().min(3)]);
        assert!(d[0].2.starts_with("nesting too deep"));
    }
}

const VOCAB: &[&str] = &[
    "int",
    "float",
    "char",
    "void",
    "struct",
    "if",
    "else",
    "while",
    "do",
    "for",
    "switch",
    "case",
    "default",
    "break",
    "continue",
    "return",
    "sizeof",
    "arch",
    "phyArch",
    "channel",
    "forall",
    "from",
    "to",
    "grouping",
    "fork",
    "join",
    "spinlock",
    "x",
    "f",
    "A",
    "S",
    "0",
    "1.5",
    "'c'",
    "\"s\"",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ";",
    ",",
    "=",
    "+=",
    "+",
    "-",
    "*",
    "&",
    "->",
    ".",
    "?",
    ":",
    "++",
    "<<=",
    "!",
    "\n",
    "\n#define A(x) x A\n",
    "\n#define f A\n",
    "\n#ifdef A\n",
    "\n#else\n",
    "\n#endif\n",
    "\n#include \"cpc.h\"\n",
    "\n#undef A\n",
    "/*",
    "*/",
    "//",
    "#",
    "##",
    "\\\n",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_text_never_panics(s in "\\PC{0,300}") {
        let _ = parse_text(&s);
    }

    #[test]
    fn arbitrary_token_sequences_never_panic(toks in prop::collection::vec(prop::sample::select(VOCAB), 0..300)) {
        let src = toks.join(" ");
        let (_, d) = parse_text(&src);
        // Every diagnostic points into the text (line 1 .. number of lines + 1).
        let lines = src.split('\n').count() as u32;
        for x in d {
            prop_assert!(x.loc.line >= 1 && x.loc.line <= lines + 1, "{x:?}");
        }
    }
}

#[test]
fn typedef_names_start_declarations_in_their_scope_only() {
    // `T * x;` is a declaration while `T` is a typedef name, a multiplication after the
    // block that declared it has ended.
    let src = "int x, y;\nvoid f() { { typedef int T; T * p; } x * y; }\n";
    assert!(diags(src).is_empty(), "{:?}", diags(src));
    let (p, _) = parse_text(src);
    let body = &funcs(&p)[0].body.as_ref().unwrap().stmts;
    let StmtKind::Block(inner) = &body[0].kind else { panic!("{body:?}") };
    assert!(matches!(inner.stmts[0].kind, StmtKind::Typedef(_)));
    assert!(matches!(inner.stmts[1].kind, StmtKind::Decl(_)));
    assert!(matches!(body[1].kind, StmtKind::Expr(_)));
}

#[test]
fn storage_classes_and_qualifiers_in_any_order() {
    let (p, d) = parse_text("static const int a = 1;\nint const *const volatile b;\nextern int c;\n");
    assert!(d.is_empty(), "{d:?}");
    let storages: Vec<Storage> =
        p.items.iter().filter_map(|i| if let Item::Var(v) = i { Some(v.ty.storage) } else { None }).collect();
    assert_eq!(storages, [Storage::Static, Storage::None, Storage::Extern]);
    assert_eq!(diags("static extern int a;"), [(1, 8, "a declaration has at most one storage class".to_string())]);
}

#[test]
fn enums_are_hoisted_before_their_declaration() {
    let (p, d) = parse_text("enum E { A, B = 4, C, } e = C;\n");
    assert!(d.is_empty(), "{d:?}");
    let Item::Enum(def) = &p.items[0] else { panic!("{:?}", p.items) };
    let names: Vec<&str> = def.items.iter().map(|(n, _, _)| &**n).collect();
    assert_eq!(names, ["A", "B", "C"]);
    assert!(matches!(&p.items[1], Item::Var(v) if v.ty.base == BaseType::Enum));
}

#[test]
fn labels_and_goto() {
    let (p, d) = parse_text("void f() { again: goto again; }");
    assert!(d.is_empty(), "{d:?}");
    let body = &funcs(&p)[0].body.as_ref().unwrap().stmts;
    assert!(matches!(&body[0].kind, StmtKind::Label(n) if &**n == "again"));
    assert!(matches!(&body[1].kind, StmtKind::Goto(n) if &**n == "again"));
}

#[test]
fn unsupported_constructs_are_named() {
    // Each construct this compiler leaves out gets an error naming it, never a
    // misleading one (`unknown type name`, "not an lvalue").
    let cases: [(&str, &str); 6] = [
        ("_Thread_local int t;", "`_Thread_local` is not supported"),
        ("long long long x;", "`long long long` is too long"),
        ("int (*(*fp)(int))(int);", "only `(*name)(params)` function pointers are supported"),
        ("int f(...);", "`...` needs a named parameter before it"),
        ("int a[2] = (int[2]){1, 2};", "only `T`, `T *…` and `T (*)(params)` are supported as type names"),
        ("int x = _Generic(1, int: 2);", "`_Generic` is not supported"),
    ];
    for (src, want) in cases {
        let d = diags(src);
        assert_eq!(d.len(), 1, "{src}: {d:?}");
        assert!(d[0].2.starts_with(want), "{src}: {:?}", d[0].2);
    }
}

#[test]
fn misspelt_keyword_gets_a_suggestion() {
    let (_, d) = parse_text("int f() { retrun 0; }");
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].notes, ["did you mean `return`?"]);
}
