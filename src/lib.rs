//! polyrs: a polyhedral loop optimizer for MLIR's affine dialect.
//!
//! # Architecture
//!
//! ```text
//! .mlir (affine dialect)
//!   └─ extract   SCoPs: statements, domains, accesses, schedule    [scop]
//!   └─ analyze   dependences RAW/WAR/WAW (+RAR) as polyhedra        [deps]
//!   └─ schedule  Pluto-style Farkas ILP: bands, parallel dims       [sched]
//!   └─ verify    independent legality check                         [sched]
//!   └─ transform tiling, intra-tile order, wavefronts                [transform]
//!   └─ codegen   polyhedra scanning → affine.for/if/parallel        [codegen]
//!   └─ lower     CPU (OpenMP, LLVM) and GPU (NVPTX)                 [lower]
//! ```
//!
//! Implemented: everything above except the GPU path. `poly-opt`
//! ([`passes::opt`]) runs the stages in order per SCoP, each of which may
//! leave the SCoP unchanged with a remark: model, dependences, schedule,
//! transformation, the independent check of the final schedule and of every
//! parallel loop, code generation, rewrite.
//!
//! # Modules
//!
//! * [`analysis`] — what the plan's heuristics ask of the model (which
//!   dependences a schedule dimension carries, or runs backwards), apart
//!   from the checker.
//! * [`ffi`] — every call into C and C++: the shim in `cpp/shim.cpp` (pass
//!   registration, diagnostics, mlir-opt main) and read-only IR handles.
//! * [`cli`] — the command-line parser of `polyrs-translate` and `polyrs-runner`.
//! * [`codegen`] — polyhedra scanning (loop separation, guards) and the
//!   emission of the loop tree as affine operations in place of a SCoP.
//! * [`deps`] — exact memory-based dependences (RAW, WAR, WAW, RAR).
//! * [`driver`] — command-line checks of `polyrs-opt` before MLIR's main loop.
//! * [`lower`] — lowering to LLVM for the host CPU (OpenMP), native code
//!   emission through inkwell, and the JIT runner.
//! * [`math`] — the exact integer/rational core: sets, maps, simplex, the
//!   lexicographic ILP solver of the scheduler, projection, isl text form.
//! * [`passes`] — the generated registry and one file per pass.
//! * [`scop`] — static control parts: detection and the polyhedral model
//!   (with which operations form the statements' bodies, and the arrays
//!   expanded by loops).
//! * [`rewrite`] — rewrites of the model that the dependences and
//!   schedules justify: embedding, privatization, index-set splitting.
//! * [`sched`] — schedules, the Pluto-style scheduler, retiming for fusion,
//!   and the independent legality checker (dependences and parallel loops).
//! * [`target`] — what the plan may know about the machine (CPU and GPU
//!   descriptions, presets, the host) and the sizes derived from it.
//! * [`transform`] — tiling, intra-tile order, parallel loops, wavefronts,
//!   point-loop sinking.
//! * [`validate`] — translation validation: the rewritten code, run by an
//!   interpreter on symbolic values, computes what the SCoP computed.
//! * [`plugin`] — the `mlirGetPassPluginInfo` entry point of the plugin.

#![deny(missing_docs)]

pub mod analysis;
pub mod cli;
pub mod codegen;
pub mod deps;
pub mod driver;
pub mod ffi;
pub mod lower;
pub mod math;
pub mod passes;
pub mod plugin;
pub mod rewrite;
pub mod sched;
pub mod scop;
pub mod target;
pub mod transform;
pub mod validate;

/// Silences Rust's default panic message: polyrs catches panics at the pass
/// boundary and reports them as MLIR diagnostics instead. With
/// `POLYRS_PANIC_BACKTRACE` set, Rust's own message (and, with
/// `RUST_BACKTRACE=1`, the backtrace) is printed first: a debugging aid.
pub fn install_panic_hook() {
    if std::env::var_os("POLYRS_PANIC_BACKTRACE").is_some() {
        return;
    }
    std::panic::set_hook(Box::new(|_| {}));
}
