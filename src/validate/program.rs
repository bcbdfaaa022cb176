//! The interpreter's program: a list of MLIR operations (the SCoP's, or the
//! code that replaced it) translated once into plain Rust data, so that the
//! runs touch no MLIR handle. Each SSA value gets a slot; the values the
//! operations use but do not define are the program's inputs, resolved when
//! a run starts (see `run.rs`).
//!
//! What it knows: `affine.for` (with `iter_args`), `affine.parallel`
//! (without reductions), `affine.if` (with results), `affine.apply`,
//! `affine.min`/`max`, `affine.load`/`store` and their vector forms,
//! `memref.load`/`store`/`alloc`/`alloca`/`dealloc`/`cast`/`dim`,
//! `arith.constant`, the `vector` operations the emitter makes
//! (`broadcast`, `from_elements`, `shuffle`, `extract`, `insert`,
//! `splat`), and every other operation without regions or memory effects
//! as a pure function of its operands (lane by lane on vectors). Anything
//! else makes the program unsupported, and the check is skipped.

use std::collections::HashMap;

use crate::ffi::ir::{Block, Expr, ExprKind, Op, Val};
use crate::ffi::shim;

use super::symbolic::Exprs;

/// A value's slot in a run's register file.
pub type Slot = u32;

/// An affine expression over `[dims | symbols]`.
#[derive(Debug, Clone)]
pub enum AExpr {
    /// Input `k` (dims first, then symbols).
    Input(usize),
    /// A constant.
    Const(i64),
    /// `a + b`.
    Add(Box<AExpr>, Box<AExpr>),
    /// `a * b`.
    Mul(Box<AExpr>, Box<AExpr>),
    /// `a mod b` (non-negative for a positive `b`).
    Mod(Box<AExpr>, Box<AExpr>),
    /// `a floordiv b`.
    FloorDiv(Box<AExpr>, Box<AExpr>),
    /// `a ceildiv b`.
    CeilDiv(Box<AExpr>, Box<AExpr>),
}

/// Affine expressions applied to operands.
#[derive(Debug, Clone)]
pub struct Affine {
    /// The results.
    pub exprs: Vec<AExpr>,
    /// The operands (dims, then symbols).
    pub args: Vec<Slot>,
}

/// How an access finds its cell.
#[derive(Debug, Clone)]
pub enum Index {
    /// `affine.load`/`store`: a map of the operands.
    Map(Affine),
    /// `memref.load`/`store`: the index operands.
    Direct(Vec<Slot>),
}

/// One dimension of an `affine.parallel`.
#[derive(Debug, Clone)]
pub struct ParDim {
    /// The lower bounds (the largest counts).
    pub lower: Affine,
    /// The upper bounds (the smallest counts), exclusive.
    pub upper: Affine,
    /// The step.
    pub step: i64,
}

/// A pure operation's semantics.
#[derive(Debug, Clone)]
pub enum Pure {
    /// `arith.constant`: its value.
    Const(Constant),
    /// `vector.broadcast`/`vector.splat` to this many lanes.
    Broadcast(usize),
    /// `vector.from_elements`.
    FromElements,
    /// `vector.shuffle` with this mask.
    Shuffle(Vec<i64>),
    /// `vector.extract` at a static position.
    Extract(usize),
    /// `vector.insert` at a static position.
    Insert(usize),
    /// Any other operation without regions or memory effects, by its name
    /// (with a comparison's predicate) and that name's id in the
    /// expressions ([`Exprs::name`]), lane by lane on vectors.
    Op(String, u32),
}

/// A constant's value.
#[derive(Debug, Clone)]
pub enum Constant {
    /// An integer (index, iN, i1).
    Int(i64),
    /// A float and its precision (`true`: f32).
    Float(f64, bool),
    /// A vector of floats (a dense constant).
    Floats(Vec<f64>, bool),
    /// A vector of integers.
    Ints(Vec<i64>),
}

/// One instruction.
#[derive(Debug, Clone)]
pub enum Inst {
    /// `affine.for`.
    For {
        /// Lower bounds (max).
        lower: Affine,
        /// Upper bounds (min), exclusive.
        upper: Affine,
        /// The step.
        step: i64,
        /// The induction variable.
        iv: Slot,
        /// Initial values of the carried values.
        inits: Vec<Slot>,
        /// The carried values inside the body.
        carried: Vec<Slot>,
        /// The body.
        body: Vec<Inst>,
        /// The values the body yields.
        yields: Vec<Slot>,
        /// The loop's results.
        results: Vec<Slot>,
    },
    /// `affine.parallel` (iterations run in order; the run checks that no
    /// two of them touch one cell where one writes).
    Parallel {
        /// The dimensions.
        dims: Vec<ParDim>,
        /// Their induction variables.
        ivs: Vec<Slot>,
        /// The body.
        body: Vec<Inst>,
    },
    /// `affine.if`.
    If {
        /// `(expression, is_equality)`: `e >= 0` or `e == 0`.
        conds: Vec<(AExpr, bool)>,
        /// The condition's operands.
        args: Vec<Slot>,
        /// The then-branch and what it yields.
        then: (Vec<Inst>, Vec<Slot>),
        /// The else-branch and what it yields.
        els: (Vec<Inst>, Vec<Slot>),
        /// The results.
        results: Vec<Slot>,
    },
    /// `affine.apply`, `affine.min` (`Some(false)`), `affine.max`
    /// (`Some(true)`).
    Apply {
        /// The map.
        map: Affine,
        /// `None`: one result; `Some(max)`: the max or min of the results.
        fold: Option<bool>,
        /// The result.
        result: Slot,
    },
    /// A load of one cell, or of `lanes` consecutive cells along the last
    /// dimension.
    Load {
        /// The memref.
        mem: Slot,
        /// The cell.
        index: Index,
        /// Lanes of a vector load.
        lanes: Option<usize>,
        /// The result.
        result: Slot,
    },
    /// A store (of a vector: consecutive cells).
    Store {
        /// The value.
        value: Slot,
        /// The memref.
        mem: Slot,
        /// The cell.
        index: Index,
        /// Lanes of a vector store.
        lanes: Option<usize>,
    },
    /// `memref.alloc`/`alloca`: a new buffer.
    Alloc {
        /// The buffer.
        result: Slot,
    },
    /// `memref.dim`.
    Dim {
        /// The memref.
        mem: Slot,
        /// The dimension (a slot holding an integer).
        dim: Slot,
        /// The static sizes of the memref's type (`None`: dynamic).
        shape: Vec<Option<i64>>,
        /// The result.
        result: Slot,
    },
    /// `memref.cast` and other views that keep the layout: the same buffer.
    Same {
        /// The source.
        src: Slot,
        /// The result.
        result: Slot,
    },
    /// A pure operation.
    Pure {
        /// What it computes.
        op: Pure,
        /// The operands.
        args: Vec<Slot>,
        /// The result.
        result: Slot,
        /// The result type's text.
        ty: String,
        /// The first operand's type's text (the source of a cast).
        arg_ty: String,
    },
}

/// A translated list of operations.
#[derive(Debug, Default)]
pub struct Program {
    /// The instructions, in order.
    pub insts: Vec<Inst>,
    /// The values used but not defined by the operations, with their slots.
    pub inputs: Vec<(Slot, Val)>,
    /// Number of slots.
    pub slots: u32,
}

/// Why a list of operations cannot be translated.
pub type Unsupported = String;

/// Translates `ops` (consecutive operations of one block); the names of
/// the operations go into `exprs`.
pub fn translate(ops: &[Op], exprs: &mut Exprs) -> Result<Program, Unsupported> {
    let mut t = Translator {
        slots: HashMap::new(),
        program: Program::default(),
        exprs,
    };
    let insts = t.ops(ops)?;
    t.program.insts = insts;
    Ok(t.program)
}

struct Translator<'a> {
    slots: HashMap<usize, Slot>,
    program: Program,
    exprs: &'a mut Exprs,
}

/// The static shape of a memref type's text (`memref<4x?xf64>`), `None`
/// for a dynamic size.
pub fn memref_shape(ty: &str) -> Option<Vec<Option<i64>>> {
    let inner = ty.strip_prefix("memref<")?;
    let inner = inner.split([',', '>']).next()?;
    let mut dims: Vec<&str> = inner.split('x').collect();
    dims.pop(); // the element type
    dims.iter()
        .map(|d| {
            if *d == "?" {
                Some(None)
            } else {
                d.parse().ok().map(Some)
            }
        })
        .collect()
}

/// The lanes of a one-dimensional vector type's text (`vector<8xf64>`).
pub fn vector_lanes(ty: &str) -> Option<usize> {
    let inner = ty.strip_prefix("vector<")?.strip_suffix('>')?;
    let mut parts = inner.split('x');
    let n = parts.next()?.parse().ok()?;
    let elem = parts.next()?;
    parts.next().is_none().then_some(())?;
    (!elem.is_empty()).then_some(n)
}

/// The integers of a dense integer attribute's text (`dense<1> :
/// tensor<1xi32>`, `dense<[1, 2]> : tensor<2xi32>`), or of an array.
fn int_list_text(text: &str) -> Option<Vec<i64>> {
    let body = text.strip_prefix("dense<")?;
    let body = &body[..body.find('>')?];
    let body = body.trim_start_matches('[').trim_end_matches(']');
    if body.trim().is_empty() {
        return Some(Vec::new());
    }
    body.split(',').map(|x| x.trim().parse().ok()).collect()
}

/// A float literal of MLIR's printer (decimal, or hexadecimal bits).
fn float_literal(text: &str, single: bool) -> Option<f64> {
    let t = text.trim();
    if let Some(hex) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        let bits = u64::from_str_radix(hex, 16).ok()?;
        return Some(if single {
            f64::from(f32::from_bits(bits as u32))
        } else {
            f64::from_bits(bits)
        });
    }
    if single {
        t.parse::<f32>().ok().map(f64::from)
    } else {
        t.parse::<f64>().ok()
    }
}

/// The value of an `arith.constant` (from its attribute's text).
pub fn constant(op: Op) -> Result<Constant, Unsupported> {
    let attr = op.attr(c"value").ok_or("arith.constant without value")?;
    if let Some(k) = attr.as_int() {
        return Ok(Constant::Int(k));
    }
    let text = attr.text();
    let bad = || format!("constant {text} not understood");
    let (value, ty) = text.rsplit_once(" : ").ok_or_else(bad)?;
    if let Some(single) = super::symbolic::single_precision(ty) {
        if let Some(dense) = value.strip_prefix("dense<") {
            let n = vector_lanes(ty).ok_or_else(bad)?;
            let body = dense.strip_suffix('>').ok_or_else(bad)?;
            let body = body.trim_start_matches('[').trim_end_matches(']');
            let vals: Option<Vec<f64>> =
                body.split(',').map(|x| float_literal(x, single)).collect();
            let mut vals = vals.ok_or_else(bad)?;
            if vals.len() == 1 {
                vals = vec![vals[0]; n];
            }
            return (vals.len() == n)
                .then_some(Constant::Floats(vals, single))
                .ok_or_else(bad);
        }
        return float_literal(value, single)
            .map(|v| Constant::Float(v, single))
            .ok_or_else(bad);
    }
    match value.trim() {
        "true" => return Ok(Constant::Int(-1)),
        "false" => return Ok(Constant::Int(0)),
        _ => {}
    }
    if let Some(dense) = value.strip_prefix("dense<") {
        let n = vector_lanes(ty).ok_or_else(bad)?;
        let body = dense.strip_suffix('>').ok_or_else(bad)?;
        let body = body.trim_start_matches('[').trim_end_matches(']');
        let vals: Option<Vec<i64>> = body
            .split(',')
            .map(|x| match x.trim() {
                "true" => Some(-1),
                "false" => Some(0),
                v => v.parse().ok(),
            })
            .collect();
        let mut vals = vals.ok_or_else(bad)?;
        if vals.len() == 1 {
            vals = vec![vals[0]; n];
        }
        return (vals.len() == n)
            .then_some(Constant::Ints(vals))
            .ok_or_else(bad);
    }
    value.trim().parse().map(Constant::Int).map_err(|_| bad())
}

fn aexpr(e: Expr, nd: usize) -> AExpr {
    let b = |x: Expr| Box::new(aexpr(x, nd));
    match e.kind() {
        ExprKind::Dim(k) => AExpr::Input(k),
        ExprKind::Symbol(k) => AExpr::Input(nd + k),
        ExprKind::Constant(c) => AExpr::Const(c),
        ExprKind::Add(l, r) => AExpr::Add(b(l), b(r)),
        ExprKind::Mul(l, r) => AExpr::Mul(b(l), b(r)),
        ExprKind::Mod(l, r) => AExpr::Mod(b(l), b(r)),
        ExprKind::FloorDiv(l, r) => AExpr::FloorDiv(b(l), b(r)),
        ExprKind::CeilDiv(l, r) => AExpr::CeilDiv(b(l), b(r)),
    }
}

impl Translator<'_> {
    /// The slot of `v`; a value seen for the first time that no
    /// translated operation defines becomes an input.
    fn slot(&mut self, v: Val) -> Slot {
        if let Some(&s) = self.slots.get(&v.key()) {
            return s;
        }
        let s = self.new_slot(v);
        self.program.inputs.push((s, v));
        s
    }

    /// A new slot for `v`, defined by a translated operation.
    fn new_slot(&mut self, v: Val) -> Slot {
        let s = self.program.slots;
        self.program.slots += 1;
        self.slots.insert(v.key(), s);
        s
    }

    fn result(&mut self, op: Op, k: usize) -> Result<Slot, Unsupported> {
        let v = op
            .result(k)
            .ok_or_else(|| format!("'{}' without result {k}", op.name()))?;
        Ok(self.new_slot(v))
    }

    fn results(&mut self, op: Op) -> Result<Vec<Slot>, Unsupported> {
        (0..op.num_results()).map(|k| self.result(op, k)).collect()
    }

    fn slots_of(&mut self, vals: &[Val]) -> Vec<Slot> {
        vals.iter().map(|&v| self.slot(v)).collect()
    }

    fn map(
        &mut self,
        op: Op,
        attr: &std::ffi::CStr,
        operands: &[Val],
    ) -> Result<Affine, Unsupported> {
        let map = op
            .map_attr(attr)
            .ok_or_else(|| format!("'{}' without its map", op.name()))?;
        let nd = map.num_dims();
        if operands.len() != nd + map.num_symbols() {
            return Err(format!("'{}': operands do not match the map", op.name()));
        }
        Ok(Affine {
            exprs: map.results().into_iter().map(|e| aexpr(e, nd)).collect(),
            args: self.slots_of(operands),
        })
    }

    fn ops(&mut self, ops: &[Op]) -> Result<Vec<Inst>, Unsupported> {
        let mut out = Vec::new();
        for &op in ops {
            if let Some(i) = self.op(op)? {
                out.push(i);
            }
        }
        Ok(out)
    }

    /// The body of a single-block region: its instructions, and the
    /// operands of its terminator (`affine.yield`).
    fn body(&mut self, block: Block) -> Result<(Vec<Inst>, Vec<Slot>), Unsupported> {
        let ops = block.ops();
        let (last, rest) = match ops.split_last() {
            Some((l, r)) if l.name() == "affine.yield" => (Some(*l), r),
            _ => (None, &ops[..]),
        };
        let insts = self.ops(rest)?;
        let yields = match last {
            Some(y) => self.slots_of(&y.operands()),
            None => Vec::new(),
        };
        Ok((insts, yields))
    }

    fn only_block(op: Op, r: usize) -> Result<Option<Block>, Unsupported> {
        let regions = op.regions();
        let Some(region) = regions.get(r) else {
            return Ok(None);
        };
        let blocks = region.blocks();
        if blocks.len() > 1 {
            return Err(format!("'{}' with a region of several blocks", op.name()));
        }
        Ok(blocks.first().copied())
    }

    fn op(&mut self, op: Op) -> Result<Option<Inst>, Unsupported> {
        let name = op.name();
        let operands = op.operands();
        Ok(Some(match name.as_str() {
            "affine.for" => {
                let lmap = op
                    .map_attr(c"lowerBoundMap")
                    .ok_or("affine.for without bounds")?;
                let umap = op
                    .map_attr(c"upperBoundMap")
                    .ok_or("affine.for without bounds")?;
                let nl = lmap.num_dims() + lmap.num_symbols();
                let nu = umap.num_dims() + umap.num_symbols();
                if operands.len() < nl + nu {
                    return Err("affine.for: operands do not match its maps".into());
                }
                let lower = self.map(op, c"lowerBoundMap", &operands[..nl])?;
                let upper = self.map(op, c"upperBoundMap", &operands[nl..nl + nu])?;
                let inits = self.slots_of(&operands[nl + nu..]);
                let step = op.attr(c"step").and_then(|a| a.as_int()).unwrap_or(1);
                if step < 1 {
                    return Err("affine.for with a step below 1".into());
                }
                let block = Self::only_block(op, 0)?.ok_or("affine.for without body")?;
                let iv = self.new_slot(
                    block
                        .arg(0)
                        .ok_or("affine.for without induction variable")?,
                );
                let carried = (1..block.num_args())
                    .map(|k| block.arg(k).map(|a| self.new_slot(a)))
                    .collect::<Option<Vec<_>>>()
                    .ok_or("affine.for without its carried values")?;
                let (body, yields) = self.body(block)?;
                let results = self.results(op)?;
                Inst::For {
                    lower,
                    upper,
                    step,
                    iv,
                    inits,
                    carried,
                    body,
                    yields,
                    results,
                }
            }
            "affine.parallel" => {
                if op.num_results() > 0
                    || op
                        .attr(c"reductions")
                        .and_then(|a| a.array_len())
                        .unwrap_or(0)
                        > 0
                {
                    return Err("affine.parallel with reductions".into());
                }
                let lmap = op
                    .map_attr(c"lowerBoundsMap")
                    .ok_or("affine.parallel without bounds")?;
                let nl = lmap.num_dims() + lmap.num_symbols();
                let lower = self.map(op, c"lowerBoundsMap", &operands[..nl.min(operands.len())])?;
                let upper = self.map(op, c"upperBoundsMap", &operands[nl.min(operands.len())..])?;
                let groups = |a: &std::ffi::CStr, n: usize| -> Result<Vec<i64>, Unsupported> {
                    match op.attr(a) {
                        Some(g) => g
                            .int_list()
                            .or_else(|| int_list_text(&g.text()))
                            .ok_or_else(|| "affine.parallel: groups not understood".to_string()),
                        None => Ok(vec![1; n]),
                    }
                };
                let block = Self::only_block(op, 0)?.ok_or("affine.parallel without body")?;
                let n = block.num_args();
                let lg = groups(c"lowerBoundsGroups", n)?;
                let ug = groups(c"upperBoundsGroups", n)?;
                let steps = op
                    .attr(c"steps")
                    .and_then(|a| a.int_list())
                    .unwrap_or_else(|| vec![1; n]);
                if lg.len() != n || ug.len() != n || steps.len() != n {
                    return Err("affine.parallel: bounds do not match its dimensions".into());
                }
                let split = |a: &Affine, g: &[i64]| -> Result<Vec<Affine>, Unsupported> {
                    let mut out = Vec::new();
                    let mut at = 0usize;
                    for &k in g {
                        let k = k as usize;
                        let exprs = a
                            .exprs
                            .get(at..at + k)
                            .ok_or("affine.parallel: bound groups do not match its maps")?
                            .to_vec();
                        out.push(Affine {
                            exprs,
                            args: a.args.clone(),
                        });
                        at += k;
                    }
                    Ok(out)
                };
                let lows = split(&lower, &lg)?;
                let ups = split(&upper, &ug)?;
                let ivs = (0..n)
                    .map(|k| block.arg(k).map(|a| self.new_slot(a)))
                    .collect::<Option<Vec<_>>>()
                    .ok_or("affine.parallel without induction variables")?;
                let dims = lows
                    .into_iter()
                    .zip(ups)
                    .zip(&steps)
                    .map(|((lower, upper), &step)| ParDim { lower, upper, step })
                    .collect();
                let (body, _) = self.body(block)?;
                Inst::Parallel { dims, ivs, body }
            }
            "affine.if" => {
                let set = op
                    .attr(c"condition")
                    .and_then(|a| a.as_set())
                    .ok_or("affine.if without condition")?;
                let nd = set.num_dims();
                if operands.len() != nd + set.num_symbols() {
                    return Err("affine.if: operands do not match its set".into());
                }
                let conds = set
                    .constraints()
                    .into_iter()
                    .map(|(e, eq)| (aexpr(e, nd), eq))
                    .collect();
                let args = self.slots_of(&operands);
                let then = match Self::only_block(op, 0)? {
                    Some(b) => self.body(b)?,
                    None => (Vec::new(), Vec::new()),
                };
                let els = match Self::only_block(op, 1)? {
                    Some(b) => self.body(b)?,
                    None => (Vec::new(), Vec::new()),
                };
                let results = self.results(op)?;
                Inst::If {
                    conds,
                    args,
                    then,
                    els,
                    results,
                }
            }
            "affine.apply" | "affine.min" | "affine.max" => {
                let map = self.map(op, c"map", &operands)?;
                let fold = match name.as_str() {
                    "affine.apply" => None,
                    "affine.min" => Some(false),
                    _ => Some(true),
                };
                Inst::Apply {
                    map,
                    fold,
                    result: self.result(op, 0)?,
                }
            }
            "affine.load" | "affine.vector_load" => {
                let mem = self.slot(*operands.first().ok_or("load without memref")?);
                let index = Index::Map(self.map(op, c"map", &operands[1..])?);
                let lanes = self.lanes_of_result(op)?;
                Inst::Load {
                    mem,
                    index,
                    lanes,
                    result: self.result(op, 0)?,
                }
            }
            "memref.load" => {
                let mem = self.slot(*operands.first().ok_or("load without memref")?);
                let index = Index::Direct(self.slots_of(&operands[1..]));
                Inst::Load {
                    mem,
                    index,
                    lanes: None,
                    result: self.result(op, 0)?,
                }
            }
            "affine.store" | "affine.vector_store" => {
                if operands.len() < 2 {
                    return Err("store without value or memref".into());
                }
                let lanes = vector_lanes(&operands[0].type_text());
                let value = self.slot(operands[0]);
                let mem = self.slot(operands[1]);
                let index = Index::Map(self.map(op, c"map", &operands[2..])?);
                Inst::Store {
                    value,
                    mem,
                    index,
                    lanes,
                }
            }
            "memref.store" => {
                if operands.len() < 2 {
                    return Err("store without value or memref".into());
                }
                let value = self.slot(operands[0]);
                let mem = self.slot(operands[1]);
                let index = Index::Direct(self.slots_of(&operands[2..]));
                Inst::Store {
                    value,
                    mem,
                    index,
                    lanes: None,
                }
            }
            "memref.alloc" | "memref.alloca" => {
                if !operands.is_empty() {
                    return Err(format!("'{name}' of a dynamic size"));
                }
                Inst::Alloc {
                    result: self.result(op, 0)?,
                }
            }
            "memref.dealloc" => return Ok(None),
            // A hint: no effect on what the program computes.
            "affine.prefetch" => return Ok(None),
            "memref.cast" => Inst::Same {
                src: self.slot(*operands.first().ok_or("memref.cast without source")?),
                result: self.result(op, 0)?,
            },
            "memref.dim" => {
                let [m, d] = operands[..] else {
                    return Err("memref.dim without its operands".into());
                };
                let shape =
                    memref_shape(&m.type_text()).ok_or("memref.dim of an unranked memref")?;
                Inst::Dim {
                    mem: self.slot(m),
                    dim: self.slot(d),
                    shape,
                    result: self.result(op, 0)?,
                }
            }
            "affine.yield" => return Ok(None),
            _ => {
                if !op.regions().is_empty()
                    || op.num_results() != 1
                    || !shim::is_memory_effect_free(op)
                {
                    return Err(format!("'{name}' is not understood by the interpreter"));
                }
                let ty = op.result(0).map(|r| r.type_text()).unwrap_or_default();
                let pure = match name.as_str() {
                    "arith.constant" => Pure::Const(constant(op)?),
                    "vector.broadcast" | "vector.splat" => Pure::Broadcast(
                        vector_lanes(&ty).ok_or("broadcast to a vector of several dimensions")?,
                    ),
                    "vector.from_elements" => Pure::FromElements,
                    "vector.shuffle" => Pure::Shuffle(
                        op.attr(c"mask")
                            .and_then(|a| a.int_list())
                            .ok_or("vector.shuffle without mask")?,
                    ),
                    "vector.extract" | "vector.insert" => {
                        let pos = op
                            .attr(c"static_position")
                            .and_then(|a| a.int_list())
                            .ok_or_else(|| format!("'{name}' without a static position"))?;
                        let dynamic = if name == "vector.extract" { 1 } else { 2 };
                        match (pos.as_slice(), operands.len() == dynamic) {
                            ([p], true) if *p >= 0 => {
                                if name == "vector.extract" {
                                    Pure::Extract(*p as usize)
                                } else {
                                    Pure::Insert(*p as usize)
                                }
                            }
                            _ => return Err(format!("'{name}' at a position not understood")),
                        }
                    }
                    n if n.starts_with("vector.") => {
                        return Err(format!("'{name}' is not understood by the interpreter"))
                    }
                    "arith.cmpi" => {
                        // An I64EnumAttr: eq, ne, slt, sle, sgt, sge, ult,
                        // ule, ugt, uge.
                        const NAMES: [&str; 10] = [
                            "eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge",
                        ];
                        let p = op
                            .attr(c"predicate")
                            .and_then(|a| a.as_int())
                            .and_then(|k| usize::try_from(k).ok())
                            .and_then(|k| NAMES.get(k))
                            .ok_or("arith.cmpi with a predicate not understood")?;
                        let n = format!("{name} {p}");
                        let id = self.exprs.name(&n);
                        Pure::Op(n, id)
                    }
                    "arith.cmpf" => {
                        let p = op.attr(c"predicate").map(|a| a.text()).unwrap_or_default();
                        let n = format!("{name} {p}");
                        let id = self.exprs.name(&n);
                        Pure::Op(n, id)
                    }
                    _ => Pure::Op(name.clone(), self.exprs.name(&name)),
                };
                let args = self.slots_of(&operands);
                Inst::Pure {
                    op: pure,
                    args,
                    result: self.result(op, 0)?,
                    ty,
                    arg_ty: operands.first().map(|v| v.type_text()).unwrap_or_default(),
                }
            }
        }))
    }

    fn lanes_of_result(&self, op: Op) -> Result<Option<usize>, Unsupported> {
        let ty = op.result(0).map(|r| r.type_text()).unwrap_or_default();
        if ty.starts_with("vector<") {
            return vector_lanes(&ty)
                .map(Some)
                .ok_or_else(|| format!("a load of {ty} is not understood"));
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_texts() {
        assert_eq!(memref_shape("memref<4x?xf64>"), Some(vec![Some(4), None]));
        assert_eq!(memref_shape("memref<f64>"), Some(vec![]));
        assert_eq!(
            memref_shape("memref<3x5xf32, strided<[5, 1]>>"),
            Some(vec![Some(3), Some(5)])
        );
        assert_eq!(vector_lanes("vector<8xf64>"), Some(8));
        assert_eq!(vector_lanes("vector<2x4xf64>"), None);
        assert_eq!(int_list_text("dense<1> : tensor<1xi32>"), Some(vec![1]));
        assert_eq!(
            int_list_text("dense<[1, 2]> : tensor<2xi32>"),
            Some(vec![1, 2])
        );
    }

    #[test]
    fn float_literals() {
        assert_eq!(float_literal("2.000000e+00", false), Some(2.0));
        assert_eq!(float_literal("0x3FF0000000000000", false), Some(1.0));
        assert_eq!(float_literal("0x3F800000", true), Some(1.0));
        assert_eq!(float_literal("0.1", true), Some(f64::from(0.1f32)));
    }
}
