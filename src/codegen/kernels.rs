//! What the printed kernels need before MLIR lowers them, a pass after
//! printing (run by `passes/opt` on [`Emitted::kernels`](super::emit::Emitted::kernels)):
//!
//! * the [`EXACT_MATH`] operations on `f32` and `f64` inside a kernel
//!   become calls of their LLVM intrinsics, correctly rounded on the host
//!   and the GPU alike (upstream's NVVM lowering would call libdevice,
//!   which is not linked);
//! * a launch inside a host loop gets a `memref.alloca_scope` (see
//!   `scope_in_host_loop`).

use crate::codegen::error::EmitError;
use crate::codegen::refuse::EXACT_MATH;
use crate::ffi::build::{self, Builder, Point};
use crate::ffi::ir::Op;

/// The pass on the `kernels` (launches) of one rewrite.
pub fn lower(kernels: &[Op]) -> Result<(), EmitError> {
    let Some(&first) = kernels.first() else {
        return Ok(());
    };
    let b = Builder::new(first);
    for &k in kernels {
        exact_math_to_llvm(&b, k)?;
        scope_in_host_loop(&b, k)?;
    }
    Ok(())
}

/// Replaces the [`EXACT_MATH`] operations on `f32` or `f64` inside `op`
/// (a launch) by calls of their LLVM intrinsics.
fn exact_math_to_llvm(b: &Builder, op: Op) -> Result<(), EmitError> {
    let mut found = Vec::new();
    fn walk(op: Op, found: &mut Vec<Op>) {
        for r in op.regions() {
            for blk in r.blocks() {
                for o in blk.ops() {
                    if EXACT_MATH.iter().any(|(m, _)| *m == o.name()) {
                        found.push(o);
                    }
                    walk(o, found);
                }
            }
        }
    }
    walk(op, &mut found);
    for o in found {
        let name = o.name();
        let intr = EXACT_MATH
            .iter()
            .find(|(m, _)| *m == name)
            .map(|(_, l)| *l)
            .ok_or("an exact math operation without its intrinsic")?;
        let (Some(x), Some(r)) = (o.operands().first().copied(), o.result(0)) else {
            return Err(format!("'{name}' without its operand or result").into());
        };
        let ty = r.type_text();
        if ty != "f64" && ty != "f32" {
            return Err(format!("'{name}' on {ty} in a kernel").into());
        }
        let attrs = [
            ("intrin", b.attr(&format!("\"{intr}.{ty}\""))?),
            ("op_bundle_sizes", b.attr("array<i32>")?),
            ("operandSegmentSizes", b.attr("array<i32: 1, 0>")?),
        ];
        let new = b
            .create_typed(
                Point::Before(o),
                "llvm.call_intrinsic",
                &[x],
                &[&ty],
                &attrs,
            )
            .and_then(|n| n.result(0))
            .ok_or_else(|| format!("cannot build a call of {intr}.{ty}"))?;
        build::replace_uses(r, new);
        build::erase(o);
    }
    Ok(())
}

/// Wraps `launch` in a `memref.alloca_scope` when a host loop surrounds
/// it. MLIR's translation of a launch (`gpu.launch_func` with a
/// `gpu.binary`) puts the kernel's argument arrays on the stack
/// (`alloca`) where the launch is, so that in a loop the stack grows at
/// every launch: doitgen's 150 × 140 iterations of 3 launches overflowed
/// an 8 MiB stack. The scope frees them after each launch (lowered to
/// `llvm.intr.stacksave` and `llvm.intr.stackrestore`).
fn scope_in_host_loop(b: &Builder, launch: Op) -> Result<(), EmitError> {
    let mut up = launch.parent();
    let mut in_loop = false;
    while let Some(op) = up {
        match op.name().as_str() {
            "func.func" | "builtin.module" => break,
            "affine.for" | "affine.parallel" | "scf.for" | "scf.parallel" | "scf.forall"
            | "scf.while" => {
                in_loop = true;
                break;
            }
            _ => up = op.parent(),
        }
    }
    if !in_loop {
        return Ok(());
    }
    let (_, blocks) = b.create(
        Point::Before(launch),
        "memref.alloca_scope",
        &[],
        0,
        &[],
        &[Some(0)],
    );
    let body = *blocks
        .first()
        .ok_or("memref.alloca_scope without its block")?;
    let (ret, _) = b.create(
        Point::End(body),
        "memref.alloca_scope.return",
        &[],
        0,
        &[],
        &[],
    );
    build::move_before(launch, ret);
    Ok(())
}
