use super::*;

fn run_with(text: &str, loader: &mut MemLoader, opts: &FrontOptions) -> (String, Vec<Diagnostic>, SourceMap) {
    let mut sm = SourceMap::default();
    let mut d = Vec::new();
    let (toks, names, _) = preprocess("dir/main.c", text, opts, &mut sm, loader, &mut d);
    let s: Vec<String> = toks
        .iter()
        .map(|t| match t.kind {
            TokenKind::Ident(s) => names.name(s).to_string(),
            TokenKind::Kw(k) => k.as_str().to_string(),
            TokenKind::Int(v) => v.to_string(),
            TokenKind::Punct(p) => p.as_str().to_string(),
            TokenKind::Eof => "EOF".to_string(),
            other => format!("{other:?}"),
        })
        .collect();
    (s.join(" "), d, sm)
}

fn run(text: &str) -> (String, Vec<Diagnostic>) {
    let (s, d, _) = run_with(text, &mut MemLoader::default(), &FrontOptions::default());
    (s, d)
}

fn msgs(d: &[Diagnostic]) -> Vec<(u32, u32, &str)> {
    d.iter().map(|d| (d.loc.line, d.loc.col, d.message.as_str())).collect()
}

#[test]
fn object_and_function_macros() {
    let (s, d) = run("#define n 8\n#define SQ(x) ((x)*(x))\nint a[n] = SQ(n+1);\n");
    assert!(d.is_empty(), "{d:?}");
    assert_eq!(s, "int a [ 8 ] = ( ( 8 + 1 ) * ( 8 + 1 ) ) ; EOF");
}

#[test]
fn macro_used_inside_its_own_argument_is_not_recursion() {
    let (s, d) = run("#define max(a,b) ((a)>(b)?(a):(b))\nmax(max(x,y),z)\n");
    assert!(d.is_empty(), "{d:?}");
    assert_eq!(s.matches('?').count(), 3, "inner call expanded in both copies plus outer: {s}");
}

#[test]
fn object_macro_naming_a_function_macro_takes_args_from_the_file() {
    let (s, d) = run("#define sq(x) x*x\n#define SQ sq\nSQ(3)\n");
    assert!(d.is_empty(), "{d:?}");
    assert_eq!(s, "3 * 3 EOF");
}

#[test]
fn function_macro_without_parens_and_space_before_paren() {
    let (s, d) = run("#define f(x) x+1\n#define g (y)\nf; g\n");
    assert!(d.is_empty(), "{d:?}");
    assert_eq!(s, "f ; ( y ) EOF");
}

#[test]
fn expanded_tokens_carry_the_use_location() {
    let mut sm = SourceMap::default();
    let mut d = Vec::new();
    let (toks, _, _) = preprocess(
        "m.c",
        "#define N 1 + 2\n  x = N;",
        &FrontOptions::default(),
        &mut sm,
        &mut MemLoader::default(),
        &mut d,
    );
    // `N` is at line 2, column 7, one byte long; both `1` and `+` carry that.
    assert_eq!((toks[2].loc.line, toks[2].loc.col, toks[2].loc.len), (2, 7, 1));
    assert_eq!(toks[3].loc, toks[2].loc);
}

#[test]
fn self_reference_is_left_alone_as_in_c() {
    // C11 6.10.3.4p2: a macro's name inside its own expansion is not replaced.
    let (s, d) = run("#define A B\n#define B A\nint x = A;\n");
    assert!(d.is_empty(), "{d:?}");
    assert_eq!(s, "int x = A ; EOF");
    let (s, d) = run("#define f(x) f(x)+1\nf(2);\n");
    assert!(d.is_empty(), "{d:?}");
    assert_eq!(s, "f ( 2 ) + 1 ; EOF");
}

#[test]
fn exponential_macros_are_cut_off() {
    let mut src = String::from("#define A0 x x\n");
    for i in 1..40 {
        src.push_str(&format!("#define A{i} A{} A{}\n", i - 1, i - 1));
    }
    src.push_str("A39\n");
    let (_, d) = run(&src);
    assert_eq!(msgs(&d), vec![(41, 1, "macro expansion produces too many tokens")]);
}

#[test]
fn conditionals_nest() {
    let src = "#define X\n#ifdef X\na\n#ifndef X\nb\n#else\nc\n#endif\n#else\nd\n#ifdef Y\n#bogus\n#endif\n#endif\ne\n";
    let (s, d) = run(src);
    assert!(d.is_empty(), "{d:?}");
    assert_eq!(s, "a c e EOF");
    let (s, _) = run("#define X\n#undef X\n#ifdef X\na\n#endif\n");
    assert_eq!(s, "EOF");
}

#[test]
fn if_and_elif_evaluate_integer_constant_expressions() {
    // Each line's expected branch worked by hand with C's rules: `defined` with and
    // without parentheses, macros expanded (N = 4, so N*N-1 = 15), leftover names
    // are 0, precedence (1 + 2 * 3 == 7; 1 << 2 + 1 == 8), unary !, ~, -, the
    // conditional operator, character constants, and #elif tried only while no
    // branch before was taken.
    let src = "#define N 4\n#define SQ(x) ((x) * (x))\n\
        #if defined N && defined(SQ)\na\n#endif\n\
        #if N*N-1 == 15 && SQ(N) == 16\nb\n#else\nx\n#endif\n\
        #if UNDEFINED_NAME\nx\n#elif 1 + 2 * 3 == 7 && (1 << 2 + 1) == 8\nc\n#elif 1\nx\n#else\nx\n#endif\n\
        #if !0 && ~0 == -1 && -N < 0 && (N > 3 ? 5 : 6) == 5 && 'A' == 65\nd\n#endif\n\
        #if 0\n#if 1/0\n#endif\nx\n#elif 0\nx\n#else\ne\n#endif\n";
    let (s, d) = run(src);
    assert!(d.is_empty(), "{d:?}");
    assert_eq!(s, "a b c d e EOF");
    // Errors name what is wrong and where; the branch counts as not taken.
    let (s, d) = run(
        "#if 1 /\nx\n#endif\n#if 2 / 0\ny\n#endif\n#if defined\nz\n#endif\n#if (1\nw\n#endif\n#if 1.5\nv\n#endif\n",
    );
    assert_eq!(s, "EOF");
    assert_eq!(
        msgs(&d),
        vec![
            (1, 2, "expected an expression in `#if`"),
            (4, 7, "division by zero in the `#if` expression"),
            (7, 5, "expected a macro name after `defined`"),
            (10, 2, "expected `)` in the `#if` expression"),
            (13, 5, "`#if` needs an integer constant expression, not a floating one"),
        ]
    );
}

#[test]
fn variadic_macros_take_the_remaining_arguments() {
    // F(a, ...) → the rest with its commas; none → empty; `...` must be last.
    let (s, d) =
        run("#define F(a, ...) a [ __VA_ARGS__ ]\n#define G(...) < __VA_ARGS__ >\nF(1, 2, 3) F(4) G() G(x, (y, z))\n");
    assert!(d.is_empty(), "{d:?}");
    assert_eq!(s, "1 [ 2 , 3 ] 4 [ ] < > < x , ( y , z ) > EOF");
    let (_, d) = run("#define H(..., b) b\n");
    assert_eq!(msgs(&d), vec![(1, 11, "`...` must be the last parameter of a macro")]);
}

#[test]
fn unbalanced_conditionals() {
    let (_, d) = run("a\n#endif\n#else\n#ifdef Z\n#else\n#else\n");
    assert_eq!(
        msgs(&d),
        vec![
            (2, 2, "`#endif` without `#if`, `#ifdef` or `#ifndef`"),
            (3, 2, "`#else` without `#if`, `#ifdef` or `#ifndef`"),
            (6, 2, "`#else` after `#else`"),
            (4, 2, "unterminated `#ifdef`"),
        ]
    );
}

#[test]
fn unknown_directive() {
    let (s, d) = run("int a;\n  #  pragmas once\nint b;\n#pragma omp parallel for\n");
    assert_eq!(msgs(&d), vec![(2, 6, "unknown preprocessor directive `#pragmas`")]);
    assert_eq!(s, "int a ; int b ; EOF");
}

#[test]
fn includes_search_order_and_builtins() {
    let mut fs = MemLoader::default();
    fs.files.insert(PathBuf::from("dir/a.h"), "from_dir".into());
    fs.files.insert(PathBuf::from("inc/a.h"), "from_inc".into());
    fs.files.insert(PathBuf::from("inc/b.h"), "from_inc_b".into());
    fs.files.insert(PathBuf::from("env/b.h"), "from_env_b".into());
    fs.files.insert(PathBuf::from("env/c.h"), "#include \"d.h\"\nfrom_env_c".into());
    fs.files.insert(PathBuf::from("env/d.h"), "d_beside_c".into());
    let opts = FrontOptions {
        include_dirs: vec!["inc".into()],
        env_dirs: vec!["env".into()],
        leak_syntax_tree: false,
        sandbox: None,
        error_limit: None,
    };
    let src = "#include \"a.h\"\n#include \"b.h\"\n#include \"c.h\"\n#include <ctype.h>\n#include \"cpc.h\"\n#include <a.h>\n";
    let (s, d, sm) = run_with(src, &mut fs, &opts);
    assert!(d.is_empty(), "{d:?}");
    // `<a.h>` skips the including file's folder, so it finds inc/a.h.
    assert_eq!(s, "from_dir from_inc_b d_beside_c from_env_c from_inc EOF");
    assert_eq!(sm.files[1].name, "dir/a.h");
    assert_eq!(sm.files[3].name, "env/c.h");
    assert_eq!(sm.files[5].name, "<ctype.h>");
    // The standard headers are built in and never read from disk.
    let (s, d, _) = run_with("#include <stdio.h>\nEOF\n", &mut MemLoader::default(), &opts);
    assert!(d.is_empty(), "{d:?}");
    assert!(s.starts_with("typedef unsigned int size_t ;"), "{s}");
    assert!(s.contains("typedef struct __cppe_file FILE ;"), "{s}");
    let (_, d, _) = run_with("#include <setjmp.h>\n", &mut MemLoader::default(), &opts);
    assert!(d[0].message.starts_with("#error <setjmp.h> is not provided"), "{d:?}");
}

#[test]
fn missing_include_points_at_the_file_name() {
    let (_, d) = run("int x;\n#include \"nothere.h\"\n");
    assert_eq!(msgs(&d), vec![(2, 10, "cannot find include file `nothere.h`")]);
    let (_, d) = run("#include <sys/x.h>\n");
    assert_eq!(msgs(&d), vec![(1, 10, "cannot find include file `sys/x.h`")]);
}

#[test]
fn include_cycle_is_an_error() {
    let mut fs = MemLoader::default();
    fs.files.insert(PathBuf::from("dir/a.h"), "a\n#include \"b.h\"\n".into());
    fs.files.insert(PathBuf::from("dir/b.h"), "b\n#include \"a.h\"\n".into());
    let (s, d, _) = run_with("#include \"a.h\"\nend\n", &mut fs, &FrontOptions::default());
    // main -> a -> b -> a -> ...: 64 files open (main and 63 includes, the last an a.h:
    // the chain alternates and begins with a) when a.h's include of b.h is refused.
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(
        d[0].message,
        "`#include` cycle: `dir/b.h` includes itself more than 64 levels deep (an include guard ends it)"
    );
    assert_eq!(d[0].loc.file, 1, "reported inside a.h");
    assert_eq!(s, format!("{}a end EOF", "a b ".repeat(31)));
}

#[test]
fn a_guarded_file_may_include_itself() {
    let mut fs = MemLoader::default();
    fs.files.insert(
        PathBuf::from("dir/a.h"),
        "#ifndef DONE
#define DONE
first
#include \"a.h\"
#else
second
#endif
"
        .into(),
    );
    let (s, d, _) = run_with("#include \"a.h\"\nend\n", &mut fs, &FrontOptions::default());
    assert!(d.is_empty(), "{d:?}");
    assert_eq!(s, "first second end EOF");
}

#[test]
fn wrong_argument_count_and_unterminated_call() {
    let (_, d) = run("#define f(a,b) a\nf(1)\nf(2\n");
    assert_eq!(
        msgs(&d),
        vec![(2, 1, "macro `f` takes 2 arguments, but 1 was given"), (3, 1, "unterminated argument list of macro `f`")]
    );
}

#[test]
fn fs_loader_reads_beside_the_main_file_and_refuses_non_files() {
    let dir = std::env::temp_dir().join(format!("cppe-pp-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let _ = std::fs::write(dir.join("h.h"), "#define K 7\n");
    let main = dir.join("m.c");
    let mut sm = SourceMap::default();
    let (p, d) = super::super::parse_source(
        &main.display().to_string(),
        "#include \"h.h\"\nint x = K;\n",
        &FrontOptions::default(),
        &mut sm,
    );
    let _ = std::fs::remove_dir_all(&dir);
    assert!(d.is_empty(), "{d:?}");
    assert_eq!(sm.files.len(), 2);
    assert_eq!(sm.files[1].name, dir.join("h.h").display().to_string());
    assert_eq!(p.items.len(), 1);
    // A directory is not a file: reading it must fail rather than block or error out.
    assert_eq!(FsLoader::default().read(&std::env::temp_dir()), None);
}

/// An `#if` nested deeper than the parser allows is an error, not a stack overflow
/// (the compiler's own threads may be small: a test thread has 2 MiB). 256 levels
/// are fine, 1000 are not.
#[test]
fn deeply_nested_if_expressions_are_an_error() {
    let nested = |n: usize| format!("#if {}1{}\nint x;\n#endif\n", "(".repeat(n), ")".repeat(n));
    let (out, d) = run(&nested(200));
    assert!(d.is_empty(), "{d:?}");
    assert!(out.contains("int x"));
    let (_, d) = run(&nested(1000));
    assert_eq!(d.len(), 1, "{d:?}");
    assert!(d[0].message.contains("nested too deep"), "{d:?}");
    let (_, d) = run(&format!("#if {}1\n#endif\n", "!".repeat(1000)));
    assert!(d[0].message.contains("nested too deep"), "{d:?}");
}

#[test]
fn continuation_lines_in_directives() {
    let (s, d) = run("#define LONG 1 + \\\n  2\nLONG\n");
    assert!(d.is_empty());
    assert_eq!(s, "1 + 2 EOF");
}

#[test]
fn stringizing_and_pasting() {
    // C11 6.10.3.2-3: `#x` spells the argument as written (white space runs become
    // one space), `a##b` makes one token, and a pasted operand is not expanded first.
    let (s, d) = run("#define S(x) #x\n#define C(a,b) a##b\n#define N 4\nS( p  +  q ) C(x, y) C(1,2) C(N,N)\n");
    assert!(d.is_empty(), "{d:?}");
    assert_eq!(s, "Str(StrId(0)) xy 12 NN EOF");
    let (_, d) = run("#define C(a,b) a##b\nC(+,-)\n");
    assert_eq!(msgs(&d), vec![(2, 1, "pasting gives `+-`, which is not one token")]);
    let (_, d) = run("#define B(a) ##a\n#define H(a) #b\n");
    assert_eq!(d.len(), 2, "{d:?}");
}

#[test]
fn line_and_file_macros() {
    let (s, d) = run("int a = __LINE__;\n\nint b = __LINE__ + __STDC__;\n");
    assert!(d.is_empty(), "{d:?}");
    assert_eq!(s, "int a = 1 ; int b = 3 + 1 ; EOF");
}
