//! Integer matrices as `Vec<Vec<i64>>`: column Hermite form with its
//! unimodular transform, and the integer solution lattice of `E x + c = 0`.
//!
//! Invariant: every transform returned here is unimodular (determinant ±1),
//! so it maps the integer lattice onto itself; all arithmetic is checked.

use super::int::{self, MathError, Result};

/// Column echelon form `R·U = H` of an integer matrix.
#[derive(Clone, Debug)]
pub struct ColumnHermite {
    /// The echelon matrix `H` (same shape as `R`); columns `rank..` are zero.
    pub h: Vec<Vec<i64>>,
    /// The unimodular `n × n` transform `U`.
    pub u: Vec<Vec<i64>>,
    /// The rank of `R`.
    pub rank: usize,
    /// For each pivot column `j < rank`, the row holding its nonzero pivot.
    pub pivot_rows: Vec<usize>,
}

/// Returns the column echelon form of the `rows × n` matrix `r`.
///
/// Math: process rows top to bottom with pivot column `p`; for each column
/// `j > p` with `R[i][j] != 0`, replace columns `(p, j)` by
/// `(s·c_p + t·c_j, -(b/g)·c_p + (a/g)·c_j)` where `a = R[i][p]`,
/// `b = R[i][j]`, `s·a + t·b = g`. The 2×2 block `[[s, -b/g], [t, a/g]]`
/// has determinant `(s·a + t·b)/g = 1`, so `U` stays unimodular, and row
/// `i` ends up with a single nonzero `g` at column `p`. Later steps touch
/// only columns `> p`, which are zero in earlier rows, so `H` is lower
/// echelon. Example: `R = [2 3]` gives `H = [1 0]`, `U = [[-1, -3], [1, 2]]`.
pub fn column_hermite(r: &[Vec<i64>], n: usize) -> Result<ColumnHermite> {
    let mut h: Vec<Vec<i64>> = r.to_vec();
    let mut u: Vec<Vec<i64>> = (0..n)
        .map(|i| (0..n).map(|j| i64::from(i == j)).collect())
        .collect();
    let mut p = 0;
    let mut pivot_rows = Vec::new();
    for i in 0..h.len() {
        if p == n {
            break;
        }
        for j in p + 1..n {
            let b = h[i][j];
            if b == 0 {
                continue;
            }
            let a = h[i][p];
            let (g, s, t) = int::ext_gcd(a, b)?;
            let (bg, ag) = (b / g, a / g);
            combine_cols(&mut h, p, j, s, t, bg, ag)?;
            combine_cols(&mut u, p, j, s, t, bg, ag)?;
        }
        if h[i][p] != 0 {
            if h[i][p] < 0 {
                for row in h.iter_mut().chain(u.iter_mut()) {
                    row[p] = int::neg(row[p])?;
                }
            }
            pivot_rows.push(i);
            p += 1;
        }
    }
    Ok(ColumnHermite {
        h,
        u,
        rank: p,
        pivot_rows,
    })
}

fn combine_cols(
    m: &mut [Vec<i64>],
    p: usize,
    j: usize,
    s: i64,
    t: i64,
    bg: i64,
    ag: i64,
) -> Result<()> {
    for row in m.iter_mut() {
        let (cp, cj) = (row[p], row[j]);
        row[p] = int::mul_add(s, cp, t, cj)?;
        row[j] = int::mul_add(-bg, cp, ag, cj)?;
    }
    Ok(())
}

/// Returns `acc + a*b` in i128, or `Overflow`.
pub fn fma(acc: i128, a: i64, b: i64) -> Result<i128> {
    acc.checked_add(a as i128 * b as i128)
        .ok_or(MathError::Overflow)
}

/// Integer solutions of `E x + c = 0` as `x = x0 + V z` for all integer `z`.
#[derive(Clone, Debug)]
pub struct Lattice {
    /// A particular integer solution.
    pub x0: Vec<i64>,
    /// Generator columns, stored row-major as `n × k`.
    pub v: Vec<Vec<i64>>,
}

/// Solves `E x + c = 0` over the integers; rows hold `n` coefficients then `c`.
///
/// Math: with `E U = H` (column Hermite), `x = U y` turns the system into
/// `H y = -c`, which is lower echelon in the first `rank` coordinates:
/// forward substitution fixes `y_1` (each pivot division must be exact,
/// and rows without a pivot must vanish), while `y_2` stays free. Since
/// `U` is unimodular, integer `y` and integer `x` correspond one to one.
/// Returns `Ok(None)` when there is no integer solution.
pub fn solve_equalities(eqs: &[Vec<i64>], n: usize) -> Result<Option<Lattice>> {
    let e: Vec<Vec<i64>> = eqs.iter().map(|r| r[..n].to_vec()).collect();
    let ch = column_hermite(&e, n)?;
    let mut y = vec![0i64; ch.rank];
    let mut next = 0;
    for (i, row) in ch.h.iter().enumerate() {
        let mut s = -(eqs[i][n] as i128);
        for (j, yj) in y.iter().enumerate().take(next) {
            s = s
                .checked_sub(row[j] as i128 * *yj as i128)
                .ok_or(MathError::Overflow)?;
        }
        if next < ch.rank && ch.pivot_rows[next] == i {
            let piv = row[next] as i128;
            if s % piv != 0 {
                return Ok(None);
            }
            y[next] = int::narrow(s / piv)?;
            next += 1;
        } else if s != 0 {
            return Ok(None);
        }
    }
    let mut x0 = vec![0i64; n];
    for (i, x) in x0.iter_mut().enumerate() {
        let mut acc: i128 = 0;
        for (j, yj) in y.iter().enumerate() {
            acc = fma(acc, ch.u[i][j], *yj)?;
        }
        *x = int::narrow(acc)?;
    }
    let v = (0..n).map(|i| ch.u[i][ch.rank..].to_vec()).collect();
    Ok(Some(Lattice { x0, v }))
}

/// Returns `row · (x0 + V z) + c` rewritten as a row over `z` (then constant).
pub fn substitute_lattice(row: &[i64], lat: &Lattice) -> Result<Vec<i64>> {
    let n = lat.x0.len();
    let k = lat.v.first().map_or(0, |r| r.len());
    let mut out = vec![0i64; k + 1];
    for (j, o) in out.iter_mut().enumerate().take(k) {
        let mut acc: i128 = 0;
        for (r, v) in row[..n].iter().zip(&lat.v) {
            acc = fma(acc, *r, v[j])?;
        }
        *o = int::narrow(acc)?;
    }
    let mut c: i128 = row[n] as i128;
    for (r, x) in row[..n].iter().zip(&lat.x0) {
        c = fma(c, *r, *x)?;
    }
    out[k] = int::narrow(c)?;
    Ok(out)
}

/// Returns `x0 + V z`.
pub fn lattice_point(lat: &Lattice, z: &[i64]) -> Result<Vec<i64>> {
    let mut x = Vec::with_capacity(lat.x0.len());
    for (i, x0) in lat.x0.iter().enumerate() {
        let mut acc = *x0 as i128;
        for (j, zj) in z.iter().enumerate() {
            acc = fma(acc, lat.v[i][j], *zj)?;
        }
        x.push(int::narrow(acc)?);
    }
    Ok(x)
}

/// Returns `M · x` for a row-major matrix and an integer vector.
pub fn mat_vec(m: &[Vec<i64>], x: &[i64]) -> Result<Vec<i64>> {
    m.iter()
        .map(|row| {
            let mut acc: i128 = 0;
            for (a, b) in row.iter().zip(x) {
                acc = fma(acc, *a, *b)?;
            }
            int::narrow(acc)
        })
        .collect()
}

/// Returns the row `row[..n] · U` followed by the unchanged constant `row[n]`.
pub fn row_times(row: &[i64], u: &[Vec<i64>]) -> Result<Vec<i64>> {
    let n = u.len();
    if row.len() != n + 1 {
        return Err(MathError::Internal("row length mismatch"));
    }
    let mut out = vec![0i64; n + 1];
    for (j, o) in out.iter_mut().enumerate().take(n) {
        let mut acc: i128 = 0;
        for i in 0..n {
            acc = fma(acc, row[i], u[i][j])?;
        }
        *o = int::narrow(acc)?;
    }
    out[n] = row[n];
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hermite_small() {
        let r = vec![vec![2, 3, 4], vec![1, 1, 1]];
        let ch = column_hermite(&r, 3).unwrap();
        assert_eq!(ch.rank, 2);
        for (i, row) in r.iter().enumerate() {
            let got = row_times(&[row.clone(), vec![0]].concat(), &ch.u).unwrap();
            assert_eq!(&got[..3], &ch.h[i][..]);
        }
        assert_eq!(ch.h[0][1], 0);
        assert_eq!(ch.h[0][2], 0);
        assert_eq!(ch.h[1][2], 0);
    }

    #[test]
    fn lattice_solutions() {
        // 2x + 4y = 6  → x = 3 - 2y
        let lat = solve_equalities(&[vec![2, 4, -6]], 2).unwrap().unwrap();
        for z in -3..=3 {
            let p = lattice_point(&lat, &[z]).unwrap();
            assert_eq!(2 * p[0] + 4 * p[1], 6);
        }
        assert!(solve_equalities(&[vec![2, 4, -5]], 2).unwrap().is_none());
    }
}

/// The rank of integer rows, by fraction-free Gaussian elimination with
/// gcd-reduced rows (exact; overflow is an error).
pub fn rank(rows: &[Vec<i64>]) -> Result<usize> {
    let mut a: Vec<Vec<i128>> = rows
        .iter()
        .map(|r| r.iter().map(|&v| v as i128).collect())
        .collect();
    let cols = a.first().map_or(0, Vec::len);
    let mut r = 0;
    for c in 0..cols {
        let Some(p) = (r..a.len()).find(|&i| a[i][c] != 0) else {
            continue;
        };
        a.swap(r, p);
        let prow = a[r].clone();
        for row in a.iter_mut().skip(r + 1) {
            if row[c] == 0 {
                continue;
            }
            let (x, y) = (prow[c], row[c]);
            for (v, w) in row.iter_mut().zip(&prow) {
                *v = v
                    .checked_mul(x)
                    .and_then(|a| w.checked_mul(y).and_then(|b| a.checked_sub(b)))
                    .ok_or(MathError::Overflow)?;
            }
            let g = row.iter().fold(0i128, |g, &v| {
                let (mut a, mut b) = (g.abs(), v.abs());
                while b != 0 {
                    let t = a % b;
                    a = b;
                    b = t;
                }
                a
            });
            if g > 1 {
                row.iter_mut().for_each(|v| *v /= g);
            }
        }
        r += 1;
    }
    Ok(r)
}

/// The inverse of a square integer matrix with determinant `±1` (then the
/// inverse is integral), or `None` when the matrix is singular or its
/// determinant is not `±1`.
///
/// Math: exact rational Gauss–Jordan elimination on `[A | I]`; the inverse
/// is integral iff `|det A| = 1` for an integral `A` (Cramer's rule gives
/// `A⁻¹ = adj(A) / det A`, and `det A⁻¹ = 1 / det A` must be an integer).
pub fn unimodular_inverse(a: &[Vec<i64>]) -> Result<Option<Vec<Vec<i64>>>> {
    use super::rational::Rational;
    let m = a.len();
    if a.iter().any(|r| r.len() != m) {
        return Err(MathError::Space(
            "unimodular_inverse needs a square matrix".into(),
        ));
    }
    let mut t: Vec<Vec<Rational>> = a
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let mut row: Vec<Rational> = r.iter().map(|&v| Rational::from_int(v)).collect();
            row.extend((0..m).map(|j| Rational::from_int(i64::from(i == j))));
            row
        })
        .collect();
    let mut det = Rational::ONE;
    for col in 0..m {
        let Some(p) = (col..m).find(|&r| !t[r][col].is_zero()) else {
            return Ok(None);
        };
        if p != col {
            t.swap(p, col);
            det = det.neg()?;
        }
        let piv = t[col][col];
        det = det.mul(&piv)?;
        let inv = Rational::ONE.div(&piv)?;
        for x in t[col].iter_mut() {
            *x = x.mul(&inv)?;
        }
        let prow = t[col].clone();
        for (r, row) in t.iter_mut().enumerate() {
            if r != col && !row[col].is_zero() {
                let f = row[col];
                for (x, y) in row.iter_mut().zip(&prow) {
                    *x = x.sub(&y.mul(&f)?)?;
                }
            }
        }
    }
    if det != Rational::ONE && det != Rational::from_int(-1) {
        return Ok(None);
    }
    t.iter()
        .map(|row| {
            row[m..]
                .iter()
                .map(|x| x.to_i64())
                .collect::<Result<Vec<i64>>>()
        })
        .collect::<Result<Vec<_>>>()
        .map(Some)
}

#[cfg(test)]
mod unimodular_tests {
    use super::*;

    #[test]
    fn rank_of_small_matrices() {
        assert_eq!(rank(&[vec![1, 2], vec![2, 4]]).unwrap(), 1);
        assert_eq!(
            rank(&[vec![1, 0, 0], vec![2, 1, 0], vec![2, 0, 1]]).unwrap(),
            3
        );
        assert_eq!(rank(&[vec![0, 0], vec![0, 0]]).unwrap(), 0);
        assert_eq!(rank(&[]).unwrap(), 0);
    }

    #[test]
    fn inverts_skews_and_refuses_non_unimodular() {
        // (t, 2t + i) has inverse (t, i - 2t).
        let inv = unimodular_inverse(&[vec![1, 0], vec![2, 1]])
            .unwrap()
            .unwrap();
        assert_eq!(inv, vec![vec![1, 0], vec![-2, 1]]);
        // A permutation is its own transpose-inverse.
        let inv = unimodular_inverse(&[vec![0, 1], vec![1, 0]])
            .unwrap()
            .unwrap();
        assert_eq!(inv, vec![vec![0, 1], vec![1, 0]]);
        // det 2 and det 0.
        assert_eq!(unimodular_inverse(&[vec![2, 1], vec![0, 1]]).unwrap(), None);
        assert_eq!(unimodular_inverse(&[vec![1, 1], vec![1, 1]]).unwrap(), None);
    }
}
