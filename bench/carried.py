"""Reductions as C front ends give them: accumulators carried through
`affine.for` iter_args (issue 70), timed as they come and after
`poly-opt` (which models the carried values in memory cells, `iter-args`),
in one run on this machine, each result checked bit for bit against the
input's.

* gemv: y[i] = sum_j A[i][j] * x[j] (the issue's example), f64;
* rowmax: each row's maximum (softmax's first step, arith.maximumf), f32;
* moments: each row's sum and sum of squares (layernorm's mean and
  variance), two values carried, f32;
* gemv_t: y[j] = sum_i A[i][j] * x[i], the column orientation as C gives
  it (y zeroed, then updated in place: no iter_args), f64;
* rowsum: each row's sum (ReduceSum), f32;
* softmax: each row's maximum, exponentials and their sum, and the
  division (Softmax), f32;
* layernorm: each row's mean and variance in two passes, then the row
  normalized, scaled and shifted (LayerNormalization), f32;
* dot: one sum over a vector, f64 (no parallel loop without reassociation:
  left unchanged; with `reassociate=true`, split into blocks with partial
  results, one per thread);
* gemv_par, rowsum_par, dot_par: gemv, rowsum and dot as upstream's
  `affine-parallelize parallel-reductions=true` writes them
  (`affine.parallel ... reduce ("addf")`): the input allows any order of
  the terms, so its results (an OpenMP reduction) and poly-opt's default
  ones are compared within the tolerance below.

Each kernel also runs as `poly-opt{reassociate=true}`: its result is
compared with the input's within a relative tolerance (1e-12 for f64,
1e-5 for f32, of the sum of the output's magnitudes), bit for bit where
no sum or product was reassociated. Beside the times: the bytes the kernel
must move (each input read once, the output written once), the best
variant's rate for them, `bench/bandwidth.c`'s read bandwidth for as many
bytes on as many threads measured right after (arrays rewritten before
each pass, as each timed run fills its arrays before the kernel), the
fraction, and ONNX Runtime's time for the kernels it has an operator for
(ReduceSum, ReduceMax, Softmax, LayerNormalization; CPU provider, as many
intra-op threads; numpy, onnx and onnxruntime in bench/ml/run.py's virtual
environment, made on first use; `--no-ort` skips it).

    python3 bench/carried.py [--threads 2] [--min-time 1] [--bin-dir target/release] [--no-ort]
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(HERE, "ml"))
import run as ml_run  # noqa: E402  (bench/ml/run.py: the CPU's name, the virtual environment)

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
    "gemv_t": ("f64", [("A", (4000, 4000)), ("x", (4000,))], ("y", (4000,)), """
    %z = arith.constant 0.0 : f64
    affine.for %j = 0 to 4000 {
      affine.store %z, %y[%j] : memref<4000xf64>
    }
    affine.for %i = 0 to 4000 {
      affine.for %j = 0 to 4000 {
        %a = affine.load %A[%i, %j] : memref<4000x4000xf64>
        %b = affine.load %x[%i] : memref<4000xf64>
        %m = arith.mulf %a, %b : f64
        %c = affine.load %y[%j] : memref<4000xf64>
        %n = arith.addf %c, %m : f64
        affine.store %n, %y[%j] : memref<4000xf64>
      }
    }"""),
    "rowsum": ("f32", [("A", (2048, 2048))], ("y", (2048,)), """
    %z = arith.constant 0.0 : f32
    affine.for %i = 0 to 2048 {
      %s = affine.for %j = 0 to 2048 iter_args(%acc = %z) -> (f32) {
        %a = affine.load %A[%i, %j] : memref<2048x2048xf32>
        %n = arith.addf %acc, %a : f32
        affine.yield %n : f32
      }
      affine.store %s, %y[%i] : memref<2048xf32>
    }"""),
    "softmax": ("f32", [("A", (2048, 2048))], ("B", (2048, 2048)), """
    %ninf = arith.constant 0xFF800000 : f32
    %z = arith.constant 0.0 : f32
    affine.for %i = 0 to 2048 {
      %m = affine.for %j = 0 to 2048 iter_args(%acc = %ninf) -> (f32) {
        %a = affine.load %A[%i, %j] : memref<2048x2048xf32>
        %n = arith.maximumf %acc, %a : f32
        affine.yield %n : f32
      }
      %s = affine.for %j = 0 to 2048 iter_args(%acc = %z) -> (f32) {
        %a = affine.load %A[%i, %j] : memref<2048x2048xf32>
        %d = arith.subf %a, %m : f32
        %e = math.exp %d : f32
        affine.store %e, %B[%i, %j] : memref<2048x2048xf32>
        %n = arith.addf %acc, %e : f32
        affine.yield %n : f32
      }
      affine.for %j = 0 to 2048 {
        %e = affine.load %B[%i, %j] : memref<2048x2048xf32>
        %q = arith.divf %e, %s : f32
        affine.store %q, %B[%i, %j] : memref<2048x2048xf32>
      }
    }"""),
    "layernorm": ("f32", [("A", (2048, 2048)), ("scale", (2048,)), ("bias", (2048,))], ("B", (2048, 2048)), """
    %z = arith.constant 0.0 : f32
    %n = arith.constant 2048.0 : f32
    %eps = arith.constant 1.0e-5 : f32
    %one = arith.constant 1.0 : f32
    affine.for %i = 0 to 2048 {
      %s = affine.for %j = 0 to 2048 iter_args(%acc = %z) -> (f32) {
        %a = affine.load %A[%i, %j] : memref<2048x2048xf32>
        %t = arith.addf %acc, %a : f32
        affine.yield %t : f32
      }
      %mean = arith.divf %s, %n : f32
      %v = affine.for %j = 0 to 2048 iter_args(%acc = %z) -> (f32) {
        %a = affine.load %A[%i, %j] : memref<2048x2048xf32>
        %d = arith.subf %a, %mean : f32
        %q = arith.mulf %d, %d : f32
        %t = arith.addf %acc, %q : f32
        affine.yield %t : f32
      }
      %var = arith.divf %v, %n : f32
      %ve = arith.addf %var, %eps : f32
      %sd = math.sqrt %ve : f32
      %r = arith.divf %one, %sd : f32
      affine.for %j = 0 to 2048 {
        %a = affine.load %A[%i, %j] : memref<2048x2048xf32>
        %d = arith.subf %a, %mean : f32
        %x = arith.mulf %d, %r : f32
        %gg = affine.load %scale[%j] : memref<2048xf32>
        %bb = affine.load %bias[%j] : memref<2048xf32>
        %y = arith.mulf %x, %gg : f32
        %w = arith.addf %y, %bb : f32
        affine.store %w, %B[%i, %j] : memref<2048x2048xf32>
      }
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
    # The same reductions as upstream's affine-parallelize
    # (parallel-reductions=true) writes them from the iter_args forms above:
    # `affine.parallel ... reduce`, any order of the terms allowed.
    "gemv_par": ("f64", [("A", (4000, 4000)), ("x", (4000,))], ("y", (4000,)), """
    %z = arith.constant 0.0 : f64
    affine.parallel (%i) = (0) to (4000) {
      %s = affine.parallel (%j) = (0) to (4000) reduce ("addf") -> (f64) {
        %a = affine.load %A[%i, %j] : memref<4000x4000xf64>
        %b = affine.load %x[%j] : memref<4000xf64>
        %m = arith.mulf %a, %b : f64
        affine.yield %m : f64
      }
      %t = arith.addf %z, %s : f64
      affine.store %t, %y[%i] : memref<4000xf64>
    }"""),
    "rowsum_par": ("f32", [("A", (2048, 2048))], ("y", (2048,)), """
    %z = arith.constant 0.0 : f32
    affine.parallel (%i) = (0) to (2048) {
      %s = affine.parallel (%j) = (0) to (2048) reduce ("addf") -> (f32) {
        %a = affine.load %A[%i, %j] : memref<2048x2048xf32>
        affine.yield %a : f32
      }
      %t = arith.addf %z, %s : f32
      affine.store %t, %y[%i] : memref<2048xf32>
    }"""),
    "dot_par": ("f64", [("A", (4000000,)), ("x", (4000000,))], ("y", (1,)), """
    %z = arith.constant 0.0 : f64
    %s = affine.parallel (%j) = (0) to (4000000) reduce ("addf") -> (f64) {
      %a = affine.load %A[%j] : memref<4000000xf64>
      %b = affine.load %x[%j] : memref<4000000xf64>
      %m = arith.mulf %a, %b : f64
      affine.yield %m : f64
    }
    %t = arith.addf %z, %s : f64
    affine.store %t, %y[0] : memref<1xf64>"""),
}


# The kernels whose input allows any order of a reduction's terms.
ORDER_FREE = {"gemv_par", "rowsum_par", "dot_par"}


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


# ONNX Runtime's operator for a kernel, where it has one: (op type,
# attributes, the kernel's inputs it takes).
ORT_OPS = {
    "rowsum": ("ReduceSum", {"keepdims": 0}, ["A"]),
    "rowmax": ("ReduceMax", {"keepdims": 0, "axes": [1]}, ["A"]),
    "softmax": ("Softmax", {"axis": -1}, ["A"]),
    "layernorm": ("LayerNormalization", {"axis": -1, "epsilon": 1e-5}, ["A", "scale", "bias"]),
}

# ONNX Runtime's helper, run by the ML bench's virtual environment's
# python (bench/ml/run.py: numpy, onnx and onnxruntime from PyPI): one line
# of JSON in (the operators), then per line `NAME SECONDS` the median of
# that operator's calls for about SECONDS, in seconds.
ORT_HELPER = r"""
import json, statistics, sys, time
import numpy as np
import onnx, onnxruntime as ort
from onnx import helper, TensorProto
spec = json.loads(sys.stdin.readline())
sessions = {}
for name, (op, attrs, ins, shapes) in spec["ops"].items():
    feeds = {n: (np.arange(np.prod(shapes[n])) * 37 % 97 / 97.0).astype(np.float32).reshape(shapes[n]) for n in ins}
    extra = []
    if op == "ReduceSum":
        feeds["axes"] = np.array([1], dtype=np.int64)
    names = list(feeds)
    node = helper.make_node(op, names, ["Y"], **attrs)
    vi = [helper.make_tensor_value_info(n, TensorProto.INT64 if n == "axes" else TensorProto.FLOAT,
                                        list(feeds[n].shape)) for n in names]
    model = helper.make_model(helper.make_graph([node], "g", vi, [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)]),
                              opset_imports=[helper.make_opsetid("", 17)])
    so = ort.SessionOptions()
    so.intra_op_num_threads = spec["threads"]
    so.inter_op_num_threads = 1
    sess = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
    sess.run(None, feeds)
    sessions[name] = (sess, feeds)
print(json.dumps({"version": ort.__version__}), flush=True)
for line in sys.stdin:
    name, seconds = line.split()
    sess, feeds = sessions[name]
    times = []
    while len(times) < 5 or (sum(times) < float(seconds) and len(times) < 500):
        t0 = time.perf_counter(); sess.run(None, feeds); times.append(time.perf_counter() - t0)
    time.sleep(0.5)
    print(json.dumps(statistics.median(times)), flush=True)
"""


def traffic(name):
    """The bytes a kernel must move at least: each input read once, the
    output written once."""
    ty, ins, out, _ = KERNELS[name]
    total = 0
    for _, shape in ins + [out]:
        size = 1
        for d in shape:
            size *= d
        total += size * (8 if ty == "f64" else 4)
    return total


def bandwidth(nbytes, threads):
    """bench/bandwidth.c's read bandwidth for NBYTES rewritten before each
    pass (as each timed run of @main fills its arrays before the kernel),
    GB/s on THREADS threads (None without gcc)."""
    exe = os.path.join(tempfile.gettempdir(), "polyrs-bandwidth")
    try:
        if not os.path.exists(exe):
            subprocess.run(["gcc", "-O3", "-march=native", "-fopenmp", os.path.join(HERE, "bandwidth.c"),
                            "-o", exe], check=True, capture_output=True)
        p = subprocess.run([exe, str(max(nbytes, 256)), "rewrite"], capture_output=True, text=True, check=True,
                           env=dict(os.environ, OMP_NUM_THREADS=str(threads)))
    except (OSError, subprocess.CalledProcessError):
        return None
    m = re.search(r"([0-9.]+) GB/s", p.stdout)
    return float(m.group(1)) if m else None


def ort_helper(names, threads):
    """ONNX Runtime's helper process for the kernels of NAMES it has an
    operator for (None, with the reason, where it cannot start)."""
    import json
    chosen = {}
    for n in names:
        if n in ORT_OPS:
            op, attrs, ins = ORT_OPS[n]
            shapes = {k: list(v) for k, v in KERNELS[n][1]}
            chosen[n] = (op, attrs, ins, shapes)
    if not chosen:
        return None, "no kernel with an ONNX Runtime operator"
    try:
        py = ml_run.venv_python()
    except (OSError, subprocess.CalledProcessError) as e:
        return None, "no virtual environment with onnxruntime: %s" % e
    helper = subprocess.Popen([py, "-c", ORT_HELPER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    helper.stdin.write(json.dumps({"ops": chosen, "threads": threads}) + "\n")
    helper.stdin.flush()
    line = helper.stdout.readline()
    if not line:
        return None, "ONNX Runtime's helper failed: " + helper.stderr.read()[-300:]
    return helper, json.loads(line)["version"]


def ort_time(helper, name, seconds):
    import json
    helper.stdin.write("%s %g\n" % (name, seconds))
    helper.stdin.flush()
    return json.loads(helper.stdout.readline())


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--min-time", type=float, default=1.0)
    ap.add_argument("--bin-dir", default=os.path.join(ROOT, "target", "release"))
    ap.add_argument("--no-ort", action="store_true", help="skip ONNX Runtime")
    ap.add_argument("--runner-options", default="",
                    help="more polyrs-runner options for every run (e.g. --no-range-minmax)")
    ap.add_argument("names", nargs="*")
    args = ap.parse_args()
    opt = os.path.join(args.bin_dir, "polyrs-opt")
    runner = os.path.join(args.bin_dir, "polyrs-runner")
    names = args.names or list(KERNELS)
    helper, version = (None, "not run (--no-ort)") if args.no_ort else ort_helper(names, args.threads)
    print("CPU: %s; %d threads; ONNX Runtime %s" % (ml_run.cpu_model(), args.threads, version))
    print()
    bad = 0
    print("| kernel | MB moved | input ms | poly-opt ms | speed-up | reassociate=true ms | speed-up | "
          "best GB/s | bandwidth.c GB/s | fraction | ONNX Runtime ms | poly-opt's remark (reassociate=true) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    tol = {"f64": 1e-12, "f32": 1e-5}
    for name in names:
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
                                "--threads=%d" % args.threads, "--reuse-memory"]
                               + args.runner_options.split(),
                               input=variant, capture_output=True, text=True)
            m = TIME_RE.search(r.stderr)
            if r.returncode != 0 or not m:
                sys.exit("polyrs-runner failed on %s:\n%s" % (name, r.stderr))
            # Per run of @main (their number follows --min-time): the exact
            # checksum, the sum and the sum of magnitudes.
            words = r.stdout.split()
            runs = {tuple(words[k:k + 3]) for k in range(0, len(words), 3)}
            res.append((float(m.group(4)), runs))
        ort_ms = ort_time(helper, name, args.min_time) * 1e3 if helper and name in ORT_OPS else None
        (t0, r0), (t1, r1), (t2, r2) = res

        def close(ra, rb):
            # Every run's checksum equal, or its sum within the tolerance.
            t = tol[KERNELS[name][0]]
            return all(ca == cb or abs(float(sa) - float(sb)) <= t * float(aa)
                       for (ca, sa, aa) in ra for (cb, sb, _) in rb)
        # An affine.parallel reduction allows any order of its terms: the
        # input's own runs (an OpenMP reduction) and poly-opt's may group
        # them otherwise.
        exact = close(r0, r1) if name in ORDER_FREE else len(r0) == 1 and r0 == r1
        same2 = (len(r2) == 1 and len(r0) == 1 or name in ORDER_FREE) and close(r0, r2)
        bad += not (exact and same2)
        moved = traffic(name)
        best = min(t0, t1, t2)
        bw = bandwidth(moved, args.threads)
        gbs = moved / best / 1e9
        short = re.sub(r"; target .*", "", remarks[1])
        print("| %s | %.1f | %.3f | %.3f | %.2fx | %.3f | %.2fx | %.1f | %s | %s | %s | %s%s |" % (
            name, moved / 1e6, t0 * 1e3, t1 * 1e3, t0 / t1, t2 * 1e3, t0 / t2, gbs,
            "%.1f" % bw if bw else "-", "%.0f %%" % (100 * gbs / bw) if bw else "-",
            "%.3f" % ort_ms if ort_ms is not None else "-", short[:160],
            "" if exact and same2 else " **RESULTS DIFFER**"), flush=True)
    if helper:
        helper.stdin.close()
        helper.wait()
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
