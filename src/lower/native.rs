//! Native code for the host CPU through inkwell: the target machine for the
//! host's CPU name and features, the `default<O3>` pipeline, and emission of
//! LLVM IR, assembly or an object file.

use std::path::Path;

use inkwell::module::Module;
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::{
    CodeModel, FileType, InitializationConfig, RelocMode, Target, TargetMachine,
};
use inkwell::OptimizationLevel;

use super::LowerError;

/// What to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Emit {
    /// Textual LLVM IR (`.ll`).
    LlvmIr,
    /// Assembly for the host CPU (`.s`).
    Asm,
    /// A relocatable object file (`.o`), position independent.
    Object,
}

/// Creates a target machine for the host CPU (its name and features, so the
/// native vector ISA is used).
pub fn host_target_machine(level: OptimizationLevel) -> Result<TargetMachine, LowerError> {
    let cpu = TargetMachine::get_host_cpu_name();
    let features = TargetMachine::get_host_cpu_features();
    target_machine(&cpu.to_string_lossy(), &features.to_string_lossy(), level)
}

/// Creates a target machine of the default triple for LLVM CPU `cpu` with
/// feature string `features` (empty: the CPU's own features), so that code
/// can be generated for the machine a plan was made for
/// ([`crate::target::CpuTarget`]'s name and features).
pub fn target_machine(
    cpu: &str,
    features: &str,
    level: OptimizationLevel,
) -> Result<TargetMachine, LowerError> {
    Target::initialize_native(&InitializationConfig::default()).map_err(LowerError::Codegen)?;
    let triple = TargetMachine::get_default_triple();
    let target = Target::from_triple(&triple).map_err(|e| LowerError::Codegen(e.to_string()))?;
    target
        .create_target_machine(
            &triple,
            cpu,
            features,
            level,
            RelocMode::PIC,
            CodeModel::Default,
        )
        .ok_or_else(|| {
            LowerError::Codegen(format!(
                "no target machine for {} ({cpu})",
                triple.as_str().to_string_lossy()
            ))
        })
}

/// Sets the module's triple and data layout for `tm` and runs the LLVM
/// pipeline `default<O{level}>`.
pub fn optimize(module: &Module, tm: &TargetMachine, level: u8) -> Result<(), LowerError> {
    module.set_triple(&tm.get_triple());
    module.set_data_layout(&tm.get_target_data().get_data_layout());
    let pipeline = format!("default<O{}>", level.min(3));
    module
        .run_passes(&pipeline, tm, PassBuilderOptions::create())
        .map_err(|e| LowerError::Codegen(e.to_string()))
}

/// Writes the module as `what` to `path` (`-` = stdout).
pub fn emit(module: &Module, tm: &TargetMachine, what: Emit, path: &str) -> Result<(), LowerError> {
    let bytes: Vec<u8> = match what {
        Emit::LlvmIr => module.print_to_string().to_bytes().to_vec(),
        Emit::Asm | Emit::Object => {
            let ft = if what == Emit::Asm {
                FileType::Assembly
            } else {
                FileType::Object
            };
            tm.write_to_memory_buffer(module, ft)
                .map_err(|e| LowerError::Codegen(e.to_string()))?
                .as_slice()
                .to_vec()
        }
    };
    if path == "-" {
        use std::io::Write;
        let mut out = std::io::stdout().lock();
        match out.write_all(&bytes).and_then(|_| out.flush()) {
            // A reader that stopped early (`| head`) is not an error.
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
            r => r.map_err(|source| LowerError::Io {
                path: "<stdout>".into(),
                source,
            }),
        }
    } else {
        std::fs::write(Path::new(path), bytes).map_err(|source| LowerError::Io {
            path: path.into(),
            source,
        })
    }
}
