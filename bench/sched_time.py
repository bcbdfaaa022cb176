#!/usr/bin/env python3
"""Compile-time benchmark of the scheduler: dependence analysis + Pluto-style
scheduling + legality check, per SCoP, as reported by poly-print-schedule.

For each PolyBench kernel (part 1) and for synthetic producer-consumer chains
of loop nests of growing size (part 2), runs
  polyrs-opt FILE.mlir --mlir-disable-threading -o /dev/null \\
      --pass-pipeline='builtin.module(func.func(poly-print-schedule{stats=true}))'
RUNS times and takes the median of each `time:` field of the @kernel_* block
(the @init_* functions are not reported). For the kernels it also times the whole
`poly-opt` transformation (analysis, scheduling, tiling and the other plan steps, the
independent legality check of the final tiled schedule, code generation) on a module
holding only the @kernel_* function: the wall time of the pass in `--mlir-timing`. A SCoP that is not scheduled (a
`remark:` or an error), a crash or a timeout is reported as a failure.
Writes a Markdown document to OUT (default docs/schedule-time.md) and prints it.

Usage: bench/sched_time.py [--size LARGE] [--runs 5] [--only KERNEL...] [--skip-synthetic]
                           [--bin-dir target/release] [--out docs/schedule-time.md]
"""
import argparse
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from difftest import KERNELS  # noqa: E402

PIPELINE = "builtin.module(func.func(poly-print-schedule{stats=true}))"
TIMEOUT = 120  # seconds per polyrs-opt run

HEAD = re.compile(r"^schedule @(\S+) at (\S+)$")
STMT = re.compile(r"^  (?:\[[^\]]*\] -> )?\{ S")
STATS = re.compile(r"^  stats: (\d+) dependences \((\d+) distinct\), (\d+) Farkas rows, (\d+) ILPs, "
                   r"largest (\d+) unknowns x (\d+) constraints$")
TIME = re.compile(r"^  time: dependences ([0-9.]+) ms, scheduling ([0-9.]+) ms \(Farkas ([0-9.]+), "
                  r"ILP ([0-9.]+), classification ([0-9.]+)\), legality check ([0-9.]+) ms$")
DIAG = re.compile(r"^(.*?):(\d+):(\d+): (remark|error|warning): (.*)$")
FUNC = re.compile(r"^\s*func\.func\s+(?:private\s+)?@([A-Za-z0-9_$.]+)")
TIME_FIELDS = ("deps", "sched", "farkas", "ilp", "classif", "check")
# `--mlir-timing` line of the func.func pipeline that holds poly-opt alone.
# With --mlir-disable-threading only the wall-time column is printed.
PIPE_TIME = re.compile(r"^\s*(?:[0-9.]+ \(\s*[0-9.]+%\)\s+)?([0-9.]+) \(\s*[0-9.]+%\)\s+'func\.func' Pipeline$")

# Synthetic sizes: statement counts at depth SYN_DEPTH, depths at SYN_STMTS statements.
SYN_STMT_COUNTS = (10, 20, 40, 80)
SYN_DEPTH = 2
SYN_DEPTHS = (1, 2, 3, 4, 5)
SYN_STMTS = 10
SYN_N = 66  # array extent per dimension; loops run over 1 .. SYN_N - 2


def func_lines(path):
    """[(first line, function name)] of the func.func definitions of an MLIR file."""
    out = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            m = FUNC.match(line)
            if m:
                out.append((n, m.group(1)))
    return out


def func_at(funcs, line):
    name = None
    for first, f in funcs:
        if first <= line:
            name = f
    return name


def run_once(opt, path, funcs):
    """One polyrs-opt run. Returns (blocks, failure): blocks is a list of dicts, one per
    scheduled @kernel_* SCoP; failure is None or a one-line description."""
    try:
        p = subprocess.run([opt, path, "--mlir-disable-threading", "-o", "/dev/null",
                            "--pass-pipeline=" + PIPELINE], capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return [], "timeout (> %d s)" % TIMEOUT
    blocks, problems, cur = [], [], None
    for line in p.stderr.splitlines():
        m = HEAD.match(line)
        if m:
            cur = {"func": m.group(1), "stmts": 0} if m.group(1).startswith("kernel_") else None
            if cur is not None:
                blocks.append(cur)
            continue
        m = DIAG.match(line)
        if m:
            cur = None
            fn = func_at(funcs, int(m.group(2)))
            if fn is None or fn.startswith("kernel_"):
                problems.append("%s: %s" % (m.group(4), m.group(5)))
            continue
        if not line.startswith("  "):
            cur = None
        if cur is None:
            continue
        if STMT.match(line):
            cur["stmts"] += 1
        elif STATS.match(line):
            g = [int(x) for x in STATS.match(line).groups()]
            cur.update(deps=g[0], distinct=g[1], farkas_rows=g[2], ilps=g[3], unknowns=g[4], constraints=g[5])
        elif TIME.match(line):
            cur.update(zip(("t_" + f for f in TIME_FIELDS), (float(x) for x in TIME.match(line).groups())))
    if p.returncode != 0:
        last = [l for l in p.stderr.splitlines() if l.strip()]
        problems.append("exit status %d%s" % (p.returncode, (": " + last[-1]) if last and not problems else ""))
    if problems:
        return blocks, problems[0]
    if not blocks:
        return blocks, "no `schedule @kernel_...` block printed"
    if any("t_sched" not in b or "deps" not in b for b in blocks):
        return blocks, "could not parse the stats/time lines"
    return blocks, None


def measure(opt, path, runs):
    """Median over RUNS runs. Returns a dict (statistics of the kernel's SCoPs, summed over
    SCoPs if there are several; times are medians) or a dict with 'fail'."""
    funcs = func_lines(path)
    samples = []
    for _ in range(runs):
        blocks, fail = run_once(opt, path, funcs)
        if fail:
            return {"fail": fail}
        samples.append(blocks)
    first = samples[0]
    r = {"scops": len(first), "stmts": sum(b["stmts"] for b in first), "deps": sum(b["deps"] for b in first),
         "ilps": sum(b["ilps"] for b in first),
         "largest": max((b["unknowns"], b["constraints"]) for b in first)}
    for f in TIME_FIELDS:
        r["ms_" + f] = statistics.median(sum(b["t_" + f] for b in s) for s in samples)
    return r


def kernel_module(path):
    """The text of a module holding only the @kernel_* function of a generated PolyBench file."""
    with open(path) as f:
        lines = f.read().splitlines()
    funcs = func_lines(path)
    for k, (first, name) in enumerate(funcs):
        if name.startswith("kernel_"):
            end = funcs[k + 1][0] - 1 if k + 1 < len(funcs) else len(lines) - 1
            body = lines[first - 1:end]
            while body and not body[-1].strip():
                body.pop()
            return "\n".join(["module {"] + body + ["}", ""])
    return None


def polyopt_ms(opt, path, runs):
    """Median wall time (ms) of poly-opt on the module at PATH, or a failure string. The
    pass must report `legality verified` for every SCoP it transforms."""
    times = []
    for _ in range(runs):
        try:
            p = subprocess.run([opt, path, "--mlir-disable-threading", "--mlir-timing", "-o", "/dev/null",
                                "--pass-pipeline=builtin.module(func.func(poly-opt))"],
                               capture_output=True, text=True, timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            return "timeout (> %d s)" % TIMEOUT
        if p.returncode != 0:
            return "exit status %d" % p.returncode
        remarks = [l for l in p.stderr.splitlines() if "remark: poly-opt:" in l
                   and "not optimized" not in l and "left unchanged" not in l]
        if any("legality verified" not in l for l in remarks):
            return "a transformed SCoP without `legality verified`"
        t = [float(m.group(1)) for m in map(PIPE_TIME.match, p.stderr.splitlines()) if m]
        if len(t) != 1:
            return "no pass time in --mlir-timing output"
        times.append(t[0] * 1000.0)
    return statistics.median(times)


def fmt_largest(r):
    return "%d x %d" % r["largest"]


def fmt_stmts(r):
    return "%d" % r["stmts"] if r["scops"] == 1 else "%d (%d SCoPs, summed)" % (r["stmts"], r["scops"])


def fmt_sched(r):
    return "%.2f (%.2f / %.2f / %.2f)" % (r["ms_sched"], r["ms_farkas"], r["ms_ilp"], r["ms_classif"])


def fmt_polyopt(r):
    v = r["polyopt"]
    return "%.1f" % v if isinstance(v, float) else "**failed**: " + esc(v)


def esc(s):
    return s.replace("|", "\\|")


# --------------------------------------------------------------------------
# Synthetic SCoPs
# --------------------------------------------------------------------------

def synthetic(nstmts, depth):
    """One function @kernel_chain with NSTMTS loop nests of depth DEPTH over constant bounds.
    Nest k (1..NSTMTS) writes A_k from A_{k-1} at two neighbouring points (offset -1 along
    dimension k mod depth, +1 along the next one) and from A_{k-2} at the same point."""
    ty = "memref<%sxf64>" % "x".join([str(SYN_N)] * depth)
    args = ", ".join("%%A%d: %s" % (k, ty) for k in range(nstmts + 1))
    out = ["module {", "  func.func @kernel_chain(%s) {" % args]
    for k in range(1, nstmts + 1):
        ivs = ["%%i%d_%d" % (k, l) for l in range(depth)]
        ind = "    "
        for iv in ivs:
            out.append("%saffine.for %s = 1 to %d {" % (ind, iv, SYN_N - 1))
            ind += "  "
        t = k % depth
        u = (t + 1) % depth

        def at(dim, off):
            return ", ".join(iv if l != dim else "%s %s %d" % (iv, "-" if off < 0 else "+", abs(off))
                             for l, iv in enumerate(ivs))
        out.append("%s%%a%d = affine.load %%A%d[%s] : %s" % (ind, k, k - 1, at(t, -1), ty))
        out.append("%s%%b%d = affine.load %%A%d[%s] : %s" % (ind, k, k - 1, at(u, 1), ty))
        out.append("%s%%s%d = arith.addf %%a%d, %%b%d : f64" % (ind, k, k, k))
        res = "%%s%d" % k
        if k >= 2:
            out.append("%s%%c%d = affine.load %%A%d[%s] : %s" % (ind, k, k - 2, ", ".join(ivs), ty))
            out.append("%s%%t%d = arith.mulf %%s%d, %%c%d : f64" % (ind, k, k, k))
            res = "%%t%d" % k
        out.append("%saffine.store %s, %%A%d[%s] : %s" % (ind, res, k, ", ".join(ivs), ty))
        for _ in ivs:
            ind = ind[:-2]
            out.append(ind + "}")
    out += ["    return", "  }", "}", ""]
    return "\n".join(out)


def parses(mlir_opt, path):
    if not mlir_opt:
        return None
    try:
        p = subprocess.run([mlir_opt, path], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                           timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return "mlir-opt timed out"
    if p.returncode != 0:
        first = next((l for l in p.stderr.splitlines() if l.strip()), "")
        return "does not parse with mlir-opt: " + first
    return None


def growth(points):
    """Step ratios between consecutive successful points [(x, ms or None)]."""
    steps = []
    for (x0, t0), (x1, t1) in zip(points, points[1:]):
        if t0 is None or t1 is None or t0 <= 0:
            continue
        steps.append((x0, x1, t1 / t0))
    return steps


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", default="LARGE")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--bin-dir", default=os.path.join(ROOT, "target", "release"))
    ap.add_argument("--mlir-opt", default=os.path.join(os.environ.get("LLVM_BIN", "/usr/lib/llvm-22/bin"), "mlir-opt"),
                    help="used to check that the synthetic files parse")
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "schedule-time.md"))
    ap.add_argument("--only", nargs="+", metavar="KERNEL", help="restrict part 1 to these kernels")
    ap.add_argument("--skip-synthetic", action="store_true")
    args = ap.parse_args()
    if args.runs < 1:
        ap.error("--runs must be at least 1")
    kernels = args.only or KERNELS
    bad = [k for k in kernels if k not in KERNELS]
    if bad:
        ap.error("unknown kernel(s): %s" % ", ".join(bad))
    opt = os.path.join(args.bin_dir, "polyrs-opt")
    mlir_opt = args.mlir_opt if os.access(args.mlir_opt, os.X_OK) else None
    if not args.skip_synthetic and not mlir_opt:
        print("warning: %s not found, the synthetic files are not checked with mlir-opt" % args.mlir_opt,
              file=sys.stderr)

    rows, syn = [], {}
    with tempfile.TemporaryDirectory() as work:
        subprocess.run([sys.executable, os.path.join(HERE, "polybench", "gen.py"), "--size", args.size,
                        "--out", work] + list(kernels), check=True)
        for k in kernels:
            r = measure(opt, os.path.join(work, k + ".mlir"), args.runs)
            if "fail" not in r:
                kpath = os.path.join(work, k + ".kernel.mlir")
                with open(kpath, "w") as f:
                    f.write(kernel_module(os.path.join(work, k + ".mlir")))
                r["polyopt"] = polyopt_ms(opt, kpath, args.runs)
            rows.append((k, r))
            if "fail" in r:
                print("%-16s FAILED: %s" % (k, r["fail"]), file=sys.stderr, flush=True)
            else:
                print("%-16s %3d statements %4d deps %2d ILPs %9s  deps %7.2f sched %7.2f check %7.2f ms  poly-opt %s"
                      % (k, r["stmts"], r["deps"], r["ilps"], fmt_largest(r), r["ms_deps"], r["ms_sched"],
                         r["ms_check"], fmt_polyopt(r)), file=sys.stderr, flush=True)
        if not args.skip_synthetic:
            sizes = [(s, SYN_DEPTH) for s in SYN_STMT_COUNTS] + [(SYN_STMTS, d) for d in SYN_DEPTHS]
            for s, d in sizes:
                if (s, d) in syn:
                    continue
                path = os.path.join(work, "chain_s%d_d%d.mlir" % (s, d))
                with open(path, "w") as f:
                    f.write(synthetic(s, d))
                fail = parses(mlir_opt, path)
                r = {"fail": fail} if fail else measure(opt, path, args.runs)
                syn[(s, d)] = r
                if "fail" in r:
                    print("chain S=%-3d d=%d  FAILED: %s" % (s, d, r["fail"]), file=sys.stderr, flush=True)
                else:
                    print("chain S=%-3d d=%d  %4d deps %2d ILPs %11s  sched %8.2f ms"
                          % (s, d, r["deps"], r["ilps"], fmt_largest(r), r["ms_sched"]), file=sys.stderr, flush=True)

    cmd = "python3 bench/sched_time.py --size %s --runs %d" % (args.size, args.runs)
    if args.only:
        cmd += " --only " + " ".join(args.only)
    if args.skip_synthetic:
        cmd += " --skip-synthetic"
    md = ["# Schedule time", "",
          "Generated by `%s`: the `time:` and `stats:` lines of `poly-print-schedule{stats=true}` "
          "(`polyrs-opt FILE.mlir --mlir-disable-threading -o /dev/null "
          "--pass-pipeline='builtin.module(func.func(poly-print-schedule{stats=true}))'`) for the `@kernel_*` "
          "function only (not its init function): exact dependence analysis, Pluto-style scheduling (Farkas "
          "elimination, the ILPs, and the classification of the dimensions) and the legality check of the "
          "result; each time is the median of %d run%s, release build, one thread, timeout %d s per run. "
          "The last column is the whole `poly-opt` transformation of the kernel with its default options "
          "(analysis, scheduling, tiling and the other plan steps, the independent legality check of the "
          "final tiled schedule, code generation): the wall time of the pass in `--mlir-timing` on a module "
          "holding only the `@kernel_*` function."
          % (cmd, args.runs, "" if args.runs == 1 else "s", TIMEOUT), "",
          "## PolyBench (%s)" % args.size, "",
          "| kernel | statements | dependences | ILPs | largest ILP (unknowns x constraints) | dependence analysis (ms) "
          "| scheduling (ms) (Farkas / ILP / classification) | legality check (ms) | poly-opt (ms) |",
          "|---|---|---|---|---|---|---|---|---|"]
    for k, r in rows:
        if "fail" in r:
            md.append("| %s | **failed**: %s | | | | | | | |" % (k, esc(r["fail"])))
        else:
            md.append("| %s | %s | %d | %d | %s | %.2f | %s | %.2f | %s |"
                      % (k, fmt_stmts(r), r["deps"], r["ilps"], fmt_largest(r), r["ms_deps"], fmt_sched(r), r["ms_check"],
                         fmt_polyopt(r)))
    ok = [(k, r) for k, r in rows if "fail" not in r]
    failed = [k for k, r in rows if "fail" in r]
    summary = "Scheduling time: %d of %d kernels under 10 ms, %d under 100 ms" % (
        sum(1 for _, r in ok if r["ms_sched"] < 10), len(rows), sum(1 for _, r in ok if r["ms_sched"] < 100))
    if ok:
        km, rm = max(ok, key=lambda kr: kr[1]["ms_sched"])
        kt, rt = max(ok, key=lambda kr: kr[1]["ms_deps"] + kr[1]["ms_sched"] + kr[1]["ms_check"])
        summary += "; maximum %.2f ms (%s). Dependence analysis + scheduling + legality check: maximum %.2f ms (%s)" % (
            rm["ms_sched"], km, rt["ms_deps"] + rt["ms_sched"] + rt["ms_check"], kt)
    whole = [(k, r["polyopt"]) for k, r in ok if isinstance(r["polyopt"], float)]
    if whole:
        kw, tw = max(whole, key=lambda kt: kt[1])
        summary += ". Whole poly-opt transformation: %d of %d kernels under 100 ms, maximum %.1f ms (%s)" % (
            sum(1 for _, t in whole if t < 100), len(rows), tw, kw)
    bad_opt = [k for k, r in ok if not isinstance(r["polyopt"], float)]
    if bad_opt:
        summary += ". poly-opt failed on: %s" % ", ".join(bad_opt)
    if failed:
        summary += ". Not scheduled: %s" % ", ".join(failed)
    md += ["", summary + ".", ""]

    if not args.skip_synthetic:
        md += ["## Scaling on synthetic SCoPs", "",
               "One function `@kernel_chain` with S loop nests of depth d in sequence (one SCoP), each over "
               "constant bounds `1 to %d`; nest k reads `A_{k-1}` at two neighbouring points (offset -1 along one "
               "dimension, +1 along the next) and `A_{k-2}` at the same point, and writes `A_k` "
               "(`memref<%s...xf64>` arguments), so consecutive nests are linked by producer-consumer "
               "dependences. Every file is checked to parse with `%s`. Rows 1-4 vary S at d = %d, "
               "rows 5-9 vary d at S = %d."
               % (SYN_N - 1, "%dx" % SYN_N, "mlir-opt" if mlir_opt else "mlir-opt (not found: unchecked)",
                  SYN_DEPTH, SYN_STMTS), "",
               "| statements | depth | dependences | ILPs | largest ILP (unknowns x constraints) | scheduling (ms) |",
               "|---|---|---|---|---|---|"]
        order = [(s, SYN_DEPTH) for s in SYN_STMT_COUNTS] + [(SYN_STMTS, d) for d in SYN_DEPTHS]
        for s, d in order:
            r = syn[(s, d)]
            if "fail" in r:
                md.append("| %d | %d | **failed**: %s | | | |" % (s, d, esc(r["fail"])))
            else:
                # the statement count is the one the scheduler printed
                md.append("| %s | %d | %d | %d | %s | %.2f |" % (fmt_stmts(r), d, r["deps"], r["ilps"], fmt_largest(r),
                                                                  r["ms_sched"]))
        sched = lambda key: syn[key]["ms_sched"] if "fail" not in syn[key] else None  # noqa: E731
        steps = growth([(s, sched((s, SYN_DEPTH))) for s in SYN_STMT_COUNTS])
        if steps:
            exps = [math.log(q, x1 / x0) if q > 0 else float("nan") for x0, x1, q in steps]
            s1 = ("Doubling the statement count multiplies the scheduling time by %s, i.e. time grows like "
                  "S^%.1f to S^%.1f over this range" % (
                      ", ".join("%.1fx (%d to %d)" % (q, x0, x1) for x0, x1, q in steps), min(exps), max(exps)))
            lo, hi = SYN_STMT_COUNTS[0], SYN_STMT_COUNTS[-1]
            if sched((lo, SYN_DEPTH)) and sched((hi, SYN_DEPTH)):
                q = sched((hi, SYN_DEPTH)) / sched((lo, SYN_DEPTH))
                s1 += " (%.1fx from %d to %d statements, S^%.1f overall)" % (q, lo, hi, math.log(q, hi / lo))
            s1 += "."
        else:
            s1 = "The statement-count growth cannot be computed: fewer than two consecutive sizes were scheduled."
        steps = growth([(d, sched((SYN_STMTS, d))) for d in SYN_DEPTHS])
        if steps:
            d0, d1 = SYN_DEPTHS[0], SYN_DEPTHS[-1]
            s2 = "Each extra loop level multiplies it by %s" % ", ".join(
                "%.1fx (%d to %d)" % (q, x0, x1) for x0, x1, q in steps)
            if sched((SYN_STMTS, d0)) and sched((SYN_STMTS, d1)):
                s2 += ", %.1fx from depth %d to depth %d at %d statements" % (
                    sched((SYN_STMTS, d1)) / sched((SYN_STMTS, d0)), d0, d1, SYN_STMTS)
            s2 += "."
        else:
            s2 = "The depth growth cannot be computed: fewer than two consecutive depths were scheduled."
        md += ["", s1 + " " + s2, ""]

    text = "\n".join(md)
    with open(args.out, "w") as f:
        f.write(text)
    print(text)
    print("wrote", args.out, file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
