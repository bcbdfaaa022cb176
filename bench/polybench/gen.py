#!/usr/bin/env python3
"""Generate the 30 PolyBench/C 4.2.1 kernels as MLIR affine-dialect modules.

Usage:
    python3 gen.py --size {MINI,SMALL,MEDIUM,LARGE,EXTRALARGE} --out DIR [kernels...]

Every kernel is described once (see kernels.py next to this file) by
  * its PolyBench dataset sizes (exact values of the kernel's .h file),
  * the array / scalar signature,
  * the body of PolyBench's init_array() and of the kernel, written in the
    small C subset PolyBench uses (for loops, if/else, assignments, + - * / %,
    casts, ?:, sqrt/exp/pow, PolyBench's _PB_X / SCALAR_VAL / SQRT_FUN macros).
This script compiles those C-subset templates into MLIR with the dataset
sizes substituted as constants:
  * @kernel_<name>: affine.for / affine.load / affine.store / affine.if only
    (plus arith/math ops in statement bodies); marked llvm.emit_c_interface;
  * @init_<name>:   PolyBench's init_array (returns the scalar parameters
    such as alpha/beta as f64 results);
  * @main:          allocates (every array on a 64-byte boundary, the cache
    line: PolyBench/C's own arrays are page-aligned, posix_memalign(4096),
    and gcc aligns the C references' static arrays to 64 bytes; malloc
    alone would put a large array 16 bytes past a line, where every
    512-bit load straddles two lines), calls init, calls the kernel, prints one
    checksum line  sum_k v_k * (1 + (k mod 7))  over the output arrays
    (k = row-major linear index inside each array) with printf("%.17g\\n").
Only the Python 3 standard library is used.
"""

import argparse
import os
import re
import struct
import sys

SIZES = ["MINI", "SMALL", "MEDIUM", "LARGE", "EXTRALARGE"]

# The alignment of main's arrays (module docstring).
ALLOC = "memref.alloc() {alignment = 64 : i64}"


# --------------------------------------------------------------------------
# Tokenizer / parser for the C subset
# --------------------------------------------------------------------------

TOKEN_RE = re.compile(r"""
    (?P<ws>\s+)
  | (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<float>(\d+\.\d*|\.\d+)([eE][-+]?\d+)?[fF]?|\d+[eE][-+]?\d+[fF]?)
  | (?P<int>\d+)
  | (?P<id>[A-Za-z_][A-Za-z_0-9]*)
  | (?P<op>\+\+|--|\+=|-=|\*=|/=|<=|>=|==|!=|&&|\|\||[-+*/%<>=?:()\[\]{};,!])
""", re.VERBOSE | re.DOTALL)

TYPE_NAMES = {"double": "f64", "DATA_TYPE": "f64", "float": "f64",
              "int": "i64", "base": "i8", "char": "i8"}


def tokenize(src):
    toks = []
    pos = 0
    while pos < len(src):
        m = TOKEN_RE.match(src, pos)
        if not m:
            raise SyntaxError("bad character at: %r" % src[pos:pos + 30])
        pos = m.end()
        kind = m.lastgroup
        if kind in ("ws", "comment"):
            continue
        toks.append((kind, m.group(kind)))
    toks.append(("eof", None))
    return toks


class Parser:
    def __init__(self, src):
        self.toks = tokenize(src)
        self.p = 0

    def peek(self, k=0):
        return self.toks[self.p + k]

    def next(self):
        t = self.toks[self.p]
        self.p += 1
        return t

    def accept(self, val):
        if self.peek()[1] == val and self.peek()[0] in ("op", "id"):
            self.p += 1
            return True
        return False

    def expect(self, val):
        t = self.next()
        if t[1] != val:
            raise SyntaxError("expected %r, got %r (near token %d)" % (val, t[1], self.p))
        return t

    def ident(self):
        t = self.next()
        if t[0] != "id":
            raise SyntaxError("expected identifier, got %r" % (t[1],))
        return t[1]

    # statements -----------------------------------------------------------
    def program(self):
        stmts = []
        while self.peek()[0] != "eof":
            stmts.append(self.stmt())
        return stmts

    def stmt(self):
        t = self.peek()
        if t == ("op", "{"):
            self.next()
            body = []
            while not self.accept("}"):
                body.append(self.stmt())
            return ("block", body)
        if t == ("id", "for"):
            return self.for_stmt()
        if t == ("id", "if"):
            self.next()
            self.expect("(")
            cond = self.expr()
            self.expect(")")
            then = self.stmt()
            els = None
            if self.peek() == ("id", "else"):
                self.next()
                els = self.stmt()
            return ("if", cond, then, els)
        lhs = self.lvalue()
        op = self.next()[1]
        if op not in ("=", "+=", "-=", "*=", "/="):
            raise SyntaxError("expected assignment operator, got %r" % op)
        rhs = self.expr()
        self.expect(";")
        return ("assign", lhs, op, rhs)

    def lvalue(self):
        name = self.ident()
        subs = []
        while self.accept("["):
            subs.append(self.expr())
            self.expect("]")
        return ("idx", name, subs) if subs else ("var", name)

    def for_stmt(self):
        self.expect("for")
        self.expect("(")
        var = self.ident()
        self.expect("=")
        init = self.expr()
        self.expect(";")
        v2 = self.ident()
        rel = self.next()[1]
        if v2 != var or rel not in ("<", "<=", ">", ">="):
            raise SyntaxError("unsupported loop condition on %s" % var)
        bound = self.expr()
        self.expect(";")
        if self.accept("++") or self.accept("--"):
            step = self.toks[self.p - 1][1]
            if self.ident() != var:
                raise SyntaxError("bad loop increment")
        else:
            if self.ident() != var:
                raise SyntaxError("bad loop increment")
            step = self.next()[1]
            if step not in ("++", "--"):
                raise SyntaxError("bad loop increment")
        self.expect(")")
        body = self.stmt()
        return ("for", var, init, rel, bound, 1 if step == "++" else -1, body)

    # expressions ----------------------------------------------------------
    def expr(self):
        c = self.lor()
        if self.accept("?"):
            a = self.expr()
            self.expect(":")
            b = self.expr()
            return ("tern", c, a, b)
        return c

    def lor(self):
        a = self.land()
        while self.accept("||"):
            a = ("bin", "||", a, self.land())
        return a

    def land(self):
        a = self.cmp()
        while self.accept("&&"):
            a = ("bin", "&&", a, self.cmp())
        return a

    def cmp(self):
        a = self.add()
        t = self.peek()
        if t[0] == "op" and t[1] in ("<", "<=", ">", ">=", "==", "!="):
            self.next()
            a = ("bin", t[1], a, self.add())
        return a

    def add(self):
        a = self.mul()
        while True:
            t = self.peek()
            if t[0] == "op" and t[1] in ("+", "-"):
                self.next()
                a = ("bin", t[1], a, self.mul())
            else:
                return a

    def mul(self):
        a = self.unary()
        while True:
            t = self.peek()
            if t[0] == "op" and t[1] in ("*", "/", "%"):
                self.next()
                a = ("bin", t[1], a, self.unary())
            else:
                return a

    def unary(self):
        t = self.peek()
        if t == ("op", "-"):
            self.next()
            return ("neg", self.unary())
        if t == ("op", "+"):
            self.next()
            return self.unary()
        if t == ("op", "(") and self.peek(1)[0] == "id" and self.peek(1)[1] in TYPE_NAMES \
                and self.peek(2) == ("op", ")"):
            self.next()
            ty = TYPE_NAMES[self.next()[1]]
            self.next()
            return ("cast", ty, self.unary())
        return self.primary()

    def primary(self):
        t = self.next()
        if t[0] == "int":
            return ("num", int(t[1]), False)
        if t[0] == "float":
            return ("num", float(t[1].rstrip("fF")), True)
        if t == ("op", "("):
            e = self.expr()
            self.expect(")")
            return e
        if t[0] == "id":
            name = t[1]
            if self.accept("("):
                args = []
                if not self.accept(")"):
                    args.append(self.expr())
                    while self.accept(","):
                        args.append(self.expr())
                    self.expect(")")
                return ("call", name, args)
            subs = []
            while self.accept("["):
                subs.append(self.expr())
                self.expect("]")
            return ("idx", name, subs) if subs else ("var", name)
        raise SyntaxError("unexpected token %r" % (t[1],))


# --------------------------------------------------------------------------
# Affine forms: {iv_ssa_name: coeff}, const
# --------------------------------------------------------------------------

class NotAffine(Exception):
    pass


class Aff:
    def __init__(self, terms=None, const=0):
        self.terms = {k: v for k, v in (terms or {}).items() if v != 0}
        self.const = const

    def __add__(self, o):
        t = dict(self.terms)
        for k, v in o.terms.items():
            t[k] = t.get(k, 0) + v
        return Aff(t, self.const + o.const)

    def scale(self, c):
        return Aff({k: v * c for k, v in self.terms.items()}, self.const * c)

    def __sub__(self, o):
        return self + o.scale(-1)

    def is_const(self):
        return not self.terms

    def dims(self):
        return list(self.terms.keys())

    def render(self, names):
        """names: iv -> textual name (d0 or %i)."""
        parts = []
        for k, c in self.terms.items():
            n = names[k]
            if not parts:
                parts.append(n if c == 1 else "%s * %d" % (n, c))
            elif c > 0:
                parts.append(" + " + (n if c == 1 else "%s * %d" % (n, c)))
            else:
                parts.append(" - " + (n if c == -1 else "%s * %d" % (n, -c)))
        if not parts:
            return str(self.const)
        if self.const > 0:
            parts.append(" + %d" % self.const)
        elif self.const < 0:
            parts.append(" - %d" % -self.const)
        return "".join(parts)


def aff_map(forms, dims=None):
    """Render affine forms as an inline affine_map applied to IV operands."""
    if dims is None:
        dims = []
        for f in forms:
            for d in f.dims():
                if d not in dims:
                    dims.append(d)
    names = {d: "d%d" % i for i, d in enumerate(dims)}
    body = ", ".join(f.render(names) for f in forms)
    return "affine_map<(%s) -> (%s)>(%s)" % (
        ", ".join("d%d" % i for i in range(len(dims))), body, ", ".join(dims))


def f64_hex(v):
    return "0x%016X" % struct.unpack("<Q", struct.pack("<d", v))[0]


# --------------------------------------------------------------------------
# Code generation
# --------------------------------------------------------------------------

def memref_type(dims, ty="f64"):
    return "memref<%sx%s>" % ("x".join(str(d) for d in dims), ty) if dims else "memref<1x%s>" % ty


class FuncGen:
    def __init__(self, params, mode):
        self.params = params          # name -> int  (also lowercase / _PB_ aliases)
        self.mode = mode              # "kernel" or "init"
        self.lines = []
        self.consts = {}              # (ty, repr) -> ssa
        self.const_of = {}            # ssa -> (ty, value) for constants
        self.const_lines = []
        self.ctr = 0
        self.ind = 2
        self.arrays = {}              # name -> (ssa, dims, elemty)
        self.scalars = {}             # name -> ssa of memref<1xf64>
        self.values = [{}]            # scoped SSA "let" values: name -> (ssa, ty)
        self.loopvars = [{}]          # scoped: name -> Aff
        self.loop_depth = 0
        self.ivctr = 0

    # helpers ---------------------------------------------------------------
    def fresh(self):
        self.ctr += 1
        return "%%_%d" % self.ctr

    def emit(self, s):
        self.lines.append("  " * self.ind + s)

    def const(self, ty, v):
        key = (ty, v)
        if key not in self.consts:
            self.ctr += 1
            n = "%%c_%d" % self.ctr
            self.consts[key] = n
            self.const_of[n] = key
            if ty == "f64":
                self.const_lines.append("%s = arith.constant %s : f64  // %r" % (n, f64_hex(v), v))
            else:
                self.const_lines.append("%s = arith.constant %d : %s" % (n, v, ty))
        return self.consts[key]

    def lookup_loopvar(self, name):
        for scope in reversed(self.loopvars):
            if name in scope:
                return scope[name]
        return None

    def lookup_value(self, name):
        for scope in reversed(self.values):
            if name in scope:
                return scope[name]
        return None

    def push(self):
        self.values.append({})
        self.loopvars.append({})

    def pop(self):
        self.values.pop()
        self.loopvars.pop()

    # affine evaluation -----------------------------------------------------
    def aff(self, e):
        k = e[0]
        if k == "num":
            if e[2]:
                raise NotAffine(e)
            return Aff({}, e[1])
        if k == "var":
            lv = self.lookup_loopvar(e[1])
            if lv is not None:
                return lv
            if e[1] in self.params:
                return Aff({}, self.params[e[1]])
            raise NotAffine(e)
        if k == "neg":
            return self.aff(e[1]).scale(-1)
        if k == "bin" and e[1] in ("+", "-"):
            a, b = self.aff(e[2]), self.aff(e[3])
            return a + b if e[1] == "+" else a - b
        if k == "bin" and e[1] == "*":
            a, b = self.aff(e[2]), self.aff(e[3])
            if a.is_const():
                return b.scale(a.const)
            if b.is_const():
                return a.scale(b.const)
            raise NotAffine(e)
        raise NotAffine(e)

    def subscript(self, name, subs):
        ssa, dims, ety = self.arrays[name]
        if len(subs) != len(dims):
            raise SyntaxError("wrong number of subscripts for %s" % name)
        forms = []
        for s in subs:
            try:
                forms.append(self.aff(s))
            except NotAffine:
                raise SyntaxError("non-affine subscript in %s" % name)
        names = {d: d for f in forms for d in f.dims()}
        idx = ", ".join(f.render(names) for f in forms)
        return ssa, "[%s] : %s" % (idx, memref_type(dims, ety)), ety

    # value expressions -----------------------------------------------------
    def conv(self, v, ty, to):
        if ty == to:
            return v
        if ty == "i64" and to == "f64" and v in self.const_of:
            # (double) of an integer constant is folded, exactly as the C compiler does
            return self.const("f64", float(self.const_of[v][1]))
        r = self.fresh()
        if ty == "i64" and to == "f64":
            self.emit("%s = arith.sitofp %s : i64 to f64" % (r, v))
        elif ty == "f64" and to == "i64":
            self.emit("%s = arith.fptosi %s : f64 to i64" % (r, v))
        elif ty == "i1" and to == "i64":
            self.emit("%s = arith.extui %s : i1 to i64" % (r, v))
        elif ty == "i1" and to == "f64":
            return self.conv(self.conv(v, "i1", "i64"), "i64", "f64")
        elif ty == "i64" and to == "i8":
            self.emit("%s = arith.trunci %s : i64 to i8" % (r, v))
        elif ty == "f64" and to == "i8":
            return self.conv(self.conv(v, "f64", "i64"), "i64", "i8")
        else:
            raise TypeError("cannot convert %s to %s" % (ty, to))
        return r

    def index_value(self, form):
        if form.is_const():
            return self.const("i64", form.const)
        if len(form.terms) == 1 and form.const == 0 and list(form.terms.values())[0] == 1:
            iv = form.dims()[0]
        else:
            iv = self.fresh()
            self.emit("%s = affine.apply %s" % (iv, aff_map([form])))
        r = self.fresh()
        self.emit("%s = arith.index_cast %s : index to i64" % (r, iv))
        return r

    def val(self, e):
        k = e[0]
        if k == "num":
            return (self.const("f64", float(e[1])), "f64") if e[2] else (self.const("i64", e[1]), "i64")
        if k == "var":
            name = e[1]
            lv = self.lookup_loopvar(name)
            if lv is not None:
                return self.index_value(lv), "i64"
            v = self.lookup_value(name)
            if v is not None:
                return v
            if name in self.scalars:
                r = self.fresh()
                self.emit("%s = affine.load %s[0] : memref<1xf64>" % (r, self.scalars[name]))
                return r, "f64"
            if name in self.params:
                return self.const("i64", self.params[name]), "i64"
            raise NameError("unknown name %s" % name)
        if k == "idx":
            ssa, sub, ety = self.subscript(e[1], e[2])
            r = self.fresh()
            self.emit("%s = affine.load %s%s" % (r, ssa, sub))
            if ety == "i8":
                r2 = self.fresh()
                self.emit("%s = arith.extsi %s : i8 to i64" % (r2, r))
                return r2, "i64"
            return r, ety
        if k == "neg":
            v, ty = self.val(e[1])
            r = self.fresh()
            if ty == "f64":
                self.emit("%s = arith.negf %s : f64" % (r, v))
            else:
                self.emit("%s = arith.subi %s, %s : i64" % (r, self.const("i64", 0), v))
                ty = "i64"
            return r, ty
        if k == "cast":
            v, ty = self.val(e[2])
            if e[1] == "f64":
                return self.conv(v, ty, "f64"), "f64"
            if e[1] == "i64":
                return self.conv(v, ty, "i64"), "i64"
            # (char) cast: truncate then sign-extend back (C integer promotion)
            t = self.conv(v, ty, "i8")
            r = self.fresh()
            self.emit("%s = arith.extsi %s : i8 to i64" % (r, t))
            return r, "i64"
        if k == "tern":
            c = self.cond_value(e[1])
            a, ta = self.val(e[2])
            b, tb = self.val(e[3])
            ty = "f64" if "f64" in (ta, tb) else "i64"
            a, b = self.conv(a, ta, ty), self.conv(b, tb, ty)
            r = self.fresh()
            self.emit("%s = arith.select %s, %s, %s : %s" % (r, c, a, b, ty))
            return r, ty
        if k == "call":
            return self.call(e[1], e[2])
        if k == "bin":
            op = e[1]
            if op in ("<", "<=", ">", ">=", "==", "!=", "&&", "||"):
                return self.cond_value(e), "i1"
            a, ta = self.val(e[2])
            b, tb = self.val(e[3])
            if ta == "i1" or tb == "i1":
                raise TypeError("arithmetic on booleans")
            r = self.fresh()
            if "f64" in (ta, tb):
                a, b = self.conv(a, ta, "f64"), self.conv(b, tb, "f64")
                fop = {"+": "addf", "-": "subf", "*": "mulf", "/": "divf"}.get(op)
                if fop is None:
                    raise TypeError("%% on doubles")
                self.emit("%s = arith.%s %s, %s : f64" % (r, fop, a, b))
                return r, "f64"
            iop = {"+": "addi", "-": "subi", "*": "muli", "/": "divsi", "%": "remsi"}[op]
            self.emit("%s = arith.%s %s, %s : i64" % (r, iop, a, b))
            return r, "i64"
        raise SyntaxError("cannot compile %r" % (e,))

    def call(self, f, args):
        if f == "SCALAR_VAL":
            return self.val(args[0])
        f = {"SQRT_FUN": "sqrt", "EXP_FUN": "exp", "POW_FUN": "pow"}.get(f, f)
        if f in ("sqrt", "exp"):
            v, ty = self.val(args[0])
            v = self.conv(v, ty, "f64")
            r = self.fresh()
            self.emit("%s = math.%s %s : f64" % (r, f, v))
            return r, "f64"
        if f == "pow":
            a, ta = self.val(args[0])
            b, tb = self.val(args[1])
            a, b = self.conv(a, ta, "f64"), self.conv(b, tb, "f64")
            r = self.fresh()
            self.emit("%s = math.powf %s, %s : f64" % (r, a, b))
            return r, "f64"
        if f == "max_score":
            # nussinov: #define max_score(s1, s2) ((s1 >= s2) ? s1 : s2)
            a, ta = self.val(args[0])
            b, tb = self.val(args[1])
            ty = "f64" if "f64" in (ta, tb) else "i64"
            a, b = self.conv(a, ta, ty), self.conv(b, tb, ty)
            c = self.fresh()
            if ty == "f64":
                self.emit("%s = arith.cmpf oge, %s, %s : f64" % (c, a, b))
            else:
                self.emit("%s = arith.cmpi sge, %s, %s : i64" % (c, a, b))
            r = self.fresh()
            self.emit("%s = arith.select %s, %s, %s : %s" % (r, c, a, b, ty))
            return r, ty
        if f == "match":
            # nussinov: #define match(b1, b2) (((b1)+(b2)) == 3 ? 1 : 0)
            return self.val(("tern", ("bin", "==", ("bin", "+", args[0], args[1]), ("num", 3, False)),
                             ("num", 1, False), ("num", 0, False)))
        raise NameError("unknown function %s" % f)

    def cond_value(self, e):
        if e[0] == "bin" and e[1] in ("&&", "||"):
            a = self.cond_value(e[2])
            b = self.cond_value(e[3])
            r = self.fresh()
            self.emit("%s = arith.%s %s, %s : i1" % (r, "andi" if e[1] == "&&" else "ori", a, b))
            return r
        if e[0] == "bin" and e[1] in ("<", "<=", ">", ">=", "==", "!="):
            a, ta = self.val(e[2])
            b, tb = self.val(e[3])
            r = self.fresh()
            if "f64" in (ta, tb):
                a, b = self.conv(a, ta, "f64"), self.conv(b, tb, "f64")
                pred = {"<": "olt", "<=": "ole", ">": "ogt", ">=": "oge", "==": "oeq", "!=": "une"}[e[1]]
                self.emit("%s = arith.cmpf %s, %s, %s : f64" % (r, pred, a, b))
            else:
                pred = {"<": "slt", "<=": "sle", ">": "sgt", ">=": "sge", "==": "eq", "!=": "ne"}[e[1]]
                self.emit("%s = arith.cmpi %s, %s, %s : i64" % (r, pred, a, b))
            return r
        v, ty = self.val(e)
        r = self.fresh()
        if ty == "f64":
            self.emit("%s = arith.cmpf une, %s, %s : f64" % (r, v, self.const("f64", 0.0)))
        else:
            self.emit("%s = arith.cmpi ne, %s, %s : i64" % (r, v, self.const("i64", 0)))
        return r

    # affine conditions (kernel if statements) -------------------------------
    def affine_constraints(self, e, out):
        if e[0] == "bin" and e[1] == "&&":
            self.affine_constraints(e[2], out)
            self.affine_constraints(e[3], out)
            return
        if e[0] == "bin" and e[1] in ("<", "<=", ">", ">=", "=="):
            a, b = self.aff(e[2]), self.aff(e[3])
            op = e[1]
            if op == "<":
                out.append((b - a - Aff({}, 1), ">="))
            elif op == "<=":
                out.append((b - a, ">="))
            elif op == ">":
                out.append((a - b - Aff({}, 1), ">="))
            elif op == ">=":
                out.append((a - b, ">="))
            else:
                out.append((a - b, "=="))
            return
        raise NotAffine(e)

    # statements ------------------------------------------------------------
    def stmts(self, body):
        for s in body:
            self.stmt(s)

    def stmt(self, s):
        k = s[0]
        if k == "block":
            self.push()
            self.stmts(s[1])
            self.pop()
        elif k == "for":
            self.for_stmt(s)
        elif k == "if":
            self.if_stmt(s)
        elif k == "assign":
            self.assign(s)
        else:
            raise SyntaxError(s)

    def bound(self, form):
        if form.is_const():
            return str(form.const)
        return aff_map([form])

    def for_stmt(self, s):
        _, var, init, rel, bound, step, body = s
        lo_init = self.aff(init)
        b = self.aff(bound)
        self.ivctr += 1
        iv = "%%%s_%d" % (var, self.ivctr) if step == 1 else "%%%s_rev%d" % (var, self.ivctr)
        if step == 1:
            if rel == "<":
                ub = b
            elif rel == "<=":
                ub = b + Aff({}, 1)
            else:
                raise SyntaxError("increasing loop with %s" % rel)
            self.emit("affine.for %s = %s to %s {" % (iv, self.bound(lo_init), self.bound(ub)))
            form = Aff({iv: 1})
        else:
            # for (v = hi; v >= lo; v--)  ==>  affine.for %t = 0 to hi-lo+1, v = hi - t
            if rel == ">=":
                lo = b
            elif rel == ">":
                lo = b + Aff({}, 1)
            else:
                raise SyntaxError("decreasing loop with %s" % rel)
            trip = lo_init - lo + Aff({}, 1)
            self.emit("affine.for %s = 0 to %s {  // %s = %s - %s (reversed loop)" % (
                iv, self.bound(trip), var, lo_init.render({d: d for d in lo_init.dims()}), iv))
            form = lo_init - Aff({iv: 1})
        self.ind += 1
        self.loop_depth += 1
        self.push()
        self.loopvars[-1][var] = form
        self.stmt(body)
        self.pop()
        self.loop_depth -= 1
        self.ind -= 1
        self.emit("}")

    def if_stmt(self, s):
        _, cond, then, els = s
        cons = []
        use_affine = self.mode == "kernel"
        if use_affine:
            try:
                self.affine_constraints(cond, cons)
            except NotAffine:
                raise SyntaxError("kernel if-condition must be affine: %r" % (cond,))
            dims = []
            for f, _ in cons:
                for d in f.dims():
                    if d not in dims:
                        dims.append(d)
            names = {d: "d%d" % i for i, d in enumerate(dims)}
            cstr = ", ".join("%s %s 0" % (f.render(names), op) for f, op in cons)
            self.emit("affine.if affine_set<(%s) : (%s)>(%s) {" % (
                ", ".join("d%d" % i for i in range(len(dims))), cstr, ", ".join(dims)))
        else:
            c = self.cond_value(cond)
            self.emit("scf.if %s {" % c)
        self.ind += 1
        self.push()
        self.stmt(then)
        self.pop()
        self.ind -= 1
        if els is not None:
            self.emit("} else {")
            self.ind += 1
            self.push()
            self.stmt(els)
            self.pop()
            self.ind -= 1
        self.emit("}")

    def assign(self, s):
        _, lhs, op, rhs = s
        if op != "=":
            rhs = ("bin", op[0], lhs, rhs)
        if lhs[0] == "idx":
            v, ty = self.val(rhs)
            ssa, sub, ety = self.subscript(lhs[1], lhs[2])
            v = self.conv(v, ty, ety)
            self.emit("affine.store %s, %s%s" % (v, ssa, sub))
            return
        name = lhs[1]
        if name in self.scalars:
            v, ty = self.val(rhs)
            v = self.conv(v, ty, "f64")
            self.emit("affine.store %s, %s[0] : memref<1xf64>" % (v, self.scalars[name]))
            return
        # SSA "let" value (loop-invariant DATA_TYPE scalar assigned once)
        if self.lookup_value(name) is not None or self.lookup_loopvar(name) is not None:
            raise SyntaxError("scalar %s assigned twice: declare it as a scalar" % name)
        v, ty = self.val(rhs)
        v = self.conv(v, ty, "f64")
        self.values[-1][name] = (v, "f64")


# --------------------------------------------------------------------------
# Module assembly
# --------------------------------------------------------------------------

def fn_name(kname):
    return kname.replace("-", "_")


def build_params(spec, size):
    vals = spec["sizes"][size]
    params = {}
    for p, v in zip(spec["params"], vals):
        params[p] = v
        params["_PB_" + p] = v
        params[p.lower()] = v
    return params


def gen_module(kname, spec, size):
    params = build_params(spec, size)
    name = fn_name(kname)

    def dims_of(arr):
        return [params[d] if isinstance(d, str) else d for d in arr[1]]

    arrays = spec["arrays"]            # [(name, [dims], elemty)]
    scalars_in = spec.get("scalars_in", [])
    locals_ = spec.get("locals", [])   # [(name, [dims])]; [] dims -> memref<1xf64> scalar

    out = []
    out.append("// PolyBench/C 4.2.1 %s, %s_DATASET (%s)" % (kname, size, ", ".join(
        "%s=%d" % (p, v) for p, v in zip(spec["params"], spec["sizes"][size]))))
    out.append("// Generated by bench/polybench/gen.py -- do not edit.")
    out.append("module {")
    out.append('  llvm.mlir.global internal constant @polybench_fmt("%.17g\\0A\\00") {addr_space = 0 : i32}')
    out.append("  llvm.func @printf(!llvm.ptr, ...) -> i32")
    out.append("")

    # ---------------- kernel -------------------
    kg = FuncGen(params, "kernel")
    sig = []
    for s in scalars_in:
        kg.values[0][s] = ("%" + s, "f64")
        sig.append("%%%s: f64" % s)
    for a in arrays:
        d = dims_of(a)
        kg.arrays[a[0]] = ("%" + a[0], d, a[2])
        sig.append("%%%s: %s" % (a[0], memref_type(d, a[2])))
    for l in locals_:
        if l[1]:
            d = dims_of((l[0], l[1]))
            kg.arrays[l[0]] = ("%" + l[0], d, "f64")
            sig.append("%%%s: %s" % (l[0], memref_type(d)))
        else:
            kg.scalars[l[0]] = "%" + l[0]
            sig.append("%%%s: memref<1xf64>" % l[0])
    kg.stmts(Parser(spec["kernel"]).program())
    out.append("  func.func @kernel_%s(%s) attributes {llvm.emit_c_interface} {" % (name, ", ".join(sig)))
    out.extend("    " + c for c in kg.const_lines)
    out.extend(kg.lines)
    out.append("    return")
    out.append("  }")
    out.append("")

    # ---------------- init ---------------------
    ig = FuncGen(params, "init")
    isig = []
    for a in arrays:
        d = dims_of(a)
        ig.arrays[a[0]] = ("%" + a[0], d, a[2])
        isig.append("%%%s: %s" % (a[0], memref_type(d, a[2])))
    temps = spec.get("init_temps", [])
    for t in temps:
        d = dims_of(t)
        ig.arrays[t[0]] = ("%" + t[0], d, "f64")
        ig.emit("%%%s = memref.alloc() : %s" % (t[0], memref_type(d)))
    ig.stmts(Parser(spec["init"]).program())
    for t in temps:
        ig.emit("memref.dealloc %%%s : %s" % (t[0], memref_type(dims_of(t))))
    rets = []
    for s in scalars_in:
        v = ig.lookup_value(s)
        if v is None:
            raise SyntaxError("init does not define %s" % s)
        rets.append(v[0])
    rtype = ""
    if scalars_in:
        rtype = " -> (%s)" % ", ".join(["f64"] * len(scalars_in))
    out.append("  func.func @init_%s(%s)%s {" % (name, ", ".join(isig), rtype))
    out.extend("    " + c for c in ig.const_lines)
    out.extend(ig.lines)
    if rets:
        out.append("    return %s : %s" % (", ".join(rets), ", ".join(["f64"] * len(rets))))
    else:
        out.append("    return")
    out.append("  }")
    out.append("")

    # ---------------- main ---------------------
    m = []
    m.append("  func.func @main() {")
    all_bufs = []
    for a in arrays:
        t = memref_type(dims_of(a), a[2])
        m.append("    %%%s = %s : %s" % (a[0], ALLOC, t))
        all_bufs.append(("%" + a[0], t))
    loc_args = []
    for l in locals_:
        t = memref_type(dims_of((l[0], l[1]))) if l[1] else "memref<1xf64>"
        m.append("    %%%s = %s : %s" % (l[0], ALLOC, t))
        all_bufs.append(("%" + l[0], t))
        loc_args.append(("%" + l[0], t))
    arr_args = [("%" + a[0], memref_type(dims_of(a), a[2])) for a in arrays]
    call_init = "call @init_%s(%s) : (%s) -> (%s)" % (
        name, ", ".join(x for x, _ in arr_args), ", ".join(t for _, t in arr_args),
        ", ".join(["f64"] * len(scalars_in)))
    if scalars_in:
        m.append("    %s = %s" % (", ".join("%%%s" % s for s in scalars_in), call_init))
    else:
        m.append("    " + call_init)
    if PERTURB:
        m.extend(perturb_lines(arrays, dims_of))
    kargs = [("%" + s, "f64") for s in scalars_in] + arr_args + loc_args
    m.append("    call @kernel_%s(%s) : (%s) -> ()" % (
        name, ", ".join(x for x, _ in kargs), ", ".join(t for _, t in kargs)))
    # checksum
    m.append("    %cs_0 = arith.constant 0.0 : f64")
    acc = "%cs_0"
    cnt = [0]

    def fresh(p):
        cnt[0] += 1
        return "%%%s_%d" % (p, cnt[0])

    arrmap = {a[0]: a for a in arrays}
    for oname in spec["outputs"]:
        a = arrmap[oname]
        d = dims_of(a)
        ivs = []
        ind = "    "
        accs = [acc]
        res_names = []
        for k, n in enumerate(d):
            iv = fresh("ck")
            res = fresh("cs")
            inner = fresh("acc")
            m.append("%s%s = affine.for %s = 0 to %d iter_args(%s = %s) -> (f64) {" % (
                ind, res, iv, n, inner, accs[-1]))
            ivs.append(iv)
            accs.append(inner)
            res_names.append(res)
            ind += "  "
        # linear index mod 7
        strides = []
        s = 1
        for n in reversed(d):
            strides.insert(0, s)
            s *= n
        lin = " + ".join("d%d * %d" % (k, st) if st != 1 else "d%d" % k for k, st in enumerate(strides))
        v = fresh("v")
        m.append("%s%s = affine.load %%%s[%s] : %s" % (ind, v, oname, ", ".join(ivs), memref_type(d)))
        w = fresh("w")
        m.append("%s%s = affine.apply affine_map<(%s) -> ((%s) mod 7 + 1)>(%s)" % (
            ind, w, ", ".join("d%d" % k for k in range(len(d))), lin, ", ".join(ivs)))
        wi = fresh("wi")
        m.append("%s%s = arith.index_cast %s : index to i64" % (ind, wi, w))
        wf = fresh("wf")
        m.append("%s%s = arith.sitofp %s : i64 to f64" % (ind, wf, wi))
        p = fresh("p")
        m.append("%s%s = arith.mulf %s, %s : f64" % (ind, p, v, wf))
        nacc = fresh("s")
        m.append("%s%s = arith.addf %s, %s : f64" % (ind, nacc, accs[-1], p))
        m.append("%saffine.yield %s : f64" % (ind, nacc))
        for k in range(len(d) - 1, -1, -1):
            ind = ind[:-2]
            m.append("%s}" % ind)
            if k > 0:
                m.append("%saffine.yield %s : f64" % (ind, res_names[k]))
        acc = res_names[0]
    m.append("    %fmt = llvm.mlir.addressof @polybench_fmt : !llvm.ptr")
    m.append("    %%pr = llvm.call @printf(%%fmt, %s) vararg(!llvm.func<i32 (ptr, ...)>) : (!llvm.ptr, f64) -> i32" % acc)
    for b, t in all_bufs:
        m.append("    memref.dealloc %s : %s" % (b, t))
    m.append("    return")
    m.append("  }")
    out.extend(m)
    out.append("}")
    return "\n".join(out) + "\n"


# --init=perturbed: after PolyBench's init, every f64 array element k (row-major
# index) gets ((k * 7919) mod 1009) * 2^-20 added. Some PolyBench inits make
# reorderings invisible (seidel-2d's bilinear init is a fixed point of its
# 9-point average); the perturbation is deterministic, non-affine in k and
# small enough to keep the kernels' numerical preconditions (e.g. cholesky's
# positive definite matrix). The reference is then the baseline MLIR run, not C.
PERTURB = False


def perturb_lines(arrays, dims_of):
    lines = []
    for a in arrays:
        elem = a[2] if len(a) > 2 and a[2] else "f64"
        if elem != "f64":
            continue
        d = dims_of(a)
        ivs = ["%%pt_%s_%d" % (a[0], k) for k in range(len(d))]
        ind = "    "
        for k, n in enumerate(d):
            lines.append("%saffine.for %s = 0 to %d {" % (ind, ivs[k], n))
            ind += "  "
        strides, st = [], 1
        for n in reversed(d):
            strides.insert(0, st)
            st *= n
        lin = " + ".join("d%d * %d" % (k, sk) for k, sk in enumerate(strides))
        dl = ", ".join("d%d" % k for k in range(len(d)))
        t = memref_type(d, elem)
        pre = "%%pt_%s" % a[0]
        lines.append("%s%s_h = affine.apply affine_map<(%s) -> (((%s) * 7919) mod 1009)>(%s)"
                     % (ind, pre, dl, lin, ", ".join(ivs)))
        lines.append("%s%s_i = arith.index_cast %s_h : index to i64" % (ind, pre, pre))
        lines.append("%s%s_f = arith.sitofp %s_i : i64 to f64" % (ind, pre, pre))
        lines.append("%s%s_s = arith.constant 9.5367431640625e-07 : f64" % (ind, pre))
        lines.append("%s%s_d = arith.mulf %s_f, %s_s : f64" % (ind, pre, pre, pre))
        lines.append("%s%s_v = affine.load %%%s[%s] : %s" % (ind, pre, a[0], ", ".join(ivs), t))
        lines.append("%s%s_n = arith.addf %s_v, %s_d : f64" % (ind, pre, pre, pre))
        lines.append("%saffine.store %s_n, %%%s[%s] : %s" % (ind, pre, a[0], ", ".join(ivs), t))
        for _ in d:
            ind = ind[:-2]
            lines.append("%s}" % ind)
    return lines


def symbolic_bounds(text, name):
    """The kernel's constant upper loop bounds as index arguments, the form
    a front end gives when the sizes are known only at run time (the
    arrays keep their static types). Each distinct constant `N` becomes an
    argument `%pN` appended to @kernel's signature, passed by @main as an
    `arith.constant`; a constant one or two below another one is written
    as that argument minus the difference (`affine_map<()[s0] -> (s0 -
    1)>()[%p1000]` for 999), so that `n - 1` stays tied to `n`. Lower
    bounds stay constant."""
    fn = "kernel_" + name.replace("-", "_")
    start = text.index("func.func @%s(" % fn)
    end = text.index("\n  }\n", start) + 5
    k = text[start:end]
    pat = re.compile(r"(affine\.for %\w+ = [^\n]*? to )(\d+)(\b)")
    consts = []
    for m in pat.finditer(k):
        n = int(m.group(2))
        if n > 0 and n not in consts:
            consts.append(n)
    base = {}
    for n in sorted(consts, reverse=True):
        b = next((x for x in sorted(base) if 0 < x - n <= 2 and base[x] == x), None)
        base[n] = n if b is None else b

    def bound(m):
        n = int(m.group(2))
        if n == 0:
            return m.group(0)
        if base[n] == n:
            return "%s%%p%d%s" % (m.group(1), n, m.group(3))
        return "%saffine_map<()[s0] -> (s0 - %d)>()[%%p%d]%s" % (m.group(1), base[n] - n, base[n], m.group(3))

    k = pat.sub(bound, k)
    args = [n for n in consts if base[n] == n]
    sig = k.index(") attributes")
    k = k[:sig] + "".join(", %%p%d: index" % n for n in args) + k[sig:]
    text = text[:start] + k + text[end:]
    call = re.search(r"call @%s\(([^)]*)\) : \(([^)]*)\) -> \(\)" % fn, text)
    line = text.rfind("\n", 0, call.start()) + 1
    defs = "".join("    %%cp%d = arith.constant %d : index\n" % (n, n) for n in args)
    new_call = "call @%s(%s) : (%s) -> ()" % (
        fn,
        call.group(1) + "".join(", %%cp%d" % n for n in args),
        call.group(2) + "".join(", index" for _ in args),
    )
    return text[:line] + defs + "    " + new_call + text[call.end():]


def main():
    global PERTURB
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, here)
    from kernels import KERNELS, ORDER

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", required=True, choices=SIZES)
    ap.add_argument("--out", required=True)
    ap.add_argument("--init", choices=["polybench", "perturbed"], default="polybench",
                    help="polybench: PolyBench's init_array (default); perturbed: plus a small "
                         "pseudo-random term per element, see PERTURB")
    ap.add_argument("--bounds", choices=["constant", "symbolic"], default="constant",
                    help="constant: the dataset's sizes in the loop bounds (default); symbolic: "
                         "the kernel's upper loop bounds as index arguments (see symbolic_bounds)")
    ap.add_argument("kernels", nargs="*", help="kernel names (default: all 30)")
    args = ap.parse_args()
    PERTURB = args.init == "perturbed"
    names = args.kernels or ORDER
    for n in names:
        if n not in KERNELS:
            ap.error("unknown kernel %s (known: %s)" % (n, " ".join(ORDER)))
    os.makedirs(args.out, exist_ok=True)
    for n in names:
        text = gen_module(n, KERNELS[n], args.size)
        if args.bounds == "symbolic":
            text = symbolic_bounds(text, n)
        with open(os.path.join(args.out, n + ".mlir"), "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
