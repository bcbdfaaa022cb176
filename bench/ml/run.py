"""The ML operator suite (bench/ml/ops.py), checked and timed.

For each operator, in one run on this machine:

* the module as a user's pipeline gives it: linalg lowered by upstream's
  `convert-linalg-to-affine-loops` (the plain lowering), then
  `poly-opt` with the defaults and with `contract=true`;
* each run by `polyrs-runner --threads=T --reuse-memory --time=op`
  (median of the timed calls), in rounds: every variant and ONNX Runtime
  in turn, `--rounds` times, the time the median of the rounds' (a slow
  phase of a shared machine then falls on all of them);
* checked: poly-opt's output bit for bit against the plain lowering's (the
  exact checksum), and every variant's checksum against an independent
  numpy reference computed in f64 from the same inputs (relative to the
  sum of the output's magnitudes: 1e-4 for f32, 1e-9 for f64);
* beside ONNX Runtime (CPU provider, `intra_op_num_threads=T`) on the same
  operator in its own layout (a convolution as NCHW `Conv`, a depthwise one
  with `group`, poolings as `MaxPool`/`AveragePool`, contractions as
  `MatMul`/`Einsum`).

numpy, onnx and onnxruntime come from PyPI into a virtual environment of
the bench's own (target/ml-venv, made on first use); the tests need none of
them (`--no-reference --no-ort` runs without).

    python3 bench/ml/run.py [--scale full|small] [--threads 2] [--report docs/benchmarks-ml.md] [names...]
"""

import argparse
import math
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import ops  # noqa: E402

TIME_RE = re.compile(r"time (\S+) calls=(\d+) min=([0-9.]+)s median=([0-9.]+)s")
VENV = os.path.join(ROOT, "target", "ml-venv")
PACKAGES = ["numpy", "onnx", "onnxruntime"]


def venv_python():
    """The bench's virtual environment's python, made on first use."""
    py = os.path.join(VENV, "bin", "python3")
    if not os.path.exists(py):
        subprocess.run([sys.executable, "-m", "venv", VENV], check=True)
        subprocess.run([py, "-m", "pip", "install", "--quiet"] + PACKAGES, check=True)
    return py


def cpu_model():
    """The CPU's name with its family and model numbers (a VM may show only
    the name) and its widest vector ISA."""
    info = {}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                k, _, v = line.partition(":")
                info.setdefault(k.strip(), v.strip())
    except OSError:
        return platform.processor() or "unknown"
    flags = info.get("flags", "").split()
    isa = "AVX-512" if "avx512f" in flags else "AVX2" if "avx2" in flags else "SSE"
    return "%s (family %s, model %s, %s)" % (info.get("model name", "unknown"), info.get("cpu family", "?"),
                                              info.get("model", "?"), isa)


def opt(bin_dir, path, args):
    p = subprocess.run([os.path.join(bin_dir, "polyrs-opt"), path] + args, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("polyrs-opt: " + (p.stderr.strip().splitlines() or ["failed"])[-1])
    remark = [ln for ln in p.stderr.splitlines() if "remark: poly-opt" in ln]
    return p.stdout, remark


# More polyrs-runner options for every run (--runner-options).
RUNNER_OPTIONS = []


def run(bin_dir, text, threads, runs, min_time):
    """(median seconds, exact checksum, f64 checksum) of a module."""
    p = subprocess.run([os.path.join(bin_dir, "polyrs-runner"), "-", "--time=op", "--repeat=%d" % runs,
                        "--min-time=%g" % min_time, "--threads=%d" % threads, "--reuse-memory"]
                       + RUNNER_OPTIONS,
                       input=text, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("polyrs-runner: " + (p.stderr.strip().splitlines() or ["failed"])[-1])
    m = TIME_RE.search(p.stderr)
    out = p.stdout.split()
    if not m or len(out) < 2:
        raise RuntimeError("no timing or checksum in the runner's output")
    exact = set(out[0::2])
    return float(m.group(4)), (exact.pop() if len(exact) == 1 else "inconsistent"), float(out[1])


# The helper run in the virtual environment: per operator, the numpy
# reference's checksums and ONNX Runtime's median time.
HELPER = r'''
import json, sys, time, statistics
import numpy as np
spec = json.loads(sys.stdin.readline())
out = {}
def inputs(o):
    t = np.float32 if o["ty"] == "f32" else np.float64
    arrs = []
    for i, (_, shape) in enumerate(o["ins"]):
        n = int(np.prod(shape))
        k = np.arange(n, dtype=np.int64)
        r = ((k * 37 + 11 + 3 * i) % 97).astype(t)
        arrs.append((r / t(97) - t(0.5)).astype(t).reshape(shape))
    return arrs
def reference(o, a):
    x = [v.astype(np.float64) for v in a]
    p = o["params"]; kind = o["kind"]; shape = o["out"]
    if kind == "einsum":
        return np.einsum(p["einsum"], x[0], x[1])
    k, s = p.get("k"), p.get("s")
    res = np.full(shape, -np.inf if kind == "pool_max" else 0.0)
    if kind in ("conv_nhwc", "depthwise", "pool_max", "pool_sum"):
        oh, ow = shape[1], shape[2]
    else:
        oh, ow = shape[2], shape[3]
    for kh in range(k):
        for kw in range(k):
            if kind == "conv_nchw":
                win = x[0][:, :, kh:kh + s * (oh - 1) + 1:s, kw:kw + s * (ow - 1) + 1:s]
                res += np.einsum("nchw,fc->nfhw", win, x[1][:, :, kh, kw])
                continue
            win = x[0][:, kh:kh + s * (oh - 1) + 1:s, kw:kw + s * (ow - 1) + 1:s, :]
            if kind == "conv_nhwc":
                res += np.einsum("nhwc,cf->nhwf", win, x[1][kh, kw])
            elif kind == "depthwise":
                res += win * x[1][kh, kw]
            elif kind == "pool_max":
                res = np.maximum(res, win)
            else:
                res += win
    return res
def ort_session(o, a, threads):
    """ONNX Runtime's session of the operator, run once, and its feeds."""
    import onnx, onnxruntime as ort
    from onnx import helper, TensorProto
    t = TensorProto.FLOAT if o["ty"] == "f32" else TensorProto.DOUBLE
    p = o["params"]; kind = o["kind"]
    feeds = {}
    if kind == "conv_nhwc":
        X = np.ascontiguousarray(a[0].transpose(0, 3, 1, 2)); W = np.ascontiguousarray(a[1].transpose(3, 2, 0, 1))
        node = helper.make_node("Conv", ["X", "W"], ["Y"], strides=[p["s"]] * 2)
        feeds = {"X": X, "W": W}
    elif kind == "conv_nchw":
        node = helper.make_node("Conv", ["X", "W"], ["Y"], strides=[p["s"]] * 2)
        feeds = {"X": a[0], "W": a[1]}
    elif kind == "depthwise":
        c = a[0].shape[3]
        X = np.ascontiguousarray(a[0].transpose(0, 3, 1, 2))
        W = np.ascontiguousarray(a[1].transpose(2, 0, 1)[:, None, :, :])
        node = helper.make_node("Conv", ["X", "W"], ["Y"], strides=[p["s"]] * 2, group=c)
        feeds = {"X": X, "W": W}
    elif kind in ("pool_max", "pool_sum"):
        X = np.ascontiguousarray(a[0].transpose(0, 3, 1, 2))
        op = "MaxPool" if kind == "pool_max" else "AveragePool"
        node = helper.make_node(op, ["X"], ["Y"], kernel_shape=[p["k"]] * 2, strides=[p["s"]] * 2)
        feeds = {"X": X}
    else:
        spec = p["einsum"]
        if spec in ("mk,kn->mn", "bmk,bkn->bmn"):
            node = helper.make_node("MatMul", ["X", "W"], ["Y"])
        else:
            node = helper.make_node("Einsum", ["X", "W"], ["Y"], equation=spec)
        feeds = {"X": a[0], "W": a[1]}
    ins = [helper.make_tensor_value_info(n, t, list(v.shape)) for n, v in feeds.items()]
    outv = helper.make_tensor_value_info("Y", t, None)
    model = helper.make_model(helper.make_graph([node], "g", ins, [outv]),
                              opset_imports=[helper.make_opsetid("", 17)])
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    sess = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
    sess.run(None, feeds)
    return sess, feeds, ort.__version__
def ort_time(sess, feeds, runs, min_time):
    """The median of at least `runs` calls adding up to `min_time` seconds
    (at most 200 calls), as polyrs-runner's `--repeat`/`--min-time`."""
    times = []
    while len(times) < runs or (sum(times) < min_time and len(times) < 200):
        t0 = time.perf_counter(); sess.run(None, feeds); times.append(time.perf_counter() - t0)
    return statistics.median(times)
sessions = {}
for o in spec["ops"]:
    a = inputs(o)
    r = {}
    if spec["reference"]:
        ref = reference(o, a).reshape(-1)
        w = (np.arange(ref.size) % 7 + 1).astype(np.float64)
        r["sum"] = float(np.sum(ref * w)); r["mag"] = float(np.sum(np.abs(ref) * w))
    if spec["ort"]:
        try:
            sessions[o["name"]] = ort_session(o, a, spec["threads"])
            r["ort_version"] = sessions[o["name"]][2]
        except Exception as e:  # an operator ONNX Runtime lacks (f64 Conv)
            r["ort_error"] = str(e).split(":")[-1].strip()[:80]
    out[o["name"]] = r
print(json.dumps(out), flush=True)
# Then, per line `NAME SECONDS`, one timing of that operator's session
# (the rounds of run.py interleave it with polyrs-runner's).
for line in sys.stdin:
    name, seconds = line.split()
    sess, feeds, _ = sessions[name]
    t = ort_time(sess, feeds, spec["runs"], float(seconds))
    # ONNX Runtime's threads spin a while after a run: let them stop
    # before polyrs-runner's timings go on.
    time.sleep(0.5)
    print(json.dumps(t), flush=True)
'''


def peak(threads):
    """bench/peak.c's f64 multiply-plus-add peak, GFLOP/s (None without gcc)."""
    exe = os.path.join(tempfile.gettempdir(), "polyrs-peak")
    try:
        subprocess.run(["gcc", "-O2", "-march=native", "-fopenmp", "-ffp-contract=off",
                        os.path.join(ROOT, "bench", "peak.c"), "-o", exe], check=True, capture_output=True)
        p = subprocess.run([exe], env=dict(os.environ, OMP_NUM_THREADS=str(threads)),
                           capture_output=True, text=True, check=True)
        m = re.search(r"([0-9.]+)\s*GFLOP/s", p.stdout)
        return float(m.group(1)) if m else None
    except (OSError, subprocess.CalledProcessError):
        return None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", choices=["small", "full"], default="full")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--min-time", type=float, default=0.5,
                    help="seconds of timed calls per variant, split over the rounds (default 0.5)")
    ap.add_argument("--rounds", type=int, default=3,
                    help="rounds of timings, each variant and ONNX Runtime in turn (default 3)")
    ap.add_argument("--bin-dir", default=os.path.join(ROOT, "target", "release"))
    ap.add_argument("--no-reference", action="store_true", help="skip the numpy reference")
    ap.add_argument("--no-ort", action="store_true", help="skip ONNX Runtime")
    ap.add_argument("--report", help="write the table as markdown to this file")
    ap.add_argument("--poly-options", default="", help="more poly-opt options (e.g. profitability=false)")
    ap.add_argument("--runner-options", default="",
                    help="more polyrs-runner options for every run (e.g. --no-range-minmax)")
    ap.add_argument("names", nargs="*")
    args = ap.parse_args()
    RUNNER_OPTIONS.extend(args.runner_options.split())
    chosen = [o for o in ops.suite(args.scale) if not args.names or o["name"] in args.names]
    import json
    extra = {}
    helper = None
    if not (args.no_reference and args.no_ort):
        py = venv_python()
        spec = {"ops": chosen, "reference": not args.no_reference, "ort": not args.no_ort,
                "threads": args.threads, "runs": args.runs}
        helper = subprocess.Popen([py, "-c", HELPER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
        helper.stdin.write(json.dumps(spec) + "\n")
        helper.stdin.flush()
        line = helper.stdout.readline()
        if not line:
            sys.exit("reference/ONNX Runtime helper failed:\n" + helper.stderr.read())
        extra = json.loads(line)

    def ort_round(name, seconds):
        """One timing of ONNX Runtime's session of `name` (the helper's)."""
        helper.stdin.write("%s %g\n" % (name, seconds))
        helper.stdin.flush()
        line = helper.stdout.readline()
        if not line:
            sys.exit("ONNX Runtime helper failed:\n" + helper.stderr.read())
        return json.loads(line)
    gflops_peak = peak(args.threads) if args.report else None
    rows = []
    bad = 0
    work = tempfile.mkdtemp(prefix="polyrs-ml-")
    for o in chosen:
        path = os.path.join(work, o["name"] + ".mlir")
        with open(path, "w") as f:
            f.write(ops.module(o))
        plain, _ = opt(args.bin_dir, path, ["--convert-linalg-to-affine-loops"])
        variants = {"plain": plain}
        remarks = {}
        more = (" " + args.poly_options) if args.poly_options else ""
        for name, options in [("poly", "threads=%d%s" % (args.threads, more)),
                              ("contract", "threads=%d contract=true%s" % (args.threads, more))]:
            variants[name], remarks[name] = opt(args.bin_dir, path, [
                "--convert-linalg-to-affine-loops", "--poly-opt=" + options])
        # Rounds: every variant and ONNX Runtime in turn, each for its share
        # of --min-time, so that a slow phase of the machine falls on all
        # of them; each one's time is the median of its rounds' medians.
        ref = extra.get(o["name"], {})
        with_ort = helper is not None and "ort_version" in ref
        share = args.min_time / args.rounds
        rounds = {k: [] for k in list(variants) + (["ort"] if with_ort else [])}
        for _ in range(args.rounds):
            for k, v in variants.items():
                rounds[k].append(run(args.bin_dir, v, args.threads, args.runs, share))
            if with_ort:
                rounds["ort"].append(ort_round(o["name"], share))
        res = {}
        checks = []
        for k in variants:
            sums = {(r[1], r[2]) for r in rounds[k]}
            if len(sums) > 1:
                checks.append("%s's checksums differ from round to round" % k)
            res[k] = (statistics.median(r[0] for r in rounds[k]),) + rounds[k][0][1:]
        if with_ort:
            ref["ort"] = statistics.median(rounds["ort"])
        if res["poly"][1] != res["plain"][1]:
            checks.append("poly-opt differs from the plain lowering")
        tol = 1e-4 if o["ty"] == "f32" else 1e-9
        if "sum" in ref:
            for k, (_, _, s) in res.items():
                if abs(s - ref["sum"]) > tol * max(ref["mag"], 1e-30):
                    checks.append("%s differs from the reference (%r against %r)" % (k, s, ref["sum"]))
        # Every parallel loop of constant bounds gives each thread an
        # iteration (issue 69).
        trips = [int(hi) - int(lo) for lo, hi in PARALLEL_RE.findall(variants["poly"])]
        few = [t for t in trips if t < args.threads]
        if few:
            checks.append("a parallel loop of %d iterations for %d threads" % (min(few), args.threads))
        bad += bool(checks)
        rem = remarks["poly"][0] if remarks["poly"] else ""
        m = re.search(r"(\d+) loops \((\d+) parallel\)", rem)
        target = re.search(r"; target (\S+)", rem)
        rows.append(dict(name=o["name"], ty=o["ty"], flops=o["flops"], kind=o["kind"],
                         target=target.group(1) if target else None,
                         par_trips=min(trips) if trips else None, plain=res["plain"][0],
                         poly=res["poly"][0], contract=res["contract"][0], ort=ref.get("ort"),
                         ort_version=ref.get("ort_version"), checks=checks,
                         loops=("%s (%s parallel)" % m.groups()) if m else "unchanged"))
        r = rows[-1]
        print("%-20s plain %9.3f ms  poly-opt %9.3f ms  contract %9.3f ms  ORT %s  %s%s" % (
            o["name"], r["plain"] * 1e3, r["poly"] * 1e3, r["contract"] * 1e3,
            ("%.3f ms" % (r["ort"] * 1e3)) if r["ort"] else "-", r["loops"],
            ("  CHECK: " + "; ".join(checks)) if checks else ""), flush=True)
    if args.report:
        write_report(args, rows, gflops_peak)
    sys.exit(1 if bad else 0)


def write_report(args, rows, gflops_peak):
    ver = next((r["ort_version"] for r in rows if r.get("ort_version")), None)
    lines = [
        "# The ML operator suite",
        "",
        "Generated by `python3 bench/ml/run.py --scale %s --threads %d --min-time %g --rounds %d%s --report %s` "
        "(one run, %s)." % (args.scale, args.threads, args.min_time, args.rounds,
                            (" --runner-options='%s'" % args.runner_options) if args.runner_options else "",
                            args.report, time.strftime("%Y-%m-%d")),
        "",
        "- CPU: %s, %d threads; poly-opt's target: %s; `polyrs-runner --threads=%d --reuse-memory`. "
        "Per operator, %d rounds of timed calls (%.2f s each), every variant and ONNX Runtime in turn; "
        "a time is the median of its rounds' medians." % (
            cpu_model(), args.threads, next((r["target"] for r in rows if r.get("target")), "host"),
            args.threads, args.rounds, args.min_time / args.rounds),
        "- Peak (bench/peak.c, f64 multiplies and adds, not fused): %s GFLOP/s; f32 has twice the lanes."
        % (("%.1f" % gflops_peak) if gflops_peak else "not measured"),
        "- ONNX Runtime %s, CPU provider, `intra_op_num_threads=%d`, the operator in its own layout "
        "(NCHW `Conv`, `group` for depthwise, `MaxPool`/`AveragePool`, `MatMul`/`Einsum`)." % (ver or "not run", args.threads),
        "- Every variant checked: poly-opt bit for bit against the plain lowering, and each against a numpy "
        "reference in f64 from the same inputs.",
        "",
        "| operator | type | GFLOP | plain ms | poly-opt ms | contract ms | ORT ms | poly-opt / plain | poly-opt / ORT | contract / ORT | contract GFLOP/s | of peak | loops (poly-opt) | fewest parallel iterations |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        gf = r["flops"] / 1e9
        # f32 has twice the lanes of the f64 peak.
        peak = gflops_peak * (2 if r["ty"] == "f32" else 1) if gflops_peak else None
        lines.append("| %s | %s | %.3f | %.3f | %.3f | %.3f | %s | %.2fx | %s | %s | %.1f | %s | %s | %s |" % (
            r["name"], r["ty"], gf, r["plain"] * 1e3, r["poly"] * 1e3, r["contract"] * 1e3,
            ("%.3f" % (r["ort"] * 1e3)) if r["ort"] else "-", r["plain"] / r["poly"],
            ("%.2fx" % (r["ort"] / r["poly"])) if r["ort"] else "-",
            ("%.2fx" % (r["ort"] / r["contract"])) if r["ort"] else "-", gf / r["contract"],
            ("%.0f %%" % (100 * gf / r["contract"] / peak)) if peak else "-", r["loops"],
            r["par_trips"] if r["par_trips"] is not None else "-"))
    lines += ["", "`poly-opt / plain` above 1: poly-opt is faster than the plain lowering; "
              "`/ ORT` above 1: faster than ONNX Runtime; `of peak`: the contract variant's "
              "GFLOP/s against the measured peak (twice the f64 peak for f32).", ""]
    # Issue 69's bars, from this run.
    compute = [r for r in rows if r["kind"] in COMPUTE_BOUND and r["ort"]]
    if compute:
        ratios = [r["ort"] / r["contract"] for r in compute]
        exact = [r["ort"] / r["poly"] for r in compute]
        geo = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
        lines += [
            "Compute-bound operators with an ONNX Runtime time (%d): `contract / ORT` geomean %.2fx, "
            "lowest %.2fx (%s); bit-exact `poly-opt / ORT` lowest %.2fx (%s)." % (
                len(compute), geo, min(ratios), compute[ratios.index(min(ratios))]["name"],
                min(exact), compute[exact.index(min(exact))]["name"]),
        ]
    memory = [r for r in rows if r["kind"] not in COMPUTE_BOUND and r["ort"]]
    if memory:
        exact = [r["ort"] / r["poly"] for r in memory]
        lines += [
            "Memory-bound operators with an ONNX Runtime time (%d): bit-exact `poly-opt / ORT` lowest %.2fx (%s)."
            % (len(memory), min(exact), memory[exact.index(min(exact))]["name"]),
        ]
    if rows:
        lines += [
            "Against the plain lowering: lowest `poly-opt / plain` %.2fx (%s)." % (
                min(r["plain"] / r["poly"] for r in rows),
                min(rows, key=lambda r: r["plain"] / r["poly"])["name"]),
            ""]
    # The analysis written by hand below the table is kept.
    kept = ""
    if os.path.exists(args.report):
        with open(args.report) as f:
            text = f.read()
        at = text.find(ANALYSIS)
        kept = text[at:] if at >= 0 else ""
    with open(args.report, "w") as f:
        f.write("\n".join(lines) + ("\n" + kept if kept else ""))


# The heading of the hand-written part of the report, which a new run keeps.
ANALYSIS = "## Reading the table"

# `affine.parallel` loops of constant bounds in poly-opt's output.
PARALLEL_RE = re.compile(r"affine\.parallel \([^)]*\) = \((-?\d+)\) to \((-?\d+)\)")

# The operators whose bar is ONNX Runtime's speed (issue 69): every
# convolution but depthwise, contractions and matmuls; the others (depthwise,
# poolings) are memory-bound.
COMPUTE_BOUND = ("conv_nhwc", "conv_nchw", "einsum")


if __name__ == "__main__":
    main()
