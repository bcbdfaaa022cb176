//! The check stage: the final schedule and every loop that will run in
//! parallel, re-checked by the independent legality checker
//! ([`crate::sched::verify`], [`crate::sched::verify_parallel`]) against
//! the exact dependences, before any IR is written.

use crate::deps::Dependence;
use crate::sched::{describe_sample, verify, verify_parallel, ScheduleError};
use crate::scop::model::Scop;
use crate::transform::Plan;

/// Why the checker turned a plan down.
pub(super) enum Rejected {
    /// The check could not finish (a limit, such as the time budget): the
    /// SCoP is left unchanged with a remark.
    Failed(String),
    /// The plan violates a dependence: a bug of the stage that made it,
    /// caught in time (the message, for a warning).
    Violation(String),
}

/// Checks `plan` against `deps`.
pub(super) fn run(scop: &Scop, deps: &[Dependence], plan: &Plan) -> Result<(), Rejected> {
    let failed = |e: ScheduleError| Rejected::Failed(format!("the legality check failed: {e}"));
    let mut bad = verify(scop, deps, &plan.schedule).map_err(failed)?;
    for (k, d) in plan.dims.iter().enumerate() {
        if d.parallel && bad.is_empty() {
            bad.extend(verify_parallel(scop, deps, &plan.schedule, k).map_err(failed)?);
        }
    }
    let Some(v) = bad.first() else {
        return Ok(());
    };
    let d = &deps[v.dep];
    let sample = v
        .sample
        .as_ref()
        .map(|p| format!(" (e.g. {})", describe_sample(scop, d, p)))
        .unwrap_or_default();
    let what = match v.level {
        Some(k) if plan.dims[k].parallel => format!("carries it on parallel dimension {k}"),
        Some(k) => format!("breaks it at dimension {k}"),
        None => "runs source and sink at the same time".into(),
    };
    Err(Rejected::Violation(format!(
        "poly-opt: internal error: the transformed schedule violates the {:?} dependence {} -> {} on {}{sample}: it {what}; the SCoP is left unchanged",
        d.kind,
        scop.statements[d.source.0].name,
        scop.statements[d.sink.0].name,
        scop.arrays[d.array.0].name
    )))
}
