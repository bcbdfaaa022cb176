//! The SCoPs code generation refuses to rewrite, found before anything
//! changes: the SCoP is then left as it is, with a remark saying why
//! ([`EmitError::Refused`]).

use super::error::EmitError;
use super::Tree;
use crate::ffi::build;
use crate::ffi::ir::Val;
use crate::ffi::shim;
use crate::scop::body::{in_scop, is_nest, touches_memory};
use crate::scop::expansion::memref_shape;
use crate::scop::model::Scop;

/// Refuses SCoPs whose rewrite would break the IR: parameters of the new
/// loops that are not valid affine symbols where the loops go, and values
/// of the SCoP used after it.
pub fn rewrite(scop: &Scop, tree: &Tree) -> Result<(), EmitError> {
    let top_level = scop
        .ir
        .first_op
        .parent()
        .is_some_and(|p| p.name() == "func.func");
    let used = tree.used_params(scop.params.len());
    for (p, &v) in scop.ir.param_values.iter().enumerate() {
        if !used[p] {
            continue;
        }
        match v.defining_op() {
            Some(def) if in_scop(scop, def) => {
                if !top_level {
                    return Err(EmitError::Refused(format!(
                        "parameter '{}' is computed inside the loops and the SCoP is not at the top level of its function",
                        scop.params[p]
                    )));
                }
            }
            _ => {
                if !shim::is_valid_symbol(v) {
                    return Err(EmitError::Refused(format!(
                        "parameter '{}' is not a valid affine symbol where the new loops go",
                        scop.params[p]
                    )));
                }
            }
        }
    }
    for &op in &scop.ir.ops {
        if is_nest(op) && build::has_outside_uses(op) {
            return Err(EmitError::Refused(
                "a value computed inside the loops is used after them".into(),
            ));
        }
        // A value loaded between the nests, or computed from one, is
        // cloned into the statements that use it, and the original goes.
        let results = (0..op.num_results()).filter_map(|k| op.result(k));
        let used_after = || results.flat_map(Val::users).any(|u| !in_scop(scop, u));
        if !is_nest(op) && touches_memory(scop, op) && used_after() {
            return Err(EmitError::Refused(format!(
                "a value computed from memory between the loop nests ('{}') is used after them",
                op.name()
            )));
        }
    }
    Ok(())
}

/// The element types and layouts the device buffers support: a memref with
/// the identity layout in the default memory space. Checked before any
/// rewrite, so that the SCoP is left unchanged otherwise.
///
/// Kernels may not call the math library: upstream's NVVM lowering turns
/// `math` operations into calls to CUDA's libdevice (`__nv_exp`), which is
/// not linked (no CUDA toolkit is needed to build), and the driver would
/// refuse the PTX. The exceptions are the operations that IEEE 754
/// defines exactly and the GPU computes in one instruction, which the
/// kernels get as LLVM intrinsics instead (`EXACT_MATH`).
pub fn gpu(scop: &Scop) -> Result<(), EmitError> {
    fn math_op(op: crate::ffi::ir::Op) -> Option<String> {
        let name = op.name();
        let exact = EXACT_MATH.iter().any(|(m, _)| *m == name)
            && op
                .result(0)
                .is_some_and(|r| matches!(r.type_text().as_str(), "f32" | "f64"));
        if name.starts_with("math.") && !exact {
            return Some(name);
        }
        op.regions()
            .iter()
            .flat_map(|r| r.blocks())
            .flat_map(|b| b.ops())
            .find_map(math_op)
    }
    if let Some(name) = scop.ir.ops.iter().find_map(|&op| math_op(op)) {
        return Err(EmitError::Refused(format!(
            "'{name}' would need CUDA's libdevice in a kernel, which is not linked; left on the host"
        )));
    }
    for a in &scop.arrays {
        let ty = scop.root_of(a).type_text();
        if memref_shape(&ty).is_none() {
            return Err(EmitError::Refused(format!(
                "the GPU mapping needs memrefs with the identity layout in the default memory \
                 space, not '{ty}' ({})",
                a.name
            )));
        }
    }
    Ok(())
}

/// The `math` operations a kernel may hold, and the LLVM intrinsics they
/// become there: correctly rounded (IEEE 754) on the host and on the GPU
/// alike (NVPTX's `sqrt.rn.f64`, `abs.f64`), so the results are the
/// host's bit for bit, with no libdevice call. They are called by name
/// (`llvm.call_intrinsic`): upstream's NVVM lowering would turn
/// `math.sqrt`, and reject `llvm.intr.sqrt`, in favour of libdevice.
pub const EXACT_MATH: &[(&str, &str)] = &[("math.sqrt", "llvm.sqrt"), ("math.absf", "llvm.fabs")];
