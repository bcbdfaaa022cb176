//! `polyrs-runner`: JIT-runs the entry function of an MLIR module (like
//! mlir-runner) with the runner-utils printing helpers and the OpenMP runtime
//! loaded; `--time=FUNC` reports the wall time of the calls to one function.
//! GPU programs run on the GPU (`--gpu=cuda`) or on the CPU
//! (`--gpu=emulate`).

use polyrs::cli::{help, parse, Flag};
use polyrs::lower::jit::{run, GpuMode, RunOptions};
use polyrs::lower::{Compiler, CpuOptions};

const FLAGS: &[Flag] = &[
    Flag {
        name: "e",
        takes_value: true,
        help: "entry function, no arguments or results (default: main)",
    },
    Flag {
        name: "time",
        takes_value: true,
        help: "time every call to this function (default: off)",
    },
    Flag {
        name: "repeat",
        takes_value: true,
        help: "run the entry function N times (default: 1; 5 with --time)",
    },
    Flag {
        name: "min-time",
        takes_value: true,
        help: "with --time: after --repeat runs, run again until the timed calls add up to \
               this many seconds (at most 4x that in wall time, setup included, and 200 runs) \
               (default: off)",
    },
    Flag {
        name: "threads",
        takes_value: true,
        help: "OpenMP threads, sets OMP_NUM_THREADS (default: inherited)",
    },
    Flag {
        name: "reuse-memory",
        takes_value: false,
        help: "each run of the entry function gets back the blocks the previous runs freed \
               (malloc/free of the JIT-compiled code through a cache by size): arrays keep their \
               pages from run to run, as in a program that allocates once (default: off, every \
               run's arrays are fresh memory)",
    },
    Flag {
        name: "no-openmp",
        takes_value: false,
        help: "lower parallel loops sequentially (default: OpenMP)",
    },
    polyrs::cli::NO_RANGE_MINMAX,
    Flag {
        name: "shared-libs",
        takes_value: true,
        help: "extra shared libraries, comma-separated (default: none)",
    },
    Flag {
        name: "gpu",
        takes_value: true,
        help: "where the kernels of a GPU program (poly-opt{target=gpu}) run: cuda (the GPU, \
               through the NVIDIA driver loaded at run time) or emulate (the CPU: the program as \
               built for the GPU, kernels compiled for the host, device memory checked and \
               poisoned) (default: cuda)",
    },
    Flag {
        name: "gpu-chip",
        takes_value: true,
        help: "the NVIDIA GPU the kernels are compiled for (default: sm_90)",
    },
    Flag {
        name: "emulate-order",
        takes_value: true,
        help: "with --gpu=emulate: the order of a launch's blocks and threads (and of the \
               threads' turns between barriers), reverse or forward (default: reverse, the \
               opposite of the loops' order)",
    },
    Flag {
        name: "O",
        takes_value: true,
        help: "JIT optimization level 0-3, as -O3 (default: 3)",
    },
    Flag {
        name: "help",
        takes_value: false,
        help: "print this help",
    },
];

const USAGE: &str = "polyrs-runner: JIT-run an MLIR module on the host CPU\n\n\
Usage: polyrs-runner [options] <input.mlir | ->";

fn main() {
    std::process::exit(match main_inner() {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("polyrs-runner: {e}");
            1
        }
    });
}

fn main_inner() -> Result<(), String> {
    polyrs::install_panic_hook();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let p = parse(&args, FLAGS)?;
    if p.has("help") {
        print!("{}", help(USAGE, FLAGS));
        return Ok(());
    }
    let input = p.single_input()?;
    let time = p.value("time").map(str::to_string);
    let repeat: usize = match p.value("repeat") {
        Some(r) => r
            .parse()
            .ok()
            .filter(|&n| n > 0)
            .ok_or_else(|| format!("invalid --repeat '{r}'"))?,
        None if time.is_some() => 5,
        None => 1,
    };
    if let Some(t) = p.value("threads") {
        let n: usize = t
            .parse()
            .ok()
            .filter(|&n| n > 0)
            .ok_or_else(|| format!("invalid --threads '{t}'"))?;
        // Set before the OpenMP runtime is loaded by the JIT.
        std::env::set_var("OMP_NUM_THREADS", n.to_string());
    }
    let min_time = match p.value("min-time") {
        Some(m) => Some(
            m.parse::<f64>()
                .ok()
                .filter(|s| (0.0..=3600.0).contains(s))
                .map(std::time::Duration::from_secs_f64)
                .ok_or_else(|| format!("invalid --min-time '{m}'"))?,
        ),
        None => None,
    };
    let opt_level: u8 = p.opt_level()?;
    let gpu = match p.value("gpu").unwrap_or("cuda") {
        "cuda" => GpuMode::Cuda,
        "emulate" => GpuMode::Emulate,
        other => {
            return Err(format!(
                "invalid value '{other}' for --gpu: expected cuda or emulate"
            ))
        }
    };
    match p.value("emulate-order").unwrap_or("reverse") {
        "reverse" => polyrs::lower::emu::set_forward_order(false),
        "forward" => polyrs::lower::emu::set_forward_order(true),
        other => {
            return Err(format!(
                "invalid value '{other}' for --emulate-order: expected reverse or forward"
            ))
        }
    }
    let opts = RunOptions {
        entry: p.value("e").unwrap_or("main").to_string(),
        time,
        repeat,
        min_time,
        opt_level,
        libs: p
            .value("shared-libs")
            .map(|s| s.split(',').map(str::to_string).collect())
            .unwrap_or_default(),
        cpu: CpuOptions {
            openmp: !p.has("no-openmp"),
            c_interface: true,
            range_minmax: !p.has("no-range-minmax"),
        },
        gpu,
        gpu_chip: p.value("gpu-chip").unwrap_or("sm_90").to_string(),
        reuse_memory: p.has("reuse-memory"),
    };
    let compiler = Compiler::new();
    let mut module = compiler.parse_file(&input).map_err(|e| e.to_string())?;
    let timing = run(&compiler, &mut module, &opts).map_err(|e| e.to_string())?;
    if let Some(t) = timing {
        use std::io::Write;
        let _ = std::io::stdout().flush();
        eprintln!(
            "polyrs-runner: time {} calls={} min={:.6}s median={:.6}s",
            t.function,
            t.samples.len(),
            t.min().as_secs_f64(),
            t.median().as_secs_f64()
        );
    }
    Ok(())
}
