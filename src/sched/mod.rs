//! Schedules and their independent legality checker.
//!
//! A [`Schedule`] gives every statement a vector of affine functions of its
//! iterators and the parameters (no locals): instance `S[i]` runs at time
//! `θ_S(i)`, compared lexicographically. Scalar dimensions (sequences) are
//! constant functions. All statements of a schedule have the same number of
//! dimensions.
//!
//! The checker ([`verify`]) is deliberately a separate code path from any
//! scheduler: it takes the dependence relations computed by [`crate::deps`]
//! and proves, with the math core's integer emptiness test, that every sink
//! runs strictly after its source:
//!
//! ```text
//! violated(D) = ⋃_l { (i, j) ∈ D : θ_S(i)_k = θ_T(j)_k for k < l,  θ_T(j)_l < θ_S(i)_l }
//!             ∪ { (i, j) ∈ D : θ_S(i) = θ_T(j) }
//! ```
//!
//! must be empty for every dependence `D` from `S` to `T`. A non-empty piece
//! yields a [`Violation`] with a sample instance pair. A math-core failure is
//! reported as an error, never as "legal".

pub mod pluto;
pub mod retime;

use thiserror::Error;

use crate::deps::Dependence;
use crate::math::simplex::LpSolver;
use crate::math::{BasicRel, MathError, UnionRel};
use crate::scop::form::{Form, Locals};
use crate::scop::model::Model;

/// A multi-dimensional affine schedule, one row of forms per statement.
#[derive(Debug, Clone)]
pub struct Schedule {
    /// `dims[s][k]`: dimension `k` of statement `s`, over params, iterators
    /// and the statement's schedule locals.
    pub dims: Vec<Vec<Form>>,
    /// Per statement, the division locals of its schedule (tiling:
    /// `floor(i / 32)`) with their defining constraints.
    pub locals: Vec<Locals>,
}

/// Why a schedule cannot be used.
#[derive(Debug, Clone, Error)]
pub enum ScheduleError {
    /// The schedule text is malformed or does not fit the SCoP (user error).
    #[error("invalid schedule: {0}")]
    Invalid(String),
    /// The math core failed (a limit); legality is unknown.
    #[error("legality check failed: {0}")]
    Math(#[from] MathError),
}

/// One dependence that a schedule does not respect.
#[derive(Debug, Clone)]
pub struct Violation {
    /// Index of the dependence in the list given to [`verify`].
    pub dep: usize,
    /// The schedule dimension at which the sink runs too early (`None`:
    /// source and sink run at the same time).
    pub level: Option<usize>,
    /// A sample `[params | i | j]` of a violated instance pair, when found.
    pub sample: Option<Vec<i64>>,
}

impl Schedule {
    /// The original `2d+1` schedule of the model (always legal).
    pub fn original(scop: &Model) -> Schedule {
        let n = scop.schedule_len;
        let dims = scop
            .statements
            .iter()
            .map(|st| {
                let mut d = vec![Form::constant(st.beta[0] as i64)];
                let mut it = 0;
                for (level, &upto) in st.depth_iters.iter().enumerate() {
                    while it < upto {
                        d.push(Form::iter(it));
                        it += 1;
                    }
                    d.push(Form::constant(st.beta[level + 1] as i64));
                }
                d.resize(n, Form::constant(0));
                d
            })
            .collect();
        Schedule {
            dims,
            locals: vec![Locals::default(); scop.statements.len()],
        }
    }

    /// Parses a schedule in isl syntax, one map per statement, e.g.
    /// `[N] -> { S0[i, j] -> [j, i]; S1[i] -> [i, 0] }`. Every output
    /// dimension must be an affine function of the statement's iterators and
    /// the SCoP's parameters.
    pub fn parse(scop: &Model, text: &str) -> Result<Schedule, ScheduleError> {
        let u = UnionRel::parse(text).map_err(|e| ScheduleError::Invalid(e.to_string()))?;
        let u = u
            .align_params(&scop.params)
            .map_err(|e| ScheduleError::Invalid(e.to_string()))?;
        let mut dims: Vec<Option<(Vec<Form>, Locals)>> = vec![None; scop.statements.len()];
        let mut width = None;
        for piece in u.pieces() {
            let sp = piece.space();
            let name = sp
                .input
                .as_ref()
                .and_then(|t| t.name.clone())
                .unwrap_or_default();
            let Some(s) = scop.statements.iter().position(|st| st.name == name) else {
                return Err(ScheduleError::Invalid(format!(
                    "no statement '{name}' in the SCoP"
                )));
            };
            let st = &scop.statements[s];
            if sp.n_in() != st.iters.len() {
                return Err(ScheduleError::Invalid(format!(
                    "{name} has {} iterators",
                    st.iters.len()
                )));
            }
            if dims[s].is_some() {
                return Err(ScheduleError::Invalid(format!(
                    "{name} is scheduled twice (piecewise schedules are not supported)"
                )));
            }
            let n_out = sp.n_out();
            if *width.get_or_insert(n_out) != n_out {
                return Err(ScheduleError::Invalid(
                    "all statements need the same number of schedule dimensions".into(),
                ));
            }
            dims[s] = Some(forms_of(piece, &name)?);
        }
        let (dims, locals) = dims
            .into_iter()
            .enumerate()
            .map(|(k, d)| {
                d.ok_or_else(|| {
                    ScheduleError::Invalid(format!("no schedule for {}", scop.statements[k].name))
                })
            })
            .collect::<Result<Vec<_>, _>>()?
            .into_iter()
            .unzip();
        Ok(Schedule { dims, locals })
    }
}

/// Reads the schedule of one statement off a parsed map piece.
///
/// An output dimension defined by an equality with coefficient ±1 becomes
/// the affine form of that equality; any other output dimension (e.g.
/// `floor(t / 8)`, which the parser writes as `8·o <= t <= 8·o + 7`) becomes a
/// local of its own. The remaining constraints must each involve a local:
/// they define the locals. A constraint on the iterators alone would make
/// the schedule piecewise, which is refused.
fn forms_of(piece: &BasicRel, name: &str) -> Result<(Vec<Form>, Locals), ScheduleError> {
    let sp = piece.space();
    let (np, ni, no, nl) = (sp.n_param(), sp.n_in(), sp.n_out(), piece.n_local());
    let piecewise = || {
        ScheduleError::Invalid(format!(
            "the schedule of {name} has conditions (piecewise schedules are not supported)"
        ))
    };
    // Defining equality of each output, if any.
    let defining: Vec<Option<usize>> = (0..no)
        .map(|k| {
            piece.eqs().iter().position(|r| {
                r[np + ni + k].abs() == 1 && (0..no).all(|o| o == k || r[np + ni + o] == 0)
            })
        })
        .collect();
    // Outputs without one become extra locals nl, nl+1, ...
    let mut extra = vec![None; no];
    let mut count = nl;
    for k in 0..no {
        if defining[k].is_none() {
            extra[k] = Some(count);
            count += 1;
        }
    }
    // A row as a form over (params, iters, locals ++ extra locals), scaled.
    let form = |r: &[i64], sign: i64| -> Result<Form, ScheduleError> {
        let mut locals = vec![0i64; count];
        for (l, c) in r[np + ni + no..np + ni + no + nl].iter().enumerate() {
            locals[l] = c * sign;
        }
        for k in 0..no {
            if let Some(l) = extra[k] {
                locals[l] = r[np + ni + k] * sign;
            } else if r[np + ni + k] != 0 {
                return Err(ScheduleError::Invalid(format!(
                    "the schedule of {name} is not a function of its iterators"
                )));
            }
        }
        Ok(Form {
            params: r[..np].iter().map(|&c| c * sign).collect(),
            iters: r[np..np + ni].iter().map(|&c| c * sign).collect(),
            locals,
            constant: r[r.len() - 1] * sign,
        })
    };
    let mut dims = Vec::new();
    for k in 0..no {
        match (defining[k], extra[k]) {
            (Some(e), _) => {
                let row = &piece.eqs()[e];
                // r[col]·o_k + rest = 0  ⇒  o_k = -rest / r[col]
                let mut rest = row.clone();
                let sign = -rest[np + ni + k];
                rest[np + ni + k] = 0;
                dims.push(form(&rest, sign)?);
            }
            (None, Some(l)) => dims.push(Form::local(l)),
            _ => {
                return Err(ScheduleError::Invalid(format!(
                    "dimension {k} of {name} is undefined"
                )))
            }
        }
    }
    let mut locals = Locals::default();
    locals.count = count;
    for (e, r) in piece.eqs().iter().enumerate() {
        if defining.contains(&Some(e)) {
            continue;
        }
        let f = form(r, 1)?;
        if f.locals.iter().all(|&c| c == 0) {
            return Err(piecewise());
        }
        locals.eqs.push(f);
    }
    for r in piece.ineqs() {
        let f = form(r, 1)?;
        if f.locals.iter().all(|&c| c == 0) {
            return Err(piecewise());
        }
        locals.ineqs.push(f);
    }
    Ok((dims, locals))
}

/// The relation of one dependence piece widened with both statements'
/// schedule locals, and the rows `θ_T(j)_k - θ_S(i)_k` of every dimension.
struct Pairs {
    base: BasicRel,
    diffs: Vec<Vec<i64>>,
    /// Columns `[params | i | j]` (for samples).
    prefix: usize,
}

fn pairs(
    scop: &Model,
    d: &Dependence,
    piece: &BasicRel,
    schedule: &Schedule,
) -> Result<Pairs, ScheduleError> {
    let np = scop.params.len();
    let (s, t) = (&scop.statements[d.source.0], &scop.statements[d.sink.0]);
    let (ni, nj) = (s.iters.len(), t.iters.len());
    let (ts, tt) = (&schedule.dims[d.source.0], &schedule.dims[d.sink.0]);
    let (ls, lt) = (&schedule.locals[d.source.0], &schedule.locals[d.sink.0]);
    let nl = piece.n_local();
    let width = np + ni + nj + nl + ls.count + lt.count + 1;
    // A form of the source (or sink) as a row of the widened dependence
    // layout [params | i | j | dep locals | S locals | T locals | 1].
    let place = |f: &Form, sink: bool| -> Vec<i64> {
        let (n_it, n_loc) = if sink { (nj, lt.count) } else { (ni, ls.count) };
        let src = f.row(np, n_it, n_loc);
        let mut r = vec![0i64; width];
        r[..np].copy_from_slice(&src[..np]);
        let it_off = if sink { np + ni } else { np };
        r[it_off..it_off + n_it].copy_from_slice(&src[np..np + n_it]);
        let loc_off = np + ni + nj + nl + if sink { ls.count } else { 0 };
        r[loc_off..loc_off + n_loc].copy_from_slice(&src[np + n_it..np + n_it + n_loc]);
        r[width - 1] = src[np + n_it + n_loc];
        r
    };
    let diffs = ts
        .iter()
        .zip(tt)
        .map(|(a, b)| {
            let (a, b) = (place(a, false), place(b, true));
            b.iter()
                .zip(&a)
                .map(|(x, y)| x.checked_sub(*y).ok_or(MathError::Overflow))
                .collect::<Result<Vec<i64>, _>>()
        })
        .collect::<Result<Vec<_>, _>>()?;
    let widen = |r: &[i64]| {
        let mut w = r[..r.len() - 1].to_vec();
        w.extend(std::iter::repeat_n(0, ls.count + lt.count));
        w.push(r[r.len() - 1]);
        w
    };
    let mut eqs: Vec<Vec<i64>> = piece.eqs().iter().map(|r| widen(r)).collect();
    let mut ineqs: Vec<Vec<i64>> = piece.ineqs().iter().map(|r| widen(r)).collect();
    for (loc, sink) in [(ls, false), (lt, true)] {
        eqs.extend(loc.eqs.iter().map(|f| place(f, sink)));
        ineqs.extend(loc.ineqs.iter().map(|f| place(f, sink)));
    }
    let base =
        BasicRel::from_constraints(piece.space().clone(), nl + ls.count + lt.count, eqs, ineqs)?;
    Ok(Pairs {
        base,
        diffs,
        prefix: np + ni + nj,
    })
}

fn check_shape(scop: &Model, schedule: &Schedule) -> Result<usize, ScheduleError> {
    if schedule.dims.len() != scop.statements.len()
        || schedule.locals.len() != scop.statements.len()
    {
        return Err(ScheduleError::Invalid(
            "schedule and SCoP have different statements".into(),
        ));
    }
    let n = schedule.dims.first().map_or(0, Vec::len);
    if schedule.dims.iter().any(|d| d.len() != n) {
        return Err(ScheduleError::Invalid(
            "all statements need the same number of schedule dimensions".into(),
        ));
    }
    Ok(n)
}

/// Checks that `schedule` respects every dependence of `deps`; returns the
/// violated ones (empty: legal).
pub fn verify(
    scop: &Model,
    deps: &[Dependence],
    schedule: &Schedule,
) -> Result<Vec<Violation>, ScheduleError> {
    let n = check_shape(scop, schedule)?;
    let mut violations = Vec::new();
    for (di, d) in deps.iter().enumerate() {
        let pieces = d
            .relation
            .iter()
            .map(|p| pairs(scop, d, p, schedule))
            .collect::<Result<Vec<_>, _>>()?;
        // Per piece, the relation with the equalities of the levels so far.
        let mut prefixes: Vec<BasicRel> = pieces.iter().map(|p| p.base.clone()).collect();
        // And its rational relaxation, one simplex grown level by level: a
        // set it leaves without a rational point has no integer point
        // either, and needs no integer test. `None` once the relaxation
        // fails (an overflow): the integer tests alone decide then.
        let mut relaxed: Vec<Option<LpSolver>> = prefixes
            .iter()
            .map(|b| LpSolver::new(b.n_col(), b.eqs(), b.ineqs()).ok())
            .collect();
        'levels: for level in 0..=n {
            for ((p, prefix), lp) in pieces.iter().zip(&mut prefixes).zip(&mut relaxed) {
                if level > 0 {
                    let d = &p.diffs[level - 1];
                    prefix.add_eq(d.clone())?;
                    *lp = lp.take().and_then(|mut s| {
                        let neg: Vec<i64> = d.iter().map(|c| -c).collect();
                        (s.add_ineq(d).is_ok() && s.add_ineq(&neg).is_ok()).then_some(s)
                    });
                }
                // θ_S(i)_l - θ_T(j)_l - 1 >= 0
                let strict = (level < n).then(|| {
                    let mut r: Vec<i64> = p.diffs[level].iter().map(|c| -c).collect();
                    let last = r.len() - 1;
                    r[last] -= 1;
                    r
                });
                let rationally_empty = lp.as_ref().is_some_and(|s| {
                    let mut s = s.clone();
                    strict.as_ref().is_none_or(|r| s.add_ineq(r).is_ok()) && s.is_empty()
                });
                if rationally_empty {
                    continue;
                }
                let mut v = prefix.clone();
                if let Some(r) = strict {
                    v.add_ineq(r)?;
                }
                if !v.is_empty()? {
                    let sample = v.sample()?.map(|x| x[..p.prefix].to_vec());
                    violations.push(Violation {
                        dep: di,
                        level: (level < n).then_some(level),
                        sample,
                    });
                    break 'levels;
                }
            }
        }
    }
    Ok(violations)
}

/// Checks that dimension `k` of `schedule` carries no dependence: every
/// dependence instance whose source and sink agree on the dimensions before
/// `k` also agrees on `k`, so the iterations of a loop over dimension `k`
/// may run in any order, at the same time. Returns the dependences that
/// break it (their `level` is `k`).
///
/// The sets checked for emptiness, per dependence piece `D`:
/// `{ (i, j) ∈ D : θ_<k(i) = θ_<k(j), θ_k(j) >= θ_k(i) + 1 }` and the same
/// with `θ_k(j) <= θ_k(i) - 1`.
pub fn verify_parallel(
    scop: &Model,
    deps: &[Dependence],
    schedule: &Schedule,
    k: usize,
) -> Result<Vec<Violation>, ScheduleError> {
    let n = check_shape(scop, schedule)?;
    if k >= n {
        return Err(ScheduleError::Invalid(format!(
            "dimension {k} does not exist (the schedule has {n})"
        )));
    }
    let mut violations = Vec::new();
    'deps: for (di, d) in deps.iter().enumerate() {
        for piece in &d.relation {
            let p = pairs(scop, d, piece, schedule)?;
            for sign in [1i64, -1] {
                let mut v = p.base.clone();
                for kk in 0..k {
                    v.add_eq(p.diffs[kk].clone())?;
                }
                let mut r: Vec<i64> = p.diffs[k]
                    .iter()
                    .map(|c| c.checked_mul(sign).ok_or(MathError::Overflow))
                    .collect::<Result<_, _>>()?;
                let last = r.len() - 1;
                r[last] -= 1;
                v.add_ineq(r)?;
                if !v.is_empty()? {
                    let sample = v.sample()?.map(|x| x[..p.prefix].to_vec());
                    violations.push(Violation {
                        dep: di,
                        level: Some(k),
                        sample,
                    });
                    continue 'deps;
                }
            }
        }
    }
    Ok(violations)
}

/// A human-readable sample `S[i] -> T[j]` (with parameter values) of a violation.
pub fn describe_sample(scop: &Model, d: &Dependence, sample: &[i64]) -> String {
    let np = scop.params.len();
    let (s, t) = (&scop.statements[d.source.0], &scop.statements[d.sink.0]);
    let ni = s.iters.len();
    let join = |v: &[i64]| v.iter().map(i64::to_string).collect::<Vec<_>>().join(", ");
    let params = if np == 0 {
        String::new()
    } else {
        format!(
            " with [{}] = [{}]",
            scop.params.join(", "),
            join(&sample[..np])
        )
    };
    format!(
        "{}[{}] -> {}[{}]{params}",
        s.name,
        join(&sample[np..np + ni]),
        t.name,
        join(&sample[np + ni..])
    )
}

/// An affine form over a statement's parameters and iterators as isl text
/// (`2i0 + i1 - 1`); locals print as `e<k>`.
pub fn form_text(f: &Form, params: &[String], iters: &[String]) -> String {
    let mut terms: Vec<String> = Vec::new();
    let mut push = |c: i64, name: &str| {
        if c == 0 {
            return;
        }
        let mag = c.unsigned_abs();
        let body = if mag == 1 {
            name.to_string()
        } else {
            format!("{mag}{name}")
        };
        if terms.is_empty() {
            terms.push(if c < 0 { format!("-{body}") } else { body });
        } else {
            terms.push(format!("{} {body}", if c < 0 { "-" } else { "+" }));
        }
    };
    for (k, &c) in f.params.iter().enumerate() {
        push(c, params.get(k).map_or("p", String::as_str));
    }
    for (k, &c) in f.iters.iter().enumerate() {
        push(c, iters.get(k).map_or("i", String::as_str));
    }
    for (k, &c) in f.locals.iter().enumerate() {
        push(c, &format!("e{k}"));
    }
    if f.constant != 0 || terms.is_empty() {
        let c = f.constant;
        if terms.is_empty() {
            terms.push(c.to_string());
        } else {
            terms.push(format!(
                "{} {}",
                if c < 0 { "-" } else { "+" },
                c.unsigned_abs()
            ));
        }
    }
    terms.join(" ")
}
