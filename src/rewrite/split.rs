//! Index-set splitting: one statement's domain cut by an affine hyperplane
//! into the parts before, on and after it, each a statement of its own
//! (Griebl, Feautrier and Lengauer, "Index set splitting", IJPP 2000).
//!
//! # Why
//!
//! A dependence whose source (or sink) instances all lie on a hyperplane of
//! the statement's domain makes one loop carry it although most instances
//! are independent. Floyd-Warshall at step `k`:
//!
//! ```text
//! for k, i, j:  path[i][j] = min(path[i][j], path[i][k] + path[k][j])
//! ```
//!
//! Row `k` is written in the step that every row reads it: the rows `i < k`
//! read its old value (anti dependences towards `i = k`), the rows `i > k`
//! its new one (flow dependences from `i = k`). No loop of the whole
//! statement is parallel inside `k`; split at `i = k`, the three pieces
//! `i < k`, `i = k`, `i > k` depend on each other only in that order, and
//! the rows of the first and the last are independent. The scheduler, with
//! its distribution for parallelism ([`crate::sched::pluto::Options::coincidence_cut`]),
//! then gives each piece a parallel `i` loop.
//!
//! # Candidates
//!
//! For a schedule whose first `outer` dimensions stay sequential, the
//! dependences that matter are the instances those dimensions do not
//! order: each dependence polyhedron with the outer dimensions of source and
//! sink equal. Eliminating the sink's iterators (and the locals) from its
//! equalities leaves the equalities its sources satisfy, as affine forms of
//! the source's iterators and the parameters (`i - k = 0` above); the same
//! from the sink's side. Each such form that the statement's domain does not
//! already fix is a candidate. The elimination is exact and fraction free
//! (integer row combinations with checked arithmetic); inequalities are not
//! used, so a candidate can be missed, never invented: splitting is exact
//! for any form.
//!
//! # Exactness
//!
//! The pieces `e <= -1`, `e = 0` and `e >= 1` partition the integer points
//! of the domain, and each keeps the statement's operation, iterators and
//! textual position: the same instances run, and the dependences computed
//! on the split model are those of the original, partitioned. Empty pieces
//! are dropped.

use crate::deps::Dependence;
use crate::math::MathError;

use crate::scop::form::Form;
use crate::scop::model::{Model, Scop, Statement, StmtId};

/// A split of one statement at `form = 0`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Split {
    /// The statement.
    pub stmt: usize,
    /// The hyperplane, over the statement's parameters and iterators
    /// (no locals), with coprime coefficients.
    pub form: Form,
}

impl Split {
    /// The hyperplane as text over the statement's iterator and parameter
    /// names: `i1 = i0`, `i2 = i0 + 1`, `2*i0 = N`.
    pub fn describe(&self, scop: &Scop) -> String {
        let st = &scop.statements[self.stmt];
        let mut lhs: Vec<String> = Vec::new();
        let mut rhs: Vec<String> = Vec::new();
        let mut term = |c: i64, name: &str| {
            let t = |a: i64| {
                if a == 1 {
                    name.to_string()
                } else {
                    format!("{a}*{name}")
                }
            };
            if c > 0 {
                lhs.push(t(c));
            } else if c < 0 {
                rhs.push(t(-c));
            }
        };
        for (k, &c) in self.form.iters.iter().enumerate() {
            term(c, &st.iters[k]);
        }
        for (k, &c) in self.form.params.iter().enumerate() {
            term(c, &scop.params[k]);
        }
        let c = self.form.constant;
        if c < 0 {
            rhs.push((-c).to_string());
        } else if c > 0 {
            lhs.push(c.to_string());
        }
        let side = |v: Vec<String>| {
            if v.is_empty() {
                "0".to_string()
            } else {
                v.join(" + ")
            }
        };
        format!("{} = {}", side(lhs), side(rhs))
    }
}

fn gcd(a: i64, b: i64) -> i64 {
    let (mut a, mut b) = (a.unsigned_abs(), b.unsigned_abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    i64::try_from(a).unwrap_or(1)
}

/// Divides a row by the gcd of its entries.
fn reduce(row: &mut [i64]) {
    let g = row.iter().fold(0, |g, &x| gcd(g, x));
    if g > 1 {
        row.iter_mut().for_each(|x| *x /= g);
    }
}

/// Eliminates the columns `cols` from the equalities `rows` (exact,
/// fraction-free Gaussian elimination): the rows left span every
/// equality the system implies over the other columns.
fn eliminate(mut rows: Vec<Vec<i64>>, cols: &[usize]) -> Result<Vec<Vec<i64>>, MathError> {
    for &c in cols {
        let Some(p) = rows.iter().position(|r| r[c] != 0) else {
            continue;
        };
        let pivot = rows.swap_remove(p);
        for r in rows.iter_mut() {
            let f = r[c];
            if f == 0 {
                continue;
            }
            // r := r·pivot[c] - pivot·f, then divided by the gcd.
            for (x, &y) in r.iter_mut().zip(&pivot) {
                let a = x.checked_mul(pivot[c]).ok_or(MathError::Overflow)?;
                let b = y.checked_mul(f).ok_or(MathError::Overflow)?;
                *x = a.checked_sub(b).ok_or(MathError::Overflow)?;
            }
            reduce(r);
        }
        rows.retain(|r| r.iter().any(|&x| x != 0));
    }
    Ok(rows)
}

/// The equalities `rows` imply once the columns `cols` are eliminated, as
/// forms over the parameters (the first `np` columns) and the iterators
/// at `iters` (the last column the constant), those that use an iterator;
/// oriented so that the innermost iterator counts up (`e < 0` is the part
/// before the hyperplane along it).
fn implied_forms(
    rows: Vec<Vec<i64>>,
    cols: &[usize],
    np: usize,
    iters: std::ops::Range<usize>,
) -> Result<Vec<Form>, MathError> {
    let mut out = Vec::new();
    for row in eliminate(rows, cols)? {
        if row[iters.clone()].iter().all(|&c| c == 0) {
            continue;
        }
        let mut form = Form {
            params: row[..np].to_vec(),
            iters: row[iters.clone()].to_vec(),
            locals: Vec::new(),
            constant: row[row.len() - 1],
        };
        let lead = form.iters.iter().copied().rfind(|&c| c != 0).unwrap_or(1);
        if lead < 0 {
            form = form.scale(-1).map_err(|_| MathError::Overflow)?;
        }
        out.push(form);
    }
    Ok(out)
}

/// The rows `φ_T(j) - φ_S(i) = 0` of schedule dimensions `range` (each
/// by [`outer_eq`]; `rows`: the source's and the sink's schedule rows),
/// over a relation piece's `width` columns; `None` when a row is missing or
/// uses locals.
fn equal_rows(
    np: usize,
    (ni, nj): (usize, usize),
    width: usize,
    rows: (&[Form], &[Form]),
    range: std::ops::Range<usize>,
) -> Result<Option<Vec<Vec<i64>>>, MathError> {
    let mut out = Vec::new();
    for k in range {
        let (Some(a), Some(b)) = (rows.0.get(k), rows.1.get(k)) else {
            return Ok(None);
        };
        let Some(r) = outer_eq(np, ni, nj, width, a, b)? else {
            return Ok(None);
        };
        out.push(r);
    }
    Ok(Some(out))
}

/// The row `φ_T(j) - φ_S(i)` of one schedule dimension over the columns of
/// a dependence piece `[params | i | j | locals | 1]`; `None` when a form
/// uses locals (tile coordinates: not a plain hyperplane).
fn outer_eq(
    np: usize,
    ni: usize,
    nj: usize,
    width: usize,
    a: &Form,
    b: &Form,
) -> Result<Option<Vec<i64>>, MathError> {
    if a.locals.iter().chain(&b.locals).any(|&c| c != 0) {
        return Ok(None);
    }
    let at = |v: &[i64], k: usize| v.get(k).copied().unwrap_or(0);
    let mut r = vec![0i64; width];
    for (k, x) in r[..np].iter_mut().enumerate() {
        *x = at(&b.params, k)
            .checked_sub(at(&a.params, k))
            .ok_or(MathError::Overflow)?;
    }
    for (k, x) in r[np..np + ni].iter_mut().enumerate() {
        *x = at(&a.iters, k).checked_neg().ok_or(MathError::Overflow)?;
    }
    for (k, x) in r[np + ni..np + ni + nj].iter_mut().enumerate() {
        *x = at(&b.iters, k);
    }
    r[width - 1] = b
        .constant
        .checked_sub(a.constant)
        .ok_or(MathError::Overflow)?;
    Ok(Some(r))
}

/// The candidate splits for a schedule whose first `outer` dimensions
/// (`dims[s][..outer]` per statement) stay sequential: see the module text.
/// Without duplicates, only splits that leave at least two non-empty
/// pieces; those whose deepest iterator is outermost come first (a split
/// at `j = k` cuts every row of Floyd-Warshall in two, and its parallel
/// loop runs along the rows' contiguous cells: 20 s at LARGE, against 7.5 s
/// for the rows split at `i = k`).
pub fn candidates(
    scop: &Scop,
    deps: &[Dependence],
    dims: &[Vec<Form>],
    outer: usize,
) -> Result<Vec<Split>, MathError> {
    let np = scop.params.len();
    let mut out: Vec<Split> = Vec::new();
    for d in deps {
        let (s, t) = (d.source.0, d.sink.0);
        let (ni, nj) = (
            scop.statements[s].iters.len(),
            scop.statements[t].iters.len(),
        );
        for piece in &d.relation {
            let width = piece.n_col() + 1;
            let Some(rows) = equal_rows(np, (ni, nj), width, (&dims[s], &dims[t]), 0..outer)?
            else {
                continue;
            };
            // Instances the outer dimensions leave unordered only.
            let mut restricted = piece.clone();
            for r in &rows {
                restricted.add_eq(r.clone())?;
            }
            let mut eqs: Vec<Vec<i64>> = piece.eqs().to_vec();
            eqs.extend(rows);
            if restricted.is_empty()? {
                continue;
            }
            let locals: Vec<usize> = (np + ni + nj..width - 1).collect();
            for (stmt, n_it, off, other) in [
                (s, ni, np, (np + ni..np + ni + nj).collect::<Vec<_>>()),
                (t, nj, np + ni, (np..np + ni).collect::<Vec<_>>()),
            ] {
                let cols: Vec<usize> = other.iter().chain(&locals).copied().collect();
                for form in implied_forms(eqs.clone(), &cols, np, off..off + n_it)? {
                    let split = Split { stmt, form };
                    if !out.contains(&split) && nonempty_pieces(scop, &split)? >= 2 {
                        out.push(split);
                    }
                }
            }
        }
    }
    let deepest = |c: &Split| c.form.iters.iter().rposition(|&x| x != 0).unwrap_or(0);
    out.sort_by_key(deepest);
    Ok(out)
}

/// Whether some instance pair of `d` has equal values at the schedule
/// dimensions `range` (`dims`: each statement's rows): the sink runs at
/// the same point of those loops as its source. `false` when a row uses
/// locals.
pub fn meets_at(
    scop: &Scop,
    d: &Dependence,
    dims: &[Vec<Form>],
    range: std::ops::Range<usize>,
) -> Result<bool, MathError> {
    let np = scop.params.len();
    let (s, t) = (d.source.0, d.sink.0);
    let (ni, nj) = (
        scop.statements[s].iters.len(),
        scop.statements[t].iters.len(),
    );
    for piece in &d.relation {
        let width = piece.n_col() + 1;
        let Some(rows) = equal_rows(np, (ni, nj), width, (&dims[s], &dims[t]), range.clone())?
        else {
            return Ok(false);
        };
        let mut p = piece.clone();
        for row in rows {
            p.add_eq(row)?;
        }
        if !p.is_empty()? {
            return Ok(true);
        }
    }
    Ok(false)
}

/// The equalities that the source instances of `d` satisfy when the sink
/// runs exactly one step of schedule dimension `dim` later (`φ_T(j) =
/// φ_S(i) + 1`, with `dims` each statement's schedule rows), as affine
/// forms of the source's iterators and the parameters: the instances a
/// statement retimed by one step along `dim` would run together with their
/// sinks (Gram-Schmidt's update of column `j` at step `k`, read by the next
/// step's norm of column `k + 1`: `j - k - 1 = 0`). Exact, fraction-free
/// elimination of the sink's iterators and the locals from the
/// equalities; inequalities are not used, so a form can be missed, never
/// invented. Empty when a schedule row uses locals.
pub fn next_step_sources(
    scop: &Scop,
    d: &Dependence,
    dims: &[Vec<Form>],
    dim: usize,
) -> Result<Vec<Form>, MathError> {
    let np = scop.params.len();
    let (s, t) = (d.source.0, d.sink.0);
    let (ni, nj) = (
        scop.statements[s].iters.len(),
        scop.statements[t].iters.len(),
    );
    let mut out: Vec<Form> = Vec::new();
    for piece in &d.relation {
        let width = piece.n_col() + 1;
        let Some(mut step) = equal_rows(np, (ni, nj), width, (&dims[s], &dims[t]), dim..dim + 1)?
            .and_then(|rows| rows.into_iter().next())
        else {
            return Ok(Vec::new());
        };
        // φ_T(j) - φ_S(i) - 1 = 0
        step[width - 1] = step[width - 1].checked_sub(1).ok_or(MathError::Overflow)?;
        let mut restricted = piece.clone();
        restricted.add_eq(step.clone())?;
        if restricted.is_empty()? {
            continue;
        }
        let mut eqs: Vec<Vec<i64>> = piece.eqs().to_vec();
        eqs.push(step);
        let cols: Vec<usize> = (np + ni..width - 1).collect();
        for form in implied_forms(eqs, &cols, np, np..np + ni)? {
            if !out.contains(&form) {
                out.push(form);
            }
        }
    }
    Ok(out)
}

/// True when, on every piece of `d`, the source's iterator `a` or the
/// sink's iterator `a` is fixed by the outer iterators of its own
/// statement and the parameters (an equality of the relation implies it):
/// at fixed outer loops, one iteration of loop `a` writes what all the
/// others read (Floyd-Warshall's `path[i][k]`, written at `j = k`), or
/// reads what one writes later. Such a dependence is a broadcast along the
/// loop, not a chain from one iteration to the next. Equalities only:
/// `false` can mean "not found".
pub fn endpoint_fixed(scop: &Scop, d: &Dependence, a: usize) -> Result<bool, MathError> {
    let np = scop.params.len();
    let (ni, nj) = (
        scop.statements[d.source.0].iters.len(),
        scop.statements[d.sink.0].iters.len(),
    );
    if a >= ni || a >= nj {
        return Ok(false);
    }
    for piece in &d.relation {
        let width = piece.n_col() + 1;
        let locals: Vec<usize> = (np + ni + nj..width - 1).collect();
        let mut fixed = false;
        for (n_it, off, other) in [
            (ni, np, (np + ni..np + ni + nj).collect::<Vec<_>>()),
            (nj, np + ni, (np..np + ni).collect::<Vec<_>>()),
        ] {
            let cols: Vec<usize> = other.iter().chain(&locals).copied().collect();
            fixed |= eliminate(piece.eqs().to_vec(), &cols)?
                .iter()
                .any(|r| r[off + a] != 0 && r[off + a + 1..off + n_it].iter().all(|&c| c == 0));
        }
        if !fixed {
            return Ok(false);
        }
    }
    Ok(true)
}

/// The extra constraint of one piece: `form <= -1`, `form = 0` or
/// `form >= 1`.
struct Cut {
    ineq: Option<Form>,
    eq: Option<Form>,
}

/// The three pieces' extra constraints, in order along the hyperplane.
fn piece_constraints(form: &Form) -> Result<[Cut; 3], MathError> {
    let o = |r: Result<Form, _>| r.map_err(|_| MathError::Overflow);
    let one = Form::constant(1);
    Ok([
        Cut {
            ineq: Some(o(o(form.scale(-1))?.minus(&one))?),
            eq: None,
        },
        Cut {
            ineq: None,
            eq: Some(form.clone()),
        },
        Cut {
            ineq: Some(o(form.minus(&one))?),
            eq: None,
        },
    ])
}

/// How many of the three pieces of `split` have integer points.
fn nonempty_pieces(scop: &Model, split: &Split) -> Result<usize, MathError> {
    let mut n = 0;
    for cut in piece_constraints(&split.form)? {
        n += usize::from(piece(scop, split.stmt, &cut)?.is_some());
    }
    Ok(n)
}

/// Statement `s` restricted by `cut`, or `None` when that leaves no integer
/// point.
fn piece(scop: &Model, s: usize, cut: &Cut) -> Result<Option<Statement>, MathError> {
    let mut out = scop.clone();
    for p in &mut out.statements[s].domain {
        p.ineqs.extend(cut.ineq.clone());
        p.eqs.extend(cut.eq.clone());
    }
    for set in out.domain(StmtId(s))? {
        if !set.is_empty()? {
            return Ok(Some(out.statements.swap_remove(s)));
        }
    }
    Ok(None)
}

/// `scop` with statement `split.stmt` replaced by its non-empty pieces
/// (before, on, after the hyperplane, in that order, named `S<k>_lt`,
/// `S<k>_eq`, `S<k>_gt`) at its position. Expanded temporaries follow:
/// the pieces of an expanded statement are expanded alike.
pub fn apply(scop: &Scop, split: &Split) -> Result<Scop, MathError> {
    apply_sides(scop, split).map(|(out, _)| out)
}

/// Where a piece of a split statement lies against the hyperplane
/// `form = 0`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// `form < 0` (the piece named `_lt`).
    Below,
    /// `form = 0` (`_eq`).
    On,
    /// `form > 0` (`_gt`).
    Above,
}

/// [`apply`], with the side of each piece that replaced the statement, in
/// order (the empty ones left out).
pub fn apply_sides(scop: &Scop, split: &Split) -> Result<(Scop, Vec<Side>), MathError> {
    let (model, sides) = split_model(&scop.model, split)?;
    Ok((
        Scop {
            model,
            ir: scop.ir.clone(),
        },
        sides,
    ))
}

/// [`apply_sides`] on the model alone.
pub fn split_model(scop: &Model, split: &Split) -> Result<(Model, Vec<Side>), MathError> {
    let s = split.stmt;
    let mut pieces = Vec::new();
    let mut sides = Vec::new();
    for (cut, (tag, side)) in piece_constraints(&split.form)?.into_iter().zip([
        ("lt", Side::Below),
        ("eq", Side::On),
        ("gt", Side::Above),
    ]) {
        if let Some(mut st) = piece(scop, s, &cut)? {
            st.name = format!("{}_{tag}", st.name);
            pieces.push(st);
            sides.push(side);
        }
    }
    let n = pieces.len();
    let mut out = scop.clone();
    out.statements.splice(s..=s, pieces);
    for x in &mut out.expansions {
        x.stmts = x
            .stmts
            .iter()
            .flat_map(|&t| match t.cmp(&s) {
                std::cmp::Ordering::Less => vec![t],
                std::cmp::Ordering::Equal => (s..s + n).collect(),
                std::cmp::Ordering::Greater => vec![t + n - 1],
            })
            .collect();
    }
    Ok((out, sides))
}

#[cfg(test)]
mod tests {
    use super::{eliminate, reduce};

    #[test]
    fn elimination_keeps_implied_equalities() {
        // Columns [k_s, i_s, j_s, k_t, i_t, j_t, 1]: the write path[i_s][j_s]
        // read as path[k_t][j_t] at the same step (k_s = k_t). Eliminating
        // the sink's iterators leaves i_s - k_s = 0.
        let rows = vec![
            vec![0, 1, 0, -1, 0, 0, 0], // i_s = k_t
            vec![0, 0, 1, 0, 0, -1, 0], // j_s = j_t
            vec![-1, 0, 0, 1, 0, 0, 0], // k_t = k_s
        ];
        let left = eliminate(rows, &[3, 4, 5]).unwrap();
        assert_eq!(left.len(), 1);
        let mut r = left[0].clone();
        if r[0] > 0 {
            r.iter_mut().for_each(|x| *x = -*x);
        }
        assert_eq!(r, vec![-1, 1, 0, 0, 0, 0, 0]);
    }

    #[test]
    fn elimination_of_unconstrained_columns_leaves_nothing() {
        // x0 = x1 + x2 with x1, x2 eliminated: x0 is free.
        let left = eliminate(vec![vec![1, -1, -1, 0]], &[1, 2]).unwrap();
        assert!(left.is_empty());
    }

    #[test]
    fn rows_are_reduced_by_their_gcd() {
        let mut r = vec![4, -6, 2];
        reduce(&mut r);
        assert_eq!(r, vec![2, -3, 1]);
    }
}
