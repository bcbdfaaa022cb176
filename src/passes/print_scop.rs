//! `poly-print-scop`: prints the polyhedral model of each SCoP.

use std::fmt::Write;

use crate::ffi::ir::Op;
use crate::ffi::shim::{emit, Severity};
use crate::math::print::print_union;
use crate::math::{BasicRel, UnionRel};
use crate::scop::detect::detect;
use crate::scop::model::{build, AccessKind, Scop, StmtId};

use super::{PassError, PrintScopOptions};

/// `file:line:col` of an op, or `?`.
pub(crate) fn where_(op: Op) -> String {
    op.loc().file_line_col().unwrap_or_else(|| "?".into())
}

/// The function's symbol name.
pub(crate) fn func_name(func: Op) -> String {
    func.attr(c"sym_name").and_then(|a| a.as_string()).unwrap_or_default()
}

/// Pieces as one isl union `[params] -> { piece; piece }`.
pub(crate) fn union_text(params: &[String], pieces: &[BasicRel]) -> String {
    match UnionRel::from_pieces(params, pieces.to_vec()) {
        Ok(u) => print_union(&u),
        Err(e) => format!("<{e}>"),
    }
}

/// Builds the models of the SCoPs of `func`; unsupported ones get a remark.
pub(crate) fn models(func: Op) -> Vec<Scop> {
    let found = detect(func, 1);
    let mut out = Vec::new();
    for s in &found.scops {
        match build(func, s) {
            Ok(m) => out.push(m),
            Err(u) => emit(
                u.op.loc(),
                Severity::Remark,
                &format!("static control part not modeled: {}", u.reason),
                None,
            ),
        }
    }
    out
}

/// Runs the pass on one function.
pub fn run(func: Op, _options: &PrintScopOptions) -> Result<(), PassError> {
    let mut text = String::new();
    for scop in models(func) {
        let _budget = crate::math::budget::Budget::start(Some(super::ANALYSIS_BUDGET));
        if let Err(e) = print_scop(&mut text, func, &scop) {
            emit(scop.ir.first_op.loc(), Severity::Remark, &format!("static control part not printed: {e}"), None);
        }
    }
    if !text.is_empty() {
        eprint!("{text}");
    }
    Ok(())
}

fn print_scop(out: &mut String, func: Op, scop: &Scop) -> Result<(), crate::math::MathError> {
    let _ = writeln!(out, "scop @{} at {}", func_name(func), where_(scop.ir.first_op));
    let _ = writeln!(out, "  params: [{}]", scop.params.join(", "));
    for (k, st) in scop.statements.iter().enumerate() {
        let id = StmtId(k);
        let _ = writeln!(out, "  statement {} ('{}' at {})", st.name, scop.store_of(st).name(), where_(scop.store_of(st)));
        let _ = writeln!(out, "    domain: {}", union_text(&scop.params, &scop.domain(id)?));
        let _ = writeln!(out, "    schedule: {}", schedule_text(scop, id));
        for (a, acc) in st.accesses.iter().enumerate() {
            let kind = if acc.kind == AccessKind::Write { "write" } else { "read" };
            let name = &scop.arrays[acc.array.0].name;
            let _ = writeln!(out, "    {kind} {name}: {}", union_text(&scop.params, &scop.access(id, a)?));
        }
    }
    Ok(())
}

/// The original schedule as `[params] -> { S[i] -> [b0, i0, b1, ...] }`
/// (the same relation as [`Scop::schedule`], written as a function).
pub(crate) fn schedule_text(scop: &Scop, id: StmtId) -> String {
    let st = &scop.statements[id.0];
    let mut dims = vec![st.beta[0].to_string()];
    let mut it = 0;
    for (level, &upto) in st.depth_iters.iter().enumerate() {
        while it < upto {
            dims.push(st.iters[it].clone());
            it += 1;
        }
        dims.push(st.beta[level + 1].to_string());
    }
    while dims.len() < scop.schedule_len {
        dims.push("0".into());
    }
    let prefix = if scop.params.is_empty() { String::new() } else { format!("[{}] -> ", scop.params.join(", ")) };
    format!("{prefix}{{ {}[{}] -> [{}] }}", st.name, st.iters.join(", "), dims.join(", "))
}
