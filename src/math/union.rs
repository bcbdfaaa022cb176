//! Unions of basic sets or maps (isl's `union_set`/`union_map` semantics).
//!
//! A [`UnionRel`] is a finite list of [`BasicRel`] pieces sharing one
//! parameter list; pieces may live in different tuple spaces (e.g. one per
//! statement), and binary operations combine only pieces whose tuples have
//! the same names and arities. Invariant: every piece's space has exactly
//! the union's parameters, in order (binary operations align parameters
//! by name first). Pieces need not be disjoint unless a routine says so.

use super::constraint::BasicRel;
use super::int::{MathError, Result};
use super::rational::Rational;
use super::space::{DimKind, Space};
use super::{Exactness, Optimum};

/// A union of basic relations over shared parameters.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct UnionRel {
    params: Vec<String>,
    pieces: Vec<BasicRel>,
}

/// A union of basic sets.
pub type Set = UnionRel;
/// A union of basic maps.
pub type Map = UnionRel;

fn merged_params(a: &[String], b: &[String]) -> Vec<String> {
    let mut p = a.to_vec();
    for q in b {
        if !p.contains(q) {
            p.push(q.clone());
        }
    }
    p
}

impl UnionRel {
    /// Returns the empty union over `params`.
    pub fn empty(params: &[String]) -> UnionRel {
        UnionRel {
            params: params.to_vec(),
            pieces: Vec::new(),
        }
    }

    /// Returns the union holding one basic relation.
    pub fn from_basic(b: BasicRel) -> UnionRel {
        UnionRel {
            params: b.space().params.clone(),
            pieces: vec![b],
        }
    }

    /// Returns the union of the pieces, aligning their parameters.
    pub fn from_pieces(params: &[String], pieces: Vec<BasicRel>) -> Result<UnionRel> {
        let mut u = UnionRel::empty(params);
        for p in pieces {
            u = u.union(&UnionRel::from_basic(p))?;
        }
        Ok(u)
    }

    /// Returns the parameters.
    pub fn params(&self) -> &[String] {
        &self.params
    }

    /// Returns the pieces.
    pub fn pieces(&self) -> &[BasicRel] {
        &self.pieces
    }

    /// Returns the isl-syntax text parsed into a union.
    pub fn parse(text: &str) -> Result<UnionRel> {
        super::parse::parse(text)
    }

    /// Returns the single space of all pieces, or `Space` error if there are
    /// several (or none).
    pub fn space(&self) -> Result<Space> {
        let first = self
            .pieces
            .first()
            .ok_or_else(|| MathError::Space("empty union has no space".into()))?;
        if self
            .pieces
            .iter()
            .any(|p| !p.space().matches(first.space()))
        {
            return Err(MathError::Space("union spans several spaces".into()));
        }
        Ok(first.space().clone())
    }

    /// Returns the union with parameters extended/reordered to `params`.
    pub fn align_params(&self, params: &[String]) -> Result<UnionRel> {
        Ok(UnionRel {
            params: params.to_vec(),
            pieces: self
                .pieces
                .iter()
                .map(|p| p.align_params(params))
                .collect::<Result<_>>()?,
        })
    }

    fn aligned(&self, o: &UnionRel) -> Result<(UnionRel, UnionRel)> {
        let p = merged_params(&self.params, &o.params);
        Ok((self.align_params(&p)?, o.align_params(&p)?))
    }

    fn map_pieces(&self, f: impl Fn(&BasicRel) -> Result<BasicRel>) -> Result<UnionRel> {
        let mut pieces = Vec::with_capacity(self.pieces.len());
        for p in &self.pieces {
            let q = f(p)?;
            if !q.is_obviously_empty() {
                pieces.push(q);
            }
        }
        Ok(UnionRel {
            params: self.params.clone(),
            pieces,
        })
    }

    /// Returns the union of both operands.
    pub fn union(&self, o: &UnionRel) -> Result<UnionRel> {
        let (mut a, b) = self.aligned(o)?;
        for p in b.pieces {
            if !p.is_obviously_empty() && !a.pieces.contains(&p) {
                a.pieces.push(p);
            }
        }
        Ok(a)
    }

    /// Returns the intersection (pieces of equal tuple spaces are intersected).
    pub fn intersect(&self, o: &UnionRel) -> Result<UnionRel> {
        let (a, b) = self.aligned(o)?;
        let mut pieces = Vec::new();
        for p in &a.pieces {
            for q in &b.pieces {
                if p.space().matches(q.space()) {
                    let r = p.intersect(q)?;
                    if !r.is_obviously_empty() {
                        pieces.push(r);
                    }
                }
            }
        }
        Ok(UnionRel {
            params: a.params,
            pieces,
        })
    }

    /// Returns `self \ o`; the pieces coming from one piece of `self` are disjoint.
    pub fn subtract(&self, o: &UnionRel) -> Result<UnionRel> {
        let (a, b) = self.aligned(o)?;
        let mut pieces = Vec::new();
        for p in &a.pieces {
            let mut cur = vec![p.clone()];
            for q in &b.pieces {
                if !p.space().matches(q.space()) {
                    continue;
                }
                let mut next = Vec::new();
                for c in &cur {
                    next.extend(c.subtract(q)?);
                }
                cur = next;
                if cur.is_empty() {
                    break;
                }
            }
            pieces.extend(cur);
        }
        Ok(UnionRel {
            params: a.params,
            pieces,
        })
    }

    /// Returns whether the union has no integer point.
    pub fn is_empty(&self) -> Result<bool> {
        for p in &self.pieces {
            if !p.is_empty()? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Returns the union without pieces that have no integer point.
    pub fn remove_empty(&self) -> Result<UnionRel> {
        let mut pieces = Vec::new();
        for p in &self.pieces {
            if !p.is_empty()? {
                pieces.push(p.clone());
            }
        }
        Ok(UnionRel {
            params: self.params.clone(),
            pieces,
        })
    }

    /// Returns whether every point of `self` lies in `o`.
    pub fn is_subset(&self, o: &UnionRel) -> Result<bool> {
        self.subtract(o)?.is_empty()
    }

    /// Returns whether both unions have the same points.
    pub fn is_equal(&self, o: &UnionRel) -> Result<bool> {
        Ok(self.is_subset(o)? && o.is_subset(self)?)
    }

    /// Returns a piece's space with an integer point in it, or `None` if empty.
    pub fn sample(&self) -> Result<Option<(Space, Vec<i64>)>> {
        for p in &self.pieces {
            if let Some(x) = p.sample()? {
                return Ok(Some((p.space().clone(), x)));
            }
        }
        Ok(None)
    }

    /// Returns whether the point over `[params | in | out]` of `space` is in the union.
    pub fn contains(&self, space: &Space, point: &[i64]) -> Result<bool> {
        for p in &self.pieces {
            if p.space().matches(space) && p.contains(point)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Returns the integer lexicographic optimum over `[params | in | out]`
    /// of a single-space union (the best of the pieces' optima).
    pub fn lexopt(&self, max: bool) -> Result<Optimum<Vec<i64>>> {
        if self.pieces.is_empty() {
            return Ok(Optimum::Empty);
        }
        self.space()?;
        let mut best: Option<Vec<i64>> = None;
        for p in &self.pieces {
            match p.lexopt(max)? {
                Optimum::Empty => {}
                Optimum::Unbounded => return Ok(Optimum::Unbounded),
                Optimum::Bounded(x) => {
                    let better = match &best {
                        None => true,
                        Some(b) => (x < *b) != max && x != *b,
                    };
                    if better {
                        best = Some(x);
                    }
                }
            }
        }
        Ok(best.map_or(Optimum::Empty, Optimum::Bounded))
    }

    /// Returns the integer lexicographic minimum (see `lexopt`).
    pub fn lexmin(&self) -> Result<Optimum<Vec<i64>>> {
        self.lexopt(false)
    }

    /// Returns the integer lexicographic maximum (see `lexopt`).
    pub fn lexmax(&self) -> Result<Optimum<Vec<i64>>> {
        self.lexopt(true)
    }

    /// Returns the rational lexicographic optimum of a single-space union.
    pub fn rational_lexopt(&self, max: bool) -> Result<Optimum<Vec<Rational>>> {
        if self.pieces.is_empty() {
            return Ok(Optimum::Empty);
        }
        self.space()?;
        let mut best: Option<Vec<Rational>> = None;
        for p in &self.pieces {
            match p.rational_lexopt(max)? {
                Optimum::Empty => {}
                Optimum::Unbounded => return Ok(Optimum::Unbounded),
                Optimum::Bounded(x) => {
                    let better = match &best {
                        None => true,
                        Some(b) => (x < *b) != max && x != *b,
                    };
                    if better {
                        best = Some(x);
                    }
                }
            }
        }
        Ok(best.map_or(Optimum::Empty, Optimum::Bounded))
    }

    /// Returns every piece with the `pos`-th dim of `kind` fixed to `value`.
    pub fn fix(&self, kind: DimKind, pos: usize, value: i64) -> Result<UnionRel> {
        self.map_pieces(|p| p.fix(kind, pos, value))
    }

    /// Returns the union with every parameter fixed to the given value.
    pub fn fix_params(&self, values: &[i64]) -> Result<UnionRel> {
        let mut u = self.clone();
        for (i, v) in values.iter().enumerate() {
            u = u.fix(DimKind::Param, i, *v)?;
        }
        Ok(u)
    }

    /// Returns the exact projection removing `n` dims of `kind` from `first`.
    pub fn project_out(&self, kind: DimKind, first: usize, n: usize) -> Result<UnionRel> {
        if kind == DimKind::Param && first + n > self.params.len() {
            return Err(MathError::Space("parameters out of range".into()));
        }
        let mut u = self.map_pieces(|p| p.project_out(kind, first, n))?;
        if kind == DimKind::Param {
            u.params.drain(first..first + n);
        }
        Ok(u)
    }

    /// Returns the Fourier–Motzkin projection and whether it is exact.
    pub fn fm_project_out(
        &self,
        kind: DimKind,
        first: usize,
        n: usize,
    ) -> Result<(UnionRel, Exactness)> {
        if kind == DimKind::Param && first + n > self.params.len() {
            return Err(MathError::Space("parameters out of range".into()));
        }
        let mut exact = Exactness::Exact;
        let mut pieces = Vec::new();
        for p in &self.pieces {
            let (q, e) = p.fm_project_out(kind, first, n)?;
            if e == Exactness::OverApprox {
                exact = e;
            }
            if !q.is_obviously_empty() {
                pieces.push(q);
            }
        }
        let mut params = self.params.clone();
        if kind == DimKind::Param {
            params.drain(first..first + n);
        }
        Ok((UnionRel { params, pieces }, exact))
    }

    /// Returns every piece with redundant inequalities removed and empty pieces dropped.
    pub fn remove_redundancies(&self) -> Result<UnionRel> {
        self.remove_empty()?.map_pieces(|p| p.remove_redundancies())
    }

    /// Returns every piece simplified against the context when the context
    /// is a single basic relation of the piece's space (other pieces are kept).
    pub fn gist(&self, ctx: &UnionRel) -> Result<UnionRel> {
        let (a, c) = self.aligned(ctx)?;
        a.map_pieces(|p| {
            let mut g = p.clone();
            for q in &c.pieces {
                if q.space().matches(p.space()) && c.pieces.len() == 1 {
                    g = g.gist(q)?;
                }
            }
            Ok(g)
        })
    }

    /// Returns the reversed maps.
    pub fn reverse(&self) -> Result<UnionRel> {
        self.map_pieces(|p| p.reverse())
    }

    /// Returns the domains of the maps.
    pub fn domain(&self) -> Result<UnionRel> {
        self.map_pieces(|p| p.domain())
    }

    /// Returns the ranges of the maps.
    pub fn range(&self) -> Result<UnionRel> {
        self.map_pieces(|p| p.range())
    }

    /// Returns the distance sets of the maps.
    pub fn deltas(&self) -> Result<UnionRel> {
        self.map_pieces(|p| p.deltas())
    }

    fn pairwise(
        &self,
        o: &UnionRel,
        fits: impl Fn(&BasicRel, &BasicRel) -> bool,
        f: impl Fn(&BasicRel, &BasicRel) -> Result<BasicRel>,
    ) -> Result<UnionRel> {
        let (a, b) = self.aligned(o)?;
        let mut pieces = Vec::new();
        for p in &a.pieces {
            for q in &b.pieces {
                if fits(p, q) {
                    let r = f(p, q)?;
                    if !r.is_obviously_empty() {
                        pieces.push(r);
                    }
                }
            }
        }
        Ok(UnionRel {
            params: a.params,
            pieces,
        })
    }

    /// Returns the composition `{ a -> c : self(a, b) ∧ o(b, c) }`.
    pub fn apply_range(&self, o: &UnionRel) -> Result<UnionRel> {
        self.pairwise(
            o,
            |p, q| match (&p.space().input, &q.space().input) {
                (Some(_), Some(qi)) => {
                    p.space().output.name == qi.name && p.space().n_out() == qi.len()
                }
                _ => false,
            },
            |p, q| p.apply_range(q),
        )
    }

    /// Returns `o` applied to the domains: `{ c -> b : o(a, c) ∧ self(a, b) }`.
    pub fn apply_domain(&self, o: &UnionRel) -> Result<UnionRel> {
        o.reverse()?.apply_range(self)
    }

    /// Returns the image of the sets under the maps.
    pub fn apply(&self, map: &UnionRel) -> Result<UnionRel> {
        self.pairwise(
            map,
            |s, m| match &m.space().input {
                Some(mi) => {
                    s.space().is_set()
                        && s.space().output.name == mi.name
                        && s.space().n_out() == mi.len()
                }
                None => false,
            },
            |s, m| s.apply(m),
        )
    }

    /// Returns the maps restricted to inputs in `set`.
    pub fn intersect_domain(&self, set: &UnionRel) -> Result<UnionRel> {
        self.pairwise(
            set,
            |m, s| match &m.space().input {
                Some(mi) => s.space().output.name == mi.name && s.space().n_out() == mi.len(),
                None => false,
            },
            |m, s| m.intersect_domain(s),
        )
    }

    /// Returns the maps restricted to outputs in `set`.
    pub fn intersect_range(&self, set: &UnionRel) -> Result<UnionRel> {
        self.pairwise(
            set,
            |m, s| {
                !m.space().is_set()
                    && s.space().output.name == m.space().output.name
                    && s.space().n_out() == m.space().n_out()
            },
            |m, s| m.intersect_range(s),
        )
    }

    /// Returns `{ x -> y : x ≺ y }` on a set space for the chosen relation
    /// (`strict` selects `<` versus `<=`; `greater` flips to `>`/`>=`).
    ///
    /// Math: `x <_lex y` ⇔ `∃k. x_j = y_j (j < k) ∧ x_k < y_k`; the pieces
    /// for different `k` are disjoint. The non-strict version adds `x = y`.
    pub fn lex_order(set_space: &Space, strict: bool, greater: bool) -> Result<UnionRel> {
        let space = set_space.map_to(set_space)?;
        let (np, n) = (space.n_param(), space.n_out());
        let w = np + 2 * n;
        let mut pieces = Vec::new();
        for k in 0..n {
            let mut eqs = Vec::new();
            for j in 0..k {
                let mut r = vec![0; w + 1];
                r[np + j] = 1;
                r[np + n + j] = -1;
                eqs.push(r);
            }
            let mut r = vec![0; w + 1];
            let s = if greater { -1 } else { 1 };
            r[np + n + k] = s;
            r[np + k] = -s;
            r[w] = -1;
            pieces.push(BasicRel::from_constraints(space.clone(), 0, eqs, vec![r])?);
        }
        if !strict {
            pieces.push(BasicRel::identity(set_space)?);
        }
        Ok(UnionRel {
            params: set_space.params.clone(),
            pieces,
        })
    }

    /// Returns `{ x -> y : x <_lex y }`.
    pub fn lex_lt(set_space: &Space) -> Result<UnionRel> {
        UnionRel::lex_order(set_space, true, false)
    }

    /// Returns `{ x -> y : x <=_lex y }`.
    pub fn lex_le(set_space: &Space) -> Result<UnionRel> {
        UnionRel::lex_order(set_space, false, false)
    }

    /// Returns `{ x -> y : x >_lex y }`.
    pub fn lex_gt(set_space: &Space) -> Result<UnionRel> {
        UnionRel::lex_order(set_space, true, true)
    }

    /// Returns `{ x -> y : x >=_lex y }`.
    pub fn lex_ge(set_space: &Space) -> Result<UnionRel> {
        UnionRel::lex_order(set_space, false, true)
    }

    /// Returns the number of pieces.
    pub fn n_pieces(&self) -> usize {
        self.pieces.len()
    }

    /// Returns the total number of constraints over all pieces (a size measure).
    pub fn n_constraints(&self) -> usize {
        self.pieces
            .iter()
            .map(|p| p.eqs().len() + p.ineqs().len())
            .sum()
    }
}

impl std::fmt::Display for UnionRel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&super::print::print_union(self))
    }
}

impl std::fmt::Display for BasicRel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&super::print::print_union(&UnionRel::from_basic(
            self.clone(),
        )))
    }
}
