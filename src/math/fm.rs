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

#[cfg(test)]
mod tests {
    use super::*;

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
