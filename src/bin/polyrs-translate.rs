//! `polyrs-translate`: lowers an MLIR module (affine, scf, parallel loops) to
//! LLVM IR, assembly or an object file for the host CPU (or a named one), optimized at O3 by
//! LLVM's pass builder. Parallel loops become OpenMP.

use polyrs::cli::{help, parse, Flag};
use polyrs::lower::native::{emit, optimize, target_machine, Emit};
use polyrs::lower::{Compiler, CpuOptions, KernelFormat, LowerError};
use polyrs::target::CpuTarget;

const FLAGS: &[Flag] = &[
    Flag {
        name: "emit",
        takes_value: true,
        help: "llvm | asm | obj | ptx (default: llvm); for a module with gpu.launch (poly-opt{target=gpu}), llvm/asm/obj are the host code with the kernels' PTX embedded, and ptx prints the kernels' PTX",
    },
    Flag {
        name: "gpu-chip",
        takes_value: true,
        help: "the NVIDIA GPU the kernels are compiled for (default: sm_90)",
    },
    Flag {
        name: "o",
        takes_value: true,
        help: "output file, - for stdout (default: -)",
    },
    Flag {
        name: "no-openmp",
        takes_value: false,
        help: "lower parallel loops sequentially (default: OpenMP)",
    },
    polyrs::cli::NO_RANGE_MINMAX,
    Flag {
        name: "c-interface",
        takes_value: false,
        help: "add C entry points _mlir_ciface_<fn> for every function (default: off)",
    },
    Flag {
        name: "cpu",
        takes_value: true,
        help: "the CPU to generate code for: host or a preset of poly-opt's cpu option (default: host)",
    },
    Flag {
        name: "O",
        takes_value: true,
        help: "LLVM optimization level 0-3, as -O3 (default: 3)",
    },
    Flag {
        name: "help",
        takes_value: false,
        help: "print this help",
    },
];

const USAGE: &str = "polyrs-translate: MLIR (affine/scf/parallel, gpu.launch) -> LLVM IR, assembly or object for the host CPU or --cpu, PTX for the kernels\n\n\
Usage: polyrs-translate [options] <input.mlir | ->";

fn main() {
    std::process::exit(match run() {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("polyrs-translate: {e}");
            1
        }
    });
}

fn run() -> Result<(), String> {
    polyrs::install_panic_hook();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let p = parse(&args, FLAGS)?;
    if p.has("help") {
        print!("{}", help(USAGE, FLAGS));
        return Ok(());
    }
    let what = match p.value("emit").unwrap_or("llvm") {
        "llvm" => Emit::LlvmIr,
        "asm" => Emit::Asm,
        "obj" => Emit::Object,
        "ptx" => {
            return translate_ptx(
                &p.single_input()?,
                p.value("o").unwrap_or("-"),
                p.value("gpu-chip").unwrap_or("sm_90"),
            )
            .map_err(|e| e.to_string())
        }
        other => {
            return Err(format!(
                "invalid value '{other}' for --emit: expected llvm, asm, obj or ptx"
            ))
        }
    };
    let level: u8 = p.opt_level()?;
    let input = p.single_input()?;
    let out = p.value("o").unwrap_or("-").to_string();
    let cpu = CpuTarget::named(p.value("cpu").unwrap_or("host")).map_err(|e| e.to_string())?;
    let opts = CpuOptions {
        openmp: !p.has("no-openmp"),
        c_interface: p.has("c-interface"),
        range_minmax: !p.has("no-range-minmax"),
    };
    let chip = p.value("gpu-chip").unwrap_or("sm_90").to_string();
    translate(&input, &out, what, level, &opts, &cpu, &chip).map_err(|e| e.to_string())
}

/// Prints the PTX of every kernel module of `input` (a module with
/// `gpu.launch`), each after a line `// gpu.module @NAME`.
fn translate_ptx(input: &str, out: &str, chip: &str) -> Result<(), LowerError> {
    let compiler = Compiler::new();
    let mut module = compiler.parse_file(input)?;
    compiler.lower_gpu(&mut module, chip, KernelFormat::Ptx, false)?;
    // One PTX module per kernel module, each after a line naming it (ptxas
    // takes one module per file: split at these lines).
    let text: String = polyrs::lower::ptx_of(&module)
        .into_iter()
        .map(|(name, ptx)| format!("// gpu.module @{name}\n{ptx}"))
        .collect();
    if out == "-" {
        print!("{text}");
        Ok(())
    } else {
        std::fs::write(out, text).map_err(|source| LowerError::Io {
            path: out.to_string(),
            source,
        })
    }
}

fn translate(
    input: &str,
    out: &str,
    what: Emit,
    level: u8,
    opts: &CpuOptions,
    cpu: &CpuTarget,
    chip: &str,
) -> Result<(), LowerError> {
    let compiler = Compiler::new();
    let mut module = compiler.parse_file(input)?;
    if polyrs::lower::has_gpu_code(&module) {
        compiler.lower_gpu(&mut module, chip, KernelFormat::Ptx, opts.c_interface)?;
    } else {
        compiler.lower_to_llvm_dialect(&mut module, opts)?;
    }
    let llvm = inkwell::context::Context::create();
    let ir = compiler.translate(&module, &llvm)?;
    let cg_level = match level {
        0 => inkwell::OptimizationLevel::None,
        1 => inkwell::OptimizationLevel::Less,
        2 => inkwell::OptimizationLevel::Default,
        _ => inkwell::OptimizationLevel::Aggressive,
    };
    let tm = target_machine(&cpu.name, &cpu.features, cg_level)?;
    optimize(&ir, &tm, level)?;
    if opts.range_minmax && cpu.has_range() {
        // SAFETY: the module is live and used by nothing else meanwhile.
        unsafe { polyrs::lower::minmax::range_minmax(ir.as_mut_ptr()) };
    }
    emit(&ir, &tm, what, out)
}
