//! The GPU mapping of a loop tree: which loops of a launch run as its
//! blocks and its threads. A launch is a chain of block loops
//! ([`GpuRole::Block`]) down from a host node; inside it, chains of thread
//! loops ([`GpuRole::Thread`], at most three, at most [`MAX_THREADS`]
//! threads) map to the threads, and sequences whose children map the same
//! thread loops run as pieces inside each thread ([`map_part`]); a chain of
//! block loops over a sequence with block loops of its own is launched once
//! per child ([`distributed`]). The printer (`emit/gpu.rs`) prints the
//! launches, barriers and copies of these parts.
//!
//! Pure functions of the tree and the plan's [`GpuRole`]s: unit-tested on
//! hand-built trees below.

use crate::codegen::ast::{Bound, Cond, Node, Row};
use crate::transform::gpu::GpuRole;

/// Most threads of a block the emitter maps (the CUDA limit).
pub const MAX_THREADS: i64 = 1024;

/// A block loop of a launch: its dimension and bounds.
pub struct Mapped<'n> {
    /// Its dimension.
    pub dim: usize,
    /// Its lower bounds.
    pub lower: &'n [Bound],
    /// Its upper bounds.
    pub upper: &'n [Bound],
    /// A block loop whose bounds depend on an outer block loop (a
    /// triangle of tiles): the grid covers its bounding box over the outer
    /// block loops' ranges, and each block checks its own bounds.
    pub boxed: bool,
}

impl Mapped<'_> {
    /// The conditions (`e >= 0`) that hold exactly when the loop's
    /// dimension is inside its bounds (`np` parameters).
    pub fn inside(&self, np: usize) -> Vec<Cond> {
        let lower = self.lower.iter().map(|b| {
            let mut r: Vec<i64> = b.row.iter().map(|&c| -c).collect();
            r[np + self.dim] += b.div;
            r
        });
        let upper = self.upper.iter().map(|b| {
            let mut r = b.row.clone();
            r[np + self.dim] -= b.div;
            r
        });
        lower
            .chain(upper)
            .map(|row| Cond { row, eq: false })
            .collect()
    }
}

/// The grid of a launch: its block loops (at most three, outermost first)
/// and the block dimensions with a single tile among them, down from a
/// host node, and the node inside them.
pub struct BlockChain<'n> {
    /// The block loops, mapped to the grid's dimensions.
    pub blocks: Vec<Mapped<'n>>,
    /// Block dimensions with a single tile among the block loops (the
    /// scanner's `Let`s) and their values: computed inside the kernel, so
    /// that their thread loops still map to threads.
    pub lets: Vec<(usize, &'n Row)>,
    /// The node inside the chain.
    pub inside: &'n Node,
}

/// The block loops of a launch from `n` down ([`BlockChain`]), with the
/// tree's column counts `(np, nd, nv)`: parameters, schedule dimensions,
/// divisions. A block loop joins the grid while there are fewer than three,
/// its bounds use no division (but for the first) and no single-tile
/// dimension; it is boxed when its bounds depend on an outer block loop
/// (a triangle of tiles).
pub fn block_chain<'n>(
    n: &'n Node,
    roles: &[GpuRole],
    (np, nd, nv): (usize, usize, usize),
) -> BlockChain<'n> {
    let mut blocks: Vec<Mapped> = Vec::new();
    let mut lets: Vec<(usize, &Row)> = Vec::new();
    let mut cur = n;
    loop {
        match cur {
            Node::Loop {
                dim,
                lower,
                upper,
                stride: None,
                body,
                ..
            } if roles.get(*dim) == Some(&GpuRole::Block) && blocks.len() < 3 => {
                let bounds = || lower.iter().chain(upper.iter());
                let on = |d: usize| bounds().any(|b| b.row[np + d] != 0);
                let no_divs = blocks.is_empty()
                    || bounds().all(|b| b.row[np + nd..np + nd + nv].iter().all(|&c| c == 0));
                if !no_divs || lets.iter().any(|&(d, _)| on(d)) {
                    break;
                }
                let boxed = blocks.iter().any(|m| on(m.dim));
                blocks.push(Mapped {
                    dim: *dim,
                    lower,
                    upper,
                    boxed,
                });
                cur = body;
            }
            Node::Let { dim, row, body } if roles.get(*dim) == Some(&GpuRole::Block) => {
                lets.push((*dim, row));
                cur = body;
            }
            _ => break,
        }
    }
    BlockChain {
        blocks,
        lets,
        inside: cur,
    }
}

/// A thread loop of a launch: the loop, its tile dimension, its size.
pub type Threaded<'n> = (Mapped<'n>, usize, i64);

/// The thread loops directly nested from `n` (at most three in all with
/// the `used` ones mapped around it, at most [`MAX_THREADS`] threads with
/// their `count`, each with its tile known: `tile_known`), and the node
/// inside them.
pub fn thread_chain<'n>(
    n: &'n Node,
    roles: &[GpuRole],
    tile_known: &dyn Fn(usize) -> bool,
    used: &[usize],
    count: i64,
) -> (Vec<Threaded<'n>>, &'n Node) {
    let mut threads: Vec<Threaded> = Vec::new();
    let mut count = count;
    let mut cur = n;
    loop {
        match cur {
            // A thread dimension that is 0 for these statements (a group
            // with fewer parallel loops than the plan's mapped slots):
            // bound once in the kernel (`zero_thread_lets`), no thread
            // loop.
            Node::Let { dim, row, body } if is_zero_thread_let(roles, *dim, row) => cur = body,
            Node::Loop {
                dim,
                lower,
                upper,
                stride: None,
                body,
                ..
            } => {
                let Some(&GpuRole::Thread { tile, size }) = roles.get(*dim) else {
                    break;
                };
                if used.len() + threads.len() == 3
                    || used.contains(dim)
                    || !tile_known(tile)
                    || count.saturating_mul(size) > MAX_THREADS
                {
                    break;
                }
                count *= size;
                threads.push((
                    Mapped {
                        dim: *dim,
                        lower,
                        upper,
                        boxed: false,
                    },
                    tile,
                    size,
                ));
                cur = body;
            }
            _ => break,
        }
    }
    (threads, cur)
}

/// A `Let` of a thread dimension to 0: the plan's padding for statements
/// with fewer mapped loops than the others (`transform::gpu::plan`).
pub fn is_zero_thread_let(roles: &[GpuRole], dim: usize, row: &[i64]) -> bool {
    matches!(roles.get(dim), Some(GpuRole::Thread { .. })) && row.iter().all(|&c| c == 0)
}

/// The thread dimensions that `n` sets to 0 (see [`is_zero_thread_let`]).
pub fn zero_thread_lets(n: &Node, roles: &[GpuRole], out: &mut Vec<usize>) {
    match n {
        Node::Let { dim, row, body } => {
            if is_zero_thread_let(roles, *dim, row) && !out.contains(dim) {
                out.push(*dim);
            }
            zero_thread_lets(body, roles, out);
        }
        Node::Seq(v) => v.iter().for_each(|c| zero_thread_lets(c, roles, out)),
        Node::Loop { body, .. } | Node::If { body, .. } => zero_thread_lets(body, roles, out),
        Node::Stmt { .. } => {}
    }
}

/// The block loops (and single tiles) from `n` down to a sequence with a
/// block loop in some child, distributed over the sequence's children:
/// one copy of the chain around each child, each launched apart (init_gemm's
/// column tiles, cut where the arrays' widths differ). Legal because block
/// loops carry no dependence (the checker proved them parallel): running
/// every tile's first child before any tile's second one reorders only
/// instances of different tiles. `None` when `n` has no such shape.
pub fn distributed(n: &Node, is_block: &dyn Fn(usize) -> bool) -> Option<Vec<Node>> {
    let children = seq_under_blocks(n, is_block)?;
    children
        .iter()
        .map(|c| rebuilt_around(n, is_block, c))
        .collect()
}

/// The chain of block loops (and single tiles) from `n`, with the sequence
/// at its end replaced by `child`.
pub fn rebuilt_around(n: &Node, is_block: &dyn Fn(usize) -> bool, child: &Node) -> Option<Node> {
    match n {
        Node::Seq(_) => Some(child.clone()),
        Node::Loop {
            dim,
            lower,
            upper,
            stride: None,
            role,
            marks,
            body,
        } if is_block(*dim) => Some(Node::Loop {
            dim: *dim,
            lower: lower.clone(),
            upper: upper.clone(),
            stride: None,
            role: *role,
            marks: marks.clone(),
            body: Box::new(rebuilt_around(body, is_block, child)?),
        }),
        Node::Let { dim, row, body } if is_block(*dim) => Some(Node::Let {
            dim: *dim,
            row: row.clone(),
            body: Box::new(rebuilt_around(body, is_block, child)?),
        }),
        _ => None,
    }
}

/// The children of the sequence at the end of the chain of block loops
/// (and single tiles) from `n`, when some child has a block loop of its
/// own and there are at least two.
pub fn seq_under_blocks<'n>(n: &'n Node, is_block: &dyn Fn(usize) -> bool) -> Option<&'n [Node]> {
    let mut cur = n;
    let mut depth = 0;
    loop {
        match cur {
            Node::Loop {
                dim,
                stride: None,
                body,
                ..
            }
            | Node::Let { dim, body, .. }
                if is_block(*dim) =>
            {
                depth += 1;
                cur = body;
            }
            Node::Seq(children)
                if depth > 0
                    && children.len() > 1
                    && children
                        .iter()
                        .any(|c| c.has_loop_over(is_block) || c.has_let_over(is_block)) =>
            {
                return Some(children);
            }
            _ => return None,
        }
    }
}

/// Thread loops mapped to a block's threads, and what runs inside them.
pub struct Part<'n> {
    /// The thread loops, outermost first (possibly none).
    pub chain: Vec<Threaded<'n>>,
    /// The node inside them.
    pub rest: &'n Node,
    /// How it runs inside them.
    pub inner: Inner<'n>,
}

/// What runs inside a part's thread loops.
pub enum Inner<'n> {
    /// A node, in order inside each thread.
    Plain(&'n Node),
    /// The children of a sequence, each with the same further thread loops
    /// (the pieces of a thread loop that loop separation cut apart), in
    /// order: every dependence between instances of one launch joins
    /// instances with the same block and thread coordinates (the checker
    /// proved those loops parallel), so each thread runs its instances of
    /// every piece, in order, without waiting for the others.
    Pieces(Vec<Part<'n>>),
    /// A guard on the dimensions around (uniform over the threads that
    /// reach it), and the part inside it.
    If(&'n [Cond], Box<Part<'n>>),
    /// The block's cooperative loop (a `Loop` or `Let` over a
    /// [`GpuRole::Cooperative`] dimension, outside every thread loop, so
    /// every thread of the block runs it alike) and the part inside it.
    Coop(&'n Node, Box<Part<'n>>),
}

impl Part<'_> {
    /// The thread loops of the part and of its first pieces, outermost
    /// first: the block's thread dimensions (the same along every path, by
    /// construction).
    pub fn signature(&self) -> Vec<&Threaded<'_>> {
        let mut s: Vec<&Threaded> = self.chain.iter().collect();
        match &self.inner {
            Inner::Pieces(p) => {
                if let Some(first) = p.first() {
                    s.extend(first.signature());
                }
            }
            Inner::If(_, p) | Inner::Coop(_, p) => s.extend(p.signature()),
            Inner::Plain(_) => {}
        }
        s
    }
}

/// The thread loops from `n` down (see [`thread_chain`]; `used` mapped
/// around it with `count` threads), and inside them a sequence whose
/// children all map the same further thread loops, recursively.
pub fn map_part<'n>(
    n: &'n Node,
    roles: &[GpuRole],
    tile_known: &dyn Fn(usize) -> bool,
    used: &[usize],
    count: i64,
) -> Part<'n> {
    // The cooperative loop, outside the thread loops.
    let coop_body = match n {
        Node::Loop {
            dim,
            stride: None,
            body,
            ..
        }
        | Node::Let { dim, body, .. }
            if used.is_empty() && roles.get(*dim) == Some(&GpuRole::Cooperative) =>
        {
            Some(body)
        }
        _ => None,
    };
    if let Some(body) = coop_body {
        let p = map_part(body, roles, tile_known, used, count);
        if !p.signature().is_empty() {
            return Part {
                chain: Vec::new(),
                rest: n,
                inner: Inner::Coop(n, Box::new(p)),
            };
        }
    }
    let (chain, rest) = thread_chain(n, roles, tile_known, used, count);
    let mut inner_used = used.to_vec();
    inner_used.extend(chain.iter().map(|t| t.0.dim));
    let inner_count = chain.iter().fold(count, |c, t| c * t.2);
    let dims = |p: &Part| -> Vec<usize> { p.signature().iter().map(|t| t.0.dim).collect() };
    let inner = match rest {
        Node::Seq(children) if !children.is_empty() => {
            let parts: Vec<Part> = children
                .iter()
                .map(|c| map_part(c, roles, tile_known, &inner_used, inner_count))
                .collect();
            let chain_dims = |p: &Part| -> Vec<usize> { p.chain.iter().map(|t| t.0.dim).collect() };
            let (first, first_chain) = (dims(&parts[0]), chain_dims(&parts[0]));
            if !first.is_empty() && parts.iter().all(|p| dims(p) == first) {
                Inner::Pieces(parts)
            } else if parts
                .iter()
                .all(|p| !p.chain.is_empty() && chain_dims(p) == first_chain)
            {
                // The same thread loops, but not the same further ones
                // inside: those run in order inside each thread.
                Inner::Pieces(
                    parts
                        .into_iter()
                        .map(|p| Part {
                            chain: p.chain,
                            rest: p.rest,
                            inner: Inner::Plain(p.rest),
                        })
                        .collect(),
                )
            } else {
                Inner::Plain(rest)
            }
        }
        Node::If { conds, body } => {
            let p = map_part(body, roles, tile_known, &inner_used, inner_count);
            if p.signature().is_empty() {
                Inner::Plain(rest)
            } else {
                Inner::If(conds, Box::new(p))
            }
        }
        _ => Inner::Plain(rest),
    };
    Part { chain, rest, inner }
}

#[cfg(test)]
mod tests {
    use super::{
        block_chain, distributed, map_part, thread_chain, zero_thread_lets, Inner, MAX_THREADS,
    };
    use crate::codegen::ast::{Bound, Node};
    use crate::codegen::tree::build::{copy, par, seq, stmt, DIMS};
    use crate::transform::gpu::GpuRole;

    /// t0: blocks, t1: threads of tile t0 (32 wide), t2: cooperative, t3:
    /// threads of tile t2 (8 wide), t4: inside, t5: host.
    fn roles() -> Vec<GpuRole> {
        vec![
            GpuRole::Block,
            GpuRole::Thread { tile: 0, size: 32 },
            GpuRole::Cooperative,
            GpuRole::Thread { tile: 2, size: 8 },
            GpuRole::Inside,
            GpuRole::Host,
        ]
    }

    fn dims(chain: &[super::Threaded]) -> Vec<usize> {
        chain.iter().map(|t| t.0.dim).collect()
    }

    #[test]
    fn thread_loops_chain_while_their_tiles_are_known_and_fit() {
        let roles = roles();
        // parfor t1 { parfor t3 { for t4 { S0 } } } with every tile known.
        let n = par(1, par(3, seq(4, stmt(0))));
        let (chain, rest) = thread_chain(&n, &roles, &|_| true, &[], 1);
        assert_eq!(dims(&chain), vec![1, 3]);
        assert_eq!(chain.iter().map(|t| t.2).product::<i64>(), 256);
        assert!(matches!(rest, Node::Loop { dim: 4, .. }));
        // t3's tile (t2) not bound: only t1 maps.
        let (chain, _) = thread_chain(&n, &roles, &|t| t != 2, &[], 1);
        assert_eq!(dims(&chain), vec![1]);
        // Past the threads a block may have: nothing maps.
        let (chain, rest) = thread_chain(&n, &roles, &|_| true, &[], MAX_THREADS / 16);
        assert!(chain.is_empty());
        assert!(std::ptr::eq(rest, &n));
    }

    #[test]
    fn a_zero_thread_let_is_skipped_and_found() {
        let roles = roles();
        // t1 = 0 (padding), then the thread loop t3.
        let n = copy(1, 0, par(3, stmt(0)));
        let (chain, _) = thread_chain(&n, &roles, &|_| true, &[], 1);
        assert_eq!(dims(&chain), vec![3]);
        let mut zeros = Vec::new();
        zero_thread_lets(&n, &roles, &mut zeros);
        assert_eq!(zeros, vec![1]);
        // A Let to another value is no padding.
        let mut zeros = Vec::new();
        zero_thread_lets(&copy(1, 3, stmt(0)), &roles, &mut zeros);
        assert!(zeros.is_empty());
    }

    #[test]
    fn pieces_with_the_same_threads_share_the_launch() {
        let roles = roles();
        // parfor t1 { S0 }; parfor t1 { S1 }: the two pieces of a thread
        // loop that separation cut apart.
        let n = Node::Seq(vec![par(1, stmt(0)), par(1, stmt(1))]);
        let part = map_part(&n, &roles, &|_| true, &[], 1);
        assert!(part.chain.is_empty());
        let Inner::Pieces(pieces) = &part.inner else {
            panic!("pieces expected");
        };
        assert_eq!(pieces.len(), 2);
        assert!(pieces.iter().all(|p| dims(&p.chain) == vec![1]));
        assert_eq!(part.signature().len(), 1);
    }

    #[test]
    fn the_cooperative_loop_stays_outside_the_threads() {
        let roles = roles();
        // for t2 (cooperative) { parfor t1 { S0 } }
        let n = seq(2, par(1, stmt(0)));
        let part = map_part(&n, &roles, &|_| true, &[], 1);
        let Inner::Coop(coop, inner) = &part.inner else {
            panic!("a cooperative part expected");
        };
        assert!(std::ptr::eq(*coop, &n));
        assert_eq!(dims(&inner.chain), vec![1]);
    }

    #[test]
    fn block_loops_over_a_sequence_of_launches_are_distributed() {
        let is_block = |d: usize| d == 0;
        // parfor t0 { parfor t0' ... }: blocks around two children that
        // each launch (a block loop of their own).
        let n = par(0, Node::Seq(vec![par(0, stmt(0)), par(0, stmt(1))]));
        let pieces = distributed(&n, &is_block).expect("distributed");
        assert_eq!(pieces.len(), 2);
        for (i, p) in pieces.iter().enumerate() {
            let Node::Loop { dim: 0, body, .. } = p else {
                panic!("a block loop around each child");
            };
            let Node::Loop { body: inner, .. } = &**body else {
                panic!("the child");
            };
            assert!(matches!(**inner, Node::Stmt { stmt, .. } if stmt == i));
        }
        // One child only, or no block loop below: nothing to distribute.
        assert!(distributed(&par(0, par(0, stmt(0))), &is_block).is_none());
        let flat = par(0, Node::Seq(vec![stmt(0), stmt(1)]));
        assert!(distributed(&flat, &is_block).is_none());
    }

    /// `n` with its (first) loop's lower bound replaced by `row`.
    fn lower_bound(n: Node, row: Vec<i64>) -> Node {
        match n {
            Node::Loop {
                dim,
                upper,
                stride,
                role,
                marks,
                body,
                ..
            } => Node::Loop {
                dim,
                lower: vec![Bound { row, div: 1 }],
                upper,
                stride,
                role,
                marks,
                body,
            },
            n => n,
        }
    }

    #[test]
    fn the_grid_takes_up_to_three_block_loops() {
        // Block roles for t0..t3, thread loops t4 (no parameters, no
        // divisions: rows over [t0 … t5 | 1]).
        let mut roles = vec![GpuRole::Block; 4];
        roles.extend([GpuRole::Thread { tile: 0, size: 32 }, GpuRole::Inside]);
        let cols = (0, DIMS, 0);
        // parfor t0 { t1 = 0 { parfor t2 (from t0: boxed) { parfor t3 {
        // parfor t4 { parfor t3' { S0 } } } } } }
        let mut from_t0 = vec![0; DIMS + 1];
        from_t0[0] = 1;
        let inner = par(3, par(4, stmt(0)));
        let n = par(0, copy(1, 0, lower_bound(par(2, inner), from_t0)));
        let chain = block_chain(&n, &roles, cols);
        let dims: Vec<usize> = chain.blocks.iter().map(|m| m.dim).collect();
        assert_eq!(dims, vec![0, 2, 3]);
        let boxed: Vec<bool> = chain.blocks.iter().map(|m| m.boxed).collect();
        assert_eq!(boxed, vec![false, true, false]);
        assert_eq!(chain.lets.iter().map(|l| l.0).collect::<Vec<_>>(), vec![1]);
        // Inside: the thread loop.
        assert!(matches!(chain.inside, Node::Loop { dim: 4, .. }));
        // A fourth block loop stays inside the kernel.
        let four = par(0, par(1, par(2, par(3, stmt(0)))));
        let chain = block_chain(&four, &roles, cols);
        assert_eq!(chain.blocks.len(), 3);
        assert!(matches!(chain.inside, Node::Loop { dim: 3, .. }));
    }

    #[test]
    fn a_block_loop_bounded_by_a_single_tile_ends_the_grid() {
        let roles = vec![GpuRole::Block; DIMS];
        // t0 = 0 (a single tile), then t1 from t0: computed in the kernel.
        let mut from_t0 = vec![0; DIMS + 1];
        from_t0[0] = 1;
        let n = copy(0, 0, lower_bound(par(1, stmt(0)), from_t0));
        let chain = block_chain(&n, &roles, (0, DIMS, 0));
        assert!(chain.blocks.is_empty());
        assert!(matches!(chain.inside, Node::Loop { dim: 1, .. }));
    }
}
