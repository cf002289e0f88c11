//! The standard headers, built in: `#include <stdio.h>` and the others below read these
//! texts, never the host's `/usr/include`. They hold macros and types only; the library
//! functions themselves are compiler built-ins or are linked on demand from CPC source
//! (`codegen::library`), so a program pays only for what it calls.
//!
//! What C's headers have and these leave out follows from the machine model (see
//! `man cpcc`, C SCOPE): every integer is a 32-bit `int`, floating point is `float`, and
//! characters hold 0..255.

/// The text of built-in header `name`, if there is one.
pub fn builtin(name: &str) -> Option<&'static str> {
    Some(match name {
        "cpc.h" => "",
        "stddef.h" => STDDEF,
        "stdio.h" => STDIO,
        "stdlib.h" => STDLIB,
        // Not standard C, but where many Unix programs take malloc and free from.
        "malloc.h" => "#include <stdlib.h>\n",
        "string.h" => STRING,
        "strings.h" => STRING,
        "math.h" => MATH,
        "ctype.h" => "",
        "stdbool.h" => STDBOOL,
        "stdint.h" => STDINT,
        "limits.h" => LIMITS,
        "assert.h" => ASSERT,
        "stdarg.h" => STDARG,
        "float.h" => FLOAT,
        "time.h" => TIME,
        "wchar.h" => WCHAR,
        "errno.h" => ERRNO,
        "inttypes.h" => INTTYPES,
        "mpi.h" => MPI,
        "signal.h" | "setjmp.h" | "locale.h" | "complex.h" | "tgmath.h" | "threads.h" | "stdatomic.h" | "iso646.h" => {
            return unsupported(name)
        }
        _ => return None,
    })
}

/// Headers a C program may include that this compiler does not provide: each text is
/// an `#error` naming it, so the message says what is missing instead of "cannot find".
fn unsupported(name: &str) -> Option<&'static str> {
    Some(match name {
        "iso646.h" => ISO646,
        "setjmp.h" => "#error <setjmp.h> is not provided: setjmp and longjmp are left out (man cpcc, C SCOPE)\n",
        "signal.h" => "#error <signal.h> is not provided: the simulated machine has no signals (man cpcc, C SCOPE)\n",
        "locale.h" => "#error <locale.h> is not provided: there is one locale, C's (man cpcc, C SCOPE)\n",
        "complex.h" | "tgmath.h" => "#error <complex.h> and <tgmath.h> are not provided: complex numbers are left out (man cpcc, C SCOPE)\n",
        _ => "#error <threads.h> and <stdatomic.h> are not provided: use CPC's processes, channels and spinlocks (man cpcc)\n",
    })
}

const STDDEF: &str = "#ifndef __CPPE_STDDEF_H
#define __CPPE_STDDEF_H
#define NULL ((void *)0)
typedef unsigned int size_t;
typedef int ptrdiff_t;
typedef int wchar_t;
#define offsetof(type, member) ((size_t)&((type *)0)->member)
#endif
";

/// `<wchar.h>`: the types only (a wide character is an int holding its code point;
/// the wide-string functions are not provided).
const WCHAR: &str = "#ifndef __CPPE_WCHAR_H
#define __CPPE_WCHAR_H
#include <stddef.h>
typedef int wint_t;
#define WEOF (-1)
#define WCHAR_MIN (-2147483647 - 1)
#define WCHAR_MAX 2147483647
#endif
";

/// `errno`: a global the library sets where C's would and this machine can fail
/// (`fopen` of a missing file: ENOENT); `perror` and `strerror` name it.
const ERRNO: &str = "#ifndef __CPPE_ERRNO_H
#define __CPPE_ERRNO_H
#ifndef __CPPE_ERRNO_DECL
#define __CPPE_ERRNO_DECL
int __cppe_errno;
#endif
#define errno __cppe_errno
#define ENOENT 2
#define EINVAL 22
#define EDOM 33
#define ERANGE 34
#endif
";

/// `<inttypes.h>`: `<stdint.h>` and the `printf`/`scanf` conversion macros of its types.
const INTTYPES: &str = "#ifndef __CPPE_INTTYPES_H
#define __CPPE_INTTYPES_H
#include <stdint.h>
#define PRId8 \"d\"
#define PRId16 \"d\"
#define PRId32 \"d\"
#define PRId64 \"ld\"
#define PRIi32 \"i\"
#define PRIi64 \"li\"
#define PRIu8 \"u\"
#define PRIu16 \"u\"
#define PRIu32 \"u\"
#define PRIu64 \"lu\"
#define PRIx32 \"x\"
#define PRIx64 \"lx\"
#define PRIX32 \"X\"
#define PRIX64 \"lX\"
#define PRIdMAX \"ld\"
#define PRIuMAX \"lu\"
#define PRIdPTR \"d\"
#define SCNd32 \"d\"
#define SCNd64 \"ld\"
#define SCNu32 \"u\"
#define SCNu64 \"lu\"
#endif
";

const STDIO: &str = "#ifndef __CPPE_STDIO_H
#define __CPPE_STDIO_H
#include <stddef.h>
#ifndef __CPPE_ERRNO_DECL
#define __CPPE_ERRNO_DECL
int __cppe_errno;
#endif
typedef struct __cppe_file FILE;
#define EOF (-1)
#define stdin ((FILE *)-1)
#define stdout ((FILE *)-2)
#define stderr ((FILE *)-3)
#define SEEK_SET 0
#define SEEK_CUR 1
#define SEEK_END 2
#endif
";

const STDLIB: &str = "#ifndef __CPPE_STDLIB_H
#define __CPPE_STDLIB_H
#include <stddef.h>
#define EXIT_SUCCESS 0
#define EXIT_FAILURE 1
#define RAND_MAX 2147483647
#define rand __cppe_c_rand
typedef struct __cppe_div { int quot, rem; } div_t;
typedef struct __cppe_ldiv { long quot, rem; } ldiv_t;
typedef ldiv_t lldiv_t;
#endif
";

/// The clock is the simulated one: a time unit counts as a microsecond (`man cpcc`).
const TIME: &str = "#ifndef __CPPE_TIME_H
#define __CPPE_TIME_H
#include <stddef.h>
typedef long time_t;
typedef long clock_t;
#define CLOCKS_PER_SEC 1000000L
#endif
";

const STRING: &str = "#ifndef __CPPE_STRING_H
#define __CPPE_STRING_H
#include <stddef.h>
#endif
";

const MATH: &str = "#ifndef __CPPE_MATH_H
#define __CPPE_MATH_H
#define M_PI 3.14159265358979323846
#define M_E 2.7182818284590452354
#define M_SQRT2 1.41421356237309504880
#define M_PI_2 1.57079632679489661923
#define M_PI_4 0.78539816339744830962
#define M_1_PI 0.31830988618379067154
#define M_2_PI 0.63661977236758134308
#define M_LN2 0.69314718055994530942
#define M_LN10 2.30258509299404568402
#define M_LOG2E 1.4426950408889634074
#define M_LOG10E 0.43429448190325182765
#define M_SQRT1_2 0.70710678118654752440
#define HUGE_VAL (1e300 * 1e300)
#define HUGE_VALF ((float)HUGE_VAL)
#define INFINITY ((float)HUGE_VAL)
/* inf - inf is the host's default NaN, negative on x86-64; C's NAN (glibc's) is positive. */
#define NAN (-(float)(HUGE_VAL - HUGE_VAL))
#define FP_NAN 0
#define FP_INFINITE 1
#define FP_ZERO 2
#define FP_SUBNORMAL 3
#define FP_NORMAL 4
#define fpclassify(x) ((x) != (x) ? FP_NAN : (x) - (x) != 0 ? FP_INFINITE : (x) == 0 ? FP_ZERO \\
    : fabs(x) < 2.2250738585072014e-308 ? FP_SUBNORMAL : FP_NORMAL)
#define isnormal(x) (fpclassify(x) == FP_NORMAL)
#define signbit(x) (copysign(1.0, (x)) < 0)
#define isgreater(x, y) ((x) > (y))
#define isgreaterequal(x, y) ((x) >= (y))
#define isless(x, y) ((x) < (y))
#define islessequal(x, y) ((x) <= (y))
#define islessgreater(x, y) ((x) < (y) || (x) > (y))
#define isunordered(x, y) ((x) != (x) || (y) != (y))
#endif
";

const STDBOOL: &str = "#ifndef __CPPE_STDBOOL_H
#define __CPPE_STDBOOL_H
#define bool _Bool
#define true 1
#define false 0
#define __bool_true_false_are_defined 1
#endif
";

const STDINT: &str = "#ifndef __CPPE_STDINT_H
#define __CPPE_STDINT_H
typedef int int32_t;
typedef int int_least32_t;
typedef int int_fast32_t;
typedef int intptr_t;
typedef long intmax_t;
typedef long int64_t;
typedef int int_least16_t;
typedef short int16_t;
typedef signed char int8_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long uint64_t;
typedef unsigned long uintmax_t;
#define UINT64_MAX 18446744073709551615UL
#define UINTMAX_MAX 18446744073709551615UL
#define INT64_MIN (-9223372036854775807L - 1)
#define INT64_MAX 9223372036854775807L
#define UINT32_MAX 4294967295u
#define INT32_MIN (-2147483647 - 1)
#define INT32_MAX 2147483647
#define INTPTR_MIN INT32_MIN
#define INTPTR_MAX INT32_MAX
#define INTMAX_MIN (-9223372036854775807L - 1)
#define INTMAX_MAX 9223372036854775807L
#endif
";

const LIMITS: &str = "#ifndef __CPPE_LIMITS_H
#define __CPPE_LIMITS_H
#define CHAR_BIT 8
#define CHAR_MIN 0
#define CHAR_MAX 255
#define UCHAR_MAX 255
#define INT_MIN (-2147483647 - 1)
#define INT_MAX 2147483647
#define UINT_MAX 4294967295u
#define LONG_MIN (-9223372036854775807L - 1)
#define LONG_MAX 9223372036854775807L
#define LLONG_MIN LONG_MIN
#define LLONG_MAX LONG_MAX
#define ULONG_MAX 18446744073709551615UL
#define ULLONG_MAX ULONG_MAX
#define SHRT_MIN (-32768)
#define SHRT_MAX 32767
#define USHRT_MAX 65535
#define SCHAR_MIN (-128)
#define SCHAR_MAX 127
#endif
";

const FLOAT: &str = "#ifndef __CPPE_FLOAT_H
#define __CPPE_FLOAT_H
#define FLT_RADIX 2
#define FLT_MANT_DIG 24
#define FLT_DIG 6
#define FLT_EPSILON 1.19209290e-7f
#define FLT_MIN 1.17549435e-38f
#define FLT_MAX 3.40282347e+38f
#define DBL_MANT_DIG 53
#define DBL_DIG 15
#define DBL_EPSILON 2.2204460492503131e-16
#define DBL_MIN 2.2250738585072014e-308
#define DBL_MAX 1.7976931348623157e+308
#endif
";

/// C's `assert` (abort becomes `exit(1)`, a runtime error naming the line).
const ASSERT: &str = "#undef assert
#ifdef NDEBUG
#define assert(e) ((void)0)
#else
#define assert(e) do { if (!(e)) { fprintf(stderr, \"%s:%d: assertion `%s' failed\\n\", __FILE__, __LINE__, #e); exit(1); } } while (0)
#endif
";

/// The extra arguments of a `...` call lie one after another, a word per scalar (`char`
/// and `_Bool` promoted to `int`) and a struct's words; `va_list` walks them by `sizeof`
/// (which counts words).
const STDARG: &str = "#ifndef __CPPE_STDARG_H
#define __CPPE_STDARG_H
typedef char *va_list;
#define va_start(ap, last) ((ap) = __builtin_va_start())
#define va_arg(ap, type) (*(type *)(((ap) += sizeof(type)) - sizeof(type)))
#define va_end(ap) ((void)0)
#define va_copy(d, s) ((d) = (s))
#endif
";

const ISO646: &str = "#define and &&
#define and_eq &=
#define bitand &
#define bitor |
#define compl ~
#define not !
#define not_eq !=
#define or ||
#define or_eq |=
#define xor ^
#define xor_eq ^=
";

/// `<mpi.h>`: the handles are ints; a status is a struct with C's public fields; the
/// constants a program may print have SMPI's values (`MPI_ANY_SOURCE` -555,
/// `MPI_PROC_NULL` -666, `MPI_ANY_TAG` -444, `MPI_UNDEFINED` -333); the
/// state of each rank's library (`src/lang/codegen/mpi_library.rs`) is a global, so each
/// rank has its own.
const MPI: &str = "#ifndef __CPPE_MPI_H
#define __CPPE_MPI_H
#include <stddef.h>
typedef int MPI_Comm;
typedef int MPI_Datatype;
typedef int MPI_Op;
typedef int MPI_Request;
typedef struct __cppe_mpi_status { int MPI_SOURCE; int MPI_TAG; int MPI_ERROR; int __count; } MPI_Status;
struct __cppe_mpi_comm { int ctx; int size; int rank; int *ranks; int ndims; int *dims; int *periods; };
struct __cppe_mpi_req { int kind; int done; int seq; void *buf; int count; int dt; int source; int tag; int comm;
    struct __cppe_mpi_status st; };
struct __cppe_mpi_state { int init; int fin; struct __cppe_mpi_comm *comms; int ncomms; struct __cppe_mpi_req *reqs;
    int nreqs; int req_seq; };
struct __cppe_mpi_state __cppe_mpi;
char __cppe_mpi_in_place;
#define MPI_IN_PLACE ((void *)&__cppe_mpi_in_place)
#define MPI_SUCCESS 0
#define MPI_ERR_OTHER 15
#define MPI_COMM_WORLD 0
#define MPI_COMM_SELF 1
#define MPI_COMM_NULL (-1)
#define MPI_REQUEST_NULL (-1)
#define MPI_ANY_SOURCE (-555)
#define MPI_ANY_TAG (-444)
#define MPI_PROC_NULL (-666)
#define MPI_UNDEFINED (-333)
#define MPI_STATUS_IGNORE ((MPI_Status *)0)
#define MPI_STATUSES_IGNORE ((MPI_Status *)0)
#define MPI_TAG_UB 2147483647
#define MPI_MAX_PROCESSOR_NAME 64
#define MPI_CHAR 1
#define MPI_SIGNED_CHAR 2
#define MPI_UNSIGNED_CHAR 3
#define MPI_BYTE 4
#define MPI_SHORT 5
#define MPI_UNSIGNED_SHORT 6
#define MPI_INT 7
#define MPI_UNSIGNED 8
#define MPI_LONG 9
#define MPI_UNSIGNED_LONG 10
#define MPI_LONG_LONG 11
#define MPI_LONG_LONG_INT 11
#define MPI_UNSIGNED_LONG_LONG 12
#define MPI_FLOAT 13
#define MPI_DOUBLE 14
#define MPI_LONG_DOUBLE 15
#define MPI_C_BOOL 16
#define MPI_2INT 20
#define MPI_FLOAT_INT 21
#define MPI_DOUBLE_INT 22
#define MPI_LONG_INT 23
#define MPI_SHORT_INT 24
#define MPI_OP_NULL 0
#define MPI_MAX 1
#define MPI_MIN 2
#define MPI_SUM 3
#define MPI_PROD 4
#define MPI_LAND 5
#define MPI_BAND 6
#define MPI_LOR 7
#define MPI_BOR 8
#define MPI_LXOR 9
#define MPI_BXOR 10
#define MPI_MAXLOC 11
#define MPI_MINLOC 12
#endif
";
