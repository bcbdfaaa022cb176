//! A Pluto-style scheduler: one affine hyperplane at a time from an exact ILP
//! (Bondhugula et al., PLDI 2008).
//!
//! # Unknowns
//!
//! Per statement `S` with iterators `i`: `φ_S(i) = c_S·i + c_S0` with
//! `0 <= c_S,k <= COEF_BOUND` (Pluto's non-negative coefficients) and
//! `0 <= c_S0 <= SHIFT_BOUND`; shared bounding coefficients `u` (one per
//! parameter) and `w`, all `>= 0`.
//!
//! # Constraints, per dependence piece `P` not yet satisfied (`S → T`)
//!
//! ```text
//! legality   φ_T(j) - φ_S(i)               >= 0   on P
//! bounding   u·n + w - (φ_T(j) - φ_S(i))   >= 0   on P
//! ```
//!
//! Each "affine form `f >= 0` on `P`" is linearized with the affine Farkas
//! lemma: `f ≡ λ0 + Σ λk·gk + Σ μe·he` (`gk >= 0` and `he = 0` the constraints
//! of `P`, `λ >= 0`, `μ` free), matched coefficient by coefficient over all
//! columns of `P` (parameters, both iterator vectors, locals, constant). The
//! multipliers are then **eliminated** (equalities first, then
//! Fourier–Motzkin), leaving constraints on the schedule unknowns alone, so
//! the ILP stays small. (Rows are gcd-tightened during elimination, which can
//! only remove rational multiplier solutions: the result is a subset of the
//! legal hyperplanes, never a superset.)
//!
//! # Linear independence
//!
//! For a statement with hyperplanes `H` of rank `< m`, the new row must have
//! a positive component on the orthogonal complement: with `v1..vr` a basis
//! of `null(H)` (oriented to be non-negative where possible), Pluto's
//! constraints `vk·c_S >= 0` and `Σ vk·c_S >= 1`.
//!
//! # Objective
//!
//! Lexicographic minimum of `(u, w, Σ coefficients, constants)` by the math
//! core's `lexmin_objectives`.
//!
//! # When no hyperplane exists
//!
//! If the current band has satisfied some dependences, the band ends and
//! they stop constraining the next hyperplanes (dependences satisfied inside
//! a band keep constraining it, which makes every band permutable, the
//! condition for tiling it). Otherwise the dependence graph of the
//! unsatisfied dependences is cut between its
//! strongly connected components: a scalar dimension orders the components
//! topologically and satisfies every dependence between them (Pluto's
//! distribution). If the graph is one component, scheduling stops and the
//! caller keeps the original schedule.
//!
//! Every result is re-checked by [`super::verify`], independently.

use thiserror::Error;

use super::Schedule;
use crate::deps::Dependence;
use crate::math::fm;
use crate::math::ilp::System;
use crate::math::{BasicRel, MathError, Optimum};
use crate::scop::form::{Form, Locals};
use crate::scop::model::Scop;

/// Largest iterator coefficient of a hyperplane.
pub const COEF_BOUND: i64 = 4;
/// Largest constant shift of a hyperplane.
pub const SHIFT_BOUND: i64 = 8;
/// Largest number of constraints of one hyperplane ILP; past it the SCoP is
/// not scheduled (bounded effort: the original schedule stands).
pub const ILP_ROW_LIMIT: usize = 1500;

/// Why no schedule was computed.
#[derive(Debug, Clone, Error)]
pub enum PlutoError {
    /// No legal hyperplane and nothing to distribute (the caller keeps the
    /// original schedule).
    #[error("no legal hyperplane at dimension {0} and the dependence graph cannot be split")]
    Stuck(usize),
    /// The hyperplane ILP has more than [`ILP_ROW_LIMIT`] constraints.
    #[error("the scheduling ILP is too large ({0} constraints)")]
    TooLarge(usize),
    /// A limit of the math core (Fourier–Motzkin size, branch and bound).
    #[error("scheduling ILP: {0}")]
    Math(#[from] MathError),
}

/// What one schedule dimension is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DimKind {
    /// A hyperplane found by the ILP, in band `band`; `coincident` when no
    /// dependence still unsatisfied before it has a non-zero distance along it.
    Loop {
        /// The permutable band it belongs to.
        band: usize,
        /// Parallel (all remaining dependences have distance zero).
        coincident: bool,
    },
    /// A scalar dimension ordering distributed components.
    Scalar,
}

/// The scheduler's result.
#[derive(Debug, Clone)]
pub struct PlutoSchedule {
    /// The schedule, one row per statement.
    pub schedule: Schedule,
    /// What each dimension is.
    pub dims: Vec<DimKind>,
}

struct Layout {
    np: usize,
    /// Offset of each statement's coefficients (m_S iterators then constant).
    stmt: Vec<usize>,
    n: usize,
}

impl Layout {
    fn new(scop: &Scop) -> Layout {
        let np = scop.params.len();
        let mut off = np + 1;
        let mut stmt = Vec::new();
        for st in &scop.statements {
            stmt.push(off);
            off += st.iters.len() + 1;
        }
        Layout { np, stmt, n: off }
    }
    fn u(&self, k: usize) -> usize {
        k
    }
    fn w(&self) -> usize {
        self.np
    }
}

/// Adds the Farkas constraints of "`f >= 0` on `piece`", where `f`'s
/// coefficient on each column of the piece is given as a row over the ILP
/// unknowns (`coef[v]` has `n + 1` entries, the last a constant).
fn farkas(
    sys: &mut System,
    piece: &BasicRel,
    coef: &[Vec<i64>],
    n: usize,
) -> Result<(), MathError> {
    let eqs = piece.eqs();
    let ineqs = piece.ineqs();
    let cols = coef.len(); // columns of the piece, the constant last
                           // Multipliers: λ0, λ_k (ineqs), μ_e (eqs). Unknown layout in the local
                           // system: [ILP unknowns (n) | λ0 | λ.. | μ.. | 1].
    let nl = 1 + ineqs.len() + eqs.len();
    let width = n + nl + 1;
    let mut sys_eqs = Vec::new();
    let mut sys_ineqs = Vec::new();
    for v in 0..cols {
        // coef_v(unknowns) - Σ λk gk[v] - Σ μe he[v] - [v = const] λ0 = 0
        let mut r = vec![0i64; width];
        r[..n].copy_from_slice(&coef[v][..n]);
        r[width - 1] = coef[v][n];
        if v == cols - 1 {
            r[n] = -1;
        }
        for (k, g) in ineqs.iter().enumerate() {
            r[n + 1 + k] = g[v].checked_neg().ok_or(MathError::Overflow)?;
        }
        for (e, h) in eqs.iter().enumerate() {
            r[n + 1 + ineqs.len() + e] = h[v].checked_neg().ok_or(MathError::Overflow)?;
        }
        sys_eqs.push(r);
    }
    for k in 0..1 + ineqs.len() {
        let mut r = vec![0i64; width];
        r[n + k] = 1;
        sys_ineqs.push(r);
    }
    // Eliminate the multipliers, last column first.
    let mut eqs_m = sys_eqs;
    let mut ineqs_m = sys_ineqs;
    for col in (n..n + nl).rev() {
        let res = fm::eliminate(&eqs_m, &ineqs_m, col)?;
        if res.infeasible {
            // No multipliers work: the form cannot be non-negative.
            sys.add_ineq({
                let mut r = vec![0; sys.n + 1];
                r[sys.n] = -1;
                r
            });
            return Ok(());
        }
        let drop = |r: Vec<i64>| {
            let mut r = r;
            r.remove(col);
            r
        };
        eqs_m = res.eqs.into_iter().map(drop).collect();
        ineqs_m = res.ineqs.into_iter().map(drop).collect();
    }
    for r in eqs_m {
        if r[..n].iter().any(|&c| c != 0) || r[n] != 0 {
            sys.add_eq(r);
        }
    }
    for r in ineqs_m {
        if r[..n].iter().all(|&c| c == 0) {
            if r[n] < 0 {
                let mut bad = vec![0; sys.n + 1];
                bad[sys.n] = -1;
                sys.add_ineq(bad);
            }
            continue;
        }
        if !sys.ineqs.contains(&r) {
            sys.add_ineq(r);
        }
    }
    Ok(())
}

/// Coefficient rows of `φ_T(j) - φ_S(i)` (times `sign`) over the columns of a
/// dependence piece, plus `extra` added to the parameter/constant columns.
fn diff_coef(
    scop: &Scop,
    lay: &Layout,
    d: &Dependence,
    piece: &BasicRel,
    sign: i64,
    bounding: bool,
) -> Vec<Vec<i64>> {
    let np = lay.np;
    let (s, t) = (d.source.0, d.sink.0);
    let (ni, nj) = (
        scop.statements[s].iters.len(),
        scop.statements[t].iters.len(),
    );
    let cols = piece.space().n_total() + piece.n_local() + 1;
    let mut coef = vec![vec![0i64; lay.n + 1]; cols];
    for k in 0..ni {
        coef[np + k][lay.stmt[s] + k] -= sign;
    }
    for k in 0..nj {
        coef[np + ni + k][lay.stmt[t] + k] += sign;
    }
    let c = cols - 1;
    coef[c][lay.stmt[s] + ni] -= sign;
    coef[c][lay.stmt[t] + nj] += sign;
    if bounding {
        for p in 0..np {
            coef[p][lay.u(p)] += 1;
        }
        coef[c][lay.w()] += 1;
    }
    coef
}

/// Integer basis of the null space of `rows` (each of length `m`), by exact
/// rational Gauss–Jordan elimination; overflow is an error, never a guess.
fn null_space(rows: &[Vec<i64>], m: usize) -> Result<Vec<Vec<i64>>, MathError> {
    use crate::math::Rational;
    let mut a: Vec<Vec<Rational>> = rows
        .iter()
        .map(|r| r.iter().map(|&x| Rational::from_int(x)).collect())
        .collect();
    let mut pivots = Vec::new();
    let mut row = 0;
    for col in 0..m {
        if row == a.len() {
            break;
        }
        let Some(p) = (row..a.len()).find(|&r| !a[r][col].is_zero()) else {
            continue;
        };
        a.swap(row, p);
        let inv = Rational::ONE.div(&a[row][col])?;
        for x in a[row].iter_mut() {
            *x = x.mul(&inv)?;
        }
        let pivot_row = a[row].clone();
        for (r, other) in a.iter_mut().enumerate() {
            if r != row && !other[col].is_zero() {
                let f = other[col];
                for (x, p) in other.iter_mut().zip(&pivot_row) {
                    *x = x.sub(&p.mul(&f)?)?;
                }
            }
        }
        pivots.push(col);
        row += 1;
    }
    let mut basis = Vec::new();
    for free in (0..m).filter(|c| !pivots.contains(c)) {
        let mut v = vec![Rational::ZERO; m];
        v[free] = Rational::ONE;
        for (r, &pc) in pivots.iter().enumerate() {
            v[pc] = a[r][free].neg()?;
        }
        // Scale to integers by the lcm of the denominators.
        let mut lcm = 1i128;
        for x in &v {
            let d = x.den();
            lcm = (lcm / gcd(lcm, d))
                .checked_mul(d)
                .ok_or(MathError::Overflow)?;
        }
        let iv = v
            .iter()
            .map(|x| {
                let n = x
                    .num()
                    .checked_mul(lcm / x.den())
                    .ok_or(MathError::Overflow)?;
                i64::try_from(n).map_err(|_| MathError::Overflow)
            })
            .collect::<Result<Vec<i64>, _>>()?;
        // Orient: prefer a non-negative vector.
        let iv = if iv.iter().all(|&x| x <= 0) {
            iv.iter().map(|x| -x).collect()
        } else {
            iv
        };
        basis.push(iv);
    }
    Ok(basis)
}

fn gcd(a: i128, b: i128) -> i128 {
    if b == 0 {
        a.abs()
    } else {
        gcd(b, a % b)
    }
}

/// True when `diff >= 1` on every piece (the dependence is satisfied).
fn satisfied(scop: &Scop, d: &Dependence, phi: &[Form]) -> Result<bool, MathError> {
    for piece in &d.relation {
        let mut v = piece.clone();
        // φ_T(j) - φ_S(i) <= 0  ⇔  φ_S(i) - φ_T(j) >= 0
        v.add_ineq(diff_row(scop, d, piece, phi, -1))?;
        if !v.is_empty()? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// True when `diff == 0` on every piece (zero distance along `phi`).
fn zero_distance(scop: &Scop, d: &Dependence, phi: &[Form]) -> Result<bool, MathError> {
    for piece in &d.relation {
        for sign in [1, -1] {
            let mut v = piece.clone();
            let mut r = diff_row(scop, d, piece, phi, sign);
            let last = r.len() - 1;
            r[last] -= 1;
            v.add_ineq(r)?;
            if !v.is_empty()? {
                return Ok(false);
            }
        }
    }
    Ok(true)
}

/// The row `sign·(φ_T(j) - φ_S(i))` over the columns of `piece`.
fn diff_row(scop: &Scop, d: &Dependence, piece: &BasicRel, phi: &[Form], sign: i64) -> Vec<i64> {
    let np = scop.params.len();
    let (s, t) = (d.source.0, d.sink.0);
    let (ni, nj) = (
        scop.statements[s].iters.len(),
        scop.statements[t].iters.len(),
    );
    let cols = piece.space().n_total() + piece.n_local() + 1;
    let mut r = vec![0i64; cols];
    let a = phi[s].row(np, ni, 0);
    let b = phi[t].row(np, nj, 0);
    for k in 0..ni {
        r[np + k] -= sign * a[np + k];
    }
    for k in 0..nj {
        r[np + ni + k] += sign * b[np + k];
    }
    r[cols - 1] = sign * (b[np + nj] - a[np + ni]);
    r
}

/// Strongly connected components (Tarjan) of the graph over `n` statements
/// with `edges`; returned in a topological order of the condensation.
fn sccs(n: usize, edges: &[(usize, usize)]) -> Vec<usize> {
    // Simple O(n^3) reachability: n is small (statements of one SCoP).
    let mut reach = vec![vec![false; n]; n];
    for &(a, b) in edges {
        reach[a][b] = true;
    }
    for k in 0..n {
        let via = reach[k].clone();
        for row in reach.iter_mut() {
            if row[k] {
                for (to, &r) in row.iter_mut().zip(&via) {
                    *to |= r;
                }
            }
        }
    }
    let mut comp = vec![usize::MAX; n];
    let mut reps: Vec<usize> = Vec::new();
    for i in 0..n {
        if comp[i] != usize::MAX {
            continue;
        }
        let id = reps.len();
        reps.push(i);
        for j in i..n {
            if j == i || (reach[i][j] && reach[j][i]) {
                comp[j] = id;
            }
        }
    }
    // Topological order of components: a component comes after every
    // component that reaches it; ties keep program order.
    let nc = reps.len();
    let mut order: Vec<usize> = (0..nc).collect();
    order.sort_by(|&x, &y| {
        let (a, b) = (reps[x], reps[y]);
        if reach[a][b] && !reach[b][a] {
            std::cmp::Ordering::Less
        } else if reach[b][a] && !reach[a][b] {
            std::cmp::Ordering::Greater
        } else {
            a.cmp(&b)
        }
    });
    let mut pos = vec![0; nc];
    for (p, &c) in order.iter().enumerate() {
        pos[c] = p;
    }
    comp.iter().map(|&c| pos[c]).collect()
}

/// Computes a schedule for `scop` from its dependences.
pub fn schedule(scop: &Scop, deps: &[Dependence]) -> Result<PlutoSchedule, PlutoError> {
    let ns = scop.statements.len();
    let lay = Layout::new(scop);
    let mut rows: Vec<Vec<Vec<i64>>> = vec![Vec::new(); ns]; // iterator coefficient rows per statement
    let mut dims: Vec<Vec<Form>> = vec![Vec::new(); ns];
    let mut kinds = Vec::new();
    // `live`: not satisfied by an earlier band — constrains legality (so
    // that every band is permutable) until the current band ends.
    // `unsat`: not satisfied by any earlier dimension — decides coincidence.
    let mut live: Vec<bool> = vec![true; deps.len()];
    let mut unsat: Vec<bool> = vec![true; deps.len()];
    let mut band = 0;
    let mut band_open = false;
    let max_dims = 2 * scop
        .statements
        .iter()
        .map(|s| s.iters.len())
        .max()
        .unwrap_or(0)
        + ns
        + 2;
    // Redundant constraints of a dependence polyhedron each add a Farkas
    // multiplier, and Fourier–Motzkin multiplies rows: drop them first.
    let pieces: Vec<Vec<BasicRel>> = deps
        .iter()
        .map(|d| {
            d.relation
                .iter()
                .map(|p| p.remove_redundancies())
                .collect::<Result<Vec<_>, _>>()
        })
        .collect::<Result<_, _>>()?;
    let full = |rows: &Vec<Vec<Vec<i64>>>| -> Result<bool, MathError> {
        for (s, st) in scop.statements.iter().enumerate() {
            if rank(&rows[s], st.iters.len())? < st.iters.len() {
                return Ok(false);
            }
        }
        Ok(true)
    };
    while !full(&rows)? {
        if kinds.len() > max_dims {
            return Err(PlutoError::Stuck(kinds.len()));
        }
        // The ILP for one hyperplane.
        let mut sys = System::new(lay.n);
        for v in 0..lay.n {
            let (lo, hi) = if v <= lay.np {
                (0, 1 << 20)
            } else {
                (0, COEF_BOUND)
            };
            sys.add_bounds(v, lo, hi)?;
        }
        for (s, st) in scop.statements.iter().enumerate() {
            let m = st.iters.len();
            sys.add_bounds(lay.stmt[s] + m, 0, SHIFT_BOUND)?;
            if rank(&rows[s], m)? < m {
                let null = null_space(&rows[s], m)?;
                let mut sum = vec![0i64; lay.n + 1];
                for v in &null {
                    let mut r = vec![0i64; lay.n + 1];
                    for k in 0..m {
                        r[lay.stmt[s] + k] = v[k];
                        sum[lay.stmt[s] + k] += v[k];
                    }
                    sys.add_ineq(r);
                }
                sum[lay.n] = -1;
                sys.add_ineq(sum);
            }
        }
        for (di, d) in deps.iter().enumerate() {
            if !live[di] {
                continue;
            }
            for piece in &pieces[di] {
                farkas(
                    &mut sys,
                    piece,
                    &diff_coef(scop, &lay, d, piece, 1, false),
                    lay.n,
                )?;
                farkas(
                    &mut sys,
                    piece,
                    &diff_coef(scop, &lay, d, piece, 1, true),
                    lay.n,
                )?;
            }
            if sys.ineqs.len() + sys.eqs.len() > ILP_ROW_LIMIT {
                return Err(PlutoError::TooLarge(sys.ineqs.len() + sys.eqs.len()));
            }
        }
        let mut objs: Vec<Vec<i64>> = Vec::new();
        for v in 0..=lay.np {
            let mut o = vec![0i64; lay.n + 1];
            o[v] = 1;
            objs.push(o);
        }
        let mut coefs = vec![0i64; lay.n + 1];
        let mut shifts = vec![0i64; lay.n + 1];
        for (s, st) in scop.statements.iter().enumerate() {
            for k in 0..st.iters.len() {
                coefs[lay.stmt[s] + k] = 1;
            }
            shifts[lay.stmt[s] + st.iters.len()] = 1;
        }
        objs.push(coefs);
        objs.push(shifts);
        match sys.lexmin_objectives(&objs)? {
            Optimum::Bounded(x) => {
                let phi: Vec<Form> = scop
                    .statements
                    .iter()
                    .enumerate()
                    .map(|(s, st)| {
                        let m = st.iters.len();
                        Form {
                            params: Vec::new(),
                            iters: x[lay.stmt[s]..lay.stmt[s] + m].to_vec(),
                            locals: Vec::new(),
                            constant: x[lay.stmt[s] + m],
                        }
                    })
                    .collect();
                if !band_open {
                    band_open = true;
                }
                let mut coincident = true;
                for (di, d) in deps.iter().enumerate() {
                    if unsat[di] && !zero_distance(scop, d, &phi)? {
                        coincident = false;
                        break;
                    }
                }
                for (s, f) in phi.iter().enumerate() {
                    if !f.iters.iter().all(|&c| c == 0) {
                        rows[s].push(f.iters.clone());
                    }
                    dims[s].push(f.clone());
                }
                kinds.push(DimKind::Loop { band, coincident });
                for (di, d) in deps.iter().enumerate() {
                    if unsat[di] && satisfied(scop, d, &phi)? {
                        unsat[di] = false;
                    }
                }
            }
            _ if band_open && live.iter().zip(&unsat).any(|(&l, &u)| l && !u) => {
                // End the band: what it satisfied no longer constrains.
                for (l, &u) in live.iter_mut().zip(&unsat) {
                    *l = *l && u;
                }
                band += 1;
                band_open = false;
            }
            _ => {
                // Distribute: cut between strongly connected components.
                let edges: Vec<(usize, usize)> = deps
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| unsat[*i])
                    .map(|(_, d)| (d.source.0, d.sink.0))
                    .collect();
                let comp = sccs(ns, &edges);
                let ncomp = comp.iter().max().map_or(0, |m| m + 1);
                if ncomp <= 1 {
                    return Err(PlutoError::Stuck(kinds.len()));
                }
                let mut cut_any = false;
                for (di, d) in deps.iter().enumerate() {
                    if unsat[di] && comp[d.source.0] != comp[d.sink.0] {
                        live[di] = false;
                        unsat[di] = false;
                        cut_any = true;
                    }
                }
                if !cut_any {
                    return Err(PlutoError::Stuck(kinds.len()));
                }
                for s in 0..ns {
                    dims[s].push(Form::constant(comp[s] as i64));
                }
                kinds.push(DimKind::Scalar);
                if band_open {
                    band += 1;
                    band_open = false;
                }
            }
        }
    }
    // Remaining dependences (loop-independent between textually ordered
    // statements) are ordered by a final scalar dimension in program order.
    if unsat.iter().any(|&u| u) {
        for (s, st) in scop.statements.iter().enumerate() {
            let _ = st;
            dims[s].push(Form::constant(s as i64));
        }
        kinds.push(DimKind::Scalar);
    }
    Ok(PlutoSchedule {
        schedule: Schedule {
            dims,
            locals: vec![Locals::default(); ns],
        },
        dims: kinds,
    })
}

/// Rank of the rows (each of length `m`).
fn rank(rows: &[Vec<i64>], m: usize) -> Result<usize, MathError> {
    Ok(m - null_space(rows, m)?.len())
}
