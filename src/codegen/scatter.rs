//! The scattered domain of a statement: the time points `t` at which it
//! runs, free of its iterators and of every existential variable, with the
//! integer divisions that strides and `floordiv`/`mod` need.
//!
//! # The system
//!
//! Columns `[params | t | E | D | constant]`: the time dimensions `t`, the
//! existential variables `E` (the statement's iterators, its domain's
//! locals — divisions and loop strides — and the schedule's locals — tile
//! coordinates), and integer divisions `D`, each `q = ⌊e / c⌋` with `e`
//! over parameters, `t` and earlier divisions. Rows: `t_k = θ_k(i)` for
//! every schedule dimension, the domain piece and every local's
//! definition. Every existential is eliminated exactly:
//!
//! 1. through an equality with a `±1` coefficient on it (substitution);
//! 2. through an equality whose existentials all have larger coefficients:
//!    unimodular column operations (extended Euclid) leave one existential
//!    `y` with the gcd `g` as coefficient, `g·y + h = 0`; then `y = q` with
//!    the division `q = ⌊-h / g⌋` and the constraint `h + g·q = 0` (that
//!    `g` divides `h`: a stride). A loop `i = lb + 3k` becomes
//!    `t = lb + 3·⌊(t - lb) / 3⌋`; a schedule `t0 = i + 2j, t1 = i` gives
//!    `j = ⌊(t0 - t1) / 2⌋` with `t0 - t1` even;
//! 3. without equalities: a pair `e - c·x >= 0`, `c·x - e + k >= 0`
//!    (`0 <= k < c`) defines `x = ⌊e / c⌋` (`floordiv`, `ceildiv`, `mod`
//!    of the input), with `e mod c <= k` kept as a row; otherwise
//!    Fourier–Motzkin when it is exact (unit coefficients on one side,
//!    Pugh 1992), for existentials no iterator needs.
//!
//! The statement's iterators come out as rows over `[params | t | D]`;
//! anything else is reported as unsupported (the SCoP is left unchanged).
//! isl's AST generator and CLooG do the same with their stride detection
//! and existentially quantified divisions.

use super::{CodegenError, Res};
use crate::math::fm;
use crate::math::ilp::{norm_eq, norm_ineq, Norm};
use crate::math::{int, Exactness, MathError};

/// A row (coefficients then a constant).
pub type Row = Vec<i64>;

/// An integer division `⌊row / den⌋`, `row` over
/// `[params | t | earlier divisions | constant]`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Div {
    /// The dividend.
    pub row: Row,
    /// The divisor, positive.
    pub den: i64,
}

/// The result for one domain piece: rows over `[params | t | D | constant]`.
#[derive(Debug, Clone)]
pub struct Scattered {
    /// Equalities.
    pub eqs: Vec<Row>,
    /// Inequalities.
    pub ineqs: Vec<Row>,
    /// The statement's iterators.
    pub iters: Vec<Row>,
    /// The divisions the rows use (over the same layout; each only uses
    /// the ones before it).
    pub divs: Vec<Div>,
}

/// What one elimination step did.
enum Step {
    /// An existential was eliminated (or a column operation made progress).
    Progress,
    /// No existential is left.
    Done,
    /// The piece has no integer point.
    Empty,
}

/// The elimination state.
struct Sys {
    /// Parameters and time dimensions (the columns kept), first.
    front: usize,
    /// Existential columns after `front`; `alive[x]` until eliminated.
    alive: Vec<bool>,
    /// Divisions: their columns follow the existentials'.
    divs: Vec<Div>,
    eqs: Vec<Row>,
    ineqs: Vec<Row>,
    /// The iterators' expressions (rows of the same layout).
    exprs: Vec<Row>,
}

/// `a·r + b·s`.
fn lin(r: &[i64], a: i64, s: &[i64], b: i64) -> Result<Row, MathError> {
    r.iter()
        .zip(s)
        .map(|(&x, &y)| int::mul_add(a, x, b, y))
        .collect()
}

impl Sys {
    fn ne(&self) -> usize {
        self.alive.len()
    }

    fn ex(&self, x: usize) -> usize {
        self.front + x
    }

    fn width(&self) -> usize {
        self.front + self.ne() + self.divs.len() + 1
    }

    /// Existential columns a row mentions (alive ones).
    fn existentials(&self, r: &[i64]) -> Vec<usize> {
        (0..self.ne())
            .filter(|&x| self.alive[x] && r[self.ex(x)] != 0)
            .collect()
    }

    fn all_rows_mut(&mut self) -> impl Iterator<Item = &mut Row> {
        self.eqs
            .iter_mut()
            .chain(self.ineqs.iter_mut())
            .chain(self.exprs.iter_mut())
    }

    /// Replaces column `col` by `e` in every row, where the equality `eq`
    /// (with `eq[col] = ±1`) says `col = -(eq - eq[col]·col)/eq[col]`.
    fn substitute_unit(&mut self, col: usize, eq: &[i64]) -> Result<(), MathError> {
        let a = eq[col];
        debug_assert!(a.abs() == 1);
        for r in self.all_rows_mut() {
            let c = r[col];
            if c != 0 {
                // r - (c/a)·eq, exact since a = ±1.
                *r = lin(r, 1, eq, -c * a)?;
            }
        }
        Ok(())
    }

    /// Adds a division column `⌊row / den⌋` (row over the current layout,
    /// with no existential); returns its column.
    fn add_div(&mut self, row: Row, den: i64) -> usize {
        let at = self.width() - 1;
        for r in self
            .eqs
            .iter_mut()
            .chain(self.ineqs.iter_mut())
            .chain(self.exprs.iter_mut())
            .chain(self.divs.iter_mut().map(|d| &mut d.row))
        {
            r.insert(at, 0);
        }
        let mut row = row;
        row.insert(at, 0);
        self.divs.push(Div { row, den });
        at
    }

    /// Normalizes the equalities; false when one is infeasible.
    fn normalize_eqs(&mut self) -> Result<bool, MathError> {
        let mut out = Vec::with_capacity(self.eqs.len());
        for r in &self.eqs {
            match norm_eq(r)? {
                Norm::Trivial => {}
                Norm::Infeasible => return Ok(false),
                Norm::Row(r) => {
                    if !out.contains(&r) {
                        out.push(r)
                    }
                }
            }
        }
        self.eqs = out;
        Ok(true)
    }

    /// One elimination step.
    fn step(&mut self) -> Res<Step> {
        if !self.alive.iter().any(|&a| a) {
            return Ok(Step::Done);
        }
        // 1. A unit coefficient in an equality.
        let mut best: Option<(usize, usize, usize)> = None;
        for (e, r) in self.eqs.iter().enumerate() {
            let xs = self.existentials(r);
            for &x in &xs {
                if r[self.ex(x)].abs() == 1 && best.is_none_or(|b| xs.len() < b.2) {
                    best = Some((e, x, xs.len()));
                }
            }
        }
        if let Some((e, x, _)) = best {
            let eq = self.eqs.remove(e);
            let col = self.ex(x);
            self.substitute_unit(col, &eq)?;
            self.alive[x] = false;
            return Ok(Step::Progress);
        }
        // 2. An equality with existentials, none of unit coefficient.
        if let Some(e) = self
            .eqs
            .iter()
            .position(|r| !self.existentials(r).is_empty())
        {
            let xs = self.existentials(&self.eqs[e]);
            if xs.len() >= 2 {
                // Columns x1, x2 -> y1, y2 with x = U·y, U unimodular, so
                // that the equality's coefficient of y2 is zero.
                let (c1, c2) = (self.ex(xs[0]), self.ex(xs[1]));
                let (a1, a2) = (self.eqs[e][c1], self.eqs[e][c2]);
                let (g, s, t) = int::ext_gcd(a1, a2)?;
                let (u, v) = (a2 / g, a1 / g);
                // U = [[s, -u], [t, v]], det = (s·a1 + t·a2)/g = 1.
                for r in self.all_rows_mut() {
                    let (p, q) = (r[c1], r[c2]);
                    r[c1] = int::mul_add(p, s, q, t)?;
                    r[c2] = int::mul_add(p, int::neg(u)?, q, v)?;
                }
                return Ok(Step::Progress);
            }
            let x = xs[0];
            let col = self.ex(x);
            let mut eq = self.eqs.remove(e);
            if eq[col] < 0 {
                eq = eq
                    .iter()
                    .map(|v| v.checked_neg())
                    .collect::<Option<_>>()
                    .ok_or(MathError::Overflow)?;
            }
            let g = eq[col];
            // g·y + h = 0: y = q = ⌊-h / g⌋ with h + g·q = 0.
            let mut minus_h: Row = eq
                .iter()
                .map(|v| v.checked_neg())
                .collect::<Option<_>>()
                .ok_or(MathError::Overflow)?;
            minus_h[col] = 0;
            let q = self.add_div(minus_h, g);
            let col = self.ex(x); // unchanged: divisions come after
            let mut stride = eq.clone();
            stride.insert(q, 0);
            stride[col] = 0;
            stride[q] = g;
            // y := q in every row.
            for r in self.all_rows_mut() {
                let c = r[col];
                if c != 0 {
                    r[col] = 0;
                    r[q] = r[q].checked_add(c).ok_or(MathError::Overflow)?;
                }
            }
            self.alive[x] = false;
            self.eqs.push(stride);
            if !self.normalize_eqs()? {
                return Ok(Step::Empty);
            }
            return Ok(Step::Progress);
        }
        // 3. Inequalities only. A division first.
        for x in 0..self.ne() {
            if !self.alive[x] {
                continue;
            }
            let col = self.ex(x);
            if let Some((e, c, k, pair)) = self.division(col) {
                if k == c - 1 && self.only_mention(col, pair) {
                    // Every value of `e` has its `x`: the pair says nothing.
                    let (a, b) = (pair.0.max(pair.1), pair.0.min(pair.1));
                    self.ineqs.remove(a);
                    self.ineqs.remove(b);
                } else if c == 1 {
                    // x = e exactly.
                    let mut eq = e;
                    eq[col] = -1;
                    self.substitute_unit(col, &eq)?;
                } else {
                    let q = self.add_div(e, c);
                    let col = self.ex(x);
                    for r in self.all_rows_mut() {
                        let v = r[col];
                        if v != 0 {
                            r[col] = 0;
                            r[q] = r[q].checked_add(v).ok_or(MathError::Overflow)?;
                        }
                    }
                }
                self.alive[x] = false;
                return Ok(Step::Progress);
            }
        }
        // Fourier–Motzkin where exact, for existentials no iterator needs.
        for x in 0..self.ne() {
            if !self.alive[x] {
                continue;
            }
            let col = self.ex(x);
            if self.exprs.iter().any(|r| r[col] != 0) {
                continue;
            }
            let e = fm::eliminate(&self.eqs, &self.ineqs, col)?;
            if e.exactness != Exactness::Exact {
                continue;
            }
            if e.infeasible {
                return Ok(Step::Empty);
            }
            self.eqs = e.eqs;
            self.ineqs = e.ineqs;
            self.alive[x] = false;
            return Ok(Step::Progress);
        }
        if self
            .exprs
            .iter()
            .any(|r| (0..self.ne()).any(|x| self.alive[x] && r[self.ex(x)] != 0))
        {
            return Err(CodegenError::Unsupported(
                "its schedule does not determine its iterators".into(),
            ));
        }
        Err(CodegenError::Unsupported(
            "its domain has strides or divisions that cannot be scanned exactly".into(),
        ))
    }

    /// A pair `e - c·x >= 0`, `c·x - e + k >= 0` (`0 <= k < c`) of
    /// inequalities mentioning no other existential: `(e, c, k, rows)`,
    /// with `x = ⌊e / c⌋` (`e` with column `col` zero) and `rows` the
    /// pair's positions in `ineqs`.
    fn division(&self, col: usize) -> Option<(Row, i64, i64, (usize, usize))> {
        let last = self.width() - 1;
        let clean = |r: &Row| self.existentials(r).len() == 1;
        for (iu, up) in self.ineqs.iter().enumerate() {
            if up[col] >= 0 || !clean(up) {
                continue;
            }
            let c = -up[col];
            for (il, lo) in self.ineqs.iter().enumerate() {
                if lo[col] != c || !clean(lo) {
                    continue;
                }
                // up + lo must be the constant k.
                let sum: Option<Row> = up.iter().zip(lo).map(|(a, b)| a.checked_add(*b)).collect();
                let Some(sum) = sum else { continue };
                if sum[..last].iter().all(|&v| v == 0) && (0..c).contains(&sum[last]) {
                    let mut e = up.clone();
                    e[col] = 0;
                    return Some((e, c, sum[last], (iu, il)));
                }
            }
        }
        None
    }

    /// True when the division pair `rows` is the only mention of
    /// existential column `col`: no iterator, equality or other
    /// inequality uses `x`. With `k = c - 1` the pair then holds for every
    /// value of its dividend (`x = ⌊e / c⌋` always exists). A tile
    /// coordinate that no time dimension keeps (a statement's rows tiled
    /// by 32 in the band, by 16 after interleaving) is such a column; as
    /// a division it would only hide the piece's shape from the
    /// generator (blocks that the generator splits into full ones
    /// and the rest are left whole where a division appears).
    fn only_mention(&self, col: usize, rows: (usize, usize)) -> bool {
        self.exprs.iter().all(|r| r[col] == 0)
            && self.eqs.iter().all(|r| r[col] == 0)
            && self
                .ineqs
                .iter()
                .enumerate()
                .all(|(i, r)| i == rows.0 || i == rows.1 || r[col] == 0)
    }
}

/// Eliminates the existentials of the system with `front` kept columns
/// (parameters and time dimensions) and `ne` existential columns, whose
/// iterators are the existentials `0..m`. Rows over
/// `[front | E | constant]`. `Ok(None)` when the piece is empty.
pub fn eliminate(
    front: usize,
    ne: usize,
    m: usize,
    eqs: Vec<Row>,
    ineqs: Vec<Row>,
) -> Res<Option<Scattered>> {
    let width = front + ne + 1;
    debug_assert!(eqs.iter().chain(&ineqs).all(|r| r.len() == width));
    let exprs = (0..m)
        .map(|x| {
            let mut r = vec![0i64; width];
            r[front + x] = 1;
            r
        })
        .collect();
    let mut sys = Sys {
        front,
        alive: vec![true; ne],
        divs: Vec::new(),
        eqs,
        ineqs,
        exprs,
    };
    if !sys.normalize_eqs()? {
        return Ok(None);
    }
    loop {
        match sys.step()? {
            Step::Progress => {
                if !sys.normalize_eqs()? {
                    return Ok(None);
                }
            }
            Step::Done => break,
            Step::Empty => return Ok(None),
        }
    }
    debug_assert!(sys
        .eqs
        .iter()
        .chain(&sys.ineqs)
        .chain(&sys.exprs)
        .all(|r| (front..front + ne).all(|c| r[c] == 0)));
    // Drop the existential columns (all zero now).
    let drop = |r: &Row| -> Row {
        r.iter()
            .enumerate()
            .filter(|(c, _)| *c < front || *c >= front + ne)
            .map(|(_, &v)| v)
            .collect()
    };
    let mut ineqs = Vec::new();
    for r in &sys.ineqs {
        match norm_ineq(&drop(r))? {
            Norm::Trivial => {}
            Norm::Infeasible => return Ok(None),
            Norm::Row(r) => {
                if !ineqs.contains(&r) {
                    ineqs.push(r)
                }
            }
        }
    }
    let eqs: Vec<Row> = sys.eqs.iter().map(drop).collect();
    let iters: Vec<Row> = sys.exprs.iter().map(drop).collect();
    let divs: Vec<Div> = sys
        .divs
        .iter()
        .map(|d| Div {
            row: drop(&d.row),
            den: d.den,
        })
        .collect();
    Ok(Some(Scattered {
        eqs,
        ineqs,
        iters,
        divs,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Evaluates a row over `[params | t | D | 1]` at `t` (no parameters).
    fn eval(row: &Row, t: &[i64], divs: &[Div]) -> i64 {
        let n = t.len();
        let mut vals: Vec<i64> = t.to_vec();
        for d in divs {
            let v = eval_prefix(&d.row, &vals, n);
            vals.push(v.div_euclid(d.den));
        }
        eval_prefix(row, &vals, n)
    }

    fn eval_prefix(row: &Row, vals: &[i64], _n: usize) -> i64 {
        let last = row.len() - 1;
        let mut acc = row[last];
        for (c, &v) in row[..last].iter().zip(vals) {
            acc += c * v;
        }
        acc
    }

    fn holds(s: &Scattered, t: &[i64]) -> bool {
        s.eqs.iter().all(|r| eval(r, t, &s.divs) == 0)
            && s.ineqs.iter().all(|r| eval(r, t, &s.divs) >= 0)
    }

    #[test]
    fn a_stride_becomes_a_division_and_a_divisibility_row() {
        // for i = 1 to 10 step 3, schedule t = i.  Columns [t | i, k | 1]:
        // t - i = 0, i - 1 - 3k = 0, k >= 0, 10 - i >= 0.
        let eqs = vec![vec![1, -1, 0, 0], vec![0, 1, -3, -1]];
        let ineqs = vec![vec![0, 0, 1, 0], vec![0, -1, 0, 10]];
        let s = eliminate(1, 2, 1, eqs, ineqs).unwrap().unwrap();
        let points: Vec<i64> = (-5..20).filter(|&t| holds(&s, &[t])).collect();
        assert_eq!(points, vec![1, 4, 7, 10]);
        for &t in &points {
            assert_eq!(eval(&s.iters[0], &[t], &s.divs), t);
        }
    }

    #[test]
    fn a_non_unimodular_schedule_keeps_its_lattice() {
        // t0 = i + 2j, t1 = i over 0 <= i, j <= 3. Columns [t0, t1 | i, j | 1].
        let eqs = vec![vec![1, 0, -1, -2, 0], vec![0, 1, -1, 0, 0]];
        let ineqs = vec![
            vec![0, 0, 1, 0, 0],
            vec![0, 0, -1, 0, 3],
            vec![0, 0, 0, 1, 0],
            vec![0, 0, 0, -1, 3],
        ];
        let s = eliminate(2, 2, 2, eqs, ineqs).unwrap().unwrap();
        let mut seen = Vec::new();
        for t0 in -2..12 {
            for t1 in -2..6 {
                if holds(&s, &[t0, t1]) {
                    let i = eval(&s.iters[0], &[t0, t1], &s.divs);
                    let j = eval(&s.iters[1], &[t0, t1], &s.divs);
                    assert_eq!((t0, t1), (i + 2 * j, i));
                    seen.push((i, j));
                }
            }
        }
        seen.sort();
        let all: Vec<(i64, i64)> = (0..4).flat_map(|i| (0..4).map(move |j| (i, j))).collect();
        assert_eq!(seen, all);
    }

    #[test]
    fn floordiv_locals_become_divisions() {
        // for i = 0 to 9, for j = 0 to i floordiv 2 (j <= q - 1, 2q <= i <= 2q + 1),
        // schedule (t0, t1) = (i, j). Columns [t0, t1 | i, j, q | 1].
        let eqs = vec![vec![1, 0, -1, 0, 0, 0], vec![0, 1, 0, -1, 0, 0]];
        let ineqs = vec![
            vec![0, 0, 1, 0, 0, 0],
            vec![0, 0, -1, 0, 0, 9],
            vec![0, 0, 0, 1, 0, 0],
            vec![0, 0, 0, -1, 1, -1],
            vec![0, 0, 1, 0, -2, 0],
            vec![0, 0, -1, 0, 2, 1],
        ];
        let s = eliminate(2, 3, 2, eqs, ineqs).unwrap().unwrap();
        assert_eq!(s.divs.len(), 1);
        let mut n = 0;
        for t0 in -2i64..12 {
            for t1 in -2..8 {
                let expect = (0..=9).contains(&t0) && t1 >= 0 && t1 < t0.div_euclid(2);
                assert_eq!(holds(&s, &[t0, t1]), expect, "at ({t0}, {t1})");
                n += usize::from(expect);
            }
        }
        assert_eq!(n, 20);
    }

    #[test]
    fn a_tile_coordinate_no_dimension_keeps_is_no_division() {
        // for i = 0 to 37, schedule t0 = i, with the tile coordinate
        // q = i floordiv 32 (32q <= i <= 32q + 31) that no time dimension
        // keeps: it holds for every i, so it adds no division. With
        // q = i floordiv 4 kept as 4q <= i <= 4q + 2 (a window) it does.
        // Columns [t0 | i, q | 1].
        let eqs = vec![vec![1, -1, 0, 0]];
        let domain = vec![vec![0, 1, 0, 0], vec![0, -1, 0, 37]];
        let mut ineqs = domain.clone();
        ineqs.extend([vec![0, 1, -32, 0], vec![0, -1, 32, 31]]);
        let s = eliminate(1, 2, 1, eqs.clone(), ineqs).unwrap().unwrap();
        assert!(s.divs.is_empty());
        for t0 in -3i64..42 {
            assert_eq!(holds(&s, &[t0]), (0..=37).contains(&t0), "at {t0}");
        }
        let mut ineqs = domain;
        ineqs.extend([vec![0, 1, -4, 0], vec![0, -1, 4, 2]]);
        let s = eliminate(1, 2, 1, eqs, ineqs).unwrap().unwrap();
        assert_eq!(s.divs.len(), 1);
        for t0 in -3i64..42 {
            let expect = (0..=37).contains(&t0) && t0.rem_euclid(4) <= 2;
            assert_eq!(holds(&s, &[t0]), expect, "at {t0}");
        }
    }

    #[test]
    fn a_mod_subscript_window_keeps_its_condition() {
        // 3q <= i <= 3q + 1 (i mod 3 <= 1), 0 <= i <= 8, t = i.
        // Columns [t | i, q | 1].
        let eqs = vec![vec![1, -1, 0, 0]];
        let ineqs = vec![
            vec![0, 1, 0, 0],
            vec![0, -1, 0, 8],
            vec![0, 1, -3, 0],
            vec![0, -1, 3, 1],
        ];
        let s = eliminate(1, 2, 1, eqs, ineqs).unwrap().unwrap();
        let points: Vec<i64> = (-3..12).filter(|&t| holds(&s, &[t])).collect();
        assert_eq!(points, vec![0, 1, 3, 4, 6, 7]);
    }
}
