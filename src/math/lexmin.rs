//! Integer lexicographic minimum over non-negative variables by the
//! lexicographic dual simplex with Gomory cuts (Feautrier's PIP without
//! parameters; the non-parametric core of isl's `isl_tab` lexmin).
//!
//! # Problem
//!
//! ```text
//! lexmin x   subject to   x ∈ Zⁿ,  x >= 0,  E·(x,1) = 0,  A·(x,1) >= 0
//! ```
//!
//! With `x >= 0` the lexicographic minimum exists whenever the set has an
//! integer point, so the outcome is [`Optimum::Empty`] or
//! [`Optimum::Bounded`]; it is never unbounded.
//!
//! # Representation
//!
//! Every variable (the `x`, one slack per inequality, one per cut) is kept
//! as a row `v = (c + Σ a_j·y_j) / d` over the current non-basic variables
//! `y_j` (all `>= 0`, all integer), with `d > 0` and the row divided by the
//! gcd of its entries. A non-basic variable's row is the unit row of its
//! column. The current point is `y = 0`, i.e. `v = c / d`.
//!
//! # Invariant: lexicographically positive columns
//!
//! The *x-part* of column `j` is `(a_{x_0,j}/d_{x_0}, …, a_{x_{n-1},j}/d_{x_{n-1}})`.
//! Every column's x-part is lexicographically positive (initially the
//! columns are the `x` themselves: the identity). Then every point of the
//! set, `x = c_x + B·y` with `y >= 0`, is `>=lex c_x`: as soon as all rows
//! have `c >= 0` (the point is feasible), `c_x` is the rational lexmin.
//!
//! # Dual simplex step
//!
//! Take a row `r` with `c_r < 0`. Among columns with `a_rj > 0`, pivot on the
//! one whose x-part divided by `a_rj` is lexicographically smallest (none:
//! the set is empty). Afterwards column `k` holds
//! `col_k - (a_rk / a_rj)·col_j`, lexicographically positive by the choice of
//! `j` (x-parts of distinct columns are never proportional: `B` stays
//! invertible), and `c_x` grows by the lex-positive `(-c_r / a_rj)·col_j`, so
//! no basis repeats and the method terminates.
//!
//! # Integrality: branch and cut
//!
//! When the rational lexmin has a fractional coordinate, up to a few rounds
//! of Gomory fractional cuts are added first: the row of a fractional `x_k`,
//! `x_k = c/d + Σ (a_j/d)·y_j` with integer `x_k` and `y`, gives, writing
//! `f_0 = frac(c/d)` and `f_j = frac(a_j/d)`, `f_0 + Σ f_j·y_j ∈ Z` and
//! `> 0`, hence `Σ f_j·y_j >= 1 - f_0`: the new row
//! `s = ((c mod d) - d + Σ (a_j mod d)·y_j) / d >= 0`, itself integer, which
//! the current vertex violates (Gomory 1958). If the vertex is still
//! fractional, the search branches in lexicographic order (see
//! `Tableau::search`): the prefix before the first fractional coordinate
//! `x_f` is kept with `x_f >= ⌈r_f⌉`, then each earlier coordinate is raised
//! by one. On the scheduler's systems cuts alone usually finish the job;
//! branching makes the method finite and exact whatever the input. Budgets
//! on pivots and nodes turn pathological cases into [`MathError::Limit`],
//! never into a guess.
//!
//! Equalities are pivoted out first: a column with a non-zero coefficient is
//! chosen by the same lexicographic rule (after negating the row if needed)
//! and then dropped, since its variable, the equality's slack, stays 0.
//!
//! # Keeping the tableau small
//!
//! Inequalities enter lazily, a few violated ones per round: the lexmin of a
//! relaxation that happens to satisfy every constraint is the lexmin of the
//! whole system. The scheduler's systems have thousands of mostly redundant
//! rows (Fourier–Motzkin output) of which a few hundred ever matter. A basic
//! slack row whose constant and coefficients are all non-negative can never
//! become negative again and is dropped (isl marks such rows redundant).
//! The violated row with the smallest value is pivoted first. Gomory cuts
//! that the current point satisfies strictly are dropped before each round
//! of new cuts and before branching (valid for the node's integer points,
//! they only tighten its relaxation): kept, they pile up through the rounds
//! and into every branch. On one fuzz program's ILP (18 unknowns, 229
//! rows) keeping them grew the tableau past 1,000 rows and the search to
//! 137 nodes and 12,795 pivots; dropped, 9 nodes and under 1,000 pivots.
//!
//! # Numbers
//!
//! The first attempt computes in checked `i128`. Exact tableaux can hold
//! large subdeterminants; on overflow the work is redone with `Adaptive`
//! integers (machine integers that switch to big integers per entry), so
//! the answer is exact whatever the sizes.

use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::Signed;

use super::int::{MathError, Result};
use super::Optimum;

/// Largest number of pivots of one lexmin.
pub const PIVOT_LIMIT: usize = 200_000;
/// Rounds of Gomory cuts at each branch-and-bound node before branching.
const CUT_ROUNDS: usize = 8;
/// Largest number of branch-and-bound nodes of one lexmin.
pub const NODE_LIMIT: usize = 20_000;
/// How many violated constraints enter the tableau per round (measured on
/// the scheduler's systems: fewer rounds against smaller tableaux).
const ROWS_PER_ROUND: usize = 16;

/// The integers a tableau computes with: checked `i128` (the fast path) or
/// arbitrary precision (the fallback after an overflow).
trait Num: Clone + Ord + std::fmt::Debug {
    fn from_i64(v: i64) -> Self;
    fn zero() -> Self;
    fn sign(&self) -> i32;
    fn mul(&self, o: &Self) -> Result<Self>;
    fn sub(&self, o: &Self) -> Result<Self>;
    fn neg(&self) -> Result<Self>;
    fn gcd(&self, o: &Self) -> Self;
    /// Exact division (`o` divides `self`).
    fn div_exact(&self, o: &Self) -> Self;
    /// The remainder in `[0, o)` for `o > 0`.
    fn rem_euclid(&self, o: &Self) -> Self;
    fn to_i64(&self) -> Result<i64>;
    fn is_one(&self) -> bool;
}

impl Num for i128 {
    fn from_i64(v: i64) -> Self {
        v as i128
    }
    fn zero() -> Self {
        0
    }
    fn sign(&self) -> i32 {
        self.signum() as i32
    }
    fn mul(&self, o: &Self) -> Result<Self> {
        self.checked_mul(*o).ok_or(MathError::Overflow)
    }
    fn sub(&self, o: &Self) -> Result<Self> {
        self.checked_sub(*o).ok_or(MathError::Overflow)
    }
    fn neg(&self) -> Result<Self> {
        self.checked_neg().ok_or(MathError::Overflow)
    }
    fn gcd(&self, o: &Self) -> Self {
        let (mut a, mut b) = (self.unsigned_abs(), o.unsigned_abs());
        while b != 0 {
            let t = a % b;
            a = b;
            b = t;
        }
        a as i128
    }
    fn div_exact(&self, o: &Self) -> Self {
        self / o
    }
    fn rem_euclid(&self, o: &Self) -> Self {
        i128::rem_euclid(*self, *o)
    }
    fn to_i64(&self) -> Result<i64> {
        i64::try_from(*self).map_err(|_| MathError::Overflow)
    }
    fn is_one(&self) -> bool {
        *self == 1
    }
}

/// An integer that is a machine `i128` while it fits and a big integer
/// beyond: the common case stays fast and large values stay exact.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Adaptive {
    Small(i128),
    Big(Box<BigInt>),
}

impl Adaptive {
    fn big(&self) -> BigInt {
        match self {
            Adaptive::Small(v) => BigInt::from(*v),
            Adaptive::Big(b) => (**b).clone(),
        }
    }
    fn from_big(b: BigInt) -> Adaptive {
        match i128::try_from(&b) {
            Ok(v) => Adaptive::Small(v),
            Err(_) => Adaptive::Big(Box::new(b)),
        }
    }
}

impl PartialOrd for Adaptive {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}

impl Ord for Adaptive {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        match (self, o) {
            (Adaptive::Small(a), Adaptive::Small(b)) => a.cmp(b),
            _ => self.big().cmp(&o.big()),
        }
    }
}

impl Num for Adaptive {
    fn from_i64(v: i64) -> Self {
        Adaptive::Small(v as i128)
    }
    fn zero() -> Self {
        Adaptive::Small(0)
    }
    fn sign(&self) -> i32 {
        match self {
            Adaptive::Small(v) => v.signum() as i32,
            Adaptive::Big(b) => {
                if b.is_positive() {
                    1
                } else if b.is_negative() {
                    -1
                } else {
                    0
                }
            }
        }
    }
    fn mul(&self, o: &Self) -> Result<Self> {
        if let (Adaptive::Small(a), Adaptive::Small(b)) = (self, o) {
            if let Some(v) = a.checked_mul(*b) {
                return Ok(Adaptive::Small(v));
            }
        }
        Ok(Adaptive::from_big(self.big() * o.big()))
    }
    fn sub(&self, o: &Self) -> Result<Self> {
        if let (Adaptive::Small(a), Adaptive::Small(b)) = (self, o) {
            if let Some(v) = a.checked_sub(*b) {
                return Ok(Adaptive::Small(v));
            }
        }
        Ok(Adaptive::from_big(self.big() - o.big()))
    }
    fn neg(&self) -> Result<Self> {
        if let Adaptive::Small(a) = self {
            if let Some(v) = a.checked_neg() {
                return Ok(Adaptive::Small(v));
            }
        }
        Ok(Adaptive::from_big(-self.big()))
    }
    fn gcd(&self, o: &Self) -> Self {
        if let (Adaptive::Small(a), Adaptive::Small(b)) = (self, o) {
            return Adaptive::Small(Num::gcd(a, b));
        }
        Adaptive::from_big(Integer::gcd(&self.big(), &o.big()))
    }
    fn div_exact(&self, o: &Self) -> Self {
        if let (Adaptive::Small(a), Adaptive::Small(b)) = (self, o) {
            if let Some(v) = a.checked_div(*b) {
                return Adaptive::Small(v);
            }
        }
        Adaptive::from_big(self.big() / o.big())
    }
    fn rem_euclid(&self, o: &Self) -> Self {
        if let (Adaptive::Small(a), Adaptive::Small(b)) = (self, o) {
            if let Some(v) = a.checked_rem_euclid(*b) {
                return Adaptive::Small(v);
            }
        }
        Adaptive::from_big(self.big().mod_floor(&o.big()))
    }
    fn to_i64(&self) -> Result<i64> {
        match self {
            Adaptive::Small(v) => i64::try_from(*v).map_err(|_| MathError::Overflow),
            Adaptive::Big(_) => Err(MathError::Overflow),
        }
    }
    fn is_one(&self) -> bool {
        *self == Adaptive::Small(1)
    }
}

/// One row `v = (c + Σ a_j y_j) / den`, stored as `[den, c, a_0, …]`.
type Row<N> = Vec<N>;

struct Tableau<N: Num> {
    /// Number of original variables; rows `0..n` are `x`.
    n: usize,
    rows: Vec<Row<N>>,
    /// Number of columns (non-basic variables).
    cols: usize,
    /// The row of each column's (non-basic) variable.
    col_row: Vec<usize>,
    /// Whether each row is a Gomory cut (dropped again once slack).
    cut: Vec<bool>,
}

impl<N: Num> Tableau<N> {
    fn normalize(row: &mut Row<N>) {
        let mut g = N::zero();
        for v in row.iter() {
            if v.sign() != 0 {
                g = g.gcd(v);
                if g.is_one() {
                    return;
                }
            }
        }
        if g.sign() > 0 {
            for v in row.iter_mut() {
                *v = v.div_exact(&g);
            }
        }
    }

    /// Compares the x-parts of columns `j` and `k` scaled by `1/sj` and
    /// `1/sk` (both positive): `Less` when column `j` is lexicographically
    /// smaller.
    fn cmp_cols(&self, j: usize, sj: &N, k: usize, sk: &N) -> Result<std::cmp::Ordering> {
        for x in 0..self.n {
            let r = &self.rows[x];
            let (a, b) = (r[2 + j].mul(sk)?, r[2 + k].mul(sj)?);
            if a != b {
                return Ok(a.cmp(&b));
            }
        }
        Ok(std::cmp::Ordering::Equal)
    }

    /// The column with `a_rj > 0` whose scaled x-part is lexicographically
    /// smallest.
    fn choose_column(&self, r: usize) -> Result<Option<usize>> {
        let row = &self.rows[r];
        let mut best: Option<usize> = None;
        for j in 0..self.cols {
            let a = &row[2 + j];
            if a.sign() <= 0 {
                continue;
            }
            best = match best {
                None => Some(j),
                Some(b) => {
                    if self.cmp_cols(j, a, b, &row[2 + b])? == std::cmp::Ordering::Less {
                        Some(j)
                    } else {
                        Some(b)
                    }
                }
            };
        }
        Ok(best)
    }

    /// Makes row `r`'s variable non-basic in column `j` (`a_rj > 0`).
    fn pivot(&mut self, r: usize, j: usize) -> Result<()> {
        super::budget::check()?;
        let pr = self.rows[r].clone();
        let (dr, cr, arj) = (&pr[0], &pr[1], &pr[2 + j]);
        debug_assert!(arj.sign() > 0);
        for (rho, row) in self.rows.iter_mut().enumerate() {
            if rho == r || row[2 + j].sign() == 0 {
                continue;
            }
            let a = row[2 + j].clone();
            // v = (c + Σ_k a_k y_k + a·(dr·v_r - cr - Σ_{k≠j} a_rk y_k)/arj) / den
            row[0] = row[0].mul(arj)?;
            row[1] = row[1].mul(arj)?.sub(&a.mul(cr)?)?;
            for k in 0..self.cols {
                let idx = 2 + k;
                if k == j {
                    row[idx] = a.mul(dr)?;
                } else if pr[idx].sign() != 0 {
                    row[idx] = row[idx].mul(arj)?.sub(&a.mul(&pr[idx])?)?;
                } else {
                    row[idx] = row[idx].mul(arj)?;
                }
            }
            Self::normalize(row);
        }
        let unit = &mut self.rows[r];
        unit.iter_mut().for_each(|v| *v = N::zero());
        unit[0] = N::from_i64(1);
        unit[2 + j] = N::from_i64(1);
        self.col_row[j] = r;
        Ok(())
    }

    /// Drops the rows of basic slack variables that can never become
    /// negative: constant and every coefficient non-negative, so the
    /// constraint is implied by `y >= 0` (isl marks such rows redundant).
    fn drop_redundant(&mut self) {
        let mut keep = vec![true; self.rows.len()];
        for (r, row) in self.rows.iter().enumerate().skip(self.n) {
            if row[1].sign() >= 0 && row[2..].iter().all(|v| v.sign() >= 0) {
                keep[r] = false;
            }
        }
        self.drop_rows(keep);
    }

    /// Drops the Gomory cuts that the current point satisfies strictly
    /// (basic, with a positive constant): valid inequalities for the
    /// node's integer points, they only tighten the relaxation, and those
    /// no longer binding would otherwise pile up through the rounds and
    /// the branches, making every later pivot dearer.
    fn drop_slack_cuts(&mut self) {
        let keep = (self.rows.iter().zip(&self.cut))
            .map(|(row, &cut)| !cut || row[1].sign() <= 0)
            .collect();
        self.drop_rows(keep);
    }

    /// Removes the basic rows not marked in `keep` (the rows of non-basic
    /// variables always stay).
    fn drop_rows(&mut self, mut keep: Vec<bool>) {
        for &r in &self.col_row {
            keep[r] = true;
        }
        if keep.iter().all(|&k| k) {
            return;
        }
        let mut new_index = vec![usize::MAX; self.rows.len()];
        let mut next = 0;
        for (r, &k) in keep.iter().enumerate() {
            if k {
                new_index[r] = next;
                next += 1;
            }
        }
        let mut r = 0;
        self.rows.retain(|_| {
            r += 1;
            keep[r - 1]
        });
        let mut r = 0;
        self.cut.retain(|_| {
            r += 1;
            keep[r - 1]
        });
        for c in self.col_row.iter_mut() {
            *c = new_index[*c];
        }
    }

    /// Removes column `j` (its variable is fixed at 0).
    fn drop_column(&mut self, j: usize) {
        for row in self.rows.iter_mut() {
            row.remove(2 + j);
            Self::normalize(row);
        }
        self.col_row.remove(j);
        self.cols -= 1;
    }

    /// Runs the dual simplex until every row is non-negative; `false` when
    /// the set is empty.
    fn restore(&mut self, pivots: &mut usize) -> Result<bool> {
        loop {
            self.drop_redundant();
            // The first violated row (as isl's `restore_lexmin` does).
            // The most violated row (smallest c / den): fewer pivots than
            // the first violated one on the scheduler's systems.
            let mut pick: Option<usize> = None;
            for (r, row) in self.rows.iter().enumerate() {
                if row[1].sign() >= 0 {
                    continue;
                }
                pick = match pick {
                    None => Some(r),
                    Some(p) => {
                        let q = &self.rows[p];
                        if row[1].mul(&q[0])? < q[1].mul(&row[0])? {
                            Some(r)
                        } else {
                            Some(p)
                        }
                    }
                };
            }
            let Some(r) = pick else { return Ok(true) };
            let Some(j) = self.choose_column(r)? else {
                return Ok(false);
            };
            *pivots += 1;
            if *pivots > PIVOT_LIMIT {
                return Err(MathError::Limit("lexmin pivots"));
            }
            self.pivot(r, j)?;
        }
    }

    /// The row of `coefs·(x, 1)` over the current columns.
    fn express(&self, coefs: &[i64]) -> Result<Row<N>> {
        let n = self.n;
        let mut expr = vec![N::zero(); self.cols + 2];
        expr[0] = N::from_i64(1);
        expr[1] = N::from_i64(coefs[n]);
        for (x, &c) in coefs[..n].iter().enumerate() {
            if c == 0 {
                continue;
            }
            let coef = N::from_i64(c);
            let xr = &self.rows[x];
            // expr/de + coef·xr/dx over the denominator lcm(de, dx).
            let g = expr[0].gcd(&xr[0]);
            let fe = xr[0].div_exact(&g);
            let fx = expr[0].div_exact(&g);
            expr[0] = expr[0].mul(&fe)?;
            for k in 1..self.cols + 2 {
                let add = coef.mul(&xr[k])?.mul(&fx)?;
                expr[k] = expr[k].mul(&fe)?.sub(&add.neg()?)?;
            }
            Self::normalize(&mut expr);
        }
        Ok(expr)
    }

    /// The sign of `coefs·(x, 1)` at the current point.
    fn value_sign(&self, coefs: &[i64]) -> Result<i32> {
        let n = self.n;
        // Σ over a common denominator: num/den.
        let mut num = N::from_i64(coefs[n]);
        let mut den = N::from_i64(1);
        for (x, &c) in coefs[..n].iter().enumerate() {
            if c == 0 || self.rows[x][1].sign() == 0 {
                continue;
            }
            let (cx, dx) = (&self.rows[x][1], &self.rows[x][0]);
            let g = den.gcd(dx);
            let (fe, fx) = (dx.div_exact(&g), den.div_exact(&g));
            num = num
                .mul(&fe)?
                .sub(&N::from_i64(c).mul(cx)?.mul(&fx)?.neg()?)?;
            den = den.mul(&fe)?;
            let h = num.gcd(&den);
            if h.sign() > 0 && !h.is_one() {
                num = num.div_exact(&h);
                den = den.div_exact(&h);
            }
        }
        Ok(num.sign())
    }

    fn solve(n: usize, eqs: &[Vec<i64>], ineqs: &[Vec<i64>]) -> Result<Optimum<Vec<i64>>> {
        Self::solve_counted(n, eqs, ineqs, &mut Budget::default())
    }

    /// As [`Tableau::solve`], counting the work in `budget`.
    fn solve_counted(
        n: usize,
        eqs: &[Vec<i64>],
        ineqs: &[Vec<i64>],
        budget: &mut Budget,
    ) -> Result<Optimum<Vec<i64>>> {
        let mut t = Tableau::<N> {
            n,
            rows: Vec::with_capacity(n + ineqs.len()),
            cols: n,
            col_row: (0..n).collect(),
            cut: vec![false; n],
        };
        for x in 0..n {
            let mut row = vec![N::zero(); n + 2];
            row[0] = N::from_i64(1);
            row[2 + x] = N::from_i64(1);
            t.rows.push(row);
        }
        // Equalities: pivot each out, then drop its column.
        for e in eqs {
            let mut row = t.express(e)?;
            if row[2..].iter().all(|v| v.sign() == 0) {
                if row[1].sign() != 0 {
                    return Ok(Optimum::Empty);
                }
                continue;
            }
            if !row[2..].iter().any(|v| v.sign() > 0) {
                for v in row[1..].iter_mut() {
                    *v = v.neg()?;
                }
            }
            t.rows.push(row);
            t.cut.push(false);
            let r = t.rows.len() - 1;
            let j = t
                .choose_column(r)?
                .ok_or(MathError::Internal("equality without a positive column"))?;
            t.pivot(r, j)?;
            t.rows.pop();
            t.cut.pop();
            t.drop_column(j);
        }
        let pending: Vec<&Vec<i64>> = ineqs.iter().collect();
        let r = t.search(pending, 0, budget)?;
        Ok(match r {
            Some(x) => Optimum::Bounded(x),
            None => Optimum::Empty,
        })
    }

    /// Brings the tableau to the rational lexmin of the relaxation that
    /// satisfies every pending row: rows enter lazily, a few violated ones
    /// per round (the lexmin of a relaxation that happens to satisfy every
    /// constraint is the lexmin of the whole problem). `false`: empty.
    fn relax(&mut self, pending: &mut Vec<&Vec<i64>>, budget: &mut Budget) -> Result<bool> {
        loop {
            if !self.restore(&mut budget.pivots)? {
                return Ok(false);
            }
            let mut added = 0;
            let mut k = 0;
            while k < pending.len() && added < ROWS_PER_ROUND {
                if self.value_sign(pending[k])? < 0 {
                    let expr = self.express(pending[k])?;
                    pending.swap_remove(k);
                    if expr[2..].iter().all(|v| v.sign() == 0) {
                        return Ok(false);
                    }
                    self.rows.push(expr);
                    self.cut.push(false);
                    added += 1;
                } else {
                    k += 1;
                }
            }
            if added == 0 {
                return Ok(true);
            }
        }
    }

    /// Adds the row `coefs·(x, 1) >= 0`.
    fn add_row(&mut self, coefs: &[i64]) -> Result<()> {
        let expr = self.express(coefs)?;
        self.rows.push(expr);
        self.cut.push(false);
        Ok(())
    }

    /// The integer lexmin with `x_0..x_{k-1}` already fixed (by equality
    /// rows), by lexicographic branch and bound.
    ///
    /// Math: let `r` be the rational lexmin and `f >= k` the first
    /// fractional coordinate. Every integer point has `x_{k..} >=lex r_{k..}`;
    /// the candidates, in increasing lexicographic order, are the points with
    /// `x_{k..f-1} = r_{k..f-1}` (then `x_f >= ⌈r_f⌉`), then for
    /// `j = f-1, …, k` those with `x_{k..j-1} = r_{k..j-1}` and
    /// `x_j >= r_j + 1`. The first branch with an integer point holds the
    /// lexmin. Each branch searches from its first unfixed variable.
    fn search(
        &self,
        mut pending: Vec<&Vec<i64>>,
        k: usize,
        budget: &mut Budget,
    ) -> Result<Option<Vec<i64>>> {
        budget.nodes += 1;
        if budget.nodes > NODE_LIMIT {
            return Err(MathError::Limit("lexmin branch and bound nodes"));
        }
        let mut t = self.clone_tableau();
        if !t.relax(&mut pending, budget)? {
            return Ok(None);
        }
        let n = t.n;
        // Gomory rounds before branching: cut off the fractional vertex
        // with one cut per fractional coordinate.
        for _ in 0..CUT_ROUNDS {
            let frac: Vec<usize> = (k..n)
                .filter(|&x| t.rows[x][1].rem_euclid(&t.rows[x][0]).sign() != 0)
                .collect();
            if frac.is_empty() {
                break;
            }
            t.drop_slack_cuts();
            for x in frac {
                let r = &t.rows[x];
                let d = r[0].clone();
                let mut cut: Row<N> = Vec::with_capacity(r.len());
                cut.push(d.clone());
                cut.push(r[1].rem_euclid(&d).sub(&d)?);
                cut.extend(r[2..].iter().map(|a| a.rem_euclid(&d)));
                Self::normalize(&mut cut);
                t.rows.push(cut);
                t.cut.push(true);
            }
            budget.cuts += 1;
            if !t.relax(&mut pending, budget)? {
                return Ok(None);
            }
        }
        t.drop_slack_cuts();
        let integral = |x: usize| t.rows[x][1].rem_euclid(&t.rows[x][0]).sign() == 0;
        let Some(f) = (k..n).find(|&x| !integral(x)) else {
            return (0..n)
                .map(|x| t.rows[x][1].div_exact(&t.rows[x][0]).to_i64())
                .collect::<Result<Vec<_>>>()
                .map(Some);
        };
        let values: Vec<i64> = (k..f)
            .map(|x| t.rows[x][1].div_exact(&t.rows[x][0]).to_i64())
            .collect::<Result<_>>()?;
        // ⌈r_f⌉ = floor(c / d) + 1 for a fractional c / d.
        let (cf, df) = (&t.rows[f][1], &t.rows[f][0]);
        let ceil_f = cf
            .sub(&cf.rem_euclid(df))?
            .div_exact(df)
            .to_i64()?
            .checked_add(1)
            .ok_or(MathError::Overflow)?;
        for j in (k..=f).rev() {
            let mut b = t.clone_tableau();
            for i in k..j {
                let mut row = vec![0i64; n + 1];
                row[i] = 1;
                row[n] = -values[i - k];
                b.add_row(&row)?;
                row[i] = -1;
                row[n] = values[i - k];
                b.add_row(&row)?;
            }
            let bound = if j == f {
                ceil_f
            } else {
                values[j - k].checked_add(1).ok_or(MathError::Overflow)?
            };
            let mut row = vec![0i64; n + 1];
            row[j] = 1;
            row[n] = bound.checked_neg().ok_or(MathError::Overflow)?;
            b.add_row(&row)?;
            if let Some(x) = b.search(pending.clone(), j, budget)? {
                return Ok(Some(x));
            }
        }
        Ok(None)
    }

    fn clone_tableau(&self) -> Tableau<N> {
        Tableau {
            n: self.n,
            rows: self.rows.clone(),
            cols: self.cols,
            col_row: self.col_row.clone(),
            cut: self.cut.clone(),
        }
    }
}

/// Work counters of one lexmin.
#[derive(Default)]
struct Budget {
    pivots: usize,
    nodes: usize,
    cuts: usize,
}

/// Removes duplicate inequalities and, among rows with the same
/// coefficients, keeps the tightest constant (rows are gcd-normalized and
/// tightened first: `2x >= 3` becomes `x >= 2`).
fn clean(n: usize, ineqs: &[Vec<i64>]) -> Result<Option<Vec<Vec<i64>>>> {
    use super::ilp::{norm_ineq, Norm};
    let mut rows = Vec::with_capacity(ineqs.len());
    for r in ineqs {
        match norm_ineq(r)? {
            Norm::Trivial => {}
            Norm::Infeasible => return Ok(None),
            Norm::Row(r) => rows.push(r),
        }
    }
    // Sorting puts rows with equal coefficients next to each other, the
    // tightest (smallest constant) first.
    rows.sort_unstable();
    rows.dedup_by(|later, first| later[..n] == first[..n]);
    Ok(Some(rows))
}

/// As [`lexmin_nonneg`], for callers whose inequalities are already
/// distinct (normalizing and deduplicating thousands of rows is then wasted
/// work); the answer does not depend on it.
pub fn lexmin_nonneg_unique(
    n: usize,
    eqs: &[Vec<i64>],
    ineqs: &[Vec<i64>],
) -> Result<Optimum<Vec<i64>>> {
    if eqs.iter().chain(ineqs).any(|r| r.len() != n + 1) {
        return Err(MathError::Space("row length differs from n + 1".into()));
    }
    match Tableau::<i128>::solve(n, eqs, ineqs) {
        Err(MathError::Overflow) => Tableau::<Adaptive>::solve(n, eqs, ineqs),
        r => r,
    }
}

/// Returns the integer lexicographic minimum of `x ∈ Zⁿ`, `x >= 0`, with
/// `eqs·(x,1) = 0` and `ineqs·(x,1) >= 0` (rows of `n + 1` entries, the
/// constant last). Computes with `i128` and redoes the work with arbitrary
/// precision when an intermediate value does not fit.
pub fn lexmin_nonneg(n: usize, eqs: &[Vec<i64>], ineqs: &[Vec<i64>]) -> Result<Optimum<Vec<i64>>> {
    if eqs.iter().chain(ineqs).any(|r| r.len() != n + 1) {
        return Err(MathError::Space("row length differs from n + 1".into()));
    }
    let Some(ineqs) = clean(n, ineqs)? else {
        return Ok(Optimum::Empty);
    };
    match Tableau::<i128>::solve(n, eqs, &ineqs) {
        Err(MathError::Overflow) => Tableau::<Adaptive>::solve(n, eqs, &ineqs),
        r => r,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Brute-force lexmin over the box `0..=b` in every variable.
    fn brute(n: usize, eqs: &[Vec<i64>], ineqs: &[Vec<i64>], b: i64) -> Option<Vec<i64>> {
        let mut x = vec![0i64; n];
        loop {
            let ok = |r: &Vec<i64>| r[n] + r[..n].iter().zip(&x).map(|(a, v)| a * v).sum::<i64>();
            if eqs.iter().all(|r| ok(r) == 0) && ineqs.iter().all(|r| ok(r) >= 0) {
                return Some(x);
            }
            // Next point in lexicographic order (last variable fastest).
            let mut k = n;
            loop {
                if k == 0 {
                    return None;
                }
                k -= 1;
                if x[k] < b {
                    x[k] += 1;
                    break;
                }
                x[k] = 0;
            }
        }
    }

    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9E3779B97F4A7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58476D1CE4E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D049BB133111EB);
            z ^ (z >> 31)
        }
        fn range(&mut self, lo: i64, hi: i64) -> i64 {
            lo + (self.next() % ((hi - lo + 1) as u64)) as i64
        }
    }

    #[test]
    fn worked_examples() {
        // lexmin (x, y): x + y >= 3, y <= 1  →  (2, 1)
        let r = lexmin_nonneg(2, &[], &[vec![1, 1, -3], vec![0, -1, 1]]).unwrap();
        assert_eq!(r, Optimum::Bounded(vec![2, 1]));
        // 2x = 2y + 1 has no integer point.
        let r = lexmin_nonneg(2, &[vec![2, -2, -1]], &[]).unwrap();
        assert_eq!(r, Optimum::Empty);
        // 3x + 5y = 7 + z, z <= 0: x = 4, y = -1 is out; (x, y) = (4, ...)?
        // Solutions with z = 0: 3x + 5y = 7 has none over x, y >= 0 ... 3·4+5·(-1);
        // so z must be negative: empty.
        let r = lexmin_nonneg(3, &[vec![3, 5, -1, -7]], &[vec![0, 0, -1, 0]]).unwrap();
        assert_eq!(r, Optimum::Empty);
        // 2x + 2y >= 3: rational lexmin (0, 3/2), integer (0, 2).
        let r = lexmin_nonneg(2, &[], &[vec![2, 2, -3]]).unwrap();
        assert_eq!(r, Optimum::Bounded(vec![0, 2]));
        // x free of constraints: lexmin 0.
        assert_eq!(
            lexmin_nonneg(1, &[], &[]).unwrap(),
            Optimum::Bounded(vec![0])
        );
    }

    #[test]
    fn adaptive_numbers_agree_with_i128() {
        let mut rng = Rng(11);
        for _ in 0..500 {
            let n = rng.range(1, 5) as usize;
            let mut ineqs = Vec::new();
            for _ in 0..rng.range(1, 8) {
                let mut r: Vec<i64> = (0..=n).map(|_| rng.range(-9, 9)).collect();
                r[n] = rng.range(-20, 20);
                ineqs.push(r);
            }
            let a = Tableau::<i128>::solve(n, &[], &ineqs).unwrap();
            let b = Tableau::<Adaptive>::solve(n, &[], &ineqs).unwrap();
            assert_eq!(a, b, "{ineqs:?}");
        }
        // Values past i128 stay exact in the adaptive type.
        let big = Adaptive::Small(i128::MAX);
        let sq = big.mul(&big).unwrap();
        assert!(matches!(sq, Adaptive::Big(_)));
        assert_eq!(sq.div_exact(&big), big);
    }

    #[test]
    fn slack_cuts_are_dropped() {
        // One of the scheduler's ILPs for fuzz program mixed 132547: the
        // answer is isl's (`isl_set_lexmin`); keeping every cut took 137
        // nodes and 12,795 pivots (4.4 s), dropping the slack ones 9 and 918.
        let text = include_str!("testdata/lexmin-132547.txt");
        let (mut n, mut eqs, mut ineqs) = (0, Vec::new(), Vec::new());
        for line in text.lines().filter(|l| !l.starts_with('#')) {
            let mut words = line.split_whitespace();
            let kind = words.next().expect("a row kind");
            let nums: Vec<i64> = words.map(|w| w.parse().expect("an integer")).collect();
            match kind {
                "n" => n = nums[0] as usize,
                "=" => eqs.push(nums),
                ">=" => ineqs.push(nums),
                other => panic!("unknown row kind {other}"),
            }
        }
        assert_eq!((n, eqs.len(), ineqs.len()), (18, 2, 229));
        let mut budget = Budget::default();
        let r = Tableau::<i128>::solve_counted(n, &eqs, &ineqs, &mut budget).unwrap();
        assert_eq!(
            r,
            Optimum::Bounded(vec![11, 10, 5, 1, 0, 0, 1, 1, 1, 4, 1, 1, 1, 0, 0, 1, 2, 1])
        );
        assert!(
            budget.nodes <= 20 && budget.pivots <= 2_000,
            "{} nodes, {} pivots",
            budget.nodes,
            budget.pivots
        );
    }

    #[test]
    fn lazy_rows_do_not_change_the_answer() {
        // Many redundant rows: x + y >= k for k = 0..40 and 3x + y >= 7.
        let mut ineqs: Vec<Vec<i64>> = (0..40).map(|k| vec![1, 1, -k]).collect();
        ineqs.push(vec![3, 1, -7]);
        assert_eq!(
            lexmin_nonneg(2, &[], &ineqs).unwrap(),
            Optimum::Bounded(vec![0, 39])
        );
    }

    #[test]
    fn random_against_brute_force() {
        let mut rng = Rng(7);
        for case in 0..3000 {
            let n = rng.range(1, 4) as usize;
            let b = 5;
            let mut ineqs = Vec::new();
            let mut eqs = Vec::new();
            for v in 0..n {
                let mut r = vec![0; n + 1];
                r[v] = -1;
                r[n] = b;
                ineqs.push(r);
            }
            for _ in 0..rng.range(0, 4) {
                let mut r: Vec<i64> = (0..=n).map(|_| rng.range(-4, 4)).collect();
                r[n] = rng.range(-8, 8);
                ineqs.push(r);
            }
            if rng.range(0, 3) == 0 {
                let mut r: Vec<i64> = (0..=n).map(|_| rng.range(-3, 3)).collect();
                r[n] = rng.range(-6, 6);
                eqs.push(r);
            }
            let want = brute(n, &eqs, &ineqs, b);
            let got = lexmin_nonneg(n, &eqs, &ineqs).unwrap();
            match (want, got) {
                (None, Optimum::Empty) => {}
                (Some(w), Optimum::Bounded(g)) => {
                    assert_eq!(w, g, "case {case}: {eqs:?} {ineqs:?}")
                }
                (w, g) => panic!("case {case}: {eqs:?} {ineqs:?}: want {w:?}, got {g:?}"),
            }
        }
    }
}
