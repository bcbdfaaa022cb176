#!/usr/bin/env python3
"""Benchmark harness: times each PolyBench kernel under several pass pipelines,
back to back, and writes a Markdown table, a CSV file and an SVG bar chart of
the speedups over the baseline pipeline.

Per kernel and pipeline:
  bench/polybench/gen.py --size SIZE -> [polyrs-opt PIPELINE]
  -> polyrs-runner --time=kernel_<name> --repeat=RUNS --threads=THREADS --reuse-memory
The time is the median (and min) wall time of the kernel function over RUNS
runs of main, or more for short kernels (until the runs add up to
--min-time seconds); array initialization and JIT compilation are not
counted. Each run's arrays are the previous run's (the C references run
their initialization and kernel as often in one process, on their static
arrays), unless --fresh-memory. With --procs P, each pipeline runs in P processes, interleaved
with the other pipelines, and the time is the median of the P per-process
medians. A pipeline that leaves the kernel function exactly as it was is
marked "same code": its ratio to the baseline is measurement noise. The
checksum of every pipeline is compared with the baseline's: a result that
differs is marked in the table (speed of a wrong answer is not a speedup).

Usage:
  bench/bench.py [--size LARGE] [--runs 2] [--procs 2] [--min-time 0.5] [--threads 2]
                 [--bounds constant|symbolic]
                 [--pipelines baseline,upstream,polyrs] [--pipeline NAME='args']
                 (args may start with @DIR: that directory's polyrs-opt, e.g. an
                 older build timed beside this one: --pipeline before='@/tmp/old/target/release --poly-opt')
                 [--bin-dir target/release] [--out docs/benchmarks] [kernel ...]
Writes OUT.md, OUT.csv and OUT.svg (default docs/benchmarks.* for all 30 kernels;
a run of some kernels only writes bench-partial.* in the working directory unless
--out is given, so that the committed tables are not replaced by a partial run).
"""

import argparse
import datetime
import math
import os
import platform
import re
import shlex
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from difftest import ILL_CONDITIONED, KERNELS, KNOWN, within  # noqa: E402

PIPELINES = {
    "baseline": [],
    # The best upstream combination measured on this machine type: tiling,
    # then outer-loop-only parallelism (nested parallel loops are 3x slower).
    "upstream": ["--affine-loop-tile=tile-size=32", "--affine-parallelize=max-nested=1"],
    # polyrs with its defaults.
    "polyrs": ["--poly-opt"],
    # polyrs with FMA contraction allowed (results within a tolerance).
    "polyrs-fma": ["--poly-opt=contract=true"],
    # The C references (bench/polybench/ref) compiled by a C compiler
    # ("cc:" and its command): gcc -O3, and clang with Polly, the polyhedral
    # optimizer built into Debian's clang-22, with OpenMP.
    "gcc-O3": ["cc:gcc -O3 -march=native"],
    "polly": ["cc:clang-22 -O3 -march=native -mllvm -polly -mllvm -polly-parallel -fopenmp"],
}

# Relative difference of checksums allowed for pipelines that may contract
# multiply-adds (C compilers at -O3 do by default; polyrs-fma), as in
# bench/difftest.py; the others must match the baseline bit for bit.
CLOSE = 1e-10


def is_c(opt):
    """True for a C compiler pipeline (`cc:COMMAND`)."""
    return bool(opt) and opt[0].startswith("cc:")


def compile_c(kernel, size, opt, work):
    """The C reference of KERNEL compiled by the `cc:` pipeline OPT; its
    executable's path, or raises RuntimeError."""
    cmd = shlex.split(opt[0][3:]) + opt[1:]
    exe = os.path.join(work, "%s.%s.%s" % (kernel, size, abs(hash(tuple(cmd)))))
    src = os.path.join(HERE, "polybench", "ref", kernel + ".c")
    p = subprocess.run(cmd + ["-D%s_DATASET" % size, "-I", os.path.join(HERE, "polybench", "ref"),
                              "-o", exe, src, "-lm"], capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("%s: %s" % (cmd[0], (p.stderr.strip().splitlines() or ["failed"])[-1]))
    return exe


def measure_c(exe, runs, threads, min_time=0.0, fresh=False):
    """Runs EXE (a C reference): at least RUNS runs of its initialization
    and kernel, and more until the kernel times add up to MIN_TIME, in one
    process (its static arrays reused from run to run, as polyrs-runner
    --reuse-memory reuses the MLIR programs'), or with FRESH one run per
    process (every run's arrays fresh memory); returns (median, min,
    checksum)."""
    env = dict(os.environ, POLYRS_KERNEL_TIME="1", OMP_NUM_THREADS=str(threads))
    if not fresh:
        env.update(POLYRS_KERNEL_RUNS=str(runs), POLYRS_KERNEL_MIN_TIME="%g" % min_time)
    times, checksum = [], None
    while not times or (fresh and (len(times) < runs or (sum(times) < min_time and len(times) < 100))):
        p = subprocess.run([exe], capture_output=True, text=True, env=env)
        found = [float(t) for t in re.findall(r"kernel time: ([0-9.]+)", p.stderr)]
        if p.returncode != 0 or not found:
            raise RuntimeError("%s: %s" % (os.path.basename(exe), (p.stderr.strip().splitlines() or ["failed"])[-1]))
        times += found
        checksum = p.stdout.strip()
    return statistics.median(times), min(times), checksum

# The turn of OpenBLAS among the pipelines (not a pipeline's name: those
# are polyrs-opt arguments or C commands).
BLAS_TURN = "\0OpenBLAS"

TIME_RE = re.compile(r"time (\S+) calls=(\d+) min=([0-9.]+)s median=([0-9.]+)s")


def kernel_function(kernel):
    return "kernel_" + kernel.replace("-", "_")


BLAS_SCRIPT = r"""
import ctypes, statistics, sys, time
ni, nj, nk, runs = (int(a) for a in sys.argv[1:5])
lib = ctypes.CDLL("libopenblas.so.0")
lib.openblas_get_corename.restype = ctypes.c_char_p
D = ctypes.c_double
A, B, C = (D * (ni * nk))(), (D * (nk * nj))(), (D * (ni * nj))()
# PolyBench's init_array of gemm.
for i in range(ni):
    for j in range(nj):
        C[i * nj + j] = ((i * j + 1) % ni) / ni
    for k in range(nk):
        A[i * nk + k] = (i * (k + 1) % nk) / nk
for k in range(nk):
    for j in range(nj):
        B[k * nj + j] = (k * (j + 2) % nj) / nj
lib.cblas_dgemm.argtypes = [ctypes.c_int] * 6 + [D, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p,
                                               ctypes.c_int, D, ctypes.c_void_p, ctypes.c_int]
times = []
for _ in range(runs):
    t = time.perf_counter()
    # C = 1.5 * A * B + 1.2 * C, row-major, no transposes: PolyBench's gemm.
    lib.cblas_dgemm(101, 111, 111, ni, nj, nk, 1.5, A, nk, B, nj, 1.2, C, nj)
    times.append(time.perf_counter() - t)
print(lib.openblas_get_corename().decode(), statistics.median(times), min(times))
"""


def blas_env(threads, coretype=None):
    """The environment of one OpenBLAS process: THREADS threads, kernel
    CORETYPE (None: the library's own detection)."""
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")}
    env["OPENBLAS_NUM_THREADS"] = str(threads)
    if coretype:
        env["OPENBLAS_CORETYPE"] = coretype
    return env


def blas_run(size, threads, runs, coretype=None):
    """One process timing PolyBench's gemm (C = alpha*A*B + beta*C) as
    max(RUNS, 15) cblas_dgemm calls of the system's OpenBLAS with kernel
    CORETYPE: (kernel name, median, min), or None when it fails."""
    ni, nj, nk = SIZES_OF_GEMM(size)
    p = subprocess.run([sys.executable, "-c", BLAS_SCRIPT, str(ni), str(nj), str(nk), str(max(runs, 15))],
                       capture_output=True, text=True, env=blas_env(threads, coretype))
    if p.returncode != 0:
        return None
    name, med, mn = p.stdout.split()
    return name, float(med), float(mn)


def blas_pick(size, threads, runs):
    """The kernel of the system's OpenBLAS (Debian's libopenblas0-pthread,
    which picks its kernel for the CPU at run time) that runs gemm fastest
    on this CPU: (OPENBLAS_CORETYPE or None, kernel name, the kernel its own
    detection picked), or None when the library is missing.

    Its detection falls back to a generic kernel on a CPU it does not know
    (an Intel Xeon VM reporting no model, Debian 12's OpenBLAS 0.3.21:
    `Prescott`, SSE3, 3.5x slower than its AVX-512 kernel). So the kernels
    the CPU's instruction sets run (OPENBLAS_CORETYPE, BLAS_CORETYPES) are
    timed too, one process each, and the fastest is the yardstick, which
    bench.py then times in every round of the pipelines' processes
    (`--procs`), as one more pipeline: the speed of a shared VM changes
    from minute to minute, so a yardstick timed apart is not in the same
    run."""
    flags = cpu_flags()
    best, detected, seen = None, None, set()
    for coretype in [None] + [c for flag, cs in BLAS_CORETYPES for c in cs if flag in flags]:
        got = blas_run(size, threads, runs, coretype)
        if got is None:
            continue
        name, med, _ = got
        if coretype is None:
            detected = name
        if name in seen:
            continue
        seen.add(name)
        if best is None or med < best[2]:
            best = (coretype, name, med)
    return (best[0], best[1], detected) if best else None


# OpenBLAS's kernels (OPENBLAS_CORETYPE names) for each instruction set of
# /proc/cpuinfo's flags that they need.
BLAS_CORETYPES = [
    ("avx2", ["Haswell", "Zen"]),
    ("avx512f", ["SkylakeX"]),
    ("avx512_bf16", ["Cooperlake"]),
    ("amx_tile", ["SapphireRapids"]),
]


def cpu_flags():
    """The host's CPU flags (Linux's /proc/cpuinfo; empty elsewhere)."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def SIZES_OF_GEMM(size):
    """(NI, NJ, NK) of PolyBench's gemm at SIZE."""
    sys.path.insert(0, os.path.join(HERE, "polybench"))
    from kernels import KERNELS as SPECS  # noqa: E402
    return SPECS["gemm"]["sizes"][size]


def transform(mlir, bin_dir, opt_args):
    """The module after polyrs-opt OPT_ARGS (none: the input, parsed and
    printed the same way); raises RuntimeError when polyrs-opt fails."""
    p = subprocess.run([os.path.join(bin_dir, "polyrs-opt"), mlir] + opt_args, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("polyrs-opt: " + (p.stderr.strip().splitlines() or ["failed"])[-1])
    return p.stdout


def kernel_text(kernel, module):
    """The kernel function of a printed module, or None."""
    m = re.search(r"^  func\.func @%s\(.*?^  }$" % re.escape(kernel_function(kernel)), module, re.S | re.M)
    return m.group(0) if m else None


def measure(kernel, text, bin_dir, runs, threads, min_time=0.0, fresh=False):
    """Runs the module TEXT, its runs reusing the arrays the previous runs
    freed unless FRESH; returns (median, min, checksum) or raises
    RuntimeError."""
    p = subprocess.run([os.path.join(bin_dir, "polyrs-runner"), "-", "--time=" + kernel_function(kernel),
                        "--repeat=%d" % runs, "--min-time=%g" % min_time, "--threads=%d" % threads]
                       + ([] if fresh else ["--reuse-memory"]),
                       input=text, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("polyrs-runner: " + (p.stderr.strip().splitlines() or ["failed"])[-1])
    m = TIME_RE.search(p.stderr)
    if not m:
        raise RuntimeError("no timing in runner output")
    sums = set(p.stdout.split())
    return float(m.group(4)), float(m.group(3)), (sums.pop() if len(sums) == 1 else "inconsistent")


def geomean(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def svg_chart(rows, names, path, title):
    """Grouped bars of speedup over baseline per kernel, log2 scale."""
    others = [n for n in names if n != "baseline"]
    width, bar_h, gap = 900, 12, 6
    group_h = bar_h * len(others) + gap
    left, top = 130, 40
    height = top + group_h * len(rows) + 50
    speeds = [r["speedup"].get(n) for r in rows for n in others]
    speeds = [s for s in speeds if s]
    lo = min([0.25] + speeds)
    hi = max([4.0] + speeds)
    lo2, hi2 = math.floor(math.log2(lo)), math.ceil(math.log2(hi))

    def x(v):
        return left + (math.log2(v) - lo2) / (hi2 - lo2) * (width - left - 20)

    colors = ["#4e79a7", "#e15759", "#59a14f", "#f28e2b", "#76b7b2"]
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" '
           'font-size="11">' % (width, height),
           '<rect width="100%" height="100%" fill="white"/>',
           '<text x="%d" y="20" font-size="14">%s</text>' % (left, title)]
    for e in range(lo2, hi2 + 1):
        v = 2.0 ** e
        out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s"/>'
                   % (x(v), top - 5, x(v), height - 40, "#333" if e == 0 else "#ddd"))
        out.append('<text x="%.1f" y="%d" text-anchor="middle">%sx</text>' % (x(v), height - 25, ("%.3g" % v)))
    for gi, r in enumerate(rows):
        y0 = top + gi * group_h
        out.append('<text x="%d" y="%d" text-anchor="end">%s</text>' % (left - 6, y0 + group_h / 2, r["kernel"]))
        for pi, n in enumerate(others):
            s = r["speedup"].get(n)
            if not s:
                continue
            x0, x1 = x(1.0), x(s)
            out.append('<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s"/>'
                       % (min(x0, x1), y0 + pi * bar_h, abs(x1 - x0), bar_h - 2, colors[pi % len(colors)]))
    for pi, n in enumerate(others):
        out.append('<rect x="%d" y="%d" width="10" height="10" fill="%s"/><text x="%d" y="%d">%s</text>'
                   % (left + pi * 120, height - 12, colors[pi % len(colors)], left + pi * 120 + 14, height - 3, n))
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", default="LARGE", choices=["MINI", "SMALL", "MEDIUM", "LARGE", "EXTRALARGE"])
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--procs", type=int, default=2,
                    help="processes per pipeline and kernel, interleaved; the time is the median over processes "
                         "of each process's median")
    ap.add_argument("--min-time", type=float, default=0.5,
                    help="per process, repeat the kernel until its runs add up to this many seconds "
                         "(at least RUNS runs; at most 4x that in wall time, initialization included, "
                         "and 200 runs): millisecond kernels get enough samples for a stable median")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--bounds", choices=["constant", "symbolic"], default="constant",
                    help="symbolic: each kernel's upper loop bounds as index arguments "
                         "(bench/polybench/gen.py --bounds symbolic: sizes known at run time only)")
    ap.add_argument("--fresh-memory", action="store_true",
                    help="every run's arrays in fresh memory (the MLIR programs' freed and allocated "
                         "again, the C references' run once per process) instead of the previous "
                         "run's: on some machines the first pass over fresh pages reads up to 2x "
                         "slower, even after the initialization wrote every cell")
    ap.add_argument("--no-blas", action="store_true",
                    help="do not time gemm with the system's OpenBLAS beside the pipelines")
    ap.add_argument("--pipelines", default="baseline,upstream,polyrs")
    ap.add_argument("--pipeline", action="append", default=[], metavar="NAME=ARGS")
    ap.add_argument("--bin-dir", default=os.path.join(ROOT, "target", "release"))
    ap.add_argument("--out", default=None,
                    help="prefix of the tables written (default: docs/benchmarks for all "
                         "kernels, bench-partial for a list of kernels)")
    ap.add_argument("--report-only", action="store_true",
                    help="rewrite OUT.md and OUT.svg from OUT.csv without running anything")
    ap.add_argument("kernels", nargs="*")
    args = ap.parse_args()
    if args.out is None:
        args.out = (os.path.join(ROOT, "docs", "benchmarks")
                    if not args.kernels or args.report_only else "bench-partial")

    pipelines = {}
    for name in filter(None, args.pipelines.split(",")):
        if name not in PIPELINES:
            ap.error("unknown pipeline '%s'" % name)
        pipelines[name] = PIPELINES[name]
    for spec in args.pipeline:
        name, _, opt = spec.partition("=")
        pipelines[name] = shlex.split(opt)
    if "baseline" not in pipelines:
        pipelines = dict([("baseline", [])] + list(pipelines.items()))
    names = list(pipelines)
    kernels = args.kernels or KERNELS

    rows = []
    if args.report_only:
        rows, names = load_csv(args.out + ".csv")
        pipelines = {n: pipelines.get(n, PIPELINES.get(n, ["?"])) for n in names}
        write_report(args, rows, names, pipelines, cmd_line=None)
        return 0
    with tempfile.TemporaryDirectory(prefix="polyrs-bench-") as work:
        for k in kernels:
            subprocess.run([sys.executable, os.path.join(HERE, "polybench", "gen.py"), "--size", args.size,
                            "--bounds", args.bounds, "--out", work, k], check=True, capture_output=True)
            mlir = os.path.join(work, k + ".mlir")
            row = {"kernel": k, "median": {}, "min": {}, "sum": {}, "error": {}, "speedup": {}, "same": {}}
            # Each pipeline's module, transformed once for every process.
            modules = {}
            for n in names:
                try:
                    # '@DIR' first: that directory's polyrs-opt (an older
                    # build, timed beside this one).
                    opt = pipelines[n]
                    bin_dir = args.bin_dir
                    if is_c(opt):
                        modules[n] = compile_c(k, args.size, opt, work)
                        continue
                    if opt and opt[0].startswith("@"):
                        bin_dir, opt = opt[0][1:], opt[1:]
                    modules[n] = transform(mlir, bin_dir, opt)
                except RuntimeError as e:
                    row["error"][n] = str(e)
            # A pipeline that leaves the kernel function as it was runs the
            # baseline's code: its ratio is the measurement's noise.
            funcs = {n: kernel_text(k, m) for n, m in modules.items() if not is_c(pipelines[n])}
            for n in names:
                row["same"][n] = (n != "baseline" and funcs.get(n) is not None
                                  and funcs.get(n) == funcs.get("baseline"))
            # P rounds of one process per pipeline, the pipelines' order
            # rotated each round: the time of the same code varies between
            # processes (by up to 2x on a shared 2-core VM) more than
            # between runs of one process.
            meds, mins = {n: [] for n in names}, {n: [] for n in names}
            # gemm's yardstick, OpenBLAS's fastest kernel here, takes its
            # turn in every round like a pipeline.
            blas = blas_pick(args.size, args.threads, args.runs) if k == "gemm" and not args.no_blas else None
            blas_meds, blas_mins = [], []
            turns = names + ([BLAS_TURN] if blas else [])
            for rnd in range(args.procs):
                order = turns[rnd % len(turns):] + turns[:rnd % len(turns)]
                for n in order:
                    if n == BLAS_TURN:
                        got = blas_run(args.size, args.threads, args.runs, blas[0])
                        if got:
                            blas_meds.append(got[1])
                            blas_mins.append(got[2])
                        continue
                    if n in row["error"]:
                        continue
                    try:
                        if is_c(pipelines[n]):
                            med, mn, cs = measure_c(modules[n], args.runs, args.threads, args.min_time,
                                                    args.fresh_memory)
                        else:
                            med, mn, cs = measure(k, modules[n], args.bin_dir, args.runs, args.threads,
                                                  args.min_time, args.fresh_memory)
                        meds[n].append(med)
                        mins[n].append(mn)
                        if row["sum"].get(n, cs) != cs:
                            cs = "inconsistent"
                        row["sum"][n] = cs
                    except RuntimeError as e:
                        row["error"][n] = str(e)
            for n in names:
                if meds[n] and n not in row["error"]:
                    row["median"][n] = statistics.median(meds[n])
                    row["min"][n] = min(mins[n])
            base = row["median"].get("baseline")
            for n in names:
                t = row["median"].get(n)
                if base and t and same_result(row, n, k, pipelines):
                    row["speedup"][n] = base / t
            if blas_meds:
                row["blas"] = (blas[1], statistics.median(blas_meds), min(blas_mins), blas[2])
            line = "%-16s " % k + " ".join(
                "%s=%s" % (n, ("%.4fs" % row["median"][n]) if n in row["median"] else "ERR") for n in names)
            if "blas" in row:
                line += " OpenBLAS=%.4fs" % row["blas"][1]
            print(line, flush=True)
            rows.append(row)
    write_report(args, rows, names, pipelines, cmd_line="python3 bench/bench.py " +
                 " ".join(shlex.quote(a) for a in sys.argv[1:]))
    return 0


def same_result(row, name, kernel, pipelines):
    """True when pipeline NAME computed the baseline's result: bit for bit,
    or within CLOSE (ILL_CONDITIONED's tolerance for such kernels) for the
    pipelines that may contract multiply-adds or reassociate reductions (C
    compilers, contract=true, reassociate=true)."""
    got, ref = row["sum"].get(name), row["sum"].get("baseline")
    if got == ref:
        return True
    opt = pipelines.get(name, [])
    contracts = is_c(opt) or any("contract=true" in a or "reassociate=true" in a for a in opt)
    return contracts and within(got, ref, max(CLOSE, ILL_CONDITIONED.get(kernel, 0.0)))


def load_csv(path):
    """Rows and pipeline names from a CSV written by a previous run."""
    rows, names = {}, []
    with open(path) as f:
        next(f)
        for line in f:
            k, n, med, mn, cs, sp, *same = line.rstrip("\n").split(",")
            r = rows.setdefault(k, {"kernel": k, "median": {}, "min": {}, "sum": {}, "error": {}, "speedup": {},
                                    "same": {}})
            if n.startswith("OpenBLAS:"):
                # The BLAS run beside gemm: not a pipeline (no checksum).
                r["blas"] = (n.partition(":")[2], float(med), float(mn))
                continue
            r["median"][n], r["min"][n], r["sum"][n] = float(med), float(mn), cs
            r["same"][n] = same == ["1"]
            if sp:
                r["speedup"][n] = float(sp)
            if n not in names:
                names.append(n)
    return list(rows.values()), names


def plan_target(bin_dir):
    """The target poly-opt derives its sizes from by default, as its remark
    names it (`znver4 (512-bit vectors, ...)`), with the width of its
    register tiles where that is wider (Intel AVX-512 CPUs whose LLVM
    tuning prefers 256-bit vectors), or None."""
    gemm = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples", "gemm.mlir")

    def remark(options):
        try:
            p = subprocess.run([os.path.join(bin_dir, "polyrs-opt"), gemm, "--poly-opt=" + options,
                                "-o", os.devnull], capture_output=True, text=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired):
            return ""
        return p.stderr

    m = re.search(r"; target (.*)$", remark("profitability=false register-tile=false"), re.M)
    if not m:
        return None
    wide = re.search(r"register tiles in (\d+)-bit vectors", remark("profitability=false"))
    if wide:
        return "%s; register tiles in %s-bit vectors (prefer-vector-width=%s on their functions)" % (
            m.group(1), wide.group(1), wide.group(1))
    return m.group(1)


def write_report(args, rows, names, pipelines, cmd_line):
    others = [n for n in names if n != "baseline"]
    target = plan_target(args.bin_dir) or "unknown"
    cpu = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(l.split(":", 1)[1].strip() for l in f if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    cmd = cmd_line or "python3 bench/bench.py --size %s --runs %d" % (args.size, args.runs)
    md = ["# Benchmarks", "",
          "Generated by `%s` on %s (%s, %d cores, %s), %s dataset, %d threads, median of at least %d runs "
          "of the kernel function (more for short kernels: until the runs add up to %gs) in each of %d "
          "process%s per pipeline (median over processes; pipelines interleaved; JIT-compiled at O3 for "
          "the host CPU; initialization not timed; every array on a 64-byte boundary, the MLIR "
          "programs' by bench/polybench/gen.py, the C references' static arrays by the compiler; %s)."
          % (cmd, datetime.date.today().isoformat(), cpu, os.cpu_count() or 0, platform.machine(), args.size,
             args.threads, args.runs, getattr(args, "min_time", 0.0), getattr(args, "procs", 1),
             "" if getattr(args, "procs", 1) == 1 else "es",
             "every run's arrays fresh memory: the MLIR programs' allocated again, the C references "
             "run once per process" if getattr(args, "fresh_memory", False) else
             "each run's arrays where the previous run left them: polyrs-runner --reuse-memory, the "
             "C references' runs in one process"),
          "",
          "poly-opt's target (the host's, by default): %s." % target, "",
          "Pipelines (polyrs-opt arguments before the plain lowering; `cc:`: the C reference compiled by "
          "that command, with OMP_NUM_THREADS set to the thread count):", ""]
    for n in names:
        md.append("- `%s`: %s" % (n, " ".join("`%s`" % a for a in pipelines[n]) or "no loop transformation"))
    md += ["", "Speedup = baseline time / pipeline time; a pipeline whose checksum differs from the "
           "baseline's is marked `WRONG` and gets no speedup. `(same code)`: the pipeline left the kernel "
           "function exactly as it was (polyrs: every SCoP unchanged, with a remark saying why), so its "
           "ratio to the baseline is the run-to-run noise of the measurement.", ""]
    md.append("| kernel | " + " | ".join("%s (s)" % n for n in names) + " | "
              + " | ".join("%s speedup" % n for n in others) + " |")
    md.append("|---" * (1 + len(names) + len(others)) + "|")
    for r in rows:
        cells = []
        for n in names:
            if n in r["error"]:
                cells.append("error")
            elif not same_result(r, n, r["kernel"], pipelines):
                cells.append("%.4f WRONG" % r["median"][n])
            else:
                cells.append("%.4f" % r["median"][n])
        sp = [("%.2fx" % r["speedup"][n] + (" (same code)" if r["same"].get(n) else ""))
              if n in r["speedup"] else "-" for n in others]
        md.append("| %s | %s | %s |" % (r["kernel"], " | ".join(cells), " | ".join(sp)))
    md.append("| **geomean** | %s | %s |" % (" | ".join("" for _ in names),
                                           " | ".join("**%.2fx**" % geomean([r["speedup"].get(n) for r in rows])
                                                      for n in others)))
    if "gcc-O3" in names:
        # The same times as speedups over gcc -O3 (PolyBench's C code).
        vs = [n for n in names if n != "gcc-O3"]
        md += ["", "Speedup over `gcc-O3` (its time / the pipeline's; `-` where either result is wrong):", "",
               "| kernel | " + " | ".join(vs) + " |", "|---" * (1 + len(vs)) + "|"]
        ratios = {n: [] for n in vs}
        for r in rows:
            g = r["median"].get("gcc-O3") if same_result(r, "gcc-O3", r["kernel"], pipelines) else None
            cells = []
            for n in vs:
                t = r["median"].get(n)
                ok = g and t and n not in r["error"] and same_result(r, n, r["kernel"], pipelines)
                ratios[n].append(g / t if ok else None)
                cells.append("%.2fx" % (g / t) if ok else "-")
            md.append("| %s | %s |" % (r["kernel"], " | ".join(cells)))
        md.append("| **geomean** | %s |" % " | ".join("**%.2fx**" % geomean(ratios[n]) for n in vs))
    for r in rows:
        if "blas" in r and "baseline" in r["median"]:
            name, med, _ = r["blas"][:3]
            detected = r["blas"][3] if len(r["blas"]) > 3 else None
            base = r["median"]["baseline"]
            flops = 2.0 * math.prod(SIZES_OF_GEMM(args.size))
            md += ["", "gemm beside BLAS (the same run): PolyBench's `C = alpha*A*B + beta*C` as one "
                   "`cblas_dgemm` call of the system's OpenBLAS (Debian's libopenblas0-pthread, kernel `%s`, %s, "
                   "FMA), %d threads, %d calls in each of %d processes taking their turns with the pipelines' "
                   "(median over processes of each process's median): %.4f s, %.2fx the baseline, "
                   "%.0f GFLOP/s." % (name, "picked by its own CPU detection" if detected == name else
                                      "the fastest of the kernels this CPU runs (its own detection picked `%s`)"
                                      % detected if detected else "the run's fastest", args.threads, max(args.runs, 15),
                                      args.procs, med, base / med, flops / med / 1e9)]
            for n in others:
                if n in r["median"] and same_result(r, n, r["kernel"], pipelines):
                    t = r["median"][n]
                    md.append("%s: %.4f s, %.0f GFLOP/s, %.2fx OpenBLAS's speed." % (n, t, flops / t / 1e9, med / t))
    errors = [(r["kernel"], n, e) for r in rows for n, e in r["error"].items()]
    if errors:
        md += ["", "Errors:", ""] + ["- %s / %s: %s" % e for e in errors]
    known = sorted({(k, n) for (init, n, k) in KNOWN if any(r["kernel"] == k for r in rows) and n in names})
    if known:
        md += ["", "Known miscompiles hidden by PolyBench's inputs (same checksum here, different results "
               "with perturbed inputs: `python3 bench/difftest.py --init perturbed`):", ""]
        md += ["- %s / %s: %s" % (n, k, next(v for (i, nn, kk), v in KNOWN.items() if nn == n and kk == k))
               for k, n in known]
    md += ["", "![speedups](%s.svg)" % os.path.basename(args.out), ""]
    os.makedirs(os.path.dirname(args.out) or ".", exist_ok=True)
    with open(args.out + ".md", "w") as f:
        f.write("\n".join(md))
    with open(args.out + ".csv", "w") as f:
        f.write("kernel,pipeline,median_s,min_s,checksum,speedup,same_code\n")
        for r in rows:
            for n in names:
                if n in r["median"]:
                    f.write("%s,%s,%.6f,%.6f,%s,%s,%d\n" % (r["kernel"], n, r["median"][n], r["min"][n],
                                                            r["sum"][n],
                                                            "%.4f" % r["speedup"][n] if n in r["speedup"] else "",
                                                            r["same"].get(n, False)))
            if "blas" in r:
                name, med, mn = r["blas"][:3]
                f.write("%s,OpenBLAS:%s,%.6f,%.6f,,,0\n" % (r["kernel"], name, med, mn))
    svg_chart(rows, names, args.out + ".svg", "Speedup over baseline, PolyBench %s, %d threads"
              % (args.size, args.threads))
    print("wrote %s.md, %s.csv, %s.svg" % (args.out, args.out, args.out))


if __name__ == "__main__":
    sys.exit(main())
