//! Exact primal simplex over rationals for `min c·x` subject to affine
//! inequalities and equalities on free (sign-unrestricted) variables.
//!
//! Representation: a dictionary. Each basic variable is a row
//! `b = β + Σ α_k v_k` over the nonbasic variables `v_k`; variables
//! `0..n` are the free unknowns `x`, `n..n+m` the slacks `s_i = a_i·x + c_i`
//! (one per inequality, `s_i >= 0`), and `n+m` the phase-1 artificial.
//! Invariants: after the free-variable pivots a free variable is either
//! basic (its row is only a definition, skipped by ratio tests) or appears
//! in no slack row ("dead"); every nonbasic nonnegative variable is 0 at the
//! current vertex; Bland's rule (smallest index enters and leaves) makes the
//! pivoting terminate. Equalities are given to the tableau as two opposite
//! inequalities. Source: Chvátal, *Linear Programming* (1983), ch. 2–3.

use super::int::{MathError, Result};
use super::rational::Rational;
use super::Optimum;

struct Tableau {
    /// `rows[r] = [β, α_0, …, α_{k-1}]`.
    rows: Vec<Vec<Rational>>,
    /// Objective rows in the same layout (value = β + Σ α_k v_k).
    objs: Vec<Vec<Rational>>,
    basic: Vec<usize>,
    nonbasic: Vec<usize>,
    n_free: usize,
}

impl Tableau {
    fn pivot(&mut self, r: usize, c: usize) -> Result<()> {
        super::budget::check()?;
        let a = self.rows[r][c + 1];
        let inv = Rational::ONE.div(&a)?;
        let mut new_r = Vec::with_capacity(self.rows[r].len());
        for (k, v) in self.rows[r].iter().enumerate() {
            if k == c + 1 {
                new_r.push(inv);
            } else {
                new_r.push(v.mul(&inv)?.neg()?);
            }
        }
        let update = |row: &mut Vec<Rational>| -> Result<()> {
            let f = row[c + 1];
            if f.is_zero() {
                return Ok(());
            }
            for (k, nv) in new_r.iter().enumerate() {
                if k == c + 1 {
                    row[k] = f.mul(nv)?;
                } else if !nv.is_zero() {
                    row[k] = row[k].add(&f.mul(nv)?)?;
                }
            }
            Ok(())
        };
        for (i, row) in self.rows.iter_mut().enumerate() {
            if i != r {
                update(row)?;
            }
        }
        for row in self.objs.iter_mut() {
            update(row)?;
        }
        self.rows[r] = new_r;
        std::mem::swap(&mut self.basic[r], &mut self.nonbasic[c]);
        Ok(())
    }

    /// Minimizes objective `k` by Bland's rule; returns `false` if unbounded.
    fn primal(&mut self, k: usize) -> Result<bool> {
        let mut steps: u64 = 0;
        loop {
            steps += 1;
            if steps > 1_000_000 {
                return Err(MathError::Limit("simplex pivots"));
            }
            let mut enter: Option<usize> = None;
            for (c, &v) in self.nonbasic.iter().enumerate() {
                if v >= self.n_free
                    && self.objs[k][c + 1].signum() < 0
                    && enter.is_none_or(|e| v < self.nonbasic[e])
                {
                    enter = Some(c);
                }
            }
            let Some(c) = enter else { return Ok(true) };
            let mut leave: Option<(usize, Rational)> = None;
            for (r, row) in self.rows.iter().enumerate() {
                if self.basic[r] < self.n_free || row[c + 1].signum() >= 0 {
                    continue;
                }
                let ratio = row[0].div(&row[c + 1].neg()?)?;
                let better = match &leave {
                    None => true,
                    Some((lr, lv)) => {
                        ratio < *lv || (ratio == *lv && self.basic[r] < self.basic[*lr])
                    }
                };
                if better {
                    leave = Some((r, ratio));
                }
            }
            let Some((r, _)) = leave else {
                return Ok(false);
            };
            self.pivot(r, c)?;
        }
    }

    fn value_of(&self, var: usize) -> Rational {
        match self.basic.iter().position(|&b| b == var) {
            Some(r) => self.rows[r][0],
            None => Rational::ZERO,
        }
    }
}

/// Returns `min obj·(x,1)` subject to `eqs·(x,1) = 0` and `ineqs·(x,1) >= 0`.
///
/// Rows hold `n` coefficients followed by the constant. `Empty` means the
/// system has no rational solution; `Bounded((value, x))` carries an
/// optimal vertex (or any feasible point when the objective is constant).
pub fn lp_min(
    n: usize,
    eqs: &[Vec<i64>],
    ineqs: &[Vec<i64>],
    obj: &[i64],
) -> Result<Optimum<(Rational, Vec<Rational>)>> {
    if obj.len() != n + 1 {
        return Err(MathError::Space(
            "objective length differs from n + 1".into(),
        ));
    }
    LpSolver::new(n, eqs, ineqs)?.min(obj)
}

/// Returns `min obj·(x,1)` subject to rational rows `ineqs·(x,1) >= 0`.
pub fn lp_min_rat(
    n: usize,
    ineqs: &[Vec<Rational>],
    obj: &[Rational],
) -> Result<Optimum<(Rational, Vec<Rational>)>> {
    if obj.len() != n + 1 {
        return Err(MathError::Space(
            "objective length differs from n + 1".into(),
        ));
    }
    LpSolver::new_rat(n, ineqs)?.min_rat(obj)
}

/// One system's simplex, for many objectives over it: phase 1 (a feasible
/// basis) runs once, and each objective's phase 2 starts from the basis the
/// previous one ended at, feasible for all of them. The optimum of each is
/// [`lp_min`]'s; the vertex returned may differ where the optimum is not
/// unique (the pivots start elsewhere).
pub struct LpSolver {
    n: usize,
    /// `None` when the system has no rational point.
    t: Option<Tableau>,
}

impl LpSolver {
    /// The solver of `eqs·(x,1) = 0`, `ineqs·(x,1) >= 0` (rows of `n`
    /// coefficients and the constant).
    pub fn new(n: usize, eqs: &[Vec<i64>], ineqs: &[Vec<i64>]) -> Result<LpSolver> {
        if eqs.iter().chain(ineqs.iter()).any(|r| r.len() != n + 1) {
            return Err(MathError::Space("row length differs from n + 1".into()));
        }
        let conv =
            |row: &[i64]| -> Vec<Rational> { row.iter().map(|&v| Rational::from_int(v)).collect() };
        let mut rows_in: Vec<Vec<Rational>> = Vec::new();
        for r in ineqs {
            rows_in.push(conv(r));
        }
        for r in eqs {
            let pos = conv(r);
            let negated = pos.iter().map(|v| v.neg()).collect::<Result<Vec<_>>>()?;
            rows_in.push(pos);
            rows_in.push(negated);
        }
        LpSolver::new_rat(n, &rows_in)
    }

    /// The solver of rational rows `ineqs·(x,1) >= 0`.
    pub fn new_rat(n: usize, ineqs: &[Vec<Rational>]) -> Result<LpSolver> {
        let m = ineqs.len();
        // Dictionary: s_i = c_i + Σ a_ij x_j.
        let mut rows = Vec::with_capacity(m);
        for r in ineqs {
            if r.len() != n + 1 {
                return Err(MathError::Space("row length differs from n + 1".into()));
            }
            let mut row = Vec::with_capacity(n + 1);
            row.push(r[n]);
            row.extend_from_slice(&r[..n]);
            rows.push(row);
        }
        let mut t = Tableau {
            rows,
            objs: Vec::new(),
            basic: (n..n + m).collect(),
            nonbasic: (0..n).collect(),
            n_free: n,
        };
        // Pivot every free variable into the basis where possible.
        for x in 0..n {
            let Some(c) = t.nonbasic.iter().position(|&v| v == x) else {
                continue;
            };
            let r = (0..t.rows.len()).find(|&r| t.basic[r] >= n && !t.rows[r][c + 1].is_zero());
            if let Some(r) = r {
                t.pivot(r, c)?;
            }
        }
        // Phase 1: one artificial variable `a >= 0` added to every slack row.
        let most_neg = (0..t.rows.len())
            .filter(|&r| t.basic[r] >= n && t.rows[r][0].signum() < 0)
            .min_by(|&a, &b| t.rows[a][0].cmp(&t.rows[b][0]));
        if let Some(r0) = most_neg {
            let art = n + m;
            for (r, row) in t.rows.iter_mut().enumerate() {
                let coef = if t.basic[r] >= n {
                    Rational::ONE
                } else {
                    Rational::ZERO
                };
                row.push(coef);
            }
            let k = t.nonbasic.len();
            t.nonbasic.push(art);
            let mut w = vec![Rational::ZERO; k + 2];
            w[k + 1] = Rational::ONE;
            t.objs.push(w);
            t.pivot(r0, k)?;
            if !t.primal(0)? {
                return Err(MathError::Internal("phase 1 unbounded"));
            }
            if t.objs[0][0].signum() > 0 {
                return Ok(LpSolver { n, t: None });
            }
            if let Some(r) = t.basic.iter().position(|&b| b == art) {
                match (0..t.nonbasic.len()).find(|&c| !t.rows[r][c + 1].is_zero()) {
                    Some(c) => t.pivot(r, c)?,
                    None => {
                        t.rows.remove(r);
                        t.basic.remove(r);
                    }
                }
            }
            t.objs.clear();
            if let Some(c) = t.nonbasic.iter().position(|&v| v == art) {
                t.nonbasic.remove(c);
                for row in t.rows.iter_mut() {
                    row.remove(c + 1);
                }
            }
        }
        Ok(LpSolver { n, t: Some(t) })
    }

    /// Returns `min obj·(x,1)` over the system (`obj`: `n` coefficients and
    /// the constant).
    pub fn min(&mut self, obj: &[i64]) -> Result<Optimum<(Rational, Vec<Rational>)>> {
        let obj: Vec<Rational> = obj.iter().map(|&v| Rational::from_int(v)).collect();
        self.min_rat(&obj)
    }

    /// [`LpSolver::min`] for a rational objective.
    pub fn min_rat(&mut self, obj: &[Rational]) -> Result<Optimum<(Rational, Vec<Rational>)>> {
        let n = self.n;
        if obj.len() != n + 1 {
            return Err(MathError::Space(
                "objective length differs from n + 1".into(),
            ));
        }
        let Some(t) = self.t.as_mut() else {
            return Ok(Optimum::Empty);
        };
        // The objective over the current nonbasic variables: a basic free
        // variable replaced by its row, a nonbasic one kept.
        let mut orow = vec![Rational::ZERO; t.nonbasic.len() + 1];
        orow[0] = obj[n];
        for (j, cj) in obj[..n].iter().enumerate() {
            if cj.is_zero() {
                continue;
            }
            if let Some(c) = t.nonbasic.iter().position(|&v| v == j) {
                orow[c + 1] = orow[c + 1].add(cj)?;
            } else if let Some(r) = t.basic.iter().position(|&b| b == j) {
                for (o, a) in orow.iter_mut().zip(&t.rows[r]) {
                    if !a.is_zero() {
                        *o = o.add(&cj.mul(a)?)?;
                    }
                }
            }
        }
        t.objs = vec![orow];
        // Phase 2: dead free variables with a cost make the problem
        // unbounded.
        for (c, &v) in t.nonbasic.iter().enumerate() {
            if v < n && !t.objs[0][c + 1].is_zero() {
                return Ok(Optimum::Unbounded);
            }
        }
        if !t.primal(0)? {
            return Ok(Optimum::Unbounded);
        }
        let x: Vec<Rational> = (0..n).map(|j| t.value_of(j)).collect();
        Ok(Optimum::Bounded((t.objs[0][0], x)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(v: i64) -> Rational {
        Rational::from_int(v)
    }

    #[test]
    fn small_lps() {
        // min x + y s.t. x >= 1, y >= 2, x + y <= 10
        let ineqs = vec![vec![1, 0, -1], vec![0, 1, -2], vec![-1, -1, 10]];
        match lp_min(2, &[], &ineqs, &[1, 1, 0]).unwrap() {
            Optimum::Bounded((v, x)) => {
                assert_eq!(v, r(3));
                assert_eq!(x, vec![r(1), r(2)]);
            }
            o => panic!("{o:?}"),
        }
        // max x (min -x): x <= 7/2 from 2x <= 7
        match lp_min(1, &[], &[vec![-2, 7]], &[-1, 0]).unwrap() {
            Optimum::Bounded((v, _)) => assert_eq!(v, Rational::new(-7, 2).unwrap()),
            o => panic!("{o:?}"),
        }
        assert_eq!(
            lp_min(1, &[], &[vec![-2, 7]], &[1, 0]).unwrap(),
            Optimum::Unbounded
        );
        assert_eq!(
            lp_min(1, &[], &[vec![1, -3], vec![-1, 2]], &[0, 0]).unwrap(),
            Optimum::Empty
        );
        // equality: x = 2y, x + y = 3 → x = 2, y = 1
        match lp_min(2, &[vec![1, -2, 0], vec![1, 1, -3]], &[], &[0, 1, 0]).unwrap() {
            Optimum::Bounded((v, x)) => {
                assert_eq!(v, r(1));
                assert_eq!(x, vec![r(2), r(1)]);
            }
            o => panic!("{o:?}"),
        }
    }

    /// Deterministic pseudo-random integers in `-k..=k`.
    fn lcg(seed: &mut u64, k: i64) -> i64 {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((*seed >> 33) % (2 * k as u64 + 1)) as i64 - k
    }

    #[test]
    fn one_solver_many_objectives() {
        // Random systems (a box of -5..5 in 3 variables, with random cuts
        // and an equality sometimes), each asked 12 random objectives in a
        // row by one solver: every optimum is the one a fresh LP finds,
        // and every vertex is a point of the system with that value.
        let mut seed = 7u64;
        let mut bounded = 0;
        for _ in 0..60 {
            let n = 3;
            let mut ineqs = Vec::new();
            for j in 0..n {
                let mut lo = vec![0; n + 1];
                lo[j] = 1;
                lo[n] = 5;
                let mut hi = vec![0; n + 1];
                hi[j] = -1;
                hi[n] = 5;
                ineqs.push(lo);
                ineqs.push(hi);
            }
            for _ in 0..3 {
                ineqs.push((0..=n).map(|_| lcg(&mut seed, 4)).collect());
            }
            let eqs: Vec<Vec<i64>> = if lcg(&mut seed, 1) == 0 {
                vec![(0..=n).map(|_| lcg(&mut seed, 2)).collect()]
            } else {
                Vec::new()
            };
            let mut solver = LpSolver::new(n, &eqs, &ineqs).unwrap();
            for _ in 0..12 {
                let obj: Vec<i64> = (0..=n).map(|_| lcg(&mut seed, 3)).collect();
                let fresh = lp_min(n, &eqs, &ineqs, &obj).unwrap();
                let warm = solver.min(&obj).unwrap();
                match (&fresh, &warm) {
                    (Optimum::Bounded((a, _)), Optimum::Bounded((b, x))) => {
                        assert_eq!(a, b);
                        let at = |row: &[i64]| {
                            row[..n]
                                .iter()
                                .zip(x)
                                .try_fold(r(row[n]), |acc, (c, xi)| acc.add(&r(*c).mul(xi)?))
                        };
                        assert_eq!(at(&obj).unwrap(), *b);
                        assert!(ineqs.iter().all(|row| at(row).unwrap().signum() >= 0));
                        assert!(eqs.iter().all(|row| at(row).unwrap().is_zero()));
                        bounded += 1;
                    }
                    _ => assert_eq!(fresh, warm),
                }
            }
        }
        // Most systems are feasible: the comparison is not vacuous.
        assert!(bounded > 300, "{bounded}");
    }
}
