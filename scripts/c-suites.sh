#!/usr/bin/env bash
# Run two public C test suites through cpcc and cpss and count the passes.
#
#   scripts/c-suites.sh c-testsuite DIR   # DIR: a checkout of c-testsuite/c-testsuite
#   scripts/c-suites.sh tcc DIR           # DIR: a checkout of TinyCC/tinycc
#
# A program counts as runnable when it is standard C (gcc -std=c11
# -pedantic-errors builds it, and it includes only C11's headers) and gcc's
# build prints the suite's expected output (and, for c-testsuite, exits 0):
# that leaves out programs that test one compiler's extensions, asm, error
# messages or an operating system's interfaces. A runnable
# program passes when `cpcc` compiles it and `cpss --stats none --exit-status`
# prints the same output (c-testsuite: and exits 0). tcc's harness merges
# stderr into the output and ignores the exit status; so does this one.
# Prints one line per runnable program that fails (FAIL NAME: REASON) with
# VERBOSE=1, and always a summary line: SUITE: P of R runnable programs pass.
set -u
suite=${1:?usage: c-suites.sh c-testsuite|tcc DIR}
dir=${2:?usage: c-suites.sh c-testsuite|tcc DIR}
here=$(cd "$(dirname "$0")/.." && pwd)
cpcc=${CPCC:-$here/target/release/cpcc}
cpss=${CPSS:-$here/target/release/cpss}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
std_headers='assert|complex|ctype|errno|fenv|float|inttypes|iso646|limits|locale|math|setjmp|signal|stdalign|stdarg|stdatomic|stdbool|stddef|stdint|stdio|stdlib|stdnoreturn|string|tgmath|threads|time|uchar|wchar|wctype'
runnable=0
pass=0
fails=()

case $suite in
c-testsuite)
    files=("$dir"/tests/single-exec/*.c)
    ;;
tcc)
    files=("$dir"/tests/tests2/[0-9][0-9]_*.c "$dir"/tests/tests2/[0-9][0-9][0-9]_*.c)
    ;;
*)
    echo "c-suites.sh: unknown suite '$suite' (c-testsuite or tcc)" >&2
    exit 2
    ;;
esac

for f in "${files[@]}"; do
    name=$(basename "$f" .c)
    args=()
    case $suite in
    c-testsuite) expected="$f.expected" ;;
    tcc)
        expected="${f%.c}.expect"
        case $name in
        31_args) args=(arg1 arg2 arg3 arg4 arg5) ;;
        46_grep) args=('[^* ]*[:a:d: ]+\:\*-/: $' "$f") ;;
        esac
        ;;
    esac
    [ -f "$expected" ] || continue
    # gcc's build decides whether the program is runnable here.
    # Standard C only: gcc -std=c11 -pedantic-errors refuses GNU extensions
    # (statement expressions, computed goto, asm, attributes), and a program
    # that includes a header beyond C11's library (pthread.h, unistd.h, ...)
    # needs an operating system the simulated machine does not have.
    if grep -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*<' "$f" |
        grep -vqE "<($std_headers)\.h>"; then
        continue
    fi
    (cd "$(dirname "$f")" && timeout 10 gcc -std=c11 -pedantic-errors -o "$work/g.out" "$f" -lm) \
        >/dev/null 2>&1 || continue
    (cd "$(dirname "$f")" && timeout 10 "$work/g.out" "${args[@]}" </dev/null >"$work/g.txt" 2>&1)
    status=$?
    if [ "$suite" = c-testsuite ] && [ $status -ne 0 ]; then continue; fi
    cmp -s "$work/g.txt" "$expected" || continue
    runnable=$((runnable + 1))
    if ! (cd "$(dirname "$f")" && timeout 30 "$cpcc" -o "$work/p.cod" "$f") >"$work/c.err" 2>&1; then
        fails+=("FAIL $name: compile: $(grep -m1 error "$work/c.err" | cut -c1-160)")
        continue
    fi
    (cd "$(dirname "$f")" && timeout 30 "$cpss" "$work/p.cod" --stats none --exit-status \
        -- "${args[@]}" </dev/null >"$work/p.txt" 2>&1)
    status=$?
    if [ "$suite" = c-testsuite ] && [ $status -ne 0 ]; then
        fails+=("FAIL $name: exit $status: $(tail -1 "$work/p.txt" | cut -c1-160)")
        continue
    fi
    if cmp -s "$work/p.txt" "$expected"; then
        pass=$((pass + 1))
    else
        fails+=("FAIL $name: output differs: $(diff "$work/p.txt" "$expected" | sed -n 2p | cut -c1-160)")
    fi
done
if [ "${VERBOSE:-0}" = 1 ]; then
    printf '%s\n' "${fails[@]}"
fi
echo "$suite: $pass of $runnable runnable programs pass"
