//! Which operations of a SCoP belong to its statements' bodies.
//!
//! A statement is a store and the backward slice of its value (see
//! [`super::model`]): the operations inside the SCoP's loop nests, and the
//! operations between the nests that touch memory (a store between two
//! nests, a load, the arithmetic on what it loaded). Code generation
//! clones them into every statement instance and erases the originals; the
//! analyses of a statement's computation walk them. The other operations
//! between the nests (constants, index arithmetic, arithmetic on values
//! defined before the SCoP) are the same wherever they run: the rewrite
//! moves them in front of the new code.

use super::model::Scop;
use crate::ffi::ir::Op;
use crate::ffi::shim;

/// True for the operations that root a loop nest of a SCoP.
pub fn is_nest(op: Op) -> bool {
    matches!(
        op.name().as_str(),
        "affine.for" | "affine.parallel" | "affine.if"
    )
}

/// True when `op` is one of the SCoP's operations or nested in one.
pub fn in_scop(scop: &Scop, op: Op) -> bool {
    scop.ir.ops.iter().any(|&r| op.is_within(r))
}

/// True when `op` lies inside one of the SCoP's loop nests (not at its top level).
pub fn is_nested_in_loop(scop: &Scop, op: Op) -> bool {
    scop.ir
        .ops
        .iter()
        .any(|&r| is_nest(r) && op.key() != r.key() && op.is_within(r))
}

/// True when `op`, one of the SCoP's top-level operations between its
/// loop nests, reads or writes memory or uses a value computed from such an
/// access: a store between two nests (a statement of its own), a load (the
/// model reads it at each statement that uses its value) and the arithmetic
/// on what it loaded. Such operations belong to statements and run where
/// the schedule puts them; the other top-level operations (constants, index
/// arithmetic, arithmetic on values defined before the SCoP) are the same
/// wherever they run and move in front of the new code.
pub fn touches_memory(scop: &Scop, op: Op) -> bool {
    let mut stack = vec![op];
    let mut seen = std::collections::HashSet::new();
    while let Some(o) = stack.pop() {
        if !seen.insert(o.key()) {
            continue;
        }
        if !shim::is_memory_effect_free(o) {
            return true;
        }
        for v in o.operands() {
            if let Some(def) = v.defining_op() {
                if in_scop(scop, def) && !is_nest(def) && !is_nested_in_loop(scop, def) {
                    stack.push(def);
                }
            }
        }
    }
    false
}

/// True when statement instances clone `op`: an operation of the SCoP
/// inside its loop nests, or one between them that [`touches_memory`]:
/// the operations of the statements' bodies. Code generation erases the
/// originals with the old code.
pub fn cloned_with_statements(scop: &Scop, op: Op) -> bool {
    in_scop(scop, op) && !is_nest(op) && (is_nested_in_loop(scop, op) || touches_memory(scop, op))
}
