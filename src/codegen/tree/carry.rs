//! Scalar replacement, decided: the sequential loops with no loop inside
//! that keep the cells their statements access at loop-invariant
//! subscripts in registers
//! ([`LoopMarks::carry`](crate::codegen::ast::LoopMarks::carry)). Those of
//! the register tiles' loops inside the tile (gemm's `k`, carrying the
//! tile's accumulators) always; every such loop with `scalar-replace`.
//! The printer (`emit/scalar_replace.rs`) carries only the cells it
//! proves exact, across a body of straight-line statement instances.
//!
//! On a CPU, with `scalar-replace`, the cells an innermost loop's body
//! loads and stores again and again are also forwarded inside it after
//! printing ([`Tree::forward`], `emit/forward.rs`).

use super::{each_loop, Note, TreeCx};
use crate::codegen::ast::Tree;

/// The CPU's stage: marks the loops, and asks for the forwarding.
pub fn run(tree: &mut Tree, cx: &TreeCx) -> Note {
    tree.forward = cx.scalar_replace;
    run_on_gpu(tree, cx)
}

/// The GPU's stage: marks the loops (inside kernels, a thread's
/// sequential loop; `emit/gpu.rs`).
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
    Note { loops }
}

#[cfg(test)]
mod tests {
    use super::{run, run_on_gpu};
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
}
