//! The polyhedral model of a static control part: statements with iteration
//! domains, access relations and the original schedule.
//!
//! # Statements
//!
//! A statement is one store (`affine.store` or `memref.store`) together with
//! the backward slice of pure operations that compute the stored value; the
//! loads in that slice are the statement's reads, modeled as happening at the
//! statement's own position. That is exact only when nothing may overwrite
//! the loaded location between the load and the store, so the builder checks
//! it and refuses the SCoP otherwise (see `Builder::check_load_hazard`). A load that
//! feeds several statements is a read of each of them.
//!
//! # Domains
//!
//! Each enclosing `affine.for` gives one iterator with
//! `max(lower bounds) <= i <= min(upper bounds) - 1`; a step `s > 1` adds a
//! local `k >= 0` with `i = lb + s·k`, where `lb` is the largest lower
//! bound: with several, the domain is split into one piece per bound, on
//! which that bound is the largest (the first of equal ones). Each
//! `affine.parallel` dimension is an iterator the same way. `affine.if`
//! conditions are added to the then-branch; the else-branch gets the
//! negation, a disjunction, so a domain is a union of pieces: for conditions
//! `c1 ∧ … ∧ ck`, piece `j` holds `c1 … c(j-1)` and `¬cj`. `floordiv`,
//! `ceildiv` and `mod` become locals ([`super::form`]).
//!
//! # Arrays
//!
//! Accesses are grouped by memref root: `memref.cast` is looked through;
//! other view operations (subview, reinterpret_cast, …) make the SCoP
//! unsupported. Distinct roots are assumed not to alias, as MLIR's own affine
//! dependence analysis assumes (function arguments passed the same buffer
//! twice are outside the model).
//!
//! # Schedule
//!
//! The original schedule is the `2d+1` form `[b0, i1, b1, …, id, bd]`: `bk` is
//! the textual position of the statement's ancestor among the loops and
//! statements of the loop body at depth `k` (`affine.if` is transparent;
//! an `affine.parallel` contributes all its iterators at one level). All
//! schedules are padded with zeros to one length.

use std::collections::HashMap;

use thiserror::Error;

use super::detect::Scop as DetectedScop;
use super::form::{from_expr, Form, FormError, Locals};
use crate::ffi::ir::{value_names, Block, Op, Val};
use crate::math::{BasicRel, MathError, Space, Tuple};

/// Why a detected SCoP cannot be modeled exactly (it is then left alone).
#[derive(Debug, Clone, Error)]
#[error("{reason}")]
pub struct Unsupported {
    /// The operation at fault.
    pub op: Op,
    /// Why, as a sentence fragment.
    pub reason: String,
    /// The operation is a load whose value a later statement uses after a
    /// store that may change the loaded cell (the model reads every load
    /// at its statement): keeping the value in a cell of its own makes the
    /// SCoP one the model represents.
    pub stale_load: bool,
}

/// A typed statement index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StmtId(pub usize);

/// A typed array index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ArrayId(pub usize);

/// Read or write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AccessKind {
    /// A load.
    Read,
    /// A store.
    Write,
}

/// A memref accessed in the SCoP, identified by its root value.
#[derive(Debug, Clone)]
pub struct Array {
    /// The name (from MLIR's printer: `arg0`, `alloc`, …).
    pub name: String,
    /// The rank.
    pub rank: usize,
    /// Its root value in the IR ([`IrMap::roots`]).
    pub ir: IrRef,
}

/// Where a statement, an access or an array of the model came from in the
/// IR: an index into the SCoP's [`IrMap`] (the pieces of a split statement
/// share their origin's). The model itself is data; the handles are in
/// the map.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct IrRef(pub usize);

/// The way back from the model to the IR it was built from.
#[derive(Debug, Clone)]
pub struct IrMap {
    /// The first operation of the SCoP.
    pub first_op: Op,
    /// The SSA values of the parameters, in the order of
    /// [`Model::params`].
    pub param_values: Vec<Val>,
    /// The top-level operations of the SCoP (its loop nests and the
    /// operations between them), in block order.
    pub ops: Vec<Op>,
    /// Per statement origin ([`Statement::ir`]): its store.
    pub stores: Vec<Op>,
    /// Per statement origin: the induction variable of each iterator.
    pub iv_values: Vec<Vec<Val>>,
    /// Per access origin ([`Access::ir`]): its load or store.
    pub accesses: Vec<Op>,
    /// Per array origin ([`Array::ir`]): the memref value all its
    /// accesses go through.
    pub roots: Vec<Val>,
    /// Per body operation ([`BodyOp::id`]): the operation.
    pub body_ops: Vec<Op>,
    /// Per value from outside the loops that a body reads
    /// ([`Operand::Outside`]): the value.
    pub outside: Vec<Val>,
}

/// One access of a statement.
#[derive(Debug, Clone)]
pub struct Access {
    /// Read or write.
    pub kind: AccessKind,
    /// The array.
    pub array: ArrayId,
    /// One form per array dimension, over the statement's variables.
    pub index: Vec<Form>,
    /// Its load or store in the IR ([`IrMap::accesses`]).
    pub ir: IrRef,
}

/// One piece of a domain: constraints `form >= 0` and `form == 0`.
#[derive(Debug, Clone, Default)]
pub struct Piece {
    /// Inequalities.
    pub ineqs: Vec<Form>,
    /// Equalities.
    pub eqs: Vec<Form>,
}

/// A statement.
#[derive(Debug, Clone)]
pub struct Statement {
    /// `S0`, `S1`, … in program order.
    pub name: String,
    /// Its store and induction variables in the IR ([`IrMap::stores`],
    /// [`IrMap::iv_values`]).
    pub ir: IrRef,
    /// Iterator names, outermost first.
    pub iters: Vec<String>,
    /// For each iterator, the key of the loop op that defines it.
    pub loops: Vec<usize>,
    /// Textual positions: `beta[k]` at loop depth `k` (one more than loops).
    pub beta: Vec<usize>,
    /// For each loop depth `k >= 1`, the number of iterators of loops 1..=k.
    pub depth_iters: Vec<usize>,
    /// Locals of the domain and accesses, with their definitions.
    pub locals: Locals,
    /// The domain, a union of pieces (locals' definitions apply to each).
    pub domain: Vec<Piece>,
    /// The accesses: the write first, then the reads in slice order.
    pub accesses: Vec<Access>,
    /// Its computation: the store and the backward slice of its value (the
    /// operations statement instances clone), in program order; empty for
    /// a model read as text.
    pub body: Vec<BodyOp>,
}

/// One operation of a statement's body ([`Statement::body`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BodyOp {
    /// The operation ([`IrMap::body_ops`]: one per operation, shared by
    /// the statements whose bodies hold it).
    pub id: IrRef,
    /// Its name (`arith.mulf`, `affine.load`, …).
    pub name: String,
    /// Its operands.
    pub operands: Vec<Operand>,
    /// Its number of results.
    pub results: usize,
    /// The type of its first result (empty without results).
    pub ty: String,
    /// It has regions.
    pub regions: bool,
    /// The statement's access it is (a load or the store): its position
    /// in [`Statement::accesses`].
    pub access: Option<usize>,
    /// Its `fastmath` flags allow reassociation (`reassoc`, or `fast`):
    /// the input's own permission to regroup what it combines.
    pub reassoc: bool,
}

/// Where an operand of a [`BodyOp`] comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operand {
    /// The result of an earlier operation of the body (its position).
    Op(usize),
    /// A value defined outside the SCoP's loops: a parameter, a constant,
    /// a function argument ([`IrMap::outside`]).
    Outside(IrRef),
    /// A value of the SCoP's loops that is not in the body: an induction
    /// variable, a block argument of one of its regions.
    Inside,
}

/// The polyhedral model of one SCoP, as data: parameters, statements
/// (domains, accesses, original schedules), arrays. Dependence analysis,
/// the scheduler, its checker and the analyses take a model; code
/// generation takes a [`Scop`], the model with its way back to the IR.
#[derive(Debug, Clone)]
pub struct Model {
    /// Parameter names.
    pub params: Vec<String>,
    /// The statements, in program order.
    pub statements: Vec<Statement>,
    /// The arrays.
    pub arrays: Vec<Array>,
    /// Length of every schedule (2·max depth + 1, counting iterators).
    pub schedule_len: usize,
    /// Arrays expanded per iteration of their enclosing loops (empty for
    /// the model of the input; see [`super::expansion`]).
    pub expansions: Vec<super::expansion::Expansion>,
}

/// A SCoP: its model (which it dereferences to) and the IR it was built
/// from.
#[derive(Debug, Clone)]
pub struct Scop {
    /// The model.
    pub model: Model,
    /// The way back to the IR.
    pub ir: IrMap,
}

impl std::ops::Deref for Scop {
    type Target = Model;

    fn deref(&self) -> &Model {
        &self.model
    }
}

impl std::ops::DerefMut for Scop {
    fn deref_mut(&mut self) -> &mut Model {
        &mut self.model
    }
}

/// Most loops around a statement (polyhedra of twice as many dimensions
/// make dependence analysis and scheduling slow; no real nest comes near).
pub const MAX_LOOPS: usize = 32;

/// Largest number of pieces of one statement's domain (each `else` branch
/// and each step with several lower bounds multiplies them).
const MAX_PIECES: usize = 64;

/// Largest magnitude of a coefficient of an index expression (2^31).
pub const MAX_COEFFICIENT: i64 = 1 << 31;

/// Largest magnitude of the constant of an index expression (2^61).
pub const MAX_CONSTANT: i64 = 1 << 61;

/// `f` when its coefficients and constant are small enough that no
/// transformation makes index arithmetic overflow 64 bits on realistic
/// iteration counts: unrolled or re-indexed, `i * 2^62` at `i = 2` folds to
/// a constant that is not even printable as MLIR (`-2^63`).
fn in_range(op: Op, f: Form) -> Result<Form, Unsupported> {
    let big = f
        .params
        .iter()
        .chain(&f.iters)
        .chain(&f.locals)
        .any(|c| c.unsigned_abs() > MAX_COEFFICIENT as u64)
        || f.constant.unsigned_abs() > MAX_CONSTANT as u64;
    if big {
        return Err(unsupported(
            op,
            format!(
                "an index expression with a coefficient above 2^31 or a constant above 2^61 \
                 in magnitude is not modeled ('{}': 64-bit index arithmetic could overflow)",
                op.name()
            ),
        ));
    }
    Ok(f)
}

fn unsupported(op: Op, reason: impl Into<String>) -> Unsupported {
    Unsupported {
        op,
        reason: reason.into(),
        stale_load: false,
    }
}

fn form_err(op: Op, e: FormError) -> Unsupported {
    unsupported(op, format!("'{}': {e}", op.name()))
}

/// An enclosing loop during the walk.
#[derive(Clone)]
struct Frame {
    key: usize,
    /// (block argument key, iterator index).
    ivs: Vec<(usize, usize)>,
    /// The block arguments.
    vals: Vec<Val>,
}

struct Builder {
    scope: Op,
    nest_roots: Vec<Op>,
    params: Vec<Val>,
    arrays: Vec<Array>,
    statements: Vec<Statement>,
    /// The IR handles of the statements, accesses and arrays so far.
    store_ops: Vec<Op>,
    iv_values: Vec<Vec<Val>>,
    access_ops: Vec<Op>,
    roots: Vec<Val>,
    frames: Vec<Frame>,
    n_iters: usize,
    pieces: Vec<Piece>,
    locals: Locals,
    /// Position counters per loop depth for the current path.
    beta: Vec<usize>,
    /// Positions of the enclosing loops.
    path: Vec<usize>,
    /// Preorder index of every op in the SCoP, and the index past its subtree.
    order: HashMap<usize, (usize, usize)>,
    /// All stores: (preorder index, root key, op).
    stores: Vec<(usize, usize, Op)>,
}

/// Builds the model of a detected SCoP. `scope` is the function (for names).
pub fn build(scope: Op, scop: &DetectedScop) -> Result<Scop, Unsupported> {
    let mut b = Builder {
        scope,
        nest_roots: scop.ops.clone(),
        params: Vec::new(),
        arrays: Vec::new(),
        statements: Vec::new(),
        store_ops: Vec::new(),
        iv_values: Vec::new(),
        access_ops: Vec::new(),
        roots: Vec::new(),
        frames: Vec::new(),
        n_iters: 0,
        pieces: vec![Piece::default()],
        locals: Locals::default(),
        beta: vec![0],
        path: Vec::new(),
        order: HashMap::new(),
        stores: Vec::new(),
    };
    let mut counter = 0;
    for &op in &scop.ops {
        b.number(op, &mut counter)?;
    }
    for &op in &scop.ops {
        b.walk_op(op)?;
    }
    let names = value_names(scope, &b.params);
    let params = unique_names(names.iter().map(|n| ident(n, "p")).collect());
    let schedule_len = b
        .statements
        .iter()
        .map(|s| 2 * s.loops.len() + 1)
        .max()
        .unwrap_or(1);
    let array_names = unique_names(
        value_names(scope, &b.roots)
            .iter()
            .map(|n| ident(n, "A"))
            .collect(),
    );
    for (a, n) in b.arrays.iter_mut().zip(array_names) {
        a.name = n;
    }
    Ok(Scop {
        model: Model {
            params,
            statements: b.statements,
            arrays: b.arrays,
            schedule_len,
            expansions: Vec::new(),
        },
        ir: IrMap {
            first_op: scop.ops[0],
            param_values: b.params,
            ops: scop.ops.clone(),
            stores: b.store_ops,
            iv_values: b.iv_values,
            accesses: b.access_ops,
            roots: b.roots,
            body_ops: Vec::new(),
            outside: Vec::new(),
        },
    })
    .map(|mut scop| {
        super::body::statement_bodies(&mut scop);
        scop
    })
}

/// Makes a printer name a valid isl identifier (`0` → `p0`, `arg1` stays).
fn ident(name: &str, prefix: &str) -> String {
    let clean: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    match clean.chars().next() {
        Some(c) if c.is_ascii_alphabetic() => clean,
        _ => format!("{prefix}{clean}"),
    }
}

fn unique_names(names: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for n in names {
        let mut cand = n.clone();
        let mut k = 1;
        while out.contains(&cand) {
            cand = format!("{n}_{k}");
            k += 1;
        }
        out.push(cand);
    }
    out
}

fn is_loop(name: &str) -> bool {
    name == "affine.for" || name == "affine.parallel"
}

impl Builder {
    /// Numbers ops in preorder; records stores.
    fn number(&mut self, op: Op, counter: &mut usize) -> Result<(), Unsupported> {
        let start = *counter;
        *counter += 1;
        for r in op.regions() {
            for blk in r.blocks() {
                for inner in blk.ops() {
                    self.number(inner, counter)?;
                }
            }
        }
        self.order.insert(op.key(), (start, *counter));
        let name = op.name();
        if name == "affine.store" || name == "memref.store" {
            let root = memref_root(op, op.operands().get(1).copied())?;
            self.stores.push((start, root.key(), op));
        }
        Ok(())
    }

    fn in_scop(&self, op: Op) -> bool {
        self.nest_roots.iter().any(|&r| op.is_within(r))
    }

    fn param(&mut self, v: Val) -> Form {
        let k = match self.params.iter().position(|p| p.key() == v.key()) {
            Some(k) => k,
            None => {
                self.params.push(v);
                self.params.len() - 1
            }
        };
        Form::param(k)
    }

    /// The affine form of an index value at the current position.
    fn value_form(&mut self, at: Op, v: Val, depth: usize) -> Result<Form, Unsupported> {
        if depth > 64 {
            return Err(unsupported(at, "index expression too deep"));
        }
        if let Some(block) = v.owner_block() {
            if let Some(f) = self
                .frames
                .iter()
                .flat_map(|f| f.ivs.iter())
                .find(|(k, _)| *k == v.key())
            {
                return Ok(Form::iter(f.1));
            }
            let owner = block.parent_op();
            if owner.is_some_and(|o| self.in_scop(o)) {
                return Err(unsupported(
                    at,
                    "index uses a block argument that is not a loop counter",
                ));
            }
            return Ok(self.param(v));
        }
        let Some(def) = v.defining_op() else {
            return Err(unsupported(at, "unknown index value"));
        };
        let name = def.name();
        if name == "arith.constant" {
            return def
                .attr(c"value")
                .and_then(|a| a.as_int())
                .map(Form::constant)
                .ok_or_else(|| unsupported(at, "non-integer constant index"));
        }
        if !self.in_scop(def) {
            return Ok(self.param(v));
        }
        let operands = def.operands();
        match name.as_str() {
            "affine.apply" => {
                let map = def
                    .map_attr(c"map")
                    .ok_or_else(|| unsupported(def, "affine.apply without map"))?;
                let nd = map.num_dims();
                let forms = operands
                    .iter()
                    .map(|&o| self.value_form(at, o, depth + 1))
                    .collect::<Result<Vec<_>, _>>()?;
                let (dims, syms) = forms.split_at(nd.min(forms.len()));
                let result = *map
                    .results()
                    .first()
                    .ok_or_else(|| unsupported(def, "empty map"))?;
                from_expr(result, dims, syms, &mut self.locals).map_err(|e| form_err(def, e))
            }
            "arith.addi" | "arith.subi" | "arith.muli" if operands.len() == 2 => {
                let a = self.value_form(at, operands[0], depth + 1)?;
                let c = self.value_form(at, operands[1], depth + 1)?;
                let r = match name.as_str() {
                    "arith.addi" => a.plus(&c),
                    "arith.subi" => a.minus(&c),
                    _ => match (a.as_constant(), c.as_constant()) {
                        (Some(k), _) => c.scale(k),
                        (_, Some(k)) => a.scale(k),
                        _ => Err(FormError::NotAffine("product of two variables")),
                    },
                };
                r.map_err(|e| form_err(def, e))
            }
            _ => {
                if crate::ffi::shim::is_memory_effect_free(def)
                    && def.regions().is_empty()
                    && operands.iter().all(|&o| self.is_invariant(o))
                {
                    Ok(self.param(v))
                } else {
                    Err(unsupported(
                        at,
                        format!("index computed by '{name}' is not affine"),
                    ))
                }
            }
        }
    }

    fn is_invariant(&self, v: Val) -> bool {
        if let Some(block) = v.owner_block() {
            return !block.parent_op().is_some_and(|o| self.in_scop(o));
        }
        match v.defining_op() {
            Some(def) if self.in_scop(def) => {
                crate::ffi::shim::is_memory_effect_free(def)
                    && def.regions().is_empty()
                    && def.operands().iter().all(|&o| self.is_invariant(o))
            }
            _ => true,
        }
    }

    /// Forms of the results of `map` applied to `operands`.
    fn map_forms(
        &mut self,
        op: Op,
        map: crate::ffi::ir::Map,
        operands: &[Val],
    ) -> Result<Vec<Form>, Unsupported> {
        let forms = operands
            .iter()
            .map(|&o| self.value_form(op, o, 0))
            .collect::<Result<Vec<_>, _>>()?;
        let nd = map.num_dims();
        if forms.len() != nd + map.num_symbols() {
            return Err(unsupported(op, "map operand count does not match the map"));
        }
        let (dims, syms) = forms.split_at(nd);
        map.results()
            .into_iter()
            .map(|e| {
                from_expr(e, dims, syms, &mut self.locals)
                    .map_err(|err| form_err(op, err))
                    .and_then(|f| in_range(op, f))
            })
            .collect()
    }

    fn add_ineq(&mut self, f: Form) {
        for p in &mut self.pieces {
            p.ineqs.push(f.clone());
        }
    }

    fn add_eq(&mut self, f: Form) {
        for p in &mut self.pieces {
            p.eqs.push(f.clone());
        }
    }

    /// Adds `lbs <= iv`, `iv <= ubs - 1` and the stride of one iterator.
    fn bound_iterator(
        &mut self,
        op: Op,
        iv: usize,
        lbs: Vec<Form>,
        ubs: Vec<Form>,
        step: i64,
    ) -> Result<(), Unsupported> {
        let i = Form::iter(iv);
        if step < 1 {
            return Err(unsupported(op, "non-positive step"));
        }
        for lb in &lbs {
            self.add_ineq(i.minus(lb).map_err(|e| form_err(op, e))?);
        }
        for ub in &ubs {
            self.add_ineq(
                ub.minus(&i)
                    .and_then(|f| f.plus(&Form::constant(-1)))
                    .map_err(|e| form_err(op, e))?,
            );
        }
        if step > 1 {
            let k = self.locals.fresh();
            self.locals.ineqs.push(Form::local(k));
            // i - lb - step·k == 0, k >= 0
            let from = |lb: &Form| -> Result<Form, Unsupported> {
                i.minus(lb)
                    .and_then(|f| f.minus(&Form::local(k).scale(step)?))
                    .map_err(|e| form_err(op, e))
            };
            if let [lb] = &lbs[..] {
                self.locals.eqs.push(from(lb)?);
            } else {
                // The iterations start at the largest lower bound: one
                // piece per bound that is the largest (the first of equal
                // ones), disjoint, each with its own residue class.
                let mut pieces = Vec::new();
                for p in &self.pieces {
                    for (a, la) in lbs.iter().enumerate() {
                        let mut q = p.clone();
                        for (b, lb) in lbs.iter().enumerate() {
                            if a == b {
                                continue;
                            }
                            // la - lb >= 1 before it, >= 0 after it.
                            let d = la.minus(lb).map_err(|e| form_err(op, e))?;
                            let d = if b < a {
                                d.plus(&Form::constant(-1)).map_err(|e| form_err(op, e))?
                            } else {
                                d
                            };
                            q.ineqs.push(d);
                        }
                        q.eqs.push(from(la)?);
                        pieces.push(q);
                    }
                }
                if pieces.len() > MAX_PIECES {
                    return Err(unsupported(op, "too many domain pieces"));
                }
                self.pieces = pieces;
            }
        }
        Ok(())
    }

    fn walk_block(&mut self, block: Block) -> Result<(), Unsupported> {
        for op in block.ops() {
            self.walk_op(op)?;
        }
        Ok(())
    }

    fn walk_op(&mut self, op: Op) -> Result<(), Unsupported> {
        let name = op.name();
        match name.as_str() {
            "affine.for" | "affine.parallel" => {
                let saved = (self.pieces.clone(), self.locals.clone(), self.n_iters);
                let body = op
                    .regions()
                    .first()
                    .and_then(|r| r.blocks().first().copied())
                    .ok_or_else(|| unsupported(op, "loop without body"))?;
                let n = if name == "affine.for" {
                    1
                } else {
                    body.num_args()
                };
                let mut frame = Frame {
                    key: op.key(),
                    ivs: Vec::new(),
                    vals: Vec::new(),
                };
                if self.n_iters + n > MAX_LOOPS {
                    return Err(unsupported(
                        op,
                        format!("a nest of more than {MAX_LOOPS} loops is not modeled"),
                    ));
                }
                for k in 0..n {
                    let arg = body
                        .arg(k)
                        .ok_or_else(|| unsupported(op, "missing induction variable"))?;
                    frame.ivs.push((arg.key(), self.n_iters + k));
                    frame.vals.push(arg);
                }
                self.bound_loop(op, &name, n)?;
                self.frames.push(frame);
                self.n_iters += n;
                let pos = self.next_position();
                self.path.push(pos);
                self.beta.push(0);
                self.walk_block(body)?;
                self.beta.pop();
                self.path.pop();
                self.frames.pop();
                (self.pieces, self.locals, self.n_iters) = saved;
                Ok(())
            }
            "affine.if" => {
                let set = op
                    .attr(c"condition")
                    .and_then(|a| a.as_set())
                    .ok_or_else(|| unsupported(op, "affine.if without condition"))?;
                let operands = op.operands();
                let forms = operands
                    .iter()
                    .map(|&o| self.value_form(op, o, 0))
                    .collect::<Result<Vec<_>, _>>()?;
                let nd = set.num_dims();
                if forms.len() != nd + set.num_symbols() {
                    return Err(unsupported(
                        op,
                        "condition operand count does not match the set",
                    ));
                }
                let (dims, syms) = forms.split_at(nd);
                let mut conds = Vec::new();
                for (e, is_eq) in set.constraints() {
                    let f = from_expr(e, dims, syms, &mut self.locals)
                        .map_err(|err| form_err(op, err))?;
                    conds.push((in_range(op, f)?, is_eq));
                }
                let regions = op.regions();
                // Then-branch.
                let saved = (self.pieces.clone(), self.locals.clone());
                for (f, is_eq) in &conds {
                    if *is_eq {
                        self.add_eq(f.clone());
                    } else {
                        self.add_ineq(f.clone());
                    }
                }
                if let Some(b) = regions.first().and_then(|r| r.blocks().first().copied()) {
                    self.walk_block(b)?;
                }
                (self.pieces, self.locals) = saved.clone();
                // Else-branch: the union of "first j-1 hold, the j-th fails".
                if let Some(b) = regions.get(1).and_then(|r| r.blocks().first().copied()) {
                    let base = self.pieces.clone();
                    let mut pieces = Vec::new();
                    for p in &base {
                        for j in 0..conds.len() {
                            let mut negs = Vec::new();
                            let (f, is_eq) = &conds[j];
                            let neg = f
                                .scale(-1)
                                .and_then(|g| g.plus(&Form::constant(-1)))
                                .map_err(|e| form_err(op, e))?;
                            if *is_eq {
                                negs.push(neg); // f <= -1
                                negs.push(
                                    f.plus(&Form::constant(-1)).map_err(|e| form_err(op, e))?,
                                ); // f >= 1
                            } else {
                                negs.push(neg); // f <= -1
                            }
                            for n in negs {
                                let mut q = p.clone();
                                for (g, g_eq) in &conds[..j] {
                                    if *g_eq {
                                        q.eqs.push(g.clone());
                                    } else {
                                        q.ineqs.push(g.clone());
                                    }
                                }
                                q.ineqs.push(n);
                                pieces.push(q);
                            }
                        }
                    }
                    if pieces.len() > MAX_PIECES {
                        return Err(unsupported(op, "too many domain pieces"));
                    }
                    self.pieces = pieces;
                    if !b.ops().is_empty() {
                        self.walk_block(b)?;
                    }
                    (self.pieces, self.locals) = saved;
                }
                Ok(())
            }
            "affine.store" | "memref.store" => self.statement(op),
            _ => Ok(()),
        }
    }

    fn next_position(&mut self) -> usize {
        let last = self.beta.len() - 1;
        let p = self.beta[last];
        self.beta[last] += 1;
        p
    }

    fn bound_loop(&mut self, op: Op, name: &str, n: usize) -> Result<(), Unsupported> {
        let operands = op.operands();
        if name == "affine.for" {
            let lb = op
                .map_attr(c"lowerBoundMap")
                .ok_or_else(|| unsupported(op, "missing lower bound"))?;
            let ub = op
                .map_attr(c"upperBoundMap")
                .ok_or_else(|| unsupported(op, "missing upper bound"))?;
            let nlb = lb.num_dims() + lb.num_symbols();
            let nub = ub.num_dims() + ub.num_symbols();
            if operands.len() < nlb + nub {
                return Err(unsupported(op, "bound operands do not match the maps"));
            }
            let lbs = self.map_forms(op, lb, &operands[..nlb])?;
            let ubs = self.map_forms(op, ub, &operands[nlb..nlb + nub])?;
            let step = op.attr(c"step").and_then(|a| a.as_int()).unwrap_or(1);
            self.bound_iterator(op, self.n_iters, lbs, ubs, step)
        } else {
            let lb = op
                .map_attr(c"lowerBoundsMap")
                .ok_or_else(|| unsupported(op, "missing lower bounds"))?;
            let ub = op
                .map_attr(c"upperBoundsMap")
                .ok_or_else(|| unsupported(op, "missing upper bounds"))?;
            if lb.results().len() != n || ub.results().len() != n {
                return Err(unsupported(
                    op,
                    "'affine.parallel' with max/min bound groups is not modeled",
                ));
            }
            let nlb = lb.num_dims() + lb.num_symbols();
            let lbs = self.map_forms(op, lb, &operands[..nlb.min(operands.len())])?;
            let ubs = self.map_forms(op, ub, &operands[nlb.min(operands.len())..])?;
            let steps = op
                .attr(c"steps")
                .and_then(|a| a.int_list())
                .unwrap_or_else(|| vec![1; n]);
            for k in 0..n {
                let step = steps.get(k).copied().unwrap_or(1);
                self.bound_iterator(
                    op,
                    self.n_iters + k,
                    vec![lbs[k].clone()],
                    vec![ubs[k].clone()],
                    step,
                )?;
            }
            Ok(())
        }
    }

    fn array(&mut self, op: Op, memref: Option<Val>) -> Result<ArrayId, Unsupported> {
        let root = memref_root(op, memref)?;
        if let Some(k) = self.roots.iter().position(|r| r.key() == root.key()) {
            return Ok(ArrayId(k));
        }
        let rank = memref_rank(op);
        self.arrays.push(Array {
            name: String::new(),
            rank,
            ir: IrRef(self.roots.len()),
        });
        self.roots.push(root);
        Ok(ArrayId(self.arrays.len() - 1))
    }

    /// The index forms of an access (affine map or memref indices).
    fn access_index(&mut self, op: Op) -> Result<Vec<Form>, Unsupported> {
        let operands = op.operands();
        let name = op.name();
        let first = if name.ends_with("load") { 1 } else { 2 };
        let idx = &operands[first.min(operands.len())..];
        if name.starts_with("affine.") {
            let map = op
                .map_attr(c"map")
                .ok_or_else(|| unsupported(op, "access without map"))?;
            self.map_forms(op, map, idx)
        } else {
            idx.iter()
                .map(|&v| self.value_form(op, v, 0).and_then(|f| in_range(op, f)))
                .collect()
        }
    }

    fn statement(&mut self, store: Op) -> Result<(), Unsupported> {
        let pos = self.next_position();
        let saved_locals = self.locals.clone();
        let operands = store.operands();
        let mut accesses = Vec::new();
        let warray = self.array(store, operands.get(1).copied())?;
        let windex = self.access_index(store)?;
        accesses.push(Access {
            kind: AccessKind::Write,
            array: warray,
            index: windex,
            ir: IrRef(self.access_ops.len()),
        });
        self.access_ops.push(store);
        let mut loads = Vec::new();
        let mut seen = Vec::new();
        if let Some(&v) = operands.first() {
            self.slice_loads(v, &mut loads, &mut seen, 0)?;
        }
        for load in loads {
            self.check_load_hazard(load, store)?;
            let array = self.array(load, load.operands().first().copied())?;
            let index = self.access_index(load)?;
            accesses.push(Access {
                kind: AccessKind::Read,
                array,
                index,
                ir: IrRef(self.access_ops.len()),
            });
            self.access_ops.push(load);
        }
        let n = self.statements.len();
        let loops: Vec<usize> = self
            .frames
            .iter()
            .flat_map(|f| f.ivs.iter().map(move |_| f.key))
            .collect();
        let mut depth_iters = Vec::new();
        let mut acc = 0;
        for f in &self.frames {
            acc += f.ivs.len();
            depth_iters.push(acc);
        }
        let mut beta = self.path.clone();
        beta.push(pos);
        self.statements.push(Statement {
            name: format!("S{n}"),
            ir: IrRef(self.store_ops.len()),
            iters: (0..self.n_iters).map(|k| format!("i{k}")).collect(),
            loops,
            beta,
            depth_iters,
            locals: self.locals.clone(),
            domain: self.pieces.clone(),
            accesses,
            body: Vec::new(),
        });
        self.store_ops.push(store);
        self.iv_values.push(
            self.frames
                .iter()
                .flat_map(|f| f.vals.iter().copied())
                .collect(),
        );
        self.locals = saved_locals;
        Ok(())
    }

    /// Collects the loads in the backward slice of `v` inside the SCoP.
    fn slice_loads(
        &self,
        v: Val,
        loads: &mut Vec<Op>,
        seen: &mut Vec<usize>,
        depth: usize,
    ) -> Result<(), Unsupported> {
        if depth > 256 {
            return Err(unsupported(self.scope, "statement expression too deep"));
        }
        let Some(def) = v.defining_op() else {
            return Ok(());
        };
        if !self.in_scop(def) || seen.contains(&def.key()) {
            return Ok(());
        }
        seen.push(def.key());
        let name = def.name();
        if name == "affine.load" || name == "memref.load" {
            loads.push(def);
            return Ok(());
        }
        for o in def.operands() {
            self.slice_loads(o, loads, seen, depth + 1)?;
        }
        Ok(())
    }

    /// Refuses a load whose location may be overwritten between the load and
    /// the statement that uses it (the model reads at the statement).
    fn check_load_hazard(&self, load: Op, store: Op) -> Result<(), Unsupported> {
        let root = memref_root(load, load.operands().first().copied())?.key();
        let (lpos, _) = self.order[&load.key()];
        let (spos, _) = self.order[&store.key()];
        // Loops around the store but not around the load.
        let mut outermost_inner: Option<Op> = None;
        let mut cur = store.parent();
        while let Some(p) = cur {
            if load.is_within(p) {
                break;
            }
            if is_loop(&p.name()) {
                outermost_inner = Some(p);
            }
            cur = p.parent();
        }
        let range = outermost_inner.map(|l| self.order[&l.key()]);
        for &(wpos, wroot, w) in &self.stores {
            if wroot != root {
                continue;
            }
            let between = lpos < wpos && wpos < spos;
            let in_inner = range.is_some_and(|(a, b)| a <= wpos && wpos < b);
            if between || in_inner {
                return Err(Unsupported {
                    op: load,
                    reason: format!(
                        "the value loaded here is used by a later store after '{}' may have changed it",
                        w.name()
                    ),
                    stale_load: true,
                });
            }
        }
        Ok(())
    }
}

/// Traces a memref value to its root buffer through `memref.cast`.
fn memref_root(op: Op, v: Option<Val>) -> Result<Val, Unsupported> {
    let mut v = v.ok_or_else(|| unsupported(op, "access without memref"))?;
    for _ in 0..64 {
        match v.defining_op() {
            Some(def) if def.name() == "memref.cast" => {
                v = def.operands()[0];
            }
            Some(def)
                if def.name().starts_with("memref.")
                    && !matches!(
                        def.name().as_str(),
                        "memref.alloc" | "memref.alloca" | "memref.get_global"
                    ) =>
            {
                return Err(unsupported(
                    op,
                    format!("access through '{}' (a view) is not modeled", def.name()),
                ));
            }
            _ => return Ok(v),
        }
    }
    Err(unsupported(op, "memref cast chain too long"))
}

fn memref_rank(op: Op) -> usize {
    let operands = op.operands();
    let name = op.name();
    if name.starts_with("affine.") {
        op.map_attr(c"map").map(|m| m.results().len()).unwrap_or(0)
    } else {
        let first = if name.ends_with("load") { 1 } else { 2 };
        operands.len().saturating_sub(first)
    }
}

// ---------------------------------------------------------------------------
// Conversion to math relations
// ---------------------------------------------------------------------------

impl Statement {
    /// A costly operation of this statement's body that `other`'s body holds
    /// too: a value computed once in the input (a `math` function, a
    /// division or remainder) and used by both statements' stores, which each
    /// statement computes again wherever the schedule runs it. Run in one
    /// loop body, the two copies are one again after common subexpression
    /// elimination; apart, the work is done twice (softmax's `exp(a - max)`,
    /// stored and summed).
    pub fn shared_work(&self, other: &Statement) -> Option<&BodyOp> {
        let costly = |o: &BodyOp| {
            o.access.is_none()
                && (o.name.starts_with("math.")
                    || matches!(
                        o.name.as_str(),
                        "arith.divf"
                            | "arith.remf"
                            | "arith.divsi"
                            | "arith.divui"
                            | "arith.remsi"
                            | "arith.remui"
                    ))
        };
        self.body
            .iter()
            .find(|o| costly(o) && other.body.iter().any(|p| p.id == o.id))
    }

    /// A read of this statement that `other` also makes, of the same array
    /// at the same subscripts (as forms over each statement's own
    /// iterators: the same cells when the two share their loops).
    pub fn shared_read(&self, other: &Statement) -> Option<&Access> {
        self.accesses.iter().find(|x| {
            x.kind == AccessKind::Read
                && other
                    .accesses
                    .iter()
                    .any(|y| y.kind == AccessKind::Read && y.array == x.array && y.index == x.index)
        })
    }
}

impl Scop {
    /// The store of `st` in the IR.
    pub fn store_of(&self, st: &Statement) -> Op {
        self.ir.stores[st.ir.0]
    }

    /// The induction variables of `st`'s iterators in the IR.
    pub fn ivs_of(&self, st: &Statement) -> &[Val] {
        &self.ir.iv_values[st.ir.0]
    }

    /// The load or store of `acc` in the IR.
    pub fn op_of(&self, acc: &Access) -> Op {
        self.ir.accesses[acc.ir.0]
    }

    /// The memref value all accesses of array `a` go through.
    pub fn root(&self, a: ArrayId) -> Val {
        self.ir.roots[self.arrays[a.0].ir.0]
    }

    /// The memref value all accesses of `arr` go through.
    pub fn root_of(&self, arr: &Array) -> Val {
        self.ir.roots[arr.ir.0]
    }

    /// The operation of a body operation.
    pub fn body_op(&self, op: &BodyOp) -> Op {
        self.ir.body_ops[op.id.0]
    }
}

impl Model {
    /// The rational minimum and maximum of `phi` over statement `s`'s domain,
    /// rounded outwards; `None` when unbounded (parametric) or on overflow.
    pub fn range_of(&self, s: usize, phi: &Form) -> Option<(i64, i64)> {
        use crate::math::simplex::lp_min;
        use crate::math::Optimum;
        let st = &self.statements[s];
        let (np, m, nl) = (self.params.len(), st.iters.len(), st.locals.count);
        let n = np + m + nl;
        // `Form::row`, where every coefficient has its column.
        let row = |f: &Form| -> Option<Vec<i64>> {
            (f.params.len() <= np && f.iters.len() <= m && f.locals.len() <= nl)
                .then(|| f.row(np, m, nl))
        };
        let obj = row(phi)?;
        let neg: Vec<i64> = obj.iter().map(|c| c.checked_neg()).collect::<Option<_>>()?;
        let (mut lo, mut hi) = (i64::MAX, i64::MIN);
        for piece in &st.domain {
            let rows = |own: &[Form], defs: &[Form]| -> Option<Vec<Vec<i64>>> {
                own.iter().chain(defs).map(row).collect()
            };
            let eqs = rows(&piece.eqs, &st.locals.eqs)?;
            let ineqs = rows(&piece.ineqs, &st.locals.ineqs)?;
            for (o, max) in [(&obj, false), (&neg, true)] {
                match lp_min(n, &eqs, &ineqs, o).ok()? {
                    Optimum::Bounded((v, _)) => {
                        let (num, den) = (v.num(), v.den());
                        if max {
                            // max phi = -min(-phi), rounded up.
                            let m = i64::try_from(
                                (-num).div_euclid(den) + i128::from((-num).rem_euclid(den) != 0),
                            )
                            .ok()?;
                            hi = hi.max(m);
                        } else {
                            let m = i64::try_from(num.div_euclid(den)).ok()?;
                            lo = lo.min(m);
                        }
                    }
                    Optimum::Empty => {}
                    Optimum::Unbounded => return None,
                }
            }
        }
        (lo <= hi).then_some((lo, hi))
    }

    /// Whether accesses `a` and `b` of statement `s` ever name the same
    /// cell in one instance (the domain and every subscript's difference
    /// zero, a set tested for an integer point); `None` where that is not
    /// known (subscripts with different local variables or arity, or the
    /// math gave up).
    pub fn meet_in_one_instance(&self, s: usize, a: usize, b: usize) -> Option<bool> {
        let st = self.statements.get(s)?;
        let (x, y) = (st.accesses.get(a)?, st.accesses.get(b)?);
        if x.index.len() != y.index.len() {
            return None;
        }
        let (np, ni, nl) = (self.np(), st.iters.len(), st.locals.count);
        let space = Space::set(&self.param_refs(), self.tuple(st));
        for p in &st.domain {
            let (mut eqs, ineqs) = piece_rows(st, p, np, ni, nl);
            for (f, g) in x.index.iter().zip(&y.index) {
                let (f, g) = (f.row(np, ni, nl), g.row(np, ni, nl));
                if f.len() != g.len() {
                    return None;
                }
                let d: Option<Vec<i64>> =
                    f.iter().zip(&g).map(|(u, v)| u.checked_sub(*v)).collect();
                eqs.push(d?);
            }
            let set = BasicRel::from_constraints(space.clone(), nl, eqs, ineqs).ok()?;
            if !set.is_empty().ok()? {
                return Some(true);
            }
        }
        Some(false)
    }

    fn np(&self) -> usize {
        self.params.len()
    }

    /// The domain of statement `s` as basic sets (one per piece).
    pub fn domain(&self, s: StmtId) -> Result<Vec<BasicRel>, MathError> {
        let st = &self.statements[s.0];
        let space = Space::set(&self.param_refs(), self.tuple(st));
        let (np, ni, nl) = (self.np(), st.iters.len(), st.locals.count);
        st.domain
            .iter()
            .map(|p| {
                let (eqs, ineqs) = piece_rows(st, p, np, ni, nl);
                BasicRel::from_constraints(space.clone(), nl, eqs, ineqs)
            })
            .collect()
    }

    /// The access relation of access `a` of statement `s`, one basic map per
    /// domain piece, restricted to the domain.
    pub fn access(&self, s: StmtId, a: usize) -> Result<Vec<BasicRel>, MathError> {
        let st = &self.statements[s.0];
        let acc = &st.accesses[a];
        let arr = &self.arrays[acc.array.0];
        let out = Tuple::new(
            Some(&arr.name),
            &(0..acc.index.len())
                .map(|k| format!("o{k}"))
                .collect::<Vec<_>>()
                .iter()
                .map(String::as_str)
                .collect::<Vec<_>>(),
        );
        let space = Space::map(&self.param_refs(), self.tuple(st), out);
        let (np, ni, nl, no) = (self.np(), st.iters.len(), st.locals.count, acc.index.len());
        st.domain
            .iter()
            .map(|p| {
                let (eqs, ineqs) = piece_rows(st, p, np, ni, nl);
                let widen = |r: Vec<i64>| insert_zeros(&r, np + ni, no);
                let mut eqs: Vec<Vec<i64>> = eqs.into_iter().map(widen).collect();
                let ineqs: Vec<Vec<i64>> = ineqs.into_iter().map(widen).collect();
                for (k, f) in acc.index.iter().enumerate() {
                    // o_k - index_k == 0
                    let mut r = insert_zeros(&f.row(np, ni, nl), np + ni, no);
                    for c in r.iter_mut() {
                        *c = c.checked_neg().ok_or(MathError::Overflow)?;
                    }
                    r[np + ni + k] = 1;
                    eqs.push(r);
                }
                BasicRel::from_constraints(space.clone(), nl, eqs, ineqs)
            })
            .collect()
    }

    /// The original schedule of statement `s`: `S[i] -> [b0, i1, b1, …]`.
    pub fn schedule(&self, s: StmtId) -> Result<BasicRel, MathError> {
        let st = &self.statements[s.0];
        let n = self.schedule_len;
        let out = Tuple::anonymous(None, n);
        let space = Space::map(&self.param_refs(), self.tuple(st), out);
        let (np, ni) = (self.np(), st.iters.len());
        let width = np + ni + n + 1;
        let mut eqs = Vec::new();
        let mut d = 0;
        let mut it = 0;
        let mut put = |target: Option<usize>, value: i64, d: usize| {
            let mut r = vec![0; width];
            r[np + ni + d] = 1;
            match target {
                Some(k) => r[np + k] = -1,
                None => r[width - 1] = -value,
            }
            eqs.push(r);
        };
        put(None, st.beta[0] as i64, d);
        d += 1;
        for (level, &upto) in st.depth_iters.iter().enumerate() {
            while it < upto {
                put(Some(it), 0, d);
                d += 1;
                it += 1;
            }
            put(None, st.beta[level + 1] as i64, d);
            d += 1;
        }
        while d < n {
            put(None, 0, d);
            d += 1;
        }
        BasicRel::from_constraints(space, 0, eqs, Vec::new())
    }

    fn param_refs(&self) -> Vec<&str> {
        self.params.iter().map(String::as_str).collect()
    }

    fn tuple(&self, st: &Statement) -> Tuple {
        Tuple::new(
            Some(&st.name),
            &st.iters.iter().map(String::as_str).collect::<Vec<_>>(),
        )
    }
}

/// The rows of one domain piece and the locals' definitions, over
/// `[params | iters | locals | constant]`.
pub(crate) fn piece_rows(
    st: &Statement,
    p: &Piece,
    np: usize,
    ni: usize,
    nl: usize,
) -> (Vec<Vec<i64>>, Vec<Vec<i64>>) {
    let eqs = p
        .eqs
        .iter()
        .chain(st.locals.eqs.iter())
        .map(|f| f.row(np, ni, nl))
        .collect();
    let ineqs = p
        .ineqs
        .iter()
        .chain(st.locals.ineqs.iter())
        .map(|f| f.row(np, ni, nl))
        .collect();
    (eqs, ineqs)
}

/// Inserts `n` zero columns at position `at`.
pub(crate) fn insert_zeros(row: &[i64], at: usize, n: usize) -> Vec<i64> {
    let mut r = Vec::with_capacity(row.len() + n);
    r.extend_from_slice(&row[..at]);
    r.extend(std::iter::repeat_n(0, n));
    r.extend_from_slice(&row[at..]);
    r
}

#[cfg(test)]
mod tests {
    use super::Model;

    /// A triangular solve's row update `x[i] -= L[i][j] * x[j]` over
    /// `lo <= j < i + extra`, with the read of `x` at `x[j + shift]`:
    /// accesses 0 (the write `x[i]`), 1 (`x[i]`), 2 (`L[i][j]`), 3 (the
    /// other read of `x`).
    fn solve(extra: i64, shift: i64) -> Model {
        let bound = if extra == 0 {
            "j < i".to_string()
        } else {
            format!("j < i + {extra}")
        };
        let read = if shift == 0 {
            "x[j]".to_string()
        } else {
            format!("x[j + {shift}]")
        };
        Model::parse(&format!(
            "domain: [N] -> {{ S0[i, j] : 0 <= i < N and 0 <= j and {bound} }}
             schedule: [N] -> {{ S0[i, j] -> [0, i, 0, j, 0] }}
             writes: [N] -> {{ S0[i, j] -> x[i] }}
             reads: [N] -> {{ S0[i, j] -> x[i]; S0[i, j] -> L[i, j]; S0[i, j] -> {read} }}"
        ))
        .expect("parses")
    }

    #[test]
    fn a_solve_reads_other_cells_of_its_row_only_below_the_diagonal() {
        // j < i: x[j] is never x[i] in one instance.
        assert_eq!(solve(0, 0).meet_in_one_instance(0, 0, 3), Some(false));
        // j <= i: at j = i it is.
        assert_eq!(solve(1, 0).meet_in_one_instance(0, 0, 3), Some(true));
        // j < i but x[j + 1]: at j = i - 1 it is.
        assert_eq!(solve(0, 1).meet_in_one_instance(0, 0, 3), Some(true));
        // The same cell through another read, and another array's cell
        // (L[i][j] against x[i]: arities differ, not known).
        assert_eq!(solve(0, 0).meet_in_one_instance(0, 0, 1), Some(true));
        assert_eq!(solve(0, 0).meet_in_one_instance(0, 0, 2), None);
    }
}
