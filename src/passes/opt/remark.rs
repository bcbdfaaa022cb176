//! The remark of a rewritten SCoP: one phrase per thing done, in a fixed
//! order, composed from what the stages recorded (the plan's notes, the
//! loop tree's counts, what the printer built) and the options. Nothing
//! here decides; nothing reads a phrase back.

use super::machine::Machine;
use super::OptOptions;
use crate::codegen::emit::Emitted;

/// What a rewrite did, for its remark.
pub(super) struct Done<'a> {
    /// The SCoP's statements.
    pub statements: usize,
    /// The new loop tree's loops, parallel loops and guards.
    pub counts: (usize, usize, usize),
    /// The plan's notes ([`crate::transform::Plan::notes`]).
    pub plan_notes: &'a [String],
    /// What the printer built.
    pub emitted: &'a Emitted,
    /// The planner's notes on a fallback plan and on unroll-and-jam.
    pub fallback_note: Option<&'a str>,
    pub jam_note: Option<&'a str>,
    /// The machine (a CPU's target, or a GPU's promotions found and those
    /// left out, with why).
    pub machine: Machine<'a>,
    /// The statements whose multiplies stay apart from their adds under
    /// `contract` (chains along their innermost loop), by name.
    pub chains: Vec<&'a str>,
    /// The plan asks for the target's widest vectors.
    pub wide: bool,
    /// The emitted-code check's note.
    pub verify_note: Option<&'a str>,
}

/// `n thing` or `n things`.
fn counted(n: usize, thing: &str) -> String {
    format!("{n} {thing}{}", if n == 1 { "" } else { "s" })
}

/// `(n loop)` or `(n loops)`.
fn loops(n: usize) -> String {
    format!("({})", counted(n, "loop"))
}

/// The phrases of the remark of `d`, in order.
pub(super) fn phrases(d: &Done, options: &OptOptions) -> Vec<String> {
    let e = d.emitted;
    let (nloops, parallel, guards) = d.counts;
    let mut what = vec![format!(
        "{}, {} ({parallel} parallel), {}",
        counted(d.statements, "statement"),
        counted(nloops, "loop"),
        counted(guards, "guard")
    )];
    what.extend(d.plan_notes.iter().cloned());
    if e.hoisted_loops > 0 {
        what.push(format!(
            "block-invariant operands computed once per block row {}",
            loops(e.hoisted_loops)
        ));
    }
    if e.packed_loops > 0 {
        what.push(format!(
            "row-invariant operands packed once per tile {}",
            loops(e.packed_loops)
        ));
    }
    if e.scalar_loops > 0 {
        what.push(format!(
            "innermost loops across a recurrence run scalar: vectorized, their strided \
             accesses would be slow gathers and scatters {}",
            loops(e.scalar_loops)
        ));
    }
    what.extend(d.fallback_note.map(str::to_string));
    what.extend(d.jam_note.map(str::to_string));
    if !e.launches.is_empty() {
        what.push(format!(
            "{}: {}",
            counted(e.launches.len(), "kernel"),
            e.launches.join(", ")
        ));
    }
    if !e.copies.is_empty() {
        what.push(e.copies.clone());
    }
    if let (Machine::Gpu(g), false) = (d.machine, e.launches.is_empty()) {
        let found = g.shared;
        let (boxes, bytes) = &e.shared;
        let not = if found.not.is_empty() {
            String::new()
        } else {
            format!("; not: {}", found.not.join(", "))
        };
        if !boxes.is_empty() {
            what.push(format!(
                "shared memory per block: {} ({bytes} bytes, copied at each step of the block's loop){not}",
                boxes.join(", ")
            ));
        } else if !options.gpu_shared {
            what.push("no shared memory (gpu-shared=false)".into());
        } else if !found.not.is_empty() {
            what.push(format!("no shared memory: {}", found.not.join(", ")));
        }
    }
    if let (Machine::Gpu(_), false) = (d.machine, e.launches.is_empty()) {
        what.push(if !e.kernel_registers.is_empty() {
            format!(
                "per-thread registers across a thread's sequential loop: {}",
                e.kernel_registers.join(", ")
            )
        } else if !options.scalar_replace {
            "no per-thread registers (scalar-replace=false)".into()
        } else {
            "no per-thread registers (no cell stays fixed along a thread's sequential loop)".into()
        });
    }
    if options.verify {
        what.push(match d.machine {
            Machine::Gpu(_) => "legality and every block and thread loop verified".into(),
            Machine::Cpu(_) => "legality verified".into(),
        });
    }
    if options.contract {
        what.push(if d.chains.is_empty() {
            "multiply-adds may be fused (contract)".into()
        } else {
            format!(
                "multiply-adds may be fused (contract), except in {}: a chain along {} innermost loop",
                d.chains.join(", "),
                if d.chains.len() == 1 { "its" } else { "their" }
            )
        });
    }
    match d.machine {
        Machine::Cpu(target) => {
            if d.wide {
                let bits = target.vector_bits;
                what.push(format!(
                    "register tiles in {bits}-bit vectors (prefer-vector-width={bits} on the function)"
                ));
            }
            what.push(format!("target {target}"));
        }
        Machine::Gpu(_) => what.push(format!("target gpu {}", options.gpu_chip)),
    }
    what.extend(d.verify_note.map(str::to_string));
    what
}

#[cfg(test)]
mod tests {
    use super::{phrases, Done, Machine};
    use crate::codegen::emit::Emitted;
    use crate::passes::OptOptions;
    use crate::target::CpuTarget;

    fn done<'a>(emitted: &'a Emitted, notes: &'a [String], target: &'a CpuTarget) -> Done<'a> {
        Done {
            statements: 1,
            counts: (10, 2, 0),
            plan_notes: notes,
            emitted,
            fallback_note: None,
            jam_note: None,
            machine: Machine::Cpu(target),
            chains: Vec::new(),
            wide: false,
            verify_note: None,
        }
    }

    #[test]
    fn phrases_in_order_with_counts_and_plurals() {
        let target = CpuTarget::preset("znver4").expect("a preset");
        let notes = vec!["register tile 8x16".to_string()];
        let emitted = Emitted {
            hoisted_loops: 1,
            packed_loops: 2,
            ..Emitted::default()
        };
        let options = OptOptions::default();
        let what = phrases(&done(&emitted, &notes, &target), &options);
        assert_eq!(what[0], "1 statement, 10 loops (2 parallel), 0 guards");
        assert_eq!(what[1], "register tile 8x16");
        assert_eq!(
            what[2],
            "block-invariant operands computed once per block row (1 loop)"
        );
        assert_eq!(what[3], "row-invariant operands packed once per tile (2 loops)");
        assert_eq!(what.len(), 6, "{what:?}");
        assert_eq!(what[4], "legality verified");
        assert!(what[5].starts_with("target znver4 ("), "{}", what[5]);
    }

    #[test]
    fn contract_names_the_chains() {
        let target = CpuTarget::preset("znver3").expect("a preset");
        let emitted = Emitted::default();
        let options = OptOptions {
            contract: true,
            verify: false,
            ..OptOptions::default()
        };
        let mut d = done(&emitted, &[], &target);
        d.chains = vec!["S0", "S2"];
        d.wide = true;
        d.verify_note = Some("emitted code re-checked by interpretation (7 operations)");
        let what = phrases(&d, &options);
        assert_eq!(
            what[1],
            "multiply-adds may be fused (contract), except in S0, S2: a chain along their innermost loop"
        );
        assert_eq!(
            what[2],
            "register tiles in 256-bit vectors (prefer-vector-width=256 on the function)"
        );
        assert_eq!(what.last().map(String::as_str), d.verify_note);
    }
}
