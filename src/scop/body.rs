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

use std::collections::HashMap;

use super::model::{BodyOp, IrRef, Operand, Scop};
use crate::ffi::ir::{Op, Val};
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

/// Fills every statement's [`body`](super::model::Statement::body) and the
/// operations of the bodies ([`super::model::IrMap::body_ops`]): the store
/// and the backward slice of its value through the operations
/// [`cloned_with_statements`], in program order (preorder over the SCoP's
/// operations).
pub fn statement_bodies(scop: &mut Scop) {
    let mut order: HashMap<usize, usize> = HashMap::new();
    fn number(op: Op, order: &mut HashMap<usize, usize>) {
        let n = order.len();
        order.insert(op.key(), n);
        for r in op.regions() {
            for b in r.blocks() {
                for o in b.ops() {
                    number(o, order);
                }
            }
        }
    }
    for &op in &scop.ir.ops {
        number(op, &mut order);
    }
    let mut ids: HashMap<usize, usize> = HashMap::new();
    let mut body_ops: Vec<Op> = Vec::new();
    let mut outside_ids: HashMap<usize, usize> = HashMap::new();
    let mut outside: Vec<Val> = Vec::new();
    let mut outside_id = |v: Val| {
        IrRef(*outside_ids.entry(v.key()).or_insert_with(|| {
            outside.push(v);
            outside.len() - 1
        }))
    };
    let mut bodies = Vec::new();
    for st in &scop.statements {
        let mut slice: Vec<Op> = Vec::new();
        let mut stack = vec![scop.store_of(st)];
        let mut seen = std::collections::HashSet::new();
        while let Some(op) = stack.pop() {
            if !seen.insert(op.key()) {
                continue;
            }
            slice.push(op);
            for v in op.operands() {
                if let Some(def) = v.defining_op() {
                    if cloned_with_statements(scop, def) {
                        stack.push(def);
                    }
                }
            }
        }
        slice.sort_by_key(|op| order.get(&op.key()).copied().unwrap_or(usize::MAX));
        let position: HashMap<usize, usize> = slice
            .iter()
            .enumerate()
            .map(|(i, o)| (o.key(), i))
            .collect();
        let ivs: Vec<usize> = scop.ivs_of(st).iter().map(|v| v.key()).collect();
        let body: Vec<BodyOp> = slice
            .iter()
            .map(|&op| {
                let id = *ids.entry(op.key()).or_insert_with(|| {
                    body_ops.push(op);
                    body_ops.len() - 1
                });
                let operands = op
                    .operands()
                    .iter()
                    .map(|v| match v.defining_op() {
                        Some(d) => match position.get(&d.key()) {
                            Some(&i) => Operand::Op(i),
                            None if !cloned_with_statements(scop, d) => {
                                Operand::Outside(outside_id(*v))
                            }
                            None => Operand::Inside,
                        },
                        None => {
                            let in_loops = ivs.contains(&v.key())
                                || v.owner_block()
                                    .and_then(|b| b.parent_op())
                                    .is_some_and(|p| in_scop(scop, p));
                            if in_loops {
                                Operand::Inside
                            } else {
                                Operand::Outside(outside_id(*v))
                            }
                        }
                    })
                    .collect();
                BodyOp {
                    id: IrRef(id),
                    name: op.name(),
                    operands,
                    results: op.num_results(),
                    ty: op.result(0).map(|r| r.type_text()).unwrap_or_default(),
                    regions: !op.regions().is_empty(),
                    access: st
                        .accesses
                        .iter()
                        .position(|a| scop.op_of(a).key() == op.key()),
                    reassoc: op
                        .attr(c"fastmath")
                        .is_some_and(|f| allows_reassociation(&f.text())),
                }
            })
            .collect();
        bodies.push(body);
    }
    for (st, body) in scop.model.statements.iter_mut().zip(bodies) {
        st.body = body;
    }
    scop.ir.body_ops = body_ops;
    scop.ir.outside = outside;
}

/// The flags of a `fastmath` attribute's text
/// (`#arith.fastmath<reassoc,contract>`: `reassoc`, `contract`); none for
/// `#arith.fastmath<none>` or another text.
pub(crate) fn fastmath_flags(text: &str) -> Vec<&str> {
    text.strip_prefix("#arith.fastmath<")
        .and_then(|t| t.strip_suffix('>'))
        .unwrap_or("none")
        .split(',')
        .map(str::trim)
        .filter(|f| !f.is_empty() && *f != "none")
        .collect()
}

/// Whether a `fastmath` attribute's text allows reassociation: it names
/// `reassoc`, or `fast` (every flag).
fn allows_reassociation(text: &str) -> bool {
    fastmath_flags(text)
        .iter()
        .any(|&f| f == "reassoc" || f == "fast")
}

#[cfg(test)]
mod tests {
    use super::{allows_reassociation, fastmath_flags};

    #[test]
    fn fastmath_flags_and_reassociation() {
        assert_eq!(
            fastmath_flags("#arith.fastmath<reassoc,contract>"),
            vec!["reassoc", "contract"]
        );
        assert!(fastmath_flags("#arith.fastmath<none>").is_empty());
        assert!(fastmath_flags("0 : i64").is_empty());
        assert!(allows_reassociation("#arith.fastmath<nnan,reassoc>"));
        assert!(allows_reassociation("#arith.fastmath<fast>"));
        assert!(!allows_reassociation("#arith.fastmath<contract>"));
        assert!(!allows_reassociation("#arith.fastmath<none>"));
    }
}
