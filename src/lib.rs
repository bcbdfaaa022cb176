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
//! Implemented so far: the foundation — the pass registry generated from
//! `passes/Passes.td`, the `polyrs-opt` driver, the `libpolyrs.so` plugin for
//! the stock `mlir-opt`, and SCoP detection (`poly-detect-scops`).
//!
//! # Modules
//!
//! * [`ffi`] — every call into C and C++: the shim in `cpp/shim.cpp` (pass
//!   registration, diagnostics, mlir-opt main) and read-only IR handles.
//! * [`cli`] — the command-line parser of `polyrs-translate` and `polyrs-runner`.
//! * [`deps`] — exact memory-based dependences (RAW, WAR, WAW, RAR).
//! * [`driver`] — command-line checks of `polyrs-opt` before MLIR's main loop.
//! * [`lower`] — lowering to LLVM for the host CPU (OpenMP), native code
//!   emission through inkwell, and the JIT runner.
//! * [`math`] — the exact integer/rational core: sets, maps, simplex, ILP,
//!   projection, isl text form.
//! * [`passes`] — the generated registry and one file per pass.
//! * [`scop`] — static control parts: detection and the polyhedral model.
//! * [`sched`] — schedules and the independent legality checker.
//! * [`plugin`] — the `mlirGetPassPluginInfo` entry point of the plugin.

#![deny(missing_docs)]

pub mod cli;
pub mod codegen;
pub mod deps;
pub mod driver;
pub mod ffi;
pub mod lower;
pub mod math;
pub mod passes;
pub mod plugin;
pub mod sched;
pub mod scop;
pub mod transform;

/// Silences Rust's default panic message: polyrs catches panics at the pass
/// boundary and reports them as MLIR diagnostics instead.
pub fn install_panic_hook() {
    std::panic::set_hook(Box::new(|_| {}));
}
