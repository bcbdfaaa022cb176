//! Bindings to `cpp/shim.cpp`: pass registration with options, diagnostics
//! with notes, the side-effect query, and the mlir-opt main loop.
//!
//! The pass descriptors handed to C++ are built once from the [`Hooks`] the
//! registry gives (`crate::passes` builds them from its table; this module
//! imports nothing above it) and live for the rest of the process (MLIR's
//! pass registry keeps pointers into them).

use std::ffi::{c_char, c_int, CStr, CString};
use std::sync::OnceLock;

use mlir_sys::{MlirLocation, MlirOperation};

use crate::ffi::ir::Op;

/// The type of a pass option, as declared in Passes.td.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OptionKind {
    /// `bool`.
    Bool,
    /// A signed integer.
    Int,
    /// An unsigned integer.
    UInt,
    /// `std::string`.
    String,
    /// `ListOption<int64_t>`.
    IntList,
}

/// One option of a pass.
#[derive(Debug)]
pub struct OptionDef {
    /// The option name on the command line (`tile-sizes`).
    pub argument: &'static str,
    /// The value type.
    pub kind: OptionKind,
    /// The default value as text ("" when there is none).
    pub default: &'static str,
    /// The help text, with the default appended.
    pub help: &'static str,
}

/// A pass as the shim registers it.
#[derive(Debug)]
pub struct PassInfo {
    /// The pass argument (`poly-detect-scops`).
    pub argument: &'static str,
    /// The TableGen def name (`DetectScops`).
    pub name: &'static str,
    /// One-line summary.
    pub summary: &'static str,
    /// The anchor operation name; "" for any operation.
    pub op_name: &'static str,
    /// The options.
    pub options: &'static [OptionDef],
}

/// The passes to register and the entry points C++ calls back into: run
/// pass `k` on an operation with its options' text (false: the pass
/// failed), and check an options' text (`Err`: the message).
pub struct Hooks {
    /// The passes, in the order the callbacks' indices refer to.
    pub passes: Vec<PassInfo>,
    /// Runs pass `k`.
    pub run: fn(usize, Op, &str) -> bool,
    /// Checks the options of pass `k`.
    pub validate: fn(usize, &str) -> Result<(), String>,
}

/// The hooks, given once, by the first registration.
static HOOKS: OnceLock<Hooks> = OnceLock::new();

/// One pass option as C++ sees it (`PolyrsPassOption`).
#[repr(C)]
struct CPassOption {
    argument: *const c_char,
    help: *const c_char,
    kind: i32,
    default_value: *const c_char,
}

/// One pass as C++ sees it (`PolyrsPassInfo`).
#[repr(C)]
struct CPassInfo {
    argument: *const c_char,
    name: *const c_char,
    summary: *const c_char,
    op_name: *const c_char,
    options: *const CPassOption,
    num_options: usize,
}

/// The entry points C++ calls back into (`PolyrsCallbacks`).
#[repr(C)]
#[derive(Clone, Copy)]
struct Callbacks {
    run: extern "C" fn(usize, MlirOperation, *const c_char) -> bool,
    validate: extern "C" fn(usize, *const c_char) -> *const c_char,
}

extern "C" {
    fn polyrsRegisterPasses(passes: *const CPassInfo, num_passes: usize, cb: Callbacks);
    fn polyrsEmitDiagnostic(
        loc: MlirLocation,
        severity: i32,
        message: *const c_char,
        note_loc: MlirLocation,
        note: *const c_char,
    );
    fn polyrsIsMemoryEffectFree(op: MlirOperation) -> bool;
    fn polyrsIsValidSymbol(v: mlir_sys::MlirValue) -> bool;
    fn polyrsSimplifyAffine(ops: *mut MlirOperation, n: usize) -> usize;
    fn polyrsSetCInterface(module: MlirOperation);
    fn polyrsCarryLoopAnnotations(module: MlirOperation, stage: i32);
    fn polyrsInstrumentCalls(
        module: MlirOperation,
        callee: *const c_char,
        start: *const c_char,
        stop: *const c_char,
    ) -> usize;
    fn polyrsOptMain(
        argc: c_int,
        argv: *mut *mut c_char,
        passes: *const CPassInfo,
        num_passes: usize,
        cb: Callbacks,
    ) -> c_int;
}

/// Owns the C strings and arrays behind the descriptors.
struct Descriptors {
    _strings: Vec<CString>,
    _options: Vec<Vec<CPassOption>>,
    passes: Vec<CPassInfo>,
}

// SAFETY: the descriptors are immutable after construction and only hold
// pointers into the strings and vectors owned by the same struct.
unsafe impl Send for Descriptors {}
unsafe impl Sync for Descriptors {}

fn cstring(s: &str) -> CString {
    // Pass names and help texts come from Passes.td and contain no NUL.
    CString::new(s.replace('\0', " ")).unwrap_or_default()
}

/// The descriptors, built on first use from the hooks (given by `hooks`
/// unless an earlier registration gave them).
fn descriptors(hooks: impl FnOnce() -> Hooks) -> &'static Descriptors {
    static DESCRIPTORS: OnceLock<Descriptors> = OnceLock::new();
    let h = HOOKS.get_or_init(hooks);
    DESCRIPTORS.get_or_init(|| build_descriptors(&h.passes))
}

fn build_descriptors(defs: &[PassInfo]) -> Descriptors {
    let mut strings = Vec::new();
    let mut keep = |s: &str| {
        let c = cstring(s);
        let p = c.as_ptr();
        strings.push(c);
        p
    };
    let mut options = Vec::new();
    let mut passes = Vec::new();
    for def in defs {
        let opts: Vec<CPassOption> = def
            .options
            .iter()
            .map(|o| CPassOption {
                argument: keep(o.argument),
                help: keep(o.help),
                kind: match o.kind {
                    OptionKind::Bool => 0,
                    OptionKind::Int => 1,
                    OptionKind::UInt => 2,
                    OptionKind::String => 3,
                    OptionKind::IntList => 4,
                },
                default_value: keep(o.default),
            })
            .collect();
        passes.push(CPassInfo {
            argument: keep(def.argument),
            name: keep(def.name),
            summary: keep(def.summary),
            op_name: keep(def.op_name),
            options: opts.as_ptr(),
            num_options: opts.len(),
        });
        // Moving the Vec into `options` keeps its heap buffer in place.
        options.push(opts);
    }
    Descriptors {
        _strings: strings,
        _options: options,
        passes,
    }
}

fn callbacks() -> Callbacks {
    Callbacks {
        run: run_callback,
        validate: validate_callback,
    }
}

extern "C" fn run_callback(index: usize, op: MlirOperation, options: *const c_char) -> bool {
    // SAFETY: C++ passes a NUL-terminated string that outlives this call.
    let text = unsafe { CStr::from_ptr(options) }
        .to_string_lossy()
        .into_owned();
    match HOOKS.get() {
        Some(h) => (h.run)(index, Op::from_raw(op), &text),
        None => false,
    }
}

extern "C" fn validate_callback(index: usize, options: *const c_char) -> *const c_char {
    thread_local! {
        static LAST_ERROR: std::cell::RefCell<CString> = std::cell::RefCell::new(CString::default());
    }
    // SAFETY: C++ passes a NUL-terminated string that outlives this call.
    let text = unsafe { CStr::from_ptr(options) }
        .to_string_lossy()
        .into_owned();
    let checked = match HOOKS.get() {
        Some(h) => (h.validate)(index, &text),
        None => Err("polyrs: no passes registered".to_string()),
    };
    match checked {
        Ok(()) => std::ptr::null(),
        Err(message) => LAST_ERROR.with(|slot| {
            *slot.borrow_mut() = cstring(&message);
            slot.borrow().as_ptr()
        }),
    }
}

/// Registers the passes of `hooks` with MLIR's global pass registry.
pub fn register_passes(hooks: impl FnOnce() -> Hooks) {
    let d = descriptors(hooks);
    // SAFETY: the descriptors live for the rest of the process.
    unsafe { polyrsRegisterPasses(d.passes.as_ptr(), d.passes.len(), callbacks()) }
}

/// Diagnostic severities understood by [`emit`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    /// An error: the pass fails.
    Error,
    /// A warning.
    Warning,
    /// A remark: information for the user.
    Remark,
}

/// Emits a diagnostic at `loc` through the context's diagnostic engine, with an
/// optional note at another location.
pub fn emit(
    loc: crate::ffi::ir::Loc,
    severity: Severity,
    message: &str,
    note: Option<(crate::ffi::ir::Loc, &str)>,
) {
    let message = cstring(message);
    let sev = match severity {
        Severity::Error => 0,
        Severity::Warning => 1,
        Severity::Remark => 2,
    };
    let (note_loc, note_text) = match note {
        Some((l, t)) => (l.to_raw(), Some(cstring(t))),
        None => (loc.to_raw(), None),
    };
    let note_ptr = note_text.as_ref().map_or(std::ptr::null(), |n| n.as_ptr());
    // SAFETY: the locations are live handles; the strings outlive the call.
    unsafe { polyrsEmitDiagnostic(loc.to_raw(), sev, message.as_ptr(), note_loc, note_ptr) }
}

/// True when `op` and everything nested in it have no memory effects
/// (`mlir::isMemoryEffectFree`).
pub fn is_memory_effect_free(op: crate::ffi::ir::Op) -> bool {
    // SAFETY: `op` is a live operation.
    unsafe { polyrsIsMemoryEffectFree(op.to_raw()) }
}

/// True when `v` may be a symbol of an affine map (`mlir::affine::isValidSymbol`).
pub fn is_valid_symbol(v: crate::ffi::ir::Val) -> bool {
    // SAFETY: `v` is a live value.
    unsafe { polyrsIsValidSymbol(v.to_raw()) }
}

/// Canonicalizes `ops` and the operations nested in them with the affine
/// patterns (folds `affine.apply` into the maps that use it, folds
/// constants, promotes single-iteration loops); nothing else is touched.
/// The operations it erases (a promoted loop, a folded apply) leave `ops`.
pub fn simplify_affine(ops: &mut Vec<crate::ffi::ir::Op>) {
    let mut raw: Vec<MlirOperation> = ops.iter().map(|o| o.to_raw()).collect();
    // SAFETY: live operations; the array outlives the call, which keeps
    // its first `kept` entries (the surviving operations, in order).
    let kept = unsafe { polyrsSimplifyAffine(raw.as_mut_ptr(), raw.len()) };
    raw.truncate(kept);
    *ops = raw.into_iter().map(crate::ffi::ir::Op::from_raw).collect();
}

/// Marks every function with a body in `module` with `llvm.emit_c_interface`.
pub fn set_c_interface(module: crate::ffi::ir::Op) {
    // SAFETY: `module` is a live operation; the shim only adds attributes.
    unsafe { polyrsSetCInterface(module.to_raw()) }
}

/// A step of carrying the `llvm.loop_annotation` of `affine.for` loops
/// through the CPU lowering to the loops' back edges (see the shim's
/// `polyrsCarryLoopAnnotations`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoopAnnotations {
    /// Before `lower-affine`: into the loops' locations.
    Stash,
    /// After it: back onto the `scf.for` loops.
    Restore,
    /// In the LLVM dialect: onto the back edges' own `loop_annotation`.
    Attach,
}

/// Runs `step` on `module`.
pub fn carry_loop_annotations(module: crate::ffi::ir::Op, step: LoopAnnotations) {
    let stage = match step {
        LoopAnnotations::Stash => 0,
        LoopAnnotations::Restore => 1,
        LoopAnnotations::Attach => 2,
    };
    // SAFETY: `module` is a live operation; the shim only edits attributes
    // and locations of the operations nested in it.
    unsafe { polyrsCarryLoopAnnotations(module.to_raw(), stage) }
}

/// Surrounds every `func.call @callee` in `module` with calls to the
/// argument-less functions `start` and `stop` (declared if missing); returns
/// the number of call sites.
pub fn instrument_calls(
    module: crate::ffi::ir::Op,
    callee: &str,
    start: &str,
    stop: &str,
) -> usize {
    let (callee, start, stop) = (cstring(callee), cstring(start), cstring(stop));
    // SAFETY: `module` is a live operation; the strings outlive the call.
    unsafe {
        polyrsInstrumentCalls(
            module.to_raw(),
            callee.as_ptr(),
            start.as_ptr(),
            stop.as_ptr(),
        )
    }
}

/// Runs MLIR's `MlirOptMain` with all upstream dialects and passes and the
/// passes of `hooks` registered; returns the process exit code.
pub fn opt_main(args: &[String], hooks: impl FnOnce() -> Hooks) -> i32 {
    let owned: Vec<CString> = args.iter().map(|a| cstring(a)).collect();
    let mut argv: Vec<*mut c_char> = owned.iter().map(|a| a.as_ptr() as *mut c_char).collect();
    argv.push(std::ptr::null_mut());
    let d = descriptors(hooks);
    // SAFETY: argv is a NULL-terminated array of NUL-terminated strings that
    // outlive the call; LLVM's command line parser does not write through it.
    unsafe {
        polyrsOptMain(
            owned.len() as c_int,
            argv.as_mut_ptr(),
            d.passes.as_ptr(),
            d.passes.len(),
            callbacks(),
        )
    }
}
