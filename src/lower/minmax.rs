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
//! A reduction into a vector needs less. Where a loop's phi, read by
//! nothing else, starts a chain of these calls (each call's operand from
//! the chain read by the next call of the chain, and perhaps by other
//! readers: an unrolled loop's exit; the other operand from outside the
//! chain) of two calls or more, ending
//! in the value the phi takes back, each call keeps its `vrange` alone and
//! the operands' NaNs are joined pairwise by `vfixupimmps` (`vfixupimmpd`)
//! with the table that takes the second operand where it is NaN and keeps
//! the first otherwise, so that a join is NaN where either operand is:
//!
//! ```text
//! %r1 = vrange(%acc, %x1, 5)          ; the maximum, NaN operands aside
//! %r2 = vrange(%r1, %x2, 5)
//! %t  = vfixupimm(%x1, %x2, 0x21)     ; NaN where %x1 or %x2 is
//! %n  = vfixupimm(%t, %acc, 0x21)     ; ... or the value so far
//! %acc' = vfixupimm(%r2, %n, 0x21)    ; exact: NaN where any was
//! ```
//!
//! The joins form a balanced tree as the operands come (few of them live
//! at once); the value the phi takes back, and any value of the chain read
//! elsewhere, is made exact where it is read. A chain of n calls then
//! costs 2n+1 instructions instead of 3n, and its loop-carried latency is
//! `vrange`'s instead of a `vrange` and a masked add. rowmax (8192 x 8192
//! f32, 8 rows at a time, 2 threads, Zen 5): 4.42 to 3.85 ms when the
//! memory streamed at ~90 GB/s (67 to 77 % of `bandwidth.c`); 512 of its
//! rows (16 MB, in the L3) 250 to 229 us, where a maximum of one
//! instruction that is not exact (`maxnumf` with `nnan`, `nsz`) takes
//! 220; one row at a time 350 to 275 us. A NaN result is one of the
//! operands' NaNs, quieted, as LLVM's rules for `llvm.maximum` allow.
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

/// The declaration in `module` of the intrinsic `name` (one LLVM knows,
/// not overloaded) and its function type.
///
/// # Safety
/// `module` is a live module.
unsafe fn declaration(module: LLVMModuleRef, name: &str) -> (LLVMValueRef, LLVMTypeRef) {
    // SAFETY: the caller's.
    unsafe {
        let id = intrinsic_id(name);
        let ctx = LLVMGetModuleContext(module);
        (
            LLVMGetIntrinsicDeclaration(module, id, std::ptr::null_mut(), 0),
            LLVMIntrinsicGetType(ctx, id, std::ptr::null_mut(), 0),
        )
    }
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
        let chains = reduction_chains(module, &calls);
        let handled: std::collections::HashSet<LLVMValueRef> = chains
            .iter()
            .flat_map(|c| c.calls.iter().copied())
            .collect();
        for chain in &chains {
            rewrite_chain(module, builder, chain);
        }
        done += handled.len();
        for (call, kind) in calls {
            if !handled.contains(&call) && rewrite(module, builder, call, kind) {
                done += 1;
            }
        }
        LLVMDisposeBuilder(builder);
        done
    }
}

/// A reduction of vectors by maxima (minima) in a loop: `phi`'s only user
/// is `calls[0]`, each call reads the one before it (one operand from the
/// chain, the other from outside it), and the last call is the value
/// `phi` takes back. Values of the chain may have other readers (after
/// the loop, or in it): [`rewrite_chain`] gives them the exact value.
struct Chain {
    phi: LLVMValueRef,
    calls: Vec<LLVMValueRef>,
    kind: Kind,
}

/// The longest chain followed; longer ones are left to the call-by-call
/// rewrite.
const CHAIN_LIMIT: usize = 256;

/// The users of `v`, once each.
///
/// # Safety
/// `v` is a live value.
unsafe fn users(v: LLVMValueRef) -> Vec<LLVMValueRef> {
    let mut out = Vec::new();
    // SAFETY: the caller's; uses come from the live value.
    unsafe {
        let mut u = LLVMGetFirstUse(v);
        while !u.is_null() {
            let user = LLVMGetUser(u);
            if !out.contains(&user) {
                out.push(user);
            }
            u = LLVMGetNextUse(u);
        }
    }
    out
}

/// The operand of `call` (a call of two arguments) that is not `from`,
/// when exactly one of its two arguments is `from`.
///
/// # Safety
/// `call` is a live call of `llvm.maximum`/`llvm.minimum`.
unsafe fn other_operand(call: LLVMValueRef, from: LLVMValueRef) -> Option<LLVMValueRef> {
    // SAFETY: the caller's.
    unsafe {
        let (a, b) = (LLVMGetOperand(call, 0), LLVMGetOperand(call, 1));
        match (a == from, b == from) {
            (true, false) => Some(b),
            (false, true) => Some(a),
            _ => None,
        }
    }
}

/// The reduction chains among `calls` (see [`Chain`]) whose vector type
/// has `vrange` and `vfixupimm` forms.
///
/// # Safety
/// As [`range_minmax`]; `calls` are the module's calls of
/// `llvm.maximum`/`llvm.minimum` with their kinds.
unsafe fn reduction_chains(module: LLVMModuleRef, calls: &[(LLVMValueRef, Kind)]) -> Vec<Chain> {
    let kind_of: std::collections::HashMap<LLVMValueRef, Kind> = calls.iter().copied().collect();
    let mut chains = Vec::new();
    // SAFETY: the caller's; every handle below comes from the module.
    unsafe {
        let mut f = LLVMGetFirstFunction(module);
        while !f.is_null() {
            let mut bb = LLVMGetFirstBasicBlock(f);
            while !bb.is_null() {
                let mut inst = LLVMGetFirstInstruction(bb);
                while !inst.is_null() && !LLVMIsAPHINode(inst).is_null() {
                    if let Some(chain) = chain_from(inst, &kind_of) {
                        chains.push(chain);
                    }
                    inst = LLVMGetNextInstruction(inst);
                }
                bb = LLVMGetNextBasicBlock(bb);
            }
            f = LLVMGetNextFunction(f);
        }
    }
    chains
}

/// The chain that starts at `phi`, if one does (see [`Chain`]).
///
/// # Safety
/// `phi` is a live phi; `kind_of` maps the module's calls of
/// `llvm.maximum`/`llvm.minimum` to their kinds.
unsafe fn chain_from(
    phi: LLVMValueRef,
    kind_of: &std::collections::HashMap<LLVMValueRef, Kind>,
) -> Option<Chain> {
    // SAFETY: the caller's.
    unsafe {
        let (bits, lanes) = float_shape(LLVMTypeOf(phi))?;
        let known = |name: Option<&str>| name.is_some_and(|n| intrinsic_id(n) != 0);
        if lanes == 0
            || !known(range_intrinsic(bits, lanes).map(|(n, _, _)| n))
            || !known(fixup_intrinsic(bits, lanes).map(|(n, _)| n))
        {
            return None;
        }
        let incoming: Vec<LLVMValueRef> = (0..LLVMCountIncoming(phi))
            .map(|k| LLVMGetIncomingValue(phi, k))
            .collect();
        let [first] = users(phi)[..] else {
            return None;
        };
        let kind = *kind_of.get(&first)?;
        other_operand(first, phi)?;
        let mut calls = vec![first];
        let mut steps = 0;
        if !follow(phi, &mut calls, kind, kind_of, &mut steps) {
            return None;
        }
        let last = *calls.last().expect("a chain has a call");
        // The phi takes back the last call alone from the chain; one call
        // is as well done by itself (three instructions either way).
        let from_chain = incoming.iter().filter(|v| calls.contains(*v)).count();
        let back = incoming.iter().filter(|&&v| v == last).count();
        (from_chain == back && calls.len() >= 2).then_some(Chain { phi, calls, kind })
    }
}

/// Extends `calls` (a chain from `phi`, not yet closed) up to the call
/// the phi takes back: each call's next is the one call of `kind` among
/// its users that reads it once and from which the chain closes (a value
/// of the chain may also be read elsewhere: an unrolled loop's exit
/// between its copies); false when there is none, or more than one, or
/// past [`CHAIN_LIMIT`] calls or steps.
///
/// # Safety
/// As [`chain_from`]; `calls` is not empty.
unsafe fn follow(
    phi: LLVMValueRef,
    calls: &mut Vec<LLVMValueRef>,
    kind: Kind,
    kind_of: &std::collections::HashMap<LLVMValueRef, Kind>,
    steps: &mut usize,
) -> bool {
    // SAFETY: the caller's.
    unsafe {
        let cur = *calls.last().expect("not empty");
        *steps += 1;
        if *steps > 4 * CHAIN_LIMIT || calls.len() > CHAIN_LIMIT {
            return false;
        }
        let next = users(cur);
        if next.contains(&phi) {
            return true;
        }
        let mut found: Option<Vec<LLVMValueRef>> = None;
        for user in next {
            if kind_of.get(&user) != Some(&kind) || calls.contains(&user) {
                continue;
            }
            let Some(other) = other_operand(user, cur) else {
                continue;
            };
            if other == phi || calls.contains(&other) {
                continue;
            }
            let mut tried = calls.clone();
            tried.push(user);
            if follow(phi, &mut tried, kind, kind_of, steps) {
                if found.is_some() {
                    return false;
                }
                found = Some(tried);
            }
        }
        match found {
            Some(chain) => {
                *calls = chain;
                true
            }
            None => false,
        }
    }
}

/// The `vfixupimm` intrinsic for a vector of `lanes` elements of `bits`
/// bits: its name and whether it takes the rounding argument.
fn fixup_intrinsic(bits: u32, lanes: u32) -> Option<(&'static str, bool)> {
    Some(match (bits, lanes) {
        (32, 4) => ("llvm.x86.avx512.mask.fixupimm.ps.128", false),
        (32, 8) => ("llvm.x86.avx512.mask.fixupimm.ps.256", false),
        (32, 16) => ("llvm.x86.avx512.mask.fixupimm.ps.512", true),
        (64, 2) => ("llvm.x86.avx512.mask.fixupimm.pd.128", false),
        (64, 4) => ("llvm.x86.avx512.mask.fixupimm.pd.256", false),
        (64, 8) => ("llvm.x86.avx512.mask.fixupimm.pd.512", true),
        _ => return None,
    })
}

/// `vfixupimm(w, x)` with the table that replaces `w` by `x` where `x` is
/// a quiet NaN (response 1), by `x` quieted where it is a signalling NaN
/// (response 2), and keeps `w` for every other class (response 0).
///
/// # Safety
/// As [`range_minmax`]; the builder is positioned; `w` and `x` are values
/// of a vector type with a `vfixupimm` form.
unsafe fn build_fixup(
    module: LLVMModuleRef,
    builder: LLVMBuilderRef,
    w: LLVMValueRef,
    x: LLVMValueRef,
) -> LLVMValueRef {
    // SAFETY: the caller's.
    unsafe {
        let ty = LLVMTypeOf(w);
        let (bits, lanes) = float_shape(ty).expect("a float vector");
        let (name, rounding) = fixup_intrinsic(bits, lanes).expect("a vfixupimm form");
        let ctx = LLVMGetModuleContext(module);
        let (decl, fn_ty) = declaration(module, name);
        let int_ty = LLVMIntTypeInContext(ctx, bits);
        let table = LLVMConstVector(
            vec![LLVMConstInt(int_ty, 0x21, 0); lanes as usize].as_mut_ptr(),
            lanes,
        );
        let i32_ty = LLVMInt32TypeInContext(ctx);
        let mask = LLVMConstAllOnes(LLVMIntTypeInContext(ctx, lanes.max(8)));
        let mut args = vec![w, x, table, LLVMConstInt(i32_ty, 0, 0), mask];
        if rounding {
            args.push(LLVMConstInt(i32_ty, 4, 0));
        }
        LLVMBuildCall2(
            builder,
            fn_ty,
            decl,
            args.as_mut_ptr(),
            args.len() as u32,
            c"".as_ptr(),
        )
    }
}

/// Rewrites one reduction chain (see the module's documentation).
///
/// # Safety
/// As [`range_minmax`]; `chain` comes from [`reduction_chains`] on the
/// module, unchanged since.
unsafe fn rewrite_chain(module: LLVMModuleRef, builder: LLVMBuilderRef, chain: &Chain) {
    // SAFETY: the caller's.
    unsafe {
        let phi = chain.phi;
        let mut acc = phi;
        let mut old = phi;
        // The operands are joined pairwise as they come, `vfixupimm(a, b)`
        // being NaN where `a` or `b` is: a balanced tree (of as many
        // instructions as operands, less one), which keeps few of them
        // live. `pending` holds the joined subtrees and their sizes.
        let mut pending: Vec<(LLVMValueRef, usize)> = Vec::new();
        let mut ranges = Vec::new();
        let last = *chain.calls.last().expect("a chain has a call");
        for (i, &call) in chain.calls.iter().enumerate() {
            let x = other_operand(call, old).expect("a chain's call reads the chain");
            LLVMPositionBuilderBefore(builder, call);
            acc = build_range(module, builder, acc, x, chain.kind);
            pending.push((x, 1));
            while let [.., (a, na), (b, nb)] = pending[..] {
                if na != nb {
                    break;
                }
                pending.truncate(pending.len() - 2);
                pending.push((build_fixup(module, builder, a, b), na + nb));
            }
            if call == last {
                // The chain's value for the phi and every reader: exact.
                acc = exact_value(module, builder, acc, &pending, phi);
            } else {
                // Readers of a value inside the chain (an unrolled loop's
                // exit) get it exact where they read it.
                let next = chain.calls[i + 1];
                for user in users(call) {
                    if user == next {
                        continue;
                    }
                    for k in 0..LLVMGetNumOperands(user) as u32 {
                        if LLVMGetOperand(user, k) != call {
                            continue;
                        }
                        let at = if LLVMIsAPHINode(user).is_null() {
                            user
                        } else {
                            LLVMGetBasicBlockTerminator(LLVMGetIncomingBlock(user, k))
                        };
                        LLVMPositionBuilderBefore(builder, at);
                        let exact = exact_value(module, builder, acc, &pending, phi);
                        LLVMSetOperand(user, k, exact);
                    }
                }
            }
            ranges.push(acc);
            old = call;
        }
        for (&call, &r) in chain.calls.iter().zip(&ranges).rev() {
            LLVMReplaceAllUsesWith(call, r);
            LLVMInstructionEraseFromParent(call);
        }
    }
}

/// The exact value of a chain whose `vrange` value is `range`: the NaN of
/// its operands so far (`pending`'s subtrees, then the phi's value, joined)
/// where there is one, else `range`. Built where the builder stands.
///
/// # Safety
/// As [`range_minmax`]; the builder is positioned where every value given
/// is available.
unsafe fn exact_value(
    module: LLVMModuleRef,
    builder: LLVMBuilderRef,
    range: LLVMValueRef,
    pending: &[(LLVMValueRef, usize)],
    phi: LLVMValueRef,
) -> LLVMValueRef {
    // SAFETY: the caller's.
    unsafe {
        // The phi's own value joins: where it was NaN, so is the next.
        let nans = pending
            .iter()
            .rev()
            .fold(phi, |acc, &(t, _)| build_fixup(module, builder, t, acc));
        build_fixup(module, builder, range, nans)
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
        let Some((name, _, _)) = range_intrinsic(bits, lanes) else {
            return false;
        };
        if intrinsic_id(name) == 0 {
            return false;
        }
        let (a, b) = (LLVMGetOperand(call, 0), LLVMGetOperand(call, 1));
        LLVMPositionBuilderBefore(builder, call);
        let m = build_range(module, builder, a, b, kind);
        let empty = c"";
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

/// `vrange(a, b)` for `kind`: the exact maximum (minimum) where neither
/// operand is NaN, the other operand where one is.
///
/// # Safety
/// As [`range_minmax`]; the builder is positioned; `a` and `b` have a type
/// with a `vrange` form.
unsafe fn build_range(
    module: LLVMModuleRef,
    builder: LLVMBuilderRef,
    a: LLVMValueRef,
    b: LLVMValueRef,
    kind: Kind,
) -> LLVMValueRef {
    // SAFETY: the caller's.
    unsafe {
        let ty = LLVMTypeOf(a);
        let (bits, lanes) = float_shape(ty).expect("a float type");
        let (name, rounding, scalar) = range_intrinsic(bits, lanes).expect("a vrange form");
        let ctx = LLVMGetModuleContext(module);
        let (decl, fn_ty) = declaration(module, name);
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
        if scalar {
            LLVMBuildExtractElement(builder, v, zero, empty.as_ptr())
        } else {
            v
        }
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

    /// A loop reducing `step` vectors of `ty` per pass with `op`; `extra`
    /// is added to the loop's body (a second reader of a value), `mid`
    /// puts an exit after the first call that returns that call's value.
    fn reduction_loop(
        ty: &str,
        suffix: &str,
        op: &str,
        step: usize,
        extra: &str,
        mid: bool,
    ) -> String {
        let mut body = String::new();
        let mut prev = "%acc".to_string();
        for k in 0..step {
            body += &format!(
                "  %q{k} = getelementptr {ty}, ptr %p, i64 %i{k}\n  %i{} = add i64 %i{k}, 1\n",
                k + 1
            );
            body += &format!("  %x{k} = load {ty}, ptr %q{k}\n");
            // The chain's operand first in even calls, second in odd ones.
            let args = if k % 2 == 0 {
                format!("{ty} {prev}, {ty} %x{k}")
            } else {
                format!("{ty} %x{k}, {ty} {prev}")
            };
            body += &format!("  %m{k} = call {ty} @llvm.{op}.{suffix}({args})\n");
            if k == 0 && mid {
                body += "  %early = icmp eq i64 %i1, %n\n  br i1 %early, label %out, label %more\nmore:\n";
            }
            prev = format!("%m{k}");
        }
        let out = if mid {
            format!("out:\n  ret {ty} %m0\n")
        } else {
            String::new()
        };
        format!(
            "define {ty} @r(ptr %p, i64 %n) {{\nentry:\n  br label %loop\nloop:\n  %i0 = phi i64 [0, %entry], [%i{step}, %{latch}]\n  %acc = phi {ty} [zeroinitializer, %entry], [{prev}, %{latch}]\n{body}{extra}  %c = icmp ult i64 %i{step}, %n\n  br i1 %c, label %loop, label %exit\nexit:\n  ret {ty} {prev}\n{out}}}\n",
            latch = if mid { "more" } else { "loop" }
        )
    }

    fn count_calls(text: &str, name: &str) -> usize {
        text.lines()
            .filter(|l| l.contains("call") && l.contains(&format!("@{name}(")))
            .count()
    }

    #[test]
    fn a_vector_reductions_chain_keeps_vrange_and_joins_the_nans() {
        for (ty, suffix, fixup, range) in [
            (
                "<16 x float>",
                "v16f32",
                "llvm.x86.avx512.mask.fixupimm.ps.512",
                "llvm.x86.avx512.mask.range.ps.512",
            ),
            (
                "<8 x double>",
                "v8f64",
                "llvm.x86.avx512.mask.fixupimm.pd.512",
                "llvm.x86.avx512.mask.range.pd.512",
            ),
            (
                "<8 x float>",
                "v8f32",
                "llvm.x86.avx512.mask.fixupimm.ps.256",
                "llvm.x86.avx512.mask.range.ps.256",
            ),
            (
                "<2 x double>",
                "v2f64",
                "llvm.x86.avx512.mask.fixupimm.pd.128",
                "llvm.x86.avx512.mask.range.pd.128",
            ),
        ] {
            for op in ["maximum", "minimum"] {
                let (n, text) = rewritten(&reduction_loop(ty, suffix, op, 4, "", false));
                assert_eq!(n, 4, "{text}");
                assert_eq!(count_calls(&text, range), 4, "{text}");
                // Three joins of the four operands, one of the phi's value,
                // one into the last vrange: 2n + 1 instructions for n calls.
                assert_eq!(count_calls(&text, fixup), 5, "{text}");
                assert!(!text.contains("fcmp uno"), "{text}");
                assert_eq!(
                    count_calls(&text, &format!("llvm.{op}.{suffix}")),
                    0,
                    "{text}"
                );
            }
        }
    }

    #[test]
    fn a_value_of_the_chain_read_elsewhere_is_made_exact_where_it_is_read() {
        // The first call's value returned by an early exit after it (the
        // last `ret`); stored in the loop.
        for (extra, mid, reader) in [
            ("", true, "ret <16 x float> %"),
            (
                "  store <16 x float> %m0, ptr %p\n",
                false,
                "store <16 x float> %",
            ),
        ] {
            let (n, text) = rewritten(&reduction_loop(
                "<16 x float>",
                "v16f32",
                "maximum",
                2,
                extra,
                mid,
            ));
            assert_eq!(n, 2, "{text}");
            assert!(!text.contains("fcmp uno"), "{text}");
            // The reader's value: the first operand's NaN joined with the
            // phi's, into its vrange (2); the loop's: the two operands
            // joined, then the phi's, into the last vrange (3).
            let fixup = "llvm.x86.avx512.mask.fixupimm.ps.512";
            assert_eq!(count_calls(&text, fixup), 5, "{text}");
            // What the reader reads is a fixed-up value, not a vrange.
            let read = text
                .lines()
                .filter_map(|l| l.trim().strip_prefix(reader))
                .map(|rest| format!("%{}", rest.split([',', ' ']).next().unwrap_or("")))
                .next_back()
                .expect("the reader");
            let def = text
                .lines()
                .find(|l| l.trim().starts_with(&format!("{read} =")))
                .unwrap_or_else(|| panic!("{read} defined: {text}"));
            assert!(def.contains(fixup), "{def}: {text}");
        }
    }

    #[test]
    fn chains_whose_phi_is_read_elsewhere_or_of_one_call_keep_each_calls_form() {
        // The phi read by a store besides the chain; a chain of one call.
        for ir in [
            reduction_loop(
                "<16 x float>",
                "v16f32",
                "maximum",
                2,
                "  store <16 x float> %acc, ptr %p\n",
                false,
            ),
            reduction_loop("<16 x float>", "v16f32", "maximum", 1, "", false),
        ] {
            let (n, text) = rewritten(&ir);
            assert!(n >= 1, "{text}");
            assert!(!text.contains("fixupimm"), "{text}");
            assert_eq!(text.matches("fcmp uno").count(), n, "{text}");
        }
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
