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

Usage:
  bench/gpu_kit.py [--size MEDIUM] [--out gpukit] [--bin-dir target/release]
                   [--opt 'target=gpu'] [kernel ...]
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

CLANG = os.environ.get("CLANG", "/usr/lib/llvm-22/bin/clang")

RUN_SH = r"""#!/bin/sh
# Runs the GPU programs of this kit and compares their checksums with the
# references (bit for bit). Prints one line per kernel and a summary.
cd "$(dirname "$0")"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null
pass=0; fail=0
for exe in *.gpu; do
  k=${exe%.gpu}
  start=$(date +%s.%N)
  # (the programs' main returns no value: their exit status means nothing;
  # the runtime reports its errors on stderr)
  got=$(MGPU_TIME=1 ./"$exe" 2>err.txt)
  end=$(date +%s.%N)
  ref=$(cat "$k.ref")
  t=$(awk "BEGIN{print $end - $start}")
  if ! grep -q '^mgpu_shim:' err.txt && [ "$got" = "$ref" ]; then
    pass=$((pass + 1)); verdict=same
  else
    fail=$((fail + 1)); verdict="DIFFERENT $(grep '^mgpu_shim:' err.txt | head -c 200)"
  fi
  printf '%-24s %-26s %-26s %8.3f s  %s  %s\n' "$k" "$got" "$ref" "$t" "$verdict" "$(grep '^mgpu:' err.txt)"
done
echo "identical: $pass, different: $fail"
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", default="MEDIUM")
    ap.add_argument("--out", default="gpukit")
    ap.add_argument("--bin-dir", default=os.path.join(ROOT, "target", "release"))
    ap.add_argument("--opt", default="target=gpu", help="poly-opt's options")
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
        ref, err = reference(k, a.size, work)
        if ref is None:
            print("%-24s reference: %s" % (name, err))
            bad += 1
            continue
        with open(os.path.join(a.out, name + ".ref"), "w") as f:
            f.write(ref + "\n")
        kernels = sum(1 for line in open(gpu_mlir) if "gpu.launch " in line or "gpu.launch\t" in line)
        print("%-24s built (%d launches in the source)" % (name, kernels))
    with open(os.path.join(a.out, "run.sh"), "w") as f:
        f.write(RUN_SH)
    with open(os.path.join(a.out, "README"), "w") as f:
        f.write("built by: bench/gpu_kit.py %s\n" % " ".join(shlex.quote(x) for x in sys.argv[1:]))
    subprocess.run(["rm", "-rf", work])
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
