//! Lowering to native code for the host CPU.
//!
//! ```text
//! affine / scf / memref / arith / math (+ affine.parallel, scf.parallel)
//!   └─ MLIR passes   lower-affine, convert-vector-to-scf, [convert-scf-to-openmp],
//!                    expand-strided-metadata, convert-vector-to-llvm,
//!                    finalize-memref-to-llvm{use-aligned-alloc}, convert-to-llvm,
//!                    convert-scf-to-cf, convert-to-llvm, reconcile-unrealized-casts
//!                                                                    [cpu_pipeline]
//!   └─ check         every op is now in the llvm / omp / builtin dialects
//!   └─ translate     mlirTranslateModuleToLLVMIR → inkwell::Module   [Compiler::translate]
//!   └─ optimize      default<O3> for the host CPU name and features   [native]
//!   └─ min/max       exact llvm.maximum/minimum as vrange (AVX-512 DQ) [minmax]
//!   └─ emit          LLVM IR, assembly, object file                    [native]
//!                    or JIT-run through MLIR's ExecutionEngine         [jit]
//! ```
//!
//! Modules with `gpu.launch` operations (`poly-opt{target=gpu}`) take the
//! GPU route instead ([`gpu_pipelines`], [`Compiler::lower_gpu`]): kernels
//! outlined and compiled to PTX by LLVM's NVPTX back end (embedded in the
//! host module as `gpu.binary`, loaded by the driver at run time), the
//! host code lowered to the LLVM dialect calling MLIR's `mgpu*` runtime
//! entry points (`runtime/mgpu_cuda.c` implements them on the CUDA driver).
//!
//! The pass order is the one that verifies in MLIR 22: converting to LLVM
//! before `convert-scf-to-cf` keeps the regions of `omp.wsloop` and
//! `memref.alloca_scope` single-block (the textbook order fails with
//! "memref.alloca_scope op expects region #0 to have 0 or 1 blocks"); the
//! second `convert-to-llvm` lowers the `cf` ops the first one exposed.

pub mod cuda;
pub mod emu;
pub mod jit;
pub mod minmax;
pub mod native;

use std::path::Path;

use melior::dialect::DialectRegistry;
use melior::ir::operation::OperationLike;
use melior::ir::{Location, Module};
use melior::pass::PassManager;
use melior::utility::{
    parse_pass_pipeline, register_all_dialects, register_all_llvm_translations, register_all_passes,
};
use melior::Context;
use thiserror::Error;

use crate::ffi::ir::{Loc, Op};

/// Why lowering or running failed. Diagnostics with locations have already been
/// printed to stderr when the variant says so.
#[derive(Debug, Error)]
pub enum LowerError {
    /// The input cannot be read (user error).
    #[error("cannot read '{path}': {source}")]
    Io {
        /// The path given.
        path: String,
        /// The OS error.
        source: std::io::Error,
    },
    /// The input does not parse or verify (user error); diagnostics printed.
    #[error("cannot parse '{0}'")]
    Parse(String),
    /// A pass of the lowering pipeline failed (user error or unsupported
    /// input); diagnostics printed.
    #[error("lowering failed")]
    Pipeline,
    /// The pipeline text is malformed (user error).
    #[error("invalid pass pipeline: {0}")]
    PipelineSyntax(String),
    /// Translation to LLVM IR failed (unsupported input); diagnostics printed.
    #[error("translation to LLVM IR failed")]
    Translate,
    /// An operation the CPU lowering leaves unconverted (unsupported input);
    /// a diagnostic at the op was printed.
    #[error("cannot lower '{0}' to the LLVM dialect")]
    Unconverted(String),
    /// The host target is unavailable or code emission failed (limit).
    #[error("code generation failed: {0}")]
    Codegen(String),
    /// The JIT could not be created (bug or limit).
    #[error("cannot create the JIT execution engine")]
    Jit,
    /// The entry function does not exist (user error).
    #[error("entry function '{0}' not found")]
    EntryNotFound(String),
    /// `--gpu=cuda` without an NVIDIA driver (environment).
    #[error("no NVIDIA driver ({0}); --gpu=emulate runs GPU programs on the CPU")]
    NoDriver(String),
    /// The module has no call to the function to time (user error).
    #[error("--time: no call to '@{0}' in the module")]
    NothingToTime(String),
}

/// Options of the CPU lowering.
#[derive(Debug, Clone)]
pub struct CpuOptions {
    /// Lower `affine.parallel` / `scf.parallel` to OpenMP (default) instead
    /// of sequential loops.
    pub openmp: bool,
    /// Give every function with a body a C-compatible entry point
    /// (`_mlir_ciface_<name>`), so that C programs can call it.
    pub c_interface: bool,
    /// After LLVM's pipeline, give `llvm.maximum`/`llvm.minimum` their
    /// three-instruction exact form ([`minmax`]) where the CPU has AVX-512
    /// DQ and VL (default); false keeps LLVM's own lowering.
    pub range_minmax: bool,
}

impl Default for CpuOptions {
    fn default() -> Self {
        CpuOptions {
            openmp: true,
            c_interface: false,
            range_minmax: true,
        }
    }
}

/// The MLIR pass pipeline from the affine level to the LLVM dialect.
pub fn cpu_pipeline(opts: &CpuOptions) -> String {
    let omp = if opts.openmp {
        "convert-scf-to-openmp,"
    } else {
        ""
    };
    // Allocations through `aligned_alloc` (`use-aligned-alloc`): an aligned
    // `memref.alloc` otherwise becomes `malloc` of a larger block and
    // pointer arithmetic through integers, which hides from LLVM that the
    // block is a fresh allocation (no other pointer aliases it): the
    // PolyBench programs' untransformed loops, their arrays 64-byte
    // aligned, ran 2.5-5x slower (gesummv 0.85 -> 4.9 ms at LARGE, the
    // loops no longer vectorized).
    // `expand-strided-metadata` gives a view of dynamic offsets (a row's
    // `memref.subview` at a loop's iterator) `affine.apply`s: lowered again
    // after it.
    format!(
        "builtin.module(lower-affine,convert-vector-to-scf,{omp}expand-strided-metadata,lower-affine,\
         convert-vector-to-llvm,finalize-memref-to-llvm{{use-aligned-alloc=true}},\
         convert-to-llvm,convert-scf-to-cf,convert-to-llvm,reconcile-unrealized-casts)"
    )
}

/// The two pipelines from `gpu.launch` to a host module in the LLVM
/// dialect with every kernel's PTX for `chip` (`sm_90`) embedded: the
/// kernels are outlined after `lower-affine` (the NVVM pipeline lowers
/// `scf` before `affine`, so affine code inside kernels must be lowered
/// first) and synchronous copies and allocations become asynchronous ones
/// with tokens (`gpu-async-region`: `gpu-to-llvm` lowers only those);
/// then upstream's NVVM pipeline with PTX ISA 8.0 (the default, 6.0, does
/// not support sm_90) and the kernels embedded as `format`.
pub fn gpu_pipelines(chip: &str, format: KernelFormat) -> [String; 2] {
    let format = match format {
        KernelFormat::Ptx => "isa",
        KernelFormat::Bitcode => "llvm",
    };
    [
        "builtin.module(lower-affine,gpu-kernel-outlining,func.func(gpu-async-region))".into(),
        format!(
            "builtin.module(gpu-lower-to-nvvm-pipeline{{cubin-chip={chip} \
             cubin-features=+ptx80 cubin-format={format}}})"
        ),
    ]
}

/// How the kernels of a GPU module are embedded in the host code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KernelFormat {
    /// PTX text (no `ptxas` needed: the driver compiles it when the module
    /// is loaded); for the GPU.
    Ptx,
    /// The NVPTX kernels' LLVM bitcode, optimized as for PTX; for the CPU
    /// emulation ([`emu`]), which compiles it for the host.
    Bitcode,
}

/// True when `module` has GPU code: kernels, device memory or copies
/// (a SCoP whose kernels all folded away keeps its buffers and copies).
pub fn has_gpu_code(module: &Module) -> bool {
    fn walk(op: Op) -> bool {
        op.name().starts_with("gpu.")
            || op
                .regions()
                .iter()
                .any(|r| r.blocks().iter().any(|b| b.ops().into_iter().any(walk)))
    }
    walk(Op::from_raw(module.as_operation().to_raw()))
}

/// The PTX of every kernel module of a lowered GPU module, in order, with
/// the module's name: the `assembly` strings of its `gpu.binary` objects
/// (MLIR escapes bytes as `\XX`).
pub fn ptx_of(module: &Module) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let root = Op::from_raw(module.as_operation().to_raw());
    for r in root.regions() {
        for b in r.blocks() {
            for op in b.ops() {
                if op.name() != "gpu.binary" {
                    continue;
                }
                let Some(text) = op.attr(c"objects").map(|a| a.text()) else {
                    continue;
                };
                let name = op
                    .attr(c"sym_name")
                    .map(|a| a.text().trim_matches('"').to_string())
                    .unwrap_or_default();
                let mut rest = text.as_str();
                while let Some(at) = rest.find("assembly = \"") {
                    rest = &rest[at + "assembly = \"".len()..];
                    let (ptx, used) = unescape(rest);
                    out.push((name.clone(), ptx));
                    rest = &rest[used..];
                }
            }
        }
    }
    out
}

/// The bytes of an MLIR string literal's body up to its closing quote, and
/// the characters used.
fn unescape(s: &str) -> (String, usize) {
    let bytes = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => return (String::from_utf8_lossy(&out).into_owned(), i + 1),
            b'\\' if i + 1 < bytes.len() && (bytes[i + 1] == b'\\' || bytes[i + 1] == b'"') => {
                out.push(bytes[i + 1]);
                i += 2;
            }
            b'\\' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap_or("");
                out.push(u8::from_str_radix(hex, 16).unwrap_or(b'?'));
                i += 3;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    (String::from_utf8_lossy(&out).into_owned(), i)
}

/// An MLIR context with every dialect, pass and LLVM translation registered,
/// the polyrs passes among them, and a diagnostic handler that prints
/// `file:line:col: severity: message` to stderr.
pub struct Compiler {
    context: Context,
}

impl Default for Compiler {
    fn default() -> Self {
        Self::new()
    }
}

fn print_diagnostic(d: &melior::diagnostic::Diagnostic) {
    use melior::diagnostic::DiagnosticSeverity as S;
    let severity = match d.severity() {
        S::Error => "error",
        S::Warning => "warning",
        S::Note => "note",
        S::Remark => "remark",
    };
    let loc = Loc::from_raw(d.location().to_raw())
        .file_line_col()
        .unwrap_or_else(|| d.location().to_string());
    eprintln!("{loc}: {severity}: {d}");
    for i in 0..d.note_count() {
        if let Ok(n) = d.note(i) {
            print_diagnostic(&n);
        }
    }
}

impl Compiler {
    /// Creates the context and registers everything.
    pub fn new() -> Self {
        let registry = DialectRegistry::new();
        register_all_dialects(&registry);
        let context = Context::new();
        context.append_dialect_registry(&registry);
        context.load_all_available_dialects();
        register_all_passes();
        register_all_llvm_translations(&context);
        crate::passes::register_once();
        context.attach_diagnostic_handler(|d| {
            print_diagnostic(&d);
            true
        });
        Compiler { context }
    }

    /// The MLIR context.
    pub fn context(&self) -> &Context {
        &self.context
    }

    /// Parses and verifies a module from a file (`-` = stdin).
    pub fn parse_file(&self, path: &str) -> Result<Module<'_>, LowerError> {
        if path == "-" {
            let mut s = String::new();
            std::io::Read::read_to_string(&mut std::io::stdin(), &mut s).map_err(|source| {
                LowerError::Io {
                    path: "<stdin>".into(),
                    source,
                }
            })?;
            return self.parse_str(&s);
        }
        std::fs::metadata(Path::new(path)).map_err(|source| LowerError::Io {
            path: path.into(),
            source,
        })?;
        let module = crate::ffi::ir::parse_module_file(&self.context, path)
            .ok_or_else(|| LowerError::Parse(path.into()))?;
        self.verified(module, path)
    }

    /// Parses and verifies a module from text.
    pub fn parse_str(&self, text: &str) -> Result<Module<'_>, LowerError> {
        let module = Module::parse(&self.context, text)
            .ok_or_else(|| LowerError::Parse("<stdin>".into()))?;
        self.verified(module, "<stdin>")
    }

    fn verified<'c>(&'c self, module: Module<'c>, name: &str) -> Result<Module<'c>, LowerError> {
        if !module.as_operation().verify() {
            return Err(LowerError::Parse(name.into()));
        }
        Ok(module)
    }

    /// Runs a textual pass pipeline (`builtin.module(...)`) on `module`.
    pub fn run_pipeline(&self, module: &mut Module, pipeline: &str) -> Result<(), LowerError> {
        let pm = PassManager::new(&self.context);
        pm.enable_verifier(true);
        parse_pass_pipeline(pm.as_operation_pass_manager(), pipeline)
            .map_err(|e| LowerError::PipelineSyntax(format!("{pipeline}: {e}")))?;
        pm.run(module).map_err(|_| LowerError::Pipeline)
    }

    /// Lowers `module` to the LLVM dialect for the host CPU.
    pub fn lower_to_llvm_dialect(
        &self,
        module: &mut Module,
        opts: &CpuOptions,
    ) -> Result<(), LowerError> {
        if opts.c_interface {
            crate::ffi::shim::set_c_interface(Op::from_raw(module.as_operation().to_raw()));
        }
        // poly-opt's loops that LLVM must not vectorize keep their
        // `llvm.loop_annotation` through `lower-affine` (which drops it):
        // lowered first, on its own, with the annotations in the loops'
        // locations meanwhile.
        use crate::ffi::shim::{carry_loop_annotations, LoopAnnotations};
        let root = Op::from_raw(module.as_operation().to_raw());
        carry_loop_annotations(root, LoopAnnotations::Stash);
        self.run_pipeline(module, "builtin.module(lower-affine)")?;
        carry_loop_annotations(root, LoopAnnotations::Restore);
        // A parallel loop's reduction that OpenMP's conversion cannot lower
        // would fail the whole pipeline: the module's parallel loops then
        // run in order, with a warning that says so.
        let sequential;
        let opts = match unsupported_omp_reduction(root) {
            Some((op, combine)) if opts.openmp => {
                crate::ffi::shim::emit(
                    op.loc(),
                    crate::ffi::shim::Severity::Warning,
                    &format!(
                        "a parallel loop reduces with '{combine}', which convert-scf-to-openmp cannot lower: \
                         the module's parallel loops run in order, without OpenMP"
                    ),
                    None,
                );
                sequential = CpuOptions {
                    openmp: false,
                    ..opts.clone()
                };
                &sequential
            }
            _ => opts,
        };
        self.run_pipeline(module, &cpu_pipeline(opts))?;
        carry_loop_annotations(root, LoopAnnotations::Attach);
        if let Some(op) = first_unconverted(Op::from_raw(module.as_operation().to_raw())) {
            crate::ffi::shim::emit(
                op.loc(),
                crate::ffi::shim::Severity::Error,
                &format!("'{}' is not supported by the CPU lowering", op.name()),
                None,
            );
            return Err(LowerError::Unconverted(op.name()));
        }
        Ok(())
    }

    /// Lowers a module with `gpu.launch` operations to the LLVM dialect for
    /// the host, every kernel compiled to PTX for `chip` and embedded
    /// ([`gpu_pipelines`]), as `format`.
    pub fn lower_gpu(
        &self,
        module: &mut Module,
        chip: &str,
        format: KernelFormat,
        c_interface: bool,
    ) -> Result<(), LowerError> {
        if c_interface {
            crate::ffi::shim::set_c_interface(Op::from_raw(module.as_operation().to_raw()));
        }
        for p in gpu_pipelines(chip, format) {
            self.run_pipeline(module, &p)?;
        }
        if let Some(op) = first_unconverted(Op::from_raw(module.as_operation().to_raw())) {
            crate::ffi::shim::emit(
                op.loc(),
                crate::ffi::shim::Severity::Error,
                &format!("'{}' is not supported by the GPU lowering", op.name()),
                None,
            );
            return Err(LowerError::Unconverted(op.name()));
        }
        Ok(())
    }

    /// Translates an LLVM-dialect module to LLVM IR.
    pub fn translate<'l>(
        &self,
        module: &Module,
        llvm: &'l inkwell::context::Context,
    ) -> Result<inkwell::module::Module<'l>, LowerError> {
        crate::ffi::llvm::translate_to_llvm_ir(module, llvm).ok_or(LowerError::Translate)
    }

    /// An unknown location in this context.
    pub fn unknown_location(&self) -> Location<'_> {
        Location::unknown(&self.context)
    }
}

/// The first operation nested in `root` that is not in the LLVM, OpenMP or
/// builtin dialects, i.e. that translation to LLVM IR would reject.
/// The first `scf.parallel` of `root` (lowered from `affine.parallel`)
/// whose reduction combines with an operation MLIR 22's
/// `convert-scf-to-openmp` cannot lower (`arith.maximumf`,
/// `arith.minimumf`: it fails with an unconverted `scf.reduce.return`),
/// and that operation's name.
fn unsupported_omp_reduction(root: Op) -> Option<(Op, String)> {
    root.preorder()
        .into_iter()
        .filter(|op| op.name() == "scf.parallel")
        .find_map(|op| {
            let combine = op
                .preorder()
                .into_iter()
                .filter(|r| r.name() == "scf.reduce")
                .flat_map(Op::preorder)
                .map(Op::name)
                .find(|n| matches!(n.as_str(), "arith.maximumf" | "arith.minimumf"))?;
            Some((op, combine))
        })
}

fn first_unconverted(root: Op) -> Option<Op> {
    for region in root.regions() {
        for block in region.blocks() {
            for op in block.ops() {
                let name = op.name();
                // Translated by the GPU dialect's offloading interface.
                if name == "gpu.binary" || name == "gpu.launch_func" {
                    continue;
                }
                if !(name.starts_with("llvm.")
                    || name.starts_with("omp.")
                    || name.starts_with("builtin."))
                {
                    return Some(op);
                }
                if let Some(inner) = first_unconverted(op) {
                    return Some(inner);
                }
            }
        }
    }
    None
}
