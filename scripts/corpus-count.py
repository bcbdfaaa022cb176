#!/usr/bin/env python3
"""What poly-opt does with the loop nests of a corpus of MLIR files: how
many it transforms, leaves unchanged (and why), or rejects as not a static
control part (and why), counted by reason, for one build or two side by
side.

  python3 scripts/corpus-count.py DIR [--bin-dir target/release]
                                      [--before OTHER_BIN_DIR]
                                      [--options 'profitability=false']

Every `*.mlir` file under DIR is cut at its `// -----` lines (MLIR's
split-input-file convention) and each part goes through `polyrs-opt
--allow-unregistered-dialect --poly-opt=OPTIONS`; the remark poly-opt
gives each top-level loop nest is counted: "transformed", "unchanged:
REASON" (a static control part left as it was) or "rejected: REASON" (not
a static control part). Parts that do not parse or verify count once as
"input: does not parse or verify". Reasons are normalized: an operation
outside any registered dialect (the tests' `"foo"()`, `test.*`) becomes
'unregistered op', numbers become N. With --before, the same corpus goes
through a second build's polyrs-opt and the table has both columns.

docs/corpus.md lists the corpus this was run on (public files, not kept
in the tree) and the table.
"""

import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

REMARK = re.compile(r"remark: poly-opt: (.*)$")
QUOTED = re.compile(r"'([^']*)'")
# The dialects MLIR registers that the corpus uses (an op named otherwise,
# or `test.*`, is unregistered there).
DIALECTS = ("affine.", "arith.", "memref.", "func.", "scf.", "math.", "vector.", "llvm.", "gpu.", "tensor.",
            "linalg.", "index.", "cf.", "omp.", "bufferization.", "builtin.")


def norm(reason):
    """The reason with unregistered op names and numbers folded."""
    def op(m):
        name = m.group(1)
        return "'unregistered op'" if not name.startswith(DIALECTS) else m.group(0)
    reason = QUOTED.sub(op, reason)
    reason = re.sub(r"\b\d+\b", "N", reason)
    return reason.split(" (e.g.")[0]


def parts(path):
    with open(path, errors="replace") as f:
        text = f.read()
    return [p for p in re.split(r"(?m)^// -----.*$", text) if p.strip()]


def classify(opt, text, options, work):
    """The outcomes of one part: a list of (kind, reason)."""
    src = os.path.join(work, "part.mlir")
    with open(src, "w") as f:
        f.write(text)
    popt = "--poly-opt=" + options if options else "--poly-opt"
    try:
        p = subprocess.run([opt, "--allow-unregistered-dialect", src, popt], capture_output=True, text=True,
                           timeout=60)
    except subprocess.TimeoutExpired:
        return [("input", "poly-opt ran over 60 s")]
    out = []
    for line in p.stderr.splitlines():
        m = REMARK.search(line)
        if not m:
            continue
        msg = m.group(1)
        if msg.startswith("loop nest not optimized: it is not a static control part: "):
            out.append(("rejected", norm(msg.split(": ", 2)[2])))
        elif msg.startswith("SCoP left unchanged: "):
            out.append(("unchanged", norm(msg[len("SCoP left unchanged: "):])))
        elif msg.startswith("loop nest not optimized: "):
            out.append(("rejected", norm(msg[len("loop nest not optimized: "):])))
        else:
            out.append(("transformed", ""))
    if p.returncode != 0 and not out:
        out.append(("input", "does not parse or verify"))
    return out


def count(bin_dir, files, options):
    opt = os.path.join(bin_dir, "polyrs-opt")
    if not os.path.exists(opt):
        sys.exit("no polyrs-opt in %s" % bin_dir)
    counts = collections.Counter()
    with tempfile.TemporaryDirectory(prefix="polyrs-corpus-") as work:
        for path in files:
            for text in parts(path):
                counts.update(classify(opt, text, options, work))
    return counts


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir")
    ap.add_argument("--bin-dir", default=os.path.join(ROOT, "target", "release"))
    ap.add_argument("--before", help="another build's binary folder, counted beside")
    ap.add_argument("--options", default="profitability=false",
                    help="poly-opt's options (default profitability=false: every SCoP it can transform is)")
    args = ap.parse_args()
    files = sorted(os.path.join(d, f) for d, _, fs in os.walk(args.dir) for f in fs if f.endswith(".mlir"))
    if not files:
        sys.exit("no .mlir files under %s" % args.dir)
    nparts = sum(len(parts(f)) for f in files)
    after = count(args.bin_dir, files, args.options)
    before = count(args.before, files, args.options) if args.before else None
    print("%d files, %d parts; poly-opt options: %s" % (len(files), nparts, args.options or "(defaults)"))
    print()
    keys = sorted(set(after) | set(before or {}), key=lambda k: ({"transformed": 0, "unchanged": 1,
                                                                  "rejected": 2, "input": 3}[k[0]], k[1]))
    head = "| outcome | reason |" + (" before |" if before is not None else "") + " nests |"
    print(head)
    print("|---|---|" + ("---|" if before is not None else "") + "---|")
    for k in keys:
        cells = [k[0], k[1] or "-"] + ([str(before.get(k, 0))] if before is not None else []) + [str(after.get(k, 0))]
        print("| " + " | ".join(cells) + " |")
    for kind in ("transformed", "unchanged", "rejected"):
        b = sum(v for k, v in (before or {}).items() if k[0] == kind)
        a = sum(v for k, v in after.items() if k[0] == kind)
        print("| **%s, all** | |" % kind + (" **%d** |" % b if before is not None else "") + " **%d** |" % a)


if __name__ == "__main__":
    main()
