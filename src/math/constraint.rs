//! Basic sets and maps: one conjunction of integer affine constraints over a
//! named [`Space`] plus existentially quantified integer locals.
//!
//! Representation: rows over `[params | in | out | locals | constant]`;
//! equalities mean `row = 0`, inequalities `row >= 0`. A point belongs to the
//! relation iff some integer values of the locals satisfy every row.
//! Invariants after [`BasicRel::normalize`]: rows are gcd-normalized
//! (inequalities tightened, `a·x + c >= 0` → `(a/g)·x + ⌊c/g⌋ >= 0`),
//! deduplicated, opposite inequality pairs with equal bounds are merged into
//! equalities, and a relation detected infeasible is the canonical empty
//! one (a single row `-1 >= 0`). `BasicSet` and `BasicMap` are the same type;
//! the space says which one a value is, and map-only operations return
//! `MathError::Space` on sets.

use std::collections::HashMap;

use super::fm;
use super::ilp::{norm_eq, norm_ineq, Norm, System};
use super::int::{self, MathError, Result};
use super::matrix;
use super::rational::Rational;
use super::space::{DimKind, Space, Tuple};
use super::{Exactness, Optimum};

/// A conjunction of affine constraints with existential locals.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BasicRel {
    space: Space,
    n_local: usize,
    eqs: Vec<Vec<i64>>,
    ineqs: Vec<Vec<i64>>,
}

/// A basic set (a [`BasicRel`] whose space has no input tuple).
pub type BasicSet = BasicRel;
/// A basic map (a [`BasicRel`] whose space has an input tuple).
pub type BasicMap = BasicRel;

/// Returns the row moved to a wider layout: column `c` goes to `map[c]`,
/// the constant to position `width`.
fn remap(row: &[i64], map: &[usize], width: usize) -> Vec<i64> {
    let mut out = vec![0; width + 1];
    let n = row.len() - 1;
    for c in 0..n {
        out[map[c]] = row[c];
    }
    out[width] = row[n];
    out
}

fn negate_ineq(row: &[i64]) -> Result<Vec<i64>> {
    // ¬(r >= 0) ⇔ -r - 1 >= 0 over the integers.
    let mut out: Vec<i64> = row.iter().map(|v| int::neg(*v)).collect::<Result<_>>()?;
    let n = out.len() - 1;
    out[n] = int::sub(out[n], 1)?;
    Ok(out)
}

impl BasicRel {
    /// Returns the relation containing every point of `space`.
    pub fn universe(space: Space) -> BasicRel {
        BasicRel {
            space,
            n_local: 0,
            eqs: Vec::new(),
            ineqs: Vec::new(),
        }
    }

    /// Returns the canonical empty relation of `space`.
    pub fn empty(space: Space) -> BasicRel {
        let n = space.n_total();
        let mut row = vec![0; n + 1];
        row[n] = -1;
        BasicRel {
            space,
            n_local: 0,
            eqs: Vec::new(),
            ineqs: vec![row],
        }
    }

    /// Returns the normalized relation with the given rows (each of length
    /// `space.n_total() + n_local + 1`).
    pub fn from_constraints(
        space: Space,
        n_local: usize,
        eqs: Vec<Vec<i64>>,
        ineqs: Vec<Vec<i64>>,
    ) -> Result<BasicRel> {
        let w = space.n_total() + n_local + 1;
        if eqs.iter().chain(ineqs.iter()).any(|r| r.len() != w) {
            return Err(MathError::Space(format!(
                "constraint rows must have {w} entries"
            )));
        }
        let mut b = BasicRel {
            space,
            n_local,
            eqs,
            ineqs,
        };
        b.normalize()?;
        Ok(b)
    }

    /// Returns the space.
    pub fn space(&self) -> &Space {
        &self.space
    }

    /// Returns the number of existential locals.
    pub fn n_local(&self) -> usize {
        self.n_local
    }

    /// Returns the number of columns before the constant.
    pub fn n_col(&self) -> usize {
        self.space.n_total() + self.n_local
    }

    /// Returns the equality rows.
    pub fn eqs(&self) -> &[Vec<i64>] {
        &self.eqs
    }

    /// Returns the inequality rows.
    pub fn ineqs(&self) -> &[Vec<i64>] {
        &self.ineqs
    }

    /// Returns the relation with tuple names replaced (dims keep their count).
    pub fn with_space(&self, space: Space) -> Result<BasicRel> {
        if !space.tuples_match(&self.space) && space.n_total() != self.space.n_total() {
            return Err(MathError::Space(
                "with_space changes the number of columns".into(),
            ));
        }
        let mut b = self.clone();
        b.space = space;
        Ok(b)
    }

    /// Adds the equality `row = 0`.
    pub fn add_eq(&mut self, row: Vec<i64>) -> Result<()> {
        self.check_row(&row)?;
        self.eqs.push(row);
        self.normalize()
    }

    /// Adds the inequality `row >= 0`.
    pub fn add_ineq(&mut self, row: Vec<i64>) -> Result<()> {
        self.check_row(&row)?;
        self.ineqs.push(row);
        self.normalize()
    }

    fn check_row(&self, row: &[i64]) -> Result<()> {
        if row.len() != self.n_col() + 1 {
            return Err(MathError::Space(format!(
                "constraint row must have {} entries",
                self.n_col() + 1
            )));
        }
        Ok(())
    }

    /// Returns whether the relation is the canonical empty one (cheap test).
    pub fn is_obviously_empty(&self) -> bool {
        self.eqs.is_empty()
            && self.ineqs.len() == 1
            && self.ineqs[0][..self.n_col()].iter().all(|v| *v == 0)
            && self.ineqs[0][self.n_col()] < 0
    }

    /// Makes the relation empty, keeping its locals so that rows of the
    /// same width can still be added.
    fn set_empty(&mut self) {
        let nl = self.n_local;
        *self = BasicRel::empty(self.space.clone());
        self.n_local = nl;
        if let Some(r) = self.ineqs.first_mut() {
            let c = r.pop().unwrap_or(-1);
            r.extend(std::iter::repeat_n(0, nl));
            r.push(c);
        }
    }

    /// Normalizes rows in place (see the module invariants).
    pub fn normalize(&mut self) -> Result<()> {
        let n = self.n_col();
        let mut eqs: Vec<Vec<i64>> = Vec::new();
        for r in &self.eqs {
            match norm_eq(r)? {
                Norm::Trivial => {}
                Norm::Infeasible => {
                    self.set_empty();
                    return Ok(());
                }
                Norm::Row(r) => {
                    if !eqs.contains(&r) {
                        eqs.push(r)
                    }
                }
            }
        }
        // Tightest constant per coefficient vector.
        let mut best: HashMap<Vec<i64>, i64> = HashMap::new();
        let mut order: Vec<Vec<i64>> = Vec::new();
        for r in &self.ineqs {
            match norm_ineq(r)? {
                Norm::Trivial => {}
                Norm::Infeasible => {
                    self.set_empty();
                    return Ok(());
                }
                Norm::Row(r) => {
                    let key = r[..n].to_vec();
                    match best.get_mut(&key) {
                        Some(c) => *c = (*c).min(r[n]),
                        None => {
                            best.insert(key.clone(), r[n]);
                            order.push(key);
                        }
                    }
                }
            }
        }
        let mut ineqs = Vec::new();
        let mut dropped: Vec<Vec<i64>> = Vec::new();
        for key in &order {
            if dropped.contains(key) {
                continue;
            }
            let c1 = best[key];
            let negk: Vec<i64> = key.iter().map(|v| int::neg(*v)).collect::<Result<_>>()?;
            if let Some(&c2) = best.get(&negk) {
                let s = int::add(c1, c2)?;
                if s < 0 {
                    self.set_empty();
                    return Ok(());
                }
                if s == 0 {
                    let mut e = key.clone();
                    e.push(c1);
                    if let Norm::Row(e) = norm_eq(&e)? {
                        if !eqs.contains(&e) {
                            eqs.push(e);
                        }
                    }
                    dropped.push(negk);
                    continue;
                }
            }
            let mut r = key.clone();
            r.push(c1);
            ineqs.push(r);
        }
        self.eqs = eqs;
        self.ineqs = ineqs;
        Ok(())
    }

    /// Returns the constraints as an unnamed system over all columns.
    pub fn to_system(&self) -> System {
        System {
            n: self.n_col(),
            eqs: self.eqs.clone(),
            ineqs: self.ineqs.clone(),
        }
    }

    /// Returns whether the relation has no integer point.
    pub fn is_empty(&self) -> Result<bool> {
        if self.is_obviously_empty() {
            return Ok(true);
        }
        self.to_system().is_empty()
    }

    /// Returns an integer point over `[params | in | out]`, or `None` if empty.
    pub fn sample(&self) -> Result<Option<Vec<i64>>> {
        if self.is_obviously_empty() {
            return Ok(None);
        }
        Ok(self.to_system().sample()?.map(|mut p| {
            p.truncate(self.space.n_total());
            p
        }))
    }

    /// Returns whether the integer point over `[params | in | out]` belongs to the relation.
    pub fn contains(&self, point: &[i64]) -> Result<bool> {
        let nd = self.space.n_total();
        if point.len() != nd {
            return Err(MathError::Space(format!("point must have {nd} entries")));
        }
        let mut sys = self.to_system();
        for (c, v) in point.iter().enumerate() {
            sys = sys.fix(c, *v)?;
        }
        if self.n_local == 0 {
            let mut full = point.to_vec();
            full.resize(self.n_col(), 0);
            return sys.contains(&full);
        }
        sys.is_empty().map(|e| !e)
    }

    /// Returns the integer lexicographic minimum (`max == false`) or maximum
    /// over `[params | in | out]`, parameters first; locals are existential.
    pub fn lexopt(&self, max: bool) -> Result<Optimum<Vec<i64>>> {
        if self.is_obviously_empty() {
            return Ok(Optimum::Empty);
        }
        let nd = self.space.n_total();
        Ok(self.to_system().lexopt(nd, max)?.map(|mut p| {
            p.truncate(nd);
            p
        }))
    }

    /// Returns the integer lexicographic minimum over `[params | in | out]`.
    pub fn lexmin(&self) -> Result<Optimum<Vec<i64>>> {
        self.lexopt(false)
    }

    /// Returns the integer lexicographic maximum over `[params | in | out]`.
    pub fn lexmax(&self) -> Result<Optimum<Vec<i64>>> {
        self.lexopt(true)
    }

    /// Returns the rational lexicographic optimum over `[params | in | out]`
    /// of the rational relaxation (locals are relaxed to rationals too).
    pub fn rational_lexopt(&self, max: bool) -> Result<Optimum<Vec<Rational>>> {
        let nd = self.space.n_total();
        Ok(self.to_system().rational_lexopt(nd, max)?.map(|mut p| {
            p.truncate(nd);
            p
        }))
    }

    /// Returns the relation with `pos`-th dim of `kind` fixed to `value`.
    pub fn fix(&self, kind: DimKind, pos: usize, value: i64) -> Result<BasicRel> {
        let (off, cnt) = self.space.range(kind)?;
        if pos >= cnt {
            return Err(MathError::Space(format!("{kind:?} dim {pos} out of range")));
        }
        let mut row = vec![0; self.n_col() + 1];
        row[off + pos] = 1;
        row[self.n_col()] = int::neg(value)?;
        let mut b = self.clone();
        b.add_eq(row)?;
        Ok(b)
    }

    /// Returns the relation with parameters reordered/extended to `params`
    /// (which must contain every current parameter).
    pub fn align_params(&self, params: &[String]) -> Result<BasicRel> {
        if self.space.params == params {
            return Ok(self.clone());
        }
        let np = params.len();
        let mut map = Vec::with_capacity(self.n_col());
        for p in &self.space.params {
            let pos = params
                .iter()
                .position(|q| q == p)
                .ok_or_else(|| MathError::Space(format!("parameter {p} missing in alignment")))?;
            map.push(pos);
        }
        let rest = self.n_col() - self.space.n_param();
        for c in 0..rest {
            map.push(np + c);
        }
        let width = np + rest;
        let mut space = self.space.clone();
        space.params = params.to_vec();
        Ok(BasicRel {
            space,
            n_local: self.n_local,
            eqs: self.eqs.iter().map(|r| remap(r, &map, width)).collect(),
            ineqs: self.ineqs.iter().map(|r| remap(r, &map, width)).collect(),
        })
    }

    fn require_match(&self, o: &BasicRel) -> Result<()> {
        if !self.space.matches(&o.space) {
            return Err(MathError::Space(
                "operands have different spaces (align parameters first)".into(),
            ));
        }
        Ok(())
    }

    /// Returns `self` with `o`'s locals appended and `o`'s rows added
    /// (spaces must match).
    fn conjoin(&self, o: &BasicRel) -> Result<BasicRel> {
        self.require_match(o)?;
        let nd = self.space.n_total();
        let width = self.n_col() + o.n_local;
        let map_self: Vec<usize> = (0..self.n_col()).collect();
        let mut map_o: Vec<usize> = (0..nd).collect();
        map_o.extend((0..o.n_local).map(|l| self.n_col() + l));
        let mut b = BasicRel {
            space: self.space.clone(),
            n_local: self.n_local + o.n_local,
            eqs: Vec::new(),
            ineqs: Vec::new(),
        };
        for r in &self.eqs {
            b.eqs.push(remap(r, &map_self, width));
        }
        for r in &self.ineqs {
            b.ineqs.push(remap(r, &map_self, width));
        }
        for r in &o.eqs {
            b.eqs.push(remap(r, &map_o, width));
        }
        for r in &o.ineqs {
            b.ineqs.push(remap(r, &map_o, width));
        }
        Ok(b)
    }

    /// Returns the intersection (spaces must match).
    pub fn intersect(&self, o: &BasicRel) -> Result<BasicRel> {
        let mut b = self.conjoin(o)?;
        b.normalize()?;
        Ok(b)
    }

    /// Returns locals rewritten so that each one is a function of the dims
    /// (and earlier locals), with rows that define it added, or `None` when
    /// some local is not uniquely determined.
    ///
    /// Math: a local `e` is determined by an equality `a·e + f = 0`
    /// (`a > 0`, `e = -f/a`, so `e = ⌊-f/a⌋` and the rows
    /// `0 <= -f - a·e <= a - 1` hold), or by two inequalities
    /// `a·e + f >= 0`, `-a·e + g >= 0` with `f + g` a constant in
    /// `[0, a-1]`, which leave at most one integer, namely `⌊g/a⌋`. The
    /// defining rows of `⌊·⌋` always have exactly one integer solution, so
    /// adding them to another relation does not change it.
    fn division_form(&self) -> Result<Option<(Vec<Vec<i64>>, usize)>> {
        let nd = self.space.n_total();
        let n = self.n_col();
        let mut determined = vec![false; self.n_local];
        let mut defs: Vec<Vec<i64>> = Vec::new();
        let free_others = |r: &[i64], l: usize, det: &[bool]| {
            (0..det.len()).all(|m| m == l || det[m] || r[nd + m] == 0)
        };
        loop {
            let mut progress = false;
            for l in 0..self.n_local {
                if determined[l] {
                    continue;
                }
                let c = nd + l;
                let mut found = None;
                for r in &self.eqs {
                    if r[c] != 0 && free_others(r, l, &determined) {
                        let r: Vec<i64> = if r[c] < 0 {
                            r.iter().map(|v| int::neg(*v)).collect::<Result<_>>()?
                        } else {
                            r.clone()
                        };
                        let a = r[c];
                        let up = r.iter().map(|v| int::neg(*v)).collect::<Result<Vec<_>>>()?;
                        let mut lo = r.clone();
                        lo[n] = int::add(lo[n], a - 1)?;
                        found = Some((lo, up));
                        break;
                    }
                }
                if found.is_none() {
                    'pairs: for r1 in &self.ineqs {
                        if r1[c] <= 0 || !free_others(r1, l, &determined) {
                            continue;
                        }
                        for r2 in &self.ineqs {
                            if r2[c] != -r1[c] || !free_others(r2, l, &determined) {
                                continue;
                            }
                            if (0..n).all(|k| r1[k] == -r2[k]) {
                                let s = int::add(r1[n], r2[n])?;
                                let a = r1[c];
                                if s >= 0 && s < a {
                                    let up = r2.clone();
                                    let mut lo: Vec<i64> =
                                        r2.iter().map(|v| int::neg(*v)).collect::<Result<_>>()?;
                                    lo[n] = int::add(lo[n], a - 1)?;
                                    found = Some((lo, up));
                                    break 'pairs;
                                }
                            }
                        }
                    }
                }
                if let Some((lo, up)) = found {
                    determined[l] = true;
                    defs.push(lo);
                    defs.push(up);
                    progress = true;
                }
            }
            if !progress {
                break;
            }
        }
        if determined.iter().all(|d| *d) {
            Ok(Some((defs, self.n_local)))
        } else {
            Ok(None)
        }
    }

    /// Returns `self \ o` as pairwise disjoint basic relations (spaces must match).
    ///
    /// Math: with constraints `c_1, …, c_k` of `o`,
    /// `A \ B = ⋃_j (A ∧ c_1 ∧ … ∧ c_{j-1} ∧ ¬c_j)`, where `¬(r >= 0)` is
    /// `-r - 1 >= 0` and `¬(r = 0)` splits into `r >= 1` and `r <= -1`.
    /// Pieces are disjoint because piece `j` satisfies `c_1..c_{j-1}` and
    /// violates `c_j`. Locals of `o` must be divisions (see
    /// `division_form`): their defining rows are added to every piece, so
    /// each local has its unique value and negation stays exact. Otherwise
    /// `MathError::Unsupported`.
    pub fn subtract(&self, o: &BasicRel) -> Result<Vec<BasicRel>> {
        self.require_match(o)?;
        if self.is_obviously_empty() {
            return Ok(Vec::new());
        }
        if o.is_obviously_empty() {
            return Ok(if self.is_empty()? {
                Vec::new()
            } else {
                vec![self.clone()]
            });
        }
        let mut o = o.clone();
        o.simplify_locals()?;
        let (defs, _) = o.division_form()?.ok_or(MathError::Unsupported(
            "subtracting a set whose locals are not divisions",
        ))?;
        let mut base = self.conjoin(&o.with_rows(Vec::new(), defs.clone()))?;
        base.normalize()?;
        let shift = |r: &Vec<i64>| -> Vec<i64> {
            let nd = self.space.n_total();
            let mut map: Vec<usize> = (0..nd).collect();
            map.extend((0..o.n_local).map(|l| self.n_col() + l));
            remap(r, &map, base.n_col())
        };
        let mut out = Vec::new();
        let mut prefix = base.clone();
        let push_piece = |mut p: BasicRel, out: &mut Vec<BasicRel>| -> Result<()> {
            p.normalize()?;
            if !p.is_empty()? {
                p.simplify_locals()?;
                out.push(p);
            }
            Ok(())
        };
        for r in &o.eqs {
            let r = shift(r);
            let neg: Vec<i64> = r.iter().map(|v| int::neg(*v)).collect::<Result<_>>()?;
            for side in [&r, &neg] {
                let mut p = prefix.clone();
                let mut q = side.clone();
                let n = q.len() - 1;
                q[n] = int::sub(q[n], 1)?;
                p.ineqs.push(q);
                push_piece(p, &mut out)?;
            }
            prefix.eqs.push(r);
            prefix.normalize()?;
            if prefix.is_obviously_empty() {
                return Ok(out);
            }
        }
        for r in &o.ineqs {
            if defs.contains(r) {
                continue;
            }
            let r = shift(r);
            let mut p = prefix.clone();
            p.ineqs.push(negate_ineq(&r)?);
            push_piece(p, &mut out)?;
            prefix.ineqs.push(r);
            prefix.normalize()?;
            if prefix.is_obviously_empty() {
                return Ok(out);
            }
        }
        Ok(out)
    }

    fn with_rows(&self, eqs: Vec<Vec<i64>>, ineqs: Vec<Vec<i64>>) -> BasicRel {
        BasicRel {
            space: self.space.clone(),
            n_local: self.n_local,
            eqs,
            ineqs,
        }
    }

    /// Returns whether every integer point of `self` lies in `o`.
    pub fn is_subset(&self, o: &BasicRel) -> Result<bool> {
        Ok(self.subtract(o)?.is_empty())
    }

    /// Removes column `c` (zero in every row) and shrinks the locals.
    fn drop_local_col(&mut self, c: usize) {
        for r in self.eqs.iter_mut().chain(self.ineqs.iter_mut()) {
            r.remove(c);
        }
        self.n_local -= 1;
    }

    /// Eliminates locals where that is exact over the integers.
    ///
    /// Rules, applied until none fires: a local in no row is dropped; a
    /// local with a `±1` coefficient in an equality is substituted away; a
    /// local in no equality that has only lower (or only upper) bounds is
    /// dropped with those rows (some large integer satisfies them); a local
    /// whose every lower/upper pair has a unit coefficient is removed by
    /// Fourier–Motzkin, exact by the Omega-test argument in `fm`; when no
    /// rule fires, a unimodular change of the locals may expose a unit
    /// coefficient in an equality (see `unimodular_locals`).
    pub fn simplify_locals(&mut self) -> Result<()> {
        self.normalize()?;
        let nd = self.space.n_total();
        loop {
            if self.is_obviously_empty() {
                return Ok(());
            }
            let mut changed = false;
            for l in (0..self.n_local).rev() {
                let c = nd + l;
                let n_eq = self.eqs.iter().filter(|r| r[c] != 0).count();
                let lows = self.ineqs.iter().filter(|r| r[c] > 0).count();
                let ups = self.ineqs.iter().filter(|r| r[c] < 0).count();
                if n_eq == 0 && lows == 0 && ups == 0 {
                    self.drop_local_col(c);
                    changed = true;
                    continue;
                }
                let unit = self.eqs.iter().position(|r| r[c].abs() == 1);
                let res = if let Some(k) = unit {
                    let mut eqs = vec![self.eqs[k].clone()];
                    eqs.extend(
                        self.eqs
                            .iter()
                            .enumerate()
                            .filter(|(i, _)| *i != k)
                            .map(|(_, r)| r.clone()),
                    );
                    fm::eliminate(&eqs, &self.ineqs, c)?
                } else if n_eq > 0 {
                    continue;
                } else if lows == 0
                    || ups == 0
                    || (fm::fm_is_exact(&self.ineqs, c) && lows * ups <= 64)
                {
                    fm::eliminate(&self.eqs, &self.ineqs, c)?
                } else {
                    continue;
                };
                if res.infeasible {
                    self.set_empty();
                    return Ok(());
                }
                self.eqs = res.eqs;
                self.ineqs = res.ineqs;
                self.drop_local_col(c);
                changed = true;
            }
            self.normalize()?;
            if !changed {
                if self.unimodular_locals()? {
                    continue;
                }
                return Ok(());
            }
        }
    }

    /// Rewrites the locals by a unimodular change of variables when that
    /// gives some equality a unit coefficient on a local; returns whether it
    /// did.
    ///
    /// Math: locals are existential integers, so replacing the local vector
    /// `e` by `U e'` for a unimodular `U` keeps the projection. With the
    /// column Hermite form `L U = H` of the equalities' local parts `L`,
    /// equality `i` mentions only `e'_1..e'_{k_i}` and its last one with
    /// the pivot `H[i][k_i]`; a pivot `1` makes that local removable by
    /// substitution. Example: `2e_1 + 3e_2 = i` has pivot `gcd(2, 3) = 1`,
    /// so `e'_1 = i` and the equality (with its lattice) disappears.
    fn unimodular_locals(&mut self) -> Result<bool> {
        let nd = self.space.n_total();
        let nl = self.n_local;
        let rows: Vec<Vec<i64>> = self
            .eqs
            .iter()
            .map(|r| r[nd..nd + nl].to_vec())
            .filter(|r| r.iter().filter(|v| **v != 0).count() >= 2)
            .collect();
        if rows.is_empty() {
            return Ok(false);
        }
        let ch = matrix::column_hermite(&rows, nl)?;
        let unit = ch
            .pivot_rows
            .iter()
            .enumerate()
            .any(|(j, &i)| ch.h[i][j].abs() == 1);
        if !unit {
            return Ok(false);
        }
        for r in self.eqs.iter_mut().chain(self.ineqs.iter_mut()) {
            let mut part: Vec<i64> = r[nd..nd + nl].to_vec();
            part.push(0);
            let t = matrix::row_times(&part, &ch.u)?;
            r[nd..nd + nl].copy_from_slice(&t[..nl]);
        }
        Ok(true)
    }

    /// Returns the layout map that moves dims `[off+first, off+first+n)` to
    /// the end of the locals.
    fn move_to_locals_map(&self, off: usize, first: usize, n: usize) -> Vec<usize> {
        let nd = self.space.n_total();
        let (lo, hi) = (off + first, off + first + n);
        (0..self.n_col())
            .map(|c| {
                if c < lo {
                    c
                } else if c < hi {
                    nd - n + self.n_local + (c - lo)
                } else {
                    c - n
                }
            })
            .collect()
    }

    fn moved_to_locals(&self, kind: DimKind, first: usize, n: usize) -> Result<BasicRel> {
        let (off, cnt) = self.space.range(kind)?;
        if first + n > cnt {
            return Err(MathError::Space(format!(
                "{kind:?} dims {first}..{} out of range",
                first + n
            )));
        }
        let map = self.move_to_locals_map(off, first, n);
        let width = self.n_col();
        let mut space = self.space.clone();
        match kind {
            DimKind::Param => {
                space.params.drain(first..first + n);
            }
            DimKind::In => {
                if let Some(t) = space.input.as_mut() {
                    t.dims.drain(first..first + n);
                    if n > 0 {
                        t.name = None;
                    }
                }
            }
            DimKind::Out => {
                space.output.dims.drain(first..first + n);
                if n > 0 {
                    space.output.name = None;
                }
            }
            DimKind::Local => {}
        }
        Ok(BasicRel {
            space,
            n_local: self.n_local + n,
            eqs: self.eqs.iter().map(|r| remap(r, &map, width)).collect(),
            ineqs: self.ineqs.iter().map(|r| remap(r, &map, width)).collect(),
        })
    }

    /// Returns the exact integer projection that removes `n` dims of `kind`
    /// starting at `first`: they become existential locals, and locals are
    /// then eliminated wherever that is exact (see `simplify_locals`). As in
    /// isl, a tuple that loses dims loses its name.
    pub fn project_out(&self, kind: DimKind, first: usize, n: usize) -> Result<BasicRel> {
        let mut b = self.moved_to_locals(kind, first, n)?;
        b.simplify_locals()?;
        Ok(b)
    }

    /// Returns the Fourier–Motzkin projection removing `n` dims of `kind`
    /// starting at `first`, with whether it is exact over the integers.
    /// Locals that existed before are kept.
    pub fn fm_project_out(
        &self,
        kind: DimKind,
        first: usize,
        n: usize,
    ) -> Result<(BasicRel, Exactness)> {
        let mut b = self.moved_to_locals(kind, first, n)?;
        let mut exact = Exactness::Exact;
        for _ in 0..n {
            let c = b.n_col() - 1;
            let res = fm::eliminate(&b.eqs, &b.ineqs, c)?;
            if res.exactness == Exactness::OverApprox {
                exact = Exactness::OverApprox;
            }
            if res.infeasible {
                b.n_local -= 1;
                let mut e = BasicRel::empty(b.space.clone());
                e.n_local = 0;
                return Ok((e, Exactness::Exact));
            }
            b.eqs = res.eqs;
            b.ineqs = res.ineqs;
            b.drop_local_col(c);
        }
        b.normalize()?;
        Ok((b, exact))
    }

    /// Returns the relation without inequalities implied by the others.
    ///
    /// Math: row `r` is implied when `min r` over the other rows is `> -1`:
    /// `r` takes integer values at integer points (locals included), so it
    /// is then `>= 0` on every integer point of the rest.
    pub fn remove_redundancies(&self) -> Result<BasicRel> {
        let mut b = self.clone();
        b.normalize()?;
        if b.is_empty()? {
            return Ok(BasicRel::empty(self.space.clone()));
        }
        b.ineqs = super::ilp::drop_redundant_ineqs(b.n_col(), &b.eqs, &b.ineqs)?;
        b.simplify_locals()?;
        Ok(b)
    }

    /// Returns a relation `g` with `g ∩ ctx == self ∩ ctx`, obtained by
    /// dropping every constraint implied by `ctx` and the constraints kept
    /// so far (same implication test as `remove_redundancies`).
    pub fn gist(&self, ctx: &BasicRel) -> Result<BasicRel> {
        self.require_match(ctx)?;
        let both = self.with_rows(Vec::new(), Vec::new()).conjoin(ctx)?;
        let width = both.n_col();
        let own: Vec<usize> = (0..self.n_col()).collect();
        let ext = |r: &Vec<i64>| remap(r, &own, width);
        let mut eqs: Vec<Vec<i64>> = self.eqs.iter().map(ext).collect();
        let mut ineqs: Vec<Vec<i64>> = self.ineqs.iter().map(ext).collect();
        let minus_one = Rational::from_int(-1);
        let implied = |row: &Vec<i64>, eqs: &[Vec<i64>], ineqs: &[Vec<i64>]| -> Result<bool> {
            let mut sys = both.to_system();
            sys.eqs.extend(eqs.iter().cloned());
            sys.ineqs.extend(ineqs.iter().cloned());
            Ok(match sys.lp_min(row)? {
                Optimum::Empty => true,
                Optimum::Unbounded => false,
                Optimum::Bounded((v, _)) => v > minus_one,
            })
        };
        for i in (0..ineqs.len()).rev() {
            let row = ineqs.remove(i);
            if !implied(&row, &eqs, &ineqs)? {
                ineqs.insert(i, row);
            }
        }
        for i in (0..eqs.len()).rev() {
            let row = eqs.remove(i);
            let neg: Vec<i64> = row.iter().map(|v| int::neg(*v)).collect::<Result<_>>()?;
            if !(implied(&row, &eqs, &ineqs)? && implied(&neg, &eqs, &ineqs)?) {
                eqs.insert(i, row);
            }
        }
        let shrink = |r: Vec<i64>| {
            let mut r = r;
            let c = r[width];
            r.truncate(self.n_col());
            r.push(c);
            r
        };
        let mut g = BasicRel {
            space: self.space.clone(),
            n_local: self.n_local,
            eqs: eqs.into_iter().map(shrink).collect(),
            ineqs: ineqs.into_iter().map(shrink).collect(),
        };
        g.simplify_locals()?;
        Ok(g)
    }

    /// Returns the map with input and output swapped.
    pub fn reverse(&self) -> Result<BasicRel> {
        let space = self.space.reverse()?;
        let (np, ni, no) = (self.space.n_param(), self.space.n_in(), self.space.n_out());
        let map: Vec<usize> = (0..self.n_col())
            .map(|c| {
                if c < np {
                    c
                } else if c < np + ni {
                    c + no
                } else if c < np + ni + no {
                    c - ni
                } else {
                    c
                }
            })
            .collect();
        let w = self.n_col();
        Ok(BasicRel {
            space,
            n_local: self.n_local,
            eqs: self.eqs.iter().map(|r| remap(r, &map, w)).collect(),
            ineqs: self.ineqs.iter().map(|r| remap(r, &map, w)).collect(),
        })
    }

    /// Returns the domain of a map (exact, with locals where needed).
    pub fn domain(&self) -> Result<BasicRel> {
        let dom = self.space.domain()?;
        let mut b = self.project_out(DimKind::Out, 0, self.space.n_out())?;
        b.space = dom;
        Ok(b)
    }

    /// Returns the range of a map (exact, with locals where needed).
    pub fn range(&self) -> Result<BasicRel> {
        let ran = self.space.range_space()?;
        let mut b = self.project_out(DimKind::In, 0, self.space.n_in())?;
        b.space = ran;
        Ok(b)
    }

    /// Returns `{ a -> c : ∃b. self(a, b) ∧ o(b, c) }`.
    pub fn apply_range(&self, o: &BasicRel) -> Result<BasicRel> {
        let a_t = self.space.expect_map()?.clone();
        let c_in = o.space.expect_map()?;
        if self.space.params != o.space.params
            || self.space.output.name != c_in.name
            || self.space.n_out() != c_in.len()
        {
            return Err(MathError::Space(
                "apply_range: range and domain differ".into(),
            ));
        }
        let (np, na, nb, nc) = (
            self.space.n_param(),
            self.space.n_in(),
            self.space.n_out(),
            o.space.n_out(),
        );
        let (l1, l2) = (self.n_local, o.n_local);
        let width = np + na + nc + nb + l1 + l2;
        let loc = np + na + nc;
        let map1: Vec<usize> = (0..self.n_col())
            .map(|c| {
                if c < np + na {
                    c
                } else if c < np + na + nb {
                    loc + (c - np - na)
                } else {
                    loc + nb + (c - np - na - nb)
                }
            })
            .collect();
        let map2: Vec<usize> = (0..o.n_col())
            .map(|c| {
                if c < np {
                    c
                } else if c < np + nb {
                    loc + (c - np)
                } else if c < np + nb + nc {
                    np + na + (c - np - nb)
                } else {
                    loc + nb + l1 + (c - np - nb - nc)
                }
            })
            .collect();
        let mut b = BasicRel {
            space: Space {
                params: self.space.params.clone(),
                input: Some(a_t),
                output: o.space.output.clone(),
            },
            n_local: nb + l1 + l2,
            eqs: Vec::new(),
            ineqs: Vec::new(),
        };
        for (rows, map) in [(&self.eqs, &map1), (&o.eqs, &map2)] {
            b.eqs.extend(rows.iter().map(|r| remap(r, map, width)));
        }
        for (rows, map) in [(&self.ineqs, &map1), (&o.ineqs, &map2)] {
            b.ineqs.extend(rows.iter().map(|r| remap(r, map, width)));
        }
        b.simplify_locals()?;
        Ok(b)
    }

    /// Returns `{ c -> b : ∃a. o(a, c) ∧ self(a, b) }` (apply `o` to the domain).
    pub fn apply_domain(&self, o: &BasicRel) -> Result<BasicRel> {
        o.reverse()?.apply_range(self)
    }

    /// Returns the image of a set under a map.
    pub fn apply(&self, map: &BasicRel) -> Result<BasicRel> {
        map.intersect_domain(self)?.range()
    }

    fn intersect_tuple(&self, set: &BasicRel, input: bool) -> Result<BasicRel> {
        let t = if input {
            self.space.expect_map()?
        } else {
            self.space.expect_map()?;
            &self.space.output
        };
        if !set.space.is_set()
            || set.space.params != self.space.params
            || set.space.output.name != t.name
            || set.space.n_out() != t.len()
        {
            return Err(MathError::Space(
                "intersect_domain/range: tuple differs".into(),
            ));
        }
        let np = self.space.n_param();
        let off = if input { np } else { np + self.space.n_in() };
        let width = self.n_col() + set.n_local;
        let map: Vec<usize> = (0..set.n_col())
            .map(|c| {
                if c < np {
                    c
                } else if c < np + t.len() {
                    off + (c - np)
                } else {
                    self.n_col() + (c - np - t.len())
                }
            })
            .collect();
        let own: Vec<usize> = (0..self.n_col()).collect();
        let mut b = BasicRel {
            space: self.space.clone(),
            n_local: self.n_local + set.n_local,
            eqs: self.eqs.iter().map(|r| remap(r, &own, width)).collect(),
            ineqs: self.ineqs.iter().map(|r| remap(r, &own, width)).collect(),
        };
        b.eqs.extend(set.eqs.iter().map(|r| remap(r, &map, width)));
        b.ineqs
            .extend(set.ineqs.iter().map(|r| remap(r, &map, width)));
        b.normalize()?;
        Ok(b)
    }

    /// Returns the map restricted to inputs in `set`.
    pub fn intersect_domain(&self, set: &BasicRel) -> Result<BasicRel> {
        self.intersect_tuple(set, true)
    }

    /// Returns the map restricted to outputs in `set`.
    pub fn intersect_range(&self, set: &BasicRel) -> Result<BasicRel> {
        self.intersect_tuple(set, false)
    }

    /// Returns the map `dom × ran` (every point of `dom` to every point of `ran`).
    pub fn from_domain_and_range(dom: &BasicRel, ran: &BasicRel) -> Result<BasicRel> {
        let space = dom.space.map_to(&ran.space)?;
        if dom.space.params != ran.space.params {
            return Err(MathError::Space(
                "from_domain_and_range: parameters differ".into(),
            ));
        }
        BasicRel::universe(space)
            .intersect_domain(dom)?
            .intersect_range(ran)
    }

    /// Returns the identity map on a set space.
    pub fn identity(set_space: &Space) -> Result<BasicRel> {
        let space = set_space.map_to(set_space)?;
        let (np, n) = (space.n_param(), space.n_out());
        let mut b = BasicRel::universe(space);
        for j in 0..n {
            let mut r = vec![0; np + 2 * n + 1];
            r[np + j] = 1;
            r[np + n + j] = -1;
            b.eqs.push(r);
        }
        Ok(b)
    }

    /// Returns the distance set `{ b - a : self(a, b) }` of a map whose
    /// input and output have the same arity; the result keeps the tuple
    /// when both tuples have the same name (as isl does), else is anonymous.
    pub fn deltas(&self) -> Result<BasicRel> {
        self.space.expect_map()?;
        let (np, n) = (self.space.n_param(), self.space.n_out());
        if self.space.n_in() != n {
            return Err(MathError::Space(
                "deltas: input and output arities differ".into(),
            ));
        }
        // Layout [P | D | A | B | L]; A, B, L become locals.
        let width = np + 3 * n + self.n_local;
        let map: Vec<usize> = (0..self.n_col())
            .map(|c| if c < np { c } else { c + n })
            .collect();
        let mut b = BasicRel {
            space: Space {
                params: self.space.params.clone(),
                input: None,
                output: if self.space.input.as_ref().map(|t| &t.name)
                    == Some(&self.space.output.name)
                {
                    self.space.output.clone()
                } else {
                    Tuple::anonymous(None, n)
                },
            },
            n_local: 2 * n + self.n_local,
            eqs: self.eqs.iter().map(|r| remap(r, &map, width)).collect(),
            ineqs: self.ineqs.iter().map(|r| remap(r, &map, width)).collect(),
        };
        for j in 0..n {
            let mut r = vec![0; width + 1];
            r[np + j] = 1;
            r[np + n + j] = 1;
            r[np + 2 * n + j] = -1;
            b.eqs.push(r);
        }
        b.simplify_locals()?;
        Ok(b)
    }
}
