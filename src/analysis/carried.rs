//! Whether a schedule dimension carries a dependence: "may the loop over
//! dimension `k` run its iterations in any order", for the heuristics that
//! pick loop orders, distribute statements and weigh parallel loops.
//!
//! The route is relational, unlike the checker's: each statement's schedule
//! becomes a map `S[i] -> [t]` (its tile coordinates existential), each
//! dependence piece `S[i] -> T[j]` is carried into schedule space by
//! composition, `[t] -> [t'] = σ_S⁻¹ ; D ; σ_T`, and its distance set
//! `{ t' - t }` (the math core's `deltas`) is tested: dimension `k` carries
//! the dependence when some distance is zero before `k` and not zero at `k`.
//! The checker ([`crate::sched::verify_parallel`]) instead lays the source's
//! and the sink's schedule forms out by hand over the dependence's columns
//! and tests the differences; the two agree on every exact input, and debug
//! builds compare them on every question a heuristic asks ([`carries`]).

use crate::deps::Dependence;
use crate::math::{BasicRel, MathError, Space, Tuple};
use crate::sched::Schedule;
use crate::scop::form::Form;
use crate::scop::model::{insert_zeros, Model};

/// Whether dimension `k` of `schedule` carries some dependence of `deps`:
/// an instance pair at distance zero on the dimensions before `k` and not
/// zero at `k`. A loop over a dimension that carries none may run its
/// iterations in any order. Stops at the first dependence piece found.
///
/// Debug and test builds ask the checker too
/// ([`crate::sched::verify_parallel`]) and assert that both answer alike
/// (unless either meets a limit of the math core): the two routes must
/// agree on every exact input, so a disagreement is a bug in one of them,
/// reported at the pass boundary as an internal error.
pub fn carries(
    scop: &Model,
    deps: &[Dependence],
    schedule: &Schedule,
    k: usize,
) -> Result<bool, MathError> {
    let ours = first_in(scop, deps, schedule, k..k + 1, &[1, -1]);
    #[cfg(debug_assertions)]
    if let (Ok(ours), Ok(checker)) = (
        &ours,
        crate::sched::verify_parallel(scop, deps, schedule, k),
    ) {
        assert_eq!(
            *ours,
            !checker.is_empty(),
            "the carried-dependence analysis and the checker disagree on dimension {k}"
        );
    }
    ours
}

/// Whether some dependence of `deps` has an instance pair at distance
/// zero on every dimension of `schedule` before `k`: one that the loops
/// before `k` leave to the loops from `k` on (or to the statements' order).
pub fn unordered_before(
    scop: &Model,
    deps: &[Dependence],
    schedule: &Schedule,
    k: usize,
) -> Result<bool, MathError> {
    let n = dims(scop, schedule)?;
    for d in deps {
        for piece in &d.relation {
            let delta = distances(schedule, d, piece, n)?;
            let np = delta.space().n_param();
            let mut before = delta.clone();
            for dim in 0..k.min(n) {
                let mut r = vec![0i64; delta.n_col() + 1];
                r[np + dim] = 1;
                before.add_eq(r)?;
            }
            if !before.is_empty()? {
                return Ok(true);
            }
        }
    }
    Ok(false)
}

/// Whether some dependence of `deps` runs backwards at one of the
/// dimensions `range` of `schedule`: an instance pair at distance zero on
/// the dimensions before one of them and negative at it (the sink before
/// the source). A schedule legal on its dimensions before `range` stays
/// legal through `range` exactly when none does; the stages that reorder a
/// legal plan's inner dimensions ask it of the dimensions they change.
/// Each dependence piece's distances are computed once; stops at the first
/// piece found.
///
/// Debug and test builds ask the checker too ([`crate::sched::verify`],
/// which reports each violated dependence at the first dimension where
/// some instance pair runs backwards) and assert that the answers agree:
/// no violation in `range` when none runs backwards there, and one at the
/// end of `range` or before when some does.
pub fn reverses(
    scop: &Model,
    deps: &[Dependence],
    schedule: &Schedule,
    range: std::ops::Range<usize>,
) -> Result<bool, MathError> {
    let ours = first_in(scop, deps, schedule, range.clone(), &[-1]);
    #[cfg(debug_assertions)]
    if let (Ok(ours), Ok(checker)) = (&ours, crate::sched::verify(scop, deps, schedule)) {
        let inside = checker
            .iter()
            .any(|v| v.level.is_some_and(|l| range.contains(&l)));
        let by = checker
            .iter()
            .any(|v| v.level.is_some_and(|l| l < range.end));
        assert!(
            if *ours { by } else { !inside },
            "the reversed-dependence analysis and the checker disagree on dimensions {range:?}"
        );
    }
    ours
}

/// Whether some piece of `deps` has a distance that is zero before one of
/// the dimensions `range` and, at it, has the sign of one of `signs` (1:
/// the sink later, -1: the sink earlier). Stops at the first piece found.
fn first_in(
    scop: &Model,
    deps: &[Dependence],
    schedule: &Schedule,
    range: std::ops::Range<usize>,
    signs: &[i64],
) -> Result<bool, MathError> {
    let n = dims(scop, schedule)?;
    if range.end > n {
        return Err(MathError::Space(format!(
            "dimension {} does not exist (the schedule has {n})",
            range.end - 1
        )));
    }
    for d in deps {
        for piece in &d.relation {
            let delta = distances(schedule, d, piece, n)?;
            for k in range.clone() {
                if nonzero_at(&delta, k, signs)? {
                    return Ok(true);
                }
            }
        }
    }
    Ok(false)
}

/// The number of dimensions of `schedule`, or an error when it does not fit
/// `scop`.
fn dims(scop: &Model, schedule: &Schedule) -> Result<usize, MathError> {
    let n = schedule.dims.first().map_or(0, Vec::len);
    if schedule.dims.len() != scop.statements.len()
        || schedule.locals.len() != scop.statements.len()
        || schedule.dims.iter().any(|d| d.len() != n)
    {
        return Err(MathError::Space(
            "the schedule does not fit the SCoP's statements".into(),
        ));
    }
    Ok(n)
}

/// The distances `{ t' - t }` in schedule space of one piece of `d`.
fn distances(
    schedule: &Schedule,
    d: &Dependence,
    piece: &BasicRel,
    n: usize,
) -> Result<BasicRel, MathError> {
    let space = piece.space();
    let source = schedule_map(schedule, d.source.0, space, space.expect_map()?.clone(), n)?;
    let sink = schedule_map(schedule, d.sink.0, space, space.output.clone(), n)?;
    source
        .reverse()?
        .apply_range(piece)?
        .apply_range(&sink)?
        .deltas()
}

/// Whether some distance of `set` (over `[params | δ | locals]`) is zero
/// before dimension `k` and has, at `k`, the sign of one of `signs`.
fn nonzero_at(set: &BasicRel, k: usize, signs: &[i64]) -> Result<bool, MathError> {
    let np = set.space().n_param();
    let unit = |dim: usize, sign: i64, constant: i64| {
        let mut r = vec![0i64; set.n_col() + 1];
        r[np + dim] = sign;
        r[set.n_col()] = constant;
        r
    };
    let mut before = set.clone();
    for dim in 0..k {
        before.add_eq(unit(dim, 1, 0))?;
    }
    for &sign in signs {
        // sign · δ_k - 1 >= 0
        let mut v = before.clone();
        v.add_ineq(unit(k, sign, -1))?;
        if !v.is_empty()? {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Statement `s`'s schedule as a map `tuple -> [t0, ..., t(n-1)]` over
/// `[params | iters | t | schedule locals]`, the locals existential.
fn schedule_map(
    schedule: &Schedule,
    s: usize,
    dep_space: &Space,
    tuple: Tuple,
    n: usize,
) -> Result<BasicRel, MathError> {
    let (np, ni) = (dep_space.n_param(), tuple.len());
    let locals = &schedule.locals[s];
    let nl = locals.count;
    let space = Space {
        params: dep_space.params.clone(),
        input: Some(tuple),
        output: Tuple::anonymous(None, n),
    };
    // A form over [params | iters | locals | 1] widened with the t columns.
    let widen = |f: &Form| insert_zeros(&f.row(np, ni, nl), np + ni, n);
    let mut eqs = Vec::with_capacity(n + locals.eqs.len());
    for (k, f) in schedule.dims[s].iter().enumerate() {
        // t_k - f = 0
        let mut r = widen(f);
        for c in r.iter_mut() {
            *c = c.checked_neg().ok_or(MathError::Overflow)?;
        }
        r[np + ni + k] = 1;
        eqs.push(r);
    }
    eqs.extend(locals.eqs.iter().map(widen));
    let ineqs = locals.ineqs.iter().map(widen).collect();
    BasicRel::from_constraints(space, nl, eqs, ineqs)
}

#[cfg(test)]
mod tests {
    use super::{carries, reverses};
    use crate::deps::{compute, DepOptions};
    use crate::sched::Schedule;
    use crate::scop::model::Model;
    use crate::scop::text::examples::{GEMM, RECURRENCE};

    #[test]
    fn gemms_original_loops_carry_along_k_only() {
        let m = Model::parse(GEMM).expect("a model");
        let d = compute(&m, DepOptions::default()).expect("dependences");
        let s = Schedule::original(&m);
        // [0, i, 0, j, 0, k, 0]: only dimension 5 (k) carries.
        let carried: Vec<usize> = (0..7)
            .filter(|&k| carries(&m, &d, &s, k).expect("answered"))
            .collect();
        assert_eq!(carried, vec![5]);
        assert!(!reverses(&m, &d, &s, 0..7).expect("answered"));
        assert!(carries(&m, &d, &s, 7).is_err());
    }

    #[test]
    fn a_reversed_loop_is_found() {
        let m = Model::parse(RECURRENCE).expect("a model");
        let d = compute(&m, DepOptions::default()).expect("dependences");
        let back = Schedule::parse(&m, "[N] -> { S0[i] -> [0, -i] }").expect("a schedule");
        assert!(!reverses(&m, &d, &back, 0..1).expect("answered"));
        assert!(reverses(&m, &d, &back, 1..2).expect("answered"));
        assert!(carries(&m, &d, &back, 1).expect("answered"));
    }
}
