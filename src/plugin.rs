//! The MLIR pass plugin entry point: `libpolyrs.so` exports
//! `mlirGetPassPluginInfo`, so the stock tool can load it:
//!
//! ```text
//! mlir-opt-22 --load-pass-plugin=target/debug/libpolyrs.so \
//!   --pass-pipeline='builtin.module(func.func(poly-detect-scops))' f.mlir
//! ```

use std::ffi::c_char;

/// `mlir::PassPluginLibraryInfo` (mlir/Tools/Plugins/PassPlugin.h).
#[repr(C)]
pub struct PassPluginLibraryInfo {
    /// `MLIR_PLUGIN_API_VERSION`.
    pub api_version: u32,
    /// The plugin name.
    pub plugin_name: *const c_char,
    /// The plugin version.
    pub plugin_version: *const c_char,
    /// Registers the passes.
    pub register_pass_registry_callbacks: extern "C" fn(),
}

/// The plugin API version this library was built for (MLIR 22).
const MLIR_PLUGIN_API_VERSION: u32 = 1;

extern "C" fn register() {
    crate::install_panic_hook();
    crate::passes::register();
}

/// Called by `mlir-opt --load-pass-plugin` to find the passes.
#[no_mangle]
pub extern "C" fn mlirGetPassPluginInfo() -> PassPluginLibraryInfo {
    PassPluginLibraryInfo {
        api_version: MLIR_PLUGIN_API_VERSION,
        plugin_name: c"polyrs".as_ptr(),
        plugin_version: concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast(),
        register_pass_registry_callbacks: register,
    }
}
