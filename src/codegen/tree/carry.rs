//! Scalar replacement, decided: the sequential loops with no loop inside
//! that keep the cells their statements access at loop-invariant
//! subscripts in registers
//! ([`LoopMarks::carry`](crate::codegen::ast::LoopMarks::carry)), and the
//! cells each keeps, proven exact
//! ([`LoopMarks::cells`](crate::codegen::ast::LoopMarks::cells)). Those of the register
//! tiles' loops inside the tile (gemm's `k`, carrying the tile's
//! accumulators) always; every such loop with `scalar-replace`. The
//! printer (`emit/scalar_replace.rs`) loads the cells before the loop,
//! passes them from iteration to iteration (`iter_args`) and stores the
//! written ones after it.
//!
//! On a CPU, with `scalar-replace`, the cells an innermost loop's body
//! loads and stores again and again are also forwarded inside it after
//! printing ([`Tree::forward`], `emit/forward.rs`).
//!
//! # Which cells, and why it is exact
//!
//! The body must be straight-line (no loops, no guards), so every
//! statement instance runs in every iteration. An array's accesses are
//! carried only when every subscript of every access to it in the body is
//! independent of the loop's counter `k` (exact affine forms over the
//! outer loops, with the unrolled dimensions substituted), every two
//! different cells differ by a nonzero constant in some subscript (so they
//! never overlap), and every cell is read. An access whose subscripts move
//! with `k` is left in memory when the loop's bounds prove it off every
//! carried cell of its array (trmm's `B[k][j]` beside the block's cells
//! `B[i][j]`, with `k >= i + 1`: `moves_off`); otherwise its array is not
//! carried. The values are then loaded before the loop, passed from
//! iteration to iteration, and stored after it: the same values reach
//! memory and every load sees the value the original load would have read,
//! assuming distinct memrefs do not alias (the dependence model's
//! assumption). The loop may be empty; the printer guards the loads and
//! stores by its non-emptiness. [`Carried::strict`] drops the cells of
//! arrays with an access that moves with `k` (the GPU carries cells across
//! a loop around this one too, where the bounds of `k` prove nothing).

use std::collections::HashMap;

use super::{each_loop, each_loop_around, Around, LoopAt, Note, TreeCx};
use crate::codegen::ast::{Bound, Carried, CarriedCell, Row, Tree};
use crate::codegen::instances::{expanded_accesses, straight_line, subscript_rows};
use crate::codegen::minima::ContextMinima;
use crate::math::MathError;
use crate::scop::model::AccessKind;

/// The CPU's stage: marks the loops, finds their cells, and asks for the
/// forwarding.
pub fn run(tree: &mut Tree, cx: &TreeCx) -> Note {
    tree.forward = cx.scalar_replace;
    run_on_gpu(tree, cx)
}

/// The GPU's stage: marks the loops and finds their cells (inside kernels,
/// a thread's sequential loop; `emit/gpu.rs`).
pub fn run_on_gpu(tree: &mut Tree, cx: &TreeCx) -> Note {
    // The loops inside the register tiles.
    let inner: Vec<usize> = cx.register_tiles.iter().filter_map(|t| t.inner()).collect();
    let loops = each_loop(&mut tree.root, &mut |dim, strided, role, marks, body| {
        let carry = !strided
            && !role.is_parallel()
            && body.statements_without_loops().is_some()
            && (cx.scalar_replace || inner.contains(&dim));
        marks.carry = carry;
        carry
    });
    let expanded = expanded_accesses(cx.model);
    each_loop_around(tree, cx.model.params.len(), &mut |around, l, marks| {
        if marks.carry {
            marks.cells = cells(cx, &expanded, around, &l).map(Box::new);
        }
    });
    Note { loops }
}

/// Which memory a cell is in: an array, or an expanded array's buffer; and
/// the memref value an access goes through (an array's root or a view).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Id {
    Array(usize),
    Value(usize),
    Expanded(usize),
}

/// The cells the loop `l` can keep in registers (see the module's
/// description); `None` when there are none. `expanded`: the accesses to
/// expanded arrays ([`expanded_accesses`]).
fn cells(
    cx: &TreeCx,
    expanded: &HashMap<usize, usize>,
    around: &Around,
    l: &LoopAt,
) -> Option<Carried> {
    let (np, n, w) = (around.np, around.n, around.w);
    let (k, lower, upper, body) = (l.dim, l.lower, l.upper, l.body);
    let model = cx.model;
    let instances = straight_line(body, np)?;
    // Per access of each instance: (home, array, memref, first, index,
    // write).
    type Seen = (Id, usize, Id, (usize, usize), Vec<Row>, bool);
    let mut poisoned: Vec<Id> = Vec::new();
    // Accesses whose subscripts move with `k`: (home, index).
    let mut moving: Vec<(Id, Vec<Row>)> = Vec::new();
    let mut seen: Vec<Vec<Option<Seen>>> = Vec::new();
    for (s, its) in &instances {
        let st = model.statements.get(*s)?;
        let mut per = Vec::new();
        for (pos, a) in st.accesses.iter().enumerate() {
            let write = a.kind == AccessKind::Write;
            let via = cx.vias.get(a.ir.0)?;
            let memref = via.memref?;
            let mut ok = via.plain;
            // An expanded array: its buffer (the model's subscripts
            // already start with the expanded iterators).
            let (home, memref) = match expanded.get(&a.ir.0) {
                Some(&x) => (Id::Expanded(x), Id::Expanded(x)),
                None => (Id::Array(a.array.0), Id::Value(memref)),
            };
            let index = if ok {
                subscript_rows(a, its, np, np + n, w).unwrap_or_else(|| {
                    ok = false;
                    Vec::new()
                })
            } else {
                Vec::new()
            };
            // Only the outer loops (bound here) may appear, and only the
            // parameters that are symbols of the new maps (a subscript's
            // parameter that no bound uses is not one: it would be
            // dropped from the map, which then reads another cell).
            let moves = ok && index.iter().any(|row| row[np + k] != 0);
            if index.iter().any(|row| {
                (0..n).any(|d| row[np + d] != 0 && d != k && !around.bound[d])
                    || (0..np).any(|p| row[p] != 0 && !around.used[p])
            }) {
                ok = false;
            }
            if ok && moves {
                // The unrolled copies repeat the same subscripts.
                if !moving.iter().any(|(r, i)| *r == home && *i == index) {
                    moving.push((home, index));
                }
                per.push(None);
            } else if !ok {
                if !poisoned.contains(&home) {
                    poisoned.push(home);
                }
                per.push(None);
            } else {
                per.push(Some((home, a.array.0, memref, (*s, pos), index, write)));
            }
        }
        seen.push(per);
    }
    // Cells per home; arrays reached through two array ids or two
    // memref values, or with two cells that may overlap, are not
    // carried.
    let mut cells: Vec<(Id, usize, Id, CarriedCell, bool)> = Vec::new(); // (home, array, memref, cell, read)
    for per in &seen {
        for (home, array, memref, first, index, write) in per.iter().flatten() {
            if poisoned.contains(home) {
                continue;
            }
            match cells
                .iter_mut()
                .find(|(h, _, _, c, _)| h == home && c.index == *index)
            {
                Some((_, arr, via, c, read)) => {
                    if *arr != *array || *via != *memref {
                        poisoned.push(*home);
                    }
                    c.written |= *write;
                    *read |= !*write;
                }
                None => cells.push((
                    *home,
                    *array,
                    *memref,
                    CarriedCell {
                        first: *first,
                        index: index.clone(),
                        written: *write,
                        beside_moving: false,
                    },
                    !*write,
                )),
            }
        }
    }
    for i in 0..cells.len() {
        let (home, _, _, a, read) = &cells[i];
        if !*read {
            poisoned.push(*home);
        }
        for (h2, _, _, b, _) in &cells[i + 1..] {
            if h2 != home {
                continue;
            }
            let distinct = a.index.iter().zip(&b.index).any(|(x, y)| {
                let same_form = x[..w - 1] == y[..w - 1];
                same_form && x[w - 1] != y[w - 1]
            });
            if !distinct {
                poisoned.push(*home);
            }
        }
    }
    let mut minima = Minima::new(&around.context);
    for (home, index) in &moving {
        for (h, _, _, c, _) in cells.iter_mut() {
            if h != home || poisoned.contains(home) {
                continue;
            }
            c.beside_moving = true;
            // An LP that fails proves nothing.
            let off = moves_off(index, &c.index, np + k, (lower, upper), &mut minima);
            if !off.unwrap_or(false) {
                poisoned.push(*home);
            }
        }
    }
    let kept: Vec<usize> = (0..cells.len())
        .filter(|&i| !poisoned.contains(&cells[i].0))
        .collect();
    if kept.is_empty() {
        return None;
    }
    let instances = seen
        .iter()
        .map(|per| {
            per.iter()
                .map(|acc| {
                    acc.as_ref().and_then(|(home, _, _, _, index, _)| {
                        kept.iter()
                            .position(|&i| cells[i].0 == *home && cells[i].3.index == *index)
                    })
                })
                .collect()
        })
        .collect();
    Some(Carried {
        cells: kept.iter().map(|&i| cells[i].3.clone()).collect(),
        instances,
    })
}

/// The context of one loop's proofs (the loops, unrolled values and
/// guards around it) and what the LPs over it found: the cells of a
/// register block differ from one another by constants, so the proofs for
/// every cell against one moving access ask the same LP again and again (a
/// triangle's partial blocks: tens of thousands of LPs).
struct Minima {
    eqs: Vec<Row>,
    ineqs: Vec<Row>,
    found: ContextMinima,
}

impl Minima {
    /// The context's rows (over `[vars | constant]`, each an equality or
    /// not).
    fn new(context: &[(Row, bool)]) -> Minima {
        let rows = |eq: bool| -> Vec<Row> {
            context
                .iter()
                .filter(|(_, e)| *e == eq)
                .map(|(r, _)| r.clone())
                .collect()
        };
        Minima {
            eqs: rows(true),
            ineqs: rows(false),
            found: ContextMinima::default(),
        }
    }

    /// `row > 0` at every rational point of the context (`true` for an
    /// empty context).
    fn positive(&mut self, row: &[i64]) -> Result<bool, MathError> {
        self.found.exceeds(&self.eqs, &self.ineqs, row, 0)
    }
}

/// True when the loop's bounds prove that subscripts `index`, which move
/// with the loop's counter (column `kc`), never equal the fixed subscripts
/// `cell`: in some position the difference `c·t_k + rest` is a nonzero
/// constant, or, with a bound `t_k >= ⌈l/d⌉` (or `t_k <= ⌊u/d⌋`),
/// `c·l + d·rest` keeps the sign that holds it away from zero at every
/// rational point of `context` (the loops, unrolled values and guards
/// around the loop; exact LP).
fn moves_off(
    index: &[Row],
    cell: &[Row],
    kc: usize,
    (lower, upper): (&[Bound], &[Bound]),
    minima: &mut Minima,
) -> Result<bool, MathError> {
    let Some(w) = cell.first().map(Vec::len) else {
        return Ok(false);
    };
    // `row > 0` at every point of the context.
    let mut positive = |row: &[i64]| minima.positive(row);
    // `c·bound + d·rest`, times `sign`.
    let at = |c: i64, rest: &[i64], b: &Bound, sign: i64| -> Option<Row> {
        if b.row.len() != rest.len() {
            return None;
        }
        b.row
            .iter()
            .zip(rest)
            .map(|(&x, &y)| {
                c.checked_mul(x)?
                    .checked_add(b.div.checked_mul(y)?)?
                    .checked_mul(sign)
            })
            .collect()
    };
    if index.len() != cell.len() || index.iter().chain(cell).any(|r| r.len() != w) {
        return Ok(false);
    }
    for (m, x) in index.iter().zip(cell) {
        let Some(diff) = m
            .iter()
            .zip(x)
            .map(|(a, b)| a.checked_sub(*b))
            .collect::<Option<Row>>()
        else {
            continue;
        };
        let c = diff[kc];
        if c == 0 {
            let neg: Row = diff.iter().map(|v| -v).collect();
            if positive(&diff)? || positive(&neg)? {
                return Ok(true);
            }
            continue;
        }
        let mut rest = diff.clone();
        rest[kc] = 0;
        // From a lower bound, c > 0 gives `d·diff >= value` and c < 0
        // gives `d·diff <= value`; from an upper bound, the reverse. So
        // `diff > 0` needs `value > 0` and `diff < 0` needs `-value > 0`.
        let from_lower = if c > 0 { 1 } else { -1 };
        for (bounds, sign) in [(lower, from_lower), (upper, -from_lower)] {
            for b in bounds {
                if let Some(v) = at(c, &rest, b, sign) {
                    if positive(&v)? {
                        return Ok(true);
                    }
                }
            }
        }
    }
    Ok(false)
}

#[cfg(test)]
mod tests {
    use super::{moves_off, run, run_on_gpu, Bound, Minima, Row};
    use crate::codegen::ast::Node;
    use crate::codegen::tree::build::{loops, par, seq, stmt, strided, tree};
    use crate::codegen::tree::{test_cx, TreeCx};

    /// for t0 { for t1 { S0 }; parfor t2 { S1 }; for t3 step 2 { S2 } }
    fn nest() -> crate::codegen::ast::Tree {
        tree(
            seq(
                0,
                Node::Seq(vec![seq(1, stmt(0)), par(2, stmt(1)), strided(3, stmt(2))]),
            ),
            3,
        )
    }

    fn carried(t: &crate::codegen::ast::Tree) -> Vec<usize> {
        loops(t)
            .into_iter()
            .filter(|(_, _, m)| m.carry)
            .map(|(d, _, _)| d)
            .collect()
    }

    #[test]
    fn register_tiles_carry_their_inner_loop_only() {
        let mut t = nest();
        // A register tile whose first unrolled dimension is 2: its loop
        // inside the tile is t1.
        let cx = TreeCx {
            register_tiles: &[crate::transform::RegisterTile {
                first: 2,
                rows: 4,
                columns: 8,
                between: 0,
            }],
            ..test_cx()
        };
        let note = run(&mut t, &cx);
        assert_eq!(carried(&t), vec![1]);
        assert_eq!(note.loops, 1);
        assert!(!t.forward);
    }

    #[test]
    fn scalar_replace_carries_every_sequential_innermost_loop() {
        let mut t = nest();
        let cx = TreeCx {
            scalar_replace: true,
            ..test_cx()
        };
        run(&mut t, &cx);
        // Not t0 (a loop inside), not the parallel t2, not the strided t3.
        assert_eq!(carried(&t), vec![1]);
        assert!(t.forward);
        // The GPU's stage marks the same loops and asks for no forwarding.
        let mut g = nest();
        run_on_gpu(&mut g, &cx);
        assert_eq!(carried(&g), vec![1]);
        assert!(!g.forward);
    }

    #[test]
    fn nothing_to_carry_without_tiles_or_the_option() {
        let mut t = nest();
        assert_eq!(run(&mut t, &test_cx()).loops, 0);
        assert!(carried(&t).is_empty());
    }

    // Rows over [t0 = i, t1 = j, t2 = k | constant] (no parameters, no
    // divisions); the loop runs over k (column 2).
    fn b(row: [i64; 4]) -> Bound {
        Bound {
            row: row.to_vec(),
            div: 1,
        }
    }

    #[test]
    fn a_lower_bound_keeps_the_moving_row_off_the_cell() {
        // B[k][j] against the cell B[i][j], k from i + 1.
        let moving = vec![vec![0, 0, 1, 0], vec![0, 1, 0, 0]];
        let cell = vec![vec![1, 0, 0, 0], vec![0, 1, 0, 0]];
        let from = |c: i64| [b([1, 0, 0, c])];
        assert!(moves_off(&moving, &cell, 2, (&from(1), &[]), &mut Minima::new(&[])).unwrap());
        // From k = i, the first iteration reads the cell.
        assert!(!moves_off(&moving, &cell, 2, (&from(0), &[]), &mut Minima::new(&[])).unwrap());
        // An upper bound k <= i - 1 keeps it off from the other side.
        assert!(moves_off(
            &moving,
            &cell,
            2,
            (&[b([0, 0, 0, 0])], &[b([1, 0, 0, -1])]),
            &mut Minima::new(&[])
        )
        .unwrap());
    }

    #[test]
    fn the_context_around_the_loop_completes_the_proof() {
        // k from 4j (a tile's start), cell row i: proven only where the
        // loops around say i <= 4j - 1.
        let moving = vec![vec![0, 0, 1, 0]];
        let cell = vec![vec![1, 0, 0, 0]];
        let lower = [b([0, 4, 0, 0])];
        assert!(!moves_off(&moving, &cell, 2, (&lower, &[]), &mut Minima::new(&[])).unwrap());
        let around = vec![(vec![-1, 4, 0, -1], false)];
        assert!(moves_off(&moving, &cell, 2, (&lower, &[]), &mut Minima::new(&around)).unwrap());
        // i <= 4j only: i = 4j meets k = 4j.
        let loose = vec![(vec![-1, 4, 0, 0], false)];
        assert!(!moves_off(&moving, &cell, 2, (&lower, &[]), &mut Minima::new(&loose)).unwrap());
    }

    #[test]
    fn subscripts_apart_by_a_constant_never_meet() {
        // A[k][j + 1] against A[i][j]: apart in the second subscript
        // whatever k is; A[k][j] against A[i][j] is not, without bounds.
        let cell = vec![vec![1, 0, 0, 0], vec![0, 1, 0, 0]];
        let shifted = vec![vec![0, 0, 1, 0], vec![0, 1, 0, 1]];
        let same = vec![vec![0, 0, 1, 0], vec![0, 1, 0, 0]];
        assert!(moves_off(&shifted, &cell, 2, (&[], &[]), &mut Minima::new(&[])).unwrap());
        assert!(!moves_off(&same, &cell, 2, (&[], &[]), &mut Minima::new(&[])).unwrap());
    }

    /// The cells the stage finds on a model written as text, for the tree
    /// `for t0 { for t1 { for t2 from t0 + k_from to 7 { S0(t0, t1, t2) } } }`
    /// (rows over `[N | t0 … t5 | 1]`), with every loop sequential and
    /// `scalar-replace` on: the innermost loop's marks.
    fn cells_of(text: &str, k_from: i64) -> crate::codegen::ast::LoopMarks {
        use crate::codegen::ast::LoopRole;
        use crate::codegen::instances::Via;
        use crate::codegen::tree::build::DIMS;
        use crate::scop::model::Model;
        let model = Model::parse(text).unwrap();
        // One memref value per array.
        let vias: Vec<Via> = model
            .statements
            .iter()
            .flat_map(|st| &st.accesses)
            .map(|a| Via {
                memref: Some(a.array.0),
                plain: true,
                strides: None,
                bytes: None,
            })
            .collect();
        let w = 1 + DIMS + 1;
        let unit = |d: usize| {
            let mut r = vec![0; w];
            r[1 + d] = 1;
            r
        };
        let bound = |row: Row| Bound { row, div: 1 };
        let constant = |c: i64| {
            let mut r = vec![0; w];
            r[w - 1] = c;
            bound(r)
        };
        let lp = |dim: usize, lower: Bound, body: Node| Node::Loop {
            dim,
            lower: vec![lower],
            upper: vec![constant(7)],
            stride: None,
            role: LoopRole::Serial,
            marks: Default::default(),
            body: Box::new(body),
        };
        let mut k_lower = unit(0);
        k_lower[w - 1] = k_from;
        let s0 = Node::Stmt {
            stmt: 0,
            iters: vec![unit(0), unit(1), unit(2)],
        };
        let mut t = crate::codegen::ast::Tree {
            root: lp(
                0,
                constant(0),
                lp(1, constant(0), lp(2, bound(k_lower), s0)),
            ),
            divs: Vec::new(),
            dims: DIMS,
            register_sizes: vec![0],
            forward: false,
            launches: Vec::new(),
            size_test: None,
        };
        let cx = TreeCx {
            model: &model,
            vias: &vias,
            scalar_replace: true,
            ..test_cx()
        };
        run(&mut t, &cx);
        let mut n = &t.root;
        for _ in 0..2 {
            match n {
                Node::Loop { body, .. } => n = body,
                _ => unreachable!(),
            }
        }
        match n {
            Node::Loop { marks, .. } => (**marks).clone(),
            _ => unreachable!(),
        }
    }

    #[test]
    fn gemm_keeps_its_accumulator_across_k() {
        let marks = cells_of(crate::scop::text::examples::GEMM, 0);
        assert!(marks.carry);
        let c = marks.cells.expect("C[i][j] is carried across k");
        // One cell, C[i][j]: rows over [N | t0 .. t5 | 1].
        assert_eq!(c.cells.len(), 1);
        let cell = &c.cells[0];
        assert_eq!(
            cell.index,
            vec![vec![0, 1, 0, 0, 0, 0, 0, 0], vec![0, 0, 1, 0, 0, 0, 0, 0]]
        );
        assert!(cell.written && !cell.beside_moving);
        // First met as the statement's write (its access 0).
        assert_eq!(cell.first, (0, 0));
        // The write and the read of C are the cell; A[i][k] and B[k][j]
        // move with k and stay in memory.
        assert_eq!(c.instances, vec![vec![Some(0), Some(0), None, None]]);
    }

    #[test]
    fn a_moving_access_to_the_array_is_kept_off_by_the_bounds_or_nothing_is_carried() {
        // C[i][j] += C[k][j]: at k = i the moving read is the cell itself.
        let text = "
            domain: [N] -> { S0[i, j, k] : 0 <= i < N and 0 <= j < N and 0 <= k < N }
            schedule: [N] -> { S0[i, j, k] -> [0, i, 0, j, 0, k, 0] }
            writes: [N] -> { S0[i, j, k] -> C[i, j] }
            reads: [N] -> { S0[i, j, k] -> C[i, j]; S0[i, j, k] -> C[k, j] }
        ";
        assert!(cells_of(text, 0).cells.is_none());
        // With k from i + 1 (trmm's shape) the bounds prove C[k][j] off the
        // cell: carried, but not across a loop around this one (strict).
        let c = cells_of(text, 1)
            .cells
            .expect("k >= i + 1 keeps C[k][j] off C[i][j]");
        assert_eq!(c.cells.len(), 1);
        assert!(c.cells[0].beside_moving);
        assert_eq!(c.instances, vec![vec![Some(0), Some(0), None]]);
        assert!(c.strict().is_none());
        // Without a moving access, strict keeps the cells as they are.
        let g = cells_of(crate::scop::text::examples::GEMM, 0)
            .cells
            .unwrap();
        assert_eq!(g.strict().as_ref(), Some(&*g));
    }

    #[test]
    fn cells_never_read_are_not_carried() {
        // C[i][j] = A[i][k]: written at every k, never read: not carried.
        let text = "
            domain: [N] -> { S0[i, j, k] : 0 <= i < N and 0 <= j < N and 0 <= k < N }
            schedule: [N] -> { S0[i, j, k] -> [0, i, 0, j, 0, k, 0] }
            writes: [N] -> { S0[i, j, k] -> C[i, j] }
            reads: [N] -> { S0[i, j, k] -> A[i, k] }
        ";
        assert!(cells_of(text, 0).cells.is_none());
    }
}
