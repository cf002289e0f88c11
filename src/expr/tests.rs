//! Behaviour of the public API: the seed's examples, C semantics, errors and totality.
use super::*;
use proptest::prelude::*;

const TORUS2MESH: &str = "torus2mesh(x, y) = [x <= (#1-1)/2 ? 2*x : 2*(#1-x)-1, y<=(#2-1)/2 ? 2*y : 2*(#2-y)-1].";

fn mapping(text: &str) -> MappingExpr {
    match MappingExpr::parse(text) {
        Ok(m) => m,
        Err(e) => panic!("{}", e.render(text)),
    }
}

/// Evaluates a one-coordinate mapping over parameters a..e (values given) on a
/// 1x1x1x1x1 virtual and 1-D physical topology.
fn int(body: &str, vals: [i64; 5]) -> Result<i64, EvalError> {
    let text = format!("f(a, b, c, d, e) = [{body}].");
    let m = mapping(&text);
    let mut out = [0];
    m.eval(&vals, &[1; 5], &[1], &mut out)?;
    Ok(out[0])
}

fn parse_err(text: &str) -> ExprError {
    match MappingExpr::parse(text) {
        Ok(_) => panic!("`{text}` parsed"),
        Err(e) => e,
    }
}

fn real(text: &str, lookup: &dyn Fn(&str) -> Option<f64>) -> Result<f64, EvalError> {
    match Expr::parse(text) {
        Ok(e) => e.eval_with(lookup),
        Err(e) => panic!("{}", e.render_named("expr", text)),
    }
}

#[test]
fn torus2mesh_folds_each_ring_onto_a_line() {
    // On 8 nodes (#1-1)/2 = 3: x <= 3 gives 2x = 0 2 4 6; x >= 4 gives 2(8-x)-1 = 7 5 3 1.
    let m = mapping(TORUS2MESH);
    assert_eq!((m.name(), m.virt_dims(), m.phys_dims()), ("torus2mesh", 2, 2));
    let fold = [0, 2, 4, 6, 7, 5, 3, 1];
    let mut seen = [[false; 8]; 8];
    for x in 0..8 {
        for y in 0..8 {
            let mut out = [0; 2];
            assert_eq!(m.eval(&[x, y], &[8, 8], &[8, 8], &mut out), Ok(()));
            assert_eq!(out, [fold[x as usize], fold[y as usize]]);
            seen[out[0] as usize][out[1] as usize] = true;
        }
    }
    // One-to-one: all 64 mesh nodes are hit.
    assert!(seen.iter().flatten().all(|&s| s));
}

#[test]
fn torus2mesh_spread_over_two_lines_parses() {
    // The seed breaks the string after the first coordinate; the final `.` ends it.
    let text = "torus2mesh(x, y) = [x <= (#1-1)/2 ? 2*x : 2*(#1-x)-1,\ny<=(#2-1)/2 ? 2*y : 2*(#2-y)-1].";
    let mut out = [0; 2];
    assert_eq!(mapping(text).eval(&[4, 7], &[8, 8], &[8, 8], &mut out), Ok(()));
    assert_eq!(out, [7, 1]);
}

#[test]
fn block_form_puts_sixteen_virtual_processors_on_each_physical_one() {
    let m = mapping("block(x, y) = [x/(#1/$1), y/(#2/$2)].");
    let mut out = [0; 2];
    // 16/4 = 4 per block: (5/4, 13/4) = (1, 3).
    assert_eq!(m.eval(&[5, 13], &[16, 16], &[4, 4], &mut out), Ok(()));
    assert_eq!(out, [1, 3]);
    let mut load = [[0; 4]; 4];
    for x in 0..16 {
        for y in 0..16 {
            assert_eq!(m.eval(&[x, y], &[16, 16], &[4, 4], &mut out), Ok(()));
            load[out[0] as usize][out[1] as usize] += 1;
        }
    }
    // 256 virtual processors over 16 physical ones, 4x4 blocks: 16 each.
    assert!(load.iter().flatten().all(|&l| l == 16));
}

#[test]
fn c_precedence_and_associativity() {
    let z = [0; 5];
    assert_eq!(int("1+2*3", z), Ok(7)); // * before +
    assert_eq!(int("2*3%4", z), Ok(2)); // left to right: (2*3)%4 = 6%4
    assert_eq!(int("-7/2", z), Ok(-3)); // truncation toward zero
    assert_eq!(int("-7%2", z), Ok(-1)); // remainder takes the dividend's sign
    assert_eq!(int("1<2==1", z), Ok(1)); // relational before equality: (1<2)==1
    assert_eq!(int("10-4-3", z), Ok(3)); // left-assoc: (10-4)-3
    assert_eq!(int("1<<2+1", z), Ok(8)); // + before <<: 1<<3
    assert_eq!(int("6&3^1|8", z), Ok(11)); // ((6&3)^1)|8 = (2^1)|8 = 3|8
    assert_eq!(int("!0+~0", z), Ok(0)); // prefix first: 1 + (-1)
    assert_eq!(int("- -3", z), Ok(3));
    assert_eq!(int("5||0", z), Ok(1)); // logical operators yield 0 or 1
    assert_eq!(int("5&&7", z), Ok(1));
    assert_eq!(int("0x10 + 010", z), Ok(26)); // hex literal; leading zeros stay decimal
    assert_eq!(int("2**3**2", z), Ok(512)); // right-assoc power: 2^9
    assert_eq!(int("-2**2", z), Ok(-4)); // power binds tighter than prefix minus
    assert_eq!(int("abs(-3) + min(4, 2) * max(1, 5) - sgn(-9)", z), Ok(14)); // 3 + 2*5 + 1
                                                                             // a?b:c?d:e with a=1, b=0, c=1, d=5, e=7: right-assoc gives a?b:(c?d:e) = b = 0;
                                                                             // left-assoc would give (a?b:c)?d:e = 0?5:7 = 7.
    assert_eq!(int("a?b:c?d:e", [1, 0, 1, 5, 7]), Ok(0));
    assert_eq!(int("a?b:c?d:e", [0, 0, 1, 5, 7]), Ok(5));
    assert_eq!(int("a?b:c?d:e", [0, 0, 0, 5, 7]), Ok(7));
    // `?:` binds looser than `||`: (a||b) ? 2 : 3 with a=0, b=1.
    assert_eq!(int("a||b ? 2 : 3", [0, 1, 0, 0, 0]), Ok(2));
}

#[test]
fn logical_operators_short_circuit() {
    // With a = 0 the division is never evaluated; with a = 4, 8/4 = 2 > 1.
    assert_eq!(int("a != 0 && 8/a > 1", [0; 5]), Ok(0));
    assert_eq!(int("a != 0 && 8/a > 1", [4, 0, 0, 0, 0]), Ok(1));
    assert_eq!(int("a == 0 || 8/a", [0; 5]), Ok(1));
    // Only the chosen branch of `?:` runs.
    assert_eq!(int("a ? 8/a : 9", [0; 5]), Ok(9));
}

#[test]
fn overflow_and_division_by_zero_carry_the_operator_column() {
    let text = "f(x) = [10 / x].";
    let m = mapping(text);
    let mut out = [0];
    let err = m.eval(&[0], &[4], &[4], &mut out);
    // `/` is the 12th character.
    assert_eq!(err, Err(EvalError::DivisionByZero { span: Span { offset: 11, len: 1, line: 1, col: 12 } }));
    let rendered = err.map_err(|e| e.render(text)).err().unwrap_or_default();
    assert_eq!(rendered, "mapping:1:12: error: division by zero\n 1 | f(x) = [10 / x].\n   |            ^\n");
    let m = mapping("f(x) = [x * x].");
    assert!(matches!(
        m.eval(&[1 << 32], &[4], &[4], &mut out),
        Err(EvalError::Overflow { op: "*", span: Span { col: 11, .. } })
    ));
    assert!(matches!(int("1 << a", [-1, 0, 0, 0, 0]), Err(EvalError::ShiftOutOfRange { amount: -1, .. })));
}

#[test]
fn syntax_errors_point_at_the_column() {
    let text = "f(x, y) = [x, y+].";
    let e = parse_err(text);
    assert_eq!(
        e.render(text),
        "mapping:1:17: error: expected expression, found `]`\n 1 | f(x, y) = [x, y+].\n   |                 ^\n"
    );
    // Missing final dot: reported at the end of the input (column 11).
    let e = parse_err("f(x) = [x]");
    assert_eq!(e.to_string(), "expected `.` at the end of the mapping, found end of input");
    assert_eq!(e.span().col, 11);
    // Missing `]`: the dot comes where `,` or `]` must.
    let e = parse_err("f(x) = [x.");
    assert_eq!(e.to_string(), "expected `,` or `]`, found `.`");
    assert_eq!(e.span().col, 10);
    let e = parse_err("f(x) = [x]. y");
    assert_eq!(e.to_string(), "expected end of input after the mapping's final `.`, found `y`");
    let e = parse_err("f(x) = [x ? 1 2].");
    assert_eq!(e.to_string(), "expected `:` of the `?:` operator, found `2`");
    assert!(matches!(parse_err("f(x) = [x @ 1]."), ExprError::UnexpectedChar { found: '@', .. }));
    assert!(matches!(parse_err("f() = [1]."), ExprError::Syntax { .. }));
    assert!(matches!(parse_err("f(x) = [99999999999999999999]."), ExprError::BadNumber { .. }));
}

#[test]
fn errors_on_a_later_line_render_that_line() {
    let text = "f(x, y) = [x,\n  y ++ ].";
    let e = parse_err(text);
    // `]` is on line 2, column 8.
    assert_eq!(e.render(text), "mapping:2:8: error: expected expression, found `]`\n 2 |   y ++ ].\n   |        ^\n");
}

#[test]
fn name_and_function_errors() {
    let e = parse_err("f(x) = [foo(x)].");
    assert_eq!(e.to_string(), "unknown function `foo` (known: abs, min, max, sgn)");
    assert_eq!(e.span().col, 9);
    let e = parse_err("f(x) = [min(x)].");
    assert_eq!(e.to_string(), "function `min` takes 2 arguments, found 1");
    assert!(matches!(parse_err("f(x) = [sqrt(x)]."), ExprError::RealFunction { .. }));
    let e = parse_err("f(x, y) = [z].");
    assert_eq!(e.to_string(), "unknown name `z`; the mapping's parameters are x, y");
    assert!(matches!(parse_err("f(x, x) = [x]."), ExprError::DuplicateParameter { .. }));
}

#[test]
fn dimension_references_must_exist() {
    let e = parse_err("f(x, y) = [#3, y].");
    assert_eq!(
        e.to_string(),
        "`#3` names virtual dimension 3, but the mapping has 2 virtual dimensions (one per parameter)"
    );
    assert_eq!((e.span().col, e.span().len), (12, 2));
    let e = parse_err("f(x, y) = [$3, y].");
    assert!(matches!(e, ExprError::DimensionOutOfRange { sigil: '$', index: 3, dims: 2, .. }));
    assert!(matches!(parse_err("f(x) = [#0]."), ExprError::DimensionZero { sigil: '#', .. }));
    assert!(matches!(parse_err("f(x) = [$99999999999]."), ExprError::DimensionOutOfRange { .. }));
}

#[test]
fn check_compares_arity_with_the_topologies() {
    let m = mapping(TORUS2MESH);
    assert_eq!(m.check(2, 2), Ok(()));
    let e = m.check(3, 2).err();
    assert_eq!(
        e.map(|e| e.to_string()),
        Some("the mapping has 2 parameters but the virtual topology has 3 dimensions".into())
    );
    let e = m.check(2, 1).err();
    assert_eq!(
        e.map(|e| e.to_string()),
        Some("the mapping gives 2 coordinates but the physical topology has 1 dimension".into())
    );
    let mut out = [0; 2];
    assert_eq!(
        m.eval(&[1, 2, 3], &[8, 8], &[8, 8], &mut out),
        Err(EvalError::Arity { what: "virtual coordinates", expected: 2, found: 3 })
    );
    assert!(matches!(m.eval(&[1, 2], &[8, 8], &[8, 8], &mut [0; 3]), Err(EvalError::Arity { .. })));
}

#[test]
fn comments_and_blanks_anywhere() {
    let m = mapping("/* ring */ f ( x ) =\n\t[ x /* keep */ + 1 // next\n ] .");
    let mut out = [0];
    assert_eq!(m.eval(&[4], &[8], &[8], &mut out), Ok(()));
    assert_eq!(out, [5]);
}

#[test]
fn nesting_is_limited_and_chains_are_not() {
    let deep = format!("f(x) = [{}x{}].", "(".repeat(10_000), ")".repeat(10_000));
    assert!(matches!(parse_err(&deep), ExprError::TooDeep { limit: 200, .. }));
    let deep = format!("f(x) = [{}x].", "-".repeat(60_000));
    assert!(matches!(parse_err(&deep), ExprError::TooDeep { .. }));
    let deep = format!("f(x) = [{}x].", "x ? 1 : ".repeat(1_000));
    assert!(matches!(parse_err(&deep), ExprError::TooDeep { .. }));
    // 150 levels of parentheses are fine (the parser's recursion is counted per level).
    let ok = format!("f(x) = [{}x{}].", "(1+".repeat(150), ")".repeat(150));
    let mut out = [0];
    assert_eq!(mapping(&ok).eval(&[1], &[1], &[1], &mut out), Ok(()));
    assert_eq!(out, [151]);
    // A flat chain of 30 000 additions compiles iteratively and needs a 2-slot stack.
    let chain = format!("f(x) = [x{}].", "+1".repeat(30_000));
    assert_eq!(mapping(&chain).eval(&[1], &[1], &[1], &mut out), Ok(()));
    assert_eq!(out, [30_001]);
    let huge = "1+".repeat(40_000);
    assert!(matches!(Expr::parse(&huge), Err(ExprError::TooLong { len: 80_000, limit: 65_536 })));
    // 1+2*(1+2*(…)) keeps two values pending per level: 150 levels need > 256 slots.
    let wide = format!("f(x) = [{}x{}].", "1+2*(".repeat(150), ")".repeat(150));
    assert!(matches!(parse_err(&wide), ExprError::TooComplex { limit: 256, .. }));
}

#[test]
fn scalar_expressions_with_references() {
    let lookup = |name: &str| match name {
        "x" => Some(3.0),
        "pt(1).ila" => Some(1.0),
        "pt(1).ils" => Some(0.5),
        "pt(1).goto" => Some(2.0),
        "pr(1).smallloopspeedup" => Some(2.0),
        "tl(1)(2).connect(0)" => Some(2.0),
        _ => None,
    };
    assert_eq!(real("2*x+1", &lookup), Ok(7.0));
    // Seed 004 §2.8's example: (4*1 + 2*0.5 + 2) / 2 = 3.5.
    let text = "(4*pt(1).ila + 2*pt(1).ils + pt(1).goto) / pr(1).smallloopspeedup";
    assert_eq!(real(text, &lookup), Ok(3.5));
    let e = Expr::parse(text).map(|e| e.references().to_vec());
    assert_eq!(
        e,
        Ok(vec!["pt(1).ila".into(), "pt(1).ils".into(), "pt(1).goto".into(), "pr(1).smallloopspeedup".into()])
    );
    // Canonical spelling: blanks dropped, hex index in decimal.
    assert_eq!(real("tl( 1 )(0x2).connect(0) * 1.5e1", &lookup), Ok(30.0));
    assert_eq!(real("sqrt(16) + floor(2.7) + .5", &lookup), Ok(6.5));
    assert_eq!(real("7 / 2", &lookup), Ok(3.5)); // real division
    assert_eq!(real("6 | 1", &lookup), Ok(7.0));
    assert!(
        matches!(real("y + 1", &lookup), Err(EvalError::UnknownReference { ref name, span: Span { col: 1, .. } }) if name == "y")
    );
    assert!(matches!(real("1 / (x - 3)", &lookup), Err(EvalError::DivisionByZero { span: Span { col: 3, .. } })));
    assert!(matches!(real("sqrt(0 - x)", &lookup), Err(EvalError::Domain { func: "sqrt", .. })));
    assert!(matches!(Expr::parse("#1 + 1"), Err(ExprError::DimensionOutsideMapping { .. })));
    assert!(matches!(Expr::parse("foo(x)"), Err(ExprError::UnknownFunction { .. })));
    assert!(matches!(Expr::parse("x y"), Err(ExprError::Syntax { .. })));
    assert!(matches!(Expr::parse("1e999"), Err(ExprError::BadNumber { .. })));
}

/// Words that combine into many near-valid mappings and expressions.
const SOUP: &[&str] = &[
    "f",
    "(",
    ")",
    "x",
    "y",
    ",",
    "=",
    "[",
    "]",
    ".",
    "#1",
    "#2",
    "$1",
    "$2",
    "0",
    "1",
    "7",
    "-3",
    "+",
    "-",
    "*",
    "/",
    "%",
    "<<",
    ">>",
    "<",
    "<=",
    "==",
    "!=",
    "&",
    "^",
    "|",
    "&&",
    "||",
    "?",
    ":",
    "!",
    "~",
    "**",
    "abs",
    "min",
    "max",
    "sqrt",
    "pt",
    "(1)",
    ".ila",
    "1.5",
    "/*",
    "*/",
    "\n",
    "9223372036854775807",
    "64",
];

fn soup() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(SOUP), 0..40).prop_map(|w| w.join(" "))
}

/// Parses and, when that succeeds, evaluates: nothing may panic.
fn exercise(text: &str, coords: &[i64; 2], dims: &[i64; 2]) {
    if let Ok(m) = MappingExpr::parse(text) {
        let (vm, pn) = (m.virt_dims(), m.phys_dims());
        let vc: Vec<i64> = coords.iter().copied().cycle().take(vm).collect();
        let vd: Vec<i64> = dims.iter().copied().cycle().take(vm).collect();
        let pd: Vec<i64> = dims.iter().copied().cycle().take(pn).collect();
        let mut out = vec![0; pn];
        let _ = m.eval(&vc, &vd, &pd, &mut out);
        let _ = m.check(2, 2);
    } else if let Err(e) = MappingExpr::parse(text) {
        let _ = e.render(text);
    }
    match Expr::parse(text) {
        Ok(e) => {
            let _ = e.eval_with(&|n| (n.len() % 2 == 0).then_some(coords[0] as f64));
        }
        Err(e) => {
            let _ = e.render_named("expr", text);
        }
    }
}

proptest! {
    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,80}", coords in any::<[i64; 2]>(), dims in any::<[i64; 2]>()) {
        exercise(&text, &coords, &dims);
    }

    #[test]
    fn token_soup_never_panics(body in soup(), coords in any::<[i64; 2]>(), dims in any::<[i64; 2]>()) {
        exercise(&body, &coords, &dims);
        // Inside a well-formed frame, the soup reaches the expression grammar.
        exercise(&format!("f(x, y) = [{body}]."), &coords, &dims);
        exercise(&format!("f(x, y) = [x, {body}]."), &coords, &dims);
    }

    /// C99 6.5.5p6: (a/b)*b + a%b == a whenever a/b is representable.
    #[test]
    fn division_identity(a in any::<i64>(), b in any::<i64>()) {
        prop_assume!(b != 0 && !(a == i64::MIN && b == -1));
        let m = mapping("f(a, b) = [a / b, a % b].");
        let mut out = [0; 2];
        prop_assert_eq!(m.eval(&[a, b], &[1, 1], &[1, 1], &mut out), Ok(()));
        prop_assert_eq!(out[0] * b + out[1], a);
        prop_assert!(out[1] == 0 || (out[1] < 0) == (a < 0));
    }
}
