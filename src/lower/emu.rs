//! GPU programs run on the CPU: MLIR's `mgpu*` runtime entry points
//! implemented on the host, so that a program built for the GPU (host code
//! with its device allocations, copies and launches, as the GPU lowering
//! makes it) runs unchanged in the JIT, with the kernels compiled for the
//! host.
//!
//! ```text
//! host module (gpu-lower-to-nvvm-pipeline, kernels as LLVM bitcode)
//!   └─ global ctor    mgpuModuleLoad(bitcode)        [module_load]
//!        └─ parse the NVPTX module; special registers (llvm.nvvm.read.
//!           ptx.sreg.tid.x, ...) become calls to this runtime, kernels lose
//!           the ptx_kernel convention and get a trampoline that unpacks
//!           CUDA's argument array; triple and data layout of the host;
//!           compiled by MCJIT                                [for_host]
//!   └─ gpu.alloc      mgpuMemAlloc: host memory, recorded as device
//!                     memory, filled with 0xff bytes (NaN for floats, -1
//!                     for integers) so that reading what no copy wrote
//!                     shows in the results
//!   └─ gpu.memcpy     mgpuMemcpy: checked against the allocations' bounds
//!   └─ launch_func    mgpuLaunchKernel: every pointer argument must be
//!                     device memory (a kernel handed host memory faults on
//!                     a GPU); then every thread of every block, one after
//!                     the other, in the reverse of the loop order by
//!                     default (a mapping that is only right in the order of
//!                     the original loops shows)
//! ```
//!
//! Kernels that synchronize (`gpu.barrier`, warp operations) or use shared
//! memory are refused with an error naming the intrinsic: running threads
//! one after the other would not respect a barrier.
//!
//! Errors are printed to stderr (`gpu emulation: ...`) and end the process
//! with status 4, as a fault would end a GPU program.

use std::cell::Cell;
use std::ffi::{c_char, c_void, CStr};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use inkwell::attributes::AttributeLoc;
use inkwell::context::Context;
use inkwell::llvm_sys::core::LLVMGetFirstUse;
use inkwell::memory_buffer::MemoryBuffer;
use inkwell::module::Module;
use inkwell::types::{BasicMetadataTypeEnum, BasicTypeEnum};
use inkwell::values::{AsValueRef, BasicMetadataValueEnum, FunctionValue};
use inkwell::{AddressSpace, OptimizationLevel};

/// LLVM's `ptx_kernel` calling convention.
const PTX_KERNEL_CC: u32 = 71;

/// CUDA's limits on a launch: threads per block, block and grid extents.
const MAX_THREADS_PER_BLOCK: i64 = 1024;
const MAX_BLOCK: [i64; 3] = [1024, 1024, 64];
const MAX_GRID: [i64; 3] = [(1 << 31) - 1, 65535, 65535];

/// The order in which a launch runs its blocks and threads.
static FORWARD: AtomicBool = AtomicBool::new(false);

/// Runs the threads of later launches in loop order (block and thread x
/// fastest, from 0) instead of the reverse (the default).
pub fn set_forward_order(forward: bool) {
    FORWARD.store(forward, Ordering::Relaxed);
}

thread_local! {
    /// tid, ctaid, ntid, nctaid (x, y, z each) of the running GPU thread.
    static IDS: Cell<[i32; 12]> = const { Cell::new([0; 12]) };
}

/// Ends the program like a fault on the GPU would.
fn fail(msg: &str) -> ! {
    eprintln!("gpu emulation: {msg}");
    std::process::exit(4)
}

macro_rules! sregs {
    ($($name:ident = $i:expr, $reg:literal;)*) => {
        $(extern "C" fn $name() -> i32 { IDS.with(|c| c.get()[$i]) })*
        /// The special registers the emulation models, by their suffix in
        /// `llvm.nvvm.read.ptx.sreg.<suffix>`, and the functions that read them.
        const SREGS: &[(&str, extern "C" fn() -> i32)] = &[$(($reg, $name)),*];
    };
}

sregs! {
    tid_x = 0, "tid.x"; tid_y = 1, "tid.y"; tid_z = 2, "tid.z";
    ctaid_x = 3, "ctaid.x"; ctaid_y = 4, "ctaid.y"; ctaid_z = 5, "ctaid.z";
    ntid_x = 6, "ntid.x"; ntid_y = 7, "ntid.y"; ntid_z = 8, "ntid.z";
    nctaid_x = 9, "nctaid.x"; nctaid_y = 10, "nctaid.y"; nctaid_z = 11, "nctaid.z";
}

/// A device allocation: address and length in bytes.
#[derive(Clone, Copy)]
struct Alloc {
    addr: usize,
    len: usize,
}

static DEVICE: Mutex<Vec<Alloc>> = Mutex::new(Vec::new());

/// The allocation that holds `[addr, addr + len)`, if any.
fn device_range(addr: usize, len: usize) -> Option<Alloc> {
    let dev = DEVICE.lock().unwrap_or_else(|e| e.into_inner());
    dev.iter()
        .copied()
        .find(|a| addr >= a.addr && addr + len.max(1) <= a.addr + a.len)
}

/// A kernel of a loaded module.
struct Kernel {
    module: usize,
    name: String,
    /// `void tramp(void **params)`.
    tramp: extern "C" fn(*mut *mut c_void),
    params: usize,
    /// The pointer parameters (memref descriptors' allocated and aligned
    /// pointers).
    pointers: Vec<usize>,
}

static KERNELS: Mutex<Vec<Kernel>> = Mutex::new(Vec::new());
static MODULES: Mutex<usize> = Mutex::new(0);

extern "C" fn module_load(data: *const u8, size: usize) -> *mut c_void {
    if data.is_null() {
        fail("module load without data");
    }
    // SAFETY: the host code passes the embedded object and its size.
    let bytes = unsafe { std::slice::from_raw_parts(data, size) };
    match load(bytes) {
        Ok(m) => m as *mut c_void,
        Err(e) => fail(&e),
    }
}

extern "C" fn module_load_jit(_data: *const u8, _opt: i32) -> *mut c_void {
    fail(
        "the kernels are PTX: the emulation runs them from LLVM bitcode \
         (lower the module for emulation, not for the GPU)",
    )
}

extern "C" fn module_unload(_m: *mut c_void) {}

extern "C" fn module_get_function(m: *mut c_void, name: *const c_char) -> *mut c_void {
    // SAFETY: the host code passes a NUL-terminated kernel name.
    let name = unsafe { CStr::from_ptr(name) }.to_string_lossy();
    let kernels = KERNELS.lock().unwrap_or_else(|e| e.into_inner());
    match kernels
        .iter()
        .position(|k| k.module == m as usize && k.name == name)
    {
        Some(i) => (i + 1) as *mut c_void,
        None => fail(&format!("no kernel '{name}' in module {}", m as usize)),
    }
}

#[allow(clippy::too_many_arguments)]
extern "C" fn launch_kernel(
    f: *mut c_void,
    gx: i64,
    gy: i64,
    gz: i64,
    bx: i64,
    by: i64,
    bz: i64,
    smem: i32,
    _stream: *mut c_void,
    params: *mut *mut c_void,
    _extra: *mut *mut c_void,
    nparams: usize,
) {
    let (tramp, name) = {
        let kernels = KERNELS.lock().unwrap_or_else(|e| e.into_inner());
        let Some(k) = (f as usize).checked_sub(1).and_then(|i| kernels.get(i)) else {
            fail("launch of an unknown kernel")
        };
        if nparams != 0 && nparams != k.params {
            fail(&format!(
                "kernel {} takes {} parameters, launched with {nparams}",
                k.name, k.params
            ));
        }
        for &i in &k.pointers {
            // SAFETY: params[i] points to the i-th argument, a pointer here.
            let p = unsafe { *(*params.add(i) as *const usize) };
            if device_range(p, 1).is_none() {
                fail(&format!(
                    "kernel {} argument {i} is {p:#x}, not device memory \
                     (a kernel handed host memory faults on a GPU)",
                    k.name
                ));
            }
        }
        (k.tramp, k.name.clone())
    };
    let grid = [gx, gy, gz];
    let block = [bx, by, bz];
    for d in 0..3 {
        if !(1..=MAX_GRID[d]).contains(&grid[d]) || !(1..=MAX_BLOCK[d]).contains(&block[d]) {
            fail(&format!(
                "kernel {name}: grid ({gx},{gy},{gz}) or block ({bx},{by},{bz}) out of CUDA's limits"
            ));
        }
    }
    if bx * by * bz > MAX_THREADS_PER_BLOCK {
        fail(&format!(
            "kernel {name}: block ({bx},{by},{bz}) has more than {MAX_THREADS_PER_BLOCK} threads"
        ));
    }
    if smem != 0 {
        fail(&format!(
            "kernel {name}: dynamic shared memory ({smem} bytes) is not emulated"
        ));
    }
    let forward = FORWARD.load(Ordering::Relaxed);
    let at = |i: i64, n: i64| if forward { i } else { n - 1 - i };
    let mut ids = [0i32; 12];
    for d in 0..3 {
        ids[6 + d] = block[d] as i32;
        ids[9 + d] = grid[d] as i32;
    }
    for z in 0..gz {
        for y in 0..gy {
            for x in 0..gx {
                ids[3] = at(x, gx) as i32;
                ids[4] = at(y, gy) as i32;
                ids[5] = at(z, gz) as i32;
                for tz in 0..bz {
                    for ty in 0..by {
                        for tx in 0..bx {
                            ids[0] = at(tx, bx) as i32;
                            ids[1] = at(ty, by) as i32;
                            ids[2] = at(tz, bz) as i32;
                            IDS.with(|c| c.set(ids));
                            tramp(params);
                        }
                    }
                }
            }
        }
    }
}

extern "C" fn stream_create() -> *mut c_void {
    std::ptr::dangling_mut()
}

extern "C" fn stream_nop(_s: *mut c_void) {}

extern "C" fn stream_wait_event(_s: *mut c_void, _e: *mut c_void) {}

extern "C" fn event_create() -> *mut c_void {
    std::ptr::dangling_mut()
}

extern "C" fn event_record(_e: *mut c_void, _s: *mut c_void) {}

extern "C" fn set_default_device(_d: i32) {}

const ALIGN: usize = 64;

extern "C" fn mem_alloc(bytes: u64, _stream: *mut c_void, _host_shared: bool) -> *mut c_void {
    let len = (bytes as usize).max(1);
    let Ok(layout) = std::alloc::Layout::from_size_align(len, ALIGN) else {
        fail(&format!("cannot allocate {bytes} bytes"))
    };
    // SAFETY: the layout has a non-zero size.
    let p = unsafe { std::alloc::alloc(layout) };
    if p.is_null() {
        fail(&format!("out of memory allocating {bytes} bytes"));
    }
    // Poison: NaN in every float, -1 in every integer.
    // SAFETY: p holds len bytes.
    unsafe { std::ptr::write_bytes(p, 0xff, len) };
    DEVICE
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(Alloc {
            addr: p as usize,
            len,
        });
    p.cast()
}

extern "C" fn mem_free(p: *mut c_void, _stream: *mut c_void) {
    if p.is_null() {
        return;
    }
    let mut dev = DEVICE.lock().unwrap_or_else(|e| e.into_inner());
    let Some(i) = dev.iter().position(|a| a.addr == p as usize) else {
        fail(&format!(
            "free of {:#x}, which is not device memory",
            p as usize
        ))
    };
    let a = dev.swap_remove(i);
    // SAFETY: allocated by mem_alloc with this layout.
    unsafe {
        std::alloc::dealloc(
            p.cast(),
            std::alloc::Layout::from_size_align_unchecked(a.len, ALIGN),
        )
    }
}

/// True when `[addr, addr + len)` overlaps a device allocation without
/// lying inside it.
fn straddles(addr: usize, len: usize) -> bool {
    let dev = DEVICE.lock().unwrap_or_else(|e| e.into_inner());
    dev.iter().any(|a| {
        let overlaps = addr < a.addr + a.len && a.addr < addr + len;
        overlaps && !(addr >= a.addr && addr + len <= a.addr + a.len)
    })
}

extern "C" fn mem_copy(dst: *mut c_void, src: *const c_void, bytes: usize, _s: *mut c_void) {
    if bytes == 0 {
        return;
    }
    for (what, p) in [("destination", dst as usize), ("source", src as usize)] {
        if straddles(p, bytes) {
            fail(&format!(
                "copy of {bytes} bytes: the {what} {p:#x} runs past a device allocation"
            ));
        }
    }
    // SAFETY: both ranges are the program's (checked against the device
    // allocations above); MLIR's copies never overlap.
    unsafe { std::ptr::copy_nonoverlapping(src.cast::<u8>(), dst.cast::<u8>(), bytes) }
}

extern "C" fn mem_set32(dst: *mut c_void, value: u32, count: usize, _s: *mut c_void) {
    if device_range(dst as usize, count * 4).is_none() {
        fail("memset outside device memory");
    }
    // SAFETY: checked to lie in a device allocation.
    unsafe { std::slice::from_raw_parts_mut(dst.cast::<u32>(), count) }.fill(value);
}

extern "C" fn mem_set16(dst: *mut c_void, value: u16, count: usize, _s: *mut c_void) {
    if device_range(dst as usize, count * 2).is_none() {
        fail("memset outside device memory");
    }
    // SAFETY: checked to lie in a device allocation.
    unsafe { std::slice::from_raw_parts_mut(dst.cast::<u16>(), count) }.fill(value);
}

/// `gpu.host_register`: the memref's buffer becomes device memory (CUDA
/// maps registered host memory into the device's address space).
extern "C" fn host_register_memref(rank: i64, desc: *const u8, elem_size: i64) {
    // SAFETY: a ranked memref descriptor: allocated, aligned, offset,
    // sizes[rank], strides[rank].
    unsafe {
        let allocated = *(desc as *const usize);
        let aligned = *(desc.add(8) as *const usize);
        let sizes = desc.add(24) as *const i64;
        let mut n = elem_size.max(0) as usize;
        for i in 0..rank.max(0) as usize {
            n *= (*sizes.add(i)).max(0) as usize;
        }
        DEVICE
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(Alloc {
                addr: allocated,
                len: (aligned - allocated) + n.max(1),
            });
    }
}

extern "C" fn host_unregister_memref(_rank: i64, desc: *const u8, _elem_size: i64) {
    // SAFETY: a ranked memref descriptor starts with its allocated pointer.
    let allocated = unsafe { *(desc as *const usize) };
    let mut dev = DEVICE.lock().unwrap_or_else(|e| e.into_inner());
    dev.retain(|a| a.addr != allocated);
}

/// The runtime's entry points, by the names the host code calls.
pub fn symbols() -> Vec<(&'static str, *mut c_void)> {
    vec![
        ("mgpuModuleLoad", module_load as *mut c_void),
        ("mgpuModuleLoadJIT", module_load_jit as *mut c_void),
        ("mgpuModuleUnload", module_unload as *mut c_void),
        ("mgpuModuleGetFunction", module_get_function as *mut c_void),
        ("mgpuLaunchKernel", launch_kernel as *mut c_void),
        ("mgpuStreamCreate", stream_create as *mut c_void),
        ("mgpuStreamSynchronize", stream_nop as *mut c_void),
        ("mgpuStreamDestroy", stream_nop as *mut c_void),
        ("mgpuStreamWaitEvent", stream_wait_event as *mut c_void),
        ("mgpuEventCreate", event_create as *mut c_void),
        ("mgpuEventDestroy", stream_nop as *mut c_void),
        ("mgpuEventSynchronize", stream_nop as *mut c_void),
        ("mgpuEventRecord", event_record as *mut c_void),
        ("mgpuSetDefaultDevice", set_default_device as *mut c_void),
        ("mgpuMemAlloc", mem_alloc as *mut c_void),
        ("mgpuMemFree", mem_free as *mut c_void),
        ("mgpuMemcpy", mem_copy as *mut c_void),
        ("mgpuMemset32", mem_set32 as *mut c_void),
        ("mgpuMemset16", mem_set16 as *mut c_void),
        (
            "mgpuMemHostRegisterMemRef",
            host_register_memref as *mut c_void,
        ),
        (
            "mgpuMemHostUnregisterMemRef",
            host_unregister_memref as *mut c_void,
        ),
    ]
}

/// A kernel found while rewriting a module: its name, parameter types and
/// pointer parameters.
struct Found {
    name: String,
    params: usize,
    pointers: Vec<usize>,
}

/// Loads a kernel module (LLVM bitcode for NVPTX): rewrites it for the
/// host, compiles it and records its kernels; returns its handle.
fn load(bytes: &[u8]) -> Result<usize, String> {
    // The module, its context and its engine live as long as the process
    // (modules are loaded once, by a global constructor).
    let ctx: &'static Context = Box::leak(Box::new(Context::create()));
    let buf = MemoryBuffer::create_from_memory_range_copy(bytes, "kernels");
    let module = Module::parse_bitcode_from_buffer(&buf, ctx)
        .map_err(|e| format!("the kernels are not LLVM bitcode: {e}"))?;
    let found = for_host(ctx, &module)?;
    let engine = module
        .create_jit_execution_engine(OptimizationLevel::Aggressive)
        .map_err(|e| format!("cannot compile the kernels for the host: {e}"))?;
    for (sreg, f) in SREGS {
        if let Some(decl) = module.get_function(&emu_symbol(sreg)) {
            engine.add_global_mapping(&decl, *f as usize);
        }
    }
    let handle = {
        let mut m = MODULES.lock().unwrap_or_else(|e| e.into_inner());
        *m += 1;
        *m
    };
    let mut kernels = KERNELS.lock().unwrap_or_else(|e| e.into_inner());
    for k in found {
        let addr = engine
            .get_function_address(&tramp_symbol(&k.name))
            .map_err(|e| format!("kernel {}: {e}", k.name))?;
        // SAFETY: the trampoline was built by for_host with this signature.
        let tramp: extern "C" fn(*mut *mut c_void) = unsafe { std::mem::transmute(addr) };
        kernels.push(Kernel {
            module: handle,
            name: k.name,
            tramp,
            params: k.params,
            pointers: k.pointers,
        });
    }
    std::mem::forget(engine);
    Ok(handle)
}

fn emu_symbol(sreg: &str) -> String {
    format!("polyrs_emu_sreg_{}", sreg.replace('.', "_"))
}

fn tramp_symbol(kernel: &str) -> String {
    format!("polyrs_emu_tramp_{kernel}")
}

/// Rewrites an NVPTX kernel module for the host: special registers become
/// calls to the runtime, kernels plain functions with a trampoline each,
/// NVPTX's target attributes, triple and data layout the host's.
fn for_host<'c>(ctx: &'c Context, module: &Module<'c>) -> Result<Vec<Found>, String> {
    let tm = super::native::host_target_machine(OptimizationLevel::Aggressive)
        .map_err(|e| e.to_string())?;
    module.set_triple(&tm.get_triple());
    module.set_data_layout(&tm.get_target_data().get_data_layout());
    let mut found = Vec::new();
    let functions: Vec<FunctionValue> = module.get_functions().collect();
    for f in functions {
        let name = f.get_name().to_string_lossy().into_owned();
        for key in ["target-cpu", "target-features"] {
            f.remove_string_attribute(AttributeLoc::Function, key);
        }
        if let Some(sreg) = name.strip_prefix("llvm.nvvm.read.ptx.sreg.") {
            if !SREGS.iter().any(|(s, _)| *s == sreg) {
                return Err(format!(
                    "a kernel reads the special register '{sreg}', which the emulation does not model"
                ));
            }
            let g = module.add_function(&emu_symbol(sreg), f.get_type(), None);
            f.replace_all_uses_with(g);
            // SAFETY: f has no uses left.
            unsafe { f.delete() };
        } else if name.starts_with("llvm.nvvm.") {
            // SAFETY: f is a live function of the module.
            if !unsafe { LLVMGetFirstUse(f.as_value_ref()) }.is_null() {
                return Err(format!(
                    "a kernel calls '{name}', which the emulation does not model \
                     (it runs the threads of a block one after the other)"
                ));
            }
        } else if f.get_call_conventions() == PTX_KERNEL_CC && f.count_basic_blocks() > 0 {
            f.set_call_conventions(0);
            f.as_global_value()
                .set_name(&format!("polyrs_emu_kernel_{name}"));
            let types = f.get_type().get_param_types();
            let pointers = types
                .iter()
                .enumerate()
                .filter(|(_, t)| matches!(t, BasicMetadataTypeEnum::PointerType(_)))
                .map(|(i, _)| i)
                .collect();
            trampoline(ctx, module, f, &name, &types)?;
            found.push(Found {
                name,
                params: types.len(),
                pointers,
            });
        }
    }
    Ok(found)
}

/// `void polyrs_emu_tramp_<name>(void **params)`: loads argument `i` from
/// `*params[i]` and calls the kernel.
fn trampoline<'c>(
    ctx: &'c Context,
    module: &Module<'c>,
    kernel: FunctionValue<'c>,
    name: &str,
    types: &[BasicMetadataTypeEnum<'c>],
) -> Result<(), String> {
    let ptr = ctx.ptr_type(AddressSpace::default());
    let tramp = module.add_function(
        &tramp_symbol(name),
        ctx.void_type().fn_type(&[ptr.into()], false),
        None,
    );
    let b = ctx.create_builder();
    b.position_at_end(ctx.append_basic_block(tramp, "entry"));
    let params = tramp
        .get_nth_param(0)
        .ok_or("trampoline without parameter")?
        .into_pointer_value();
    let err = |e: inkwell::builder::BuilderError| e.to_string();
    let mut args: Vec<BasicMetadataValueEnum> = Vec::new();
    for (i, t) in types.iter().enumerate() {
        let t = BasicTypeEnum::try_from(*t)
            .map_err(|_| format!("kernel {name}: parameter {i} is not a value"))?;
        let index = ctx.i64_type().const_int(i as u64, false);
        // SAFETY: params has one pointer per kernel parameter.
        let slot = unsafe { b.build_gep(ptr, params, &[index], "slot") }.map_err(err)?;
        let at = b.build_load(ptr, slot, "at").map_err(err)?;
        let v = b
            .build_load(t, at.into_pointer_value(), "arg")
            .map_err(err)?;
        args.push(v.into());
    }
    b.build_call(kernel, &args, "").map_err(err)?;
    b.build_return(None).map_err(err)?;
    Ok(())
}
