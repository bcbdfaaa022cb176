//! Which statements are reductions: a cell updated as `x = x ⊕ e`, with ⊕
//! associative and commutative, and nothing else touching the cell's array
//! inside the loops the reduction runs over (the statement's loops whose
//! iterators its cell does not depend on). What `reassociate=true` may
//! reorder: the terms of one cell's chain, as `-fassociative-math` lets a
//! C compiler do.
//!
//! Read on the model's data (the statements' bodies and accesses), nothing
//! else: the statement's store writes the value of one combining operation
//! whose one operand is a load of the very cell the store writes (the same
//! array, the same subscripts) and whose other operand does not use that
//! load; the load feeds only the combining operation, the combining
//! operation only the store, and no other statement clones either.
//!
//! The statement itself may read other cells of the array where no
//! instance reads its own cell that way (trisolv's `x[i] -= L[i][j] *
//! x[j]`, `j < i`: a set of the domain with equal subscripts, empty,
//! [`Model::meet_in_one_instance`]); the terms then read values the chain
//! does not write, whatever its order. And the pieces of one statement a
//! stage split (the steps of a solve: `S1_lt`, `S1_eq`, `S1_gt`) are each
//! a reduction when every piece is a chain: together they are the input's
//! statement. Such reductions are not [`Reduction::exclusive`]: only a
//! chain's own order inside one loop may change for them (LLVM's, under
//! `fastmath<reassoc>`), not the grouping across loops or threads.

use crate::scop::model::{AccessKind, BodyOp, Model, Operand};

/// How a reduction combines its terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Combine {
    /// `arith.addf` (and `arith.subf` with the cell on the left: the sum
    /// of the negated terms).
    AddF,
    /// `arith.mulf`.
    MulF,
    /// `arith.maximumf`, `arith.minimumf`, `arith.maxnumf`,
    /// `arith.minnumf`.
    MinMaxF,
    /// Integer `addi`, `muli`, `andi`, `ori`, `xori`, `maxsi`, `minsi`,
    /// `maxui`, `minui`: exact in any order.
    Int,
}

impl Combine {
    /// The combining operation `name` with the cell as operand `cell_side`
    /// (0: left), if it is one a reduction may have.
    fn of(name: &str, cell_side: usize) -> Option<Combine> {
        Some(match name {
            "arith.addf" => Combine::AddF,
            "arith.subf" if cell_side == 0 => Combine::AddF,
            "arith.mulf" => Combine::MulF,
            "arith.maximumf" | "arith.minimumf" | "arith.maxnumf" | "arith.minnumf" => {
                Combine::MinMaxF
            }
            "arith.addi" | "arith.muli" | "arith.andi" | "arith.ori" | "arith.xori"
            | "arith.maxsi" | "arith.minsi" | "arith.maxui" | "arith.minui" => Combine::Int,
            _ => return None,
        })
    }

    /// Whether reordering its terms may change the result (floating-point
    /// sums and products round at each step; minima and maxima and integer
    /// operations do not).
    pub fn rounds(self) -> bool {
        matches!(self, Combine::AddF | Combine::MulF)
    }
}

/// One reduction statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reduction {
    /// The statement.
    pub stmt: usize,
    /// Its combining operation's position in the statement's body.
    pub combine_op: usize,
    /// The position in the body of the load of the cell, one operand of
    /// the combining operation.
    pub load: usize,
    /// How it combines.
    pub combine: Combine,
    /// The iterators (positions in the statement's loops) the reduction
    /// runs over: those the cell's subscripts do not depend on.
    pub loops: Vec<usize>,
    /// The input allows its terms in any order: its combining operation
    /// is marked `fastmath<reassoc>` (or `fast`), as LLVM would read the
    /// mark (the terms of an `affine.parallel`'s reduction get it when
    /// demoted, `passes/opt/demote.rs`). Such a floating-point reduction
    /// is regrouped as under `reassociate=true`, without the option.
    pub order_free: bool,
    /// The statement is the only one with the chain's terms: none of its
    /// instances reads another cell of the reduced array, no other piece
    /// of the same input statement exists (a stage's split), and it has no
    /// iterator a stage added. Stages that regroup the terms across loops
    /// or threads (`passes/opt/partials.rs`' private copies, the fusion of
    /// `passes/opt/transposed.rs`) take only such reductions; a chain
    /// reassociated inside one loop by LLVM (`reassociate`, the row
    /// blocks) may be any.
    pub exclusive: bool,
}

impl Reduction {
    /// Whether its terms may be combined in another order, with
    /// `reassociate` (the option) on or off: always for the operations
    /// that do not round ([`Combine::rounds`]), otherwise with the option
    /// or the input's own permission ([`Reduction::order_free`]).
    pub fn reorderable(&self, reassociate: bool) -> bool {
        !self.combine.rounds() || reassociate || self.order_free
    }
}

/// The reductions of `model`: every statement that updates a cell as
/// `x = x ⊕ e` over at least one loop (see the module's comment).
pub fn find(model: &Model) -> Vec<Reduction> {
    // Each statement's chain once: a reduction's pieces ask for each
    // other's.
    let chains: Vec<Option<Reduction>> = (0..model.statements.len())
        .map(|s| chain_of(model, s))
        .collect();
    (0..model.statements.len())
        .filter_map(|s| reduction_of(model, &chains, s))
        .collect()
}

/// Statement `s` of `model` as a reduction, if it is one: a chain of its
/// own ([`chain_of`]) that no other statement clones or touches inside
/// the loops it runs over, but the other pieces of the same statement
/// where a stage split it (the steps of a triangular solve: `S1_lt`,
/// `S1_eq`, `S1_gt`), each a chain itself. The pieces together are then
/// the input's statement, a chain with no other access to its cells: any
/// order of all its terms is a reassociation of it, so is any order inside
/// one piece.
fn reduction_of(model: &Model, chains: &[Option<Reduction>], s: usize) -> Option<Reduction> {
    let r = chains[s].clone()?;
    let st = &model.statements[s];
    let body = &st.body;
    let root = |a: crate::scop::model::ArrayId| model.arrays[a.0].ir;
    let write = st.accesses.get(body.last()?.access?)?;
    let (load, comb) = (&body[r.load], &body[r.combine_op]);
    // No other statement clones the load or the combining operation, nor
    // touches the array inside those loops (but the statement's pieces).
    let reduced: Vec<usize> = r.loops.iter().map(|&k| st.loops[k]).collect();
    let ids: Vec<_> = body.iter().map(|o| o.id).collect();
    let mut alone = true;
    let clean = model.statements.iter().enumerate().all(|(t, other)| {
        if t == s {
            return true;
        }
        let clones = other
            .body
            .iter()
            .any(|o| o.id == load.id || o.id == comb.id);
        alone &= !clones;
        let inside = other.loops.iter().any(|l| reduced.contains(l))
            && other
                .accesses
                .iter()
                .any(|a| root(a.array) == root(write.array));
        let piece = || {
            other.body.iter().map(|o| o.id).eq(ids.iter().copied())
                && chains[t]
                    .as_ref()
                    .is_some_and(|p| (p.load, p.combine_op) == (r.load, r.combine_op))
        };
        !(clones || inside) || piece()
    });
    clean.then_some(Reduction {
        exclusive: r.exclusive && alone && st.loops.len() == st.iters.len(),
        ..r
    })
}

/// Statement `s` of `model` as a chain `x = x ⊕ e` by itself: one
/// combining operation of a load of the written cell and a value that
/// does not use it, no other access of the statement to that cell, and
/// loops the cell does not depend on. Iterators a stage added (without a
/// loop of the input: embedding's, the steps') must each take one value
/// per cell.
fn chain_of(model: &Model, s: usize) -> Option<Reduction> {
    let st = &model.statements[s];
    let body = &st.body;
    let store = body.last()?;
    let write = st.accesses.get(store.access?)?;
    if write.kind != AccessKind::Write || store.name != "affine.store" {
        return None;
    }
    // The value stored: one combining operation of the body.
    let Operand::Op(c) = *store.operands.first()? else {
        return None;
    };
    let comb = body.get(c)?;
    if comb.operands.len() != 2 {
        return None;
    }
    // One operand a load of the written cell, the other not using it.
    let (side, load) = comb
        .operands
        .iter()
        .enumerate()
        .find_map(|(k, o)| match *o {
            Operand::Op(l) => {
                let acc = st.accesses.get(body.get(l)?.access?)?;
                (acc.kind == AccessKind::Read
                    && acc.array == write.array
                    && acc.index == write.index)
                    .then_some((k, l))
            }
            _ => None,
        })?;
    let combine = Combine::of(&comb.name, side)?;
    if uses(body, load) != 1 || uses(body, c) != 1 || depends_on(body, c, load, side) {
        return None;
    }
    // No other access of the statement to the cell (a neighbour of the
    // cell read in the same statement would see partial values): other
    // accesses to its array must name another cell in every instance
    // (trisolv's `x[j]`, `j < i`, beside `x[i]`).
    let root = |a: crate::scop::model::ArrayId| model.arrays[a.0].ir;
    let neighbours: Vec<usize> = (0..st.accesses.len())
        .filter(|&k| {
            Some(k) != store.access
                && Some(k) != body[load].access
                && root(st.accesses[k].array) == root(write.array)
        })
        .collect();
    let apart = |k: usize| {
        store
            .access
            .and_then(|w| model.meet_in_one_instance(s, w, k))
            == Some(false)
    };
    if !neighbours.iter().all(|&k| apart(k)) {
        return None;
    }
    // The loops the reduction runs over: the cell does not depend on them.
    if write.index.iter().any(|f| f.locals.iter().any(|&c| c != 0)) {
        return None;
    }
    let cell: Vec<usize> = (0..st.iters.len())
        .filter(|&k| write.index.iter().any(|f| f.iter_coef(k) != 0))
        .collect();
    let loops: Vec<usize> = (0..st.iters.len())
        .filter(|&k| !cell.contains(&k) && !fixed_by(st, k, &cell))
        .collect();
    if loops.is_empty() || loops.iter().any(|&k| k >= st.loops.len()) {
        return None;
    }
    Some(Reduction {
        stmt: s,
        combine_op: c,
        load,
        combine,
        loops,
        order_free: comb.reassoc,
        exclusive: neighbours.is_empty(),
    })
}

/// Whether iterator `k` of `st` takes one value for each value of the
/// iterators `cell`: in every piece of the domain, `a·k` lies between two
/// forms of those iterators (and parameters, at least one iterator) less
/// than `a` apart, or an equality ties it to them. A loop over tiles of a
/// loop the cell depends on (a front end's own tiles: `ii` with `32·ii ≤ i
/// < 32·ii + 32`, or blocks of rows per thread) visits each cell in one of
/// its iterations: it is not a loop the reduction runs over, though the
/// cell's subscripts do not mention it (`test/opt/reassociate-tiled.mlir`).
pub(crate) fn fixed_by(st: &crate::scop::model::Statement, k: usize, cell: &[usize]) -> bool {
    use crate::scop::form::Form;
    // Forms of `k`, parameters and at least one of the cell's iterators
    // (a loop of one iteration, `0 ≤ k ≤ 0`, is not tied to the cell:
    // it stays a loop the reduction runs over, as before).
    let only = |f: &Form| {
        f.locals.iter().all(|&c| c == 0)
            && (0..f.iters.len()).all(|m| m == k || f.iter_coef(m) == 0 || cell.contains(&m))
            && cell.iter().any(|&m| f.iter_coef(m) != 0)
    };
    let coef = |v: &[i64], m: usize| v.get(m).copied().unwrap_or(0);
    let apart = |lo: &Form, hi: &Form| -> Option<i64> {
        let n = lo.iters.len().max(hi.iters.len());
        let p = lo.params.len().max(hi.params.len());
        let cancel = (0..n).all(|m| coef(&lo.iters, m) + coef(&hi.iters, m) == 0)
            && (0..p).all(|m| coef(&lo.params, m) + coef(&hi.params, m) == 0);
        cancel
            .then(|| lo.constant.checked_add(hi.constant))
            .flatten()
    };
    !st.domain.is_empty()
        && st.domain.iter().all(|piece| {
            piece.eqs.iter().any(|f| only(f) && f.iter_coef(k) != 0)
                || piece
                    .ineqs
                    .iter()
                    .filter(|f| only(f) && f.iter_coef(k) > 0)
                    .any(|lo| {
                        let a = lo.iter_coef(k);
                        piece
                            .ineqs
                            .iter()
                            .filter(|f| only(f) && f.iter_coef(k) == -a)
                            .any(|hi| apart(lo, hi).is_some_and(|w| (0..a).contains(&w)))
                    })
        })
}

/// How many times the body's operations use the result of operation `k`.
fn uses(body: &[BodyOp], k: usize) -> usize {
    body.iter()
        .flat_map(|o| o.operands.iter())
        .filter(|o| **o == Operand::Op(k))
        .count()
}

/// Whether operand `1 - side` of operation `c` depends on operation
/// `load` (through the body's operations).
fn depends_on(body: &[BodyOp], c: usize, load: usize, side: usize) -> bool {
    let mut stack: Vec<usize> = match body[c].operands.get(1 - side) {
        Some(Operand::Op(k)) => vec![*k],
        _ => Vec::new(),
    };
    while let Some(k) = stack.pop() {
        if k == load {
            return true;
        }
        stack.extend(body[k].operands.iter().filter_map(|o| match o {
            Operand::Op(j) => Some(*j),
            _ => None,
        }));
    }
    false
}

/// The names of the statements of `reductions`, for remarks.
pub fn names<'m>(model: &'m Model, reductions: &[Reduction]) -> Vec<&'m str> {
    reductions
        .iter()
        .map(|r| model.statements[r.stmt].name.as_str())
        .collect()
}
