//! JIT execution of an entry function through MLIR's ExecutionEngine, with the
//! runner-utils printing helpers and the OpenMP runtime loaded, and optional
//! timing of one function.
//!
//! Timing: every `func.call @FUNC` is surrounded with calls to
//! `polyrs_timer_start` / `polyrs_timer_stop` before lowering; the JIT binds
//! them to Rust functions that record the wall time of each call. The entry
//! function runs `repeat` times (each run redoes its own setup, e.g. array
//! initialization, which is not timed) and the runner reports the minimum and
//! the median of the recorded times.
//!
//! GPU programs (modules with `gpu.launch`) are lowered by the GPU route
//! and run with a runtime for their `mgpu*` calls: the CUDA driver
//! ([`super::cuda`]) or the CPU emulation ([`super::emu`]).
//!
//! MLIR's C API invokes `_mlir_ciface_<entry>`, so the runner lowers with
//! `CpuOptions::c_interface` set.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use melior::ir::Module;

use super::{Compiler, CpuOptions, KernelFormat, LowerError};
use crate::ffi::ir::Op;
use crate::ffi::llvm::Engine;

/// The libraries every JIT run loads (printing helpers and OpenMP).
pub fn default_libs() -> Vec<String> {
    [
        "/usr/lib/llvm-22/lib/libmlir_c_runner_utils.so",
        "/usr/lib/llvm-22/lib/libmlir_runner_utils.so",
        "/usr/lib/llvm-22/lib/libomp.so",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

/// What to run.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// The entry function (no arguments, no results).
    pub entry: String,
    /// The function whose calls are timed, if any.
    pub time: Option<String>,
    /// How often the entry function runs (at least).
    pub repeat: usize,
    /// With `time`: after `repeat` runs, run again until the timed calls
    /// add up to this much, or the runs, setup included, have taken
    /// [`MIN_TIME_WALL_FACTOR`] times as long (a millisecond kernel whose
    /// setup takes longer), or [`MAX_REPEAT`] runs.
    pub min_time: Option<Duration>,
    /// Optimization level of the JIT (0–3).
    pub opt_level: u8,
    /// Extra shared libraries to load.
    pub libs: Vec<String>,
    /// CPU lowering options.
    pub cpu: CpuOptions,
    /// Where the kernels of a GPU program (a module with `gpu.launch`) run.
    pub gpu: GpuMode,
    /// The GPU the kernels are compiled for.
    pub gpu_chip: String,
    /// Each run of the entry function gets back the blocks the previous
    /// runs freed ([`reuse`]): its arrays keep their pages from run to run,
    /// as in a program that allocates once and calls its kernel again and
    /// again. Without it, every run's arrays are fresh memory, which the
    /// first pass over them reads up to 2x slower on some machines, even
    /// after the run's initialization has written every cell.
    pub reuse_memory: bool,
}

/// Where the kernels of a GPU program run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GpuMode {
    /// On the GPU, through the CUDA driver ([`super::cuda`]).
    Cuda,
    /// On the CPU, the whole program as built for the GPU
    /// ([`super::emu`]).
    Emulate,
}

/// Timing of the calls to one function.
#[derive(Debug, Clone)]
pub struct Timing {
    /// The timed function.
    pub function: String,
    /// Every recorded call, in order.
    pub samples: Vec<Duration>,
}

impl Timing {
    /// The fastest call.
    pub fn min(&self) -> Duration {
        self.samples.iter().copied().min().unwrap_or_default()
    }

    /// The median call (lower median for an even count).
    pub fn median(&self) -> Duration {
        let mut s = self.samples.clone();
        s.sort();
        s.get(s.len().saturating_sub(1) / 2)
            .copied()
            .unwrap_or_default()
    }
}

/// Most runs of the entry function that [`RunOptions::min_time`] asks for.
pub const MAX_REPEAT: usize = 200;

/// Wall time, setup included, after which [`RunOptions::min_time`] stops
/// asking for more runs, in multiples of it.
pub const MIN_TIME_WALL_FACTOR: u32 = 4;

static STARTED: Mutex<Option<Instant>> = Mutex::new(None);
static SAMPLES: Mutex<Vec<Duration>> = Mutex::new(Vec::new());

extern "C" fn timer_start() {
    if let Ok(mut s) = STARTED.lock() {
        *s = Some(Instant::now());
    }
}

extern "C" fn timer_stop() {
    let now = Instant::now();
    let start = STARTED.lock().ok().and_then(|mut s| s.take());
    if let (Some(t0), Ok(mut samples)) = (start, SAMPLES.lock()) {
        samples.push(now - t0);
    }
}

/// Lowers `module`, JIT-compiles it and runs the entry function; returns the
/// timing when `opts.time` is set.
pub fn run(
    compiler: &Compiler,
    module: &mut Module,
    opts: &RunOptions,
) -> Result<Option<Timing>, LowerError> {
    let module_op = Op::from_raw(module.as_operation().to_raw());
    if let Some(f) = &opts.time {
        if crate::ffi::shim::instrument_calls(
            module_op,
            f,
            "polyrs_timer_start",
            "polyrs_timer_stop",
        ) == 0
        {
            return Err(LowerError::NothingToTime(f.clone()));
        }
    }
    let runtime = if super::has_gpu_code(module) {
        let (format, symbols) = match opts.gpu {
            GpuMode::Cuda => {
                super::cuda::probe_driver().map_err(LowerError::NoDriver)?;
                (KernelFormat::Ptx, super::cuda::symbols())
            }
            GpuMode::Emulate => (KernelFormat::Bitcode, super::emu::symbols()),
        };
        compiler.lower_gpu(module, &opts.gpu_chip, format, opts.cpu.c_interface)?;
        symbols
    } else {
        compiler.lower_to_llvm_dialect(module, &opts.cpu)?;
        Vec::new()
    };
    let mut libs = default_libs();
    libs.extend(opts.libs.iter().cloned());
    let post: Option<crate::ffi::llvm::ModuleStage> = (opts.cpu.range_minmax
        && crate::target::CpuTarget::host().has_range())
    .then_some(super::minmax::range_minmax_callback);
    let engine = Engine::new(module, opts.opt_level, &libs, post).ok_or(LowerError::Jit)?;
    if opts.reuse_memory {
        // SAFETY: `reuse::malloc` and `reuse::free` have the C signatures
        // of the functions they stand for and live as long as the process.
        unsafe {
            engine.register_symbol("malloc", reuse::malloc as *mut std::ffi::c_void);
            engine.register_symbol("free", reuse::free as *mut std::ffi::c_void);
            engine.register_symbol(
                "aligned_alloc",
                reuse::aligned_alloc as *mut std::ffi::c_void,
            );
        }
    }
    engine.register_function("polyrs_timer_start", timer_start);
    engine.register_function("polyrs_timer_stop", timer_stop);
    for (name, addr) in runtime {
        // SAFETY: the runtimes' entry points are functions with the C
        // signatures of MLIR's mgpu* runtime, living as long as the process.
        unsafe { engine.register_symbol(name, addr) };
    }
    engine.initialize();
    if !engine.has_function(&opts.entry) {
        return Err(LowerError::EntryNotFound(opts.entry.clone()));
    }
    if let Ok(mut s) = SAMPLES.lock() {
        s.clear();
    }
    let began = Instant::now();
    let timed = || -> Duration { SAMPLES.lock().map(|s| s.iter().sum()).unwrap_or_default() };
    let mut runs = 0usize;
    loop {
        let more = runs < opts.repeat.max(1)
            || opts.min_time.is_some_and(|m| {
                runs < MAX_REPEAT
                    && timed() < m
                    && began.elapsed() < m.saturating_mul(MIN_TIME_WALL_FACTOR)
            });
        if !more {
            break;
        }
        if !engine.call_void(&opts.entry) {
            return Err(LowerError::EntryNotFound(opts.entry.clone()));
        }
        runs += 1;
    }
    Ok(opts.time.as_ref().map(|f| Timing {
        function: f.clone(),
        samples: SAMPLES.lock().map(|s| s.clone()).unwrap_or_default(),
    }))
}

/// `malloc`, `aligned_alloc` and `free` for JIT-compiled code that keep the
/// blocks it frees and hand them back to its next requests of the same
/// size and alignment ([`RunOptions::reuse_memory`]). Blocks come from the
/// C library's `malloc` and `aligned_alloc`; a pointer this module did not
/// hand out goes to the C library's `free`.
pub mod reuse {
    use std::collections::HashMap;
    use std::ffi::c_void;
    use std::sync::Mutex;

    extern "C" {
        #[link_name = "malloc"]
        fn libc_malloc(size: usize) -> *mut c_void;
        #[link_name = "free"]
        fn libc_free(p: *mut c_void);
        #[link_name = "aligned_alloc"]
        fn libc_aligned_alloc(align: usize, size: usize) -> *mut c_void;
    }

    /// A request: its size and its alignment (0: `malloc`'s).
    type Shape = (usize, usize);

    #[derive(Default)]
    struct Blocks {
        /// Handed out and not freed yet: address -> request.
        live: HashMap<usize, Shape>,
        /// Freed, by request, for the next request of that size and
        /// alignment.
        spare: HashMap<Shape, Vec<usize>>,
    }

    static BLOCKS: Mutex<Option<Blocks>> = Mutex::new(None);

    /// A block for `shape`: one freed before with that shape, or a new one
    /// from `fresh` (the C library).
    fn block(shape: Shape, fresh: impl Fn() -> *mut c_void) -> *mut c_void {
        let Ok(mut guard) = BLOCKS.lock() else {
            return fresh();
        };
        let blocks = guard.get_or_insert_with(Blocks::default);
        let addr = match blocks.spare.get_mut(&shape).and_then(Vec::pop) {
            Some(a) => a,
            None => {
                let p = fresh();
                if p.is_null() {
                    return p;
                }
                p as usize
            }
        };
        blocks.live.insert(addr, shape);
        addr as *mut c_void
    }

    /// A block of `size` bytes: one freed before at that size, or a new one.
    pub extern "C" fn malloc(size: usize) -> *mut c_void {
        // SAFETY: the C library's malloc.
        block((size, 0), || unsafe { libc_malloc(size) })
    }

    /// A block of `size` bytes aligned to `align`: one freed before with
    /// that size and alignment, or a new one (the lowering's allocations,
    /// `use-aligned-alloc`).
    pub extern "C" fn aligned_alloc(align: usize, size: usize) -> *mut c_void {
        // SAFETY: the C library's aligned_alloc.
        block((size, align), || unsafe { libc_aligned_alloc(align, size) })
    }

    /// Keeps a block [`malloc`] or [`aligned_alloc`] handed out for the
    /// next request of its size and alignment; any other pointer goes to
    /// the C library.
    ///
    /// # Safety
    /// `p` is null, a block [`malloc`] or [`aligned_alloc`] handed out and
    /// not freed since, or a pointer the C library's `free` accepts.
    pub unsafe extern "C" fn free(p: *mut c_void) {
        if p.is_null() {
            return;
        }
        if let Ok(mut guard) = BLOCKS.lock() {
            if let Some(blocks) = guard.as_mut() {
                if let Some(shape) = blocks.live.remove(&(p as usize)) {
                    blocks.spare.entry(shape).or_default().push(p as usize);
                    return;
                }
            }
        }
        // SAFETY: not one of ours, so the C library's, as the caller promised.
        unsafe { libc_free(p) }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn a_freed_block_comes_back_for_its_size_only() {
            let a = malloc(1 << 20);
            assert!(!a.is_null());
            // SAFETY: blocks handed out by `malloc`, each freed once.
            unsafe { free(a) };
            let b = malloc((1 << 20) + 8);
            assert_ne!(a, b, "a block of another size is not reused");
            let c = malloc(1 << 20);
            assert_eq!(a, c, "the freed block comes back for its size");
            let d = malloc(1 << 20);
            assert_ne!(c, d, "a live block is not handed out twice");
            for p in [b, c, d] {
                // SAFETY: as above.
                unsafe { free(p) };
            }
        }

        #[test]
        fn an_aligned_block_comes_back_for_its_size_and_alignment_only() {
            let a = aligned_alloc(64, 1 << 16);
            assert!(!a.is_null());
            assert_eq!(a as usize % 64, 0);
            // SAFETY: blocks handed out by `aligned_alloc` or `malloc`,
            // each freed once.
            unsafe { free(a) };
            let b = malloc(1 << 16);
            assert_ne!(a, b, "malloc does not get an aligned request's block");
            let c = aligned_alloc(4096, 1 << 16);
            assert_ne!(a, c, "nor does another alignment");
            assert_eq!(c as usize % 4096, 0);
            let d = aligned_alloc(64, 1 << 16);
            assert_eq!(a, d, "the freed block comes back for its request");
            for p in [b, c, d] {
                // SAFETY: as above.
                unsafe { free(p) };
            }
        }
    }
}
