//! The C library functions written in CPC, linked on demand: a call to one of these names
//! that the program does not define compiles the function from the source below, once,
//! after the program's own functions (as a linker pulls only the archive members a
//! program uses). Their code counts like any other function's (they are named in
//! profiles and the debugger, with no source line of the program), so a `strlen` costs
//! what its loop costs.
//!
//! Characters are one word each (see `man cpss`, MEMORY), so these loops are exact C.
//! Routines that must copy words of any type as they are (`memcpy`, `memset`, `malloc`…)
//! are instructions instead (`expr.rs`).
use super::{Gen, Symbol};
use crate::lang::ast;

/// Name and CPC source of each library function.
const LIBRARY: &[(&str, &str)] = &[
    ("strlen", "unsigned int strlen(const char *s) { unsigned int n = 0; while (s[n]) n++; return n; }"),
    ("strcpy", "char *strcpy(char *d, const char *s) { int i = 0; while ((d[i] = s[i]) != 0) i++; return d; }"),
    (
        "strncpy",
        "char *strncpy(char *d, const char *s, unsigned int n) { int i = 0; while (i < n && s[i]) { d[i] = s[i]; i++; } \
         while (i < n) { d[i] = 0; i++; } return d; }",
    ),
    ("strcmp", "int strcmp(const char *a, const char *b) { int i = 0; while (a[i] && a[i] == b[i]) i++; return a[i] - b[i]; }"),
    (
        "strncmp",
        "int strncmp(const char *a, const char *b, unsigned int n) { unsigned int i = 0; if (n == 0) return 0; \
         while (i < n - 1 && a[i] && a[i] == b[i]) i++; return a[i] - b[i]; }",
    ),
    ("strcat", "char *strcat(char *d, const char *s) { int n = strlen(d); strcpy(d + n, s); return d; }"),
    (
        "strncat",
        "char *strncat(char *d, const char *s, unsigned int m) { int n = strlen(d); int i = 0; \
         while (i < m && s[i]) { d[n + i] = s[i]; i++; } d[n + i] = 0; return d; }",
    ),
    (
        "strchr",
        "char *strchr(const char *s, int c) { int i = 0; while (s[i] != (char)c) { if (!s[i]) return 0; i++; } return s + i; }",
    ),
    (
        "strrchr",
        "char *strrchr(const char *s, int c) { char *r = 0; int i = 0; while (1) { if (s[i] == (char)c) r = s + i; \
         if (!s[i]) return r; i++; } }",
    ),
    (
        "strstr",
        "char *strstr(const char *h, const char *n) { int i = 0; if (!n[0]) return h; while (h[i]) { int k = 0; \
         while (n[k] && h[i + k] == n[k]) k++; if (!n[k]) return h + i; i++; } return 0; }",
    ),
    (
        "memcmp",
        "int memcmp(const void *a, const void *b, unsigned int n) { const char *x = a; const char *y = b; int i = 0; \
         for (i = 0; i < n; i++) if (x[i] != y[i]) return x[i] < y[i] ? -1 : 1; return 0; }",
    ),
    (
        "atoi",
        "int atoi(const char *s) { int i = 0; int sign = 1; int v = 0; \
         while (s[i] == ' ' || s[i] == '\\t' || s[i] == '\\n') i++; \
         if (s[i] == '-') { sign = -1; i++; } else if (s[i] == '+') i++; \
         while (s[i] >= '0' && s[i] <= '9') { v = v * 10 + (s[i] - '0'); i++; } return sign * v; }",
    ),
    // C's `int rand(void)` in [0, RAND_MAX] (what `rand` names under <stdlib.h>): 31 bits
    // from two draws of CPC's float `rand`, which is uniform on multiples of 2^-24.
    (
        "__cppe_c_rand",
        "int __cppe_c_rand(void) { int hi = (int)(rand() * 32768.0f); int lo = (int)(rand() * 65536.0f); \
         return hi * 65536 + lo; }",
    ),
    // The formatted output built-ins as functions, for a pointer to one (`&fprintf`):
    // a call by name compiles to the instruction itself.
    (
        "__cppe_fn_printf",
        "int __cppe_fn_printf(const char *f, ...) { return vprintf(f, __builtin_va_start()); }",
    ),
    (
        "__cppe_fn_fprintf",
        "int __cppe_fn_fprintf(struct __cppe_file *s, const char *f, ...) { return vfprintf(s, f, __builtin_va_start()); }",
    ),
    (
        "__cppe_fn_sprintf",
        "int __cppe_fn_sprintf(char *d, const char *f, ...) { return vsprintf(d, f, __builtin_va_start()); }",
    ),
    (
        "__cppe_fn_snprintf",
        "int __cppe_fn_snprintf(char *d, unsigned int n, const char *f, ...) \
         { return vsnprintf(d, n, f, __builtin_va_start()); }",
    ),
    // <string.h>'s strtok keeps its place between calls, as C's does.
    (
        "strtok",
        "char *strtok(char *s, const char *d) { static char *p = 0; char *t; if (s) p = s; if (!p) return 0; \
         p = p + strspn(p, d); if (!*p) { p = 0; return 0; } t = p; p = p + strcspn(p, d); \
         if (*p) { *p = 0; p++; } else p = 0; return t; }",
    ),
    // The messages of the errno values <errno.h> names (glibc's wording).
    (
        "strerror",
        "char *strerror(int e) { static char buf[32]; if (e == 0) return \"Success\"; \
         if (e == 2) return \"No such file or directory\"; if (e == 22) return \"Invalid argument\"; \
         if (e == 33) return \"Numerical argument out of domain\"; \
         if (e == 34) return \"Numerical result out of range\"; \
         sprintf(buf, \"Unknown error %d\", e); return buf; }",
    ),
    (
        "perror",
        "void perror(const char *s) { if (s && s[0]) fprintf((struct __cppe_file *)-3, \"%s: \", s); \
         fprintf((struct __cppe_file *)-3, \"%s\\n\", strerror(__cppe_errno)); }",
    ),
    ("div", "struct __cppe_div div(int a, int b) { struct __cppe_div r; r.quot = a / b; r.rem = a % b; return r; }"),
    (
        "ldiv",
        "struct __cppe_ldiv ldiv(long a, long b) { struct __cppe_ldiv r; r.quot = a / b; r.rem = a % b; return r; }",
    ),
    (
        "lldiv",
        "struct __cppe_ldiv lldiv(long a, long b) { struct __cppe_ldiv r; r.quot = a / b; r.rem = a % b; return r; }",
    ),
    // <math.h> beyond the MATH instruction's functions.
    ("isnan", "int isnan(double x) { return x != x; }"),
    // glibc's: -1 for -inf.
    ("isinf", "int isinf(double x) { if (x == x && x - x != x - x) return x > 0 ? 1 : -1; return 0; }"),
    ("isfinite", "int isfinite(double x) { return x - x == 0.0; }"),
    ("ldexp", "double ldexp(double x, int e) { return x * pow(2.0, e); }"),
    ("scalbn", "double scalbn(double x, int e) { return ldexp(x, e); }"),
    ("ilogb", "int ilogb(double x) { return (int)logb(x); }"),
    ("lround", "long lround(double x) { return (long)round(x); }"),
    ("llround", "long llround(double x) { return (long)round(x); }"),
    ("lrint", "long lrint(double x) { return (long)rint(x); }"),
    ("llrint", "long llrint(double x) { return (long)rint(x); }"),
    // Not fused: the product is rounded before the sum (man cpcc).
    ("fma", "double fma(double x, double y, double z) { return x * y + z; }"),
    // One locale, C's: collation is byte order.
    ("strcoll", "int strcoll(const char *a, const char *b) { return strcmp(a, b); }"),
    (
        "strxfrm",
        "unsigned int strxfrm(char *d, const char *s, unsigned int n) { unsigned int k = strlen(s); \
         if (k < n) strcpy(d, s); return k; }",
    ),
    (
        "frexp",
        "double frexp(double x, int *e) { int k = 0; double a = fabs(x); \
         if (x == 0.0 || x != x || x - x != 0.0) { *e = 0; return x; } \
         while (a >= 1.0) { a = a / 2.0; k++; } while (a < 0.5) { a = a * 2.0; k--; } \
         *e = k; return x < 0.0 ? -a : a; }",
    ),
    ("modf", "double modf(double x, double *ip) { double t = trunc(x); *ip = t; return x - t; }"),
    // <stdlib.h>
    ("labs", "long labs(long x) { return x < 0 ? -x : x; }"),
    ("llabs", "long llabs(long x) { return x < 0 ? -x : x; }"),
    (
        "strtol",
        "long strtol(const char *s, char **end, int base) { int i = 0; int neg = 0; long v = 0; int any = 0; \
         while (s[i] == ' ' || (s[i] >= '\\t' && s[i] <= '\\r')) i++; \
         if (s[i] == '-') { neg = 1; i++; } else if (s[i] == '+') i++; \
         if ((base == 0 || base == 16) && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X')) { base = 16; i += 2; } \
         else if (base == 0 && s[i] == '0') base = 8; else if (base == 0) base = 10; \
         while (1) { int c = s[i]; int d = 99; if (c >= '0' && c <= '9') d = c - '0'; \
         else if (c >= 'a' && c <= 'z') d = c - 'a' + 10; else if (c >= 'A' && c <= 'Z') d = c - 'A' + 10; \
         if (d >= base) break; v = v * base + d; any = 1; i++; } \
         if (end) *end = (char *)(any ? s + i : s); return neg ? -v : v; }",
    ),
    (
        "strtoul",
        "unsigned long strtoul(const char *s, char **end, int base) { return (unsigned long)strtol(s, end, base); }",
    ),
    ("atol", "long atol(const char *s) { return strtol(s, 0, 10); }"),
    ("atoll", "long atoll(const char *s) { return strtol(s, 0, 10); }"),
    (
        "strtod",
        "double strtod(const char *s, char **end) { int i = 0; int b; int any = 0; double v = 0.0; \
         while (s[i] == ' ' || (s[i] >= '\\t' && s[i] <= '\\r')) i++; \
         b = i; if (s[i] == '-' || s[i] == '+') i++; \
         if ((s[i] | 32) == 'i' && (s[i + 1] | 32) == 'n' && (s[i + 2] | 32) == 'f') { i += 3; any = 2; \
         if ((s[i] | 32) == 'i' && (s[i + 1] | 32) == 'n' && (s[i + 2] | 32) == 'i' && (s[i + 3] | 32) == 't' \
         && (s[i + 4] | 32) == 'y') i += 5; v = 1e300 * 1e300; } \
         else if ((s[i] | 32) == 'n' && (s[i + 1] | 32) == 'a' && (s[i + 2] | 32) == 'n') { i += 3; any = 2; \
         v = 1e300 * 1e300; v = -(v - v); \
         if (s[i] == '(') { int k = i + 1; \
         while ((s[k] >= '0' && s[k] <= '9') || ((s[k] | 32) >= 'a' && (s[k] | 32) <= 'z') || s[k] == '_') k++; \
         if (s[k] == ')') i = k + 1; } } \
         else { while (s[i] >= '0' && s[i] <= '9') { any = 1; i++; } \
         if (s[i] == '.') { i++; while (s[i] >= '0' && s[i] <= '9') { any = 1; i++; } } \
         if (any && (s[i] == 'e' || s[i] == 'E') && ((s[i + 1] >= '0' && s[i + 1] <= '9') || \
         ((s[i + 1] == '-' || s[i + 1] == '+') && s[i + 2] >= '0' && s[i + 2] <= '9'))) { i += 2; \
         while (s[i] >= '0' && s[i] <= '9') i++; } } \
         if (!any) { if (end) *end = (char *)s; return 0.0; } \
         if (any == 2) { if (s[b] == '-') v = -v; } else sscanf(s + b, \"%lf\", &v); \
         if (end) *end = (char *)(s + i); return v; }",
    ),
    ("atof", "double atof(const char *s) { return strtod(s, 0); }"),
    (
        "qsort",
        "void qsort(void *base, unsigned int n, unsigned int size, int (*cmp)(const void *, const void *)) { \
         char *a = base; char *t; unsigned int w; if (n < 2) return; t = malloc(n * size); \
         for (w = 1; w < n; w = w * 2) { unsigned int lo; for (lo = 0; lo < n; lo += 2 * w) { \
         unsigned int mid = lo + w < n ? lo + w : n; unsigned int hi = lo + 2 * w < n ? lo + 2 * w : n; \
         unsigned int i = lo; unsigned int j = mid; unsigned int k = lo; \
         while (i < mid && j < hi) { if (cmp(a + j * size, a + i * size) < 0) { memcpy(t + k * size, a + j * size, size); j++; } \
         else { memcpy(t + k * size, a + i * size, size); i++; } k++; } \
         while (i < mid) { memcpy(t + k * size, a + i * size, size); i++; k++; } \
         while (j < hi) { memcpy(t + k * size, a + j * size, size); j++; k++; } } \
         memcpy(a, t, n * size); } free(t); }",
    ),
    (
        "bsearch",
        "void *bsearch(const void *key, const void *base, unsigned int n, unsigned int size, \
         int (*cmp)(const void *, const void *)) { const char *a = base; unsigned int lo = 0; unsigned int hi = n; \
         while (lo < hi) { unsigned int mid = lo + (hi - lo) / 2; int c = cmp(key, a + mid * size); \
         if (c == 0) return (void *)(a + mid * size); if (c < 0) hi = mid; else lo = mid + 1; } return 0; }",
    ),
    ("abort", "void abort(void) { exit(134); }"),
    // <string.h>
    (
        "strspn",
        "unsigned int strspn(const char *s, const char *set) { unsigned int n = 0; \
         while (s[n]) { int k = 0; while (set[k] && set[k] != s[n]) k++; if (!set[k]) break; n++; } return n; }",
    ),
    (
        "strcspn",
        "unsigned int strcspn(const char *s, const char *set) { unsigned int n = 0; \
         while (s[n]) { int k = 0; while (set[k] && set[k] != s[n]) k++; if (set[k]) break; n++; } return n; }",
    ),
    (
        "strpbrk",
        "char *strpbrk(const char *s, const char *set) { int i = 0; \
         while (s[i]) { int k = 0; while (set[k]) { if (set[k] == s[i]) return (char *)(s + i); k++; } i++; } return 0; }",
    ),
    (
        "memchr",
        "void *memchr(const void *p, int c, unsigned int n) { const char *s = p; unsigned int i; \
         for (i = 0; i < n; i++) if (s[i] == (char)c) return (void *)(s + i); return 0; }",
    ),
    (
        "strdup",
        "char *strdup(const char *s) { unsigned int n = strlen(s); char *d = malloc(n + 1); \
         if (d) memcpy(d, s, n + 1); return d; }",
    ),
    (
        "strndup",
        "char *strndup(const char *s, unsigned int m) { unsigned int n = 0; char *d; while (n < m && s[n]) n++; \
         d = malloc(n + 1); if (d) { memcpy(d, s, n); d[n] = 0; } return d; }",
    ),
    // <time.h>: the simulated clock, one time unit a microsecond.
    ("clock", "long clock(void) { return (long)simTime(); }"),
    (
        "time",
        "long time(long *t) { long v = (long)(simTime() / 1000000.0); if (t) *t = v; return v; }",
    ),
    ("difftime", "double difftime(long a, long b) { return (double)(a - b); }"),
    // <stdio.h>
    ("fgetc", "int fgetc(struct __cppe_file *f) { char c; if (fscanf(f, \"%c\", &c) != 1) return -1; return c; }"),
    ("getc", "int getc(struct __cppe_file *f) { return fgetc(f); }"),
    (
        "fgets",
        "char *fgets(char *s, int n, struct __cppe_file *f) { int i = 0; int c = 0; if (n <= 0) return 0; \
         while (i < n - 1) { c = fgetc(f); if (c < 0) break; s[i] = c; i++; if (c == '\\n') break; } \
         if (i == 0 && c < 0) return 0; s[i] = 0; return s; }",
    ),
    ("fflush", "int fflush(struct __cppe_file *f) { return 0; }"),
    // fwrite and fread move characters: the elements of a char buffer, size × n of
    // them (a word of another type read or written through the char pointer is a
    // runtime error that names it, as memory holds values, not bytes).
    (
        "fwrite",
        "unsigned int fwrite(const void *p, unsigned int size, unsigned int n, struct __cppe_file *f) { \
         const char *c = p; unsigned int i; for (i = 0; i < size * n; i++) fprintf(f, \"%c\", c[i]); return n; }",
    ),
    (
        "fread",
        "unsigned int fread(void *p, unsigned int size, unsigned int n, struct __cppe_file *f) { \
         char *c = p; unsigned int k; unsigned int i; char ch; for (k = 0; k < n; k++) { for (i = 0; i < size; i++) { \
         if (fscanf(f, \"%c\", &ch) != 1) return k; c[k * size + i] = ch; } } return n; }",
    ),
    ("puts", "int puts(const char *s) { printf(\"%s\\n\", s); return 0; }"),
    ("putchar", "int putchar(int c) { printf(\"%c\", c); return c; }"),
    ("fputs", "int fputs(const char *s, struct __cppe_file *f) { fprintf(f, \"%s\", s); return 0; }"),
    ("fputc", "int fputc(int c, struct __cppe_file *f) { fprintf(f, \"%c\", c); return c; }"),
    ("putc", "int putc(int c, struct __cppe_file *f) { fprintf(f, \"%c\", c); return c; }"),
    ("getchar", "int getchar(void) { char c; if (scanf(\"%c\", &c) != 1) return -1; return c; }"),
    ("isdigit", "int isdigit(int c) { return c >= '0' && c <= '9'; }"),
    ("isalpha", "int isalpha(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }"),
    ("isalnum", "int isalnum(int c) { return isalpha(c) || isdigit(c); }"),
    ("isupper", "int isupper(int c) { return c >= 'A' && c <= 'Z'; }"),
    ("islower", "int islower(int c) { return c >= 'a' && c <= 'z'; }"),
    ("isspace", "int isspace(int c) { return c == ' ' || (c >= '\\t' && c <= '\\r'); }"),
    ("isxdigit", "int isxdigit(int c) { return isdigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }"),
    ("ispunct", "int ispunct(int c) { return c > ' ' && c < 127 && !isalnum(c); }"),
    ("isprint", "int isprint(int c) { return c >= ' ' && c < 127; }"),
    ("isgraph", "int isgraph(int c) { return c > ' ' && c < 127; }"),
    ("iscntrl", "int iscntrl(int c) { return (c >= 0 && c < ' ') || c == 127; }"),
    ("isblank", "int isblank(int c) { return c == ' ' || c == '\\t'; }"),
    ("toupper", "int toupper(int c) { if (c >= 'a' && c <= 'z') return c - 'a' + 'A'; return c; }"),
    ("tolower", "int tolower(int c) { if (c >= 'A' && c <= 'Z') return c - 'A' + 'a'; return c; }"),
];

/// The parsed definition of library function `name`.
fn definition(name: &str) -> Option<ast::FuncDef> {
    let src = source(name)?;
    let (program, diags) = crate::lang::parse_text(src);
    debug_assert!(diags.is_empty(), "library source of {name}: {diags:?}");
    program.items.into_iter().find_map(|i| match i {
        ast::Item::Func(f) => Some(f),
        _ => None,
    })
}

/// The CPC source of library function `name`.
fn source(name: &str) -> Option<&'static str> {
    LIBRARY.iter().find(|(n, _)| *n == name).map(|(_, src)| *src).or_else(|| super::mpi_library::source(name))
}

/// Every library name (for "did you mean" suggestions).
pub(super) fn names() -> impl Iterator<Item = &'static str> + 'static {
    LIBRARY.iter().map(|(n, _)| *n).chain(super::mpi_library::names())
}

impl Gen<'_> {
    /// The function `name` names when used as a value: the program's, or the library's
    /// (linked now), or a built-in's function form.
    pub(super) fn named_function(&mut self, name: &str) -> Option<u32> {
        match self.lookup(name) {
            Some(Symbol::Func(idx)) => Some(idx),
            Some(_) => None,
            None if source(name).is_some() => self.link_library(name),
            None => {
                let hidden = format!("__cppe_fn_{name}");
                match self.lookup(&hidden) {
                    Some(Symbol::Func(idx)) => Some(idx),
                    _ => self.link_library(&hidden),
                }
            }
        }
    }

    /// Declares library function `name` (its body is compiled by [`Gen::link_pending`]).
    /// Returns its index, or `None` if `name` is not a library function.
    pub(super) fn link_library(&mut self, name: &str) -> Option<u32> {
        let f = definition(name)?;
        // Declared at file scope, whatever scope the call is in.
        let saved = self.scopes.split_off(1);
        let idx = self.declare_signature(&f);
        self.scopes.extend(saved);
        let idx = idx?;
        if let Some(s) = self.sigs.get_mut(idx as usize) {
            s.top = true;
        }
        self.pending_library.push((idx, f));
        Some(idx)
    }

    /// Compiles the bodies of the library functions linked so far (and those they call).
    pub(super) fn link_pending(&mut self) {
        while let Some((idx, f)) = self.pending_library.pop() {
            self.in_library += 1;
            self.function_body(idx, &f);
            self.in_library -= 1;
        }
    }

    /// For a prototype the program declared but never defined: the library's definition.
    pub(super) fn link_declared(&mut self, name: &str) -> bool {
        let Some(f) = definition(name) else { return false };
        let before = self.diags.len();
        match self.declare_signature(&f) {
            Some(idx) if matches!(self.lookup(name), Some(Symbol::Func(i)) if i == idx) => {
                self.pending_library.push((idx, f));
                self.link_pending();
                true
            }
            _ => {
                // The program declares it with other types (`int strlen(char *);`): as
                // gcc does, the library's body is compiled with the program's types when
                // it can be (same number of parameters, and the body compiles), with a
                // warning; otherwise the error says what the library's prototype is.
                self.diags.truncate(before);
                let Some(Symbol::Func(i)) = self.lookup(name) else { return false };
                let Some(sig) = self.sigs.get(i as usize).cloned() else { return false };
                // The library's prototype: its definition up to the body.
                let text = source(name).and_then(|src| src.split('{').next()).unwrap_or("").trim();
                let fits = sig.params.len() == f.params.len() && sig.variadic == f.variadic;
                if fits && sig.params.iter().all(|(t, r)| !r && *t != super::ERROR) {
                    self.pending_library.push((i, f));
                    self.link_pending();
                    if self.diags[before..].iter().all(|d| !d.is_error()) {
                        self.push_diag(crate::lang::diag::Diagnostic::warning(
                            sig.loc,
                            format!(
                                "`{name}` is declared differently from the library's `{text}`: the library's \
                                 definition is compiled with this declaration's types"
                            ),
                        ));
                        return true;
                    }
                    self.diags.truncate(before);
                }
                self.error(sig.loc, format!("`{name}` is declared differently from the library's `{text}`"));
                true
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::LIBRARY;

    /// Every library function compiles as a program's own function would (types and the
    /// functions it calls checked), so a routine no test program calls cannot hold an
    /// error that only its first user would meet. The program includes the headers
    /// that declare what the routines use (`FILE`'s struct, `errno`, `div_t`'s struct).
    #[test]
    fn every_library_function_compiles() {
        let opts = crate::lang::FrontOptions::default();
        for (name, src) in LIBRARY {
            let text = format!("#include <stdio.h>\n#include <stdlib.h>\n{src}\nint main(void) {{ return 0; }}\n");
            if let Err(e) = crate::lang::compile("lib.c", &text, &opts) {
                panic!("library function {name}:\n{e}");
            }
        }
    }
}
