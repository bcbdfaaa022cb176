//! The check stage: the final schedule and every loop that will run in
//! parallel, re-checked by the independent legality checker
//! ([`crate::sched::verify`], [`crate::sched::verify_parallel`]) against
//! the exact dependences, before any IR is written; in debug and test
//! builds, also the loop tree ([`tree`]).

use crate::deps::Dependence;
use crate::sched::{describe_sample, verify, verify_parallel, ScheduleError};
use crate::math::{BasicRel, MathError};
use crate::scop::form::Form;
use crate::scop::model::{AccessKind, Scop, StmtId};
use crate::codegen::tree::promote::Promotion;
use crate::transform::Plan;

/// Why the checker turned a plan down.
pub(super) enum Rejected {
    /// The check could not finish (a limit, such as the time budget): the
    /// SCoP is left unchanged with a remark.
    Failed(String),
    /// The plan violates a dependence: a bug of the stage that made it,
    /// caught in time (the message, for a warning).
    Violation(String),
}

/// Checks `plan` against `deps`.
pub(super) fn run(scop: &Scop, deps: &[Dependence], plan: &Plan) -> Result<(), Rejected> {
    let failed = |e: ScheduleError| {
        Rejected::Failed(match e {
            // The error's own text would say "legality check failed" again.
            ScheduleError::Math(m) => format!("the legality check failed: {m}"),
            e => format!("the legality check failed: {e}"),
        })
    };
    let mut bad = verify(scop, deps, &plan.schedule).map_err(failed)?;
    for (k, d) in plan.dims.iter().enumerate() {
        if d.parallel && bad.is_empty() {
            // With `only`, the loops of the other statements stay
            // sequential: a dependence carried there must touch none of the
            // marked ones (its ends share every outer dimension, so they
            // share the loop).
            let mut found = verify_parallel(scop, deps, &plan.schedule, k).map_err(failed)?;
            if let Some(mask) = &d.only {
                found.retain(|v| mask[deps[v.dep].source.0] || mask[deps[v.dep].sink.0]);
            }
            bad.extend(found);
        }
    }
    // The other order of the partial register blocks (rows outside the
    // loop inside the tile) must be legal too.
    let mut rows_first = None;
    for &u in &plan.rows_first {
        if bad.is_empty() {
            bad = verify(scop, deps, &rows_swapped(plan, u)).map_err(failed)?;
            rows_first = Some(u);
        }
    }
    let Some(v) = bad.first() else {
        return Ok(());
    };
    let d = &deps[v.dep];
    let sample = v
        .sample
        .as_ref()
        .map(|p| format!(" (e.g. {})", describe_sample(scop, d, p)))
        .unwrap_or_default();
    let what = match (rows_first, v.level) {
        (Some(u), _) => format!(
            "breaks it in the partial register blocks that run row by row (dimension {u} outside {})",
            u - 1
        ),
        (None, Some(k)) if plan.dims[k].parallel => format!("carries it on parallel dimension {k}"),
        (None, Some(k)) => format!("breaks it at dimension {k}"),
        (None, None) => "runs source and sink at the same time".into(),
    };
    Err(Rejected::Violation(format!(
        "poly-opt: internal error: the transformed schedule violates the {:?} dependence {} -> {} on {}{sample}: it {what}; the SCoP is left unchanged",
        d.kind,
        scop.statements[d.source.0].name,
        scop.statements[d.sink.0].name,
        scop.arrays[d.array.0].name
    )))
}

/// `plan`'s schedule with dimensions `u - 1` and `u` swapped for every
/// statement: the order in which a register tile's partial blocks run when
/// `u` is one of [`Plan::rows_first`] (each row with its own loop over
/// `u - 1`). Those blocks run the instances of one iteration of the
/// dimensions outside `u - 1` in this order, every other block in the
/// plan's: when both schedules are legal, so is the code, since a
/// dependence between two iterations of those outer dimensions is ordered
/// by them in both, and one inside an iteration by whichever of the two
/// orders runs it.
fn rows_swapped(plan: &Plan, u: usize) -> crate::sched::Schedule {
    let mut schedule = plan.schedule.clone();
    for dims in &mut schedule.dims {
        if u < dims.len() {
            dims.swap(u - 1, u);
        }
    }
    schedule
}

/// The row dimensions of `plan`'s register tiles whose partial blocks may
/// run row by row ([`Plan::rows_first`]): those whose swapped schedule
/// ([`rows_swapped`]) the checker finds legal. A check that cannot finish
/// counts as a violation.
pub(super) fn rows_first(scop: &Scop, deps: &[Dependence], plan: &Plan) -> Vec<usize> {
    plan.register_tiles
        .iter()
        .map(|t| t.first)
        .filter(|&u| u >= 1 && verify(scop, deps, &rows_swapped(plan, u)).is_ok_and(|bad| bad.is_empty()))
        .collect()
}

/// Checks every promotion to shared memory: for each statement it
/// serves, every access to its array is a read (so the box copied at the
/// start of a step holds the values each read would see: no statement
/// under the cooperative loop writes the array, and the barriers order the
/// copies after the writes of earlier steps and of other loops), and at
/// every instance the cell read lies inside the box whose origin the
/// instance's schedule gives (`o(θ(i)) <= x <= o(θ(i)) + E - 1`): two sets
/// per access piece and dimension must be empty, `x < o` and
/// `x > o + E - 1`. The copy fills the cells of the box that lie inside the
/// array, so every read inside the array finds its value; a read outside
/// the array is undefined in the original program too (and may be what
/// the model allows only for parameter values the program never runs
/// with), so it is not checked. A failure is a bug of the promotion,
/// caught in time.
pub(super) fn promotions(scop: &Scop, plan: &Plan, promotions: &[Promotion]) -> Result<(), Rejected> {
    let failed = |e: MathError| Rejected::Failed(format!("the check of shared memory failed: {e}"));
    for p in promotions {
        let root = scop.root_of(&scop.arrays[p.array.0]).key();
        let name = &scop.arrays[p.array.0].name;
        for &s in &p.stmts {
            let st = &scop.statements[s];
            for (k, acc) in st.accesses.iter().enumerate() {
                if scop.root_of(&scop.arrays[acc.array.0]).key() != root {
                    continue;
                }
                let violation = |what: String| {
                    Rejected::Violation(format!(
                        "poly-opt: internal error: the shared-memory box of {name} {what} ({} {}); the SCoP is left unchanged",
                        st.name,
                        if acc.kind == AccessKind::Read { "reads it" } else { "writes it" }
                    ))
                };
                if acc.kind != AccessKind::Read {
                    return Err(violation("is written by a statement it serves".into()));
                }
                if !p.reads.contains(&scop.op_of(acc).key()) {
                    continue;
                }
                for piece in scop.access(StmtId(s), k).map_err(failed)? {
                    for (d, what) in box_sets(scop, plan, p, s, &piece).map_err(failed)? {
                        if !d.is_empty().map_err(failed)? {
                            return Err(violation(what));
                        }
                    }
                }
            }
        }
    }
    Ok(())
}

/// The two sets of [`promotions`] for one piece of an access relation of
/// statement `s` (columns `[params | iters | outputs | locals | 1]`),
/// widened with the statement's schedule locals, with what each means.
fn box_sets(
    scop: &Scop,
    plan: &Plan,
    p: &Promotion,
    s: usize,
    piece: &BasicRel,
) -> Result<Vec<(BasicRel, String)>, MathError> {
    let np = scop.params.len();
    let ni = scop.statements[s].iters.len();
    let rank = p.extent.len();
    let nl = piece.n_local();
    let ls = &plan.schedule.locals[s];
    let width = np + ni + rank + nl + ls.count + 1;
    let widen = |r: &[i64]| {
        let mut w = r[..r.len() - 1].to_vec();
        w.extend(std::iter::repeat_n(0, ls.count));
        w.push(r[r.len() - 1]);
        w
    };
    // A form over [params | iters | schedule locals | 1] in the widened
    // layout.
    let place = |f: &Form| -> Vec<i64> {
        let src = f.row(np, ni, ls.count);
        let mut r = vec![0i64; width];
        r[..np + ni].copy_from_slice(&src[..np + ni]);
        r[width - 1 - ls.count..width - 1].copy_from_slice(&src[np + ni..np + ni + ls.count]);
        r[width - 1] = src[np + ni + ls.count];
        r
    };
    let mut eqs: Vec<Vec<i64>> = piece.eqs().iter().map(|r| widen(r)).collect();
    let mut ineqs: Vec<Vec<i64>> = piece.ineqs().iter().map(|r| widen(r)).collect();
    eqs.extend(ls.eqs.iter().map(place));
    ineqs.extend(ls.ineqs.iter().map(place));
    let base = BasicRel::from_constraints(piece.space().clone(), nl + ls.count, eqs, ineqs)?;
    let mut out = Vec::new();
    for d in 0..rank {
        // o_d(θ(i)) over the widened layout.
        let o = &p.origin[d];
        let mut origin = vec![0i64; width];
        origin[..np].copy_from_slice(&o[..np]);
        origin[width - 1] = o[o.len() - 1];
        for k in 0..=p.coop {
            let c = o[np + k];
            if c != 0 {
                let theta = place(&plan.schedule.dims[s][k]);
                for (x, t) in origin.iter_mut().zip(&theta) {
                    *x = t.checked_mul(c).and_then(|v| x.checked_add(v)).ok_or(MathError::Overflow)?;
                }
            }
        }
        let x = np + ni + d;
        let mut sets: Vec<(Vec<i64>, String)> = Vec::new();
        // o - x - 1 >= 0
        let mut below: Vec<i64> = origin.clone();
        below[x] -= 1;
        below[width - 1] -= 1;
        sets.push((below, format!("misses cells below its origin along dimension {d}")));
        // x - o - E >= 0
        let mut above: Vec<i64> = origin.iter().map(|c| -c).collect();
        above[x] += 1;
        above[width - 1] -= p.extent[d];
        sets.push((above, format!("misses cells past its extent along dimension {d}")));
        for (row, what) in sets {
            let mut b = base.clone();
            b.add_ineq(row)?;
            out.push((b, what));
        }
    }
    Ok(out)
}

/// Most statement instances [`tree`] runs per parameter value.
#[cfg(debug_assertions)]
const TREE_CHECK_LIMIT: usize = 100_000;

/// Debug and test builds: the loop tree generated for `plan`, run as an
/// interpreter ([`interpret`]), must execute every statement instance of
/// `scop` exactly once: the same instances as the tree of the original
/// schedule, a much simpler scan. Code generation is exact for every value
/// of the parameters, so any values do; two are tried (all parameters 1,
/// then 6), each skipped past [`TREE_CHECK_LIMIT`] instances. `Err` says
/// what differs.
#[cfg(debug_assertions)]
pub(super) fn tree(scop: &Scop, plan: &Plan, tree: &crate::codegen::Tree) -> Result<(), String> {
    use crate::codegen::{generate, interpret, Tree};
    use crate::transform::original_plan;
    let original = original_plan(scop);
    let Ok(reference) = generate(scop, &original) else {
        return Ok(());
    };
    let values: &[i64] = if scop.params.is_empty() { &[0] } else { &[1, 6] };
    for &p in values {
        let params = vec![p; scop.params.len()];
        let run = |t: &Tree, n: usize| -> Option<Vec<(usize, Vec<i64>)>> {
            let mut seen = Vec::new();
            interpret(t, &params, n, TREE_CHECK_LIMIT, &mut |s, it| seen.push((s, it.to_vec())))
                .ok()?;
            seen.sort();
            Some(seen)
        };
        let Some(want) = run(&reference, original.dims.len()) else {
            continue;
        };
        let Some(got) = run(tree, plan.dims.len()) else {
            return Err(format!(
                "the generated loops run more than {TREE_CHECK_LIMIT} statement instances where the SCoP has {} (parameters = {p})",
                want.len()
            ));
        };
        if got != want {
            let missing = want.iter().find(|x| got.binary_search(x).is_err());
            let extra = got.iter().find(|x| want.binary_search(x).is_err());
            let name = |x: &(usize, Vec<i64>)| {
                let its: Vec<String> = x.1.iter().map(i64::to_string).collect();
                format!("{}[{}]", scop.statements[x.0].name, its.join(", "))
            };
            let what = match (missing, extra) {
                (Some(m), _) => format!("misses {}", name(m)),
                (None, Some(e)) => format!("runs {} outside its domain", name(e)),
                // Same instances, some of them more than once.
                (None, None) => "runs a statement instance twice".to_string(),
            };
            return Err(format!(
                "the generated loops run {} statement instances where the SCoP has {} (parameters = {p}): the code {what}",
                got.len(),
                want.len()
            ));
        }
    }
    Ok(())
}
