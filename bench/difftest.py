#!/usr/bin/env python3
"""Differential harness: runs PolyBench kernels through pass pipelines and
compares their checksums, bit for bit, with PolyBench's own C code.

For each kernel:
  reference  --init polybench (default): bench/polybench/ref/<kernel>.c,
             gcc -O0 -ffp-contract=off, PolyBench's own C code;
             --init perturbed: the baseline MLIR run (no loop transformation)
             of the kernel with perturbed input arrays (see gen.py: PolyBench's
             seidel-2d input, for one, is a fixed point of the stencil and
             hides any reordering)
  candidate  bench/polybench/gen.py -> [polyrs-opt PIPELINE] -> polyrs-runner
             (parallel loops lowered to OpenMP and run on 2 threads, so that
             races show; GPU programs in the CPU emulation, --gpu=emulate)
Both print the checksum with printf("%.17g"), which round-trips doubles:
equal text means bit-identical results. Pipelines that allow FMA
contraction (contract=true) or reassociation (reassociate=true) are
compared within a relative tolerance instead (FMA_TOLERANCE).

Usage:
  bench/difftest.py [--size SMALL] [--init polybench|perturbed]
                    [--pipelines baseline,upstream]
                    [--pipeline NAME='polyrs-opt args'] [--bin-dir target/debug]
                    [--threads 2] [kernel ...]

Exit status 0 when every candidate matches its reference, except the known
upstream miscompiles listed in KNOWN (which must still mismatch, so that the
harness is shown to detect them); 1 otherwise. With --mutate=M, each
candidate (a GPU program) is broken by mutation M first (MUTATIONS: a wrong
grid or block bound, a missing copy in or back) and the status is 0 when
every mutant differs from its reference or fails.
"""

import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PB = os.path.join(HERE, "polybench")

KERNELS = [
    "correlation", "covariance", "gemm", "gemver", "gesummv", "symm", "syr2k",
    "syrk", "trmm", "2mm", "3mm", "atax", "bicg", "doitgen", "mvt", "cholesky",
    "durbin", "gramschmidt", "lu", "ludcmp", "trisolv", "deriche",
    "floyd-warshall", "nussinov", "adi", "fdtd-2d", "heat-3d", "jacobi-1d",
    "jacobi-2d", "seidel-2d",
]

# Pipelines whose results may differ from the reference in the last bits,
# and the largest relative difference of a checksum allowed:
# contract=true fuses multiply-adds (one rounding instead of two), which
# changes each result by a few units in the last place of the values it
# accumulates (reassociate=true, which sums a reduction's terms in another
# grouping, by a few units in the last place of the sum of their
# magnitudes); a wrong loop order or a missed iteration changes a checksum
# by far more (one SMALL gemm cell in 60x70 moves it by ~1e-4).
FMA_TOLERANCE = 1e-10
# Kernels whose results are ill-conditioned in their rounding: PolyBench's
# own C code moves by more than the tolerance when FMA is allowed
# (gramschmidt at SMALL: 235343.25 at gcc -O0, 235413.19 at gcc -O2
# -march=znver3 -ffp-contract=fast, 235257.54 at clang -O3 -march=native,
# which poly-opt's contract=true matches to 16 digits; durbin's recursion
# at LARGE: -4.282313143994851 at gcc -O0, -4.2823131454399501 at gcc -O3
# -march=native, 3.4e-10 apart).
ILL_CONDITIONED = {"gramschmidt": 1e-3, "durbin": 1e-8}


def tolerance(opt, kernel):
    """The relative tolerance of the checksums on KERNEL of the pipeline
    whose polyrs-opt arguments are OPT (None: bit for bit): FMA_TOLERANCE
    where they allow contraction (contract=true) or reassociation
    (reassociate=true)."""
    words = [w for a in opt for w in a.split("=", 1)[-1].split()]
    if "contract=true" not in words and "reassociate=true" not in words:
        return None
    return max(FMA_TOLERANCE, ILL_CONDITIONED.get(kernel, 0.0))


def within(got, ref, tol):
    """True when checksums GOT and REF differ relatively by at most TOL."""
    if tol is None:
        return False
    try:
        g, r = float(got), float(ref)
    except ValueError:
        return False
    return abs(g - r) <= tol * max(abs(r), 1.0)


# Named pipelines: polyrs-opt arguments applied before the plain lowering.
PIPELINES = {
    # No loop transformation at all.
    "baseline": [],
    # What a user of upstream MLIR would try: tiling, then parallel loops.
    "upstream": ["--affine-loop-tile=tile-size=32", "--affine-parallelize"],
    # polyrs' own transformation, with its defaults and with tile sizes that
    # leave partial tiles (1 and 7) or cover whole SMALL loops (64). The
    # variants turn the profitability heuristics off, so that every kernel's
    # schedule is tiled and generated whether or not it pays.
    "polyrs": ["--poly-opt"],
    "polyrs-t1": ["--poly-opt=tile-sizes=1 profitability=false"],
    "polyrs-t7": ["--poly-opt=tile-sizes=7 profitability=false"],
    "polyrs-t32": ["--poly-opt=tile-sizes=32 profitability=false"],
    "polyrs-t64": ["--poly-opt=tile-sizes=64 profitability=false"],
    # Other fusion heuristics, two-level tiles, every parallel loop.
    "polyrs-fusemax": ["--poly-opt=fuse=max tile-sizes=5 profitability=false"],
    "polyrs-fuseno": ["--poly-opt=fuse=no profitability=false"],
    "polyrs-l2": ["--poly-opt=tile-sizes=4 l2-tile=3 nested-parallel=true profitability=false"],
    # Unroll-and-jam (4 with the default tiles, 2 in tiles of 8) with the
    # memref arguments marked noalias for LLVM.
    "polyrs-uj4": ["--poly-opt=unroll-jam=4 noalias=true profitability=false"],
    "polyrs-uj2": ["--poly-opt=unroll-jam=2 tile-sizes=8 noalias=true profitability=false"],
    # Register tiles whose blocks run past array ends (3x5 blocks in tiles
    # of 15; 4x16 blocks in tiles of 8 and 48), and none at all.
    "polyrs-rt35": ["--poly-opt=tile-sizes=15 register-tile-sizes=3,5 profitability=false"],
    "polyrs-rt-t48": ["--poly-opt=tile-sizes=8,48 profitability=false"],
    "polyrs-nort": ["--poly-opt=register-tile=false"],
    # Packed row-invariant operands on small kernels: 2x4 blocks, 16 rows
    # of blocks per tile, tiles of 8 along k (gemm, 2mm, 3mm, symm, syrk,
    # syr2k; partial tiles and blocks at SMALL's sizes).
    "polyrs-pack": ["--poly-opt=tile-sizes=32,16,8 register-tile-sizes=2,4 profitability=false"],
    # The default tile sizes of register-tiled bands (whole vector loops,
    # one parallel tile per thread) on every kernel, tuned for 2 threads and
    # for 3 (tiles that split the rows unevenly, partial blocks in them).
    "polyrs-auto": ["--poly-opt=profitability=false"],
    "polyrs-auto-th3": ["--poly-opt=profitability=false threads=3"],
    # The sizes of other CPUs' presets (the code still runs on the host):
    # AVX2 (4x8 blocks, r = 128) and an Intel AVX-512 one sized for ymm.
    "polyrs-avx2": ["--poly-opt=cpu=znver3 threads=2 profitability=false"],
    "polyrs-skx": ["--poly-opt=cpu=skylake-avx512 threads=3 profitability=false"],
    # The GPU target, run in the CPU emulation (polyrs-runner --gpu=emulate:
    # the program as built for the GPU, kernels compiled for the host, the
    # threads of a launch in the reverse of the loops' order): the default
    # block shape (32x8), odd blocks that leave partial tiles (7x3), one
    # thread per block, another fusion heuristic, and the arrays' host
    # memory registered with the driver instead of device buffers.
    "gpu": ["--poly-opt=target=gpu"],
    "gpu-hostreg": ["--poly-opt=target=gpu gpu-memory=host-register gpu-block=32,2"],
    "gpu-b73": ["--poly-opt=target=gpu gpu-block=7,3,2"],
    "gpu-b1": ["--poly-opt=target=gpu gpu-block=1"],
    "gpu-fuseno": ["--poly-opt=target=gpu fuse=no gpu-block=16,4"],
    # FMA contraction allowed (contract=true): compared within FMA_TOLERANCE,
    # not bit for bit.
    "polyrs-fma": ["--poly-opt=contract=true profitability=false"],
    # Its register blocks on the presets (fused: three quarters of the
    # registers hold accumulators): 6x8 on AVX2, 12x8 on Intel AVX-512 and
    # 12x16 on Zen 4 with 3 threads (partial blocks along rows and tiles
    # split unevenly).
    "polyrs-fma-avx2": ["--poly-opt=contract=true cpu=znver3 threads=2 profitability=false"],
    "polyrs-fma-skx": ["--poly-opt=contract=true cpu=skylake-avx512 threads=3 profitability=false"],
    "polyrs-fma-zen4": ["--poly-opt=contract=true cpu=znver4 threads=3 profitability=false"],
    # Reductions' terms combined in another order (reassociate=true: chains
    # in vector lanes, whole-nest reductions split into blocks with partial
    # results), alone and with contraction on another preset: compared
    # within FMA_TOLERANCE too.
    "polyrs-reassoc": ["--poly-opt=reassociate=true profitability=false"],
    "polyrs-reassoc-fma": ["--poly-opt=reassociate=true contract=true cpu=znver3 threads=3 profitability=false"],
}

# (init, pipeline, kernel) -> why the upstream passes change the results.
# These are miscompiles of MLIR 22's affine passes, not of polyrs; the harness
# checks that they still mismatch, which shows that it detects them.
KNOWN = {
    ("perturbed", "upstream", "seidel-2d"):
        "affine-loop-tile tiles the in-place Gauss-Seidel stencil rectangularly, without skewing: "
        "a tile reads neighbours that a later tile should have updated first",
    ("perturbed", "upstream", "floyd-warshall"):
        "affine-loop-tile tiles the k loop, which carries dependences; with PolyBench's integer "
        "weights the shortest paths come out the same, with perturbed weights the rounding of the "
        "path sums differs",
}


def run(cmd, stdin=None, timeout=None):
    """Runs cmd; returns (ok, stdout, stderr)."""
    try:
        p = subprocess.run(cmd, input=stdin, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return False, "", "timeout after %ss" % timeout
    return p.returncode == 0, p.stdout, p.stderr


def reference(kernel, size, work, opt="-O0"):
    """PolyBench's C code's checksum, built by gcc with OPT and
    -ffp-contract=off: no contraction and no fast-math, so any OPT keeps the
    C program's IEEE operations and their order (-O2 makes EXTRALARGE
    references in minutes instead of hours)."""
    exe = os.path.join(work, "%s.%s.ref" % (kernel, size))
    src = os.path.join(PB, "ref", kernel + ".c")
    ok, _, err = run(["gcc", opt, "-ffp-contract=off", "-D%s_DATASET" % size,
                      "-I", os.path.join(PB, "ref"), "-o", exe, src, "-lm"])
    if not ok:
        return None, "C compile: " + err.strip()
    ok, out, err = run([exe], timeout=3600)
    if not ok:
        return None, "C run: " + err.strip()
    return out.strip(), None


# Mutations of a GPU program (polyrs-opt's output), to show that the
# harness catches what they break: each must make the candidate differ from
# its reference (or fail).
MUTATIONS = {
    "grid": "the first launch's grid has one block fewer along x (a wrong bound)",
    "block": "the first launch's blocks have one thread fewer along x (a wrong bound)",
    "copy": "the first copy to the device is left out (a missing copy)",
    "copy-back": "the last copy back to the host is left out (a missing copy)",
}


def mutate(text, how):
    """TEXT with mutation HOW applied, or None when it has no site."""
    lines = text.split("\n")
    if how in ("grid", "block"):
        # gpu.launch blocks(%a, %b, %c) in (%gx = %N, ...) threads(...) in (%tx = %M, ...)
        for i, line in enumerate(lines):
            m = re.search(r"gpu\.launch blocks\([^)]*\) in \(%[\w]+ = (%[\w]+)", line)
            if how == "block":
                m = re.search(r"threads\([^)]*\) in \(%[\w]+ = (%[\w]+)", line)
            if not m:
                continue
            indent = line[:len(line) - len(line.lstrip())]
            lines[i] = line[:m.start(1)] + "%polyrs_mutant" + line[m.end(1):]
            lines[i:i] = [indent + "%polyrs_one = arith.constant 1 : index",
                          indent + "%%polyrs_mutant = arith.subi %s, %%polyrs_one : index" % m.group(1)]
            return "\n".join(lines)
        return None
    device = set(re.findall(r"(%[\w]+) = gpu\.alloc", text))
    copies = [i for i, line in enumerate(lines)
              if (m := re.search(r"gpu\.memcpy\s+(%[\w]+), (%[\w]+)", line))
              and ((m.group(1) in device) == (how == "copy"))]
    if not copies:
        return None
    del lines[copies[0] if how == "copy" else copies[-1]]
    return "\n".join(lines)


def candidate(kernel, size, work, bin_dir, opt_args, threads, init="polybench", mutation=None):
    mlir = os.path.join(work, kernel + ".mlir")
    if not os.path.exists(mlir):
        ok, _, err = run([sys.executable, os.path.join(PB, "gen.py"), "--size", size, "--init", init,
                          "--out", work, kernel])
        if not ok:
            return None, "gen: " + err.strip()
    src = mlir
    if opt_args:
        ok, out, err = run([os.path.join(bin_dir, "polyrs-opt"), mlir] + opt_args)
        if not ok:
            return None, "polyrs-opt: " + err.strip().splitlines()[-1] if err.strip() else "polyrs-opt failed"
        # Debug builds check the plan after each stage: a stage's wrong
        # decision is caught (a warning, the SCoP left unchanged), and the
        # output is still right, but the stage has a bug.
        internal = [l for l in err.splitlines() if "internal error" in l]
        if internal:
            return None, "polyrs-opt: " + internal[0]
        src = "-"
        text = out
    else:
        text = None
    if mutation:
        text = mutate(text or "", mutation)
        if text is None:
            return None, "no site for mutation '%s'" % mutation
    ok, out, err = run([os.path.join(bin_dir, "polyrs-runner"), "--threads=%d" % threads,
                        "--gpu=emulate", src],
                       stdin=text, timeout=3600)
    if not ok:
        return None, "polyrs-runner: " + (err.strip().splitlines() or ["failed"])[-1]
    return out.strip(), None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", default="SMALL", choices=["MINI", "SMALL", "MEDIUM", "LARGE", "EXTRALARGE"])
    ap.add_argument("--init", default="polybench", choices=["polybench", "perturbed"],
                    help="input arrays: PolyBench's (reference: C) or perturbed (reference: baseline MLIR)")
    ap.add_argument("--pipelines", default="baseline,upstream",
                    help="comma-separated names of built-in pipelines (default: baseline,upstream)")
    ap.add_argument("--pipeline", action="append", default=[], metavar="NAME=ARGS",
                    help="an extra pipeline: polyrs-opt arguments, e.g. poly='--poly-opt'")
    ap.add_argument("--bin-dir", default=os.path.join(ROOT, "target", "debug"))
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--mutate", choices=sorted(MUTATIONS),
                    help="apply a mutation to each candidate (a GPU program); every candidate must "
                         "then differ from its reference: shows that the harness is live")
    ap.add_argument("kernels", nargs="*")
    args = ap.parse_args()

    pipelines = {}
    for name in filter(None, args.pipelines.split(",")):
        if name not in PIPELINES:
            ap.error("unknown pipeline '%s' (known: %s)" % (name, ", ".join(PIPELINES)))
        pipelines[name] = PIPELINES[name]
    for spec in args.pipeline:
        name, _, opt = spec.partition("=")
        pipelines[name] = shlex.split(opt)
    kernels = args.kernels or KERNELS
    for k in kernels:
        if k not in KERNELS:
            ap.error("unknown kernel '%s'" % k)

    bad = 0
    rows = 0
    with tempfile.TemporaryDirectory(prefix="polyrs-diff-") as work:
        print("%-16s %-10s %-8s %s" % ("kernel", "pipeline", "result", "checksum / reason"))
        for k in kernels:
            if args.init == "polybench":
                ref, why = reference(k, args.size, work)
            else:
                ref, why = candidate(k, args.size, work, args.bin_dir, [], args.threads, args.init)
            if ref is None:
                print("%-16s %-10s %-8s %s" % (k, "reference", "ERROR", why))
                bad += 1
                continue
            for name, opt in pipelines.items():
                rows += 1
                got, why = candidate(k, args.size, work, args.bin_dir, opt, args.threads, args.init,
                                     args.mutate)
                known = KNOWN.get((args.init, name, k))
                if args.mutate:
                    caught = got is None or not (got == ref or within(got, ref, tolerance(opt, k)))
                    if why and why.startswith("no site"):
                        caught = False
                    result = "CAUGHT" if caught else "MISSED"
                    detail = why if got is None else "got %s, reference %s" % (got, ref)
                    bad += 0 if caught else 1
                    print("%-16s %-10s %-8s %s" % (k, name, result, detail), flush=True)
                    continue
                if got is None:
                    result, detail = "ERROR", why
                    bad += 1
                elif got == ref or within(got, ref, tolerance(opt, k)):
                    result, detail = "OK", got
                    if got != ref:
                        result, detail = "CLOSE", "%s, reference %s (within %g)" % (got, ref, tolerance(opt, k))
                    if known:
                        result, detail = "FIXED?", "matches although listed as known: " + known
                        bad += 1
                else:
                    detail = "got %s, reference %s" % (got, ref)
                    if known:
                        result, detail = "KNOWN", detail + " (" + known + ")"
                    else:
                        result = "MISMATCH"
                        bad += 1
                print("%-16s %-10s %-8s %s" % (k, name, result, detail), flush=True)
    print("%d passed, %d failed" % (rows - bad, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
