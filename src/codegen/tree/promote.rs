//! Promotion to shared memory on the GPU: the boxes of arrays that a
//! block's threads read at each step of the block's cooperative loop
//! ([`GpuRole::Cooperative`], the tiles of the threads' first sequential
//! loop: gemm's `k` in steps of the warp size).
//!
//! For the statements under a cooperative loop, an array they read and do
//! not write is promoted when its accesses have, per array dimension `d`,
//! bounds `o_d ≤ x_d ≤ o_d + E_d - 1` with `o_d` an affine function of the
//! parameters and the loops around the threads (host loops, block loops,
//! the cooperative loop) and `E_d` a constant: the box the block copies at
//! each step, before its threads use it. The bounds come from the rational
//! projection of `{(t, x) : i ∈ D_S, t = θ(i)_{≤ coop}, x = f(i)}` onto
//! `(params, t, x_d)` (a box of the rational shadow holds every integer
//! point; the checker proves it again, exactly: see
//! `passes/opt/check.rs`).
//!
//! The reads of one array form groups whose boxes move together (their
//! origins differ by constants: a stencil's neighbours share one); each
//! group has a box of its own (syrk's `A[i][k]` and `A[j][k]`: two).
//! Promotion pays only when a copy replaces several reads of a cell from
//! global memory: see `promotion` for the rule (reuse across warps, or
//! a tile whose cells a warp shares). The boxes of one loop must fit the
//! GPU's shared memory per block, in order; the others are left in global
//! memory (a remark says which and why).

use crate::codegen::{Node, Tree};
use crate::math::fm::project_rational;
use crate::math::matrix::rank;
use crate::math::MathError;
use crate::scop::expansion::{element_bytes, memref_shape};
use crate::scop::form::Form;
use crate::scop::model::{piece_rows, AccessKind, ArrayId, Scop};
use crate::target::gpu::GpuTarget;
use crate::transform::gpu::GpuRole;
use crate::transform::Plan;

/// An array box in shared memory, copied at each step of the cooperative
/// loop for the statements `stmts`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Promotion {
    /// The array (its root is what is copied).
    pub array: ArrayId,
    /// The statements under the cooperative loop, sorted.
    pub stmts: Vec<usize>,
    /// The reads the box serves (their operations' keys): a group of the
    /// statements' reads of the array whose boxes move together.
    pub reads: Vec<usize>,
    /// The plan dimension of the cooperative loop.
    pub coop: usize,
    /// Per array dimension, the box's first index: a row over
    /// `[params | t_0 … t_coop | constant]`.
    pub origin: Vec<Vec<i64>>,
    /// Per array dimension, the box's extent.
    pub extent: Vec<i64>,
    /// The array's shape (static).
    pub shape: Vec<i64>,
    /// The element type's text (`f64`).
    pub element: String,
    /// Bytes per element.
    pub bytes: i64,
}

impl Promotion {
    /// The shared buffer's shape: the box's extents, the innermost one
    /// made odd (one unused cell per row) when the box has two or more
    /// dimensions. Shared memory has 32 banks of 4 bytes; with an even
    /// row of doubles, the lanes of a warp that read down a column (syrk's
    /// `A[j][k]` with `j` on the threads) hit the same bank, and their
    /// reads run one after the other (measured on the H200: syrk and syr2k
    /// ran 1.7 times slower with their boxes than without). With an odd
    /// row they fall in different banks; reads along a row are unchanged.
    pub fn buffer_shape(&self) -> Vec<i64> {
        let mut shape = self.extent.clone();
        if shape.len() >= 2 {
            if let Some(last) = shape.last_mut() {
                if *last > 1 && *last % 2 == 0 {
                    *last += 1;
                }
            }
        }
        shape
    }

    /// The shared buffer's size in bytes.
    pub fn size(&self) -> i64 {
        self.buffer_shape().iter().product::<i64>() * self.bytes
    }
}

/// The promotions of the cooperative loops of `tree`, and for each array
/// left in global memory, why (`name: reason`).
#[derive(Debug, Clone, Default)]
pub struct Found {
    /// The promotions, per loop in tree order.
    pub promotions: Vec<Promotion>,
    /// Why the other arrays the loops read stay in global memory.
    pub not: Vec<String>,
}

/// The sorted statements under `n`.
pub fn statements_under(n: &Node) -> Vec<usize> {
    fn walk(n: &Node, out: &mut Vec<usize>) {
        match n {
            Node::Seq(v) => v.iter().for_each(|c| walk(c, out)),
            Node::Loop { body, .. } | Node::If { body, .. } | Node::Let { body, .. } => {
                walk(body, out)
            }
            Node::Stmt { stmt, .. } => out.push(*stmt),
        }
    }
    let mut out = Vec::new();
    walk(n, &mut out);
    out.sort_unstable();
    out.dedup();
    out
}

/// The statement sets of the loops (or single values) over `coop` in
/// `n` whose thread loops the emitter can map (unit steps), in tree order,
/// without repetition.
fn coop_sets(n: &Node, coop: usize, roles: &[GpuRole], out: &mut Vec<Vec<usize>>) {
    match n {
        Node::Loop { dim, .. } | Node::Let { dim, .. } if *dim == coop => {
            let s = statements_under(n);
            if threads_mappable(n, roles) && !out.contains(&s) {
                out.push(s);
            }
        }
        Node::Seq(v) => v.iter().for_each(|c| coop_sets(c, coop, roles, out)),
        Node::Loop { body, .. } | Node::If { body, .. } | Node::Let { body, .. } => {
            coop_sets(body, coop, roles, out)
        }
        Node::Stmt { .. } => {}
    }
}

/// Whether `n` has thread loops and all of them have unit steps (a
/// strided thread loop runs inside one thread: no block of threads would
/// share a copy).
fn threads_mappable(n: &Node, roles: &[GpuRole]) -> bool {
    fn walk(n: &Node, roles: &[GpuRole], seen: &mut bool) -> bool {
        match n {
            Node::Seq(v) => v.iter().all(|c| walk(c, roles, seen)),
            Node::Loop {
                dim, stride, body, ..
            } => {
                if matches!(roles.get(*dim), Some(GpuRole::Thread { .. })) {
                    if stride.is_some() {
                        return false;
                    }
                    *seen = true;
                }
                walk(body, roles, seen)
            }
            Node::If { body, .. } | Node::Let { body, .. } => walk(body, roles, seen),
            Node::Stmt { .. } => true,
        }
    }
    let mut seen = false;
    walk(n, roles, &mut seen) && seen
}

/// Finds the promotions of `tree` (see the module's description).
pub fn find(
    scop: &Scop,
    plan: &Plan,
    roles: &[GpuRole],
    tree: &Tree,
    gpu: &GpuTarget,
) -> Result<Found, MathError> {
    let mut found = Found::default();
    let Some(coop) = roles.iter().position(|r| *r == GpuRole::Cooperative) else {
        return Ok(found);
    };
    let mut sets = Vec::new();
    coop_sets(&tree.root, coop, roles, &mut sets);
    for stmts in sets {
        let mut budget = i64::from(gpu.shared_per_block);
        for (array, layout) in candidates(scop, &stmts) {
            let name = &scop.arrays[array.0].name;
            let layout = match layout {
                Ok(l) => l,
                Err(why) => {
                    note(&mut found.not, format!("{name} ({why})"));
                    continue;
                }
            };
            match promotion(scop, plan, roles, coop, &stmts, array, &layout)? {
                Ok(list) => {
                    for p in list {
                        if p.size() <= budget {
                            budget -= p.size();
                            found.promotions.push(p);
                        } else {
                            note(
                                &mut found.not,
                                format!(
                                    "{name} (a box of {} bytes, more than the {budget} bytes of shared memory per block left)",
                                    p.size()
                                ),
                            );
                        }
                    }
                }
                Err(why) => note(&mut found.not, format!("{name} ({why})")),
            }
        }
    }
    Ok(found)
}

fn note(list: &mut Vec<String>, s: String) {
    if !list.contains(&s) {
        list.push(s);
    }
}

/// The arrays the statements `stmts` read, in order of first read (one
/// per root), with why one cannot be promoted at all.
fn candidates(scop: &Scop, stmts: &[usize]) -> Vec<(ArrayId, Result<Layout, &'static str>)> {
    let root = |a: ArrayId| scop.root_of(&scop.arrays[a.0]).key();
    let mut out: Vec<(ArrayId, Result<Layout, &'static str>)> = Vec::new();
    for &s in stmts {
        for acc in &scop.statements[s].accesses {
            if acc.kind != AccessKind::Read || out.iter().any(|(a, _)| root(*a) == root(acc.array))
            {
                continue;
            }
            let r = root(acc.array);
            let written = stmts.iter().any(|&t| {
                scop.statements[t]
                    .accesses
                    .iter()
                    .any(|a| a.kind == AccessKind::Write && root(a.array) == r)
            });
            let expanded = scop.expansions.iter().any(|x| root(x.array) == r);
            let layout = if written {
                Err("written in the loop")
            } else if expanded {
                Err("a privatized temporary")
            } else {
                layout(&scop.root_of(&scop.arrays[acc.array.0]).type_text())
                    .ok_or("not a memref of static shape with a scalar element")
            };
            out.push((acc.array, layout));
        }
    }
    out
}

/// An array's static shape, element type and bytes per element.
struct Layout {
    shape: Vec<i64>,
    element: String,
    bytes: i64,
}

/// The layout of a memref type's text; `None` unless its shape is static
/// (rank 1 or more) and its element a scalar of known size.
fn layout(ty: &str) -> Option<Layout> {
    let (shape, element) = memref_shape(ty)?;
    let shape: Vec<i64> = shape.into_iter().collect::<Option<_>>()?;
    let bytes = element_bytes(&element)?;
    (!shape.is_empty()).then_some(Layout {
        shape,
        element,
        bytes,
    })
}

/// One lower bound `x_d ≥ origin` and its box extent: the origin's
/// variable part (over `[params | t_0 … t_coop]`), its constant and the
/// extent minus one.
type DimBox = (Vec<i64>, i64, i64);

/// A group of reads of one array whose boxes move together (their
/// origins differ by constants), being built.
struct Group<'s> {
    /// Per dimension: the origin's variable part, the least constant, the
    /// greatest last index.
    dims: Vec<(Vec<i64>, i64, i64)>,
    reads: Vec<usize>,
    subscripts: Vec<&'s [Form]>,
    /// Some read is the same for the threads along `x` (a warp), along
    /// `y` or `z` (several warps).
    reused: (bool, bool),
}

/// The promotions of `array` for `stmts`: one per group of reads whose
/// boxes move together (gemm's `A[i][k]`; syrk's `A[i][k]` and `A[j][k]`
/// make two), or why there is none. A group pays when several warps read
/// a cell (some read is invariant along the thread dimension `y` or `z`),
/// when it reads through two subscripts (a stencil's neighbours), or when
/// the threads of a warp share a cell (invariant along `x`) of a box of
/// two dimensions or more (gemm's `A[i][k]`: the copy reads its rows
/// coalesced, where each warp would read a column). A cell shared only by
/// the threads of one warp in a box of one dimension (mvt's `y[j]`) is
/// one broadcast read per warp already: no copy.
fn promotion(
    scop: &Scop,
    plan: &Plan,
    roles: &[GpuRole],
    coop: usize,
    stmts: &[usize],
    array: ArrayId,
    layout: &Layout,
) -> Result<Result<Vec<Promotion>, &'static str>, MathError> {
    let root = scop.root_of(&scop.arrays[array.0]);
    let rank_n = layout.shape.len();
    let mut groups: Vec<Group> = Vec::new();
    for &s in stmts {
        for acc in &scop.statements[s].accesses {
            if scop.root_of(&scop.arrays[acc.array.0]).key() != root.key() {
                continue;
            }
            if acc.index.len() != rank_n {
                return Ok(Err("an access of another rank"));
            }
            let mut dims = Vec::new();
            for d in 0..rank_n {
                let Some((v, c, e)) = access_box(scop, plan, coop, s, &acc.index, d)? else {
                    return Ok(Err("no box of constant size holds its accesses"));
                };
                dims.push((v, c, c + e));
            }
            let reused = invariant_along_threads(scop, plan, roles, s, &acc.index)?;
            let same = |g: &Group| g.dims.iter().zip(&dims).all(|(a, b)| a.0 == b.0);
            match groups.iter_mut().find(|g| same(g)) {
                Some(g) => {
                    for (a, b) in g.dims.iter_mut().zip(&dims) {
                        a.1 = a.1.min(b.1);
                        a.2 = a.2.max(b.2);
                    }
                    g.reads.push(scop.op_of(acc).key());
                    if !g.subscripts.contains(&acc.index.as_slice()) {
                        g.subscripts.push(&acc.index);
                    }
                    g.reused.0 |= reused.0;
                    g.reused.1 |= reused.1;
                }
                None => groups.push(Group {
                    dims,
                    reads: vec![scop.op_of(acc).key()],
                    subscripts: vec![&acc.index],
                    reused,
                }),
            }
        }
    }
    let promotions: Vec<Promotion> = groups
        .into_iter()
        .filter(|g| {
            let tile = g.dims.iter().filter(|(_, lo, hi)| hi > lo).count() >= 2;
            g.reused.1 || g.subscripts.len() >= 2 || (g.reused.0 && tile)
        })
        .map(|g| Promotion {
            array,
            stmts: stmts.to_vec(),
            reads: g.reads,
            coop,
            origin: g
                .dims
                .iter()
                .map(|(v, lo, _)| {
                    let mut o = v.clone();
                    o.push(*lo);
                    o
                })
                .collect(),
            extent: g.dims.iter().map(|(_, lo, hi)| hi - lo + 1).collect(),
            shape: layout.shape.clone(),
            element: layout.element.clone(),
            bytes: layout.bytes,
        })
        .collect();
    if promotions.is_empty() {
        return Ok(Err(
            "no cell that several warps read, nor a tile whose cells a warp shares",
        ));
    }
    Ok(Ok(promotions))
}

/// Whether the subscripts `index` of statement `s` stay the same along
/// the thread dimension `x` (the innermost) and along one of the others:
/// a thread dimension's hyperplane that is not a combination of the
/// subscripts' rows (over the iterators) joins threads that read the same
/// cell.
fn invariant_along_threads(
    scop: &Scop,
    plan: &Plan,
    roles: &[GpuRole],
    s: usize,
    index: &[Form],
) -> Result<(bool, bool), MathError> {
    let st = &scop.statements[s];
    let ni = st.iters.len();
    if index.iter().any(|f| f.locals.iter().any(|&c| c != 0)) {
        return Ok((false, false));
    }
    let x = roles
        .iter()
        .rposition(|r| matches!(r, GpuRole::Thread { .. }));
    let mut along = (false, false);
    let iters = |f: &Form| -> Vec<i64> { (0..ni).map(|i| f.iter_coef(i)).collect() };
    let rows: Vec<Vec<i64>> = index.iter().map(iters).collect();
    let base = if rows.is_empty() { 0 } else { rank(&rows)? };
    let locals = &plan.schedule.locals[s];
    for (k, role) in roles.iter().enumerate() {
        if !matches!(role, GpuRole::Thread { .. }) {
            continue;
        }
        let f = &plan.schedule.dims[s][k];
        let nonzero: Vec<usize> = (0..f.locals.len()).filter(|&l| f.locals[l] != 0).collect();
        // A plain hyperplane, or a tile of one (`T·l <= φ <= T·l + T - 1`:
        // the row `φ - T·l >= 0` gives φ).
        let phi = match nonzero.as_slice() {
            [] => iters(f),
            [l] if f.locals[*l] == 1 && f.iters.iter().all(|&c| c == 0) => {
                let Some(g) = locals.ineqs.iter().find(|g| {
                    g.locals.get(*l).is_some_and(|&c| c < 0)
                        && g.locals.iter().enumerate().all(|(m, &c)| m == *l || c == 0)
                }) else {
                    continue;
                };
                iters(g)
            }
            _ => continue,
        };
        if phi.iter().all(|&c| c == 0) {
            continue;
        }
        let mut with = rows.clone();
        with.push(phi);
        if rank(&with)? > base {
            if Some(k) == x {
                along.0 = true;
            } else {
                along.1 = true;
            }
        }
    }
    Ok(along)
}

/// The box of dimension `d` of the accesses `index` of statement `s`: a
/// lower bound `x_d ≥ o(params, t_0 … t_coop)` and the least constant `e`
/// with `x_d ≤ o + e` on every piece of the domain; `None` when there is
/// none.
fn access_box(
    scop: &Scop,
    plan: &Plan,
    coop: usize,
    s: usize,
    index: &[Form],
    d: usize,
) -> Result<Option<DimBox>, MathError> {
    let st = &scop.statements[s];
    let np = scop.params.len();
    let ni = st.iters.len();
    let ndl = st.locals.count;
    let sched_locals = &plan.schedule.locals[s];
    let nsl = sched_locals.count;
    let nt = coop + 1;
    // Columns: [params | t_0 … t_coop | iters | domain locals | schedule
    // locals | x_d | 1].
    let (t0, i0) = (np, np + nt);
    let (dl0, sl0) = (i0 + ni, i0 + ni + ndl);
    let x = sl0 + nsl;
    let width = x + 2;
    // A row over [params | iters | domain locals | 1].
    let from_domain = |r: &[i64]| -> Vec<i64> {
        let mut w = vec![0; width];
        w[..np].copy_from_slice(&r[..np]);
        w[i0..i0 + ni].copy_from_slice(&r[np..np + ni]);
        w[dl0..dl0 + ndl].copy_from_slice(&r[np + ni..np + ni + ndl]);
        w[width - 1] = r[np + ni + ndl];
        w
    };
    // A form over [params | iters | schedule locals | 1].
    let from_schedule = |f: &Form| -> Vec<i64> {
        let r = f.row(np, ni, nsl);
        let mut w = vec![0; width];
        w[..np].copy_from_slice(&r[..np]);
        w[i0..i0 + ni].copy_from_slice(&r[np..np + ni]);
        w[sl0..sl0 + nsl].copy_from_slice(&r[np + ni..np + ni + nsl]);
        w[width - 1] = r[np + ni + nsl];
        w
    };
    let mut eliminate: Vec<usize> = (i0..x).collect();
    eliminate.extend((0..nt).filter(|&k| plan.dims[k].scalar).map(|k| t0 + k));
    let mut result: Option<DimBox> = None;
    for piece in &st.domain {
        let (deqs, dineqs) = piece_rows(st, piece, np, ni, ndl);
        let mut eqs: Vec<Vec<i64>> = deqs.iter().map(|r| from_domain(r)).collect();
        let mut ineqs: Vec<Vec<i64>> = dineqs.iter().map(|r| from_domain(r)).collect();
        eqs.extend(sched_locals.eqs.iter().map(from_schedule));
        ineqs.extend(sched_locals.ineqs.iter().map(from_schedule));
        for k in 0..nt {
            // t_k - θ_k(i) = 0
            let mut r: Vec<i64> = from_schedule(&plan.schedule.dims[s][k])
                .iter()
                .map(|c| -c)
                .collect();
            r[t0 + k] += 1;
            eqs.push(r);
        }
        // x_d - f_d(i) = 0
        let mut r: Vec<i64> = from_domain(&index[d].row(np, ni, ndl))
            .iter()
            .map(|c| -c)
            .collect();
        r[x] += 1;
        eqs.push(r);
        let p = project_rational(&eqs, &ineqs, &eliminate)?;
        if p.infeasible {
            continue;
        }
        let b = dim_box(&p.eqs, &p.ineqs, x, np + nt)?;
        let Some((v, c, e)) = b else {
            return Ok(None);
        };
        result = match result {
            None => Some((v, c, e)),
            Some((v0, c0, e0)) if v0 == v => {
                let lo = c0.min(c);
                Some((v0, lo, (c0 + e0).max(c + e) - lo))
            }
            Some(_) => return Ok(None),
        };
    }
    Ok(result)
}

/// From rows over `[vars(nv) | … | x | 1]` whose other columns are zero:
/// the lower bound `x ≥ o` (unit coefficient) and upper bound `x ≤ o + e`
/// with the least constant `e ≥ 0`, as (variable part of `o`, constant of
/// `o`, `e`).
fn dim_box(
    eqs: &[Vec<i64>],
    ineqs: &[Vec<i64>],
    x: usize,
    nv: usize,
) -> Result<Option<DimBox>, MathError> {
    let last = x + 1;
    // Bounds as (coefficient of x, the rest's variable part, constant):
    // lower `x + r >= 0` ⇒ x ≥ -r; upper `-x + r >= 0` ⇒ x ≤ r.
    let mut lower: Vec<(Vec<i64>, i64)> = Vec::new();
    let mut upper: Vec<(Vec<i64>, i64)> = Vec::new();
    let mut add = |r: &[i64]| {
        let rest = |sign: i64| -> (Vec<i64>, i64) {
            (r[..nv].iter().map(|c| c * sign).collect(), r[last] * sign)
        };
        match r[x] {
            1 => lower.push(rest(-1)),
            -1 => upper.push(rest(1)),
            _ => {}
        }
    };
    for r in ineqs {
        add(r);
    }
    for r in eqs {
        add(r);
        let neg: Vec<i64> = r.iter().map(|c| -c).collect();
        add(&neg);
    }
    let mut best: Option<DimBox> = None;
    for (lv, lc) in &lower {
        for (uv, uc) in &upper {
            if lv != uv {
                continue;
            }
            let e = uc.checked_sub(*lc).ok_or(MathError::Overflow)?;
            if e >= 0 && best.as_ref().is_none_or(|b| e < b.2) {
                best = Some((lv.clone(), *lc, e));
            }
        }
    }
    Ok(best)
}

#[cfg(test)]
mod tests {
    use super::{dim_box, ArrayId, Promotion};

    #[test]
    fn shared_rows_are_padded_to_an_odd_length() {
        let box_of = |extent: Vec<i64>| Promotion {
            array: ArrayId(0),
            stmts: Vec::new(),
            reads: Vec::new(),
            coop: 0,
            origin: Vec::new(),
            extent,
            shape: Vec::new(),
            element: "f64".into(),
            bytes: 8,
        };
        assert_eq!(box_of(vec![32, 32]).buffer_shape(), vec![32, 33]);
        assert_eq!(box_of(vec![8, 32]).size(), 8 * 33 * 8);
        assert_eq!(box_of(vec![32, 7]).buffer_shape(), vec![32, 7]);
        assert_eq!(box_of(vec![2, 16, 32]).buffer_shape(), vec![2, 16, 33]);
        // One dimension: consecutive threads, consecutive banks already.
        assert_eq!(box_of(vec![32]).buffer_shape(), vec![32]);
        assert_eq!(box_of(vec![32]).size(), 256);
    }

    #[test]
    fn the_tightest_box_of_a_tile() {
        // Columns [t | x | 1]: 32t <= x <= 32t + 31, 0 <= x <= 1199.
        let ineqs = vec![
            vec![-32, 1, 0],
            vec![32, -1, 31],
            vec![0, 1, 0],
            vec![0, -1, 1199],
        ];
        assert_eq!(dim_box(&[], &ineqs, 1, 1).unwrap(), Some((vec![32], 0, 31)));
        // x = t + 2: a box of one cell.
        let eqs = vec![vec![1, -1, 2]];
        assert_eq!(dim_box(&eqs, &[], 1, 1).unwrap(), Some((vec![1], 2, 0)));
        // 2x >= t: no unit bound.
        assert_eq!(
            dim_box(&[], &[vec![-1, 2, 0], vec![1, -2, 4]], 1, 1).unwrap(),
            None
        );
    }
}
