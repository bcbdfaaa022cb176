//! `poly-verify-schedule`: the independent legality checker as a pass.

use crate::deps::{compute, DepOptions};
use crate::ffi::ir::Op;
use crate::ffi::shim::{emit, Severity};
use crate::sched::{describe_sample, verify, Schedule};

use super::print_scop::{func_name, models};
use super::{PassError, VerifyScheduleOptions};

/// Runs the pass on one function.
pub fn run(func: Op, options: &VerifyScheduleOptions) -> Result<(), PassError> {
    if !options.func.is_empty() && func_name(func) != options.func {
        return Ok(());
    }
    let scops = models(func);
    let index = usize::try_from(options.scop).unwrap_or(usize::MAX);
    let Some(scop) = scops.get(index) else {
        if !options.func.is_empty() {
            emit(func.loc(), Severity::Error, &format!("poly-verify-schedule: no SCoP number {index} in this function"), None);
            return Err(PassError::InvalidInput);
        }
        return Ok(());
    };
    let at = scop.ir.first_op.loc();
    let _budget = crate::math::budget::Budget::start(Some(super::ANALYSIS_BUDGET));
    let fail = |msg: String| {
        emit(at, Severity::Error, &msg, None);
        Err(PassError::InvalidInput)
    };
    let deps = match compute(scop, DepOptions::default()) {
        Ok(d) => d,
        Err(e) => return fail(e.to_string()),
    };
    let schedule = if options.schedule.trim().is_empty() {
        Schedule::original(scop)
    } else {
        match Schedule::parse(scop, &options.schedule) {
            Ok(s) => s,
            Err(e) => return fail(e.to_string()),
        }
    };
    let violations = match verify(scop, &deps, &schedule) {
        Ok(v) => v,
        Err(e) => return fail(e.to_string()),
    };
    if violations.is_empty() {
        emit(at, Severity::Remark, &format!("schedule is legal: it respects all {} dependences", deps.len()), None);
        return Ok(());
    }
    for v in &violations {
        let d = &deps[v.dep];
        let (s, t) = (&scop.statements[d.source.0], &scop.statements[d.sink.0]);
        let when = v.level.map_or("runs the source and the sink at the same time".to_string(), |l| {
            format!("runs the sink before the source at schedule dimension {l}")
        });
        let sample = v.sample.as_ref().map_or(String::new(), |p| format!(", e.g. {}", describe_sample(scop, d, p)));
        let carried = d.depth.map_or("loop-independent".to_string(), |k| format!("carried at depth {k}"));
        emit(
            at,
            Severity::Error,
            &format!(
                "schedule violates {} {} -> {} on {} ({carried}): it {when}{sample}",
                d.kind.as_str(),
                s.name,
                t.name,
                scop.arrays[d.array.0].name
            ),
            None,
        );
    }
    Err(PassError::InvalidInput)
}
