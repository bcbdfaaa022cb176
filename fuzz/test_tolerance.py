#!/usr/bin/env python3
"""Tests of the fuzzer's comparison within a tolerance (gen.tolerance,
fuzz.compare_cells): the bound holds against exact rational arithmetic,
and a result off by a millionth of its magnitude is caught.

  python3 fuzz/test_tolerance.py      (cargo test runs it: tests/fuzz.rs)
"""

import os
import sys
import unittest
from fractions import Fraction

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import fuzz  # noqa: E402
import gen  # noqa: E402

# Programs whose arithmetic rounds (seeds of the reductions and matvec
# families found so by gen.oracle_exact with dyadic initial values), small
# enough for rational arithmetic.
ROUNDING = [("reductions", s) for s in range(1, 40)] + [("matvec", s) for s in range(1, 15)]


def rounding_programs(limit):
    out = []
    for family, seed in ROUNDING:
        prog = gen.generate(seed, family)
        prog["init"] = "dyadic"
        if gen.oracle_exact(prog)[1]:
            continue
        if gen.walk_accesses(prog, lambda *_: None) > 20_000:
            continue
        out.append((family, seed, prog))
        if len(out) == limit:
            break
    return out


def bits(values):
    return [gen.cell_bits(v) for cells in values for v in cells]


class Tolerance(unittest.TestCase):
    def test_the_bound_holds_against_exact_arithmetic(self):
        """Each cell of the doubles' run lies within half the tolerance
        (gamma_K M, the bound of one evaluation) of the exact value."""
        progs = rounding_programs(6)
        self.assertGreaterEqual(len(progs), 4, "too few programs whose arithmetic rounds")
        for family, seed, prog in progs:
            exact = gen.interpret(prog, rational=True).values
            run = gen.interpret(prog, bounds=True)
            for a, (cells, want) in enumerate(zip(run.values, exact)):
                for k, (v, w) in enumerate(zip(cells, want)):
                    bound = gen.gamma(run.ops[a][k]) * run.mags[a][k]
                    self.assertLessEqual(abs(Fraction(v) - w), bound,
                                         "%s %d: array %d cell %d" % (family, seed, a, k))

    def test_a_millionth_of_the_magnitude_is_wrong(self):
        """The tolerance stays under a billionth of each cell's magnitude M
        (so a term of a reduction of fewer than a million terms of like
        size, left out or counted twice, is caught): the cell with the
        most roundings moved by M / 10^8 is wrong, moved by one unit in
        the last place it is close."""
        for family, seed, prog in rounding_programs(4):
            run = gen.interpret(prog, bounds=True)
            mags = [m for cells in run.mags for m in cells]
            ops = [k for cells in run.ops for k in cells]
            bounds = [c for cells in gen.tolerance(prog) for c in cells]
            ref = bits(run.values)
            finite = [i for i in range(len(bounds)) if bounds[i][1] < float("inf")]
            for i in finite:
                self.assertLessEqual(bounds[i][1], 1e-9 * mags[i], "%s %d: cell %d" % (family, seed, i))
            k = max(finite, key=lambda i: ops[i])
            self.assertGreater(ops[k], 100, "%s %d: no long reduction" % (family, seed))
            off = list(ref)
            off[k] = gen.cell_bits(bounds[k][0] + 1e-8 * mags[k])
            cls, detail = fuzz.compare_cells(bounds, ref, off)
            self.assertEqual(cls, "wrong", "%s %d: %s" % (family, seed, detail))
            ulp = list(ref)
            ulp[k] = ref[k] + 1
            cls, detail = fuzz.compare_cells(bounds, ref, ulp)
            self.assertEqual(cls, "close", "%s %d: %s" % (family, seed, detail))

    def test_identical_and_nan_cells_need_no_bound(self):
        inf = float("inf")
        nan = float("nan")
        bounds = [(1.0, inf), (nan, inf)]
        ref = [gen.cell_bits(1.0), gen.cell_bits(nan)]
        got = [gen.cell_bits(1.0), gen.cell_bits(-nan)]
        self.assertEqual(fuzz.compare_cells(bounds, ref, got)[0], "close")
        got = [gen.cell_bits(1.5), gen.cell_bits(nan)]
        self.assertEqual(fuzz.compare_cells(bounds, ref, got)[0], "inexact")

    def test_the_untransformed_program_must_match_the_oracle(self):
        bounds = [(1.0, 1e-9)]
        self.assertEqual(fuzz.compare_cells(bounds, [gen.cell_bits(2.0)], [gen.cell_bits(2.0)])[0], "gen")


if __name__ == "__main__":
    unittest.main()
