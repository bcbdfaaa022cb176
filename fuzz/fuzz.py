#!/usr/bin/env python3
"""The polyrs fuzzer: differential campaigns over random affine programs,
a shrinker for the failures, and a campaign of malformed inputs.

  fuzz.py run [--count N] [--start S] [--jobs J] [--time-budget SEC]
              [--options-set NAME ...] [--out DIR] [--shrink]
      Programs S, S+1, ... (fuzz/gen.py) each through one option set of
      `poly-opt` (rotating over OPTION_SETS by seed), compared bit for bit
      with the untransformed program. Each case is classified:
        ok            same results, every SCoP transformed
        unchanged     same results, some SCoP left unchanged (the remark's
                      reason is recorded; BY_DESIGN reasons are counted apart)
        close         with contract=true or reassociate=true, other results
                      on a program whose arithmetic rounds (fused
                      multiply-adds and other groupings of a reduction's
                      terms change them; see OPTION_SETS), every cell within
                      the error bound of gen.tolerance
        inexact       the same, where a cell that differs has no finite
                      error bound (or, for `file`, no oracle): not compared
        wrong         the transformed program computes other results
        internal      a diagnostic says "internal error"
        panic         polyrs-opt panicked or died on a signal
        bad-exit      a diagnostic's severity and the exit code disagree
                      (an error with exit 0, or a non-zero exit without one)
        timeout       poly-opt ran past --compile-limit seconds (default 10)
        no-lower      the output does not parse, lower or run
        gen           the untransformed program does not run, or computes other
                      checksums than the Python oracle (gen.oracle: the
                      program interpreted with IEEE doubles): a fuzzer bug
                      or one of MLIR's lowering
      Every failure is saved under DIR/<class>/<seed>/ with the program
      (MLIR and AST), the diagnostics and repro.sh, a one-command
      reproducer; with --shrink, also a shrunk program. Prints the table of
      outcomes; exits 1 when any case failed.

  fuzz.py check --seed N --options 'OPTS' [--json FILE]
      One case, with its class and the diagnostics.

  fuzz.py file PATH [--options-set NAME ...]
      One MLIR file with a @main under every option set of the rotation
      (or those named), each classified as in `run`: one line per set,
      `NAME: CLASS DETAIL`; exits 1 when any failed. The lit tests of
      hand-written programs use it.

  fuzz.py shrink --seed N --options 'OPTS' [--json FILE] [--out FILE]
      Reduces a failing program (statements, loops, guards, bounds,
      subscripts, values) while it keeps failing the same way.

  fuzz.py malformed [--count N] [--start S] [--jobs J]
      Mutated programs (truncated, tokens swapped or deleted, huge and
      negative bounds, zero steps, deep nests, bad UTF-8, ...) through
      poly-opt and the printing passes: each must end in a clean success
      (whose output parses again) or a diagnostic with exit code 1; never a
      panic, a signal, an internal error or a hang.

Binaries come from --bin-dir (default: target/release, else target/debug).
Only the Python 3 standard library is used.
"""

import argparse
import collections
import concurrent.futures
import copy
import json
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import gen  # noqa: E402

# The option sets of a campaign (each case gets one, by seed), all with
# profitability off so that every SCoP is transformed whether or not it
# pays, except "defaults" (plain --poly-opt).
OPTION_SETS = collections.OrderedDict([
    ("defaults", ""),
    ("t1", "tile-sizes=1"),
    ("t3", "tile-sizes=3"),
    ("t7-fusemax", "tile-sizes=7 fuse=max"),
    ("fuseno", "fuse=no"),
    ("nested", "nested-parallel=true"),
    ("uj2-t8", "unroll-jam=2 tile-sizes=8"),
    ("l2", "l2-tile=4"),
    ("l2-t2-nested", "tile-sizes=2 l2-tile=2 nested-parallel=true"),
    ("rt35-t15", "tile-sizes=15 register-tile-sizes=3,5"),
    ("threads3", "threads=3"),
    ("nosplit-nopriv", "split=false privatize=false"),
    ("nowave", "wavefront=false inner-wavefront=false"),
    ("notile", "tile=false nested-parallel=true"),
    ("coef2", "max-coef=2 tile-sizes=4"),
    ("plain-emit", "scalar-replace=false hoist=false noalias=true tile-sizes=5,9"),
    ("uj3-fusemax", "unroll-jam=3 fuse=max tile-sizes=6"),
    ("profitable", "PROFITABILITY"),
    # The sizes of other targets (the code still runs on the host): AVX2
    # blocks, ymm-sized AVX-512 blocks with uneven tiles, and a small
    # register file. Outside the default rotation, which stays the one the
    # documented campaign used: `--options-set avx2 --options-set skx-t3 ...`.
    ("avx2", "cpu=znver3 threads=2"),
    ("skx-t3", "cpu=skylake-avx512 threads=3"),
    ("sse-r8", "cpu=x86-64 vector-registers=8 l2-cache=128"),
    # Loops moved innermost across a recurrence kept scalar
    # (llvm.loop_annotation through the lowering) whatever the host.
    ("slow-gathers", "cpu=skylake-avx512 gathers=slow threads=2"),
    # Zen 4's sizes whatever the host: slow gathers and slow 512-bit
    # broadcasts, whose bit-exact register blocks are one vector wide
    # (16x8).
    ("zen4", "cpu=znver4 threads=2"),
    # A 1 KiB L2: every matrix counts as larger than it, so that one input
    # loop nest cut into several nests by the default fusion is planned
    # again kept in one (distribute::retry_fused; the rows family).
    ("rows-l2", "l2-cache=1 threads=2"),
    # A 1 KiB L1 and L2 and 48 KiB of L3 per core: the streams family's
    # larger matrices (past 96 KiB) exceed the whole L3 and no tile of rows
    # fits L2, so that interleaved nests read their rows back from the L3
    # (interleave.rs; 3 of 150 programs, seeds 66001-66150).
    ("rows-l3", "l1-cache=1 l2-cache=1 l3-cache=48 threads=2"),
    # A 1 KiB L1: column streams take tiles of 128 columns, so that the
    # matvec family's wide matrices (257-600 columns) give each thread
    # several (interleave.rs).
    ("l1-1", "l1-cache=1 threads=2"),
    # FMA contraction allowed (contract=true): programs drawn with dyadic
    # initial values (gen.INIT_DENOMINATOR), compared bit for bit when
    # their arithmetic is exact (then a fused multiply-add rounds nothing
    # away); the others, where their checksums differ, cell by cell within
    # the error bound of gen.tolerance (class "close"). Outside the default
    # rotation:
    # `--options-set contract --options-set contract-avx2 ...`.
    ("contract", "contract=true"),
    ("contract-avx2", "contract=true cpu=znver3 threads=2"),
    ("contract-rt", "contract=true tile-sizes=15 register-tile-sizes=3,5"),
    # Reductions' terms combined in another order (reassociate=true), the
    # same way: compared bit for bit where the program's arithmetic is
    # exact, within the tolerance otherwise. Outside the default rotation
    # too.
    ("reassoc", "reassociate=true"),
    ("reassoc-contract", "reassociate=true contract=true cpu=znver3 threads=2"),
    ("reassoc-fuseno", "reassociate=true fuse=no tile-sizes=5"),
    # The GPU target, run in the CPU emulation (polyrs-runner
    # --gpu=emulate): default blocks, odd blocks with partial tiles, and
    # host-registered memory. Outside the default rotation too:
    # `--options-set gpu --options-set gpu-b73 --options-set gpu-hostreg`.
    ("gpu", "target=gpu"),
    ("gpu-b73", "target=gpu gpu-block=7,3,2"),
    ("gpu-hostreg", "target=gpu gpu-memory=host-register gpu-block=16,2"),
])

# The option sets a campaign rotates over by default.
DEFAULT_ROTATION = list(OPTION_SETS)[:list(OPTION_SETS).index("profitable") + 1]

# Remarks of SCoPs left unchanged on purpose: constructs outside the model
# by design, or (with profitability on) transformations that do not pay.
# docs/fuzzing.md lists them.
BY_DESIGN = [
    ("not a static control part", r"not a static control part"),
    ("no profitable transformation", r"no profitable transformation"),
]

PASSING = ["ok", "unchanged", "close", "inexact"]
FAILURES = ["wrong", "panic", "internal", "bad-exit", "timeout", "no-lower", "gen"]


def contracts(opts):
    """Whether the option set's text lets results round otherwise: FMA
    contraction (`contract=true`) or reductions' terms combined in
    another order (`reassociate=true`)."""
    words = options_text(opts).split()
    return "contract=true" in words or "reassociate=true" in words


def prepared(prog, opts):
    """PROG as a case of the option set OPTS runs it: with dyadic initial
    values when OPTS allow contraction (kept when the program has them)."""
    if contracts(opts) and "init" not in prog:
        prog = dict(prog, init="dyadic")
    return prog


def expectations(prog, opts):
    """The oracle's checksums of PROG, and how the transformed program's
    results are compared under OPTS (`compared`)."""
    # An affine.parallel reduction (the parallel family) allows any order
    # of its terms, whatever the options.
    if contracts(opts) or prog.get("order_free"):
        sums, exact = gen.oracle_exact(prog)
        return sums, True if exact else Within(prog)
    return gen.oracle(prog), True


class Within:
    """Results compared within a tolerance: those of PROG, whose arithmetic
    rounds, under options that allow contraction or reassociation. Where
    the checksums differ, both programs run again printing every cell, and
    each cell must lie within gen.tolerance's bound of the untransformed
    program's (class "close"; "wrong" outside it, "inexact" where a cell
    that differs has no finite bound)."""

    def __init__(self, prog):
        self.prog = prog


def in_order(compare):
    """The runner's options for the untransformed program compared so
    (`expectations`): where its reductions allow any order (the parallel
    family's affine.parallel) and its arithmetic rounds, without OpenMP,
    so that it groups their terms as the oracle does (lower-affine's
    order: the identity, then every term in turn)."""
    return ["--no-openmp"] if isinstance(compare, Within) and compare.prog.get("order_free") else []


def compared(prog, opts):
    """How the transformed program's results are compared under OPTS: bit
    for bit (True), unless OPTS allow contraction or reassociation and
    some operation of PROG rounds (then `Within`)."""
    return expectations(prog, opts)[1]


def contract_share(results):
    """Of the RESULTS run with contract=true or reassociate=true: how many,
    how many of them were compared bit for bit, and how many within a
    tolerance (their checksums differing)."""
    fused = [r for r in results if contracts(OPTION_SETS[r["set"]])]
    return (len(fused), sum(1 for r in fused if r["compared"] == "bits"),
            sum(1 for r in fused if r["class"] == "close"))


def bin_dir_default():
    for d in ("release", "debug"):
        p = os.path.join(ROOT, "target", d)
        if os.path.exists(os.path.join(p, "polyrs-opt")):
            return p
    return os.path.join(ROOT, "target", "release")


# The emitted-code check's budget in a campaign: enough operations for
# every program the generator draws (its instances are bounded by
# gen.MAX_INSTANCES), so that each transformed SCoP is re-checked by
# interpretation (poly-opt's default, 200000, skips the largest).
# `--verify-emit 0` leaves the option out (for binaries before it).
VERIFY_EMIT = "verify-emit=5000000"


def options_text(opts):
    """The poly-opt option string of an option set's text."""
    if opts == "PROFITABILITY":
        return VERIFY_EMIT
    return ("profitability=false " + VERIFY_EMIT + " " + opts).strip().replace("  ", " ")


def run(cmd, stdin=None, timeout=None):
    """(returncode or None on timeout, stdout, stderr, seconds)."""
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, input=stdin, capture_output=True, timeout=timeout)
        rc = p.returncode
        out, err = p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        rc = None
        out, err = e.stdout or b"", e.stderr or b""
    return rc, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), time.monotonic() - t0


DIAG = re.compile(r"^(?:[^\s:]+:\d+:\d+: |<unknown>:\d+:\d+: |loc\([^)]*\): )?(remark|warning|error|note): (.*)$")


def diagnostics(stderr):
    """[(severity, message)] of a tool's stderr."""
    out = []
    for line in stderr.splitlines():
        m = DIAG.match(line)
        if m:
            out.append((m.group(1), m.group(2)))
    return out


def reason_key(msg):
    """A remark's reason with names and numbers abstracted (for tables)."""
    m = re.search(r"(SCoP left unchanged|loop nest not optimized): (.*)", msg)
    why = m.group(2) if m else msg
    why = re.sub(r"\bS\d+\b", "S", why)
    why = re.sub(r"\b(arg|A|p|i|o|t|d)\d+\b", r"\1", why)
    why = re.sub(r"-?\d+", "N", why)
    why = re.sub(r"'[^']*'", "'...'", why)
    return why[:160]


def by_design(msg):
    for name, pat in BY_DESIGN:
        if re.search(pat, msg):
            return name
    return None


class Tools:
    def __init__(self, bin_dir, compile_limit=10.0, run_limit=60.0):
        self.opt = os.path.join(bin_dir, "polyrs-opt")
        self.runner = os.path.join(bin_dir, "polyrs-runner")
        self.mlir_opt = os.path.join(os.environ.get("LLVM_TOOLS_DIR", "/usr/lib/llvm-22/bin"), "mlir-opt")
        self.compile_limit = compile_limit
        self.run_limit = run_limit


def classify(tools, text, opts, work, run_programs=True, expected=None, compare=True, reference=None):
    """Runs one program through the differential check. Returns a dict:
    class, detail, scops (list of (status, reason)), compile seconds,
    stderr of poly-opt. Without `run_programs`, only poly-opt runs: the
    class is then None unless poly-opt's exit and diagnostics decide it
    (internal, panic, bad-exit, timeout), or "unchanged"/"ok". Without
    `compare`, results that differ from the untransformed program's are
    "inexact" instead of "wrong" (see `expectations`). `reference`, when
    given, is the untransformed program's output (not run again)."""
    src = os.path.join(work, "case.mlir")
    with open(src, "w") as f:
        f.write(text)
    res = {"class": None, "detail": "", "scops": [], "compile_s": 0.0, "stderr": ""}
    popt = "--poly-opt=" + options_text(opts) if options_text(opts) else "--poly-opt"
    rc, out, err, secs = run([tools.opt, src, popt, "--mlir-print-local-scope"], timeout=tools.compile_limit)
    res["compile_s"] = secs
    res["stderr"] = err
    diags = diagnostics(err)
    for sev, msg in diags:
        if not msg.startswith("poly-opt:"):
            continue
        if "SCoP left unchanged" in msg or "loop nest not optimized" in msg:
            res["scops"].append(("unchanged", msg))
        elif "internal error" not in msg:
            res["scops"].append(("transformed", msg))
    if rc is None:
        res["class"] = "timeout"
        res["detail"] = "poly-opt still running after %.0f s" % tools.compile_limit
        return res
    if rc < 0 or "panicked" in err or "internal error (please report)" in err:
        res["class"] = "panic"
        res["detail"] = "poly-opt died (exit %d): %s" % (rc, (err.strip().splitlines() or [""])[-1])
        return res
    internal = [m for s, m in diags if "internal error" in m]
    if internal:
        res["class"] = "internal"
        res["detail"] = internal[0]
        return res
    errors = [m for s, m in diags if s == "error"]
    if (rc == 0) == bool(errors):
        res["class"] = "bad-exit"
        res["detail"] = "exit %d with %d error diagnostics%s" % (
            rc, len(errors), (": " + errors[0]) if errors else "")
        return res
    if rc != 0:
        res["class"] = "no-lower"
        res["detail"] = "poly-opt failed: " + errors[0]
        return res
    unchanged = [m for s, m in res["scops"] if s == "unchanged"]
    if not run_programs:
        res["class"] = "unchanged" if unchanged else "ok"
        res["detail"] = unchanged[0] if unchanged else ""
        return res
    if reference is not None:
        rc, ref = 0, reference
    else:
        rc, ref, err, _ = run([tools.runner, "--threads=2", "--gpu=emulate", src] + in_order(compare),
                              timeout=tools.run_limit)
    if rc != 0:
        res["class"] = "gen"
        res["detail"] = "the untransformed program does not run: " + (err.strip().splitlines() or ["timeout"])[-1]
        return res
    if expected is not None and ref.split() != expected:
        res["class"] = "gen"
        res["detail"] = "the untransformed program computes %s, the Python oracle %s" % (ref.split(), expected)
        return res
    rc, got, err2, _ = run([tools.runner, "--threads=2", "--gpu=emulate", "-"], stdin=out.encode(), timeout=tools.run_limit)
    if rc != 0:
        res["class"] = "no-lower"
        res["detail"] = "the transformed program does not run: " + (err2.strip().splitlines() or ["timeout"])[-1]
        return res
    if got != ref and isinstance(compare, Within):
        return within(tools, compare.prog, opts, work, res)
    if got != ref and not compare:
        res["class"] = "inexact"
        res["detail"] = "checksums differ under contraction or reassociation, the arithmetic rounding: got %s, untransformed %s" % (
            got.split(), ref.split())
        return res
    if got != ref:
        res["class"] = "wrong"
        res["detail"] = "checksums differ: got %s, expected %s" % (got.split(), ref.split())
        return res
    res["class"] = "unchanged" if unchanged else "ok"
    if unchanged:
        res["detail"] = unchanged[0]
    return res


def within(tools, prog, opts, work, res):
    """RES's class once PROG's results, which differ bit for bit, are
    compared cell by cell within gen.tolerance's bounds (see `Within`)."""
    src = os.path.join(work, "values.mlir")
    with open(src, "w") as f:
        f.write(gen.module_text(prog, values=True))
    popt = "--poly-opt=" + options_text(opts) if options_text(opts) else "--poly-opt"
    rc, out, err, _ = run([tools.opt, src, popt], timeout=tools.compile_limit)
    if rc != 0:
        res["class"] = "no-lower"
        res["detail"] = "the program printing every cell does not transform: " + (err.strip().splitlines() or [""])[-1]
        return res
    rc1, ref, err1, _ = run([tools.runner, "--threads=2", "--gpu=emulate", src] + in_order(Within(prog)),
                            timeout=tools.run_limit)
    rc2, got, err2, _ = run([tools.runner, "--threads=2", "--gpu=emulate", "-"], stdin=out.encode(),
                            timeout=tools.run_limit)
    if rc1 != 0 or rc2 != 0:
        res["class"] = "no-lower" if rc1 == 0 else "gen"
        res["detail"] = "the programs printing every cell do not run: " + \
            ((err2 if rc1 == 0 else err1).strip().splitlines() or ["timeout"])[-1]
        return res
    bounds = [c for cells in gen.tolerance(prog) for c in cells]
    res["class"], res["detail"] = compare_cells(bounds, [int(x) for x in ref.split()], [int(x) for x in got.split()])
    return res


def compare_cells(bounds, ref_bits, got_bits):
    """(class, detail) of results that differ: REF_BITS the untransformed
    program's cells (their bits), GOT_BITS the transformed one's, BOUNDS
    gen.tolerance's (oracle value, bound) of each, all arrays' cells in
    one list. "gen" where the untransformed program disagrees with the
    oracle; "wrong" where a cell lies beyond its bound; "inexact" where
    cells differ with no finite bound; "close" otherwise."""
    if len(ref_bits) != len(bounds) or len(got_bits) != len(bounds):
        return "gen", "the programs print %d and %d cells, the oracle has %d" % (
            len(ref_bits), len(got_bits), len(bounds))
    unbounded, worst, apart = 0, (0.0, None), 0.0
    for k, ((want, bound), rb, gb) in enumerate(zip(bounds, ref_bits, got_bits)):
        r, g = bits_value(rb), bits_value(gb)
        if r != want and not (r != r and want != want):
            return "gen", "the untransformed program's cell %d is %r, the oracle's %r" % (k, r, want)
        if rb == gb or (r != r and g != g):
            continue
        if not bound < float("inf"):
            unbounded += 1
            apart = max(apart, abs(g - r) / max(abs(r), abs(g)))
            continue
        err = abs(g - r)
        if not err <= bound:
            return "wrong", "cell %d (flat, over all arrays): got %r, expected %r, beyond the tolerance %.3g" % (
                k, g, r, bound)
        worst = max(worst, (err / bound if bound > 0 else 0.0, k))
    if unbounded:
        return "inexact", "%d cells differ where the arithmetic has no finite error bound (relative difference up to %.3g)" % (
            unbounded, apart)
    return "close", "results within the tolerance (largest difference %.3g of its bound, cell %s)" % worst


def bits_value(b):
    """The double whose 64 bits, as a signed integer, are B."""
    import struct
    return struct.unpack("<d", struct.pack("<q", b))[0]


def repro_script(seed, opts, bin_dir, family="mixed"):
    o = options_text(opts)
    popt = "--poly-opt=%s" % shlex.quote(o) if o else "--poly-opt"
    return """#!/usr/bin/env bash
# Reproduces fuzz case %(seed)d with options %(opts)r: the class and its diagnostics.
# The program is case.mlir beside this script (also: python3 fuzz/gen.py --seed %(seed)d%(fam)s).
# By hand:  polyrs-opt case.mlir %(popt)s | polyrs-runner - --threads=2
#           polyrs-runner case.mlir --threads=2
cd "$(dirname "$0")"
exec python3 %(fuzz)s check --json case.json --options %(qopts)s --bin-dir %(bin)s
""" % {"seed": seed, "opts": opts, "popt": popt, "fuzz": os.path.join(HERE, "fuzz.py"),
       "qopts": shlex.quote(opts), "bin": shlex.quote(bin_dir),
       "fam": "" if family == "mixed" else " --family " + family}


def save_failure(outdir, seed, opts, prog, res, bin_dir):
    d = os.path.join(outdir, res["class"], "%d" % seed)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "case.mlir"), "w") as f:
        f.write(gen.module_text(prog))
    with open(os.path.join(d, "case.json"), "w") as f:
        json.dump(prog, f)
    with open(os.path.join(d, "result.txt"), "w") as f:
        f.write("class: %s\noptions: %s\ndetail: %s\n\n%s" % (res["class"], opts, res["detail"], res["stderr"]))
    p = os.path.join(d, "repro.sh")
    with open(p, "w") as f:
        f.write(repro_script(seed, opts, bin_dir, prog.get("family", "mixed")))
    os.chmod(p, 0o755)
    return d


def option_set_for(seed, names):
    return names[seed % len(names)]


def load_prog(args):
    if getattr(args, "json", None):
        with open(args.json) as f:
            prog = json.load(f)
        gen.fit_arrays(prog)
        return prog
    return gen.generate(args.seed, args.family)


def load_case(args):
    """The program of `check` or `shrink`, prepared for its options."""
    return prepared(load_prog(args), args.options)


# ---------------------------------------------------------------------------
# Shrinking
# ---------------------------------------------------------------------------


def subst(e, iv, by):
    if e[0] == "v" and e[1] == iv:
        return copy.deepcopy(by)
    if e[0] in ("c", "v", "p"):
        return e
    if e[0] == "+":
        return ["+", subst(e[1], iv, by), subst(e[2], iv, by)]
    if e[0] == "*":
        return ["*", e[1], subst(e[2], iv, by)]
    return [e[0], subst(e[1], iv, by), e[2]]


def subst_nodes(nodes, iv, by):
    out = []
    for n in nodes:
        n = copy.deepcopy(n)
        if n["k"] == "for":
            n["lbs"] = [subst(e, iv, by) for e in n["lbs"]]
            n["ubs"] = [subst(e, iv, by) for e in n["ubs"]]
            n["body"] = subst_nodes(n["body"], iv, by)
        elif n["k"] == "if":
            n["conds"] = [[subst(e, iv, by), eq] for e, eq in n["conds"]]
            n["then"] = subst_nodes(n["then"], iv, by)
            n["else"] = subst_nodes(n["else"], iv, by) if n["else"] else None
        else:
            if n["k"] == "stmt":
                n["idx"] = [subst(e, iv, by) for e in n["idx"]]
            n["val"] = subst_val(n["val"], iv, by)
        out.append(n)
    return out


def subst_val(v, iv, by):
    if v[0] == "ld":
        return ["ld", v[1], [subst(e, iv, by) for e in v[2]]] + v[3:]
    if v[0] in ("f", "use"):
        return v
    return [v[0], subst_val(v[1], iv, by), subst_val(v[2], iv, by)]


def simpler_exprs(e):
    """Smaller expressions that could replace e."""
    out = []
    if e[0] == "+":
        out += [e[1], e[2]]
    elif e[0] == "*":
        out.append(e[2])
    elif e[0] in ("fd", "cd", "mod"):
        out.append(e[1])
    if e[0] != "c":
        out.append(["c", 0])
    if e[0] == "c" and e[1] != 0:
        out.append(["c", 0])
    return out


def renumber(prog, gone):
    """Array indices above `gone` (removed) move down by one."""

    def val(v):
        if v[0] == "ld":
            if v[1] > gone:
                v[1] -= 1
        elif v[0] in gen.BINARY:
            val(v[1])
            val(v[2])

    for blk in blocks_of(prog):
        for n in blk:
            if n["k"] == "stmt":
                if n["arr"] > gone:
                    n["arr"] -= 1
                val(n["val"])
            elif n["k"] == "let":
                val(n["val"])
    for a, arr in enumerate(prog["arrays"]):
        arr["name"] = "A%d" % a


def simpler_values(v):
    out = []
    if v[0] in gen.BINARY:
        out += [v[1], v[2]]
    if v[0] in ("ld", "use"):
        out.append(["f", 1.5])
    if v[0] == "ld" and len(v) > 3:
        out.append(v[:3])  # affine.load for memref.load
    return out


def candidates(prog):
    """Programs one step smaller than prog (generator: each a deep copy),
    every use of a let still in its scope."""
    for p in raw_candidates(prog):
        yield gen.fix_uses(p)


def blocks_of(prog):
    """Every list of nodes in the program (the top level first)."""
    out = [prog["body"]]

    def walk(nodes):
        for n in nodes:
            if n["k"] == "for":
                out.append(n["body"])
                walk(n["body"])
            elif n["k"] == "if":
                out.append(n["then"])
                walk(n["then"])
                if n["else"]:
                    out.append(n["else"])
                    walk(n["else"])

    walk(prog["body"])
    return out


def raw_candidates(prog):
    """Programs one step smaller than prog (generator: each a deep copy)."""
    # 1. Drop a node; replace a loop by its body at one iteration, an if by
    #    one of its branches.
    for bi in range(len(blocks_of(prog))):
        nb = len(blocks_of(prog)[bi])
        for ni in range(nb):
            p = copy.deepcopy(prog)
            blk = blocks_of(p)[bi]
            node = blk[ni]
            if nb > 1:
                del blk[ni]
                yield p
                p = copy.deepcopy(prog)
                blk = blocks_of(p)[bi]
                node = blk[ni]
            if node["k"] == "for" and bi > 0:
                blk[ni:ni + 1] = subst_nodes(node["body"], node["iv"], node["lbs"][0])
                yield p
            elif node["k"] == "if":
                for branch in ("then", "else"):
                    if node[branch]:
                        q = copy.deepcopy(prog)
                        qb = blocks_of(q)[bi]
                        qb[ni:ni + 1] = copy.deepcopy(node[branch])
                        yield q
    # 2. Simplify loops and guards.
    for bi in range(len(blocks_of(prog))):
        for ni, node in enumerate(blocks_of(prog)[bi]):
            if node["k"] == "for":
                for key in ("lbs", "ubs"):
                    if len(node[key]) > 1:
                        for drop in range(len(node[key])):
                            p = copy.deepcopy(prog)
                            del blocks_of(p)[bi][ni][key][drop]
                            yield p
                    for j, e in enumerate(node[key]):
                        for s in simpler_exprs(e):
                            p = copy.deepcopy(prog)
                            blocks_of(p)[bi][ni][key][j] = copy.deepcopy(s)
                            yield p
                if node["step"] != 1:
                    p = copy.deepcopy(prog)
                    blocks_of(p)[bi][ni]["step"] = 1
                    yield p
            elif node["k"] == "if":
                if len(node["conds"]) > 1:
                    for drop in range(len(node["conds"])):
                        p = copy.deepcopy(prog)
                        del blocks_of(p)[bi][ni]["conds"][drop]
                        yield p
                if node["else"]:
                    p = copy.deepcopy(prog)
                    blocks_of(p)[bi][ni]["else"] = None
                    yield p
    # 3. Simplify statements and lets: values, then subscripts.
    for bi in range(len(blocks_of(prog))):
        for ni, node in enumerate(blocks_of(prog)[bi]):
            if node["k"] not in ("stmt", "let"):
                continue
            for s in simpler_values(node["val"]):
                p = copy.deepcopy(prog)
                blocks_of(p)[bi][ni]["val"] = copy.deepcopy(s)
                yield p
            if node.get("m"):
                p = copy.deepcopy(prog)
                del blocks_of(p)[bi][ni]["m"]  # affine.store for memref.store
                yield p
            for j, e in enumerate(node.get("idx", [])):
                for s in simpler_exprs(e):
                    p = copy.deepcopy(prog)
                    blocks_of(p)[bi][ni]["idx"][j] = copy.deepcopy(s)
                    yield p

            def loads(v, path):
                if v[0] == "ld":
                    yield path, v
                elif v[0] in gen.BINARY:
                    yield from loads(v[1], path + [1])
                    yield from loads(v[2], path + [2])

            for path, ld in list(loads(node["val"], [])):
                for j, e in enumerate(ld[2]):
                    for s in simpler_exprs(e):
                        p = copy.deepcopy(prog)
                        v = blocks_of(p)[bi][ni]["val"]
                        for step in path:
                            v = v[step]
                        v[2][j] = copy.deepcopy(s)
                        yield p
    # 4. Arrays and parameters nothing uses.
    used_arrays = set(a for (_, _, a, _) in gen.all_accesses(prog))
    for a in reversed(range(len(prog["arrays"]))):
        if a not in used_arrays:
            p = copy.deepcopy(prog)
            del p["arrays"][a]
            renumber(p, a)
            yield p
    used_params = set()
    for (_, _, _, idx) in gen.all_accesses(prog):
        for e in idx:
            used_params.update(gen.names_in(e, "p", []))
    for n in blocks_of(prog):
        for node in n:
            if node["k"] == "for":
                for e in node["lbs"] + node["ubs"]:
                    used_params.update(gen.names_in(e, "p", []))
            elif node["k"] == "if":
                for e, _ in node["conds"]:
                    used_params.update(gen.names_in(e, "p", []))
    for name in list(prog["params"]):
        if name not in used_params:
            p = copy.deepcopy(prog)
            del p["params"][name]
            yield p
    # 5. Smaller parameter values.
    for name, val in prog["params"].items():
        for smaller in (val // 2, val - 1):
            if smaller >= 1 and smaller != val:
                p = copy.deepcopy(prog)
                p["params"][name] = smaller
                yield p


def size(prog):
    """A measure that every accepted shrinking step decreases: the AST's
    text without array shapes, parameter values counted."""
    p = dict(prog)
    p["arrays"] = [dict(a, shape=None) for a in prog["arrays"]]
    return len(json.dumps(p["body"])) + len(p["arrays"]) * 8 + sum(p["params"].values())


def shrink(tools, prog, opts, target, work, log=print, budget_s=600):
    """Greedy reduction keeping `target` (a class, and for unchanged its
    reason key). Returns the smallest program found."""
    t0 = time.monotonic()

    def key(res):
        if res["class"] == "unchanged":
            return ("unchanged", reason_key(res["detail"]))
        if res["class"] == "internal":
            return ("internal", reason_key(res["detail"]).split(" (e.g.")[0])
        return (res["class"],)

    # Classes poly-opt's own output decides need no program runs.
    quick = target[0] in ("internal", "panic", "bad-exit", "timeout", "unchanged")
    tries = 0
    best = prog
    skip = 0
    improved = True
    while improved and time.monotonic() - t0 < budget_s:
        improved = False
        # Candidates in order, resuming after the last one kept (the
        # earlier ones were tried on a larger program and mostly fail
        # again); a full pass without success ends the search.
        for pos, cand in enumerate(candidates(best)):
            if pos < skip:
                continue
            if time.monotonic() - t0 >= budget_s:
                break
            try:
                gen.fit_arrays(cand)
            except gen.TooBig:
                continue
            if size(cand) >= size(best):
                continue  # not smaller (an array fit can undo a step)
            tries += 1
            res = classify(tools, gen.module_text(cand), opts, work, run_programs=not quick,
                           compare=compared(cand, opts))
            if key(res) == target:
                best = cand
                improved = True
                skip = pos
                log("shrink: %d tries, %d statements, %d bytes" % (
                    tries, gen.count_statements(best), len(gen.kernel_text(best))))
                break
        if not improved and skip > 0:
            skip = 0
            improved = True  # one more pass from the start
            continue
    return best


# ---------------------------------------------------------------------------
# Campaigns
# ---------------------------------------------------------------------------


def case(tools, seed, names, out, bin_dir, do_shrink, family="mixed"):
    name = option_set_for(seed, names)
    opts = OPTION_SETS[name]
    prog = prepared(gen.generate(seed, family), opts)
    expected, compare = expectations(prog, opts)
    with tempfile.TemporaryDirectory(prefix="polyrs-fuzz-") as work:
        res = classify(tools, gen.module_text(prog), opts, work, expected=expected, compare=compare)
        saved = None
        if res["class"] in FAILURES:
            saved = save_failure(out, seed, opts, prog, res, bin_dir)
            if do_shrink:
                target = (res["class"],)
                if res["class"] == "internal":
                    target = ("internal", reason_key(res["detail"]).split(" (e.g.")[0])
                small = shrink(tools, prog, opts, target, work, log=lambda *_: None, budget_s=300)
                with open(os.path.join(saved, "shrunk.mlir"), "w") as f:
                    f.write(gen.module_text(small))
                with open(os.path.join(saved, "shrunk.json"), "w") as f:
                    json.dump(small, f)
    return {"seed": seed, "set": name, "class": res["class"], "detail": res["detail"],
            "scops": res["scops"], "compile_s": res["compile_s"], "saved": saved,
            "compared": "bits" if compare is True else "tolerance",
            "statements": gen.count_statements(prog)}


def table(results, by_design_only=False):
    lines = []
    n = len(results)
    counts = collections.Counter(r["class"] for r in results)
    lines.append("| outcome | programs |")
    lines.append("|---|---|")
    for c in PASSING + FAILURES:
        lines.append("| %s | %d (%.1f %%) |" % (c, counts.get(c, 0), 100.0 * counts.get(c, 0) / max(n, 1)))
    fused, exact, close = contract_share(results)
    if fused:
        lines.append("")
        lines.append("contract=true or reassociate=true: %d programs, %d of them exact and compared bit for bit, "
                     "%d whose results differ compared within the tolerance" % (fused, exact, close))
    # SCoPs.
    scops = [s for r in results for s in r["scops"]]
    unchanged = [m for s, m in scops if s == "unchanged"]
    design = [m for m in unchanged if by_design(m)]
    other = [m for m in unchanged if not by_design(m)]
    lines.append("")
    lines.append("SCoPs: %d, transformed %d, unchanged by design %d, unchanged otherwise %d (%.2f %%)" % (
        len(scops), len(scops) - len(unchanged), len(design), len(other),
        100.0 * len(other) / max(len(scops), 1)))
    transformed = [m for s, m in scops if s == "transformed"]
    rechecked = [m for m in transformed if "emitted code re-checked by interpretation" in m]
    lines.append("Transformed SCoPs whose emitted code was re-checked by interpretation "
                 "(verify-emit): %d of %d" % (len(rechecked), len(transformed)))
    not_checked = collections.Counter(
        reason_key(m.split("emitted code not re-checked: ")[1])
        for m in transformed if "emitted code not re-checked: " in m)
    for why, k in not_checked.most_common():
        lines.append("- not re-checked (%d): %s" % (k, why))
    reasons = collections.Counter(reason_key(m) for m in unchanged)
    if reasons:
        lines.append("")
        lines.append("| SCoPs left unchanged: reason | SCoPs | by design |")
        lines.append("|---|---|---|")
        for why, k in reasons.most_common():
            lines.append("| %s | %d | %s |" % (why.replace("|", "\\|"), k, by_design(why) or "no"))
    times = sorted(r["compile_s"] for r in results)
    if times:
        pick = lambda q: times[min(len(times) - 1, int(q * len(times)))]
        lines.append("")
        lines.append("poly-opt time per program: median %.3f s, 99th percentile %.3f s, max %.3f s" % (
            pick(0.5), pick(0.99), times[-1]))
    per_set = collections.defaultdict(collections.Counter)
    for r in results:
        per_set[r["set"]][r["class"]] += 1
    lines.append("")
    lines.append("| option set | options | " + " | ".join(PASSING + FAILURES) + " |")
    lines.append("|---|---|" + "---|" * (len(PASSING) + len(FAILURES)))
    for s in OPTION_SETS:
        if s in per_set:
            c = per_set[s]
            shown = options_text(OPTION_SETS[s]).replace(VERIFY_EMIT, "").replace("  ", " ").strip()
            lines.append("| %s | `%s` | " % (s, shown or "(defaults)") +
                         " | ".join(str(c.get(k, 0)) for k in PASSING + FAILURES) + " |")
    return "\n".join(lines)


def cmd_run(args):
    tools = Tools(args.bin_dir, args.compile_limit)
    names = args.options_set or DEFAULT_ROTATION
    for nm in names:
        if nm not in OPTION_SETS:
            sys.exit("unknown option set '%s' (known: %s)" % (nm, ", ".join(OPTION_SETS)))
    os.makedirs(args.out, exist_ok=True)
    results = []
    t0 = time.monotonic()
    seeds = iter(range(args.start, args.start + args.count))
    log = open(os.path.join(args.out, "results.jsonl"), "a")
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as ex:
        pending = set()
        done_all = False
        while True:
            while not done_all and len(pending) < args.jobs * 2:
                if args.time_budget and time.monotonic() - t0 > args.time_budget:
                    done_all = True
                    break
                s = next(seeds, None)
                if s is None:
                    done_all = True
                    break
                pending.add(ex.submit(case, tools, s, names, args.out, args.bin_dir, args.shrink,
                                      args.family))
            if not pending:
                break
            done, pending = concurrent.futures.wait(pending, return_when=concurrent.futures.FIRST_COMPLETED)
            for f in done:
                r = f.result()
                results.append(r)
                log.write(json.dumps(r) + "\n")
                log.flush()
                if r["class"] in FAILURES:
                    print("FAIL %-9s seed %-6d %-14s %s  [%s]" % (r["class"], r["seed"], r["set"],
                                                              r["detail"][:200], r["saved"]), flush=True)
                elif args.verbose:
                    print("%-9s seed %-6d %-14s %s" % (r["class"], r["seed"], r["set"], r["detail"][:160]),
                          flush=True)
    log.close()
    results.sort(key=lambda r: r["seed"])
    text = table(results)
    print()
    print("%d programs in %.0f s (%s)" % (len(results), time.monotonic() - t0, args.bin_dir))
    print(text)
    if args.table:
        with open(args.table, "w") as f:
            f.write(text + "\n")
    failed = sum(1 for r in results if r["class"] in FAILURES)
    scops = [s for r in results for s in r["scops"]]
    other = [m for s, m in scops if s == "unchanged" and not by_design(m)]
    frac = 100.0 * len(other) / max(len(scops), 1)
    if args.max_unchanged is not None and frac > args.max_unchanged:
        print("unchanged SCoPs (not by design): %.2f %% > %.2f %%" % (frac, args.max_unchanged))
        failed += 1
    if args.min_remark:
        # A campaign that must reach a transformation: the share of its
        # programs with a remark that names it.
        phrase, _, least = args.min_remark.rpartition(":")
        hit = sum(1 for r in results if any(phrase in m for _, m in r["scops"]))
        pct = 100.0 * hit / max(len(results), 1)
        print("programs with a remark saying %r: %d (%.2f %%)" % (phrase, hit, pct))
        if pct < float(least):
            print("fewer than %s %%" % least)
            failed += 1
    fused, exact, _ = contract_share(results)
    share = 100.0 * exact / max(fused, 1)
    if fused and args.min_compared is not None and share < args.min_compared:
        print("contract=true or reassociate=true programs compared bit for bit: %.2f %% < %.2f %%" % (
            share, args.min_compared))
        failed += 1
    return 1 if failed else 0


def cmd_check(args):
    tools = Tools(args.bin_dir, args.compile_limit)
    prog = load_case(args)
    expected, compare = expectations(prog, args.options)
    with tempfile.TemporaryDirectory(prefix="polyrs-fuzz-") as work:
        res = classify(tools, gen.module_text(prog), args.options, work, expected=expected, compare=compare)
    print("class: %s" % res["class"])
    print("detail: %s" % res["detail"])
    print("poly-opt: %.3f s" % res["compile_s"])
    sys.stdout.write(res["stderr"])
    return 1 if res["class"] in FAILURES else 0


def cmd_file(args):
    """Every option set (the default rotation unless --options-set) on one
    MLIR file with a @main: one line per set, `NAME: CLASS DETAIL`."""
    tools = Tools(args.bin_dir, args.compile_limit)
    names = args.options_set or DEFAULT_ROTATION
    with open(args.path) as f:
        text = f.read()
    failed = 0
    rc, ref, err, _ = run([tools.runner, "--threads=2", "--gpu=emulate", args.path], timeout=tools.run_limit)
    if rc != 0:
        print("the untransformed program does not run: " + (err.strip().splitlines() or ["timeout"])[-1])
        return 1
    with tempfile.TemporaryDirectory(prefix="polyrs-fuzz-") as work:
        for nm in names:
            if nm not in OPTION_SETS:
                sys.exit("unknown option set '%s' (known: %s)" % (nm, ", ".join(OPTION_SETS)))
            opts = OPTION_SETS[nm]
            res = classify(tools, text, opts, work, compare=not contracts(opts), reference=ref)
            failed += res["class"] in FAILURES
            print("%s: %s %s" % (nm, res["class"], res["detail"][:300]), flush=True)
    return 1 if failed else 0


def cmd_shrink(args):
    tools = Tools(args.bin_dir, args.compile_limit)
    prog = load_case(args)
    with tempfile.TemporaryDirectory(prefix="polyrs-fuzz-") as work:
        res = classify(tools, gen.module_text(prog), args.options, work,
                       compare=compared(prog, args.options))
        print("class: %s: %s" % (res["class"], res["detail"]))
        if res["class"] == "unchanged":
            target = ("unchanged", reason_key(res["detail"]))
        elif res["class"] == "internal":
            target = ("internal", reason_key(res["detail"]).split(" (e.g.")[0])
        elif res["class"] in FAILURES:
            target = (res["class"],)
        else:
            print("nothing to shrink")
            return 0
        small = shrink(tools, prog, args.options, target, work, budget_s=args.budget)
    text = gen.module_text(small)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
        with open(os.path.splitext(args.out)[0] + ".json", "w") as f:
            json.dump(small, f)
    if args.lit:
        with open(args.lit, "w") as f:
            f.write(lit_test(small, args.options, args.why or res["detail"]))
    print(gen.kernel_text(small))
    return 0


def lit_test(prog, opts, why):
    """A lit test of a (shrunk) program: the same checksums before and after
    poly-opt with `opts`, and every SCoP transformed without an internal
    error."""
    o = options_text(opts)
    popt = "--poly-opt='%s'" % o if o else "--poly-opt"
    head = [
        "// A fuzz regression (fuzz/fuzz.py, program %s%s, shrunk): %s" % (
            prog.get("seed"), " of the %s family" % prog["family"] if prog.get("family") else "", why),
        "// The results must be identical before and after poly-opt (2 OpenMP",
        "// threads), and every SCoP transformed without an internal error.",
        "//",
        "// RUN: %polyrs-runner --threads=2 %s > %t.before",
        "// RUN: %%polyrs-opt %%s %s 2> %%t.remarks | %%polyrs-runner --threads=2 - > %%t.after" % popt,
        "// RUN: diff %t.before %t.after",
        "// RUN: FileCheck %s --input-file=%t.remarks",
        "// CHECK-NOT: left unchanged",
        "// CHECK-NOT: internal error",
        "// CHECK: remark: poly-opt: {{[0-9]+}} statement",
        "// CHECK-NOT: left unchanged",
        "// CHECK-NOT: internal error",
        "",
    ]
    return "\n".join(head) + gen.module_text(prog).split("\n", 1)[1]


# ---------------------------------------------------------------------------
# Malformed inputs
# ---------------------------------------------------------------------------

PASSES = ["--poly-opt", "--poly-opt=profitability=false tile-sizes=3", "--poly-print-scop",
          "--poly-print-deps", "--poly-print-schedule", "--poly-detect-scops", "--poly-verify-schedule"]

TOKEN = re.compile(r"%[\w.$-]+|@[\w.$-]+|-?\d+(?:\.\d+)?(?:e[-+]?\d+)?|[\w.]+|\S")


def mutate(text, r):
    """One random mutation of an MLIR text (bytes)."""
    kinds = ["truncate", "swap", "delete", "duplicate", "number", "step", "deep", "utf8",
             "line", "char", "bound", "scale"]
    if "affine.yield" in text:
        # Programs of the carried family: loops with iter_args.
        kinds += ["iter_args"] * 12
    if "reduce (" in text:
        # The parallel family's affine.parallel reductions.
        kinds += ["reduce"] * 6
    if "memref.expand_shape" in text or "memref.collapse_shape" in text or "memref.reinterpret_cast" in text:
        # The views family's views.
        kinds += ["view"] * 6
    kind = r.choice(kinds)
    toks = [m for m in TOKEN.finditer(text)]
    if kind == "iter_args":
        return mutate_iter_args(text, r), kind
    if kind == "reduce":
        heads = list(re.finditer(r'reduce \("(\w+)"\) -> \((\w+)\)', text))
        m = r.choice(heads)
        new = 'reduce ("%s") -> (%s)' % (
            r.choice(["addf", "mulf", "maximumf", "minimumf", "addi", "assign", "xori", "maxs", "bogus", ""]),
            r.choice(["f64", "f32", "i64", "index", "vector<4xf64>"]))
        return (text[:m.start()] + new + text[m.end():]).encode(), kind
    if kind == "view":
        heads = list(re.finditer(r"\[\[[0-9, \[\]]*\]\]|offset: \[\d+\]|strides: \[[0-9, ]*\]|output_shape \[[0-9, ]*\]", text))
        if heads:
            m = r.choice(heads)
            nums = re.sub(r"\d+", lambda d: str(r.choice([0, 1, 2, int(d.group()) + 1, 1 << 40])), m.group())
            return (text[:m.start()] + nums + text[m.end():]).encode(), kind
    if kind == "truncate":
        return text[:r.randrange(len(text))].encode(), kind
    if kind == "swap" and len(toks) > 2:
        a, b = sorted(r.sample(range(len(toks)), 2))
        ta, tb = toks[a], toks[b]
        t = text[:ta.start()] + tb.group() + text[ta.end():tb.start()] + ta.group() + text[tb.end():]
        return t.encode(), kind
    if kind == "delete" and toks:
        t = r.choice(toks)
        return (text[:t.start()] + text[t.end():]).encode(), kind
    if kind == "duplicate" and toks:
        t = r.choice(toks)
        return (text[:t.end()] + " " + t.group() + text[t.end():]).encode(), kind
    if kind in ("number", "bound"):
        nums = [t for t in toks if re.fullmatch(r"-?\d+", t.group())]
        if nums:
            t = r.choice(nums)
            big = r.choice(["9223372036854775807", "-9223372036854775808", "4611686018427387904",
                            "-1", "-7", "0", "100000000", "2147483648", "99999999999999999999",
                            "4294967296", "-4611686018427387904"])
            return (text[:t.start()] + big + text[t.end():]).encode(), kind
    if kind == "step":
        if " step " in text:
            i = text.index(" step ")
            j = i + 6
            while j < len(text) and text[j].isdigit():
                j += 1
            return (text[:i] + " step " + r.choice(["0", "-1", "9223372036854775807"]) + text[j:]).encode(), kind
        if "affine.for" in text:
            i = text.index("{", text.index("affine.for"))
            return (text[:i] + "step " + r.choice(["0", "-2", "4611686018427387904"]) + " " + text[i:]).encode(), kind
    if kind == "scale":
        # A huge coefficient in a subscript or a bound: i * 2^62 overflows
        # 64 bits at i = 2.
        ivs = [m for m in re.finditer(r"\[([^\]]*?)(%i\d+)", text)]
        if ivs:
            m = r.choice(ivs)
            big = r.choice(["4611686018427387904", "2305843009213693952", "1099511627776",
                            "9223372036854775807", "-4611686018427387904"])
            return (text[:m.start(2)] + "%s * %s" % (m.group(2), big) + text[m.end(2):]).encode(), kind
    if kind == "deep":
        depth = r.choice([20, 64, 200])
        body = "affine.store %v, %A[%i0] : memref<8xf64>\n"
        for k in reversed(range(depth)):
            body = "affine.for %%i%d = 0 to 2 {\n%s}\n" % (k, body)
        return ("func.func @deep(%%A: memref<8xf64>, %%v: f64) {\n%sreturn\n}\n" % body).encode(), kind
    if kind == "utf8":
        b = bytearray(text.encode())
        pos = r.randrange(len(b) + 1)
        b[pos:pos] = r.choice([b"\xff", b"\xc3", b"\xe2\x82", b"\x00", b"\xed\xa0\x80"])
        return bytes(b), kind
    if kind == "line":
        lines = text.splitlines(True)
        if len(lines) > 2:
            i = r.randrange(len(lines))
            if r.random() < 0.5:
                del lines[i]
            else:
                lines.insert(r.randrange(len(lines)), lines[i])
            return "".join(lines).encode(), kind
    pos = r.randrange(len(text))
    return (text[:pos] + r.choice("{}()[]<>%@:=,-x0 \n\"") + text[pos + 1:]).encode(), "char"


def mutate_iter_args(text, r):
    """One mutation of a loop's carried values: a yield with another value,
    another type, one value too few or too many; an init value or a
    result type changed; the loop's result used inside it; a second
    iter_arg; a yield of the block argument of another loop."""
    yields = [m for m in re.finditer(r"affine\.yield (%[\w#]+) : f64", text)]
    heads = [m for m in re.finditer(r"iter_args\((%[\w]+) = (%[\w#]+)\) -> \(f64\)", text)]
    results = [m for m in re.finditer(r"(%[\w]+) = affine\.for", text)]
    choice = r.choice(["yield-value", "yield-type", "yield-none", "yield-two", "init", "result-type",
                       "result-inside", "second-arg", "other-arg"])
    if choice.startswith("yield") and yields:
        m = r.choice(yields)
        new = {"yield-value": "affine.yield %s : f64" % r.choice(["%c0", "%undefined", m.group(1) + "x"]),
               "yield-type": "affine.yield %s : f32" % m.group(1),
               "yield-none": "affine.yield",
               "yield-two": "affine.yield %s, %s : f64, f64" % (m.group(1), m.group(1))}[choice]
        return (text[:m.start()] + new + text[m.end():]).encode()
    if choice in ("init", "result-type", "second-arg") and heads:
        m = r.choice(heads)
        new = {"init": "iter_args(%s = %s) -> (f64)" % (m.group(1), r.choice(["%c0", "%nope", m.group(1)])),
               "result-type": "iter_args(%s = %s) -> (%s)" % (m.group(1), m.group(2), r.choice(["f32", "i64", "index"])),
               "second-arg": "iter_args(%s = %s, %s_2 = %s) -> (f64, f64)" % (
                   m.group(1), m.group(2), m.group(1), m.group(2))}[choice]
        return (text[:m.start()] + new + text[m.end():]).encode()
    if choice == "result-inside" and results and yields:
        res = r.choice(results).group(1)
        m = r.choice(yields)
        return (text[:m.start()] + "affine.yield %s : f64" % res + text[m.end():]).encode()
    if choice == "other-arg" and len(heads) > 1 and yields:
        a = r.choice(heads).group(1)
        m = r.choice(yields)
        return (text[:m.start()] + "affine.yield %s : f64" % a + text[m.end():]).encode()
    # No such construct: a yield dropped.
    i = text.find("affine.yield")
    j = text.find("\n", i)
    return (text[:i] + text[j:]).encode() if i >= 0 else text.encode()


def upstream_roundtrip_fails(tools, path, why):
    """True when the stock mlir-opt, with no pass, prints `path` in a form
    that it cannot parse again with the same error as `why`: MLIR's own
    printer at fault, not a pass (it folds `i * -2^62 * 2` into
    `i * -9223372036854775808`, a literal its parser refuses)."""
    if not os.path.exists(tools.mlir_opt):
        return False
    rc, out, _, _ = run([tools.mlir_opt, path], timeout=tools.compile_limit)
    if rc != 0:
        return False
    rc2, _, err2, _ = run([tools.mlir_opt, "-"], stdin=out.encode(), timeout=tools.compile_limit)
    msg = lambda e: e.split("error:", 1)[-1].strip()
    return rc2 not in (0, None) and msg((err2.strip().splitlines() or [""])[0]) == msg(why)


def malformed_case(tools, seed, work, family="mixed"):
    r = random.Random(seed)
    # By default a third of the programs from the carried family (loops
    # with iter_args, which `mutate` then also mutates as such), the others
    # mixed; with another --family, that family's.
    if family == "mixed":
        family = "carried" if r.random() < 1 / 3 else "mixed"
    else:
        r.random()
    prog = gen.generate(seed, family)
    text = gen.kernel_text(prog) if r.random() < 0.7 else gen.module_text(prog)
    data, kind = mutate(text, r)
    if r.random() < 0.2:
        data2, kind2 = mutate(data.decode("utf-8", "replace"), r)
        data, kind = data2, kind + "+" + kind2
    path = os.path.join(work, "m%d.mlir" % seed)
    with open(path, "wb") as f:
        f.write(data)
    p = r.choice(PASSES)
    rc, out, err, secs = run([tools.opt, path, p], timeout=tools.compile_limit)
    res = {"seed": seed, "kind": kind, "pass": p, "class": None, "detail": "", "secs": secs}
    diags = diagnostics(err)
    errors = [m for s, m in diags if s == "error"]
    if rc is None:
        res["class"], res["detail"] = "timeout", "still running after %.0f s" % tools.compile_limit
    elif rc < 0:
        res["class"], res["detail"] = "signal", "killed by signal %d" % -rc
    elif "panicked" in err or "internal error" in err:
        res["class"], res["detail"] = "panic", (err.strip().splitlines() or [""])[-1]
    elif rc == 0:
        if errors:
            res["class"], res["detail"] = "bad-exit", "exit 0 with an error: " + errors[0]
        else:
            # A clean success: the output must parse again.
            rc2, _, err2, _ = run([tools.opt, "-"], stdin=out.encode(), timeout=tools.compile_limit)
            if rc2 != 0:
                why = (err2.strip().splitlines() or [""])[0]
                res["class"], res["detail"] = "bad-output", why
                if upstream_roundtrip_fails(tools, path, why):
                    res["class"] = "upstream"
            else:
                res["class"] = "success"
    elif rc == 1 and (errors or err.strip()):
        res["class"], res["detail"] = "diagnostic", (errors or [err.strip().splitlines()[0]])[0]
    else:
        res["class"], res["detail"] = "bad-exit", "exit %d: %s" % (rc, (err.strip().splitlines() or [""])[-1])
    if res["class"] not in ("success", "diagnostic", "upstream"):
        os.makedirs(os.path.join(ROOT_OUT[0], "malformed"), exist_ok=True)
        keep = os.path.join(ROOT_OUT[0], "malformed", "m%d.mlir" % seed)
        shutil.copy(path, keep)
        res["saved"] = keep
    os.remove(path)
    return res


ROOT_OUT = ["fuzz-out"]


def cmd_malformed(args):
    tools = Tools(args.bin_dir, args.compile_limit)
    ROOT_OUT[0] = args.out
    results = []
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="polyrs-malformed-") as work:
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as ex:
            futs = [ex.submit(malformed_case, tools, s, work, args.family)
                    for s in range(args.start, args.start + args.count)]
            for f in concurrent.futures.as_completed(futs):
                r = f.result()
                results.append(r)
                if r["class"] == "upstream":
                    print("UPSTREAM seed %-6d %-10s %-32s %s (stock mlir-opt's own round trip fails the same way)" % (
                        r["seed"], r["kind"], r["pass"], r["detail"][:160]), flush=True)
                elif r["class"] not in ("success", "diagnostic"):
                    print("FAIL %-10s seed %-6d %-10s %-32s %s  [%s]" % (
                        r["class"], r["seed"], r["kind"], r["pass"], r["detail"][:160], r.get("saved")),
                        flush=True)
    counts = collections.Counter(r["class"] for r in results)
    kinds = collections.Counter(r["kind"].split("+")[0] for r in results)
    print("%d malformed inputs in %.0f s" % (len(results), time.monotonic() - t0))
    print("| outcome | inputs |\n|---|---|")
    for c in ["success", "diagnostic", "upstream", "bad-exit", "bad-output", "panic", "signal", "timeout"]:
        print("| %s | %d |" % (c, counts.get(c, 0)))
    print("mutations: " + ", ".join("%s %d" % kv for kv in sorted(kinds.items())))
    carried = collections.Counter(r["class"] for r in results if r["kind"].split("+")[0] == "iter_args")
    print("iter_args mutations: " + ", ".join("%s %d" % kv for kv in sorted(carried.items())))
    print("slowest: %.2f s" % max((r["secs"] for r in results), default=0))
    bad = sum(v for k, v in counts.items() if k not in ("success", "diagnostic", "upstream"))
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)

    def common(p):
        p.add_argument("--bin-dir", default=bin_dir_default())
        p.add_argument("--family", choices=gen.FAMILIES, default="mixed",
                       help="the kind of program (docs/fuzzing.md): mixed (random nests, the default), "
                            "steps (a loop over steps reducing over a column and updating the ones after "
                            "it, Gram-Schmidt's shape), matvec (matrix-vector nests: gesummv's, "
                            "bicg's, atax's shapes), factor (triangular factorizations: "
                            "cholesky's, lu's, ludcmp's shapes), around (statements between nests), "
                            "ml, carried (iter_args), reductions, rows, locals (local buffers), "
                            "parallel (affine.parallel reductions) or views (accesses through "
                            "memref views)")
        p.add_argument("--compile-limit", type=float, default=10.0,
                       help="seconds poly-opt may take per program (default 10)")
        p.add_argument("--verify-emit", type=int, default=5000000,
                       help="poly-opt's verify-emit budget in every option set (default 5000000, enough "
                            "for every program drawn; 0: the option left out, for binaries before it)")

    p = sub.add_parser("run", help="a differential campaign")
    common(p)
    p.add_argument("--count", type=int, default=1000)
    p.add_argument("--start", type=int, default=1)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--time-budget", type=float, default=0, help="stop starting cases after SEC seconds")
    p.add_argument("--options-set", action="append", help="only these option sets (default: all, rotating)")
    p.add_argument("--out", default="fuzz-out")
    p.add_argument("--shrink", action="store_true", help="shrink every failure")
    p.add_argument("--table", help="write the table of outcomes here (markdown)")
    p.add_argument("--max-unchanged", type=float, default=None,
                   help="fail when more than this percentage of SCoPs is left unchanged (not by design)")
    p.add_argument("--min-compared", type=float, default=None,
                   help="fail when under this percentage of the programs run with contract=true is exact, "
                        "compared bit for bit")
    p.add_argument("--min-remark", metavar="PHRASE:PCT",
                   help="fail when under PCT percent of the programs get a remark containing PHRASE "
                        "(a campaign that must reach a transformation)")
    p.add_argument("-v", "--verbose", action="store_true")
    p = sub.add_parser("check", help="one case")
    common(p)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json")
    p.add_argument("--options", default="")
    p = sub.add_parser("file", help="one MLIR file (with a @main) under every option set")
    common(p)
    p.add_argument("path")
    p.add_argument("--options-set", action="append", help="only these option sets (default: the rotation)")
    p = sub.add_parser("shrink", help="shrink a failing case")
    common(p)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json")
    p.add_argument("--options", default="")
    p.add_argument("--out")
    p.add_argument("--lit", help="also write a lit regression test of the shrunk program here")
    p.add_argument("--why", help="what the lit test guards against (default: the failure)")
    p.add_argument("--budget", type=float, default=900, help="seconds (default 900)")
    p = sub.add_parser("malformed", help="malformed-input campaign")
    common(p)
    p.add_argument("--count", type=int, default=3000)
    p.add_argument("--start", type=int, default=1)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--out", default="fuzz-out")
    args = ap.parse_args()
    global VERIFY_EMIT
    VERIFY_EMIT = "verify-emit=%d" % args.verify_emit if args.verify_emit else ""
    sys.exit({"run": cmd_run, "check": cmd_check, "file": cmd_file, "shrink": cmd_shrink,
              "malformed": cmd_malformed}[args.cmd](args))


if __name__ == "__main__":
    main()
