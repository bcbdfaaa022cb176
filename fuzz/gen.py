#!/usr/bin/env python3
"""Seeded generator of random, valid affine programs (the fuzzer's input).

A program is a small AST (JSON-serializable lists and dicts) that prints as
an MLIR module with two functions:

  @kernel(params..., arrays...)   the affine code poly-opt transforms:
      affine.for nests (depth 1-4, imperfect, several consecutive nests
      sharing arrays) with rectangular, triangular, max/min, symbolic and
      floordiv/mod bounds and steps, affine.if with and without else,
      1-6 statements (stores of arithmetic over loads) with subscripts
      using offsets, sums of iterators, scaling, floordiv and mod,
      in-place stencils and reductions into cells, rank-0 to rank-3
      memrefs (static or dynamic shapes).
  @main()   allocates the arrays, fills every cell with a distinct value,
      calls @kernel with the parameter values, and prints one exact
      checksum per array: sum over cells of bits(cell) * (linear index + 1)
      in wrapping 64-bit integers (every NaN counted as the same bits: the
      sign and payload of a NaN differ between constant folding and the
      hardware). main uses scf loops and memref.load, so
      that poly-opt (which works on affine loops) leaves it alone.

Validity by construction: the generator runs the program in a Python
interpreter of the AST (same integer semantics as MLIR: floordiv rounds
down, mod is non-negative) with the parameters' values, shifts every
subscript whose smallest value is negative, and sizes each array to the
largest subscript reached; programs with too many instances are drawn
again. Every access of the program is therefore inside its array.

Usage:
  fuzz/gen.py --seed N [--family F] [--json]
                                     print program N (MLIR, or its AST) of the
                                     mixed family (random nests), of the
                                     steps family (Gram-Schmidt's shape), of
                                     the matvec family (matrix-vector nests:
                                     gesummv's, bicg's, atax's shapes), of
                                     the factor family (cholesky's, lu's and
                                     ludcmp's shapes), of the around, ml or
                                     carried family (another family's program
                                     with its reductions into cells carried
                                     through iter_args), of the reductions
                                     family (reductions over whole nests), of
                                     the rows family (steps along each row:
                                     softmax's shape)
  fuzz/gen.py --seed N --init dyadic  the same with dyadic initial values
                                     (the fuzzer's contract=true cases)
  fuzz/gen.py --from-json FILE       print the MLIR of a saved AST
Only the Python 3 standard library is used.
"""

import argparse
import copy
import json
import random
import sys

# Largest number of statement instances of a generated program.
MAX_INSTANCES = 60_000

# The binary operations of values: `+`, `-`, `*` (arith.addf, subf, mulf)
# and `max` (arith.maximumf: IEEE 754-2019 maximum, NaN-propagating, +0
# above -0).
BINARY = ("+", "-", "*", "max")


def fmax(x, y):
    """arith.maximumf on doubles."""
    import math
    if x != x or y != y:
        return float("nan")
    if x == y == 0.0:
        return x if math.copysign(1.0, x) > 0 else y
    return x if x > y else y

# ---------------------------------------------------------------------------
# Affine expressions: ["c", k] | ["v", name] | ["p", name] | ["+", a, b]
# | ["*", k, e] | ["fd", e, k] | ["cd", e, k] | ["mod", e, k]
# ---------------------------------------------------------------------------


def load(arr, idx):
    """The value of `arr[idx]`."""
    return ["ld", arr, idx]


def C(k):
    return ["c", k]


def V(n):
    return ["v", n]


def P(n):
    return ["p", n]


def add(a, b):
    if a[0] == "c" and a[1] == 0:
        return b
    if b[0] == "c" and b[1] == 0:
        return a
    if a[0] == "c" and b[0] == "c":
        return C(a[1] + b[1])
    return ["+", a, b]


def mul(k, e):
    if k == 1:
        return e
    if e[0] == "c":
        return C(k * e[1])
    return ["*", k, e]


def ev(e, env):
    """Value of an affine expression (MLIR semantics)."""
    op = e[0]
    if op == "c":
        return e[1]
    if op in ("v", "p"):
        return env[e[1]]
    if op == "+":
        return ev(e[1], env) + ev(e[2], env)
    if op == "*":
        return e[1] * ev(e[2], env)
    if op == "fd":
        return ev(e[1], env) // e[2]
    if op == "cd":
        return -((-ev(e[1], env)) // e[2])
    if op == "mod":
        return ev(e[1], env) % e[2]
    raise ValueError(op)


def names_in(e, kind, out):
    if e[0] == kind:
        if e[1] not in out:
            out.append(e[1])
    elif e[0] == "+":
        names_in(e[1], kind, out)
        names_in(e[2], kind, out)
    elif e[0] == "*":
        names_in(e[2], kind, out)
    elif e[0] in ("fd", "cd", "mod"):
        names_in(e[1], kind, out)
    return out


def text(e, name):
    """MLIR affine-expression text; `name(kind, n)` names a variable."""
    op = e[0]
    if op == "c":
        return str(e[1]) if e[1] >= 0 else "(%d)" % e[1]
    if op in ("v", "p"):
        return name(op, e[1])
    if op == "+":
        b = e[2]
        if b[0] == "c" and b[1] < 0:
            return "(%s - %d)" % (text(e[1], name), -b[1])
        return "(%s + %s)" % (text(e[1], name), text(b, name))
    if op == "*":
        if e[1] == -1:
            return "(-%s)" % text(e[2], name)
        return "(%s * %s)" % (text(e[2], name), str(e[1]) if e[1] >= 0 else "(%d)" % e[1])
    kw = {"fd": "floordiv", "cd": "ceildiv", "mod": "mod"}[op]
    return "(%s %s %d)" % (text(e[1], name), kw, e[2])


# ---------------------------------------------------------------------------
# Program AST
#
# program = {"params": {name: value}, "arrays": [array], "body": [node],
#            "seed": N}
# array   = {"name": "A0", "shape": [int], "dynamic": bool}
# node    = {"k": "for", "iv": "i0", "lbs": [e], "ubs": [e], "step": s,
#            "body": [node]}
#         | {"k": "if", "conds": [[e, is_eq]], "then": [node], "else": [node] | None}
#         | {"k": "stmt", "arr": index, "idx": [e], "val": value}
#         | {"k": "let", "name": "x0", "val": value}
# value   = ["ld", array index, [e]] | ["ld", array index, [e], "m"]
#         | ["use", let name] | ["f", float] | ["+"|"-"|"*"|"max", value, value]
#
# A "stmt" with "m": True stores with memref.store, a load with "m" loads
# with memref.load (its subscripts computed by affine.apply); the others use
# affine.store and affine.load. A "let" computes its value where it stands
# (its loads read memory there) and names it; a "use" of the name, in the
# same block after the let or in a block nested there, is that value (an
# SSA value defined at one depth and used at another).
# ---------------------------------------------------------------------------


class Gen:
    def __init__(self, seed):
        self.r = random.Random(seed)
        self.seed = seed
        self.nstmt = 0
        self.niv = 0

    def chance(self, p):
        return self.r.random() < p

    def new_stmt(self, arr, idx, val):
        """A statement storing `val` into `arr[idx]` (counted)."""
        self.nstmt += 1
        return {"k": "stmt", "arr": arr, "idx": idx, "val": val}

    def new_iv(self):
        """A fresh iterator name."""
        self.niv += 1
        return "i%d" % self.niv

    def pick(self, xs):
        return self.r.choice(xs)

    # -- expressions --------------------------------------------------------

    def small(self):
        return self.r.randint(-2, 2)

    def iv_expr(self, ivs):
        """An expression of one iterator, usually `i + c`."""
        i = V(self.pick(ivs))
        roll = self.r.random()
        if roll < 0.70:
            return add(i, C(self.small()))
        if roll < 0.78:
            return add(mul(self.pick([2, 3]), i), C(self.small()))
        if roll < 0.86:
            return ["fd", add(i, C(self.r.randint(0, 2))), self.pick([2, 3])]
        if roll < 0.92:
            return ["mod", i, self.pick([2, 3, 4])]
        if roll < 0.96:
            return add(mul(-1, i), C(self.r.randint(0, 12)))
        return ["cd", i, 2]

    def subscript(self, ivs, params):
        """One subscript of an access inside loops `ivs`."""
        if not ivs or self.chance(0.06):
            return C(self.r.randint(0, 3))
        e = self.iv_expr(ivs)
        if len(ivs) >= 2 and self.chance(0.12):
            e = add(e, V(self.pick(ivs)))
        if params and self.chance(0.06):
            e = add(e, P(self.pick(params)))
        return e

    # -- loops --------------------------------------------------------------

    def bound(self, ivs, params, lower):
        """A loop bound: a list of expressions (max for lower, min for upper)."""
        roll = self.r.random()
        outer = V(self.pick(ivs)) if ivs else None
        if lower:
            if roll < 0.55 or outer is None and roll < 0.8:
                return [C(self.r.randint(0, 2))]
            if outer is not None and roll < 0.78:
                return [add(outer, C(self.r.randint(-1, 1)))]  # triangular
            if outer is not None and roll < 0.88:
                return [C(0), add(outer, C(-self.r.randint(1, 4)))]  # max
            if outer is not None and roll < 0.94:
                return [["fd", outer, 2]]
            if params:
                return [add(P(self.pick(params)), C(-self.r.randint(3, 8))), C(0)]
            return [C(1)]
        if roll < 0.35:
            return [C(self.r.randint(3, 11))]
        if params and roll < 0.6:
            return [add(P(self.pick(params)), C(self.r.randint(-2, 0)))]
        if outer is not None and roll < 0.75:
            return [add(outer, C(self.r.randint(1, 3)))]  # triangular
        if outer is not None and roll < 0.85:
            hi = P(self.pick(params)) if params else C(self.r.randint(5, 10))
            return [hi, add(outer, C(self.r.randint(2, 5)))]  # min
        if outer is not None and roll < 0.92:
            return [add(["fd", outer, 2], C(self.r.randint(1, 3)))]
        if outer is not None and params and roll < 0.97:
            return [add(P(self.pick(params)), mul(-1, outer))]
        return [C(self.r.randint(4, 9))]

    def loop(self, ivs, params, depth, max_depth, budget):
        iv = "i%d" % self.niv
        self.niv += 1
        lbs = self.bound(ivs, params, True)
        ubs = self.bound(ivs, params, False)
        step = 1
        if self.chance(0.12):
            step = self.pick([2, 3])
        body = self.block(ivs + [iv], params, depth + 1, max_depth, budget)
        return {"k": "for", "iv": iv, "lbs": lbs, "ubs": ubs, "step": step, "body": body}

    def cond(self, ivs, params):
        i = V(self.pick(ivs))
        roll = self.r.random()
        if roll < 0.3 and len(ivs) >= 2:
            return [add(i, mul(-1, V(self.pick(ivs)))), False]  # i >= j
        if roll < 0.55:
            return [add(i, C(-self.r.randint(1, 4))), False]  # i >= c
        if roll < 0.7:
            return [add(C(self.r.randint(3, 8)), mul(-1, i)), False]  # i <= c
        if roll < 0.82:
            return [["mod", i, 2], True]  # i even
        if roll < 0.9 and params:
            return [add(P(self.pick(params)), add(mul(-1, i), C(-2))), False]
        return [add(i, C(-self.r.randint(0, 3))), True]  # i == c

    def block(self, ivs, params, depth, max_depth, budget):
        """The body of a loop at `depth` (1 = outermost loop's body): a few
        statements, inner loops and guards; below `max_depth` usually an
        inner loop among them."""
        items = []
        n = 1 if self.chance(0.5) else self.r.randint(1, 3)
        nested_at = self.r.randrange(n) if depth < max_depth and self.chance(0.75) else -1
        for pos in range(n):
            if self.nstmt >= budget:
                break
            roll = self.r.random()
            if pos == nested_at or (depth < max_depth and roll < 0.2):
                items.append(self.loop(ivs, params, depth, max_depth, budget))
            elif ivs and roll < 0.35:
                then = [self.stmt(ivs, params)]
                if self.chance(0.3) and self.nstmt < budget and depth < max_depth:
                    then.append(self.loop(ivs, params, depth, max_depth, budget))
                els = None
                if self.chance(0.4) and self.nstmt < budget:
                    els = [self.stmt(ivs, params)]
                conds = [self.cond(ivs, params) for _ in range(self.r.randint(1, 2))]
                items.append({"k": "if", "conds": conds, "then": then, "else": els})
            else:
                items.append(self.stmt(ivs, params))
        if not items:
            items.append(self.stmt(ivs, params))
        return items

    # -- statements ---------------------------------------------------------

    def access(self, arr, ivs, params):
        """Subscripts of one access: mostly a different iterator per
        dimension, as array code indexes its arrays."""
        out = []
        free = list(ivs)
        self.r.shuffle(free)
        for _ in range(self.ranks[arr]):
            if free and self.chance(0.8):
                out.append(self.subscript([free.pop()], params))
            else:
                out.append(self.subscript(ivs, params))
        return out

    def leaf(self, ivs, params):
        if self.chance(0.15):
            return ["f", self.pick([0.5, 1.25, -0.75, 2.0, 0.3])]
        a = self.r.randrange(len(self.ranks))
        return ["ld", a, self.access(a, ivs, params)]

    def value(self, ivs, params, n):
        v = self.leaf(ivs, params)
        for _ in range(n - 1):
            v = [self.pick(["+", "-", "*"]), v, self.leaf(ivs, params)]
        return v

    def stmt(self, ivs, params):
        self.nstmt += 1
        arr = self.r.randrange(len(self.ranks))
        idx = self.access(arr, ivs, params)
        roll = self.r.random()
        if roll < 0.25:
            # A reduction into a cell: A[s] = A[s] + f(...)
            val = ["+", ["ld", arr, list(idx)], ["*", self.leaf(ivs, params), self.leaf(ivs, params)]]
        elif roll < 0.45 and ivs:
            # An in-place stencil: the written array read at neighbours.
            reads = []
            for _ in range(self.r.randint(1, 3)):
                reads.append(["ld", arr, [add(e, C(self.small())) if self.chance(0.7) else e
                                          for e in idx]])
            val = reads[0]
            for x in reads[1:]:
                val = ["+", val, x]
            val = ["*", ["f", 0.5], val]
        else:
            val = self.value(ivs, params, self.r.randint(1, 3))
        return {"k": "stmt", "arr": arr, "idx": idx, "val": val}

    # -- the "steps" family ---------------------------------------------------

    def steps(self):
        """A program of the "steps" family: a sequential loop over steps `k`
        whose body reduces over a column, scales it, then updates the
        columns after it, each with loops of its own over the rows
        (modified Gram-Schmidt and its relatives: what embedding, point-loop
        sinking and retiming work on), with random sizes, bounds, offsets,
        extra statements and statements left out."""
        r = self.r
        params = {}
        if self.chance(0.3):
            params["n0"] = r.randint(5, 12)
        m = r.randint(3, 13)
        n = r.randint(3, 12)
        A, R, Q, c, B = 0, 1, 2, 3, 4
        self.ranks = [2, 2, 2, 1, 1]
        k, i, j = "i0", "i1", "i2"
        ivs = {"k": V(k), "i": V(i), "j": V(j)}
        n_hi = add(P("n0"), C(r.randint(-2, 0))) if params and self.chance(0.5) else C(n)
        rows_lo = [C(0)] if self.chance(0.75) else [V(k)]
        rows_hi = [C(m)]

        def rows(body):
            self.niv += 1
            return {"k": "for", "iv": "i%d" % (100 + self.niv), "lbs": rows_lo, "ubs": rows_hi,
                    "step": 1, "body": body}

        def row(stmt_fn):
            loop = rows([])
            iv = V(loop["iv"])
            loop["body"] = [stmt_fn(iv)]
            return loop

        st = self.new_stmt
        ld = load
        koff = C(r.choice([0, 0, 0, 1]))
        col = add(ivs["k"], koff)
        body = []
        if self.chance(0.8):
            body.append(st(c, [C(0)], ["f", self.pick([0.0, 0.5])]))
        if self.chance(0.9):
            body.append(row(lambda x: st(c, [C(0)], ["+", ld(c, [C(0)]),
                                                    ["*", ld(A, [x, col]), ld(A, [x, col])]])))
        if self.chance(0.85):
            body.append(st(R, [ivs["k"], ivs["k"]], ["*", ld(c, [C(0)]), ["f", self.pick([0.5, 0.25, -0.75])]]))
        scale = ld(R, [ivs["k"], ivs["k"]]) if self.chance(0.7) else ["f", 1.25]
        if self.chance(0.9):
            body.append(row(lambda x: st(Q, [x, ivs["k"]], ["*", ld(A, [x, col]), scale])))
        inner = []
        if self.chance(0.7):
            inner.append(st(R, [ivs["k"], V(j)], ["f", 0.0]))
        inner.append(row(lambda x: st(R, [ivs["k"], V(j)], ["+", ld(R, [ivs["k"], V(j)]),
                                                           ["*", ld(Q, [x, ivs["k"]]), ld(A, [x, V(j)])]])))
        if self.chance(0.2):
            inner.append(st(B, [V(j)], ["+", ld(B, [V(j)]), ld(R, [ivs["k"], V(j)])]))
        upd = self.pick(["-", "-", "+"])
        inner.append(row(lambda x: st(A, [x, V(j)], [upd, ld(A, [x, V(j)]),
                                                     ["*", ld(Q, [x, ivs["k"]]), ld(R, [ivs["k"], V(j)])]])))
        if self.chance(0.15):
            # Something else reads the updated column at the next step.
            inner.append(row(lambda x: st(B, [V(j)], ["+", ld(B, [V(j)]), ld(A, [add(x, C(0)), V(j)])])))
        jlo = add(ivs["k"], C(r.choice([1, 1, 1, 2, 0])))
        body.append({"k": "for", "iv": j, "lbs": [jlo], "ubs": [n_hi], "step": 1, "body": inner})
        top = {"k": "for", "iv": k, "lbs": [C(0)], "ubs": [add(n_hi, C(-r.choice([0, 0, 1, 2])))],
               "step": 1, "body": body}
        arrays = [{"name": "A%d" % a, "rank": self.ranks[a], "shape": None,
                   "dynamic": self.chance(0.2)} for a in range(len(self.ranks))]
        return {"seed": self.seed, "params": params, "arrays": arrays, "body": [top],
                "family": "steps"}

    def reduction_value(self, cell, term):
        """The value `cell ⊕ term` of a reduction's update (matvec and
        streams), written `cell + term`, `term + cell` or `cell - term`."""
        roll = self.r.random()
        if roll < 0.6:
            return ["+", load(*cell), term]
        if roll < 0.85:
            return ["+", term, load(*cell)]
        return ["-", load(*cell), term]

    # -- the "matvec" family --------------------------------------------------

    def matvec(self):
        """A program of the "matvec" family: one to three nests of two loops
        over matrices (gesummv, bicg, atax, mvt, gemver and their relatives:
        what row blocks, column streams and forwarding work on), each with
        one or two reductions along its inner loop, into cells fixed along
        it (a row's sum, `y[i] += A[i][j] * x[j]`) or into cells along it (a
        column stream, `s[j] += r[i] * A[i][j]`), the matrix read as is or
        transposed; with random sizes (full and partial blocks of every
        vector width), triangular and offset bounds, initializations and
        finishing statements, nests that read what an earlier one wrote,
        and now and then what keeps the copies scalar: another operation, a
        read of another shape, a write outside the cells; and atax's nest of
        a row's sum then the row's terms into the column sums, in two loops
        over the columns."""
        r = self.r
        params = {}
        if self.chance(0.3):
            params["n0"] = r.randint(5, 40)
        # Mostly a tile or less; now and then several tiles of the default
        # sizes (partial tiles of whole and partial blocks).
        big = self.chance(0.2)
        m = r.randint(42, 140) if big else r.randint(3, 41)
        n = r.randint(42, 140) if big else r.randint(3, 41)
        # Now and then (session 57 on) wide rows: with a small L1 (option
        # set `l1-1`) a column stream takes several tiles per thread.
        if big and self.chance(0.25):
            n = r.randint(257, 600)
        # Matrices A, B, Z; vectors along the rows Y, T, R; along the
        # columns X, S.
        A, B, Z, Y, T, R, X, S = range(8)
        self.ranks = [2, 2, 2, 1, 1, 1, 1, 1]

        def size(v):
            if params and self.chance(0.4):
                return add(P("n0"), C(-r.randint(0, 2)))
            return C(v)

        st = self.new_stmt
        ld = load
        fresh = self.new_iv
        def nest():
            i, j = fresh(), fresh()
            vi, vj = V(i), V(j)
            transposed = self.chance(0.25)
            mat = self.pick([A, A, B])

            def elem(arr, di=0, dj=0):
                rr, cc = add(vi, C(di)), add(vj, C(dj))
                return ld(arr, [cc, rr] if transposed else [rr, cc])

            reduction = self.reduction_value

            if self.chance(0.15):
                # atax's shape (session 62): each row's sum along j, then
                # the row's terms into the column sums along j, in a loop
                # of its own after it; under reassociate the column sums
                # get a private copy per thread and the rows are jammed
                # below the two loops (src/transform/row_jam.rs). Now and
                # then a third operation or an initialization between.
                j2 = fresh()
                vj2 = V(j2)
                pre = [st(T, [vi], ["f", 0.0])] if self.chance(0.7) else []
                dot = ["*", elem(mat), ld(X, [vj])]
                if self.chance(0.1):
                    dot = ["*", dot, ["f", 0.5]]
                row2 = [vj2, vi] if transposed else [vi, vj2]
                upd = ["*", ld(mat, row2), ld(T, [vi])]
                if self.chance(0.5):
                    upd = ["*", ld(T, [vi]), ld(mat, row2)]
                first = {"k": "for", "iv": j, "lbs": [C(0)], "ubs": [size(n)], "step": 1,
                         "body": [st(T, [vi], reduction((T, [vi]), dot))]}
                second = {"k": "for", "iv": j2, "lbs": [C(0)], "ubs": [size(n)], "step": 1,
                          "body": [st(S, [vj2], reduction((S, [vj2]), upd))]}
                return {"k": "for", "iv": i, "lbs": [C(0)], "ubs": [size(m)], "step": 1,
                        "body": pre + [first, second]}

            kinds = [self.pick(["row", "row", "col", "col", "update"])]
            if self.chance(0.45):
                kinds.append(self.pick(["row", "col", "row2"]))
            pre, inner, post = [], [], []
            for kind in kinds:
                if kind in ("row", "row2"):
                    out = Y if kind == "row" and Y not in used else T
                    used.add(out)
                    src = mat if kind == "row" else (B if mat == A else A)
                    term = ["*", elem(src), ld(self.pick([X, X, S]), [vj])]
                    if self.chance(0.1):
                        term = ["*", term, ["f", 0.5]]  # another operation
                    if self.chance(0.08):
                        term = ["+", term, elem(src, 0, 1)]  # another shape
                    if self.chance(0.5):
                        pre.append(st(out, [vi], ["f", self.pick([0.0, 0.0, 1.5])]))
                    inner.append(st(out, [vi], reduction((out, [vi]), term)))
                    if self.chance(0.25):
                        post.append(st(out, [vi], ["+", ["*", ["f", 1.25], ld(out, [vi])],
                                                   ["*", ["f", 0.5], ld(self.pick([T, R]), [vi])]]))
                elif kind == "col":
                    weight = ld(self.pick([R, R, Y, T]), [vi])
                    term = ["*", weight, elem(mat)] if self.chance(0.7) else ["*", elem(mat), weight]
                    if self.chance(0.1):
                        term = ["+", term, elem(mat, 1, 0)]  # another shape
                    inner.append(st(S, [vj], reduction((S, [vj]), term)))
                else:
                    # A rank-one update of the matrix (gemver's first nest).
                    cell = [vj, vi] if transposed else [vi, vj]
                    inner.append(st(mat, cell, ["+", ld(mat, cell),
                                                ["*", ld(R, [vi]), ld(X, [vj])]]))
            if self.chance(0.08):
                # A write outside the cells.
                inner.append(st(Z, [vi, vj], ["*", elem(mat), ["f", 0.5]]))
            r.shuffle(inner)
            jlo, jhi = [C(0)], [size(n)]
            roll = r.random()
            if roll < 0.12:
                jhi = [add(vi, C(r.randint(1, 2)))]  # lower triangle
            elif roll < 0.22:
                jlo = [add(vi, C(r.randint(0, 1)))]  # upper triangle
            elif roll < 0.3:
                jlo = [C(r.randint(1, 3))]
            elif roll < 0.36:
                jhi = [add(size(n), C(-r.randint(1, 5)))]
            ilo = [C(0)] if self.chance(0.85) else [C(r.randint(1, 3))]
            istep = 1 if self.chance(0.92) else 2
            jloop = {"k": "for", "iv": j, "lbs": jlo, "ubs": jhi, "step": 1, "body": inner}
            return {"k": "for", "iv": i, "lbs": ilo, "ubs": [size(m)], "step": istep,
                    "body": pre + [jloop] + post}

        used = set()
        body = []
        if self.chance(0.3):
            # The column sums start from zero in a nest of their own.
            jv = fresh()
            body.append({"k": "for", "iv": jv, "lbs": [C(0)], "ubs": [size(n)], "step": 1,
                         "body": [st(S, [V(jv)], ["f", 0.0])]})
        for _ in range(self.pick([1, 1, 2, 2, 3])):
            body.append(nest())
        arrays = [{"name": "A%d" % a, "rank": self.ranks[a], "shape": None,
                   "dynamic": self.chance(0.2)} for a in range(len(self.ranks))]
        return {"seed": self.seed, "params": params, "arrays": arrays, "body": body,
                "family": "matvec"}

    # -- the "streams" family -------------------------------------------------

    def streams(self):
        """A program of the "streams" family (session 57): bicg's and mvt's
        shape, which the interleave stage (src/transform/interleave.rs)
        works on: a nest of rows (`y[i] += A[i][j] * x[j]`) and a column
        stream over the same matrix (`s[j] += r[i] * A[i][j]`), written
        with the columns inside (bicg's) or outside (mvt's second nest),
        in either order or as one nest of both statements; rows up to 600
        elements wide (several column tiles per thread with a small L1:
        option set `l1-1`), the matrix now and then read transposed by
        both, the column stream now and then over a triangle (columns of
        different lengths), now and then a dependence that joins the two
        (the rows read the sums, or the stream's weights are the rows'
        results), and the sums zeroed first or not."""
        r = self.r
        A, Y, R, X, S = range(5)
        self.ranks = [2, 1, 1, 1, 1]
        n = r.randint(257, 600) if self.chance(0.5) else r.randint(3, 256)
        m = r.randint(8, max(8, min(140, 24000 // n)))
        transposed = self.chance(0.2)
        st = self.new_stmt
        ld = load
        fresh = self.new_iv

        def elem(vi, vj):
            return ld(A, [vj, vi] if transposed else [vi, vj])

        reduction = self.reduction_value

        join = self.pick([None] * 8 + ["rows read sums", "weights are rows"])
        triangle = self.chance(0.15)

        def row_stmt(vi, vj):
            vec = S if join == "rows read sums" else X
            term = ["*", elem(vi, vj), ld(vec, [vj])]
            return st(Y, [vi], reduction((Y, [vi]), term))

        def col_stmt(vi, vj):
            weight = ld(Y if join == "weights are rows" else R, [vi])
            term = ["*", weight, elem(vi, vj)] if self.chance(0.6) else ["*", elem(vi, vj), weight]
            return st(S, [vj], reduction((S, [vj]), term))

        def loop(iv, hi, body, lo=None):
            return {"k": "for", "iv": iv, "lbs": [lo or C(0)], "ubs": [hi], "step": 1, "body": body}

        def rows_nest():
            i, j = fresh(), fresh()
            pre = [st(Y, [V(i)], ["f", 0.0])] if self.chance(0.5) else []
            return loop(i, C(m), pre + [loop(j, C(n), [row_stmt(V(i), V(j))])])

        def col_nest():
            i, j = fresh(), fresh()
            if self.chance(0.5):
                # mvt's: the columns outside.
                hi, lo = C(m), None
                if triangle:
                    lo = add(V(j), C(0)) if n <= m else None
                return loop(j, C(n), [loop(i, hi, [col_stmt(V(i), V(j))], lo)])
            hi = add(V(i), C(1)) if triangle else C(n)
            return loop(i, C(m), [loop(j, hi, [col_stmt(V(i), V(j))])])

        body = []
        if self.chance(0.4):
            k = fresh()
            body.append(loop(k, C(n), [st(S, [V(k)], ["f", 0.0])]))
        if self.chance(0.25):
            # bicg's: one nest of both statements.
            i, j = fresh(), fresh()
            inner = [col_stmt(V(i), V(j)), row_stmt(V(i), V(j))]
            r.shuffle(inner)
            body.append(loop(i, C(m), [loop(j, C(n), inner)]))
        else:
            nests = [rows_nest(), col_nest()]
            r.shuffle(nests)
            body.extend(nests)
        arrays = [{"name": "A%d" % a, "rank": self.ranks[a], "shape": None,
                   "dynamic": self.chance(0.15)} for a in range(len(self.ranks))]
        return {"seed": self.seed, "params": {}, "arrays": arrays, "body": body,
                "family": "streams"}

    # -- the "factor" family --------------------------------------------------

    def factor(self):
        """A program of the "factor" family: triangular factorizations and
        their relatives (cholesky, lu, ludcmp): a row or pivot loop around
        dot products along `k` into cells below (or above) the diagonal,
        `X[i][j] -= L[i][k] * M[j][k]`, the second operand read along its
        rows (a gather along `j`) or down its columns (a stream), and
        statements beside them that run once per cell or per row: a
        scaling by the diagonal at the dot product's end, the diagonal's
        own sum of squares and its update (what register blocks with
        statements on their edges and the gather stage work on); with
        random sizes, bound offsets, operand orders and statements left
        out."""
        r = self.r
        params = {}
        big = self.chance(0.25)
        n = r.randint(42, 66) if big else r.randint(3, 41)
        if self.chance(0.25):
            params["n0"] = n
        X, B, D = 0, 1, 2
        self.ranks = [2, 2, 2]

        def size():
            if params and self.chance(0.6):
                return P("n0")
            return C(n)

        st = self.new_stmt
        ld = load
        def loop(iv, lo, hi, body):
            return {"k": "for", "iv": iv, "lbs": [lo], "ubs": [hi], "step": 1, "body": body}

        def update(cell, a, b):
            prod = ["*", a, b] if self.chance(0.8) else ["*", b, a]
            return [self.pick(["-", "-", "+"]), ld(*cell), prod]

        i, j, k = "i0", "i1", "i2"
        vi, vj, vk = V(i), V(j), V(k)
        body = []
        shape = self.pick(["cholesky", "cholesky", "lu", "upper"])
        src = self.pick([X, X, B])
        if shape == "cholesky":
            # for i: for j < i: { for k < j: X[i][j] -= L[i][k] * M[j][k];
            #                      X[i][j] *= X[j][j] }
            #        for k < i: X[i][i] -= X[i][k]^2;  X[i][i] = f(X[i][i])
            gather = self.chance(0.75)
            m = [vj, vk] if gather else [vk, vj]
            cell = (X, [vi, vj])
            inner = [loop(k, C(0), add(vj, C(self.pick([0, 0, 0, 1, -1]))),
                          [st(X, [vi, vj], update(cell, ld(X, [vi, vk]), ld(src, m)))])]
            if self.chance(0.8):
                scale = ld(self.pick([X, X, D]), [vj, vj]) if self.chance(0.8) else ["f", 0.5]
                inner.append(st(X, [vi, vj], ["*", ld(X, [vi, vj]), scale]))
            if self.chance(0.2):
                inner.insert(0, st(X, [vi, vj], ["+", ld(X, [vi, vj]), ["f", 0.25]]))
            row = [loop(j, C(0), add(vi, C(self.pick([0, 0, 0, 1]))), inner)]
            if self.chance(0.7):
                diag = (X, [vi, vi])
                row.append(loop(k, C(0), vi, [st(X, [vi, vi], update(diag, ld(X, [vi, vk]), ld(X, [vi, vk])))]))
            if self.chance(0.6):
                row.append(st(X, [vi, vi], ["+", ["*", ld(X, [vi, vi]), ["f", 0.5]], ["f", 1.0]]))
            body.append(loop(i, C(self.pick([0, 0, 1])), size(), row))
        elif shape == "lu":
            # for k: for i > k: { X[i][k] *= X[k][k];
            #                      for j > k: X[i][j] -= X[i][k] * M[k][j] }
            rows = []
            if self.chance(0.8):
                rows.append(st(X, [vi, vk], ["*", ld(X, [vi, vk]), ld(X, [vk, vk])]))
            stream = self.chance(0.7)
            m = [vk, vj] if stream else [vj, vk]
            rows.append(loop(j, add(vk, C(1)), size(),
                             [st(X, [vi, vj], update((X, [vi, vj]), ld(X, [vi, vk]), ld(src, m)))]))
            body.append(loop(k, C(0), size(), [loop(i, add(vk, C(1)), size(), rows)]))
        else:
            # ludcmp's two halves: for i: { for j < i: { for k < j: ...;
            #   X[i][j] *= X[j][j] }  for j >= i: for k < i: ... }
            lower_k = loop(k, C(0), vj, [st(X, [vi, vj], update((X, [vi, vj]), ld(X, [vi, vk]),
                                                               ld(src, [vk, vj])))])
            lower = [lower_k]
            if self.chance(0.7):
                lower.append(st(X, [vi, vj], ["*", ld(X, [vi, vj]), ld(X, [vj, vj])]))
            upper = [loop(k, C(0), vi, [st(X, [vi, vj], update((X, [vi, vj]), ld(X, [vi, vk]),
                                                                ld(self.pick([X, src]), [vk, vj])))])]
            row = [loop(j, C(0), vi, lower), loop(j, vi, size(), upper)]
            body.append(loop(i, C(0), size(), row))
        arrays = [{"name": "A%d" % a, "rank": self.ranks[a], "shape": None,
                   "dynamic": self.chance(0.2)} for a in range(len(self.ranks))]
        return {"seed": self.seed, "params": params, "arrays": arrays, "body": body,
                "family": "factor"}

    # -- the program --------------------------------------------------------

    def program(self):
        r = self.r
        nparams = r.choice([0, 0, 1, 1, 2])
        params = {}
        for k in range(nparams):
            params["n%d" % k] = r.randint(5, 12)
        narr = r.randint(1, 4)
        self.ranks = [r.choice([0, 1, 1, 2, 2, 2, 3]) for _ in range(narr)]
        budget = r.randint(1, 6)
        max_depth = r.randint(1, 4)
        body = []
        nests = 1 if self.chance(0.55) else r.randint(2, 3)
        for _ in range(nests):
            if self.nstmt >= budget:
                break
            body.append(self.loop([], list(params), 0, max_depth, budget))
        arrays = [{"name": "A%d" % a, "rank": self.ranks[a], "shape": None,
                   "dynamic": self.chance(0.3)} for a in range(narr)]
        prog = {"seed": self.seed, "params": params, "arrays": arrays, "body": body}
        # What front ends put around the nests, drawn apart so that the
        # programs without it stay those of earlier campaigns.
        d = random.Random("around-%d" % self.seed)
        if d.random() < MIXED_AROUND:
            Around(d, prog, self.ranks).decorate()
        return prog

    # -- the "ml" family ---------------------------------------------------------

    def ml(self):
        """A program of the "ml" family: the nests ML front ends produce
        (linalg on memrefs lowered by `convert-linalg-to-affine-loops`):
        convolutions (NHWC or NCHW; random strides, dilations, kernel
        sizes and channel counts; padding through affine bounds or
        guards), depthwise convolutions, poolings (max, sum, average),
        tensor contractions whose operands' subscripts are random
        permutations of their indices (now and then wide), and batched matmuls (the second
        operand now and then transposed). The output starts in a nest of
        its own now and then (zero, a bias, the window's first cell); the
        loops come in the front end's order, now and then in another;
        extents are small, now and then wide enough for whole register
        blocks, and now and then a parameter."""
        r = self.r
        self.ranks = []
        params = {}
        body = []

        def array(rank):
            self.ranks.append(rank)
            return len(self.ranks) - 1

        fresh = self.new_iv
        st = self.new_stmt
        ld = load
        def nest(loops, inner):
            """Loops `(iv, lbs, ubs)`, outermost first, around `inner`."""
            node = inner
            for iv, lbs, ubs in reversed(loops):
                node = [{"k": "for", "iv": iv, "lbs": lbs, "ubs": ubs, "step": 1, "body": node}]
            return node[0]

        def box(ivs, extents):
            return [(iv, [C(0)], [e]) for iv, e in zip(ivs, extents)]

        def extent(lo, hi):
            if self.chance(0.12):
                if "n0" not in params:
                    params["n0"] = r.randint(lo, hi)
                return P("n0")
            return C(r.randint(lo, hi))

        def accumulate(cell, term, op="+"):
            if op == "max":
                return ["max", ld(*cell), term] if self.chance(0.7) else ["max", term, ld(*cell)]
            return ["+", ld(*cell), term] if self.chance(0.7) else ["+", term, ld(*cell)]

        def shuffled(order):
            """The front end's loop order, now and then another."""
            if self.chance(0.15):
                order = order[:]
                r.shuffle(order)
            return order

        kind = self.pick(["conv", "conv", "conv", "depthwise", "pool", "contraction",
                          "contraction", "bmm"])
        if kind in ("conv", "depthwise", "pool"):
            wide = self.chance(0.25)
            nchw = self.chance(0.35)
            k = [self.pick([1, 2, 3, 3, 3, 5]) for _ in range(2)]
            if self.chance(0.7):
                k[1] = k[0]
            stride = self.pick([1, 1, 1, 2])
            dil = self.pick([1, 1, 1, 1, 2])
            n = self.pick([1, 1, 1, 2])
            oh = r.randint(1, 6)
            ow = r.randint(16, 20) if wide else r.randint(1, 9)
            c = r.randint(1, 3) if wide else r.randint(1, 6)
            f = c if kind != "conv" else (r.randint(8, 24) if wide else r.randint(1, 12))
            pad = [self.pick([0, 0, (kk - 1) * dil // 2]) for kk in k]
            guard = self.chance(0.5)
            spatial = [(oh - 1) * stride + (k[0] - 1) * dil + 1 - 2 * pad[0],
                       (ow - 1) * stride + (k[1] - 1) * dil + 1 - 2 * pad[1]]
            spatial = [max(1, x) for x in spatial]
            O = array(4)
            I = array(4)
            Fw = array(4 if kind == "conv" else 2) if kind != "pool" else None
            iv = {name: fresh() for name in ("n", "oh", "ow", "f", "kh", "kw", "c")}
            v = {name: V(x) for name, x in iv.items()}
            ext = {"n": C(n), "oh": extent(1, 6) if self.chance(0.1) else C(oh), "ow": C(ow),
                   "f": C(f), "kh": C(k[0]), "kw": C(k[1]), "c": C(c)}
            if kind == "conv":
                order = ["n", "f", "oh", "ow", "c", "kh", "kw"] if nchw else \
                    ["n", "oh", "ow", "f", "kh", "kw", "c"]
            else:
                order = ["n", "c", "oh", "ow", "kh", "kw"] if nchw else \
                    ["n", "oh", "ow", "c", "kh", "kw"]
                # The output's channels are the input's.
                iv["f"], v["f"] = iv["c"], v["c"]
            order = shuffled(order)
            # Input coordinates.
            xs = [add(add(mul(stride, v["oh"]), mul(dil, v["kh"])), C(-pad[0])),
                  add(add(mul(stride, v["ow"]), mul(dil, v["kw"])), C(-pad[1]))]
            chan = v["c"]
            in_idx = [v["n"], chan] + xs if nchw else [v["n"]] + xs + [chan]
            out_idx = [v["n"], v["f"], v["oh"], v["ow"]] if nchw else \
                [v["n"], v["oh"], v["ow"], v["f"]]
            x_in = ld(I, in_idx)
            if kind == "conv":
                w = ld(Fw, [v["f"], v["c"], v["kh"], v["kw"]] if nchw else
                       [v["kh"], v["kw"], v["c"], v["f"]])
                term = ["*", x_in, w] if self.chance(0.7) else ["*", w, x_in]
                op = "+"
            elif kind == "depthwise":
                w = ld(Fw, [v["kh"], v["c"]]) if self.chance(0.5) else ld(Fw, [v["kw"], v["c"]])
                term = ["*", x_in, w]
                op = "+"
            else:
                term = x_in
                op = self.pick(["max", "max", "+"])
            inner = [st(O, out_idx, accumulate((O, out_idx), term, op))]
            loops = [(iv[x], [C(0)], [ext[x]]) for x in order]
            if any(pad):
                # Padding: the taps outside the input are skipped, by a
                # guard or, where the window's loop runs inside the output's
                # (and the taps are dense), by the window's bounds.
                for d, (o, kk) in enumerate((("oh", "kh"), ("ow", "kw"))):
                    if not pad[d]:
                        continue
                    ko, kw_ = order.index(o), order.index(kk)
                    if not guard and dil == 1 and ko < kw_:
                        lo = add(C(pad[d]), mul(-stride, v[o]))
                        hi = add(C(spatial[d] + pad[d]), mul(-stride, v[o]))
                        loops[kw_] = (iv[kk], [C(0), lo], [ext[kk], hi])
                    else:
                        inner = [{"k": "if", "conds": [[xs[d], False],
                                                       [add(C(spatial[d] - 1), mul(-1, xs[d])), False]],
                                  "then": inner, "else": None}]
            if self.chance(0.5):
                # The output starts in a nest of its own.
                init = self.pick([["f", 0.0], "bias", "first"])
                if init == "bias":
                    B = array(1)
                    init = ld(B, [v["f"]])
                elif init == "first" or op == "max":
                    first = [v["n"], v["c"], mul(stride, v["oh"]), mul(stride, v["ow"])] if nchw \
                        else [v["n"], mul(stride, v["oh"]), mul(stride, v["ow"]), v["c"]]
                    if kind == "conv":
                        init = ["f", 0.0]
                    else:
                        init = ld(I, first)
                out_order = ["n", "f", "oh", "ow"] if nchw else ["n", "oh", "ow", "f"]
                body.append(nest([(iv[x], [C(0)], [ext[x]]) for x in out_order],
                                 [st(O, out_idx, init)]))
            body.append(nest(loops, inner))
            if kind == "pool" and op == "+" and self.chance(0.5):
                # An average: the sums scaled by the window's size.
                out_order = ["n", "f", "oh", "ow"] if nchw else ["n", "oh", "ow", "f"]
                body.append(nest([(iv[x], [C(0)], [ext[x]]) for x in out_order],
                                 [st(O, out_idx, ["*", ld(O, out_idx), ["f", 1.0 / (k[0] * k[1])]])]))
        else:
            if kind == "bmm":
                names = ["b", "i", "j", "k"]
                ext = {"b": extent(1, 6), "i": C(r.randint(1, 20)), "j": C(r.randint(1, 20)),
                       "k": extent(1, 12)}
                a_idx, c_idx = ["b", "i", "k"], ["b", "i", "j"]
                b_idx = ["b", "j", "k"] if self.chance(0.4) else ["b", "k", "j"]
                order = ["b", "i", "j", "k"]
            else:
                fa, fb, kc = r.randint(1, 2), r.randint(1, 2), r.randint(1, 2)
                free_a = ["a%d" % x for x in range(fa)]
                free_b = ["b%d" % x for x in range(fb)]
                con = ["k%d" % x for x in range(kc)]
                names = free_a + free_b + con
                ext = {x: C(r.randint(1, 7)) for x in names}
                if self.chance(0.3):
                    ext[self.pick(names)] = C(r.randint(8, 20))
                if self.chance(0.12):
                    ext[self.pick(names)] = extent(2, 8)
                # Now and then wide enough for whole register blocks and
                # read often enough for an operand to be transposed ahead
                # (poly-opt's `layout`); drawn from a generator of its own,
                # so that the other programs stay those of their seeds.
                side = random.Random(self.seed * 7919 + 17)
                if side.random() < 0.5:
                    for x in free_a + free_b:
                        ext[x] = C(side.randint(8, 18))
                    for x in con:
                        ext[x] = C(side.randint(2, 6))
                a_idx = free_a + con
                b_idx = free_b + con
                r.shuffle(a_idx)
                r.shuffle(b_idx)
                c_idx = free_a + free_b
                r.shuffle(c_idx)
                order = c_idx + con
            order = shuffled(order)
            A, Bm, Cm = array(len(a_idx)), array(len(b_idx)), array(len(c_idx))
            iv = {x: fresh() for x in names}
            va = lambda xs: [V(iv[x]) for x in xs]
            term = ["*", ld(A, va(a_idx)), ld(Bm, va(b_idx))]
            cell = (Cm, va(c_idx))
            loops = [(iv[x], [C(0)], [ext[x]]) for x in order]
            if self.chance(0.5):
                body.append(nest([(iv[x], [C(0)], [ext[x]]) for x in c_idx],
                                 [st(Cm, va(c_idx), ["f", 0.0])]))
            body.append(nest(loops, [st(Cm, va(c_idx), accumulate(cell, term))]))
        arrays = [{"name": "A%d" % a, "rank": self.ranks[a], "shape": None,
                   "dynamic": self.chance(0.15)} for a in range(len(self.ranks))]
        return {"seed": self.seed, "params": params, "arrays": arrays, "body": body,
                "family": "ml"}

    # -- the "reductions" family ------------------------------------------------

    def rows(self):
        """A program of the "rows" family: one loop over the rows of a
        matrix whose body makes several steps along each row (softmax's,
        layer normalization's and a row's moments' shape): a row's sum or
        maximum into a cell of its own, initialized first; a map of the row
        into another matrix using the cells so far and a vector along the
        row; a cell computed from other cells. Statements of one and two
        loops in one input nest, which the default fusion cuts apart and
        `distribute::retry_fused` keeps in one nest where the matrices are
        larger than the L2 (option set `rows-l2`); now and then the
        reductions carried through iter_args, the row loop with a step or
        an offset, the inner loops shorter."""
        r = self.r
        n = r.randint(2, 40)
        m = r.randint(2, 160)
        # Matrices A (read only), B, Z; a vector G along the rows; cells
        # of the rows R0, R1, R2.
        A, B, Z, G, R0, R1, R2 = range(7)
        self.ranks = [2, 2, 2, 1, 1, 1, 1]
        st = self.new_stmt
        ld = load
        i = self.new_iv()
        vi = V(i)
        cells = []
        written = []
        body = []

        def operand(vj):
            """A value along the row: the input, a matrix written so far,
            or one of them against a cell or the vector."""
            src = ld(self.pick([A, A] + written), [vi, vj])
            roll = r.random()
            if cells and roll < 0.35:
                return [self.pick(["-", "*", "+"]), src, ld(self.pick(cells), [vi])]
            if roll < 0.5:
                return ["*", src, ld(G, [vj])]
            return src

        def inner(stmts):
            j = self.new_iv()
            hi = C(m) if self.chance(0.85) else C(max(1, m - r.randint(1, 3)))
            return j, {"k": "for", "iv": j, "lbs": [C(0)], "ubs": [hi], "step": 1, "body": stmts}

        for _ in range(r.randint(2, 5)):
            kind = self.pick(["reduce", "reduce", "map", "map", "cell"])
            free = [c for c in (R0, R1, R2) if c not in cells]
            if kind == "reduce" and free:
                cell = free[0]
                op = self.pick(["+", "+", "max"])
                body.append(st(cell, [vi], ["f", 0.0 if op == "+" else -1000.0]))
                j, loop = inner([])
                term = operand(V(j))
                val = [op, ld(cell, [vi]), term] if self.chance(0.7) else [op, term, ld(cell, [vi])]
                loop["body"].append(st(cell, [vi], val))
                body.append(loop)
                cells.append(cell)
            elif kind == "cell" and cells:
                cell = self.pick(cells)
                other = self.pick(cells)
                body.append(st(cell, [vi], [self.pick(["*", "+", "-"]), ld(cell, [vi]),
                                            self.pick([["f", 0.5], ld(other, [vi])])]))
            else:
                out = self.pick([B, Z])
                j, loop = inner([])
                loop["body"].append(st(out, [vi, V(j)], operand(V(j))))
                if self.chance(0.3):
                    # A second map in the same loop.
                    other = Z if out == B else B
                    loop["body"].append(st(other, [vi, V(j)], ["*", ld(out, [vi, V(j)]), ["f", 0.5]]))
                    if other not in written:
                        written.append(other)
                body.append(loop)
                if out not in written:
                    written.append(out)
        lo = [C(0)] if self.chance(0.85) else [C(r.randint(1, 2))]
        step = 1 if self.chance(0.9) else 2
        outer = {"k": "for", "iv": i, "lbs": lo, "ubs": [C(n)], "step": step, "body": body}
        prog = {"seed": self.seed, "params": {}, "body": [outer], "family": "rows",
                "arrays": [{"name": "A%d" % a, "rank": self.ranks[a], "shape": None,
                            "dynamic": False} for a in range(len(self.ranks))]}
        if self.chance(0.5):
            mark_carried(prog["body"], r, 0.7)
        return prog

    def solves(self):
        """A program of the "solves" family: a triangular solve's shape,
        whose band has no parallel loop and runs as a wavefront or, cut
        into steps (poly-opt's `steps`), its terms of earlier steps in
        parallel: rows `x[i] -= L[i][j] * x[j]` over the columns before
        the row (or a few fewer, or from an offset), after `x[i] = b[i]`
        and now and then before a finishing step (`x[i] *= L[i][i]`, or
        with another cell); several right-hand sides (`X[i][k]`, `k`
        inside or around the columns' loop); the transposed matrix; the
        column-oriented solve (column `j` finished, then the rows after it
        updated with it); and beside it a recurrence whose rows read each
        other (`W[i][j]` from `W[i - 1][j]` and `W[i][j - 1]`: no steps),
        or an independent map. Sizes from a few rows to several steps of
        the default tiles, static or symbolic."""
        r = self.r
        params = {}
        big = self.chance(0.35)
        n = r.randint(40, 150) if big else r.randint(3, 40)
        if self.chance(0.3):
            params["n0"] = n

        def size(v):
            if params and self.chance(0.7):
                return add(P("n0"), C(-r.randint(0, 2)))
            return C(v)

        # L (read only), the solutions X (rows) or XK (rows and columns),
        # the right-hand sides B, BK, a recurrence's W.
        L, X, XK, B, BK, W = range(6)
        self.ranks = [2, 1, 2, 1, 2, 2]
        st = self.new_stmt
        ld = load
        body = []
        transposed = self.chance(0.2)

        def lij(vi, vj):
            return ld(L, [vj, vi] if transposed else [vi, vj])

        for _ in range(r.randint(1, 2)):
            kind = self.pick(["rows", "rows", "rows", "rhs", "columns", "wave", "map"])
            i, j = self.new_iv(), self.new_iv()
            vi, vj = V(i), V(j)
            if kind in ("rows", "rhs"):
                k = self.new_iv() if kind == "rhs" else None
                nk = r.randint(1, 9)
                cell = (XK, [vi, V(k)]) if k else (X, [vi])
                xj = (lambda: ld(XK, [vj, V(k)])) if k else (lambda: ld(X, [vj]))
                rhs = ld(BK, [vi, V(k)]) if k else ld(B, [vi])
                first = st(cell[0], cell[1], rhs if self.chance(0.8) else ["*", rhs, ["f", 0.5]])
                term = ["*", lij(vi, vj), xj()]
                upd = st(cell[0], cell[1], ["-", ld(*cell), term] if self.chance(0.8)
                         else ["+", ld(*cell), term])
                hi = [vi] if self.chance(0.8) else [add(vi, C(-r.randint(1, 2)))]
                lo = [C(0)] if self.chance(0.85) else [C(r.randint(1, 3))]
                cols = {"k": "for", "iv": j, "lbs": lo, "ubs": hi, "step": 1, "body": [upd]}
                inner = [first, cols]
                if self.chance(0.6):
                    fin = ["*", ld(*cell), ld(L, [vi, vi])] if self.chance(0.7) \
                        else ["+", ld(*cell), ["f", 0.25]]
                    inner.append(st(cell[0], cell[1], fin))
                if k and self.chance(0.5):
                    # The right-hand sides innermost.
                    upd_loop = {"k": "for", "iv": k, "lbs": [C(0)], "ubs": [C(nk)], "step": 1,
                                "body": [upd]}
                    cols["body"] = [upd_loop]
                    inner = [{"k": "for", "iv": k, "lbs": [C(0)], "ubs": [C(nk)], "step": 1,
                              "body": [first]}, cols]
                elif k:
                    inner = [{"k": "for", "iv": k, "lbs": [C(0)], "ubs": [C(nk)], "step": 1,
                              "body": inner}]
                body.append({"k": "for", "iv": i, "lbs": [C(0)], "ubs": [size(n)], "step": 1,
                             "body": inner})
            elif kind == "columns":
                # Column j finished, then the rows after it updated with it.
                body.append({"k": "for", "iv": i, "lbs": [C(0)], "ubs": [size(n)], "step": 1,
                             "body": [st(X, [vi], ld(B, [vi]))]})
                rows = {"k": "for", "iv": i, "lbs": [add(vj, C(1))], "ubs": [size(n)], "step": 1,
                        "body": [st(X, [vi], ["-", ld(X, [vi]), ["*", lij(vi, vj), ld(X, [vj])]])]}
                body.append({"k": "for", "iv": j, "lbs": [C(0)], "ubs": [size(n)], "step": 1,
                             "body": [st(X, [vj], ["*", ld(X, [vj]), ld(L, [vj, vj])]), rows]})
            elif kind == "wave":
                m = r.randint(3, 60)
                val = ["*", ["+", ld(W, [add(vi, C(-1)), vj]), ld(W, [vi, add(vj, C(-1))])],
                       ["f", 0.5]]
                body.append({"k": "for", "iv": i, "lbs": [C(1)], "ubs": [size(n)], "step": 1,
                             "body": [{"k": "for", "iv": j, "lbs": [C(1)], "ubs": [C(m)], "step": 1,
                                       "body": [st(W, [vi, vj], val)]}]})
            else:
                m = r.randint(3, 60)
                body.append({"k": "for", "iv": i, "lbs": [C(0)], "ubs": [size(n)], "step": 1,
                             "body": [{"k": "for", "iv": j, "lbs": [C(0)], "ubs": [C(m)], "step": 1,
                                       "body": [st(W, [vi, vj], ["*", ld(L, [vi, vj]), ["f", 1.5]])]}]})
        return {"seed": self.seed, "params": params, "body": body, "family": "solves",
                "arrays": [{"name": "A%d" % a, "rank": self.ranks[a], "shape": None,
                            "dynamic": self.chance(0.2)} for a in range(len(self.ranks))]}

    def reductions(self):
        """A program of the "reductions" family (issue 70): one to three
        nests, each reducing into a cell over all its loops (a dot
        product, the sum or maximum of a matrix, a product: `s = s op e`,
        op one of +, - with the cell on the left, *, max), the shape that
        parallel reductions split into blocks with partial results; with
        other statements beside the reduction (a map, a second reduction
        into another cell), guards around it, triangular, offset and
        parametric bounds, steps, the cell initialized before its nest and
        read by a later one; now and then carried through iter_args."""
        r = self.r
        params = {}
        if self.chance(0.25):
            params["n0"] = r.randint(5, 60)
        # Vectors X0, X1, a matrix M, cells K0, K1 (rank 0) and K2 (one
        # cell of a vector), an output vector Y.
        X0, X1, M, K0, K1, K2, Y = range(7)
        self.ranks = [1, 1, 2, 0, 0, 1, 1]
        cells = [(K0, []), (K1, []), (K2, [C(r.randint(0, 2))])]

        st = self.new_stmt
        ld = load
        fresh = self.new_iv
        def size(n):
            if params and self.chance(0.3):
                return add(P("n0"), C(-r.randint(0, 3)))
            return C(n)

        def update(cell, op, term):
            if op == "*":
                # Factors near one: long products stay finite.
                term = ["+", ["f", 1.0], ["*", ["f", 0.0078125], term]]
            if op != "-" and self.chance(0.3):
                return [op, term, ld(*cell)]
            return [op, ld(*cell), term]

        def nest():
            depth = self.pick([1, 1, 2, 2, 3])
            ivs = [fresh() for _ in range(depth)]
            vs = [V(i) for i in ivs]
            if depth == 1:
                term = self.pick([["*", ld(X0, vs), ld(X1, vs)], ld(X0, vs)])
            elif depth == 2:
                term = self.pick([ld(M, vs), ["*", ld(M, vs), ld(X0, [vs[1]])]])
            else:
                term = ["*", ld(M, [vs[0], vs[2]]), ld(X1, [vs[1]])]
            cell = self.pick(cells)
            op = self.pick(["+", "+", "+", "-", "*", "max", "max"])
            red = st(cell[0], cell[1], update(cell, op, term))
            if self.chance(0.15):
                k = r.randint(1, 5)
                red = {"k": "if", "conds": [[add(vs[-1], C(-k)), False]], "then": [red], "else": None}
            inner = [red]
            if self.chance(0.25):
                # A map beside the reduction.
                inner.append(st(Y, [vs[-1]], ["*", ld(X0, [vs[-1]]), ["f", 0.5]]))
            if self.chance(0.2):
                # A second reduction, into another cell.
                other = self.pick([c for c in cells if c[0] != cell[0]])
                inner.append(st(other[0], other[1], update(other, self.pick(["+", "max"]),
                                                         ld(X1, [vs[-1]]))))
            r.shuffle(inner)
            body = inner
            for d in reversed(range(depth)):
                n = r.randint(2, 3000) if depth == 1 else r.randint(2, 150 if depth == 2 else 30)
                lbs, ubs, step = [C(0)], [size(n)], 1
                roll = r.random()
                if d > 0 and roll < 0.15:
                    ubs = [add(vs[d - 1], C(r.randint(1, 2)))]  # a triangle
                elif roll < 0.25:
                    lbs = [C(r.randint(1, 3))]
                elif roll < 0.3:
                    step = 2
                body = [{"k": "for", "iv": ivs[d], "lbs": lbs, "ubs": ubs, "step": step,
                         "body": body}]
            out = []
            if self.chance(0.5):
                init = {"+": 0.0, "-": 0.5, "*": 1.0, "max": -4.0}[op]
                out.append(st(cell[0], cell[1], ["f", init]))
            out.extend(body)
            if self.chance(0.4):
                # A later nest reads the cell.
                k = fresh()
                out.append({"k": "for", "iv": k, "lbs": [C(0)], "ubs": [size(r.randint(2, 40))],
                            "step": 1, "body": [st(Y, [V(k)], ["*", ld(Y, [V(k)]), ld(*cell)])]})
            return out

        body = []
        for _ in range(self.pick([1, 1, 2, 3])):
            body.extend(nest())
        if self.chance(0.4):
            mark_carried(body, r, 0.7)
        arrays = [{"name": "A%d" % a, "rank": self.ranks[a], "shape": None,
                   "dynamic": self.ranks[a] > 0 and self.chance(0.15)} for a in range(len(self.ranks))]
        return {"seed": self.seed, "params": params, "arrays": arrays, "body": body,
                "family": "reductions"}

    # -- the "around" family ----------------------------------------------------

    def around(self):
        """A program of the "around" family: two to four nests of the mixed
        family with what front ends put around and between them (see
        `Around`): statements and scalar arithmetic at depth 0, values
        loaded or computed in one place and used in others, memref.load and
        memref.store (0-d cells among them), loads of cells that later
        statements overwrite."""
        r = self.r
        nparams = r.choice([0, 0, 1, 1, 2])
        params = {"n%d" % k: r.randint(5, 12) for k in range(nparams)}
        narr = r.randint(2, 4)
        self.ranks = [r.choice([0, 0, 1, 1, 2, 2, 3]) for _ in range(narr)]
        budget = r.randint(2, 7)
        max_depth = r.randint(1, 3)
        body = []
        for _ in range(r.randint(2, 4)):
            body.append(self.loop([], list(params), 0, max_depth, budget + len(body)))
        arrays = [{"name": "A%d" % a, "rank": self.ranks[a], "shape": None,
                   "dynamic": self.chance(0.3)} for a in range(narr)]
        prog = {"seed": self.seed, "params": params, "arrays": arrays, "body": body,
                "family": "around"}
        Around(self.r, prog, self.ranks).decorate(rate=1.0)
        return prog


# The share of the mixed family's programs that get what front ends put
# around their nests (`Around`).
MIXED_AROUND = 0.35


def loads_of(v, out=None):
    """The load leaves of a value, in order."""
    out = [] if out is None else out
    if v[0] == "ld":
        out.append(v)
    elif v[0] in BINARY:
        loads_of(v[1], out)
        loads_of(v[2], out)
    return out


def fix_uses(prog):
    """Replaces each use of a let that is not in scope where it stands (the
    shrinker dropped or moved the let) by a constant; returns prog."""

    def value(v, seen):
        if v[0] == "use" and v[1] not in seen:
            return ["f", 1.5]
        if v[0] in BINARY:
            return [v[0], value(v[1], seen), value(v[2], seen)]
        return v

    def block(nodes, seen):
        seen = list(seen)
        for n in nodes:
            if n["k"] == "for":
                block(n["body"], seen)
            elif n["k"] == "if":
                block(n["then"], seen)
                block(n["else"] or [], seen)
            else:
                n["val"] = value(n["val"], seen)
                if n["k"] == "let":
                    seen.append(n["name"])

    block(prog["body"], [])
    return prog


class Around:
    """Adds to a program what front ends produce around and between its
    loop nests (C raised to affine, linalg lowered, MLIR's own tests):

    * at depth 0, before, between and after the nests: stores of cells at
      constant subscripts, loads of such cells (often ones a nest writes)
      and scalar arithmetic on them, their values named (`let`) and used by
      later depth-0 statements and by statements inside later nests;
    * inside the nests: loads moved out of a statement into a `let` at an
      outer position of its loop body (a value loaded at one depth and used
      at a deeper one, or after an inner loop), sometimes used by a second
      statement too; whether a statement in between overwrites the cell
      is left to chance (the model then refuses the SCoP, or must order
      it right);
    * memref.load and memref.store instead of the affine forms, always now
      and then for 0-d memrefs; and a sum into a 0-d cell in one nest read
      back at depth 0 and used by the next.

    Draws come from its own random source `r`."""

    def __init__(self, r, prog, ranks):
        self.r = r
        self.prog = prog
        self.ranks = ranks
        self.nlet = 0
        # Per depth-0 let: the arrays its value was loaded from, and those
        # written since.
        self.deps = {}
        self.dirty = {}

    def chance(self, p):
        return self.r.random() < p

    def fresh(self):
        self.nlet += 1
        return "x%d" % self.nlet

    def const_index(self, arr):
        params = list(self.prog["params"])
        out = []
        for _ in range(self.ranks[arr]):
            if params and self.chance(0.15):
                out.append(add(P(self.r.choice(params)), C(-self.r.randint(1, 4))))
            else:
                out.append(C(self.r.randint(0, 3)))
        return out

    def mem_flag(self, arr):
        return self.chance(0.5 if self.ranks[arr] == 0 else 0.15)

    def const_load(self, arr=None, written=()):
        """A load at constant subscripts, preferably of an array an earlier
        nest writes."""
        if arr is None:
            if written and self.chance(0.7):
                arr = self.r.choice(sorted(written))
            else:
                arr = self.r.randrange(len(self.ranks))
        v = ["ld", arr, self.const_index(arr)]
        if self.mem_flag(arr):
            v.append("m")
        return v

    def pick_let(self, lets, writes=()):
        """A let of `lets` to use at a point, mostly one whose loaded arrays
        no statement since the let (nor `writes`, about to run) wrote: a
        value loaded before a store that may change its cell and used
        after it is outside the model (the SCoP is left unchanged), so such
        uses come now and then only. None when there is no such let (and
        the draw did not take one anyway)."""
        safe = [x for x in lets if not (self.deps[x] & (self.dirty[x] | set(writes)))]
        if self.chance(0.9):
            return self.r.choice(safe) if safe else None
        return self.r.choice(lets)

    def let(self, name, val):
        """A let node; records the arrays its value depends on."""
        deps = set()

        def walk(v):
            if v[0] == "ld":
                deps.add(v[1])
            elif v[0] == "use":
                deps.update(self.deps[v[1]])
            elif v[0] in BINARY:
                walk(v[1])
                walk(v[2])

        walk(val)
        self.deps[name] = deps
        self.dirty[name] = set()
        return {"k": "let", "name": name, "val": val}

    def wrote(self, lets, arrays):
        for x in lets:
            self.dirty[x].update(arrays)

    def top_leaf(self, lets, written, writes=()):
        roll = self.r.random()
        x = self.pick_let(lets, writes) if lets and roll < 0.45 else None
        if x is not None:
            return ["use", x]
        if roll < 0.8:
            return self.const_load(written=written)
        return ["f", self.r.choice([0.5, 1.25, -0.75, 2.0])]

    def top_items(self, lets, written, last_let):
        """One to three depth-0 items; `lets` grows with the names defined."""
        items = []
        for _ in range(self.r.randint(1, 3)):
            roll = self.r.random()
            x = self.pick_let(lets) if lets and 0.4 <= roll < 0.55 else None
            if roll < 0.4:
                items.append(self.let(self.fresh(), self.const_load(written=written)))
                lets.append(items[-1]["name"])
                last_let[0] = items[-1]
            elif x is not None:
                val = [self.r.choice(["+", "-", "*"]), ["use", x], self.top_leaf(lets, written)]
                items.append(self.let(self.fresh(), val))
                lets.append(items[-1]["name"])
            else:
                # A store at depth 0: sometimes of the cell a let just read
                # (a load whose cell a later statement overwrites).
                prev = last_let[0]
                if prev is not None and prev["val"][0] == "ld" and self.chance(0.3):
                    arr, idx = prev["val"][1], copy.deepcopy(prev["val"][2])
                else:
                    arr = self.r.randrange(len(self.ranks))
                    idx = self.const_index(arr)
                val = self.top_leaf(lets, written)
                if self.chance(0.6):
                    val = [self.r.choice(["+", "-", "*"]), val, self.top_leaf(lets, written)]
                st = {"k": "stmt", "arr": arr, "idx": idx, "val": val}
                if self.mem_flag(arr):
                    st["m"] = True
                items.append(st)
                written.add(arr)
                self.wrote(lets, [arr])
        return items

    def statements(self, nodes, ivs, out):
        """(statement, its iterators) of `nodes`, in program order."""
        for n in nodes:
            if n["k"] == "for":
                self.statements(n["body"], ivs + [n["iv"]], out)
            elif n["k"] == "if":
                self.statements(n["then"], ivs, out)
                self.statements(n["else"] or [], ivs, out)
            elif n["k"] == "stmt":
                out.append((n, ivs))
        return out

    def use_lets(self, nest, lets):
        """Statements of `nest` read some of the depth-0 values `lets`."""
        sts = self.statements([nest], [], [])
        writes = set(st["arr"] for st, _ in sts)
        for st, _ in sts:
            x = self.pick_let(lets, writes) if lets and self.chance(0.35) else None
            if x is not None:
                self.replace_leaf(st, ["use", x])

    def replace_leaf(self, st, by):
        """Replaces a random leaf of the statement's value by `by` (or
        combines it in, when the value is a single leaf)."""
        v = st["val"]
        if v[0] in ("ld", "f", "use"):
            st["val"] = [self.r.choice(["+", "*"]), v, by]
            return
        while True:
            side = self.r.choice([1, 2])
            if v[side][0] in BINARY:
                v = v[side]
            else:
                v[side] = by
                return

    def inner_lets(self, block, ivs):
        """In the loop body `block` (iterators `ivs` in scope) and the
        bodies nested in it: loads moved out of later statements into lets
        at this level."""
        for n in list(block):
            if n["k"] == "for":
                self.inner_lets(n["body"], ivs + [n["iv"]])
            elif n["k"] == "if":
                self.inner_lets(n["then"], ivs)
                self.inner_lets(n["else"] or [], ivs)
        if not ivs or not block or not self.chance(0.35):
            return
        pos = self.r.randrange(len(block))
        later = self.statements(block[pos:], ivs, [])
        cands = []
        for st, _ in later:
            for ld in loads_of(st["val"]):
                used = []
                for e in ld[2]:
                    names_in(e, "v", used)
                if all(u in ivs for u in used):
                    cands.append((st, ld))
        if not cands:
            return
        # Mostly a load of an array nothing after the let writes.
        writes = set(st["arr"] for st, _ in later)
        safe = [(st, ld) for st, ld in cands if ld[1] not in writes]
        if not safe and not self.chance(0.15):
            return
        st, ld = self.r.choice(safe if safe and self.chance(0.85) else cands)
        name = self.fresh()
        val = list(ld)
        if self.chance(0.25):
            val = ["*", val, ["f", self.r.choice([0.5, 1.25])]]
        block.insert(pos, {"k": "let", "name": name, "val": val})
        # The load becomes the use (the same cell, read earlier).
        arr = ld[1]
        ld[:] = ["use", name]
        if self.chance(0.4):
            others = [s for s, _ in later
                      if s is not st and (arr not in writes or self.chance(0.15))]
            if others:
                self.replace_leaf(self.r.choice(others), ["use", name])

    def zero_d_sum(self, body):
        """A sum into a new 0-d cell in a nest (memref.load/store), read
        back at depth 0 after it and used by the next nest."""
        nests = [k for k, n in enumerate(body) if n["k"] == "for"]
        if len(nests) < 2:
            return
        k = self.r.choice(nests[:-1])
        arr = len(self.ranks)
        self.ranks.append(0)
        self.prog["arrays"].append({"name": "A%d" % arr, "rank": 0, "shape": None,
                                    "dynamic": False})
        sts = self.statements([body[k]], [], [])
        st, ivs = self.r.choice(sts)
        src = [x for x in loads_of(st["val"])]
        term = copy.deepcopy(src[0]) if src else ["f", 0.5]
        cell = ["ld", arr, [], "m"]
        acc = {"k": "stmt", "arr": arr, "idx": [], "m": True, "val": ["+", cell, term]}
        # Beside the chosen statement, in its block.
        def insert(nodes):
            for n in nodes:
                if n is st:
                    nodes.insert(nodes.index(n) + 1, acc)
                    return True
                for key in ("body", "then", "else"):
                    if n.get(key) and insert(n[key]):
                        return True
            return False
        insert([body[k]])
        name = self.fresh()
        body.insert(k + 1, self.let(name, ["ld", arr, [], "m"]))
        nxt = body[k + 2]
        targets = self.statements([nxt], [], [])
        if targets:
            self.replace_leaf(self.r.choice(targets)[0], ["use", name])

    def decorate(self, rate=0.6):
        body = self.prog["body"]
        for nest in body:
            self.inner_lets([nest], [])
        if self.chance(0.35 * rate + 0.1):
            self.zero_d_sum(body)
        out = []
        lets = []
        written = set()
        last_let = [None]
        nests = [n for n in body]
        for g, n in enumerate(nests):
            # Before the first nest less often (not part of the SCoP).
            if self.chance(rate * (0.2 if g == 0 else 0.7)):
                out.extend(self.top_items(lets, written, last_let))
            if n["k"] == "for":
                self.use_lets(n, lets)
                arrays = [st["arr"] for st, _ in self.statements([n], [], [])]
                written.update(arrays)
                self.wrote(lets, arrays)
            elif n["k"] == "let":
                lets.append(n["name"])
            out.append(n)
        if self.chance(rate * 0.25):
            out.extend(self.top_items(lets, written, last_let))
        body[:] = out
        # Now and then memref.load/memref.store on the cells of the nests.
        for st, _ in self.statements(body, [], []):
            if not st.get("m") and self.chance(0.1 if self.ranks[st["arr"]] else 0.4):
                st["m"] = True
            for ld in loads_of(st["val"]):
                if len(ld) == 3 and self.chance(0.1 if self.ranks[ld[1]] else 0.4):
                    ld.append("m")


# ---------------------------------------------------------------------------
# Interpreting the AST: instance counts and subscript ranges
# ---------------------------------------------------------------------------


class TooBig(Exception):
    pass


def carried_stmt(n):
    """The statement whose cell the loop N (marked `carry`) carries
    through iter_args: one of its body that reads the cell it writes, at
    subscripts that do not involve N's iterator, where no other access
    inside N touches that array; or the one its only inner loop carries.
    None when there is none."""
    if not n.get("carry"):
        return None
    body = n["body"]
    if len(body) == 1 and body[0]["k"] == "for":
        s = carried_stmt(body[0])
        if s is not None and not involves(s["idx"], n["iv"]):
            return s
    for s in body:
        if s["k"] != "stmt" or involves(s["idx"], n["iv"]):
            continue
        own = [ld for ld in loads_of(s["val"]) if ld[1] == s["arr"]]
        if own and all(ld[2] == s["idx"] for ld in own) and alone(body, s):
            return s
    return None


def parallel_form(n):
    """How loop N, which carries a cell (`carried_stmt`), prints as an
    `affine.parallel` with `reduce` (upstream affine-parallelize's form):
    (the loops it stands for, N and maybe the one loop its body holds,
    the combining operator, "+", "*" or "max", and the term each
    iteration yields: the statement's value but the load of its cell), or
    None where it cannot: N's body is the carried statement alone (or one
    loop whose body it is, its bounds free of N's iterator), and the
    statement's value is its cell combined with a term that does not read
    the cell's array."""
    s = carried_stmt(n)
    if s is None or n.get("local"):
        return None
    loops = [n]
    body = n["body"]
    if len(body) == 1 and body[0]["k"] == "for" and carried_stmt(body[0]) is s:
        m = body[0]
        free = not any(n["iv"] in names_in(e, "v", []) for e in m["lbs"] + m["ubs"])
        if m.get("local") or not free or len(m["body"]) != 1:
            return None
        loops.append(m)
        body = m["body"]
    if len(body) != 1 or body[0] is not s:
        return None
    v = s["val"]
    if v[0] not in ("+", "*", "max"):
        return None
    cell = [x for x in (v[1], v[2]) if x[0] == "ld" and x[1] == s["arr"] and x[2] == s["idx"]]
    term = v[2] if cell and cell[0] is v[1] else v[1]
    if not cell or any(ld[1] == s["arr"] for ld in loads_of(term)):
        return None
    return loops, v[0], term


def mark_parallel(nodes, r, p=0.8):
    """Marks loops that carry a cell (with probability P) to print as an
    `affine.parallel` reduction where they can (`parallel_form`)."""
    for n in nodes:
        if n["k"] == "for":
            if parallel_form(n) is not None and r.random() < p:
                n["par"] = True
                continue
            mark_parallel(n["body"], r, p)
        elif n["k"] == "if":
            mark_parallel(n["then"], r, p)
            mark_parallel(n["else"] or [], r, p)


def involves(idx, iv):
    return any(iv in names_in(e, "v", []) for e in idx)


def alone(nodes, s):
    """No node of NODES but S accesses S's array (S's reads of its own
    cell aside)."""
    for n in nodes:
        k = n["k"]
        if k == "for" and not alone(n["body"], s):
            return False
        if k == "if" and not (alone(n["then"], s) and alone(n["else"] or [], s)):
            return False
        if k in ("stmt", "let") and n is not s:
            if k == "stmt" and n["arr"] == s["arr"]:
                return False
            if any(ld[1] == s["arr"] for ld in loads_of(n["val"])):
                return False
    return True


def walk(nodes, env, stmt, enter=None, leave=None):
    """Runs the loops and guards of `nodes` in program order (MLIR's
    semantics: max/min bounds, steps, `== 0` and `>= 0` conditions, else
    branches), calling `stmt(node, env)` for each statement instance with
    `env` mapping parameters and iterators to their values, and
    `enter(loop, env)` / `leave(loop, env)` (if given) before and after
    each loop."""
    for n in nodes:
        k = n["k"]
        if k == "for":
            if enter:
                enter(n, env)
            lo = max(ev(e, env) for e in n["lbs"])
            hi = min(ev(e, env) for e in n["ubs"])
            i = lo
            while i < hi:
                env[n["iv"]] = i
                walk(n["body"], env, stmt, enter, leave)
                i += n["step"]
            env.pop(n["iv"], None)
            if leave:
                leave(n, env)
        elif k == "if":
            if all((ev(e, env) == 0) if eq else (ev(e, env) >= 0) for e, eq in n["conds"]):
                walk(n["then"], env, stmt, enter, leave)
            elif n["else"]:
                walk(n["else"], env, stmt, enter, leave)
        else:
            # A statement, or a let (the callback tells them apart).
            stmt(n, env)


def walk_accesses(prog, visit):
    """Runs the program's control flow, calling visit(stmt, access_no, index)
    for every access of every instance (access 0 the write)."""
    count = [0]

    def stmt(n, env):
        count[0] += 1
        if count[0] > MAX_INSTANCES:
            raise TooBig()
        loads = loads_of(n["val"])
        if n["k"] == "stmt":
            visit(n, 0, n["arr"], [ev(e, env) for e in n["idx"]])
        for j, ld in enumerate(loads):
            visit(n, j + 1, ld[1], [ev(e, env) for e in ld[2]])

    def enter(n, env):
        # A loop printed with iter_args loads its cell before it and stores
        # it after it, even when it runs no iteration.
        s = carried_stmt(n)
        if s is not None:
            visit(s, 0, s["arr"], [ev(e, env) for e in s["idx"]])

    walk(prog["body"], dict(prog["params"]), stmt, enter)
    return count[0]


# The denominator of the cells' initial values: (k * 37 + 101 * a + 11) mod
# 997, over it, plus a + 0.5 for cell k of array a. A program's "init" field
# picks it: 997 by default; "dyadic", 1024: every initial value then has at
# most 14 significant bits, so that most programs' arithmetic is exact
# (every sum, difference and product representable), and a fused
# multiply-add computes what the multiply and the add apart compute. The
# campaigns with contract=true draw their programs so (fuzz.py).
INIT_DENOMINATOR = {None: 997, "dyadic": 1024}


def init_denominator(prog):
    return INIT_DENOMINATOR[prog.get("init")]


def oracle(prog):
    """The checksums @main prints, computed by interpreting the program in
    Python (IEEE doubles, the same operations in the same order; MLIR's
    integer semantics for subscripts): an oracle independent of MLIR."""
    return checksums(interpret(prog).values)


def oracle_exact(prog):
    """The oracle's checksums, and whether every operation of the program
    was exact (its double result equal to the exact result of its double
    operands, no infinity or NaN): then any contraction of a multiply and
    an add into one fused multiply-add leaves every result as it is."""
    run = interpret(prog, exact=True)
    return checksums(run.values), run.exact


# The unit roundoff of IEEE doubles.
UNIT_ROUNDOFF = 2.0 ** -53


def gamma(k):
    """gamma_k = k u / (1 - k u), the bound on the relative error of k
    roundings (Higham, Accuracy and Stability of Numerical Algorithms,
    lemma 3.1); infinity where k u reaches one half (no bound worth
    comparing against)."""
    ku = k * UNIT_ROUNDOFF
    return ku / (1.0 - ku) if ku < 0.5 else float("inf")


def tolerance(prog):
    """How far each cell's result may lie from the oracle's when the
    program's operations are contracted (fused multiply-adds) or its
    reductions' terms combined in another order (reassociate=true), for a
    comparison of results that round: per array, per cell (flat index),
    the oracle's value and the bound 2 gamma_(2K + 64) M.

    M and K come from the interpreter (`interpret` with bounds): M is the
    cell's value computed with every operand's magnitude and `-` as `+`
    (the "absolute" expression, |x| for an initial cell or a constant), K
    the number of roundings in the expression the cell's value expands to
    (loads of stored cells expanded). Any evaluation of the same terms in
    another grouping, with at most K + 32 roundings (the identities and
    the combination of partial results a split reduction adds, each
    counted), lies within gamma_(K+32) M of the exact value; so does the
    original, within gamma_K M: the two within 2 gamma_(2K+64) M of one
    another. A maximum is exact whatever its grouping (M, K its operands'
    largest). Cells whose bound is not finite are not compared."""
    run = interpret(prog, bounds=True)
    out = []
    for vals, mags, ops in zip(run.values, run.mags, run.ops):
        out.append([(v, 2.0 * gamma(2 * k + 64) * m * (1.0 + 1e-6)) for v, m, k in zip(vals, mags, ops)])
    return out


class Interpretation:
    """What `interpret` computed: the arrays' final values (flat, per
    array); with `exact`, whether every operation was exact; with `bounds`,
    each cell's magnitude M and rounding count K (see `tolerance`)."""

    def __init__(self, values, exact, mags, ops):
        self.values = values
        self.exact = exact
        self.mags = mags
        self.ops = ops


def interpret(prog, exact=False, bounds=False, rational=False):
    """Runs PROG in Python with IEEE doubles, the same operations in the
    same order as the printed program, from the initial values @main
    gives the cells; with RATIONAL, in exact rational arithmetic from the
    same initial values (what gen.tolerance bounds the distance to)."""
    from fractions import Fraction
    den = float(init_denominator(prog))
    arrays, mags, ops, initial = [], [], [], []
    for a, arr in enumerate(prog["arrays"]):
        size = 1
        for d in arr["shape"]:
            size *= d
        cells = [((k * 37 + 101 * a + 11) % 997) / den + float(a) + 0.5 for k in range(size)]
        arrays.append([Fraction(v) for v in cells] if rational else cells)
        initial.append(list(arrays[-1]))
        if bounds:
            mags.append([abs(v) for v in cells])
            ops.append([0] * size)
    still_exact = [exact]

    def flat(a, idx):
        k = 0
        for d, i in zip(prog["arrays"][a]["shape"], idx):
            k = k * d + i
        return k

    def value(v, env):
        """The value of V and, with `bounds`, its magnitude and rounding
        count."""
        op = v[0]
        if op == "ld":
            k = flat(v[1], [ev(e, env) for e in v[2]])
            if bounds:
                return arrays[v[1]][k], mags[v[1]][k], ops[v[1]][k]
            return arrays[v[1]][k], None, None
        if op == "f":
            c = Fraction(float(v[1])) if rational else float(v[1])
            return c, abs(c), 0
        if op == "use":
            return env[v[1]]
        return combine(op, value(v[1], env), value(v[2], env))

    def combine(op, xv, yv):
        """OP of two values, each with its magnitude and rounding count."""
        (x, mx, kx), (y, my, ky) = xv, yv
        if op == "max":
            # Exact: one of its operands.
            r = fmax(x, y)
            return (r, max(mx, my), max(kx, ky)) if bounds else (r, None, None)
        r = x + y if op == "+" else x - y if op == "-" else x * y
        if still_exact[0]:
            if r != r or r in (float("inf"), float("-inf")):
                still_exact[0] = False
            else:
                fx, fy = Fraction(x), Fraction(y)
                still_exact[0] = Fraction(r) == (fx + fy if op == "+" else fx - fy if op == "-" else fx * fy)
        if not bounds:
            return r, None, None
        m = mx * my if op == "*" else mx + my
        return r, m, kx + ky + 1

    def stmt(n, env):
        v = value(n["val"], env)
        if n["k"] == "let":
            env[n["name"]] = v
            return
        a = n["arr"]
        k = flat(a, [ev(e, env) for e in n["idx"]])
        arrays[a][k] = v[0]
        if bounds:
            mags[a][k], ops[a][k] = v[1], v[2]

    # A loop printed as an affine.parallel reducing with a sum or a product
    # (`parallel_form`): its cell's value before it is kept, the cell
    # starts at the identity (0.0, 1.0), and the value kept is combined
    # with the reduction after it, as the printed program does. (A
    # maximum gives the same in any grouping: nothing to do.)
    before = {}

    def cell_of(n, env):
        s = carried_stmt(n)
        return s["arr"], flat(s["arr"], [ev(e, env) for e in s["idx"]])

    def enter(n, env):
        form = parallel_form(n) if n.get("par") else None
        if form is None or form[1] == "max":
            return
        a, k = cell_of(n, env)
        before[id(n)] = (arrays[a][k], mags[a][k] if bounds else None, ops[a][k] if bounds else None)
        one = 1.0 if form[1] == "*" else 0.0
        arrays[a][k] = Fraction(one) if rational else one
        if bounds:
            mags[a][k], ops[a][k] = abs(one), 0

    def leave(n, env):
        if id(n) not in before:
            return
        a, k = cell_of(n, env)
        acc = (arrays[a][k], mags[a][k] if bounds else None, ops[a][k] if bounds else None)
        r = combine(parallel_form(n)[1], before.pop(id(n)), acc)
        arrays[a][k] = r[0]
        if bounds:
            mags[a][k], ops[a][k] = r[1], r[2]

    walk(prog["body"], dict(prog["params"]), stmt, enter, leave)
    # Arrays printed as local buffers (`localize`): the kernel's argument
    # keeps its initial values.
    for a in prog.get("locals", []):
        arrays[a] = list(initial[a])
        if bounds:
            mags[a] = [abs(v) for v in initial[a]]
            ops[a] = [0] * len(initial[a])
    return Interpretation(arrays, still_exact[0] if exact else None, mags, ops)


def cell_bits(v):
    """The 64 bits of the double V as a signed integer."""
    import struct
    return struct.unpack("<q", struct.pack("<d", v))[0]


def checksums(arrays):
    """@main's checksum of each array: the sum over cells of the cell's
    bits times its flat index plus one, in wrapping 64-bit integers, every
    NaN counted as the same bits."""
    out = []
    for cells in arrays:
        acc = 0
        for k, v in enumerate(cells):
            bits = cell_bits(v) if v == v else 0x7FF8000000000000
            acc = (acc + bits * (k + 1)) & 0xFFFFFFFFFFFFFFFF
        if acc >= 1 << 63:
            acc -= 1 << 64
        out.append(str(acc))
    return out


def all_accesses(prog):
    """(stmt node, access number) -> list of subscript lists (the mutable
    subscript expressions of each access, in AST order)."""
    out = []

    def visit(nodes):
        for n in nodes:
            if n["k"] == "for":
                visit(n["body"])
            elif n["k"] == "if":
                visit(n["then"])
                visit(n["else"] or [])
            else:
                if n["k"] == "stmt":
                    out.append((n, 0, n["arr"], n["idx"]))
                for j, ld in enumerate(loads_of(n["val"])):
                    out.append((n, j + 1, ld[1], ld[2]))

    visit(prog["body"])
    return out


def fit_arrays(prog):
    """Shifts negative subscripts up and sizes every array to what the
    program touches. Raises TooBig for programs with too many instances."""
    lows = {}

    def low(n, j, a, idx):
        key = (id(n), j)
        cur = lows.get(key)
        lows[key] = idx if cur is None else [min(x, y) for x, y in zip(cur, idx)]

    walk_accesses(prog, low)
    for n, j, a, idx in all_accesses(prog):
        lo = lows.get((id(n), j))
        if lo is None:
            continue
        for d, m in enumerate(lo):
            if m < 0:
                idx[d] = add(idx[d], C(-m))
    highs = {}

    def high(n, j, a, idx):
        cur = highs.get(a)
        highs[a] = idx if cur is None else [max(x, y) for x, y in zip(cur, idx)]

    count = walk_accesses(prog, high)
    for a, arr in enumerate(prog["arrays"]):
        hi = highs.get(a)
        arr["shape"] = [max(1, h + 1) for h in hi] if hi is not None else [1] * arr["rank"]
    return count


# The families of programs: "mixed" (random nests, the default), "steps" (a
# sequential loop over steps reducing over a column and updating the columns
# after it: Gram-Schmidt's shape, see Gen.steps) and "matvec" (nests of two
# loops reducing along rows or down columns of matrices: gesummv's, bicg's
# and atax's shapes, see Gen.matvec); the others: docs/fuzzing.md ("locals":
# another family's program with an array printed as a loop's local buffer,
# see localize).
FAMILIES = ("mixed", "steps", "matvec", "factor", "around", "ml", "carried", "reductions", "rows", "locals",
            "parallel", "views", "streams", "solves")

# The families the `views` family draws its programs from.
VIEWS_FROM = ("mixed", "steps", "matvec", "factor", "around", "ml", "reductions", "rows", "carried")

# The families the `carried` family draws its programs from.
CARRIED_FROM = ("mixed", "steps", "matvec", "factor", "around", "ml", "reductions")

# The families the `locals` family draws its programs from.
LOCALS_FROM = ("mixed", "matvec", "around", "ml", "reductions", "rows", "carried")


def stmts_in(nodes, out):
    """The ids of the statements and lets in NODES, at any depth."""
    for n in nodes:
        if n["k"] == "for":
            stmts_in(n["body"], out)
        elif n["k"] == "if":
            stmts_in(n["then"], out)
            stmts_in(n["else"] or [], out)
        else:
            out.add(id(n))
    return out


def reads_own_writes(prog, loop, path, a):
    """Whether each iteration of LOOP (inside the loops whose iterators
    PATH names) reads only cells of array A that it wrote itself before:
    then a fresh buffer per iteration computes what the array computes."""
    ids = stmts_in(loop["body"], set())
    keys = path + [loop["iv"]]
    state = {"key": None, "written": set(), "ok": True}

    def stmt(n, env):
        if not state["ok"] or id(n) not in ids:
            return
        key = tuple(env[v] for v in keys)
        if key != state["key"]:
            state["key"], state["written"] = key, set()
        for ld in loads_of(n["val"]):
            if ld[1] == a and tuple(ev(e, env) for e in ld[2]) not in state["written"]:
                state["ok"] = False
                return
        if n["k"] == "stmt" and n["arr"] == a:
            state["written"].add(tuple(ev(e, env) for e in n["idx"]))

    walk(prog["body"], dict(prog["params"]), stmt)
    return state["ok"] and state["key"] is not None


def localize(prog, r, tries=8):
    """Makes an array a local buffer of a loop, as a C front end gives an
    array declared in a loop body: one that only the loop's body accesses
    (not through a cell carried in iter_args), each iteration reading only
    cells it wrote first (`reads_own_writes`). The printer allocates it at
    the top of the loop's body (memref.alloc freed at its end, or not, or
    memref.alloca); the kernel's argument for the array is left untouched,
    as the oracle's checksums are (`interpret`). Whether one was made."""
    loops = []

    def visit(nodes, path):
        for n in nodes:
            if n["k"] == "for":
                loops.append((n, path))
                visit(n["body"], path + [n["iv"]])
            elif n["k"] == "if":
                visit(n["then"], path)
                visit(n["else"] or [], path)

    visit(prog["body"], [])
    users, carried = {}, set()
    for n, j, a, idx in all_accesses(prog):
        users.setdefault(a, set()).add(id(n))
    for n, _ in loops:
        c = carried_stmt(n)
        if c is not None:
            carried.add(c["arr"])
    inside = {id(n): stmts_in(n["body"], set()) for n, _ in loops}
    cands = [(n, path, a) for n, path in loops for a in sorted(users)
             if a not in carried and not prog["arrays"][a]["dynamic"]
             and users[a] <= inside[id(n)]]
    r.shuffle(cands)
    for n, path, a in cands[:tries]:
        if reads_own_writes(prog, n, path, a):
            n.setdefault("local", []).append({"arr": a, "kind": r.choice(["memref.alloc", "memref.alloca"]),
                                              "free": r.random() < 0.7})
            prog.setdefault("locals", []).append(a)
            return True
    return False


def mark_carried(nodes, r, p=0.8):
    """Marks loops (with probability P) to carry the cell a statement of
    theirs reduces into through iter_args, as C front ends give an
    accumulator (`carried_stmt` decides whether one can)."""
    for n in nodes:
        if n["k"] == "for":
            if r.random() < p:
                n["carry"] = True
            mark_carried(n["body"], r, p)
        elif n["k"] == "if":
            mark_carried(n["then"], r, p)
            mark_carried(n["else"] or [], r, p)


def make_views(prog, r):
    """Gives one or two arrays of PROG a view to be accessed through, as a
    front end's reshapes give them (prog["views"]: array -> kind): an
    `expand` array is the kernel's argument flat, expanded at its entry,
    every access through the expansion; a `collapse` or `reinterpret`
    array gets a flat `memref.collapse_shape` or a `memref.reinterpret_cast`
    of its own shape (now and then a `subview` array a `memref.subview` of
    the whole of it), every other affine access through it (subscripts
    linearized for the collapse), the others to the array itself: two
    names of the same cells. Arrays of static shape and rank two or more,
    not local buffers, not accessed by memref.load/store. Whether one was
    made."""
    plain = set()
    for n, j, a, idx in all_accesses(prog):
        val = n["val"] if j > 0 else None
        if j == 0 and n.get("m"):
            plain.add(a)
        if val is not None:
            for ld in loads_of(val):
                if ld[1] == a and len(ld) > 3:
                    plain.add(a)
    cands = [a for a, arr in enumerate(prog["arrays"])
             if not arr["dynamic"] and len(arr["shape"]) >= 2 and a not in plain
             and a not in prog.get("locals", [])]
    if not cands:
        return False
    r.shuffle(cands)
    kinds = ["expand", "collapse", "reinterpret"]
    # (A subview of the whole array, now and then.)
    if r.random() < 0.5:
        kinds.append("subview")
    prog["views"] = {str(a): r.choice(kinds) for a in cands[:r.choice([1, 2])]}
    return True


def any_parallel(nodes):
    """Whether a loop of NODES is marked to print as an affine.parallel."""
    for n in nodes:
        if n["k"] == "for" and (n.get("par") or any_parallel(n["body"])):
            return True
        if n["k"] == "if" and (any_parallel(n["then"]) or any_parallel(n["else"] or [])):
            return True
    return False


def derived(seed, family, salt, draw, make, tries=20):
    """Program SEED of FAMILY, made of another family's: the first of
    TRIES programs (seeds SEED * 50 + k, their family DRAW(r)) that MAKE(prog,
    r) changes into one of FAMILY (else the last drawn), r seeded with
    SALT."""
    r = random.Random(salt)
    for attempt in range(tries):
        prog = generate(seed * 50 + attempt, draw(r))
        if make(prog, r):
            break
    prog["family"] = family
    prog["seed"] = seed
    return prog


def generate(seed, family="mixed"):
    """Program `seed` of `family`: the first draw whose instances fit, with
    its arrays sized. The `carried` family: a program of another family
    (drawn by the seed) whose reductions into cells print as iter_args."""
    if family == "locals":
        return derived(seed, "locals", seed * 6007 + 41, lambda r: r.choice(LOCALS_FROM), localize)
    if family == "views":
        return derived(seed, "views", seed * 7243 + 13, lambda r: r.choice(VIEWS_FROM), make_views)
    if family == "parallel":
        # A carried program whose loops that carry a reduction print as
        # affine.parallel with reduce where they can: the input allows any
        # order of the terms, so the oracle's results are compared as
        # under reassociate=true (dyadic initial values).
        def parallel(prog, r):
            mark_parallel(prog["body"], r)
            return any_parallel(prog["body"])

        prog = derived(seed, "parallel", seed * 104729 + 7, lambda r: "carried", parallel)
        prog["order_free"] = True
        prog["init"] = "dyadic"
        return prog
    if family == "carried":
        r = random.Random(seed * 7919 + 23)
        prog = generate(seed, r.choice(CARRIED_FROM))
        mark_carried(prog["body"], r)
        prog["family"] = "carried"
        fit_arrays(prog)
        return prog
    for attempt in range(50):
        g = Gen(seed * 1000 + attempt)
        prog = {"steps": g.steps, "matvec": g.matvec, "factor": g.factor,
                "around": g.around, "ml": g.ml, "reductions": g.reductions,
                "rows": g.rows, "streams": g.streams, "solves": g.solves}.get(family, g.program)()
        prog["seed"] = seed
        try:
            fit_arrays(prog)
        except TooBig:
            continue
        return prog
    raise RuntimeError("no program of bounded size for seed %d" % seed)


# ---------------------------------------------------------------------------
# Printing MLIR
# ---------------------------------------------------------------------------


def row_major_strides(shape):
    out, st = [], 1
    for d in reversed(shape):
        out.append(st)
        st *= d
    return list(reversed(out))


def argument_type(prog, a):
    """The kernel's argument type of array A: flat for an array the kernel
    expands (`make_views`)."""
    arr = prog["arrays"][a]
    if prog.get("views", {}).get(str(a)) == "expand":
        size = 1
        for d in arr["shape"]:
            size *= d
        return "memref<%dxf64>" % size
    return memref_type(arr)


def view_of(arr, view):
    """The SSA name and type of ARR's view of kind VIEW."""
    size = 1
    for d in arr["shape"]:
        size *= d
    name = "%%v_%s" % arr["name"]
    if view == "expand":
        return name, static_type(arr)
    if view == "collapse":
        return name, "memref<%dxf64>" % size
    return name, "memref<%sxf64, strided<[%s]>>" % (
        "x".join(map(str, arr["shape"])), ", ".join(map(str, row_major_strides(arr["shape"]))))


def memref_type(arr):
    dims = "x".join("?" if arr["dynamic"] else str(s) for s in arr["shape"])
    return "memref<%sxf64>" % dims if dims else "memref<f64>"


def static_type(arr):
    dims = "x".join(str(s) for s in arr["shape"])
    return "memref<%sxf64>" % dims if dims else "memref<f64>"


class Printer:
    def __init__(self, prog, values=False):
        self.prog = prog
        # @main prints every cell (module_text).
        self.values = values
        self.lines = []
        self.tmp = 0
        self.ind = 2
        # The SSA value of each let, by name.
        self.names = {}
        # Cells carried through iter_args: (array, subscripts' JSON) -> the
        # loop's block argument.
        self.carried = {}
        # Arrays printed as local buffers (`localize`): array -> SSA name.
        self.local = {}
        # Accesses through a collapse_shape or reinterpret_cast view
        # alternate with the array's own (`affine_access`).
        self.flip = 0

    def mem(self, a):
        """The SSA name of array A's memref (its local buffer's inside the
        loop that allocates it) and its type."""
        arr = self.prog["arrays"][a]
        if a in self.local:
            return self.local[a], static_type(arr)
        return "%" + arr["name"], memref_type(arr)

    def open_locals(self, n):
        """The allocations of loop N's local buffers, at the top of its body."""
        for loc in n.get("local", []):
            arr = self.prog["arrays"][loc["arr"]]
            t = self.fresh()
            self.emit("%s = %s() : %s" % (t, loc["kind"], static_type(arr)))
            self.local[loc["arr"]] = t

    def close_locals(self, n):
        """The deallocations of loop N's local buffers, at the end of its body."""
        for loc in n.get("local", []):
            name = self.local.pop(loc["arr"])
            if loc["kind"] == "memref.alloc" and loc["free"]:
                self.emit("memref.dealloc %s : %s" % (name, static_type(self.prog["arrays"][loc["arr"]])))

    def emit(self, s):
        self.lines.append(" " * self.ind + s)

    def fresh(self):
        self.tmp += 1
        return "%%t%d" % self.tmp

    def map_of(self, exprs, kind):
        """(map text, operand text) of a list of expressions."""
        ivs, ps = [], []
        for e in exprs:
            names_in(e, "v", ivs)
            names_in(e, "p", ps)

        def name(k, n):
            return "d%d" % ivs.index(n) if k == "v" else "s%d" % ps.index(n)

        body = ", ".join(text(e, name) for e in exprs)
        head = "(%s)[%s]" % (", ".join("d%d" % i for i in range(len(ivs))),
                             ", ".join("s%d" % i for i in range(len(ps))))
        ops = "(%s)[%s]" % (", ".join("%" + v for v in ivs), ", ".join("%" + p for p in ps))
        if kind == "set":
            return head, ops, body
        return "affine_map<%s -> (%s)>%s" % (head, body, ops)

    def bound_text(self, exprs):
        """A loop bound: a constant, or a map over the iterators and parameters."""
        if len(exprs) == 1 and exprs[0][0] == "c":
            return str(exprs[0][1])
        return self.map_of(exprs, "map")

    def index_text(self, idx):
        """Inline subscripts of an affine.load/store."""

        def name(k, n):
            return "%" + n if k == "v" else "symbol(%%%s)" % n

        return ", ".join(text(e, name) for e in idx)

    def index_values(self, idx):
        """SSA index values of subscripts, for memref.load and memref.store:
        an iterator as it is, a constant by arith.constant, anything else by
        affine.apply."""
        out = []
        for e in idx:
            if e[0] == "v":
                out.append("%" + e[1])
                continue
            t = self.fresh()
            if e[0] == "c":
                self.emit("%s = arith.constant %d : index" % (t, e[1]))
            else:
                self.emit("%s = affine.apply %s" % (t, self.map_of([e], "map")))
            out.append(t)
        return ", ".join(out)

    def value(self, v):
        if v[0] == "ld" and (v[1], json.dumps(v[2])) in self.carried:
            return self.carried[(v[1], json.dumps(v[2]))]
        if v[0] == "ld":
            name, ty = self.mem(v[1])
            if len(v) > 3:
                idx = self.index_values(v[2])
                t = self.fresh()
                self.emit("%s = memref.load %s[%s] : %s" % (t, name, idx, ty))
                return t
            t = self.fresh()
            name, sub, ty = self.affine_access(v[1], v[2])
            self.emit("%s = affine.load %s[%s] : %s" % (t, name, sub, ty))
            return t
        if v[0] == "use":
            return self.names[v[1]]
        if v[0] == "f":
            t = self.fresh()
            self.emit("%s = arith.constant %s : f64" % (t, repr(float(v[1]))))
            return t
        a = self.value(v[1])
        b = self.value(v[2])
        t = self.fresh()
        op = {"+": "arith.addf", "-": "arith.subf", "*": "arith.mulf", "max": "arith.maximumf"}[v[0]]
        self.emit("%s = %s %s, %s : f64" % (t, op, a, b))
        return t

    def loop_head(self, n):
        lo = self.bound_text(n["lbs"])
        hi = self.bound_text(n["ubs"])
        step = " step %d" % n["step"] if n["step"] != 1 else ""
        return "affine.for %%%s = %s%s to %s%s%s" % (
            n["iv"], "max " if len(n["lbs"]) > 1 else "", lo,
            "min " if len(n["ubs"]) > 1 else "", hi, step)

    def carried_for(self, n, s, init):
        """Prints loop N carrying S's cell from INIT (an SSA value); returns
        the loop's result."""
        key = (s["arr"], json.dumps(s["idx"]))
        acc, res = self.fresh(), self.fresh()
        self.emit("%s = %s iter_args(%s = %s) -> (f64) {" % (res, self.loop_head(n), acc, init))
        self.ind += 2
        outer = self.carried.get(key)
        self.carried[key] = acc
        body = n["body"]
        self.open_locals(n)
        if len(body) == 1 and body[0]["k"] == "for" and carried_stmt(body[0]) is s:
            if body[0].get("par"):
                out = self.parallel_for(body[0], acc)
            else:
                out = self.carried_for(body[0], s, acc)
        else:
            out = None
            for m in body:
                if m is s:
                    out = self.value(s["val"])
                else:
                    self.nodes([m])
        self.close_locals(n)
        self.emit("affine.yield %s : f64" % out)
        if outer is None:
            del self.carried[key]
        else:
            self.carried[key] = outer
        self.ind -= 2
        self.emit("}")
        return res

    def parallel_bound(self, exprs, many):
        """A bound of an affine.parallel: one expression, or MANY (max or
        min) of several, iterators and parameters named inline."""

        def name(k, nn):
            return "%" + nn if k == "v" else "symbol(%%%s)" % nn

        body = ", ".join(text(e, name) for e in exprs)
        return body if len(exprs) == 1 else "%s(%s)" % (many, body)

    def parallel_for(self, n, init):
        """Prints loop N (marked `par`) as an affine.parallel reducing its
        cell's terms (`parallel_form`), combined with INIT (the cell's
        value before it) after it, as upstream's affine-parallelize does;
        returns the combined value."""
        loops, op, term = parallel_form(n)
        kind, arith = {"+": ("addf", "arith.addf"), "*": ("mulf", "arith.mulf"),
                       "max": ("maximumf", "arith.maximumf")}[op]
        steps = [m["step"] for m in loops]
        res = self.fresh()
        self.emit('%s = affine.parallel (%s) = (%s) to (%s)%s reduce ("%s") -> (f64) {' % (
            res, ", ".join("%" + m["iv"] for m in loops),
            ", ".join(self.parallel_bound(m["lbs"], "max") for m in loops),
            ", ".join(self.parallel_bound(m["ubs"], "min") for m in loops),
            " step (%s)" % ", ".join(map(str, steps)) if any(k != 1 for k in steps) else "", kind))
        self.ind += 2
        t = self.value(term)
        self.emit("affine.yield %s : f64" % t)
        self.ind -= 2
        self.emit("}")
        out = self.fresh()
        self.emit("%s = %s %s, %s : f64" % (out, arith, init, res))
        return out

    def nodes(self, nodes):
        for n in nodes:
            k = n["k"]
            s = carried_stmt(n) if k == "for" else None
            if s is not None:
                cell = ["ld", s["arr"], s["idx"]] + (["m"] if s.get("m") else [])
                if n.get("par"):
                    res = self.parallel_for(n, self.value(cell))
                else:
                    res = self.carried_for(n, s, self.value(cell))
                self.store(s, res)
                continue
            if k == "for":
                self.emit(self.loop_head(n) + " {")
                self.ind += 2
                self.open_locals(n)
                self.nodes(n["body"])
                self.close_locals(n)
                self.ind -= 2
                self.emit("}")
            elif k == "if":
                exprs = [c[0] for c in n["conds"]]
                head, ops, _ = self.map_of(exprs, "set")
                ivs, ps = [], []
                for e in exprs:
                    names_in(e, "v", ivs)
                    names_in(e, "p", ps)

                def name(kk, nn):
                    return "d%d" % ivs.index(nn) if kk == "v" else "s%d" % ps.index(nn)

                conds = ", ".join("%s %s 0" % (text(e, name), "==" if eq else ">=")
                                  for e, eq in n["conds"])
                self.emit("affine.if affine_set<%s : (%s)>%s {" % (head, conds, ops))
                self.ind += 2
                self.nodes(n["then"])
                self.ind -= 2
                if n["else"]:
                    self.emit("} else {")
                    self.ind += 2
                    self.nodes(n["else"])
                    self.ind -= 2
                self.emit("}")
            elif k == "let":
                self.names[n["name"]] = self.value(n["val"])
            else:
                self.store(n, self.value(n["val"]))

    def store(self, n, v):
        """Prints statement N's store of the SSA value V."""
        name, ty = self.mem(n["arr"])
        if n.get("m"):
            idx = self.index_values(n["idx"])
            self.emit("memref.store %s, %s[%s] : %s" % (v, name, idx, ty))
        else:
            name, sub, ty = self.affine_access(n["arr"], n["idx"])
            self.emit("affine.store %s, %s[%s] : %s" % (v, name, sub, ty))

    def affine_access(self, a, idx):
        """The memref, subscripts' text and type of an affine access of
        array A at IDX: through A's view (`make_views`) where it has one
        (every access through an expand_shape, every other access through
        a collapse_shape, with the subscripts linearized, or a
        reinterpret_cast), the array itself otherwise."""
        name, ty = self.mem(a)
        view = self.prog.get("views", {}).get(str(a)) if a not in self.local else None
        if view is None:
            return name, self.index_text(idx), ty
        arr = self.prog["arrays"][a]
        if view != "expand":
            self.flip += 1
            if self.flip % 2:
                return name, self.index_text(idx), ty
        vname, vtype = view_of(arr, view)

        def inline(k, n):
            return "%" + n if k == "v" else "symbol(%%%s)" % n

        if view == "collapse":
            strides = row_major_strides(arr["shape"])
            sub = " + ".join("(%s) * %d" % (text(e, inline), st) for e, st in zip(idx, strides))
            return vname, sub, vtype
        return vname, self.index_text(idx), vtype

    def kernel(self):
        prog = self.prog
        args = ["%%%s: index" % p for p in prog["params"]]
        args += ["%%%s: %s" % (a["name"], argument_type(prog, k)) for k, a in enumerate(prog["arrays"])]
        self.ind = 0
        self.emit("func.func @kernel(%s) {" % ", ".join(args))
        self.ind = 2
        # The views (`make_views`), made at the kernel's entry.
        for k, arr in enumerate(prog["arrays"]):
            view = prog.get("views", {}).get(str(k))
            if view is None:
                continue
            vname, vtype = view_of(arr, view)
            shape = arr["shape"]
            group = "[[%s]]" % ", ".join(str(d) for d in range(len(shape)))
            size = 1
            for d in shape:
                size *= d
            if view == "expand":
                self.emit("%s = memref.expand_shape %%%s %s output_shape [%s] : memref<%dxf64> into %s" % (
                    vname, arr["name"], group, ", ".join(map(str, shape)), size, vtype))
            elif view == "collapse":
                self.emit("%s = memref.collapse_shape %%%s %s : %s into %s" % (
                    vname, arr["name"], group, static_type(arr), vtype))
            elif view == "subview":
                self.emit("%s = memref.subview %%%s[%s] [%s] [%s] : %s to %s" % (
                    vname, arr["name"], ", ".join("0" for _ in shape), ", ".join(map(str, shape)),
                    ", ".join("1" for _ in shape), static_type(arr), vtype))
            else:
                self.emit("%s = memref.reinterpret_cast %%%s to offset: [0], sizes: [%s], strides: [%s] : %s to %s" % (
                    vname, arr["name"], ", ".join(map(str, shape)),
                    ", ".join(map(str, row_major_strides(shape))), static_type(arr), vtype))
        self.nodes(prog["body"])
        self.emit("return")
        self.ind = 0
        self.emit("}")

    def main(self):
        prog = self.prog
        e = self.emit
        self.ind = 0
        e("func.func private @printI64(i64)")
        e("func.func private @printNewline()")
        e("func.func @main() {")
        self.ind = 2
        e("%c0 = arith.constant 0 : index")
        e("%c1 = arith.constant 1 : index")
        e("%z64 = arith.constant 0 : i64")
        e("%one64 = arith.constant 1 : i64")
        e("%p997 = arith.constant 997 : i64")
        den = init_denominator(prog)
        e("%%f%d = arith.constant %d.0 : f64" % (den, den))
        e("%half = arith.constant 0.5 : f64")
        e("%nan64 = arith.constant 9221120237041090560 : i64")
        names = []
        for a, arr in enumerate(prog["arrays"]):
            m = "%%m%d" % a
            size = 1
            for s in arr["shape"]:
                size *= s
            e("%s = memref.alloc() : %s" % (m, static_type(arr)))
            # A flat view to fill and to sum over.
            flat = "%%flat%d" % a
            e("%s = memref.reinterpret_cast %s to offset: [0], sizes: [%d], strides: [1] : %s to memref<%dxf64>"
              % (flat, m, size, static_type(arr), size))
            e("%%sz%d = arith.constant %d : index" % (a, size))
            # cell k = (k * 37 + 101 * a + 11) mod 997 / den + 0.5 + a: distinct per cell
            # (den: INIT_DENOMINATOR).
            e("scf.for %%k = %%c0 to %%sz%d step %%c1 {" % a)
            e("  %ki = arith.index_cast %k : index to i64")
            e("  %%km = arith.muli %%ki, %%c37_%d : i64" % a)
            e("  %%ka = arith.addi %%km, %%off%d : i64" % a)
            e("  %kr = arith.remui %ka, %p997 : i64")
            e("  %kf = arith.sitofp %kr : i64 to f64")
            e("  %%kd = arith.divf %%kf, %%f%d : f64" % den)
            e("  %%kv = arith.addf %%kd, %%base%d : f64" % a)
            e("  %kq = arith.addf %kv, %half : f64")
            e("  memref.store %%kq, %s[%%k] : memref<%dxf64>" % (flat, size))
            e("}")
            names.append((m, arr))
        # Fix the SSA definitions the fill loops use (emitted before them).
        pre = []
        for a, arr in enumerate(prog["arrays"]):
            pre.append("  %%c37_%d = arith.constant 37 : i64" % a)
            pre.append("  %%off%d = arith.constant %d : i64" % (a, 101 * a + 11))
            pre.append("  %%base%d = arith.constant %d.0 : f64" % (a, a))
        at = self.lines.index("func.func @main() {") + 1
        self.lines[at:at] = pre
        args, types = [], []
        for p, v in prog["params"].items():
            e("%%pv_%s = arith.constant %d : index" % (p, v))
            args.append("%%pv_%s" % p)
            types.append("index")
        for a, (m, arr) in enumerate(names):
            if prog.get("views", {}).get(str(a)) == "expand":
                # The kernel takes the array flat (its own reinterpret_cast
                # view above) and expands it.
                args.append("%%flat%d" % a)
            elif arr["dynamic"]:
                d = "%%dyn%d" % a
                e("%s = memref.cast %s : %s to %s" % (d, m, static_type(arr), memref_type(arr)))
                args.append(d)
            else:
                args.append(m)
            types.append(argument_type(prog, a))
        e("func.call @kernel(%s) : (%s) -> ()" % (", ".join(args), ", ".join(types)))
        for a, arr in enumerate(prog["arrays"]):
            size = 1
            for s in arr["shape"]:
                size *= s
            if self.values:
                # Every cell's bits, one a line (the fuzzer's comparison
                # within a tolerance, gen.tolerance).
                e("scf.for %%k = %%c0 to %%sz%d step %%c1 {" % a)
                e("  %%v = memref.load %%flat%d[%%k] : memref<%dxf64>" % (a, size))
                e("  %raw = arith.bitcast %v : f64 to i64")
                e("  func.call @printI64(%raw) : (i64) -> ()")
                e("  func.call @printNewline() : () -> ()")
                e("}")
                continue
            e("%%sum%d = scf.for %%k = %%c0 to %%sz%d step %%c1 iter_args(%%acc = %%z64) -> (i64) {" % (a, a))
            e("  %%v = memref.load %%flat%d[%%k] : memref<%dxf64>" % (a, size))
            # Every NaN counts as one: their sign and payload differ between
            # constant folding and the hardware.
            e("  %isnan = arith.cmpf uno, %v, %v : f64")
            e("  %raw = arith.bitcast %v : f64 to i64")
            e("  %bits = arith.select %isnan, %nan64, %raw : i64")
            e("  %ki = arith.index_cast %k : index to i64")
            e("  %w = arith.addi %ki, %one64 : i64")
            e("  %prod = arith.muli %bits, %w : i64")
            e("  %next = arith.addi %acc, %prod : i64")
            e("  scf.yield %next : i64")
            e("}")
            e("func.call @printI64(%%sum%d) : (i64) -> ()" % a)
            e("func.call @printNewline() : () -> ()")
        for m, arr in names:
            e("memref.dealloc %s : %s" % (m, static_type(arr)))
        e("return")
        self.ind = 0
        e("}")


def kernel_text(prog):
    p = Printer(prog)
    p.kernel()
    return "\n".join(p.lines) + "\n"


def module_text(prog, values=False):
    """The whole module: @kernel and @main; with VALUES, @main prints
    every cell's bits instead of each array's checksum."""
    k = Printer(prog)
    k.kernel()
    m = Printer(prog, values)
    m.main()
    return "// fuzz program, seed %s\n" % prog.get("seed") + "\n".join(k.lines) + "\n\n" + \
        "\n".join(m.lines) + "\n"


def count_statements(prog):
    return len([x for x in all_accesses(prog) if x[1] == 0])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--family", choices=FAMILIES, default="mixed",
                    help="the kind of program (default: mixed)")
    ap.add_argument("--init", choices=["dyadic"], default=None,
                    help="initial values over 1024 instead of 997, as the fuzzer's contract=true "
                         "cases draw them (see INIT_DENOMINATOR)")
    ap.add_argument("--json", action="store_true", help="print the AST instead of MLIR")
    ap.add_argument("--from-json", metavar="FILE", help="print the MLIR of a saved AST")
    args = ap.parse_args()
    if args.from_json:
        with open(args.from_json) as f:
            prog = json.load(f)
        fit_arrays(prog)
    else:
        prog = generate(args.seed, args.family)
    if args.init:
        prog["init"] = args.init
    if args.json:
        json.dump(prog, sys.stdout)
        print()
    else:
        sys.stdout.write(module_text(prog))


if __name__ == "__main__":
    main()
