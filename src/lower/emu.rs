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
//! Barriers and shared memory. `gpu.barrier` (NVVM's
//! `llvm.nvvm.barrier.cta.sync.aligned.all`, or `barrier0`) becomes a call
//! to this runtime. A launch of a kernel that synchronizes runs each thread
//! of a block on a host thread of its own, but one at a time, in the
//! launch's order: a thread runs until its next barrier (or its end) and
//! hands over to the next one; when every thread of the block has arrived,
//! the next phase starts with the first thread again. The run is as
//! deterministic as the sequential one, and a missing barrier shows as
//! reads of what no thread wrote yet. Every thread of a block must pass the
//! same number of barriers (a barrier inside divergent code hangs or
//! misbehaves on a GPU): else the run ends with an error. Shared memory
//! (the kernels' `addrspace(3)` globals: `gpu.launch`'s `workgroup`
//! attributions) is filled with 0xff bytes before each block, as device
//! memory is before the first copy: a block that reads a shared cell it did
//! not write (a footprint too small, a value left by the previous block)
//! reads NaN. Other synchronizing intrinsics (warp shuffles, votes) and
//! dynamic shared memory are refused with an error naming them.
//!
//! Errors are printed to stderr (`gpu emulation: ...`) and end the process
//! with status 4, as a fault would end a GPU program.

use std::cell::{Cell, RefCell};
use std::ffi::{c_char, c_void, CStr};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

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
    /// The baton of the launch this host thread runs a GPU thread of, and
    /// the GPU thread's place in the launch's order (kernels that
    /// synchronize only).
    static BATON: RefCell<Option<(Arc<Baton>, usize)>> = const { RefCell::new(None) };
}

/// The NVVM intrinsics of `gpu.barrier` (LLVM 22 and older).
const BARRIERS: &[&str] = &[
    "llvm.nvvm.barrier.cta.sync.aligned.all",
    "llvm.nvvm.barrier.cta.sync.all",
    "llvm.nvvm.barrier0",
];

/// Host stack of one emulated GPU thread of a kernel that synchronizes.
const THREAD_STACK: usize = 1 << 20;

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
    /// Whether the kernel's module calls `gpu.barrier`.
    syncs: bool,
    /// Fills the module's shared memory with 0xff bytes.
    poison_shared: extern "C" fn(),
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
    let (tramp, name, syncs, poison_shared) = {
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
        (k.tramp, k.name.clone(), k.syncs, k.poison_shared)
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
    let launch = Launch {
        grid,
        block,
        forward: FORWARD.load(Ordering::Relaxed),
    };
    if syncs {
        run_in_phases(&launch, &name, tramp, params, poison_shared);
        return;
    }
    for b in 0..launch.blocks() {
        poison_shared();
        for t in 0..launch.threads() {
            IDS.with(|c| c.set(launch.ids(b, t)));
            tramp(params);
        }
    }
}

/// The shape of a launch and the order in which it runs.
struct Launch {
    grid: [i64; 3],
    block: [i64; 3],
    forward: bool,
}

impl Launch {
    fn blocks(&self) -> i64 {
        self.grid.iter().product()
    }

    fn threads(&self) -> i64 {
        self.block.iter().product()
    }

    /// The special registers of the `t`-th thread of the `b`-th block in
    /// the run's order: x fastest, from 0 (forward) or from the end.
    fn ids(&self, b: i64, t: i64) -> [i32; 12] {
        let at = |i: i64, n: i64| if self.forward { i } else { n - 1 - i };
        let mut ids = [0i32; 12];
        let (mut b, mut t) = (b, t);
        for d in 0..3 {
            ids[d] = at(t % self.block[d], self.block[d]) as i32;
            ids[3 + d] = at(b % self.grid[d], self.grid[d]) as i32;
            ids[6 + d] = self.block[d] as i32;
            ids[9 + d] = self.grid[d] as i32;
            t /= self.block[d];
            b /= self.grid[d];
        }
        ids
    }
}

/// Where a GPU thread of a kernel that synchronizes stands in its block.
#[derive(Clone, Copy, PartialEq)]
enum Stand {
    /// Runs, or will when its turn comes.
    Ready,
    /// Waits at a barrier for the block's next phase.
    AtBarrier,
    /// Has returned from the kernel.
    Done,
}

/// The turn of the GPU threads of one launch: one host thread per GPU
/// thread of a block, only the one whose turn it is runs.
struct Baton {
    state: Mutex<Turn>,
    /// One per thread: notified when its turn comes.
    wake: Vec<Condvar>,
    kernel: String,
    poison_shared: extern "C" fn(),
}

struct Turn {
    block: i64,
    turn: usize,
    stand: Vec<Stand>,
    /// Barriers passed by each thread in this block.
    passed: Vec<u64>,
}

impl Baton {
    fn lock(&self) -> MutexGuard<'_, Turn> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Hands the turn on from thread `w` (which just stopped at a barrier
    /// or returned): to the next thread of the phase, else to the first
    /// thread of the next phase, else (every thread done) to the first
    /// thread of the next block, after checking that every thread passed
    /// the same number of barriers and poisoning the shared memory.
    fn pass(&self, t: &mut Turn, w: usize) {
        let n = t.stand.len();
        if let Some(next) = (w + 1..n).find(|&i| t.stand[i] != Stand::Done) {
            t.turn = next;
        } else if let Some(first) = (0..n).find(|&i| t.stand[i] != Stand::Done) {
            for s in t.stand.iter_mut().filter(|s| **s == Stand::AtBarrier) {
                *s = Stand::Ready;
            }
            t.turn = first;
        } else {
            if t.passed.iter().any(|&p| p != t.passed[0]) {
                let (lo, hi) = (
                    t.passed.iter().min().copied().unwrap_or(0),
                    t.passed.iter().max().copied().unwrap_or(0),
                );
                fail(&format!(
                    "kernel {}: the threads of a block passed different numbers of \
                     barriers ({lo} to {hi}); a barrier in divergent code hangs a GPU",
                    self.kernel
                ));
            }
            t.block += 1;
            t.stand.fill(Stand::Ready);
            t.passed.fill(0);
            (self.poison_shared)();
            t.turn = 0;
        }
        self.wake[t.turn].notify_one();
    }

    /// Blocks the calling host thread until it is GPU thread `w`'s turn in
    /// block `b`.
    fn wait<'a>(&'a self, mut t: MutexGuard<'a, Turn>, w: usize, b: i64) -> MutexGuard<'a, Turn> {
        while !(t.block == b && t.turn == w && t.stand[w] == Stand::Ready) {
            t = self.wake[w].wait(t).unwrap_or_else(|e| e.into_inner());
        }
        t
    }
}

/// Runs a launch of a kernel that synchronizes: one host thread per GPU
/// thread of a block, taking turns (see [`Baton`]); the blocks one after
/// the other.
fn run_in_phases(
    launch: &Launch,
    name: &str,
    tramp: extern "C" fn(*mut *mut c_void),
    params: *mut *mut c_void,
    poison_shared: extern "C" fn(),
) {
    let n = launch.threads() as usize;
    let baton = Arc::new(Baton {
        state: Mutex::new(Turn {
            block: 0,
            turn: 0,
            stand: vec![Stand::Ready; n],
            passed: vec![0; n],
        }),
        wake: (0..n).map(|_| Condvar::new()).collect(),
        kernel: name.to_string(),
        poison_shared,
    });
    poison_shared();
    // The argument array outlives the launch (the caller waits for it).
    let params = params as usize;
    std::thread::scope(|scope| {
        for w in 0..n {
            let baton = Arc::clone(&baton);
            let spawned = std::thread::Builder::new()
                .stack_size(THREAD_STACK)
                .spawn_scoped(scope, move || {
                    BATON.with(|b| *b.borrow_mut() = Some((Arc::clone(&baton), w)));
                    for b in 0..launch.blocks() {
                        drop(baton.wait(baton.lock(), w, b));
                        IDS.with(|c| c.set(launch.ids(b, w as i64)));
                        tramp(params as *mut *mut c_void);
                        let mut t = baton.lock();
                        t.stand[w] = Stand::Done;
                        baton.pass(&mut t, w);
                    }
                    BATON.with(|b| *b.borrow_mut() = None);
                });
            if let Err(e) = spawned {
                fail(&format!(
                    "kernel {name}: cannot start a host thread per GPU thread: {e}"
                ));
            }
        }
    });
}

/// `gpu.barrier` of a kernel that synchronizes: the thread waits for the
/// block's next phase.
extern "C" fn barrier() {
    let Some((baton, w)) = BATON.with(|b| b.borrow().clone()) else {
        fail("a barrier outside a launch of a kernel that synchronizes")
    };
    let mut t = baton.lock();
    let b = t.block;
    t.stand[w] = Stand::AtBarrier;
    t.passed[w] += 1;
    baton.pass(&mut t, w);
    drop(baton.wait(t, w, b));
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
    let (found, syncs) = for_host(ctx, &module)?;
    let engine = module
        .create_jit_execution_engine(OptimizationLevel::Aggressive)
        .map_err(|e| format!("cannot compile the kernels for the host: {e}"))?;
    for (sreg, f) in SREGS {
        if let Some(decl) = module.get_function(&emu_symbol(sreg)) {
            engine.add_global_mapping(&decl, *f as usize);
        }
    }
    if let Some(decl) = module.get_function(BARRIER_SYMBOL) {
        engine.add_global_mapping(&decl, barrier as extern "C" fn() as usize);
    }
    let poison = engine
        .get_function_address(POISON_SYMBOL)
        .map_err(|e| format!("shared memory: {e}"))?;
    // SAFETY: built by for_host as `void f(void)`.
    let poison_shared: extern "C" fn() = unsafe { std::mem::transmute(poison) };
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
            syncs,
            poison_shared,
        });
    }
    std::mem::forget(engine);
    Ok(handle)
}

fn emu_symbol(sreg: &str) -> String {
    format!("polyrs_emu_sreg_{}", sreg.replace('.', "_"))
}

/// What the kernels' barriers call.
const BARRIER_SYMBOL: &str = "polyrs_emu_barrier";

/// `void polyrs_emu_poison_shared(void)`: fills the module's shared memory
/// with 0xff bytes.
const POISON_SYMBOL: &str = "polyrs_emu_poison_shared";

fn tramp_symbol(kernel: &str) -> String {
    format!("polyrs_emu_tramp_{kernel}")
}

/// Rewrites an NVPTX kernel module for the host: special registers and
/// barriers become calls to the runtime, kernels plain functions with a
/// trampoline each, NVPTX's target attributes, triple and data layout the
/// host's; adds the function that poisons the shared memory. The kernels,
/// and whether the module synchronizes.
fn for_host<'c>(ctx: &'c Context, module: &Module<'c>) -> Result<(Vec<Found>, bool), String> {
    let tm = super::native::host_target_machine(OptimizationLevel::Aggressive)
        .map_err(|e| e.to_string())?;
    module.set_triple(&tm.get_triple());
    module.set_data_layout(&tm.get_target_data().get_data_layout());
    let mut found = Vec::new();
    let mut syncs = false;
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
        } else if BARRIERS.contains(&name.as_str()) {
            let g = module.add_function(BARRIER_SYMBOL, f.get_type(), None);
            f.replace_all_uses_with(g);
            // SAFETY: f has no uses left.
            unsafe { f.delete() };
            syncs = true;
        } else if name.starts_with("llvm.nvvm.") {
            // SAFETY: f is a live function of the module.
            if !unsafe { LLVMGetFirstUse(f.as_value_ref()) }.is_null() {
                return Err(format!(
                    "a kernel calls '{name}', which the emulation does not model \
                     (it runs the threads of a block in turns, synchronized only by barriers)"
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
    poison_function(ctx, module, &tm)?;
    Ok((found, syncs))
}

/// Adds `void polyrs_emu_poison_shared(void)`, which fills every shared
/// (`addrspace(3)`) global of the module with 0xff bytes.
fn poison_function<'c>(
    ctx: &'c Context,
    module: &Module<'c>,
    tm: &inkwell::targets::TargetMachine,
) -> Result<(), String> {
    let f = module.add_function(POISON_SYMBOL, ctx.void_type().fn_type(&[], false), None);
    let b = ctx.create_builder();
    b.position_at_end(ctx.append_basic_block(f, "entry"));
    let err = |e: inkwell::builder::BuilderError| e.to_string();
    let data = tm.get_target_data();
    for g in module.get_globals() {
        let ptr = g.as_pointer_value();
        if ptr.get_type().get_address_space() != AddressSpace::from(3u16) {
            continue;
        }
        let bytes = data.get_store_size(&g.get_value_type());
        b.build_memset(
            ptr,
            1,
            ctx.i8_type().const_int(0xff, false),
            ctx.i64_type().const_int(bytes, false),
        )
        .map_err(err)?;
    }
    b.build_return(None).map_err(err)?;
    Ok(())
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
