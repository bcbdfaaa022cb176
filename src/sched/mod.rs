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
use crate::scop::form::{forms_of, Form, Locals, MapFormError};
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
            dims[s] = Some(forms_of(piece).map_err(|e| {
                ScheduleError::Invalid(match e {
                    MapFormError::Conditions => format!(
                        "the schedule of {name} has conditions (piecewise schedules are not supported)"
                    ),
                    MapFormError::NotAFunction => {
                        format!("the schedule of {name} is not a function of its iterators")
                    }
                    MapFormError::Undefined(k) => format!("dimension {k} of {name} is undefined"),
                })
            })?);
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

#[cfg(test)]
mod tests {
    use super::pluto::{schedule, DimKind, Options};
    use super::{verify, verify_parallel, Schedule};
    use crate::deps::{compute, DepOptions};
    use crate::scop::form::Form;
    use crate::scop::model::Model;
    use crate::scop::text::examples::{GEMM, RECURRENCE, SEIDEL};

    fn model(text: &str) -> (Model, Vec<crate::deps::Dependence>) {
        let m = Model::parse(text).expect("a model");
        let d = compute(&m, DepOptions::default()).expect("dependences");
        (m, d)
    }

    #[test]
    fn the_original_schedule_is_legal() {
        for text in [GEMM, RECURRENCE, SEIDEL] {
            let (m, d) = model(text);
            assert!(verify(&m, &d, &Schedule::original(&m))
                .expect("checked")
                .is_empty());
        }
    }

    #[test]
    fn the_checker_catches_a_reversed_recurrence() {
        let (m, d) = model(RECURRENCE);
        let reversed = Schedule::parse(&m, "[N] -> { S0[i] -> [-i] }").expect("a schedule");
        let v = verify(&m, &d, &reversed).expect("checked");
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].level, Some(0));
        // A sample of the violated pair: [N | i | j], the sink one later.
        let s = v[0].sample.as_ref().expect("a sample");
        assert_eq!(s[2], s[1] + 1);
        // Run in parallel, its loop is caught too; gemm's i is parallel.
        let forward = Schedule::parse(&m, "[N] -> { S0[i] -> [i] }").expect("a schedule");
        assert!(!verify_parallel(&m, &d, &forward, 0)
            .expect("checked")
            .is_empty());
        let (g, gd) = model(GEMM);
        let ikj = Schedule::parse(&g, "[N] -> { S0[i, j, k] -> [i, k, j] }").expect("a schedule");
        assert!(verify(&g, &gd, &ikj).expect("checked").is_empty());
        assert!(verify_parallel(&g, &gd, &ikj, 0)
            .expect("checked")
            .is_empty());
        assert!(!verify_parallel(&g, &gd, &ikj, 1)
            .expect("checked")
            .is_empty());
    }

    #[test]
    fn aligned_shared_reads_keep_bicgs_two_sums_in_the_same_loops() {
        // bicg split into two blocks of rows (`t`), the column sums into
        // the block's copy `P[t][j]` beside the rows' sums `q[i]`: both
        // read `A[i][j]`.
        let text = "
            domain: { S0[t, i, j] : 0 <= t < 2 and 4t <= i < 4t + 4 and 0 <= j < 6; S1[t, i, j] : 0 <= t < 2 and 4t <= i < 4t + 4 and 0 <= j < 6 }
            schedule: { S0[t, i, j] -> [0, t, 0, i, 0, j, 0]; S1[t, i, j] -> [0, t, 0, i, 0, j, 1] }
            writes: { S0[t, i, j] -> P[t, j]; S1[t, i, j] -> q[i] }
            reads: { S0[t, i, j] -> P[t, j]; S0[t, i, j] -> A[i, j]; S1[t, i, j] -> q[i]; S1[t, i, j] -> A[i, j] }
        ";
        let (m, d) = model(text);
        let loop_rows = |p: &crate::sched::pluto::PlutoSchedule, s: usize| -> Vec<Form> {
            p.dims
                .iter()
                .enumerate()
                .filter(|(_, k)| matches!(k, DimKind::Loop { .. }))
                .map(|(k, _)| p.schedule.dims[s][k].clone())
                .collect()
        };
        // Left to itself, the scheduler gives each its parallel loop
        // outermost after the blocks: S0's j beside S1's i.
        let free = schedule(&m, &d, &Options::default()).expect("scheduled");
        assert!(verify(&m, &d, &free.schedule).expect("checked").is_empty());
        assert_ne!(loop_rows(&free, 0), loop_rows(&free, 1));
        // Aligned: the same hyperplanes, and still legal.
        let o = Options {
            align_shared_reads: true,
            ..Options::default()
        };
        let aligned = schedule(&m, &d, &o).expect("scheduled");
        assert!(verify(&m, &d, &aligned.schedule)
            .expect("checked")
            .is_empty());
        assert_eq!(loop_rows(&aligned, 0), loop_rows(&aligned, 1));
        assert_eq!(loop_rows(&aligned, 0).len(), 3);
    }

    #[test]
    fn pluto_finds_gemms_parallel_band() {
        let (m, d) = model(GEMM);
        let p = schedule(&m, &d, &Options::default()).expect("scheduled");
        assert!(verify(&m, &d, &p.schedule).expect("checked").is_empty());
        // One permutable band of the three loops, two of them parallel.
        let loops: Vec<(usize, bool)> = p
            .dims
            .iter()
            .filter_map(|k| match k {
                DimKind::Loop { band, coincident } => Some((*band, *coincident)),
                DimKind::Scalar => None,
            })
            .collect();
        assert_eq!(loops.len(), 3);
        assert!(loops.iter().all(|&(b, _)| b == loops[0].0));
        assert_eq!(loops.iter().filter(|&&(_, c)| c).count(), 2);
    }

    #[test]
    fn pluto_skews_seidel_into_a_band() {
        let (m, d) = model(SEIDEL);
        let p = schedule(&m, &d, &Options::default()).expect("scheduled");
        assert!(verify(&m, &d, &p.schedule).expect("checked").is_empty());
        // Both loops in one band (tilable): the second hyperplane skews i by t.
        let bands: Vec<usize> = p
            .dims
            .iter()
            .filter_map(|k| match k {
                DimKind::Loop { band, .. } => Some(*band),
                DimKind::Scalar => None,
            })
            .collect();
        assert_eq!(bands.len(), 2);
        assert_eq!(bands[0], bands[1]);
        let skewed = p.schedule.dims[0]
            .iter()
            .any(|f| f.iters.iter().filter(|&&c| c != 0).count() == 2);
        assert!(skewed, "{:?}", p.schedule.dims[0]);
    }

    /// A 2-D filter window over a row: `O[x] += I[x + kh + kw] · F[kh, kw]`,
    /// a reduction into `O[x]` over `kh` and then `kw`, of `K` x `K` terms.
    fn window(k: i64) -> String {
        format!(
            "domain: [N] -> {{ S0[x, kh, kw] : 0 <= x < N and 0 <= kh < {k} and 0 <= kw < {k} }}
             schedule: [N] -> {{ S0[x, kh, kw] -> [0, x, 0, kh, 0, kw, 0] }}
             writes: [N] -> {{ S0[x, kh, kw] -> O[x] }}
             reads: [N] -> {{ S0[x, kh, kw] -> O[x]; S0[x, kh, kw] -> I[x + kh + kw]; S0[x, kh, kw] -> F[kh, kw] }}"
        )
    }

    /// The loop dimensions of a schedule: (band, its rows per statement 0).
    fn loops(p: &super::pluto::PlutoSchedule) -> Vec<(usize, Vec<i64>)> {
        p.dims
            .iter()
            .enumerate()
            .filter_map(|(k, kind)| match kind {
                DimKind::Loop { band, .. } => Some((*band, p.schedule.dims[0][k].iters.clone())),
                DimKind::Scalar => None,
            })
            .collect()
    }

    #[test]
    fn short_filter_windows_are_not_skewed_into_the_band() {
        // A 3x3 window: `kw` is not permutable with `kh` (the last term of
        // one row of the window comes before the first of the next), and a
        // skew `2·kh + kw` would make it so, to tile two 3-wide loops. The
        // band ends instead, and `kw` follows it as it was.
        let (m, d) = model(&window(3));
        let p = schedule(&m, &d, &Options::default()).expect("scheduled");
        assert!(verify(&m, &d, &p.schedule).expect("checked").is_empty());
        let l = loops(&p);
        assert_eq!(l.len(), 3);
        assert!(
            l.iter()
                .all(|(_, row)| row.iter().filter(|&&c| c != 0).count() == 1),
            "{l:?}"
        );
        assert_eq!(l[2].1, vec![0, 0, 1]);
        assert_ne!(l[1].0, l[2].0, "kw in a band of its own: {l:?}");
        // With no bound, or longer than it: Pluto's skew, to tile (5 terms
        // per row need `4·kh + kw`, within the coefficients' bound).
        for (k, short) in [(3, 0), (5, 4)] {
            let (m, d) = model(&window(k));
            let o = Options {
                short_reduction: short,
                ..Options::default()
            };
            let p = schedule(&m, &d, &o).expect("scheduled");
            assert!(verify(&m, &d, &p.schedule).expect("checked").is_empty());
            let l = loops(&p);
            assert!(
                l.iter()
                    .any(|(_, row)| row.iter().filter(|&&c| c != 0).count() == 2),
                "{k}: {l:?}"
            );
        }
    }

    #[test]
    fn time_skews_over_a_few_steps_stay() {
        // Seidel over 4 time steps of 10 cells: `t + i` adds `i`, a loop
        // along which the statement writes: the skew stays (time tiles).
        let few = SEIDEL.replace(
            "0 <= t < T and 1 <= i < N - 1",
            "0 <= t < 4 and 1 <= i < 11",
        );
        let (m, d) = model(&few);
        let p = schedule(&m, &d, &Options::default()).expect("scheduled");
        let l = loops(&p);
        assert_eq!(l.len(), 2);
        assert_eq!(l[0].0, l[1].0);
        assert!(
            l.iter()
                .any(|(_, row)| row.iter().filter(|&&c| c != 0).count() == 2),
            "{l:?}"
        );
    }
}
