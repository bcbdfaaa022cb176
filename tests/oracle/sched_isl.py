#!/usr/bin/env python3
"""isl oracle for polyrs' scheduler: re-verifies legality with isl.

Reads the stderr of `polyrs-opt --poly-print-deps --poly-print-schedule
--mlir-disable-threading`. For each scheduled SCoP, with Θ the printed
schedule (a union map) and D each printed dependence relation, isl checks

    D ∩ (Θ ⪰lex Θ) = ∅        (no sink runs at or before its source)

using its own lex_ge_union_map. Exits 1 on any violation, 2 when nothing
was checked.
"""
import re
import sys

import islpy as isl

DEPS = re.compile(r"^deps @(\S+) at (\S+): \d+ relations$")
DEP = re.compile(r"^  (RAW|WAR|WAW) (\S+) -> (\S+) on \S+, [^:]*: (.*)$")
SCHED = re.compile(r"^schedule @(\S+) at (\S+)$")
STMT = re.compile(r"^  (\[.*\] -> )?\{ (\S+\[.*\] -> \[.*\]) \}$")


def main():
    deps, scheds = {}, {}
    cur, mode = None, None
    for line in sys.stdin:
        line = line.rstrip("\n")
        m = DEPS.match(line)
        if m:
            cur, mode = (m.group(1), m.group(2)), "deps"
            deps[cur] = []
            continue
        m = SCHED.match(line)
        if m:
            cur, mode = (m.group(1), m.group(2)), "sched"
            scheds[cur] = []
            continue
        if mode == "deps":
            m = DEP.match(line)
            if m:
                deps[cur].append((m.group(1), m.group(2), m.group(3), m.group(4)))
        elif mode == "sched":
            m = STMT.match(line)
            if m:
                scheds[cur].append((m.group(1) or "") + "{ " + m.group(2) + " }")
    checked = bad = 0
    for key, stmts in scheds.items():
        theta = None
        for s in stmts:
            u = isl.UnionMap(s)
            theta = u if theta is None else theta.union(u)
        ge = theta.lex_ge_union_map(theta)
        for kind, src, dst, rel in deps.get(key, []):
            checked += 1
            v = isl.UnionMap(rel).intersect(ge)
            if not v.is_empty():
                bad += 1
                print("VIOLATED %s %s %s %s -> %s: %s" % (key[0], key[1], kind, src, dst, v.coalesce()))
        print("checked %s %s: %d dependences" % (key[0], key[1], len(deps.get(key, []))))
    print("%d checked, %d violations" % (checked, bad))
    if checked == 0:
        return 2
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
