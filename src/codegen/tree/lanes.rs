//! Row blocks in vector lanes, decided: a loop whose body is the unrolled
//! copies of one of the plan's lane dimensions
//! ([`Plan::lane_dims`](crate::transform::Plan::lane_dims): `row_blocks`'
//! rows), `c·V` of them for `V` lanes and `c` up to
//! [`MAX_LANE_VECTORS`], runs them in the lanes of `c` vectors
//! ([`LaneMark`]) where the loop also carries its copies' cells
//! (`codegen/tree/carry.rs`) and every access of the copies runs lane by
//! lane: the mark's [`LaneShape`]s say how (`emit/lanes.rs` prints them;
//! its module text says why the lanes compute what the copies computed).
//!
//! * Each group of cells that the copies access through the same access
//!   (`tmp[i + k]`, one per lane) is an accumulator ([`Lane::Acc`]).
//! * A read at the same subscripts in every copy (`x[j]`) is loaded once
//!   and broadcast ([`Lane::Same`]).
//! * A read whose copies differ only outside the last subscript, which
//!   moves with the loop at unit stride (`A[i + k][j]`), is loaded as rows
//!   and transposed ([`Lane::Rows`]).
//!
//! Anything else (a statement that does not run lane-wise, a write outside
//! the cells, an access of another shape, an expanded array's cell that is
//! not an accumulator, a subscript over loops not bound around the loop)
//! leaves the copies scalar (`lanes tD xV (scalar)` in the printed tree).

use std::collections::HashMap;

use super::{each_loop, each_loop_around, Around, LoopAt, Note, TreeCx};
use crate::analysis::lanes::MAX_LANE_VECTORS;
use crate::codegen::ast::{Carried, Lane, LaneMark, LaneRows, LaneShape, Node, Row, Tree};
use crate::codegen::instances::{expanded_accesses, straight_line, subscript_rows, Instances, Via};
use crate::scop::model::AccessKind;

/// Marks the loops over copies of lane dimensions.
pub fn run(tree: &mut Tree, cx: &TreeCx) -> Note {
    let v = cx.lane_size;
    let lane_dims = cx.lane_dims;
    if v < 2 || lane_dims.is_empty() {
        return Note::default();
    }
    let loops = each_loop(&mut tree.root, &mut |_, strided, role, marks, body| {
        marks.lanes = copies_of(body, lane_dims, v)
            .filter(|_| !strided && !role.is_parallel())
            .map(|dim| LaneMark {
                dim,
                size: v,
                shapes: None,
            });
        marks.lanes.is_some()
    });
    let expanded = expanded_accesses(cx.model);
    each_loop_around(tree, cx.model.params.len(), &mut |around, l, marks| {
        let (Some(mark), Some(cells)) = (marks.lanes.as_mut(), marks.cells.as_deref()) else {
            return;
        };
        mark.shapes = lane_shapes(cx, &expanded, around, &l, (mark.dim, mark.size), cells)
            .map(Vec::into_boxed_slice);
    });
    Note { loops }
}

/// How the copies of the loop `l` (of the lane dimension `lane_dim`, in
/// vectors of `v`) run in lanes, one shape per chunk of `v` copies, when
/// the loop and its body have the shape of the module text; `None`
/// otherwise. `carried`: the loop's cells.
fn lane_shapes(
    cx: &TreeCx,
    expanded: &HashMap<usize, usize>,
    around: &Around,
    l: &LoopAt,
    (lane_dim, v): (usize, i64),
    carried: &Carried,
) -> Option<Vec<LaneShape>> {
    let ([lo], [hi]) = (l.lower, l.upper) else {
        return None;
    };
    if v < 2 || lo.div != 1 || hi.div != 1 || around.buffered {
        return None;
    }
    // V copies: lets of one lane dimension.
    let Node::Seq(copies) = l.body else {
        return None;
    };
    if !matches!(copies.first(), Some(Node::Let { dim, .. }) if *dim == lane_dim) {
        return None;
    }
    let chunks = copies.len() as i64 / v;
    if copies.len() as i64 != chunks * v
        || !(1..=MAX_LANE_VECTORS).contains(&chunks)
        || !copies
            .iter()
            .all(|c| matches!(c, Node::Let { dim, .. } if *dim == lane_dim))
    {
        return None;
    }
    let per_copy: Vec<Instances> = copies
        .iter()
        .map(|c| straight_line(c, around.np))
        .collect::<Option<Vec<_>>>()?;
    let stmts: Vec<usize> = per_copy[0].iter().map(|(s, _)| *s).collect();
    let m = stmts.len();
    let instances = &carried.instances;
    if m == 0
        || instances.len() != m * per_copy.len()
        || per_copy
            .iter()
            .any(|c| c.iter().map(|(s, _)| *s).ne(stmts.iter().copied()))
    {
        return None;
    }
    let mut shapes = Vec::new();
    for c in 0..chunks as usize {
        let range = c * v as usize..(c + 1) * v as usize;
        let chunk = Chunk {
            dim: l.dim,
            stmts: &stmts,
            per_copy: &per_copy[range.clone()],
            first: range.start,
            instances,
        };
        shapes.push(chunk_shape(cx, expanded, around, chunk)?);
    }
    // Every cell in a group (a cell no access reaches is not carried).
    if (0..carried.cells.len()).any(|c| {
        !shapes
            .iter()
            .flat_map(|s| s.accs.iter().flatten())
            .any(|&x| x == c)
    }) {
        return None;
    }
    Some(shapes)
}

/// One chunk of a loop's copies: the loop's dimension, the statements of
/// a copy, the chunk's copies (`first..` of the loop's body), and per
/// statement instance of the body the carried cell of each access.
struct Chunk<'c> {
    dim: usize,
    stmts: &'c [usize],
    per_copy: &'c [Instances],
    first: usize,
    instances: &'c [Vec<Option<usize>>],
}

/// How the statements of chunk `c` run in one vector's lanes; `None` when
/// they cannot.
fn chunk_shape(
    cx: &TreeCx,
    expanded: &HashMap<usize, usize>,
    around: &Around,
    c: Chunk,
) -> Option<LaneShape> {
    let Chunk {
        dim,
        stmts,
        per_copy,
        first,
        instances,
    } = c;
    let (np, n, w) = (around.np, around.n, around.w);
    let m = stmts.len();
    let jc = np + dim;
    let mut accs: Vec<Vec<usize>> = Vec::new();
    // Per group: the memref (a key) and its rows.
    let mut rows: Vec<(usize, LaneRows)> = Vec::new();
    let mut access = Vec::new();
    for (q, &s) in stmts.iter().enumerate() {
        let st = cx.model.statements.get(s)?;
        if !cx.lane_wise.get(s).copied().unwrap_or(false) {
            return None;
        }
        let mut per = Vec::new();
        for (a_i, a) in st.accesses.iter().enumerate() {
            let cell: Vec<Option<usize>> = (first..first + per_copy.len())
                .map(|k| instances[k * m + q].get(a_i).copied().flatten())
                .collect();
            if cell.iter().all(Option::is_some) {
                let group: Vec<usize> = cell.into_iter().flatten().collect();
                let mut distinct = group.clone();
                distinct.sort_unstable();
                distinct.dedup();
                if distinct.len() != group.len() {
                    return None;
                }
                let g = match accs.iter().position(|x| *x == group) {
                    Some(g) => g,
                    None => {
                        // A cell in two groups: lanes would meet.
                        if accs.iter().flatten().any(|c| group.contains(c)) {
                            return None;
                        }
                        accs.push(group);
                        accs.len() - 1
                    }
                };
                per.push(Lane::Acc(g));
                continue;
            }
            // An accumulator's cells are carried (in the loop's values):
            // an expanded array's too (`carry.rs` finds its buffer). Other
            // accesses of one are not read lane by lane here.
            if cell.iter().any(Option::is_some)
                || a.kind == AccessKind::Write
                || expanded.contains_key(&a.ir.0)
            {
                return None;
            }
            let via = cx.vias.get(a.ir.0)?;
            let memref = via.memref?;
            let subs = per_copy
                .iter()
                .map(|c| subscript_rows(a, &c[q].1, np, np + n, w))
                .collect::<Option<Vec<Vec<Row>>>>()?;
            // Only the bound loops, this one, and the maps' symbols.
            let bound = |row: &Row| {
                (0..n).all(|d| row[np + d] == 0 || d == dim || around.bound[d])
                    && (0..np).all(|p| row[p] == 0 || around.used[p])
            };
            if !subs.iter().flatten().all(bound) {
                return None;
            }
            if subs.windows(2).all(|x| x[0] == x[1]) {
                per.push(Lane::Same(subs[0].clone()));
                continue;
            }
            let (last, _) = subs[0].split_last()?;
            let rows_ok = subs.iter().all(|s| {
                s.split_last().is_some_and(|(l, rest)| {
                    l == last && l[jc] == 1 && rest.iter().all(|r| r[jc] == 0)
                })
            });
            if !rows_ok {
                return None;
            }
            let g = match rows
                .iter()
                .position(|(mr, r)| *mr == memref && r.subs == subs)
            {
                Some(g) => g,
                None => {
                    let first = (s, a_i);
                    let prefetch = prefetch_ahead(cx.prefetch, via);
                    rows.push((
                        memref,
                        LaneRows {
                            first,
                            subs,
                            prefetch,
                        },
                    ));
                    rows.len() - 1
                }
            };
            per.push(Lane::Rows(g));
        }
        access.push(per);
    }
    Some(LaneShape {
        stmts: stmts.to_vec(),
        access,
        accs,
        rows: rows.into_iter().map(|(_, r)| r).collect(),
        lanes: per_copy.len() as i64,
    })
}

/// How many iterations ahead of a block's loads the rows read through
/// `via` are prefetched under `rule`: the rows of an array larger than
/// `rule`'s bytes (L2), or of unknown size, stream from memory, and a core
/// running lanes of rows at once behind their chain of adds keeps too few
/// of their reads in flight ([`crate::target::cpu::PREFETCH_AHEAD_BYTES`]);
/// the rows of a smaller one stay in cache. Rows in lanes are doubles
/// (`analysis::lanes::lane_wise`).
fn prefetch_ahead(rule: Option<super::Prefetch>, via: &Via) -> Option<i64> {
    let rule = rule?;
    let element = via
        .strides
        .as_ref()
        .and_then(|s| s.last().copied())
        .filter(|&e| e > 0)
        .unwrap_or(8);
    let large = via.bytes.is_none_or(|b| b > rule.past_bytes);
    (large && rule.ahead_bytes >= element).then_some(rule.ahead_bytes / element)
}

/// The lane dimension whose `c·V` copies (`c` from 1 to
/// [`MAX_LANE_VECTORS`]) make up `body`, if they do.
fn copies_of(body: &Node, lane_dims: &[usize], v: i64) -> Option<usize> {
    let Node::Seq(copies) = body else {
        return None;
    };
    let dim = match copies.first() {
        Some(Node::Let { dim, .. }) if lane_dims.contains(dim) => *dim,
        _ => return None,
    };
    let n = copies.len() as i64;
    let chunks = n / v;
    let all = copies
        .iter()
        .all(|c| matches!(c, Node::Let { dim: d, .. } if *d == dim));
    (n == chunks * v && (1..=MAX_LANE_VECTORS).contains(&chunks) && all).then_some(dim)
}

#[cfg(test)]
mod tests {
    use super::run;
    use crate::codegen::ast::{LaneMark, Node, Tree};
    use crate::codegen::tree::build::{copy, loop_p1, loops, par, row_p1, seq, stmt, tree};
    use crate::codegen::tree::{test_cx, TreeCx};

    /// for t1 { copies 0..n of t4 = i: S0 }, under a sequential or
    /// parallel loop.
    fn rows(n: i64, parallel: bool) -> Tree {
        let copies = Node::Seq((0..n).map(|i| copy(4, i, stmt(0))).collect());
        let inner = if parallel {
            par(1, copies)
        } else {
            seq(1, copies)
        };
        tree(seq(0, inner), 1)
    }

    fn lanes_of(t: &Tree) -> Vec<Option<LaneMark>> {
        loops(t).into_iter().map(|(_, _, m)| m.lanes).collect()
    }

    fn cx(size: i64) -> TreeCx<'static> {
        TreeCx {
            lane_dims: &[4],
            lane_size: size,
            ..test_cx()
        }
    }

    #[test]
    fn rows_beyond_l2_are_prefetched_512_bytes_ahead() {
        use super::prefetch_ahead;
        use crate::codegen::instances::Via;
        use crate::codegen::tree::Prefetch;
        let rule = Some(Prefetch {
            ahead_bytes: 512,
            past_bytes: 1 << 20,
        });
        let via = |bytes: Option<i64>, element: i64| Via {
            memref: Some(1),
            plain: true,
            strides: bytes.map(|_| vec![element * 8000, element]),
            bytes,
        };
        // trisolv's 8000 x 8000 doubles: 64 iterations (512 bytes) ahead.
        assert_eq!(prefetch_ahead(rule, &via(Some(512_000_000), 8)), Some(64));
        // Of unknown size: ahead too, as doubles.
        assert_eq!(prefetch_ahead(rule, &via(None, 8)), Some(64));
        // 1 MiB or less stays in L2: none; nor with the option off.
        assert_eq!(prefetch_ahead(rule, &via(Some(1 << 20), 8)), None);
        assert_eq!(prefetch_ahead(None, &via(Some(512_000_000), 8)), None);
        // Elements of 4 bytes: 128 of them.
        assert_eq!(prefetch_ahead(rule, &via(Some(256_000_000), 4)), Some(128));
    }

    #[test]
    fn copies_of_a_lane_dimension_run_in_lanes() {
        let mark = Some(LaneMark {
            dim: 4,
            size: 4,
            shapes: None,
        });
        let mut t = rows(4, false);
        assert_eq!(run(&mut t, &cx(4)).loops, 1);
        assert_eq!(lanes_of(&t), vec![None, mark.clone()]);
        // Two vectors of 4.
        let mut t = rows(8, false);
        run(&mut t, &cx(4));
        assert_eq!(lanes_of(&t), vec![None, mark]);
    }

    #[test]
    fn other_loops_keep_their_copies_scalar() {
        // Not a multiple of the lanes; too many vectors; a parallel loop;
        // a dimension that is not a lane dimension; one lane.
        for (t, cx) in [
            (rows(6, false), cx(4)),
            (rows(40, false), cx(4)),
            (rows(4, true), cx(4)),
            (
                rows(4, false),
                TreeCx {
                    lane_dims: &[3],
                    ..cx(4)
                },
            ),
            (rows(4, false), cx(1)),
        ] {
            let mut t = t;
            assert_eq!(run(&mut t, &cx).loops, 0);
            assert!(lanes_of(&t).iter().all(Option::is_none));
        }
    }

    /// gesummv's rows, `t[i] += A[i][j] * x[j]`, 4 rows of a block (t4 =
    /// 4·t0 + c) copied in the body of the loop over j (t1), with
    /// scalar replacement on: the marks of the loop over j after the carry
    /// and lanes stages (rows over `[N | t0 … t5 | 1]`).
    fn gesummv_rows(lane_wise: bool) -> crate::codegen::ast::LoopMarks {
        use crate::codegen::ast::LoopRole;
        use crate::codegen::instances::Via;
        use crate::codegen::tree::build::DIMS;
        use crate::scop::model::Model;
        let model = Model::parse(
            "
            domain: [N] -> { S0[i, j] : 0 <= i < N and 0 <= j < N }
            schedule: [N] -> { S0[i, j] -> [0, i, 0, j, 0] }
            writes: [N] -> { S0[i, j] -> t[i] }
            reads: [N] -> { S0[i, j] -> t[i]; S0[i, j] -> A[i, j]; S0[i, j] -> x[j] }
        ",
        )
        .unwrap();
        let vias: Vec<Via> = model.statements[0]
            .accesses
            .iter()
            .map(|a| Via {
                memref: Some(a.array.0),
                plain: true,
                strides: None,
                bytes: None,
            })
            .collect();
        let row = |cols: &[(usize, i64)], c: i64| row_p1(DIMS, cols, c);
        let lp = |dim: usize, body: Node| loop_p1(DIMS, dim, LoopRole::Serial, 7, body);
        let copies = (0..4)
            .map(|c| Node::Let {
                dim: 4,
                row: row(&[(0, 4)], c),
                body: Box::new(Node::Stmt {
                    stmt: 0,
                    iters: vec![row(&[(4, 1)], 0), row(&[(1, 1)], 0)],
                }),
            })
            .collect();
        let mut t = Tree {
            root: lp(0, lp(1, Node::Seq(copies))),
            divs: Vec::new(),
            dims: DIMS,
            register_sizes: vec![0],
            forward: false,
            launches: Vec::new(),
            size_test: None,
        };
        let lane_wise = [lane_wise];
        let cx = TreeCx {
            model: &model,
            vias: &vias,
            lane_wise: &lane_wise,
            scalar_replace: true,
            lane_dims: &[4],
            lane_size: 4,
            ..test_cx()
        };
        crate::codegen::tree::carry::run(&mut t, &cx);
        run(&mut t, &cx);
        loops(&t).remove(1).2
    }

    #[test]
    fn gesummv_rows_run_in_lanes() {
        use crate::codegen::ast::Lane;
        let marks = gesummv_rows(true);
        // The four rows' accumulators t[4·t0 + c].
        assert_eq!(marks.cells.as_ref().map(|c| c.cells.len()), Some(4));
        let lanes = marks.lanes.expect("the copies of t4 are marked");
        let shapes = lanes.shapes.expect("and they run in lanes");
        assert_eq!(shapes.len(), 1);
        let sh = &shapes[0];
        assert_eq!(sh.stmts, vec![0]);
        // t[i] written and read: the accumulators, lane c the cell of copy
        // c; A[i][j]: rows transposed; x[j]: the same in every copy.
        let x_j = vec![vec![0, 0, 1, 0, 0, 0, 0, 0]];
        assert_eq!(
            sh.access,
            vec![vec![
                Lane::Acc(0),
                Lane::Acc(0),
                Lane::Rows(0),
                Lane::Same(x_j)
            ]]
        );
        assert_eq!(sh.accs, vec![vec![0, 1, 2, 3]]);
        // A's rows 4·t0 + c, column t1, through A's first access.
        assert_eq!(sh.rows.len(), 1);
        assert_eq!(sh.rows[0].first, (0, 2));
        let a_row = |c: i64| vec![vec![0, 4, 0, 0, 0, 0, 0, c], vec![0, 0, 1, 0, 0, 0, 0, 0]];
        assert_eq!(sh.rows[0].subs, (0..4).map(a_row).collect::<Vec<_>>());
        assert_eq!(sh.lanes, 4);
    }

    #[test]
    fn statements_that_do_not_run_lane_wise_keep_their_copies_scalar() {
        let marks = gesummv_rows(false);
        let lanes = marks.lanes.expect("the copies of t4 are marked");
        assert!(lanes.shapes.is_none());
    }
}
