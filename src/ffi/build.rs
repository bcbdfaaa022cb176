//! IR construction and mutation for the code generator: creating
//! operations from a name, operands, attributes (parsed from MLIR's text
//! form) and regions; cloning, moving and erasing operations.
//!
//! Invariants: every handle passed in is alive; an operation created here
//! is inserted into a block (which then owns it) before the pass returns,
//! or destroyed. The builder never leaves a half-built operation behind:
//! attributes are parsed and checked before `mlirOperationCreate`.

use std::ffi::CString;

use mlir_sys::*;

use super::ir::{Block, Op, Val};

/// Creates operations in the context of an anchor operation.
pub struct Builder {
    ctx: MlirContext,
    loc: MlirLocation,
}

/// An attribute parsed from text.
#[derive(Clone, Copy)]
pub struct AttrHandle(MlirAttribute);

/// Where new operations go.
#[derive(Clone, Copy)]
pub enum Point {
    /// Before an operation, in its block.
    Before(Op),
    /// At the end of a block.
    End(Block),
}

fn string_ref(s: &str) -> MlirStringRef {
    MlirStringRef {
        data: s.as_ptr() as *const std::os::raw::c_char,
        length: s.len(),
    }
}

impl Builder {
    /// A builder for the context of `anchor`, creating operations at its location.
    pub fn new(anchor: Op) -> Builder {
        // SAFETY: live operation.
        unsafe {
            Builder {
                ctx: mlirOperationGetContext(anchor.to_raw()),
                loc: mlirOperationGetLocation(anchor.to_raw()),
            }
        }
    }

    /// Uses `op`'s location for the operations created from now on.
    pub fn set_loc_of(&mut self, op: Op) {
        // SAFETY: live operation.
        self.loc = unsafe { mlirOperationGetLocation(op.to_raw()) };
    }

    /// Parses an attribute from MLIR's text form (`affine_map<…>`, `1 : index`, …).
    pub fn attr(&self, text: &str) -> Result<AttrHandle, String> {
        // SAFETY: live context; the text outlives the call.
        let a = unsafe { mlirAttributeParseGet(self.ctx, string_ref(text)) };
        if a.ptr.is_null() {
            Err(format!("invalid attribute text: {text}"))
        } else {
            Ok(AttrHandle(a))
        }
    }

    /// The `index` type.
    fn index_type(&self) -> MlirType {
        // SAFETY: live context.
        unsafe { mlirIndexTypeGet(self.ctx) }
    }

    /// A region holding one block with `nargs` index arguments.
    fn region_with_block(&self, nargs: usize) -> (MlirRegion, Block) {
        self.region_with_typed_block(vec![self.index_type(); nargs])
    }

    /// A region holding one block with arguments of the given types.
    fn region_with_typed_block(&self, types: Vec<MlirType>) -> (MlirRegion, Block) {
        let nargs = types.len();
        let locs = vec![self.loc; nargs];
        // SAFETY: live context; the argument arrays have `nargs` entries;
        // the region takes ownership of the block.
        unsafe {
            let region = mlirRegionCreate();
            let block = mlirBlockCreate(nargs as isize, types.as_ptr(), locs.as_ptr());
            mlirRegionAppendOwnedBlock(region, block);
            (region, Block::from_raw(block))
        }
    }

    /// Creates an operation and inserts it at `at`.
    ///
    /// `index_results` is the number of `index`-typed results; `blocks`
    /// gives, per region, `Some(n)` for one block with `n` index arguments
    /// or `None` for an empty region. Returns the operation and the blocks.
    pub fn create(
        &self,
        at: Point,
        name: &str,
        operands: &[Val],
        index_results: usize,
        attrs: &[(&str, AttrHandle)],
        blocks: &[Option<usize>],
    ) -> (Op, Vec<Block>) {
        let results = vec![self.index_type(); index_results];
        self.create_with(at, name, operands, results, attrs, blocks)
    }

    /// Like [`Builder::create`], with result types given in MLIR's text
    /// form (`f64`, `memref<4x8xf64>`); `None` when a type does not parse.
    pub fn create_typed(
        &self,
        at: Point,
        name: &str,
        operands: &[Val],
        result_types: &[&str],
        attrs: &[(&str, AttrHandle)],
    ) -> Option<Op> {
        self.create_typed_regions(at, name, operands, result_types, attrs, &[])
            .map(|(op, _)| op)
    }

    /// Like [`Builder::create_typed`], with regions (as in
    /// [`Builder::create`]): returns the operation and the blocks.
    pub fn create_typed_regions(
        &self,
        at: Point,
        name: &str,
        operands: &[Val],
        result_types: &[&str],
        attrs: &[(&str, AttrHandle)],
        blocks: &[Option<usize>],
    ) -> Option<(Op, Vec<Block>)> {
        let mut results = Vec::new();
        for t in result_types {
            // SAFETY: live context; the text outlives the call.
            let ty = unsafe { mlirTypeParseGet(self.ctx, string_ref(t)) };
            if ty.ptr.is_null() {
                return None;
            }
            results.push(ty);
        }
        Some(self.create_with(at, name, operands, results, attrs, blocks))
    }

    /// Creates an operation whose results have the types of `carried` and
    /// whose one region holds one block with an `index` argument followed by
    /// arguments of those types (`affine.for` with `iter_args`).
    pub fn create_carrying(
        &self,
        at: Point,
        name: &str,
        operands: &[Val],
        carried: &[Val],
        attrs: &[(&str, AttrHandle)],
    ) -> (Op, Block) {
        // SAFETY: live values.
        let types: Vec<MlirType> = carried
            .iter()
            .map(|v| unsafe { mlirValueGetType(v.to_raw()) })
            .collect();
        let mut arg_types = vec![self.index_type()];
        arg_types.extend(types.iter().copied());
        let (region, block) = self.region_with_typed_block(arg_types);
        let mut all = operands.to_vec();
        all.extend(carried.iter().copied());
        let op = self.create_regions(at, name, &all, types, attrs, vec![region]);
        (op, block)
    }

    fn create_with(
        &self,
        at: Point,
        name: &str,
        operands: &[Val],
        results: Vec<MlirType>,
        attrs: &[(&str, AttrHandle)],
        blocks: &[Option<usize>],
    ) -> (Op, Vec<Block>) {
        let mut regions = Vec::new();
        let mut out_blocks = Vec::new();
        for b in blocks {
            match b {
                Some(n) => {
                    let (r, blk) = self.region_with_block(*n);
                    regions.push(r);
                    out_blocks.push(blk);
                }
                // SAFETY: creates an empty region owned by the state below.
                None => regions.push(unsafe { mlirRegionCreate() }),
            }
        }
        let op = self.create_regions(at, name, operands, results, attrs, regions);
        (op, out_blocks)
    }

    /// Creates `name` with the given operands, result types, attributes and
    /// regions (which it takes ownership of) and inserts it at `at`.
    fn create_regions(
        &self,
        at: Point,
        name: &str,
        operands: &[Val],
        results: Vec<MlirType>,
        attrs: &[(&str, AttrHandle)],
        regions: Vec<MlirRegion>,
    ) -> Op {
        let name_c = CString::new(name).unwrap_or_default();
        let named: Vec<MlirNamedAttribute> = attrs
            .iter()
            .map(|(n, a)| {
                // SAFETY: live context; the name outlives the call.
                unsafe { mlirNamedAttributeGet(mlirIdentifierGet(self.ctx, string_ref(n)), a.0) }
            })
            .collect();
        let raw_operands: Vec<MlirValue> = operands.iter().map(|v| v.to_raw()).collect();
        // SAFETY: the state is filled with live handles and arrays that
        // outlive `mlirOperationCreate`, which takes ownership of the regions.
        let op = unsafe {
            let mut state = mlirOperationStateGet(
                MlirStringRef {
                    data: name_c.as_ptr(),
                    length: name.len(),
                },
                self.loc,
            );
            mlirOperationStateAddOperands(
                &mut state,
                raw_operands.len() as isize,
                raw_operands.as_ptr(),
            );
            mlirOperationStateAddResults(&mut state, results.len() as isize, results.as_ptr());
            mlirOperationStateAddAttributes(&mut state, named.len() as isize, named.as_ptr());
            mlirOperationStateAddOwnedRegions(&mut state, regions.len() as isize, regions.as_ptr());
            Op::from_raw(mlirOperationCreate(&mut state))
        };
        insert(at, op);
        op
    }

    /// Appends an argument of type `ty` (MLIR's text form) to `block`;
    /// `None` when the type does not parse.
    pub fn add_block_arg(&self, block: Block, ty: &str) -> Option<Val> {
        // SAFETY: live context and block; the text outlives the call.
        unsafe {
            let t = mlirTypeParseGet(self.ctx, string_ref(ty));
            if t.ptr.is_null() {
                return None;
            }
            Some(Val::from_raw(mlirBlockAddArgument(
                block.to_raw(),
                t,
                self.loc,
            )))
        }
    }

    /// Clones `op` (with its regions) and inserts the clone at `at`.
    pub fn clone_op(&self, at: Point, op: Op) -> Op {
        // SAFETY: live operation; the clone is inserted (owned) right away.
        let c = Op::from_raw(unsafe { mlirOperationClone(op.to_raw()) });
        insert(at, c);
        c
    }
}

fn insert(at: Point, op: Op) {
    // SAFETY: live handles; the block takes ownership of the detached `op`.
    unsafe {
        match at {
            Point::Before(before) => {
                let block = mlirOperationGetBlock(before.to_raw());
                mlirBlockInsertOwnedOperationBefore(block, before.to_raw(), op.to_raw());
            }
            Point::End(block) => mlirBlockAppendOwnedOperation(block.to_raw(), op.to_raw()),
        }
    }
}

/// Sets (or replaces) the attribute `name` of `op`.
pub fn set_attr(op: Op, name: &str, a: AttrHandle) {
    // SAFETY: live operation and attribute; the name outlives the call.
    unsafe { mlirOperationSetAttributeByName(op.to_raw(), string_ref(name), a.0) }
}

/// Removes attribute `name` of `op` (nothing when it has none).
pub fn remove_attr(op: Op, name: &str) {
    // SAFETY: live operation; the name outlives the call.
    unsafe {
        mlirOperationRemoveAttributeByName(op.to_raw(), string_ref(name));
    }
}

/// Replaces all operands of `op` with `vals`.
pub fn set_operands(op: Op, vals: &[Val]) {
    let raw: Vec<MlirValue> = vals.iter().map(|v| v.to_raw()).collect();
    // SAFETY: live handles; the array outlives the call.
    unsafe { mlirOperationSetOperands(op.to_raw(), raw.len() as isize, raw.as_ptr()) }
}

/// The operation after `op` in its block.
pub fn next_op(op: Op) -> Option<Op> {
    // SAFETY: live operation.
    let n = unsafe { mlirOperationGetNextInBlock(op.to_raw()) };
    (!n.ptr.is_null()).then(|| Op::from_raw(n))
}

/// Replaces operand `k` of `op` with `v`.
pub fn set_operand(op: Op, k: usize, v: Val) {
    // SAFETY: live handles; `k` is below the operand count (callers take it
    // from `op.operands()`).
    unsafe { mlirOperationSetOperand(op.to_raw(), k as isize, v.to_raw()) }
}

/// Replaces every use of `old` with `new` (of the same type).
pub fn replace_uses(old: Val, new: Val) {
    // SAFETY: live values.
    unsafe { mlirValueReplaceAllUsesOfWith(old.to_raw(), new.to_raw()) }
}

/// A copy of `op` (with its regions) in no block, owned by the caller:
/// [`insert_before`] puts it in place, [`erase`] destroys it.
pub fn clone_detached(op: Op) -> Op {
    // SAFETY: live operation; the clone is owned by the caller.
    Op::from_raw(unsafe { mlirOperationClone(op.to_raw()) })
}

/// Inserts `op`, in no block ([`clone_detached`]), right before `before`.
pub fn insert_before(op: Op, before: Op) {
    insert(Point::Before(before), op);
}

/// Moves `op` right before `before` (same or another block).
pub fn move_before(op: Op, before: Op) {
    // SAFETY: live operations.
    unsafe { mlirOperationMoveBefore(op.to_raw(), before.to_raw()) }
}

/// Takes `op` out of its block, alive and owned by the caller:
/// [`insert_before`] puts it back, [`erase`] destroys it.
pub fn detach(op: Op) {
    // SAFETY: live operation in a block; the caller owns it afterwards.
    unsafe { mlirOperationRemoveFromParent(op.to_raw()) }
}

/// Erases `op` and everything nested in it. The caller guarantees that no
/// operation outside `op` uses a value defined inside it.
pub fn erase(op: Op) {
    // SAFETY: live operation owned by a block; destroying detaches it.
    unsafe { mlirOperationDestroy(op.to_raw()) }
}

/// True when some use of a value defined by `op` or nested in it lies
/// outside `op`.
pub fn has_outside_uses(op: Op) -> bool {
    let mut stack = vec![op];
    while let Some(o) = stack.pop() {
        for k in 0..o.num_results() {
            let Some(v) = o.result(k) else { continue };
            // SAFETY: live value; iteration stops at the null use.
            unsafe {
                let mut u = mlirValueGetFirstUse(v.to_raw());
                while !mlirOpOperandIsNull(u) {
                    let owner = Op::from_raw(mlirOpOperandGetOwner(u));
                    if !owner.is_within(op) {
                        return true;
                    }
                    u = mlirOpOperandGetNextUse(u);
                }
            }
        }
        for r in o.regions() {
            for b in r.blocks() {
                stack.extend(b.ops());
            }
        }
    }
    false
}

/// Runs the MLIR verifier on `op`; false when it fails (the verifier has
/// then reported diagnostics).
pub fn verify(op: Op) -> bool {
    // SAFETY: live operation.
    unsafe { mlirOperationVerify(op.to_raw()) }
}
