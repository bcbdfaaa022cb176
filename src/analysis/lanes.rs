//! Which statements' copies can run in the lanes of vectors: what the plan
//! asks before choosing row blocks (`transform/row_blocks.rs`) and what the
//! code generator's lanes (`codegen/emit/lanes.rs`) rely on.

use crate::scop::body::cloned_with_statements;
use crate::scop::model::Scop;

/// Most vectors of lanes one loop's copies run in (row blocks of
/// `row_blocks.rs` take two where one chain of adds per vector would bind
/// them: bicg's `q`, atax's `tmp`).
pub const MAX_LANE_VECTORS: i64 = 2;

/// The arithmetic operations run lane-wise (element-wise on vectors).
pub const LANE_OPS: [&str; 5] = [
    "arith.addf",
    "arith.subf",
    "arith.mulf",
    "arith.divf",
    "arith.negf",
];

/// Statement `s` of `scop` loads and stores doubles and computes its value
/// from its loads, with [`LANE_OPS`], and values from outside its loops
/// (parameters, constants): what its copies can run in lanes.
pub fn lane_wise(scop: &Scop, s: usize) -> bool {
    let st = &scop.statements[s];
    let mut stack = vec![scop.store_of(st)];
    let mut seen = std::collections::HashSet::new();
    while let Some(op) = stack.pop() {
        if !seen.insert(op.key()) {
            continue;
        }
        let name = op.name();
        let ok = match name.as_str() {
            "affine.load" => {
                st.accesses.iter().any(|a| scop.op_of(a).key() == op.key())
                    && op.result(0).is_some_and(|r| r.type_text() == "f64")
            }
            "affine.store" => {
                st.accesses.iter().any(|a| scop.op_of(a).key() == op.key())
                    && op
                        .operands()
                        .first()
                        .is_some_and(|v| v.type_text() == "f64")
            }
            n if LANE_OPS.contains(&n) => {
                op.num_results() == 1 && op.result(0).is_some_and(|r| r.type_text() == "f64")
            }
            _ => false,
        };
        if !ok {
            return false;
        }
        if name == "affine.load" {
            continue;
        }
        for v in op.operands() {
            if let Some(def) = v.defining_op() {
                if cloned_with_statements(scop, def) {
                    stack.push(def);
                }
            }
        }
    }
    true
}
