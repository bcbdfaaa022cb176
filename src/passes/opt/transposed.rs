//! Two loop nests over one matrix in transposed orders, fused into one
//! (issue 70, array reductions). mvt's rows' sums `x1[i] += A[i][j] *
//! y1[j]` and, in a nest of its own right after them, the sums down the
//! columns `x2[i] += A[j][i] * y2[j]` read the matrix twice, once along
//! its rows and once down its columns. The second nest interchanged reads
//! it in the first's order, `x2[j] += A[i][j] * y2[i]` over `i`, then `j`;
//! fused with the first, both statements read each cell at the same
//! iteration:
//!
//! ```text
//! for i: for j: x1[i] += A[i][j] * y1[j]      for i: for j:
//! for i: for j: x2[i] += A[j][i] * y2[j]  →     x1[i] += A[i][j] * y1[j]
//!                                               x2[j] += A[i][j] * y2[i]
//! ```
//!
//! bicg's shape, whose column sums [`super::partials`] splits into blocks
//! with a private copy of `x2` per thread: one parallel pass over `A`.
//!
//! Exact: the second statement's cell `x2[c]` takes its terms in the order
//! of its inner loop before and of its outer loop after, the same order
//! (the cell is fixed along the inner loop, and the statement is a
//! reduction: nothing else touches its array in the nest), and neither
//! statement touches the array the other writes, so the two run in any
//! interleaving. Taken only where the fused loop is then split
//! (`poly-opt` undoes it otherwise, [`Fused::undo`]), before the model of
//! the SCoP is built again: the model, the dependences, the scheduler and
//! the checker then see the fused nest as they would an input's.

use crate::analysis::reductions;
use crate::ffi::build::{self, Builder, Point};
use crate::ffi::ir::Op;
use crate::scop::form::Form;
use crate::scop::model::{AccessKind, Scop, Statement};

use super::partials::constant_bounds;

/// The second nest's statement moved into the first nest, and what takes
/// it back.
pub(super) struct Fused {
    /// The first nest's outer loop, which now holds both statements.
    first: Op,
    /// The second nest, detached.
    second: Op,
    /// The operations moved into the first nest's inner loop, in order.
    moved: Vec<Op>,
    /// The remark's phrase.
    note: String,
}

impl Fused {
    /// The first nest's outer loop (the fused nest).
    pub(super) fn first(&self) -> Op {
        self.first
    }

    /// The key of the second nest (detached while the fusion stands).
    pub(super) fn second_key(&self) -> usize {
        self.second.key()
    }

    /// The remark's phrase.
    pub(super) fn note(&self) -> &str {
        &self.note
    }

    /// Takes the IR back: the second nest after the first, the moved
    /// operations gone.
    pub(super) fn undo(self) {
        for op in self.moved.iter().rev() {
            build::erase(*op);
        }
        if let Some(next) = build::next_op(self.first) {
            build::insert_before(self.second, next);
        }
    }

    /// Keeps the fusion (its SCoP was rewritten): the second nest goes.
    pub(super) fn keep(self) {
        build::erase(self.second);
    }
}

/// Fuses the first pair of nests of `scop` of the shape above into the
/// first of them, if any (see the module text).
pub(super) fn fuse(scop: &Scop) -> Option<Fused> {
    let found: Vec<_> = reductions::find(scop).into_iter().filter(|r| r.exclusive).collect();
    let n = scop.statements.len();
    let (r, c, first, array) = (0..n)
        .flat_map(|r| (0..n).map(move |c| (r, c)))
        .filter(|(r, c)| r != c)
        .find_map(|(r, c)| {
            let (first, second, array) = pair(scop, r, c, &found)?;
            Some((r, c, (first, second), array))
        })?;
    fuse_nests(scop, (r, c), first, array)
}

/// The outer loops of statement `r`'s nest and of statement `c`'s, when
/// `c`'s nest follows `r`'s and the two can be fused as the module text
/// says: each a perfect nest of two loops with constant bounds, step one
/// and no carried values, holding that statement alone, `c`'s bounds
/// `r`'s swapped; `c` a reduction into a cell fixed along its inner loop;
/// neither statement touching the array the other writes; and, `c`'s
/// iterators swapped, the two reading one array at the same subscripts
/// (that array, the third).
fn pair(scop: &Scop, r: usize, c: usize, found: &[reductions::Reduction]) -> Option<(Op, Op, usize)> {
    let (sr, sc) = (&scop.statements[r], &scop.statements[c]);
    let nest = |s: &Statement| -> Option<(Op, Op)> {
        if s.iters.len() != 2 || s.loops.len() != 2 {
            return None;
        }
        let outer = *scop.ir.ops.iter().find(|o| o.key() == s.loops[0])?;
        let body = outer.regions().first()?.blocks().first().copied()?;
        let ops = body.ops();
        let [inner, end] = ops[..] else {
            return None;
        };
        (inner.key() == s.loops[1] && end.name() == "affine.yield").then_some((outer, inner))
    };
    let ((ro, ri), (co, ci)) = (nest(sr)?, nest(sc)?);
    let alone = |s: usize, outer: Op| {
        scop.statements
            .iter()
            .enumerate()
            .all(|(t, o)| t == s || o.loops.first() != Some(&outer.key()))
    };
    if !alone(r, ro) || !alone(c, co) || build::next_op(ro)?.key() != co.key() {
        return None;
    }
    let loops = [ro, ri, co, ci];
    if loops.iter().any(|l| l.name() != "affine.for" || l.num_results() != 0) {
        return None;
    }
    let [rob, rib, cob, cib] = [
        constant_bounds(&ro)?,
        constant_bounds(&ri)?,
        constant_bounds(&co)?,
        constant_bounds(&ci)?,
    ];
    if rob != cib || rib != cob {
        return None;
    }
    // `c` a reduction along its inner loop alone, into a cell its outer
    // loop picks.
    let write = sc.accesses.iter().find(|a| a.kind == AccessKind::Write)?;
    let reduction = found.iter().any(|x| x.stmt == c && x.loops == [1]);
    if !reduction || write.index.iter().any(|f| f.iter_coef(1) != 0) {
        return None;
    }
    // Independent: neither touches the array the other writes.
    let writes = |s: &Statement| -> Vec<usize> {
        s.accesses
            .iter()
            .filter(|a| a.kind == AccessKind::Write)
            .map(|a| a.array.0)
            .collect()
    };
    let touches = |s: &Statement, arrays: &[usize]| s.accesses.iter().any(|a| arrays.contains(&a.array.0));
    if touches(sc, &writes(sr)) || touches(sr, &writes(sc)) {
        return None;
    }
    // A shared read once `c`'s iterators are swapped.
    let swapped = |f: &Form| Form {
        iters: vec![f.iter_coef(1), f.iter_coef(0)],
        ..f.clone()
    };
    let plain = |f: &Form| Form {
        iters: vec![f.iter_coef(0), f.iter_coef(1)],
        ..f.clone()
    };
    let shared = sr.accesses.iter().filter(|a| a.kind == AccessKind::Read).find(|a| {
        sc.accesses.iter().any(|b| {
            b.kind == AccessKind::Read
                && a.array == b.array
                && a.index.len() == b.index.len()
                && a.index.iter().zip(&b.index).all(|(x, y)| plain(x) == swapped(y))
        })
    })?;
    Some((ro, co, shared.array.0))
}

/// Moves statement `c`'s nest `second`, interchanged, into the inner loop
/// of statement `r`'s nest `first`, after its statement; both read
/// `array` (for the remark).
fn fuse_nests(scop: &Scop, (r, c): (usize, usize), (first, second): (Op, Op), array: usize) -> Option<Fused> {
    let (sr, sc) = (&scop.statements[r], &scop.statements[c]);
    let [outer_iv, inner_iv] = scop.ivs_of(sr)[..] else {
        return None;
    };
    let inner = *first.regions().first()?.blocks().first()?.ops().first()?;
    let end = *inner.regions().first()?.blocks().first()?.ops().last()?;
    let b = Builder::new(first);
    // The second nest cloned into the first's inner loop, its outer
    // iterator the first's inner one and its inner iterator the first's
    // outer one; its statement's operations then moved out of the clone.
    let copy = b.clone_op(Point::Before(end), second);
    let copy_body = copy.regions().first()?.blocks().first().copied()?;
    let copy_inner = *copy_body.ops().first()?;
    let copy_inner_body = copy_inner.regions().first()?.blocks().first().copied()?;
    build::replace_uses(copy_body.arg(0)?, inner_iv);
    build::replace_uses(copy_inner_body.arg(0)?, outer_iv);
    let mut moved = Vec::new();
    for op in copy_inner_body.ops() {
        if op.name() != "affine.yield" {
            build::move_before(op, copy);
            moved.push(op);
        }
    }
    build::erase(copy);
    build::detach(second);
    let name = |s: &Statement| {
        s.accesses
            .iter()
            .find(|a| a.kind == AccessKind::Write)
            .map_or("?", |a| scop.arrays[a.array.0].name.as_str())
    };
    let note = format!(
        "the nest of the sums into {} interchanged and fused with the nest of {} (both read {} in one order)",
        name(sc),
        name(sr),
        scop.arrays[array].name,
    );
    Some(Fused {
        first,
        second,
        moved,
        note,
    })
}
