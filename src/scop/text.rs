//! The model as text: [`Model::parse`] builds a [`Model`] from four isl
//! unions, [`Model::to_text`] prints one the same way, so that dependence
//! analysis, the scheduler, its checker and the analyses can be tested and
//! fuzzed on models written by hand or generated as data, with no MLIR.
//!
//! ```text
//! domain: [N] -> { S0[i, j] : 0 <= i < N and 0 <= j < N; S1[i] : 0 <= i < N }
//! schedule: [N] -> { S0[i, j] -> [0, i, 0, j, 0]; S1[i] -> [1, i, 0, 0, 0] }
//! writes: [N] -> { S0[i, j] -> C[i, j]; S1[i] -> x[i] }
//! reads: [N] -> { S0[i, j] -> C[i, j]; S0[i, j] -> A[i, j]; S1[i] -> C[i, i] }
//! ```
//!
//! * `domain`: each statement's iteration domain; several pieces of one
//!   statement are a union (the pieces of an `if`/`else`). The statements
//!   are numbered in the order of their first piece; no existential
//!   variables (divisions) in this form.
//! * `schedule`: the original schedule in its `2d + 1` form: constants
//!   (the textual positions, the model's `beta`) at the even positions,
//!   the iterators in order at the odd ones, zeros after. Statements share
//!   the loop at depth `k` when their first `k + 1` constants agree.
//! * `writes`: one access per statement (its store); `reads`: its loads,
//!   in order. The arrays are numbered in order of first appearance.
//!
//! A parsed model has no IR behind it: [`IrRef`]s are plain indices.

use std::collections::HashMap;
use std::fmt;

use crate::math::print::print_union;
use crate::math::{BasicRel, MathError, UnionRel};

use super::form::{forms_of, Form, Locals};
use super::model::{Access, AccessKind, Array, ArrayId, IrRef, Model, Piece, Statement, StmtId};

/// Why a model text is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError(pub String);

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "model text: {}", self.0)
    }
}

impl std::error::Error for ParseError {}

fn err<T>(why: impl Into<String>) -> Result<T, ParseError> {
    Err(ParseError(why.into()))
}

/// The four unions of a model text, by label.
fn sections(text: &str) -> Result<HashMap<&str, &str>, ParseError> {
    let mut out = HashMap::new();
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let Some((label, union)) = line.split_once(':') else {
            return err(format!("'{line}': expected 'label: union'"));
        };
        let label = label.trim();
        if !["domain", "schedule", "writes", "reads"].contains(&label) {
            return err(format!("unknown label '{label}'"));
        }
        if out.insert(label, union.trim()).is_some() {
            return err(format!("'{label}' given twice"));
        }
    }
    Ok(out)
}

fn union(
    sections: &HashMap<&str, &str>,
    label: &str,
    params: Option<&[String]>,
) -> Result<UnionRel, ParseError> {
    let Some(text) = sections.get(label) else {
        if label == "reads" {
            return Ok(UnionRel::empty(params.unwrap_or_default()));
        }
        return err(format!("'{label}' missing"));
    };
    let u = UnionRel::parse(text).map_err(|e| ParseError(format!("{label}: {e}")))?;
    match params {
        Some(p) => u
            .align_params(p)
            .map_err(|e| ParseError(format!("{label}: {e}"))),
        None => Ok(u),
    }
}

/// The statement name of a piece (its input tuple, or its tuple for a set).
fn stmt_name(piece: &BasicRel) -> String {
    let sp = piece.space();
    sp.input
        .as_ref()
        .unwrap_or(&sp.output)
        .name
        .clone()
        .unwrap_or_default()
}

/// `piece` (a map from a statement's iterators) without its conditions on
/// the iterators alone, when every piece of the statement's domain
/// (`domain`) implies them: the form [`Model::to_text`] prints (the model's
/// relations are restricted to the domain). A condition the domain does
/// not imply is refused: the access or schedule would be piecewise.
fn without_domain_conditions(
    piece: &BasicRel,
    domain: &[&BasicRel],
    what: &str,
) -> Result<BasicRel, ParseError> {
    let sp = piece.space();
    let (np, ni, no, nl) = (sp.n_param(), sp.n_in(), sp.n_out(), piece.n_local());
    let condition = |r: &[i64]| r[np + ni..np + ni + no + nl].iter().all(|&c| c == 0);
    // A condition as a row of the domain: [params | iterators | constant].
    let on_domain = |r: &[i64]| -> Vec<i64> {
        let mut row = r[..np + ni].to_vec();
        row.push(r[r.len() - 1]);
        row
    };
    let math = |e: MathError| ParseError(format!("{what}: {e}"));
    let implied = |row: &[i64]| -> Result<bool, ParseError> {
        // No point of the domain has row < 0, i.e. -row - 1 >= 0.
        let mut neg: Vec<i64> = row.iter().map(|&c| -c).collect();
        if let Some(last) = neg.last_mut() {
            *last -= 1;
        }
        for d in domain {
            let mut p = (*d).clone();
            p.add_ineq(neg.clone()).map_err(math)?;
            if !p.is_empty().map_err(math)? {
                return Ok(false);
            }
        }
        Ok(true)
    };
    let mut eqs = Vec::new();
    let mut ineqs = Vec::new();
    for r in piece.eqs() {
        if !condition(r) {
            eqs.push(r.clone());
            continue;
        }
        let row = on_domain(r);
        let opposite: Vec<i64> = row.iter().map(|&c| -c).collect();
        if !(implied(&row)? && implied(&opposite)?) {
            return err(format!(
                "{what}: a condition its statement's domain does not imply"
            ));
        }
    }
    for r in piece.ineqs() {
        if !condition(r) {
            ineqs.push(r.clone());
        } else if !implied(&on_domain(r))? {
            return err(format!(
                "{what}: a condition its statement's domain does not imply"
            ));
        }
    }
    BasicRel::from_constraints(sp.clone(), nl, eqs, ineqs).map_err(math)
}

impl Model {
    /// Builds a model from its text (see the module text).
    pub fn parse(text: &str) -> Result<Model, ParseError> {
        let secs = sections(text)?;
        let domain = union(&secs, "domain", None)?;
        let params: Vec<String> = domain.params().to_vec();
        let np = params.len();
        // Statements in order of their first domain piece.
        let mut statements: Vec<Statement> = Vec::new();
        for piece in domain.pieces() {
            let sp = piece.space();
            if sp.input.is_some() {
                return err("domain: a set expected, not a map");
            }
            let name = stmt_name(piece);
            if name.is_empty() {
                return err("domain: a statement without a name");
            }
            if piece.n_local() != 0 {
                return err(format!(
                    "domain of {name}: existential variables are not supported"
                ));
            }
            let ni = sp.n_out();
            let s = match statements.iter().position(|st| st.name == name) {
                Some(s) => s,
                None => {
                    statements.push(Statement {
                        name: name.clone(),
                        ir: IrRef(statements.len()),
                        iters: (0..ni)
                            .map(|k| match sp.output.dims.get(k) {
                                Some(d) if !d.is_empty() => d.clone(),
                                _ => format!("i{k}"),
                            })
                            .collect(),
                        loops: Vec::new(),
                        beta: Vec::new(),
                        depth_iters: (1..=ni).collect(),
                        locals: Locals::default(),
                        domain: Vec::new(),
                        accesses: Vec::new(),
                        body: Vec::new(),
                    });
                    statements.len() - 1
                }
            };
            if statements[s].iters.len() != ni {
                return err(format!("{name} has pieces of different dimensions"));
            }
            let form = |r: &[i64]| Form {
                params: r[..np].to_vec(),
                iters: r[np..np + ni].to_vec(),
                locals: Vec::new(),
                constant: r[r.len() - 1],
            };
            statements[s].domain.push(Piece {
                ineqs: piece.ineqs().iter().map(|r| form(r)).collect(),
                eqs: piece.eqs().iter().map(|r| form(r)).collect(),
            });
        }
        if statements.is_empty() {
            return err("no statement");
        }
        let domains: Vec<Vec<&BasicRel>> = statements
            .iter()
            .map(|st| {
                domain
                    .pieces()
                    .iter()
                    .filter(|p| stmt_name(p) == st.name)
                    .collect()
            })
            .collect();
        fn find(
            statements: &[Statement],
            piece: &BasicRel,
            label: &str,
        ) -> Result<usize, ParseError> {
            let name = stmt_name(piece);
            let s = statements
                .iter()
                .position(|st| st.name == name)
                .ok_or_else(|| {
                    ParseError(format!("{label}: no statement '{name}' in the domain"))
                })?;
            if piece.space().n_in() != statements[s].iters.len() {
                return err(format!(
                    "{label}: {name} has {} iterators",
                    statements[s].iters.len()
                ));
            }
            Ok(s)
        }
        // The original schedule: the constants and the loops they share.
        let schedule = union(&secs, "schedule", Some(&params))?;
        let mut scheduled = vec![false; statements.len()];
        let mut prefixes: Vec<Vec<usize>> = Vec::new();
        let mut schedule_len = 1;
        for piece in schedule.pieces() {
            let s = find(&statements, piece, "schedule")?;
            if std::mem::replace(&mut scheduled[s], true) {
                return err(format!("schedule: {} scheduled twice", statements[s].name));
            }
            let what = format!("schedule of {}", statements[s].name);
            let piece = without_domain_conditions(piece, &domains[s], &what)?;
            let st = &mut statements[s];
            let (dims, locals) =
                forms_of(&piece).map_err(|e| ParseError(format!("{what}: {e:?}")))?;
            if locals.count != 0 {
                return err(format!(
                    "schedule of {}: divisions are not supported",
                    st.name
                ));
            }
            let ni = st.iters.len();
            let constant =
                |f: &Form| (f.params.iter().chain(&f.iters).all(|&c| c == 0)).then_some(f.constant);
            let iterator = |f: &Form, k: usize| {
                f.constant == 0
                    && f.params.iter().all(|&c| c == 0)
                    && f.iters
                        .iter()
                        .enumerate()
                        .all(|(j, &c)| c == i64::from(j == k))
            };
            if dims.len() < 2 * ni + 1 {
                return err(format!(
                    "schedule of {}: fewer than 2d + 1 dimensions",
                    st.name
                ));
            }
            for (d, f) in dims.iter().enumerate() {
                let ok = if d % 2 == 1 && d < 2 * ni {
                    iterator(f, d / 2)
                } else {
                    match constant(f) {
                        Some(c) if d > 2 * ni => c == 0,
                        Some(c) => c >= 0,
                        None => false,
                    }
                };
                if !ok {
                    return err(format!(
                        "schedule of {}: dimension {d} is not of the 2d + 1 form (constants, \
                         the iterators in order, zeros)",
                        st.name
                    ));
                }
            }
            st.beta = (0..=ni)
                .map(|k| constant(&dims[2 * k]).unwrap_or(0) as usize)
                .collect();
            st.loops = (0..ni)
                .map(|k| {
                    let prefix = st.beta[..=k].to_vec();
                    match prefixes.iter().position(|p| *p == prefix) {
                        Some(p) => p + 1,
                        None => {
                            prefixes.push(prefix);
                            prefixes.len()
                        }
                    }
                })
                .collect();
            schedule_len = schedule_len.max(2 * ni + 1);
        }
        if let Some(s) = scheduled.iter().position(|&d| !d) {
            return err(format!("schedule: {} is not scheduled", statements[s].name));
        }
        // The accesses: the write, then the reads in order.
        let mut arrays: Vec<Array> = Vec::new();
        let mut n_access = 0;
        for (label, kind) in [("writes", AccessKind::Write), ("reads", AccessKind::Read)] {
            for piece in union(&secs, label, Some(&params))?.pieces() {
                let s = find(&statements, piece, label)?;
                let sp = piece.space();
                let name = sp.output.name.clone().unwrap_or_default();
                if name.is_empty() {
                    return err(format!("{label}: an array without a name"));
                }
                let rank = sp.n_out();
                let a = match arrays.iter().position(|a| a.name == name) {
                    Some(a) if arrays[a].rank != rank => {
                        return err(format!("{label}: {name} accessed with two ranks"));
                    }
                    Some(a) => a,
                    None => {
                        arrays.push(Array {
                            name,
                            rank,
                            ir: IrRef(arrays.len()),
                        });
                        arrays.len() - 1
                    }
                };
                let what = format!("{label} of {}", statements[s].name);
                let piece = without_domain_conditions(piece, &domains[s], &what)?;
                let st = &mut statements[s];
                let (index, locals) =
                    forms_of(&piece).map_err(|e| ParseError(format!("{what}: {e:?}")))?;
                if locals.count != 0 {
                    return err(format!(
                        "{label} of {}: divisions are not supported",
                        st.name
                    ));
                }
                if kind == AccessKind::Write && !st.accesses.is_empty() {
                    return err(format!("writes: {} writes twice", st.name));
                }
                if kind == AccessKind::Read && st.accesses.is_empty() {
                    return err(format!("writes: {} writes nothing", st.name));
                }
                st.accesses.push(Access {
                    kind,
                    array: ArrayId(a),
                    index,
                    ir: IrRef(n_access),
                });
                n_access += 1;
            }
        }
        if let Some(st) = statements.iter().find(|st| st.accesses.is_empty()) {
            return err(format!("writes: {} writes nothing", st.name));
        }
        Ok(Model {
            params,
            statements,
            arrays,
            schedule_len,
            expansions: Vec::new(),
        })
    }

    /// The model as text, in the form [`Model::parse`] reads (every
    /// statement's schedule padded to the model's schedule length).
    pub fn to_text(&self) -> Result<String, MathError> {
        let mut domain = Vec::new();
        let mut schedule = Vec::new();
        let (mut writes, mut reads) = (Vec::new(), Vec::new());
        for (s, st) in self.statements.iter().enumerate() {
            domain.extend(self.domain(StmtId(s))?);
            schedule.push(self.schedule(StmtId(s))?);
            for (a, acc) in st.accesses.iter().enumerate() {
                let rel = self.access(StmtId(s), a)?;
                match acc.kind {
                    AccessKind::Write => writes.extend(rel),
                    AccessKind::Read => reads.extend(rel),
                }
            }
        }
        let text = |pieces: Vec<BasicRel>| -> Result<String, MathError> {
            Ok(print_union(&UnionRel::from_pieces(&self.params, pieces)?))
        };
        Ok(format!(
            "domain: {}\nschedule: {}\nwrites: {}\nreads: {}\n",
            text(domain)?,
            text(schedule)?,
            text(writes)?,
            text(reads)?
        ))
    }
}

/// Models written as text, for the unit tests of the middle.
#[cfg(test)]
pub(crate) mod examples {
    /// `C[i][j] += A[i][k] * B[k][j]`.
    pub const GEMM: &str = "
        domain: [N] -> { S0[i, j, k] : 0 <= i < N and 0 <= j < N and 0 <= k < N }
        schedule: [N] -> { S0[i, j, k] -> [0, i, 0, j, 0, k, 0] }
        writes: [N] -> { S0[i, j, k] -> C[i, j] }
        reads: [N] -> { S0[i, j, k] -> C[i, j]; S0[i, j, k] -> A[i, k]; S0[i, j, k] -> B[k, j] }
    ";

    /// `x[i] = f(x[i - 1])`.
    pub const RECURRENCE: &str = "
        domain: [N] -> { S0[i] : 1 <= i < N }
        schedule: [N] -> { S0[i] -> [0, i, 0] }
        writes: [N] -> { S0[i] -> x[i] }
        reads: [N] -> { S0[i] -> x[i - 1] }
    ";

    /// Gauss-Seidel in one dimension, in place: `A[i] = f(A[i - 1], A[i],
    /// A[i + 1])` at every time step `t`.
    pub const SEIDEL: &str = "
        domain: [T, N] -> { S0[t, i] : 0 <= t < T and 1 <= i < N - 1 }
        schedule: [T, N] -> { S0[t, i] -> [0, t, 0, i, 0] }
        writes: [T, N] -> { S0[t, i] -> A[i] }
        reads: [T, N] -> { S0[t, i] -> A[i - 1]; S0[t, i] -> A[i]; S0[t, i] -> A[i + 1] }
    ";
}

#[cfg(test)]
mod tests {
    use super::examples::GEMM;
    use super::Model;
    use crate::scop::model::AccessKind;

    #[test]
    fn a_model_parses_with_its_loops_and_accesses() {
        let m = Model::parse(
            "domain: [N] -> { S0[i] : 0 <= i < N; S1[i, j] : 0 <= i < N and 0 <= j <= i }
             schedule: [N] -> { S0[i] -> [0, i, 0, 0, 0]; S1[i, j] -> [0, i, 1, j, 0] }
             writes: [N] -> { S0[i] -> x[i]; S1[i, j] -> x[i] }
             reads: [N] -> { S1[i, j] -> x[i]; S1[i, j] -> A[i, j] }",
        )
        .expect("parses");
        assert_eq!(m.params, vec!["N"]);
        assert_eq!(m.schedule_len, 5);
        let (s0, s1) = (&m.statements[0], &m.statements[1]);
        assert_eq!((s0.name.as_str(), s1.name.as_str()), ("S0", "S1"));
        assert_eq!(s1.iters, vec!["i", "j"]);
        assert_eq!(s0.beta, vec![0, 0]);
        assert_eq!(s1.beta, vec![0, 1, 0]);
        // They share the loop over i, not the one over j.
        assert_eq!(s0.loops[0], s1.loops[0]);
        assert_eq!(s1.loops.len(), 2);
        assert_eq!(s1.depth_iters, vec![1, 2]);
        // The write first, then the reads in order; x is one array.
        let kinds: Vec<AccessKind> = s1.accesses.iter().map(|a| a.kind).collect();
        assert_eq!(
            kinds,
            vec![AccessKind::Write, AccessKind::Read, AccessKind::Read]
        );
        assert_eq!(m.arrays.len(), 2);
        assert_eq!(s1.accesses[1].array, s0.accesses[0].array);
        assert_eq!(m.arrays[1].rank, 2);
        // S1's domain: 0 <= i, i <= N - 1, 0 <= j, j <= i.
        assert_eq!(s1.domain.len(), 1);
        assert_eq!(s1.domain[0].ineqs.len(), 4);
    }

    #[test]
    fn printed_models_parse_back_to_the_same_text() {
        let m = Model::parse(GEMM).expect("parses");
        let text = m.to_text().expect("prints");
        assert!(
            text.starts_with("domain: [N] -> { S0[i, j, k] : "),
            "{text}"
        );
        let again = Model::parse(&text).expect("parses its own text");
        assert_eq!(again.to_text().expect("prints"), text);
    }

    #[test]
    fn malformed_models_are_refused_with_a_reason() {
        let bad = [
            ("schedule: { S0[i] -> [0, i, 0] }", "'domain' missing"),
            (
                "domain: { S0[i] : 0 <= i < 4 }\nschedule: { S0[i] -> [0, i, 0] }",
                "'writes' missing",
            ),
            (
                "domain: { S0[i] : 0 <= i < 4 }\nschedule: { S0[i] -> [i, 0, 0] }\nwrites: { S0[i] -> A[i] }",
                "2d + 1 form",
            ),
            (
                "domain: { S0[i] : 0 <= i < 4 }\nschedule: { S0[i] -> [0, i, 0] }\nwrites: { S1[i] -> A[i] }",
                "no statement 'S1'",
            ),
            (
                "domain: { S0[i] : 0 <= i < 4 }\nschedule: { S0[i] -> [0, i, 0] }\nwrites: { S0[i] -> A[i] }\nreads: { S0[i] -> A[i, i] }",
                "two ranks",
            ),
            ("domain: { S0[i] : 0 <= i < 4 }\nsize: 3", "unknown label"),
            (
                "domain: { S0[i] : 0 <= i < 4 }\nschedule: { S0[i] -> [0, i, 0] }\nwrites: { S0[i] -> A[i] : i >= 2 }",
                "does not imply",
            ),
        ];
        for (text, why) in bad {
            let e = Model::parse(text).expect_err(text).to_string();
            assert!(e.contains(why), "{text}: {e}");
        }
    }
}
