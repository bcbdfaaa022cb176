//! The layout retry: where the plan's register tiles cannot pack a
//! strided operand (they reduce over loops after their band, which
//! `codegen/tree/buffers.rs` does not pack) or there is no register tile,
//! the operands [`crate::rewrite::layout`] finds are transposed ahead of
//! the SCoP in the IR (a buffer, its copy, the reads rewritten:
//! [`crate::codegen::emit::transposed_copy`]), the SCoP is modeled and
//! planned again, and the new plan is kept when it has register tiles.
//! Otherwise, and when the rewrite does not happen after all, the IR is
//! taken back to the input ([`Applied::undo`]).

use crate::codegen::emit::transposed_copy;
use crate::codegen::forward::memref_position;
use crate::codegen::map_text::permuted_map;
use crate::deps::{compute, DepOptions};
use crate::ffi::build::{self, Builder};
use crate::ffi::ir::{Op, Val};
use crate::rewrite::layout::{candidates, Transpose};
use crate::sched::pluto::schedule;
use crate::scop::detect::Scop as Detected;
use crate::scop::expansion::static_shape;
use crate::scop::model::{build, Scop};

use super::plan::plan_with;
use super::{Candidate, Cx};

/// The IR changes of the transposed operands, to take back.
pub(super) struct Applied {
    /// The buffers' allocations, copies and deallocations.
    made: Vec<Op>,
    /// Each buffer, its array and the buffer's order of the array's
    /// dimensions.
    buffers: Vec<(Val, Val, Vec<usize>)>,
}

impl Applied {
    /// Takes the IR back to the input: every read of a buffer (the SCoP's
    /// own, or the copies the emitted-code check put back in its place)
    /// reads the array again, then the buffers go.
    pub(super) fn undo(self) {
        for (buf, array, order) in &self.buffers {
            let mut inverse = vec![0; order.len()];
            for (k, &j) in order.iter().enumerate() {
                inverse[j] = k;
            }
            for op in buf.users() {
                if op.name() != "affine.load" {
                    continue;
                }
                let map = op.attr(c"map").map(|a| a.text());
                let back = map.and_then(|m| permuted_map(&m, &inverse));
                if let Some(attr) = back.and_then(|m| Builder::new(op).attr(&m).ok()) {
                    build::set_operand(op, 0, *array);
                    build::set_attr(op, "map", attr);
                }
            }
        }
        for op in self.made.into_iter().rev() {
            build::erase(op);
        }
    }
}

/// See the module text: replaces `c` by the SCoP with its operands
/// transposed, and returns the IR changes to take back if the rewrite does
/// not happen; `None` when nothing changed.
pub(super) fn retry(func: Op, c: &mut Candidate, cx: &Cx) -> Option<Applied> {
    let tiles = &c.chosen.as_ref().ok()?.plan.register_tiles;
    if tiles.iter().any(|t| t.between == 0) || !c.scop.expansions.is_empty() {
        return None;
    }
    let shapes: Vec<Option<Vec<i64>>> = c
        .scop
        .arrays
        .iter()
        .map(|a| static_shape(&c.scop.root_of(a).type_text()).map(|(s, _)| s))
        .collect();
    let found = candidates(&c.scop, &shapes);
    if found.is_empty() {
        return None;
    }
    let applied = apply(&c.scop, &found)?;
    let detected = Detected {
        ops: c.scop.ir.ops.clone(),
        nests: 0,
        depth: 0,
        statements: 0,
        parameters: 0,
    };
    let replanned = build(func, &detected).ok().and_then(|scop| {
        let deps = compute(&scop, DepOptions::default()).ok()?;
        let sched = schedule(&scop, &deps, cx.sched_options).ok()?;
        let planned = plan_with(&scop, &deps, sched.clone(), cx.options, cx.plan_options).ok()?;
        (!planned.plan.register_tiles.is_empty()).then_some((scop, deps, sched, planned))
    });
    let Some((scop, deps, sched, planned)) = replanned else {
        applied.undo();
        return None;
    };
    c.scop_notes.push(note(&c.scop, &found));
    c.scop = scop;
    c.deps = deps;
    c.sched = Some(sched);
    c.take(Ok(planned));
    Some(applied)
}

/// Transposes `found` in the IR of `scop`; `None` (nothing changed) when
/// an array's read is not a plain `affine.load` of its root.
fn apply(scop: &Scop, found: &[Transpose]) -> Option<Applied> {
    let first = scop.ir.first_op;
    let end = build::next_op(*scop.ir.ops.last()?)?;
    // Check every read before changing anything.
    let mut reads = Vec::new();
    for t in found {
        let root = scop.root(t.array);
        let (_, elem) = static_shape(&root.type_text())?;
        let acc = scop
            .statements
            .iter()
            .flat_map(|st| &st.accesses)
            .find(|a| a.array == t.array)?;
        let op = scop.op_of(acc);
        let plain = op.name() == "affine.load"
            && memref_position(op) == Some(0)
            && op.operands().first().is_some_and(|m| m.key() == root.key());
        let map = op.attr(c"map").map(|a| a.text())?;
        let new_map = permuted_map(&map, &t.order)?;
        if !plain {
            return None;
        }
        reads.push((t, root, elem, op, new_map));
    }
    let mut applied = Applied {
        made: Vec::new(),
        buffers: Vec::new(),
    };
    for (t, root, elem, op, new_map) in reads {
        let buf = transposed_copy(t, root, &elem, (first, end), &mut applied.made);
        let attr = Builder::new(op).attr(&new_map);
        let (Ok(buf), Ok(attr)) = (buf, attr) else {
            applied.undo();
            return None;
        };
        build::set_operand(op, 0, buf);
        build::set_attr(op, "map", attr);
        applied.buffers.push((buf, root, t.order.clone()));
    }
    Some(applied)
}

/// The remark's phrase for the transposed arrays `found` of `scop`.
fn note(scop: &Scop, found: &[Transpose]) -> String {
    let each: Vec<String> = found
        .iter()
        .map(|t| {
            let order: Vec<String> = t.order.iter().map(usize::to_string).collect();
            format!("{} (dimensions {})", scop.arrays[t.array.0].name, order.join(", "))
        })
        .collect();
    format!(
        "operand{} {} transposed ahead (copied once, contiguous along the written rows)",
        if found.len() == 1 { "" } else { "s" },
        each.join(", ")
    )
}
