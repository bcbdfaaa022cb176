//! `poly-opt`'s emitted-code check (`verify-emit`, [`crate::validate`]):
//! before the rewrite, the SCoP's operations run in the interpreter and a
//! copy of them is kept; after it, the new code runs and must leave every
//! cell as the SCoP did. When it does not, the new code goes and the copy
//! is put back in its place (the SCoP unchanged, with an internal-error
//! warning: a bug caught in time).

use crate::codegen::emit::replaced_ops;
use crate::ffi::build;
use crate::ffi::ir::Op;
use crate::ffi::shim::Snapshot;
use crate::scop::model::Scop;
use crate::validate::run::Stop;
use crate::validate::{Original, Verdict};

/// What the check keeps across the rewrite.
pub(super) struct Pending {
    original: Original,
    snapshot: Snapshot,
    /// The operation before the SCoP (`None`: it starts its block) and the
    /// one after it: the new code ends up between them.
    prev: Option<Op>,
    end: Op,
    /// The SCoP's operations the rewrite moves in front of the new code
    /// and keeps (by key).
    kept: Vec<usize>,
}

/// How the check ended when it did not catch a bug: the remark's note, if
/// any.
pub(super) type Note = Option<String>;

/// Runs the SCoP's operations (at most `limit`) and keeps a copy of them;
/// `Err` with the remark's note when the check cannot be made.
pub(super) fn before(scop: &Scop, limit: u64) -> Result<Pending, Note> {
    let Some(&last) = scop.ir.ops.last() else {
        return Err(None);
    };
    let Some(end) = build::next_op(last) else {
        return Err(None);
    };
    // Past the operation budget: not worth a note (the big kernels all
    // skip for it).
    let original = Original::run(scop, limit).map_err(|stop| match stop {
        Stop::Skip(why) | Stop::Race(why) => Some(format!("emitted code not re-checked: {why}")),
        Stop::Budget(_) => None,
    })?;
    let block = scop.ir.first_op.block().ok_or(None)?;
    let ops = block.ops();
    let at = ops
        .iter()
        .position(|o| o.key() == scop.ir.first_op.key())
        .ok_or(None)?;
    let prev = at.checked_sub(1).map(|k| ops[k]);
    let replaced = replaced_ops(scop);
    let kept = scop
        .ir.ops
        .iter()
        .filter(|o| !replaced.iter().any(|r| r.key() == o.key()))
        .map(|o| o.key())
        .collect();
    Ok(Pending {
        original,
        snapshot: Snapshot::take(&replaced),
        prev,
        end,
        kept,
    })
}

/// The operations strictly between `prev` (or the start of `end`'s block)
/// and `end`.
fn between(prev: Option<Op>, end: Op) -> Vec<Op> {
    let Some(block) = end.block() else {
        return Vec::new();
    };
    let ops = block.ops();
    let from = match prev {
        Some(p) => match ops.iter().position(|o| o.key() == p.key()) {
            Some(k) => k + 1,
            None => return Vec::new(),
        },
        None => 0,
    };
    let to = ops.iter().position(|o| o.key() == end.key()).unwrap_or(ops.len());
    ops.get(from..to).map(<[Op]>::to_vec).unwrap_or_default()
}

/// Runs the new code and compares. When it differs, puts the SCoP back and
/// returns `Err` with what differs.
pub(super) fn after(p: Pending) -> Result<Note, String> {
    let ops = between(p.prev, p.end);
    match p.original.compare(&ops) {
        Verdict::Same { steps } => Ok(Some(format!(
            "emitted code re-checked by interpretation ({steps} operations)"
        ))),
        Verdict::Skipped(why) => Ok(Some(format!("emitted code not re-checked: {why}"))),
        Verdict::OverBudget(_) => Ok(None),
        Verdict::Differs(why) => {
            for &op in ops.iter().rev() {
                if !p.kept.contains(&op.key()) {
                    build::erase(op);
                }
            }
            p.snapshot.restore(p.end);
            Err(why)
        }
    }
}
