#!/usr/bin/env python3
"""Mutation campaign through the real binaries: every reader of every tool gets N mutants
of its seed inputs (bit flips, interesting numbers, huge numbers, deleted, repeated and
swapped lines or bytes, truncation, a long line, NUL bytes; binary files get their
trailing CRC-32 made right again so that the decoder behind it is reached), and each
run's exit is tallied: status by code, signals, panics, runs slower than 10 s.

A reader passes when no run ends by a signal, no run prints a panic, and every exit
status is one the man pages document (0, 1, 2, 3). The table goes to standard output;
the exit status is 1 when a reader failed. Inputs that failed are kept in
target/mutants/READER/.

Usage: scripts/mutants.py [N] [READER...]     (default N = 300, every reader)
Readers: cpc cod record picl picl1 sddf machine mapfile cost config commands work
Needs target/release/ (cargo build --release). SEED=S picks another generator seed.
"""
import os
import random
import shutil
import subprocess
import sys
import tempfile
import zlib
from collections import Counter

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "target", "release")
FIX = os.path.join(ROOT, "fixtures")
DOCUMENTED = {0, 1, 2, 3}
SLOW = 10.0


def tool(name):
    return os.path.join(BIN, name)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def files(folder, ext):
    d = os.path.join(FIX, folder)
    return [read(os.path.join(d, n)) for n in sorted(os.listdir(d)) if n.endswith(ext)]


INTERESTING = [b"0", b"-1", b"4294967295", b"4294967296", b"18446744073709551615",
               b"99999999999999999999999", b"1e308", b"nan", b"inf", b"-0", b"2147483648",
               b"9223372036854775807", b"0x7fffffff", b"1e-320"]


def mutate_text(g, data):
    lines = data.split(b"\n")
    for _ in range(g.randint(1, 4)):
        k = g.randrange(9)
        i = g.randrange(len(lines)) if lines else 0
        if not lines:
            lines = [b""]
        if k == 0:  # delete a line
            del lines[i]
        elif k == 1:  # repeat a line
            lines.insert(i, lines[i])
        elif k == 2 and len(lines) > 1:  # swap two lines
            j = g.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif k == 3:  # a number replaced by an interesting one
            words = lines[i].split(b" ")
            w = g.randrange(len(words))
            words[w] = g.choice(INTERESTING)
            lines[i] = b" ".join(words)
        elif k == 4:  # a byte flipped
            if lines[i]:
                b = bytearray(lines[i])
                p = g.randrange(len(b))
                b[p] ^= 1 << g.randrange(8)
                lines[i] = bytes(b)
        elif k == 5:  # a very long line
            lines[i] = lines[i] + b"x" * g.choice([1000, 70000, 1 << 20])
        elif k == 6:  # a NUL or control byte
            p = g.randrange(len(lines[i]) + 1)
            lines[i] = lines[i][:p] + g.choice([b"\0", b"\x1b[2J", b"\r", b"\xff\xfe"]) + lines[i][p:]
        elif k == 7:  # truncated
            out = b"\n".join(lines)
            return out[: g.randrange(len(out) + 1)]
        else:  # a chunk repeated
            lines = lines[:i] + lines[i:i + 3] * g.randint(2, 50) + lines[i:]
    return b"\n".join(lines)


def fix_crc(data):
    if len(data) < 4:
        return data
    return data[:-4] + (zlib.crc32(data[:-4]) & 0xFFFFFFFF).to_bytes(4, "little")


def mutate_binary(g, data):
    b = bytearray(data)
    for _ in range(g.randint(1, 6)):
        if not b:
            break
        k = g.randrange(6)
        p = g.randrange(len(b))
        if k == 0:
            b[p] ^= 1 << g.randrange(8)
        elif k == 1:
            b[p] = g.choice([0, 0xFF, 0x7F, 0x80])
        elif k == 2:  # a huge varint
            b[p:p] = bytes([0xFF] * 9 + [0x01])
        elif k == 3:
            del b[p:p + g.randint(1, 16)]
        elif k == 4:
            n = g.randint(1, 64)
            b[p:p] = b[p:p + n] * g.randint(1, 20)
        else:
            del b[g.randrange(len(b)):]
    out = bytes(b)
    return fix_crc(out) if g.random() < 0.8 else out


def setup(work):
    """Seeds for every reader and the command that reads a mutant at PATH."""
    def run(*args, **kw):
        return subprocess.run(list(args), cwd=work, capture_output=True, check=True, **kw)

    for name in ["ring_token.c", "jacobi.c", "master_worker.c", "arith.c"]:
        shutil.copy(os.path.join(FIX, name), work)
    inc = os.path.join(FIX, "include")
    for name in ["ring_token", "jacobi", "master_worker", "arith"]:
        run(tool("cpcc"), "-I", inc, name + ".c")
    run(tool("cpss"), "ring_token.cod", "--stats", "none", "-t", "ring.cpt")
    run(tool("cpss"), "jacobi.cod", "--stats", "none", "-t", "jacobi.cpt")
    for fmt, ext in [("picl", "trf"), ("sddf", "sddf"), ("picl-old", "picl1")]:
        try:
            run(tool("cptrace"), "ring.cpt", "--format", fmt, "-o", "ring." + ext)
        except subprocess.CalledProcessError:
            pass
    src = [read(os.path.join(FIX, n)) for n in sorted(os.listdir(FIX)) if n.endswith(".c")]
    cods = [read(os.path.join(work, n + ".cod")) for n in ["ring_token", "jacobi", "master_worker", "arith"]]
    records = [read(os.path.join(work, "ring.cpt")), read(os.path.join(work, "jacobi.cpt"))]
    ring = ["ring_token.cod", "--stats", "none", "--max-steps", "2000000"]
    seeds = {
        "cpc": (src, False, lambda p: [tool("cpcc"), "-I", inc, p, "-o", "m.cod"]),
        "cod": (cods, True, lambda p: [tool("cpss"), p, "--stats", "none", "--max-steps", "2000000",
                                       "--max-time", "10000000"]),
        "record": (records, True, lambda p: [tool("cpperf"), p]),
        "picl": (files("traces", ".trf"), False, lambda p: [tool("cpperf"), p]),
        "picl1": (files("traces", ".picl1"), False, lambda p: [tool("cpperf"), p]),
        "sddf": (files("traces", ".sddf"), False, lambda p: [tool("cpperf"), p]),
        "machine": (files("machines", ".mach"), False, lambda p: [tool("cpss")] + ring + ["--machine", p]),
        "mapfile": ([b"# map\nvirtual ring:8\nphysical mesh:2x4\n0 0\n1 1\n2 3\n3 2\n4 4\n5 5  # c\n6 7\n7 6\n",
                     b"virtual ring:8\nphysical mesh:2x4\n" +
                     b"".join(b"%d %d\n" % (i, 7 - i) for i in range(8))], False,
                    lambda p: [tool("cpss")] + ring + ["--virtual", "ring:8", "--topology", "mesh:2x4",
                                                        "--map-file", p]),
        "cost": ([b"# costs\nADDI=2\nmuli = 5   # slower\n\nSend=10\n", b"LDVal=0\nDivF=40\n"], False,
                 lambda p: [tool("cpss")] + ring + ["--cost-file", p]),
        "config": ([read(os.path.join(FIX, "profiles", "smpi.toml")),
                    read(os.path.join(FIX, "profiles", "cppe-thesis.toml")),
                    b"[cpss]\ntopology = \"torus:4x4\"\nlink-delay = 5\ncost = [\"ADDI=2\", \"MULI=4\"]\n"], False,
                   lambda p: [tool("cpss")] + ring + ["--config", p]),
        "commands": (files("debug", ".cmd"), False, lambda p: [tool("cpss"), "ring_token.cod", "--stats", "none",
                                                             "--max-steps", "2000000", "--commands", p]),
        "work": ([b"# costs\nvproc,cost\n0,4\n1, 2.5\n7,0\n3,9\n", b"vproc,cost\n2,1\n2,1\n5,100\n"], False,
                 lambda p: [tool("cpmap"), "default", "identity", "--search", "lptf", "--comm", "ring.cpt",
                            "--work", p]),
    }
    return seeds


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    wanted = sys.argv[2:]
    g = random.Random(int(os.environ.get("SEED", "7")))
    work = tempfile.mkdtemp(prefix="cppe-mutants-")
    failed = False
    try:
        seeds = setup(work)
        print(f"{'reader':<9} {'inputs':>6}  exits by code{'':<26} signals  panics  slow")
        for name, (corpus, binary, command) in seeds.items():
            if wanted and name not in wanted:
                continue
            codes, signals, panics, slow = Counter(), Counter(), 0, 0
            keep = os.path.join(ROOT, "target", "mutants", name)
            for i in range(n):
                seed = g.choice(corpus)
                data = mutate_binary(g, seed) if binary else mutate_text(g, seed)
                path = os.path.join(work, f"in.{name}")
                with open(path, "wb") as f:
                    f.write(data)
                try:
                    r = subprocess.run(command(path), cwd=work, capture_output=True, timeout=SLOW * 3,
                                       stdin=subprocess.DEVNULL)
                    code, err = r.returncode, r.stderr
                except subprocess.TimeoutExpired:
                    code, err = None, b""
                bad = False
                if code is None:
                    slow += 1
                    bad = True
                elif code < 0:
                    signals[-code] += 1
                    bad = True
                else:
                    codes[code] += 1
                    bad = code not in DOCUMENTED
                if b"panicked" in err or b"RUST_BACKTRACE" in err:
                    panics += 1
                    bad = True
                if bad:
                    failed = True
                    os.makedirs(keep, exist_ok=True)
                    with open(os.path.join(keep, f"{i}.in"), "wb") as f:
                        f.write(data)
            exits = ", ".join(f"{c}: {k}" for c, k in sorted(codes.items()))
            sig = ", ".join(f"{s}: {k}" for s, k in sorted(signals.items())) or "none"
            print(f"{name:<9} {n:>6}  {exits:<39} {sig:<8} {panics:>6}  {slow:>4}", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
