//! `poly-print-deps`: prints the exact dependences of each SCoP.

use std::fmt::Write;

use crate::deps::{compute, DepOptions};
use crate::ffi::ir::Op;
use crate::ffi::shim::{emit, Severity};

use super::print_scop::{func_name, models, union_text, where_};
use super::{PassError, PrintDepsOptions};

/// Runs the pass on one function.
pub fn run(func: Op, options: &PrintDepsOptions) -> Result<(), PassError> {
    let mut text = String::new();
    for scop in models(func) {
        let _budget = crate::math::budget::Budget::start(Some(super::ANALYSIS_BUDGET));
        let deps = match compute(&scop, DepOptions { rar: options.rar }) {
            Ok(d) => d,
            Err(e) => {
                emit(scop.ir.first_op.loc(), Severity::Remark, &e.to_string(), None);
                continue;
            }
        };
        let _ = writeln!(text, "deps @{} at {}: {} relations", func_name(func), where_(scop.ir.first_op), deps.len());
        for d in &deps {
            let (s, t) = (&scop.statements[d.source.0], &scop.statements[d.sink.0]);
            let depth = d.depth.map_or("independent".to_string(), |k| format!("depth {k}"));
            let dist: Vec<String> = d.distance.iter().map(|r| r.summary()).collect();
            let _ = writeln!(
                text,
                "  {} {} -> {} on {}, {}, distance ({}): {}",
                d.kind.as_str(),
                s.name,
                t.name,
                scop.arrays[d.array.0].name,
                depth,
                dist.join(", "),
                union_text(&scop.params, &d.relation)
            );
        }
    }
    if !text.is_empty() {
        eprint!("{text}");
    }
    Ok(())
}
