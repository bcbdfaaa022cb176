//! Exact floating-point maxima and minima in three instructions on CPUs
//! with AVX-512 DQ and VL: a lowering stage on the optimized LLVM module,
//! after LLVM's vectorizers and before its instruction selection.
//!
//! `arith.maximumf`/`arith.minimumf` become `llvm.maximum`/`llvm.minimum`:
//! NaN when either operand is NaN, and -0 below +0. LLVM 22's x86 back end
//! selects six instructions per vector for them (a sign-mask move, two
//! blends, `vmaxps`, `vcmpunordps` and a masked move), ten for a scalar; a
//! 3x3 max pooling then runs at the rate of those, not of its memory
//! traffic. `vrangeps`/`vrangepd`/`vrangess`/`vrangesd` with immediate 5
//! (4) give the maximum (minimum) with the sign of zero right, but return
//! the other operand where one is NaN (measured: they do not propagate NaN
//! from either position). So each call becomes
//!
//! ```text
//! %m = vrange(%a, %b, 5)          ; exact unless an operand is NaN
//! %u = fcmp uno %a, %b            ; vcmpunordps: either operand NaN
//! %s = fadd %a, %b                ; a NaN operand's NaN, quieted
//! %r = select %u, %s, %m          ; merged by a masked vaddps
//! ```
//!
//! which x86 selects as `vrangeps`, `vcmpunordps` and a masked `vaddps`.
//! NaN results carry an operand's payload (the first NaN operand's, quieted),
//! which LLVM's NaN rules allow for `llvm.maximum`.
//!
//! Vectors of 128, 256 and 512 bits of `f32` or `f64` and scalars are
//! rewritten; other shapes (odd lane counts the SLP vectorizer may make)
//! keep LLVM's lowering. [`crate::target::CpuTarget::has_range`] decides
//! where the stage runs; `--no-range-minmax` (runner and translator)
//! keeps LLVM's own lowering.

use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::{LLVMRealPredicate, LLVMTypeKind};

/// Which of the two operations a call computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Maximum,
    Minimum,
}

impl Kind {
    /// `vrange`'s immediate: bits 1:0 select min (0) or max (1), bits 3:2
    /// = 01 take the sign from the comparison's result, which orders -0
    /// below +0.
    fn imm(self) -> u64 {
        match self {
            Kind::Maximum => 5,
            Kind::Minimum => 4,
        }
    }
}

/// The `vrange` intrinsic for a value of `lanes` elements of `bits` bits
/// (`lanes == 0`: a scalar): its name, whether it takes the rounding
/// argument, and whether it works on the low lane of a 4-lane (2-lane)
/// vector (the scalar forms).
fn range_intrinsic(bits: u32, lanes: u32) -> Option<(&'static str, bool, bool)> {
    Some(match (bits, lanes) {
        (32, 0) => ("llvm.x86.avx512.mask.range.ss", true, true),
        (64, 0) => ("llvm.x86.avx512.mask.range.sd", true, true),
        (32, 4) => ("llvm.x86.avx512.mask.range.ps.128", false, false),
        (32, 8) => ("llvm.x86.avx512.mask.range.ps.256", false, false),
        (32, 16) => ("llvm.x86.avx512.mask.range.ps.512", true, false),
        (64, 2) => ("llvm.x86.avx512.mask.range.pd.128", false, false),
        (64, 4) => ("llvm.x86.avx512.mask.range.pd.256", false, false),
        (64, 8) => ("llvm.x86.avx512.mask.range.pd.512", true, false),
        _ => return None,
    })
}

fn intrinsic_id(name: &str) -> u32 {
    // SAFETY: the name outlives the call, which reads `len` bytes of it.
    unsafe { LLVMLookupIntrinsicID(name.as_ptr().cast(), name.len()) }
}

/// The element width in bits and lane count (0 for a scalar) of a
/// floating-point value of type `ty`; `None` for other types.
///
/// # Safety
/// `ty` is a live type.
unsafe fn float_shape(ty: LLVMTypeRef) -> Option<(u32, u32)> {
    // SAFETY: the caller's.
    unsafe {
        let (elem, lanes) = match LLVMGetTypeKind(ty) {
            LLVMTypeKind::LLVMVectorTypeKind => (LLVMGetElementType(ty), LLVMGetVectorSize(ty)),
            _ => (ty, 0),
        };
        match LLVMGetTypeKind(elem) {
            LLVMTypeKind::LLVMFloatTypeKind => Some((32, lanes)),
            LLVMTypeKind::LLVMDoubleTypeKind => Some((64, lanes)),
            _ => None,
        }
    }
}

/// Rewrites every call of `llvm.maximum`/`llvm.minimum` of `module` whose
/// type has a `vrange` form (see the module's documentation); returns how
/// many calls were rewritten. The module must be for a CPU with AVX-512 DQ
/// and VL.
///
/// # Safety
/// `module` is a live LLVM module that no one else uses during the call.
pub unsafe fn range_minmax(module: LLVMModuleRef) -> usize {
    let max_id = intrinsic_id("llvm.maximum");
    let min_id = intrinsic_id("llvm.minimum");
    let mut calls: Vec<(LLVMValueRef, Kind)> = Vec::new();
    // SAFETY: the caller's; every handle below comes from the module.
    unsafe {
        let mut f = LLVMGetFirstFunction(module);
        while !f.is_null() {
            let mut bb = LLVMGetFirstBasicBlock(f);
            while !bb.is_null() {
                let mut inst = LLVMGetFirstInstruction(bb);
                while !inst.is_null() {
                    if !LLVMIsACallInst(inst).is_null() {
                        let callee = LLVMGetCalledValue(inst);
                        let id = if callee.is_null() || LLVMIsAFunction(callee).is_null() {
                            0
                        } else {
                            LLVMGetIntrinsicID(callee)
                        };
                        let kind = match id {
                            0 => None,
                            id if id == max_id => Some(Kind::Maximum),
                            id if id == min_id => Some(Kind::Minimum),
                            _ => None,
                        };
                        if let Some(kind) = kind {
                            calls.push((inst, kind));
                        }
                    }
                    inst = LLVMGetNextInstruction(inst);
                }
                bb = LLVMGetNextBasicBlock(bb);
            }
            f = LLVMGetNextFunction(f);
        }
        let ctx = LLVMGetModuleContext(module);
        let builder = LLVMCreateBuilderInContext(ctx);
        let mut done = 0;
        for (call, kind) in calls {
            if rewrite(module, builder, call, kind) {
                done += 1;
            }
        }
        LLVMDisposeBuilder(builder);
        done
    }
}

/// Replaces one call (see [`range_minmax`]); false when its type has no
/// `vrange` form or the intrinsic is unknown, leaving the call.
///
/// # Safety
/// As [`range_minmax`]; `call` is a call of `llvm.maximum`/`llvm.minimum`
/// in `module`.
unsafe fn rewrite(
    module: LLVMModuleRef,
    builder: LLVMBuilderRef,
    call: LLVMValueRef,
    kind: Kind,
) -> bool {
    // SAFETY: the caller's.
    unsafe {
        let ty = LLVMTypeOf(call);
        let Some((bits, lanes)) = float_shape(ty) else {
            return false;
        };
        let Some((name, rounding, scalar)) = range_intrinsic(bits, lanes) else {
            return false;
        };
        let id = intrinsic_id(name);
        if id == 0 {
            return false;
        }
        let ctx = LLVMGetModuleContext(module);
        let decl = LLVMGetIntrinsicDeclaration(module, id, std::ptr::null_mut(), 0);
        let fn_ty = LLVMIntrinsicGetType(ctx, id, std::ptr::null_mut(), 0);
        let (a, b) = (LLVMGetOperand(call, 0), LLVMGetOperand(call, 1));
        LLVMPositionBuilderBefore(builder, call);
        let empty = c"";
        let i32_ty = LLVMInt32TypeInContext(ctx);
        let imm = LLVMConstInt(i32_ty, kind.imm(), 0);
        // The CPU's rounding mode (`_MM_FROUND_CUR_DIRECTION`).
        let current = LLVMConstInt(i32_ty, 4, 0);
        // The scalar forms work on the low lane of a vector.
        let zero = LLVMConstInt(LLVMInt64TypeInContext(ctx), 0, 0);
        let mut args = if scalar {
            let vec_ty = LLVMVectorType(ty, if bits == 32 { 4 } else { 2 });
            let poison = LLVMGetPoison(vec_ty);
            let va = LLVMBuildInsertElement(builder, poison, a, zero, empty.as_ptr());
            let vb = LLVMBuildInsertElement(builder, poison, b, zero, empty.as_ptr());
            let mask = LLVMConstAllOnes(LLVMInt8TypeInContext(ctx));
            vec![va, vb, LLVMConstNull(vec_ty), mask, imm]
        } else {
            let mask = LLVMConstAllOnes(LLVMIntTypeInContext(ctx, lanes.max(8)));
            vec![a, b, imm, LLVMConstNull(ty), mask]
        };
        if rounding {
            args.push(current);
        }
        let v = LLVMBuildCall2(
            builder,
            fn_ty,
            decl,
            args.as_mut_ptr(),
            args.len() as u32,
            empty.as_ptr(),
        );
        let m = if scalar {
            LLVMBuildExtractElement(builder, v, zero, empty.as_ptr())
        } else {
            v
        };
        let unordered = LLVMBuildFCmp(
            builder,
            LLVMRealPredicate::LLVMRealUNO,
            a,
            b,
            empty.as_ptr(),
        );
        let nan = LLVMBuildFAdd(builder, a, b, empty.as_ptr());
        let r = LLVMBuildSelect(builder, unordered, nan, m, empty.as_ptr());
        LLVMReplaceAllUsesWith(call, r);
        LLVMInstructionEraseFromParent(call);
        true
    }
}

/// The stage as the JIT calls it on the optimized module
/// ([`crate::ffi::llvm::Engine::new`]).
///
/// # Safety
/// As [`range_minmax`].
pub unsafe extern "C" fn range_minmax_callback(
    module: LLVMModuleRef,
    _data: *mut std::ffi::c_void,
) {
    // SAFETY: the caller's.
    unsafe {
        range_minmax(module);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use inkwell::context::Context;
    use inkwell::memory_buffer::MemoryBuffer;

    /// Parses `ir`, runs the stage and returns (calls rewritten, the
    /// verified module's text).
    fn rewritten(ir: &str) -> (usize, String) {
        let ctx = Context::create();
        let buf = MemoryBuffer::create_from_memory_range_copy(ir.as_bytes(), "t");
        let m = ctx.create_module_from_ir(buf).expect("test IR parses");
        // SAFETY: the module is live and used by nothing else.
        let n = unsafe { range_minmax(m.as_mut_ptr()) };
        m.verify().expect("the rewritten module verifies");
        (n, m.print_to_string().to_string())
    }

    #[test]
    fn every_vector_width_and_scalar_becomes_vrange() {
        let mut ir = String::new();
        let shapes = [
            ("<16 x float>", "v16f32"),
            ("<8 x float>", "v8f32"),
            ("<4 x float>", "v4f32"),
            ("<8 x double>", "v8f64"),
            ("<4 x double>", "v4f64"),
            ("<2 x double>", "v2f64"),
            ("float", "f32"),
            ("double", "f64"),
        ];
        for (k, (ty, suffix)) in shapes.iter().enumerate() {
            for op in ["maximum", "minimum"] {
                ir += &format!(
                    "define {ty} @{op}{k}({ty} %a, {ty} %b) {{\n  %r = call {ty} @llvm.{op}.{suffix}({ty} %a, {ty} %b)\n  ret {ty} %r\n}}\n"
                );
            }
        }
        let (n, text) = rewritten(&ir);
        assert_eq!(n, 16);
        let calls_left = text
            .lines()
            .filter(|l| {
                l.contains("call") && (l.contains("@llvm.maximum") || l.contains("@llvm.minimum"))
            })
            .count();
        assert_eq!(calls_left, 0, "{text}");
        for name in [
            "range.ps.512",
            "range.ps.256",
            "range.ps.128",
            "range.pd.512",
            "range.pd.256",
            "range.pd.128",
            "range.ss",
            "range.sd",
        ] {
            assert!(
                text.contains(&format!("@llvm.x86.avx512.mask.{name}(")),
                "{name}: {text}"
            );
        }
        // The maximum's immediate is 5, the minimum's 4; NaN operands are
        // caught by an unordered comparison and selected from their sum.
        assert!(text.contains("i32 5"), "{text}");
        assert!(text.contains("i32 4"), "{text}");
        assert_eq!(text.matches("fcmp uno").count(), 16, "{text}");
        assert_eq!(text.matches("fadd").count(), 16, "{text}");
    }

    #[test]
    fn shapes_without_a_vrange_form_are_left_to_llvm() {
        let ir = "define <3 x float> @odd(<3 x float> %a, <3 x float> %b) {\n  %r = call <3 x float> @llvm.maximum.v3f32(<3 x float> %a, <3 x float> %b)\n  ret <3 x float> %r\n}\n\
                  define half @h(half %a, half %b) {\n  %r = call half @llvm.minimum.f16(half %a, half %b)\n  ret half %r\n}\n\
                  define float @num(float %a, float %b) {\n  %r = call float @llvm.maxnum.f32(float %a, float %b)\n  ret float %r\n}\n";
        let (n, text) = rewritten(ir);
        assert_eq!(n, 0);
        assert!(text.contains("@llvm.maximum.v3f32("), "{text}");
        assert!(text.contains("@llvm.minimum.f16("), "{text}");
        assert!(text.contains("@llvm.maxnum.f32("), "{text}");
        assert!(!text.contains("range"), "{text}");
    }
}
