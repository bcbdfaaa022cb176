//! `poly-print-schedule`: computes and prints a Pluto-style schedule.

use std::fmt::Write;

use crate::deps::{compute, DepOptions};
use crate::ffi::ir::Op;
use crate::ffi::shim::{emit, Severity};
use crate::sched::pluto::{schedule, DimKind, Options};
use crate::sched::{describe_sample, form_text, verify};

use super::print_scop::{func_name, models, where_};
use super::{PassError, PrintScheduleOptions};

/// Runs the pass on one function.
pub fn run(func: Op, options: &PrintScheduleOptions) -> Result<(), PassError> {
    let sched_options = Options {
        fuse: {
            super::check_value("fuse", &options.fuse)?;
            options.fuse.parse().unwrap_or_default()
        },
        max_coef: options.max_coef.clamp(1, 64) as i64,
        coincidence_cut: false,
        ..Options::default()
    };
    let mut text = String::new();
    for scop in models(func) {
        let _budget = crate::math::budget::Budget::start(Some(super::ANALYSIS_BUDGET));
        let at = scop.ir.first_op.loc();
        let t0 = std::time::Instant::now();
        let deps = match compute(&scop, DepOptions::default()) {
            Ok(d) => d,
            Err(e) => {
                emit(at, Severity::Remark, &format!("not scheduled: {e}"), None);
                continue;
            }
        };
        let t1 = std::time::Instant::now();
        let result = match schedule(&scop, &deps, &sched_options) {
            Ok(r) => r,
            Err(e) => {
                emit(at, Severity::Remark, &format!("not scheduled, the original schedule stands: {e}"), None);
                continue;
            }
        };
        let t2 = std::time::Instant::now();
        let verdict = verify(&scop, &deps, &result.schedule);
        let t3 = std::time::Instant::now();
        match verdict {
            Ok(v) if v.is_empty() => {}
            Ok(v) => {
                let first = &v[0];
                let d = &deps[first.dep];
                let sample = first.sample.as_ref().map(|p| format!(", e.g. {}", describe_sample(&scop, d, p))).unwrap_or_default();
                let text: Vec<String> = scop.statements.iter().enumerate().map(|(s, st)| {
                    let dims: Vec<String> = result.schedule.dims[s].iter().map(|f| form_text(f, &scop.params, &st.iters)).collect();
                    format!("{}[{}] -> [{}]", st.name, st.iters.join(", "), dims.join(", "))
                }).collect();
                emit(
                    at,
                    Severity::Error,
                    &format!(
                        "internal error: the scheduler produced a schedule that violates {} dependences ({:?} {} -> {} on {}{sample}); it is discarded: {{ {} }}",
                        v.len(), d.kind, scop.statements[d.source.0].name, scop.statements[d.sink.0].name,
                        scop.arrays[d.array.0].name, text.join("; ")
                    ),
                    None,
                );
                continue;
            }
            Err(e) => {
                emit(at, Severity::Remark, &format!("not scheduled: {e}"), None);
                continue;
            }
        }
        let _ = writeln!(text, "schedule @{} at {}", func_name(func), where_(scop.ir.first_op));
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
        if options.stats {
            let ms = |a: std::time::Instant, b: std::time::Instant| (b - a).as_secs_f64() * 1e3;
            let st = &result.stats;
            let _ = writeln!(
                text,
                "  stats: {} dependences ({} distinct), {} Farkas rows, {} ILPs, largest {} unknowns x {} constraints",
                st.deps, st.distinct_deps, st.farkas_rows, st.ilps, st.largest_ilp.0, st.largest_ilp.1
            );
            let _ = writeln!(
                text,
                "  time: dependences {:.2} ms, scheduling {:.2} ms (Farkas {:.2}, ILP {:.2}, classification {:.2}), legality check {:.2} ms",
                ms(t0, t1),
                ms(t1, t2),
                st.farkas_time.as_secs_f64() * 1e3,
                st.ilp_time.as_secs_f64() * 1e3,
                st.check_time.as_secs_f64() * 1e3,
                ms(t2, t3)
            );
        }
        let _ = writeln!(text, "  verified: legal for all {} dependences", deps.len());
    }
    if !text.is_empty() {
        eprint!("{text}");
    }
    Ok(())
}
