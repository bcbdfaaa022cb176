//! The inner distribution, on the materialized plan: the statements of the
//! innermost loop of wavefront tiles get a loop each.

use super::band_plan::Cx;
use super::Plan;
use crate::analysis::carried::carries;
use crate::deps::Dependence;

/// Statements that share the innermost loop only because the scalar
/// dimension ordering them comes last (the sweeps of a fused, skewed
/// Jacobi stencil: one reads what the other wrote a few iterations before,
/// and LLVM vectorizes neither) get a loop each when ordering them first is
/// legal. Only inside wavefront tiles (`last_wavefront`: skewed stencils):
/// gemver's fused updates run faster in one vectorized loop than in two.
pub(super) fn run(cx: &Cx, last_wavefront: bool, plan: &mut Plan) {
    let Cx { scop, deps, .. } = *cx;
    let ns = scop.statements.len();
    let n = plan.dims.len();
    let dims = &plan.dims;
    if n < 2
        || !last_wavefront
        || !dims[n - 1].scalar
        || dims[n - 2].scalar
        || dims[n - 2].unroll
        || dims[n - 2].parallel
        || !plan.register_tiles.is_empty()
    {
        return;
    }
    let sigma = |s: usize| plan.schedule.dims[s][n - 1].as_constant();
    if !(1..ns).any(|s| sigma(s) != sigma(0)) {
        return;
    }
    // The swap is legal when no dependence from a statement ordered later
    // by the scalar dimension to one ordered earlier is carried by the
    // innermost loop (the plan itself is legal: equal outer dimensions and
    // a positive distance there are what it would reverse). One level, only
    // those dependences: the full check of the final plan comes later, in
    // the pass.
    let backward: Vec<Dependence> = deps
        .iter()
        .filter(|d| sigma(d.source.0) > sigma(d.sink.0))
        .cloned()
        .collect();
    if matches!(carries(scop, &backward, &plan.schedule, n - 2), Ok(false)) {
        for row in plan.schedule.dims.iter_mut() {
            row.swap(n - 2, n - 1);
        }
        plan.dims.swap(n - 2, n - 1);
        plan.inner_distributed = true;
        plan.notes
            .push("statements of the innermost loop distributed".into());
    }
}
