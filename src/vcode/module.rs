//! A compiled CPC program: the code table and every table the simulator and the debugger
//! need (seed 000 §4.1: srcTable, codeTable, src2codTable, identTable, blockTable,
//! arrayTable, channel table).
use super::isa::Instr;
use serde::{Deserialize, Serialize};

/// A memory word: the unit of the simulated memory pool (seed 000 Figure 6).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Word {
    Int(i32),
    Float(f32),
    Char(u8),
    /// A `double` (`.cod` 1.3).
    Double(f64),
    /// A `long` / `long long` (`.cod` 1.3).
    Long(i64),
}

impl Default for Word {
    fn default() -> Self {
        Word::Int(0)
    }
}

/// Index into [`Module::types`].
pub type TypeId = u32;

/// A type of the program. Sizes are in words: `int`, `float`, `char`, pointers, channel
/// elements and spinlocks take one word each.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Type {
    Void,
    Int,
    Float,
    Char,
    /// A spinlock: one word, 0 when free, else the holder's pid + 1.
    Spinlock,
    /// Pointer to the given type.
    Pointer(TypeId),
    /// `len` elements of the given type (`len` 0: an unsized reference array parameter).
    Array {
        elem: TypeId,
        len: u32,
    },
    /// Index into [`Module::structs`].
    Struct(u32),
    /// A channel element carrying messages of the given type.
    Channel(TypeId),
    /// C's `_Bool`: an `int` word that is always 0 or 1 (conversions to it compare with
    /// zero). Added in `.cod` 1.3.
    Bool,
    /// C's `unsigned int`: an `int` word read as 32 unsigned bits. Added in `.cod` 1.3.
    UInt,
    /// A function type (only ever pointed to): result and parameter types. A pointer to
    /// one is a word holding the function's index + 1 (0 is the null pointer). Added in
    /// `.cod` 1.3.
    Function {
        ret: TypeId,
        params: Vec<TypeId>,
    },
    /// C's `short` (16-bit), `unsigned short` and `signed char` (8-bit): an `int` word
    /// whose value every conversion to the type wraps into its range. Added in `.cod` 1.3.
    Short,
    UShort,
    SChar,
    /// C's `double`: one word holding an IEEE binary64 value. Added in `.cod` 1.3.
    Double,
    /// C's `long` and `long long`: one word holding 64 bits. Added in `.cod` 1.3.
    Long,
    /// C's `unsigned long` and `unsigned long long`: a `long` word read as 64 unsigned
    /// bits. Added in `.cod` 1.4.
    ULong,
    /// A function type whose parameters end with `...`: `params` are the named ones. A
    /// call through a pointer to one pushes the named arguments, then the address of the
    /// caller's words that hold the others (the callee's hidden last parameter, which
    /// `va_start` reads). Added in `.cod` 1.5.
    VariadicFunction {
        ret: TypeId,
        params: Vec<TypeId>,
    },
}

impl Type {
    /// A function type's result, named parameters and whether `...` follows them.
    pub fn function_parts(&self) -> Option<(TypeId, &[TypeId], bool)> {
        match self {
            Type::Function { ret, params } => Some((*ret, params, false)),
            Type::VariadicFunction { ret, params } => Some((*ret, params, true)),
            _ => None,
        }
    }
}

/// A struct definition.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StructInfo {
    pub name: String,
    pub fields: Vec<FieldInfo>,
    /// Size in words.
    pub words: u32,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FieldInfo {
    pub name: String,
    pub ty: TypeId,
    /// Offset in words from the start of the struct.
    pub off: u32,
}

/// What an identifier names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum IdentKind {
    /// A variable stored in its frame (or the global area).
    Var,
    /// A by-value parameter.
    Param,
    /// A reference parameter: the frame word holds the address of the referenced object.
    RefParam,
    /// A `forall` index copy (first word of a forall body frame).
    ForallIndex,
    /// A channel (global).
    Channel,
    /// A function.
    Function,
}

/// One entry of the identifier table (seed 000 identTable).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct IdentInfo {
    pub name: String,
    pub kind: IdentKind,
    pub ty: TypeId,
    /// Static depth of the frame holding it (0 = global area).
    pub depth: u8,
    /// Word offset in that frame (for functions: the function index).
    pub off: u32,
    /// The block (scope) declaring it.
    pub block: u32,
    /// Source line of the declaration.
    pub line: u32,
}

/// One entry of the block table: a compound statement, function body or forall body.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BlockInfo {
    /// Enclosing block (`None` for the global scope, block 0).
    pub parent: Option<u32>,
    /// The function (or forall body) whose frame holds this block's variables.
    pub func: Option<u32>,
    pub first_line: u32,
    pub last_line: u32,
}

/// One entry of the function table. Forall bodies are functions too (`is_forall_body`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FunctionInfo {
    pub name: String,
    /// First instruction.
    pub entry: u32,
    /// One past the last instruction.
    pub end: u32,
    /// Static nesting depth (top-level functions: 1).
    pub depth: u8,
    /// Words of arguments the caller pushes (reference params and pointers take one).
    pub param_words: u32,
    /// Words of the whole frame (params + locals).
    pub frame_words: u32,
    /// Words of the return value (0 for void).
    pub ret_words: u32,
    pub ret_ty: TypeId,
    /// Enclosing function for nested functions and forall bodies.
    pub parent: Option<u32>,
    /// Body block.
    pub block: u32,
    pub line: u32,
    pub is_forall_body: bool,
}

/// A global channel declaration (`channel T Name[d1]...;`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChannelInfo {
    pub name: String,
    /// Message type.
    pub elem: TypeId,
    /// Words per message.
    pub msg_words: u32,
    pub dims: Vec<u32>,
    /// Global address of element 0; element k (row-major) is at `base + k`.
    pub base: u32,
    pub line: u32,
}

/// Topology kinds of `arch` / `phyArch` declarations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum TopoKind {
    Line,
    Ring,
    Mesh,
    Torus,
    Hypercube,
    FullConnect,
    Shared,
}

impl TopoKind {
    pub const ALL: [TopoKind; 7] = [
        TopoKind::Line,
        TopoKind::Ring,
        TopoKind::Mesh,
        TopoKind::Torus,
        TopoKind::Hypercube,
        TopoKind::FullConnect,
        TopoKind::Shared,
    ];
    /// The keyword used in CPC and on command lines.
    pub fn name(self) -> &'static str {
        match self {
            TopoKind::Line => "line",
            TopoKind::Ring => "ring",
            TopoKind::Mesh => "mesh",
            TopoKind::Torus => "torus",
            TopoKind::Hypercube => "hypercube",
            TopoKind::FullConnect => "fullconnect",
            TopoKind::Shared => "shared",
        }
    }
    pub fn from_name(s: &str) -> Option<TopoKind> {
        TopoKind::ALL.iter().copied().find(|k| k.name() == s)
    }
}

/// An architecture declaration: `arch torus T[8][8];`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArchDecl {
    pub kind: TopoKind,
    pub name: String,
    /// Sizes, row-major; for a hypercube the single dimension k (2^k nodes).
    pub dims: Vec<u32>,
}

/// In a module's source, the line that starts the text of an included file, followed by
/// the file's name: the main file's lines come first, numbered from 1, and each included
/// file's lines follow its marker line, numbered on (so line numbers stay one sequence).
pub const INCLUDE_MARK: &str = "//@include ";

/// The file and line within it of line `line` (1-based) of a module's `source`: `None`
/// for the main file's lines (and for a marker line), else the included file's name and
/// its own line number.
pub fn included_line(source: &str, line: u32) -> Option<(&str, u32)> {
    let mut found = None;
    for (i, l) in source.lines().enumerate().take(line as usize) {
        if let Some(name) = l.strip_prefix(INCLUDE_MARK) {
            found = Some((name, i as u32 + 1));
        }
    }
    let (name, mark) = found?;
    (line > mark).then_some((name, line - mark))
}

/// A compiled program.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Module {
    /// Source file name as given to the compiler.
    pub source_name: String,
    /// The main source text (srcTable).
    pub source: String,
    /// The code table.
    pub code: Vec<Instr>,
    /// Source line of each instruction (parallel to `code`).
    pub lines: Vec<u32>,
    /// src2codTable: (source line, first instruction), sorted by line, one entry per line
    /// that produced code.
    pub src2cod: Vec<(u32, u32)>,
    pub types: Vec<Type>,
    pub structs: Vec<StructInfo>,
    pub idents: Vec<IdentInfo>,
    pub blocks: Vec<BlockInfo>,
    pub functions: Vec<FunctionInfo>,
    pub channels: Vec<ChannelInfo>,
    /// Size of the global area in words.
    pub globals_words: u32,
    /// Initial global memory: (address, word) for every non-zero initial word (string
    /// literals, initialised globals).
    pub global_init: Vec<(u32, Word)>,
    /// The addresses in `global_init` whose word is the address of a global (`char *s =
    /// "x"; int *p = &g;`), ascending: a copy of the globals at another base (each MPI
    /// rank has its own, `cpss --ranks`) adds the base to them. Section
    /// [`crate::vcode::cod::tag::GLOBAL_RELOCS`], written when not empty.
    #[serde(default)]
    pub global_relocs: Vec<u32>,
    /// Index of `main` in `functions`.
    pub main: u32,
    /// The virtual architecture (`arch`).
    pub arch: Option<ArchDecl>,
    /// The default physical architecture (`phyArch`).
    pub phy_arch: Option<ArchDecl>,
    /// Word 0 of the globals holds no object: address 0 is the null pointer, and the
    /// simulator stops a process that reads or writes through it. Set by this compiler
    /// and by `.cod` files of format 1.2 on; older files placed an object there.
    #[serde(default)]
    pub null_reserved: bool,
}

impl Module {
    /// The labels of the program's probes, in code order, each once: `Some` when every
    /// probe's label is a string literal (`probe(1, "start")`: the probe instruction
    /// follows the literal's global address), `None` when one is computed at run time.
    /// Mapping probes (labels starting with [`crate::vcode::MAPPING_PREFIX`]) are left out.
    pub fn probe_labels(&self) -> Option<Vec<String>> {
        let init: std::collections::HashMap<u32, Word> = self.global_init.iter().copied().collect();
        let mut out: Vec<String> = Vec::new();
        for (pc, ins) in self.code.iter().enumerate() {
            if !matches!(ins, Instr::Probe {}) {
                continue;
            }
            let Some(&Instr::LdAddr { depth: 0, off }) = pc.checked_sub(1).and_then(|p| self.code.get(p)) else {
                return None;
            };
            let mut bytes = Vec::new();
            let mut a = off;
            // The literal's characters, one a word, up to its NUL (a zero word is not
            // in the initial image).
            while let Some(&w) = init.get(&a) {
                let b = match w {
                    Word::Char(c) => c,
                    Word::Int(v) => v as u8,
                    _ => break,
                };
                if b == 0 || bytes.len() >= 4096 {
                    break;
                }
                bytes.push(b);
                a += 1;
            }
            let label = String::from_utf8_lossy(&bytes).into_owned();
            if !label.starts_with(crate::vcode::MAPPING_PREFIX) && !out.contains(&label) {
                out.push(label);
            }
        }
        Some(out)
    }

    /// Whether the program is an MPI program (it calls `MPI_Init`): `cpss` then starts
    /// one rank per virtual processor unless `--ranks` says otherwise.
    pub fn uses_mpi(&self) -> bool {
        self.functions.iter().any(|f| f.name == "MPI_Init")
    }

    /// The source line of instruction `pc` (0 if unknown).
    pub fn line_of(&self, pc: u32) -> u32 {
        self.lines.get(pc as usize).copied().unwrap_or(0)
    }
    /// The function whose code contains `pc`.
    pub fn function_at(&self, pc: u32) -> Option<u32> {
        self.functions.iter().position(|f| f.entry <= pc && pc < f.end).map(|i| i as u32)
    }
    /// Size of a type in words.
    pub fn type_words(&self, ty: TypeId) -> u32 {
        match self.types.get(ty as usize) {
            Some(Type::Void) | None => 0,
            Some(Type::Array { elem, len }) => self.type_words(*elem).saturating_mul(*len),
            Some(Type::Struct(s)) => self.structs.get(*s as usize).map_or(0, |s| s.words),
            Some(_) => 1,
        }
    }
}
