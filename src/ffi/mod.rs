//! The one place where polyrs calls C: the C++ shim (`cpp/shim.cpp`) and the
//! raw MLIR C API views used by the analyses.
//!
//! Every C function is wrapped once here with a safe signature; the rest of the
//! crate has no `unsafe`. Handles in [`ir`] are plain copies of MLIR pointers:
//! they are valid while the operation they came from is alive, which for an
//! analysis means "during the pass run that produced them".

pub mod build;
pub mod ir;
pub mod llvm;
pub mod shim;
