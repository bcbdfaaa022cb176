//! Parser for the isl text form of sets and maps.
//!
//! Accepted grammar (a subset of isl's):
//! ```text
//! union   := [ '[' ident,* ']' '->' ] '{' [ piece (';' piece)* ] '}'
//! piece   := tuple [ '->' tuple ] [ ':' formula ]
//! tuple   := [ident] '[' [ expr (',' expr)* ] ']'
//! formula := conj ('or' conj)*        conj := atom ('and' atom)*
//! atom    := 'true' | 'false' | '(' formula ')'
//!          | 'exists' '(' ident [ '=' expr ] (',' …)* ':' formula ')'
//!          | expr (op expr)+          op := '<=' | '<' | '>=' | '>' | '='
//! expr    := sums of integer multiples of identifiers, integers,
//!            '(' expr ')', 'floor(' expr '/' int ')', 'ceil(' expr '/' int ')',
//!            and 'expr mod int'; `2i` means `2*i`.
//! ```
//! Invariants: a tuple entry that is a fresh identifier names a new dim;
//! any other entry creates an anonymous dim equal to the expression.
//! Disjunctions are expanded into DNF, one basic piece per conjunct.
//! `floor`/`mod` introduce division locals whose defining rows
//! (`d·q <= e <= d·q + d - 1`) are added to every conjunct; they have
//! exactly one integer solution, so this does not change any conjunct.

use std::collections::BTreeMap;

use super::constraint::BasicRel;
use super::int::{self, MathError, Result};
use super::space::{Space, Tuple};
use super::union::UnionRel;

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    Int(i64),
    Sym(&'static str),
}

fn perr<T>(pos: usize, msg: impl Into<String>) -> Result<T> {
    Err(MathError::Parse {
        pos,
        msg: msg.into(),
    })
}

fn lex(text: &str) -> Result<Vec<(Tok, usize)>> {
    const SYMS: &[&str] = &[
        "->", "<=", ">=", "==", "[", "]", "{", "}", "(", ")", ",", ";", ":", "+", "-", "*", "/",
        "<", ">", "=",
    ];
    let b = text.as_bytes();
    let mut i = 0;
    let mut out = Vec::new();
    'outer: while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if c.is_ascii_digit() {
            let s = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            let v: i64 = text[s..i].parse().map_err(|_| MathError::Overflow)?;
            out.push((Tok::Int(v), s));
            continue;
        }
        if c.is_ascii_alphabetic() || c == b'_' || c == b'$' {
            let s = i;
            while i < b.len()
                && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'\'' || b[i] == b'$')
            {
                i += 1;
            }
            out.push((Tok::Ident(text[s..i].to_string()), s));
            continue;
        }
        for sym in SYMS {
            if text[i..].starts_with(sym) {
                out.push((Tok::Sym(sym), i));
                i += sym.len();
                continue 'outer;
            }
        }
        return perr(i, format!("unexpected character {:?}", c as char));
    }
    Ok(out)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Var {
    Param(usize),
    Dim(usize),
    Local(usize),
}

/// Affine expression: coefficients by variable, plus a constant.
#[derive(Clone, Debug, Default, PartialEq)]
struct Aff {
    terms: BTreeMap<Var, i64>,
    k: i64,
}

impl Aff {
    fn constant(k: i64) -> Aff {
        Aff {
            terms: BTreeMap::new(),
            k,
        }
    }
    fn var(v: Var) -> Aff {
        let mut a = Aff::default();
        a.terms.insert(v, 1);
        a
    }
    fn scaled_add(&self, o: &Aff, s: i64) -> Result<Aff> {
        let mut r = self.clone();
        for (v, c) in &o.terms {
            let e = r.terms.entry(*v).or_insert(0);
            *e = int::add(*e, int::mul(*c, s)?)?;
        }
        r.terms.retain(|_, c| *c != 0);
        r.k = int::add(r.k, int::mul(o.k, s)?)?;
        Ok(r)
    }
    fn scale(&self, s: i64) -> Result<Aff> {
        Aff::default().scaled_add(self, s)
    }
    fn is_const(&self) -> bool {
        self.terms.is_empty()
    }
}

#[derive(Clone, Debug, Default)]
struct Conj {
    eqs: Vec<Aff>,
    ineqs: Vec<Aff>,
}

type Dnf = Vec<Conj>;

fn and(a: Dnf, b: Dnf) -> Dnf {
    let mut out = Vec::with_capacity(a.len() * b.len());
    for x in &a {
        for y in &b {
            let mut c = x.clone();
            c.eqs.extend(y.eqs.iter().cloned());
            c.ineqs.extend(y.ineqs.iter().cloned());
            out.push(c);
        }
    }
    out
}

struct Parser {
    toks: Vec<(Tok, usize)>,
    pos: usize,
    end: usize,
    params: Vec<String>,
    dims: Vec<String>,
    /// Scoped names of locals (name, local index).
    scope: Vec<(String, usize)>,
    n_local: usize,
    defs: Vec<Aff>,
    def_eqs: Vec<Aff>,
}

/// Largest number of conjuncts a formula may expand to.
const DNF_LIMIT: usize = 4096;

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|t| &t.0)
    }
    fn at(&self) -> usize {
        self.toks.get(self.pos).map_or(self.end, |t| t.1)
    }
    fn is_sym(&self, s: &str) -> bool {
        matches!(self.peek(), Some(Tok::Sym(x)) if *x == s)
    }
    fn is_kw(&self, s: &str) -> bool {
        matches!(self.peek(), Some(Tok::Ident(x)) if x == s)
    }
    fn eat_sym(&mut self, s: &str) -> bool {
        if self.is_sym(s) {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    fn eat_kw(&mut self, s: &str) -> bool {
        if self.is_kw(s) {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    fn expect(&mut self, s: &str) -> Result<()> {
        if self.eat_sym(s) {
            Ok(())
        } else {
            perr(self.at(), format!("expected '{s}'"))
        }
    }
    fn ident(&mut self) -> Result<String> {
        match self.peek() {
            Some(Tok::Ident(s)) => {
                let s = s.clone();
                self.pos += 1;
                Ok(s)
            }
            _ => perr(self.at(), "expected identifier"),
        }
    }
    fn int(&mut self) -> Result<i64> {
        match self.peek() {
            Some(Tok::Int(v)) => {
                let v = *v;
                self.pos += 1;
                Ok(v)
            }
            _ => perr(self.at(), "expected integer"),
        }
    }

    fn lookup(&self, name: &str) -> Option<Var> {
        if let Some((_, l)) = self.scope.iter().rev().find(|(n, _)| n == name) {
            return Some(Var::Local(*l));
        }
        if let Some(d) = self.dims.iter().rposition(|n| n == name) {
            return Some(Var::Dim(d));
        }
        self.params.iter().position(|n| n == name).map(Var::Param)
    }

    fn new_local(&mut self) -> usize {
        self.n_local += 1;
        self.n_local - 1
    }

    /// Returns a local `q = ⌊e/d⌋` (defining rows recorded in `defs`).
    fn floor_of(&mut self, e: &Aff, d: i64) -> Result<Aff> {
        if d <= 0 {
            return perr(self.at(), "divisor must be a positive integer");
        }
        let q = Var::Local(self.new_local());
        let dq = Aff::var(q).scale(d)?;
        self.defs.push(e.scaled_add(&dq, -1)?);
        let mut up = dq.scaled_add(e, -1)?;
        up.k = int::add(up.k, d - 1)?;
        self.defs.push(up);
        Ok(Aff::var(q))
    }

    fn factor(&mut self) -> Result<Aff> {
        let at = self.at();
        match self.peek().cloned() {
            Some(Tok::Int(v)) => {
                self.pos += 1;
                // Juxtaposition `2i` or `2(…)`.
                if matches!(self.peek(), Some(Tok::Ident(s)) if s != "mod" && s != "and" && s != "or")
                    || self.is_sym("(")
                {
                    let f = self.factor()?;
                    return f.scale(v);
                }
                Ok(Aff::constant(v))
            }
            Some(Tok::Sym("-")) => {
                self.pos += 1;
                self.factor()?.scale(-1)
            }
            Some(Tok::Sym("(")) => {
                self.pos += 1;
                let e = self.expr()?;
                self.expect(")")?;
                Ok(e)
            }
            Some(Tok::Ident(s)) if s == "floor" || s == "ceil" => {
                self.pos += 1;
                self.expect("(")?;
                let e = self.expr()?;
                self.expect("/")?;
                let d = self.int()?;
                self.expect(")")?;
                if s == "floor" {
                    self.floor_of(&e, d)
                } else {
                    self.floor_of(&e.scale(-1)?, d)?.scale(-1)
                }
            }
            Some(Tok::Ident(s)) => {
                self.pos += 1;
                match self.lookup(&s) {
                    Some(v) => Ok(Aff::var(v)),
                    None => perr(at, format!("unknown identifier {s}")),
                }
            }
            _ => perr(at, "expected expression"),
        }
    }

    fn term(&mut self) -> Result<Aff> {
        let mut t = self.factor()?;
        loop {
            if self.eat_sym("*") {
                let at = self.at();
                let f = self.factor()?;
                t = if t.is_const() {
                    f.scale(t.k)?
                } else if f.is_const() {
                    t.scale(f.k)?
                } else {
                    return perr(at, "product of two non-constant expressions");
                };
            } else if self.eat_kw("mod") {
                let d = self.int()?;
                let q = self.floor_of(&t, d)?;
                t = t.scaled_add(&q, -d)?;
            } else {
                return Ok(t);
            }
        }
    }

    fn expr(&mut self) -> Result<Aff> {
        let mut e = self.term()?;
        loop {
            if self.eat_sym("+") {
                let t = self.term()?;
                e = e.scaled_add(&t, 1)?;
            } else if self.is_sym("-") {
                self.pos += 1;
                let t = self.term()?;
                e = e.scaled_add(&t, -1)?;
            } else {
                return Ok(e);
            }
        }
    }

    fn comparison(&mut self) -> Result<Dnf> {
        let mut lhs = self.expr()?;
        let mut conj = Conj::default();
        let mut any = false;
        loop {
            let op = match self.peek() {
                Some(Tok::Sym(s)) if ["<=", "<", ">=", ">", "=", "=="].contains(s) => *s,
                _ => break,
            };
            self.pos += 1;
            let rhs = self.expr()?;
            let diff = rhs.scaled_add(&lhs, -1)?; // rhs - lhs
            match op {
                "<=" => conj.ineqs.push(diff),
                "<" => {
                    let mut d = diff;
                    d.k = int::sub(d.k, 1)?;
                    conj.ineqs.push(d);
                }
                ">=" => conj.ineqs.push(diff.scale(-1)?),
                ">" => {
                    let mut d = diff.scale(-1)?;
                    d.k = int::sub(d.k, 1)?;
                    conj.ineqs.push(d);
                }
                _ => conj.eqs.push(diff),
            }
            any = true;
            lhs = rhs;
        }
        if !any {
            return perr(self.at(), "expected comparison operator");
        }
        Ok(vec![conj])
    }

    fn atom(&mut self) -> Result<Dnf> {
        if self.eat_kw("true") {
            return Ok(vec![Conj::default()]);
        }
        if self.eat_kw("false") {
            return Ok(Vec::new());
        }
        if self.eat_kw("exists") {
            self.expect("(")?;
            let depth = self.scope.len();
            loop {
                let name = self.ident()?;
                let l = self.new_local();
                if self.eat_sym("=") {
                    let e = self.expr()?;
                    self.def_eqs
                        .push(e.scaled_add(&Aff::var(Var::Local(l)), -1)?);
                }
                self.scope.push((name, l));
                if !self.eat_sym(",") {
                    break;
                }
            }
            self.expect(":")?;
            let f = self.formula()?;
            self.expect(")")?;
            self.scope.truncate(depth);
            return Ok(f);
        }
        if self.is_sym("(") {
            let save = (self.pos, self.defs.len(), self.def_eqs.len());
            if let Ok(d) = self.comparison() {
                return Ok(d);
            }
            self.pos = save.0;
            self.defs.truncate(save.1);
            self.def_eqs.truncate(save.2);
            self.expect("(")?;
            let f = self.formula()?;
            self.expect(")")?;
            return Ok(f);
        }
        self.comparison()
    }

    fn conj(&mut self) -> Result<Dnf> {
        let mut d = self.atom()?;
        while self.eat_kw("and") {
            let e = self.atom()?;
            d = and(d, e);
            if d.len() > DNF_LIMIT {
                return Err(MathError::Limit("disjunctive normal form size"));
            }
        }
        Ok(d)
    }

    fn formula(&mut self) -> Result<Dnf> {
        let mut d = self.conj()?;
        while self.eat_kw("or") {
            d.extend(self.conj()?);
            if d.len() > DNF_LIMIT {
                return Err(MathError::Limit("disjunctive normal form size"));
            }
        }
        Ok(d)
    }

    /// Parses a tuple, appending its dims; returns it and equalities for expression entries.
    fn tuple(&mut self, eqs: &mut Vec<Aff>) -> Result<Tuple> {
        let name = match self.peek() {
            Some(Tok::Ident(_)) => Some(self.ident()?),
            _ => None,
        };
        self.expect("[")?;
        let mut dims = Vec::new();
        if !self.eat_sym("]") {
            loop {
                let fresh = match (self.peek(), self.toks.get(self.pos + 1).map(|t| &t.0)) {
                    (Some(Tok::Ident(s)), Some(Tok::Sym(",")))
                    | (Some(Tok::Ident(s)), Some(Tok::Sym("]"))) => self.lookup(s).is_none(),
                    _ => false,
                };
                if fresh {
                    let s = self.ident()?;
                    self.dims.push(s.clone());
                    dims.push(s);
                } else {
                    let e = self.expr()?;
                    let d = self.dims.len();
                    self.dims.push(String::new());
                    dims.push(String::new());
                    eqs.push(e.scaled_add(&Aff::var(Var::Dim(d)), -1)?);
                }
                if self.eat_sym("]") {
                    break;
                }
                self.expect(",")?;
            }
        }
        Ok(Tuple { name, dims })
    }

    fn piece(&mut self) -> Result<Vec<BasicRel>> {
        self.dims.clear();
        self.scope.clear();
        self.n_local = 0;
        self.defs.clear();
        self.def_eqs.clear();
        let mut tuple_eqs = Vec::new();
        let first = self.tuple(&mut tuple_eqs)?;
        let (input, output) = if self.eat_sym("->") {
            (Some(first), self.tuple(&mut tuple_eqs)?)
        } else {
            (None, first)
        };
        let dnf = if self.eat_sym(":") {
            self.formula()?
        } else {
            vec![Conj::default()]
        };
        let space = Space {
            params: self.params.clone(),
            input,
            output,
        };
        let (np, nd, nl) = (self.params.len(), self.dims.len(), self.n_local);
        let width = np + nd + nl;
        let row = |a: &Aff| -> Vec<i64> {
            let mut r = vec![0; width + 1];
            for (v, c) in &a.terms {
                let col = match v {
                    Var::Param(k) => *k,
                    Var::Dim(k) => np + k,
                    Var::Local(k) => np + nd + k,
                };
                r[col] = *c;
            }
            r[width] = a.k;
            r
        };
        let mut out = Vec::new();
        for c in dnf {
            let eqs: Vec<Vec<i64>> = tuple_eqs
                .iter()
                .chain(self.def_eqs.iter())
                .chain(c.eqs.iter())
                .map(row)
                .collect();
            let ineqs: Vec<Vec<i64>> = self.defs.iter().chain(c.ineqs.iter()).map(row).collect();
            let mut b = BasicRel::from_constraints(space.clone(), nl, eqs, ineqs)?;
            b.simplify_locals()?;
            if !b.is_obviously_empty() {
                out.push(b);
            }
        }
        Ok(out)
    }
}

/// Returns the union described by isl-syntax `text`.
pub fn parse(text: &str) -> Result<UnionRel> {
    let toks = lex(text)?;
    let mut p = Parser {
        toks,
        pos: 0,
        end: text.len(),
        params: Vec::new(),
        dims: Vec::new(),
        scope: Vec::new(),
        n_local: 0,
        defs: Vec::new(),
        def_eqs: Vec::new(),
    };
    if p.is_sym("[") {
        p.pos += 1;
        if !p.eat_sym("]") {
            loop {
                let name = p.ident()?;
                if p.params.contains(&name) {
                    return perr(p.at(), format!("duplicate parameter {name}"));
                }
                p.params.push(name);
                if p.eat_sym("]") {
                    break;
                }
                p.expect(",")?;
            }
        }
        p.expect("->")?;
    }
    p.expect("{")?;
    let mut pieces = Vec::new();
    if !p.eat_sym("}") {
        loop {
            pieces.extend(p.piece()?);
            if p.eat_sym("}") {
                break;
            }
            p.expect(";")?;
        }
    }
    if p.pos != p.toks.len() {
        return perr(p.at(), "trailing input");
    }
    UnionRel::from_pieces(&p.params, pieces)
}
