//! Analyses of a band that the plan's heuristics ask: how each access
//! moves along a point dimension, whether the accesses stream, whether a
//! loop carries only reductions or broadcasts, the extent of a hyperplane,
//! and the point dimensions of a register tile. None decides legality.

use crate::analysis::lanes::LANE_OPS;
use crate::deps::Dependence;
use crate::math::matrix::{rank, unimodular_inverse};
use crate::sched::pluto::{DimKind, PlutoSchedule};
use crate::scop::expansion::byte_strides;
use crate::scop::form::Form;
use crate::scop::model::{AccessKind, Scop};

/// A maximal run of loop dimensions of one band.
#[derive(Debug, Clone)]
pub(super) struct Band {
    pub(super) first: usize,
    pub(super) len: usize,
    /// Per dimension: its loop is parallel when the band is not tiled.
    pub(super) coincident: Vec<bool>,
    /// Per dimension: its tile loop is parallel when the band is tiled
    /// ([`PlutoSchedule::band_coincident`]).
    pub(super) tile_coincident: Vec<bool>,
    /// Per dimension not in `tile_coincident`: the statements whose tile
    /// loops along it may still run in parallel
    /// ([`PlutoSchedule::stmt_band_coincident`]), when every group of
    /// statements sharing the band's loops (same scalar dimensions before
    /// it) either is among them or has loops along one of the band's
    /// dimensions at most (its tiles form a line, which a wavefront would
    /// run in order anyway): gramschmidt's band of `R[k][j] += Q[i][k] *
    /// A[i][j]` and `A[i][j] -= Q[i][k] * R[k][j]`, parallel along `j`,
    /// shared with the norm's reduction along `i`. `None` otherwise.
    pub(super) tile_partial: Vec<Option<Vec<bool>>>,
}

impl Band {
    /// The tile loop of dimension `d` runs in parallel, for every
    /// statement or for those of `tile_partial` (CPU plans; the GPU
    /// mapping asks `tile_coincident`).
    pub(super) fn tile_parallel(&self, d: usize) -> bool {
        self.tile_coincident[d] || self.tile_partial[d].is_some()
    }
}

/// The schedule's permutable bands; `in_order`: [`super::Options::steps`]
/// (groups without parallel tile loops run in order, see
/// [`partial_tile_parallel`]).
pub(super) fn bands(sched: &PlutoSchedule, in_order: bool) -> Vec<Band> {
    let kinds = &sched.dims;
    let mut out: Vec<Band> = Vec::new();
    let mut prev: Option<usize> = None;
    for (k, kind) in kinds.iter().enumerate() {
        let in_band = sched.band_coincident.get(k).copied().unwrap_or(false);
        match kind {
            DimKind::Loop { band, coincident } => {
                if prev == Some(*band) && out.last().is_some_and(|b| b.first + b.len == k) {
                    let b = out.last_mut().expect("checked");
                    b.len += 1;
                    b.coincident.push(*coincident);
                    b.tile_coincident.push(in_band);
                } else {
                    out.push(Band {
                        first: k,
                        len: 1,
                        coincident: vec![*coincident],
                        tile_coincident: vec![in_band],
                        tile_partial: Vec::new(),
                    });
                }
                prev = Some(*band);
            }
            DimKind::Scalar => prev = None,
        }
    }
    for band in &mut out {
        band.tile_partial = (0..band.len)
            .map(|d| partial_tile_parallel(sched, band, d, in_order))
            .collect();
    }
    out
}

/// The statements with the most loops among `members` (the bulk of the
/// work).
pub(super) fn deepest(scop: &Scop, members: &[usize]) -> Vec<usize> {
    let depth = |s: usize| scop.statements[s].iters.len();
    let most = members.iter().map(|&s| depth(s)).max().unwrap_or(0);
    members
        .iter()
        .copied()
        .filter(|&s| depth(s) == most)
        .collect()
}

/// The groups of statements that share the loops of a band starting at
/// dimension `first`: the same values of the scalar dimensions before it
/// (their key), in order of their first statement.
pub(super) fn band_groups(sched: &PlutoSchedule, first: usize) -> Vec<(Vec<i64>, Vec<usize>)> {
    let mut groups: Vec<(Vec<i64>, Vec<usize>)> = Vec::new();
    for (s, row) in sched.schedule.dims.iter().enumerate() {
        let key: Vec<i64> = (0..first)
            .filter(|&k| matches!(sched.dims[k], DimKind::Scalar))
            .map(|k| row[k].as_constant().unwrap_or(i64::MIN))
            .collect();
        match groups.iter_mut().find(|(g, _)| *g == key) {
            Some((_, members)) => members.push(s),
            None => groups.push((key, vec![s])),
        }
    }
    groups
}

/// Whether the tile loop of schedule dimension `k` is parallel for
/// statement `s`'s dependences ([`PlutoSchedule::stmt_band_coincident`]).
pub(super) fn stmt_band_parallel(sched: &PlutoSchedule, k: usize, s: usize) -> bool {
    sched
        .stmt_band_coincident
        .get(k)
        .and_then(|f| f.get(s))
        .copied()
        .unwrap_or(false)
}

/// [`Band::tile_partial`] for dimension `d` of `band`. With `in_order`
/// ([`super::Options::steps`]), the other groups may have loops along
/// several of the band's dimensions: each holds one step's instances,
/// which run in order.
fn partial_tile_parallel(
    sched: &PlutoSchedule,
    band: &Band,
    d: usize,
    in_order: bool,
) -> Option<Vec<bool>> {
    if band.tile_coincident[d] {
        return None;
    }
    let rows = &sched.schedule.dims;
    let ns = rows.len();
    let mask: Vec<bool> = (0..ns)
        .map(|s| stmt_band_parallel(sched, band.first + d, s))
        .collect();
    let has_loop = |s: usize, e: usize| rows[s][band.first + e].iters.iter().any(|&c| c != 0);
    if !(0..ns).any(|s| mask[s] && has_loop(s, d)) {
        return None;
    }
    for (_, group) in band_groups(sched, band.first) {
        if group.iter().all(|&s| mask[s]) {
            continue;
        }
        let loops = (0..band.len)
            .filter(|&e| group.iter().any(|&t| has_loop(t, e)))
            .count();
        if loops > 1 && !in_order {
            return None;
        }
    }
    Some(mask)
}

/// Per access of a statement, its kind and the change of its subscripts.
pub(super) type AccessDeltas = Vec<(AccessKind, Vec<i64>)>;

/// For statement `s`, the change of every access's subscripts when point
/// dimension `d` of the band advances by one with the other dimensions of
/// the statement's schedule fixed: per access, its kind and the deltas.
/// `None` when the statement's hyperplanes are not unimodular around `d`
/// (or it has no iterator along `d`), or a subscript uses a local.
pub(super) fn access_deltas(
    scop: &Scop,
    sched: &PlutoSchedule,
    band: &Band,
    d: usize,
    s: usize,
) -> Option<Vec<(AccessKind, Vec<i64>)>> {
    let st = &scop.statements[s];
    let m = st.iters.len();
    // The statement's full hyperplane matrix: its first m independent
    // rows, with the band's row d among them if it has iterators.
    let rows: Vec<(usize, Vec<i64>)> = sched.schedule.dims[s]
        .iter()
        .enumerate()
        .map(|(k, f)| {
            let mut r = f.iters.clone();
            r.resize(m, 0);
            (k, r)
        })
        .filter(|(_, r)| r.iter().any(|&c| c != 0))
        .collect();
    let mut chosen: Vec<(usize, Vec<i64>)> = Vec::new();
    for (k, r) in rows {
        let mut trial: Vec<Vec<i64>> = chosen.iter().map(|(_, r)| r.clone()).collect();
        trial.push(r.clone());
        if rank(&trial).unwrap_or(0) > chosen.len() {
            chosen.push((k, r));
        }
        if chosen.len() == m {
            break;
        }
    }
    if chosen.len() != m {
        return None;
    }
    let pos = chosen.iter().position(|(k, _)| *k == band.first + d)?;
    let a: Vec<Vec<i64>> = chosen.iter().map(|(_, r)| r.clone()).collect();
    let inv = unimodular_inverse(&a).ok()??;
    // Moving one step along dim `pos`: iterators move by column `pos`.
    let step: Vec<i64> = (0..m).map(|j| inv[j][pos]).collect();
    let mut out = Vec::new();
    for acc in &st.accesses {
        if acc.index.iter().any(|f| f.locals.iter().any(|&c| c != 0)) {
            return None;
        }
        let deltas: Vec<i64> = acc
            .index
            .iter()
            .map(|f| {
                f.iters
                    .iter()
                    .zip(&step)
                    .map(|(a, b)| a.saturating_mul(*b))
                    .sum::<i64>()
            })
            .collect();
        out.push((acc.kind, deltas));
    }
    Some(out)
}

/// True when schedule dimension `k` is one original iterator `i_m` for the
/// statements of `deps`, at least one of them is carried by `i_m`'s loop,
/// and each one carried there has its source or its sink at one iteration
/// of that loop per iteration of the loops around it
/// ([`crate::rewrite::split::endpoint_fixed`]): values broadcast along the
/// loop rather than a recurrence from one iteration to the next. False
/// when that cannot be told (a skewed hyperplane, say).
pub(super) fn broadcast_only(
    scop: &Scop,
    sched: &PlutoSchedule,
    k: usize,
    deps: &[Dependence],
) -> bool {
    let unit = |s: usize| -> Option<usize> {
        let f = sched.schedule.dims.get(s)?.get(k)?;
        let nz: Vec<usize> = (0..f.iters.len()).filter(|&m| f.iters[m] != 0).collect();
        (nz.len() == 1
            && f.iters[nz[0]] == 1
            && f.params.iter().all(|&c| c == 0)
            && f.locals.is_empty())
        .then(|| nz[0])
    };
    let mut carried = 0;
    for d in deps {
        let (Some(a), Some(b)) = (unit(d.source.0), unit(d.sink.0)) else {
            return false;
        };
        if a != b
            || scop.statements[d.source.0].loops.get(a) != scop.statements[d.sink.0].loops.get(a)
        {
            return false;
        }
        if d.depth != Some(a + 1) {
            continue;
        }
        carried += 1;
        if !crate::rewrite::split::endpoint_fixed(scop, d, a).unwrap_or(false) {
            return false;
        }
    }
    carried > 0
}

/// Score of point dimension `d` of a band for the innermost position, over
/// the statements `members`: accesses with unit or zero stride along it;
/// zero when no access has unit stride (vectorizing such a loop would
/// only gather and scatter).
pub(super) fn stride_score(
    scop: &Scop,
    sched: &PlutoSchedule,
    band: &Band,
    d: usize,
    members: &[usize],
) -> i64 {
    let mut score = 0;
    let mut unit = false;
    for &s in members {
        let Some(accesses) = access_deltas(scop, sched, band, d, s) else {
            continue;
        };
        for (_, deltas) in accesses {
            let Some((last, rest)) = deltas.split_last() else {
                continue;
            };
            if rest.iter().all(|&v| v == 0) {
                unit |= last.abs() == 1;
                score += match last.abs() {
                    1 => 2,
                    0 => 1,
                    _ => 0,
                };
            }
        }
    }
    if unit {
        score
    } else {
        0
    }
}

/// True when no domain constraint of `members` ties the iterators of the
/// point dimensions `u` and `v` (a triangular domain such as syrk's
/// `j <= i` does): no register block is cut by the domain apart from the
/// domain's own ends. Hyperplanes that are not single iterators count as
/// tied.
pub(super) fn blocks_rectangular(
    scop: &Scop,
    sched: &PlutoSchedule,
    band: &Band,
    u: usize,
    v: usize,
    members: &[usize],
) -> bool {
    members.iter().all(|&s| {
        let iter_of = |d: usize| sched.schedule.dims[s][band.first + d].single_iter();
        let (Some((iu, _)), Some((iv, _))) = (iter_of(u), iter_of(v)) else {
            return false;
        };
        !scop.statements[s].domain.iter().any(|piece| {
            piece
                .ineqs
                .iter()
                .chain(&piece.eqs)
                .any(|f| f.iter_coef(iu) != 0 && f.iter_coef(iv) != 0)
        })
    })
}

/// The loops after a band, as register tiles see them ([`tail_of`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Tail {
    /// No loop dimension follows the band (scalar ones may).
    None,
    /// Loop dimensions follow the band, all of them loops of unit
    /// iterators for every statement (a convolution's filter window and
    /// channels, each a band of its own): the register tiles may take
    /// them inside their blocks, the last as the loop carrying the
    /// accumulators.
    Loops(Vec<usize>),
    /// Loops follow the band in another form (scalar dimensions between
    /// them, or skewed loops): no register tile, whose unrolled copies
    /// would each run the loops with the accumulators in memory.
    Other,
}

/// The loops after `band` ([`Tail`]), as the statements that run any see
/// them: a statement with constants only there (an output's
/// initialization, distributed before a convolution that runs its window
/// and channels after the band) runs no loop after the band and does not
/// count.
pub(super) fn tail_of(scop: &Scop, sched: &PlutoSchedule, band: &Band) -> Tail {
    let after = band.first + band.len..sched.dims.len();
    let running: Vec<usize> = (0..scop.statements.len())
        .filter(|&s| !fixed_after(sched, band, s))
        .collect();
    if running.is_empty()
        || !after
            .clone()
            .any(|k| matches!(sched.dims[k], DimKind::Loop { .. }))
    {
        return Tail::None;
    }
    let unit = after.clone().all(|k| {
        matches!(sched.dims[k], DimKind::Loop { .. })
            && running
                .iter()
                .all(|&s| matches!(sched.schedule.dims[s][k].single_iter(), Some((_, 1))))
    });
    if unit {
        Tail::Loops(after.collect())
    } else {
        Tail::Other
    }
}

/// Statement `s` has constants only in the dimensions after `band`.
pub(super) fn fixed_after(sched: &PlutoSchedule, band: &Band, s: usize) -> bool {
    (band.first + band.len..sched.dims.len())
        .all(|k| sched.schedule.dims[s][k].as_constant().is_some())
}

/// The register tile of a band followed by the loops `tail`
/// ([`Tail::Loops`]): the point dimensions `(u, v, r)` of `members` (every
/// statement), or `None`. `r` is the last loop of the tail, along which the
/// written cells stay put (given as a dimension relative to the band's
/// first, past its end). `u` and `v` are loops of the whole band's parallel
/// dimensions, of more than one iteration, along which the written cells
/// move, with rectangular bounds (so that their blocks may run inside every
/// later loop), as the blocks of a matrix product see its operands:
///
/// * `v`, the vector loop, the one along which the most reads of other
///   arrays (the operands streamed across `r`) are contiguous; ties go to
///   the latest in the point `order` (which ends with the stride-1 loop of
///   the written cells). The written cells are loaded and stored once per
///   block: a tensor contraction `C[a,b,c,d] += A[a,e,b,f]·B[f,d,e,c]`
///   takes `c`, along which `B` is contiguous, not `d`, along which `C`
///   is;
/// * `u`, the blocks' rows, the one along which the most of those
///   contiguous reads stay put (read once per block row, not once per
///   row); ties go to the latest in the order.
pub(super) fn tail_register_dims(
    scop: &Scop,
    sched: &PlutoSchedule,
    band: &Band,
    order: &[usize],
    members: &[usize],
    tail: &[usize],
) -> Option<(usize, usize, usize)> {
    // The other statements run no loop after the band (the blocks take
    // those loops inside).
    let others_fixed = (0..scop.statements.len())
        .filter(|s| !members.contains(s))
        .all(|s| fixed_after(sched, band, s));
    if !others_fixed {
        return None;
    }
    let r = tail.last()? - band.first;
    let long = |d: usize| extent_of(scop, sched, band.first + d, members).is_none_or(|e| e > 1);
    let candidates: Vec<usize> = order
        .iter()
        .copied()
        .filter(|&d| {
            band.coincident[d]
                && long(d)
                && !reductions_only(scop, sched, band, d, members)
                && uniform_along(scop, sched, band, d, members)
        })
        .collect();
    // Per candidate: how each read of an array the members do not write
    // moves along it (contiguous, invariant), in one order for all.
    let written = written_arrays(scop, members);
    let moves = |d: usize| -> Option<Vec<(bool, bool)>> {
        let mut out = Vec::new();
        for &s in members {
            let deltas = access_deltas(scop, sched, band, d, s)?;
            for ((kind, delta), a) in deltas.iter().zip(&scop.statements[s].accesses) {
                if *kind != AccessKind::Read || written.contains(&a.array.0) {
                    continue;
                }
                let contiguous = delta
                    .split_last()
                    .is_some_and(|(last, rest)| last.abs() == 1 && rest.iter().all(|&x| x == 0));
                out.push((contiguous, delta.iter().all(|&x| x == 0)));
            }
        }
        Some(out)
    };
    let all: Vec<(usize, Vec<(bool, bool)>)> = candidates
        .iter()
        .map(|&d| moves(d).map(|m| (d, m)))
        .collect::<Option<_>>()?;
    let contiguous = |m: &[(bool, bool)]| m.iter().filter(|x| x.0).count();
    // The latest best (`max_by_key` keeps the last of equal keys).
    let (v, along_v) = all.iter().max_by_key(|(_, m)| contiguous(m))?;
    let v = *v;
    let u = all
        .iter()
        .filter(|(d, _)| *d != v)
        .max_by_key(|(_, m)| {
            m.iter()
                .zip(along_v)
                .filter(|(on_u, on_v)| on_v.0 && on_u.1)
                .count()
        })?
        .0;
    let fits = members.iter().all(|&s| lane_arithmetic(scop, s))
        && reductions_only(scop, sched, band, r, members)
        && blocks_rectangular(scop, sched, band, u, v, members);
    fits.then_some((u, v, r))
}

/// The most rows, up to `rows`, that blocks of the point dimensions `u`
/// (rows) and `v` (the vector loop) of `members` may take and keep apart
/// in the L1 (`l1`) the rows of the operands they read by row: reads of
/// arrays the members do not write that stay put along `v` and move along
/// `u` (a contraction's `A[a][c][d]` along its rows `a`, broadcast across
/// the vector). The blocks read one line of each such row at every step of
/// the loops inside them; rows whose lines fall into one set of the cache
/// ([`crate::target::L1Sets::crowded`], from the arrays' byte strides)
/// evict one another (`C[a,b] += A[a,c,d]·B[d,c,b]`, rows 4 KiB apart,
/// bit-exact on Zen 4, 2 threads: 16x8 blocks 0.27 ms, 8x16 0.09 ms).
pub(super) fn rows_apart(
    scop: &Scop,
    sched: &PlutoSchedule,
    band: &Band,
    (u, v): (usize, usize),
    members: &[usize],
    rows: i64,
    l1: crate::target::L1Sets,
) -> i64 {
    let written = written_arrays(scop, members);
    let mut steps = Vec::new();
    for &s in members {
        let (Some(du), Some(dv)) = (
            access_deltas(scop, sched, band, u, s),
            access_deltas(scop, sched, band, v, s),
        ) else {
            continue;
        };
        for (((kind, along_u), (_, along_v)), a) in
            du.iter().zip(&dv).zip(&scop.statements[s].accesses)
        {
            let by_row = *kind == AccessKind::Read
                && !written.contains(&a.array.0)
                && along_v.iter().all(|&x| x == 0)
                && along_u.iter().any(|&x| x != 0);
            if !by_row {
                continue;
            }
            let Some(strides) = byte_strides(&scop.root(a.array).type_text()) else {
                continue;
            };
            let step = along_u
                .iter()
                .zip(&strides)
                .try_fold(0i64, |t, (&d, &b)| t.checked_add(d.checked_mul(b)?));
            if let (Some(step), true) = (step, strides.len() == along_u.len()) {
                steps.push(step);
            }
        }
    }
    let crowded = |n: i64| {
        steps.iter().any(|&step| {
            let offsets: Vec<i64> = (0..n).filter_map(|r| r.checked_mul(step)).collect();
            l1.crowded(&offsets)
        })
    };
    let mut n = rows.max(1);
    while n > 1 && crowded(n) {
        n -= 1;
    }
    n
}

/// Statement `s` computes with the operations that run lane-wise
/// ([`LANE_OPS`]) only, besides its accesses: the unrolled copies of a
/// register tile become vectors only where LLVM's SLP vectorizer takes
/// every operation. NaN-propagating maxima (`arith.maximumf`) stay scalar
/// compare-and-select chains: a 3x3/2 max pooling with 16x8 blocks ran
/// 2.5 ms against 0.13 ms without (Zen 4, 2 threads).
fn lane_arithmetic(scop: &Scop, s: usize) -> bool {
    scop.statements[s].body.iter().all(|op| {
        op.access.is_some() || op.name == "affine.apply" || LANE_OPS.contains(&op.name.as_str())
    })
}

/// The register tile of a group of statements whose point order ends with
/// the vector dimension `v`: a point dimension `r != v` along which every
/// access of the members to an array they write stays on the same cell
/// ([`reductions_only`]: their accumulators can live in registers across
/// it; the latest such dimension in the order),
/// and, for bands of three or more loops, the point dimension `u` just
/// before it in the order, other than `v` and `r`, of more than one
/// iteration. `None` when there is no such `r`. With `edges`, a member that runs at one point of `r` per
/// point of the band's other dimensions ([`fixed_along`]: cholesky's
/// `A[i][j] /= A[j][j]` at `k = j`, after the dot product it divides) does
/// not stop `r`: it sits on the edge of the blocks, which it makes partial.
pub(super) fn register_dims(
    scop: &Scop,
    sched: &PlutoSchedule,
    band: &Band,
    order: &[usize],
    members: &[usize],
    edges: bool,
) -> Option<(Option<usize>, usize, usize)> {
    let v = *order.last()?;
    let r = order
        .iter()
        .rev()
        .copied()
        .find(|&d| d != v && register_reductions(scop, sched, band, d, members, edges))?;
    // Not a loop of one iteration (a 1x1 convolution's `kh`, `kw`): its
    // blocks would be one row each.
    let single = |d: usize| extent_of(scop, sched, band.first + d, members) == Some(1);
    let u = order
        .iter()
        .rev()
        .copied()
        .find(|&d| d != v && d != r && !single(d));
    // The unrolled loops' bounds must not depend on `r` (triangular
    // domains such as `k < i`): each of the three hyperplanes is one
    // iterator, and no domain constraint ties `r`'s to `u`'s or `v`'s.
    for &s in members {
        let st = &scop.statements[s];
        let iter_of = |d: usize| -> Option<usize> {
            match sched.schedule.dims[s][band.first + d].single_iter() {
                Some((i, c)) if c.abs() == 1 => Some(i),
                _ => None,
            }
        };
        let ir = iter_of(r)?;
        let others: Vec<usize> = [u, Some(v)]
            .into_iter()
            .flatten()
            .map(iter_of)
            .collect::<Option<_>>()?;
        let tied = st.domain.iter().any(|piece| {
            piece.ineqs.iter().chain(&piece.eqs).any(|f| {
                let on_other = others.iter().any(|&i| f.iter_coef(i) != 0);
                let touches = f.iter_coef(ir) != 0 || on_other;
                touches && f.locals.iter().any(|&c| c != 0)
            })
        });
        if tied {
            return None;
        }
    }
    Some((u, v, r))
}

/// The register tile's reduction dimension: [`reductions_only`], or every
/// write of `members` invariant along point dimension `d` and each read of
/// a written array that moves along `d` kept off the statement's own write
/// by a domain inequality (trmm's `B[k][j]` beside its write `B[i][j]`, with
/// `k >= i + 1`). A heuristic: the code generator keeps the written cells in
/// registers only where it proves that no other access touches them
/// ([`crate::codegen`]'s scalar replacement). `edges`: as in
/// [`register_dims`].
fn register_reductions(
    scop: &Scop,
    sched: &PlutoSchedule,
    band: &Band,
    d: usize,
    members: &[usize],
    edges: bool,
) -> bool {
    if reductions_only(scop, sched, band, d, members) {
        return true;
    }
    if edges && members.iter().all(|&s| fixed_along(sched, band, d, s)) {
        return false;
    }
    let written = written_arrays(scop, members);
    members.iter().all(|&s| {
        let st = &scop.statements[s];
        if edges && fixed_along(sched, band, d, s) {
            return true;
        }
        let Some(acc) = access_deltas(scop, sched, band, d, s) else {
            return false;
        };
        acc.iter().zip(&st.accesses).all(|((kind, deltas), a)| {
            if !written.contains(&a.array.0) || deltas.iter().all(|&x| x == 0) {
                return true;
            }
            *kind == AccessKind::Read
                && st
                    .accesses
                    .iter()
                    .filter(|w| w.kind == AccessKind::Write && w.array == a.array)
                    .all(|w| separated(st, &a.index, &w.index))
        })
    })
}

/// True when in every piece of `st`'s domain some inequality says that
/// subscripts `a` and `b` differ in some position: `a_p - b_p >= 1` or
/// `b_p - a_p >= 1` written as one constraint.
fn separated(st: &crate::scop::model::Statement, a: &[Form], b: &[Form]) -> bool {
    let same_terms = |f: &Form, g: &Form| -> bool {
        let n = |v: &[i64], k: usize| v.get(k).copied().unwrap_or(0);
        let np = f.params.len().max(g.params.len());
        let ni = f.iters.len().max(g.iters.len());
        let nl = f.locals.len().max(g.locals.len());
        (0..np).all(|k| n(&f.params, k) == n(&g.params, k))
            && (0..ni).all(|k| n(&f.iters, k) == n(&g.iters, k))
            && (0..nl).all(|k| n(&f.locals, k) == n(&g.locals, k))
    };
    a.len() == b.len()
        && st.domain.iter().all(|piece| {
            a.iter().zip(b).any(|(x, y)| {
                let (Ok(diff), Ok(neg)) = (x.minus(y), y.minus(x)) else {
                    return false;
                };
                piece.ineqs.iter().any(|g| {
                    [&diff, &neg]
                        .iter()
                        .any(|f| same_terms(g, f) && g.constant < f.constant)
                })
            })
        })
}

/// The arrays that some statement of `members` writes (with repeats).
pub(super) fn written_arrays(scop: &Scop, members: &[usize]) -> Vec<usize> {
    members
        .iter()
        .flat_map(|&s| &scop.statements[s].accesses)
        .filter(|a| a.kind == AccessKind::Write)
        .map(|a| a.array.0)
        .collect()
}

/// True when every access of `members` to an array they write is invariant
/// along point dimension `d` of the band: what `d` carries are reductions
/// into cells fixed along it.
pub(super) fn reductions_only(
    scop: &Scop,
    sched: &PlutoSchedule,
    band: &Band,
    d: usize,
    members: &[usize],
) -> bool {
    let written = written_arrays(scop, members);
    members.iter().all(|&s| {
        let accesses = &scop.statements[s].accesses;
        access_deltas(scop, sched, band, d, s).is_some_and(|acc| {
            acc.iter()
                .zip(accesses)
                .filter(|(_, a)| written.contains(&a.array.0))
                .all(|((_, deltas), _)| deltas.iter().all(|&x| x == 0))
        })
    })
}

/// [`reductions_only`], or else the same with the accesses to written
/// arrays that move along `d` all reads through which no dependence among
/// `members` is left unordered by the schedule's dimensions before the
/// band: cells the members write in earlier iterations of the loops
/// around it, read as inputs here (a step's terms of the columns before
/// the step in a triangular solve cut into steps, `rewrite::steps`:
/// trisolv's `x[j]`, written in earlier steps).
pub(super) fn reductions_in_band(
    scop: &Scop,
    sched: &PlutoSchedule,
    deps: &[Dependence],
    band: &Band,
    d: usize,
    members: &[usize],
) -> bool {
    if reductions_only(scop, sched, band, d, members) {
        return true;
    }
    let written = written_arrays(scop, members);
    members.iter().all(|&s| {
        let accesses = &scop.statements[s].accesses;
        let Some(acc) = access_deltas(scop, sched, band, d, s) else {
            return false;
        };
        acc.iter()
            .zip(accesses)
            .enumerate()
            .all(|(a, ((kind, deltas), access))| {
                if !written.contains(&access.array.0) || deltas.iter().all(|&x| x == 0) {
                    return true;
                }
                if *kind != AccessKind::Read {
                    return false;
                }
                // The dependences among the members through this read.
                let through: Vec<Dependence> = deps
                    .iter()
                    .filter(|e| {
                        members.contains(&e.source.0)
                            && members.contains(&e.sink.0)
                            && e.accesses.iter().any(|&(x, y)| {
                                (e.source.0 == s && x == a) || (e.sink.0 == s && y == a)
                            })
                    })
                    .cloned()
                    .collect();
                through.is_empty()
                    || matches!(
                        crate::analysis::carried::unordered_before(
                            scop,
                            &through,
                            &sched.schedule,
                            band.first
                        ),
                        Ok(false)
                    )
            })
    })
}

/// True when moving point dimension `d` of the band innermost, in place of
/// dimension `last`, would make an access of `members` that streams
/// through memory strided: one contiguous or invariant along `last`,
/// strided along `d`, and invariant along no dimension of the band (no
/// reuse inside it, so a tile keeps nothing of it in cache for later
/// iterations). gesummv's `A[i][j]`, each cell read once: with `i`
/// innermost (parallel, and stride-1 for `tmp[i]`) every iteration loads
/// another row's cache line, 2.0 ms against 0.45 ms with `j` innermost at
/// LARGE. syrk's `A[j][k]`, strided along its vector loop `j`, is reused
/// along `i`, and stays a candidate.
pub(super) fn breaks_streams(
    scop: &Scop,
    sched: &PlutoSchedule,
    band: &Band,
    d: usize,
    last: usize,
    members: &[usize],
) -> bool {
    if d == last {
        return false;
    }
    let contiguous = |deltas: &[i64]| {
        deltas
            .split_last()
            .is_some_and(|(l, rest)| l.abs() <= 1 && rest.iter().all(|&x| x == 0))
    };
    members.iter().any(|&s| {
        let per_dim: Vec<Option<AccessDeltas>> = (0..band.len)
            .map(|e| access_deltas(scop, sched, band, e, s))
            .collect();
        let (Some(along_d), Some(along_last)) = (&per_dim[d], &per_dim[last]) else {
            return false;
        };
        (0..along_d.len()).any(|a| {
            let reused = per_dim
                .iter()
                .any(|p| p.as_ref().is_some_and(|p| p[a].1.iter().all(|&x| x == 0)));
            !reused && contiguous(&along_last[a].1) && !contiguous(&along_d[a].1)
        })
    })
}

/// True when every access of `members` is contiguous (unit stride in its
/// last subscript) or invariant along point dimension `d` of the band.
pub(super) fn contiguous_along(
    scop: &Scop,
    sched: &PlutoSchedule,
    band: &Band,
    d: usize,
    members: &[usize],
) -> bool {
    members.iter().all(|&s| {
        access_deltas(scop, sched, band, d, s).is_some_and(|acc| {
            acc.iter().all(|(_, deltas)| {
                deltas
                    .split_last()
                    .is_some_and(|(last, rest)| last.abs() <= 1 && rest.iter().all(|&x| x == 0))
            })
        })
    })
}

/// True when vector loop `v` of a group would gather while the band's
/// innermost loop streams: some access of the statements with the most
/// loops (the bulk of the work) is strided along `v`, and every one is
/// contiguous or invariant along the innermost loop (cholesky's `A[j][k]`
/// along `j`, beside its dot products along `k`).
pub(super) fn would_gather(
    scop: &Scop,
    sched: &PlutoSchedule,
    band: &Band,
    v: usize,
    members: &[usize],
) -> bool {
    let last = band.len - 1;
    let deepest = deepest(scop, members);
    v != last
        && !contiguous_along(scop, sched, band, v, &deepest)
        && contiguous_along(scop, sched, band, last, &deepest)
}

/// Whether point dimension `d` of `band` is coincident for statement `s`:
/// no dependence among the statements it shares the dimension with is
/// carried by it (the scheduler's per-statement mark, else the band's).
pub(super) fn coincident_for(sched: &PlutoSchedule, band: &Band, d: usize, s: usize) -> bool {
    sched
        .stmt_coincident
        .get(band.first + d)
        .and_then(|f| f.get(s))
        .copied()
        .unwrap_or(band.coincident[d])
}

/// Whether point dimension `d` of `band` is, for every member, a loop over
/// blocks of another of its loops: one iterator that the statement's other
/// iterators determine ([`crate::analysis::reductions::fixed_by`]: `t`
/// with `950·t ≤ i < 950·t + 950`, the blocks of a reduction split per
/// thread by `passes/opt/partials.rs`, or a front end's own tiles).
pub(super) fn block_dimension(
    scop: &Scop,
    sched: &PlutoSchedule,
    band: &Band,
    d: usize,
    members: &[usize],
) -> bool {
    !members.is_empty()
        && members.iter().all(|&s| {
            let st = &scop.statements[s];
            let Some((k, c)) = sched.schedule.dims[s][band.first + d].single_iter() else {
                return false;
            };
            let others: Vec<usize> = (0..st.iters.len()).filter(|&m| m != k).collect();
            c.abs() == 1 && crate::analysis::reductions::fixed_by(st, k, &others)
        })
}

/// The number of values hyperplane `k` takes over the members' domains
/// (from its rational range, rounded outwards); `None` when parametric.
pub(super) fn extent_of(
    scop: &Scop,
    sched: &PlutoSchedule,
    k: usize,
    members: &[usize],
) -> Option<i64> {
    let mut lo = i64::MAX;
    let mut hi = i64::MIN;
    for &s in members {
        let (a, b) = scop.range_of(s, &sched.schedule.dims[s][k])?;
        lo = lo.min(a);
        hi = hi.max(b);
    }
    hi.checked_sub(lo)?.checked_add(1)
}

/// True when the work of `members` does not depend on where along point
/// dimension `d` of the band an iteration lies: the hyperplane is a single
/// iterator of each statement, and no domain constraint ties that
/// iterator to another one (syrk's `j <= i` makes later rows longer).
pub(super) fn uniform_along(
    scop: &Scop,
    sched: &PlutoSchedule,
    band: &Band,
    d: usize,
    members: &[usize],
) -> bool {
    uniform_at(scop, sched, band.first + d, members)
}

/// [`uniform_along`] for schedule dimension `k`.
pub(super) fn uniform_at(scop: &Scop, sched: &PlutoSchedule, k: usize, members: &[usize]) -> bool {
    members.iter().all(|&s| {
        let Some((i, _)) = sched.schedule.dims[s][k].single_iter() else {
            return false;
        };
        scop.statements[s].domain.iter().all(|piece| {
            piece.ineqs.iter().chain(&piece.eqs).all(|g| {
                g.iter_coef(i) == 0
                    || (g.single_iter().is_some() && g.locals.iter().all(|&c| c == 0))
            })
        })
    })
}

/// True when statement `s` runs at one point of band dimension `d` per
/// point of the band's other dimensions: its hyperplane at `d` is a
/// combination of the band's others (cholesky's `A[i][j] /= A[j][j]` at
/// `k = j`).
pub(super) fn fixed_along(sched: &PlutoSchedule, band: &Band, d: usize, s: usize) -> bool {
    let dims = &sched.schedule.dims[s];
    let row = |k: usize| dims[band.first + k].iters.clone();
    let others: Vec<Vec<i64>> = (0..band.len).filter(|&k| k != d).map(row).collect();
    let mut with = others.clone();
    with.push(row(d));
    matches!((rank(&others), rank(&with)), (Ok(a), Ok(b)) if a == b)
}
