//! The reassociate stage (`reassociate=true`, off by default): the
//! floating-point reductions of a SCoP ([`crate::analysis::reductions`])
//! get `fastmath<reassoc>` on their combining operation, on the SCoP's own
//! operations just before the rewrite clones them (as `contract` does).
//! LLVM may then combine the terms of one cell's chain in another order:
//! where the new code carries the chain in a register along its innermost
//! loop, its loop vectorizer runs it in the lanes of vectors, one partial
//! result per lane (and per interleaved copy), combined after the loop.
//!
//! The schedule is not relaxed: every dependence of the reduction is kept
//! and checked as before, so the reordering is LLVM's, inside one chain,
//! and nothing else moves. Integer reductions, and minima and maxima,
//! are exact in any order and need no flag (LLVM vectorizes them as they
//! are); sums and products round at each step, so their results may differ
//! in the last bits from the input's: the documented freedom of the option.

use std::collections::HashMap;

use crate::analysis::reductions::{self, Reduction};
use crate::codegen::contract::with_flag;
use crate::ffi::build::{set_attr, Builder};
use crate::ffi::ir::Op;
use crate::scop::form::Form;
use crate::scop::model::Scop;
use crate::transform::Plan;

use super::OptOptions;

/// The reductions of `scop` whose terms may be combined in another order:
/// the floating-point sums and products
/// ([`reductions::Combine::rounds`]).
pub(super) fn chosen(scop: &Scop) -> Vec<Reduction> {
    reductions::find(scop)
        .into_iter()
        .filter(|r| r.combine.rounds())
        .collect()
}

/// Of `chosen` (reductions of `scop`), those whose chain runs along the
/// innermost loop of their statement in `plan` (its last loop iterates
/// over the reduction's loops only) outside register tiles: there LLVM's
/// loop vectorizer gains from reassociation. A register tile's chains are
/// in registers already, one per lane of its vectors along another loop,
/// and a chain across an outer loop has no vector loop of its own; marked,
/// LLVM rebuilds those loops around horizontal reductions (PolyBench's
/// covariance at LARGE, 2 threads, Zen 4: 27.5 ms unmarked, 150 ms marked).
/// The copies of rows jammed below their statements' loops
/// ([`crate::transform::BlockDim::below_loops`]) are unrolled there, not a
/// loop: the loop around them is the innermost (atax's dot products, 8
/// rows' sums along `j`).
pub(super) fn along_innermost(plan: &Plan, chosen: Vec<Reduction>) -> Vec<Reduction> {
    chosen
        .into_iter()
        .filter(|r| {
            let Some(dims) = plan.schedule.dims.get(r.stmt) else {
                return false;
            };
            let tiled = plan
                .register_tiles
                .iter()
                .any(|t| dims.get(t.first).is_some_and(|f| f.as_constant().is_none()));
            let along_reduction = |f: &Form| {
                let moves = (0..f.iters.len()).filter(|&k| f.iter_coef(k) != 0);
                let mut moves = moves.peekable();
                moves.peek().is_some() && moves.all(|k| r.loops.contains(&k))
            };
            // The innermost loop: not the copies of rows jammed below
            // their statements' loops (`row_jam`), unrolled inside them,
            // nor scalar copies of other rows than the chain's (`row_blocks`'
            // rows' chains jammed inside the chains' loop: each copy a
            // chain of its own). Copies in lanes are a loop of lanes, the
            // chains across it; copies along the chain's own loop (a column
            // stream's rows) are the chain.
            let skipped = |k: usize, f: &Form| {
                plan.block_dims.iter().any(|b| {
                    b.unrolled == k
                        && (b.below_loops
                            || (!plan.lane_dims.contains(&k) && !along_reduction(f)))
                })
            };
            let innermost = dims
                .iter()
                .enumerate()
                .rev()
                .find(|(k, f)| f.as_constant().is_none() && !skipped(*k, f))
                .map(|(_, f)| f);
            let along = innermost.is_some_and(along_reduction);
            !tiled && along
        })
        .collect()
}

/// The combining operations of `chosen` in the IR, by key.
fn combining_ops(scop: &Scop, chosen: &[Reduction]) -> HashMap<usize, Op> {
    chosen
        .iter()
        .filter_map(|r| {
            let id = scop.statements[r.stmt].body.get(r.combine_op)?.id;
            let op = *scop.ir.body_ops.get(id.0)?;
            Some((op.key(), op))
        })
        .collect()
}

/// Marks the combining operations of `chosen` (reductions of `scop`)
/// `reassoc`; returns how many were marked.
pub(super) fn allow(scop: &Scop, chosen: &[Reduction]) -> Result<usize, String> {
    let ops = combining_ops(scop, chosen);
    let Some(&anchor) = ops.values().next() else {
        return Ok(0);
    };
    let b = Builder::new(anchor);
    let mut marked = 0;
    for op in ops.values() {
        let now = op.attr(c"fastmath").map(|a| a.text());
        if let Some(text) = with_flag(now.as_deref(), "reassoc") {
            set_attr(*op, "fastmath", b.attr(&text)?);
            marked += 1;
        }
    }
    Ok(marked)
}

/// The remark's phrase for `chosen`.
pub(super) fn note(scop: &Scop, chosen: &[Reduction]) -> String {
    let what: Vec<String> = chosen
        .iter()
        .map(|r| {
            let st = &scop.statements[r.stmt];
            let op = st.body.get(r.combine_op).map_or("?", |o| o.name.as_str());
            let along: Vec<&str> = r.loops.iter().map(|&k| st.iters[k].as_str()).collect();
            format!("{} ({} along {})", st.name, op.trim_start_matches("arith."), along.join(", "))
        })
        .collect();
    format!(
        "reduction{} {} reassociated (fastmath<reassoc>: a chain along the innermost loop may run in vector lanes)",
        if chosen.len() == 1 { "" } else { "s" },
        what.join(", ")
    )
}

/// With `reassociate=true`, or for a reduction whose input allows any
/// order ([`Reduction::order_free`]), whether a reduction of `scop` to
/// reassociate ([`chosen`]) reduces over its statement's innermost loop: a chain of
/// dependent operations that the rewrite carries in a register and LLVM
/// then runs in vector lanes, a gain of its own for the profitability
/// rules.
pub(super) fn chain(scop: &Scop, options: &OptOptions) -> bool {
    chosen(scop).iter().any(|r| {
        let n = scop.statements[r.stmt].iters.len();
        r.reorderable(options.reassociate) && n > 0 && r.loops.contains(&(n - 1))
    })
}
