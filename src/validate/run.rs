//! Runs a [`Program`] on symbolic memory: every cell of an array of the
//! SCoP starts as its own symbol (`Init`), loads and stores move
//! expressions, arithmetic builds them ([`Exprs`]). Loops run in order; in
//! an `affine.parallel`, every access is also recorded per iteration, and
//! two iterations that touch one cell where one of them writes it are a
//! race (the loop's iterations would not be independent).

use super::program::{AExpr, Affine, Constant, Index, Inst, Program, Pure, Slot};
use super::symbolic::{single_precision, Cell, Exprs, FxMap, Node, Scalar};

/// A value in a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    /// Not computed yet.
    None,
    /// A scalar.
    Scalar(Scalar),
    /// A vector's lanes.
    Lanes(Vec<Scalar>),
    /// A buffer (an index into [`Memory::buffers`]).
    Buffer(u32),
}

/// Why a run stopped.
#[derive(Debug, Clone)]
pub enum Stop {
    /// Something the interpreter cannot follow (an address computed from
    /// memory): no verdict.
    Skip(String),
    /// Past the operation budget: no verdict.
    Budget(String),
    /// A race between iterations of a parallel loop.
    Race(String),
}

/// A buffer: an array of the SCoP (`array`), or one the code allocated.
#[derive(Debug, Default)]
pub struct Buffer {
    /// The array's index in the validator's table, for the arrays of the
    /// SCoP.
    pub array: Option<u32>,
    /// The cells stored so far.
    pub cells: FxMap<Cell, Scalar>,
}

/// The memory of a run.
#[derive(Debug, Default)]
pub struct Memory {
    /// Every buffer, the SCoP's arrays first.
    pub buffers: Vec<Buffer>,
}

/// What one access of a parallel loop's iteration did to a cell.
#[derive(Debug, Clone, Copy)]
struct Touch {
    /// The iteration (its position in the loop's order) that wrote the
    /// cell, if one did.
    writer: Option<u64>,
    /// The iteration that read it, if exactly one did; `u64::MAX`: several.
    reader: Option<u64>,
}

/// One `affine.parallel` being run.
struct ParallelFrame {
    iteration: u64,
    touched: FxMap<(u32, Cell), Touch>,
}

/// A run's state.
pub struct Run<'a> {
    /// The register file.
    regs: Vec<Value>,
    /// Memory.
    pub memory: Memory,
    /// The expressions, shared with the other run.
    pub exprs: &'a mut Exprs,
    /// Operations executed.
    pub steps: u64,
    limit: u64,
    parallel: Vec<ParallelFrame>,
    /// Names of the buffers, for diagnostics.
    pub names: Vec<String>,
    /// Size of a dynamic dimension.
    dynamic_size: i64,
}

fn skip(why: impl Into<String>) -> Stop {
    Stop::Skip(why.into())
}

fn eval(e: &AExpr, vals: &[i64]) -> Result<i64, Stop> {
    let overflow = || skip("index arithmetic overflows");
    let two =
        |a: &AExpr, b: &AExpr| -> Result<(i64, i64), Stop> { Ok((eval(a, vals)?, eval(b, vals)?)) };
    match e {
        AExpr::Input(k) => vals
            .get(*k)
            .copied()
            .ok_or_else(|| skip("map input out of range")),
        AExpr::Const(c) => Ok(*c),
        AExpr::Add(a, b) => {
            let (x, y) = two(a, b)?;
            x.checked_add(y).ok_or_else(overflow)
        }
        AExpr::Mul(a, b) => {
            let (x, y) = two(a, b)?;
            x.checked_mul(y).ok_or_else(overflow)
        }
        AExpr::Mod(a, b) => {
            let (x, y) = two(a, b)?;
            if y <= 0 {
                return Err(skip("mod by a non-positive value"));
            }
            Ok(x.rem_euclid(y))
        }
        AExpr::FloorDiv(a, b) => {
            let (x, y) = two(a, b)?;
            if y <= 0 {
                return Err(skip("floordiv by a non-positive value"));
            }
            Ok(x.div_euclid(y))
        }
        AExpr::CeilDiv(a, b) => {
            let (x, y) = two(a, b)?;
            if y <= 0 {
                return Err(skip("ceildiv by a non-positive value"));
            }
            Ok(-((-x).div_euclid(y)))
        }
    }
}

impl<'a> Run<'a> {
    /// A run of `program` with its inputs' values, on `memory` (the SCoP's
    /// arrays, untouched), stopping past `limit` operations.
    pub fn new(
        program: &Program,
        inputs: Vec<(Slot, Value)>,
        memory: Memory,
        exprs: &'a mut Exprs,
        limit: u64,
        names: Vec<String>,
        dynamic_size: i64,
    ) -> Run<'a> {
        let mut regs = vec![Value::None; program.slots as usize];
        for (s, v) in inputs {
            regs[s as usize] = v;
        }
        Run {
            regs,
            memory,
            exprs,
            steps: 0,
            limit,
            parallel: Vec::new(),
            names,
            dynamic_size,
        }
    }

    /// About how many operations running `insts` takes, found without
    /// running them: each loop counted at its trip count from the values
    /// in front of it, its body once, with its induction variable at the
    /// middle of its range (a triangle's inner loops at their mean); both
    /// branches of a conditional; no memory touched. Index arithmetic runs.
    /// `f64::INFINITY` when a bound cannot be found.
    pub fn estimate(&mut self, insts: &[Inst]) -> f64 {
        let mut total = 0.0;
        for inst in insts {
            total += 1.0;
            match inst {
                Inst::For {
                    lower,
                    upper,
                    step,
                    iv,
                    inits,
                    carried,
                    body,
                    results,
                    ..
                } => {
                    let (Ok(lo), Ok(hi)) = (self.bound(lower, true), self.bound(upper, false))
                    else {
                        return f64::INFINITY;
                    };
                    let trips = if hi > lo {
                        ((hi - lo) as u64).div_ceil(*step as u64) as i64
                    } else {
                        0
                    };
                    self.set(*iv, Value::Scalar(Scalar::Int(lo + trips / 2 * step)));
                    for (&c, &s) in carried.iter().zip(inits) {
                        let v = self.get(s).clone();
                        self.set(c, v);
                    }
                    total += trips as f64 * self.estimate(body);
                    for (&r, &c) in results.iter().zip(carried) {
                        let v = self.get(c).clone();
                        self.set(r, v);
                    }
                }
                Inst::Parallel { dims, ivs, body } => {
                    let mut trips = 1.0;
                    for (d, &iv) in dims.iter().zip(ivs) {
                        let (Ok(lo), Ok(hi)) =
                            (self.bound(&d.lower, true), self.bound(&d.upper, false))
                        else {
                            return f64::INFINITY;
                        };
                        let n = if hi > lo {
                            ((hi - lo) as u64).div_ceil(d.step.max(1) as u64) as i64
                        } else {
                            0
                        };
                        trips *= n as f64;
                        self.set(iv, Value::Scalar(Scalar::Int(lo + n / 2 * d.step)));
                    }
                    total += trips * self.estimate(body);
                }
                Inst::If {
                    then, els, results, ..
                } => {
                    total += self.estimate(&then.0).max(self.estimate(&els.0));
                    for (&r, &y) in results.iter().zip(&then.1) {
                        let v = self.get(y).clone();
                        self.set(r, v);
                    }
                }
                Inst::Load { lanes, result, .. } => {
                    let zero = Scalar::Int(0);
                    let v = match lanes {
                        None => Value::Scalar(zero),
                        Some(n) => Value::Lanes(vec![zero; *n]),
                    };
                    self.set(*result, v);
                }
                Inst::Store { .. } => {}
                _ => {
                    if self.step(inst).is_err() {
                        return f64::INFINITY;
                    }
                }
            }
        }
        total
    }

    /// Runs the instructions.
    pub fn run(&mut self, insts: &[Inst]) -> Result<(), Stop> {
        for i in insts {
            self.step(i)?;
        }
        Ok(())
    }

    fn get(&self, s: Slot) -> &Value {
        &self.regs[s as usize]
    }

    fn set(&mut self, s: Slot, v: Value) {
        self.regs[s as usize] = v;
    }

    fn int(&self, s: Slot) -> Result<i64, Stop> {
        match self.get(s) {
            Value::Scalar(Scalar::Int(k)) => Ok(*k),
            Value::Scalar(Scalar::Sym(_)) => Err(skip("an index or bound computed from memory")),
            v => Err(skip(format!("an integer expected, found {v:?}"))),
        }
    }

    fn ints(&self, slots: &[Slot]) -> Result<Vec<i64>, Stop> {
        slots.iter().map(|&s| self.int(s)).collect()
    }

    fn affine(&self, a: &Affine) -> Result<Vec<i64>, Stop> {
        let vals = self.ints(&a.args)?;
        a.exprs.iter().map(|e| eval(e, &vals)).collect()
    }

    /// The cell an access reaches, without allocating.
    fn cell(&self, index: &Index) -> Result<Cell, Stop> {
        const N: usize = 16;
        let mut out = [0i64; Cell::MAX_RANK];
        let rank = match index {
            Index::Map(a) => {
                if a.args.len() > N || a.exprs.len() > Cell::MAX_RANK {
                    return Cell::new(&self.affine(a)?)
                        .ok_or_else(|| skip("an array of rank above 6"));
                }
                let mut vals = [0i64; N];
                for (v, &s) in vals.iter_mut().zip(&a.args) {
                    *v = self.int(s)?;
                }
                for (o, e) in out.iter_mut().zip(&a.exprs) {
                    *o = eval(e, &vals[..a.args.len()])?;
                }
                a.exprs.len()
            }
            Index::Direct(slots) => {
                if slots.len() > Cell::MAX_RANK {
                    return Err(skip("an array of rank above 6"));
                }
                for (o, &s) in out.iter_mut().zip(slots) {
                    *o = self.int(s)?;
                }
                slots.len()
            }
        };
        Cell::new(&out[..rank]).ok_or_else(|| skip("an array of rank above 6"))
    }

    /// A bound: the max (lower) or min (upper) of a map's results.
    fn bound(&self, a: &Affine, lower: bool) -> Result<i64, Stop> {
        let vals = self.ints(&a.args)?;
        let mut out: Option<i64> = None;
        for e in &a.exprs {
            let v = eval(e, &vals)?;
            out = Some(match out {
                None => v,
                Some(o) if lower => o.max(v),
                Some(o) => o.min(v),
            });
        }
        out.ok_or_else(|| skip("a loop without bounds"))
    }

    fn buffer(&self, s: Slot) -> Result<u32, Stop> {
        match self.get(s) {
            Value::Buffer(b) => Ok(*b),
            v => Err(skip(format!("a memref expected, found {v:?}"))),
        }
    }

    fn tick(&mut self) -> Result<(), Stop> {
        self.steps += 1;
        if self.steps > self.limit {
            return Err(Stop::Budget(format!(
                "more than {} operations to interpret",
                self.limit
            )));
        }
        Ok(())
    }

    /// Records an access for the race check of the parallel loops around.
    fn touch(&mut self, buffer: u32, cell: Cell, write: bool) -> Result<(), Stop> {
        for f in &mut self.parallel {
            let it = f.iteration;
            let t = f.touched.entry((buffer, cell)).or_insert(Touch {
                writer: None,
                reader: None,
            });
            let clash = match (t.writer, t.reader) {
                (Some(w), _) if w != it => true,
                (_, Some(r)) if write && r != it => true,
                _ => false,
            };
            if clash {
                let name = self
                    .names
                    .get(buffer as usize)
                    .map_or("a buffer", String::as_str);
                return Err(Stop::Race(format!(
                    "two iterations of a parallel loop access {name}{} and one of them writes it",
                    cell.text()
                )));
            }
            if write {
                t.writer = Some(it);
            } else {
                t.reader = match t.reader {
                    None => Some(it),
                    Some(r) if r == it => Some(r),
                    Some(_) => Some(u64::MAX),
                };
            }
        }
        Ok(())
    }

    fn load_cell(&mut self, buffer: u32, cell: Cell) -> Result<Scalar, Stop> {
        if !self.parallel.is_empty() {
            self.touch(buffer, cell, false)?;
        }
        let b = &self.memory.buffers[buffer as usize];
        if let Some(v) = b.cells.get(&cell) {
            return Ok(*v);
        }
        let array = b.array;
        let id = self.exprs.cell(cell);
        let node = match array {
            Some(array) => Node::Init { array, cell: id },
            None => Node::Undef { buffer, cell: id },
        };
        Ok(Scalar::Sym(self.exprs.intern(node)))
    }

    fn store_cell(&mut self, buffer: u32, cell: Cell, v: Scalar) -> Result<(), Stop> {
        if !self.parallel.is_empty() {
            self.touch(buffer, cell, true)?;
        }
        self.memory.buffers[buffer as usize].cells.insert(cell, v);
        Ok(())
    }

    /// The cell `k` elements after `cell` along the last dimension.
    fn lane_cell(cell: Cell, k: usize) -> Result<Cell, Stop> {
        cell.along_last(k as i64)
            .ok_or_else(|| skip("a vector access of a 0-d memref"))
    }

    fn scalars(&self, s: Slot) -> Result<Vec<Scalar>, Stop> {
        match self.get(s) {
            Value::Scalar(x) => Ok(vec![*x]),
            Value::Lanes(v) => Ok(v.clone()),
            v => Err(skip(format!("a value expected, found {v:?}"))),
        }
    }

    fn step(&mut self, inst: &Inst) -> Result<(), Stop> {
        self.tick()?;
        match inst {
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
            } => {
                let lo = self.bound(lower, true)?;
                let hi = self.bound(upper, false)?;
                // The carried values go from slot to slot: the inits into
                // the body's arguments, each iteration's yields into them
                // again, the last into the results.
                for (&c, &s) in carried.iter().zip(inits) {
                    let v = self.get(s).clone();
                    self.set(c, v);
                }
                let mut i = lo;
                while i < hi {
                    self.set(*iv, Value::Scalar(Scalar::Int(i)));
                    self.run(body)?;
                    for (&c, &y) in carried.iter().zip(yields) {
                        let v = self.get(y).clone();
                        self.set(c, v);
                    }
                    i = i
                        .checked_add(*step)
                        .ok_or_else(|| skip("loop counter overflows"))?;
                }
                for (&r, &c) in results.iter().zip(carried) {
                    let v = self.get(c).clone();
                    self.set(r, v);
                }
            }
            Inst::Parallel { dims, ivs, body } => {
                let mut ranges = Vec::new();
                for d in dims {
                    let lo = self.bound(&d.lower, true)?;
                    let hi = self.bound(&d.upper, false)?;
                    if d.step < 1 {
                        return Err(skip("a parallel step below 1"));
                    }
                    ranges.push((lo, hi, d.step));
                }
                if ranges.iter().any(|&(lo, hi, _)| lo >= hi) {
                    return Ok(());
                }
                self.parallel.push(ParallelFrame {
                    iteration: 0,
                    touched: FxMap::default(),
                });
                let mut point: Vec<i64> = ranges.iter().map(|r| r.0).collect();
                let result = (|| -> Result<(), Stop> {
                    loop {
                        for (&s, &v) in ivs.iter().zip(&point) {
                            self.set(s, Value::Scalar(Scalar::Int(v)));
                        }
                        self.run(body)?;
                        if let Some(f) = self.parallel.last_mut() {
                            f.iteration += 1;
                        }
                        // The next point, the last dimension fastest.
                        let mut k = point.len();
                        loop {
                            if k == 0 {
                                return Ok(());
                            }
                            k -= 1;
                            point[k] += ranges[k].2;
                            if point[k] < ranges[k].1 {
                                break;
                            }
                            point[k] = ranges[k].0;
                        }
                    }
                })();
                self.parallel.pop();
                result?;
            }
            Inst::If {
                conds,
                args,
                then,
                els,
                results,
            } => {
                let vals = self.ints(args)?;
                let mut holds = true;
                for (e, eq) in conds {
                    let v = eval(e, &vals)?;
                    if (*eq && v != 0) || (!*eq && v < 0) {
                        holds = false;
                        break;
                    }
                }
                let (body, yields) = if holds { then } else { els };
                self.run(body)?;
                let values: Vec<Value> = yields.iter().map(|&s| self.get(s).clone()).collect();
                for (&r, v) in results.iter().zip(values) {
                    self.set(r, v);
                }
            }
            Inst::Apply { map, fold, result } => {
                let vals = self.affine(map)?;
                let v = match fold {
                    None => vals.first().copied(),
                    Some(true) => vals.iter().copied().max(),
                    Some(false) => vals.iter().copied().min(),
                }
                .ok_or_else(|| skip("a map without results"))?;
                self.set(*result, Value::Scalar(Scalar::Int(v)));
            }
            Inst::Load {
                mem,
                index,
                lanes,
                result,
            } => {
                let b = self.buffer(*mem)?;
                let cell = self.cell(index)?;
                let v = match lanes {
                    None => Value::Scalar(self.load_cell(b, cell)?),
                    Some(n) => {
                        let mut out = Vec::with_capacity(*n);
                        for k in 0..*n {
                            let c = Self::lane_cell(cell, k)?;
                            out.push(self.load_cell(b, c)?);
                        }
                        Value::Lanes(out)
                    }
                };
                self.set(*result, v);
            }
            Inst::Store {
                value,
                mem,
                index,
                lanes,
            } => {
                let b = self.buffer(*mem)?;
                let cell = self.cell(index)?;
                match (lanes, self.get(*value)) {
                    (None, Value::Scalar(v)) => {
                        let v = *v;
                        self.store_cell(b, cell, v)?;
                    }
                    (Some(n), Value::Lanes(vals)) if vals.len() == *n => {
                        let vals = vals.clone();
                        for (k, v) in vals.into_iter().enumerate() {
                            let c = Self::lane_cell(cell, k)?;
                            self.store_cell(b, c, v)?;
                        }
                    }
                    _ => return Err(skip("a store of a value of another shape")),
                }
            }
            Inst::Alloc { result } => {
                let id = self.memory.buffers.len() as u32;
                self.memory.buffers.push(Buffer::default());
                self.names.push(format!("buffer{id}"));
                self.set(*result, Value::Buffer(id));
            }
            Inst::Dim {
                mem,
                dim,
                shape,
                result,
            } => {
                self.buffer(*mem)?;
                let d = self.int(*dim)?;
                let size = usize::try_from(d)
                    .ok()
                    .and_then(|d| shape.get(d))
                    .ok_or_else(|| skip("memref.dim out of range"))?
                    .unwrap_or(self.dynamic_size);
                self.set(*result, Value::Scalar(Scalar::Int(size)));
            }
            Inst::Same { src, result } => {
                let v = self.get(*src).clone();
                self.set(*result, v);
            }
            Inst::Pure {
                op,
                args,
                result,
                ty,
                arg_ty,
            } => {
                let v = self.pure(op, args, ty, arg_ty)?;
                self.set(*result, v);
            }
        }
        Ok(())
    }

    fn pure(&mut self, op: &Pure, args: &[Slot], ty: &str, arg_ty: &str) -> Result<Value, Stop> {
        // The common case first: a scalar operation of scalars.
        if let (Pure::Op(name, id), true) = (op, args.len() <= 3) {
            let mut xs = [Scalar::Int(0); 3];
            let mut scalar = true;
            for (x, &a) in xs.iter_mut().zip(args) {
                match self.get(a) {
                    Value::Scalar(v) => *x = *v,
                    _ => scalar = false,
                }
            }
            if scalar {
                return Ok(Value::Scalar(self.scalar_op(
                    name,
                    *id,
                    &xs[..args.len()],
                    ty,
                    arg_ty,
                )?));
            }
        }
        let single = single_precision(ty).unwrap_or(false);
        Ok(match op {
            Pure::Const(c) => constant_value(c, self.exprs),
            Pure::Broadcast(n) => {
                let [x] = self.scalars(args[0])?[..] else {
                    return Err(skip("a broadcast of a vector"));
                };
                Value::Lanes(vec![x; *n])
            }
            Pure::FromElements => {
                let mut out = Vec::new();
                for &a in args {
                    out.extend(self.scalars(a)?);
                }
                Value::Lanes(out)
            }
            Pure::Shuffle(mask) => {
                let mut all = self.scalars(args[0])?;
                all.extend(self.scalars(args[1])?);
                let lanes: Option<Vec<Scalar>> = mask
                    .iter()
                    .map(|&m| usize::try_from(m).ok().and_then(|m| all.get(m).copied()))
                    .collect();
                Value::Lanes(lanes.ok_or_else(|| skip("a shuffle mask out of range"))?)
            }
            Pure::Extract(p) => {
                let v = self.scalars(args[0])?;
                Value::Scalar(*v.get(*p).ok_or_else(|| skip("an extract out of range"))?)
            }
            Pure::Insert(p) => {
                let [x] = self.scalars(args[0])?[..] else {
                    return Err(skip("an insert of a vector"));
                };
                let mut v = self.scalars(args[1])?;
                *v.get_mut(*p)
                    .ok_or_else(|| skip("an insert out of range"))? = x;
                Value::Lanes(v)
            }
            Pure::Op(name, id) => {
                let vals: Vec<Value> = args.iter().map(|&a| self.get(a).clone()).collect();
                let lanes = vals.iter().find_map(|v| match v {
                    Value::Lanes(l) => Some(l.len()),
                    _ => None,
                });
                let elem_ty = if ty.starts_with("vector<") {
                    if single {
                        "f32"
                    } else {
                        "f64"
                    }
                } else {
                    ty
                };
                match lanes {
                    None => {
                        let xs: Vec<Scalar> = vals
                            .iter()
                            .map(|v| match v {
                                Value::Scalar(s) => Ok(*s),
                                v => Err(skip(format!("a scalar expected, found {v:?}"))),
                            })
                            .collect::<Result<_, _>>()?;
                        Value::Scalar(self.scalar_op(name, *id, &xs, elem_ty, arg_ty)?)
                    }
                    Some(n) => {
                        let mut out = Vec::with_capacity(n);
                        for k in 0..n {
                            let xs: Vec<Scalar> = vals
                                .iter()
                                .map(|v| match v {
                                    Value::Lanes(l) if l.len() == n => Ok(l[k]),
                                    Value::Scalar(s) => Ok(*s),
                                    _ => Err(skip("vectors of different widths")),
                                })
                                .collect::<Result<_, _>>()?;
                            out.push(self.scalar_op(name, *id, &xs, elem_ty, arg_ty)?);
                        }
                        Value::Lanes(out)
                    }
                }
            }
        })
    }

    /// One scalar operation: integer arithmetic on concrete integers is
    /// computed (it may index memory), everything else is symbolic.
    fn scalar_op(
        &mut self,
        name: &str,
        id: u32,
        xs: &[Scalar],
        ty: &str,
        arg_ty: &str,
    ) -> Result<Scalar, Stop> {
        if xs.iter().all(|x| matches!(x, Scalar::Int(_))) {
            let mut k = [0i64; 3];
            for (o, x) in k.iter_mut().zip(xs) {
                if let Scalar::Int(v) = x {
                    *o = *v;
                }
            }
            if let Some(v) = int_op(name, &k[..xs.len()], width(ty), width(arg_ty)) {
                return Ok(Scalar::Int(v));
            }
            // Conversions of concrete integers to floats fold to constants
            // (as MLIR folds them): from the unsigned value of the
            // source's bits for uitofp.
            if let ("arith.uitofp", [k], Some(w)) = (name, &k[..xs.len()], width(arg_ty)) {
                let sitofp = self.exprs.name("arith.sitofp");
                let u = Scalar::Int(unsigned(*k, w) as i64);
                return self
                    .exprs
                    .op(sitofp, &[u], single_precision(ty))
                    .ok_or_else(|| skip("uitofp"));
            }
        }
        self.exprs
            .op(id, xs, single_precision(ty))
            .ok_or_else(|| skip(format!("'{name}' of more than three operands")))
    }
}

/// The value of a constant.
pub fn constant_value(c: &Constant, exprs: &mut Exprs) -> Value {
    match c {
        Constant::Int(k) => Value::Scalar(Scalar::Int(*k)),
        Constant::Float(v, s) => Value::Scalar(Scalar::Sym(exprs.float(*v, *s))),
        Constant::Floats(vs, s) => Value::Lanes(
            vs.iter()
                .map(|&v| Scalar::Sym(exprs.float(v, *s)))
                .collect(),
        ),
        Constant::Ints(ks) => Value::Lanes(ks.iter().map(|&k| Scalar::Int(k)).collect()),
    }
}

/// The bit width of an integer type's text (`index`: 64); `None` for
/// anything else.
fn width(ty: &str) -> Option<u32> {
    if ty == "index" {
        return Some(64);
    }
    ty.strip_prefix('i')
        .and_then(|w| w.parse().ok())
        .filter(|&w| (1..=64).contains(&w))
}

/// The signed value of the low `w` bits of `k` (concrete integers are kept
/// as the signed value of their bits in their type).
fn wrap(k: i64, w: u32) -> i64 {
    if w >= 64 {
        k
    } else {
        let s = 64 - w;
        (k << s) >> s
    }
}

/// The unsigned value of the low `w` bits of `k`.
fn unsigned(k: i64, w: u32) -> u64 {
    if w >= 64 {
        k as u64
    } else {
        (k as u64) & ((1u64 << w) - 1)
    }
}

/// Integer operations on concrete values in their types' widths (`w`: the
/// result's, `src`: the first operand's); `None` for anything else, a
/// division by zero or an overflowing signed division.
fn int_op(name: &str, k: &[i64], w: Option<u32>, src: Option<u32>) -> Option<i64> {
    let pred = name.strip_prefix("arith.cmpi ");
    if let (Some(p), [a, b], Some(sw)) = (pred, k, src) {
        let (ua, ub) = (unsigned(*a, sw), unsigned(*b, sw));
        let r = match p {
            "eq" => a == b,
            "ne" => a != b,
            "slt" => a < b,
            "sle" => a <= b,
            "sgt" => a > b,
            "sge" => a >= b,
            "ult" => ua < ub,
            "ule" => ua <= ub,
            "ugt" => ua > ub,
            "uge" => ua >= ub,
            _ => return None,
        };
        // i1: true is the signed value -1.
        return Some(-i64::from(r));
    }
    let w = w?;
    let r = match (name, k) {
        ("arith.addi", [a, b]) => a.wrapping_add(*b),
        ("arith.subi", [a, b]) => a.wrapping_sub(*b),
        ("arith.muli", [a, b]) => a.wrapping_mul(*b),
        ("arith.divsi", [a, b]) => a.checked_div(*b)?,
        ("arith.remsi", [a, b]) => a.checked_rem(*b)?,
        ("arith.divui", [a, b]) => unsigned(*a, w).checked_div(unsigned(*b, w))? as i64,
        ("arith.remui", [a, b]) => unsigned(*a, w).checked_rem(unsigned(*b, w))? as i64,
        ("arith.floordivsi", [a, b]) => {
            let q = a.checked_div(*b)?;
            if a % b != 0 && ((*a < 0) != (*b < 0)) {
                q - 1
            } else {
                q
            }
        }
        ("arith.ceildivsi", [a, b]) => {
            let q = a.checked_div(*b)?;
            if a % b != 0 && ((*a < 0) == (*b < 0)) {
                q + 1
            } else {
                q
            }
        }
        ("arith.maxsi", [a, b]) => *a.max(b),
        ("arith.minsi", [a, b]) => *a.min(b),
        ("arith.maxui", [a, b]) => unsigned(*a, w).max(unsigned(*b, w)) as i64,
        ("arith.minui", [a, b]) => unsigned(*a, w).min(unsigned(*b, w)) as i64,
        ("arith.andi", [a, b]) => a & b,
        ("arith.ori", [a, b]) => a | b,
        ("arith.xori", [a, b]) => a ^ b,
        ("arith.select", [c, a, b]) => {
            if *c != 0 {
                *a
            } else {
                *b
            }
        }
        ("arith.extsi" | "arith.trunci" | "arith.index_cast", [a]) => *a,
        ("arith.extui" | "arith.index_castui", [a]) => unsigned(*a, src?) as i64,
        _ => return None,
    };
    Some(wrap(r, w))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn affine_division_rounds_down() {
        let e = AExpr::FloorDiv(Box::new(AExpr::Input(0)), Box::new(AExpr::Const(2)));
        assert_eq!(eval(&e, &[-3]).ok(), Some(-2));
        let e = AExpr::CeilDiv(Box::new(AExpr::Input(0)), Box::new(AExpr::Const(2)));
        assert_eq!(eval(&e, &[-3]).ok(), Some(-1));
        assert_eq!(eval(&e, &[3]).ok(), Some(2));
        let e = AExpr::Mod(Box::new(AExpr::Input(0)), Box::new(AExpr::Const(3)));
        assert_eq!(eval(&e, &[-1]).ok(), Some(2));
    }

    #[test]
    fn integer_semantics() {
        let i64w = Some(64);
        // arith.floordivsi and ceildivsi round toward -inf and +inf.
        assert_eq!(int_op("arith.floordivsi", &[-7, 2], i64w, i64w), Some(-4));
        assert_eq!(int_op("arith.floordivsi", &[7, -2], i64w, i64w), Some(-4));
        assert_eq!(int_op("arith.floordivsi", &[7, 2], i64w, i64w), Some(3));
        assert_eq!(int_op("arith.ceildivsi", &[7, 2], i64w, i64w), Some(4));
        assert_eq!(int_op("arith.ceildivsi", &[-7, 2], i64w, i64w), Some(-3));
        assert_eq!(int_op("arith.divsi", &[-7, 2], i64w, i64w), Some(-3));
        // i1 true is -1; comparisons read their operands' width.
        assert_eq!(int_op("arith.cmpi slt", &[1, 2], Some(1), i64w), Some(-1));
        assert_eq!(
            int_op("arith.cmpi ult", &[-1, 2], Some(1), Some(8)),
            Some(0)
        );
        // Widths: i8 wraps, trunci keeps the low bits, extui zero-extends.
        assert_eq!(
            int_op("arith.addi", &[127, 1], Some(8), Some(8)),
            Some(-128)
        );
        assert_eq!(int_op("arith.trunci", &[300], Some(8), i64w), Some(44));
        assert_eq!(int_op("arith.extui", &[-1], Some(32), Some(1)), Some(1));
        assert_eq!(int_op("arith.extsi", &[-1], Some(32), Some(1)), Some(-1));
    }
}
