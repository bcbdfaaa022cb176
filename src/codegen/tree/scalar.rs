//! Scalar innermost loops, decided: a sequential loop with no loop inside
//! whose statements are all among the plan's
//! [`Plan::scalar_stmts`](crate::transform::Plan::scalar_stmts) (across
//! a recurrence, their strided accesses would be gathers and scatters if
//! LLVM vectorized it) gets the role
//! [`LoopRole::Scalar`]: the
//! printer marks it `vectorize = disable`.
//!
//! Where scalar replacement also keeps a cell in registers across such a
//! loop (`emit/scalar_replace.rs`), the printer leaves the loop to LLVM
//! without the mark, as it did before the role existed. Printing the mark
//! there too was measured slower (AMD Zen 4, znver4, 2 threads, a 1024²
//! sweep reading `v[j]` fixed along the rows' loop: 6.3 ms marked, 5.2 ms
//! unmarked) and was taken back; both are slower than the untransformed
//! sweep (1.7 ms): moving the rows' loop innermost across the recurrence
//! does not pay there, which is the plan's to fix (docs/optimizer.md).

use super::{each_loop, Note, TreeCx};
use crate::codegen::ast::{LoopRole, Tree};

/// Gives the innermost loops of the scalar statements the scalar role.
pub fn run(tree: &mut Tree, cx: &TreeCx) -> Note {
    let scalar = cx.scalar_stmts;
    if scalar.is_empty() {
        return Note::default();
    }
    let loops = each_loop(&mut tree.root, &mut |_, _, role, _, body| {
        let all_scalar = body
            .statements_without_loops()
            .is_some_and(|s| !s.is_empty() && s.iter().all(|&s| scalar.get(s) == Some(&true)));
        if *role == LoopRole::Serial && all_scalar {
            *role = LoopRole::Scalar;
            return true;
        }
        false
    });
    Note { loops }
}

#[cfg(test)]
mod tests {
    use super::run;
    use crate::codegen::ast::{LoopRole, Node};
    use crate::codegen::tree::build::{loops, par, seq, stmt, tree};
    use crate::codegen::tree::{test_cx, TreeCx};

    #[test]
    fn innermost_loops_of_scalar_statements_only() {
        // for t0 { for t1 { S0 }; for t2 { S0; S1 }; parfor t3 { S0 } }
        let mut t = tree(
            seq(
                0,
                Node::Seq(vec![
                    seq(1, stmt(0)),
                    seq(2, Node::Seq(vec![stmt(0), stmt(1)])),
                    par(3, stmt(0)),
                ]),
            ),
            2,
        );
        let cx = TreeCx {
            scalar_stmts: &[true, false],
            ..test_cx()
        };
        assert_eq!(run(&mut t, &cx).loops, 1);
        let roles: Vec<LoopRole> = loops(&t).into_iter().map(|(_, r, _)| r).collect();
        assert_eq!(
            roles,
            vec![
                LoopRole::Serial,
                LoopRole::Scalar,
                LoopRole::Serial,
                LoopRole::Parallel
            ]
        );
    }

    #[test]
    fn no_scalar_statements_no_change() {
        let mut t = tree(seq(0, stmt(0)), 1);
        assert_eq!(run(&mut t, &test_cx()).loops, 0);
        assert_eq!(loops(&t)[0].1, LoopRole::Serial);
    }
}
