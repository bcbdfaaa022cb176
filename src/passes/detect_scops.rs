//! `poly-detect-scops`: reports the static control parts of a function.
//!
//! One remark per SCoP at its first operation, one per rejected outermost loop
//! nest with a note at the operation that breaks it. Never changes the IR.

use crate::ffi::ir::Op;
use crate::ffi::shim::{emit, Severity};
use crate::scop::detect::detect;

use super::{DetectScopsOptions, PassError};

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// Runs the pass on one function.
pub fn run(func: Op, options: &DetectScopsOptions) -> Result<(), PassError> {
    let min_depth = usize::try_from(options.min_depth).unwrap_or(usize::MAX);
    let found = detect(func, min_depth);
    if options.report_rejected {
        for r in &found.rejections {
            // The note points at the culprit unless it is the nest itself.
            let note = format!("'{}' breaks the static control part here", r.culprit.name());
            let note = (r.culprit.key() != r.nest.key()).then(|| (r.culprit.loc(), note.as_str()));
            emit(
                r.nest.loc(),
                Severity::Remark,
                &format!("loop nest is not a static control part: {}", r.reason),
                note,
            );
        }
    }
    for s in &found.scops {
        emit(
            s.ops[0].loc(),
            Severity::Remark,
            &format!(
                "static control part: {}, depth {}, {}, {}",
                plural(s.nests, "loop nest"),
                s.depth,
                plural(s.statements, "statement"),
                plural(s.parameters, "parameter")
            ),
            None,
        );
    }
    Ok(())
}
