//! The translation of `poly-opt`'s options into what the stages take: the
//! scheduler's options, the planner's (with the sizes the target's model
//! derives, [`crate::target::cpu::Sizes`], where the options leave them to
//! it), the CPU target and the GPU target; values out of range are refused
//! here, with the option's name, before any SCoP is touched.

use crate::passes::{check_value, OptOptions, PassError};
use crate::sched::pluto::Options as SchedOptions;
use crate::target::cpu::Sizes;
use crate::target::gpu::GpuTarget;
use crate::target::{CpuTarget, Overrides, TargetError};
use crate::transform::Options as PlanOptions;

use super::plan::{PlanSet, Wide};

/// The tile size of every band dimension when `tile-sizes` is not given
/// (before the target's model enlarges the vector loop's and the register
/// tiles' bands): Pluto's default, a model parameter, not a measurement.
const BASE_TILE: i64 = 32;

/// What [`translate`] gives the stages.
pub(super) struct Translated {
    pub(super) sched_options: SchedOptions,
    pub(super) plan_options: PlanSet,
    /// The CPU the plan is made for.
    pub(super) target: CpuTarget,
    /// With `target=gpu`: the chip.
    pub(super) gpu_target: Option<GpuTarget>,
}

/// The options of the pass, checked and translated.
pub(super) fn translate(options: &OptOptions) -> Result<Translated, PassError> {
    check_value("fuse", &options.fuse)?;
    check_value("gathers", &options.gathers)?;
    check_value("broadcasts", &options.broadcasts)?;
    let sched_options = SchedOptions {
        fuse: options.fuse.parse().unwrap_or_default(),
        max_coef: options.max_coef.clamp(1, 64) as i64,
        coincidence_cut: false,
        align_shared_reads: false,
        // Given tiles: a reduction that fits in the smallest is short.
        short_reduction: options
            .tile_sizes
            .iter()
            .min()
            .map_or(crate::sched::pluto::SMALL_LOOP, |&t| t),
    };
    if let Some(bad) = options
        .register_tile_sizes
        .iter()
        .find(|&&t| !(1..=16).contains(&t))
    {
        return Err(PassError::Options(crate::passes::OptionError::Invalid {
            option: "register-tile-sizes".into(),
            value: bad.to_string(),
            reason: "register tile sizes must be between 1 and 16".into(),
        }));
    }
    if let Some(bad) = options.tile_sizes.iter().find(|&&t| t < 1) {
        return Err(PassError::Options(crate::passes::OptionError::Invalid {
            option: "tile-sizes".into(),
            value: bad.to_string(),
            reason: "tile sizes must be positive".into(),
        }));
    }
    check_value("target", &options.target)?;
    let gpu_target = if options.target == "gpu" {
        check_value("gpu-chip", &options.gpu_chip)?;
        GpuTarget::preset(&options.gpu_chip)
    } else {
        None
    };
    if let Some(bad) = options.gpu_block.iter().find(|&&t| !(1..=1024).contains(&t)) {
        return Err(PassError::Options(crate::passes::OptionError::Invalid {
            option: "gpu-block".into(),
            value: bad.to_string(),
            reason: "threads per block along a dimension must be between 1 and 1024".into(),
        }));
    }
    let target = cpu_target(options)?;
    // Explicit register tile sizes are taken as given, for the target's
    // own vectors.
    let wide = target
        .wide()
        .filter(|_| gpu_target.is_none() && options.register_tile_sizes.is_empty())
        .map(|w| Wide {
            options: plan_options(options, &w),
            target: w,
        });
    let plan_options = PlanSet {
        narrow: plan_options(options, &target),
        wide,
    };
    Ok(Translated {
        sched_options,
        plan_options,
        target,
        gpu_target,
    })
}

/// The planner's options for `target`.
fn plan_options(options: &OptOptions, target: &CpuTarget) -> PlanOptions {
    let derived = Sizes::of(target, options.contract);
    PlanOptions {
        tile: options.tile,
        sizes: if options.tile_sizes.is_empty() {
            vec![BASE_TILE]
        } else {
            options.tile_sizes.clone()
        },
        l2_factor: options.l2_tile as i64,
        parallel: options.parallel,
        nested: options.nested_parallel,
        prevector: options.prevector,
        vector_tile: match (options.tile_sizes.is_empty(), options.vector_tile_size) {
            (false, _) => 0,
            (true, 0) => derived.vector_tile,
            (true, t) => i64::try_from(t).unwrap_or(i64::MAX),
        },
        auto_sizes: options.tile_sizes.is_empty(),
        threads: derived.threads,
        min_parallel_tiles: derived.min_parallel_tiles,
        reduction_tile: derived.reduction_tile,
        panel_tile: derived.panel_tile,
        wavefront: options.wavefront,
        inner_wavefront: options.inner_wavefront,
        // fuse=no asks for a nest per component: no fusion of tiles either.
        fuse_tiles: options.fuse_tiles && options.fuse != "no",
        fused_tile_bytes: derived.fused_tile_bytes,
        l2_bytes: i64::try_from(target.l2_bytes).unwrap_or(i64::MAX),
        interleaved_tile_bytes: derived.interleaved_tile_bytes,
        l3_bytes: i64::try_from(target.l3_bytes).unwrap_or(i64::MAX),
        cyclic_tiles: options.cyclic_tiles,
        unroll_jam: options.unroll_jam.min(16) as i64,
        row_lanes: if options.row_blocks { target.lanes(8) } else { 0 },
        reassociate: options.reassociate,
        scalar_strided: target.slow_gathers,
        stream_tile: if options.tile_sizes.is_empty() { derived.stream_tile } else { 0 },
        register_tile: if options.register_tile {
            match options.register_tile_sizes[..] {
                [] => derived.register_block,
                [v] => (v, v),
                [u, v, ..] => (u, v),
            }
        } else {
            (0, 0)
        },
        l1: options
            .register_tile_sizes
            .is_empty()
            .then(|| target.l1_sets()),
        // Wider blocks only by default: explicit sizes are taken as given.
        register_tile_wide: if options.register_tile_sizes.is_empty() {
            derived.register_block_wide
        } else {
            (0, 0)
        },
        trace_stages: options.print_stages,
        steps: false,
    }
}

/// A `cpu|slow|fast` option's value (checked by `check_value`): whether
/// the operations it names are slow, `None` for what is known of the CPU.
fn slow_or_fast(value: &str) -> Option<bool> {
    match value {
        "slow" => Some(true),
        "fast" => Some(false),
        _ => None,
    }
}

/// The CPU the plan is made for: `cpu` (the host by default) with the
/// fields the options give in its place.
fn cpu_target(options: &OptOptions) -> Result<CpuTarget, PassError> {
    // Zero: the target's own; past u32, the largest (refused below where
    // out of range).
    let given = |v: u64| (v > 0).then(|| u32::try_from(v).unwrap_or(u32::MAX));
    let overrides = Overrides {
        vector_bits: given(options.vector_bits),
        vector_registers: given(options.vector_registers),
        l1d_kib: (options.l1_cache > 0).then_some(options.l1_cache),
        l2_kib: (options.l2_cache > 0).then_some(options.l2_cache),
        l3_kib: (options.l3_cache > 0).then_some(options.l3_cache),
        cores: given(options.threads),
        slow_gathers: slow_or_fast(&options.gathers),
        slow_zmm_broadcasts: slow_or_fast(&options.broadcasts),
    };
    let invalid = |option: &str, value: String, reason: String| {
        PassError::Options(crate::passes::OptionError::Invalid { option: option.into(), value, reason })
    };
    let target = CpuTarget::named(&options.cpu)
        .map_err(|e| invalid("cpu", options.cpu.clone(), e.to_string()))?;
    target.with(&overrides).map_err(|e| match e {
        TargetError::Field { field, value, reason } => {
            invalid(field, value.to_string(), reason.to_string())
        }
        other => invalid("cpu", options.cpu.clone(), other.to_string()),
    })
}
