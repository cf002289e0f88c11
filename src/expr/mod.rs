//! The expression engine shared by mapping strings (`cpmap`, `cpss --mapping`) and the
//! scalar expressions of machine description files. It depends on nothing else in the
//! crate; `topo`, `sim` and `machine` depend on it.
//!
//! # Mapping strings (seed 000 §4.2.4 "User-defined Mapping")
//!
//! ```text
//! name(x1, …, xm) = [y1, …, yn].
//! ```
//!
//! The parameters name the m virtual coordinates, the bracketed list gives the n physical
//! coordinates, and the final `.` ends the string (so it may span several lines). Inside
//! the `yi`: integer literals (decimal or `0x…`), parameter names, `#i` (size of virtual
//! dimension i, 1-based), `$i` (size of physical dimension i), C's operators with C's
//! precedence and associativity (prefix `- + ! ~`; `* / %`; `+ -`; `<< >>`;
//! `< <= > >=`; `== !=`; `&`; `^`; `|`; `&&`; `||`; right-associative `?:`),
//! parentheses, `**` (power, from seed 004 §2.8; binds tighter than `*`), and the
//! functions `abs(a)`, `sgn(a)`, `min(a, b)`, `max(a, b)`. Blanks and `/* … */` or
//! `// …` comments may appear anywhere between tokens.
//!
//! Arithmetic is on `i64`, as in C but checked: overflow, division by zero and shifts
//! outside 0..=63 are [`EvalError`]s instead of undefined behaviour. `/` truncates toward
//! zero and `%` takes the dividend's sign (C99); `&&` and `||` short-circuit and yield
//! 0 or 1, so `x != 0 && 8 / x > 1` never divides by zero.
//!
//! # Scalar expressions (seed 004 §2.8–2.9)
//!
//! [`Expr`] evaluates the same operator set over `f64`, plus real literals (`1.5`, `2e-3`),
//! the functions of the Parasol grammar (`abs acos asin atan cos cosh double exp floor int
//! log log10 round sgn sin sinh sqrt tan tanh min max`), and references to other
//! parameters: a word, optionally with integer indices and `.field` parts, such as `n`,
//! `pt(1).ila` or `tl(1)(2).connect(0)`. The caller resolves references by name.
//! Bitwise operators and shifts need integral operands; a NaN or infinite result is an
//! error, so a machine description never yields an unusable timing.
//!
//! # Design
//!
//! `nom` lexes (`lex.rs`); a one-pass precedence-climbing parser (`parse.rs`) emits a flat
//! stack-machine program per expression (`eval.rs`), evaluated on a fixed array on the
//! Rust stack: no allocation and no recursion per evaluation. Parsing is total: every
//! input yields `Ok` or [`ExprError`] in time linear in its length; nesting is limited
//! to 200 levels and input to 64 KiB.
//!
//! ```
//! use cppe::expr::{Expr, MappingExpr};
//! // 16x16 virtual torus onto a 4x4 mesh, 4x4 blocks per physical processor.
//! let m = MappingExpr::parse("block(x, y) = [x/(#1/$1), y/(#2/$2)].")?;
//! m.check(2, 2)?;
//! let mut out = [0; 2];
//! m.eval(&[5, 13], &[16, 16], &[4, 4], &mut out)?;
//! assert_eq!(out, [1, 3]);
//!
//! let e = Expr::parse("(4*pt(1).ila + pt(1).goto) / 2")?;
//! assert_eq!(e.eval_with(&|name| if name == "pt(1).ila" { Some(1.0) } else { Some(2.0) })?, 3.0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
mod eval;
mod lex;
mod parse;

use eval::{run, Leaf, Program};

/// A place in the text: byte offset and length, 1-based line and column (in characters).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Span {
    /// Byte offset of the first character.
    pub offset: u32,
    /// Length in bytes (at least 1 for a token, 0 at the end of the input).
    pub len: u32,
    /// 1-based line.
    pub line: u32,
    /// 1-based column, counted in characters.
    pub col: u32,
}

impl Span {
    /// The start of the text.
    pub const START: Span = Span { offset: 0, len: 0, line: 1, col: 1 };
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// Why a mapping string or scalar expression was rejected before evaluation.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ExprError {
    /// The next token is not what the grammar allows here.
    #[error("expected {expected}, found {found}")]
    Syntax { span: Span, expected: String, found: String },
    /// A character no token starts with.
    #[error("unexpected character `{found}`")]
    UnexpectedChar { span: Span, found: char },
    /// `/*` without `*/`.
    #[error("unterminated `/*` comment")]
    UnterminatedComment { span: Span },
    /// A literal that does not fit (an integer beyond `i64`, a real beyond `f64`).
    #[error("number `{text}` is out of range")]
    BadNumber { span: Span, text: String },
    /// A call of a function not in the table.
    #[error("unknown function `{name}` (known: {known})")]
    UnknownFunction { span: Span, name: String, known: String },
    /// A function called with the wrong number of arguments.
    #[error("function `{name}` takes {}, found {found}", plural(*expected, "argument"))]
    FunctionArity { span: Span, name: String, expected: usize, found: usize },
    /// A real-only function (`sqrt`, …) in an integer mapping.
    #[error("function `{name}` works on reals and is not available in a mapping")]
    RealFunction { span: Span, name: String },
    /// A name that is not a parameter of the mapping.
    #[error("unknown name `{name}`; the mapping's parameters are {params}")]
    UnknownName { span: Span, name: String, params: String },
    /// The same parameter twice in `name(x, x)`.
    #[error("parameter `{name}` appears twice")]
    DuplicateParameter { span: Span, name: String },
    /// `#0` or `$0`.
    #[error("dimensions are numbered from 1, so `{sigil}0` does not exist")]
    DimensionZero { span: Span, sigil: char },
    /// `#i` beyond the parameter count or `$i` beyond the coordinate count.
    #[error(
        "`{sigil}{index}` names {} dimension {index}, but the mapping has {}",
        if *sigil == '#' { "virtual" } else { "physical" },
        if *sigil == '#' { plural(*dims, "virtual dimension") + " (one per parameter)" }
        else { plural(*dims, "physical dimension") + " (one per coordinate in `[...]`)" }
    )]
    DimensionOutOfRange { span: Span, sigil: char, index: u32, dims: usize },
    /// `#i` or `$i` in a scalar expression.
    #[error("`{sigil}{index}` is only meaningful in a mapping")]
    DimensionOutsideMapping { span: Span, sigil: char, index: String },
    /// More than 200 nested parentheses, `?:`, prefix operators or calls.
    #[error("expression nested more than {limit} levels deep")]
    TooDeep { span: Span, limit: usize },
    /// The expression would need more evaluation stack than the evaluator has.
    #[error("expression too complex: it needs more than {limit} evaluation stack slots")]
    TooComplex { span: Span, limit: usize },
    /// More than 64 parameters or coordinates.
    #[error("more than {limit} {what}")]
    TooManyDimensions { span: Span, what: &'static str, limit: usize },
    /// Input beyond 64 KiB.
    #[error("input of {len} bytes exceeds the limit of {limit} bytes")]
    TooLong { len: usize, limit: usize },
    /// From [`MappingExpr::check`]: parameter count ≠ virtual dimensions.
    #[error("the mapping has {} but the virtual topology has {}", plural(*params, "parameter"), plural(*dims, "dimension"))]
    VirtualArity { span: Span, params: usize, dims: usize },
    /// From [`MappingExpr::check`]: coordinate count ≠ physical dimensions.
    #[error("the mapping gives {} but the physical topology has {}", plural(*coords, "coordinate"), plural(*dims, "dimension"))]
    PhysicalArity { span: Span, coords: usize, dims: usize },
}

impl ExprError {
    /// Where the problem is.
    pub fn span(&self) -> Span {
        use ExprError::*;
        match self {
            Syntax { span, .. }
            | UnexpectedChar { span, .. }
            | UnterminatedComment { span }
            | BadNumber { span, .. }
            | UnknownFunction { span, .. }
            | FunctionArity { span, .. }
            | RealFunction { span, .. }
            | UnknownName { span, .. }
            | DuplicateParameter { span, .. }
            | DimensionZero { span, .. }
            | DimensionOutOfRange { span, .. }
            | DimensionOutsideMapping { span, .. }
            | TooDeep { span, .. }
            | TooComplex { span, .. }
            | TooManyDimensions { span, .. }
            | VirtualArity { span, .. }
            | PhysicalArity { span, .. } => *span,
            TooLong { .. } => Span::START,
        }
    }

    /// Renders as `mapping:LINE:COL: error: MESSAGE`, the source line and a caret;
    /// `text` is the string that was parsed.
    pub fn render(&self, text: &str) -> String {
        self.render_named("mapping", text)
    }

    /// Like [`Self::render`] with another name in front (a file name, `--mapping`).
    pub fn render_named(&self, name: &str, text: &str) -> String {
        render_at(name, text, Some(self.span()), &self.to_string())
    }
}

/// Why evaluating a well-formed expression failed. Each variant but [`EvalError::Arity`]
/// and [`EvalError::Internal`] carries the span of the operator, function or reference
/// where it happened; `cpmap` adds the virtual processor it was evaluating.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum EvalError {
    /// `/` or `%` by zero.
    #[error("division by zero")]
    DivisionByZero { span: Span },
    /// The result does not fit (`i64` overflow, or an infinite real).
    #[error("overflow in `{op}`")]
    Overflow { op: &'static str, span: Span },
    /// `<<` or `>>` by a negative amount or by 64 or more.
    #[error("shift by {amount} (must be 0 to 63)")]
    ShiftOutOfRange { amount: i64, span: Span },
    /// `a ** b` with negative `b` in integer arithmetic.
    #[error("negative exponent {exponent} in integer arithmetic")]
    NegativeExponent { exponent: i64, span: Span },
    /// A bitwise operand that is not an integer (scalar expressions).
    #[error("operand {value} of a bitwise operator is not an integer")]
    NotAnInteger { value: f64, span: Span },
    /// A function or operator undefined for its arguments, such as `sqrt(-1)`.
    #[error("`{func}` is undefined for its argument")]
    Domain { func: &'static str, span: Span },
    /// The lookup of a scalar expression did not know this reference.
    #[error("unknown reference `{name}`")]
    UnknownReference { name: String, span: Span },
    /// A slice passed to [`MappingExpr::eval`] has the wrong length.
    #[error("expected {expected} {what}, got {found}")]
    Arity { what: &'static str, expected: usize, found: usize },
    /// The evaluator's own consistency check failed (a bug, reported instead of a panic).
    #[error("internal error in the expression evaluator")]
    Internal,
}

impl EvalError {
    /// Where the failing operation is, if it has a place.
    pub fn span(&self) -> Option<Span> {
        use EvalError::*;
        match self {
            DivisionByZero { span }
            | Overflow { span, .. }
            | ShiftOutOfRange { span, .. }
            | NegativeExponent { span, .. }
            | NotAnInteger { span, .. }
            | Domain { span, .. }
            | UnknownReference { span, .. } => Some(*span),
            Arity { .. } | Internal => None,
        }
    }

    /// Renders like [`ExprError::render`]: header, source line, caret under the operator.
    pub fn render(&self, text: &str) -> String {
        self.render_named("mapping", text)
    }

    /// Like [`Self::render`] with another name in front.
    pub fn render_named(&self, name: &str, text: &str) -> String {
        render_at(name, text, self.span(), &self.to_string())
    }
}

/// `name:line:col: error: message`, then the line and a caret under `span`.
fn render_at(name: &str, text: &str, span: Option<Span>, message: &str) -> String {
    let Some(span) = span else {
        return format!("{name}: error: {message}\n");
    };
    let mut s = format!("{name}:{}:{}: error: {message}\n", span.line, span.col);
    let line_text = text.split('\n').nth(span.line.saturating_sub(1) as usize).unwrap_or("");
    let line_text = line_text.strip_suffix('\r').unwrap_or(line_text);
    // The caret covers the span's characters on this line (at least one).
    let start = text.get(span.offset as usize..).unwrap_or("");
    let covered = start.get(..span.len as usize).unwrap_or(start);
    let width = covered.chars().take_while(|&c| c != '\n').count();
    s.push_str(&crate::textio::snippet(span.line, span.col, line_text, width));
    s
}

/// A compiled mapping string `name(x1, …, xm) = [y1, …, yn].` (see the module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct MappingExpr {
    name: String,
    params: Vec<String>,
    params_span: Span,
    coords: Vec<Program<i64>>,
    coords_span: Span,
}

impl MappingExpr {
    /// Parses and compiles a mapping string. `#i` beyond the parameter count and `$i`
    /// beyond the coordinate count are rejected here.
    pub fn parse(text: &str) -> Result<MappingExpr, ExprError> {
        let p = parse::parse_mapping(text)?;
        Ok(MappingExpr {
            name: p.name,
            params: p.params,
            params_span: p.params_span,
            coords: p.coords,
            coords_span: p.coords_span,
        })
    }

    /// The mapping's name (`torus2mesh` in `torus2mesh(x, y) = …`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The parameter names, one per virtual dimension.
    pub fn params(&self) -> &[String] {
        &self.params
    }

    /// m: the number of virtual dimensions (parameters).
    pub fn virt_dims(&self) -> usize {
        self.params.len()
    }

    /// n: the number of physical dimensions (bracketed coordinates).
    pub fn phys_dims(&self) -> usize {
        self.coords.len()
    }

    /// Checks the mapping against the topologies it will map between: the parameter
    /// count must equal the virtual dimensions, the coordinate count the physical ones.
    pub fn check(&self, virt_dims: usize, phys_dims: usize) -> Result<(), ExprError> {
        if self.params.len() != virt_dims {
            return Err(ExprError::VirtualArity { span: self.params_span, params: self.params.len(), dims: virt_dims });
        }
        if self.coords.len() != phys_dims {
            return Err(ExprError::PhysicalArity {
                span: self.coords_span,
                coords: self.coords.len(),
                dims: phys_dims,
            });
        }
        Ok(())
    }

    /// Maps one virtual processor: `virt_coords` are its coordinates, `virt_dims` and
    /// `phys_dims` the dimension sizes of the two topologies (the values of `#i` and
    /// `$i`); the physical coordinates go to `out`. Allocates nothing. Range checking of
    /// the result against `phys_dims` is the caller's business.
    pub fn eval(
        &self,
        virt_coords: &[i64],
        virt_dims: &[i64],
        phys_dims: &[i64],
        out: &mut [i64],
    ) -> Result<(), EvalError> {
        let m = self.params.len();
        let n = self.coords.len();
        for (what, expected, found) in [
            ("virtual coordinates", m, virt_coords.len()),
            ("virtual dimension sizes", m, virt_dims.len()),
            ("physical dimension sizes", n, phys_dims.len()),
            ("output coordinates", n, out.len()),
        ] {
            if expected != found {
                return Err(EvalError::Arity { what, expected, found });
            }
        }
        let mut load = |leaf: Leaf, _span: Span| -> Result<i64, EvalError> {
            let v = match leaf {
                Leaf::Coord(i) => virt_coords.get(usize::from(i)),
                Leaf::VirtDim(i) => virt_dims.get(usize::from(i)),
                Leaf::PhysDim(i) => phys_dims.get(usize::from(i)),
                Leaf::Var(_) => None,
            };
            v.copied().ok_or(EvalError::Internal)
        };
        for (prog, slot) in self.coords.iter().zip(out.iter_mut()) {
            *slot = run(prog, &mut load)?;
        }
        Ok(())
    }
}

/// A compiled scalar expression over `f64` with named references (see the module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    prog: Program<f64>,
    refs: Vec<String>,
}

impl Expr {
    /// Parses and compiles a scalar expression such as `(4*pt(1).ila + 2) / n`.
    pub fn parse(text: &str) -> Result<Expr, ExprError> {
        let (prog, refs) = parse::parse_scalar(text)?;
        Ok(Expr { prog, refs })
    }

    /// The distinct references in order of first appearance, in canonical spelling
    /// (no blanks, decimal indices: `pt( 0x1 ).ila` is `pt(1).ila`); lets a caller check
    /// that they exist and that references between expressions have no cycle.
    pub fn references(&self) -> &[String] {
        &self.refs
    }

    /// Evaluates, asking `lookup` for the value of each reference (by canonical name)
    /// whenever the evaluation reaches it; `None` is [`EvalError::UnknownReference`].
    pub fn eval_with(&self, lookup: &dyn Fn(&str) -> Option<f64>) -> Result<f64, EvalError> {
        let refs = &self.refs;
        let mut load = |leaf: Leaf, span: Span| -> Result<f64, EvalError> {
            let Leaf::Var(i) = leaf else { return Err(EvalError::Internal) };
            let name = refs.get(i as usize).ok_or(EvalError::Internal)?;
            lookup(name).ok_or_else(|| EvalError::UnknownReference { name: name.clone(), span })
        };
        run(&self.prog, &mut load)
    }
}

#[cfg(test)]
mod tests;
