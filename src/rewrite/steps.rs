//! Steps of a wavefront: a band of two hyperplanes strip-mined along its
//! first one into steps of `R` iterations, each statement split at the
//! start of its step along the second, so that the scheduler can run the
//! steps in order and, inside a step, the instances whose second
//! coordinate lies in an earlier step apart from the others.
//!
//! # Why
//!
//! A triangular solve, row `i`:
//!
//! ```text
//! for i:  x[i] = b[i]
//!         for j < i:  x[i] -= L[i][j] * x[j]        S1[i, j]
//!         x[i] = x[i] / L[i][i]
//! ```
//!
//! Row `i` needs every `x[j]`, `j < i`: the band `(i, j)` has no parallel
//! hyperplane, and a wavefront of its tiles reads each row of `L` in short
//! pieces (one tile's columns at a time), which the memory's prefetchers
//! do not follow. With the rows cut into steps of `R` (`q = ⌊i / R⌋`) and
//! `S1` split at `j = R·q`, the terms of the columns before the step
//! (`j < R·q`) need only the steps before: in step `q` the `R` rows take
//! them in parallel, whole rows streamed, and only the step's own
//! triangle (`R·q <= j < i`) runs in order. The scheduler, given `q` as
//! the outermost hyperplane ([`crate::sched::pluto::schedule_after`]) and
//! its distribution for parallelism, finds that order.
//!
//! # Exactness
//!
//! The step `q` is a new last iterator of each statement, bounded by
//! `R·q <= φ1 <= R·q + R - 1` (`φ1` the statement's first hyperplane of
//! the band, an affine form of its iterators): one value for each
//! instance, so every instance has exactly one point, with the same
//! operation and accesses (which do not use `q`) and the same original
//! schedule. The new iterator belongs to no loop of the input
//! (`Statement::loops` does not grow), as [`super::embed`]'s. The split
//! at `φ2 - R·q = 0` is [`super::split`]'s, exact for any form. Whether
//! the scheduler's order under `q` is legal is the dependences' and the
//! checker's to say, as for any schedule.

use crate::math::MathError;
use crate::scop::form::Form;
use crate::scop::model::{Model, Scop};

use super::split::{split_model, Side, Split};

/// Which statements a cut into steps takes, and how.
#[derive(Debug, Clone)]
pub struct Steps<'a> {
    /// Per statement, its first hyperplane of the band (`φ1`).
    pub first: &'a [Form],
    /// Per statement, its second hyperplane of the band (`φ2`).
    pub second: &'a [Form],
    /// Per statement, whether it is cut into steps; the others (nests
    /// that no dependence joins to the band's) keep their iterators and
    /// run at the constant 0 of the outermost hyperplane.
    pub stepped: &'a [bool],
    /// Per statement, whether it may be split at the step's start.
    pub split: &'a [bool],
    /// `R`, the iterations of `φ1` in one step.
    pub size: i64,
}

/// `scop` cut into steps: each statement `s` marked in `stepped` gets the
/// new last iterator `q` with `R·q <= first[s] <= R·q + R - 1`; then each
/// statement marked in `split` whose `second[s] - R·q` is negative on
/// some instances and not on others is split there ([`super::split`]).
/// Returns the model and, per statement of it, the form of its step `q`
/// (the hyperplane to run outermost; the constant 0 for the statements
/// not in steps).
pub fn apply(scop: &Scop, how: &Steps) -> Result<(Scop, Vec<Form>), MathError> {
    let (model, steps) = cut(&scop.model, how)?;
    Ok((
        Scop {
            model,
            ir: scop.ir.clone(),
        },
        steps,
    ))
}

/// [`apply`] on the model alone.
pub fn cut(model: &Model, how: &Steps) -> Result<(Model, Vec<Form>), MathError> {
    let Steps {
        first,
        second,
        stepped,
        split,
        size,
    } = *how;
    let mut out = model.clone();
    let mut cuts: Vec<Option<Form>> = Vec::new();
    for (s, st) in out.statements.iter_mut().enumerate() {
        if !stepped[s] {
            cuts.push(None);
            continue;
        }
        let k = st.iters.len();
        let q = Form::iter(k);
        let ovf = |_| MathError::Overflow;
        let rq = q.scale(size).map_err(ovf)?;
        // φ1 - R·q >= 0 and R·q + R - 1 - φ1 >= 0.
        let lo = first[s].minus(&rq).map_err(ovf)?;
        let hi = rq
            .plus(&Form::constant(size - 1))
            .and_then(|f| f.minus(&first[s]))
            .map_err(ovf)?;
        for p in &mut st.domain {
            p.ineqs.push(lo.clone());
            p.ineqs.push(hi.clone());
        }
        st.iters.push("step".to_string());
        let cut = second[s].minus(&rq).map_err(ovf)?;
        let moves = cut.iters[..k.min(cut.iters.len())].iter().any(|&c| c != 0);
        cuts.push((moves && split[s]).then_some(cut));
    }
    // Later statements first: a split replaces one statement by several.
    let mut steps: Vec<Form> = (0..out.statements.len())
        .map(|s| match stepped[s] {
            true => Form::iter(out.statements[s].iters.len() - 1),
            false => Form::constant(0),
        })
        .collect();
    for s in (0..cuts.len()).rev() {
        let Some(form) = cuts[s].take() else { continue };
        let split = Split {
            stmt: s,
            form: coprime(form),
        };
        let (split_model, sides) = split_model(&out, &split)?;
        if sides.len() > 1 && sides.contains(&Side::Below) {
            out = split_model;
            let q = steps[s].clone();
            steps.splice(s..=s, std::iter::repeat_n(q, sides.len()));
        }
    }
    Ok((out, steps))
}

/// `f` divided by the gcd of its coefficients and constant (the same
/// hyperplane: [`Split::form`] asks for coprime coefficients).
fn coprime(f: Form) -> Form {
    fn gcd(a: i64, b: i64) -> i64 {
        if b == 0 {
            a.abs()
        } else {
            gcd(b, a % b)
        }
    }
    let g = f
        .params
        .iter()
        .chain(&f.iters)
        .chain(&f.locals)
        .fold(f.constant, |g, &c| gcd(g, c));
    if g <= 1 {
        return f;
    }
    Form {
        params: f.params.iter().map(|c| c / g).collect(),
        iters: f.iters.iter().map(|c| c / g).collect(),
        locals: f.locals.iter().map(|c| c / g).collect(),
        constant: f.constant / g,
    }
}

#[cfg(test)]
mod tests {
    use super::{cut, Steps};
    use crate::deps::{compute, DepOptions};
    use crate::sched::pluto::{schedule_after, Options, PlutoError};
    use crate::sched::{verify, verify_parallel};
    use crate::scop::form::Form;
    use crate::scop::model::{Model, StmtId};

    /// PolyBench's trisolv: `x[i] = b[i]`, `x[i] -= L[i][j] * x[j]` for
    /// `j < i`, `x[i] /= L[i][i]`.
    const TRISOLV: &str = "
        domain: [N] -> { S0[i] : 0 <= i < N; S1[i, j] : 0 <= i < N and 0 <= j < i; S2[i] : 0 <= i < N }
        schedule: [N] -> { S0[i] -> [0, i, 0, 0, 0]; S1[i, j] -> [0, i, 1, j, 0]; S2[i] -> [0, i, 2, 0, 0] }
        writes: [N] -> { S0[i] -> x[i]; S1[i, j] -> x[i]; S2[i] -> x[i] }
        reads: [N] -> { S0[i] -> b[i]; S1[i, j] -> x[i]; S1[i, j] -> L[i, j]; S1[i, j] -> x[j]; S2[i] -> x[i]; S2[i] -> L[i, i] }
    ";

    /// The band `(i, j)` of trisolv (`i` for the statements of one loop),
    /// cut into steps of 4.
    fn trisolv_steps(split: &[bool]) -> (Model, Model, Vec<Form>) {
        trisolv_steps_of(&[true, true, true], split)
    }

    fn trisolv_steps_of(stepped: &[bool], split: &[bool]) -> (Model, Model, Vec<Form>) {
        let m = Model::parse(TRISOLV).expect("a model");
        let (i, j) = (Form::iter(0), Form::iter(1));
        let first = vec![i.clone(), i.clone(), i.clone()];
        let second = vec![i.clone(), j, i];
        let how = Steps {
            first: &first,
            second: &second,
            stepped,
            split,
            size: 4,
        };
        let (c, steps) = cut(&m, &how).expect("cut");
        (m, c, steps)
    }

    #[test]
    fn the_solve_is_split_at_the_step_start_and_the_rest_only_strip_mined() {
        let (_, c, steps) = trisolv_steps(&[true, true, true]);
        let names: Vec<&str> = c.statements.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["S0", "S1_lt", "S1_eq", "S1_gt", "S2"]);
        for (s, st) in c.statements.iter().enumerate() {
            assert_eq!(st.iters.last().map(String::as_str), Some("step"));
            assert_eq!(steps[s], Form::iter(st.iters.len() - 1));
        }
        // Nothing split where the caller says so.
        let (_, kept, _) = trisolv_steps(&[true, false, true]);
        assert_eq!(kept.statements.len(), 3);
    }

    #[test]
    fn every_instance_has_exactly_one_step_and_piece() {
        let (m, c, _) = trisolv_steps(&[true, true, true]);
        let n = 11;
        let pieces: Vec<_> = (1..4)
            .map(|s| c.domain(StmtId(s)).expect("domain"))
            .collect();
        let original = m.domain(StmtId(1)).expect("domain");
        for i in -1..=n {
            for j in -1..=n {
                let inside = original
                    .iter()
                    .any(|p| p.contains(&[n, i, j]).expect("point"));
                let mut found = 0;
                for q in -1..=n {
                    for piece in pieces.iter().flatten() {
                        found += usize::from(piece.contains(&[n, i, j, q]).expect("point"));
                    }
                }
                assert_eq!(found, usize::from(inside), "S1[{i}, {j}]");
            }
        }
    }

    #[test]
    fn under_the_step_the_terms_of_earlier_steps_are_parallel() {
        let (_, c, steps) = trisolv_steps(&[true, true, true]);
        let deps = compute(&c, DepOptions::default()).expect("dependences");
        let cut_options = Options {
            coincidence_cut: true,
            ..Options::default()
        };
        let s = schedule_after(&c, &deps, &cut_options, &steps).expect("a schedule");
        assert_eq!(s.schedule.dims[1][0], Form::iter(2), "the step outermost");
        assert!(verify(&c, &deps, &s.schedule).expect("checked").is_empty());
        // S1_lt (terms of columns before the step) has a loop of its own
        // whose iterations the checker finds independent.
        let k = (1..s.dims.len())
            .find(|&k| s.stmt_coincident[k][1] && s.schedule.dims[1][k].iter_coef(0) != 0)
            .expect("a parallel loop for S1_lt");
        let alone: Vec<_> = deps
            .iter()
            .filter(|d| d.source.0 == 1 && d.sink.0 == 1)
            .cloned()
            .collect();
        assert!(verify_parallel(&c, &alone, &s.schedule, k)
            .expect("checked")
            .is_empty());
    }

    #[test]
    fn a_statement_left_out_of_the_steps_keeps_its_iterators_and_runs_at_zero() {
        let (m, c, steps) = trisolv_steps_of(&[true, true, false], &[true, true, true]);
        let last = c.statements.last().expect("S2");
        assert_eq!(last.iters, m.statements[2].iters);
        assert_eq!(steps.last(), Some(&Form::constant(0)));
        // S2 needs every step's rows: at step 0 it would run before them.
        let deps = compute(&c, DepOptions::default()).expect("dependences");
        assert!(matches!(
            schedule_after(&c, &deps, &Options::default(), &steps),
            Err(PlutoError::IllegalPrefix)
        ));
    }

    #[test]
    fn a_step_that_runs_backwards_is_refused() {
        let (_, c, steps) = trisolv_steps(&[true, true, true]);
        let deps = compute(&c, DepOptions::default()).expect("dependences");
        let back: Vec<Form> = steps.iter().map(|f| f.scale(-1).expect("form")).collect();
        assert!(matches!(
            schedule_after(&c, &deps, &Options::default(), &back),
            Err(PlutoError::IllegalPrefix)
        ));
    }
}
