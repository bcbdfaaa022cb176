//! `poly-print-schedule`: computes and prints a Pluto-style schedule.

use std::fmt::Write;

use crate::deps::{compute, DepOptions};
use crate::ffi::ir::Op;
use crate::ffi::shim::{emit, Severity};
use crate::sched::pluto::{schedule, DimKind};
use crate::sched::{form_text, verify};

use super::print_scop::{func_name, models, where_};
use super::{PassError, PrintScheduleOptions};

/// Runs the pass on one function.
pub fn run(func: Op, _options: &PrintScheduleOptions) -> Result<(), PassError> {
    let mut text = String::new();
    for scop in models(func) {
        let at = scop.first_op.loc();
        let deps = match compute(&scop, DepOptions::default()) {
            Ok(d) => d,
            Err(e) => {
                emit(at, Severity::Remark, &format!("not scheduled: {e}"), None);
                continue;
            }
        };
        let result = match schedule(&scop, &deps) {
            Ok(r) => r,
            Err(e) => {
                emit(at, Severity::Remark, &format!("not scheduled, the original schedule stands: {e}"), None);
                continue;
            }
        };
        match verify(&scop, &deps, &result.schedule) {
            Ok(v) if v.is_empty() => {}
            Ok(v) => {
                emit(
                    at,
                    Severity::Error,
                    &format!("internal error: the scheduler produced a schedule that violates {} dependences; it is discarded", v.len()),
                    None,
                );
                continue;
            }
            Err(e) => {
                emit(at, Severity::Remark, &format!("not scheduled: {e}"), None);
                continue;
            }
        }
        let _ = writeln!(text, "schedule @{} at {}", func_name(func), where_(scop.first_op));
        let prefix = if scop.params.is_empty() { String::new() } else { format!("[{}] -> ", scop.params.join(", ")) };
        for (s, st) in scop.statements.iter().enumerate() {
            let dims: Vec<String> = result.schedule.dims[s].iter().map(|f| form_text(f, &scop.params, &st.iters)).collect();
            let _ = writeln!(text, "  {prefix}{{ {}[{}] -> [{}] }}", st.name, st.iters.join(", "), dims.join(", "));
        }
        let kinds: Vec<String> = result
            .dims
            .iter()
            .map(|k| match k {
                DimKind::Loop { band, coincident } => {
                    format!("band{band}{}", if *coincident { " parallel" } else { "" })
                }
                DimKind::Scalar => "scalar".into(),
            })
            .collect();
        let _ = writeln!(text, "  dims: [{}]", kinds.join(", "));
        let _ = writeln!(text, "  verified: legal for all {} dependences", deps.len());
    }
    if !text.is_empty() {
        eprint!("{text}");
    }
    Ok(())
}
