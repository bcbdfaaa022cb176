//! The plan stage for `target=gpu`: the GPU plan
//! ([`crate::transform::gpu::plan`]) and its loop tree.

use crate::codegen::generate;
use crate::sched::pluto::PlutoSchedule;
use crate::scop::model::Scop;
use crate::target::gpu::GpuTarget;
use crate::transform::gpu::{plan as gpu_plan, GpuRole};

use super::plan::Planned;

/// The plan and loop tree of `scop` for `gpu` (`block`: the threads per
/// block the options ask for, `x` first), with each dimension's role; `Err`
/// says why the SCoP stays on the host.
pub(super) fn plan(
    scop: &Scop,
    sched: &PlutoSchedule,
    gpu: &GpuTarget,
    block: &[i64],
) -> Result<(Planned, Vec<GpuRole>), String> {
    let mapped = gpu_plan(scop, sched, gpu, block)
        .map_err(|e| format!("GPU plan: {e}"))?
        .ok_or_else(|| {
            "no parallel loop to map to the GPU's blocks and threads; left on the host".to_string()
        })?;
    let tree = generate(scop, &mapped.plan).map_err(|e| e.to_string())?;
    Ok((
        Planned {
            plan: mapped.plan,
            tree,
            fallback_note: None,
            jam_note: None,
        },
        mapped.roles,
    ))
}
