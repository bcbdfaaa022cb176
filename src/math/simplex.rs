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

/// A row of the dictionary over one positive common denominator:
/// entry `k` is `num[k] / den`. Kept reduced (the gcd of `den` and every
/// numerator is 1), so that a pivot costs integer products and one gcd per
/// row instead of a gcd per entry.
#[derive(Clone, Debug)]
struct Row {
    den: i128,
    num: Vec<i128>,
}

fn gcd_u(mut a: u128, mut b: u128) -> u128 {
    if let (Ok(mut x), Ok(mut y)) = (u64::try_from(a), u64::try_from(b)) {
        while y != 0 {
            let t = x % y;
            x = y;
            y = t;
        }
        return u128::from(x);
    }
    while b != 0 {
        let t = a % b;
        a = b;
        b = t;
    }
    a
}

fn mul(a: i128, b: i128) -> Result<i128> {
    // Two 64-bit factors cannot overflow 128 bits: no overflow check.
    if let (Ok(x), Ok(y)) = (i64::try_from(a), i64::try_from(b)) {
        return Ok(i128::from(x) * i128::from(y));
    }
    a.checked_mul(b).ok_or(MathError::Overflow)
}

/// `a / b` for a divisor `b` of `a`: a 64-bit hardware division when both
/// fit, instead of the software 128-bit one.
fn exact_div(a: i128, b: i128) -> i128 {
    match (i64::try_from(a), i64::try_from(b)) {
        (Ok(x), Ok(y)) if y != -1 => i128::from(x / y),
        _ => a / b,
    }
}

impl Row {
    /// The row of `vals` over their least common denominator.
    fn from_rationals(vals: &[Rational]) -> Result<Row> {
        let mut den: i128 = 1;
        for v in vals {
            let d = v.den();
            if d != 1 && den % d != 0 {
                let g = gcd_u(den.unsigned_abs(), d.unsigned_abs()) as i128;
                den = mul(den / g, d)?;
            }
        }
        let num = vals
            .iter()
            .map(|v| mul(v.num(), den / v.den()))
            .collect::<Result<Vec<_>>>()?;
        Ok(Row { den, num })
    }

    fn zeros(len: usize) -> Row {
        Row {
            den: 1,
            num: vec![0; len],
        }
    }

    /// Entry `k` as a rational.
    fn get(&self, k: usize) -> Result<Rational> {
        Rational::new(self.num[k], self.den)
    }

    fn signum(&self, k: usize) -> i32 {
        self.num[k].signum() as i32
    }

    fn is_zero(&self, k: usize) -> bool {
        self.num[k] == 0
    }

    /// Divides the denominator and numerators by their gcd.
    fn reduce(&mut self) {
        let mut g = self.den.unsigned_abs();
        for v in &self.num {
            if g == 1 {
                return;
            }
            if *v != 0 {
                g = gcd_u(g, v.unsigned_abs());
            }
        }
        if g > 1 {
            let g = g as i128;
            self.den = exact_div(self.den, g);
            for v in &mut self.num {
                *v = exact_div(*v, g);
            }
        }
    }
}

#[derive(Clone)]
struct Tableau {
    /// `rows[r] = [β, α_0, …, α_{k-1}]`.
    rows: Vec<Row>,
    /// Objective rows in the same layout (value = β + Σ α_k v_k).
    objs: Vec<Row>,
    basic: Vec<usize>,
    nonbasic: Vec<usize>,
    n_free: usize,
    /// Enter by Dantzig's rule for the first [`DANTZIG_STEPS`] pivots of
    /// each minimization (Bland's after): for callers that read only the
    /// optimum's value, which does not depend on the pivots.
    dantzig: bool,
}

/// Pivots by Dantzig's rule (the most negative reduced cost enters) before
/// Bland's rule takes over for good: far fewer pivots on large systems,
/// Bland's termination guarantee kept.
const DANTZIG_STEPS: u64 = 500;

impl Tableau {
    fn pivot(&mut self, r: usize, c: usize) -> Result<()> {
        super::budget::check()?;
        // b = β + Σ α_k v_k solved for v_c: v_c = (b - β - Σ_{k≠c} α_k v_k) / α_c,
        // b taking column c. Over the row's denominator d and α_c = p / d:
        // entry k becomes -num_k / p, entry c becomes d / p.
        let old = &self.rows[r];
        let p = old.num[c + 1];
        let s = p.signum();
        let mut new_r = Row {
            den: p.abs(),
            num: old
                .num
                .iter()
                .enumerate()
                .map(|(k, &v)| mul(if k == c + 1 { old.den } else { -v }, s))
                .collect::<Result<_>>()?,
        };
        new_r.reduce();
        // Row i += f · new row (column c: f · its entry), f = num_i[c] / den_i:
        // over the denominator den_i · den_r.
        let update = |row: &mut Row| -> Result<()> {
            let f = row.num[c + 1];
            if f == 0 {
                return Ok(());
            }
            let dr = new_r.den;
            if dr == 1 {
                // An integral pivot row: the denominator stays.
                for (k, nv) in new_r.num.iter().enumerate() {
                    if k == c + 1 {
                        row.num[k] = mul(f, *nv)?;
                    } else if *nv != 0 {
                        row.num[k] = row.num[k]
                            .checked_add(mul(f, *nv)?)
                            .ok_or(MathError::Overflow)?;
                    }
                }
                row.reduce();
                return Ok(());
            }
            for (k, nv) in new_r.num.iter().enumerate() {
                row.num[k] = if k == c + 1 {
                    mul(f, *nv)?
                } else {
                    mul(row.num[k], dr)?
                        .checked_add(mul(f, *nv)?)
                        .ok_or(MathError::Overflow)?
                };
            }
            row.den = mul(row.den, dr)?;
            row.reduce();
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
        self.primal_within(k, 1_000_000)?
            .ok_or(MathError::Limit("simplex pivots"))
    }

    /// [`Tableau::primal`] within `cap` pivots: `None` past them (the
    /// tableau left at a feasible basis).
    fn primal_within(&mut self, k: usize, cap: u64) -> Result<Option<bool>> {
        let mut steps: u64 = 0;
        loop {
            steps += 1;
            if steps > cap {
                return Ok(None);
            }
            let Some(c) = self.entering(k, steps) else {
                return Ok(Some(true));
            };
            let Some(r) = self.blocking_row(c, 1, None)? else {
                return Ok(Some(false));
            };
            self.pivot(r, c)?;
        }
    }

    /// The nonbasic column that enters to decrease objective `k` at pivot
    /// `steps` of a minimization: by Dantzig's rule (the most negative
    /// reduced cost) for the first [`DANTZIG_STEPS`] when the tableau
    /// allows it, by Bland's (the smallest variable) after; `None` at the
    /// optimum. Free variables never enter (they are basic or dead).
    fn entering(&self, k: usize, steps: u64) -> Option<usize> {
        let mut enter: Option<usize> = None;
        let dantzig = self.dantzig && steps <= DANTZIG_STEPS;
        let obj = &self.objs[k];
        for (c, &v) in self.nonbasic.iter().enumerate() {
            if v < self.n_free || obj.signum(c + 1) >= 0 {
                continue;
            }
            let better = match enter {
                None => true,
                // One denominator for the row: numerators compare.
                Some(e) if dantzig => {
                    let (a, b) = (obj.num[c + 1], obj.num[e + 1]);
                    a < b || (a == b && v < self.nonbasic[e])
                }
                Some(e) => v < self.nonbasic[e],
            };
            if better {
                enter = Some(c);
            }
        }
        enter
    }

    /// Whether the basic variable of row `rv` is nonnegative at every
    /// point of the other rows: its row, as the objective, is minimized
    /// with the variable's own sign left free (its row skipped by the ratio
    /// tests, so it stays basic there), stopping as soon as a vertex gives
    /// it a negative value or a ray decreases it without bound.
    fn row_min_nonneg(&mut self, rv: usize) -> Result<bool> {
        self.objs = vec![self.rows[rv].clone()];
        let mut steps: u64 = 0;
        loop {
            steps += 1;
            if steps > 1_000_000 {
                return Err(MathError::Limit("simplex pivots"));
            }
            if self.objs[0].signum(0) < 0 {
                return Ok(false);
            }
            let Some(c) = self.entering(0, steps) else {
                return Ok(true);
            };
            let Some(r) = self.blocking_row(c, 1, Some(rv))? else {
                return Ok(false);
            };
            self.pivot(r, c)?;
        }
    }

    /// The ratio test of nonbasic column `c` moving in direction `dir`
    /// (+1: increasing, -1: decreasing): the row, other than `skip` and the
    /// free variables' definitions, whose basic variable reaches 0 first
    /// (ties to the smallest variable), `None` when none does.
    fn blocking_row(&self, c: usize, dir: i128, skip: Option<usize>) -> Result<Option<usize>> {
        let mut leave: Option<(usize, Rational)> = None;
        for (r, row) in self.rows.iter().enumerate() {
            let a = row.num[c + 1] * dir;
            if Some(r) == skip || self.basic[r] < self.n_free || a >= 0 {
                continue;
            }
            // β / -α_c: the row's denominator cancels.
            let ratio = Rational::new(row.num[0], -a)?;
            let better = match &leave {
                None => true,
                Some((lr, lv)) => ratio < *lv || (ratio == *lv && self.basic[r] < self.basic[*lr]),
            };
            if better {
                leave = Some((r, ratio));
            }
        }
        Ok(leave.map(|(r, _)| r))
    }

    /// Whether the rows other than slack `v`'s imply `v >= 0`; when they
    /// do, `v`'s row leaves the tableau (the vertex stays feasible for the
    /// others), and when they do not the tableau is left as it was.
    fn drop_if_implied(&mut self, v: usize) -> Result<bool> {
        let saved = self.clone();
        let implied = match self.basic.iter().position(|&b| b == v) {
            Some(r) => self.row_min_nonneg(r)?,
            None => {
                // Nonbasic at 0: it decreases along its column until a row
                // blocks it, then enters the basis there.
                let c = self
                    .nonbasic
                    .iter()
                    .position(|&x| x == v)
                    .ok_or(MathError::Internal("slack neither basic nor nonbasic"))?;
                match self.blocking_row(c, -1, None)? {
                    None => false,
                    Some(r) => {
                        self.pivot(r, c)?;
                        self.row_min_nonneg(r)?
                    }
                }
            }
        };
        self.objs.clear();
        if implied {
            let r = self
                .basic
                .iter()
                .position(|&b| b == v)
                .ok_or(MathError::Internal("implied slack not basic"))?;
            self.rows.remove(r);
            self.basic.remove(r);
        } else {
            *self = saved;
        }
        Ok(implied)
    }

    /// The affine form `coeffs·(x,1)` (`n_free` coefficients and the
    /// constant) over the current nonbasic variables, as `[constant,
    /// coefficients]`: a basic free variable replaced by its row, a
    /// nonbasic one kept (an objective for `min_rat`, a row for `add_ineq`).
    fn over_nonbasic(&self, coeffs: &[Rational]) -> Result<Vec<Rational>> {
        let n = self.n_free;
        let mut out = vec![Rational::ZERO; self.nonbasic.len() + 1];
        out[0] = coeffs[n];
        for (j, cj) in coeffs[..n].iter().enumerate() {
            if cj.is_zero() {
                continue;
            }
            if let Some(c) = self.nonbasic.iter().position(|&v| v == j) {
                out[c + 1] = out[c + 1].add(cj)?;
            } else if let Some(r) = self.basic.iter().position(|&b| b == j) {
                let row = &self.rows[r];
                for (k, o) in out.iter_mut().enumerate() {
                    if !row.is_zero(k) {
                        *o = o.add(&cj.mul(&row.get(k)?)?)?;
                    }
                }
            }
        }
        Ok(out)
    }

    fn value_of(&self, var: usize) -> Result<Rational> {
        match self.basic.iter().position(|&b| b == var) {
            Some(r) => self.rows[r].get(0),
            None => Ok(Rational::ZERO),
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

/// An optimum's value and vertex.
type LpOptimum = Optimum<(Rational, Vec<Rational>)>;

/// One system's simplex, for many objectives over it: phase 1 (a feasible
/// basis) runs once, and each objective's phase 2 starts from the basis the
/// previous one ended at, feasible for all of them. The optimum of each is
/// [`lp_min`]'s; the vertex returned may differ where the optimum is not
/// unique (the pivots start elsewhere).
#[derive(Clone)]
pub struct LpSolver {
    n: usize,
    /// `None` when the system has no rational point.
    t: Option<Tableau>,
}

impl LpSolver {
    /// The solver of `eqs·(x,1) = 0`, `ineqs·(x,1) >= 0` (rows of `n`
    /// coefficients and the constant).
    pub fn new(n: usize, eqs: &[Vec<i64>], ineqs: &[Vec<i64>]) -> Result<LpSolver> {
        LpSolver::from_rows(n, dictionary(n, eqs, ineqs)?, false)
    }

    /// The solver of the dictionary rows `s_i = c_i + Σ a_ij x_j >= 0`.
    fn from_rows(n: usize, rows: Vec<Row>, dantzig: bool) -> Result<LpSolver> {
        let m = rows.len();
        let mut t = Tableau {
            rows,
            objs: Vec::new(),
            basic: (n..n + m).collect(),
            nonbasic: (0..n).collect(),
            n_free: n,
            dantzig,
        };
        // Pivot every free variable into the basis where possible.
        for x in 0..n {
            let Some(c) = t.nonbasic.iter().position(|&v| v == x) else {
                continue;
            };
            let r = (0..t.rows.len()).find(|&r| t.basic[r] >= n && !t.rows[r].is_zero(c + 1));
            if let Some(r) = r {
                t.pivot(r, c)?;
            }
        }
        // Phase 1: one artificial variable `a >= 0` added to every slack row.
        let mut most_neg: Option<(usize, Rational)> = None;
        for r in 0..t.rows.len() {
            if t.basic[r] >= n && t.rows[r].signum(0) < 0 {
                let v = t.rows[r].get(0)?;
                if most_neg.as_ref().is_none_or(|(_, m)| v < *m) {
                    most_neg = Some((r, v));
                }
            }
        }
        let most_neg = most_neg.map(|(r, _)| r);
        if let Some(r0) = most_neg {
            let art = n + m;
            for (r, row) in t.rows.iter_mut().enumerate() {
                let coef = if t.basic[r] >= n { row.den } else { 0 };
                row.num.push(coef);
            }
            let k = t.nonbasic.len();
            t.nonbasic.push(art);
            let mut w = Row::zeros(k + 2);
            w.num[k + 1] = 1;
            t.objs.push(w);
            t.pivot(r0, k)?;
            if !t.primal(0)? {
                return Err(MathError::Internal("phase 1 unbounded"));
            }
            if t.objs[0].signum(0) > 0 {
                return Ok(LpSolver { n, t: None });
            }
            if let Some(r) = t.basic.iter().position(|&b| b == art) {
                match (0..t.nonbasic.len()).find(|&c| !t.rows[r].is_zero(c + 1)) {
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
                    row.num.remove(c + 1);
                    row.reduce();
                }
            }
        }
        Ok(LpSolver { n, t: Some(t) })
    }

    /// Whether the system has no rational point (as found by phase 1 or by
    /// a row added since).
    pub fn is_empty(&self) -> bool {
        self.t.is_none()
    }

    /// Adds the inequality `row·(x,1) >= 0` (`n` coefficients and the
    /// constant) to the system, from the basis the solver is at: the row
    /// over the current nonbasic variables, then, when the vertex violates
    /// it, primal pivots that raise its slack (the other rows kept
    /// feasible, Bland's rule) until it is nonnegative, or the system is
    /// found empty. Cheaper than a new solver's phase 1 when a system
    /// grows by a few rows (code generation's nested contexts).
    pub fn add_ineq(&mut self, row: &[i64]) -> Result<()> {
        let n = self.n;
        if row.len() != n + 1 {
            return Err(MathError::Space("row length differs from n + 1".into()));
        }
        let Some(t) = self.t.as_mut() else {
            return Ok(());
        };
        t.objs.clear();
        // The row over the current nonbasic variables.
        let row: Vec<Rational> = row.iter().map(|&v| Rational::from_int(v)).collect();
        let vals = t.over_nonbasic(&row)?;
        let mut new = Row::from_rationals(&vals)?;
        new.reduce();
        let slack = t
            .basic
            .iter()
            .chain(&t.nonbasic)
            .max()
            .map_or(n, |&v| v + 1);
        t.rows.push(new);
        t.basic.push(slack);
        let rv = t.rows.len() - 1;
        // A free variable no row held yet (nonbasic, dead): it takes the
        // new row as its definition, the slack nonbasic at 0.
        if let Some(c) =
            (0..t.nonbasic.len()).find(|&c| t.nonbasic[c] < t.n_free && !t.rows[rv].is_zero(c + 1))
        {
            return t.pivot(rv, c);
        }
        let mut steps: u64 = 0;
        while t.rows[rv].signum(0) < 0 {
            steps += 1;
            if steps > 1_000_000 {
                return Err(MathError::Limit("simplex pivots"));
            }
            // Bland's rule: the smallest variable whose increase raises
            // the slack.
            let enter = (0..t.nonbasic.len())
                .filter(|&c| t.nonbasic[c] >= t.n_free && t.rows[rv].signum(c + 1) > 0)
                .min_by_key(|&c| t.nonbasic[c]);
            let Some(c) = enter else {
                // The slack's maximum is negative: no point.
                self.t = None;
                return Ok(());
            };
            // The slack reaches 0 at β / -α (over the row's denominator,
            // which cancels); a row that blocks sooner leaves instead.
            let at_zero = Rational::new(-t.rows[rv].num[0], t.rows[rv].num[c + 1])?;
            match t.blocking_row(c, 1, Some(rv))? {
                Some(r) if Rational::new(t.rows[r].num[0], -t.rows[r].num[c + 1])? < at_zero => {
                    t.pivot(r, c)?
                }
                _ => t.pivot(rv, c)?,
            }
        }
        Ok(())
    }

    /// Returns `min obj·(x,1)` over the system (`obj`: `n` coefficients and
    /// the constant).
    pub fn min(&mut self, obj: &[i64]) -> Result<Optimum<(Rational, Vec<Rational>)>> {
        let obj: Vec<Rational> = obj.iter().map(|&v| Rational::from_int(v)).collect();
        self.min_rat(&obj)
    }

    /// [`LpSolver::min`] within `cap` phase-2 pivots: `None` past them.
    fn min_within(&mut self, obj: &[i64], cap: u64) -> Result<Option<LpOptimum>> {
        let obj: Vec<Rational> = obj.iter().map(|&v| Rational::from_int(v)).collect();
        self.min_rat_within(&obj, cap)
    }

    /// [`LpSolver::min`] for a rational objective.
    fn min_rat(&mut self, obj: &[Rational]) -> Result<Optimum<(Rational, Vec<Rational>)>> {
        self.min_rat_within(obj, 1_000_000)?
            .ok_or(MathError::Limit("simplex pivots"))
    }

    /// [`LpSolver::min_rat`] within `cap` phase-2 pivots: `None` past them.
    fn min_rat_within(&mut self, obj: &[Rational], cap: u64) -> Result<Option<LpOptimum>> {
        let n = self.n;
        if obj.len() != n + 1 {
            return Err(MathError::Space(
                "objective length differs from n + 1".into(),
            ));
        }
        let Some(t) = self.t.as_mut() else {
            return Ok(Some(Optimum::Empty));
        };
        // The objective over the current nonbasic variables.
        let orow = t.over_nonbasic(obj)?;
        t.objs = vec![Row::from_rationals(&orow)?];
        // Phase 2: dead free variables with a cost make the problem
        // unbounded.
        for (c, &v) in t.nonbasic.iter().enumerate() {
            if v < n && !t.objs[0].is_zero(c + 1) {
                return Ok(Some(Optimum::Unbounded));
            }
        }
        match t.primal_within(0, cap)? {
            None => return Ok(None),
            Some(false) => return Ok(Some(Optimum::Unbounded)),
            Some(true) => {}
        }
        let x: Vec<Rational> = (0..n).map(|j| t.value_of(j)).collect::<Result<_>>()?;
        Ok(Some(Optimum::Bounded((t.objs[0].get(0)?, x))))
    }
}

/// The dictionary rows `[constant, coefficients]` of integer rows (rows of
/// `n` coefficients and the constant), an equality as two opposite
/// inequalities.
fn dictionary(n: usize, eqs: &[Vec<i64>], ineqs: &[Vec<i64>]) -> Result<Vec<Row>> {
    if eqs.iter().chain(ineqs.iter()).any(|r| r.len() != n + 1) {
        return Err(MathError::Space("row length differs from n + 1".into()));
    }
    let dict = |r: &[i64], sign: i128| -> Row {
        let mut num = Vec::with_capacity(n + 1);
        num.push(sign * i128::from(r[n]));
        num.extend(r[..n].iter().map(|&v| sign * i128::from(v)));
        Row { den: 1, num }
    };
    let mut rows = Vec::with_capacity(ineqs.len() + 2 * eqs.len());
    rows.extend(ineqs.iter().map(|r| dict(r, 1)));
    for r in eqs {
        rows.push(dict(r, 1));
        rows.push(dict(r, -1));
    }
    Ok(rows)
}

/// Which of the inequalities `ineqs` the others imply: `Some(implied)`, or
/// `None` when the system (with the equalities `eqs`) has no rational
/// point. The rows kept describe, with `eqs`, the same polyhedron as all of
/// them, and none of them is implied by the others kept, except implicit
/// equalities (rows with a variable that are zero on the whole
/// polyhedron). When the polyhedron has none, that is the answer of asking
/// from the last row to the first whether the rows not yet found implied
/// imply it (one [`lp_min_value`] per row): its facets, each by the lowest
/// of the rows that give it.
///
/// Clarkson's LPs (`clarkson`) over the rows found needed decide it when
/// they can (Fourier-Motzkin's output is mostly implied rows: 570 rows, 57
/// needed), keeping every implicit equality. Otherwise one simplex asks
/// the question above of every row: phase 1 runs once, each row is
/// minimized from the vertex the previous one left, and an implied row's
/// slack leaves the tableau.
pub fn implied_rows(n: usize, eqs: &[Vec<i64>], ineqs: &[Vec<i64>]) -> Result<Option<Vec<bool>>> {
    if eqs.iter().chain(ineqs).any(|r| r.len() != n + 1) {
        return Err(MathError::Space("row length differs from n + 1".into()));
    }
    // The variables no row mentions change nothing: without them every
    // pivot updates shorter rows (after Fourier-Motzkin, the eliminated
    // columns are most of them).
    let used: Vec<usize> = (0..n)
        .filter(|&j| eqs.iter().chain(ineqs).any(|r| r[j] != 0))
        .chain([n])
        .collect();
    let keep = |r: &Vec<i64>| used.iter().map(|&j| r[j]).collect::<Vec<i64>>();
    let (eqs, ineqs): (Vec<Vec<i64>>, Vec<Vec<i64>>) = (
        eqs.iter().map(keep).collect(),
        ineqs.iter().map(keep).collect(),
    );
    let n = used.len() - 1;
    // Clarkson's algorithm first; the rows it finds needed before it gives
    // up (when it does) are not asked again.
    let mut needed = vec![false; ineqs.len()];
    if let Some(implied) = clarkson(n, &eqs, &ineqs, &mut needed)? {
        return Ok(Some(implied));
    }
    let Some(mut t) = LpSolver::from_rows(n, dictionary(n, &eqs, &ineqs)?, true)?.t else {
        return Ok(None);
    };
    let mut implied = vec![false; ineqs.len()];
    for i in (0..ineqs.len()).rev() {
        implied[i] = !needed[i] && t.drop_if_implied(n + i)?;
    }
    Ok(Some(implied))
}

/// Clarkson's redundancy removal (Clarkson 1994; Fukuda's polyhedral
/// computation FAQ, 2.21): which rows of `ineqs` (with the equalities
/// `eqs`) the others imply, by LPs over the rows known to be needed only,
/// within the polyhedron's affine hull (`eqs` and the implicit equalities,
/// which [`relative_interior`] finds and which are all kept). For each
/// other row `i`: minimize it over the hull and the needed rows found so
/// far (with `row_i >= -1`, so that the minimum exists). A nonnegative
/// minimum: the needed rows imply `i`, so do all the others. A negative one
/// at `x`: the segment from a point `z` of the relative interior to `x`
/// leaves the polyhedron through a needed row, the first it crosses (alone,
/// or with rows equal to it on the hull: just past it, a point where that
/// row, and rows equal to it, are the only negative ones); the lowest of
/// them joins the needed rows and `i` is asked again. Each LP has the
/// needed rows and one more: far smaller than the whole system when most
/// rows are implied (Fourier-Motzkin's output). Once one of these LPs
/// stalls at a degenerate vertex ([`STALL_PIVOTS`]), the system's other
/// rows are asked by [`scaled_test`], the same question without the floor
/// (mixed 133802's Farkas projection: 792 rows through one apex, 696 of
/// them facets: that pass 17 s before, 2.7-3.5 s after), each over a few
/// of the needed rows at a time (constraint generation: mixed 134788, a
/// pass of 7,306 rows with 145 facets, the program 6.2-9.9 s before,
/// 2.0-2.7 s after).
///
/// Within the hull, the rows no others imply are the facets, each given by
/// every row equal to it on the hull, and the lowest of those is the one
/// kept: the answer of [`implied_rows`]' one row after the other when there
/// is no implicit equality. `None` (undecided) when the system is empty,
/// when the segment crosses two rows not equal on the hull at once, or when
/// a product leaves `i128`; the rows marked in `needed` by then are needed
/// all the same (each has its point where it alone, with rows equal to it,
/// is negative, and it is the lowest of those), and the caller need not ask
/// them again.
fn clarkson(
    n: usize,
    eqs: &[Vec<i64>],
    ineqs: &[Vec<i64>],
    needed: &mut [bool],
) -> Result<Option<Vec<bool>>> {
    let m = ineqs.len();
    let Some(inside) = relative_interior(n, eqs, ineqs)? else {
        return Ok(None);
    };
    let (z, zden) = (&inside.z, inside.den);
    // Each row's value at z, times zden: positive, zero on the implicit
    // equalities.
    let mut at_z = Vec::with_capacity(m);
    for r in ineqs {
        let Some(v) =
            dot(&r[..n], z).and_then(|v| v.checked_add(i128::from(r[n]).checked_mul(zden)?))
        else {
            return Ok(None);
        };
        at_z.push(v);
    }
    let mut hull: Vec<Vec<i64>> = eqs.to_vec();
    hull.extend(
        (0..m)
            .filter(|&j| inside.equal[j])
            .map(|j| ineqs[j].clone()),
    );
    let mut implied = vec![false; m];
    // Once an LP stalls (see `RowTest::Stalled`), the rest are scaled.
    let mut scaled = false;
    let cap = STALL_PIVOTS.saturating_mul(n as u64 + 1);
    let mut mark = vec![false; m];
    // Each row's Euclidean norm, for the scaled test's orderings only.
    let norms: Vec<f64> = ineqs.iter().map(|r| norm(r)).collect();
    // The needed rows, in increasing order.
    let mut kept: Vec<usize> = (0..m).filter(|&j| needed[j]).collect();
    for i in (0..m).rev() {
        while !needed[i] && !inside.equal[i] {
            super::budget::check()?;
            let test = if scaled {
                scaled_test(n, &hull, ineqs, &norms, &kept, i, z, zden, &mut mark)?
            } else {
                let rows: Vec<&[i64]> = kept.iter().map(|&j| ineqs[j].as_slice()).collect();
                floor_test(n, &hull, &rows, &ineqs[i], z, zden, cap)?
            };
            let dir = match test {
                RowTest::Implied => {
                    implied[i] = true;
                    break;
                }
                RowTest::Leaves(dir) => dir,
                RowTest::Undecided => return Ok(None),
                RowTest::Stalled => {
                    scaled = true;
                    continue;
                }
            };
            let Some(first) = first_crossed(n, ineqs, &at_z, &dir) else {
                return Ok(None);
            };
            // Rows crossed together must be equal on the hull: then the
            // lowest of them stands for the facet.
            let j = first[0];
            for &k in &first[1..] {
                if same_on_hull(
                    n,
                    &ineqs[j],
                    &ineqs[k],
                    at_z[j],
                    at_z[k],
                    inside.basis.as_deref(),
                ) != Some(true)
                {
                    return Ok(None);
                }
            }
            if needed[j] {
                return Ok(None);
            }
            needed[j] = true;
            kept.insert(kept.partition_point(|&k| k < j), j);
        }
    }
    Ok(Some(implied))
}

/// What an LP of [`clarkson`] says of row `i` over the rows found needed
/// (within the hull).
enum RowTest {
    /// They imply it.
    Implied,
    /// The ray from `z` along this direction leaves them after row `i`
    /// turns negative (or never does).
    Leaves(Vec<i128>),
    /// A product left `i128`, or the LP said what it cannot: `clarkson`
    /// gives up.
    Undecided,
    /// The LP went past [`STALL_PIVOTS`] pivots per variable.
    Stalled,
}

/// Phase-2 pivots per variable past which [`floor_test`]'s simplex is
/// taken to stall at a degenerate vertex (where hundreds of rows through a
/// cone's apex meet: a Farkas system's projection, most of its rows
/// facets). Its system then goes to [`scaled_test`].
const STALL_PIVOTS: u64 = 4;

/// Row `i`'s minimum over the rows `kept` and the hull, with `row_i >= -1`
/// so that it exists, from phase 1's vertex, within `cap` phase-2 pivots:
/// negative at `x`, the segment from `z` to `x` (as `dir = x·xden·zden -
/// z·xden`, scaled by the positive `xden·zden`).
fn floor_test(
    n: usize,
    hull: &[Vec<i64>],
    kept: &[&[i64]],
    row_i: &[i64],
    z: &[i128],
    zden: i128,
    cap: u64,
) -> Result<RowTest> {
    let mut rows: Vec<Vec<i64>> = kept.iter().map(|r| r.to_vec()).collect();
    let mut floor = row_i.to_vec();
    floor[n] = floor[n].checked_add(1).ok_or(MathError::Overflow)?;
    rows.push(floor);
    let mut lp = LpSolver::from_rows(n, dictionary(n, hull, &rows)?, true)?;
    let x = match lp.min_within(row_i, cap)? {
        None => return Ok(RowTest::Stalled),
        Some(Optimum::Bounded((v, _))) if v.signum() >= 0 => return Ok(RowTest::Implied),
        Some(Optimum::Bounded((_, x))) => x,
        Some(_) => return Ok(RowTest::Undecided),
    };
    let Some((xi, xden)) = over_common_den(&x) else {
        return Ok(RowTest::Undecided);
    };
    Ok(toward(&xi, xden, z, zden).map_or(RowTest::Undecided, RowTest::Leaves))
}

/// What [`scaled_point`] finds.
enum Scaled {
    /// The rows (with the hull) imply row `i`.
    Implied,
    /// `(x, t)`, integers: the rows homogenized by `t` are nonnegative
    /// there, and row `i` negative.
    Point(Vec<i128>),
    /// A product left `i128`, or the LP said what it cannot.
    Undecided,
}

/// Row `i` against the rows `kept` and the hull without a floor, as a
/// question of feasibility: is there `(x, t)`, `t >= 0`, with those rows
/// homogenized by `t` and row `i` at `-1`? With `t > 0`, `x / t` is a point
/// of theirs where row `i` is negative; with `t = 0`, `x` is a direction of
/// theirs along which row `i` decreases without bound; without, they imply
/// row `i`. Phase 1 starts on row `i`'s hyperplane, not at a cone's apex,
/// and each row's answer takes tens of pivots where [`floor_test`]'s takes
/// hundreds.
fn scaled_point(n: usize, hull: &[Vec<i64>], kept: &[&[i64]], row_i: &[i64]) -> Result<Scaled> {
    // Columns (x, t, constant).
    let homog = |r: &[i64], constant: i64| -> Vec<i64> {
        let mut w = r.to_vec();
        w.push(constant);
        w
    };
    // Row i's equality first: the first variable it has enters the basis
    // there.
    let mut rows = dictionary(n + 1, &[homog(row_i, 1)], &[])?;
    let hull_h: Vec<Vec<i64>> = hull.iter().map(|r| homog(r, 0)).collect();
    let mut ineq_h: Vec<Vec<i64>> = kept.iter().map(|r| homog(r, 0)).collect();
    let mut t_row = vec![0i64; n + 2];
    t_row[n] = 1;
    ineq_h.push(t_row);
    rows.extend(dictionary(n + 1, &hull_h, &ineq_h)?);
    let mut lp = LpSolver::from_rows(n + 1, rows, true)?;
    let x = match lp.min(&vec![0i64; n + 2])? {
        Optimum::Empty => return Ok(Scaled::Implied),
        Optimum::Bounded((_, x)) => x,
        Optimum::Unbounded => return Ok(Scaled::Undecided),
    };
    Ok(over_common_den(&x).map_or(Scaled::Undecided, |(xi, _)| Scaled::Point(xi)))
}

/// The ray of a point `(x, t)` of [`scaled_point`]: from `z` along
/// `x·zden - z·t` (`x / t - z` scaled by `t·zden`; `x` itself when
/// `t = 0`).
fn leaves(n: usize, p: &[i128], z: &[i128], zden: i128) -> RowTest {
    toward(&p[..n], p[n], z, zden).map_or(RowTest::Undecided, RowTest::Leaves)
}

impl Scaled {
    /// What it says of row `i` to [`clarkson`].
    fn test(self, n: usize, z: &[i128], zden: i128) -> RowTest {
        match self {
            Scaled::Implied => RowTest::Implied,
            Scaled::Point(p) => leaves(n, &p, z, zden),
            Scaled::Undecided => RowTest::Undecided,
        }
    }
}

/// Row `i` of `ineqs` against the needed rows `kept` (of `ineqs`) and the
/// hull without a floor: [`scaled_point`]'s question, asked by constraint
/// generation. First over the `n + 1` kept rows nearest to row `i` in
/// angle (a certificate that rows imply it needs at most `n + 1` of them,
/// the homogenized space's dimension: Carathéodory), then, while the point
/// found leaves some kept row, with up to `n + 1` more, the most violated
/// there. A certificate over some of the rows is one over all, and a point
/// that leaves none of them is one of all: the answer is that of one LP
/// over all kept rows, each LP far smaller when most rows are implied
/// (mixed 134788's Farkas projection: 7,306 rows, 145 facets); the ray is
/// [`leaves`]'. `norms` holds each row's Euclidean norm (angles and norms
/// only order the rows asked: floating point is enough). `mark` is all
/// `false`, one entry per row of `ineqs`, and is left so unless an error
/// returns.
#[allow(clippy::too_many_arguments)]
fn scaled_test(
    n: usize,
    hull: &[Vec<i64>],
    ineqs: &[Vec<i64>],
    norms: &[f64],
    kept: &[usize],
    i: usize,
    z: &[i128],
    zden: i128,
    mark: &mut [bool],
) -> Result<RowTest> {
    let ri = &ineqs[i];
    let mut by_angle: Vec<(f64, usize)> = kept
        .iter()
        .map(|&j| {
            let r = &ineqs[j];
            let dot: f64 = r.iter().zip(ri).map(|(&a, &b)| a as f64 * b as f64).sum();
            (-dot / norms[j], j)
        })
        .collect();
    by_angle.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let mut set: Vec<usize> = by_angle.iter().take(n + 1).map(|&(_, j)| j).collect();
    for &j in &set {
        mark[j] = true;
    }
    let test = loop {
        let rows: Vec<&[i64]> = set.iter().map(|&j| ineqs[j].as_slice()).collect();
        let p = match scaled_point(n, hull, &rows, &ineqs[i])? {
            Scaled::Implied => break RowTest::Implied,
            Scaled::Undecided => break RowTest::Undecided,
            Scaled::Point(p) => p,
        };
        // The kept rows negative at (x, t), by their value over their
        // norm.
        let mut violated: Vec<(f64, usize)> = Vec::new();
        let mut overflow = false;
        for &j in kept.iter().filter(|&&j| !mark[j]) {
            let r = &ineqs[j];
            let Some(v) = dot(&r[..n], &p[..n])
                .and_then(|v| v.checked_add(i128::from(r[n]).checked_mul(p[n])?))
            else {
                overflow = true;
                break;
            };
            if v < 0 {
                violated.push((v as f64 / norms[j], j));
            }
        }
        if overflow {
            // One LP over all of them instead.
            let rows: Vec<&[i64]> = kept.iter().map(|&j| ineqs[j].as_slice()).collect();
            break scaled_point(n, hull, &rows, &ineqs[i])?.test(n, z, zden);
        }
        if violated.is_empty() {
            break leaves(n, &p, z, zden);
        }
        violated.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        for &(_, j) in violated.iter().take(n + 1) {
            mark[j] = true;
            set.push(j);
        }
    };
    for &j in &set {
        mark[j] = false;
    }
    Ok(test)
}

/// A row's Euclidean norm (for orderings only).
fn norm(r: &[i64]) -> f64 {
    r.iter()
        .map(|&v| (v as f64) * (v as f64))
        .sum::<f64>()
        .sqrt()
}

/// `x·zden - z·w` (`None` when a product leaves `i128`).
fn toward(x: &[i128], w: i128, z: &[i128], zden: i128) -> Option<Vec<i128>> {
    x.iter()
        .zip(z)
        .map(|(&xk, &zk)| xk.checked_mul(zden)?.checked_sub(zk.checked_mul(w)?))
        .collect()
}

/// The rows of `ineqs` that the ray from `z` along `dir` crosses first, in
/// increasing order: those with the least `at_z_j / -slope_j` over the rows
/// it decreases (`at_z` holds each row's value at `z`, over `z`'s
/// denominator; the common factors cancel in the comparison). `None` when
/// it crosses none, or when a product leaves `i128`.
fn first_crossed(n: usize, ineqs: &[Vec<i64>], at_z: &[i128], dir: &[i128]) -> Option<Vec<usize>> {
    let mut first: Vec<usize> = Vec::new();
    let (mut fp, mut fq) = (0i128, 1i128);
    for (j, r) in ineqs.iter().enumerate() {
        let slope = dot(&r[..n], dir)?;
        if slope >= 0 {
            continue;
        }
        let (p, q) = (at_z[j], -slope);
        if first.is_empty() {
            (fp, fq) = (p, q);
            first.push(j);
            continue;
        }
        match cross_cmp(p, fq, fp, q)? {
            std::cmp::Ordering::Less => {
                (fp, fq) = (p, q);
                first.clear();
                first.push(j);
            }
            std::cmp::Ordering::Equal => first.push(j),
            std::cmp::Ordering::Greater => {}
        }
    }
    (!first.is_empty()).then_some(first)
}

/// Whether two rows, each positive at `z` (`at_a`, `at_b`: their values
/// there over one denominator), are positive multiples of each other on
/// the affine hull through `z` spanned by the columns of `basis` (all
/// directions when `None`): then they describe the same half-space of the
/// hull. `None` when a product leaves `i128`.
fn same_on_hull(
    n: usize,
    a: &[i64],
    b: &[i64],
    at_a: i128,
    at_b: i128,
    basis: Option<&[Vec<i128>]>,
) -> Option<bool> {
    let along = |r: &[i64]| -> Option<Vec<i128>> {
        match basis {
            None => Some(r[..n].iter().map(|&v| i128::from(v)).collect()),
            Some(cols) => cols.iter().map(|c| dot(&r[..n], c)).collect(),
        }
    };
    let (ra, rb) = (along(a)?, along(b)?);
    // ra / at_a == rb / at_b, the values at z positive.
    for (&x, &y) in ra.iter().zip(&rb) {
        if x.checked_mul(at_b)? != y.checked_mul(at_a)? {
            return Some(false);
        }
    }
    Some(at_a > 0 && at_b > 0)
}

/// `a·b` against `c·d` for nonnegative `i128`s, in 256 bits (`None` for a
/// negative one).
fn cross_cmp(a: i128, b: i128, c: i128, d: i128) -> Option<std::cmp::Ordering> {
    fn wide(x: u128, y: u128) -> (u128, u128) {
        let (x1, x0) = (x >> 64, x & u128::from(u64::MAX));
        let (y1, y0) = (y >> 64, y & u128::from(u64::MAX));
        let (lo, mid1, mid2, hi) = (x0 * y0, x1 * y0, x0 * y1, x1 * y1);
        let carry =
            ((lo >> 64) + (mid1 & u128::from(u64::MAX)) + (mid2 & u128::from(u64::MAX))) >> 64;
        let low = lo.wrapping_add(mid1 << 64).wrapping_add(mid2 << 64);
        (hi + (mid1 >> 64) + (mid2 >> 64) + carry, low)
    }
    let u = |v: i128| u128::try_from(v).ok();
    Some(wide(u(a)?, u(b)?).cmp(&wide(u(c)?, u(d)?)))
}

/// `vals` as integers over their least common (positive) denominator,
/// `None` when a product leaves `i128`.
fn over_common_den(vals: &[Rational]) -> Option<(Vec<i128>, i128)> {
    let mut den: i128 = 1;
    for v in vals {
        let g = gcd_u(den.unsigned_abs(), v.den().unsigned_abs()) as i128;
        den = (den / g).checked_mul(v.den())?;
    }
    let nums = vals
        .iter()
        .map(|v| v.num().checked_mul(den / v.den()))
        .collect::<Option<Vec<_>>>()?;
    Some((nums, den))
}

/// `a·b` for an integer row and an `i128` vector, `None` outside `i128`.
fn dot(a: &[i64], b: &[i128]) -> Option<i128> {
    a.iter().zip(b).try_fold(0i128, |s, (&x, &y)| {
        s.checked_add(i128::from(x).checked_mul(y)?)
    })
}

/// A point of a polyhedron's relative interior, and its affine hull.
struct Interior {
    /// The point, as integers over `den` (positive).
    z: Vec<i128>,
    den: i128,
    /// Which rows are implicit equalities (zero on the whole polyhedron,
    /// with a variable); every other row with a variable is positive at
    /// `z`.
    equal: Vec<bool>,
    /// The directions of the affine hull (an integer basis, as columns),
    /// or `None` when it is the whole space.
    basis: Option<Vec<Vec<i128>>>,
}

/// A point of the relative interior of `{x : eqs·(x,1) = 0, ineqs·(x,1) >=
/// 0}` and the polyhedron's implicit equalities, or `None` when it is
/// empty (or a product leaves `i128`).
///
/// The vertex `v` of one LP (the largest `t <= 1` with every row `>= t`).
/// When that `t` is 0, the implicit equalities are among the rows zero at
/// `v`: each of those is maximized (up to 1) in turn, and either it is
/// positive somewhere, at a point that also clears every other one
/// positive there, or it is an implicit equality. The mean of `v` and
/// those points is positive on every other row. It is then moved by a
/// fixed pseudo-random `w / (d·k)` within the hull, `k` large enough that
/// every row stays positive: at the vertex many rows have the same value,
/// and segments from it would cross several at once.
fn relative_interior(n: usize, eqs: &[Vec<i64>], ineqs: &[Vec<i64>]) -> Result<Option<Interior>> {
    let m = ineqs.len();
    // Unknowns (x, t): a_i·x + b_i - t >= 0, 1 - t >= 0; min -t.
    let mut rows: Vec<Vec<i64>> = ineqs
        .iter()
        .map(|r| {
            let mut w = r[..n].to_vec();
            w.extend([-1, r[n]]);
            w
        })
        .collect();
    let mut top = vec![0i64; n + 2];
    top[n] = -1;
    top[n + 1] = 1;
    rows.push(top);
    let teqs: Vec<Vec<i64>> = eqs
        .iter()
        .map(|r| {
            let mut w = r[..n].to_vec();
            w.extend([0, r[n]]);
            w
        })
        .collect();
    let mut obj = vec![0i64; n + 2];
    obj[n] = -1;
    let mut lp = LpSolver::from_rows(n + 1, dictionary(n + 1, &teqs, &rows)?, true)?;
    // The minimum of -t.
    let (neg_t, v) = match lp.min(&obj)? {
        Optimum::Bounded(found) => found,
        _ => return Ok(None),
    };
    if neg_t.signum() > 0 {
        return Ok(None);
    }
    let value = |r: &[i64], x: &[Rational]| -> Option<Rational> {
        r[..n]
            .iter()
            .zip(x)
            .try_fold(Rational::from_int(r[n]), |s, (&a, xk)| {
                s.add(&xk.mul(&Rational::from_int(a)).ok()?).ok()
            })
    };
    let mut equal = vec![false; m];
    let mut points: Vec<Vec<Rational>> = vec![v[..n].to_vec()];
    if neg_t.signum() == 0 {
        let mut zero: Vec<usize> = Vec::new();
        for (j, r) in ineqs.iter().enumerate() {
            let Some(x) = value(r, &v[..n]) else {
                return Ok(None);
            };
            // (A row without a variable, 0 >= 0, is no equality.)
            if x.signum() == 0 && r[..n].iter().any(|&a| a != 0) {
                zero.push(j);
            }
        }
        // One phase 1 for the system; each candidate's LP grows from it by
        // its cap.
        if !zero.is_empty() {
            let base = LpSolver::from_rows(n, dictionary(n, eqs, ineqs)?, true)?;
            while let Some(&j) = zero.first() {
                super::budget::check()?;
                // Maximize row j under the cap row_j <= 1.
                let neg: Vec<i64> = ineqs[j].iter().map(|&a| -a).collect();
                let mut cap = neg.clone();
                cap[n] = cap[n].checked_add(1).ok_or(MathError::Overflow)?;
                let mut lp = base.clone();
                lp.add_ineq(&cap)?;
                match lp.min(&neg)? {
                    Optimum::Bounded((top, x)) if top.signum() < 0 => {
                        let mut still = Vec::with_capacity(zero.len());
                        for &k in &zero {
                            let Some(y) = value(&ineqs[k], &x) else {
                                return Ok(None);
                            };
                            if y.signum() == 0 {
                                still.push(k);
                            }
                        }
                        zero = still;
                        points.push(x);
                    }
                    Optimum::Bounded(_) => {
                        equal[j] = true;
                        zero.remove(0);
                    }
                    _ => return Ok(None),
                }
            }
        }
    }
    // The mean of the points, as integers over one denominator.
    let all: Vec<Rational> = points.concat();
    let Some((nums, den)) = over_common_den(&all) else {
        return Ok(None);
    };
    let mut zi = vec![0i128; n];
    for p in nums.chunks(n) {
        for (s, &x) in zi.iter_mut().zip(p) {
            let Some(y) = s.checked_add(x) else {
                return Ok(None);
            };
            *s = y;
        }
    }
    let Some(d) = den.checked_mul(points.len() as i128) else {
        return Ok(None);
    };
    // The hull's directions: the kernel of the equalities' coefficients.
    let lin: Vec<Vec<i64>> = eqs
        .iter()
        .chain((0..m).filter(|&j| equal[j]).map(|j| &ineqs[j]))
        .map(|r| r[..n].to_vec())
        .collect();
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut draw = || {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        i128::from((seed >> 24) as i64 % 2_000_001 - 1_000_000)
    };
    let (w, basis) = if lin.is_empty() {
        ((0..n).map(|_| draw()).collect::<Vec<i128>>(), None)
    } else {
        let ch = super::matrix::column_hermite(&lin, n)?;
        let cols: Vec<Vec<i128>> = (ch.rank..n)
            .map(|c| (0..n).map(|r| i128::from(ch.u[r][c])).collect())
            .collect();
        // Smaller steps than in the whole space: the mean's denominator is
        // already large, and a kept row's slope times its value at z must
        // stay within i128.
        let mut w = vec![0i128; n];
        for c in &cols {
            let f = draw() / 1000;
            for (wk, &ck) in w.iter_mut().zip(c) {
                let Some(y) = ck.checked_mul(f).and_then(|y| y.checked_add(*wk)) else {
                    return Ok(None);
                };
                *wk = y;
            }
        }
        (w, Some(cols))
    };
    // Each other row's value at the mean times d is a positive integer, so
    // k·that > |a·w| keeps it positive at (k·zi + w) / (k·d); a·w is zero
    // on the hull's equalities.
    let mut k: i128 = 1;
    for r in ineqs {
        let Some(aw) = dot(&r[..n], &w) else {
            return Ok(None);
        };
        k = k.max(aw.abs().saturating_mul(2).saturating_add(1));
    }
    let mut out = Vec::with_capacity(n);
    for (x, wk) in zi.iter().zip(&w) {
        let Some(v) = x.checked_mul(k).and_then(|v| v.checked_add(*wk)) else {
            return Ok(None);
        };
        out.push(v);
    }
    let Some(den) = d.checked_mul(k) else {
        return Ok(None);
    };
    let g = out
        .iter()
        .fold(den.unsigned_abs(), |g, v| gcd_u(g, v.unsigned_abs())) as i128;
    Ok(Some(Interior {
        z: out.iter().map(|v| v / g).collect(),
        den: den / g,
        equal,
        basis,
    }))
}

/// The optimum value of [`lp_min`], without its vertex: the pivots go by
/// Dantzig's rule first, far fewer on large systems (the value is the same
/// whatever the pivots).
pub fn lp_min_value(
    n: usize,
    eqs: &[Vec<i64>],
    ineqs: &[Vec<i64>],
    obj: &[i64],
) -> Result<Optimum<Rational>> {
    if obj.len() != n + 1 {
        return Err(MathError::Space(
            "objective length differs from n + 1".into(),
        ));
    }
    let mut solver = LpSolver::from_rows(n, dictionary(n, eqs, ineqs)?, true)?;
    Ok(match solver.min(obj)? {
        Optimum::Bounded((v, _)) => Optimum::Bounded(v),
        Optimum::Unbounded => Optimum::Unbounded,
        Optimum::Empty => Optimum::Empty,
    })
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

    /// A random system in 3 variables: the box `-5 <= x_j <= 5`, three
    /// cuts with coefficients in `-cut..=cut`, and, when a draw in
    /// `-eq_odds..=eq_odds` is 0, an equality with coefficients in
    /// `-eq..=eq`. Returns `(eqs, ineqs)`.
    fn box_system(
        seed: &mut u64,
        cut: i64,
        eq_odds: i64,
        eq: i64,
    ) -> (Vec<Vec<i64>>, Vec<Vec<i64>>) {
        let n = 3;
        let mut ineqs = Vec::new();
        for j in 0..n {
            for sgn in [1, -1] {
                let mut row = vec![0; n + 1];
                row[j] = sgn;
                row[n] = 5;
                ineqs.push(row);
            }
        }
        for _ in 0..3 {
            ineqs.push((0..=n).map(|_| lcg(seed, cut)).collect());
        }
        let eqs = if lcg(seed, eq_odds) == 0 {
            vec![(0..=n).map(|_| lcg(seed, eq)).collect()]
        } else {
            Vec::new()
        };
        (eqs, ineqs)
    }

    /// [`implied_rows`] one LP per row: the reference.
    fn implied_one_lp_each(n: usize, eqs: &[Vec<i64>], ineqs: &[Vec<i64>]) -> Option<Vec<bool>> {
        if let Optimum::Empty = lp_min(n, eqs, ineqs, &vec![0; n + 1]).unwrap() {
            return None;
        }
        let mut implied = vec![false; ineqs.len()];
        for i in (0..ineqs.len()).rev() {
            let others: Vec<Vec<i64>> = (0..ineqs.len())
                .filter(|&k| k != i && !implied[k])
                .map(|k| ineqs[k].clone())
                .collect();
            if let Optimum::Bounded(v) = lp_min_value(n, eqs, &others, &ineqs[i]).unwrap() {
                implied[i] = v.signum() >= 0;
            }
        }
        Some(implied)
    }

    /// Rows in lowest terms (as Fourier-Motzkin gives them).
    fn lowest_terms(mut r: Vec<i64>) -> Vec<i64> {
        let g = crate::math::int::gcd_slice(&r).unwrap();
        if g > 1 {
            r.iter_mut().for_each(|v| *v /= g);
        }
        r
    }

    /// A random polyhedron in `n` variables with an interior, most of its
    /// rows implied (nonnegative combinations of others with a looser
    /// constant, as Fourier-Motzkin makes them), and a point inside it:
    /// for even rounds a cone `x_j >= 0` with random rows through the
    /// origin and a bound `sum(x) <= 20` (a Farkas system; positive at
    /// `(1, ..., 1)`), for odd ones the box `-6 <= x_j <= 6` with cuts
    /// (positive at the origin).
    fn cone_or_box(seed: &mut u64, round: usize, n: usize) -> (Vec<Vec<i64>>, Vec<i64>) {
        let mut ineqs: Vec<Vec<i64>> = Vec::new();
        let inside = if round.is_multiple_of(2) {
            for j in 0..n {
                let mut r = vec![0; n + 1];
                r[j] = 1;
                ineqs.push(r);
            }
            let mut top = vec![-1; n + 1];
            top[n] = 20;
            ineqs.push(top);
            while ineqs.len() < n + 5 {
                let mut r: Vec<i64> = (0..n).map(|_| lcg(seed, 3)).collect();
                if r.iter().sum::<i64>() > 0 {
                    r.push(0);
                    ineqs.push(r);
                }
            }
            vec![1; n]
        } else {
            for j in 0..n {
                for sgn in [1, -1] {
                    let mut r = vec![0; n + 1];
                    r[j] = sgn;
                    r[n] = 6;
                    ineqs.push(r);
                }
            }
            for _ in 0..4 {
                let mut r: Vec<i64> = (0..n).map(|_| lcg(seed, 3)).collect();
                r.push(4 + lcg(seed, 3).abs());
                ineqs.push(r);
            }
            vec![0; n]
        };
        for _ in 0..12 {
            let a = (lcg(seed, 50) + 50) as usize % ineqs.len();
            let b = (lcg(seed, 50) + 50) as usize % ineqs.len();
            let (p, q) = (1 + lcg(seed, 2).abs(), 1 + lcg(seed, 2).abs());
            let mut sum: Vec<i64> = ineqs[a]
                .iter()
                .zip(&ineqs[b])
                .map(|(x, y)| p * x + q * y)
                .collect();
            sum[n] += lcg(seed, 2).abs();
            ineqs.push(sum);
        }
        (ineqs, inside)
    }

    /// Clarkson's answer on `rows` (no equalities), when it decides:
    /// checked against one LP per row, as are the rows it marks needed
    /// (decided or not) and the answer of [`implied_rows`].
    fn clarkson_against_one_lp_each(n: usize, rows: &[Vec<i64>]) -> Option<Vec<bool>> {
        let want = implied_one_lp_each(n, &[], rows).expect("nonempty");
        let mut needed = vec![false; rows.len()];
        let got = clarkson(n, &[], rows, &mut needed).unwrap();
        if let Some(got) = &got {
            assert_eq!(*got, want, "{rows:?}");
        }
        for (i, _) in needed.iter().enumerate().filter(|(_, f)| **f) {
            assert!(!want[i], "row {i} marked needed: {rows:?}");
        }
        assert_eq!(implied_rows(n, &[], rows).unwrap(), Some(want));
        got
    }

    #[test]
    fn clarkson_decides_systems_with_an_interior() {
        // Random polyhedra with an interior, in lowest terms, most of
        // their rows implied (nonnegative combinations of others with a
        // looser constant, as Fourier-Motzkin makes them): cones through
        // the origin cut by a bound (Farkas systems) and bounded boxes
        // with cuts, in 5 variables. Clarkson's LPs decide them (no tie
        // from the perturbed interior point) with the answer of one LP per
        // row; the rows it marks needed are needed.
        let mut seed = 7u64;
        let (mut decided, mut implied_seen, mut kept_seen) = (0, 0, 0);
        for round in 0..200 {
            let n = 5;
            let (ineqs, _) = cone_or_box(&mut seed, round, n);
            let mut rows: Vec<Vec<i64>> = ineqs.into_iter().map(lowest_terms).collect();
            rows.retain(|r| r[..n].iter().any(|&v| v != 0));
            rows.sort();
            rows.dedup_by(|later, first| later[..n] == first[..n]);
            if let Some(got) = clarkson_against_one_lp_each(n, &rows) {
                decided += 1;
                implied_seen += got.iter().filter(|f| **f).count();
                kept_seen += got.iter().filter(|f| !**f).count();
            }
        }
        assert!(decided >= 195, "{decided}");
        assert!(implied_seen > 1000, "{implied_seen}");
        assert!(kept_seen > 500, "{kept_seen}");
    }

    /// A cone in `n` variables through the origin, positive at `(1, ...,
    /// 1)`: `rows` random rows through the apex (a Farkas system's
    /// projection, most of them facets), and the bound `sum(x) <= 20`.
    fn apex_cone(seed: &mut u64, n: usize, rows: usize) -> Vec<Vec<i64>> {
        let mut ineqs = Vec::new();
        let mut top = vec![-1; n + 1];
        top[n] = 20;
        ineqs.push(top);
        while ineqs.len() < rows + 1 {
            let mut r: Vec<i64> = (0..n).map(|_| lcg(seed, 4)).collect();
            if r.iter().sum::<i64>() > 0 {
                r.push(0);
                ineqs.push(lowest_terms(r));
            }
        }
        ineqs.sort();
        ineqs.dedup_by(|later, first| later[..n] == first[..n]);
        ineqs
    }

    #[test]
    fn scaled_and_floor_tests_agree() {
        // Row i against random subsets of the other rows of cone_or_box's
        // polyhedra and of cones with many rows through the apex: the
        // feasibility test scaled by t (by constraint generation, and as
        // one LP over all the kept rows) and the LP with a floor (without a
        // pivot cap) all decide it, alike, and the ray each gives leaves
        // the kept rows after row i turns negative, if at all (what
        // clarkson needs: the row it crosses first is not a kept one).
        let mut seed = 23u64;
        let (mut implied_seen, mut leaves_seen, mut stalled, mut generated) = (0, 0, 0, 0);
        for round in 0..120 {
            let n = if round % 3 == 2 { 6 } else { 5 };
            let rows: Vec<Vec<i64>> = if round % 3 == 2 {
                apex_cone(&mut seed, n, 40)
            } else {
                cone_or_box(&mut seed, round, n)
                    .0
                    .into_iter()
                    .map(lowest_terms)
                    .collect()
            };
            let inside = relative_interior(n, &[], &rows)
                .unwrap()
                .expect("an interior");
            let (z, zden) = (&inside.z, inside.den);
            let at_z = |r: &[i64]| dot(&r[..n], z).unwrap() + i128::from(r[n]) * zden;
            let mut mark = vec![false; rows.len()];
            let norms: Vec<f64> = rows.iter().map(|r| norm(r)).collect();
            for i in 0..rows.len() {
                let kept_at: Vec<usize> = (0..rows.len())
                    .filter(|&j| j != i && lcg(&mut seed, 2) >= 0)
                    .collect();
                let kept: Vec<&[i64]> = kept_at.iter().map(|&j| rows[j].as_slice()).collect();
                let scaled =
                    scaled_test(n, &[], &rows, &norms, &kept_at, i, z, zden, &mut mark).unwrap();
                assert!(mark.iter().all(|&m| !m));
                if kept.len() > n + 1 {
                    generated += 1;
                }
                // One LP over all kept rows.
                let whole = scaled_point(n, &[], &kept, &rows[i])
                    .unwrap()
                    .test(n, z, zden);
                let floor = floor_test(n, &[], &kept, &rows[i], z, zden, u64::MAX).unwrap();
                let cap = STALL_PIVOTS * (n as u64 + 1);
                if matches!(
                    floor_test(n, &[], &kept, &rows[i], z, zden, cap).unwrap(),
                    RowTest::Stalled
                ) {
                    stalled += 1;
                }
                match (&scaled, &whole, &floor) {
                    (RowTest::Implied, RowTest::Implied, RowTest::Implied) => implied_seen += 1,
                    (RowTest::Leaves(a), RowTest::Leaves(b), RowTest::Leaves(c)) => {
                        leaves_seen += 1;
                        for dir in [a, b, c] {
                            // Crossings at s = at_z / -slope, compared
                            // crosswise (the values at z are positive).
                            let slope = |r: &[i64]| dot(&r[..n], dir).unwrap();
                            let si = slope(&rows[i]);
                            assert!(si < 0, "{rows:?} {i}");
                            for r in &kept {
                                let sj = slope(r);
                                assert!(
                                    sj >= 0 || at_z(&rows[i]) * -sj < at_z(r) * -si,
                                    "{rows:?} {i}"
                                );
                            }
                        }
                    }
                    _ => panic!("differ on row {i} of {rows:?}"),
                }
            }
        }
        assert!(implied_seen > 500, "{implied_seen}");
        assert!(leaves_seen > 500, "{leaves_seen}");
        // Most rows are asked of more kept rows than the first LP takes.
        assert!(generated > 1000, "{generated}");
        // The capped LP stalls on some of the cones' rows.
        assert!(stalled > 0, "{stalled}");
    }

    #[test]
    fn clarkson_decides_cones_with_many_rows_through_the_apex() {
        // Where the LP with a floor stalls at the apex (in about a third
        // of these systems) and the rest of the rows go to the scaled
        // test: the answer of one LP per row.
        let mut seed = 29u64;
        let mut decided = 0;
        for _ in 0..20 {
            let n = 7;
            let rows = apex_cone(&mut seed, n, 80);
            if clarkson_against_one_lp_each(n, &rows).is_some() {
                decided += 1;
            }
        }
        assert!(decided >= 18, "{decided}");
    }

    /// Checks an answer of [`implied_rows`] against its contract, one LP
    /// per row: every row dropped is implied by the rows kept (with `eqs`),
    /// every implicit equality (a row with a variable that is zero on the
    /// whole polyhedron) is kept, and no other row kept is implied by the
    /// others kept. Returns the implicit equalities and the rows dropped.
    fn check_irredundant(
        n: usize,
        eqs: &[Vec<i64>],
        rows: &[Vec<i64>],
        got: &[bool],
    ) -> (usize, usize) {
        let neg = |r: &Vec<i64>| r.iter().map(|v| -v).collect::<Vec<i64>>();
        let kept: Vec<usize> = (0..rows.len()).filter(|&i| !got[i]).collect();
        let (mut equal_seen, mut implied_seen) = (0, 0);
        for (i, r) in rows.iter().enumerate() {
            let top = lp_min_value(n, eqs, rows, &neg(r)).unwrap();
            let equal = r[..n].iter().any(|&v| v != 0)
                && matches!(top, Optimum::Bounded(v) if v.signum() == 0);
            let others: Vec<Vec<i64>> = kept
                .iter()
                .filter(|&&k| k != i)
                .map(|&k| rows[k].clone())
                .collect();
            let by_others = lp_min_value(n, eqs, &others, r).unwrap();
            let implied = matches!(by_others, Optimum::Bounded(v) if v.signum() >= 0);
            if equal {
                equal_seen += 1;
                assert!(!got[i], "implicit equality {i} dropped: {eqs:?} {rows:?}");
            } else if got[i] {
                implied_seen += 1;
                assert!(implied, "row {i} dropped, not implied: {eqs:?} {rows:?}");
            } else {
                assert!(!implied, "row {i} kept, implied: {eqs:?} {rows:?}");
            }
        }
        (equal_seen, implied_seen)
    }

    #[test]
    fn clarkson_decides_systems_without_an_interior() {
        // The random polyhedra of cone_or_box, cut down to a hyperplane
        // (or two) through an interior point: given as an equality, or as
        // rows whose sum is zero (f >= 0 and -f >= 0, or f >= 0, g >= 0
        // and -(f + g) >= 0: implicit equalities). Some rows are repeated
        // plus a multiple of f: equal to them on the hull, crossed with
        // them at once. Clarkson's LPs decide them, and the answer keeps
        // the polyhedron (each row dropped is implied by the rows kept),
        // keeps every implicit equality, and keeps no other row that the
        // others kept imply; implied_rows gives the same answer.
        let mut seed = 19u64;
        let (mut decided, mut equal_seen, mut implied_seen) = (0, 0, 0);
        for round in 0..200 {
            let n = 5;
            let (mut ineqs, inside) = cone_or_box(&mut seed, round, n);
            // Forms zero at the interior point.
            let mut form = || -> Vec<i64> {
                loop {
                    let mut f: Vec<i64> = (0..n).map(|_| lcg(&mut seed, 2)).collect();
                    if f.iter().any(|&v| v != 0) {
                        f.push(-f.iter().zip(&inside).map(|(a, b)| a * b).sum::<i64>());
                        return f;
                    }
                }
            };
            let f = form();
            let neg = |r: &Vec<i64>| r.iter().map(|v| -v).collect::<Vec<i64>>();
            let mut eqs: Vec<Vec<i64>> = Vec::new();
            match round % 3 {
                0 => eqs.push(f.clone()),
                1 => {
                    ineqs.push(f.clone());
                    ineqs.push(neg(&f));
                }
                _ => {
                    let g = form();
                    let sum: Vec<i64> = f.iter().zip(&g).map(|(a, b)| a + b).collect();
                    ineqs.push(f.clone());
                    ineqs.push(g);
                    ineqs.push(neg(&sum));
                }
            }
            // Rows equal on the hull to others.
            for _ in 0..6 {
                let a = (lcg(&mut seed, 50) + 50) as usize % ineqs.len();
                let l = lcg(&mut seed, 2);
                let twin: Vec<i64> = ineqs[a].iter().zip(&f).map(|(x, y)| x + l * y).collect();
                ineqs.push(twin);
            }
            let mut rows: Vec<Vec<i64>> = ineqs.into_iter().map(lowest_terms).collect();
            rows.retain(|r| r[..n].iter().any(|&v| v != 0));
            rows.sort();
            rows.dedup_by(|later, first| later[..n] == first[..n]);
            let mut needed = vec![false; rows.len()];
            let Some(got) = clarkson(n, &eqs, &rows, &mut needed).unwrap() else {
                continue;
            };
            decided += 1;
            assert_eq!(implied_rows(n, &eqs, &rows).unwrap(), Some(got.clone()));
            let (equal, implied) = check_irredundant(n, &eqs, &rows, &got);
            equal_seen += equal;
            implied_seen += implied;
        }
        assert!(decided >= 190, "{decided}");
        assert!(equal_seen > 200, "{equal_seen}");
        assert!(implied_seen > 1000, "{implied_seen}");
    }

    #[test]
    fn cross_products_compare_past_i128() {
        let big = i128::MAX / 3;
        assert_eq!(
            cross_cmp(big, big, big, big),
            Some(std::cmp::Ordering::Equal)
        );
        assert_eq!(
            cross_cmp(big, big, big - 1, big),
            Some(std::cmp::Ordering::Greater)
        );
        assert_eq!(
            cross_cmp(big, big - 1, big, big),
            Some(std::cmp::Ordering::Less)
        );
        // (2^100 + 1)·2^100 against 2^100·(2^100 + 1) and its neighbours.
        let (p, q) = (1i128 << 100, (1i128 << 100) + 1);
        assert_eq!(cross_cmp(q, p, p, q), Some(std::cmp::Ordering::Equal));
        assert_eq!(cross_cmp(q, p, p, q + 1), Some(std::cmp::Ordering::Less));
        assert_eq!(cross_cmp(q + 1, p, p, q), Some(std::cmp::Ordering::Greater));
        // Small values agree with i128 products.
        let mut seed = 3u64;
        for _ in 0..1000 {
            let v: Vec<i128> = (0..4)
                .map(|_| i128::from(lcg(&mut seed, 1 << 40).abs()))
                .collect();
            assert_eq!(
                cross_cmp(v[0], v[1], v[2], v[3]),
                Some((v[0] * v[1]).cmp(&(v[2] * v[3])))
            );
        }
        assert_eq!(cross_cmp(-1, 1, 1, 1), None);
    }

    #[test]
    fn implied_rows_match_one_lp_per_row() {
        // Random systems in 4 variables (every third one with two unused
        // columns among them): random rows (some through the
        // origin, so that vertices are degenerate), rows implied by
        // construction (a sum of two rows with a looser constant, a row
        // repeated with a looser constant), an equality sometimes, bounded
        // or not: the rows one simplex finds implied are those one LP per
        // row finds, and the empty systems are the same.
        let mut seed = 11u64;
        let (mut implied_seen, mut kept_seen, mut empty_seen) = (0, 0, 0);
        let mut differ_seen = 0;
        for round in 0..300 {
            let n = 4;
            let mut ineqs: Vec<Vec<i64>> = Vec::new();
            let count = 4 + (lcg(&mut seed, 4) + 4) as usize;
            for _ in 0..count {
                let mut row: Vec<i64> = (0..=n).map(|_| lcg(&mut seed, 3)).collect();
                if lcg(&mut seed, 2) == 0 {
                    row[n] = 0;
                }
                ineqs.push(row);
                if ineqs.len() >= 2 && lcg(&mut seed, 2) == 0 {
                    let (a, b) = (&ineqs[ineqs.len() - 1], &ineqs[ineqs.len() - 2]);
                    let mut sum: Vec<i64> = a.iter().zip(b).map(|(x, y)| x + y).collect();
                    sum[n] += lcg(&mut seed, 2).abs();
                    ineqs.push(sum);
                }
                if lcg(&mut seed, 3) == 0 {
                    let mut again = ineqs[ineqs.len() - 1].clone();
                    again[n] += lcg(&mut seed, 2).abs();
                    ineqs.push(again);
                }
            }
            let eqs = if round % 4 == 0 {
                vec![(0..=n).map(|_| lcg(&mut seed, 2)).collect()]
            } else {
                Vec::new()
            };
            // Every third system over 6 columns, two of them unused.
            let (n, eqs, ineqs) = if round % 3 == 1 {
                let widen = |r: &Vec<i64>| {
                    let mut w = r.clone();
                    w.insert(4, 0);
                    w.insert(1, 0);
                    w
                };
                (
                    n + 2,
                    eqs.iter().map(widen).collect(),
                    ineqs.iter().map(widen).collect(),
                )
            } else {
                (n, eqs, ineqs)
            };
            let want = implied_one_lp_each(n, &eqs, &ineqs);
            let got = implied_rows(n, &eqs, &ineqs).unwrap();
            // The same answer, unless the polyhedron has implicit
            // equalities (then the contract holds).
            if got != want {
                let (Some(got), Some(_)) = (&got, &want) else {
                    panic!("{eqs:?} {ineqs:?}: {got:?} against {want:?}");
                };
                let (equal, _) = check_irredundant(n, &eqs, &ineqs, got);
                assert!(equal > 0, "{eqs:?} {ineqs:?}: {got:?} against {want:?}");
                differ_seen += 1;
            }
            match got {
                None => empty_seen += 1,
                Some(flags) => {
                    implied_seen += flags.iter().filter(|f| **f).count();
                    kept_seen += flags.iter().filter(|f| !**f).count();
                }
            }
        }
        // Every outcome was drawn often.
        assert!(implied_seen > 200, "{implied_seen}");
        assert!(kept_seen > 200, "{kept_seen}");
        assert!(empty_seen > 10, "{empty_seen}");
        assert!(differ_seen < 30, "{differ_seen}");
    }

    /// Asserts that `warm`, the optimum of `obj` from a solver reused or
    /// grown, is `fresh`, a new LP's over `eqs` and `ineqs`, and that a
    /// bounded one's vertex is a point of the system with that value.
    fn same_optimum(
        n: usize,
        eqs: &[Vec<i64>],
        ineqs: &[Vec<i64>],
        obj: &[i64],
        fresh: &Optimum<(Rational, Vec<Rational>)>,
        warm: &Optimum<(Rational, Vec<Rational>)>,
    ) {
        match (fresh, warm) {
            (Optimum::Bounded((a, _)), Optimum::Bounded((b, x))) => {
                assert_eq!(a, b);
                let at = |row: &[i64]| {
                    row[..n]
                        .iter()
                        .zip(x)
                        .try_fold(r(row[n]), |acc, (c, xi)| acc.add(&r(*c).mul(xi)?))
                };
                assert_eq!(at(obj).unwrap(), *b);
                assert!(ineqs.iter().all(|row| at(row).unwrap().signum() >= 0));
                assert!(eqs.iter().all(|row| at(row).unwrap().is_zero()));
            }
            _ => assert_eq!(fresh, warm),
        }
    }

    #[test]
    fn added_rows_match_a_fresh_solver() {
        // A solver for part of a random system, moved off its phase-1
        // basis by a first objective, then given the other rows one at a
        // time (an equality as two opposite rows; some rows on a variable
        // the first part leaves free, some making the system empty): every
        // optimum is the one a fresh LP over the whole system finds, and
        // every vertex a point of it.
        let mut seed = 11u64;
        let (mut bounded, mut empty, mut unbounded) = (0, 0, 0);
        for round in 0..400 {
            let n = 3;
            let (eqs, mut ineqs) = box_system(&mut seed, 4, 1, 2);
            // Every third system leaves x2 free in the first part.
            let free_x2 = round % 3 == 0;
            if free_x2 {
                ineqs.retain(|row| row[2] == 0);
            }
            let split = (lcg(&mut seed, 2) + 2) as usize;
            let (first, rest) = ineqs.split_at(split.min(ineqs.len()));
            let mut added: Vec<Vec<i64>> = rest.to_vec();
            for e in &eqs {
                added.push(e.clone());
                added.push(e.iter().map(|v| -v).collect());
            }
            if free_x2 {
                let mut row: Vec<i64> = (0..=n).map(|_| lcg(&mut seed, 3)).collect();
                row[2] = 1 + lcg(&mut seed, 1).abs();
                added.push(row);
            }
            let mut solver = LpSolver::new(n, &[], first).unwrap();
            let obj: Vec<i64> = (0..=n).map(|_| lcg(&mut seed, 3)).collect();
            solver.min(&obj).unwrap();
            for row in &added {
                solver.add_ineq(row).unwrap();
            }
            let all: Vec<Vec<i64>> = first.iter().chain(&added).cloned().collect();
            for _ in 0..6 {
                let obj: Vec<i64> = (0..=n).map(|_| lcg(&mut seed, 3)).collect();
                let fresh = lp_min(n, &[], &all, &obj).unwrap();
                let warm = solver.min(&obj).unwrap();
                same_optimum(n, &[], &all, &obj, &fresh, &warm);
                match fresh {
                    Optimum::Bounded(_) => bounded += 1,
                    Optimum::Empty => empty += 1,
                    Optimum::Unbounded => unbounded += 1,
                }
            }
        }
        // Each outcome is met often: the comparison is not vacuous.
        assert!(
            bounded > 1000 && empty > 100 && unbounded > 50,
            "{bounded} {empty} {unbounded}"
        );
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
            let (eqs, ineqs) = box_system(&mut seed, 4, 1, 2);
            let mut solver = LpSolver::new(n, &eqs, &ineqs).unwrap();
            for _ in 0..12 {
                let obj: Vec<i64> = (0..=n).map(|_| lcg(&mut seed, 3)).collect();
                let fresh = lp_min(n, &eqs, &ineqs, &obj).unwrap();
                let warm = solver.min(&obj).unwrap();
                same_optimum(n, &eqs, &ineqs, &obj, &fresh, &warm);
                bounded += usize::from(matches!(fresh, Optimum::Bounded(_)));
            }
        }
        // Most systems are feasible: the comparison is not vacuous.
        assert!(bounded > 300, "{bounded}");
    }

    /// The minimum of `obj` over a bounded system of 3 variables by
    /// enumerating its vertices: every choice of 3 tight rows (the
    /// equalities among them) with one solution (Cramer's rule), kept when
    /// it satisfies every row. `None` when the system is empty.
    fn vertex_min(eqs: &[Vec<i64>], ineqs: &[Vec<i64>], obj: &[i64]) -> Option<Rational> {
        let rows: Vec<&Vec<i64>> = eqs.iter().chain(ineqs).collect();
        let det3 = |m: [[Rational; 3]; 3]| -> Rational {
            let t = |a: Rational, b: Rational, c: Rational, d: Rational| {
                a.mul(&b).unwrap().sub(&c.mul(&d).unwrap()).unwrap()
            };
            m[0][0]
                .mul(&t(m[1][1], m[2][2], m[1][2], m[2][1]))
                .unwrap()
                .sub(&m[0][1].mul(&t(m[1][0], m[2][2], m[1][2], m[2][0])).unwrap())
                .unwrap()
                .add(&m[0][2].mul(&t(m[1][0], m[2][1], m[1][1], m[2][0])).unwrap())
                .unwrap()
        };
        let value = |row: &[i64], x: &[Rational]| {
            row[..3].iter().zip(x).fold(r(row[3]), |acc, (c, xi)| {
                acc.add(&r(*c).mul(xi).unwrap()).unwrap()
            })
        };
        let mut best: Option<Rational> = None;
        let k = rows.len();
        for a in 0..k {
            for b in a + 1..k {
                for c in b + 1..k {
                    let tight = [rows[a], rows[b], rows[c]];
                    if (0..eqs.len()).any(|e| ![a, b, c].contains(&e)) {
                        continue;
                    }
                    let m = tight.map(|row| [r(row[0]), r(row[1]), r(row[2])]);
                    let d = det3(m);
                    if d.is_zero() {
                        continue;
                    }
                    // Solve m·x = -constants.
                    let rhs = tight.map(|row| r(-row[3]));
                    let x: Vec<Rational> = (0..3)
                        .map(|j| {
                            let mut mj = m;
                            for i in 0..3 {
                                mj[i][j] = rhs[i];
                            }
                            det3(mj).div(&d).unwrap()
                        })
                        .collect();
                    let ok = ineqs.iter().all(|row| value(row, &x).signum() >= 0)
                        && eqs.iter().all(|row| value(row, &x).is_zero());
                    if ok {
                        let v = value(obj, &x);
                        if best.is_none_or(|b| v < b) {
                            best = Some(v);
                        }
                    }
                }
            }
        }
        best
    }

    #[test]
    fn optima_match_vertex_enumeration() {
        // Random bounded systems (a box of -5..5 in 3 variables, random
        // cuts, an equality sometimes): every LP optimum, fresh and from one
        // solver warm across objectives, is the least objective value over
        // the system's vertices.
        let mut seed = 11u64;
        let mut compared = 0;
        let mut bounded = 0;
        for _ in 0..80 {
            let n = 3;
            let (eqs, ineqs) = box_system(&mut seed, 5, 2, 3);
            let mut solver = LpSolver::new(n, &eqs, &ineqs).unwrap();
            for _ in 0..6 {
                let obj: Vec<i64> = (0..=n).map(|_| lcg(&mut seed, 4)).collect();
                let want = vertex_min(&eqs, &ineqs, &obj);
                for got in [
                    lp_min(n, &eqs, &ineqs, &obj).unwrap(),
                    solver.min(&obj).unwrap(),
                ] {
                    match (&got, want) {
                        (Optimum::Bounded((v, _)), Some(w)) => {
                            assert_eq!(*v, w);
                            bounded += 1;
                        }
                        (Optimum::Empty, None) => {}
                        _ => panic!("{got:?} against {want:?} for {eqs:?} {ineqs:?} {obj:?}"),
                    }
                }
                // The value alone, by Dantzig's rule first.
                match (lp_min_value(n, &eqs, &ineqs, &obj).unwrap(), want) {
                    (Optimum::Bounded(v), Some(w)) => assert_eq!(v, w),
                    (Optimum::Empty, None) => {}
                    (got, _) => panic!("{got:?} against {want:?}"),
                }
                compared += 1;
            }
        }
        assert_eq!(compared, 480);
        // Not vacuous: most systems have points.
        assert!(bounded > 400, "{bounded}");
    }
}
