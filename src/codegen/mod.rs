//! Code generation by polyhedra scanning: from a [`Plan`] (statements,
//! domains and the final schedule) to a loop [`Node`] tree with affine
//! bounds and guards ([`ast`]: the tree's types, its interpreter and its
//! text), which [`emit`] turns into `affine` operations.
//!
//! # The scattered domain of a statement
//!
//! For statement `S` with iterators `i` and schedule `t = θ(i)`, the
//! iterators are recovered from the loop dimensions: choose, in schedule
//! order, `m` dimensions whose iterator rows are linearly independent; their
//! matrix `A` must be unimodular (`|det A| = 1`) and then
//! `i = A⁻¹·(t_sel - c_sel)` is integral. Substituting it into the domain,
//! into the other dimensions (`t_k = θ_k(i)`) and into the definitions of
//! tile locals (`T·l <= φ(i) <= T·l + T - 1`, with `l = t_tile`) gives a
//! polyhedron over `[params | t]` alone: the set of time points at which `S`
//! runs. A schedule that is not unimodular, or a domain whose strides or
//! divisions cannot be eliminated exactly, is reported as unsupported (the
//! SCoP is then left alone).
//!
//! # Scanning (Quilleré, Rajopadhye & Wilde 2000; Bastoul 2004)
//!
//! Level by level, with a context (the constraints of the enclosing loops
//! and guards):
//!
//! * a scalar dimension splits the statements by their constant value into
//!   a sequence;
//! * a loop dimension gets one loop. Each statement's polyhedron is
//!   projected onto `t_0..t_k` (Fourier–Motzkin); its constraints on `t_k`
//!   are the loop's bounds (a lower bound `a·t_k + r >= 0` is
//!   `t_k >= ⌈-r / a⌉`, an upper one `t_k <= ⌊r / |a|⌋`). When several
//!   statements share the loop, it runs over bounds that are valid for all
//!   of them (each statement's own bounds that the others' polyhedra imply),
//!   and a statement whose own bounds are tighter is guarded.
//! * A statement alone in its subtree gets one `affine.if` with the
//!   constraints not yet implied by the context, then exact loops.
//!
//! Every constraint of a statement's polyhedron is enforced at the level of
//! its innermost dimension, as a bound or a guard, so a statement runs
//! exactly at its time points even where a projection over-approximates;
//! over-approximated outer bounds only cost empty iterations. Implication
//! ("the context implies `r >= 0`") is decided by one exact rational LP:
//! the minimum of `r` over the context exceeds `-1`, which suffices for
//! integer points.

pub mod ast;
pub mod contract;
pub mod emit;
pub mod error;
pub mod forward;
pub mod instances;
pub mod kernels;
pub mod map_text;
mod minima;
pub mod mutate;
pub mod refuse;
pub mod scatter;
pub mod tree;

use thiserror::Error;

use crate::math::fm;
use crate::math::ilp::{norm_eq, norm_ineq, Norm};
use crate::math::int;
use crate::math::simplex::lp_min;
use crate::math::{MathError, Optimum};
use crate::scop::model::{piece_rows, Scop};
use crate::transform::Plan;
pub use ast::{interpret, Bound, Cond, Div, LoopMarks, LoopRole, Node, Row, Stride, Tree};

/// Why no code was generated (the SCoP is then left unchanged).
#[derive(Debug, Clone, Error)]
pub enum CodegenError {
    /// The plan or the model is outside what the generator handles (a limit).
    #[error("{0}")]
    Unsupported(String),
    /// The math core failed (a limit). Printed alone: the callers name
    /// the stage.
    #[error("{0}")]
    Math(#[from] MathError),
}

type Res<T> = Result<T, CodegenError>;

fn unsupported<T>(what: impl Into<String>) -> Res<T> {
    Err(CodegenError::Unsupported(what.into()))
}

/// A conjunction of constraints over `[params | t | constant]`.
#[derive(Debug, Clone, Default)]
struct Poly {
    eqs: Vec<Row>,
    ineqs: Vec<Row>,
}

/// One domain piece of a statement to scan.
#[derive(Debug, Clone)]
struct Item {
    stmt: usize,
    poly: Poly,
    iters: Vec<Row>,
}

struct Gen<'a> {
    plan: &'a Plan,
    np: usize,
    n: usize,
    /// The divisions (columns after the time dimensions).
    divs: Vec<Div>,
    /// Per division, the innermost time dimension it depends on (directly
    /// or through earlier divisions); `None` for parameters only.
    levels: Vec<Option<usize>>,
    /// Context splits made so far (see [`Gen::separate`]), bounded by
    /// [`MAX_SPLITS`] so that the code stays small.
    splits: std::cell::Cell<usize>,
    /// The minima [`Gen::implies`] found, per context and per row without
    /// its constant: bounds that differ by constants (a register block's
    /// rows and columns, a tile's) ask the same LP.
    minima: std::cell::RefCell<Minima>,
}

/// A context's equalities and inequalities, each sorted and distinct.
type Context = (Vec<Row>, Vec<Row>);

/// Per context, what the LPs on it found.
#[derive(Default)]
struct Minima {
    /// Each context met, with what its LPs found.
    known: Vec<(std::rc::Rc<Context>, minima::ContextMinima)>,
    /// The position of each context in `known`.
    index: std::collections::HashMap<std::rc::Rc<Context>, usize>,
    /// The last context asked about, its rows as given, and its position:
    /// most questions ask about the same context as the one before (four
    /// in five on a fuzz program's 300,000), which then needs no sorting
    /// and no hashing.
    last: Option<(Poly, usize)>,
}

/// How many of the latest contexts a new one may grow from (see
/// [`Gen::with_minima`]).
const GROW_FROM: usize = 16;

/// Largest number of context splits in one generated tree.
const MAX_SPLITS: usize = 16;

/// Context splits allowed in all when a loop has no bound that holds for
/// all its statements and none loosened to hold for all is bounded
/// (without one, no code at all): separation, an optimization, stops at
/// [`MAX_SPLITS`] and leaves the rest for these.
const MAX_BOUND_SPLITS: usize = 32;

/// What [`Gen::separate`] found.
enum Separation {
    /// The loop split into consecutive loops.
    Done(Node),
    /// Two event points whose order the context does not decide: the row
    /// `b - a` (`a <= b` when it is non-negative).
    Undecided(Row),
    /// Nothing to separate, or bounds it cannot handle.
    No,
}

/// Inequalities past which a Fourier–Motzkin projection drops the
/// redundant ones after each step (skewed tiles of wavefronts inside tiles
/// would otherwise grow past the row limit).
const PRUNE_ROWS: usize = 40;

/// Lower-upper pairs past which a Fourier–Motzkin step of a projection
/// drops the implied rows first (and takes the cheapest column if that is
/// not enough).
const BIG_STEP: usize = 512;

/// Generates the loop tree of `plan` for `scop`.
pub fn generate(scop: &Scop, plan: &Plan) -> Res<Tree> {
    let np = scop.params.len();
    let n = plan.dims.len();
    let Scatter { items, divs } = scatter_all(scop, plan)?;
    let levels = div_levels(&divs, np, n);
    let g = Gen {
        plan,
        np,
        n,
        divs,
        levels,
        splits: std::cell::Cell::new(0),
        minima: Default::default(),
    };
    let items = g.split_register_blocks(items)?;
    let ctx = g.div_context();
    let root = g.scan(0, items, &ctx)?;
    Ok(Tree {
        root: unroll(root, plan, np, &mut Vec::new()),
        divs: g.divs,
        dims: n,
        register_sizes: vec![0; scop.statements.len()],
        forward: false,
        launches: Vec::new(),
        size_test: None,
    })
}

/// The scattered pieces of every statement, their rows over one shared
/// table of divisions.
struct Scatter {
    items: Vec<Item>,
    divs: Vec<Div>,
}

/// Per division, the innermost time dimension it depends on.
fn div_levels(divs: &[Div], np: usize, n: usize) -> Vec<Option<usize>> {
    let mut levels: Vec<Option<usize>> = Vec::with_capacity(divs.len());
    for d in divs {
        let mut l = (0..n).rev().find(|&k| d.row[np + k] != 0);
        for (j, lj) in levels.iter().enumerate() {
            if d.row.get(np + n + j).is_some_and(|&c| c != 0) {
                l = l.max(*lj);
            }
        }
        levels.push(l);
    }
    levels
}

/// Inserts zero columns before the constant until `row` has `width` entries.
fn widen(row: &mut Row, width: usize) {
    let last = row.len() - 1;
    while row.len() < width {
        row.insert(last, 0);
    }
}

/// [`scattered`] for every statement, with the pieces' divisions merged
/// into one table (equal divisions share a column).
fn scatter_all(scop: &Scop, plan: &Plan) -> Res<Scatter> {
    let np = scop.params.len();
    let n = plan.dims.len();
    let front = np + n;
    let mut table: Vec<Div> = Vec::new();
    let mut pieces: Vec<(usize, scatter::Scattered, Vec<usize>)> = Vec::new();
    for s in 0..scop.statements.len() {
        for p in scattered(scop, plan, s)? {
            // Local division j is global division map[j].
            let mut map: Vec<usize> = Vec::new();
            for d in &p.divs {
                let mut row = vec![0i64; front + table.len() + 1];
                row[..front].copy_from_slice(&d.row[..front]);
                row[front + table.len()] = d.row[d.row.len() - 1];
                for (j, &g) in map.iter().enumerate() {
                    row[front + g] = row[front + g]
                        .checked_add(d.row[front + j])
                        .ok_or(MathError::Overflow)?;
                }
                let found = table.iter().position(|t| {
                    let mut tr = t.row.clone();
                    widen(&mut tr, row.len());
                    t.den == d.den && tr == row
                });
                let g = match found {
                    Some(g) => g,
                    None => {
                        // Over the parameters, the time dimensions and the
                        // divisions before it.
                        table.push(Div { row, den: d.den });
                        table.len() - 1
                    }
                };
                map.push(g);
            }
            pieces.push((s, p, map));
        }
    }
    let nd = table.len();
    let width = front + nd + 1;
    let remap = |r: &Row, map: &[usize]| -> Result<Row, MathError> {
        let mut out = vec![0i64; width];
        out[..front].copy_from_slice(&r[..front]);
        for (j, &g) in map.iter().enumerate() {
            out[front + g] = out[front + g]
                .checked_add(r[front + j])
                .ok_or(MathError::Overflow)?;
        }
        out[width - 1] = r[r.len() - 1];
        Ok(out)
    };
    let mut items = Vec::new();
    for (s, p, map) in pieces {
        let mut poly = Poly {
            eqs: p
                .eqs
                .iter()
                .map(|r| remap(r, &map))
                .collect::<Result<_, _>>()?,
            ineqs: p
                .ineqs
                .iter()
                .map(|r| remap(r, &map))
                .collect::<Result<_, _>>()?,
        };
        if !normalize(&mut poly)? {
            continue;
        }
        items.push(Item {
            stmt: s,
            poly,
            iters: p
                .iters
                .iter()
                .map(|r| remap(r, &map))
                .collect::<Result<_, _>>()?,
        });
    }
    Ok(Scatter { items, divs: table })
}

/// Largest trip count of a loop that [`unroll`] replaces by its iterations.
const MAX_UNROLL: i64 = 16;

/// Replaces each loop over a dimension the plan marks `unroll` whose trip
/// count is a constant (one lower and one upper bound, both undivided,
/// differing by a constant once the values of the enclosing
/// [`Node::Let`]s are put in) of at most [`MAX_UNROLL`] by the sequence of
/// its iterations, each a [`Node::Let`]. Other loops stay loops: this only
/// restates what the loop does. `env` holds the values of the enclosing
/// lets of [`Plan::rows_first`]'s dimensions (outermost first, each over
/// the outer dimensions and parameters): inside a partial register block's
/// row `a`, the loop over the row's cells, `8q <= j <= 8q + a`, has a
/// constant trip count, and the row is then straight-line code whose cells
/// stay in registers across the loop around it (a loop of its own:
/// [`partial_rows`]). Elsewhere those loops are left to LLVM, as before.
fn unroll(node: Node, plan: &Plan, np: usize, env: &mut Vec<(usize, Row)>) -> Node {
    match node {
        Node::Seq(v) => Node::Seq(v.into_iter().map(|n| unroll(n, plan, np, env)).collect()),
        Node::Loop {
            dim,
            lower,
            upper,
            stride,
            role,
            marks,
            body,
        } => {
            let trip = match (&lower[..], &upper[..]) {
                ([lo], [hi]) if lo.div == 1 && hi.div == 1 && stride.is_none() => {
                    let (lo_v, hi_v) = (in_env(&lo.row, env, np), in_env(&hi.row, env, np));
                    let last = lo_v.len() - 1;
                    let same = lo_v.len() == hi_v.len() && lo_v[..last] == hi_v[..last];
                    match hi_v[last].checked_sub(lo_v[last]) {
                        Some(d) if same && (0..MAX_UNROLL).contains(&d) => Some(d + 1),
                        _ => None,
                    }
                }
                _ => None,
            };
            match trip {
                Some(t)
                    if plan.dims.get(dim).is_some_and(|d| d.unroll)
                        && lower[0]
                            .row
                            .last()
                            .is_some_and(|c| c.checked_add(t).is_some()) =>
                {
                    let lo = &lower[0].row;
                    let last = lo.len() - 1;
                    Node::Seq(
                        (0..t)
                            .map(|i| {
                                let mut row = lo.clone();
                                row[last] += i;
                                let body =
                                    unroll_under_let((*body).clone(), dim, &row, plan, np, env);
                                Node::Let {
                                    dim,
                                    row,
                                    body: Box::new(body),
                                }
                            })
                            .collect(),
                    )
                }
                _ => {
                    let body = unroll(*body, plan, np, env);
                    if plan.rows_first.contains(&(dim + 1)) {
                        if let Some(rows) = partial_rows(&body, dim, np) {
                            // Each row with the loop inside it.
                            return Node::Seq(
                                rows.into_iter()
                                    .map(|(u, row, cells)| Node::Let {
                                        dim: u,
                                        row,
                                        body: Box::new(Node::Loop {
                                            dim,
                                            lower: lower.clone(),
                                            upper: upper.clone(),
                                            stride: stride.clone(),
                                            role,
                                            marks: marks.clone(),
                                            body: Box::new(cells),
                                        }),
                                    })
                                    .collect(),
                            );
                        }
                    }
                    Node::Loop {
                        dim,
                        lower,
                        upper,
                        stride,
                        role,
                        marks,
                        body: Box::new(body),
                    }
                }
            }
        }
        Node::If { conds, body } => Node::If {
            conds,
            body: Box::new(unroll(*body, plan, np, env)),
        },
        Node::Let { dim, row, body } => {
            let body = unroll_under_let(*body, dim, &row, plan, np, env);
            Node::Let {
                dim,
                row,
                body: Box::new(body),
            }
        }
        stmt @ Node::Stmt { .. } => stmt,
    }
}

/// `row` with the dimensions `env` fixes replaced by their values (each
/// value already over the dimensions outside the lets: [`subst_row`]);
/// `row` itself where a width differs or a coefficient overflows.
fn in_env(row: &Row, env: &[(usize, Row)], np: usize) -> Row {
    if env
        .iter()
        .any(|(d, v)| row[np + d] != 0 && v.len() != row.len())
    {
        return row.clone();
    }
    subst_row(row, env, np).unwrap_or_else(|| row.clone())
}

/// `body` under the let `dim = row`, unrolled ([`unroll`]), with the let's
/// value in `env` when its dimension is one of [`Plan::rows_first`].
fn unroll_under_let(
    body: Node,
    dim: usize,
    row: &Row,
    plan: &Plan,
    np: usize,
    env: &mut Vec<(usize, Row)>,
) -> Node {
    let fixed = plan.rows_first.contains(&dim);
    if fixed {
        env.push((dim, in_env(row, env, np)));
    }
    let body = unroll(body, plan, np, env);
    if fixed {
        env.pop();
    }
    body
}

/// Substitutes the rows of `env` (dimension, row over `[params | t | 1]`)
/// for those dimensions in `row`; `None` on overflow.
pub(crate) fn subst_row(row: &Row, env: &[(usize, Row)], np: usize) -> Option<Row> {
    let mut out = row.clone();
    for (d, e) in env {
        let c = out[np + d];
        if c != 0 {
            out[np + d] = 0;
            for (o, x) in out.iter_mut().zip(e) {
                *o = o.checked_add(c.checked_mul(*x)?)?;
            }
        }
    }
    Some(out)
}

/// The rows of a partial register block, when `body` (a loop over `k`'s
/// body, unrolled) is one: a sequence of two or more lets of the same
/// dimension, none of them over `k`, each around straight-line code (its
/// cells, unrolled), not all with the same number of statement instances
/// (a triangle's diagonal: row `a` has `a + 1` cells). Per row: its
/// dimension, value and body.
fn partial_rows(body: &Node, k: usize, np: usize) -> Option<Vec<(usize, Row, Node)>> {
    fn instances(n: &Node) -> Option<usize> {
        match n {
            Node::Seq(v) => v.iter().map(instances).sum(),
            Node::Let { body, .. } => instances(body),
            Node::Stmt { .. } => Some(1),
            Node::Loop { .. } | Node::If { .. } => None,
        }
    }
    let Node::Seq(rows) = body else {
        return None;
    };
    let mut out = Vec::new();
    let mut counts = Vec::new();
    for r in rows {
        let Node::Let { dim, row, body } = r else {
            return None;
        };
        if row[np + k] != 0 || out.first().is_some_and(|(u, _, _)| u != dim) {
            return None;
        }
        counts.push(instances(body)?);
        out.push((*dim, row.clone(), (**body).clone()));
    }
    (out.len() >= 2 && counts.iter().any(|&c| c != counts[0])).then_some(out)
}

/// An upper estimate of the statement instances one execution of a loop
/// over dimension `k` runs: per domain piece, the product over the loop
/// dimensions `j >= k` of their width with the dimensions outside `j` fixed,
/// `max { t_j - s_j : t, s in the piece, t_<j = s_<j }` plus one (one
/// rational LP each over two copies of the piece), summed over pieces.
/// `None` when a width is unbounded (parametric sizes): then the work is
/// assumed large.
pub fn work_per_loop(scop: &Scop, plan: &Plan, k: usize) -> Res<Option<f64>> {
    let np = scop.params.len();
    let n = plan.dims.len();
    let Scatter { items, divs } = scatter_all(scop, plan)?;
    // Variables of one copy (the divisions free: an over-estimate).
    let w = np + n + divs.len();
    let mut total = 0.0;
    {
        for it in items {
            // Two copies [params | t | params' | t'] with params and t_<k shared.
            let widen = |r: &Row, second: bool| -> Row {
                let mut out = vec![0i64; 2 * w + 1];
                let off = if second { w } else { 0 };
                out[off..off + w].copy_from_slice(&r[..w]);
                out[2 * w] = r[w];
                out
            };
            let mut eqs: Vec<Row> = Vec::new();
            let mut ineqs: Vec<Row> = Vec::new();
            for second in [false, true] {
                eqs.extend(it.poly.eqs.iter().map(|r| widen(r, second)));
                ineqs.extend(it.poly.ineqs.iter().map(|r| widen(r, second)));
            }
            let same = |c: usize| {
                let mut r = vec![0i64; 2 * w + 1];
                r[c] = 1;
                r[w + c] = -1;
                r
            };
            for c in (0..np).chain((0..k).map(|j| np + j)) {
                eqs.push(same(c));
            }
            let mut work = 1.0;
            for j in k..n {
                // The loops are nested: dimension j's width with every
                // outer dimension fixed. The blocks of an unroll-and-jam
                // are left free: the unrolled dimension's width is then
                // that of the loop the two split (with the block fixed
                // and its division free, blocks times the unrolled width
                // would over-count).
                if j > k && !plan.dims[j - 1].jam_block {
                    eqs.push(same(np + j - 1));
                }
                if plan.dims[j].scalar || plan.dims[j].jam_block {
                    continue;
                }
                // min (s_j - t_j) = -(max width)
                let mut obj = vec![0i64; 2 * w + 1];
                obj[np + j] = -1;
                obj[w + np + j] = 1;
                match lp_min(2 * w, &eqs, &ineqs, &obj)? {
                    Optimum::Bounded((v, _)) => {
                        let width = -(v.num() as f64) / v.den() as f64;
                        work *= width.max(0.0) + 1.0;
                    }
                    Optimum::Empty => {
                        work = 0.0;
                        break;
                    }
                    Optimum::Unbounded => return Ok(None),
                }
            }
            total += work;
        }
    }
    Ok(Some(total))
}

/// The statement's domain pieces in the time space ([`scatter`]): rows
/// over `[params | t | divisions of the piece | constant]`, with its
/// iterators. Empty pieces are left out.
fn scattered(scop: &Scop, plan: &Plan, s: usize) -> Res<Vec<scatter::Scattered>> {
    let st = &scop.statements[s];
    let np = scop.params.len();
    let m = st.iters.len();
    let n = plan.dims.len();
    let dims = &plan.schedule.dims[s];
    let slocals = &plan.schedule.locals[s];
    let ndl = st.locals.count;
    let nsl = slocals.count;
    // Layout: [params | t | iterators | domain locals | schedule locals | 1].
    let front = np + n;
    let ne = m + ndl + nsl;
    let x = front + ne + 1;
    // A form over (params, iters, locals) as a row; `sched` says whose locals.
    let row_of = |f: &crate::scop::form::Form, sched: bool| -> Res<Row> {
        let mut r = vec![0i64; x];
        if f.params.len() > np || f.iters.len() > m {
            return unsupported(format!("a form of {} has too many variables", st.name));
        }
        for (p, &v) in f.params.iter().enumerate() {
            r[p] = v;
        }
        for (j, &v) in f.iters.iter().enumerate() {
            r[front + j] = v;
        }
        let (off, count) = if sched {
            (front + m + ndl, nsl)
        } else {
            (front + m, ndl)
        };
        if f.locals.len() > count {
            return unsupported(format!("a form of {} has too many locals", st.name));
        }
        for (l, &v) in f.locals.iter().enumerate() {
            r[off + l] = v;
        }
        r[x - 1] = f.constant;
        Ok(r)
    };
    let mut common_eqs = Vec::new();
    let mut common_ineqs = Vec::new();
    for (k, f) in dims.iter().enumerate() {
        // t_k - θ_k(i) = 0
        let mut r = row_of(f, true)?;
        for v in r.iter_mut() {
            *v = v.checked_neg().ok_or(MathError::Overflow)?;
        }
        r[np + k] = 1;
        common_eqs.push(r);
    }
    for f in &slocals.eqs {
        common_eqs.push(row_of(f, true)?);
    }
    for f in &slocals.ineqs {
        common_ineqs.push(row_of(f, true)?);
    }
    let mut out = Vec::new();
    for piece in &st.domain {
        let (deqs, dineqs) = piece_rows(st, piece, np, m, ndl);
        let to_form = |r: &Vec<i64>| crate::scop::form::Form {
            params: r[..np].to_vec(),
            iters: r[np..np + m].to_vec(),
            locals: r[np + m..np + m + ndl].to_vec(),
            constant: r[np + m + ndl],
        };
        let mut eqs = common_eqs.clone();
        let mut ineqs = common_ineqs.clone();
        for r in &deqs {
            eqs.push(row_of(&to_form(r), false)?);
        }
        for r in &dineqs {
            ineqs.push(row_of(&to_form(r), false)?);
        }
        match scatter::eliminate(front, ne, m, eqs, ineqs) {
            Ok(Some(p)) => out.push(p),
            Ok(None) => {}
            Err(CodegenError::Unsupported(why)) => {
                return unsupported(format!("{}: {why}", st.name));
            }
            Err(e) => return Err(e),
        }
    }
    Ok(out)
}

/// A lower row `t + e >= 0` of `lo` and an upper row of `up` that sum to
/// zero (`-t - e >= 0`), when there are other rows besides: their
/// positions. Together they fix `t = -e`.
fn equal_bounds(lo: &[Row], up: &[Row], col: usize) -> Res<Option<(usize, usize)>> {
    if lo.len() + up.len() <= 2 {
        return Ok(None);
    }
    for (i, l) in lo.iter().enumerate() {
        if l[col].abs() != 1 {
            continue;
        }
        for (j, u) in up.iter().enumerate() {
            let mut zero = true;
            for (a, b) in l.iter().zip(u) {
                if a.checked_add(*b).ok_or(MathError::Overflow)? != 0 {
                    zero = false;
                    break;
                }
            }
            if zero {
                return Ok(Some((i, j)));
            }
        }
    }
    Ok(None)
}

/// The integer range `[max ⌈-c/a⌉, min ⌊c/a⌋]` of `t` (column `col`) under
/// lower rows `a·t + c >= 0` (`a > 0`) and upper rows `-a·t + c >= 0` when
/// every row is a constant bound (empty when the first exceeds the
/// second); `None` when some row is not.
fn constant_range(lo: &[Row], up: &[Row], col: usize) -> Res<Option<(i64, i64)>> {
    let constant = |r: &Row| (0..r.len() - 1).all(|c| c == col || r[c] == 0);
    if lo.is_empty() || up.is_empty() || !lo.iter().chain(up).all(constant) {
        return Ok(None);
    }
    let last = lo[0].len() - 1;
    let mut l = i64::MIN;
    for r in lo {
        // ⌈-c/a⌉ = -⌊c/a⌋ (a > 0)
        let v = r[last]
            .div_euclid(r[col])
            .checked_neg()
            .ok_or(MathError::Overflow)?;
        l = l.max(v);
    }
    let mut u = i64::MAX;
    for r in up {
        u = u.min(r[last].div_euclid(-r[col]));
    }
    Ok(Some((l, u)))
}

fn mul(a: i64, b: i64) -> Result<i64, MathError> {
    a.checked_mul(b).ok_or(MathError::Overflow)
}

fn add_scaled(r: &mut [i64], col: usize, v: i64) -> Result<(), MathError> {
    r[col] = r[col].checked_add(v).ok_or(MathError::Overflow)?;
    Ok(())
}

/// Normalizes rows; false when some row is infeasible (the set is empty).
fn normalize(p: &mut Poly) -> Res<bool> {
    let mut eqs = Vec::new();
    for r in &p.eqs {
        match norm_eq(r)? {
            Norm::Trivial => {}
            Norm::Infeasible => return Ok(false),
            Norm::Row(r) => {
                if !eqs.contains(&r) {
                    eqs.push(r)
                }
            }
        }
    }
    let mut ineqs = Vec::new();
    for r in &p.ineqs {
        match norm_ineq(r)? {
            Norm::Trivial => {}
            Norm::Infeasible => return Ok(false),
            Norm::Row(r) => {
                if !ineqs.contains(&r) {
                    ineqs.push(r)
                }
            }
        }
    }
    p.eqs = eqs;
    p.ineqs = ineqs;
    Ok(true)
}

/// `p` has a row that no point satisfies (`-1 >= 0`, or `1 = 0`): what a
/// projection keeps of an empty set (`drop_redundant_ineqs`, or a
/// Fourier–Motzkin step that finds the rows contradictory).
fn obviously_empty(p: &Poly) -> bool {
    p.eqs
        .iter()
        .any(|r| matches!(norm_eq(r), Ok(Norm::Infeasible)))
        || p.ineqs
            .iter()
            .any(|r| matches!(norm_ineq(r), Ok(Norm::Infeasible)))
}

impl Gen<'_> {
    fn width(&self) -> usize {
        self.np + self.n + self.divs.len() + 1
    }

    fn col(&self, k: usize) -> usize {
        self.np + k
    }

    /// The column of division `j`.
    fn div_col(&self, j: usize) -> usize {
        self.np + self.n + j
    }

    /// The definitions of the divisions, `c·q <= e <= c·q + c - 1` each:
    /// always true, the context every scan starts from (so that the LPs
    /// know what a division is), never emitted as guards.
    fn div_context(&self) -> Poly {
        let w = self.width();
        let mut ctx = Poly::default();
        for (j, d) in self.divs.iter().enumerate() {
            let mut e = d.row.clone();
            widen(&mut e, w);
            let q = self.div_col(j);
            // e - c·q >= 0
            let mut lo = e.clone();
            lo[q] -= d.den;
            // c·q + c - 1 - e >= 0
            let mut hi: Row = e.iter().map(|v| -v).collect();
            hi[q] += d.den;
            hi[w - 1] += d.den - 1;
            ctx.ineqs.push(lo);
            ctx.ineqs.push(hi);
        }
        ctx
    }

    /// True when `row` uses a time dimension `>= k` or a division that
    /// depends on one.
    fn mentions_from(&self, row: &Row, k: usize) -> bool {
        (k..self.n).any(|d| row[self.col(d)] != 0)
            || self
                .levels
                .iter()
                .enumerate()
                .any(|(j, l)| row[self.div_col(j)] != 0 && l.is_some_and(|l| l >= k))
    }

    /// The stride every item of a loop over `t_k` shares, as the equality
    /// that says it and the loop's [`Stride`]: an equality `h + g·q = 0` of
    /// each item (the same one), `q = ⌊-h / g⌋` a division of level `k`,
    /// `h = ±t_k + f` with `f` over outer dimensions, parameters and outer
    /// divisions ([`scatter`]'s divisibility rows: `g` divides `h`, so
    /// `t_k ≡ ∓f (mod g)`). `None` when the items have none or not the
    /// same one: then the loop runs every value and a guard inside keeps
    /// the residue class (also exact, slower).
    fn stride_of(&self, k: usize, items: &[Item]) -> Res<Option<(Row, Stride)>> {
        let col = self.col(k);
        let w = self.width();
        let defs = self.div_context();
        let mut found: Option<(Row, Stride)> = None;
        for it in items {
            let mut mine: Option<(Row, Stride)> = None;
            for r in &it.poly.eqs {
                if r[col].abs() != 1 || (k + 1..self.n).any(|d| r[self.col(d)] != 0) {
                    continue;
                }
                let own: Vec<usize> = (0..self.divs.len())
                    .filter(|&j| r[self.div_col(j)] != 0 && self.levels[j].is_some_and(|l| l >= k))
                    .collect();
                let [j] = own[..] else { continue };
                let q = self.div_col(j);
                let g = self.divs[j].den;
                // Orient as h + g·q = 0.
                let row: Row = if r[q] == g {
                    r.clone()
                } else if r[q] == -g {
                    r.iter().map(|v| -v).collect()
                } else {
                    continue;
                };
                // q = ⌊-h / g⌋: its definition's dividend is -h.
                let mut minus_h: Row = row.iter().map(|v| -v).collect();
                minus_h[q] = 0;
                let mut e = defs.ineqs[2 * j].clone();
                e[q] = 0; // the dividend alone
                if e != minus_h || g < 2 {
                    continue;
                }
                // h = a·t_k + f: t_k ≡ -a·f (mod g) (a = ±1).
                let a = row[col];
                let mut offset: Row = row.iter().map(|v| -a * v).collect();
                offset[col] = 0;
                offset[q] = 0;
                debug_assert_eq!(offset.len(), w);
                mine = Some((row, Stride { step: g, offset }));
                break;
            }
            let Some(m) = mine else { return Ok(None) };
            match &found {
                None => found = Some(m),
                Some(f) if *f == m => {}
                Some(_) => return Ok(None),
            }
        }
        Ok(found)
    }

    /// `p` without divisions: each one it uses (with the ones their
    /// definitions use) eliminated by Fourier–Motzkin with its definition
    /// (a rational shadow: it may over-approximate).
    fn strip_divs(&self, p: &Poly) -> Res<Poly> {
        let nd = self.divs.len();
        let mut used = vec![false; nd];
        for r in p.eqs.iter().chain(&p.ineqs) {
            for (j, u) in used.iter_mut().enumerate() {
                *u |= r[self.div_col(j)] != 0;
            }
        }
        if !used.iter().any(|&u| u) {
            return Ok(p.clone());
        }
        let defs = self.div_context();
        for j in (0..nd).rev() {
            if used[j] {
                for r in &defs.ineqs[2 * j..2 * j + 2] {
                    for (i, u) in used.iter_mut().enumerate().take(j) {
                        *u |= r[self.div_col(i)] != 0;
                    }
                }
            }
        }
        let mut eqs = p.eqs.clone();
        let mut ineqs = p.ineqs.clone();
        for j in (0..nd).rev().filter(|&j| used[j]) {
            ineqs.push(defs.ineqs[2 * j].clone());
            ineqs.push(defs.ineqs[2 * j + 1].clone());
            let e = fm::eliminate(&eqs, &ineqs, self.div_col(j))?;
            eqs = e.eqs;
            ineqs = e.ineqs;
            if e.infeasible {
                let mut r = vec![0i64; self.width()];
                r[self.width() - 1] = -1;
                ineqs.push(r);
                break;
            }
            if ineqs.len() > PRUNE_ROWS {
                ineqs = crate::math::ilp::drop_redundant_ineqs(self.width() - 1, &eqs, &ineqs)?;
            }
        }
        let mut q = Poly { eqs, ineqs };
        normalize(&mut q)?;
        Ok(q)
    }

    /// True when `row` uses some division.
    fn has_div(&self, row: &Row) -> bool {
        (0..self.divs.len()).any(|j| row[self.div_col(j)] != 0)
    }

    /// Register tiles ([`Plan::register_tiles`]) and the blocks of row
    /// blocks and column streams ([`Plan::block_dims`]): each statement piece is split into the part
    /// whose blocks are full and the rest, so that full blocks get constant
    /// trip counts and unroll ([`Generator::split_blocks`]).
    fn split_register_blocks(&self, items: Vec<Item>) -> Res<Vec<Item>> {
        let mut items = items;
        for t in &self.plan.register_tiles {
            let (u, ru, rv) = (t.first, t.rows, t.columns);
            let (Some(qu), Some(qv)) = (t.row_blocks(), t.vector_blocks()) else {
                continue;
            };
            if u + 1 >= self.n {
                continue;
            }
            items = self.split_blocks(items, &[(qu, u, ru), (qv, u + 1, rv)])?;
        }
        // Row blocks and column streams: the blocks' loop, the loop inside
        // them, the unrolled rows.
        for b in &self.plan.block_dims {
            if b.unrolled >= self.n || b.blocks >= b.unrolled {
                continue;
            }
            items = self.split_blocks(items, &[(b.blocks, b.unrolled, b.size)])?;
        }
        Ok(items)
    }

    /// Splits each statement piece of `items` into the part whose blocks
    /// are full and the rest: per `(q, t, size)` of `blocks`, dimension `t`
    /// is unrolled over blocks `t = size·q + a`, `0 <= a < size`, of
    /// dimension `q`. A block is full where every inequality on the
    /// unrolled dimensions (and on dimensions outside them) holds at the
    /// block's worst corner, `a ∈ {0, size-1}` chosen by the sign of the
    /// coefficient. The pieces partition the original one, so the code
    /// runs the same instances.
    fn split_blocks(&self, items: Vec<Item>, blocks: &[(usize, usize, i64)]) -> Res<Vec<Item>> {
        /// Most pieces one statement piece is split into.
        const MAX_PIECES: usize = 6;
        let Some(last_unrolled) = blocks.iter().map(|&(_, t, _)| t).max() else {
            return Ok(items);
        };
        let cols: Vec<usize> = blocks.iter().map(|&(_, t, _)| self.col(t)).collect();
        let mut out = Vec::new();
        for item in items {
            let touches = |row: &Row| cols.iter().any(|&c| row[c] != 0);
            if item.poly.eqs.iter().any(touches)
                || item
                    .poly
                    .eqs
                    .iter()
                    .chain(&item.poly.ineqs)
                    .any(|r| self.has_div(r))
            {
                out.push(item);
                continue;
            }
            let mut corners = Vec::new();
            for row in item.poly.ineqs.iter().filter(|r| touches(r)) {
                if (last_unrolled + 1..self.n).any(|d| row[self.col(d)] != 0) {
                    continue;
                }
                let mut f = row.clone();
                let last = f.len() - 1;
                for &(q, t, size) in blocks {
                    let c = self.col(t);
                    let a = f[c];
                    f[c] = 0;
                    add_scaled(&mut f, self.col(q), mul(a, size)?)?;
                    if a < 0 {
                        add_scaled(&mut f, last, mul(a, size - 1)?)?;
                    }
                }
                // Tightened to integers (`4q - 32l >= 0` is `q - 8l >= 0`),
                // so that its negation is exact over the rationals too.
                if let Norm::Row(f) = norm_ineq(&f)? {
                    if !corners.contains(&f) {
                        corners.push(f);
                    }
                }
            }
            // (piece, may still be split: the full candidate)
            let mut pieces = vec![(item.clone(), true)];
            for f in &corners {
                let mut next = Vec::new();
                for (p, open) in pieces {
                    if !open {
                        next.push((p, false));
                        continue;
                    }
                    let mut full = p.clone();
                    full.poly.ineqs.push(f.clone());
                    let mut part = p.clone();
                    let mut neg: Row = f.iter().map(|x| -x).collect();
                    let last = neg.len() - 1;
                    add_scaled(&mut neg, last, -1)?;
                    part.poly.ineqs.push(neg);
                    if !self.feasible(&part.poly)? {
                        next.push((p, true));
                    } else if !self.feasible(&full.poly)? {
                        next.push((p, false));
                    } else {
                        next.push((full, true));
                        next.push((part, false));
                    }
                }
                pieces = next;
            }
            if pieces.len() > MAX_PIECES {
                out.push(item);
            } else {
                out.extend(pieces.into_iter().map(|(p, _)| p));
            }
        }
        Ok(out)
    }

    /// True when `ctx` implies `row >= 0` (exact rational test; an empty
    /// context implies everything).
    fn implies(&self, ctx: &Poly, row: &Row) -> Res<bool> {
        let nv = self.width() - 1;
        let Some((&constant, linear)) = row.split_last() else {
            return Ok(true);
        };
        // Without an LP: an inequality of the context with the same linear
        // part and a constant no larger implies it.
        let implied_by = |r: &Row| r[..nv] == *linear && r[nv] <= constant;
        if ctx.ineqs.iter().any(implied_by) {
            return Ok(true);
        }
        // `row >= 0` at every integer point: `row > -1` at every rational
        // one suffices (the row's coefficients are integers).
        self.with_minima(ctx, |known, eqs, ineqs| known.exceeds(eqs, ineqs, row, -1))
    }

    /// `f` on what the LPs over `ctx` found so far (the same context
    /// whatever the order or repetition of its rows: contexts are built by
    /// concatenation).
    fn with_minima<T>(
        &self,
        ctx: &Poly,
        f: impl FnOnce(&mut minima::ContextMinima, &[Row], &[Row]) -> Result<T, MathError>,
    ) -> Res<T> {
        let distinct = |rows: &[Row]| -> Vec<Row> {
            let mut v = rows.to_vec();
            v.sort();
            v.dedup();
            v
        };
        let mut minima = self.minima.borrow_mut();
        let m = &mut *minima;
        let (at, fresh) = match &m.last {
            Some((last, at)) if last.eqs == ctx.eqs && last.ineqs == ctx.ineqs => (*at, false),
            _ => {
                let context = (distinct(&ctx.eqs), distinct(&ctx.ineqs));
                let (at, fresh) = match m.index.get(&context) {
                    Some(&at) => (at, false),
                    None => {
                        // A context is mostly one met shortly before and a
                        // row or two more (a guard, an inner loop's
                        // bounds): its simplex then starts from that
                        // one's, the largest such among the last context
                        // and the latest made.
                        let recent = m.known.len().saturating_sub(GROW_FROM)..m.known.len();
                        let parent = (m.last.iter().map(|&(_, at)| at))
                            .chain(recent.rev())
                            .filter(|&at| minima::contains(&context, &m.known[at].0))
                            .max_by_key(|&at| m.known[at].0 .0.len() + m.known[at].0 .1.len());
                        let grown = parent.and_then(|at| {
                            let (parent, known) = &m.known[at];
                            known.grown(parent, &context)
                        });
                        let context = std::rc::Rc::new(context);
                        m.known.push((context.clone(), grown.unwrap_or_default()));
                        m.index.insert(context, m.known.len() - 1);
                        (m.known.len() - 1, true)
                    }
                };
                m.last = Some((ctx.clone(), at));
                (at, fresh)
            }
        };
        let (context, known) = &mut m.known[at];
        let answer = f(known, &context.0, &context.1);
        // A context whose first question failed is not kept.
        if answer.is_err() && fresh {
            let (context, _) = m.known.pop().expect("pushed above");
            m.index.remove(&context);
            m.last = None;
        }
        Ok(answer?)
    }

    /// False when `p` has no rational point (then it has no integer one).
    fn feasible(&self, p: &Poly) -> Res<bool> {
        let nv = self.width() - 1;
        let zero = vec![0i64; self.width()];
        Ok(!matches!(
            lp_min(nv, &p.eqs, &p.ineqs, &zero)?,
            Optimum::Empty
        ))
    }

    fn implies_cond(&self, ctx: &Poly, c: &Cond) -> Res<bool> {
        if !self.implies(ctx, &c.row)? {
            return Ok(false);
        }
        if c.eq {
            let neg: Row = c.row.iter().map(|v| -v).collect();
            return self.implies(ctx, &neg);
        }
        Ok(true)
    }

    /// Projects `p` onto `t_0..t_k` (Fourier–Motzkin; may over-approximate).
    /// Past [`PRUNE_ROWS`] inequalities, the redundant ones are dropped after
    /// each step (one LP each).
    fn project(&self, p: &Poly, k: usize) -> Res<Poly> {
        let mut eqs = p.eqs.clone();
        let mut ineqs = p.ineqs.clone();
        // Divisions that depend on t_k or deeper go too (their definitions
        // added first, the latest division first).
        let late: Vec<usize> = (0..self.divs.len())
            .filter(|&j| self.levels[j].is_some_and(|l| l >= k))
            .collect();
        let mut cols: Vec<usize> = Vec::new();
        if !late.is_empty() {
            let defs = self.div_context();
            let used = |j: usize, eqs: &[Row], ineqs: &[Row]| {
                eqs.iter().chain(ineqs).any(|r| r[self.div_col(j)] != 0)
            };
            for &j in late.iter().rev() {
                if used(j, &eqs, &ineqs) {
                    ineqs.push(defs.ineqs[2 * j].clone());
                    ineqs.push(defs.ineqs[2 * j + 1].clone());
                }
            }
            cols.extend(late.iter().rev().map(|&j| self.div_col(j)));
        }
        cols.extend((k + 1..self.n).rev().map(|d| self.col(d)));
        let pairs = |ineqs: &[Row], eqs: &[Row], col: usize| -> usize {
            if eqs.iter().any(|r| r[col] != 0) {
                return 0;
            }
            let lo = ineqs.iter().filter(|r| r[col] > 0).count();
            let up = ineqs.iter().filter(|r| r[col] < 0).count();
            lo * up
        };
        let mut cols = std::collections::VecDeque::from(cols);
        while let Some(mut col) = cols.pop_front() {
            if !eqs.iter().chain(&ineqs).any(|r| r[col] != 0) {
                continue;
            }
            // A step that would make many rows: the implied ones go
            // first, and if that is not enough, the cheapest column.
            if pairs(&ineqs, &eqs, col) > BIG_STEP {
                ineqs = crate::math::ilp::drop_redundant_ineqs(self.width() - 1, &eqs, &ineqs)?;
                if pairs(&ineqs, &eqs, col) > BIG_STEP {
                    cols.push_back(col);
                    let best = (0..cols.len())
                        .min_by_key(|&i| pairs(&ineqs, &eqs, cols[i]))
                        .expect("not empty");
                    col = cols.remove(best).expect("in range");
                }
                // Still too many: drop the rows on the column that mention
                // the most columns still to eliminate, until the step fits.
                // A projection without them is larger, so its bounds remain
                // valid (looser); every constraint is enforced at the
                // statement anyway.
                let rest = |ineqs: &[Row]| ineqs.iter().filter(|r| r[col] == 0).count();
                while pairs(&ineqs, &eqs, col) + rest(&ineqs) > fm::FM_ROW_LIMIT {
                    let inner = |r: &Row| cols.iter().filter(|&&c| r[c] != 0).count();
                    let worst = (0..ineqs.len())
                        .filter(|&i| ineqs[i][col] != 0)
                        .max_by_key(|&i| inner(&ineqs[i]))
                        .expect("rows on the column");
                    ineqs.remove(worst);
                }
            }
            let e = fm::eliminate(&eqs, &ineqs, col)?;
            eqs = e.eqs;
            ineqs = e.ineqs;
            // Fourier–Motzkin multiplies rows: keep the system small by
            // dropping the ones the others imply (the same polyhedron).
            if ineqs.len() > PRUNE_ROWS && !e.infeasible {
                ineqs = crate::math::ilp::drop_redundant_ineqs(self.width() - 1, &eqs, &ineqs)?;
            }
            if e.infeasible {
                ineqs.push({
                    let mut r = vec![0i64; self.width()];
                    r[self.width() - 1] = -1;
                    r
                });
            }
        }
        let mut q = Poly { eqs, ineqs };
        normalize(&mut q)?;
        Ok(q)
    }

    /// The conditions of `p` (rows not mentioning dims `>= k`) that `ctx`
    /// does not imply.
    fn guard(&self, p: &Poly, ctx: &Poly, upto: usize) -> Res<Vec<Cond>> {
        let mentions_late = |r: &Row| self.mentions_from(r, upto);
        let mut out = Vec::new();
        let mut local = ctx.clone();
        for (rows, eq) in [(&p.eqs, true), (&p.ineqs, false)] {
            for r in rows.iter() {
                if mentions_late(r) {
                    continue;
                }
                let c = Cond { row: r.clone(), eq };
                if !self.implies_cond(&local, &c)? {
                    if eq {
                        local.eqs.push(r.clone());
                    } else {
                        local.ineqs.push(r.clone());
                    }
                    out.push(c);
                }
            }
        }
        Ok(out)
    }

    /// The bounds of `p` on dimension `k` as constraint rows `a·t_k + r >= 0`
    /// (lower, `a > 0`) and `-a·t_k + r >= 0` (upper).
    fn bound_rows(&self, p: &Poly, k: usize) -> (Vec<Row>, Vec<Row>) {
        let col = self.col(k);
        let (mut lo, mut up) = (Vec::new(), Vec::new());
        for r in &p.ineqs {
            match r[col].signum() {
                1 => lo.push(r.clone()),
                -1 => up.push(r.clone()),
                _ => {}
            }
        }
        for r in &p.eqs {
            if r[col] != 0 {
                let neg: Row = r.iter().map(|v| -v).collect();
                if r[col] > 0 {
                    lo.push(r.clone());
                    up.push(neg);
                } else {
                    lo.push(neg);
                    up.push(r.clone());
                }
            }
        }
        (lo, up)
    }

    /// `row` with every outer dimension `t_j` (`j < k`) that an equality of
    /// the context fixes as `t_j = e` (unit coefficient, `e` over dimensions
    /// before `j` and parameters: a [`Node::Let`] or a guard) replaced by
    /// `e`, innermost first. Equal in the context, so a bound stays the same
    /// bound; a partial register block's `t_v >= 16·q_v` at `q_v = 68`
    /// becomes the constant `1088`, and its trip count a constant.
    fn substitute_fixed(&self, row: &Row, ctx: &Poly, k: usize) -> Res<Row> {
        let mut row = row.clone();
        for j in (0..k).rev() {
            let cj = self.col(j);
            if row[cj] == 0 {
                continue;
            }
            let def = ctx
                .eqs
                .iter()
                .find(|e| e[cj].abs() == 1 && (j + 1..self.n).all(|d| e[self.col(d)] == 0));
            if let Some(e) = def {
                // row - (row[cj] / e[cj])·e, with e[cj] = ±1.
                let f = mul(row[cj], e[cj])?;
                for (r, &v) in row.iter_mut().zip(e) {
                    *r = r.checked_sub(mul(f, v)?).ok_or(MathError::Overflow)?;
                }
            }
        }
        Ok(row)
    }

    /// [`Gen::substitute_fixed`] on each row, without duplicates.
    fn substitute_fixed_all(&self, rows: Vec<Row>, ctx: &Poly, k: usize) -> Res<Vec<Row>> {
        let mut out: Vec<Row> = Vec::with_capacity(rows.len());
        for r in &rows {
            let r = self.substitute_fixed(r, ctx, k)?;
            if !out.contains(&r) {
                out.push(r);
            }
        }
        Ok(out)
    }

    /// Drops rows implied by the context together with another kept row.
    fn prune(&self, rows: Vec<Row>, ctx: &Poly) -> Res<Vec<Row>> {
        let mut rows = rows;
        rows.sort();
        rows.dedup();
        let mut i = 0;
        while i < rows.len() {
            let mut redundant = false;
            for j in 0..rows.len() {
                if j == i {
                    continue;
                }
                let mut c = ctx.clone();
                c.ineqs.push(rows[j].clone());
                if self.implies(&c, &rows[i])? {
                    redundant = true;
                    break;
                }
            }
            if redundant {
                rows.remove(i);
            } else {
                i += 1;
            }
        }
        Ok(rows)
    }

    fn to_bounds(&self, rows: &[Row], k: usize, lower: bool) -> Vec<Bound> {
        let col = self.col(k);
        rows.iter()
            .map(|r| {
                let a = r[col].abs();
                let mut row = r.clone();
                row[col] = 0;
                if lower {
                    // a·t + r >= 0  ⇔  t >= ⌈-r / a⌉
                    row.iter_mut().for_each(|v| *v = -*v);
                }
                Bound { row, div: a }
            })
            .collect()
    }

    fn scan(&self, k: usize, items: Vec<Item>, ctx: &Poly) -> Res<Node> {
        if items.is_empty() {
            return Ok(Node::Seq(Vec::new()));
        }
        if k == self.n {
            let mut items = items;
            items.sort_by_key(|it| it.stmt);
            let mut nodes = Vec::new();
            for it in items {
                let conds = self.guard(&it.poly, ctx, self.n)?;
                let stmt = Node::Stmt {
                    stmt: it.stmt,
                    iters: it.iters,
                };
                nodes.push(if conds.is_empty() {
                    stmt
                } else {
                    Node::If {
                        conds,
                        body: Box::new(stmt),
                    }
                });
            }
            return Ok(if nodes.len() == 1 {
                nodes.pop().expect("one node")
            } else {
                Node::Seq(nodes)
            });
        }
        if self.plan.dims[k].scalar {
            return self.scan_scalar(k, items, ctx);
        }
        let projs = items
            .iter()
            .map(|it| self.project(&it.poly, k))
            .collect::<Res<Vec<_>>>()?;
        // A statement whose projection has no point (it holds the
        // statement's set) runs nowhere: it goes, and the loop with it when
        // no statement is left.
        let (items, projs): (Vec<Item>, Vec<Poly>) = items
            .into_iter()
            .zip(projs)
            .filter(|(_, p)| !obviously_empty(p))
            .unzip();
        if items.is_empty() {
            return Ok(Node::Seq(Vec::new()));
        }
        let single = items.len() == 1;
        // Bounds come from projections without divisions: a division of
        // the outer loops in a bound (`i mod 3`, `i - 3·⌊i/3⌋`) is one that
        // MLIR's canonicalization of loop bounds may fold wrongly (see
        // `emit`); the exact constraint, when the projection loses
        // something, is a guard inside.
        let bprojs = projs
            .iter()
            .map(|p| self.strip_divs(p))
            .collect::<Res<Vec<_>>>()?;
        let parallel = self.plan.dims[k].parallel_for(items.iter().map(|it| it.stmt));
        if !single {
            match self.separate(k, &items, &bprojs, ctx)? {
                // A parallel loop separated into pieces of one iteration
                // would run them one after the other (two tiles, one per
                // thread, that hold different register blocks); it stays
                // one loop, with its statements guarded inside it.
                Separation::Done(node) if parallel && node.has_let_over(|d| d == k) => {}
                Separation::Done(node) => return Ok(node),
                Separation::Undecided(row) if self.splits.get() < MAX_SPLITS => {
                    // Split the context on the undecided comparison (an
                    // affine condition on the outer loops and parameters):
                    // under each half the bounds may be ordered, and the
                    // guard sits outside this loop, not inside it.
                    return self.split_context(k, items, ctx, row);
                }
                _ => {}
            }
        }
        let mut inner_ctx = ctx.clone();
        let mut guard = Vec::new();
        if single {
            guard = self.guard(&projs[0], ctx, k)?;
            for c in &guard {
                if c.eq {
                    inner_ctx.eqs.push(c.row.clone());
                } else {
                    inner_ctx.ineqs.push(c.row.clone());
                }
            }
        }
        // Each statement's projection under the context: what a bound valid
        // for all must hold on.
        let contexts: Vec<Poly> = if single {
            Vec::new()
        } else {
            projs
                .iter()
                .map(|p| {
                    let mut c = p.clone();
                    c.eqs.extend(ctx.eqs.iter().cloned());
                    c.ineqs.extend(ctx.ineqs.iter().cloned());
                    c
                })
                .collect()
        };
        let (mut lo, mut up) = (Vec::new(), Vec::new());
        if single {
            let (l, u) = self.bound_rows(&bprojs[0], k);
            lo = l;
            up = u;
        } else {
            // Bounds valid for every statement sharing the loop.
            for p in &bprojs {
                let (l, u) = self.bound_rows(p, k);
                for (cands, out) in [(l, &mut lo), (u, &mut up)] {
                    for r in cands {
                        if out.contains(&r) {
                            continue;
                        }
                        let mut valid = true;
                        for c in &contexts {
                            if !self.implies(c, &r)? {
                                valid = false;
                                break;
                            }
                        }
                        if valid {
                            out.push(r);
                        }
                    }
                }
            }
        }
        // No bound of one statement holds for all. First, while the
        // splits of separation remain, the context split on the comparison
        // of two statements' bounds (exact bounds under each half); then
        // bounds loosened until they hold for all (guards inside); then,
        // when none is bounded, more splits.
        if (lo.is_empty() || up.is_empty()) && self.splits.get() < MAX_SPLITS {
            if let Some(cond) = self.undecided_bound_pair(k, &bprojs, ctx, lo.is_empty())? {
                return self.split_context(k, items, ctx, cond);
            }
        }
        if !single && (lo.is_empty() || up.is_empty()) {
            for (want_lower, out) in [(true, &mut lo), (false, &mut up)] {
                if out.is_empty() {
                    *out =
                        self.loosened_bounds(&self.bound_cands(&bprojs, k, want_lower), &contexts)?;
                }
            }
        }
        if (lo.is_empty() || up.is_empty()) && self.splits.get() < MAX_BOUND_SPLITS {
            if let Some(cond) = self.undecided_bound_pair(k, &bprojs, ctx, lo.is_empty())? {
                return self.split_context(k, items, ctx, cond);
            }
        }
        if lo.is_empty() || up.is_empty() {
            return unsupported(format!(
                "no {} bound for the loop over dimension {k} that is valid for all its statements",
                if lo.is_empty() { "lower" } else { "upper" }
            ));
        }
        let lo = self.prune(lo, &inner_ctx)?;
        let up = self.prune(up, &inner_ctx)?;
        self.emit_loop(k, lo, up, items, inner_ctx, guard)
    }

    /// Each statement's lower (or upper) bound rows on dimension `k`, from
    /// its projection `bprojs[i]`.
    fn bound_cands(&self, bprojs: &[Poly], k: usize, want_lower: bool) -> Vec<Vec<Row>> {
        bprojs
            .iter()
            .map(|p| {
                let (l, u) = self.bound_rows(p, k);
                if want_lower {
                    l
                } else {
                    u
                }
            })
            .collect()
    }

    /// The first pair of two statements' lower (upper) bounds on dimension
    /// `k` whose comparison is a condition on the outer loops and
    /// parameters that `ctx` does not decide: under each half of it, the
    /// smaller lower (larger upper) one holds for both. `a1·t + r1 >= 0`
    /// and `a2·t + r2 >= 0` (`a > 0` for lower bounds): `-r1/a1 <= -r2/a2`
    /// iff `a2·r1 - a1·r2 >= 0`.
    fn undecided_bound_pair(
        &self,
        k: usize,
        bprojs: &[Poly],
        ctx: &Poly,
        want_lower: bool,
    ) -> Res<Option<Row>> {
        let cands = self.bound_cands(bprojs, k, want_lower);
        let col = self.col(k);
        for (a, ra) in cands.iter().enumerate() {
            for rb in cands.iter().skip(a + 1) {
                for r1 in ra {
                    for r2 in rb {
                        let (a1, a2) = (r1[col].abs(), r2[col].abs());
                        let mut cond: Row = r1
                            .iter()
                            .zip(r2)
                            .map(|(x, y)| {
                                mul(a2, *x).and_then(|p| {
                                    mul(a1, *y)
                                        .and_then(|q| p.checked_sub(q).ok_or(MathError::Overflow))
                                })
                            })
                            .collect::<Result<_, _>>()?;
                        cond[col] = 0;
                        let neg: Row = cond.iter().map(|v| -v).collect();
                        if cond[..cond.len() - 1].iter().any(|&c| c != 0)
                            && !self.implies(ctx, &cond)?
                            && !self.implies(ctx, &neg)?
                        {
                            return Ok(Some(cond));
                        }
                    }
                }
            }
        }
        Ok(None)
    }

    /// Each row of `cands` (`a·t + e + c >= 0`, a bound on one loop) with
    /// the smallest constant for which it holds at every point of every
    /// context: `c = -⌊min⌋` over them of `a·t + e`. A row unbounded below
    /// on some context gives none.
    fn loosened_bounds(&self, cands: &[Vec<Row>], contexts: &[Poly]) -> Res<Vec<Row>> {
        let nv = self.width() - 1;
        let mut out: Vec<Row> = Vec::new();
        'rows: for r in cands.iter().flatten() {
            let linear: Row = r[..nv].iter().copied().chain([0]).collect();
            let mut lowest: Option<i128> = None;
            for c in contexts {
                match self.with_minima(c, |known, eqs, ineqs| known.minimum(eqs, ineqs, &linear))? {
                    Optimum::Empty => {}
                    Optimum::Unbounded => continue 'rows,
                    Optimum::Bounded(v) => {
                        let v = v.floor();
                        lowest = Some(lowest.map_or(v, |l| l.min(v)));
                    }
                }
            }
            let Some(v) = lowest else { continue };
            let mut row = linear;
            row[nv] = i64::try_from(-v).map_err(|_| MathError::Overflow)?;
            if !out.contains(&row) {
                out.push(row);
            }
        }
        Ok(out)
    }

    /// The scan of dimension `k` under each half of the context split on
    /// `row >= 0` (an affine condition on the outer loops and parameters),
    /// each in an `affine.if`; the items whose domains meet a half go in
    /// it.
    fn split_context(&self, k: usize, items: Vec<Item>, ctx: &Poly, row: Row) -> Res<Node> {
        self.splits.set(self.splits.get() + 1);
        let mut neg: Row = row.iter().map(|v| -v).collect();
        let last = neg.len() - 1;
        neg[last] = neg[last].checked_sub(1).ok_or(MathError::Overflow)?;
        let mut nodes = Vec::new();
        for cond in [row, neg] {
            let mut sub_ctx = ctx.clone();
            sub_ctx.ineqs.push(cond.clone());
            let mut sub = Vec::new();
            for it in &items {
                let mut both = sub_ctx.clone();
                both.eqs.extend(it.poly.eqs.iter().cloned());
                both.ineqs.extend(it.poly.ineqs.iter().cloned());
                if self.feasible(&both)? {
                    sub.push(it.clone());
                }
            }
            if sub.is_empty() {
                continue;
            }
            let body = self.scan(k, sub, &sub_ctx)?;
            nodes.push(Node::If {
                conds: vec![Cond {
                    row: cond,
                    eq: false,
                }],
                body: Box::new(body),
            });
        }
        Ok(Node::Seq(nodes))
    }

    /// The loop over `t_k` with the given (pruned) bound rows around the
    /// scan of the deeper levels, inside `guard`. A single value `t_k = e`
    /// (a unit equality, or equal bounds) needs no loop; an empty constant
    /// range needs no code.
    fn emit_loop(
        &self,
        k: usize,
        lo: Vec<Row>,
        up: Vec<Row>,
        items: Vec<Item>,
        inner_ctx: Poly,
        guard: Vec<Cond>,
    ) -> Res<Node> {
        let col = self.col(k);
        let wrap = |node: Node, guard: Vec<Cond>| {
            if guard.is_empty() {
                node
            } else {
                Node::If {
                    conds: guard,
                    body: Box::new(node),
                }
            }
        };
        let value = |r: &Row| -> Option<Row> {
            let a = r[col];
            if a.abs() != 1 {
                return None;
            }
            let mut v: Row = r.iter().map(|x| -x * a).collect();
            v[col] = 0;
            Some(v)
        };
        let mut lo = self.substitute_fixed_all(lo, &inner_ctx, k)?;
        let mut up = self.substitute_fixed_all(up, &inner_ctx, k)?;
        let (mut inner_ctx, mut guard) = (inner_ctx, guard);
        if let Some((i, j, v)) =
            equal_bounds(&lo, &up, col)?.and_then(|(i, j)| Some((i, j, value(&lo[i])?)))
        {
            // A lower and an upper bound that meet fix `t_k` at one value
            // `v` (two nests' rows dealt to the same block by different
            // divisions: `8·t5 <= t7` and `8·(t1 + 2·t2) <= t7`); every
            // other bound is a condition at `v` on the outer loops, in the
            // guard unless the context implies it. The iterations are the
            // same: the loop ran `v` alone, where those conditions held.
            let others = (lo.iter().enumerate().filter(|&(n, _)| n != i))
                .chain(up.iter().enumerate().filter(|&(n, _)| n != j))
                .map(|(_, r)| r);
            for r in others {
                let b = r[col];
                let mut at: Row = r.clone();
                at[col] = 0;
                for (x, &vx) in at.iter_mut().zip(&v) {
                    *x = int::mul_add(1, *x, b, vx)?;
                }
                match norm_ineq(&at)? {
                    Norm::Trivial => {}
                    Norm::Infeasible => return Ok(Node::Seq(Vec::new())),
                    Norm::Row(at) => {
                        if !self.implies(&inner_ctx, &at)? {
                            inner_ctx.ineqs.push(at.clone());
                            guard.push(Cond { row: at, eq: false });
                        }
                    }
                }
            }
            lo = vec![lo[i].clone()];
            up = vec![up[j].clone()];
        }
        if let Some((l, u)) = constant_range(&lo, &up, col)? {
            // One bound each way, `t - l >= 0` and `u - t >= 0`: a single
            // value becomes a `Let` and an empty range no code (below),
            // and a constant trip count is visible to `unroll`.
            let last = self.width() - 1;
            let mut lrow = vec![0i64; self.width()];
            lrow[col] = 1;
            lrow[last] = l.checked_neg().ok_or(MathError::Overflow)?;
            let mut urow = vec![0i64; self.width()];
            urow[col] = -1;
            urow[last] = u;
            lo = vec![lrow];
            up = vec![urow];
        }
        if lo.len() == 1 && up.len() == 1 {
            let (l, u) = (&lo[0], &up[0]);
            let sum: Row = l
                .iter()
                .zip(u)
                .map(|(a, b)| a.checked_add(*b))
                .collect::<Option<Row>>()
                .ok_or(MathError::Overflow)?;
            let constant = |r: &Row| (0..r.len() - 1).all(|c| c == col || r[c] == 0);
            if sum.iter().all(|&v| v == 0) {
                if let Some(v) = value(l) {
                    let mut body_ctx = inner_ctx;
                    body_ctx.eqs.push(l.clone());
                    let body = self.scan(k + 1, items, &body_ctx)?;
                    let node = Node::Let {
                        dim: k,
                        row: v,
                        body: Box::new(body),
                    };
                    return Ok(wrap(node, guard));
                }
            }
            if constant(l) && constant(u) && l[col].abs() == 1 && u[col].abs() == 1 {
                // lo: t + c1 >= 0, up: -t + c2 >= 0: empty when c1 + c2 < 0.
                if sum[sum.len() - 1] < 0 {
                    return Ok(Node::Seq(Vec::new()));
                }
            }
        }
        let mut body_ctx = inner_ctx;
        body_ctx.ineqs.extend(lo.iter().cloned());
        body_ctx.ineqs.extend(up.iter().cloned());
        debug_assert!(lo.iter().chain(&up).all(|r| r[col] != 0));
        let stride = self.stride_of(k, &items)?;
        if let Some((eq, _)) = &stride {
            // Inside, every iteration is of the residue class.
            body_ctx.eqs.push(eq.clone());
        }
        let parallel = self.plan.dims[k].parallel_for(items.iter().map(|it| it.stmt));
        let body = self.scan(k + 1, items, &body_ctx)?;
        let node = Node::Loop {
            dim: k,
            lower: self.to_bounds(&lo, k, true),
            upper: self.to_bounds(&up, k, false),
            stride: stride.map(|(_, s)| s),
            role: LoopRole::parallel_if(parallel),
            marks: Box::default(),
            body: Box::new(body),
        };
        Ok(wrap(node, guard))
    }

    /// Loop separation (as CLooG does): the statements sharing the loop
    /// over `t_k` have their own lower and upper bounds (besides bounds
    /// they all share, such as tile bounds); when the context orders all
    /// of them, the loop is split into consecutive loops over the ranges
    /// where the set of statements is constant, so no statement needs a
    /// guard on `t_k`.
    ///
    /// Math: with item intervals `[max L_I, min U_I]` on `t_k` and the event
    /// points `L_I ∪ (U_I + 1)` totally ordered (each comparison an LP over
    /// the context), every range between consecutive events lies inside or
    /// outside each interval; the ranges, in order, cover the union once.
    /// `Undecided(b - a)`: two points the context does not order; the
    /// caller splits the context on `a <= b` (an `affine.if` outside this
    /// loop) and separates again under each half, or falls back to one
    /// loop with guards when the split budget is spent.
    fn separate(&self, k: usize, items: &[Item], projs: &[Poly], ctx: &Poly) -> Res<Separation> {
        let col = self.col(k);
        let w = self.width();
        // Raw bounds per item; rows every item has are common (tile bounds).
        let raw: Vec<(Vec<Row>, Vec<Row>)> = projs.iter().map(|p| self.bound_rows(p, k)).collect();
        let common = |upper: bool| -> Vec<Row> {
            let pick = |b: &(Vec<Row>, Vec<Row>)| if upper { b.1.clone() } else { b.0.clone() };
            let mut c: Vec<Row> = pick(&raw[0])
                .into_iter()
                .filter(|r| raw.iter().all(|b| pick(b).contains(r)))
                .collect();
            c.sort();
            c.dedup();
            c
        };
        let common_lo = common(false);
        let common_up = common(true);
        // Bounds with a coefficient other than 1 on t_k separate the loops
        // of register blocks only (their full blocks from the partial ones
        // along a triangle: `2·q_v >= q_u + 1` for 16 columns over 8 rows);
        // elsewhere the pieces share one loop, as a parallel loop split in
        // two would fork its threads twice (trisolv's wavefront: 1.4x
        // slower).
        let blocks = self.plan.register_tiles.iter().any(|t| {
            t.row_blocks() == Some(k) || (t.row_blocks().is_some() && t.vector_blocks() == Some(k))
        }) || self.plan.block_dims.iter().any(|b| k == b.blocks);
        // Per item: its other bounds, minus those implied by the common ones
        // and its own outer constraints.
        let mut own: Vec<(Vec<Row>, Vec<Row>)> = Vec::new();
        for (p, (lo, up)) in projs.iter().zip(&raw) {
            let mut base = Poly {
                eqs: p.eqs.iter().filter(|r| r[col] == 0).cloned().collect(),
                ineqs: p.ineqs.iter().filter(|r| r[col] == 0).cloned().collect(),
            };
            base.eqs.extend(ctx.eqs.iter().cloned());
            base.ineqs.extend(ctx.ineqs.iter().cloned());
            let keep = |rows: &Vec<Row>, common: &Vec<Row>| -> Res<Vec<Row>> {
                let mut with_common = base.clone();
                with_common.ineqs.extend(common.iter().cloned());
                let mut out = Vec::new();
                for r in rows.iter().filter(|r| !common.contains(r)) {
                    if !self.implies(&with_common, r)? && !out.contains(r) {
                        out.push(r.clone());
                    }
                }
                self.prune(out, &base)
            };
            let l = keep(lo, &common_lo)?;
            let u = keep(up, &common_up)?;
            if !blocks && l.iter().chain(&u).any(|r| r[col].abs() != 1) {
                return Ok(Separation::No);
            }
            own.push((l, u));
        }
        if own.iter().all(|(l, u)| l.is_empty() && u.is_empty()) {
            return Ok(Separation::No); // identical bounds: one loop, nothing to split
        }
        // Event points, each a row `c·t_k - a` (`c > 0`) whose value is
        // `⌈a / c⌉`: a range that starts there is `c·t_k - a >= 0`. A lower
        // row `c·t + r >= 0` is one as it stands (`t >= ⌈-r / c⌉`); an upper
        // row `-c·t + r >= 0` ends at `⌊r / c⌋`, so the next range starts at
        // `⌊r / c⌋ + 1 = ⌈(r + 1) / c⌉`: the point `c·t - r - 1`. (Register
        // blocks of 16 columns under a triangle's `j >= i + 1` start their
        // full blocks at `2·q_v >= q_u + 1`.)
        let value_of = |r: &Row, upper: bool| -> Row {
            if upper {
                let mut v: Row = r.iter().map(|x| -x).collect();
                v[w - 1] -= 1;
                v
            } else {
                r.clone()
            }
        };
        let mut points: Vec<Row> = Vec::new();
        for (l, u) in &own {
            for (rows, upper) in [(l, false), (u, true)] {
                for r in rows {
                    let v = value_of(r, upper);
                    if !points.contains(&v) {
                        points.push(v);
                    }
                }
            }
        }
        // Sort the points; every pair must be ordered on the context.
        // `⌈a_i / c_i⌉ <= ⌈a_j / c_j⌉` where `a_i / c_i <= a_j / c_j`, that is
        // `c_i·a_j - c_j·a_i >= 0`; with the points `p = c·t - a` (their
        // `t_k` column left out) that is `c_j·p_i - c_i·p_j >= 0`: for unit
        // coefficients `p_i - p_j >= 0`, the difference of the two values.
        let diff = |a: &Row, b: &Row| -> Res<Row> {
            let (ca, cb) = (a[col], b[col]);
            let mut d = vec![0; w];
            for (k, cell) in d.iter_mut().enumerate() {
                if k != col {
                    *cell = mul(cb, a[k])?
                        .checked_sub(mul(ca, b[k])?)
                        .ok_or(MathError::Overflow)?;
                }
            }
            Ok(d)
        };
        let le = |a: &Row, b: &Row| -> Res<bool> { self.implies(ctx, &diff(a, b)?) };
        // Each decided comparison holds at every integer point of the
        // context, but the rational test is not transitive: with `t0` in
        // [2.5, 3] rationally (3 for integers), `8 <= L` and `L <= 11 - t0`
        // and `11 - t0 <= 8` are decided while `L <= 8` is not. The
        // transitive closure is as sound (integer implications chain) and
        // makes the relation a preorder that the sort can follow.
        let n = points.len();
        let mut leq = vec![vec![false; n]; n];
        for (i, row) in leq.iter_mut().enumerate() {
            for (j, cell) in row.iter_mut().enumerate() {
                *cell = i == j || le(&points[i], &points[j])?;
            }
        }
        for m in 0..n {
            let via = leq[m].clone();
            for row in leq.iter_mut() {
                if row[m] {
                    for (cell, &v) in row.iter_mut().zip(&via) {
                        *cell |= v;
                    }
                }
            }
        }
        // A total preorder: every pair must be comparable on the context.
        for i in 0..n {
            for j in 0..n {
                if !leq[i][j] && !leq[j][i] {
                    return Ok(Separation::Undecided(diff(&points[i], &points[j])?));
                }
            }
        }
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&a, &b| match (leq[a][b], leq[b][a]) {
            (true, false) => std::cmp::Ordering::Less,
            (false, true) => std::cmp::Ordering::Greater,
            _ => a.cmp(&b),
        });
        let sorted: Vec<Row> = order.iter().map(|&i| points[i].clone()).collect();
        let mut pos = vec![0usize; n];
        for (p, &i) in order.iter().enumerate() {
            pos[i] = p;
        }
        let index = |v: &Row| points.iter().position(|p| p == v).expect("an event point");
        // Ranges: (-inf, p0), [p0, p1), …, [p_last, +inf); range `r` is
        // `[sorted[r-1], sorted[r])`. An item runs over `[p_a, p_b)`, `p_a`
        // the latest of its lower points in the order, `p_b` the earliest
        // of its upper ones: exactly the ranges `a < r <= b`, whose union
        // is that interval at every integer point (each range is
        // `[p, q)` with `p <= q` there). Positions, not more comparisons:
        // a comparison the context does not decide must not drop an item
        // from a range it runs in.
        let spans: Vec<(usize, usize)> = own
            .iter()
            .map(|(l, u)| {
                let first = l
                    .iter()
                    .map(|r| pos[index(&value_of(r, false))] + 1)
                    .max()
                    .unwrap_or(0);
                let last = u
                    .iter()
                    .map(|r| pos[index(&value_of(r, true))])
                    .min()
                    .unwrap_or(n);
                (first, last)
            })
            .collect();
        let n_ranges = sorted.len() + 1;
        let mut nodes = Vec::new();
        for r in 0..n_ranges {
            let start = (r > 0).then(|| &sorted[r - 1]);
            let end = (r < sorted.len()).then(|| &sorted[r]);
            // Equal consecutive points: an empty range.
            if r > 0 && r < n && leq[order[r]][order[r - 1]] {
                continue;
            }
            let active: Vec<usize> = spans
                .iter()
                .enumerate()
                .filter(|(_, &(first, last))| first <= r && r <= last)
                .map(|(i, _)| i)
                .collect();
            if active.is_empty() {
                continue;
            }
            let mut lo = common_lo.clone();
            let mut up = common_up.clone();
            if let Some(s) = start {
                // c·t - a >= 0
                lo.push(s.clone());
            }
            if let Some(e) = end {
                // t < ⌈a / c⌉, that is c·t < a: a - 1 - c·t >= 0
                let mut row: Row = e.iter().map(|x| -x).collect();
                row[w - 1] -= 1;
                up.push(row);
            }
            if lo.is_empty() || up.is_empty() {
                return Ok(Separation::No);
            }
            let lo = self.prune(lo, ctx)?;
            let up = self.prune(up, ctx)?;
            let sub: Vec<Item> = active.iter().map(|&i| items[i].clone()).collect();
            nodes.push(self.emit_loop(k, lo, up, sub, ctx.clone(), Vec::new())?);
        }
        Ok(Separation::Done(Node::Seq(nodes)))
    }

    /// A scalar dimension: statements grouped by their constant value.
    fn scan_scalar(&self, k: usize, items: Vec<Item>, ctx: &Poly) -> Res<Node> {
        let col = self.col(k);
        let w = self.width();
        let mut groups: Vec<(i64, Vec<Item>)> = Vec::new();
        for mut it in items {
            // The equality t_k = v (coefficient ±1 on t_k alone).
            let v = it
                .poly
                .eqs
                .iter()
                .find(|r| r[col].abs() == 1 && (0..w - 1).all(|c| c == col || r[c] == 0))
                .map(|r| -r[w - 1] * r[col]);
            let Some(v) = v else {
                return unsupported(format!(
                    "dimension {k} is not constant for statement S{}",
                    it.stmt
                ));
            };
            let fix = |r: &mut Row| -> Result<(), MathError> {
                let a = r[col];
                r[col] = 0;
                r[w - 1] = r[w - 1]
                    .checked_add(mul(a, v)?)
                    .ok_or(MathError::Overflow)?;
                Ok(())
            };
            for r in it
                .poly
                .eqs
                .iter_mut()
                .chain(it.poly.ineqs.iter_mut())
                .chain(it.iters.iter_mut())
            {
                fix(r)?;
            }
            if !normalize(&mut it.poly)? {
                continue;
            }
            match groups.iter_mut().find(|(g, _)| *g == v) {
                Some((_, g)) => g.push(it),
                None => groups.push((v, vec![it])),
            }
        }
        groups.sort_by_key(|(v, _)| *v);
        let mut nodes = Vec::new();
        for (_, g) in groups {
            match self.scan(k + 1, g, ctx)? {
                Node::Seq(v) => nodes.extend(v),
                node => nodes.push(node),
            }
        }
        Ok(Node::Seq(nodes))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn math_errors_leave_the_stage_to_the_caller() {
        // The remark said "code generation: code generation: the time
        // budget ran out": the callers name the stage, once.
        let e = super::CodegenError::from(crate::math::MathError::Deadline);
        assert_eq!(
            format!("code generation: {e}"),
            format!("code generation: {}", crate::math::MathError::Deadline)
        );
    }
}
