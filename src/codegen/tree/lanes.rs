//! Row blocks in vector lanes, decided: a loop whose body is the unrolled
//! copies of one of the plan's lane dimensions
//! ([`Plan::lane_dims`](crate::transform::Plan::lane_dims): `row_blocks`'
//! rows), `c·V` of them for `V` lanes and `c` up to
//! [`MAX_LANE_VECTORS`], runs them in the lanes of `c` vectors
//! ([`LaneMark`]). The printer
//! (`emit/lanes.rs`) does so where the loop also carries its copies'
//! cells and every access of the copies runs lane by lane.

use super::{each_loop, Note, TreeCx};
use crate::analysis::lanes::MAX_LANE_VECTORS;
use crate::codegen::ast::{LaneMark, Node, Tree};

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
            .map(|dim| LaneMark { dim, size: v });
        marks.lanes.is_some()
    });
    Note { loops }
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
    use crate::codegen::tree::build::{copy, loops, par, seq, stmt, tree};
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
    fn copies_of_a_lane_dimension_run_in_lanes() {
        let mark = Some(LaneMark { dim: 4, size: 4 });
        let mut t = rows(4, false);
        assert_eq!(run(&mut t, &cx(4)).loops, 1);
        assert_eq!(lanes_of(&t), vec![None, mark]);
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
}
