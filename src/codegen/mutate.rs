//! Deliberate bugs, for the tests that show the emitted-code check
//! (`verify-emit`, [`crate::validate`]) catches what it is for: applied to
//! the loop tree after the tree's own check and before it is emitted, with
//! the testing-only option `emit-test-mutation`. Never used otherwise.

use super::{Node, Tree};

/// Applies mutation `kind` (`duplicate` or `hoist`) to the first place of
/// `tree` it fits; false when none does.
pub fn apply(tree: &mut Tree, kind: &str) -> bool {
    match kind {
        "duplicate" => duplicate(&mut tree.root),
        "hoist" => hoist(&mut tree.root),
        _ => false,
    }
}

/// The first statement instance emitted twice in a row.
fn duplicate(n: &mut Node) -> bool {
    match n {
        Node::Stmt { .. } => {
            let copy = n.clone();
            *n = Node::Seq(vec![copy.clone(), copy]);
            true
        }
        Node::Seq(v) => v.iter_mut().any(duplicate),
        Node::Loop { body, .. } | Node::If { body, .. } | Node::Let { body, .. } => duplicate(body),
    }
}

/// The first statement directly inside a loop (with one lower bound, no
/// divisor, no stride) taken out of it and emitted once before it, at the
/// loop's first value: one loop level too high.
fn hoist(n: &mut Node) -> bool {
    match n {
        Node::Seq(v) => v.iter_mut().any(hoist),
        Node::If { body, .. } | Node::Let { body, .. } => hoist(body),
        Node::Stmt { .. } => false,
        Node::Loop {
            dim,
            lower,
            stride,
            body,
            ..
        } => {
            let plain = stride.is_none() && lower.len() == 1 && lower[0].div == 1;
            let taken = match (plain, body.as_mut()) {
                (true, Node::Seq(v)) => v
                    .iter()
                    .position(|c| matches!(c, Node::Stmt { .. }))
                    .map(|k| v.remove(k)),
                (true, b @ Node::Stmt { .. }) => Some(std::mem::replace(b, Node::Seq(Vec::new()))),
                _ => None,
            };
            match taken {
                Some(stmt) => {
                    let at = Node::Let {
                        dim: *dim,
                        row: lower[0].row.clone(),
                        body: Box::new(stmt),
                    };
                    let lp = std::mem::replace(n, Node::Seq(Vec::new()));
                    *n = Node::Seq(vec![at, lp]);
                    true
                }
                None => hoist(body),
            }
        }
    }
}
