"""Reductions as C front ends give them: accumulators carried through
`affine.for` iter_args (issue 70), timed as they come and after
`poly-opt` (which models the carried values in memory cells, `iter-args`),
in one run on this machine, each result checked bit for bit against the
input's.

* gemv: y[i] = sum_j A[i][j] * x[j] (the issue's example), f64;
* rowmax: each row's maximum (softmax's first step, arith.maximumf), f32;
* moments: each row's sum and sum of squares (layernorm's mean and
  variance), two values carried, f32;
* dot: one sum over a vector, f64 (no parallel loop without reassociation:
  left unchanged; with `reassociate=true`, split into blocks with partial
  results, one per thread).

Each kernel also runs as `poly-opt{reassociate=true}`: its result is
compared with the input's within a relative tolerance (1e-12 for f64,
1e-5 for f32, of the sum of the output's magnitudes), bit for bit where
no sum or product was reassociated.

    python3 bench/carried.py [--threads 2] [--min-time 1] [--bin-dir target/release]
"""

import argparse
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TIME_RE = re.compile(r"time (\S+) calls=(\d+) min=([0-9.]+)s median=([0-9.]+)s")

KERNELS = {
    "gemv": ("f64", [("A", (4000, 4000)), ("x", (4000,))], ("y", (4000,)), """
    %z = arith.constant 0.0 : f64
    affine.for %i = 0 to 4000 {
      %s = affine.for %j = 0 to 4000 iter_args(%acc = %z) -> (f64) {
        %a = affine.load %A[%i, %j] : memref<4000x4000xf64>
        %b = affine.load %x[%j] : memref<4000xf64>
        %m = arith.mulf %a, %b : f64
        %n = arith.addf %acc, %m : f64
        affine.yield %n : f64
      }
      affine.store %s, %y[%i] : memref<4000xf64>
    }"""),
    "rowmax": ("f32", [("A", (2048, 2048))], ("y", (2048,)), """
    %z = arith.constant 0xFF800000 : f32
    affine.for %i = 0 to 2048 {
      %s = affine.for %j = 0 to 2048 iter_args(%acc = %z) -> (f32) {
        %a = affine.load %A[%i, %j] : memref<2048x2048xf32>
        %n = arith.maximumf %acc, %a : f32
        affine.yield %n : f32
      }
      affine.store %s, %y[%i] : memref<2048xf32>
    }"""),
    "moments": ("f32", [("A", (2048, 2048))], ("y", (2048,)), """
    %z = arith.constant 0.0 : f32
    affine.for %i = 0 to 2048 {
      %s:2 = affine.for %j = 0 to 2048 iter_args(%a1 = %z, %a2 = %z) -> (f32, f32) {
        %a = affine.load %A[%i, %j] : memref<2048x2048xf32>
        %q = arith.mulf %a, %a : f32
        %n1 = arith.addf %a1, %a : f32
        %n2 = arith.addf %a2, %q : f32
        affine.yield %n1, %n2 : f32, f32
      }
      %v = arith.subf %s#1, %s#0 : f32
      affine.store %v, %y[%i] : memref<2048xf32>
    }"""),
    "dot": ("f64", [("A", (4000000,)), ("x", (4000000,))], ("y", (1,)), """
    %z = arith.constant 0.0 : f64
    %s = affine.for %j = 0 to 4000000 iter_args(%acc = %z) -> (f64) {
      %a = affine.load %A[%j] : memref<4000000xf64>
      %b = affine.load %x[%j] : memref<4000000xf64>
      %m = arith.mulf %a, %b : f64
      %n = arith.addf %acc, %m : f64
      affine.yield %n : f64
    }
    affine.store %s, %y[0] : memref<1xf64>"""),
}


def memref(shape, ty):
    return "memref<%sx%s>" % ("x".join(str(d) for d in shape), ty)


def module(name):
    """The kernel `@op` and a `@main` that fills its inputs (distinct
    values) and prints the output's exact checksum."""
    ty, ins, (oname, oshape), body = KERNELS[name]
    args = ", ".join("%%%s: %s" % (n, memref(s, ty)) for n, s in ins + [(oname, oshape)])
    bits = "i64" if ty == "f64" else "i32"
    lines = ["func.func @op(%s) {%s" % (args, body), "  return", "}",
             "func.func private @printI64(i64)", "func.func private @printF64(f64)",
             "func.func private @printNewline()",
             "func.func @main() {",
             "  %c0 = arith.constant 0 : index", "  %c1 = arith.constant 1 : index",
             "  %c97 = arith.constant 97 : i64", "  %c37 = arith.constant 37 : i64"]
    names = []
    for k, (n, s) in enumerate(ins + [(oname, oshape)]):
        size = 1
        for d in s:
            size *= d
        lines += ["  %%%s = memref.alloc() {alignment = 64 : i64} : %s" % (n, memref(s, ty)),
                  "  %%flat_%s = memref.reinterpret_cast %%%s to offset: [0], sizes: [%d], strides: [1] : %s to memref<%dx%s>"
                  % (n, n, size, memref(s, ty), size, ty),
                  "  %%n_%s = arith.constant %d : index" % (n, size),
                  "  scf.for %%k = %%c0 to %%n_%s step %%c1 {" % n,
                  "    %ki = arith.index_cast %k : index to i64",
                  "    %km = arith.muli %ki, %c37 : i64",
                  "    %%seed = arith.constant %d : i64" % (11 + 3 * k),
                  "    %ka = arith.addi %km, %seed : i64",
                  "    %kr = arith.remui %ka, %c97 : i64",
                  "    %%kf = arith.uitofp %%kr : i64 to %s" % ty,
                  "    %%n97 = arith.constant 97.0 : %s" % ty,
                  "    %%kd = arith.divf %%kf, %%n97 : %s" % ty,
                  "    memref.store %%kd, %%flat_%s[%%k] : memref<%dx%s>" % (n, size, ty),
                  "  }"]
        names.append(n)
    lines.append("  call @op(%s) : (%s) -> ()" % (", ".join("%" + n for n in names),
                                                  ", ".join(memref(s, ty) for _, s in ins + [(oname, oshape)])))
    size = 1
    for d in oshape:
        size *= d
    lines += ["  %zi = arith.constant 0 : i64",
              "  %sum = scf.for %k = %c0 to %n_" + oname + " step %c1 iter_args(%si = %zi) -> (i64) {",
              "    %%v = memref.load %%flat_%s[%%k] : memref<%dx%s>" % (oname, size, ty),
              "    %%b = arith.bitcast %%v : %s to %s" % (ty, bits),
              "    %s" % ("%w = arith.extui %b : i32 to i64" if bits == "i32" else "%w = arith.addi %b, %zi : i64"),
              "    %ki = arith.index_cast %k : index to i64",
              "    %kk = arith.addi %ki, %c37 : i64",
              "    %p = arith.muli %w, %kk : i64",
              "    %n = arith.addi %si, %p : i64",
              "    scf.yield %n : i64",
              "  }",
              "  call @printI64(%sum) : (i64) -> ()",
              "  call @printNewline() : () -> ()"]
    # The output's sum and the sum of its magnitudes, as f64 (for the
    # reassociated variant's tolerance).
    ext = "%vd = arith.extf %v : f32 to f64" if ty == "f32" else "%vd = arith.addf %v, %fz : f64"
    lines += ["  %fz = arith.constant 0.0 : f64",
              "  %fs:2 = scf.for %k = %c0 to %n_" + oname + " step %c1 iter_args(%s1 = %fz, %s2 = %fz) -> (f64, f64) {",
              "    %%v = memref.load %%flat_%s[%%k] : memref<%dx%s>" % (oname, size, ty),
              "    " + ext,
              "    %va = math.absf %vd : f64",
              "    %n1 = arith.addf %s1, %vd : f64",
              "    %n2 = arith.addf %s2, %va : f64",
              "    scf.yield %n1, %n2 : f64, f64",
              "  }",
              "  call @printF64(%fs#0) : (f64) -> ()",
              "  call @printNewline() : () -> ()",
              "  call @printF64(%fs#1) : (f64) -> ()",
              "  call @printNewline() : () -> ()"]
    for n, s in ins + [(oname, oshape)]:
        lines.append("  memref.dealloc %%%s : %s" % (n, memref(s, ty)))
    lines += ["  return", "}"]
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--min-time", type=float, default=1.0)
    ap.add_argument("--bin-dir", default=os.path.join(ROOT, "target", "release"))
    ap.add_argument("names", nargs="*")
    args = ap.parse_args()
    opt = os.path.join(args.bin_dir, "polyrs-opt")
    runner = os.path.join(args.bin_dir, "polyrs-runner")
    bad = 0
    print("| kernel | input ms | poly-opt ms | speed-up | reassociate=true ms | speed-up | poly-opt's remark (reassociate=true) |")
    print("|---|---|---|---|---|---|---|")
    tol = {"f64": 1e-12, "f32": 1e-5}
    for name in args.names or list(KERNELS):
        text = module(name)
        outs, remarks = [text], []
        for options in ("threads=%d" % args.threads, "threads=%d reassociate=true" % args.threads):
            p = subprocess.run([opt, "-", "--poly-opt=" + options], input=text, capture_output=True, text=True)
            if p.returncode != 0:
                sys.exit("polyrs-opt failed on %s:\n%s" % (name, p.stderr))
            outs.append(p.stdout)
            remarks.append(next((ln.split("remark: poly-opt: ")[1] for ln in p.stderr.splitlines()
                                 if "remark: poly-opt: " in ln and "<stdin>:1:" not in ln), ""))
        res = []
        for variant in outs:
            r = subprocess.run([runner, "-", "--time=op", "--min-time=%g" % args.min_time,
                                "--threads=%d" % args.threads, "--reuse-memory"],
                               input=variant, capture_output=True, text=True)
            m = TIME_RE.search(r.stderr)
            if r.returncode != 0 or not m:
                sys.exit("polyrs-runner failed on %s:\n%s" % (name, r.stderr))
            # Per run of @main (their number follows --min-time): the exact
            # checksum, the sum and the sum of magnitudes.
            words = r.stdout.split()
            runs = {tuple(words[k:k + 3]) for k in range(0, len(words), 3)}
            res.append((float(m.group(4)), runs))
        (t0, r0), (t1, r1), (t2, r2) = res
        exact = len(r0) == 1 and r0 == r1
        same2 = len(r2) == 1 and len(r0) == 1
        if same2:
            (c0, s0, a0), = r0
            (c2, s2, a2), = r2
            same2 = c0 == c2 or abs(float(s0) - float(s2)) <= tol[KERNELS[name][0]] * float(a0)
        bad += not (exact and same2)
        short = re.sub(r"; target .*", "", remarks[1])
        print("| %s | %.3f | %.3f | %.2fx | %.3f | %.2fx | %s%s |" % (
            name, t0 * 1e3, t1 * 1e3, t0 / t1, t2 * 1e3, t0 / t2, short[:200],
            "" if exact and same2 else " **RESULTS DIFFER**"), flush=True)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
