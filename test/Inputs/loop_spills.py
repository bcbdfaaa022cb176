"""Counts the vector spills and reloads (16-, 32- and 64-byte) in llc's
verbose assembly, read from stdin: in innermost loops (the blocks of a loop
whose header LLVM marks `=> This Inner Loop Header`), in any loop, and in
all. Prints `spills: innermost N, loops N, all N`.

llc names a block `.LBB1_11:` and refers to it in its loop comments as
`Header=BB1_11`; it indents its own header marks by depth
(`# =>This Loop Header: Depth=1`, `# =>    This Inner Loop Header: Depth=3`).
Both are normalized here: a mark at any depth counts, and a block's loop is
found whether it is the header itself or a block `in Loop: Header=...`.
`--self-test` checks that on a small listing with loops two deep."""
import re
import sys


def block_name(label):
    """`.LBB1_11` -> `BB1_11`, the name llc's loop comments use."""
    return label[2:] if label.startswith(".L") else label.lstrip(".")


def count(lines):
    blocks = []  # {name, header (name of its loop's header or None), spills}
    innermost = set()
    cur = None
    for line in lines:
        m = re.match(r"^(\.?[A-Za-z_][\w.$]*):", line)
        if m:
            cur = {"name": block_name(m.group(1)), "header": None, "spills": 0}
            blocks.append(cur)
        if cur is None:
            continue
        if re.search(r"=>\s*This Inner Loop Header: Depth=\d+", line):
            innermost.add(cur["name"])
            cur["header"] = cur["name"]
        elif re.search(r"=>\s*This Loop Header: Depth=\d+", line):
            cur["header"] = cur["name"]
        h = re.search(r"#\s+in Loop: Header=(\S+) Depth=\d+", line)
        if h and cur["header"] is None:
            cur["header"] = h.group(1)
        if re.search(r"(16|32|64)-byte (Spill|Reload)", line):
            cur["spills"] += 1
    inner = sum(b["spills"] for b in blocks if b["header"] in innermost)
    loops = sum(b["spills"] for b in blocks if b["header"] is not None)
    total = sum(b["spills"] for b in blocks)
    return inner, loops, total


SELF_TEST = """\
f:
\tvmovapd\t%xmm0, 16(%rsp)                 # 16-byte Spill
.LBB0_1:                                # %outer
                                        # =>This Loop Header: Depth=1
\tvmovups\t%ymm1, 32(%rsp)                 # 32-byte Spill
.LBB0_2:                                # %inner
                                        #   Parent Loop BB0_1 Depth=1
                                        # =>  This Inner Loop Header: Depth=2
\tvmovups\t32(%rsp), %ymm2                 # 32-byte Reload
.LBB0_3:                                # %inner.latch
                                        #   in Loop: Header=BB0_2 Depth=2
\tvmovups\t64(%rsp), %zmm2                 # 64-byte Reload
\tmovq\t8(%rsp), %rax                      # 8-byte Reload
.LBB0_4:                                # %outer.latch
                                        #   in Loop: Header=BB0_1 Depth=1
\tvmovups\t%ymm1, 32(%rsp)                 # 32-byte Spill
.LBB0_5:
\tretq
"""

if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        got = count(SELF_TEST.splitlines())
        assert got == (2, 4, 5), got
        print("loop_spills self-test: ok")
    else:
        print("spills: innermost %d, loops %d, all %d" % count(sys.stdin))
