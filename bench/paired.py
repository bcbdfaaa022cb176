"""Kernels timed between two runs of `bench/bandwidth.c`, for machines whose
memory rate moves while they run (a VM whose neighbours come and go: the
AMD EPYC VM of sessions 61-63 streams 256 MB at 100 GB/s or at 50 GB/s,
flipping every few seconds). A kernel's share of the bandwidth means
something only when both were measured in the same state, so each round
runs `bandwidth.c` for the kernel's bytes, the kernel, and `bandwidth.c`
again, and keeps the round only when the two bandwidth runs agree within
15 %; the kept rounds are then grouped by the bandwidth they saw (fast:
within 30 % of the best seen for those bytes in this run; slow: the
others; a run that saw one state only calls it fast: read the GB/s), and each
group's medians are reported: the kernel's time, the bandwidth's, and
their ratio (the share of the bandwidth the kernel reaches for the bytes
it must move).

    python3 bench/paired.py [--rounds 8] [--threads 2] [--bin-dir target/release]
        MODULE:FUNCTION:BYTES[:POLY_OPT_OPTIONS] ...

MODULE is an MLIR file whose `main` calls FUNCTION (the PolyBench
modules of bench/polybench/gen.py, the modules bench/carried.py writes);
with POLY_OPT_OPTIONS (`-` for the defaults) it is first run through
`polyrs-opt --poly-opt=OPTIONS`, and timed as it is otherwise. Times are
`polyrs-runner --time=FUNCTION --repeat=3 --min-time=0.1 --reuse-memory`'s
minimum over its calls (the arrays stay in place between calls, as in a
program that allocates once). Every kernel runs in every round, in the
order given, so that the rounds interleave them.

Example (issue 70's acceptance 2 at sizes past the L3):

    python3 bench/polybench/gen.py --size EXTRALARGE --out /tmp/xl trisolv
    sed 's/4000/8000/g' /tmp/xl/trisolv.mlir > /tmp/t8.mlir
    python3 bench/paired.py /tmp/t8.mlir:kernel_trisolv:256000000:-
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TIME_RE = re.compile(r"min=([0-9.e-]+)s")
BW_RE = re.compile(r"threads: ([0-9.]+) ms")
AGREE = 1.15
FAST = 1.30


def bandwidth_exe():
    exe = os.path.join(tempfile.gettempdir(), "polyrs-paired-bandwidth")
    if not os.path.exists(exe):
        subprocess.run(["gcc", "-O3", "-march=native", "-fopenmp",
                        os.path.join(HERE, "bandwidth.c"), "-o", exe], check=True)
    return exe


def bandwidth_ms(exe, nbytes, threads):
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    out = subprocess.run([exe, str(nbytes)], capture_output=True, text=True, env=env, check=True).stdout
    m = BW_RE.search(out)
    if not m:
        sys.exit(f"paired: no time in bandwidth.c's output: {out!r}")
    return float(m.group(1))


def kernel_ms(runner, module, function, threads):
    p = subprocess.run([runner, module, f"--time={function}", "--repeat=3", "--min-time=0.1",
                        f"--threads={threads}", "--reuse-memory"], capture_output=True, text=True)
    m = TIME_RE.search(p.stdout + p.stderr)
    if p.returncode != 0 or not m:
        sys.exit(f"paired: {module}: no time (exit {p.returncode}): {(p.stdout + p.stderr)[-400:]}")
    return float(m.group(1)) * 1e3


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("kernels", nargs="+", metavar="MODULE:FUNCTION:BYTES[:OPTIONS]")
    ap.add_argument("--rounds", type=int, default=8)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--bin-dir", default=os.path.join(ROOT, "target", "release"))
    args = ap.parse_args()
    exe = bandwidth_exe()
    runner = os.path.join(args.bin_dir, "polyrs-runner")
    work = tempfile.mkdtemp(prefix="polyrs-paired-")
    kernels = []
    for spec in args.kernels:
        parts = spec.split(":", 3)
        if len(parts) < 3:
            sys.exit(f"paired: {spec}: expected MODULE:FUNCTION:BYTES[:OPTIONS]")
        module, function, nbytes = parts[0], parts[1], int(parts[2])
        label = os.path.basename(module)
        if len(parts) == 4:
            options = "" if parts[3] == "-" else parts[3]
            out = os.path.join(work, f"{len(kernels)}.mlir")
            subprocess.run([os.path.join(args.bin_dir, "polyrs-opt"), module, f"--poly-opt={options}",
                            "-o", out], check=True, stderr=subprocess.DEVNULL)
            module = out
            label += f" [{options or 'defaults'}]"
        kernels.append((label, module, function, nbytes))
    rounds = {k: [] for k in range(len(kernels))}
    for r in range(args.rounds):
        for k, (label, module, function, nbytes) in enumerate(kernels):
            before = bandwidth_ms(exe, nbytes, args.threads)
            t = kernel_ms(runner, module, function, args.threads)
            after = bandwidth_ms(exe, nbytes, args.threads)
            agree = max(before, after) / min(before, after) <= AGREE
            print(f"round {r + 1} {label}: bandwidth.c {before:.3f} ms, kernel {t:.3f} ms, "
                  f"bandwidth.c {after:.3f} ms{'' if agree else ' (states differ: dropped)'}",
                  flush=True)
            if agree:
                rounds[k].append((t, (before + after) / 2))
    print()
    print("| kernel | MB | rounds | bandwidth.c GB/s | kernel ms (median) | bandwidth.c ms (median) | share |")
    print("|---|---|---|---|---|---|---|")
    for k, (label, _, _, nbytes) in enumerate(kernels):
        kept = rounds[k]
        if not kept:
            print(f"| {label} | {nbytes / 1e6:.1f} | 0 | | | | |")
            continue
        best = min(b for _, b in kept)
        for state, pick in (("fast", lambda b: b <= best * FAST), ("slow", lambda b: b > best * FAST)):
            group = [(t, b) for t, b in kept if pick(b)]
            if not group:
                continue
            t = statistics.median(x for x, _ in group)
            b = statistics.median(y for _, y in group)
            print(f"| {label} | {nbytes / 1e6:.1f} | {len(group)} ({state}) | {nbytes / b / 1e6:.0f} | "
                  f"{t:.3f} | {b:.3f} | {b / t * 100:.0f} % |")


if __name__ == "__main__":
    main()
