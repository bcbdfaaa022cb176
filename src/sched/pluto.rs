//! A Pluto-style scheduler: one affine hyperplane at a time from an exact ILP
//! (Bondhugula et al., PLDI 2008).
//!
//! # Unknowns
//!
//! Per statement `S` with iterators `i`: `φ_S(i) = c_S·i + c_S0` with
//! `0 <= c_S,k <= max-coef` (Pluto's non-negative coefficients) and
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
//! legal hyperplanes, never a superset.) The rows of each dependence are
//! computed once and reused for every hyperplane, as Pluto does.
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
//! The integer lexicographic minimum ([`crate::math::lexmin`]) of
//! `(u, w, Σ coefficients, Σ shifts, then per statement its coefficients
//! from the innermost iterator out, and its shift)`. Minimizing the inner
//! iterators' coefficients first makes ties resolve towards the original
//! loop order (`gemm` keeps `i, j, k`).
//!
//! # Fusion
//!
//! Before the first hyperplane, [`Fuse::No`] cuts the dependence graph
//! between all its strongly connected components (one loop nest each) and
//! [`Fuse::Smart`] cuts between consecutive components (in topological
//! order) of different loop depth, as Pluto's `smartfuse` does; [`Fuse::Max`]
//! cuts nothing. A cut is a scalar dimension that orders the groups and
//! satisfies every dependence between them. Under [`Fuse::Smart`], a group
//! that a later cut takes apart again between two loop dimensions is
//! scheduled once more with its components in nests of their own (see
//! [`schedule`]).
//!
//! # When no hyperplane exists
//!
//! If the current band has satisfied some dependences, the band ends and
//! they stop constraining the next hyperplanes (dependences satisfied inside
//! a band keep constraining it, which makes every band permutable, the
//! condition for tiling it). Otherwise the dependence graph of the
//! unsatisfied dependences is cut between its strongly connected components
//! (Pluto's distribution). If the graph is one component, scheduling stops
//! and the caller keeps the original schedule.
//!
//! # Distribution for parallelism
//!
//! With [`Options::coincidence_cut`], a hyperplane that would open a band
//! without being coincident for every statement is not taken when the
//! unsatisfied dependences form several strongly connected components: the
//! graph is cut between them first (a scalar dimension), and the next
//! hyperplane is searched for the distributed groups, whose dependences
//! between each other no longer count. isl's scheduler does the same
//! (`schedule_outer_coincidence`). Floyd-Warshall split at `i = k`
//! ([`crate::rewrite::split`]): one hyperplane `i` fits all three pieces but
//! carries row `k`'s dependences from the rows before it (which read its old
//! value) and to the rows after it (which read its new one); cut apart, the
//! rows of each piece are independent.
//!
//! # No skews of short loops
//!
//! A hyperplane that would extend an open band with a skew whose new loops
//! are all short reductions (at most [`Options::short_reduction`] iterations, the written
//! cells fixed along them: a convolution's 3x3 filter window, `2·kh + kw`
//! to make `kw` permutable with `kh`; NCHW's `2·c + kh`, to add `kh` after
//! the channels) is not taken: the band ends instead, and the loops follow
//! it unskewed. A short loop fits in one tile, so the skew buys no tiling;
//! it only makes the loops triangular and the register tiles around them
//! impossible. A skew that adds a loop along which the statement writes (a
//! stencil's `t + i`, over few time steps and a small grid too) stays.
//!
//! Every result is re-checked by [`super::verify`], independently.

use thiserror::Error;

use super::Schedule;
use crate::deps::Dependence;
use crate::math::fm;
use crate::math::lexmin::lexmin_nonneg_unique;
use crate::math::memo::memoized;
use crate::math::{BasicRel, MathError, Optimum};
use crate::scop::form::{Form, Locals};
use crate::scop::model::{AccessKind, Model};

/// Default largest iterator coefficient of a hyperplane.
pub const COEF_BOUND: i64 = 4;
/// Largest constant shift of a hyperplane.
pub const SHIFT_BOUND: i64 = 8;
/// Reductions of at most this many iterations (a constant extent) are not
/// skewed into an open band by default ([`Options::short_reduction`]): a
/// convolution's filter window (3, 5, 7, 11) fits in one default tile.
pub const SMALL_LOOP: i64 = 16;
/// Largest number of constraints of one hyperplane ILP; past it the SCoP is
/// not scheduled (bounded effort: the original schedule stands). A bound
/// on the ILP's memory more than on its time, which the SCoP's time budget
/// bounds: mixed 132293, 133921 and 134129 (20,048-20,604 constraints) are
/// scheduled in 1.5-3.3 s under it.
pub const ILP_ROW_LIMIT: usize = 50_000;

/// Loop fusion heuristic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Fuse {
    /// Cut between components of different loop depth first (Pluto's default).
    #[default]
    Smart,
    /// Fuse as much as legality allows.
    Max,
    /// Distribute every strongly connected component.
    No,
}

impl std::str::FromStr for Fuse {
    type Err = String;
    fn from_str(s: &str) -> Result<Fuse, String> {
        match s {
            "smart" => Ok(Fuse::Smart),
            "max" => Ok(Fuse::Max),
            "no" => Ok(Fuse::No),
            _ => Err(format!("fuse must be smart, max or no, not '{s}'")),
        }
    }
}

/// Scheduler options.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// The fusion heuristic.
    pub fuse: Fuse,
    /// Largest iterator coefficient of a hyperplane.
    pub max_coef: i64,
    /// Distribute for parallelism: when the first hyperplane of a band is
    /// not coincident and the unsatisfied dependences form several strongly
    /// connected components, cut between them instead (see
    /// [`schedule`]). Off by default; `poly-opt` turns it on for the
    /// pieces of a split statement ([`crate::rewrite::split`]).
    pub coincidence_cut: bool,
    /// Reductions over at most this many iterations are short: not skewed
    /// into a band (see the module's description); [`SMALL_LOOP`] by
    /// default, the smallest tile size where the tiles are given (a loop
    /// that fits in one tile), 0 for none.
    pub short_reduction: i64,
    /// Give two statements of one innermost input loop that read one
    /// array at the same subscripts the same hyperplanes (the
    /// read-after-read dependences of [`crate::deps::shared_reads`] join
    /// the ILP's dependences: a zero distance along every hyperplane keeps
    /// them aligned, or a cut takes them apart). Off by default; `poly-opt`
    /// turns it on for a loop split into blocks with an array reduction
    /// ([`crate::passes::opt`]'s partial results: bicg's column sums in
    /// private copies beside its rows' sums, which the unaligned schedule
    /// runs in transposed orders, one statement's rows along the other's
    /// columns).
    pub align_shared_reads: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            fuse: Fuse::Smart,
            max_coef: COEF_BOUND,
            coincidence_cut: false,
            short_reduction: SMALL_LOOP,
            align_shared_reads: false,
        }
    }
}

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
    /// A dependence has a negative distance along the hyperplane given to
    /// [`schedule_after`].
    #[error("a dependence runs backwards along the given outermost hyperplane")]
    IllegalPrefix,
    /// A limit of the math core (Fourier–Motzkin size, pivots, cuts).
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
    /// Per dimension: every dependence not satisfied by an earlier band has
    /// distance zero along it (false for scalar dimensions). Finer than
    /// `coincident` is coarse: a dimension of a band whose earlier
    /// dimensions satisfy a dependence is coincident, but once the band is
    /// tiled that dependence may cross its tiles along this dimension (two
    /// instances in one tile of the earlier dimension): only dimensions
    /// coincident here have parallel tile loops.
    pub band_coincident: Vec<bool>,
    /// Per dimension and statement: every dependence of that statement not
    /// satisfied before the dimension has distance zero along it. Finer
    /// than the dimension's `coincident` flag (all statements): statements
    /// split apart by an outer scalar dimension each get their own answer.
    pub stmt_coincident: Vec<Vec<bool>>,
    /// Per dimension and statement: `band_coincident` for the dependences
    /// of that statement alone (false for scalar dimensions). Statements
    /// split apart by an outer scalar dimension run in loops of their own,
    /// whose tile loops are parallel when the statements in them are.
    pub stmt_band_coincident: Vec<Vec<bool>>,
    /// What the scheduler did, for `stats=true` and the benchmarks.
    pub stats: Stats,
}

/// Work done by one call of [`schedule`].
#[derive(Debug, Clone, Default)]
pub struct Stats {
    /// Dependence relations given.
    pub deps: usize,
    /// Distinct relations (RAW/WAR/WAW on one polyhedron count once).
    pub distinct_deps: usize,
    /// Distinct Farkas constraint rows over all dependences.
    pub farkas_rows: usize,
    /// Hyperplane ILPs solved.
    pub ilps: usize,
    /// (unknowns, constraints) of the largest hyperplane ILP.
    pub largest_ilp: (usize, usize),
    /// Time spent linearizing dependences (Farkas, Fourier–Motzkin).
    pub farkas_time: std::time::Duration,
    /// Time spent in the ILP solver.
    pub ilp_time: std::time::Duration,
    /// Time spent classifying hyperplanes (satisfaction, coincidence).
    pub check_time: std::time::Duration,
}

/// Appends one hyperplane ILP to `path` as a JSON line (`POLYRS_DUMP_ILP`,
/// a debugging aid: the systems can be replayed against other solvers).
fn dump_ilp(path: &str, n: usize, eqs: &[Vec<i64>], ineqs: &[Vec<i64>]) {
    use std::io::Write;
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
    {
        let _ = writeln!(f, "{{\"n\": {n}, \"eqs\": {eqs:?}, \"ineqs\": {ineqs:?}}}");
    }
}

/// Positions of the ILP unknowns, in lexicographic priority order.
struct Layout {
    np: usize,
    /// Offset of each statement's block: its coefficients from the innermost
    /// iterator out, then its shift.
    stmt: Vec<usize>,
    m: Vec<usize>,
    n: usize,
}

impl Layout {
    fn new(scop: &Model, np: usize) -> Layout {
        // u (np), w, Σ coefficients, Σ shifts.
        let mut off = np + 3;
        let mut stmt = Vec::new();
        let mut m = Vec::new();
        for st in &scop.statements {
            stmt.push(off);
            m.push(st.iters.len());
            off += st.iters.len() + 1;
        }
        Layout {
            np,
            stmt,
            m,
            n: off,
        }
    }
    fn u(&self, k: usize) -> usize {
        k
    }
    fn w(&self) -> usize {
        self.np
    }
    fn sum_coef(&self) -> usize {
        self.np + 1
    }
    fn sum_shift(&self) -> usize {
        self.np + 2
    }
    /// The unknown of iterator `k`'s coefficient in statement `s`.
    fn coef(&self, s: usize, k: usize) -> usize {
        self.stmt[s] + self.m[s] - 1 - k
    }
    fn shift(&self, s: usize) -> usize {
        self.stmt[s] + self.m[s]
    }
}

/// Constraints on the ILP unknowns from one Farkas linearization.
#[derive(Debug, Clone, Default)]
struct FarkasRows {
    eqs: Vec<Vec<i64>>,
    ineqs: Vec<Vec<i64>>,
    /// No choice of the unknowns makes the form non-negative.
    infeasible: bool,
}

/// Rewrites "`f >= 0` on `{x : eqs = 0, ineqs >= 0}`" over fewer variables:
/// every equality with a `±1` coefficient on some column solves for that
/// column (`x_k = g(rest)`), which is substituted into the other rows and
/// into `f`'s coefficient rows, and the column is dropped. Inequalities
/// that became duplicates (dependence polyhedra bound `i` and `o = i` the
/// same way) or trivial are dropped, keeping the tightest of equal rows.
///
/// Sound and complete: the polyhedron is the image of the smaller one under
/// the substitution, so `f >= 0` holds on one iff it holds on the other;
/// the affine Farkas lemma then has one multiplier per remaining
/// inequality, and Fourier–Motzkin has far fewer to eliminate.
/// A dependence polyhedron after [`compress`], with the coefficient rows of
/// each form to linearize over it.
struct Compressed {
    eqs: Vec<Vec<i64>>,
    ineqs: Vec<Vec<i64>>,
    coefs: Vec<Vec<Vec<i64>>>,
}

fn compress(
    eqs: &[Vec<i64>],
    ineqs: &[Vec<i64>],
    coefs: Vec<Vec<Vec<i64>>>,
) -> Result<Compressed, MathError> {
    let mut eqs: Vec<Vec<i64>> = eqs.to_vec();
    let mut ineqs: Vec<Vec<i64>> = ineqs.to_vec();
    let mut coefs = coefs;
    let mul_sub = |row: &mut Vec<i64>, by: &[i64], f: i64| -> Result<(), MathError> {
        for (x, y) in row.iter_mut().zip(by) {
            *x = x
                .checked_sub(y.checked_mul(f).ok_or(MathError::Overflow)?)
                .ok_or(MathError::Overflow)?;
        }
        Ok(())
    };
    loop {
        let cols = eqs.first().map_or(0, |r| r.len() - 1);
        let Some((e, k)) = eqs
            .iter()
            .enumerate()
            .find_map(|(e, r)| (0..cols).find(|&k| r[k].abs() == 1).map(|k| (e, k)))
        else {
            break;
        };
        // Normalize the equality to x_k + rest = 0.
        let mut eq = eqs.swap_remove(e);
        if eq[k] < 0 {
            eq.iter_mut().for_each(|v| *v = -*v);
        }
        for r in eqs.iter_mut().chain(ineqs.iter_mut()) {
            let f = r[k];
            if f != 0 {
                mul_sub(r, &eq, f)?;
            }
        }
        // f = Σ_v coef[v]·x_v with x_k = -(rest): coef[v] -= eq[v]·coef[k].
        for coef in coefs.iter_mut() {
            let ck = coef[k].clone();
            for (v, c) in coef.iter_mut().enumerate() {
                if v != k && eq[v] != 0 {
                    for (a, b) in c.iter_mut().zip(&ck) {
                        let t = b.checked_mul(eq[v]).ok_or(MathError::Overflow)?;
                        *a = a.checked_sub(t).ok_or(MathError::Overflow)?;
                    }
                }
            }
            coef.remove(k);
        }
        for r in eqs.iter_mut().chain(ineqs.iter_mut()) {
            r.remove(k);
        }
    }
    // Normalize, deduplicate, keep the tightest of rows with equal coefficients.
    use crate::math::ilp::{norm_ineq, Norm};
    let mut rows = Vec::with_capacity(ineqs.len());
    for r in &ineqs {
        match norm_ineq(r)? {
            Norm::Trivial => {}
            // An empty polyhedron: keep the row, Farkas reports it.
            Norm::Infeasible => rows.push(r.clone()),
            Norm::Row(r) => rows.push(r),
        }
    }
    rows.sort_unstable();
    rows.dedup_by(|later, first| later[..later.len() - 1] == first[..first.len() - 1]);
    eqs.retain(|r| r[..r.len() - 1].iter().any(|&v| v != 0) || r[r.len() - 1] != 0);
    Ok(Compressed {
        eqs,
        ineqs: rows,
        coefs,
    })
}

/// Drops the inequalities implied by the others over the rationals (one LP
/// each, on the small compressed system): each would add a Farkas
/// multiplier, and Fourier–Motzkin multiplies rows.
fn drop_redundant_rows(eqs: &[Vec<i64>], ineqs: &[Vec<i64>]) -> Result<Vec<Vec<i64>>, MathError> {
    match ineqs.first().map(|r| r.len() - 1) {
        Some(w) => crate::math::ilp::drop_redundant_ineqs(w, eqs, ineqs),
        None => Ok(Vec::new()),
    }
}

/// Memo of [`farkas_compact`]: dependences of similar statements give the
/// same small system over the same local unknowns.
type FarkasMemo =
    std::collections::HashMap<(Vec<Vec<i64>>, Vec<Vec<i64>>, Vec<Vec<i64>>), FarkasRows>;

thread_local! {
    /// The Farkas rows made on this thread, and the compressed polyhedra
    /// without their redundant rows ([`drop_redundant_rows`]): each a function
    /// of its key, asked again by every schedule of one SCoP (the first,
    /// and its retries: a cut for coincidence, `fuse=no`, a split, an
    /// embedding) and by similar SCoPs. Emptied at
    /// [`MEMO_ENTRIES`](crate::math::memo::MEMO_ENTRIES).
    static FARKAS_MEMO: std::cell::RefCell<FarkasMemo> = Default::default();
    static SHAPE_MEMO: std::cell::RefCell<ShapeMemo> = Default::default();
}

fn farkas(
    eqs: &[Vec<i64>],
    ineqs: &[Vec<i64>],
    coef: &[Vec<i64>],
    n: usize,
) -> Result<FarkasRows, MathError> {
    // Work over the unknowns `f` mentions only (a dependence involves two
    // statements and the bounding unknowns, not the whole ILP), then widen.
    let used: Vec<usize> = (0..n).filter(|&v| coef.iter().any(|c| c[v] != 0)).collect();
    let narrow: Vec<Vec<i64>> = coef
        .iter()
        .map(|c| used.iter().map(|&v| c[v]).chain([c[n]]).collect())
        .collect();
    let key = (eqs.to_vec(), ineqs.to_vec(), narrow);
    let local = memoized(&FARKAS_MEMO, key, |k| {
        farkas_compact(&k.0, &k.1, &k.2, used.len())
    })?;
    let widen = |r: Vec<i64>| {
        let mut w = vec![0i64; n + 1];
        for (k, &v) in used.iter().enumerate() {
            w[v] = r[k];
        }
        w[n] = r[used.len()];
        w
    };
    Ok(FarkasRows {
        eqs: local.eqs.into_iter().map(widen).collect(),
        ineqs: local.ineqs.into_iter().map(widen).collect(),
        infeasible: local.infeasible,
    })
}

/// [`farkas`] over `n` unknowns, on a compressed polyhedron.
fn farkas_compact(
    eqs: &[Vec<i64>],
    ineqs: &[Vec<i64>],
    coef: &[Vec<i64>],
    n: usize,
) -> Result<FarkasRows, MathError> {
    let cols = coef.len(); // columns of the piece, the constant last
                           // Multipliers: λ0, λ_k (ineqs), μ_e (eqs). Layout of the local system:
                           // [ILP unknowns (n) | λ0 | λ.. | μ.. | 1].
    let nl = 1 + ineqs.len() + eqs.len();
    let width = n + nl + 1;
    let mut eqs_m = Vec::new();
    let mut ineqs_m = Vec::new();
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
        eqs_m.push(r);
    }
    for k in 0..1 + ineqs.len() {
        let mut r = vec![0i64; width];
        r[n + k] = 1;
        ineqs_m.push(r);
    }
    // Eliminate the multipliers (the exact rational shadow: they are
    // rational), then drop the rows the others imply.
    let cols: Vec<usize> = (n..n + nl).collect();
    let p = fm::project_rational(&eqs_m, &ineqs_m, &cols)?;
    if p.infeasible {
        return Ok(FarkasRows {
            infeasible: true,
            ..FarkasRows::default()
        });
    }
    let keep = |r: Vec<i64>| -> Vec<i64> {
        r.iter()
            .enumerate()
            .filter(|(c, _)| *c < n || *c == width - 1)
            .map(|(_, &v)| v)
            .collect()
    };
    let eqs_m: Vec<Vec<i64>> = p.eqs.into_iter().map(keep).collect();
    // Of rows with the same coefficients, the tightest (the others are
    // implied by it). The hyperplane ILP takes the rest as they are: an LP
    // per row to drop the implied ones costs more than the solver spends
    // on them.
    let mut ineqs_m: Vec<Vec<i64>> = p.ineqs.into_iter().map(keep).collect();
    ineqs_m.sort_unstable();
    ineqs_m.dedup_by(|later, first| later[..later.len() - 1] == first[..first.len() - 1]);
    let mut out = FarkasRows::default();
    for r in eqs_m {
        if r[..n].iter().any(|&c| c != 0) {
            out.eqs.push(r);
        } else if r[n] != 0 {
            out.infeasible = true;
        }
    }
    for r in ineqs_m {
        if r[..n].iter().all(|&c| c == 0) {
            if r[n] < 0 {
                out.infeasible = true;
            }
            continue;
        }
        if !out.ineqs.contains(&r) {
            out.ineqs.push(r);
        }
    }
    Ok(out)
}

/// Coefficient rows of `φ_T(j) - φ_S(i)` over the columns of a dependence
/// piece; with `bounding`, of `u·n + w - (φ_T(j) - φ_S(i))`.
fn diff_coef(
    scop: &Model,
    lay: &Layout,
    d: &Dependence,
    piece: &BasicRel,
    bounding: bool,
) -> Vec<Vec<i64>> {
    let np = lay.np;
    let sign = if bounding { -1 } else { 1 };
    let (s, t) = (d.source.0, d.sink.0);
    let (ni, nj) = (
        scop.statements[s].iters.len(),
        scop.statements[t].iters.len(),
    );
    let cols = piece.space().n_total() + piece.n_local() + 1;
    let mut coef = vec![vec![0i64; lay.n + 1]; cols];
    for k in 0..ni {
        coef[np + k][lay.coef(s, k)] -= sign;
    }
    for k in 0..nj {
        coef[np + ni + k][lay.coef(t, k)] += sign;
    }
    let c = cols - 1;
    coef[c][lay.shift(s)] -= sign;
    coef[c][lay.shift(t)] += sign;
    if bounding {
        for p in 0..np {
            coef[p][lay.u(p)] += 1;
        }
        coef[c][lay.w()] += 1;
    }
    coef
}

/// Constants of at least this magnitude in dependence polyhedra are
/// treated as problem sizes by `generalize`.
pub const SIZE_THRESHOLD: i64 = 8;

/// The largest constant of magnitude `>= SIZE_THRESHOLD` in the rows of the
/// dependence polyhedra, if any: the size that `generalize` abstracts.
fn size_constant(deps: &[Dependence]) -> Option<i64> {
    deps.iter()
        .flat_map(|d| d.relation.iter())
        .flat_map(|p| p.eqs().iter().chain(p.ineqs()))
        .filter_map(|r| r.last().map(|c| c.saturating_abs()))
        .filter(|&c| c >= SIZE_THRESHOLD)
        .max()
}

/// The dependence polyhedron with its problem sizes made symbolic: a new
/// last parameter `N` (with `N >= SIZE_THRESHOLD`), and every constant `c`
/// with `|c| >= SIZE_THRESHOLD` rewritten as `±N + (c ∓ n)`, where `n` is
/// the SCoP's largest such constant.
///
/// Why: with static sizes the bounding constraint `w >= distance` carries
/// constants such as `N - 1 = 1999`, and the hyperplane ILP becomes
/// numerically hard (its rational relaxation is far from integral). With a
/// symbolic `N` the ILP is Pluto's parametric one: `u` counts distances that
/// grow with the size, `w` stays small.
///
/// Sound: the polyhedron at `N = n` is the original one, and `n >=
/// SIZE_THRESHOLD`, so a hyperplane that is legal for every `N >=
/// SIZE_THRESHOLD` is legal for the SCoP. (The schedule is re-checked on the
/// exact model anyway.)
fn generalize(piece: &BasicRel, n: i64) -> Result<BasicRel, MathError> {
    let sp = piece.space();
    let np = sp.n_param();
    let mut params: Vec<String> = sp.params.clone();
    params.push("_N".into());
    let mut space = sp.clone();
    space.params = params;
    let map = |r: &Vec<i64>| -> Result<Vec<i64>, MathError> {
        let mut out = r.clone();
        let c = *r.last().expect("rows end with a constant");
        let coef = if c >= SIZE_THRESHOLD {
            1
        } else if c <= -SIZE_THRESHOLD {
            -1
        } else {
            0
        };
        let last = out.len() - 1;
        out[last] = c.checked_sub(coef * n).ok_or(MathError::Overflow)?;
        out.insert(np, coef);
        Ok(out)
    };
    let eqs = piece.eqs().iter().map(map).collect::<Result<Vec<_>, _>>()?;
    let mut ineqs = piece
        .ineqs()
        .iter()
        .map(map)
        .collect::<Result<Vec<_>, _>>()?;
    let mut ctx = vec![0i64; piece.n_col() + 2];
    ctx[np] = 1;
    let last = ctx.len() - 1;
    ctx[last] = -SIZE_THRESHOLD;
    ineqs.push(ctx);
    BasicRel::from_constraints(space, piece.n_local(), eqs, ineqs)
}

/// Farkas rows shared by all dependences, each distinct row stored once
/// (dependences between the same statements often yield the same rows).
#[derive(Default)]
struct RowPool {
    rows: Vec<Vec<i64>>,
    index: std::collections::HashMap<Vec<i64>, usize>,
}

impl RowPool {
    fn id(&mut self, row: Vec<i64>) -> usize {
        if let Some(&k) = self.index.get(&row) {
            return k;
        }
        self.rows.push(row.clone());
        self.index.insert(row, self.rows.len() - 1);
        self.rows.len() - 1
    }
}

/// The legality and bounding rows of one dependence (all its pieces).
#[derive(Debug, Clone, Default)]
struct DepRows {
    eqs: Vec<Vec<i64>>,
    /// Inequalities, as ids in the [`RowPool`].
    ineqs: Vec<usize>,
    infeasible: bool,
}

/// True when `row >= 0` holds on the whole box of the unknowns (`0 <=`
/// coefficient `<= max_coef`, `0 <=` shift `<= SHIFT_BOUND`, the rest `>= 0`
/// and unbounded above): such a row constrains nothing.
fn box_redundant(lay: &Layout, max_coef: i64, row: &[i64]) -> bool {
    let mut hi = vec![None; lay.n];
    for (s, &m) in lay.m.iter().enumerate() {
        for k in 0..m {
            hi[lay.coef(s, k)] = Some(max_coef);
        }
        hi[lay.shift(s)] = Some(SHIFT_BOUND);
    }
    let mut min = row[lay.n] as i128;
    for (v, &c) in row[..lay.n].iter().enumerate() {
        if c < 0 {
            match hi[v] {
                Some(h) => min += c as i128 * h as i128,
                None => return false,
            }
        }
    }
    min >= 0
}

fn dep_rows(
    scop: &Model,
    lay: &Layout,
    d: &Dependence,
    pieces: &[BasicRel],
    max_coef: i64,
    pool: &mut RowPool,
) -> Result<DepRows, MathError> {
    use crate::math::ilp::{norm_ineq, Norm};
    let mut out = DepRows::default();
    for piece in pieces {
        let piece = &without_locals(piece)?;
        let coefs = vec![
            diff_coef(scop, lay, d, piece, false),
            diff_coef(scop, lay, d, piece, true),
        ];
        let mut c = compress(piece.eqs(), piece.ineqs(), coefs)?;
        let key = (c.eqs.clone(), c.ineqs.clone());
        c.ineqs = memoized(&SHAPE_MEMO, key, |(eqs, ineqs)| {
            drop_redundant_rows(eqs, ineqs)
        })?;
        for coef in &c.coefs {
            let f = farkas(&c.eqs, &c.ineqs, coef, lay.n)?;
            out.infeasible |= f.infeasible;
            out.eqs.extend(f.eqs);
            for r in f.ineqs {
                match norm_ineq(&r)? {
                    Norm::Trivial => {}
                    Norm::Infeasible => out.infeasible = true,
                    Norm::Row(r) => {
                        if !box_redundant(lay, max_coef, &r) {
                            let id = pool.id(r);
                            if !out.ineqs.contains(&id) {
                                out.ineqs.push(id);
                            }
                        }
                    }
                }
            }
        }
    }
    Ok(out)
}

/// The rational projection of a dependence piece onto its parameters and
/// iterators: its existential locals (divisions and strides of the
/// domains) eliminated by Fourier–Motzkin, redundant rows dropped as they
/// appear.
///
/// Lossless for the Farkas step: the forms linearized over a piece never
/// mention its locals, and a form without them is non-negative on a
/// rational polyhedron iff it is non-negative on the polyhedron's
/// projection. Each local brings two inequalities (each a multiplier), so
/// eliminating them here keeps the multipliers' elimination small.
fn without_locals(piece: &BasicRel) -> Result<BasicRel, MathError> {
    let nl = piece.n_local();
    if nl == 0 {
        return Ok(piece.clone());
    }
    let nt = piece.space().n_total();
    let mut eqs = piece.eqs().to_vec();
    let mut ineqs = piece.ineqs().to_vec();
    for col in (nt..nt + nl).rev() {
        let e = fm::eliminate(&eqs, &ineqs, col)?;
        if e.infeasible {
            return Ok(BasicRel::empty(piece.space().clone()));
        }
        let drop = |mut r: Vec<i64>| {
            r.remove(col);
            r
        };
        eqs = e.eqs.into_iter().map(drop).collect();
        ineqs = e.ineqs.into_iter().map(drop).collect();
        if ineqs.len() > REDUNDANT_ROWS {
            ineqs = crate::math::ilp::drop_redundant_ineqs(col, &eqs, &ineqs)?;
        }
    }
    BasicRel::from_constraints(piece.space().clone(), 0, eqs, ineqs)
}

/// Inequalities past which an elimination drops the redundant ones (one
/// LP each) before going on.
const REDUNDANT_ROWS: usize = 24;

/// Memo of [`drop_redundant_rows`] by compressed polyhedron.
type ShapeMemo = std::collections::HashMap<(Vec<Vec<i64>>, Vec<Vec<i64>>), Vec<Vec<i64>>>;

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
fn satisfied(scop: &Model, d: &Dependence, phi: &[Form]) -> Result<bool, MathError> {
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
fn zero_distance(scop: &Model, d: &Dependence, phi: &[Form]) -> Result<bool, MathError> {
    Ok(at_most_zero(scop, d, phi, 1)? && at_most_zero(scop, d, phi, -1)?)
}

/// True when `diff >= 0` on every piece (a legal hyperplane for `d`).
fn nonnegative(scop: &Model, d: &Dependence, phi: &[Form]) -> Result<bool, MathError> {
    at_most_zero(scop, d, phi, -1)
}

/// True when `sign·diff <= 0` on every piece: no instance pair with
/// `sign·diff - 1 >= 0`.
fn at_most_zero(scop: &Model, d: &Dependence, phi: &[Form], sign: i64) -> Result<bool, MathError> {
    for piece in &d.relation {
        let mut v = piece.clone();
        let mut r = diff_row(scop, d, piece, phi, sign);
        let last = r.len() - 1;
        r[last] -= 1;
        v.add_ineq(r)?;
        if !v.is_empty()? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// The row `sign·(φ_T(j) - φ_S(i))` over the columns of `piece`.
fn diff_row(scop: &Model, d: &Dependence, piece: &BasicRel, phi: &[Form], sign: i64) -> Vec<i64> {
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

/// True when a cut into `group` satisfies some dependence not satisfied
/// yet (one whose source and sink it separates): a cut that separates
/// nothing orders nothing.
fn crosses(deps: &[Dependence], group: &[usize], unsat: &[bool]) -> bool {
    deps.iter()
        .zip(unsat)
        .any(|(d, &u)| u && group[d.source.0] != group[d.sink.0])
}

/// How a new hyperplane is kept linearly independent of a statement's rows.
#[derive(Debug, Clone, Copy)]
enum Independence {
    /// Pluto's: `vk·c >= 0` for every basis vector `vk` of the orthogonal
    /// complement (each oriented non-negative where possible) and
    /// `Σ vk·c >= 1`.
    Pluto,
    /// `sign·(v·c) >= 1` for basis vector `v` number `which` (the last one
    /// when a statement has fewer).
    Along(usize, i64),
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
    // Topological order of the components (Kahn's algorithm), taking the
    // ready component with the earliest statement first.
    let nc = reps.len();
    let mut indeg = vec![0usize; nc];
    let mut succ: Vec<Vec<usize>> = vec![Vec::new(); nc];
    for &(a, b) in edges {
        let (ca, cb) = (comp[a], comp[b]);
        if ca != cb && !succ[ca].contains(&cb) {
            succ[ca].push(cb);
            indeg[cb] += 1;
        }
    }
    let mut pos = vec![0; nc];
    let mut done = vec![false; nc];
    for p in 0..nc {
        let c = (0..nc)
            .filter(|&c| !done[c] && indeg[c] == 0)
            .min_by_key(|&c| reps[c])
            .expect("the condensation of a graph is acyclic");
        done[c] = true;
        pos[c] = p;
        for &d in &succ[c] {
            indeg[d] -= 1;
        }
    }
    comp.iter().map(|&c| pos[c]).collect()
}

/// Connected components of the statements under the `live` dependences
/// (as undirected edges): `comp[s]`, numbered from 0.
pub fn components(ns: usize, deps: &[Dependence], live: &[bool]) -> Vec<usize> {
    let mut comp: Vec<usize> = (0..ns).collect();
    fn root(comp: &mut [usize], mut s: usize) -> usize {
        while comp[s] != s {
            comp[s] = comp[comp[s]];
            s = comp[s];
        }
        s
    }
    for (d, _) in deps.iter().zip(live).filter(|(_, &l)| l) {
        let (a, b) = (root(&mut comp, d.source.0), root(&mut comp, d.sink.0));
        comp[a.max(b)] = a.min(b);
    }
    let mut ids: Vec<usize> = Vec::new();
    (0..ns)
        .map(|s| {
            let r = root(&mut comp, s);
            match ids.iter().position(|&x| x == r) {
                Some(i) => i,
                None => {
                    ids.push(r);
                    ids.len() - 1
                }
            }
        })
        .collect()
}

/// Groups of statements for a cut: `group[s]` in topological order.
/// Under [`Fuse::Smart`], a component with a statement marked in `split`
/// stays a group of its own.
fn cut_groups(
    scop: &Model,
    deps: &[Dependence],
    active: &[bool],
    fuse: Fuse,
    split: &[bool],
) -> Vec<usize> {
    let ns = scop.statements.len();
    let edges: Vec<(usize, usize)> = deps
        .iter()
        .zip(active)
        .filter(|(_, &a)| a)
        .map(|(d, _)| (d.source.0, d.sink.0))
        .collect();
    let comp = sccs(ns, &edges);
    if fuse == Fuse::No {
        return comp;
    }
    // Smart: consecutive components of equal depth stay together.
    let ncomp = comp.iter().max().map_or(0, |m| m + 1);
    let depth: Vec<usize> = (0..ncomp)
        .map(|c| {
            (0..ns)
                .filter(|&s| comp[s] == c)
                .map(|s| scop.statements[s].iters.len())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let marked: Vec<bool> = (0..ncomp)
        .map(|c| (0..ns).any(|s| comp[s] == c && split.get(s).copied().unwrap_or(false)))
        .collect();
    // A component that reads an array of the group before it at other
    // subscripts, with no dependence and no read at the same subscripts to
    // tie them, starts a group of its own: fused, the two would share one
    // band and one point order, good for at most one of the two access
    // patterns. mvt's `x1[i] += A[i][j] * y1[j]` and `x2[i] += A[j][i] *
    // y2[j]`, fused, share one (i, j) band where the second reads A down
    // its columns (3.3 ms at LARGE); apart, each gets its own order
    // (1.8 ms). Unrelated nests (gesummv's two initializations) stay fused.
    let tied = |c: usize, first: usize| {
        let in_group = |s: usize| comp[s] >= first && comp[s] < c;
        let dependent = edges
            .iter()
            .any(|&(a, b)| (comp[a] == c && in_group(b)) || (comp[b] == c && in_group(a)));
        let pairs: Vec<(usize, usize)> = (0..ns)
            .flat_map(|s| (0..ns).map(move |t| (s, t)))
            .filter(|&(s, t)| comp[s] == c && in_group(t))
            .collect();
        let shared = pairs.iter().any(|&(s, t)| {
            scop.statements[s]
                .shared_read(&scop.statements[t])
                .is_some()
        });
        let conflicting = pairs.iter().any(|&(s, t)| {
            let (a, b) = (&scop.statements[s], &scop.statements[t]);
            a.accesses.iter().any(|x| {
                b.accesses
                    .iter()
                    .any(|y| x.array == y.array && x.index != y.index)
            })
        });
        dependent || shared || !conflicting
    };
    // Consecutive components whose statements compute the same costly
    // value (Statement::shared_work) stay together whatever else would
    // part them: apart, each computes it again.
    let share_work = |c: usize| {
        (0..ns).any(|s| {
            comp[s] == c
                && (0..ns).any(|t| {
                    comp[t] == c - 1
                        && scop.statements[s]
                            .shared_work(&scop.statements[t])
                            .is_some()
                })
        })
    };
    let mut group_of_comp = vec![0; ncomp];
    let mut g = 0;
    let mut first = 0;
    for c in 1..ncomp {
        let parted = marked[c] || marked[c - 1] || !tied(c, first);
        if depth[c] != depth[c - 1] || (parted && !share_work(c)) {
            g += 1;
            first = c;
        }
        group_of_comp[c] = g;
    }
    comp.iter().map(|&c| group_of_comp[c]).collect()
}

/// Regroups strongly connected components (`comp[s]`, in topological
/// order) for a distribution under [`Fuse::Max`]: walking the components
/// in order, the next one joins the current group when one hyperplane still
/// exists for the group and it together (`solve` over the statements marked
/// active). Pluto cuts between all components here, which also splits loops
/// that the input had fused: adi's two sweeps per time step become 14
/// parallel loop nests instead of two (each streams its arrays; 1.4x the
/// baseline instead of 2.0x when measured, 1.9x since the recurrences'
/// independent loop goes innermost in the tiles); the default
/// ([`Fuse::Smart`]) still cuts them all, because keeping gramschmidt's two
/// inner loops fused loses their tiled, interchanged band (5x the baseline
/// with it, 1x without).
fn fused_groups(
    comp: &[usize],
    mut solve: impl FnMut(&[bool]) -> Result<Option<Vec<i64>>, PlutoError>,
) -> Result<Vec<usize>, PlutoError> {
    let ncomp = comp.iter().max().map_or(0, |m| m + 1);
    let mut group_of_comp = vec![0; ncomp];
    let mut g = 0;
    let mut start = 0;
    for (c, group) in group_of_comp.iter_mut().enumerate().skip(1) {
        let merged: Vec<bool> = comp.iter().map(|&x| start <= x && x <= c).collect();
        if solve(&merged)?.is_none() {
            g += 1;
            start = c;
        }
        *group = g;
    }
    Ok(comp.iter().map(|&c| group_of_comp[c]).collect())
}

/// Computes a schedule for `scop` from its dependences.
///
/// Under [`Fuse::Smart`], components of equal depth fused by the first cut
/// that a later cut distributes again (after sharing outer loops) are
/// scheduled once more, each in a nest of its own: the later cut is a
/// scalar dimension for every statement, which ends every statement's band
/// there, so the fusion costs all nests their tiled bands. deriche's
/// `imgOut = c1 * (y1 + y2)` fused with the backward row sweep split the
/// sweeps' `(i, j)` bands into two untiled loops (1.5x the baseline; with
/// each nest on its own, tiled, 2.7x).
pub fn schedule(
    scop: &Model,
    all_deps: &[Dependence],
    options: &Options,
) -> Result<PlutoSchedule, PlutoError> {
    let first = schedule_split(scop, all_deps, options, &[], None)?;
    if options.fuse != Fuse::Smart {
        return Ok(first);
    }
    let split = refused_fusion(scop, &first);
    if !split.iter().any(|&b| b) {
        return Ok(first);
    }
    let second = schedule_split(scop, all_deps, options, &split, None)?;
    // Only when the split changed the first cut's groups.
    let lead = |p: &PlutoSchedule| -> Vec<Option<i64>> {
        p.schedule
            .dims
            .iter()
            .map(|row| match p.dims.first() {
                Some(DimKind::Scalar) => row.first().and_then(Form::as_constant),
                _ => None,
            })
            .collect()
    };
    Ok(if lead(&second) != lead(&first) {
        second
    } else {
        first
    })
}

/// The statements of groups that the first cut of `p` fused and a later
/// scalar dimension between two loop dimensions takes apart again. Not a
/// pair that reads one array at the same subscripts: in one nest, the
/// second read finds the cell in cache (atax's `A[i][j]`, read by both
/// matrix-vector products: a memory-bound kernel that a second pass over
/// `A` makes 0.9x the baseline).
fn refused_fusion(scop: &Model, p: &PlutoSchedule) -> Vec<bool> {
    let ns = p.schedule.dims.len();
    let mut out = vec![false; ns];
    if !matches!(p.dims.first(), Some(DimKind::Scalar)) {
        return out;
    }
    let is_loop = |k: usize| matches!(p.dims[k], DimKind::Loop { .. });
    let inner_cuts: Vec<usize> = (1..p.dims.len())
        .filter(|&k| !is_loop(k) && (1..k).any(is_loop) && (k + 1..p.dims.len()).any(is_loop))
        .collect();
    let at = |s: usize, k: usize| p.schedule.dims[s].get(k).and_then(Form::as_constant);
    for a in 0..ns {
        for b in a + 1..ns {
            if at(a, 0) == at(b, 0)
                && inner_cuts.iter().any(|&k| at(a, k) != at(b, k))
                && scop.statements[a]
                    .shared_read(&scop.statements[b])
                    .is_none()
            {
                out[a] = true;
                out[b] = true;
            }
        }
    }
    out
}

/// [`schedule`] under a given outermost hyperplane: `prefix` (one form
/// per statement, over its iterators) is the first loop dimension, a band
/// of its own, and the scheduler finds the dimensions inside it for the
/// dependences it leaves unordered (those it satisfies no longer
/// constrain them). The steps of a strip-mined wavefront
/// ([`crate::rewrite::steps`]): the step outermost, each step's work
/// distributed for parallelism inside it. [`PlutoError::IllegalPrefix`]
/// when some dependence has a negative distance along `prefix`.
pub fn schedule_after(
    scop: &Model,
    all_deps: &[Dependence],
    options: &Options,
    prefix: &[Form],
) -> Result<PlutoSchedule, PlutoError> {
    schedule_split(scop, all_deps, options, &[], Some(prefix))
}

/// [`schedule`], with the statements marked in `split` kept out of the
/// first cut's fusion, under `prefix` ([`schedule_after`]) when given.
fn schedule_split(
    scop: &Model,
    all_deps: &[Dependence],
    options: &Options,
    split: &[bool],
    prefix: Option<&[Form]>,
) -> Result<PlutoSchedule, PlutoError> {
    // RAW, WAR and WAW relations between the same statements are often the
    // same polyhedron: schedule with one representative of each.
    let mut deps: Vec<Dependence> = Vec::new();
    for d in all_deps {
        let same = |e: &Dependence| {
            e.source == d.source
                && e.sink == d.sink
                && e.relation.len() == d.relation.len()
                && e.relation.iter().zip(&d.relation).all(|(a, b)| {
                    a.n_local() == b.n_local() && a.eqs() == b.eqs() && a.ineqs() == b.ineqs()
                })
        };
        if !deps.iter().any(same) {
            deps.push(d.clone());
        }
    }
    if options.align_shared_reads {
        let aligned = crate::deps::shared_reads(scop).map_err(|e| PlutoError::Math(e.0))?;
        deps.extend(aligned);
    }
    let deps = &deps[..];
    let mut t_farkas = std::time::Duration::ZERO;
    let mut t_lexmin = std::time::Duration::ZERO;
    let mut t_check = std::time::Duration::ZERO;
    let mut n_ilps = 0;
    let ns = scop.statements.len();
    let size = size_constant(deps);
    let lay = Layout::new(scop, scop.params.len() + usize::from(size.is_some()));
    let mut rows: Vec<Vec<Vec<i64>>> = vec![Vec::new(); ns]; // iterator coefficient rows per statement
    let mut dims: Vec<Vec<Form>> = vec![Vec::new(); ns];
    let mut kinds = Vec::new();
    let mut ilp_size = (lay.n, 0);
    // `live`: not satisfied by an earlier band — constrains legality (so
    // that every band is permutable) until the current band ends.
    // `unsat`: not satisfied by any earlier dimension — decides coincidence.
    let mut live: Vec<bool> = vec![true; deps.len()];
    let mut unsat: Vec<bool> = vec![true; deps.len()];
    let mut band = 0;
    let mut band_open = false;
    let mut stmt_coincident: Vec<(usize, Vec<bool>)> = Vec::new();
    let mut band_coincident: Vec<(usize, bool)> = Vec::new();
    let mut stmt_band_coincident: Vec<(usize, Vec<bool>)> = Vec::new();
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
    let mut cache: Vec<Option<DepRows>> = vec![None; deps.len()];
    let mut pool = RowPool::default();
    let full = |rows: &Vec<Vec<Vec<i64>>>| -> Result<bool, MathError> {
        for (s, st) in scop.statements.iter().enumerate() {
            if rank(&rows[s], st.iters.len())? < st.iters.len() {
                return Ok(false);
            }
        }
        Ok(true)
    };
    // Cuts the graph of `active` dependences into groups with a scalar
    // dimension; returns false when there is only one group.
    let cut = |dims: &mut Vec<Vec<Form>>,
               kinds: &mut Vec<DimKind>,
               live: &mut Vec<bool>,
               unsat: &mut Vec<bool>,
               group: Vec<usize>|
     -> bool {
        if group.iter().all(|&g| g == group[0]) {
            return false;
        }
        for (di, d) in deps.iter().enumerate() {
            if group[d.source.0] != group[d.sink.0] {
                live[di] = false;
                unsat[di] = false;
            }
        }
        for s in 0..ns {
            dims[s].push(Form::constant(group[s] as i64));
        }
        kinds.push(DimKind::Scalar);
        true
    };
    // Builds and solves the ILP of one hyperplane over the `active`
    // statements (the others get a zero row) and the `live` dependences
    // between them; `None` when no hyperplane orders any statement.
    let mut hyperplane = |rows: &[Vec<Vec<i64>>],
                          live: &[bool],
                          active: &[bool],
                          indep: Independence|
     -> Result<Option<Vec<i64>>, PlutoError> {
        let mut eqs: Vec<Vec<i64>> = Vec::new();
        let mut ineqs: Vec<Vec<i64>> = Vec::new();
        let unit = |v: usize, c: i64, k: i64| {
            let mut r = vec![0i64; lay.n + 1];
            r[v] = c;
            r[lay.n] = k;
            r
        };
        // Σ coefficients and Σ shifts as leading objectives.
        let mut sc = unit(lay.sum_coef(), -1, 0);
        let mut ss = unit(lay.sum_shift(), -1, 0);
        for (s, st) in scop.statements.iter().enumerate() {
            let m = st.iters.len();
            let (coef_hi, shift_hi) = if active[s] {
                (options.max_coef, SHIFT_BOUND)
            } else {
                (0, 0)
            };
            for k in 0..m {
                sc[lay.coef(s, k)] = 1;
                ineqs.push(unit(lay.coef(s, k), -1, coef_hi));
            }
            ss[lay.shift(s)] = 1;
            ineqs.push(unit(lay.shift(s), -1, shift_hi));
            if active[s] && rank(&rows[s], m)? < m {
                let null = null_space(&rows[s], m)?;
                match indep {
                    Independence::Pluto => {
                        let mut sum = vec![0i64; lay.n + 1];
                        for v in &null {
                            let mut r = vec![0i64; lay.n + 1];
                            for k in 0..m {
                                r[lay.coef(s, k)] = v[k];
                                sum[lay.coef(s, k)] += v[k];
                            }
                            ineqs.push(r);
                        }
                        sum[lay.n] = -1;
                        ineqs.push(sum);
                    }
                    Independence::Along(which, sign) => {
                        // sign·(v·c) >= 1 for one basis vector v.
                        let v = &null[which.min(null.len() - 1)];
                        let mut r = vec![0i64; lay.n + 1];
                        for k in 0..m {
                            r[lay.coef(s, k)] = sign * v[k];
                        }
                        r[lay.n] = -1;
                        ineqs.push(r);
                    }
                }
            }
        }
        eqs.push(sc);
        eqs.push(ss);
        let mut infeasible = false;
        let mut used: Vec<bool> = Vec::new();
        for (di, d) in deps.iter().enumerate() {
            if !live[di] || !active[d.source.0] || !active[d.sink.0] {
                continue;
            }
            if cache[di].is_none() {
                let t0 = std::time::Instant::now();
                let pieces = d
                    .relation
                    .iter()
                    .map(|p| match size {
                        Some(n) => generalize(p, n),
                        None => Ok(p.clone()),
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                cache[di] = Some(dep_rows(
                    scop,
                    &lay,
                    d,
                    &pieces,
                    options.max_coef,
                    &mut pool,
                )?);
                t_farkas += t0.elapsed();
            }
            let r = cache[di].as_ref().expect("cached above");
            infeasible |= r.infeasible;
            eqs.extend(r.eqs.iter().cloned());
            used.resize(pool.rows.len(), false);
            for &id in &r.ineqs {
                if !used[id] {
                    used[id] = true;
                    ineqs.push(pool.rows[id].clone());
                }
            }
            if ineqs.len() + eqs.len() > ILP_ROW_LIMIT {
                return Err(PlutoError::TooLarge(ineqs.len() + eqs.len()));
            }
        }
        ilp_size.1 = ilp_size.1.max(eqs.len() + ineqs.len());
        if infeasible {
            return Ok(None);
        }
        if let Ok(path) = std::env::var("POLYRS_DUMP_ILP") {
            dump_ilp(&path, lay.n, &eqs, &ineqs);
        }
        let t0 = std::time::Instant::now();
        let r = lexmin_nonneg_unique(lay.n, &eqs, &ineqs)?;
        t_lexmin += t0.elapsed();
        n_ilps += 1;
        // A hyperplane with no iterator coefficient for any statement
        // orders nothing: treat it as none found.
        Ok(match r {
            Optimum::Bounded(x)
                if (0..ns).any(|s| (0..lay.m[s]).any(|k| x[lay.coef(s, k)] != 0)) =>
            {
                Some(x)
            }
            _ => None,
        })
    };
    let short = short_reductions(scop, options.short_reduction);
    let all_active = vec![true; ns];
    if let Some(phi) = prefix {
        for d in deps {
            if !nonnegative(scop, d, phi)? {
                return Err(PlutoError::IllegalPrefix);
            }
        }
        let mut per_stmt = vec![true; ns];
        for d in deps {
            if (per_stmt[d.source.0] || per_stmt[d.sink.0]) && !zero_distance(scop, d, phi)? {
                per_stmt[d.source.0] = false;
                per_stmt[d.sink.0] = false;
            }
        }
        let coincident = per_stmt.iter().all(|&c| c);
        band_coincident.push((kinds.len(), coincident));
        stmt_band_coincident.push((kinds.len(), per_stmt.clone()));
        stmt_coincident.push((kinds.len(), per_stmt));
        for (s, f) in phi.iter().enumerate() {
            if !f.iters.iter().all(|&c| c == 0) {
                let mut row = f.iters.clone();
                row.resize(lay.m[s], 0);
                rows[s].push(row);
            }
            dims[s].push(f.clone());
        }
        kinds.push(DimKind::Loop { band, coincident });
        for (di, d) in deps.iter().enumerate() {
            if satisfied(scop, d, phi)? {
                unsat[di] = false;
                live[di] = false;
            }
        }
        band += 1;
    }
    if options.fuse != Fuse::Max {
        let group = cut_groups(scop, deps, &unsat, options.fuse, split);
        cut(&mut dims, &mut kinds, &mut live, &mut unsat, group);
    }
    loop {
        let is_full = full(&rows)?;
        if is_full && !unsat.iter().any(|&u| u) {
            break;
        }
        if kinds.len() > max_dims {
            break;
        }
        if is_full {
            // Every statement has its loops; what remains are dependences
            // inside one time point: order them by a scalar dimension.
            let group = cut_groups(scop, deps, &unsat, Fuse::No, &[]);
            if cut(&mut dims, &mut kinds, &mut live, &mut unsat, group) {
                if band_open {
                    band += 1;
                    band_open = false;
                }
                continue;
            }
        }
        let mut solution = hyperplane(&rows, &live, &all_active, Independence::Pluto)?;
        if solution.is_none() {
            // Statements with no live dependence between them (split by an
            // earlier scalar dimension, say) constrain each other only
            // through the shared ILP: one group with no hyperplane left
            // (ludcmp's back substitution, whose `x[i]` statement has no
            // loop left for its reduction) would end every group's band
            // (ludcmp's LU factorization: a 3-D band instead of `i` alone).
            // Each group gets its own hyperplane; one without gets a
            // constant row and waits for the distribution.
            let comp = components(ns, deps, &live);
            let ncomp = comp.iter().max().map_or(0, |m| m + 1);
            if ncomp > 1 {
                let mut x = vec![0i64; lay.n];
                // Loop depths of the deepest statement with a hyperplane
                // and of the deepest one without.
                let (mut found, mut stuck) = (0, 0);
                for c in 0..ncomp {
                    let active: Vec<bool> = comp.iter().map(|&k| k == c).collect();
                    let depth = (0..ns).filter(|&s| active[s]).map(|s| lay.m[s]).max();
                    match hyperplane(&rows, &live, &active, Independence::Pluto)? {
                        Some(y) => {
                            for s in (0..ns).filter(|&s| active[s]) {
                                for k in 0..lay.m[s] {
                                    x[lay.coef(s, k)] = y[lay.coef(s, k)];
                                }
                                x[lay.shift(s)] = y[lay.shift(s)];
                            }
                            found = found.max(depth.unwrap_or(0));
                        }
                        None => stuck = stuck.max(depth.unwrap_or(0)),
                    }
                }
                // Only statements of fewer loops than the deepest wait:
                // groups of equal depth keep distributing together, each
                // then with loops of its own (and parallel flags of its
                // own: a dimension's flag is shared by all statements).
                if found > stuck {
                    solution = Some(x);
                }
            }
        }
        if solution.is_none() && !(band_open && live.iter().zip(&unsat).any(|(&l, &u)| l && !u)) {
            let group = cut_groups(scop, deps, &unsat, Fuse::No, &[]);
            if !crosses(deps, &group, &unsat) {
                // Pluto's independence constraints ask the new row for a
                // positive component on the sum of the orthogonal
                // complement's basis, oriented non-negative where it can
                // be: complete when the basis vectors have one sign, not
                // otherwise (a first row `i + j` leaves `(-1, 1)`, and no
                // legal row of non-negative coefficients has a positive
                // component along it, while `i` has a negative one). Each
                // basis vector, with each sign, is tried instead.
                let widest = (0..ns)
                    .map(|s| lay.m[s] - rank(&rows[s], lay.m[s]).unwrap_or(lay.m[s]))
                    .max()
                    .unwrap_or(0);
                'alt: for which in 0..widest {
                    for sign in [1, -1] {
                        let indep = Independence::Along(which, sign);
                        if let Some(x) = hyperplane(&rows, &live, &all_active, indep)? {
                            solution = Some(x);
                            break 'alt;
                        }
                    }
                }
            }
        }
        // No skews of short loops: end the band instead, where that
        // drops some dependence (else the next band would find the same
        // hyperplane, and takes it).
        if band_open && live.iter().zip(&unsat).any(|(&l, &u)| l && !u) {
            if let Some(x) = &solution {
                if skews_short_loops(&lay, x, &rows, &short)? {
                    solution = None;
                }
            }
        }
        match solution {
            Some(x) => {
                let phi: Vec<Form> = (0..ns)
                    .map(|s| Form {
                        params: Vec::new(),
                        iters: (0..lay.m[s]).map(|k| x[lay.coef(s, k)]).collect(),
                        locals: Vec::new(),
                        constant: x[lay.shift(s)],
                    })
                    .collect();
                let t0 = std::time::Instant::now();
                let mut coincident = true;
                let mut per_stmt = vec![true; ns];
                for (di, d) in deps.iter().enumerate() {
                    if unsat[di]
                        && (per_stmt[d.source.0] || per_stmt[d.sink.0])
                        && !zero_distance(scop, d, &phi)?
                    {
                        coincident = false;
                        per_stmt[d.source.0] = false;
                        per_stmt[d.sink.0] = false;
                    }
                }
                // Distribution for parallelism (see the module text).
                if options.coincidence_cut && !band_open && !coincident {
                    let group = cut_groups(scop, deps, &unsat, Fuse::No, &[]);
                    // Only a cut that takes apart statements sharing their
                    // dimensions so far (another would repeat itself).
                    let splits = (0..ns)
                        .any(|a| (a + 1..ns).any(|b| dims[a] == dims[b] && group[a] != group[b]));
                    if splits && cut(&mut dims, &mut kinds, &mut live, &mut unsat, group) {
                        continue;
                    }
                }
                // Per statement too: the dependences the band's earlier
                // dimensions satisfy, of that statement.
                let mut per_stmt_band = per_stmt.clone();
                for (di, d) in deps.iter().enumerate() {
                    if live[di]
                        && !unsat[di]
                        && (per_stmt_band[d.source.0] || per_stmt_band[d.sink.0])
                        && !zero_distance(scop, d, &phi)?
                    {
                        per_stmt_band[d.source.0] = false;
                        per_stmt_band[d.sink.0] = false;
                    }
                }
                let in_band = coincident && per_stmt_band.iter().all(|&c| c);
                band_coincident.push((kinds.len(), in_band));
                band_open = true;
                stmt_band_coincident.push((kinds.len(), per_stmt_band));
                stmt_coincident.push((kinds.len(), per_stmt));
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
                t_check += t0.elapsed();
            }
            None if band_open && live.iter().zip(&unsat).any(|(&l, &u)| l && !u) => {
                // End the band: what it satisfied no longer constrains.
                for (l, &u) in live.iter_mut().zip(&unsat) {
                    *l = *l && u;
                }
                band += 1;
                band_open = false;
            }
            None => {
                // Distribute: cut between strongly connected components
                // (under `fuse=max`, only where no hyperplane is shared).
                let mut group = cut_groups(scop, deps, &unsat, Fuse::No, &[]);
                if options.fuse == Fuse::Max {
                    group = fused_groups(&group, |active| {
                        hyperplane(&rows, &live, active, Independence::Pluto)
                    })?;
                }
                if !crosses(deps, &group, &unsat) {
                    // Nothing to distribute either: complete the schedule
                    // with the original one (below).
                    break;
                }
                cut(&mut dims, &mut kinds, &mut live, &mut unsat, group);
                if band_open {
                    band += 1;
                    band_open = false;
                }
            }
        }
    }
    // Pluto's last resort, which never fails: the original schedule's
    // dimensions after the ones found. Every dependence instance is ordered
    // by the first dimension found with a non-zero distance (positive: the
    // found dimensions are legal for it), or, when they all have distance
    // zero, by the original schedule, which orders every dependence. Each
    // appended loop dimension is a band of its own.
    if full(&rows)? && !unsat.iter().any(|&u| u) {
        // Done: every statement has its loops and every dependence is
        // satisfied.
    } else {
        let original = Schedule::original(scop);
        if band_open {
            band += 1;
        }
        for k in 0..original.dims.first().map_or(0, Vec::len) {
            let phi: Vec<Form> = (0..ns).map(|s| original.dims[s][k].clone()).collect();
            if phi.iter().all(|f| f.as_constant().is_some()) {
                for (s, f) in phi.iter().enumerate() {
                    dims[s].push(f.clone());
                }
                kinds.push(DimKind::Scalar);
            } else {
                let mut coincident = true;
                let mut per_stmt = vec![true; ns];
                for (di, d) in deps.iter().enumerate() {
                    if unsat[di]
                        && (per_stmt[d.source.0] || per_stmt[d.sink.0])
                        && !zero_distance(scop, d, &phi)?
                    {
                        coincident = false;
                        per_stmt[d.source.0] = false;
                        per_stmt[d.sink.0] = false;
                    }
                }
                stmt_band_coincident.push((kinds.len(), per_stmt.clone()));
                stmt_coincident.push((kinds.len(), per_stmt));
                band_coincident.push((kinds.len(), coincident));
                for (s, f) in phi.iter().enumerate() {
                    dims[s].push(f.clone());
                }
                kinds.push(DimKind::Loop { band, coincident });
                band += 1;
            }
            for (di, d) in deps.iter().enumerate() {
                if unsat[di] && satisfied(scop, d, &phi)? {
                    unsat[di] = false;
                }
            }
        }
    }
    let mut per_dim = vec![vec![false; ns]; kinds.len()];
    for (k, flags) in stmt_coincident {
        per_dim[k] = flags;
    }
    let mut in_band = vec![false; kinds.len()];
    for (k, c) in band_coincident {
        in_band[k] = c;
    }
    let mut per_dim_band = vec![vec![false; ns]; kinds.len()];
    for (k, flags) in stmt_band_coincident {
        per_dim_band[k] = flags;
    }
    Ok(PlutoSchedule {
        schedule: Schedule {
            dims,
            locals: vec![Locals::default(); ns],
        },
        dims: kinds,
        band_coincident: in_band,
        stmt_coincident: per_dim,
        stmt_band_coincident: per_dim_band,
        stats: Stats {
            deps: all_deps.len(),
            distinct_deps: deps.len(),
            farkas_rows: pool.rows.len(),
            ilps: n_ilps,
            largest_ilp: ilp_size,
            farkas_time: t_farkas,
            ilp_time: t_lexmin,
            check_time: t_check,
        },
    })
}

/// Per statement, per iterator: whether its loop is a short reduction: a
/// constant extent of at most `most` iterations, along which the
/// statement's writes stay on one cell (a convolution's filter window; not
/// the rows of a stencil over a small grid, which it writes).
fn short_reductions(scop: &Model, most: i64) -> Vec<Vec<bool>> {
    scop.statements
        .iter()
        .enumerate()
        .map(|(s, st)| {
            (0..st.iters.len())
                .map(|k| {
                    let stays = st
                        .accesses
                        .iter()
                        .filter(|a| a.kind == AccessKind::Write)
                        .all(|a| a.index.iter().all(|f| f.iter_coef(k) == 0));
                    stays
                        && scop
                            .range_of(s, &Form::iter(k))
                            .is_some_and(|(lo, hi)| hi - lo < most)
                })
                .collect()
        })
        .collect()
}

/// True when hyperplane `x` skews short reductions into the band, for some
/// statement: it has two iterator coefficients or more, and each iterator
/// it adds to the statement's `rows` so far (not in their span) is a short
/// reduction (`short`). A convolution's `2·kh + kw` adds `kw` and NCHW's
/// `2·c + kh` adds `kh`: both are. A stencil's `t + i` after `t` adds `i`,
/// a loop along which it writes, even over few time steps and a small grid:
/// time tiles stay.
fn skews_short_loops(
    lay: &Layout,
    x: &[i64],
    rows: &[Vec<Vec<i64>>],
    short: &[Vec<bool>],
) -> Result<bool, MathError> {
    for (s, short) in short.iter().enumerate() {
        let m = lay.m[s];
        let on: Vec<usize> = (0..m).filter(|&k| x[lay.coef(s, k)] != 0).collect();
        if on.len() < 2 {
            continue;
        }
        let base = rank(&rows[s], m)?;
        let mut adds_long = false;
        let mut adds = false;
        for &k in &on {
            let mut with = rows[s].clone();
            let mut e = vec![0i64; m];
            e[k] = 1;
            with.push(e);
            if rank(&with, m)? > base {
                adds = true;
                adds_long |= !short[k];
            }
        }
        if adds && !adds_long {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Rank of the rows (each of length `m`).
fn rank(rows: &[Vec<i64>], m: usize) -> Result<usize, MathError> {
    Ok(m - null_space(rows, m)?.len())
}
