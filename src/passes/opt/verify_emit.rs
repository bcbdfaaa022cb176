//! `poly-opt`'s emitted-code check (`verify-emit`, [`crate::validate`]):
//! before the rewrite, the SCoP's operations run in the interpreter; after
//! it, the new code runs and must leave every cell as the SCoP did. The
//! rewrite only takes the SCoP's operations out of their block
//! ([`Emitted::replaced`]); they are erased once the new code passes. When
//! it does not, the new code goes, the SCoP's own operations go back in
//! their order with the `fastmath` flags the rewrite set on them undone,
//! and the caller takes back what it prepared before the model (values
//! carried through cells, reductions split into blocks): the SCoP
//! unchanged, with an internal-error warning (a bug caught in time).

use crate::codegen::emit::Emitted;
use crate::ffi::build::{self, Builder};
use crate::ffi::ir::Op;
use crate::scop::model::Scop;
use crate::validate::run::Stop;
use crate::validate::{Original, Verdict};

/// The `fastmath` attributes of a SCoP's operations (and those nested in
/// them) before the rewrite marks them for contraction or reassociation.
pub(super) struct Flags(Vec<(Op, Option<String>)>);

impl Flags {
    /// Records the `fastmath` attribute of each operation in `ops` and
    /// nested in them.
    pub(super) fn record(ops: &[Op]) -> Flags {
        let mut out = Vec::new();
        let mut stack: Vec<Op> = ops.to_vec();
        while let Some(op) = stack.pop() {
            if op.name().starts_with("arith.") {
                out.push((op, op.attr(c"fastmath").map(|a| a.text())));
            }
            for r in op.regions() {
                for blk in r.blocks() {
                    stack.extend(blk.ops());
                }
            }
        }
        Flags(out)
    }

    /// Sets each recorded attribute back (removes those there were not).
    fn restore(self) -> Result<(), String> {
        let Some(&(anchor, _)) = self.0.first() else {
            return Ok(());
        };
        let b = Builder::new(anchor);
        for (op, text) in self.0 {
            match text {
                Some(t) => build::set_attr(op, "fastmath", b.attr(&t)?),
                None => build::remove_attr(op, "fastmath"),
            }
        }
        Ok(())
    }
}

/// What the check keeps across the rewrite.
pub(super) struct Pending {
    original: Original,
    /// The SCoP's top-level operations, in order.
    ops: Vec<Op>,
    /// The operation before the SCoP (`None`: it starts its block) and the
    /// one after it: the new code ends up between them.
    prev: Option<Op>,
    end: Op,
    /// The operations' `fastmath` attributes before the rewrite.
    flags: Flags,
}

/// How the check ended when it did not catch a bug: the remark's note, if
/// any.
pub(super) type Note = Option<String>;

/// Runs the SCoP's operations (at most `limit`), with `flags` their
/// attributes as they were before the rewrite marked them; `Err` with the
/// remark's note when the check cannot be made.
pub(super) fn before(scop: &Scop, limit: u64, flags: Flags) -> Result<Pending, Note> {
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
    Ok(Pending {
        original,
        ops: scop.ir.ops.clone(),
        prev,
        end,
        flags,
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

/// Runs the new code and compares. When it is the same, erases the
/// replaced operations; when it differs, erases the new code, puts the
/// SCoP's operations back in their order and returns `Err` with what
/// differs.
pub(super) fn after(p: Pending, emitted: &mut Emitted) -> Result<Note, String> {
    let ops = between(p.prev, p.end);
    let note = match p.original.compare(&ops) {
        Verdict::Same { steps } => Some(format!(
            "emitted code re-checked by interpretation ({steps} operations)"
        )),
        Verdict::Skipped(why) => Some(format!("emitted code not re-checked: {why}")),
        Verdict::OverBudget(_) => None,
        Verdict::Differs(why) => {
            // Between `prev` and `end`: the new code, and the SCoP's
            // operations the rewrite moved in front of it and kept.
            let own: Vec<usize> = p.ops.iter().map(|o| o.key()).collect();
            for &op in ops.iter().rev() {
                if !own.contains(&op.key()) {
                    build::erase(op);
                }
            }
            emitted.versioned = None;
            let detached: Vec<usize> = emitted.replaced.drain(..).map(Op::key).collect();
            for &op in &p.ops {
                if detached.contains(&op.key()) {
                    build::insert_before(op, p.end);
                } else {
                    build::move_before(op, p.end);
                }
            }
            if let Err(e) = p.flags.restore() {
                return Err(format!("{why} (and its fastmath flags could not be put back: {e})"));
            }
            return Err(why);
        }
    };
    emitted.retire_replaced();
    Ok(note)
}
