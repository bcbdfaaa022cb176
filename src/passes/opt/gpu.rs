//! The plan stage for `target=gpu`: the GPU plan
//! ([`crate::transform::gpu::plan`]) and its loop tree.

use crate::codegen::generate;
use crate::deps::{compute, DepOptions, Dependence};
use crate::sched::pluto::{schedule, Options as SchedOptions, PlutoSchedule};
use crate::analysis::carried::carries;
use crate::scop::model::Scop;
use crate::rewrite::privatize;
use crate::target::gpu::GpuTarget;
use crate::transform::gpu::{original_schedule, plan as gpu_plan, GpuPlan, GpuRole, Shape};
use crate::codegen::tree::promote::{self, Found};

use super::plan::Planned;

/// The plan and loop tree of `scop` for `gpu` (`block`: the threads per
/// block the options ask for, `x` first), with each dimension's role; `Err`
/// says why the SCoP stays on the host.
///
/// The schedule's bands are mapped when one has a parallel tile loop.
/// Otherwise, in order: the SCoP rescheduled with its statements
/// distributed for parallelism (the CPU's distribute stage: atax's two
/// products, each parallel apart); the original loop order
/// ([`original_schedule`]), whose outer sequential loops run on the host
/// around launches of the parallel loops inside them (a time-skewed
/// stencil's time loop).
pub(super) fn plan(
    scop: &Scop,
    deps: &[Dependence],
    sched: Result<&PlutoSchedule, String>,
    sched_options: &SchedOptions,
    gpu: &GpuTarget,
    block: Shape,
) -> Result<Mapped, String> {
    let failed = |e| format!("GPU plan: {e}");
    let again = sched.clone();
    let mut mapped = match sched {
        Ok(s) => gpu_plan(scop, s, gpu, block).map_err(failed)?,
        Err(_) => None,
    };
    if mapped.is_none() {
        let cut = SchedOptions {
            coincidence_cut: true,
            ..*sched_options
        };
        if let Ok(s) = schedule(scop, deps, &cut) {
            mapped = noted(
                gpu_plan(scop, &s, gpu, block).map_err(failed)?,
                "statements distributed for parallel loops",
            );
        }
    }
    if mapped.is_none() {
        let s = original_schedule(scop, |s, k| {
            Ok(matches!(carries(scop, deps, s, k), Ok(false)))
        })
        .map_err(failed)?;
        mapped = noted(
            gpu_plan(scop, &s, gpu, block).map_err(failed)?,
            "original loop order kept (no scheduled band has a parallel tile loop)",
        );
    }
    let mut mapped = mapped.ok_or_else(|| {
        let none = "no parallel loop to map to the GPU's blocks and threads; left on the host";
        match sched {
            Ok(_) => none.to_string(),
            Err(why) => format!("no schedule: {why}; {none}"),
        }
    })?;
    let tree = generate(scop, &mapped.plan).map_err(|e| format!("code generation: {e}"))?;
    // A register tile per thread pays only where its rows unroll (a
    // constant trip count: each row's cells then stay in registers);
    // otherwise the rows' loop would keep them in memory.
    if block.thread_rows != 1 && tree.has_loop_over(|k| mapped.plan.dims[k].unroll) {
        let plain = Shape {
            thread_rows: 1,
            ..block
        };
        let mut m = plan(scop, deps, again, sched_options, gpu, plain)?;
        m.planned.jam_note =
            Some("no register tile per thread: its rows' trip counts are not constant".into());
        return Ok(m);
    }
    // Shared memory pays only where some box is promoted; otherwise the
    // plan without the cooperative loop (each thread's loop whole).
    let mut shared = Found::default();
    if mapped.roles.contains(&GpuRole::Cooperative) {
        shared = promote::find(scop, &mapped.plan, &mapped.roles, &tree, gpu).unwrap_or_else(|e| Found {
            promotions: Vec::new(),
            not: vec![format!("the footprints: {e}")],
        });
        if shared.promotions.is_empty() {
            let plain = Shape {
                shared_tile: 0,
                ..block
            };
            let mut m = plan(scop, deps, again, sched_options, gpu, plain)?;
            m.shared.not = shared.not;
            return Ok(m);
        }
        if let Some(k) = mapped.roles.iter().position(|r| *r == GpuRole::Cooperative) {
            mapped.plan.dims[k].what.push_str(&format!(
                ": {} copied",
                shared
                    .promotions
                    .iter()
                    .map(|p| scop.arrays[p.array.0].name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
    }
    Ok(Mapped {
        planned: Planned {
            plan: mapped.plan,
            tree,
            fallback_note: None,
            jam_note: None,
            wide: false,
        },
        roles: mapped.roles,
        shared,
    })
}

/// A GPU plan: the plan and loop tree, each dimension's role, and the
/// promotions to shared memory (with why the other arrays stay in global
/// memory).
pub(super) struct Mapped {
    pub planned: Planned,
    pub roles: Vec<GpuRole>,
    pub shared: Found,
}

/// The SCoP with its small temporaries expanded per iteration
/// ([`crate::rewrite::privatize`], as the CPU's privatize stage does), its
/// dependences and its GPU plan (symm's `temp2`, deriche's `ym1`,
/// doitgen's `sum`, ...); the caller decides whether it beats the
/// original's.
pub(super) fn privatized(
    scop: &Scop,
    sched_options: &SchedOptions,
    gpu: &GpuTarget,
    block: Shape,
) -> Option<(Scop, Vec<Dependence>, Mapped)> {
    let exps = privatize::find(scop);
    if exps.is_empty() {
        return None;
    }
    let escop = crate::scop::expansion::expand(scop, &exps).ok()?;
    let edeps = compute(&escop, DepOptions::default()).ok()?;
    let esched = schedule(&escop, &edeps, sched_options);
    let sched = esched.as_ref().map_err(|e| e.to_string());
    let mut m = plan(&escop, &edeps, sched, sched_options, gpu, block).ok()?;
    m.planned.plan.notes.insert(0, super::privatize::note(&escop, &exps));
    Some((escop, edeps, m))
}

/// The loops of `m`'s plan that run on the host around its launches
/// (sequences of statements not counted).
pub(super) fn host_loops(m: &Mapped) -> usize {
    m.roles
        .iter()
        .zip(&m.planned.plan.dims)
        .filter(|(r, d)| **r == GpuRole::Host && !d.scalar)
        .count()
}

/// `mapped` with `note` first among its plan's notes.
fn noted(mapped: Option<GpuPlan>, note: &str) -> Option<GpuPlan> {
    mapped.map(|mut m| {
        m.plan.notes.insert(0, note.to_string());
        m
    })
}
