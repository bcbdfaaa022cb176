//! Privatization of temporaries by array expansion.
//!
//! A small array written and read inside the loops that enclose all its
//! accesses (PolyBench's `temp2` in symm, `sum` in doitgen, `w` in ludcmp)
//! links every iteration of those loops to the next through anti and output
//! dependences on its few cells, although no value flows between them. It
//! is expanded by those loops: `X[e]` becomes `X'[c - lb][e]`, `c` the
//! iterators of the `d` outermost loops shared by all accesses. Then the
//! dependence analysis of the expanded program finds the iterations
//! independent, and the scheduler, the checker and the code generator work
//! on the expanded program, which the rewrite emits.
//!
//! The expansion computes the same values when (checked here exactly, with
//! the math core; any failure or limit means "not expanded"):
//!
//! - **no value enters an iteration**: every read of `X` in iteration `c`
//!   is preceded, in the same iteration, by a write of the same cell (the
//!   read's domain is a subset of the range of the flow dependences of
//!   level `>= d`, i.e. with equal `c`);
//! - **the final contents are those of the last iteration**: the cells the
//!   last iteration `c_last` (lexicographic maximum over the writes) writes
//!   are all of `X`'s cells, and include every cell written at all. The
//!   rewrite copies `X'[c_last - lb]` back into `X` after the new loops, so
//!   code after the SCoP sees what it saw before.
//!
//! Accesses in different top-level loop nests (ludcmp's `w` is reused by
//! three nests) are expanded into separate buffers, one per nest, each nest
//! with its own loops; every read must then be covered within its own nest,
//! and the last nest writing `X` is the one copied back.
//!
//! Only SCoPs without parameters, arrays of static shape with at most
//! [`MAX_CELLS`] cells, and loops with constant bounds are expanded. The
//! expansion itself, what the model records of it and the expanded model,
//! is [`crate::scop::expansion`].

use crate::deps::{relation, shared_iters, shared_levels};
use crate::math::constraint::BasicRel;
use crate::math::space::DimKind;
use crate::math::union::UnionRel;
use crate::math::Optimum;

use crate::scop::expansion::{static_shape, Expansion};
use crate::scop::model::{AccessKind, ArrayId, Scop, StmtId};

/// Largest array (cells) considered a temporary.
pub const MAX_CELLS: i64 = 1 << 16;

/// Largest expanded array (cells).
pub const MAX_EXPANDED_CELLS: i64 = 1 << 24;

/// The arrays of `scop` that can be expanded (see the module text).
pub fn find(scop: &Scop) -> Vec<Expansion> {
    if !scop.params.is_empty() {
        return Vec::new();
    }
    (0..scop.arrays.len())
        .flat_map(|a| candidate(scop, ArrayId(a)).unwrap_or_default())
        .collect()
}

type Res<T> = Result<T, Box<dyn std::error::Error>>;

fn candidate(scop: &Scop, x: ArrayId) -> Res<Vec<Expansion>> {
    let none = Vec::new();
    let arr = &scop.arrays[x.0];
    let Some((shape, elem)) = static_shape(&scop.root_of(arr).type_text()) else {
        return Ok(none);
    };
    let cells = shape.iter().try_fold(1i64, |a, &b| a.checked_mul(b));
    if cells.is_none_or(|c| c > MAX_CELLS) {
        return Ok(none);
    }
    // Statements touching X, grouped by their top-level loop nest.
    let users: Vec<usize> = (0..scop.statements.len())
        .filter(|&s| scop.statements[s].accesses.iter().any(|a| a.array == x))
        .collect();
    let plain = users.iter().all(|&s| {
        scop.statements[s]
            .accesses
            .iter()
            .filter(|a| a.array == x)
            .all(|a| {
                matches!(
                    scop.op_of(a).name().as_str(),
                    "affine.load" | "affine.store"
                )
            })
    });
    if users.is_empty() || !plain {
        return Ok(none);
    }
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for &s in &users {
        let Some(&outer) = scop.statements[s].loops.first() else {
            return Ok(none); // an access outside every loop
        };
        match groups
            .iter_mut()
            .find(|g| scop.statements[g[0]].loops.first() == Some(&outer))
        {
            Some(g) => g.push(s),
            None => groups.push(vec![s]),
        }
    }
    let writes_of = |group: &[usize]| -> Vec<(usize, usize)> {
        group
            .iter()
            .flat_map(|&s| {
                scop.statements[s]
                    .accesses
                    .iter()
                    .enumerate()
                    .filter(|(_, a)| a.array == x && a.kind == AccessKind::Write)
                    .map(move |(k, _)| (s, k))
            })
            .collect()
    };
    // Per top-level nest, the finest grouping (by the loops at the first L
    // levels, L decreasing) under which every group is expandable; the
    // last nest must stay one group (its last iteration is copied back).
    let mut out: Vec<Expansion> = Vec::new();
    let n_tops = groups.len();
    for (ti, top) in groups.iter().enumerate() {
        let deepest = top
            .iter()
            .map(|&s| scop.statements[s].loops.len())
            .max()
            .unwrap_or(1);
        let mut chosen = None;
        for level in (1..=deepest).rev() {
            let key = |s: usize| {
                let l = &scop.statements[s].loops;
                l[..level.min(l.len())].to_vec()
            };
            let mut subs: Vec<Vec<usize>> = Vec::new();
            for &s in top {
                match subs.iter_mut().find(|g| key(g[0]) == key(s)) {
                    Some(g) => g.push(s),
                    None => subs.push(vec![s]),
                }
            }
            if ti + 1 == n_tops && subs.len() > 1 {
                continue;
            }
            let mut es = Vec::new();
            for g in &subs {
                let writes = writes_of(g);
                if writes.is_empty() {
                    break;
                }
                match group_expansion(scop, x, g, &writes, &shape, &elem)? {
                    Some(e) => es.push(e),
                    None => break,
                }
            }
            if es.len() == subs.len() {
                chosen = Some(es);
                break;
            }
        }
        let Some(es) = chosen else { return Ok(none) };
        out.extend(es);
    }
    let mut total = 0i64;
    let mut all_written = UnionRel::empty(&scop.params);
    for e in &out {
        let n = e
            .bounds
            .iter()
            .try_fold(cells.unwrap_or(1), |a, &(_, n)| a.checked_mul(n));
        total = match n.and_then(|n| total.checked_add(n)) {
            Some(t) if t <= MAX_EXPANDED_CELLS => t,
            _ => return Ok(none),
        };
        all_written = all_written.union(&written(scop, &writes_of(&e.stmts), &[])?)?;
    }
    // The final contents: the last group's last iteration writes every cell
    // of X, and so every cell written anywhere; it is copied back.
    let Some(last_group) = out.last_mut() else {
        return Ok(none);
    };
    let writes = writes_of(&last_group.stmts);
    let mut last: Option<Vec<i64>> = None;
    for &(s, _) in &writes {
        let dom = UnionRel::from_pieces(&scop.params, scop.domain(StmtId(s))?)?;
        match dom.lexmax()? {
            Optimum::Bounded(v) => {
                let prefix = v[..last_group.depth].to_vec();
                if last.as_ref().is_none_or(|l| prefix > *l) {
                    last = Some(prefix);
                }
            }
            Optimum::Empty => {}
            Optimum::Unbounded => return Ok(none),
        }
    }
    let Some(last) = last else { return Ok(none) };
    let in_last = written(scop, &writes, &last)?;
    let dims: Vec<String> = (0..shape.len()).map(|k| format!("o{k}")).collect();
    let conds: Vec<String> = shape
        .iter()
        .enumerate()
        .map(|(k, n)| format!("0 <= o{k} <= {}", n - 1))
        .collect();
    // A scalar cell (rank 0) is the box of one point, without conditions.
    let text = if conds.is_empty() {
        format!("{{ {}[] }}", arr.name)
    } else {
        format!(
            "{{ {}[{}] : {} }}",
            arr.name,
            dims.join(", "),
            conds.join(" and ")
        )
    };
    let bx = UnionRel::parse(&text)?;
    if !bx.is_subset(&in_last)? || !all_written.is_subset(&in_last)? {
        return Ok(none);
    }
    last_group.last = Some(last);
    Ok(out)
}

/// The cells the write accesses `writes` touch, in the iterations whose
/// leading iterators equal `prefix` (all iterations for an empty prefix).
fn written(scop: &Scop, writes: &[(usize, usize)], prefix: &[i64]) -> Res<UnionRel> {
    let mut cells = UnionRel::empty(&scop.params);
    for &(s, a) in writes {
        let mut acc = UnionRel::from_pieces(&scop.params, scop.access(StmtId(s), a)?)?;
        for (k, &v) in prefix.iter().enumerate() {
            acc = acc.fix(DimKind::In, k, v)?;
        }
        cells = cells.union(&acc.range()?)?;
    }
    Ok(cells)
}

/// The expansion of the accesses of `group` (one loop nest) to `x`, when
/// every read there is covered by a write of the same cell earlier in the
/// same iteration of the loops the group shares.
fn group_expansion(
    scop: &Scop,
    x: ArrayId,
    group: &[usize],
    writes: &[(usize, usize)],
    shape: &[i64],
    elem: &str,
) -> Res<Option<Expansion>> {
    let first = &scop.statements[group[0]];
    let depth = group
        .iter()
        .map(|&s| shared_iters(first, &scop.statements[s]))
        .min()
        .unwrap_or(0);
    if depth == 0 {
        return Ok(None);
    }
    // Constant bounds of the expanded iterators over the group's domains.
    let mut bounds = Vec::new();
    for k in 0..depth {
        let (mut lo, mut hi) = (i64::MAX, i64::MIN);
        for &s in group {
            for piece in scop.domain(StmtId(s))? {
                let dom = UnionRel::from_basic(piece);
                // Project onto iterator k: drop the later ones, then the earlier.
                let n = scop.statements[s].iters.len();
                let mut p = dom.project_out(DimKind::Out, k + 1, n - k - 1)?;
                p = p.project_out(DimKind::Out, 0, k)?;
                match (p.lexmin()?, p.lexmax()?) {
                    (Optimum::Bounded(a), Optimum::Bounded(b)) => {
                        lo = lo.min(a[0]);
                        hi = hi.max(b[0]);
                    }
                    (Optimum::Empty, _) | (_, Optimum::Empty) => {}
                    _ => return Ok(None),
                }
            }
        }
        let Some(n) = hi.checked_sub(lo).and_then(|d| d.checked_add(1)) else {
            return Ok(None);
        };
        if n < 1 {
            return Ok(None);
        }
        bounds.push((lo, n));
    }
    // No value enters an iteration: every read is covered by a write of
    // the same cell earlier in the same iteration of the expanded loops.
    for &t in group {
        for (b, acc) in scop.statements[t].accesses.iter().enumerate() {
            if acc.array != x || acc.kind != AccessKind::Read {
                continue;
            }
            let mut covered = UnionRel::empty(&scop.params);
            for &(s, a) in writes {
                let (ss, tt) = (&scop.statements[s], &scop.statements[t]);
                let shared = shared_iters(ss, tt);
                for level in depth..=shared {
                    // At level `shared` (no loop carries it) the write must
                    // come textually first, in another statement (`relation`
                    // leaves that to its caller).
                    if level == shared {
                        let l = shared_levels(ss, shared);
                        if s == t || ss.beta.get(l) >= tt.beta.get(l) {
                            continue;
                        }
                    }
                    let pieces: Vec<BasicRel> =
                        relation(scop, (StmtId(s), a), (StmtId(t), b), level, shared)?;
                    if pieces.is_empty() {
                        continue;
                    }
                    let rel = UnionRel::from_pieces(&scop.params, pieces)?;
                    covered = covered.union(&rel.range()?)?;
                }
            }
            let dom = UnionRel::from_pieces(&scop.params, scop.domain(StmtId(t))?)?;
            if !dom.is_subset(&covered)? {
                return Ok(None);
            }
        }
    }
    Ok(Some(Expansion {
        array: x,
        stmts: group.to_vec(),
        depth,
        bounds,
        shape: shape.to_vec(),
        elem: elem.to_string(),
        last: None,
    }))
}
