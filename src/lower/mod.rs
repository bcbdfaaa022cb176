//! Lowering to native code for the host CPU.
//!
//! ```text
//! affine / scf / memref / arith / math (+ affine.parallel, scf.parallel)
//!   └─ MLIR passes   lower-affine, convert-vector-to-scf, [convert-scf-to-openmp],
//!                    expand-strided-metadata, convert-vector-to-llvm, convert-to-llvm,
//!                    convert-scf-to-cf, convert-to-llvm, reconcile-unrealized-casts
//!                                                                    [cpu_pipeline]
//!   └─ check         every op is now in the llvm / omp / builtin dialects
//!   └─ translate     mlirTranslateModuleToLLVMIR → inkwell::Module   [Compiler::translate]
//!   └─ optimize      default<O3> for the host CPU name and features   [native]
//!   └─ emit          LLVM IR, assembly, object file                    [native]
//!                    or JIT-run through MLIR's ExecutionEngine         [jit]
//! ```
//!
//! The pass order is the one that verifies in MLIR 22: converting to LLVM
//! before `convert-scf-to-cf` keeps the regions of `omp.wsloop` and
//! `memref.alloca_scope` single-block (the textbook order fails with
//! "memref.alloca_scope op expects region #0 to have 0 or 1 blocks"); the
//! second `convert-to-llvm` lowers the `cf` ops the first one exposed.

pub mod jit;
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
}

impl Default for CpuOptions {
    fn default() -> Self {
        CpuOptions {
            openmp: true,
            c_interface: false,
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
    format!(
        "builtin.module(lower-affine,convert-vector-to-scf,{omp}expand-strided-metadata,\
         convert-vector-to-llvm,convert-to-llvm,convert-scf-to-cf,convert-to-llvm,\
         reconcile-unrealized-casts)"
    )
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
        crate::ffi::shim::register_passes_once();
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
        self.run_pipeline(module, &cpu_pipeline(opts))?;
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
fn first_unconverted(root: Op) -> Option<Op> {
    for region in root.regions() {
        for block in region.blocks() {
            for op in block.ops() {
                let name = op.name();
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
