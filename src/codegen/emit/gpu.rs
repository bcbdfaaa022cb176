//! Emission for a GPU: the loop tree's block and thread loops become
//! `gpu.launch` operations, the rest of the tree runs on the host around
//! them or inside each thread, and the arrays live in device buffers.
//!
//! * A loop over [`GpuRole::Block`] dimensions on the host starts a launch.
//!   Up to three directly nested block loops form the grid (the innermost
//!   on `x`); each block runs the tile `lo + blockIdx`, where `lo` is the
//!   loop's lower bound computed on the host, and the grid has exactly the
//!   loop's trip count (a launch whose trip count is not positive is
//!   skipped: CUDA refuses empty grids). A block loop whose bounds depend
//!   on an outer block loop (syrk's tiles `jt <= it / 4`, a triangle)
//!   spans its bounding box over the outer loops' ranges instead (each
//!   bound at the end of each outer range that its coefficient's sign
//!   picks), and every block first checks the loop's own bounds: the
//!   blocks outside the triangle do nothing. Up to three thread loops directly inside form the block
//!   (`x` innermost): thread `tid` runs point `size · tile + tid`, under a
//!   guard that holds exactly when the point is inside the loop's bounds
//!   (partial tiles). A block dimension with a single tile (a `Let`) is
//!   computed inside the kernel, and a sequence of pieces with the same
//!   thread loops (loop separation) maps each piece to the same threads
//!   under its own guard. Loops that do not fit this shape run in order
//!   inside each thread, which is correct for any loop.
//! * Loops on the host that contain no block loop, and statements outside
//!   every loop, run as a kernel of one thread: the data stay on the device
//!   (no copies between host and device parts of a SCoP).
//! * Every array the SCoP accesses gets a device buffer of its type
//!   (`gpu.alloc`) in front of the new code, filled from the host array
//!   (`gpu.memcpy`) when the SCoP reads it or writes only part of it
//!   ([`gpu::copies`]); after the new code the arrays the SCoP writes are
//!   copied back and the buffers freed. Inside the kernels every use of a
//!   host array is replaced by its buffer. With `gpu-memory=host-register`
//!   the arrays are registered with the driver instead
//!   (`gpu.host_register` of their unranked casts, unregistered after the
//!   new code) and the kernels use them in place.

use super::{top_level, EmitError, Emitter, Finished, LoopView, Target};
use crate::codegen::ast::{Coop, Launch};
use crate::codegen::map_text::{dynamic_dims, shifted_map};
use crate::codegen::tree::gpu_map::{
    block_chain, distributed, map_part, zero_thread_lets, BlockChain, Inner, Mapped, Part,
};
use crate::codegen::tree::promote::Promotion;
use crate::codegen::{Bound, Cond, Node};
use crate::ffi::build::{self, Builder, Point};
use crate::ffi::ir::{Block, Op, Val};
use crate::scop::expansion::memref_shape;
use crate::scop::expansion::Expansion;
use crate::scop::model::Scop;
use crate::transform::gpu::{self, GpuRole};

/// What the emitter needs to know for a GPU.
#[derive(Debug, Clone, Copy)]
pub struct GpuEmit<'a> {
    /// Each plan dimension's role.
    pub roles: &'a [GpuRole],
    /// The kernels use the arrays' host memory, registered with the driver
    /// (`gpu.host_register`), instead of device buffers and copies.
    pub host_register: bool,
    /// The boxes the cooperative loops copy to shared memory (proven by
    /// the checker).
    pub promotions: &'a [Promotion],
    /// Barriers around the uses of shared memory (off only in the
    /// mutation test that shows a missing barrier is caught).
    pub barriers: bool,
}

/// The state of a GPU emission.
pub(super) struct Gpu {
    roles: Vec<GpuRole>,
    host_register: bool,
    /// The registered arrays (unranked casts), unregistered after the new
    /// code.
    registered: Vec<Val>,
    /// Code is being emitted inside a kernel.
    in_kernel: bool,
    /// Per array root: the host memref, its device buffer, written by the
    /// SCoP.
    buffers: Vec<(Val, Val, bool)>,
    /// One phrase per launch.
    launches: Vec<String>,
    /// The launches, whose bodies get the device buffers.
    kernels: Vec<Op>,
    /// Which arrays are copied in and back, for the remark.
    copies: String,
    promotions: Vec<Promotion>,
    barriers: bool,
    /// The launches the launches stage decided (`Tree::launches`), in
    /// printing order, and how many are printed.
    plans: Vec<Launch>,
    printed: usize,
    /// The current launch's body, its thread ids with the block's extents
    /// (`x` first), and its shared buffers (by promotion).
    kernel: Option<Kernel>,
    /// Inside a cooperative loop's step: per promoted read (its
    /// operation's key), its shared buffer and the box's origin.
    active: Vec<(usize, Val, Vec<Val>)>,
    /// The promotions applied, for the remark.
    applied: Vec<usize>,
}

/// A launch being emitted.
struct Kernel {
    launch: Op,
    body: Block,
    threads: Vec<(Val, i64)>,
    shared: Vec<(usize, Val)>,
    /// Its cooperative loops ([`Launch::coops`]) and how many are printed.
    coops: Vec<Coop>,
    next_coop: usize,
}

impl Gpu {
    pub(super) fn new(opts: GpuEmit, plans: &[Launch]) -> Gpu {
        Gpu {
            roles: opts.roles.to_vec(),
            host_register: opts.host_register,
            registered: Vec::new(),
            in_kernel: false,
            buffers: Vec::new(),
            launches: Vec::new(),
            kernels: Vec::new(),
            copies: String::new(),
            promotions: opts.promotions.to_vec(),
            barriers: opts.barriers,
            plans: plans.to_vec(),
            printed: 0,
            kernel: None,
            active: Vec::new(),
            applied: Vec::new(),
        }
    }

    /// The promotions applied, as `name EXTxEXT` phrases, and their bytes
    /// per block in all.
    pub(super) fn shared_phrases(&self, scop: &Scop) -> (Vec<String>, i64) {
        let mut names = Vec::new();
        let mut bytes = 0;
        for &k in &self.applied {
            let p = &self.promotions[k];
            let e: Vec<String> = p.extent.iter().map(i64::to_string).collect();
            names.push(format!("{} {}", scop.arrays[p.array.0].name, e.join("x")));
            bytes += p.size();
        }
        (names, bytes)
    }

    /// The shared buffer of the read `op` inside a cooperative loop's
    /// step, with the box's origin.
    fn shared_for(&self, op: Op) -> Option<(Val, &[Val])> {
        self.active
            .iter()
            .find(|(read, _, _)| *read == op.key())
            .map(|(_, buf, origin)| (*buf, origin.as_slice()))
    }

    /// Puts the device buffers into the kernels, copies the written arrays
    /// back and frees the buffers in front of `after` (the first operation
    /// after the new code); the launches' phrases and the copies' phrase.
    pub(super) fn finish(
        &mut self,
        b: &Builder,
        after: Op,
    ) -> Result<(Vec<String>, String, Vec<Op>), EmitError> {
        for &k in &self.kernels {
            self.replace_in(k);
        }
        for &(host, dev, written) in &self.buffers {
            if written {
                b.create(
                    Point::Before(after),
                    "gpu.memcpy",
                    &[host, dev],
                    0,
                    &[],
                    &[],
                );
            }
            b.create(Point::Before(after), "gpu.dealloc", &[dev], 0, &[], &[]);
        }
        for &u in &self.registered {
            b.create(
                Point::Before(after),
                "gpu.host_unregister",
                &[u],
                0,
                &[],
                &[],
            );
        }
        Ok((
            std::mem::take(&mut self.launches),
            std::mem::take(&mut self.copies),
            std::mem::take(&mut self.kernels),
        ))
    }

    fn replace_in(&self, op: Op) {
        for (k, v) in op.operands().into_iter().enumerate() {
            if let Some(&(_, dev, _)) = self.buffers.iter().find(|(h, _, _)| h.key() == v.key()) {
                build::set_operand(op, k, dev);
            }
        }
        for r in op.regions() {
            for blk in r.blocks() {
                for o in blk.ops() {
                    self.replace_in(o);
                }
            }
        }
    }
}

impl Target for Gpu {
    const ALLOC: (&'static str, &'static str, &'static str) =
        ("gpu.alloc", "array<i32: 0, 0, 0>", "gpu.dealloc");
    const KEEPS_INPUT: bool = false;

    /// The device buffers of the SCoP's arrays.
    fn start(e: &mut Emitter<'_, Self>, first: Op) -> Result<(), EmitError> {
        e.device_buffers(first)
    }

    fn node(
        e: &mut Emitter<'_, Self>,
        n: &Node,
        at: Point,
        created: &mut Vec<Op>,
    ) -> Option<Result<(), EmitError>> {
        e.gpu_node(n, at, created)
    }

    fn in_kernel(&self) -> bool {
        self.in_kernel
    }

    /// A load of a promoted box reads shared memory.
    fn cloned_load(e: &Emitter<'_, Self>, op: Op, c: Op) -> Result<(), EmitError> {
        e.shared_load(op, c)
    }

    /// A privatized temporary's last values go to the array's device
    /// buffer, then the device buffers are copied back and freed.
    fn finish(
        e: &mut Emitter<'_, Self>,
        buffers: &[Val],
        after: Option<Op>,
    ) -> Result<Finished, EmitError> {
        let after = after.ok_or("no operation after the rewritten loops")?;
        let scop = e.scop;
        for (x, &buf) in scop.expansions.iter().zip(buffers) {
            if let Some(last) = &x.last {
                e.device_copy_back(x, last, buf, scop.root_of(&scop.arrays[x.array.0]), after)?;
            }
        }
        let shared = e.target.shared_phrases(scop);
        let (launches, copies, kernels) = e.target.finish(&e.b, after)?;
        Ok(Finished {
            launches,
            copies,
            shared,
            kernels,
        })
    }

    /// Nothing: [`Target::finish`] copied them to the device buffers.
    fn copy_back(_: &Emitter<'_, Self>, _: &Expansion, _: Val, _: Op) -> Result<(), EmitError> {
        Ok(())
    }
}

impl Emitter<'_, Gpu> {
    fn in_kernel(&self) -> bool {
        self.target.in_kernel
    }

    fn set_in_kernel(&mut self, on: bool) {
        self.target.in_kernel = on;
    }

    /// The device buffers of the SCoP's arrays, filled from the host, in
    /// front of `first` (or the arrays registered with the driver).
    pub(super) fn device_buffers(&mut self, first: Op) -> Result<(), EmitError> {
        let at = Point::Before(first);
        if self.target.host_register {
            return self.register_arrays(at);
        }
        let mut buffers: Vec<(Val, Val, bool)> = Vec::new();
        let (mut copied_in, mut copied_back) = (Vec::new(), Vec::new());
        for a in &self.scop.arrays {
            let host = self.scop.root_of(a);
            if buffers.iter().any(|(h, _, _)| h.key() == host.key()) {
                continue;
            }
            let ty = host.type_text();
            let copies = gpu::copies(self.scop, host.key(), &ty);
            let mut sizes = Vec::new();
            for k in dynamic_dims(&ty) {
                let c = self.index_const(k as i64, at)?;
                let (d, _) = self.b.create(at, "memref.dim", &[host, c], 1, &[], &[]);
                sizes.push(d.result(0).ok_or("memref.dim without result")?);
            }
            let segs = self.attr(&format!("array<i32: 0, {}, 0>", sizes.len()))?;
            let alloc = self
                .b
                .create_typed(
                    at,
                    "gpu.alloc",
                    &sizes,
                    &[&ty],
                    &[("operandSegmentSizes", segs)],
                )
                .ok_or_else(|| format!("cannot build the type {ty}"))?;
            let dev = alloc.result(0).ok_or("gpu.alloc without result")?;
            if copies.to_device {
                self.b.create(at, "gpu.memcpy", &[dev, host], 0, &[], &[]);
                copied_in.push(a.name.as_str());
            }
            if copies.to_host {
                copied_back.push(a.name.as_str());
            }
            buffers.push((host, dev, copies.to_host));
        }
        let list = |names: &[&str]| {
            if names.is_empty() {
                "none".to_string()
            } else {
                names.join(", ")
            }
        };
        let phrase = format!(
            "copies to the device: {}; back: {}",
            list(&copied_in),
            list(&copied_back)
        );
        {
            let g = &mut self.target;
            g.buffers = buffers;
            g.copies = phrase;
        }
        Ok(())
    }

    /// `gpu.host_register` of every array root at `at` (through its
    /// unranked cast), unregistered by [`Gpu::finish`].
    fn register_arrays(&mut self, at: Point) -> Result<(), EmitError> {
        let mut done: Vec<usize> = Vec::new();
        let mut registered = Vec::new();
        let mut names = Vec::new();
        for a in &self.scop.arrays {
            let host = self.scop.root_of(a);
            if done.contains(&host.key()) {
                continue;
            }
            done.push(host.key());
            let ty = host.type_text();
            let (_, element) =
                memref_shape(&ty).ok_or_else(|| format!("not a plain memref: {ty}"))?;
            let unranked = format!("memref<*x{element}>");
            let cast = self
                .b
                .create_typed(at, "memref.cast", &[host], &[&unranked], &[])
                .ok_or_else(|| format!("cannot build the type {unranked}"))?;
            let u = cast.result(0).ok_or("memref.cast without result")?;
            self.b.create(at, "gpu.host_register", &[u], 0, &[], &[]);
            registered.push(u);
            names.push(a.name.as_str());
        }
        {
            let g = &mut self.target;
            g.registered = registered;
            g.copies = format!("host memory registered: {}", names.join(", "));
        }
        Ok(())
    }

    fn index_const(&self, v: i64, at: Point) -> Result<Val, EmitError> {
        let value = self.attr(&format!("{v} : index"))?;
        let (op, _) = self
            .b
            .create(at, "arith.constant", &[], 1, &[("value", value)], &[]);
        op.result(0)
            .ok_or_else(|| "arith.constant without result".into())
    }

    /// `affine.apply` of `map` (MLIR text) to `operands`.
    fn apply_to(&self, map: &str, operands: &[Val], at: Point) -> Result<Val, EmitError> {
        let m = self.attr(map)?;
        let (op, _) = self
            .b
            .create(at, "affine.apply", operands, 1, &[("map", m)], &[]);
        op.result(0)
            .ok_or_else(|| "affine.apply without result".into())
    }

    /// A `gpu.launch` of `grid` blocks of `block` threads (`x, y, z`) at
    /// `at`, with its body block (unterminated).
    fn create_launch(
        &self,
        grid: [Val; 3],
        block: [Val; 3],
        at: Point,
    ) -> Result<(Op, Block), EmitError> {
        let mut operands = grid.to_vec();
        operands.extend(block);
        let attrs = [
            (
                "operandSegmentSizes",
                self.attr("array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0>")?,
            ),
            ("workgroup_attributions", self.attr("0 : i64")?),
        ];
        let (op, blocks) = self
            .b
            .create(at, "gpu.launch", &operands, 0, &attrs, &[Some(12)]);
        Ok((op, blocks[0]))
    }

    /// A privatized temporary's copy-back on the device, in front of
    /// `after`: a kernel of one thread copies the last iteration's slice
    /// of the expanded buffer `buf` (device memory) into the array, whose
    /// device buffer then goes back to the host with the others.
    pub(super) fn device_copy_back(
        &mut self,
        x: &crate::scop::expansion::Expansion,
        last: &[i64],
        buf: Val,
        array: Val,
        after: Op,
    ) -> Result<(), EmitError> {
        let at = Point::Before(after);
        let one = self.index_const(1, at)?;
        let (launch, body) = self.create_launch([one; 3], [one; 3], at)?;
        let (end, _) = self
            .b
            .create(Point::End(body), "gpu.terminator", &[], 0, &[], &[]);
        super::copy_back::copy_back(&self.b, x, last, buf, array, end)?;
        {
            let g = &mut self.target;
            g.kernels.push(launch);
            g.launches
                .push("1 thread (a privatized temporary's last values)".into());
        }
        Ok(())
    }

    /// The GPU's handling of `n` on the host: a launch, a kernel of one
    /// thread, or a host loop; `None` where the CPU's handling applies
    /// (inside kernels, sequences, guards and fixed dimensions on the
    /// host, whose children come back here).
    pub(super) fn gpu_node(
        &mut self,
        n: &Node,
        at: Point,
        created: &mut Vec<Op>,
    ) -> Option<Result<(), EmitError>> {
        let g = &self.target;
        if g.in_kernel {
            return None;
        }
        let roles = g.roles.clone();
        let is_block = |d: usize| roles.get(d) == Some(&GpuRole::Block);
        // Block dimensions with one tile each (`Let`) still launch, and
        // map their threads.
        if !n.has_loop_over(is_block) && !n.has_let_over(is_block) {
            return Some(self.single_thread_kernel(n, at, created));
        }
        if let Some(pieces) = distributed(n, &is_block) {
            return Some(pieces.iter().try_for_each(|p| self.node(p, at, created)));
        }
        match n {
            Node::Loop {
                dim, stride: None, ..
            } if is_block(*dim) => Some(self.launch(n, &roles, at, created)),
            Node::Let { dim, .. } if is_block(*dim) => Some(self.launch(n, &roles, at, created)),
            Node::Loop { .. } => {
                Some(LoopView::of(n).and_then(|l| self.plain_loop(l, false, at, created)))
            }
            _ => None,
        }
    }

    fn single_thread_kernel(
        &mut self,
        n: &Node,
        at: Point,
        created: &mut Vec<Op>,
    ) -> Result<(), EmitError> {
        let one = self.index_const(1, at)?;
        let (launch, body) = self.create_launch([one; 3], [one; 3], at)?;
        top_level(at, launch, created);
        self.set_in_kernel(true);
        let r = self.node(n, Point::End(body), created);
        self.set_in_kernel(false);
        r?;
        self.b
            .create(Point::End(body), "gpu.terminator", &[], 0, &[], &[]);
        {
            let g = &mut self.target;
            g.kernels.push(launch);
            g.launches.push("1 thread (no parallel loop)".into());
        }
        Ok(())
    }

    /// Inside a kernel whose thread dimensions are set, a mapped part: its
    /// inside (a node, or its pieces, each mapped the same way in order)
    /// under a guard that holds exactly when each thread's point is inside
    /// the bounds of its loop in the part's chain (partial tiles).
    fn mapped_part(
        &mut self,
        part: &Part,
        inside: Point,
        created: &mut Vec<Op>,
    ) -> Result<(), EmitError> {
        let np = self.np();
        let emit_inner = |e: &mut Self, at: Point, created: &mut Vec<Op>| match &part.inner {
            Inner::Plain(n) => e.node(n, at, created),
            Inner::Pieces(pieces) => {
                for p in pieces {
                    e.mapped_part(p, at, created)?;
                }
                Ok(())
            }
            Inner::If(conds, p) => {
                let then = e.guard(conds, at, created)?;
                let r = e.mapped_part(p, Point::End(then), created);
                e.b.create(Point::End(then), "affine.yield", &[], 0, &[], &[]);
                r
            }
            Inner::Coop(n, p) => e.cooperative(n, p, at, created),
        };
        let conds: Vec<Cond> = part
            .chain
            .iter()
            .flat_map(|(m, _, _)| m.inside(np))
            .collect();
        if conds.is_empty() {
            return emit_inner(self, inside, created);
        }
        let then = self.guard(&conds, inside, created)?;
        let r = emit_inner(self, Point::End(then), created);
        self.b
            .create(Point::End(then), "affine.yield", &[], 0, &[], &[]);
        r
    }

    /// Inside a cooperative loop's step, `c` (the clone of the load `op`)
    /// reads the shared box of `op`'s array when it has one: the buffer,
    /// and each subscript less the box's origin (appended to the map's
    /// dimensions).
    pub(super) fn shared_load(&self, op: Op, c: Op) -> Result<(), EmitError> {
        let g = &self.target;
        let Some((buf, origin)) = g.shared_for(op) else {
            return Ok(());
        };
        // A read through the array's root (not a view of it).
        let root = op.operands().first().map(|v| v.key());
        let p = g.promotions.iter().find(|p| p.reads.contains(&op.key()));
        if root != p.map(|p| self.scop.root_of(&self.scop.arrays[p.array.0]).key()) {
            return Ok(());
        }
        let text = c
            .attr(c"map")
            .map(|a| a.text())
            .ok_or("access without a map")?;
        let (map, n_dims) = shifted_map(&text, origin.len())
            .ok_or_else(|| format!("cannot rewrite the access map {text}"))?;
        let old = c.operands();
        let mut operands = vec![buf];
        operands.extend(old[1..1 + n_dims].iter().copied());
        operands.extend(origin.iter().copied());
        operands.extend(old[1 + n_dims..].iter().copied());
        let attr = self.attr(&map)?;
        build::set_operands(c, &operands);
        build::set_attr(c, "map", attr);
        Ok(())
    }

    /// The block's cooperative loop `n` (or its single value) around the
    /// mapped part `part`: at each step, the boxes of the promotions of
    /// the statements under `n` are copied to shared memory by all the
    /// block's threads, then a barrier, the part (whose loads of those
    /// arrays read the boxes), and a barrier: the next step's copies, the
    /// dependences the cooperative loop carries between threads (the
    /// checker proves the thread loops parallel inside it, not across its
    /// steps) and the next pieces of the kernel wait for every thread.
    fn cooperative(
        &mut self,
        n: &Node,
        part: &Part,
        at: Point,
        created: &mut Vec<Op>,
    ) -> Result<(), EmitError> {
        let mark = self.context.len();
        let facts = self.facts(n);
        self.context.extend(facts);
        let r = self.cooperative_inner(n, part, at, created);
        self.context.truncate(mark);
        r
    }

    fn cooperative_inner(
        &mut self,
        n: &Node,
        part: &Part,
        at: Point,
        created: &mut Vec<Op>,
    ) -> Result<(), EmitError> {
        let plan = self.next_coop(n)?;
        let promotions = plan.promotions.clone();
        let barriers = self.target.barriers;
        match n {
            Node::Loop {
                dim, lower, upper, ..
            } => {
                if let Some(carry) = self.coop_carry(part, &plan)? {
                    return self.carried_cooperative(
                        (*dim, (lower, upper)),
                        carry,
                        (&promotions, barriers),
                        at,
                        created,
                    );
                }
                let (dims, operands) = self.operands();
                let (lmap, umap) = self.bound_maps(lower, upper, &dims)?;
                let (op, block) = super::affine_for(&self.b, at, lmap, umap, &operands, &[])?;
                top_level(at, op, created);
                let inner = Point::End(block);
                self.ivs[*dim] = Some(block.arg(0).ok_or("loop without induction variable")?);
                let r = self.cooperative_step(&promotions, part, inner, barriers, created);
                self.ivs[*dim] = None;
                r?;
                self.b.create(inner, "affine.yield", &[], 0, &[], &[]);
                Ok(())
            }
            Node::Let { dim, row, .. } => {
                self.ivs[*dim] = Some(self.apply(row, at, created)?);
                let r = self.cooperative_step(&promotions, part, at, barriers, created);
                self.ivs[*dim] = None;
                r
            }
            _ => Err("a cooperative loop that is neither a loop nor a single value".into()),
        }
    }

    /// The launches stage's decision for the cooperative loop `n`, the
    /// current launch's next one.
    fn next_coop(&mut self, n: &Node) -> Result<Coop, EmitError> {
        let dim = match n {
            Node::Loop { dim, .. } | Node::Let { dim, .. } => Some(*dim),
            _ => None,
        };
        let kernel = self
            .target
            .kernel
            .as_mut()
            .ok_or("a cooperative loop outside a launch")?;
        let plan = kernel
            .coops
            .get(kernel.next_coop)
            .filter(|c| Some(c.dim) == dim)
            .cloned()
            .ok_or("internal error: a cooperative loop the launches stage did not plan")?;
        kernel.next_coop += 1;
        Ok(plan)
    }

    /// The cells carried across the cooperative loop around `part` as the
    /// launches stage decided them ([`Coop::carry`]): the thread's
    /// sequential loop `k` inside the part's chain of thread loops, and
    /// the cells.
    fn coop_carry<'n>(
        &mut self,
        part: &Part<'n>,
        plan: &Coop,
    ) -> Result<Option<CoopCarry<'n>>, EmitError> {
        let Some(carry) = &plan.carry else {
            return Ok(None);
        };
        let Inner::Plain(
            node @ Node::Loop {
                dim: k,
                lower,
                upper,
                body,
                ..
            },
        ) = &part.inner
        else {
            return Err("internal error: carried cells without their loop".into());
        };
        let (cells, instances) = self.cells_of(&carry.cells)?;
        Ok(Some(CoopCarry {
            k: *k,
            k_node: node,
            lower,
            upper,
            body,
            conds: carry.conds.clone(),
            cells,
            instances,
        }))
    }

    /// An `affine.if` at `at` on the constraints `conds` (texts over the
    /// map `header`) whose then and else blocks (empty, unterminated)
    /// yield values of `types`.
    fn affine_if_yielding(
        &self,
        header: &str,
        conds: &[String],
        operands: &[Val],
        types: &[&str],
        at: Point,
    ) -> Result<(Op, Vec<Block>), EmitError> {
        let set = self.attr(&format!("affine_set<{header} : ({})>", conds.join(", ")))?;
        self.b
            .create_typed_regions(
                at,
                "affine.if",
                operands,
                types,
                &[("condition", set)],
                &[Some(0), Some(0)],
            )
            .ok_or_else(|| {
                EmitError::from(format!(
                    "cannot build an affine.if yielding {}",
                    types.join(", ")
                ))
            })
    }

    /// The cooperative loop over `coop` (bounds `bounds`) copying the boxes
    /// of `promotions` at each step (with `barriers`), with the cells of
    /// `carry` in registers across it: loaded before it by the threads
    /// inside their guard (and the loop's non-emptiness), passed through
    /// every step (`iter_args`: copies, barrier, the thread's `k` loop
    /// under its guard, barrier), stored after it, then a barrier (the
    /// stores are the step's writes that the kernel's next pieces wait
    /// for).
    fn carried_cooperative(
        &mut self,
        (coop, bounds): (usize, (&[Bound], &[Bound])),
        carry: CoopCarry,
        (promotions, barriers): (&[usize], bool),
        at: Point,
        created: &mut Vec<Op>,
    ) -> Result<(), EmitError> {
        let (dims, operands) = self.operands();
        let header = self.map_header(&dims);
        let Some(mut guard) = self.runs_once_conds(bounds.0, bounds.1, &dims)? else {
            return Ok(()); // a constant empty range
        };
        guard.extend(self.cond_texts(&carry.conds, &dims));
        if self.in_kernel() {
            for c in &carry.cells {
                if let Some(a) = self
                    .scop
                    .arrays
                    .iter()
                    .find(|a| self.scop.root_of(a).key() == c.memref.key())
                {
                    if !self.kernel_registers.contains(&a.name) {
                        self.kernel_registers.push(a.name.clone());
                    }
                }
            }
        }
        let types: Vec<&str> = carry.cells.iter().map(|c| c.elem.as_str()).collect();
        let maps = self.cell_maps(&carry.cells, &dims)?;
        // The initial values: the cells, or zeros where the thread is
        // outside its guard (passed through, never stored).
        let inits: Vec<Val> = if guard.is_empty() {
            self.load_cells(&carry.cells, &maps, &operands, at, created)?
        } else {
            let (op, blocks) = self.affine_if_yielding(&header, &guard, &operands, &types, at)?;
            top_level(at, op, created);
            let loaded = self.load_cells(
                &carry.cells,
                &maps,
                &operands,
                Point::End(blocks[0]),
                created,
            )?;
            self.b
                .create(Point::End(blocks[0]), "affine.yield", &loaded, 0, &[], &[]);
            let mut zeros = Vec::new();
            for c in &carry.cells {
                let text = if c.elem.starts_with('f') || c.elem == "bf16" {
                    format!("0.0 : {}", c.elem)
                } else {
                    format!("0 : {}", c.elem)
                };
                let value = self.attr(&text)?;
                let z = self
                    .b
                    .create_typed(
                        Point::End(blocks[1]),
                        "arith.constant",
                        &[],
                        &[&c.elem],
                        &[("value", value)],
                    )
                    .and_then(|o| o.result(0))
                    .ok_or("cannot build a zero")?;
                zeros.push(z);
            }
            self.b
                .create(Point::End(blocks[1]), "affine.yield", &zeros, 0, &[], &[]);
            results(op, carry.cells.len())?
        };
        let (lmap, umap) = self.bound_maps(bounds.0, bounds.1, &dims)?;
        let (op, block) = super::affine_for(&self.b, at, lmap, umap, &operands, &inits)?;
        top_level(at, op, created);
        self.ivs[coop] = Some(block.arg(0).ok_or("loop without induction variable")?);
        let values = carried_args(block, inits.len())?;
        let r = self.carried_step(
            &carry,
            promotions,
            barriers,
            &values,
            Point::End(block),
            created,
        );
        self.ivs[coop] = None;
        let next = r?;
        self.b
            .create(Point::End(block), "affine.yield", &next, 0, &[], &[]);
        // The stores, under the same guard.
        let point = if guard.is_empty() {
            at
        } else {
            let then = self.affine_if(&header, &guard, &operands, at, created)?;
            Point::End(then)
        };
        self.store_cells(&carry.cells, op, &maps, &operands, point, created)?;
        if let Point::End(then) = point {
            if !guard.is_empty() {
                self.b
                    .create(Point::End(then), "affine.yield", &[], 0, &[], &[]);
            }
        }
        self.barrier(at, created);
        Ok(())
    }

    /// One step of a carried cooperative loop at `at`, the cells' values
    /// `values` on entry: the copies, a barrier, the thread's `k` loop
    /// under its guard carrying the values, a barrier; the values on exit.
    fn carried_step(
        &mut self,
        carry: &CoopCarry,
        promotions: &[usize],
        barriers: bool,
        values: &[Val],
        at: Point,
        created: &mut Vec<Op>,
    ) -> Result<Vec<Val>, EmitError> {
        self.step(promotions, barriers, at, created, |e, created| {
            e.carried_k_loop(carry, values, at, created)
        })
    }

    /// One step of a cooperative loop at `at`: the copies of `promotions`,
    /// a barrier (`barriers` off: none), `inside` (whose loads of the
    /// promoted reads address the boxes), a barrier.
    fn step<T>(
        &mut self,
        promotions: &[usize],
        barriers: bool,
        at: Point,
        created: &mut Vec<Op>,
        inside: impl FnOnce(&mut Self, &mut Vec<Op>) -> Result<T, EmitError>,
    ) -> Result<T, EmitError> {
        let mut active = Vec::new();
        for &k in promotions {
            let (buf, origin) = self.copy_box(k, at, created)?;
            let reads = self.target.promotions[k].reads.clone();
            active.extend(reads.into_iter().map(|r| (r, buf, origin.clone())));
        }
        if !promotions.is_empty() && barriers {
            self.barrier(at, created);
        }
        {
            let g = &mut self.target;
            g.active = active;
            for &k in promotions {
                if !g.applied.contains(&k) {
                    g.applied.push(k);
                }
            }
        }
        let r = inside(self, created);
        {
            let g = &mut self.target;
            g.active.clear();
        }
        let out = r?;
        self.barrier(at, created);
        Ok(out)
    }

    /// The thread's `k` loop of `carry` at `at` under the threads' guard,
    /// carrying `values`; the values after it (unchanged outside the
    /// guard).
    fn carried_k_loop(
        &mut self,
        carry: &CoopCarry,
        values: &[Val],
        at: Point,
        created: &mut Vec<Op>,
    ) -> Result<Vec<Val>, EmitError> {
        let (dims, operands) = self.operands();
        let header = self.map_header(&dims);
        let types: Vec<&str> = carry.cells.iter().map(|c| c.elem.as_str()).collect();
        let mark = self.context.len();
        self.context
            .extend(carry.conds.iter().map(|c| (c.row.clone(), c.eq)));
        let (point, guard) = if carry.conds.is_empty() {
            (at, None)
        } else {
            let texts = self.cond_texts(&carry.conds, &dims);
            let (op, blocks) = self.affine_if_yielding(&header, &texts, &operands, &types, at)?;
            self.b
                .create(Point::End(blocks[1]), "affine.yield", values, 0, &[], &[]);
            (Point::End(blocks[0]), Some(op))
        };
        let r = self.carried_k_body(carry, values, point, created);
        self.context.truncate(mark);
        let after_k = r?;
        match guard {
            None => Ok(after_k),
            Some(op) => {
                self.b.create(point, "affine.yield", &after_k, 0, &[], &[]);
                results(op, values.len())
            }
        }
    }

    fn carried_k_body(
        &mut self,
        carry: &CoopCarry,
        values: &[Val],
        at: Point,
        created: &mut Vec<Op>,
    ) -> Result<Vec<Val>, EmitError> {
        let (dims, operands) = self.operands();
        let (lmap, umap) = self.bound_maps(carry.lower, carry.upper, &dims)?;
        let (op, block) = super::affine_for(&self.b, at, lmap, umap, &operands, values)?;
        let mark = self.context.len();
        let facts = self.facts(carry.k_node);
        self.context.extend(facts);
        self.ivs[carry.k] = Some(block.arg(0).ok_or("loop without induction variable")?);
        let inner = carried_args(block, values.len())?;
        self.carry = Some(super::scalar_replace::Carry {
            instances: carry.instances.clone(),
            next: 0,
            values: inner,
        });
        let r = self.node(carry.body, Point::End(block), created);
        self.ivs[carry.k] = None;
        self.context.truncate(mark);
        let state = self.carry.take();
        r?;
        self.yield_carried(state, block)?;
        results(op, values.len())
    }

    /// One step of a cooperative loop at `at`: the copies of `promotions`,
    /// a barrier, `part`, a barrier (`barriers` off: none after the
    /// copies).
    fn cooperative_step(
        &mut self,
        promotions: &[usize],
        part: &Part,
        at: Point,
        barriers: bool,
        created: &mut Vec<Op>,
    ) -> Result<(), EmitError> {
        self.step(promotions, barriers, at, created, |e, created| {
            e.mapped_part(part, at, created)
        })
    }

    fn barrier(&self, at: Point, created: &mut Vec<Op>) {
        let (op, _) = self.b.create(at, "gpu.barrier", &[], 0, &[], &[]);
        top_level(at, op, created);
    }

    /// The copy of promotion `k`'s box at `at` by the block's threads:
    /// the box's cells in row-major order, cell `e` by thread
    /// `e mod threads` (consecutive threads copy consecutive cells of the
    /// innermost dimension: coalesced), each under a guard that keeps it
    /// inside the array. Returns the shared buffer and the box's origin.
    fn copy_box(
        &mut self,
        k: usize,
        at: Point,
        created: &mut Vec<Op>,
    ) -> Result<(Val, Vec<Val>), EmitError> {
        let np = self.np();
        let n = self.ivs.len();
        let w = np + n + self.divs.len() + 1;
        let p = self.target.promotions[k].clone();
        let root = self.scop.root_of(&self.scop.arrays[p.array.0]);
        let mut origin = Vec::new();
        for o in &p.origin {
            let mut row = vec![0i64; w];
            row[..np].copy_from_slice(&o[..np]);
            row[np..=np + p.coop].copy_from_slice(&o[np..=np + p.coop]);
            row[w - 1] = o[o.len() - 1];
            origin.push(self.apply(&row, at, created)?);
        }
        let buf = self.shared_buffer(k, &p)?;
        let threads: Vec<(Val, i64)> = self
            .target
            .kernel
            .as_ref()
            .map(|k| k.threads.clone())
            .ok_or("a cooperative loop outside a launch")?;
        let tids: Vec<Val> = threads.iter().map(|t| t.0).collect();
        let count: i64 = threads.iter().map(|t| t.1).product();
        // The thread's rank in the block: x + X·y + X·Y·z.
        let mut terms = Vec::new();
        let mut stride = 1i64;
        for (j, (_, size)) in threads.iter().enumerate() {
            terms.push(format!("d{j} * {stride}"));
            stride *= size;
        }
        let dims: Vec<String> = (0..tids.len()).map(|j| format!("d{j}")).collect();
        let rank_map = format!(
            "affine_map<({}) -> ({})>",
            dims.join(", "),
            if terms.is_empty() {
                "0".to_string()
            } else {
                terms.join(" + ")
            }
        );
        let lin = self.apply_to(&rank_map, &tids, at)?;
        let total: i64 = p.extent.iter().product();
        let attrs = [
            ("lowerBoundMap", self.attr("affine_map<(d0) -> (d0)>")?),
            (
                "upperBoundMap",
                self.attr(&format!("affine_map<() -> ({total})>"))?,
            ),
            ("step", self.attr(&format!("{} : index", count.max(1)))?),
            ("operandSegmentSizes", self.attr("array<i32: 1, 0, 0>")?),
        ];
        let (op, block) = self
            .b
            .create_carrying(at, "affine.for", &[lin], &[], &attrs);
        top_level(at, op, created);
        let inside = Point::End(block);
        let e = block.arg(0).ok_or("loop without induction variable")?;
        // Cell e's index along dimension d: (e floordiv S_d) mod E_d.
        let r = p.extent.len();
        let local: Vec<String> = (0..r)
            .map(|d| {
                let s: i64 = p.extent[d + 1..].iter().product();
                format!("(d0 floordiv {s}) mod {}", p.extent[d])
            })
            .collect();
        let odims: Vec<String> = (0..=r).map(|j| format!("d{j}")).collect();
        let header = format!("({})", odims.join(", "));
        let conds: Vec<String> = (0..r)
            .flat_map(|d| {
                [
                    format!("d{} + {} >= 0", d + 1, local[d]),
                    format!("-d{} - {} + {} >= 0", d + 1, local[d], p.shape[d] - 1),
                ]
            })
            .collect();
        let mut operands = vec![e];
        operands.extend(origin.iter().copied());
        let then = self.affine_if(&header, &conds, &operands, inside, created)?;
        let global: Vec<String> = (0..r)
            .map(|d| format!("d{} + {}", d + 1, local[d]))
            .collect();
        let load_map = self.attr(&format!("affine_map<{header} -> ({})>", global.join(", ")))?;
        let mut load_operands = vec![root];
        load_operands.extend(operands.iter().copied());
        let load = self
            .b
            .create_typed(
                Point::End(then),
                "affine.load",
                &load_operands,
                &[&p.element],
                &[("map", load_map)],
            )
            .ok_or("cannot build a load of the copy")?;
        let v = load.result(0).ok_or("affine.load without result")?;
        let store_map = self.attr(&format!("affine_map<(d0) -> ({})>", local.join(", ")))?;
        self.b.create(
            Point::End(then),
            "affine.store",
            &[v, buf, e],
            0,
            &[("map", store_map)],
            &[],
        );
        self.b
            .create(Point::End(then), "affine.yield", &[], 0, &[], &[]);
        self.b.create(inside, "affine.yield", &[], 0, &[], &[]);
        Ok((buf, origin))
    }

    /// The current launch's shared buffer of promotion `k` (a workgroup
    /// attribution of the launch, added on first use).
    fn shared_buffer(&mut self, k: usize, p: &Promotion) -> Result<Val, EmitError> {
        let ty = format!(
            "memref<{}x{}, #gpu.address_space<workgroup>>",
            p.buffer_shape()
                .iter()
                .map(i64::to_string)
                .collect::<Vec<_>>()
                .join("x"),
            p.element
        );
        let kernel = self
            .target
            .kernel
            .as_mut()
            .ok_or("a cooperative loop outside a launch")?;
        if let Some(&(_, v)) = kernel.shared.iter().find(|(j, _)| *j == k) {
            return Ok(v);
        }
        let v = self
            .b
            .add_block_arg(kernel.body, &ty)
            .ok_or_else(|| format!("cannot build the type {ty}"))?;
        kernel.shared.push((k, v));
        let n = kernel.shared.len();
        let launch = kernel.launch;
        let attr = self.attr(&format!("{n} : i64"))?;
        build::set_attr(launch, "workgroup_attributions", attr);
        Ok(v)
    }

    /// On the host, the bound `b` of a boxed block loop at the corner of
    /// the outer block loops' ranges (`firsts` to `lasts`, one per loop of
    /// `outer`) where it is smallest (`lower`: the smallest first tile) or
    /// largest (an upper bound: the largest end, exclusive). A bound is
    /// affine in the outer tiles (ceil or floor of an affine form, which
    /// keeps its monotony), so each coefficient's sign picks the end.
    fn bound_at_corner(
        &mut self,
        (b, lower): (&Bound, bool),
        (outer, firsts, lasts): (&[Mapped], &[Val], &[Val]),
        at: Point,
        created: &mut Vec<Op>,
    ) -> Result<Val, EmitError> {
        let np = self.np();
        for (j, o) in outer.iter().enumerate() {
            let a = b.row[np + o.dim];
            if a != 0 {
                self.ivs[o.dim] = Some(if (a > 0) == lower {
                    firsts[j]
                } else {
                    lasts[j]
                });
            }
        }
        let (dims, operands) = self.operands();
        let map = self.attr(&format!(
            "affine_map<{} -> ({})>",
            self.map_header(&dims),
            self.bound_text(b, &dims, lower)
        ));
        for o in outer {
            self.ivs[o.dim] = None;
        }
        let (op, _) = self.b.create(
            at,
            if lower { "affine.max" } else { "affine.min" },
            &operands,
            1,
            &[("map", map?)],
            &[],
        );
        top_level(at, op, created);
        op.result(0)
            .ok_or_else(|| EmitError::from("cannot build a bound of the grid"))
    }

    /// The launch of the block loop `n` (see the module's description).
    fn launch(
        &mut self,
        n: &Node,
        roles: &[GpuRole],
        at: Point,
        created: &mut Vec<Op>,
    ) -> Result<(), EmitError> {
        let np = self.np();
        let BlockChain {
            blocks,
            lets,
            inside: cur,
        } = block_chain(n, roles, (np, self.ivs.len(), self.divs.len()));
        // The thread loops directly inside: one chain, or one per child of
        // a sequence whose children all have the same thread loops (the
        // pieces of a thread loop that loop separation cut apart). Every
        // dependence between instances of one launch joins instances with
        // the same block and thread coordinates (the checker proved these
        // loops parallel), so each thread runs its instances of every
        // piece, in order, without waiting for the others.
        let tile_known = |tile: usize| {
            blocks.iter().any(|m| m.dim == tile)
                || lets.iter().any(|&(d, _)| d == tile)
                || self.ivs.get(tile).is_some_and(Option::is_some)
        };
        let top = map_part(cur, roles, &tile_known, &[], 1);
        // The grid and block the launches stage decided, on these nodes.
        let g = &mut self.target;
        let plan = g.plans.get(g.printed).cloned();
        g.printed += 1;
        let plan = plan
            .filter(|p| {
                p.grid.iter().map(|g| g.0).eq(blocks.iter().map(|m| m.dim))
                    && p.threads
                        .iter()
                        .copied()
                        .eq(top.signature().iter().map(|(m, t, s)| (m.dim, *t, *s)))
            })
            .ok_or("internal error: a launch the launches stage did not plan")?;
        let threads = plan.threads.clone();
        // The grid: each block loop's first tile and trip count, on the host
        // (a boxed loop's over the outer block loops' ranges).
        let (dims, operands) = self.operands();
        let mut firsts: Vec<Val> = Vec::new();
        let mut lasts: Vec<Val> = Vec::new();
        let mut counts = Vec::new();
        for (i, m) in blocks.iter().enumerate() {
            let (lo, hi) = if m.boxed {
                let mut extreme = |bounds: &[Bound], lower: bool| -> Result<Val, EmitError> {
                    let mut best: Option<Val> = None;
                    for b in bounds {
                        let v = self.bound_at_corner(
                            (b, lower),
                            (&blocks[..i], &firsts, &lasts),
                            at,
                            created,
                        )?;
                        best = Some(match best {
                            None => v,
                            Some(prev) => {
                                let op = if lower { "arith.maxsi" } else { "arith.minsi" };
                                self.b
                                    .create_typed(at, op, &[prev, v], &["index"], &[])
                                    .and_then(|o| o.result(0))
                                    .ok_or("cannot build a bound of the grid")?
                            }
                        });
                    }
                    best.ok_or_else(|| EmitError::from("a block loop without bounds"))
                };
                (extreme(m.lower, true)?, extreme(m.upper, false)?)
            } else {
                let (lmap, umap) = self.bound_maps(m.lower, m.upper, &dims)?;
                let (lo, _) = self
                    .b
                    .create(at, "affine.max", &operands, 1, &[("map", lmap)], &[]);
                let (hi, _) = self
                    .b
                    .create(at, "affine.min", &operands, 1, &[("map", umap)], &[]);
                for op in [lo, hi] {
                    top_level(at, op, created);
                }
                (
                    lo.result(0).ok_or("affine.max without result")?,
                    hi.result(0).ok_or("affine.min without result")?,
                )
            };
            let c = self.apply_to("affine_map<(d0, d1) -> (d0 - d1)>", &[hi, lo], at)?;
            firsts.push(lo);
            lasts.push(self.apply_to("affine_map<(d0) -> (d0 - 1)>", &[hi], at)?);
            counts.push(c);
        }
        let zero = self.index_const(0, at)?;
        let mut cond: Option<Val> = None;
        for &c in &counts {
            let pred = self.attr("4 : i64")?;
            let gt = self
                .b
                .create_typed(
                    at,
                    "arith.cmpi",
                    &[c, zero],
                    &["i1"],
                    &[("predicate", pred)],
                )
                .and_then(|op| op.result(0))
                .ok_or("cannot build arith.cmpi")?;
            cond = Some(match cond {
                None => gt,
                Some(prev) => self
                    .b
                    .create_typed(at, "arith.andi", &[prev, gt], &["i1"], &[])
                    .and_then(|op| op.result(0))
                    .ok_or("cannot build arith.andi")?,
            });
        }
        // Without block loops (every block dimension a single tile), a
        // grid of one block.
        let then_at = match cond {
            Some(cond) => {
                let (guard, then) = self
                    .b
                    .create(at, "scf.if", &[cond], 0, &[], &[Some(0), None]);
                top_level(at, guard, created);
                Point::End(then[0])
            }
            None => at,
        };
        let one = self.index_const(1, then_at)?;
        let mut grid = [one; 3];
        for (i, &c) in counts.iter().enumerate() {
            grid[blocks.len() - 1 - i] = c;
        }
        let mut block = [one; 3];
        for (i, (_, _, size)) in threads.iter().enumerate() {
            block[threads.len() - 1 - i] = self.index_const(*size, then_at)?;
        }
        let (launch, body) = self.create_launch(grid, block, then_at)?;
        if counts.is_empty() {
            top_level(at, launch, created);
        } else {
            self.b.create(then_at, "scf.yield", &[], 0, &[], &[]);
        }
        let inside = Point::End(body);
        let mut guard = None;
        let id = |k: usize| body.arg(k).ok_or("gpu.launch without its ids");
        let kernel = Kernel {
            launch,
            body,
            threads: (0..threads.len())
                .rev()
                .map(|i| Ok((id(3 + threads.len() - 1 - i)?, threads[i].2)))
                .collect::<Result<_, EmitError>>()?,
            shared: Vec::new(),
            coops: plan.coops.clone(),
            next_coop: 0,
        };
        self.target.kernel = Some(kernel);
        self.set_in_kernel(true);
        for (i, m) in blocks.iter().enumerate() {
            let bid = id(blocks.len() - 1 - i)?;
            let t = self.apply_to(
                "affine_map<(d0, d1) -> (d0 + d1)>",
                &[firsts[i], bid],
                inside,
            )?;
            self.ivs[m.dim] = Some(t);
        }
        for &(dim, row) in &lets {
            self.ivs[dim] = Some(self.apply(row, inside, created)?);
        }
        let mut zeros = Vec::new();
        zero_thread_lets(cur, roles, &mut zeros);
        for &dim in &zeros {
            self.ivs[dim] = Some(self.index_const(0, inside)?);
        }
        // The blocks of a bounding box outside the triangle do nothing.
        let boxed: Vec<&Mapped> = blocks.iter().filter(|m| m.boxed).collect();
        let inside = if boxed.is_empty() {
            inside
        } else {
            let conds: Vec<Cond> = boxed.iter().flat_map(|m| m.inside(np)).collect();
            let then = self.guard(&conds, inside, created)?;
            guard = Some(then);
            Point::End(then)
        };
        for (i, &(dim, tile, size)) in threads.iter().enumerate() {
            let tid = id(3 + threads.len() - 1 - i)?;
            let tile_value = self.ivs[tile].ok_or("a thread loop outside its tile loop")?;
            let p = self.apply_to(
                &format!("affine_map<(d0, d1) -> (d0 * {size} + d1)>"),
                &[tile_value, tid],
                inside,
            )?;
            self.ivs[dim] = Some(p);
        }
        let r = self.mapped_part(&top, inside, created);
        self.set_in_kernel(false);
        let unprinted = self
            .target
            .kernel
            .take()
            .is_some_and(|k| k.next_coop != k.coops.len());
        for dim in blocks
            .iter()
            .map(|m| m.dim)
            .chain(threads.iter().map(|t| t.0))
        {
            self.ivs[dim] = None;
        }
        for &(dim, _) in &lets {
            self.ivs[dim] = None;
        }
        for &dim in &zeros {
            self.ivs[dim] = None;
        }
        r?;
        if unprinted {
            return Err("internal error: a cooperative loop planned but not printed".into());
        }
        if let Some(then) = guard {
            self.b
                .create(Point::End(then), "affine.yield", &[], 0, &[], &[]);
        }
        self.b
            .create(Point::End(body), "gpu.terminator", &[], 0, &[], &[]);
        let g = &mut self.target;
        g.kernels.push(launch);
        g.launches.push(plan.phrase());
        Ok(())
    }
}

/// The first `n` results of `op`.
fn results(op: Op, n: usize) -> Result<Vec<Val>, EmitError> {
    (0..n)
        .map(|i| op.result(i))
        .collect::<Option<Vec<Val>>>()
        .ok_or_else(|| EmitError::from(format!("{} without its results", op.name())))
}

/// The `n` carried values of a loop's body `block` (its arguments after
/// the induction variable).
fn carried_args(block: Block, n: usize) -> Result<Vec<Val>, EmitError> {
    (0..n)
        .map(|i| block.arg(i + 1))
        .collect::<Option<Vec<Val>>>()
        .ok_or_else(|| "loop without its carried values".into())
}

/// Cells carried across a cooperative loop (see `Emitter::coop_carry`):
/// the thread's sequential loop `k` (its node, bounds and body), the
/// threads' guard, the cells and per instance of the body the cell of each
/// access.
struct CoopCarry<'n> {
    k: usize,
    k_node: &'n Node,
    lower: &'n [Bound],
    upper: &'n [Bound],
    body: &'n Node,
    conds: Vec<Cond>,
    cells: Vec<super::scalar_replace::Cell>,
    instances: super::scalar_replace::InstanceCells,
}
