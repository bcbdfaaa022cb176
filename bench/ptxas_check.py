#!/usr/bin/env python3
"""Assembles the PTX of the PolyBench kernels' GPU programs with NVIDIA's
ptxas and checks that every kernel assembles with no spills.

For each kernel at SIZE:
  bench/polybench/gen.py -> polyrs-opt --poly-opt='OPT'
  -> polyrs-translate --emit=ptx --gpu-chip=CHIP (one PTX module per kernel
     module, each after a line '// gpu.module @NAME')
  -> ptxas -arch=CHIP -v, one module at a time
and ptxas's report per entry: registers, spill stores and loads, stack.

ptxas: --ptxas, else $PTXAS, else the one scripts/setup.sh installs from PyPI
(nvidia-cuda-nvcc-cu12) under ~/.cache/polyrs. NVIDIA's binaries are under
the CUDA EULA: installed at setup time, never committed.

Usage:
  bench/ptxas_check.py [--size MEDIUM] [--opt 'target=gpu'] [--chip sm_90]
                       [--bin-dir target/debug] [--ptxas PATH] [kernel ...]
Prints one line per kernel and a summary:
  'kernels: 30, with kernels: N, entries: E, spilling: S, failed: F'
Exit status 0 when every module assembles and no entry spills.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from difftest import KERNELS, run  # noqa: E402

DEFAULT_PTXAS = os.path.join(
    os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")),
    "polyrs", "cuda-nvcc-12.9.86", "nvidia", "cuda_nvcc", "bin", "ptxas")


def find_ptxas(given=None):
    """The ptxas to use, or None."""
    for p in (given, os.environ.get("PTXAS"), DEFAULT_PTXAS):
        if p and os.path.isfile(p) and os.access(p, os.X_OK):
            return p
    return None


def modules(ptx_text):
    """(name, ptx) for each module of polyrs-translate --emit=ptx's output."""
    parts = re.split(r"^// gpu\.module @(\S+)\n", ptx_text, flags=re.M)
    return [(parts[i], parts[i + 1]) for i in range(1, len(parts) - 1, 2)]


def assemble(ptxas, chip, name, ptx, work):
    """ptxas's verdict on one module: (ok, entries, message); entries are
    (entry, registers, spill stores, spill loads, stack) tuples."""
    src = os.path.join(work, name + ".ptx")
    with open(src, "w") as f:
        f.write(ptx)
    ok, out, err = run([ptxas, "-arch=" + chip, "-v", src, "-o", os.path.join(work, name + ".cubin")])
    text = out + err
    if not ok:
        return False, [], text.strip()[-400:]
    entries = []
    current = None
    for line in text.splitlines():
        m = re.search(r"Compiling entry function '(\S+)'", line)
        if m:
            current = [m.group(1), 0, 0, 0, 0]
            entries.append(current)
            continue
        m = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", line)
        if m and current:
            current[4], current[2], current[3] = (int(m.group(k)) for k in (1, 2, 3))
        m = re.search(r"Used (\d+) registers", line)
        if m and current:
            current[1] = int(m.group(1))
    return True, [tuple(e) for e in entries], ""


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", default="MEDIUM")
    ap.add_argument("--opt", default="target=gpu", help="poly-opt's options")
    ap.add_argument("--chip", default="sm_90")
    ap.add_argument("--bin-dir", default=os.path.join(ROOT, "target", "debug"))
    ap.add_argument("--ptxas")
    ap.add_argument("kernels", nargs="*")
    a = ap.parse_args()
    ptxas = find_ptxas(a.ptxas)
    if not ptxas:
        print("ptxas not found (--ptxas, $PTXAS, or scripts/setup.sh installs it to %s)" % DEFAULT_PTXAS)
        return 2
    with_kernels = entries = spilling = failed = 0
    kernels = a.kernels or KERNELS
    with tempfile.TemporaryDirectory(prefix="polyrs-ptxas-") as work:
        for k in kernels:
            ok, _, err = run([sys.executable, os.path.join(HERE, "polybench", "gen.py"), "--size", a.size,
                              "--out", work, k])
            gpu = os.path.join(work, k + ".gpu.mlir")
            if ok:
                ok, _, err = run([os.path.join(a.bin_dir, "polyrs-opt"), os.path.join(work, k + ".mlir"),
                                  "--poly-opt=" + a.opt + " gpu-chip=" + a.chip, "-o", gpu])
            if ok:
                ok, ptx, err = run([os.path.join(a.bin_dir, "polyrs-translate"), "--emit=ptx",
                                    "--gpu-chip=" + a.chip, gpu])
            if not ok:
                print("%-16s FAILED  %s" % (k, err.strip()[-300:]))
                failed += 1
                continue
            mods = modules(ptx)
            if mods:
                with_kernels += 1
            row = []
            for name, text in mods:
                ok, ents, msg = assemble(ptxas, a.chip, name, text, work)
                if not ok:
                    print("%-16s FAILED  %s: %s" % (k, name, msg))
                    failed += 1
                    continue
                for (entry, regs, st, ld, stack) in ents:
                    entries += 1
                    if st or ld:
                        spilling += 1
                        print("%-16s SPILLS  %s: %d bytes stored, %d loaded" % (k, entry, st, ld))
                    row.append("%d" % regs)
            print("%-16s %2d modules, registers per entry: %s" % (k, len(mods), " ".join(row) or "-"))
    print("kernels: %d, with kernels: %d, entries: %d, spilling: %d, failed: %d"
          % (len(kernels), with_kernels, entries, spilling, failed))
    return 0 if not (spilling or failed) else 1


if __name__ == "__main__":
    sys.exit(main())
