//! Exact memory-based dependences between statement instances.
//!
//! For two accesses `a` (in statement `S`) and `b` (in `T`) to the same array,
//! at least one a write, the dependence from `S` to `T` is
//!
//! ```text
//! { S[i] -> T[j] : i ∈ D_S, j ∈ D_T, A_a(i) = A_b(j), θ_S(i) ≺ θ_T(j) }
//! ```
//!
//! with `θ` the original schedule. The lexicographic order is split by the
//! level that decides it: with `c` iterators of loops shared by `S` and `T`,
//! level `k < c` means `i_0..i_(k-1)` equal and `i_k < j_k` (carried by the
//! loop of iterator `k`, depth `k + 1`), and level `c` means all shared
//! iterators equal and `S` textually before `T` (loop-independent). Each
//! non-empty level gives one [`Dependence`], built directly as constraint
//! rows over `[params | i | j | locals(S) | locals(T) | 1]` and tested for
//! integer emptiness by the math core — no projection, so nothing is
//! approximated. A math-core failure (a limit) is reported as an error
//! instead of being treated as "no dependence".

use std::collections::HashMap;

use thiserror::Error;

use crate::math::rational::Rational;
use crate::math::simplex::LpSolver;
use crate::math::{BasicRel, DimKind, MathError, Optimum, Space, Tuple, UnionRel};
use crate::scop::model::{insert_zeros, piece_rows, AccessKind, ArrayId, Model, Statement, StmtId};

/// The kind of a dependence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum DepKind {
    /// Read after write (flow).
    Raw,
    /// Write after read (anti).
    War,
    /// Write after write (output).
    Waw,
    /// Read after read (input; only for locality).
    Rar,
}

impl DepKind {
    /// `RAW`, `WAR`, `WAW` or `RAR`.
    pub fn as_str(self) -> &'static str {
        match self {
            DepKind::Raw => "RAW",
            DepKind::War => "WAR",
            DepKind::Waw => "WAW",
            DepKind::Rar => "RAR",
        }
    }
}

/// The range of one distance component over the whole relation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Range {
    /// The smallest value; `None` when unbounded below.
    pub min: Option<i64>,
    /// The largest value; `None` when unbounded above.
    pub max: Option<i64>,
}

impl Range {
    /// The smallest range holding both.
    pub fn merge(self, o: Range) -> Range {
        let lo = match (self.min, o.min) {
            (Some(a), Some(b)) => Some(a.min(b)),
            _ => None,
        };
        let hi = match (self.max, o.max) {
            (Some(a), Some(b)) => Some(a.max(b)),
            _ => None,
        };
        Range { min: lo, max: hi }
    }

    /// The distance as text: `1` (constant), `-1..1` (bounded), `>=1`,
    /// `<=-1` (bounded on one side), `*` (unbounded both ways).
    pub fn summary(&self) -> String {
        match (self.min, self.max) {
            (Some(a), Some(b)) if a == b => a.to_string(),
            (Some(a), Some(b)) => format!("{a}..{b}"),
            (Some(a), None) => format!(">={a}"),
            (None, Some(b)) => format!("<={b}"),
            (None, None) => "*".into(),
        }
    }
}

/// One dependence relation.
#[derive(Debug, Clone)]
pub struct Dependence {
    /// The kind.
    pub kind: DepKind,
    /// The source statement.
    pub source: StmtId,
    /// The sink statement.
    pub sink: StmtId,
    /// The (source, sink) access pairs that contribute (indices into the
    /// statements' accesses).
    pub accesses: Vec<(usize, usize)>,
    /// The array.
    pub array: ArrayId,
    /// The loop depth (1-based, counting iterators) that carries it; `None`
    /// for a loop-independent dependence.
    pub depth: Option<usize>,
    /// The relation, one basic map per pair of domain pieces (non-empty ones).
    pub relation: Vec<BasicRel>,
    /// Distance ranges of the shared iterators (`j_k - i_k`).
    pub distance: Vec<Range>,
}

/// Why dependence analysis failed: a limit of the math core. The caller must
/// not optimize the SCoP (a failed test never counts as "independent").
#[derive(Debug, Clone, Error)]
#[error("dependence analysis failed: {0}")]
pub struct DepsError(#[from] pub MathError);

/// Options of the analysis.
#[derive(Debug, Clone, Copy, Default)]
pub struct DepOptions {
    /// Also compute read-after-read dependences.
    pub rar: bool,
}

/// True when access `k` of `s` equals an earlier access of `s`.
fn is_repeat(s: &Statement, k: usize) -> bool {
    let a = &s.accesses[k];
    s.accesses[..k]
        .iter()
        .any(|b| b.kind == a.kind && b.array == a.array && b.index == a.index)
}

/// Number of iterators of loops shared by two statements.
pub(crate) fn shared_iters(s: &Statement, t: &Statement) -> usize {
    s.loops
        .iter()
        .zip(&t.loops)
        .take_while(|(a, b)| a == b)
        .count()
}

/// Number of loop levels (ops) shared: the index into `beta` where they diverge.
pub(crate) fn shared_levels(s: &Statement, shared_iters: usize) -> usize {
    s.depth_iters
        .iter()
        .take_while(|&&d| d <= shared_iters)
        .count()
}

/// A relation's inputs: source statement and access, sink statement and
/// access, level and shared iterators.
type RelationKey = (usize, usize, usize, usize, usize, usize);

/// Computes all dependences of `scop`: one [`Dependence`] per kind, source,
/// sink, array and carrying depth (the access pairs that give the same
/// key are merged into one union relation).
pub fn compute(scop: &Model, opts: DepOptions) -> Result<Vec<Dependence>, DepsError> {
    let mut out = Vec::new();
    let n = scop.statements.len();
    // A relation depends on the two accesses' subscripts, not on their
    // kinds: a statement's read and write of one cell (`x[i] += ...`) give
    // the same relations as a flow, anti and output dependence. Each is
    // built once, under the first access of its statement with the same
    // array and subscripts.
    let first_alike = |st: &Statement, k: usize| {
        let a = &st.accesses[k];
        (0..k)
            .find(|&j| st.accesses[j].array == a.array && st.accesses[j].index == a.index)
            .unwrap_or(k)
    };
    let mut relations: HashMap<RelationKey, Vec<BasicRel>> = HashMap::new();
    let mut relation = |si: usize, ai: usize, ti: usize, bi: usize, level: usize, c: usize| {
        let (s, t) = (&scop.statements[si], &scop.statements[ti]);
        let key = (si, first_alike(s, ai), ti, first_alike(t, bi), level, c);
        if let Some(p) = relations.get(&key) {
            return Ok::<_, DepsError>(p.clone());
        }
        let p = relation(scop, (StmtId(si), key.1), (StmtId(ti), key.3), level, c)?;
        relations.insert(key, p.clone());
        Ok(p)
    };
    for si in 0..n {
        for ti in 0..n {
            let (s, t) = (&scop.statements[si], &scop.statements[ti]);
            for (ai, a) in s.accesses.iter().enumerate() {
                for (bi, b) in t.accesses.iter().enumerate() {
                    if a.array != b.array {
                        continue;
                    }
                    let kind = match (a.kind, b.kind) {
                        (AccessKind::Write, AccessKind::Read) => DepKind::Raw,
                        (AccessKind::Read, AccessKind::Write) => DepKind::War,
                        (AccessKind::Write, AccessKind::Write) => DepKind::Waw,
                        (AccessKind::Read, AccessKind::Read) if opts.rar => DepKind::Rar,
                        _ => continue,
                    };
                    // An access that repeats an earlier one of the same
                    // statement (same kind, array and index) adds nothing.
                    if is_repeat(s, ai) || is_repeat(t, bi) {
                        continue;
                    }
                    let c = shared_iters(s, t);
                    // With several levels to try, first ask whether the
                    // instances touch the same cell at all, in any order.
                    if c > 0 && relation(si, ai, ti, bi, 0, 0)?.is_empty() {
                        continue;
                    }
                    for level in 0..=c {
                        if level == c {
                            let l = shared_levels(s, c);
                            let before = si != ti && s.beta.get(l) < t.beta.get(l);
                            if !before {
                                continue;
                            }
                        }
                        let pieces = relation(si, ai, ti, bi, level, c)?;
                        if pieces.is_empty() {
                            continue;
                        }
                        let depth = (level < c).then_some(level + 1);
                        let same = |d: &&mut Dependence| {
                            d.kind == kind
                                && d.source.0 == si
                                && d.sink.0 == ti
                                && d.array == a.array
                                && d.depth == depth
                        };
                        if let Some(d) = out.iter_mut().find(same) {
                            d.accesses.push((ai, bi));
                            for p in pieces {
                                if !d.relation.contains(&p) {
                                    d.relation.push(p);
                                }
                            }
                        } else {
                            out.push(Dependence {
                                kind,
                                source: StmtId(si),
                                sink: StmtId(ti),
                                accesses: vec![(ai, bi)],
                                array: a.array,
                                depth,
                                relation: pieces,
                                distance: Vec::new(),
                            });
                        }
                    }
                }
            }
        }
    }
    // Distances once per merged relation (dependences of other kinds
    // between the same statements often have the same relation).
    for i in 0..out.len() {
        let d = &out[i];
        let alike = out[..i]
            .iter()
            .find(|e| e.source == d.source && e.sink == d.sink && e.relation == d.relation);
        let distance = match alike {
            Some(e) => e.distance.clone(),
            None => {
                let s = &scop.statements[d.source.0];
                let c = shared_iters(s, &scop.statements[d.sink.0]);
                (0..c)
                    .map(|k| distance_range(&d.relation, scop, s, k))
                    .collect::<Result<_, _>>()?
            }
        };
        out[i].distance = distance;
    }
    Ok(out)
}

/// The read-after-read dependences that tie two statements of one
/// innermost input loop reading one array at the same subscripts (bicg's
/// `A[i][j]`, read by `s[j] += r[i] * A[i][j]` and `q[i] += A[i][j] *
/// p[j]`): for each such pair, from the earlier statement's instance to
/// the later one's at the same iteration. Not needed for legality; a
/// scheduler that respects them gives both statements the same
/// hyperplanes, so that the second read finds the cell the first has just
/// brought in ([`crate::sched::pluto::Options::align_shared_reads`]).
pub fn shared_reads(scop: &Model) -> Result<Vec<Dependence>, DepsError> {
    let mut out = Vec::new();
    let sts = &scop.statements;
    for si in 0..sts.len() {
        for ti in 0..sts.len() {
            let (s, t) = (&sts[si], &sts[ti]);
            if si == ti || s.loops != t.loops || s.loops.is_empty() {
                continue;
            }
            let c = shared_iters(s, t);
            let l = shared_levels(s, c);
            if s.beta.get(l) >= t.beta.get(l) {
                continue;
            }
            let pair = s.accesses.iter().enumerate().find_map(|(ai, a)| {
                let bi = t.accesses.iter().position(|b| {
                    a.kind == AccessKind::Read
                        && b.kind == AccessKind::Read
                        && a.array == b.array
                        && a.index == b.index
                })?;
                Some((ai, bi, a.array))
            });
            let Some((ai, bi, array)) = pair else {
                continue;
            };
            let pieces = relation(scop, (StmtId(si), ai), (StmtId(ti), bi), c, c)?;
            if pieces.is_empty() {
                continue;
            }
            let distance = (0..c)
                .map(|k| distance_range(&pieces, scop, s, k))
                .collect::<Result<_, _>>()?;
            out.push(Dependence {
                kind: DepKind::Rar,
                source: StmtId(si),
                sink: StmtId(ti),
                accesses: vec![(ai, bi)],
                array,
                depth: None,
                relation: pieces,
                distance,
            });
        }
    }
    Ok(out)
}

/// True when some instance of read access `b` of statement `t` may read a
/// value from before the SCoP: no write of the SCoP to the same cell comes
/// before it in the original schedule (for some values of the parameters).
/// The GPU target copies an array to the device only when one of its reads
/// does.
pub fn reads_live_in(scop: &Model, t: StmtId, b: usize) -> Result<bool, DepsError> {
    let tt = &scop.statements[t.0];
    let array = tt.accesses[b].array;
    let mut covered = Vec::new();
    for (si, s) in scop.statements.iter().enumerate() {
        for (ai, a) in s.accesses.iter().enumerate() {
            if a.kind != AccessKind::Write || a.array != array {
                continue;
            }
            let c = shared_iters(s, tt);
            for level in 0..=c {
                if level == c {
                    let l = shared_levels(s, c);
                    if !(si != t.0 && s.beta.get(l) < tt.beta.get(l)) {
                        continue;
                    }
                }
                for p in relation(scop, (StmtId(si), ai), (t, b), level, c)? {
                    covered.push(p.range()?);
                }
            }
        }
    }
    let domain = UnionRel::from_pieces(&scop.params, scop.domain(t)?)?;
    if covered.is_empty() {
        return Ok(!domain.is_empty()?);
    }
    let covered = UnionRel::from_pieces(&scop.params, covered)?;
    Ok(!domain.is_subset(&covered)?)
}

/// The space `[params] -> { S[i] -> T[j] }`.
fn dep_space(scop: &Model, s: &Statement, t: &Statement) -> Space {
    let tuple = |st: &Statement| {
        Tuple::new(
            Some(&st.name),
            &st.iters.iter().map(String::as_str).collect::<Vec<_>>(),
        )
    };
    let params: Vec<&str> = scop.params.iter().map(String::as_str).collect();
    Space::map(&params, tuple(s), tuple(t))
}

/// Moves a row over `[params | iters | locals | 1]` of one statement (with
/// `ni` iterators and `nl` locals) into a row of `width` columns whose
/// iterators start at `iter_off` and locals at `local_off`.
fn place(
    row: &[i64],
    np: usize,
    ni: usize,
    nl: usize,
    iter_off: usize,
    local_off: usize,
    width: usize,
) -> Vec<i64> {
    let mut r = vec![0; width];
    r[..np].copy_from_slice(&row[..np]);
    r[iter_off..iter_off + ni].copy_from_slice(&row[np..np + ni]);
    r[local_off..local_off + nl].copy_from_slice(&row[np + ni..np + ni + nl]);
    r[width - 1] = row[row.len() - 1];
    r
}

pub(crate) fn relation(
    scop: &Model,
    (s_id, ai): (StmtId, usize),
    (t_id, bi): (StmtId, usize),
    level: usize,
    shared: usize,
) -> Result<Vec<BasicRel>, DepsError> {
    let (s, t) = (&scop.statements[s_id.0], &scop.statements[t_id.0]);
    let np = scop.params.len();
    let (ni, nj) = (s.iters.len(), t.iters.len());
    let (nls, nlt) = (s.locals.count, t.locals.count);
    let width = np + ni + nj + nls + nlt + 1;
    let space = dep_space(scop, s, t);
    let src = |r: &[i64]| place(r, np, ni, nls, np, np + ni + nj, width);
    let snk = |r: &[i64]| place(r, np, nj, nlt, np + ni, np + ni + nj + nls, width);
    let mut pieces = Vec::new();
    // Access equalities and order constraints are the same for every piece.
    let mut common_eqs = Vec::new();
    let mut common_ineqs = Vec::new();
    let (a, b) = (&s.accesses[ai], &t.accesses[bi]);
    for (fa, fb) in a.index.iter().zip(&b.index) {
        let ra = src(&fa.row(np, ni, nls));
        let rb = snk(&fb.row(np, nj, nlt));
        // A_a(i) - A_b(j) == 0
        let row: Vec<i64> = ra
            .iter()
            .zip(&rb)
            .map(|(x, y)| x.checked_sub(*y).ok_or(MathError::Overflow))
            .collect::<Result<_, _>>()?;
        common_eqs.push(row);
    }
    for k in 0..level.min(shared) {
        let mut r = vec![0; width];
        r[np + k] = 1;
        r[np + ni + k] = -1;
        common_eqs.push(r);
    }
    if level < shared {
        // j_level - i_level - 1 >= 0
        let mut r = vec![0; width];
        r[np + level] = -1;
        r[np + ni + level] = 1;
        r[width - 1] = -1;
        common_ineqs.push(r);
    }
    for ps in &s.domain {
        let (seqs, sineqs) = piece_rows(s, ps, np, ni, nls);
        for pt in &t.domain {
            let (teqs, tineqs) = piece_rows(t, pt, np, nj, nlt);
            let mut eqs = common_eqs.clone();
            let mut ineqs = common_ineqs.clone();
            eqs.extend(seqs.iter().map(|r| src(r)));
            ineqs.extend(sineqs.iter().map(|r| src(r)));
            eqs.extend(teqs.iter().map(|r| snk(r)));
            ineqs.extend(tineqs.iter().map(|r| snk(r)));
            let rel = BasicRel::from_constraints(space.clone(), nls + nlt, eqs, ineqs)?;
            if !rel.is_empty()? {
                pieces.push(rel);
            }
        }
    }
    Ok(pieces)
}

/// The integer minimum (or maximum) of the single dimension of `set`,
/// whose rational minimum (maximum) over the rational points of `set` is
/// `r`: `Some(None)` when unbounded, `None` when `set` has no integer
/// point.
///
/// The integer optimum is `⌈r⌉` (`⌊r⌋` for the maximum) exactly when that
/// value is attained by an integer point, which one emptiness test decides.
/// Otherwise (rare: strides or divisions make the bound unreachable) the
/// integer lexicographic optimum is computed.
fn int_bound(set: &BasicRel, max: bool, r: Rational) -> Result<Option<Option<i64>>, DepsError> {
    let guess = if max { r.floor() } else { r.ceil() };
    let guess = i64::try_from(guess).map_err(|_| MathError::Overflow)?;
    if !set.fix(DimKind::Out, 0, guess)?.is_empty()? {
        return Ok(Some(Some(guess)));
    }
    Ok(match set.lexopt(max)? {
        Optimum::Bounded(v) => Some(Some(v[0])),
        Optimum::Unbounded => Some(None),
        Optimum::Empty => None,
    })
}

/// The range of `j_k - i_k` over the relation, with parameters free.
///
/// Per piece, an LP over all columns gives the rational optimum and a vertex;
/// when the vertex is integral the optimum is the integer one (the common
/// case). Otherwise [`int_bound`] decides on the lifted one-dimensional set.
fn distance_range(
    pieces: &[BasicRel],
    scop: &Model,
    s: &Statement,
    k: usize,
) -> Result<Range, DepsError> {
    let np = scop.params.len();
    let ni = s.iters.len();
    let mut min: Option<Option<i64>> = None;
    let mut max: Option<Option<i64>> = None;
    for p in pieces {
        let sys = p.to_system();
        let total = sys.n;
        let mut obj = vec![0i64; total + 1];
        obj[np + k] = -1;
        obj[np + ni + k] = 1;
        let neg: Vec<i64> = obj.iter().map(|c| -c).collect();
        let mut bounds = [None, None];
        // One simplex for both directions (phase 1 once).
        let mut lp = LpSolver::new(sys.n, &sys.eqs, &sys.ineqs)?;
        for (slot, (o, is_max)) in [(&obj, false), (&neg, true)].into_iter().enumerate() {
            bounds[slot] = match lp.min(o)? {
                Optimum::Empty => None,
                Optimum::Unbounded => Some(None),
                Optimum::Bounded((v, x)) if x.iter().all(|r| r.is_integer()) => {
                    let v = if is_max { v.neg()? } else { v };
                    Some(Some(
                        i64::try_from(v.floor()).map_err(|_| MathError::Overflow)?,
                    ))
                }
                // The lifted set's rational optimum is this LP's (the same
                // relaxation, `d` bound to `j_k - i_k`).
                Optimum::Bounded((v, _)) => {
                    let r = if is_max { v.neg()? } else { v };
                    int_bound(&lifted(p, np, ni, k)?, is_max, r)?
                }
            };
        }
        let (Some(lo), Some(hi)) = (bounds[0], bounds[1]) else {
            continue;
        };
        min = Some(match (min, lo) {
            (None, x) => x,
            (Some(Some(a)), Some(b)) => Some(a.min(b)),
            _ => None,
        });
        max = Some(match (max, hi) {
            (None, x) => x,
            (Some(Some(a)), Some(b)) => Some(a.max(b)),
            _ => None,
        });
    }
    Ok(Range {
        min: min.flatten(),
        max: max.flatten(),
    })
}

/// `{ [d] : exists (all columns of p) : p and d = j_k - i_k }`.
fn lifted(p: &BasicRel, np: usize, ni: usize, k: usize) -> Result<BasicRel, DepsError> {
    let total = p.space().n_total() + p.n_local();
    // Everything but the new dim becomes a local: [d | old columns | 1].
    let lift = |row: &[i64]| insert_zeros(row, 0, 1);
    let mut eqs: Vec<Vec<i64>> = p.eqs().iter().map(|r| lift(r)).collect();
    let ineqs: Vec<Vec<i64>> = p.ineqs().iter().map(|r| lift(r)).collect();
    let mut d = vec![0; total + 2];
    d[0] = 1;
    d[1 + np + k] = 1;
    d[1 + np + ni + k] = -1;
    eqs.push(d);
    let space = Space::set(&[], Tuple::anonymous(None, 1));
    Ok(BasicRel::from_constraints(space, total, eqs, ineqs)?)
}

#[cfg(test)]
mod tests {
    use super::{compute, shared_reads, DepKind, DepOptions, Dependence};
    use crate::scop::model::{Model, StmtId};

    fn deps(text: &str, rar: bool) -> (Model, Vec<Dependence>) {
        let m = Model::parse(text).expect("a model");
        let d = compute(&m, DepOptions { rar }).expect("dependences");
        (m, d)
    }

    /// (kind, source, sink, array name, carrying depth) of each dependence.
    fn summary(m: &Model, d: &[Dependence]) -> Vec<(DepKind, usize, usize, String, Option<usize>)> {
        let mut v: Vec<_> = d
            .iter()
            .map(|d| {
                (
                    d.kind,
                    d.source.0,
                    d.sink.0,
                    m.arrays[d.array.0].name.clone(),
                    d.depth,
                )
            })
            .collect();
        v.sort_by_key(|x| format!("{x:?}"));
        v
    }

    #[test]
    fn a_recurrence_has_one_flow_dependence_at_distance_one() {
        let (m, d) = deps(crate::scop::text::examples::RECURRENCE, false);
        assert_eq!(
            summary(&m, &d),
            vec![(DepKind::Raw, 0, 0, "x".into(), Some(1))]
        );
        let r = &d[0].distance[0];
        assert_eq!((r.min, r.max), (Some(1), Some(1)));
    }

    #[test]
    fn gemm_depends_on_c_along_k_only() {
        let (m, d) = deps(crate::scop::text::examples::GEMM, false);
        let s = summary(&m, &d);
        assert!(!s.is_empty());
        // Every dependence is on C, from S0 to S0, carried by k (depth 3),
        // at distance (0, 0, 1).
        for (kind, src, snk, array, depth) in &s {
            assert_eq!(
                (*src, *snk, array.as_str(), *depth),
                (0, 0, "C", Some(3)),
                "{kind:?}"
            );
        }
        let kinds: Vec<DepKind> = s.iter().map(|x| x.0).collect();
        for k in [DepKind::Raw, DepKind::War, DepKind::Waw] {
            assert!(kinds.contains(&k), "{k:?} missing: {kinds:?}");
        }
        for dep in &d {
            let mins: Vec<Option<i64>> = dep.distance.iter().map(|r| r.min).collect();
            assert_eq!(mins, vec![Some(0), Some(0), Some(1)]);
        }
        // Read-after-read dependences on A and B only when asked for.
        let (m, d) = deps(crate::scop::text::examples::GEMM, true);
        let rar: Vec<String> = summary(&m, &d)
            .into_iter()
            .filter(|x| x.0 == DepKind::Rar)
            .map(|x| x.3)
            .collect();
        assert!(rar.contains(&"A".to_string()) && rar.contains(&"B".to_string()));
    }

    /// bicg's two sums over one matrix in one loop nest, and a third
    /// statement of another nest that reads the same cells.
    const BICG: &str = "
        domain: { S0[i, j] : 0 <= i < 8 and 0 <= j < 6; S1[i, j] : 0 <= i < 8 and 0 <= j < 6; S2[i, j] : 0 <= i < 8 and 0 <= j < 6 }
        schedule: { S0[i, j] -> [0, i, 0, j, 0]; S1[i, j] -> [0, i, 0, j, 1]; S2[i, j] -> [1, i, 0, j, 0] }
        writes: { S0[i, j] -> s[j]; S1[i, j] -> q[i]; S2[i, j] -> z[i, j] }
        reads: { S0[i, j] -> s[j]; S0[i, j] -> A[i, j]; S1[i, j] -> q[i]; S1[i, j] -> A[i, j]; S2[i, j] -> A[i, j] }
    ";

    #[test]
    fn shared_reads_tie_two_statements_of_one_loop_at_the_same_iteration() {
        let m = Model::parse(BICG).expect("a model");
        let d = shared_reads(&m).expect("dependences");
        // One, from the earlier statement to the later one of the same
        // loops (not to S2, in loops of its own), at distance 0.
        assert_eq!(
            summary(&m, &d),
            vec![(DepKind::Rar, 0, 1, "A".into(), None)]
        );
        let zero: Vec<(Option<i64>, Option<i64>)> =
            d[0].distance.iter().map(|r| (r.min, r.max)).collect();
        assert_eq!(zero, vec![(Some(0), Some(0)), (Some(0), Some(0))]);
        // Only read-after-read: the legality dependences are another matter.
        let (_, all) = deps(BICG, false);
        assert!(all.iter().all(|x| x.kind != DepKind::Rar));
    }

    #[test]
    fn a_producer_and_its_consumer_in_two_nests() {
        let (m, d) = deps(
            "domain: [N] -> { S0[i] : 0 <= i < N; S1[i] : 0 <= i < N }
             schedule: [N] -> { S0[i] -> [0, i, 0]; S1[i] -> [1, i, 0] }
             writes: [N] -> { S0[i] -> x[i]; S1[i] -> y[i] }
             reads: [N] -> { S1[i] -> x[N - 1 - i] }",
            false,
        );
        // Loop-independent at depth 0 (two nests): no loop carries it.
        assert_eq!(
            summary(&m, &d),
            vec![(DepKind::Raw, 0, 1, "x".into(), None)]
        );
        assert_eq!(d[0].source, StmtId(0));
    }
}
