//! Fourier–Motzkin elimination of one column from integer constraint rows,
//! with integer exactness tracking.
//!
//! Rows follow the module layout (coefficients, then the constant;
//! inequalities mean `>= 0`). Elimination leaves the column at zero in every
//! row; callers remove it. Exactness over the integers (Pugh's Omega test,
//! CACM 1992): for a lower bound `a·v >= l(x)` and an upper bound
//! `b·v <= u(x)` (`a, b > 0`), an integer `v` exists iff
//! `⌈l/a⌉ <= ⌊u/b⌋`; when `a = 1` or `b = 1` this is the linear condition
//! `b·l <= a·u` that FM produces, so the real shadow equals the integer
//! projection. Example: eliminating `v` from `i <= v`, `2v <= j` is exact
//! (`2i <= j`); from `2v >= i`, `2v <= i` it is not (`i` must be even).

use super::ilp::{norm_ineq, Norm};
use super::int::{self, MathError, Result};
use super::Exactness;

/// Largest number of inequalities one elimination may produce.
pub const FM_ROW_LIMIT: usize = 4096;

/// Rows after eliminating one column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Eliminated {
    /// Equalities (column zero).
    pub eqs: Vec<Vec<i64>>,
    /// Inequalities (column zero).
    pub ineqs: Vec<Vec<i64>>,
    /// Whether no integer point was added.
    pub exactness: Exactness,
    /// Whether some row became infeasible (the input had no point).
    pub infeasible: bool,
}

/// Returns `p·r1 + q·r2` with checked arithmetic.
pub fn combine(r1: &[i64], p: i64, r2: &[i64], q: i64) -> Result<Vec<i64>> {
    r1.iter()
        .zip(r2)
        .map(|(a, b)| int::mul_add(p, *a, q, *b))
        .collect()
}

/// Returns whether FM on `col` is exact over the integers given only
/// inequalities (every lower/upper pair has a unit coefficient).
pub fn fm_is_exact(ineqs: &[Vec<i64>], col: usize) -> bool {
    let lows: Vec<i64> = ineqs.iter().map(|r| r[col]).filter(|v| *v > 0).collect();
    let ups: Vec<i64> = ineqs.iter().map(|r| -r[col]).filter(|v| *v > 0).collect();
    lows.iter().all(|a| *a == 1) || ups.iter().all(|b| *b == 1)
}

/// Eliminates column `col` by substitution through an equality if one
/// mentions it, otherwise by Fourier–Motzkin.
///
/// Substitution with coefficient `±1` is exact; with `|a| > 1` the lattice
/// condition `a | …` is dropped, so the result is `OverApprox`. FM pairs
/// every lower bound with every upper bound: `b·(lower) + a·(upper)`
/// cancels the column; rows are gcd-normalized and tightened afterwards,
/// which is valid because only integer points are of interest.
pub fn eliminate(eqs: &[Vec<i64>], ineqs: &[Vec<i64>], col: usize) -> Result<Eliminated> {
    super::budget::check()?;
    if eqs
        .iter()
        .chain(ineqs.iter())
        .any(|r| r.len() < 2 || col >= r.len() - 1)
    {
        return Err(MathError::Space(format!("column {col} out of range")));
    }
    let mut out = Eliminated {
        eqs: Vec::new(),
        ineqs: Vec::new(),
        exactness: Exactness::Exact,
        infeasible: false,
    };
    if let Some(k) = eqs.iter().position(|r| r[col] != 0) {
        let e = &eqs[k];
        let a = e[col];
        if a.abs() != 1 {
            out.exactness = Exactness::OverApprox;
        }
        let sgn = a.signum();
        let aa = int::abs(a)?;
        let subst = |r: &Vec<i64>| -> Result<Vec<i64>> {
            if r[col] == 0 {
                return Ok(r.clone());
            }
            combine(r, aa, e, int::neg(int::mul(sgn, r[col])?)?)
        };
        for (i, r) in eqs.iter().enumerate() {
            if i != k {
                out.eqs.push(subst(r)?);
            }
        }
        for r in ineqs {
            out.ineqs.push(subst(r)?);
        }
        finish(&mut out)?;
        return Ok(out);
    }
    out.eqs = eqs.to_vec();
    let (mut lows, mut ups) = (Vec::new(), Vec::new());
    for r in ineqs {
        match r[col].signum() {
            0 => out.ineqs.push(r.clone()),
            1 => lows.push(r),
            _ => ups.push(r),
        }
    }
    if !fm_is_exact(ineqs, col) {
        out.exactness = Exactness::OverApprox;
    }
    if lows.len() * ups.len() + out.ineqs.len() > FM_ROW_LIMIT {
        return Err(MathError::Limit("Fourier-Motzkin row count"));
    }
    for l in &lows {
        for u in &ups {
            let (a, b) = (l[col], int::neg(u[col])?);
            out.ineqs.push(combine(l, b, u, a)?);
        }
    }
    finish(&mut out)?;
    Ok(out)
}

fn finish(out: &mut Eliminated) -> Result<()> {
    let mut kept = Vec::with_capacity(out.ineqs.len());
    for r in &out.ineqs {
        match norm_ineq(r)? {
            Norm::Trivial => {}
            Norm::Infeasible => out.infeasible = true,
            Norm::Row(r) => {
                if !kept.contains(&r) {
                    kept.push(r)
                }
            }
        }
    }
    out.ineqs = kept;
    Ok(())
}

/// Rows over the rationals after [`project_rational`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Projected {
    /// Equalities (the eliminated columns zero).
    pub eqs: Vec<Vec<i64>>,
    /// Inequalities (the eliminated columns zero).
    pub ineqs: Vec<Vec<i64>>,
    /// Some row became infeasible: the polyhedron is empty.
    pub infeasible: bool,
}

/// Divides a row by the gcd of all its entries (the constant included):
/// the same rational half-space or hyperplane, no tightening.
fn scale_down(r: &mut [i64]) {
    if let Ok(g) = int::gcd_slice(r) {
        if g > 1 {
            r.iter_mut().for_each(|v| *v /= g);
        }
    }
}

/// Projects the columns `cols` out of the rational polyhedron
/// `{x : eqs = 0, ineqs >= 0}` (the result has those columns zero): the
/// exact rational shadow, as projections of systems whose variables are
/// rational (Farkas multipliers) need; rows are scaled, never tightened.
///
/// Equalities eliminate first, each through the equality that mentions the
/// fewest other columns still to eliminate. Then Fourier–Motzkin, on the
/// column whose lower and upper bounds make the fewest pairs, with
/// Chernikov's rule (Chernikov 1960, Kohler 1967; Imbert 1990): after `k`
/// eliminations a combination of more than `k + 1` of the rows the
/// Fourier–Motzkin phase started with is implied by the others, and is
/// dropped at birth. Example: eliminating `a` and then `b` from four rows
/// keeps only combinations of at most three of them; a fourth row's share
/// can always be traded for a sum of the others.
pub fn project_rational(eqs: &[Vec<i64>], ineqs: &[Vec<i64>], cols: &[usize]) -> Result<Projected> {
    project_rational_pruned(eqs, ineqs, cols, LP_PRUNE_ROWS)
}

/// [`project_rational`], pruning implied rows past `prune_at` rows.
fn project_rational_pruned(
    eqs: &[Vec<i64>],
    ineqs: &[Vec<i64>],
    cols: &[usize],
    prune_at: usize,
) -> Result<Projected> {
    let mut eqs = eqs.to_vec();
    let mut ineqs = ineqs.to_vec();
    let mut left: Vec<usize> = cols.to_vec();
    // Equalities first.
    loop {
        let pick = eqs
            .iter()
            .enumerate()
            .flat_map(|(e, r)| {
                left.iter()
                    .filter(move |&&c| r[c] != 0)
                    .map(move |&c| (e, c))
            })
            .min_by_key(|&(e, c)| {
                let others = left.iter().filter(|&&o| o != c && eqs[e][o] != 0).count();
                (others, eqs[e][c].abs() != 1)
            });
        let Some((e, col)) = pick else { break };
        let eq = eqs.swap_remove(e);
        let a = eq[col];
        let (aa, sgn) = (int::abs(a)?, a.signum());
        let subst = |r: &mut Vec<i64>| -> Result<()> {
            if r[col] != 0 {
                *r = combine(r, aa, &eq, int::neg(int::mul(sgn, r[col])?)?)?;
                scale_down(r);
            }
            Ok(())
        };
        for r in eqs.iter_mut().chain(ineqs.iter_mut()) {
            subst(r)?;
        }
        left.retain(|&c| c != col);
    }
    let mut out = Projected {
        eqs: Vec::new(),
        ineqs: Vec::new(),
        infeasible: false,
    };
    for r in eqs {
        let last = r.len() - 1;
        if r[..last].iter().all(|&v| v == 0) {
            out.infeasible |= r[last] != 0;
        } else {
            out.eqs.push(r);
        }
    }
    // Fourier–Motzkin with histories (bit sets of the phase's first rows).
    let words = ineqs.len().div_ceil(64).max(1);
    let mut rows: Vec<(Vec<i64>, Vec<u64>)> = ineqs
        .into_iter()
        .enumerate()
        .map(|(i, mut r)| {
            scale_down(&mut r);
            let mut h = vec![0u64; words];
            h[i / 64] |= 1 << (i % 64);
            (r, h)
        })
        .collect();
    let mut done = 0usize;
    // The rows an elimination of column c would make: its lower-upper
    // pairs that Chernikov's rule keeps (union of histories at most
    // done + 2 rows, done counting this step).
    let cost = |rows: &[(Vec<i64>, Vec<u64>)], c: usize, done: usize| -> usize {
        let lows: Vec<&Vec<u64>> = rows
            .iter()
            .filter(|(r, _)| r[c] > 0)
            .map(|(_, h)| h)
            .collect();
        let ups: Vec<&Vec<u64>> = rows
            .iter()
            .filter(|(r, _)| r[c] < 0)
            .map(|(_, h)| h)
            .collect();
        let mut n = 0;
        for hl in &lows {
            for hu in &ups {
                let size: u32 = hl
                    .iter()
                    .zip(hu.iter())
                    .map(|(x, y)| (x | y).count_ones())
                    .sum();
                n += usize::from(size as usize <= done + 2);
            }
        }
        n
    };
    while !left.is_empty() {
        super::budget::check()?;
        let cheapest = |rows: &[(Vec<i64>, Vec<u64>)], done: usize| {
            left.iter()
                .enumerate()
                .min_by_key(|(_, &c)| cost(rows, c, done))
                .map(|(pos, &c)| (pos, c))
                .expect("columns left")
        };
        let (mut pos, mut col) = cheapest(&rows, done);
        // Before a step that would still make many rows, the implied ones
        // go (as a new system: Chernikov's rule then counts from it
        // afresh, since a combination it drops is implied by other
        // combinations of the complete elimination, which the pruning may
        // have removed).
        if rows.len() > prune_at && cost(&rows, col, done) > PRUNE_PAIRS {
            let before = rows.len();
            rows = drop_implied(&out.eqs, rows)?;
            if rows.len() < before {
                let words = rows.len().div_ceil(64).max(1);
                for (i, (_, h)) in rows.iter_mut().enumerate() {
                    *h = vec![0u64; words];
                    h[i / 64] |= 1 << (i % 64);
                }
                done = 0;
                (pos, col) = cheapest(&rows, done);
            }
        }
        // The rows this step makes: the pairs Chernikov's rule keeps.
        let pairs = cost(&rows, col, done);
        left.remove(pos);
        done += 1;
        let (mut lows, mut ups, mut next) = (Vec::new(), Vec::new(), Vec::new());
        for (r, h) in rows {
            match r[col].signum() {
                0 => next.push((r, h)),
                1 => lows.push((r, h)),
                _ => ups.push((r, h)),
            }
        }
        if pairs + next.len() > FM_ROW_LIMIT * 4 {
            return Err(MathError::Limit("Fourier-Motzkin row count"));
        }
        for (l, hl) in &lows {
            for (u, hu) in &ups {
                let h: Vec<u64> = hl.iter().zip(hu).map(|(x, y)| x | y).collect();
                let size: u32 = h.iter().map(|w| w.count_ones()).sum();
                if size as usize > done + 1 {
                    continue; // Chernikov: implied by the others
                }
                let (a, b) = (l[col], int::neg(u[col])?);
                let mut r = combine(l, b, u, a)?;
                scale_down(&mut r);
                let last = r.len() - 1;
                if r[..last].iter().all(|&v| v == 0) {
                    if r[last] < 0 {
                        out.infeasible = true;
                    }
                    continue;
                }
                if !next.iter().any(|(x, _)| *x == r) {
                    next.push((r, h));
                }
            }
        }
        rows = next;
    }
    out.ineqs = rows.into_iter().map(|(r, _)| r).collect();
    Ok(out)
}

/// New rows past which [`project_rational`] first drops the rows the
/// others imply (one LP each), when it has more than [`LP_PRUNE_ROWS`]:
/// Chernikov's rule keeps only
/// combinations of few rows, but their number still grows exponentially
/// with the columns eliminated (a scalar written in a 4-deep nest: 16,000
/// rows at the fifth column without it).
const LP_PRUNE_ROWS: usize = 96;

/// See [`LP_PRUNE_ROWS`]: a step that would make more rows than this.
const PRUNE_PAIRS: usize = 1024;

/// The rows (with their histories) that the others and `eqs` do not imply
/// over the rationals (the minimum of the row over the others is negative),
/// asked from the last row to the first (of parallel rows, the tightest
/// first), by one simplex for all of them ([`super::simplex::implied_rows`]).
fn drop_implied(
    eqs: &[Vec<i64>],
    rows: Vec<(Vec<i64>, Vec<u64>)>,
) -> Result<Vec<(Vec<i64>, Vec<u64>)>> {
    let Some(first_history) = rows.first().map(|(_, h)| h.clone()) else {
        return Ok(rows);
    };
    let n = rows[0].0.len() - 1;
    // Of parallel rows, the tightest (a cheap first cut).
    let mut kept = rows;
    kept.sort_by(|a, b| a.0.cmp(&b.0));
    kept.dedup_by(|later, first| later.0[..n] == first.0[..n]);
    let all: Vec<Vec<i64>> = kept.iter().map(|(r, _)| r.clone()).collect();
    let Some(implied) = super::simplex::implied_rows(n, eqs, &all)? else {
        // An empty polyhedron: one infeasible row says it.
        let mut r = vec![0i64; n + 1];
        r[n] = -1;
        return Ok(vec![(r, first_history)]);
    };
    Ok(kept
        .into_iter()
        .zip(implied)
        .filter(|(_, gone)| !gone)
        .map(|(row, _)| row)
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rational_projection_keeps_the_shadow_and_drops_implied_rows() {
        // Columns (a, b, x, const): a >= 0, b >= 0, x - a - b >= 0,
        // 1 - a >= 0, 1 - b >= 0, 3 - x + a >= 0. Projected on x: x >= 0
        // (a = b = 0 reach it) and x <= 4 (x <= 3 + a, a <= 1).
        let ineqs = vec![
            vec![1, 0, 0, 0],
            vec![0, 1, 0, 0],
            vec![-1, -1, 1, 0],
            vec![-1, 0, 0, 1],
            vec![0, -1, 0, 1],
            vec![1, 0, -1, 3],
        ];
        let p = project_rational(&[], &ineqs, &[0, 1]).unwrap();
        assert!(!p.infeasible);
        let mut rows = p.ineqs.clone();
        rows.sort();
        rows.dedup();
        // Every row is over x alone; the shadow is 0 <= x <= 4.
        for r in &rows {
            assert_eq!(&r[..2], &[0, 0]);
        }
        let lo = rows
            .iter()
            .filter(|r| r[2] > 0)
            .map(|r| -r[3] as f64 / r[2] as f64)
            .fold(f64::MIN, f64::max);
        let hi = rows
            .iter()
            .filter(|r| r[2] < 0)
            .map(|r| r[3] as f64 / -r[2] as f64)
            .fold(f64::MAX, f64::min);
        assert_eq!((lo, hi), (0.0, 4.0));
        // Rows are scaled, not tightened: 2x - 1 >= 0 keeps its constant.
        let p = project_rational(&[], &[vec![2, 0, -1], vec![-2, 1, 0]], &[0]).unwrap();
        assert_eq!(p.ineqs, vec![vec![0, 1, -1]]);
        // An equality eliminates exactly: a = 2x, 0 <= a <= 3 gives
        // 0 <= x (scaled) and 2x <= 3 (not tightened to x <= 1).
        let p =
            project_rational(&[vec![1, -2, 0]], &[vec![1, 0, 0], vec![-1, 0, 3]], &[0]).unwrap();
        assert_eq!(p.ineqs, vec![vec![0, 1, 0], vec![0, -2, 3]]);
    }

    /// Naive Fourier–Motzkin over the rationals (every pair, no rule, no
    /// pruning): the reference for [`project_rational`].
    fn naive(ineqs: &[Vec<i64>], cols: &[usize]) -> Vec<Vec<i64>> {
        let mut rows = ineqs.to_vec();
        for &c in cols {
            let (lo, rest): (Vec<_>, Vec<_>) = rows.iter().cloned().partition(|r| r[c] > 0);
            let (up, mut next): (Vec<_>, Vec<_>) = rest.into_iter().partition(|r| r[c] < 0);
            for l in &lo {
                for u in &up {
                    next.push(combine(l, -u[c], u, l[c]).unwrap());
                }
            }
            rows = next;
        }
        rows
    }

    /// True when every row of `b` holds on `{a >= 0}` (rational LP), or
    /// `a` is empty.
    fn implies_all(n: usize, a: &[Vec<i64>], b: &[Vec<i64>]) -> bool {
        b.iter().all(
            |r| match crate::math::simplex::lp_min(n, &[], a, r).unwrap() {
                crate::math::Optimum::Bounded((v, _)) => v.signum() >= 0,
                crate::math::Optimum::Empty => true,
                crate::math::Optimum::Unbounded => false,
            },
        )
    }

    #[test]
    fn rational_projection_equals_the_naive_one_with_pruning() {
        // Random systems of 5-8 rows over 5 variables, 3 of them projected
        // out, pruned from 2 rows on so that Chernikov's rule runs on pruned
        // systems (where it must count afresh: counting from the first
        // rows dropped combinations that nothing left implied, and the
        // scheduler accepted an illegal hyperplane).
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |m: i64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % (2 * m as u64 + 1)) as i64 - m
        };
        for case in 0..2000 {
            let n = 5;
            let rows: Vec<Vec<i64>> = (0..5 + case % 4)
                .map(|_| {
                    (0..=n)
                        .map(|c| if c == n { next(4) } else { next(1) })
                        .collect()
                })
                .collect();
            let cols: Vec<usize> = vec![0, 1, 2];
            let got = project_rational_pruned(&[], &rows, &cols, 2).unwrap();
            let want = naive(&rows, &cols);
            let mut got_rows = got.ineqs.clone();
            if got.infeasible {
                let mut r = vec![0; n + 1];
                r[n] = -1;
                got_rows.push(r);
            }
            assert!(
                implies_all(n, &want, &got_rows),
                "case {case}: a row not implied (too tight)"
            );
            assert!(
                implies_all(n, &got_rows, &want),
                "case {case}: a row lost (unsound)"
            );
        }
    }

    #[test]
    fn exact_and_inexact() {
        // v >= i, 2v <= j  (cols: v, i, j, const)
        let e = eliminate(&[], &[vec![1, -1, 0, 0], vec![-2, 0, 1, 0]], 0).unwrap();
        assert_eq!(e.exactness, Exactness::Exact);
        assert_eq!(e.ineqs, vec![vec![0, -2, 1, 0]]);
        // 2v >= i, 2v <= i
        let e = eliminate(&[], &[vec![2, -1, 0], vec![-2, 1, 0]], 0).unwrap();
        assert_eq!(e.exactness, Exactness::OverApprox);
        assert!(e.ineqs.is_empty());
    }
}
