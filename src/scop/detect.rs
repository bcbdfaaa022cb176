//! Detection of static control parts (SCoPs) in affine MLIR.
//!
//! A SCoP here is a maximal run of consecutive operations in one block that
//! holds at least one loop and in which
//!
//! * control flow is `affine.for` (no `iter_args`), `affine.if` (no results)
//!   and `affine.parallel` (no reductions), with pure-affine bound maps and
//!   conditions;
//! * every index operand of an affine op, and every index of a `memref.load` /
//!   `memref.store`, is an affine function of the SCoP's induction variables
//!   and of parameters (see `affinity`);
//! * every other operation is free of memory effects (`mlir::isMemoryEffectFree`)
//!   apart from the affine and memref loads and stores, and is not an `scf` op.
//!
//! Parameters are index values that are invariant in the SCoP: values defined
//! outside it (function arguments, outer non-affine loop counters, top-level
//! computations), and pure operations inside it whose operands are all
//! parameters (e.g. `memref.dim`). Constants are not parameters.
//!
//! The search is top-down: a nest that breaks a rule is reported (once, at its
//! outermost op) and then searched inside for smaller SCoPs, as Polly does.
//! Nothing here changes the IR.

use std::collections::BTreeSet;

use crate::ffi::ir::{Block, Op, Val};
use crate::ffi::shim::is_memory_effect_free;

/// A static control part found in a function.
#[derive(Debug, Clone)]
pub struct Scop {
    /// The operations of the run, in block order (loop nests and the pure or
    /// affine operations between them).
    pub ops: Vec<Op>,
    /// Number of top-level loop nests.
    pub nests: usize,
    /// Maximal loop depth (an `affine.parallel` counts one per dimension).
    pub depth: usize,
    /// Number of statements: the stores in the SCoP.
    pub statements: usize,
    /// Number of distinct parameters.
    pub parameters: usize,
}

/// A loop nest that is not a SCoP, with the operation that breaks it.
#[derive(Debug, Clone)]
pub struct Rejection {
    /// The outermost operation of the rejected nest.
    pub nest: Op,
    /// The operation that breaks the rules.
    pub culprit: Op,
    /// Why, as a sentence fragment naming the culprit.
    pub reason: String,
}

/// The outcome of SCoP detection on one operation (usually a function).
#[derive(Debug, Default)]
pub struct Detection {
    /// The SCoPs, in program order.
    pub scops: Vec<Scop>,
    /// The rejected outermost nests, in program order.
    pub rejections: Vec<Rejection>,
}

/// Finds the SCoPs nested in `root` whose depth is at least `min_depth`.
pub fn detect(root: Op, min_depth: usize) -> Detection {
    let mut d = Detection::default();
    for region in root.regions() {
        for block in region.blocks() {
            scan_block(block, min_depth, false, &mut d);
        }
    }
    d
}

/// What a checked piece of IR contributes to its SCoP.
#[derive(Debug, Default, Clone)]
struct Stats {
    depth: usize,
    loops: usize,
    statements: usize,
    params: BTreeSet<usize>,
}

impl Stats {
    fn merge(&mut self, other: Stats) {
        self.depth = self.depth.max(other.depth);
        self.loops += other.loops;
        self.statements += other.statements;
        self.params.extend(other.params);
    }
}

fn is_nest_root(name: &str) -> bool {
    matches!(name, "affine.for" | "affine.if" | "affine.parallel")
}

/// The current run of SCoP candidates in a block.
#[derive(Default)]
struct Run {
    ops: Vec<Op>,
    stats: Stats,
    nests: usize,
    /// Length of `ops` up to and including the last loop nest.
    last_nest_end: usize,
}

/// Scans one block; `quiet` is set inside a rejected nest, whose inner nests
/// are searched for SCoPs but not reported again when rejected.
fn scan_block(block: Block, min_depth: usize, quiet: bool, d: &mut Detection) {
    let mut run = Run::default();
    for op in block.ops() {
        let name = op.name();
        if is_nest_root(&name) {
            match check_tree(op, op) {
                Ok(stats) => {
                    run.ops.push(op);
                    run.nests += 1;
                    run.last_nest_end = run.ops.len();
                    run.stats.merge(stats);
                }
                Err(rejection) => {
                    flush(&mut run, min_depth, d);
                    if !quiet {
                        d.rejections.push(rejection);
                    }
                    scan_regions(op, min_depth, true, d);
                }
            }
        } else if !run.ops.is_empty() && op.regions().is_empty() && check_tree(op, op).is_ok() {
            // A pure or affine operation between nests extends the run.
            run.ops.push(op);
            let stats = check_tree(op, op).unwrap_or_default();
            run.stats.merge(stats);
        } else {
            flush(&mut run, min_depth, d);
            scan_regions(op, min_depth, quiet, d);
        }
    }
    flush(&mut run, min_depth, d);
}

fn scan_regions(op: Op, min_depth: usize, quiet: bool, d: &mut Detection) {
    for region in op.regions() {
        for block in region.blocks() {
            scan_block(block, min_depth, quiet, d);
        }
    }
}

fn flush(run: &mut Run, min_depth: usize, d: &mut Detection) {
    let r = std::mem::take(run);
    if r.nests == 0 || r.stats.loops == 0 || r.stats.depth < min_depth.max(1) {
        return;
    }
    let mut ops = r.ops;
    ops.truncate(r.last_nest_end);
    if let Some(cut) = escaping_read(&ops) {
        // The read stays where it is, outside any SCoP: the run ends
        // before it and starts anew after it.
        let rest = ops.split_off(cut);
        push_run(ops, min_depth, d);
        push_run(rest[1..].to_vec(), min_depth, d);
        return;
    }
    // Statements after the last nest were dropped with their ops; recount.
    let statements = ops.iter().map(|&op| count_stores(op)).sum();
    d.scops.push(Scop {
        ops,
        nests: r.nests,
        depth: r.stats.depth,
        statements,
        parameters: r.stats.params.len(),
    });
}

/// A run of operations that already passed the rules (a part of a longer
/// one), as a SCoP: from its first loop nest to its last, split again
/// where [`escaping_read`] says.
fn push_run(ops: Vec<Op>, min_depth: usize, d: &mut Detection) {
    let mut run = Run::default();
    for op in ops {
        if is_nest_root(&op.name()) {
            run.nests += 1;
        } else if run.ops.is_empty() {
            continue;
        }
        if let Ok(stats) = check_tree(op, op) {
            run.stats.merge(stats);
        }
        run.ops.push(op);
        if is_nest_root(&op.name()) {
            run.last_nest_end = run.ops.len();
        }
    }
    flush(&mut run, min_depth, d);
}

/// The position of a read between the nests of `ops` (a top-level load)
/// whose value, or a value computed from it there, is used after them:
/// the rewrite moves the statements' reads to where the schedule puts
/// them, so such a value would have no place to come from. The earliest
/// read the first such use depends on.
fn escaping_read(ops: &[Op]) -> Option<usize> {
    let within = |u: Op| ops.iter().any(|&r| u.is_within(r));
    // Per top-level operation that reads memory or uses such a value: the
    // earliest read it depends on.
    let mut reads: Vec<(usize, usize)> = Vec::new();
    for (k, &op) in ops.iter().enumerate() {
        if is_nest_root(&op.name()) {
            continue;
        }
        let own = (!is_memory_effect_free(op) && op.num_results() > 0).then_some(k);
        let from = op
            .operands()
            .iter()
            .filter_map(|v| v.defining_op())
            .filter_map(|def| reads.iter().find(|(key, _)| *key == def.key()).map(|r| r.1))
            .chain(own)
            .min();
        let Some(first) = from else { continue };
        reads.push((op.key(), first));
        let escapes = (0..op.num_results())
            .filter_map(|r| op.result(r))
            .flat_map(|v| v.users())
            .any(|u| !within(u));
        if escapes {
            return Some(first);
        }
    }
    None
}

fn count_stores(op: Op) -> usize {
    let own = usize::from(matches!(
        op.name().as_str(),
        "affine.store" | "memref.store"
    ));
    own + op
        .regions()
        .into_iter()
        .flat_map(|r| r.blocks())
        .flat_map(|b| b.ops())
        .map(count_stores)
        .sum::<usize>()
}

fn reject(nest: Op, culprit: Op, reason: String) -> Rejection {
    Rejection {
        nest,
        culprit,
        reason,
    }
}

/// Checks `op` and everything nested in it against the SCoP rules, with `nest`
/// the outermost op of the candidate (values defined outside it are
/// parameters).
fn check_tree(nest: Op, op: Op) -> Result<Stats, Rejection> {
    let name = op.name();
    let mut stats = Stats::default();
    let mut own_depth = 0;
    match name.as_str() {
        "affine.for" => {
            if op.num_results() > 0 {
                return Err(reject(nest, op, format!(
                    "'{name}' carries values through iter_args (loop-carried SSA values are not modeled)"
                )));
            }
            check_maps(nest, op, &["lowerBoundMap", "upperBoundMap"])?;
            check_index_operands(nest, op, &op.operands(), &mut stats)?;
            own_depth = 1;
            stats.loops += 1;
        }
        "affine.parallel" => {
            if op
                .attr(c"reductions")
                .and_then(|a| a.array_len())
                .unwrap_or(0)
                > 0
                || op.num_results() > 0
            {
                return Err(reject(
                    nest,
                    op,
                    format!("'{name}' has reductions (not modeled)"),
                ));
            }
            check_maps(nest, op, &["lowerBoundsMap", "upperBoundsMap"])?;
            check_index_operands(nest, op, &op.operands(), &mut stats)?;
            own_depth = parallel_dims(op);
            stats.loops += 1;
        }
        "affine.if" => {
            if op.num_results() > 0 {
                return Err(reject(
                    nest,
                    op,
                    format!("'{name}' yields values (not modeled)"),
                ));
            }
            let set = op.attr(c"condition").and_then(|a| a.as_set());
            match set {
                Some(set) if set.constraints().iter().all(|(e, _)| e.is_pure_affine()) => {}
                _ => {
                    return Err(reject(
                        nest,
                        op,
                        format!("'{name}' has a condition that is not affine"),
                    ))
                }
            }
            check_index_operands(nest, op, &op.operands(), &mut stats)?;
        }
        "affine.load" | "affine.store" => {
            check_maps(nest, op, &["map"])?;
            let operands = op.operands();
            let skip = if name == "affine.load" { 1 } else { 2 };
            check_index_operands(nest, op, &operands[skip.min(operands.len())..], &mut stats)?;
            stats.statements += usize::from(name == "affine.store");
        }
        "affine.apply" | "affine.min" | "affine.max" => {
            check_maps(nest, op, &["map"])?;
            check_index_operands(nest, op, &op.operands(), &mut stats)?;
        }
        "affine.yield" => {}
        "memref.load" | "memref.store" => {
            let operands = op.operands();
            let skip = if name == "memref.load" { 1 } else { 2 };
            for &v in &operands[skip.min(operands.len())..] {
                if let Err(by) = affinity(nest, v, 0, &mut stats.params) {
                    return Err(reject(
                        nest,
                        op,
                        format!("'{name}' has a computed index ({by})"),
                    ));
                }
            }
            stats.statements += usize::from(name == "memref.store");
        }
        n if n.starts_with("affine.vector_") => {
            return Err(reject(
                nest,
                op,
                format!("'{name}' (vector access) is not modeled"),
            ));
        }
        n if n.starts_with("scf.") => {
            return Err(reject(
                nest,
                op,
                format!("'{name}' is not affine control flow"),
            ));
        }
        "memref.dealloc" => {
            return Err(reject(
                nest,
                op,
                format!("'{name}' inside the nest: freeing memory is not modeled"),
            ));
        }
        "memref.alloc" | "memref.alloca" => {
            return Err(reject(
                nest,
                op,
                format!(
                    "'{name}' inside the nest: a local buffer that is not modeled (poly-opt's \
                     local-buffers takes those of static shape, in loops of constant bounds \
                     and step one, that only affine loads and stores use, at most 2^20 cells \
                     with a copy per iteration)"
                ),
            ));
        }
        "func.call" | "func.call_indirect" => {
            return Err(reject(
                nest,
                op,
                format!("call '{name}' may have side effects"),
            ));
        }
        _ => {
            if !is_memory_effect_free(op) {
                return Err(reject(nest, op, format!("'{name}' may have side effects")));
            }
            if !op.regions().is_empty() && !name.starts_with("affine.") {
                return Err(reject(
                    nest,
                    op,
                    format!("'{name}' has regions (not affine control flow)"),
                ));
            }
            // Pure computation: nothing to check about its operands.
        }
    }
    let mut inner_depth = 0;
    for region in op.regions() {
        for block in region.blocks() {
            for inner in block.ops() {
                let s = check_tree(nest, inner)?;
                inner_depth = inner_depth.max(s.depth);
                stats.merge(Stats { depth: 0, ..s });
            }
        }
    }
    stats.depth = own_depth + inner_depth;
    Ok(stats)
}

fn parallel_dims(op: Op) -> usize {
    op.regions()
        .first()
        .and_then(|r| r.blocks().first().copied())
        .map(Block::num_args)
        .unwrap_or(1)
        .max(1)
}

fn check_maps(nest: Op, op: Op, attrs: &[&str]) -> Result<(), Rejection> {
    for attr in attrs {
        let c = std::ffi::CString::new(*attr).unwrap_or_default();
        if let Some(map) = op.map_attr(&c) {
            if !map.is_pure_affine() {
                return Err(reject(
                    nest,
                    op,
                    format!(
                        "'{}' uses a semi-affine map (product of inputs or division by a symbol)",
                        op.name()
                    ),
                ));
            }
        }
    }
    Ok(())
}

fn check_index_operands(
    nest: Op,
    op: Op,
    operands: &[Val],
    stats: &mut Stats,
) -> Result<(), Rejection> {
    for &v in operands {
        if !v.is_index() {
            continue;
        }
        if let Err(by) = affinity(nest, v, 0, &mut stats.params) {
            return Err(reject(
                nest,
                op,
                format!("'{}' has an operand that is not affine ({by})", op.name()),
            ));
        }
    }
    Ok(())
}

/// Recursion limit for chains of index arithmetic (deeper chains are reported
/// as not affine rather than walked without bound).
const MAX_AFFINITY_DEPTH: usize = 64;

/// Checks that index value `v` is an affine function of the induction
/// variables of `nest`, constants and parameters; records the parameters it
/// uses in `params`. `Err` says which value breaks it.
fn affinity(nest: Op, v: Val, depth: usize, params: &mut BTreeSet<usize>) -> Result<(), String> {
    if depth > MAX_AFFINITY_DEPTH {
        return Err("index expression too deep".into());
    }
    if let Some(block) = v.owner_block() {
        match block.parent_op() {
            Some(owner) if owner.is_within(nest) => {
                return match owner.name().as_str() {
                    "affine.for" | "affine.parallel" => Ok(()),
                    other => Err(format!("block argument of '{other}'")),
                };
            }
            _ => {
                params.insert(v.key());
                return Ok(());
            }
        }
    }
    let Some(def) = v.defining_op() else {
        return Err("unknown value".into());
    };
    let name = def.name();
    if name == "arith.constant" {
        return Ok(());
    }
    if !def.is_within(nest) {
        params.insert(v.key());
        return Ok(());
    }
    let operands = def.operands();
    match name.as_str() {
        "affine.apply" => {
            if !def.map_attr(c"map").is_some_and(|m| m.is_pure_affine()) {
                return Err("semi-affine 'affine.apply'".into());
            }
            operands
                .iter()
                .try_for_each(|&o| affinity(nest, o, depth + 1, params))
        }
        "arith.addi" | "arith.subi" => operands
            .iter()
            .try_for_each(|&o| affinity(nest, o, depth + 1, params)),
        "arith.muli" => match operands.iter().position(|&o| is_constant(o)) {
            Some(i) if operands.len() == 2 => affinity(nest, operands[1 - i], depth + 1, params),
            _ => Err("value computed by 'arith.muli' of two variables".into()),
        },
        _ => {
            // A pure op of parameters and constants only is itself a parameter.
            let mut inner = BTreeSet::new();
            let invariant = is_memory_effect_free(def)
                && def.regions().is_empty()
                && operands.iter().all(|&o| {
                    is_constant(o)
                        || (affinity(nest, o, depth + 1, &mut inner).is_ok()
                            && is_invariant(nest, o))
                });
            if invariant {
                params.insert(v.key());
                Ok(())
            } else {
                Err(format!("value computed by '{name}'"))
            }
        }
    }
}

/// True when `v` does not change inside `nest`: defined outside it, or a
/// pure operation inside it of such values.
fn is_invariant(nest: Op, v: Val) -> bool {
    if let Some(block) = v.owner_block() {
        return !block.parent_op().is_some_and(|o| o.is_within(nest));
    }
    match v.defining_op() {
        Some(def) if def.is_within(nest) => {
            is_memory_effect_free(def)
                && def.regions().is_empty()
                && def.operands().iter().all(|&o| is_invariant(nest, o))
        }
        _ => true,
    }
}

fn is_constant(v: Val) -> bool {
    v.defining_op()
        .is_some_and(|d| d.name() == "arith.constant")
}
