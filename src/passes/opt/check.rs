//! The check stage: the final schedule and every loop that will run in
//! parallel, re-checked by the independent legality checker
//! ([`crate::sched::verify`], [`crate::sched::verify_parallel`]) against
//! the exact dependences, before any IR is written; in debug and test
//! builds, also the loop tree ([`tree`]).

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
            // With `only`, the loops of the other statements stay
            // sequential: a dependence carried there must touch none of the
            // marked ones (its ends share every outer dimension, so they
            // share the loop).
            let mut found = verify_parallel(scop, deps, &plan.schedule, k).map_err(failed)?;
            if let Some(mask) = &d.only {
                found.retain(|v| mask[deps[v.dep].source.0] || mask[deps[v.dep].sink.0]);
            }
            bad.extend(found);
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

/// Most statement instances [`tree`] runs per parameter value.
#[cfg(debug_assertions)]
const TREE_CHECK_LIMIT: usize = 100_000;

/// Debug and test builds: the loop tree generated for `plan`, run as an
/// interpreter ([`interpret`]), must execute every statement instance of
/// `scop` exactly once: the same instances as the tree of the original
/// schedule, a much simpler scan. Code generation is exact for every value
/// of the parameters, so any values do; two are tried (all parameters 1,
/// then 6), each skipped past [`TREE_CHECK_LIMIT`] instances. `Err` says
/// what differs.
#[cfg(debug_assertions)]
pub(super) fn tree(scop: &Scop, plan: &Plan, tree: &crate::codegen::Tree) -> Result<(), String> {
    use crate::codegen::{generate, interpret, Tree};
    use crate::transform::original_plan;
    let original = original_plan(scop);
    let Ok(reference) = generate(scop, &original) else {
        return Ok(());
    };
    let values: &[i64] = if scop.params.is_empty() { &[0] } else { &[1, 6] };
    for &p in values {
        let params = vec![p; scop.params.len()];
        let run = |t: &Tree, n: usize| -> Option<Vec<(usize, Vec<i64>)>> {
            let mut seen = Vec::new();
            interpret(t, &params, n, TREE_CHECK_LIMIT, &mut |s, it| seen.push((s, it.to_vec())))
                .ok()?;
            seen.sort();
            Some(seen)
        };
        let Some(want) = run(&reference, original.dims.len()) else {
            continue;
        };
        let Some(got) = run(tree, plan.dims.len()) else {
            return Err(format!(
                "the generated loops run more than {TREE_CHECK_LIMIT} statement instances where the SCoP has {} (parameters = {p})",
                want.len()
            ));
        };
        if got != want {
            let missing = want.iter().find(|x| got.binary_search(x).is_err());
            let extra = got.iter().find(|x| want.binary_search(x).is_err());
            let name = |x: &(usize, Vec<i64>)| {
                let its: Vec<String> = x.1.iter().map(i64::to_string).collect();
                format!("{}[{}]", scop.statements[x.0].name, its.join(", "))
            };
            let what = match (missing, extra) {
                (Some(m), _) => format!("misses {}", name(m)),
                (None, Some(e)) => format!("runs {} outside its domain", name(e)),
                // Same instances, some of them more than once.
                (None, None) => "runs a statement instance twice".to_string(),
            };
            return Err(format!(
                "the generated loops run {} statement instances where the SCoP has {} (parameters = {p}): the code {what}",
                got.len(),
                want.len()
            ));
        }
    }
    Ok(())
}
