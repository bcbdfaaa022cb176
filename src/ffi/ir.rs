//! Copyable read-only views of MLIR IR handles for the analyses.
//!
//! melior's typed references carry two lifetimes, which makes recursive
//! analyses over nested regions awkward; the analyses only read IR during one
//! pass run, so they use these plain handles instead. Invariant: a handle is
//! only used while the operation it was reached from is alive and unchanged —
//! the analyses never mutate IR.

use std::ffi::CStr;

use mlir_sys::*;

/// Returns the contents of an MLIR string reference.
fn string_ref(s: MlirStringRef) -> String {
    if s.data.is_null() {
        return String::new();
    }
    // SAFETY: MLIR string references point to `length` valid bytes.
    let bytes = unsafe { std::slice::from_raw_parts(s.data as *const u8, s.length) };
    String::from_utf8_lossy(bytes).into_owned()
}

fn str_ref(s: &CStr) -> MlirStringRef {
    MlirStringRef {
        data: s.as_ptr(),
        length: s.to_bytes().len(),
    }
}

/// An operation.
#[derive(Clone, Copy)]
pub struct Op(MlirOperation);

/// A location.
#[derive(Clone, Copy)]
pub struct Loc(MlirLocation);

/// An SSA value.
#[derive(Clone, Copy)]
pub struct Val(MlirValue);

impl std::fmt::Debug for Val {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Val({:#x})", self.key())
    }
}

/// A block.
#[derive(Clone, Copy)]
pub struct Block(MlirBlock);

/// A region.
#[derive(Clone, Copy)]
pub struct Region(MlirRegion);

/// An affine map.
#[derive(Clone, Copy)]
pub struct Map(MlirAffineMap);

/// An affine expression.
#[derive(Clone, Copy)]
pub struct Expr(MlirAffineExpr);

/// Block identity helpers.
impl Block {
    /// A key identifying this block.
    pub fn key(self) -> usize {
        self.0.ptr as usize
    }

    /// Wraps a raw block handle.
    pub fn from_raw(raw: MlirBlock) -> Self {
        Block(raw)
    }

    /// Returns the raw handle.
    pub fn to_raw(self) -> MlirBlock {
        self.0
    }
}

/// An integer set (the condition of `affine.if`).
#[derive(Clone, Copy)]
pub struct Set(MlirIntegerSet);

impl std::fmt::Debug for Op {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Op({} @ {:#x})", self.name(), self.key())
    }
}

impl Op {
    /// Wraps a raw operation handle handed over by MLIR.
    pub fn from_raw(raw: MlirOperation) -> Self {
        Op(raw)
    }

    /// Returns the raw handle.
    pub fn to_raw(self) -> MlirOperation {
        self.0
    }

    /// A key identifying this operation (its address).
    pub fn key(self) -> usize {
        self.0.ptr as usize
    }

    /// The operation name, e.g. `affine.for`.
    pub fn name(self) -> String {
        // SAFETY: live operation.
        unsafe { string_ref(mlirIdentifierStr(mlirOperationGetName(self.0))) }
    }

    /// The operation's location.
    pub fn loc(self) -> Loc {
        // SAFETY: live operation.
        Loc(unsafe { mlirOperationGetLocation(self.0) })
    }

    /// The operands.
    pub fn operands(self) -> Vec<Val> {
        // SAFETY: live operation; indices are in range.
        unsafe {
            (0..mlirOperationGetNumOperands(self.0))
                .map(|i| Val(mlirOperationGetOperand(self.0, i)))
                .collect()
        }
    }

    /// The number of results.
    pub fn num_results(self) -> usize {
        // SAFETY: live operation.
        unsafe { mlirOperationGetNumResults(self.0) as usize }
    }

    /// Result `k`.
    pub fn result(self, k: usize) -> Option<Val> {
        // SAFETY: live operation; the index is checked.
        unsafe { (k < self.num_results()).then(|| Val(mlirOperationGetResult(self.0, k as isize))) }
    }

    /// The regions.
    pub fn regions(self) -> Vec<Region> {
        // SAFETY: live operation; indices are in range.
        unsafe {
            (0..mlirOperationGetNumRegions(self.0))
                .map(|i| Region(mlirOperationGetRegion(self.0, i)))
                .collect()
        }
    }

    /// The operation that contains this one, if any.
    pub fn parent(self) -> Option<Op> {
        // SAFETY: live operation.
        let p = unsafe { mlirOperationGetParentOperation(self.0) };
        (!p.ptr.is_null()).then_some(Op(p))
    }

    /// The block holding the operation, if any.
    pub fn block(self) -> Option<Block> {
        // SAFETY: live operation.
        let b = unsafe { mlirOperationGetBlock(self.0) };
        (!b.ptr.is_null()).then_some(Block(b))
    }

    /// The operation and every operation nested in it, in pre-order
    /// (program order).
    pub fn preorder(self) -> Vec<Op> {
        let mut out = Vec::new();
        let mut stack = vec![self];
        while let Some(op) = stack.pop() {
            out.push(op);
            let inner: Vec<Op> = op
                .regions()
                .into_iter()
                .flat_map(|r| r.blocks())
                .flat_map(|b| b.ops())
                .collect();
            stack.extend(inner.into_iter().rev());
        }
        out
    }

    /// True when `self` is `ancestor` or nested (at any depth) inside it.
    pub fn is_within(self, ancestor: Op) -> bool {
        let mut cur = Some(self);
        while let Some(op) = cur {
            if op.key() == ancestor.key() {
                return true;
            }
            cur = op.parent();
        }
        false
    }

    /// The attribute `name`, if present.
    pub fn attr(self, name: &CStr) -> Option<Attr> {
        // SAFETY: live operation; the name outlives the call.
        let a = unsafe { mlirOperationGetAttributeByName(self.0, str_ref(name)) };
        (!a.ptr.is_null()).then_some(Attr(a))
    }

    /// The affine map stored in attribute `name`, if it is one.
    pub fn map_attr(self, name: &CStr) -> Option<Map> {
        self.attr(name).and_then(Attr::as_map)
    }
}

/// An attribute.
#[derive(Clone, Copy)]
pub struct Attr(MlirAttribute);

impl Attr {
    /// The attribute in MLIR's text form.
    pub fn text(self) -> String {
        let mut s = String::new();
        // SAFETY: live attribute; the callback only appends to the String.
        unsafe {
            mlirAttributePrint(
                self.0,
                Some(append),
                &mut s as *mut String as *mut std::ffi::c_void,
            )
        };
        s
    }

    /// The affine map, if this is an affine map attribute.
    pub fn as_map(self) -> Option<Map> {
        // SAFETY: live attribute.
        unsafe { mlirAttributeIsAAffineMap(self.0).then(|| Map(mlirAffineMapAttrGetValue(self.0))) }
    }

    /// The integer set, if this is an integer set attribute.
    pub fn as_set(self) -> Option<Set> {
        // SAFETY: live attribute.
        unsafe {
            mlirAttributeIsAIntegerSet(self.0).then(|| Set(mlirIntegerSetAttrGetValue(self.0)))
        }
    }

    /// The number of elements, if this is an array attribute.
    pub fn array_len(self) -> Option<usize> {
        // SAFETY: live attribute.
        unsafe {
            mlirAttributeIsAArray(self.0).then(|| mlirArrayAttrGetNumElements(self.0) as usize)
        }
    }

    /// The integers of an array of integer attributes or a dense i64 or i32
    /// array.
    pub fn int_list(self) -> Option<Vec<i64>> {
        // SAFETY: live attribute; element accessors match the tested kind.
        unsafe {
            if mlirAttributeIsAArray(self.0) {
                (0..mlirArrayAttrGetNumElements(self.0))
                    .map(|i| Attr(mlirArrayAttrGetElement(self.0, i)).as_int())
                    .collect()
            } else if mlirAttributeIsADenseI64Array(self.0) {
                Some(
                    (0..mlirDenseArrayGetNumElements(self.0))
                        .map(|i| mlirDenseI64ArrayGetElement(self.0, i))
                        .collect(),
                )
            } else if mlirAttributeIsADenseI32Array(self.0) {
                Some(
                    (0..mlirDenseArrayGetNumElements(self.0))
                        .map(|i| i64::from(mlirDenseI32ArrayGetElement(self.0, i)))
                        .collect(),
                )
            } else {
                None
            }
        }
    }

    /// The text, if this is a string attribute.
    pub fn as_string(self) -> Option<String> {
        // SAFETY: live attribute; the accessor matches the tested kind.
        unsafe {
            mlirAttributeIsAString(self.0).then(|| string_ref(mlirStringAttrGetValue(self.0)))
        }
    }

    /// The value, if this is an integer attribute.
    pub fn as_int(self) -> Option<i64> {
        // SAFETY: live attribute.
        unsafe { mlirAttributeIsAInteger(self.0).then(|| mlirIntegerAttrGetValueInt(self.0)) }
    }
}

impl Loc {
    /// Wraps a raw location handle.
    pub fn from_raw(raw: MlirLocation) -> Self {
        Loc(raw)
    }

    /// Returns the raw handle.
    pub fn to_raw(self) -> MlirLocation {
        self.0
    }

    /// `file:line:col` for file locations (looking through names, call sites
    /// and fused locations to the first file location); `None` otherwise.
    pub fn file_line_col(self) -> Option<String> {
        // SAFETY: live location; each accessor matches the location kind.
        unsafe {
            if mlirLocationIsAFileLineColRange(self.0) {
                let file = string_ref(mlirIdentifierStr(mlirLocationFileLineColRangeGetFilename(
                    self.0,
                )));
                let line = mlirLocationFileLineColRangeGetStartLine(self.0);
                let col = mlirLocationFileLineColRangeGetStartColumn(self.0);
                return Some(format!("{file}:{line}:{col}"));
            }
            if mlirLocationIsAName(self.0) {
                return Loc(mlirLocationNameGetChildLoc(self.0)).file_line_col();
            }
            if mlirLocationIsACallSite(self.0) {
                return Loc(mlirLocationCallSiteGetCallee(self.0)).file_line_col();
            }
            if mlirLocationIsAFused(self.0) {
                let n = mlirLocationFusedGetNumLocations(self.0) as usize;
                let mut locs = vec![
                    MlirLocation {
                        ptr: std::ptr::null()
                    };
                    n
                ];
                mlirLocationFusedGetLocations(self.0, locs.as_mut_ptr());
                return locs.into_iter().find_map(|l| Loc(l).file_line_col());
            }
        }
        None
    }
}

/// A printing callback that appends each chunk to the `String` behind
/// `data` (callers pass `&mut String as *mut c_void`).
unsafe extern "C" fn append(s: MlirStringRef, data: *mut std::ffi::c_void) {
    // SAFETY: the caller passes a live `String`; `s` is valid for the call.
    let out = unsafe { &mut *(data as *mut String) };
    out.push_str(&string_ref(s));
}

/// Returns the names MLIR's printer gives `vals` within `scope` (`%arg0`,
/// `%0`, `%alloc`), without the `%`.
pub fn value_names(scope: Op, vals: &[Val]) -> Vec<String> {
    // SAFETY: live operation; the state is destroyed after use; the callback
    // only appends to the String it is given.
    unsafe {
        let flags = mlirOpPrintingFlagsCreate();
        let state = mlirAsmStateCreateForOperation(scope.0, flags);
        let names = vals
            .iter()
            .map(|v| {
                let mut s = String::new();
                mlirValuePrintAsOperand(
                    v.0,
                    state,
                    Some(append),
                    &mut s as *mut String as *mut std::ffi::c_void,
                );
                s.trim_start_matches('%').to_string()
            })
            .collect();
        mlirAsmStateDestroy(state);
        mlirOpPrintingFlagsDestroy(flags);
        names
    }
}

impl Val {
    /// A key identifying this value.
    pub fn key(self) -> usize {
        self.0.ptr as usize
    }

    /// Returns the raw handle.
    pub fn to_raw(self) -> MlirValue {
        self.0
    }

    /// Wraps a raw value handle.
    pub fn from_raw(raw: MlirValue) -> Self {
        Val(raw)
    }

    /// The block argument number, for block arguments.
    pub fn arg_number(self) -> Option<usize> {
        // SAFETY: live value; the query matches the value kind.
        unsafe {
            mlirValueIsABlockArgument(self.0)
                .then(|| mlirBlockArgumentGetArgNumber(self.0) as usize)
        }
    }

    /// True for values of a memref type.
    pub fn is_memref(self) -> bool {
        // SAFETY: live value.
        unsafe { mlirTypeIsAMemRef(mlirValueGetType(self.0)) }
    }

    /// The type in MLIR's text form (`memref<4x8xf64>`).
    pub fn type_text(self) -> String {
        let mut s = String::new();
        // SAFETY: live value; the callback only appends to the String.
        unsafe {
            mlirTypePrint(
                mlirValueGetType(self.0),
                Some(append),
                &mut s as *mut String as *mut std::ffi::c_void,
            )
        };
        s
    }

    /// True for values of type `index`.
    pub fn is_index(self) -> bool {
        // SAFETY: live value.
        unsafe { mlirTypeIsAIndex(mlirValueGetType(self.0)) }
    }

    /// The defining operation, or `None` for a block argument.
    pub fn defining_op(self) -> Option<Op> {
        // SAFETY: live value; the owner query matches the value kind.
        unsafe { mlirValueIsAOpResult(self.0).then(|| Op(mlirOpResultGetOwner(self.0))) }
    }

    /// The result number, for operation results.
    pub fn result_number(self) -> Option<usize> {
        // SAFETY: live value; the query matches the value kind.
        unsafe {
            mlirValueIsAOpResult(self.0).then(|| mlirOpResultGetResultNumber(self.0) as usize)
        }
    }

    /// The operations that use this value, one entry per use.
    pub fn users(self) -> Vec<Op> {
        let mut out = Vec::new();
        // SAFETY: live value; iteration stops at the null use.
        unsafe {
            let mut u = mlirValueGetFirstUse(self.0);
            while !mlirOpOperandIsNull(u) {
                out.push(Op(mlirOpOperandGetOwner(u)));
                u = mlirOpOperandGetNextUse(u);
            }
        }
        out
    }

    /// The block owning this value if it is a block argument.
    pub fn owner_block(self) -> Option<Block> {
        // SAFETY: live value; the owner query matches the value kind.
        unsafe {
            mlirValueIsABlockArgument(self.0).then(|| Block(mlirBlockArgumentGetOwner(self.0)))
        }
    }
}

impl Region {
    /// The blocks, in order.
    pub fn blocks(self) -> Vec<Block> {
        let mut out = Vec::new();
        // SAFETY: live region; iteration stops at the null block.
        unsafe {
            let mut b = mlirRegionGetFirstBlock(self.0);
            while !b.ptr.is_null() {
                out.push(Block(b));
                b = mlirBlockGetNextInRegion(b);
            }
        }
        out
    }
}

impl Block {
    /// The operations, in order.
    pub fn ops(self) -> Vec<Op> {
        let mut out = Vec::new();
        // SAFETY: live block; iteration stops at the null operation.
        unsafe {
            let mut o = mlirBlockGetFirstOperation(self.0);
            while !o.ptr.is_null() {
                out.push(Op(o));
                o = mlirOperationGetNextInBlock(o);
            }
        }
        out
    }

    /// The number of block arguments.
    pub fn num_args(self) -> usize {
        // SAFETY: live block.
        unsafe { mlirBlockGetNumArguments(self.0) as usize }
    }

    /// Argument `k`.
    pub fn arg(self, k: usize) -> Option<Val> {
        // SAFETY: live block; the index is checked.
        unsafe { (k < self.num_args()).then(|| Val(mlirBlockGetArgument(self.0, k as isize))) }
    }

    /// The operation whose region holds this block.
    pub fn parent_op(self) -> Option<Op> {
        // SAFETY: live block.
        let p = unsafe { mlirBlockGetParentOperation(self.0) };
        (!p.ptr.is_null()).then_some(Op(p))
    }
}

impl Map {
    /// The result expressions.
    pub fn results(self) -> Vec<Expr> {
        // SAFETY: live map; indices are in range.
        unsafe {
            (0..mlirAffineMapGetNumResults(self.0))
                .map(|i| Expr(mlirAffineMapGetResult(self.0, i)))
                .collect()
        }
    }

    /// Number of dimension inputs.
    pub fn num_dims(self) -> usize {
        // SAFETY: live map.
        unsafe { mlirAffineMapGetNumDims(self.0) as usize }
    }

    /// Number of symbol inputs.
    pub fn num_symbols(self) -> usize {
        // SAFETY: live map.
        unsafe { mlirAffineMapGetNumSymbols(self.0) as usize }
    }

    /// True when every result is affine (no products of inputs, no division
    /// or modulo by a non-constant).
    pub fn is_pure_affine(self) -> bool {
        self.results().into_iter().all(Expr::is_pure_affine)
    }
}

/// The shape of an affine expression node.
#[derive(Debug, Clone, Copy)]
pub enum ExprKind {
    /// Dimension input `d<n>`.
    Dim(usize),
    /// Symbol input `s<n>`.
    Symbol(usize),
    /// An integer constant.
    Constant(i64),
    /// `lhs + rhs`.
    Add(Expr, Expr),
    /// `lhs * rhs`.
    Mul(Expr, Expr),
    /// `lhs mod rhs`.
    Mod(Expr, Expr),
    /// `lhs floordiv rhs`.
    FloorDiv(Expr, Expr),
    /// `lhs ceildiv rhs`.
    CeilDiv(Expr, Expr),
}

impl std::fmt::Debug for Expr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Expr({:?})", self.kind())
    }
}

impl Expr {
    /// True when the expression is affine in its dims and symbols.
    pub fn is_pure_affine(self) -> bool {
        // SAFETY: live expression.
        unsafe { mlirAffineExprIsPureAffine(self.0) }
    }

    /// The node kind with its children.
    pub fn kind(self) -> ExprKind {
        // SAFETY: live expression; each accessor matches the tested kind.
        unsafe {
            let e = self.0;
            let bin = |e| {
                (
                    Expr(mlirAffineBinaryOpExprGetLHS(e)),
                    Expr(mlirAffineBinaryOpExprGetRHS(e)),
                )
            };
            if mlirAffineExprIsADim(e) {
                ExprKind::Dim(mlirAffineDimExprGetPosition(e) as usize)
            } else if mlirAffineExprIsASymbol(e) {
                ExprKind::Symbol(mlirAffineSymbolExprGetPosition(e) as usize)
            } else if mlirAffineExprIsAConstant(e) {
                ExprKind::Constant(mlirAffineConstantExprGetValue(e))
            } else if mlirAffineExprIsAAdd(e) {
                let (l, r) = bin(e);
                ExprKind::Add(l, r)
            } else if mlirAffineExprIsAMul(e) {
                let (l, r) = bin(e);
                ExprKind::Mul(l, r)
            } else if mlirAffineExprIsAMod(e) {
                let (l, r) = bin(e);
                ExprKind::Mod(l, r)
            } else if mlirAffineExprIsAFloorDiv(e) {
                let (l, r) = bin(e);
                ExprKind::FloorDiv(l, r)
            } else {
                let (l, r) = bin(e);
                ExprKind::CeilDiv(l, r)
            }
        }
    }
}

impl Set {
    /// Number of dimension inputs.
    pub fn num_dims(self) -> usize {
        // SAFETY: live set.
        unsafe { mlirIntegerSetGetNumDims(self.0) as usize }
    }

    /// Number of symbol inputs.
    pub fn num_symbols(self) -> usize {
        // SAFETY: live set.
        unsafe { mlirIntegerSetGetNumSymbols(self.0) as usize }
    }

    /// The constraints as (expression, is_equality); each means `e >= 0` or `e == 0`.
    pub fn constraints(self) -> Vec<(Expr, bool)> {
        // SAFETY: live set; indices are in range.
        unsafe {
            (0..mlirIntegerSetGetNumConstraints(self.0))
                .map(|i| {
                    (
                        Expr(mlirIntegerSetGetConstraint(self.0, i)),
                        mlirIntegerSetIsConstraintEq(self.0, i),
                    )
                })
                .collect()
        }
    }
}

/// Parses a module from a file, so that locations name the file; `None` when
/// it cannot be read or parsed (diagnostics go to the context's handler).
pub fn parse_module_file<'c>(
    context: &'c melior::Context,
    path: &str,
) -> Option<melior::ir::Module<'c>> {
    let c = std::ffi::CString::new(path).ok()?;
    // SAFETY: live context; the path outlives the call; a null module is
    // turned into `None` by `from_option_raw`.
    unsafe {
        melior::ir::Module::from_option_raw(mlirModuleCreateParseFromFile(
            context.to_raw(),
            str_ref(&c),
        ))
    }
}
