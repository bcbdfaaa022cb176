"""Counts the vector spills and reloads (16-, 32- and 64-byte) in llc's
verbose assembly, read from stdin: in innermost loops (the blocks of a loop
whose header LLVM marks `=>This Inner Loop Header`), in any loop, and in
all. Prints `spills: innermost N, loops N, all N`."""
import re
import sys

blocks = []  # (label, header of its loop or None, is an inner loop header)
innermost = set()
cur = None
for line in sys.stdin:
    m = re.match(r"^(\.?[A-Za-z_][\w.$]*):", line)
    if m:
        cur = {"label": m.group(1), "header": None, "spills": 0}
        blocks.append(cur)
    if cur is None:
        continue
    h = re.search(r"=>This Inner Loop Header: Depth=\d+", line)
    if h:
        innermost.add(cur["label"].lstrip("."))
        cur["header"] = cur["label"].lstrip(".")
    h = re.search(r"#\s+in Loop: Header=(\S+) Depth=\d+", line)
    if h and cur["header"] is None:
        cur["header"] = h.group(1)
    h = re.search(r"=>This Loop Header: Depth=\d+", line)
    if h and cur["header"] is None:
        cur["header"] = cur["label"].lstrip(".")
    if re.search(r"(16|32|64)-byte (Spill|Reload)", line):
        cur["spills"] += 1
inner = sum(b["spills"] for b in blocks if b["header"] in innermost)
loops = sum(b["spills"] for b in blocks if b["header"] is not None)
total = sum(b["spills"] for b in blocks)
print("spills: innermost %d, loops %d, all %d" % (inner, loops, total))
