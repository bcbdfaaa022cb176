//! The launches stage (GPU): for each kernel launch of the tree, in
//! printing order, its grid and block ([`gpu_map`](super::gpu_map): the chain of block
//! loops, the thread loops and their sizes), and for each of the block's
//! cooperative loops
//!
//! * the boxes each step copies to shared memory: the promotions of the
//!   statements under it whose origins use only parameters that are map
//!   symbols, and that fit the launch's shared memory
//!   ([`GpuCx::shared_limit`]) beside the boxes the launch's earlier
//!   cooperative loops hold (a launch's buffers live as long as it);
//! * the cells each thread keeps in registers across the steps (gemm's
//!   `C[i][j]` across every step of `k`, instead of loads and stores at
//!   each step): when the part inside is one chain of thread loops around
//!   the thread's sequential loop `k`, marked to carry cells
//!   ([`Carried::strict`]: no access of their arrays moves with `k`),
//!   whose threads' guard and cells do not depend on the cooperative loop,
//!   and whose `k` range is not empty at any step (exact LP over the
//!   loops and guards around).
//!
//! Why the registers may cross the steps' barriers: the body is
//! straight-line and runs at every step, so a thread touches each of its
//! cells at every step; a cell another thread also touches would then join
//! two threads within one step, with a write among the accesses (else
//! nothing changes it), a dependence the checker's proof that the thread
//! loops are parallel inside a step excludes. No other access of the
//! cells' arrays exists in the step (strict), so no thread changes a cell
//! behind another's register.
//!
//! The stage walks the tree as the printer (`emit/gpu.rs`) does: host
//! nodes, launches from block loops, the parts of [`map_part`]; it records
//! [`Tree::launches`] in that order.

use super::gpu_map::{block_chain, distributed, map_part, zero_thread_lets, Inner, Part};
use super::promote::statements_under;
use super::{GpuCx, Note, TreeCx};
use crate::codegen::ast::{Carried, Cond, Coop, CoopCarry, Launch, LoopRole, Node, Row, Tree};
use crate::math::{simplex, Optimum, Rational};
use crate::transform::gpu::GpuRole;

/// Records [`Tree::launches`]; the note counts the cooperative loops.
pub fn run(tree: &mut Tree, cx: &TreeCx) -> Note {
    let np = cx.model.params.len();
    let (nd, nv) = (tree.dims, tree.divs.len());
    let mut walk = Walk {
        gpu: cx.gpu,
        cols: (np, nd, nv),
        used: tree.used_params(np),
        bound: vec![false; nd],
        context: Vec::new(),
        launches: Vec::new(),
    };
    walk.host(&tree.root);
    tree.launches = walk.launches;
    Note {
        loops: tree.launches.iter().map(|l| l.coops.len()).sum(),
    }
}

/// The walk's state: what the printer knows at the same point.
struct Walk<'a> {
    gpu: GpuCx<'a>,
    /// Parameters, schedule dimensions, divisions.
    cols: (usize, usize, usize),
    /// [`Tree::used_params`].
    used: Vec<bool>,
    /// The dimensions with a value at the current point.
    bound: Vec<bool>,
    /// What holds at the current point (the printer's context: the facts
    /// of the host nodes around, of the launch's node and of the
    /// cooperative loops around).
    context: Vec<(Row, bool)>,
    launches: Vec<Launch>,
}

impl Walk<'_> {
    fn width(&self) -> usize {
        let (np, nd, nv) = self.cols;
        np + nd + nv + 1
    }

    /// A host node, with its facts.
    fn host(&mut self, n: &Node) {
        let mark = self.context.len();
        let facts = n.facts(self.cols.0, self.width());
        self.context.extend(facts);
        self.host_inner(n);
        self.context.truncate(mark);
    }

    fn host_inner(&mut self, n: &Node) {
        let roles = self.gpu.roles;
        let is_block = |d: usize| roles.get(d) == Some(&GpuRole::Block);
        // No block loop: a kernel of one thread, no cooperative loop.
        if !n.has_loop_over(is_block) && !n.has_let_over(is_block) {
            return;
        }
        if let Some(pieces) = distributed(n, &is_block) {
            pieces.iter().for_each(|p| self.host(p));
            return;
        }
        match n {
            Node::Loop {
                dim, stride: None, ..
            }
            | Node::Let { dim, .. }
                if is_block(*dim) =>
            {
                self.launch(n)
            }
            Node::Loop { dim, body, .. } | Node::Let { dim, body, .. } => {
                self.with_bound(&[*dim], |w| w.host(body))
            }
            Node::Seq(v) => v.iter().for_each(|c| self.host(c)),
            Node::If { body, .. } => self.host(body),
            Node::Stmt { .. } => {}
        }
    }

    /// Runs `f` with `dims` bound.
    fn with_bound(&mut self, dims: &[usize], f: impl FnOnce(&mut Self)) {
        let was = self.bound.clone();
        for &d in dims {
            if let Some(b) = self.bound.get_mut(d) {
                *b = true;
            }
        }
        f(self);
        self.bound = was;
    }

    /// The launch of the block loop (or single tile) `n`.
    fn launch(&mut self, n: &Node) {
        let roles = self.gpu.roles;
        let chain = block_chain(n, roles, self.cols);
        let bound = &self.bound;
        let tile_known = |tile: usize| {
            chain.blocks.iter().any(|m| m.dim == tile)
                || chain.lets.iter().any(|&(d, _)| d == tile)
                || bound.get(tile).copied().unwrap_or(false)
        };
        let top = map_part(chain.inside, roles, &tile_known, &[], 1);
        let threads: Vec<(usize, usize, i64)> = top
            .signature()
            .iter()
            .map(|(m, tile, size)| (m.dim, *tile, *size))
            .collect();
        let mut zeros = Vec::new();
        zero_thread_lets(chain.inside, roles, &mut zeros);
        let mut dims: Vec<usize> = chain.blocks.iter().map(|m| m.dim).collect();
        dims.extend(chain.lets.iter().map(|&(d, _)| d));
        dims.extend(zeros);
        dims.extend(threads.iter().map(|t| t.0));
        let mut launch = Launch {
            grid: chain.blocks.iter().map(|m| (m.dim, m.boxed)).collect(),
            threads,
            coops: Vec::new(),
        };
        let mut held = Vec::new();
        self.with_bound(&dims, |w| w.part(&top, &mut launch, &mut held));
        self.launches.push(launch);
    }

    /// The cooperative loops of `part`, in printing order; `held`: the
    /// promotions whose buffers the launch holds so far.
    fn part(&mut self, part: &Part, launch: &mut Launch, held: &mut Vec<usize>) {
        match &part.inner {
            Inner::Plain(_) => {}
            Inner::Pieces(pieces) => pieces.iter().for_each(|p| self.part(p, launch, held)),
            Inner::If(_, p) => self.part(p, launch, held),
            Inner::Coop(n, p) => {
                let mark = self.context.len();
                let facts = n.facts(self.cols.0, self.width());
                self.context.extend(facts);
                let dim = match n {
                    Node::Loop { dim, .. } | Node::Let { dim, .. } => *dim,
                    _ => return self.context.truncate(mark),
                };
                let promotions = self.promotions_for(&statements_under(n), held);
                for &k in &promotions {
                    if !held.contains(&k) {
                        held.push(k);
                    }
                }
                let carry = match n {
                    Node::Loop { .. } if !launch.threads.is_empty() => self.coop_carry(p),
                    _ => None,
                };
                let inside = carry.is_none();
                launch.coops.push(Coop {
                    dim,
                    promotions,
                    carry,
                });
                // A carried loop's part is one chain around `k`: no
                // cooperative loop inside.
                if inside {
                    self.with_bound(&[dim], |w| w.part(p, launch, held));
                }
                self.context.truncate(mark);
            }
        }
    }

    /// See the module's description: the promotions of the statements
    /// `stmts` that the cooperative loop copies.
    fn promotions_for(&self, stmts: &[usize], held: &[usize]) -> Vec<usize> {
        let all = self.gpu.promotions;
        let mut bytes: i64 = held.iter().map(|&j| all[j].size()).sum();
        let mut out = Vec::new();
        for (k, p) in all.iter().enumerate() {
            let symbols = p
                .origin
                .iter()
                .all(|o| self.used.iter().enumerate().all(|(q, &u)| o[q] == 0 || u));
            if p.stmts != stmts || !symbols {
                continue;
            }
            if held.contains(&k) {
                out.push(k);
            } else if bytes + p.size() <= self.gpu.shared_limit {
                bytes += p.size();
                out.push(k);
            }
        }
        out
    }

    /// See the module's description: the cells carried across the
    /// cooperative loop around `part`, `None` when there are none.
    fn coop_carry(&mut self, part: &Part) -> Option<CoopCarry> {
        let (np, n, _) = self.cols;
        let Inner::Plain(Node::Loop {
            lower,
            upper,
            stride: None,
            role: LoopRole::Serial,
            marks,
            ..
        }) = &part.inner
        else {
            return None;
        };
        if part.chain.is_empty()
            || !marks.carry
            || lower.iter().chain(upper.iter()).any(|b| b.div != 1)
        {
            return None;
        }
        let conds: Vec<Cond> = part
            .chain
            .iter()
            .flat_map(|(m, _, _)| m.inside(np))
            .collect();
        // Over the loops bound now (not the cooperative one), no divisions.
        let bound = &self.bound;
        let outer = |r: &Row| {
            (0..n).all(|d| r[np + d] == 0 || bound[d])
                && r[np + n..r.len() - 1].iter().all(|&c| c == 0)
        };
        if !conds.iter().all(|c| outer(&c.row)) {
            return None;
        }
        let cells: Carried = marks.cells.as_ref().and_then(|c| c.strict())?;
        if cells
            .cells
            .iter()
            .any(|c| c.index.iter().any(|r| !outer(r)))
        {
            return None;
        }
        let mark = self.context.len();
        self.context
            .extend(conds.iter().map(|c| (c.row.clone(), c.eq)));
        let nonempty = lower.iter().all(|l| {
            upper.iter().all(|u| {
                let row: Row = u.row.iter().zip(&l.row).map(|(a, b)| a - b).collect();
                self.nonnegative(&row)
            })
        });
        self.context.truncate(mark);
        nonempty.then_some(CoopCarry { conds, cells })
    }

    /// `row >= 0` at every rational point of the context (false where the
    /// LP fails: nothing is proven).
    fn nonnegative(&self, row: &[i64]) -> bool {
        let w = row.len();
        let (mut eqs, mut ineqs) = (Vec::new(), Vec::new());
        for (r, eq) in &self.context {
            if r.len() == w {
                if *eq {
                    eqs.push(r.clone());
                } else {
                    ineqs.push(r.clone());
                }
            }
        }
        match simplex::lp_min(w - 1, &eqs, &ineqs, row) {
            Ok(Optimum::Empty) => true,
            Ok(Optimum::Unbounded) | Err(_) => false,
            Ok(Optimum::Bounded((v, _))) => v >= Rational::from_int(0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::run;
    use crate::codegen::ast::{Carried, CarriedCell, Coop, Launch, Node, Tree};
    use crate::codegen::tree::build::{par, seq, stmt, tree, DIMS};
    use crate::codegen::tree::promote::Promotion;
    use crate::codegen::tree::{test_cx, GpuCx, TreeCx};
    use crate::scop::model::ArrayId;
    use crate::transform::gpu::GpuRole;

    /// t0: blocks; t1: threads of tile t0, 8 wide; t2: cooperative; the
    /// rest inside each thread.
    const ROLES: [GpuRole; DIMS] = [
        GpuRole::Block,
        GpuRole::Thread { tile: 0, size: 8 },
        GpuRole::Cooperative,
        GpuRole::Inside,
        GpuRole::Inside,
        GpuRole::Inside,
    ];

    /// A 32x32 box of `f64` of S0's array `array` (32 rows of 33 cells:
    /// 8448 bytes).
    fn box_of(array: usize) -> Promotion {
        Promotion {
            array: ArrayId(array),
            stmts: vec![0],
            reads: Vec::new(),
            coop: 2,
            origin: vec![vec![0; 4]; 2],
            extent: vec![32, 32],
            shape: vec![64, 64],
            element: "f64".into(),
            bytes: 8,
        }
    }

    fn cx<'a>(promotions: &'a [Promotion], shared_limit: i64) -> TreeCx<'a> {
        TreeCx {
            gpu: GpuCx {
                roles: &ROLES,
                promotions,
                shared_limit,
            },
            ..test_cx()
        }
    }

    /// The cooperative loop t2 around the threads t1 around t3 around S0.
    fn coop(k: Node) -> Node {
        seq(2, par(1, k))
    }

    /// A row over `[t0 … t5 | 1]` with `1` at dimension `d`.
    fn unit(d: usize) -> Vec<i64> {
        let mut r = vec![0; DIMS + 1];
        r[d] = 1;
        r
    }

    /// t3 marked to carry one cell with the subscript `t_d`
    /// (`beside_moving` as given).
    fn carrying(d: usize, beside_moving: bool) -> Node {
        let mut k = seq(3, stmt(0));
        if let Node::Loop { marks, .. } = &mut k {
            marks.carry = true;
            marks.cells = Some(Box::new(Carried {
                cells: vec![CarriedCell {
                    first: (0, 0),
                    index: vec![unit(d)],
                    written: true,
                    beside_moving,
                }],
                instances: vec![vec![Some(0)]],
            }));
        }
        k
    }

    fn launches(mut t: Tree, cx: &TreeCx) -> Vec<Launch> {
        run(&mut t, cx);
        t.launches
    }

    #[test]
    fn the_boxes_fit_the_launch_s_shared_memory() {
        let boxes = [box_of(0), box_of(1)];
        // Two cooperative loops of S0 in one launch: the first gets the
        // box that fits 10000 bytes (not both: 16896), the second the box
        // the launch holds already.
        let t = tree(
            par(
                0,
                Node::Seq(vec![coop(seq(3, stmt(0))), coop(seq(3, stmt(0)))]),
            ),
            1,
        );
        let got = launches(t.clone(), &cx(&boxes, 10_000));
        let only_first = Coop {
            dim: 2,
            promotions: vec![0],
            carry: None,
        };
        assert_eq!(
            got,
            vec![Launch {
                grid: vec![(0, false)],
                threads: vec![(1, 0, 8)],
                coops: vec![only_first.clone(), only_first],
            }]
        );
        // With room for both, both; with none, none.
        let got = launches(t.clone(), &cx(&boxes, 20_000));
        assert_eq!(got[0].coops[0].promotions, vec![0, 1]);
        let got = launches(t, &cx(&boxes, 100));
        assert!(got[0].coops.iter().all(|c| c.promotions.is_empty()));
    }

    #[test]
    fn threads_keep_cells_of_the_blocks_and_threads_across_the_steps() {
        let t = tree(par(0, coop(carrying(1, false))), 1);
        let got = launches(t, &cx(&[], 0));
        let carry = got[0].coops[0].carry.as_ref().expect("cells carried");
        assert_eq!(carry.cells.cells.len(), 1);
        // The threads' guard: 0 <= t1 <= 7.
        let rows: Vec<Vec<i64>> = carry.conds.iter().map(|c| c.row.clone()).collect();
        let mut lo = unit(1);
        lo[DIMS] = 0;
        let mut hi: Vec<i64> = unit(1).iter().map(|c| -c).collect();
        hi[DIMS] = 7;
        assert_eq!(rows, vec![lo, hi]);
        assert_eq!(
            got[0].to_text(),
            "launch grid(t0) block(t1 x8)\n  coop t2: shared none, carry 1 cell\n"
        );
    }

    #[test]
    fn cells_that_move_with_the_cooperative_loop_stay_in_memory() {
        // A subscript over t2 (the cooperative loop), or an access of the
        // array that moves with t3: no registers across the steps.
        for k in [carrying(2, false), carrying(1, true)] {
            let t = tree(par(0, coop(k)), 1);
            let got = launches(t, &cx(&[], 0));
            assert_eq!(got[0].coops[0].carry, None);
        }
    }

    #[test]
    fn no_block_loop_no_launch_to_plan() {
        let t = tree(seq(3, stmt(0)), 1);
        assert!(launches(t, &cx(&[], 0)).is_empty());
    }
}
