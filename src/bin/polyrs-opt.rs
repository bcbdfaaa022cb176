//! `polyrs-opt`: the mlir-opt driver with every upstream dialect and pass and
//! the polyrs passes. Command line, diagnostics and exit codes are MLIR's own
//! (`MlirOptMain`); run `polyrs-opt --help`.

fn main() {
    // A closed output pipe (`polyrs-opt f.mlir | head -1`) ends the process
    // quietly, as for any C tool, instead of an I/O error report.
    #[cfg(unix)]
    reset_sigpipe();
    polyrs::install_panic_hook();
    let args: Vec<String> = std::env::args().collect();
    if let Err(message) = polyrs::driver::check_args(&args) {
        eprintln!("{message}");
        std::process::exit(1);
    }
    std::process::exit(polyrs::passes::opt_main(&args));
}

#[cfg(unix)]
fn reset_sigpipe() {
    extern "C" {
        fn signal(signum: i32, handler: usize) -> usize;
    }
    const SIGPIPE: i32 = 13;
    const SIG_DFL: usize = 0;
    // SAFETY: restoring the default disposition of SIGPIPE before any thread
    // starts is sound.
    unsafe {
        signal(SIGPIPE, SIG_DFL);
    }
}
