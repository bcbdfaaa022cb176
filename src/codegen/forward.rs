//! Forwarding inside the body of an innermost loop, on the printed code
//! (after `emit`, where the carry stage asked for it:
//! [`Tree::forward`](crate::codegen::ast::Tree::forward)): a cell that the body's
//! statement copies load and store again and again (bicg's `s[j]`, once per
//! jammed row: `transform/row_blocks.rs`) is loaded once, its value passed
//! from copy to copy, and stored once, by the last copy that writes it.
//!
//! Exactness: the body is straight-line code of loads, stores and
//! arithmetic (anything else, a call or a nested region, leaves it as it
//! is), and only arrays whose accesses in the body are, two by two, at the
//! same cell (equal linear subscripts over the same values) or at cells
//! that never meet (a subscript that differs by a nonzero constant: bicg's
//! `s[0][j]` and `s[2][j]`) are forwarded, so no access of the body reaches
//! a cell under another name. Distinct arrays do not alias (the dependence model's assumption;
//! two memrefs of one array, views of it, are left alone). A load then
//! reads the value the last store before it wrote, or the loaded value when
//! none did; a store that another store of the cell follows, with no load
//! left between them, writes a value nothing reads.

use std::collections::{BTreeMap, HashMap};

use crate::ffi::build;
use crate::ffi::ir::{Block, Expr, ExprKind, Op, Val};
use crate::scop::model::Scop;

/// The operations a forwarded body may hold besides loads and stores.
fn pure(name: &str) -> bool {
    name.starts_with("arith.")
        || name.starts_with("math.")
        || name == "affine.apply"
        || name == "affine.yield"
}

/// The position of the memref among the operands of an `affine.load` (0)
/// or an `affine.store` (1, after the value); `None` for another
/// operation.
pub fn memref_position(op: Op) -> Option<usize> {
    match op.name().as_str() {
        "affine.load" => Some(0),
        "affine.store" => Some(1),
        _ => None,
    }
}

/// The array (its root's key) each memref of the SCoP's accesses names.
pub fn roots(scop: &Scop) -> HashMap<usize, usize> {
    let mut out = HashMap::new();
    for st in &scop.statements {
        for a in &st.accesses {
            let Some(at) = memref_position(scop.op_of(a)) else {
                continue;
            };
            if let Some(m) = scop.op_of(a).operands().get(at) {
                out.insert(m.key(), scop.root_of(&scop.arrays[a.array.0]).key());
            }
        }
    }
    out
}

/// Forwards the cells of every innermost `affine.for` in `ops` and the
/// operations nested in them (see the module text); `roots` from
/// [`roots`].
pub fn run(ops: &[Op], roots: &HashMap<usize, usize>) {
    let mut stack: Vec<Op> = ops.to_vec();
    while let Some(op) = stack.pop() {
        for r in op.regions() {
            for b in r.blocks() {
                let inner = b.ops();
                let straight = inner.iter().all(|o| o.regions().is_empty());
                if straight && op.name() == "affine.for" {
                    forward_block(b, roots);
                } else {
                    stack.extend(inner);
                }
            }
        }
    }
}

/// A subscript as a linear form over the access's operands (by value):
/// coefficients and a constant; `None` for a division or modulo.
type Linear = (BTreeMap<usize, i64>, i64);

fn linear(e: Expr, operands: &[Val], dims: usize) -> Option<Linear> {
    let mut form = BTreeMap::new();
    let c = add_linear(e, operands, dims, 1, &mut form)?;
    form.retain(|_, v| *v != 0);
    Some((form, c))
}

/// Adds `scale · e` to `form`; returns `scale ·` its constant part.
fn add_linear(
    e: Expr,
    operands: &[Val],
    dims: usize,
    scale: i64,
    form: &mut BTreeMap<usize, i64>,
) -> Option<i64> {
    let mut var = |k: usize| -> Option<i64> {
        let v = operands.get(k)?;
        let x = form.entry(v.key()).or_insert(0);
        *x = x.checked_add(scale)?;
        Some(0)
    };
    match e.kind() {
        ExprKind::Dim(d) => var(d),
        ExprKind::Symbol(q) => var(dims + q),
        ExprKind::Constant(c) => c.checked_mul(scale),
        ExprKind::Add(a, b) => add_linear(a, operands, dims, scale, form)?
            .checked_add(add_linear(b, operands, dims, scale, form)?),
        ExprKind::Mul(a, b) => match (a.kind(), b.kind()) {
            (_, ExprKind::Constant(c)) => {
                add_linear(a, operands, dims, scale.checked_mul(c)?, form)
            }
            (ExprKind::Constant(c), _) => {
                add_linear(b, operands, dims, scale.checked_mul(c)?, form)
            }
            _ => None,
        },
        _ => None,
    }
}

/// An access: its memref, and the cell: per subscript, its linear form
/// (`None` for one that is not linear).
fn access(op: Op) -> Option<(Val, Vec<Option<Linear>>)> {
    let at = memref_position(op)?;
    let operands = op.operands();
    let memref = *operands.get(at)?;
    let map = op.map_attr(c"map")?;
    let subs = &operands[at + 1..];
    let cell = map
        .results()
        .into_iter()
        .map(|e| linear(e, subs, map.num_dims()))
        .collect();
    Some((memref, cell))
}

/// Two cells of one array: `Some(true)` when they are the same (equal
/// linear subscripts), `Some(false)` when they never are (some subscript
/// differs by a nonzero constant), `None` when that is not known.
fn same_cell(a: &[Option<Linear>], b: &[Option<Linear>]) -> Option<bool> {
    let distinct = a.iter().zip(b).any(|(x, y)| match (x, y) {
        (Some((fx, cx)), Some((fy, cy))) => fx == fy && cx != cy,
        _ => false,
    });
    if distinct {
        return Some(false);
    }
    let equal = a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.is_some() && x == y);
    equal.then_some(true)
}

/// [`run`] on one straight-line body.
fn forward_block(block: Block, roots: &HashMap<usize, usize>) {
    let ops = block.ops();
    // Per memref: its distinct cells, or `None` once two may overlap.
    type Cells = Option<Vec<Vec<Option<Linear>>>>;
    let mut cells: HashMap<usize, Cells> = HashMap::new();
    // Per access: its memref and cell number.
    let mut accesses: Vec<(Op, usize, usize)> = Vec::new();
    let mut arrays: HashMap<usize, usize> = HashMap::new(); // root -> memref
    let mut views: Vec<usize> = Vec::new(); // roots reached through two memrefs
    for &op in &ops {
        let name = op.name();
        let Some((memref, cell)) = access(op) else {
            if pure(&name) {
                continue;
            }
            return;
        };
        // A memref used as a subscript or stored as a value is not
        // followed: leave the body alone.
        let at = memref_position(op).unwrap_or(0);
        if op
            .operands()
            .iter()
            .enumerate()
            .any(|(k, v)| k != at && v.is_memref())
        {
            return;
        }
        let m = memref.key();
        let root = roots.get(&m).copied().unwrap_or(m);
        if *arrays.entry(root).or_insert(m) != m {
            views.push(root);
        }
        let entry = cells.entry(m).or_insert_with(|| Some(Vec::new()));
        let Some(list) = entry else { continue };
        let verdicts: Vec<Option<bool>> = list.iter().map(|c| same_cell(c, &cell)).collect();
        if verdicts.contains(&None) {
            *entry = None;
            continue;
        }
        let number = match verdicts.iter().position(|&v| v == Some(true)) {
            Some(k) => k,
            None => {
                list.push(cell);
                list.len() - 1
            }
        };
        accesses.push((op, m, number));
    }
    let forwarded = |m: usize| -> bool {
        let root = roots.get(&m).copied().unwrap_or(m);
        matches!(cells.get(&m), Some(Some(_))) && !views.contains(&root)
    };
    let mut value: HashMap<(usize, usize), Val> = HashMap::new();
    let mut last_store: HashMap<(usize, usize), Op> = HashMap::new();
    for (op, m, number) in accesses {
        if !forwarded(m) {
            continue;
        }
        let cell = (m, number);
        if op.name() == "affine.load" {
            let Some(result) = op.result(0) else { continue };
            match value.get(&cell) {
                Some(&v) => {
                    build::replace_uses(result, v);
                    build::erase(op);
                }
                None => {
                    value.insert(cell, result);
                }
            }
        } else {
            let Some(&stored) = op.operands().first() else {
                continue;
            };
            if let Some(old) = last_store.insert(cell, op) {
                build::erase(old);
            }
            value.insert(cell, stored);
        }
    }
}
