#!/usr/bin/env python3
"""Builds PolyBench kernels for the GPU, to run on a machine with an NVIDIA
GPU and its driver but no MLIR, LLVM or CUDA toolkit.

For each kernel at SIZE:
  bench/polybench/gen.py (PolyBench's own inputs)
  -> polyrs-opt --poly-opt='target=gpu ...'      (remarks in KERNEL.SIZE.remarks)
  -> polyrs-translate --emit=llvm                 (host code, kernels' PTX embedded)
  -> clang -O2 with runtime/mgpu_cuda.c -ldl      (OUT/KERNEL.SIZE.gpu)
and the reference checksum, PolyBench's C code at gcc -O0 -ffp-contract=off
(OUT/KERNEL.SIZE.ref), as the differential harness (bench/difftest.py) has it.

OUT/run.sh runs every program on the GPU and prints, per kernel, the
checksum, whether it is bit-identical to the reference, the wall time
of the whole program (CUDA context, PTX compilation by the driver, copies,
kernels and the program's own initialization and checksum), and the time
of the kernels and of the copies measured with CUDA events
(runtime/mgpu_cuda.c with MGPU_TIME=1; each launch and copy is waited for).
A second table puts the PolyBench kernel's own launches (its kernel_*
functions, without the initialization's) beside polyrs on the CPU of the
machine that built the kit (OUT/KERNEL.SIZE.cpu: polyrs-runner's median of
the kernel function, 2 threads, measured at build time; --no-cpu-times
skips it), and, when CuPy is there, gemm beside cuBLAS dgemm on the same
shape (OUT/cublas_gemm.py: C = alpha A B + beta C in one cublas.gemm call,
median of 20 calls timed with CUDA events).

Usage:
  bench/gpu_kit.py [--size MEDIUM] [--out gpukit] [--bin-dir target/release]
                   [--opt 'target=gpu'] [--no-cpu-times] [--ref-opt=-O0] [kernel ...]
then, on the GPU machine: sh gpukit/run.sh
"""

import argparse
import os
import shlex
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from difftest import KERNELS, reference, run  # noqa: E402
from bench import TIME_RE, kernel_function  # noqa: E402

# PolyBench's gemm shapes (NI, NJ, NK), for cuBLAS on the same problem.
GEMM_DIMS = {
    "MINI": (20, 25, 30),
    "SMALL": (60, 70, 80),
    "MEDIUM": (200, 220, 240),
    "LARGE": (1000, 1100, 1200),
    "EXTRALARGE": (2000, 2300, 2600),
}

CUBLAS_GEMM = r"""
# cuBLAS dgemm through CuPy on PolyBench's gemm shape: C = alpha A B + beta C
# in one cublas.gemm call; median of 20 calls after 3 warm-up calls, each
# timed with CUDA events. Prints "cublas-gemm: MS".
import statistics, sys
import cupy as cp
from cupy import cublas
ni, nj, nk = (int(a) for a in sys.argv[1:4])
a = cp.random.rand(ni, nk)
b = cp.random.rand(nk, nj)
c = cp.random.rand(ni, nj)
times = []
for r in range(23):
    start, end = cp.cuda.Event(), cp.cuda.Event()
    start.record()
    cublas.gemm("N", "N", a, b, out=c, alpha=1.5, beta=1.2)
    end.record()
    end.synchronize()
    if r >= 3:
        times.append(cp.cuda.get_elapsed_time(start, end))
print("cublas-gemm: %.4f" % statistics.median(times))
"""

CLANG = os.environ.get("CLANG", "/usr/lib/llvm-22/bin/clang")

RUN_SH = r"""#!/bin/sh
# Runs the GPU programs of this kit and compares their checksums with the
# references (bit for bit). Prints one line per kernel and a summary.
# A program running longer than KIT_TIMEOUT seconds (default 300) is
# killed and counts as different. KIT_NO_CUBLAS=1 skips the cuBLAS run.
cd "$(dirname "$0")"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null
pass=0; fail=0
for exe in *.gpu; do
  k=${exe%.gpu}
  start=$(date +%s.%N)
  # (the programs' main returns no value: their exit status means nothing;
  # the runtime reports its errors on stderr)
  got=$(MGPU_TIME=1 timeout "${KIT_TIMEOUT:-300}" ./"$exe" 2>err.txt)
  status=$?
  end=$(date +%s.%N)
  [ "$status" = 124 ] && echo "mgpu_shim: killed after ${KIT_TIMEOUT:-300} s (KIT_TIMEOUT)" >> err.txt
  ref=$(cat "$k.ref")
  t=$(awk "BEGIN{print $end - $start}")
  if ! grep -q '^mgpu_shim:' err.txt && [ "$got" = "$ref" ]; then
    pass=$((pass + 1)); verdict=same
  else
    fail=$((fail + 1)); verdict="DIFFERENT $(grep '^mgpu_shim:' err.txt | head -c 200)"
  fi
  printf '%-24s %-26s %-26s %8.3f s  %s  %s\n' "$k" "$got" "$ref" "$t" "$verdict" "$(grep '^mgpu:' err.txt)"
  # The PolyBench kernel's own launches (kernel_*), without the initialization's.
  awk '$1 == "mgpu-kernel:" && $2 ~ /^kernel_/ { n += $3; ms += $4 } END { printf "%d %.4f\n", n, ms }' err.txt > "$k.gpukernel"
done
echo "identical: $pass, different: $fail"
echo
echo "PolyBench kernel function alone (its launches, CUDA events) beside polyrs on the kit builder's CPU:"
printf '%-24s %10s %14s %14s %10s\n' kernel launches "GPU ms" "CPU ms" "CPU/GPU"
for exe in *.gpu; do
  k=${exe%.gpu}
  set -- $(cat "$k.gpukernel" 2>/dev/null || echo "0 0")
  cpu=$(cat "$k.cpu" 2>/dev/null || echo "")
  if [ -n "$cpu" ]; then
    awk -v k="$k" -v n="$1" -v g="$2" -v c="$cpu" 'BEGIN { printf "%-24s %10d %14.4f %14.4f %10s\n", k, n, g, c * 1000, (g > 0 ? sprintf("%.2fx", c * 1000 / g) : "-") }'
  else
    printf '%-24s %10d %14.4f %14s %10s\n' "$k" "$1" "$2" - -
  fi
done
[ -f cpu-model ] && echo "CPU: $(cat cpu-model)"
for g in gemm.*.gpu; do
  [ -f "$g" ] || continue
  k=${g%.gpu}
  if [ -n "$KIT_NO_CUBLAS" ]; then
    echo "$k: KIT_NO_CUBLAS set, no cuBLAS comparison"
  elif python3 -c 'import cupy' 2>/dev/null; then
    cu=$(python3 cublas_gemm.py $(cat "$k.dims") | awk '$1 == "cublas-gemm:" { print $2 }')
    set -- $(cat "$k.gpukernel")
    awk -v k="$k" -v g="$2" -v c="$cu" 'BEGIN { printf "%s: polyrs %.4f ms (its kernel launches), cuBLAS dgemm %.4f ms: %.1f %% of cuBLAS\n", k, g, c, (g > 0 ? 100 * c / g : 0) }'
  else
    echo "$k: no CuPy here, no cuBLAS comparison"
  fi
done
"""


def cpu_model():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown CPU"


def cpu_time(kernel, mlir, bin_dir, threads):
    """polyrs on this machine's CPU: the median time of the kernel function
    (seconds), or None and why."""
    ok, out, err = run([os.path.join(bin_dir, "polyrs-opt"), mlir,
                        "--poly-opt=threads=%d" % threads])
    if not ok:
        return None, "polyrs-opt: " + err.strip()[-200:]
    p = subprocess.run([os.path.join(bin_dir, "polyrs-runner"), "-", "--time=" + kernel_function(kernel),
                        "--repeat=3", "--min-time=0.2", "--threads=%d" % threads],
                       input=out, capture_output=True, text=True)
    m = TIME_RE.search(p.stderr)
    if p.returncode != 0 or not m:
        return None, "polyrs-runner: " + (p.stderr.strip().splitlines() or ["failed"])[-1]
    return float(m.group(4)), ""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", default="MEDIUM")
    ap.add_argument("--out", default="gpukit")
    ap.add_argument("--bin-dir", default=os.path.join(ROOT, "target", "release"))
    ap.add_argument("--opt", default="target=gpu", help="poly-opt's options")
    ap.add_argument("--no-cpu-times", action="store_true",
                    help="do not time polyrs on this machine's CPU for the comparison")
    ap.add_argument("--threads", type=int, default=2, help="threads of the CPU times")
    ap.add_argument("--ref-opt", default="-O0",
                    help="gcc's optimization level for the C references (always with "
                    "-ffp-contract=off; -O2 gives the same bits in far less time, for EXTRALARGE; "
                    "written --ref-opt=-O2)")
    ap.add_argument("kernels", nargs="*")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    work = os.path.join(a.out, "work")
    os.makedirs(work, exist_ok=True)
    bad = 0
    for k in a.kernels or KERNELS:
        name = "%s.%s" % (k, a.size)
        ok, _, err = run([sys.executable, os.path.join(HERE, "polybench", "gen.py"), "--size", a.size,
                          "--out", work, k])
        if not ok:
            print("%-24s gen: %s" % (name, err.strip()))
            bad += 1
            continue
        mlir = os.path.join(work, k + ".mlir")
        gpu_mlir = os.path.join(work, name + ".gpu.mlir")
        ok, _, err = run([os.path.join(a.bin_dir, "polyrs-opt"), mlir,
                          "--poly-opt=" + a.opt, "-o", gpu_mlir])
        with open(os.path.join(a.out, name + ".remarks"), "w") as f:
            f.write(err)
        if not ok:
            print("%-24s polyrs-opt: %s" % (name, err.strip()[-300:]))
            bad += 1
            continue
        ll = os.path.join(work, name + ".ll")
        ok, _, err = run([os.path.join(a.bin_dir, "polyrs-translate"), gpu_mlir, "-o", ll])
        if not ok:
            print("%-24s polyrs-translate: %s" % (name, err.strip()[-300:]))
            bad += 1
            continue
        exe = os.path.join(a.out, name + ".gpu")
        ok, _, err = run([CLANG, "-O2", "-w", ll, os.path.join(ROOT, "runtime", "mgpu_cuda.c"),
                          "-ldl", "-lm", "-o", exe])
        if not ok:
            print("%-24s clang: %s" % (name, err.strip()[-300:]))
            bad += 1
            continue
        ref, err = reference(k, a.size, work, a.ref_opt)
        if ref is None:
            print("%-24s reference: %s" % (name, err))
            bad += 1
            continue
        with open(os.path.join(a.out, name + ".ref"), "w") as f:
            f.write(ref + "\n")
        if k == "gemm":
            with open(os.path.join(a.out, name + ".dims"), "w") as f:
                f.write("%d %d %d\n" % GEMM_DIMS.get(a.size, GEMM_DIMS["MEDIUM"]))
        if not a.no_cpu_times:
            cpu, err = cpu_time(k, mlir, a.bin_dir, a.threads)
            if cpu is None:
                print("%-24s CPU time: %s" % (name, err))
            else:
                with open(os.path.join(a.out, name + ".cpu"), "w") as f:
                    f.write("%.6f\n" % cpu)
        kernels = sum(1 for line in open(gpu_mlir) if "gpu.launch " in line or "gpu.launch\t" in line)
        print("%-24s built (%d launches in the source)" % (name, kernels))
    with open(os.path.join(a.out, "run.sh"), "w") as f:
        f.write(RUN_SH)
    with open(os.path.join(a.out, "cublas_gemm.py"), "w") as f:
        f.write(CUBLAS_GEMM)
    with open(os.path.join(a.out, "cpu-model"), "w") as f:
        f.write("%s, %d threads (polyrs-opt --poly-opt='threads=%d', the host CPU)\n"
                % (cpu_model(), a.threads, a.threads))
    with open(os.path.join(a.out, "README"), "w") as f:
        f.write("built by: bench/gpu_kit.py %s\n" % " ".join(shlex.quote(x) for x in sys.argv[1:]))
    subprocess.run(["rm", "-rf", work])
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
