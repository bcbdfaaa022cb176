#!/usr/bin/env python3
"""isl oracle for polyrs' dependence analysis.

Reads the stderr of `polyrs-opt --poly-print-scop --poly-print-deps
--mlir-disable-threading` from stdin. For each SCoP, isl recomputes the
memory-based dependences from the printed domains, accesses and schedules
with the access-relation formula

    order = S <<_lex S                  (S: the union of the schedules)
    RAW   = (W . R^-1) ∩ order          (W, R: writes and reads, restricted
    WAR   = (R . W^-1) ∩ order           to the domains)
    WAW   = (W . W^-1) ∩ order

and compares each with the union of polyrs' relations of that kind as sets
(isl is_equal). It also checks that every printed access relation lies in
its statement's domain. Prints one line per SCoP and kind; exits 1 on any
disagreement, 2 on malformed input.
"""
import re
import sys

import islpy as isl

SCOP = re.compile(r"^scop @(\S+) at (\S+)$")
DEPS = re.compile(r"^deps @(\S+) at (\S+): (\d+) relations$")
STMT = re.compile(r"^  statement (\S+) ")
FIELD = re.compile(r"^    (domain|schedule|write \S+|read \S+): (.*)$")
DEP = re.compile(r"^  (RAW|WAR|WAW|RAR) (\S+) -> (\S+) on (\S+), [^:]*: (.*)$")


def main():
    scops = {}   # (func, loc) -> dict
    deps = {}    # (func, loc) -> {kind: [text]}
    cur = None
    mode = None
    for line in sys.stdin:
        line = line.rstrip("\n")
        m = SCOP.match(line)
        if m:
            cur = (m.group(1), m.group(2))
            scops[cur] = {"domain": [], "schedule": [], "write": [], "read": []}
            mode = "scop"
            continue
        m = DEPS.match(line)
        if m:
            cur = (m.group(1), m.group(2))
            deps[cur] = {"RAW": [], "WAR": [], "WAW": [], "count": int(m.group(3))}
            mode = "deps"
            continue
        if mode == "scop" and cur is not None:
            m = FIELD.match(line)
            if m:
                key = m.group(1).split()[0]
                scops[cur][key].append(m.group(2))
        elif mode == "deps" and cur is not None:
            m = DEP.match(line)
            if m and m.group(1) in deps[cur]:
                deps[cur][m.group(1)].append(m.group(5))
    if not scops:
        print("no SCoP in the input")
        return 2
    bad = 0
    checked = 0
    for key, s in scops.items():
        def union(texts, cls):
            u = None
            for t in texts:
                x = cls(t)
                u = x if u is None else u.union(x)
            return u
        dom = union(s["domain"], isl.UnionSet)
        sched = union(s["schedule"], isl.UnionMap)
        W = union(s["write"], isl.UnionMap)
        R = union(s["read"], isl.UnionMap)
        if W is None:
            continue
        empty = W.apply_range(W.reverse()).subtract(W.apply_range(W.reverse()))
        if R is None:
            R = W.subtract(W)
        # Accesses lie in their domains.
        for acc in (W, R):
            if not acc.domain().is_subset(dom):
                print("%s %s: access outside the domain" % key)
                bad += 1
        order = sched.lex_lt_union_map(sched)
        want = {
            "RAW": W.apply_range(R.reverse()).intersect(order),
            "WAR": R.apply_range(W.reverse()).intersect(order),
            "WAW": W.apply_range(W.reverse()).intersect(order),
        }
        ours = deps.get(key)
        if ours is None:
            print("%s %s: no dependences printed" % key)
            bad += 1
            continue
        for kind, w in want.items():
            got = union(ours[kind], isl.UnionMap) or empty
            checked += 1
            if got.is_equal(w):
                print("OK       %s %s %s (%d relations)" % (key[0], key[1], kind, len(ours[kind])))
            else:
                bad += 1
                print("MISMATCH %s %s %s" % (key[0], key[1], kind))
                print("  polyrs only: %s" % got.subtract(w).coalesce())
                print("  isl only:    %s" % w.subtract(got).coalesce())
    print("%d checked, %d disagreements" % (checked, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
