//! What differs between the rewrite of a SCoP for a CPU and for a GPU: one
//! value, [`Machine`], chosen once per SCoP by `poly-opt`'s loop over the
//! SCoPs and asked by `rewrite` (`passes/opt/mod.rs`) and the remark
//! (`remark.rs`), which otherwise run the same steps for both.

use super::check::{self, Rejected};
use super::OptOptions;
use crate::codegen::ast::{PackFill, Tree};
use crate::target::L1Sets;
use crate::codegen::emit::{self, EmitError, Emitted};
use crate::codegen::refuse;
use crate::codegen::tree::promote::Found;
use crate::codegen::tree::{self, GpuCx, Stage};
use crate::scop::model::Scop;
use crate::target::cpu::{ELEMENT_BYTES, PREFETCH_AHEAD_BYTES};
use crate::target::CpuTarget;
use crate::transform::gpu::GpuRole;
use crate::transform::Plan;

/// The machine a SCoP is rewritten for.
#[derive(Clone, Copy)]
pub(super) enum Machine<'a> {
    /// A CPU, with its target description (vector registers and lanes).
    Cpu(&'a CpuTarget),
    /// A GPU, with each plan dimension's role and the promotions to shared
    /// memory.
    Gpu(GpuSide<'a>),
}

/// What the rewrite needs to know for a GPU.
#[derive(Clone, Copy)]
pub(super) struct GpuSide<'a> {
    /// Each plan dimension's role.
    pub roles: &'a [GpuRole],
    /// The promotions found (and those left out, with why).
    pub shared: &'a Found,
    /// Bytes of shared memory a launch may use.
    pub shared_limit: i64,
}

impl<'a> Machine<'a> {
    /// The checker's proofs beyond the plan's legality: on a GPU, that each
    /// promoted read stays inside its box.
    pub fn check(&self, scop: &Scop, plan: &Plan) -> Result<(), Rejected> {
        match self {
            Machine::Cpu(_) => Ok(()),
            Machine::Gpu(g) => check::promotions(scop, plan, &g.shared.promotions),
        }
    }

    /// The code generator's refusals beyond [`refuse::rewrite`]: on a GPU,
    /// the operations a kernel cannot hold.
    pub fn refuse(&self, scop: &Scop) -> Result<(), EmitError> {
        match self {
            Machine::Cpu(_) => Ok(()),
            Machine::Gpu(_) => refuse::gpu(scop),
        }
    }

    /// Statements bound by the latency of a chain along their innermost
    /// loop keep their multiplies apart under `contract` (see
    /// `codegen::contract`): on a CPU; a GPU's fused multiply-add takes an
    /// add's latency.
    pub fn keeps_chains_apart(&self) -> bool {
        matches!(self, Machine::Cpu(_))
    }

    /// The emitted-code check's operation budget (`verify-emit`; 0: no
    /// check): the CPU's code is interpreted, a GPU's is not.
    pub fn verify_limit(&self, options: &OptOptions) -> u64 {
        match self {
            Machine::Cpu(_) => options.verify_emit,
            Machine::Gpu(_) => 0,
        }
    }

    /// The tree stages, in order.
    pub fn stages(&self) -> &'static [(&'static str, Stage)] {
        match self {
            Machine::Cpu(_) => tree::CPU,
            Machine::Gpu(_) => tree::GPU,
        }
    }

    /// What the GPU's tree stages read ([`GpuCx::NONE`] on a CPU).
    pub fn gpu_cx(&self) -> GpuCx<'a> {
        match self {
            Machine::Cpu(_) => GpuCx::NONE,
            Machine::Gpu(g) => GpuCx {
                roles: g.roles,
                promotions: &g.shared.promotions,
                shared_limit: g.shared_limit,
            },
        }
    }

    /// The registers of the loops that fill packed buffers (a CPU's; the
    /// GPU's stages pack nothing).
    pub fn fill(&self) -> PackFill {
        match self {
            Machine::Cpu(target) => PackFill {
                registers: usize::try_from(target.vector_registers).unwrap_or(usize::MAX),
                lanes: usize::try_from(target.lanes(ELEMENT_BYTES)).unwrap_or(1),
            },
            Machine::Gpu(_) => PackFill {
                registers: 0,
                lanes: 1,
            },
        }
    }

    /// The rows the lanes stage prefetches (`prefetch`; `None` on a GPU).
    pub fn prefetch(&self, on: bool) -> Option<tree::Prefetch> {
        match self {
            Machine::Cpu(target) if on => Some(tree::Prefetch {
                ahead_bytes: PREFETCH_AHEAD_BYTES,
                past_bytes: i64::try_from(target.l2_bytes).unwrap_or(i64::MAX),
            }),
            _ => None,
        }
    }

    /// The CPU's L1 data cache's sets (`None` on a GPU).
    pub fn l1_sets(&self) -> Option<L1Sets> {
        match self {
            Machine::Cpu(target) => Some(target.l1_sets()),
            Machine::Gpu(_) => None,
        }
    }

    /// Prints `tree` in place of `scop`.
    pub fn emit(&self, scop: &Scop, tree: &Tree, options: &OptOptions) -> Result<Emitted, EmitError> {
        match self {
            Machine::Cpu(_) => emit::emit(scop, tree),
            Machine::Gpu(g) => emit::emit_gpu(
                scop,
                tree,
                emit::gpu::GpuEmit {
                    roles: g.roles,
                    host_register: options.gpu_memory == "host-register",
                    promotions: &g.shared.promotions,
                    barriers: options.gpu_test_mutation != "no-barrier",
                },
            ),
        }
    }

    /// The rewritten code's memrefs may be marked `noalias`: on a CPU; on a
    /// GPU, device buffers stand for the arguments in the kernels.
    pub fn noalias(&self) -> bool {
        matches!(self, Machine::Cpu(_))
    }
}
