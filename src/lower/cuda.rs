//! GPU programs run on an NVIDIA GPU from the JIT: MLIR's `mgpu*` runtime
//! entry points of `runtime/mgpu_cuda.c` (compiled into polyrs by build.rs),
//! which loads the CUDA driver (`libcuda.so.1`, or `MGPU_LIBCUDA`) at run
//! time, so that building polyrs needs no CUDA. `MGPU_TIME=1` prints the
//! time of the launches and copies (CUDA events) to stderr at exit.

use std::ffi::{c_void, CStr};

extern "C" {
    fn mgpuModuleLoad();
    fn mgpuModuleLoadJIT();
    fn mgpuModuleUnload();
    fn mgpuModuleGetFunction();
    fn mgpuLaunchKernel();
    fn mgpuStreamCreate();
    fn mgpuStreamSynchronize();
    fn mgpuStreamDestroy();
    fn mgpuMemAlloc();
    fn mgpuMemFree();
    fn mgpuMemcpy();
    fn mgpuMemHostRegisterMemRef();
    fn mgpuMemHostUnregisterMemRef();
    fn mgpuProbeDriver() -> *const std::ffi::c_char;
}

/// `Err(why)` when the CUDA driver library cannot be loaded.
pub fn probe_driver() -> Result<(), String> {
    // SAFETY: returns NULL or a NUL-terminated message from dlerror.
    let why = unsafe { mgpuProbeDriver() };
    if why.is_null() {
        Ok(())
    } else {
        // SAFETY: non-null, NUL-terminated.
        Err(unsafe { CStr::from_ptr(why) }
            .to_string_lossy()
            .into_owned())
    }
}

/// The runtime's entry points, by the names the host code calls.
pub fn symbols() -> Vec<(&'static str, *mut c_void)> {
    vec![
        ("mgpuModuleLoad", mgpuModuleLoad as *mut c_void),
        ("mgpuModuleLoadJIT", mgpuModuleLoadJIT as *mut c_void),
        ("mgpuModuleUnload", mgpuModuleUnload as *mut c_void),
        (
            "mgpuModuleGetFunction",
            mgpuModuleGetFunction as *mut c_void,
        ),
        ("mgpuLaunchKernel", mgpuLaunchKernel as *mut c_void),
        ("mgpuStreamCreate", mgpuStreamCreate as *mut c_void),
        (
            "mgpuStreamSynchronize",
            mgpuStreamSynchronize as *mut c_void,
        ),
        ("mgpuStreamDestroy", mgpuStreamDestroy as *mut c_void),
        ("mgpuMemAlloc", mgpuMemAlloc as *mut c_void),
        ("mgpuMemFree", mgpuMemFree as *mut c_void),
        ("mgpuMemcpy", mgpuMemcpy as *mut c_void),
        (
            "mgpuMemHostRegisterMemRef",
            mgpuMemHostRegisterMemRef as *mut c_void,
        ),
        (
            "mgpuMemHostUnregisterMemRef",
            mgpuMemHostUnregisterMemRef as *mut c_void,
        ),
    ]
}
