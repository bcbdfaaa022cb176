//! MLIR → LLVM: translation of an LLVM-dialect module to an inkwell module and
//! MLIR's JIT execution engine.
//!
//! melior does not wrap the translation and ignores a failed engine creation;
//! both are wrapped here with explicit failure results. inkwell and MLIR share
//! one libLLVM.so, so the module handed over is a plain `LLVMModuleRef`.

use std::ffi::{c_void, CString};

use inkwell::llvm_sys::prelude::LLVMModuleRef;
use mlir_sys::{
    mlirExecutionEngineDestroy, mlirExecutionEngineInitialize, mlirExecutionEngineInvokePacked,
    mlirExecutionEngineLookup, mlirExecutionEngineRegisterSymbol, mlirTranslateModuleToLLVMIR,
    MlirExecutionEngine, MlirModule, MlirStringRef,
};

/// A stage run on the optimized LLVM module of a JIT compilation.
pub type ModuleStage = unsafe extern "C" fn(LLVMModuleRef, *mut c_void);

extern "C" {
    /// `mlirExecutionEngineCreate` with a stage after LLVM's pipeline
    /// (cpp/shim.cpp).
    fn polyrsExecutionEngineCreate(
        module: MlirModule,
        opt_level: i32,
        num_paths: i32,
        paths: *const MlirStringRef,
        post: Option<ModuleStage>,
        data: *mut c_void,
    ) -> MlirExecutionEngine;
}

fn str_ref(s: &CString) -> MlirStringRef {
    MlirStringRef {
        data: s.as_ptr(),
        length: s.as_bytes().len(),
    }
}

/// Translates an LLVM-dialect module to LLVM IR in `ctx`; `None` when the
/// translation fails (MLIR has emitted the diagnostics).
pub fn translate_to_llvm_ir<'ctx>(
    module: &melior::ir::Module,
    ctx: &'ctx inkwell::context::Context,
) -> Option<inkwell::module::Module<'ctx>> {
    // SAFETY: the module is live; the LLVM context outlives the returned module
    // (its lifetime is tied to `ctx`); a null result is checked before use.
    unsafe {
        let raw = mlirTranslateModuleToLLVMIR(module.as_operation().to_raw(), ctx.raw().cast());
        if raw.is_null() {
            return None;
        }
        Some(inkwell::module::Module::new(raw.cast()))
    }
}

/// MLIR's JIT execution engine for one LLVM-dialect module.
pub struct Engine {
    raw: MlirExecutionEngine,
}

impl Engine {
    /// Compiles `module` at `opt_level` (0–3) with `libs` loaded for symbol
    /// resolution, running `post` on the LLVM module after LLVM's pipeline;
    /// `None` when the engine cannot be created.
    pub fn new(
        module: &melior::ir::Module,
        opt_level: u8,
        libs: &[String],
        post: Option<ModuleStage>,
    ) -> Option<Self> {
        let owned: Vec<CString> = libs
            .iter()
            .filter_map(|l| CString::new(l.as_str()).ok())
            .collect();
        let refs: Vec<MlirStringRef> = owned.iter().map(str_ref).collect();
        // SAFETY: the module is live and the library paths outlive the call;
        // `post` takes no data.
        let raw = unsafe {
            polyrsExecutionEngineCreate(
                module.to_raw(),
                i32::from(opt_level.min(3)),
                refs.len() as i32,
                refs.as_ptr(),
                post,
                std::ptr::null_mut(),
            )
        };
        (!raw.ptr.is_null()).then_some(Engine { raw })
    }

    /// True when the module defines a function `name`.
    pub fn has_function(&self, name: &str) -> bool {
        let Ok(c) = CString::new(name) else {
            return false;
        };
        // SAFETY: live engine; the name outlives the call.
        !unsafe { mlirExecutionEngineLookup(self.raw, str_ref(&c)) }.is_null()
    }

    /// Makes the C function `f` visible to the JIT-compiled code as `name`.
    pub fn register_function(&self, name: &str, f: extern "C" fn()) {
        let Ok(c) = CString::new(name) else { return };
        // SAFETY: live engine; `f` is a function with the C ABI and static lifetime.
        unsafe { mlirExecutionEngineRegisterSymbol(self.raw, str_ref(&c), f as *mut c_void) }
    }

    /// Makes `addr` visible to the JIT-compiled code as `name`.
    ///
    /// # Safety
    /// `addr` must be a function or object that lives as long as the
    /// engine, of the type the JIT-compiled code uses `name` as.
    pub unsafe fn register_symbol(&self, name: &str, addr: *mut c_void) {
        let Ok(c) = CString::new(name) else { return };
        // SAFETY: live engine; `addr` as the caller promised.
        unsafe { mlirExecutionEngineRegisterSymbol(self.raw, str_ref(&c), addr) }
    }

    /// Runs the module's global constructors (a GPU program loads its
    /// kernels there): call after every symbol is registered.
    pub fn initialize(&self) {
        // SAFETY: live engine.
        unsafe { mlirExecutionEngineInitialize(self.raw) }
    }

    /// Calls `name`, a function without arguments or results, through its
    /// packed wrapper (`_mlir_ciface_<name>`); false when there is no such
    /// function.
    pub fn call_void(&self, name: &str) -> bool {
        let Ok(c) = CString::new(name) else {
            return false;
        };
        let mut args: [*mut c_void; 1] = [std::ptr::null_mut()];
        // SAFETY: live engine; a function without arguments and results reads
        // no entry of the (empty) packed argument array.
        let r =
            unsafe { mlirExecutionEngineInvokePacked(self.raw, str_ref(&c), args.as_mut_ptr()) };
        r.value != 0
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        // SAFETY: the engine was created by `new` and is destroyed once.
        unsafe { mlirExecutionEngineDestroy(self.raw) }
    }
}
