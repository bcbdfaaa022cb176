//! The statement instances of a straight-line loop body and their
//! subscripts as rows over the loop tree's columns: what the tree stages
//! and the printers ask of a body whose instances they keep in registers,
//! buffers or vector lanes.

use super::{subst_row, Node, Row};
use crate::ffi::ir::{Op, Val};
use crate::scop::body::cloned_with_statements;
use std::collections::HashMap;

use crate::scop::model::{Access, Model, Scop};

/// Statement instances of a straight-line loop body: the statement and its
/// iterator rows.
pub type Instances = Vec<(usize, Vec<Row>)>;

/// The statement instances of a straight-line loop body (sequences, lets
/// and statements only), in emission order, each with its iterator rows
/// and the let dimensions substituted into them; `None` when the body has
/// a loop or a guard.
pub fn straight_line(body: &Node, np: usize) -> Option<Instances> {
    fn walk(
        n: &Node,
        env: &mut Vec<(usize, Row)>,
        out: &mut Vec<(usize, Vec<Row>)>,
        np: usize,
    ) -> Option<()> {
        match n {
            Node::Seq(v) => v.iter().try_for_each(|c| walk(c, env, out, np)),
            Node::Let { dim, row, body } => {
                let r = subst_row(row, env, np)?;
                env.push((*dim, r));
                let res = walk(body, env, out, np);
                env.pop();
                res
            }
            Node::Stmt { stmt, iters } => {
                let its = iters
                    .iter()
                    .map(|r| subst_row(r, env, np))
                    .collect::<Option<Vec<_>>>()?;
                out.push((*stmt, its));
                Some(())
            }
            Node::Loop { .. } | Node::If { .. } => None,
        }
    }
    let mut out = Vec::new();
    walk(body, &mut Vec::new(), &mut out, np)?;
    Some(out)
}

/// The subscripts of access `a` at an instance whose iterators are the rows
/// `its`, as rows over `[params | t | divisions | 1]` (`w` columns, the
/// divisions from column `plain`); `None` when a subscript uses a local, an
/// iterator it uses is a division (its value is not affine in the loops),
/// or a coefficient overflows.
pub fn subscript_rows(
    a: &Access,
    its: &[Row],
    np: usize,
    plain: usize,
    w: usize,
) -> Option<Vec<Row>> {
    let mut index = Vec::new();
    for f in &a.index {
        if f.locals.iter().any(|&c| c != 0) || f.params.len() > np {
            return None;
        }
        let mut row = vec![0i64; w];
        for (p, &c) in f.params.iter().enumerate() {
            row[p] = c;
        }
        row[w - 1] = f.constant;
        for (i, &c) in f.iters.iter().enumerate() {
            let it = its.get(i)?;
            if c != 0 && (it.len() != w || it[plain..w - 1].iter().any(|&v| v != 0)) {
                return None;
            }
            for (o, x) in row.iter_mut().zip(it) {
                *o = o.checked_add(c.checked_mul(*x)?)?;
            }
        }
        index.push(row);
    }
    Some(index)
}

/// The memref an access operation goes through (the array's root or a view
/// of it) and its element type (empty when the operation is neither an
/// `affine.load` nor an `affine.store`); `None` without a memref operand.
pub fn access_memref(op: Op) -> Option<(Val, String)> {
    let name = op.name();
    let ops = op.operands();
    match name.as_str() {
        "affine.store" if ops.len() >= 2 => Some((ops[1], ops[0].type_text())),
        "affine.load" if !ops.is_empty() => Some(match op.result(0) {
            Some(r) => (ops[0], r.type_text()),
            None => (ops[0], String::new()),
        }),
        _ => ops.first().map(|&m| (m, String::new())),
    }
}

/// Per access origin of `scop` ([`Access::ir`]), what its operation says
/// that the model does not ([`Via`]), for the tree stages.
pub fn vias(scop: &Scop) -> Vec<Via> {
    scop.ir
        .accesses
        .iter()
        .map(|&op| match access_memref(op) {
            None => Via {
                memref: None,
                plain: false,
                strides: None,
                bytes: None,
            },
            Some((memref, elem)) => {
                let inside = memref
                    .defining_op()
                    .is_some_and(|d| cloned_with_statements(scop, d));
                Via {
                    memref: Some(memref.key()),
                    plain: !elem.is_empty() && !inside,
                    strides: crate::scop::expansion::byte_strides(&memref.type_text()),
                    bytes: crate::scop::expansion::static_bytes(&memref.type_text()),
                }
            }
        })
        .collect()
}

/// What an access's operation says that the model does not, for the
/// stages that keep cells in registers or buffer operands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Via {
    /// The memref value the operation goes through (a key: the array's
    /// root or a view of it); `None` for an operation without one.
    pub memref: Option<usize>,
    /// A cell of it can live in a register: its element type is known and
    /// the memref is not defined inside the statements (cloned with them).
    pub plain: bool,
    /// The bytes between neighbours along each of its dimensions, when its
    /// type tells ([`crate::scop::expansion::byte_strides`]).
    pub strides: Option<Vec<i64>>,
    /// The bytes of the whole memref, when its type tells
    /// ([`crate::scop::expansion::static_bytes`]).
    pub bytes: Option<i64>,
}

/// The accesses (by [`Access::ir`]) to expanded arrays, each with its
/// expansion (an index into [`Model::expansions`]): those of an
/// expansion's statements to its array.
pub fn expanded_accesses(model: &Model) -> HashMap<usize, usize> {
    let mut expanded = HashMap::new();
    for (x, e) in model.expansions.iter().enumerate() {
        // The accesses name the expanded array, not `e.array`.
        let array = crate::scop::expansion::expanded_array(model, x);
        for &s in &e.stmts {
            for acc in &model.statements[s].accesses {
                if acc.array == array {
                    expanded.insert(acc.ir.0, x);
                }
            }
        }
    }
    expanded
}
