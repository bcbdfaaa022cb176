//! Symbolic values of the interpreter: floating-point (and integer data)
//! computations as hash-consed expression trees over the initial cells of
//! the arrays, so that two runs that compute the same values, in the same
//! way, give the same expression ids.
//!
//! Bit-exactness is the contract of `poly-opt` (unless `contract=true`, and
//! fused multiply-adds come from LLVM, after this check), so two results
//! agree exactly when they are the same tree of operations over the same
//! inputs. The trees are normalized only where the IEEE result is the same
//! whatever the form, and where MLIR's folders (run on the emitted code by
//! the affine simplification, not on the input) may change the form:
//!
//! * the operands of commutative operations (`a + b` and `b + a` round
//!   alike) are sorted;
//! * operations of constants are folded (`2.0 * 0.5`, `sitofp 3`), as
//!   `arith`'s folders do, in the precision of the result type;
//! * `x * 1.0`, `x / 1.0`, `x + -0.0` and `x - 0.0` are `x`, and
//!   `-(-x)` is `x`: the folders of `arith.mulf`, `divf`, `addf`, `subf`
//!   and `negf`.
//!
//! Integers that index memory are concrete (`Scalar::Int`): the SCoP's
//! iterators and parameters take values. Integers read from memory, or
//! computed from such, are symbolic like floats.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::rc::Rc;

/// A fast hasher for the interpreter's small keys (FxHash, as in rustc):
/// the maps are probed once or twice per interpreted operation.
#[derive(Default, Clone, Copy)]
pub struct Fx(u64);

impl Hasher for Fx {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut b = [0u8; 8];
            b[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(b));
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }

    fn write_u8(&mut self, n: u8) {
        self.write_u64(u64::from(n));
    }

    fn write_u32(&mut self, n: u32) {
        self.write_u64(u64::from(n));
    }

    fn write_i64(&mut self, n: i64) {
        self.write_u64(n as u64);
    }

    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// A hash map with [`Fx`].
pub type FxMap<K, V> = HashMap<K, V, BuildHasherDefault<Fx>>;

/// A cell's subscripts (arrays of rank up to [`Cell::MAX_RANK`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Cell {
    rank: u8,
    idx: [i64; Cell::MAX_RANK],
}

impl Cell {
    /// The largest rank the interpreter follows.
    pub const MAX_RANK: usize = 6;

    /// The cell of `idx`; `None` past [`Cell::MAX_RANK`].
    pub fn new(idx: &[i64]) -> Option<Cell> {
        if idx.len() > Self::MAX_RANK {
            return None;
        }
        let mut c = Cell {
            rank: idx.len() as u8,
            idx: [0; Self::MAX_RANK],
        };
        c.idx[..idx.len()].copy_from_slice(idx);
        Some(c)
    }

    /// The subscripts.
    pub fn subscripts(&self) -> &[i64] {
        &self.idx[..self.rank as usize]
    }

    /// The cell `k` elements further along the last dimension.
    pub fn along_last(&self, k: i64) -> Option<Cell> {
        let mut c = *self;
        let last = c.idx[..c.rank as usize].last_mut()?;
        *last = last.checked_add(k)?;
        Some(c)
    }

    /// `[i][j]` text.
    pub fn text(&self) -> String {
        self.subscripts().iter().map(|k| format!("[{k}]")).collect()
    }
}

/// The operands of an operation node: up to three inline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Args {
    n: u8,
    ids: [ExprId; 3],
}

impl Args {
    fn as_slice(&self) -> &[ExprId] {
        &self.ids[..self.n as usize]
    }
}

/// An expression's id in [`Exprs`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ExprId(u32);

/// One node of an expression tree.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Node {
    /// The initial value of a cell of an array of the SCoP.
    Init {
        /// The array (an index into the validator's table of arrays).
        array: u32,
        /// The cell ([`Exprs::cell`]).
        cell: u32,
    },
    /// A cell of a buffer the code allocated itself, read before any store.
    Undef {
        /// The buffer.
        buffer: u32,
        /// The cell ([`Exprs::cell`]).
        cell: u32,
    },
    /// A value defined outside the code (a function argument, a value
    /// computed before it), by its SSA value's key.
    Input(usize),
    /// A floating-point constant: its bits, and whether it is an `f32`.
    Float {
        /// The IEEE bits (an `f32`'s in the low 32).
        bits: u64,
        /// Single precision.
        single: bool,
    },
    /// An integer constant used as data.
    Int(i64),
    /// An operation (its name and the attributes that matter, e.g. a
    /// comparison's predicate: [`Exprs::name`]) of its operands.
    Op {
        /// `arith.addf`, `arith.cmpf 4`, ... by its id.
        name: u32,
        /// The operands.
        args: Args,
    },
}

/// A scalar value: a concrete integer, or a symbolic expression.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scalar {
    /// A concrete integer (index arithmetic, loop counters, parameters).
    Int(i64),
    /// A symbolic value.
    Sym(ExprId),
}

/// The hash-consed expression arena shared by the two runs compared.
#[derive(Default)]
pub struct Exprs {
    nodes: Vec<Node>,
    ids: FxMap<Node, ExprId>,
    names: Vec<Rc<str>>,
    name_ids: HashMap<String, u32>,
    cells: Vec<Cell>,
    cell_ids: FxMap<Cell, u32>,
}

/// Operations whose operands may be swapped without changing the result.
const COMMUTATIVE: &[&str] = &[
    "arith.addf",
    "arith.mulf",
    "arith.addi",
    "arith.muli",
    "arith.andi",
    "arith.ori",
    "arith.xori",
    "arith.maximumf",
    "arith.minimumf",
    "arith.maxnumf",
    "arith.minnumf",
    "arith.maxsi",
    "arith.minsi",
    "arith.maxui",
    "arith.minui",
];

/// The precision of a float type's text: `Some(true)` for `f32`,
/// `Some(false)` for `f64`, `None` for anything else.
pub fn single_precision(ty: &str) -> Option<bool> {
    let elem = ty
        .strip_prefix("vector<")
        .and_then(|t| t.rsplit('x').next())
        .map(|t| t.trim_end_matches('>'))
        .unwrap_or(ty);
    match elem {
        "f32" => Some(true),
        "f64" => Some(false),
        _ => None,
    }
}

impl Exprs {
    /// The id of an operation's name (with its attributes that matter).
    pub fn name(&mut self, name: &str) -> u32 {
        if let Some(&k) = self.name_ids.get(name) {
            return k;
        }
        let k = self.names.len() as u32;
        self.names.push(name.into());
        self.name_ids.insert(name.to_string(), k);
        k
    }

    /// The id of a cell (nodes name cells by it, to stay small).
    pub fn cell(&mut self, cell: Cell) -> u32 {
        if let Some(&k) = self.cell_ids.get(&cell) {
            return k;
        }
        let k = self.cells.len() as u32;
        self.cells.push(cell);
        self.cell_ids.insert(cell, k);
        k
    }

    /// The initial value of `cell` of array `array`.
    pub fn init(&mut self, array: u32, cell: Cell) -> ExprId {
        let cell = self.cell(cell);
        self.intern(Node::Init { array, cell })
    }

    /// The id of `node`, interned.
    pub fn intern(&mut self, node: Node) -> ExprId {
        if let Some(&id) = self.ids.get(&node) {
            return id;
        }
        let id = ExprId(self.nodes.len() as u32);
        self.nodes.push(node.clone());
        self.ids.insert(node, id);
        id
    }

    /// The node of `id`.
    pub fn node(&self, id: ExprId) -> &Node {
        &self.nodes[id.0 as usize]
    }

    /// A floating-point constant.
    pub fn float(&mut self, value: f64, single: bool) -> ExprId {
        let bits = if single {
            u64::from((value as f32).to_bits())
        } else {
            value.to_bits()
        };
        self.intern(Node::Float { bits, single })
    }

    /// The value of a float constant node.
    fn float_value(&self, s: Scalar) -> Option<(f64, bool)> {
        match s {
            Scalar::Sym(id) => match self.node(id) {
                Node::Float { bits, single: true } => {
                    Some((f64::from(f32::from_bits(*bits as u32)), true))
                }
                Node::Float {
                    bits,
                    single: false,
                } => Some((f64::from_bits(*bits), false)),
                _ => None,
            },
            Scalar::Int(_) => None,
        }
    }

    /// `s` as an expression (a concrete integer becomes an [`Node::Int`]).
    pub fn sym(&mut self, s: Scalar) -> ExprId {
        match s {
            Scalar::Sym(id) => id,
            Scalar::Int(k) => self.intern(Node::Int(k)),
        }
    }

    /// The operation `name` (its id: [`Exprs::name`]) of `args`,
    /// normalized (see the module text); `single`: the precision of a float
    /// result (`None`: not a float). `None` for more than three operands.
    pub fn op(&mut self, name: u32, args: &[Scalar], single: Option<bool>) -> Option<Scalar> {
        if args.len() > 3 {
            return None;
        }
        let text = Rc::clone(&self.names[name as usize]);
        Some(self.op_named(name, &text, args, single))
    }

    fn op_named(&mut self, id: u32, name: &str, given: &[Scalar], single: Option<bool>) -> Scalar {
        let mut buf = [Scalar::Int(0); 3];
        buf[..given.len()].copy_from_slice(given);
        let args = &mut buf[..given.len()];
        if COMMUTATIVE.contains(&name) && args.len() == 2 {
            // Constants to the right (as MLIR's folders put them), the
            // rest in a fixed order.
            let key = |e: &Exprs, s: &Scalar| -> (bool, i64) {
                let constant = e.float_value(*s).is_some() || matches!(s, Scalar::Int(_));
                let order = match s {
                    Scalar::Int(k) => *k,
                    Scalar::Sym(id) => i64::from(id.0),
                };
                (constant, order)
            };
            if key(self, &args[1]) < key(self, &args[0]) {
                args.swap(0, 1);
            }
        }
        if let Some(v) = self.fold(id, name, args, single) {
            return v;
        }
        let mut ids = Args {
            n: args.len() as u8,
            ids: [ExprId(0); 3],
        };
        for (k, &a) in args.iter().enumerate() {
            ids.ids[k] = self.sym(a);
        }
        Scalar::Sym(self.intern(Node::Op {
            name: id,
            args: ids,
        }))
    }

    /// The folds of the module text; `None` when none applies.
    fn fold(
        &mut self,
        id: u32,
        name: &str,
        args: &[Scalar],
        single: Option<bool>,
    ) -> Option<Scalar> {
        let round = |v: f64, s: bool| if s { f64::from(v as f32) } else { v };
        let mut values = [(0.0, false); 3];
        let mut all = true;
        for (k, &a) in args.iter().enumerate() {
            match self.float_value(a) {
                Some(v) => values[k] = v,
                None => all = false,
            }
        }
        let consts = all.then_some(&values[..args.len()]);
        if let ("arith.sitofp", [Scalar::Int(k)]) = (name, args) {
            let s = single?;
            let v = if s { f64::from(*k as f32) } else { *k as f64 };
            return Some(Scalar::Sym(self.float(v, s)));
        }
        if let (Some(c), Some(s)) = (consts, single) {
            let v = match (name, c) {
                ("arith.addf", [(a, _), (b, _)]) => Some(a + b),
                ("arith.subf", [(a, _), (b, _)]) => Some(a - b),
                ("arith.mulf", [(a, _), (b, _)]) => Some(a * b),
                ("arith.divf", [(a, _), (b, _)]) => Some(a / b),
                ("arith.negf", [(a, _)]) => Some(-a),
                ("math.sqrt", [(a, _)]) => Some(if s {
                    f64::from((*a as f32).sqrt())
                } else {
                    a.sqrt()
                }),
                ("math.absf", [(a, _)]) => Some(a.abs()),
                ("arith.extf" | "arith.truncf", [(a, _)]) => Some(*a),
                _ => None,
            };
            if let Some(v) = v {
                // f32 arithmetic on values exactly representable in f64:
                // the double result rounded once to f32 is the f32 result
                // for +, -, * and / (the double has over 2·24+2 bits).
                return Some(Scalar::Sym(self.float(round(v, s), s)));
            }
        }
        let is = |e: &Exprs, s: Scalar, want: f64| -> bool {
            e.float_value(s)
                .is_some_and(|(v, _)| v == want && v.is_sign_negative() == want.is_sign_negative())
        };
        match (name, args) {
            ("arith.mulf" | "arith.divf", [x, y]) if is(self, *y, 1.0) => Some(*x),
            ("arith.addf", [x, y]) if is(self, *y, -0.0) => Some(*x),
            ("arith.subf", [x, y]) if is(self, *y, 0.0) => Some(*x),
            // MLIR's folds of idempotent operations: max(x, x) is x.
            ("arith.maximumf" | "arith.minimumf" | "arith.maxnumf" | "arith.minnumf", [x, y])
                if x == y =>
            {
                Some(*x)
            }
            // MLIR's folds of an operand that changes nothing: maximum
            // with -inf, minimum with +inf, maxnum/minnum with NaN.
            ("arith.maximumf", [x, y]) | ("arith.maximumf", [y, x])
                if is(self, *y, f64::NEG_INFINITY) =>
            {
                Some(*x)
            }
            ("arith.minimumf", [x, y]) | ("arith.minimumf", [y, x])
                if is(self, *y, f64::INFINITY) =>
            {
                Some(*x)
            }
            ("arith.maxnumf" | "arith.minnumf", [x, y])
            | ("arith.maxnumf" | "arith.minnumf", [y, x])
                if self.float_value(*y).is_some_and(|(v, _)| v.is_nan()) =>
            {
                Some(*x)
            }
            ("arith.negf", [Scalar::Sym(x)]) => match self.node(*x) {
                Node::Op { name, args } if *name == id && args.n == 1 => {
                    Some(Scalar::Sym(args.ids[0]))
                }
                _ => None,
            },
            _ => None,
        }
    }

    /// A short text of `id` (at most `depth` levels), for diagnostics.
    pub fn text(&self, id: ExprId, depth: usize, arrays: &[String]) -> String {
        match self.node(id) {
            Node::Init { array, cell } => {
                let name = arrays.get(*array as usize).map_or("?", String::as_str);
                format!("{name}{}", self.cells[*cell as usize].text())
            }
            Node::Undef { cell, .. } => format!("undefined{}", self.cells[*cell as usize].text()),
            Node::Input(_) => "input".into(),
            Node::Float { bits, single } => {
                if *single {
                    format!("{}", f32::from_bits(*bits as u32))
                } else {
                    format!("{}", f64::from_bits(*bits))
                }
            }
            Node::Int(k) => k.to_string(),
            Node::Op { name, args } => {
                if depth == 0 {
                    return "…".into();
                }
                let name = self.names.get(*name as usize).map_or("?", |n| &**n);
                let short = name.rsplit('.').next().unwrap_or(name);
                let inner: Vec<String> = args
                    .as_slice()
                    .iter()
                    .map(|&a| self.text(a, depth - 1, arrays))
                    .collect();
                format!("{short}({})", inner.join(", "))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(e: &mut Exprs, name: &str, args: &[Scalar], ty: &str) -> Scalar {
        let id = e.name(name);
        e.op(id, args, single_precision(ty))
            .expect("at most three operands")
    }

    #[test]
    fn commutative_operands_are_sorted() {
        let mut e = Exprs::default();
        let a = Scalar::Sym(e.intern(Node::Input(1)));
        let b = Scalar::Sym(e.intern(Node::Input(2)));
        let ab = op(&mut e, "arith.addf", &[a, b], "f64");
        let ba = op(&mut e, "arith.addf", &[b, a], "f64");
        assert_eq!(ab, ba);
        // Subtraction is not commutative.
        let d1 = op(&mut e, "arith.subf", &[a, b], "f64");
        let d2 = op(&mut e, "arith.subf", &[b, a], "f64");
        assert_ne!(d1, d2);
    }

    #[test]
    fn folds_match_mlirs() {
        let mut e = Exprs::default();
        let x = Scalar::Sym(e.intern(Node::Input(7)));
        let one = Scalar::Sym(e.float(1.0, false));
        let two = Scalar::Sym(e.float(2.0, false));
        let half = Scalar::Sym(e.float(0.5, false));
        assert_eq!(op(&mut e, "arith.mulf", &[one, x], "f64"), x);
        assert_eq!(op(&mut e, "arith.divf", &[x, one], "f64"), x);
        assert_eq!(op(&mut e, "arith.mulf", &[two, half], "f64"), one);
        let neg_zero = Scalar::Sym(e.float(-0.0, false));
        let zero = Scalar::Sym(e.float(0.0, false));
        assert_eq!(op(&mut e, "arith.addf", &[x, neg_zero], "f64"), x);
        // x + 0.0 is not x (for x = -0.0): kept.
        assert_ne!(op(&mut e, "arith.addf", &[x, zero], "f64"), x);
        assert_eq!(op(&mut e, "arith.subf", &[x, zero], "f64"), x);
        // The identities of maxima and minima (partial results start there).
        let ninf = Scalar::Sym(e.float(f64::NEG_INFINITY, false));
        let inf = Scalar::Sym(e.float(f64::INFINITY, false));
        let nan = Scalar::Sym(e.float(f64::NAN, false));
        assert_eq!(op(&mut e, "arith.maximumf", &[x, ninf], "f64"), x);
        assert_eq!(op(&mut e, "arith.maximumf", &[ninf, x], "f64"), x);
        assert_eq!(op(&mut e, "arith.minimumf", &[inf, x], "f64"), x);
        assert_ne!(op(&mut e, "arith.minimumf", &[ninf, x], "f64"), x);
        assert_eq!(op(&mut e, "arith.maxnumf", &[x, nan], "f64"), x);
        assert_ne!(op(&mut e, "arith.maximumf", &[x, nan], "f64"), x);
        assert_eq!(op(&mut e, "arith.maximumf", &[x, x], "f64"), x);
        assert_ne!(op(&mut e, "arith.maximumf", &[x, one], "f64"), x);
        let n = op(&mut e, "arith.negf", &[x], "f64");
        assert_eq!(op(&mut e, "arith.negf", &[n], "f64"), x);
        let three = op(&mut e, "arith.sitofp", &[Scalar::Int(3)], "f64");
        assert_eq!(three, Scalar::Sym(e.float(3.0, false)));
        // f32 constants fold in single precision.
        let (a, b) = (
            Scalar::Sym(e.float(1.0, true)),
            Scalar::Sym(e.float(3.0, true)),
        );
        let third = op(&mut e, "arith.divf", &[a, b], "f32");
        assert_eq!(
            third,
            Scalar::Sym(e.float(f64::from(1.0f32 / 3.0f32), true))
        );
    }

    #[test]
    fn element_types() {
        assert_eq!(single_precision("f32"), Some(true));
        assert_eq!(single_precision("vector<8xf64>"), Some(false));
        assert_eq!(single_precision("index"), None);
    }

    #[test]
    fn cells() {
        let c = Cell::new(&[1, 2]).expect("rank 2");
        assert_eq!(c.subscripts(), &[1, 2]);
        assert_eq!(
            c.along_last(3).map(|c| c.text()),
            Some("[1][5]".to_string())
        );
        assert!(Cell::new(&[0; 7]).is_none());
        assert!(Cell::new(&[]).and_then(|c| c.along_last(1)).is_none());
    }
}
