//! Transformations of a Pluto-style schedule into the final loop structure:
//! rectangular tiling of permutable bands (one or two levels), intra-tile
//! reordering for vectorization, the choice of parallel loops, and
//! wavefronts over tiles when a band has no parallel loop.
//!
//! The input is the scheduler's [`PlutoSchedule`]: per statement a row of
//! affine hyperplanes `φ_k(i)` and per dimension its kind (a loop of a
//! permutable band, with its coincidence flag, or a scalar dimension). The
//! output is a [`Plan`]: a [`Schedule`] whose tile dimensions are division
//! locals, and per dimension whether it is a scalar dimension and whether
//! its loop runs in parallel. Nothing here decides legality: the plan is
//! handed to the independent checker ([`crate::sched::verify`] and
//! [`crate::sched::verify_parallel`]) before any code is generated.
//!
//! # Tiling (Irigoin & Triolet 1988; Pluto)
//!
//! A band `φ_a … φ_b` (all dependences not satisfied before it have
//! non-negative distance along each `φ_k`) becomes
//!
//! ```text
//! [ ⌊φ_a / T_a⌋, …, ⌊φ_b / T_b⌋,  φ_a, …, φ_b ]
//! ```
//!
//! with each tile coordinate a local `l` defined by
//! `T·l <= φ(i) <= T·l + T - 1`. Tiles are executed in the band's order and
//! each tile's points in the same order, which respects every dependence
//! because their distances are non-negative in every band dimension. With
//! two levels, `⌊φ / (T·F)⌋` comes first, `F` the second-level factor.
//!
//! # Intra-tile order (Pluto's `prevector`)
//!
//! Inside a tile, any order of the band's point loops is legal. The point
//! loop moved innermost is a coincident one whose iterations touch
//! consecutive elements: for each access, moving one step along `φ_k`
//! (other band coordinates fixed) moves the statement's iterators by column
//! `k` of `H⁻¹`, `H` the statement's hyperplane matrix; an access whose last
//! subscript changes by `0` or `±1` and whose other subscripts do not change
//! scores.
//!
//! # Parallel loops and wavefronts
//!
//! The first coincident dimension of the schedule becomes a parallel loop
//! (its tile loop when tiled); with `nested` every coincident loop does. A
//! tiled band without a coincident hyperplane (stencils after skewing) gets
//! a wavefront: its first tile coordinate `l_0` is replaced by `l_0 + l_1`;
//! tiles with the same sum never depend on each other (their distances are
//! non-negative in both coordinates), so the loop over `l_1` runs in
//! parallel.

mod align_tiles;
mod analysis;
mod band_plan;
mod cyclic;
mod display;
mod gather;
pub mod gpu;
mod inner_distribute;
mod interleave;
mod parallel;
mod parallel_tiles;
mod point_order;
mod register_tile;
mod row_blocks;
mod row_jam;
mod sink_point;
mod sizes;
mod tile_fusion;
mod unroll_jam;

use band_plan::{BandPlan, Cx};

use crate::deps::Dependence;
use crate::math::MathError;
use crate::sched::pluto::PlutoSchedule;
use crate::sched::Schedule;
use crate::scop::form::{Form, Locals};
use crate::scop::model::Scop;

/// What to do with the scheduler's bands.
#[derive(Debug, Clone)]
pub struct Options {
    /// Tile permutable bands of at least two loops.
    pub tile: bool,
    /// Tile sizes, one per band dimension (the last one repeats).
    pub sizes: Vec<i64>,
    /// Second-level tiling: the factor of the outer tiles (0: off).
    pub l2_factor: i64,
    /// Emit parallel loops.
    pub parallel: bool,
    /// Every coincident loop is parallel, not only the outermost.
    pub nested: bool,
    /// Move a coincident, stride-1 loop innermost inside tiles.
    pub prevector: bool,
    /// Tile size of that innermost vector loop (0: the size from `sizes`).
    pub vector_tile: i64,
    /// The tile sizes are the defaults (no `tile-sizes`): bands with
    /// register tiles get sizes of their own (`sizes::register_tile_sizes`).
    pub auto_sizes: bool,
    /// Threads the parallel loops are tuned for: a parallel loop of
    /// register blocks with equal work per iteration gets one tile each.
    pub threads: i64,
    /// Smallest number of tiles of a parallel loop whose tiles grow for a
    /// vector loop ([`crate::target::cpu::Sizes::min_parallel_tiles`]).
    pub min_parallel_tiles: i64,
    /// Default tile of the loop inside register blocks (gemm's `k`), a
    /// power of two ([`crate::target::cpu::Sizes::reduction_tile`]).
    pub reduction_tile: i64,
    /// Largest default tile of the vector loop of register blocks
    /// ([`crate::target::cpu::Sizes::panel_tile`]).
    pub panel_tile: i64,
    /// Wavefront over tiles of bands without a parallel loop.
    pub wavefront: bool,
    /// Register blocks `(u, v)` where the vector loop's tiles are a
    /// multiple of `v` and at most one operand streams along it (or the
    /// blocks are rectangular): wider blocks reuse each broadcast operand
    /// for more columns (gemm, 2mm, 3mm: 8x16 is 12-15% faster than 8x8;
    /// triangles with one streamed operand, whose full blocks code
    /// generation separates from the diagonal's partial ones, 3-15%);
    /// where broadcasts to 512-bit registers are slow, blocks one vector
    /// wide with more rows ([`crate::target::cpu::Sizes::register_block_wide`]).
    /// `(0, 0)` when `register_tile` is given explicitly (taken as given
    /// then: no other shape, no fewer rows where the tiles are not a
    /// multiple).
    pub register_tile_wide: (i64, i64),
    /// Inside the tiles of a band whose innermost point loop carries a
    /// recurrence and that has no coincident loop, run the points along
    /// wavefronts (the first point dimension the sum of the band's
    /// hyperplanes): consecutive iterations of the innermost loop are then
    /// independent.
    pub inner_wavefront: bool,
    /// Nests distributed right above a parallel loop over the same tiles,
    /// accessing the same cells, share that loop (`tile_fusion`; off with
    /// `fuse=no`).
    pub fuse_tiles: bool,
    /// Bytes that one tile of fused nests may touch, so that the second
    /// nest finds the first one's cells in cache
    /// ([`crate::target::cpu::Sizes::fused_tile_bytes`]).
    pub fused_tile_bytes: i64,
    /// The target's L2 per core, in bytes: arrays larger than it stream
    /// from memory at every pass over them
    /// (`passes/opt/distribute.rs`'s `retry_fused`).
    pub l2_bytes: i64,
    /// Bytes of one thread's cells of one tile of rows of interleaved
    /// nests (`interleave.rs`,
    /// [`crate::target::cpu::Sizes::interleaved_tile_bytes`]).
    pub interleaved_tile_bytes: i64,
    /// The target's L3 share per core, in bytes (0: none): interleaved
    /// nests read their rows back from it where no tile fits L2 and the
    /// array exceeds the whole L3 (`interleave.rs`,
    /// [`crate::target::cpu::INTERLEAVED_L3_SHARE`]).
    pub l3_bytes: i64,
    /// Deal a triangle's parallel tiles to the threads cyclically
    /// (`cyclic`).
    pub cyclic_tiles: bool,
    /// Unroll-and-jam factor of the point loops outside the innermost one
    /// (0 or 1: off); as many of them, innermost first, as keep the
    /// unrolled body at most [`MAX_JAM_COPIES`] statement copies.
    pub unroll_jam: i64,
    /// Lanes of a vector of doubles for row blocks (`row_blocks.rs`; 0 or
    /// 1: off): in two-loop bands whose innermost loop is a stream of
    /// reductions into cells fixed along it (gesummv's `tmp[i]` along
    /// `j`), that many rows' reductions run at once, one per lane.
    pub row_lanes: i64,
    /// `reassociate=true`: the chains of floating-point sums and products
    /// along an innermost loop run in vector lanes by reassociation
    /// ([`crate::analysis::reductions`]), so row blocks, which keep each
    /// row's order, leave them alone.
    pub reassociate: bool,
    /// A loop moved innermost for its independent iterations across a
    /// recurrence (adi's `i` beside `p[i][j]`'s chain along `j`), along
    /// which some access is strided, stays scalar: LLVM is told not to
    /// vectorize it ([`Plan::scalar_stmts`]), where the target's gathers
    /// and scatters are slow
    /// ([`crate::target::CpuTarget::slow_gathers`]).
    pub scalar_strided: bool,
    /// Longest tile of a column stream's vector loop, which otherwise
    /// takes one tile per thread (`row_blocks.rs`,
    /// [`crate::target::cpu::Sizes::stream_tile`]; 0: the tiles stay as
    /// they are, as with explicit `tile-sizes`).
    pub stream_tile: i64,
    /// Register tile `(u, v)` of bands of three or more loops (off when
    /// `v <= 1` or with `unroll_jam`): see `analysis::register_dims`; the point
    /// loop of the writes' invariant dimension goes inside blocks of `u`
    /// iterations of another point loop and `v` of the vector loop, which
    /// are unrolled, so the written cells stay in registers across it.
    pub register_tile: (i64, i64),
    /// The L1 data cache's sets, with the target's register block sizes
    /// (`None` with `register-tile-sizes`): the blocks around loops after
    /// their band take no more rows than keep the rows of an operand they
    /// read by row apart in the L1 (`register_tile::rows_apart`).
    pub l1: Option<crate::target::L1Sets>,
    /// Record the plan's text after tiling and after each stage that
    /// changed it ([`Plan::stages`]).
    pub trace_stages: bool,
    /// The schedule runs the steps of a wavefront cut into steps
    /// ([`crate::rewrite::steps`]) in its outermost loop: inside a step,
    /// the groups of a band whose tile loops are not parallel hold that
    /// step's own instances (one tile's triangle) and run in order, so
    /// the band's tile loops run in parallel for the other groups
    /// (`analysis::partial_tile_parallel`) instead of as a wavefront.
    pub steps: bool,
}

/// Largest number of copies of a statement that unroll-and-jam makes.
pub const MAX_JAM_COPIES: i64 = 16;

/// Where a plan dimension's loop sits in a tiled band.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tiling {
    /// A loop over the band's tiles (a wavefront of them included).
    Tile,
    /// A plain point loop inside the tiles, in the band's point order (any
    /// order of them is legal).
    Point,
    /// Neither: a loop of an untiled band, a scalar dimension, or a loop
    /// that a later stage made (register blocks, unrolled copies, GPU
    /// blocks and threads).
    None,
}

/// An unrolled loop of a plan whose blocks code generation splits into
/// full ones and the rest ([`Plan::block_dims`]): dimension `unrolled`
/// runs over the `size` iterations of each block of dimension `blocks`
/// (`unrolled = size·blocks + a`, `0 <= a < size`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockDim {
    /// The unrolled dimension.
    pub unrolled: usize,
    /// The blocks' dimension.
    pub blocks: usize,
    /// Iterations per block.
    pub size: i64,
    /// The copies run inside loops of their statements' own, below the
    /// blocks' loop (`row_jam`), not right inside it: those loops, not the
    /// copies, are the statements' innermost.
    pub below_loops: bool,
}

/// One dimension of the final schedule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanDim {
    /// A scalar dimension (a sequence of statements, no loop).
    pub scalar: bool,
    /// The loop runs its iterations in parallel.
    pub parallel: bool,
    /// With `parallel`: when given, only loops all of whose statements
    /// are marked here run in parallel (statements split apart by an outer
    /// scalar dimension have loops of their own: see
    /// `analysis::Band::tile_partial`); the others' stay sequential.
    pub only: Option<Vec<bool>>,
    /// The loop is unrolled when its trip count is a small constant (the
    /// inner half of an unroll-and-jam).
    pub unroll: bool,
    /// The loop runs over the blocks of an unroll-and-jam (each block's
    /// iterations are those of an unrolled dimension further in).
    pub jam_block: bool,
    /// Where it sits in a tiled band.
    pub tiling: Tiling,
    /// What it is, for remarks: `tile of φ1`, `point φ0`, `wavefront`, ….
    pub what: String,
}

impl PlanDim {
    /// A plain sequential loop outside the tiles' structure (not a tile or
    /// point loop, not unrolled): `what` it is, for remarks.
    pub fn sequential(what: String) -> PlanDim {
        PlanDim {
            scalar: false,
            parallel: false,
            only: None,
            unroll: false,
            jam_block: false,
            tiling: Tiling::None,
            what,
        }
    }

    /// A loop of this dimension around statements `stmts` runs in
    /// parallel.
    pub fn parallel_for(&self, mut stmts: impl Iterator<Item = usize>) -> bool {
        self.parallel && self.only.as_ref().is_none_or(|m| stmts.all(|s| m[s]))
    }
}

/// The final schedule with its loop structure.
#[derive(Debug, Clone)]
pub struct Plan {
    /// Per statement, the dimensions (tile coordinates are locals).
    pub schedule: Schedule,
    /// Per dimension, its role.
    pub dims: Vec<PlanDim>,
    /// What was done, one phrase each, for the remark.
    pub notes: Vec<String>,
    /// The largest number of loops of a tiled band (0: nothing tiled).
    pub max_tiled_band: usize,
    /// Register tiles, by the dimension of their first unrolled loop.
    pub register_tiles: Vec<RegisterTile>,
    /// Per statement with a register tile, the tile size of the loop kept
    /// inside the tile (`r`: gemm's `k`), whose iterations inside one tile
    /// are consecutive values; 0 for the others.
    pub register_r_size: Vec<i64>,
    /// The statements of the innermost loop were given a loop each (the
    /// scalar dimension ordering them moved before it).
    pub inner_distributed: bool,
    /// Dimensions of unrolled loops whose iterations run as the lanes of
    /// one vector (`row_blocks`): their copies' accumulators carried across
    /// the loop inside them are vectors.
    pub lane_dims: Vec<usize>,
    /// Unrolled loops whose blocks code generation splits into full ones
    /// (constant trip counts: unrolled) and the rest: those of
    /// [`Plan::lane_dims`] and of the column streams' jams (`row_blocks`),
    /// and of point-loop sinking's (`sink_point`), each with its blocks'
    /// loop two dimensions outside, and of the rows jammed below their
    /// statements' loops (`row_jam`).
    pub block_dims: Vec<BlockDim>,
    /// The lanes of [`Plan::lane_dims`]' vectors (their unrolled loops'
    /// trip counts are a multiple of it: one vector per `lane_size` rows).
    pub lane_size: i64,
    /// A band run as a wavefront inside sequential loops (it fills and
    /// drains at every iteration of them): the schedule dimension where
    /// that band starts, the first one.
    pub restarted_wavefront: Option<usize>,
    /// Some band's tiles, or the points of each tile, run along
    /// wavefronts (the parallelism of a skewed band).
    pub wavefront: bool,
    /// Row dimensions `u` of [`Plan::register_tiles`] whose partial blocks
    /// (rows of different lengths: a triangle's diagonal) run each row by
    /// itself, with its own loop over `u - 1` (the loop inside the tile)
    /// and its cells kept in registers across it: set only where the
    /// schedule with dimensions `u - 1` and `u` swapped is legal too, which
    /// the checker verifies with the plan (`passes::opt::check`).
    pub rows_first: Vec<usize>,
    /// Per statement (empty: none), its innermost loop stays scalar
    /// ([`Options::scalar_strided`]): code generation marks an innermost
    /// loop all of whose statements are marked with
    /// `llvm.loop_annotation` (vectorize disabled).
    pub scalar_stmts: Vec<bool>,
    /// With [`Options::trace_stages`]: each stage that changed the plan
    /// (after the first, "tile") and the plan's text after it
    /// ([`Plan::to_text`]); empty for a plan not built by [`plan_checked`].
    pub stages: Vec<(&'static str, String)>,
}

impl Plan {
    /// The nests below the scalar dimensions before `p`: statements with
    /// equal values there, in order of their first statements (`None` when
    /// some statement has another kind of dimension there).
    pub fn nests(&self, p: usize) -> Option<Vec<Vec<usize>>> {
        let mut keys: Vec<Vec<i64>> = Vec::new();
        let mut out: Vec<Vec<usize>> = Vec::new();
        for (s, dims) in self.schedule.dims.iter().enumerate() {
            let key: Vec<i64> = dims[..p]
                .iter()
                .map(Form::as_constant)
                .collect::<Option<_>>()?;
            match keys.iter().position(|k| *k == key) {
                Some(i) => out[i].push(s),
                None => {
                    keys.push(key);
                    out.push(vec![s]);
                }
            }
        }
        Some(out)
    }

    /// Dimension `k` is one of a register tile's two unrolled loops.
    pub fn in_register_tile(&self, k: usize) -> bool {
        self.register_tiles
            .iter()
            .any(|t| k == t.first || k == t.first + 1)
    }
}

/// A register tile of a [`Plan`]: blocks of two point loops of a band,
/// unrolled around the loop kept inside the tile (gemm: blocks of 8 rows
/// `i` by 16 columns `j`, around `k`). Between the loop over the blocks of
/// the vector loop and the loop inside the tile, `between` more loops may
/// run (a convolution's filter window: the band's `kh` and the loop `kw`
/// after the band, around the channels `c` inside the tile).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RegisterTile {
    /// The dimension of the first unrolled loop `u`: the loop inside the
    /// tile is dimension `u - 1`, the unrolled vector loop `u + 1`, the
    /// blocks' rows `u - 3 - between` and the blocks of the vector loop
    /// `u - 2 - between`.
    pub first: usize,
    /// The block size of the first unrolled loop (rows).
    pub rows: i64,
    /// The block size of the unrolled vector loop (columns).
    pub columns: i64,
    /// Loops between the blocks of the vector loop and the loop inside the
    /// tile.
    pub between: usize,
}

impl RegisterTile {
    /// The dimension of the loop over the blocks' rows.
    pub fn row_blocks(&self) -> Option<usize> {
        self.first.checked_sub(3 + self.between)
    }

    /// The dimension of the loop over the blocks of the vector loop.
    pub fn vector_blocks(&self) -> Option<usize> {
        self.first.checked_sub(2 + self.between)
    }

    /// The dimension of the loop inside the tile (`u - 1`).
    pub fn inner(&self) -> Option<usize> {
        self.first.checked_sub(1)
    }
}

/// A new local `l` of `locals` with `t·l <= φ <= t·l + t - 1`: the block
/// of size `t` that `φ` falls in.
fn tile_local(locals: &mut Locals, phi: &Form, t: i64) -> Result<usize, MathError> {
    let l = locals.fresh();
    let tl = Form::local(l).scale(t).map_err(|_| MathError::Overflow)?;
    locals
        .ineqs
        .push(phi.minus(&tl).map_err(|_| MathError::Overflow)?);
    locals.ineqs.push(
        tl.plus(&Form::constant(t - 1))
            .and_then(|f| f.minus(phi))
            .map_err(|_| MathError::Overflow)?,
    );
    Ok(l)
}

/// A stage of the plan: edits the band plans (one per band of the
/// schedule), never the schedule itself.
type Stage = fn(&Cx, &mut [BandPlan]);

/// The plan's stages, in order, after tiling (every band of two loops or
/// more, in the scheduler's point order: [`BandPlan::new`]). Each edits
/// the declarative band plans; [`band_plan::materialize`] writes the
/// schedule once, at the end, then [`inner_distribute::run`],
/// [`sink_point::run`], [`tile_fusion::run`] and [`interleave::run`] run on
/// it, in that order.
const STAGES: [(&str, Stage); 8] = [
    ("parallel", parallel::run),
    ("point order", point_order::run),
    ("unroll-and-jam", unroll_jam::run),
    ("register tile", register_tile::run),
    ("gather", gather::run),
    ("row blocks", row_blocks::run),
    ("align tiles", align_tiles::run),
    ("parallel tiles", parallel_tiles::run),
];

/// Why no plan was made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    /// A limit of the exact arithmetic (a tile size overflows).
    #[error(transparent)]
    Math(#[from] MathError),
    /// The check of [`plan_checked`] turned down the plan of a stage: a bug
    /// of that stage, caught before any IR is written.
    #[error("the plan after the {stage} stage was rejected: {why}")]
    Rejected {
        /// The stage.
        stage: &'static str,
        /// The check's verdict.
        why: String,
    },
}

/// What [`plan_checked`] asks after each stage: the stage's name and the
/// plan its band plans materialize to; `Err` says why the plan is wrong.
pub type StageCheck<'a> = &'a mut dyn FnMut(&str, &Plan) -> Result<(), String>;

/// Builds the final plan from the scheduler's result.
pub fn plan(
    scop: &Scop,
    sched: &PlutoSchedule,
    deps: &[Dependence],
    opts: &Options,
) -> Result<Plan, PlanError> {
    plan_checked(scop, sched, deps, opts, None)
}

/// [`plan`], with `check` (when given) asked for the plan after tiling and
/// after each stage that changed it (Cranelift's `verify_if`): the pass
/// gives its independent checker in debug and test builds, so that a wrong
/// decision is reported with the stage that made it. With
/// [`Options::trace_stages`], the plan's text at those points goes into
/// [`Plan::stages`].
pub fn plan_checked(
    scop: &Scop,
    sched: &PlutoSchedule,
    deps: &[Dependence],
    opts: &Options,
    mut check: Option<StageCheck>,
) -> Result<Plan, PlanError> {
    let cx = Cx::new(scop, sched, deps, opts);
    let mut plans: Vec<BandPlan> = cx.bands.iter().map(|b| BandPlan::new(&cx, b)).collect();
    let observing = check.is_some() || opts.trace_stages;
    let mut trace = Vec::new();
    let mut verify_if = |stage: &'static str, plans: &[BandPlan]| -> Result<(), PlanError> {
        if !observing {
            return Ok(());
        }
        // The final plan's own errors are reported by the last step.
        let Ok(p) = band_plan::materialize(&cx, plans) else {
            return Ok(());
        };
        if opts.trace_stages {
            trace.push((stage, p.to_text(scop)));
        }
        match check.as_mut() {
            Some(check) => check(stage, &p).map_err(|why| PlanError::Rejected { stage, why }),
            None => Ok(()),
        }
    };
    if plans.iter().any(|b| b.tiled) {
        verify_if("tile", &plans)?;
    }
    for (stage, run) in STAGES {
        let before = observing.then(|| plans.clone());
        run(&cx, &mut plans);
        #[cfg(debug_assertions)]
        break_stage(stage, &mut plans);
        if before.is_some_and(|b| b != plans) {
            verify_if(stage, &plans)?;
        }
    }
    let mut plan = band_plan::materialize(&cx, &plans)?;
    let last_wavefront = plans.last().is_some_and(|b| b.tiled && b.wavefront);
    inner_distribute::run(&cx, last_wavefront, &mut plan);
    if opts.trace_stages && plan.inner_distributed {
        trace.push(("inner distribute", plan.to_text(scop)));
    }
    // The stages on the materialized plan: each traced and checked when it
    // changed the plan.
    let mut observe = |stage: &'static str, plan: &Plan| -> Result<(), PlanError> {
        if opts.trace_stages {
            trace.push((stage, plan.to_text(scop)));
        }
        match check.as_mut() {
            Some(check) => check(stage, plan).map_err(|why| PlanError::Rejected { stage, why }),
            None => Ok(()),
        }
    };
    let what_before: Vec<String> = plan.dims.iter().map(|d| d.what.clone()).collect();
    sink_point::run(&cx, &mut plan);
    if plan.dims.iter().map(|d| &d.what).ne(what_before.iter()) {
        observe("point sinking", &plan)?;
    }
    let dims_before = plan.dims.len();
    tile_fusion::run(&cx, &mut plan);
    if plan.dims.len() != dims_before {
        observe("tile fusion", &plan)?;
    }
    if interleave::run(&cx, &mut plan) {
        observe("interleave", &plan)?;
    }
    if cyclic::run(&cx, &mut plan) {
        observe("cyclic tiles", &plan)?;
    }
    let dims_before = plan.dims.len();
    row_jam::run(&cx, &mut plan);
    if plan.dims.len() != dims_before {
        observe("row jam", &plan)?;
    }
    plan.stages = trace;
    Ok(plan)
}

/// Debug and test builds: with `POLYRS_BREAK_STAGE` naming `stage`, a
/// wrong decision after it (every tiled band's first tile loop parallel,
/// dependences or not), for the tests that show the check after each
/// stage catching it there.
#[cfg(debug_assertions)]
fn break_stage(stage: &str, plans: &mut [BandPlan]) {
    if std::env::var("POLYRS_BREAK_STAGE").is_ok_and(|v| v == stage) {
        for bp in plans.iter_mut().filter(|b| b.tiled) {
            bp.par_dim = Some(0);
            bp.wavefront = false;
        }
    }
}

/// The original loop order with its outermost parallel loop made parallel,
/// or `None` when the original schedule has no parallel loop.
///
/// `parallel(k)` must prove that loop dimension `k` of the original schedule
/// carries no dependence (the caller passes
/// [`crate::analysis::carried::carries`]; the checker verifies the plan
/// afterwards). Used for time-stepped stencils, where running the space
/// loops of each time step in parallel beats a skewed wavefront of tiles on
/// few cores.
pub fn original_parallel_plan(
    scop: &Scop,
    mut parallel: impl FnMut(&Schedule, usize) -> Result<bool, MathError>,
) -> Result<Option<Plan>, MathError> {
    let mut plan = original_plan(scop);
    let mut chosen = None;
    for k in 0..plan.dims.len() {
        if !plan.dims[k].scalar && parallel(&plan.schedule, k)? {
            chosen = Some(k);
            break;
        }
    }
    let Some(p) = chosen else { return Ok(None) };
    plan.dims[p].parallel = true;
    plan.notes = vec![format!(
        "original loop order kept, loop at dimension {p} parallel (no skewed wavefront)"
    )];
    Ok(Some(plan))
}

/// The original loop order as a plan, without parallel loops (what the
/// SCoP runs untransformed).
pub fn original_plan(scop: &Scop) -> Plan {
    let schedule = Schedule::original(scop);
    let n = schedule.dims.first().map_or(0, Vec::len);
    let scalar: Vec<bool> = (0..n)
        .map(|k| schedule.dims.iter().all(|d| d[k].as_constant().is_some()))
        .collect();
    let dims = (0..n)
        .map(|k| PlanDim {
            scalar: scalar[k],
            parallel: false,
            only: None,
            unroll: false,
            jam_block: false,
            tiling: Tiling::None,
            what: if scalar[k] {
                "sequence".into()
            } else {
                format!("original loop {k}")
            },
        })
        .collect();
    Plan {
        schedule,
        dims,
        max_tiled_band: 0,
        register_tiles: Vec::new(),
        register_r_size: vec![0; scop.statements.len()],
        inner_distributed: false,
        lane_dims: Vec::new(),
        block_dims: Vec::new(),
        lane_size: 0,
        restarted_wavefront: None,
        wavefront: false,
        rows_first: Vec::new(),
        scalar_stmts: Vec::new(),
        notes: Vec::new(),
        stages: Vec::new(),
    }
}

/// True when some hyperplane of the schedule combines two or more iterators
/// of a statement (a skew).
pub fn is_skewed(sched: &PlutoSchedule) -> bool {
    sched.schedule.dims.iter().any(|dims| {
        dims.iter()
            .any(|f| f.iters.iter().filter(|&&c| c != 0).count() >= 2)
    })
}
