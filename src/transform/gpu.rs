//! The GPU plan: which loops become the grid's blocks, which the blocks'
//! threads, and which run on the host around the launches or inside each
//! thread (PPCG's mapping, Verdoolaege et al. 2013).
//!
//! The first permutable band with dimensions whose tile loops are parallel
//! (every dependence not satisfied before the band has distance zero along
//! them: [`crate::sched::pluto::PlutoSchedule::band_coincident`]) is
//! mapped. Its parallel dimensions `C` (at most three, the innermost ones)
//! are tiled, each by its thread-block size, and the band becomes
//!
//! ```text
//! [ ⌊φ_c / T_c⌋ … (blocks),  φ_c … (threads),  φ_r … (the others, inside each thread) ]
//! ```
//!
//! Moving the parallel dimensions in front of the band's other ones is
//! legal because their distances are zero for every dependence the band
//! has to respect; the block and thread loops are parallel for the same
//! reason. The independent checker proves both on the final schedule
//! before any code is written (the pass's `check` stage). Dimensions
//! before the band (a stencil's time loop, sequences of nests) run on the
//! host around the launches; dimensions after it run inside each thread.
//!
//! The innermost parallel dimension goes to `x` (its tile is the warp
//! size, so that the stride-1 accesses of row-major arrays coalesce), the
//! next to `y`, then `z`; a block has [`THREADS_PER_BLOCK`] threads.

use super::analysis::{band_groups, bands, extent_of, stmt_band_parallel, Band};
use super::{tile_local, Plan, PlanDim, Tiling};
use crate::math::constraint::BasicRel;
use crate::math::union::UnionRel;
use crate::math::MathError;
use crate::sched::pluto::{DimKind, PlutoSchedule};
use crate::sched::Schedule;
use crate::scop::form::Form;
use crate::scop::model::{AccessKind, Scop, StmtId};
use crate::target::gpu::GpuTarget;

/// Threads per block of the default block shape: eight warps, a model
/// parameter (enough warps per block to hide memory latency while several
/// blocks share a streaming multiprocessor), not a measurement.
pub const THREADS_PER_BLOCK: i64 = 256;

/// Rows of the y-mapped loop each thread runs by default (a register tile
/// per thread): a model parameter, not a measurement. Four accumulators
/// and the row operands fit any GPU's register budget (255 per thread on
/// sm_80 and sm_90) with room for the addresses, and each operand shared
/// by the rows (gemm's `B[k][j]`) is loaded once for four rows.
pub const THREAD_TILE_ROWS: i64 = 4;

/// The shape the options ask for: threads per block (`x` first; the last
/// repeats; empty: [`block_shape`]), rows per thread (0:
/// [`THREAD_TILE_ROWS`], 1: none) and the tile of the threads' sequential
/// loop that every thread of a block runs together (0: none; see
/// [`shared_tile`]).
#[derive(Debug, Clone, Copy)]
pub struct Shape<'a> {
    /// Threads per block, `x` first.
    pub block: &'a [i64],
    /// Rows of the y-mapped loop per thread.
    pub thread_rows: i64,
    /// Iterations of the first loop inside each thread per step of the
    /// block's cooperative loop, whose footprints go to shared memory.
    pub shared_tile: i64,
}

/// The tile of the threads' sequential loop whose footprints a block
/// copies to shared memory at each step (gemm's `k`): the warp size, a
/// model parameter. A warp then copies one row of a `K × 32` tile of `B`
/// in one coalesced access, and gemm's two tiles of a 32x8 block with 4
/// rows per thread (`32 × K` of `A`, `K × 32` of `B`, doubles) take
/// 16 KiB, a third of the shared memory a block may use without opting
/// in: several blocks fit on a streaming multiprocessor.
pub fn shared_tile(gpu: &GpuTarget) -> i64 {
    i64::from(gpu.warp).max(1)
}

/// What one schedule dimension becomes on the GPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GpuRole {
    /// A loop (or sequence) on the host, around the launches.
    Host,
    /// A tile loop mapped to the grid's blocks.
    Block,
    /// A point loop mapped to the threads of a block: its value is
    /// `size · (tile dimension) + thread id`.
    Thread {
        /// The plan dimension of its tile loop.
        tile: usize,
        /// The tile size, the block's extent along this loop.
        size: i64,
    },
    /// A loop inside each thread.
    Inside,
    /// A sequential loop inside the kernel, between the block loops and
    /// the thread loops, that every thread of a block runs alike (its
    /// bounds depend on the blocks only): the tiles of the first loop
    /// inside each thread. Each of its steps may copy footprints to shared
    /// memory, with barriers around their uses.
    Cooperative,
}

/// A plan for the GPU and the role of each of its dimensions.
#[derive(Debug, Clone)]
pub struct GpuPlan {
    /// The plan (block and thread loops are its parallel dimensions).
    pub plan: Plan,
    /// Per plan dimension, its role.
    pub roles: Vec<GpuRole>,
}

/// The block extents for `n` mapped dimensions, `x` first: the warp size
/// along `x` and the rest of [`THREADS_PER_BLOCK`] along `y` and `z`
/// (one dimension: all of them along `x`).
pub fn block_shape(gpu: &GpuTarget, n: usize) -> Vec<i64> {
    let total = THREADS_PER_BLOCK.min(i64::from(gpu.max_threads_per_block));
    let warp = i64::from(gpu.warp).clamp(1, total);
    match n {
        0 => Vec::new(),
        1 => vec![total],
        2 => vec![warp, (total / warp).max(1)],
        _ => {
            let rest = (total / warp).max(1);
            let y = (rest / 2).max(1);
            vec![warp, y, (rest / y).max(1)]
        }
    }
}

/// Per statement, the dimensions of `band` its launches map (outermost
/// first, the innermost three): those whose tile loops are parallel for
/// every statement ([`Band::tile_coincident`]) and, for the statements
/// that the scalar dimensions before the band split into a group of their
/// own (loops and launches of their own), those whose tile loops are
/// parallel for the group's dependences
/// ([`PlutoSchedule::stmt_band_coincident`]) and along which the group
/// has a loop. Covariance's band is parallel along `j` only, since the
/// means' sums run along `i` in it, but its products `cov[i][j]` are a
/// group of their own, parallel along `i` and `j`.
fn group_mapped(sched: &PlutoSchedule, band: &Band, ns: usize) -> Vec<Vec<usize>> {
    let rows = &sched.schedule.dims;
    let mut out = vec![Vec::new(); ns];
    for (_, group) in band_groups(sched, band.first) {
        let parallel = |d: usize| {
            group
                .iter()
                .all(|&s| stmt_band_parallel(sched, band.first + d, s))
        };
        let has_loop = |d: usize| {
            group
                .iter()
                .any(|&s| rows[s][band.first + d].iters.iter().any(|&c| c != 0))
        };
        let mut own: Vec<usize> = (0..band.len)
            .filter(|&d| band.tile_coincident[d] || (parallel(d) && has_loop(d)))
            .collect();
        if own.len() > 3 {
            own.drain(..own.len() - 3);
        }
        for &s in &group {
            out[s] = own.clone();
        }
    }
    out
}

/// The threads per block of a one-dimensional mapping over `extent`
/// iterations (`None`: parametric): enough blocks to give each streaming
/// multiprocessor one, each a multiple of the warp size, from one warp up
/// to [`THREADS_PER_BLOCK`]. Matrix-vector products map their 1000 to
/// 2000 rows or columns, each a long sequential loop: in blocks of 256
/// they ran on 4 to 8 of the H200's 132 multiprocessors, in blocks of 32
/// on 32 to 63, 2 to 3 times faster (docs/benchmarks-gpu.md). A model of
/// the GPU (its multiprocessors and warp size), not a measurement.
pub fn one_dim_block(gpu: &GpuTarget, extent: Option<i64>) -> i64 {
    let total = THREADS_PER_BLOCK.min(i64::from(gpu.max_threads_per_block));
    let warp = i64::from(gpu.warp).clamp(1, total);
    let Some(n) = extent.filter(|&n| n > 0) else {
        return total;
    };
    let per_sm = (n + i64::from(gpu.sms).max(1) - 1) / i64::from(gpu.sms).max(1);
    let warps = (per_sm + warp - 1) / warp;
    (warps * warp).clamp(warp, total)
}

/// The GPU plan of `sched`, or `None` when no band has a parallel
/// dimension (the SCoP then stays on the host). `shape.block` overrides
/// the block extents (`x` first; the last one repeats).
///
/// With two or more mapped dimensions and some of the band's dimensions
/// inside the threads (a sequential loop, gemm's `k`), each thread runs
/// `R` consecutive points of the y-mapped dimension `φ_y` (a register tile
/// per thread, [`THREAD_TILE_ROWS`] or `shape.thread_rows`): its blocks
/// tile `φ_y` by `R · T_y`, its threads run `⌊φ_y / R⌋`, and `φ_y` itself
/// runs innermost inside each thread, unrolled where its trip count is
/// constant, so that the cells fixed along the sequential loop stay in
/// registers for each of the `R` rows. Moving `φ_y` innermost is legal for
/// the same reason as mapping it: its distances are zero; the checker
/// proves the final schedule.
pub fn plan(
    scop: &Scop,
    sched: &PlutoSchedule,
    gpu: &GpuTarget,
    shape: Shape,
) -> Result<Option<GpuPlan>, MathError> {
    let block = shape.block;
    let ns = scop.statements.len();
    let bands = bands(sched, false);
    let Some(band) = bands.iter().find(|b| b.tile_coincident.iter().any(|&c| c)) else {
        return Ok(None);
    };
    // The mapped dimensions of the band, outermost first: the innermost
    // three parallel ones; per statement, those of its group (see
    // `group_mapped`), which has these and maybe more.
    let mut mapped: Vec<usize> = (0..band.len).filter(|&d| band.tile_coincident[d]).collect();
    if mapped.len() > 3 {
        mapped.drain(..mapped.len() - 3);
    }
    let mapped_of = group_mapped(sched, band, ns);
    let m_all = mapped_of
        .iter()
        .map(Vec::len)
        .max()
        .unwrap_or(0)
        .max(mapped.len());
    let m_least = mapped_of.iter().map(Vec::len).min().unwrap_or(0);
    // Statement `s`'s band dimension in slot `i` of the `m_all` mapped ones
    // (its own dimensions in the innermost slots, `None` in the others:
    // the constant 0).
    let slot = |s: usize, i: usize| -> Option<usize> {
        let own = &mapped_of[s];
        let skip = m_all - own.len();
        (i >= skip).then(|| own[i - skip])
    };
    // Per statement, the band's other dimensions in order, padded with
    // constants to the same number for all.
    let rest_len = band.len - m_least;
    let rest_of: Vec<Vec<Option<usize>>> = (0..ns)
        .map(|s| {
            let mut r: Vec<Option<usize>> = (0..band.len)
                .filter(|d| !mapped_of[s].contains(d))
                .map(Some)
                .collect();
            r.resize(rest_len, None);
            r
        })
        .collect();
    // The band dimensions one plan dimension takes (`φ2`, or `φ1/φ2` when
    // statements differ), for the plan's descriptions.
    let phis = |pick: &dyn Fn(usize) -> Option<usize>| -> String {
        let mut ds: Vec<usize> = (0..ns).filter_map(pick).collect();
        ds.sort_unstable();
        ds.dedup();
        if ds.is_empty() {
            return "0".into();
        }
        ds.iter()
            .map(|d| format!("φ{}", band.first + d))
            .collect::<Vec<_>>()
            .join("/")
    };
    let extents: Vec<i64> = if block.is_empty() {
        let all: Vec<usize> = (0..ns).collect();
        match (m_all, mapped.first()) {
            (1, Some(&d)) => vec![one_dim_block(
                gpu,
                extent_of(scop, sched, band.first + d, &all),
            )],
            _ => block_shape(gpu, m_all),
        }
    } else {
        (0..m_all)
            .map(|k| block.get(k).or(block.last()).copied().unwrap_or(1).max(1))
            .collect()
    };
    // Tile size of mapped slot `m` (outermost first): x is the innermost.
    let size = |m: usize| extents[m_all - 1 - m];
    // The y-mapped slot and its rows per thread.
    let rows = match shape.thread_rows {
        0 => THREAD_TILE_ROWS,
        r => r.max(1),
    };
    let tiled_rows = (m_all >= 2 && rest_len > 0 && rows > 1).then(|| (m_all - 2, rows));
    // The cooperative loop: tiles of the first loop inside each thread.
    let coop = (rest_len > 0 && shape.shared_tile > 1).then_some(shape.shared_tile);
    let mut dims: Vec<Vec<Form>> = vec![Vec::new(); ns];
    let mut locals = sched.schedule.locals.clone();
    locals.resize(ns, Default::default());
    let mut plan_dims = Vec::new();
    let mut roles = Vec::new();
    let host_or_inside = |k: usize| {
        if k < band.first {
            GpuRole::Host
        } else {
            GpuRole::Inside
        }
    };
    for k in 0..sched.dims.len() {
        if k == band.first {
            for s in 0..ns {
                let phi = |d: usize| sched.schedule.dims[s][band.first + d].clone();
                for m in 0..m_all {
                    let Some(d) = slot(s, m) else {
                        dims[s].push(Form::constant(0));
                        continue;
                    };
                    let t = match tiled_rows {
                        Some((my, r)) if my == m => size(m) * r,
                        _ => size(m),
                    };
                    let l = tile_local(&mut locals[s], &phi(d), t)?;
                    dims[s].push(Form::local(l));
                }
                if let Some(k) = coop {
                    match rest_of[s][0] {
                        Some(d) => {
                            let l = tile_local(&mut locals[s], &phi(d), k)?;
                            dims[s].push(Form::local(l));
                        }
                        None => dims[s].push(Form::constant(0)),
                    }
                }
                for m in 0..m_all {
                    match (slot(s, m), tiled_rows) {
                        (None, _) => dims[s].push(Form::constant(0)),
                        (Some(d), Some((my, r))) if my == m => {
                            let l = tile_local(&mut locals[s], &phi(d), r)?;
                            dims[s].push(Form::local(l));
                        }
                        (Some(d), _) => dims[s].push(phi(d)),
                    }
                }
                for r in &rest_of[s] {
                    dims[s].push(match r {
                        Some(d) => phi(*d),
                        None => Form::constant(0),
                    });
                }
                if let Some((my, _)) = tiled_rows {
                    dims[s].push(match slot(s, my) {
                        Some(d) => phi(d),
                        None => Form::constant(0),
                    });
                }
            }
            let first_block = plan_dims.len();
            for m in 0..m_all {
                plan_dims.push(PlanDim {
                    scalar: false,
                    parallel: true,
                    only: None,
                    unroll: false,
                    jam_block: false,
                    tiling: Tiling::None,
                    what: format!("blocks over tiles of {}", phis(&|s| slot(s, m))),
                });
                roles.push(GpuRole::Block);
            }
            if let Some(k) = coop {
                plan_dims.push(PlanDim::sequential(format!(
                    "⌊{} / {k}⌋ run by every thread of a block (shared memory)",
                    phis(&|s| rest_of[s][0])
                )));
                roles.push(GpuRole::Cooperative);
            }
            for m in 0..m_all {
                plan_dims.push(PlanDim {
                    scalar: false,
                    parallel: true,
                    only: None,
                    unroll: false,
                    jam_block: false,
                    tiling: Tiling::None,
                    what: match tiled_rows {
                        Some((my, r)) if my == m => {
                            format!("threads over ⌊{} / {r}⌋", phis(&|s| slot(s, m)))
                        }
                        _ => format!("threads over {}", phis(&|s| slot(s, m))),
                    },
                });
                roles.push(GpuRole::Thread {
                    tile: first_block + m,
                    size: size(m),
                });
            }
            // `j` is a position in every statement's `rest_of`, not an
            // index of `rest_of` itself.
            #[allow(clippy::needless_range_loop)]
            for j in 0..rest_len {
                plan_dims.push(PlanDim::sequential(format!(
                    "{} inside each thread",
                    phis(&|s| rest_of[s][j])
                )));
                roles.push(GpuRole::Inside);
            }
            if let Some((my, r)) = tiled_rows {
                plan_dims.push(PlanDim {
                    scalar: false,
                    parallel: false,
                    only: None,
                    unroll: true,
                    jam_block: false,
                    tiling: Tiling::None,
                    what: format!("{}: {r} rows of each thread", phis(&|s| slot(s, my))),
                });
                roles.push(GpuRole::Inside);
            }
            continue;
        }
        if k > band.first && k < band.first + band.len {
            continue;
        }
        let scalar = matches!(sched.dims[k], DimKind::Scalar);
        for (s, row) in dims.iter_mut().enumerate() {
            row.push(sched.schedule.dims[s][k].clone());
        }
        plan_dims.push(PlanDim {
            scalar,
            parallel: false,
            only: None,
            unroll: false,
            jam_block: false,
            tiling: Tiling::None,
            what: match (scalar, host_or_inside(k)) {
                (true, _) => "sequence".into(),
                (false, GpuRole::Host) => format!("φ{k} on the host"),
                (false, _) => format!("φ{k} inside each thread"),
            },
        });
        roles.push(host_or_inside(k));
    }
    let shown: Vec<String> = (0..m_all).rev().map(|m| size(m).to_string()).collect();
    let mut notes = vec![format!(
        "band of {} loop{}: {} parallel mapped to blocks and threads (block {})",
        band.len,
        if band.len == 1 { "" } else { "s" },
        m_all,
        shown.join("x")
    )];
    if m_least < m_all {
        let mut counts: Vec<String> = Vec::new();
        for (_, group) in band_groups(sched, band.first) {
            counts.push(mapped_of[group[0]].len().to_string());
        }
        notes.push(format!(
            "parallel loops mapped per group of statements: {}",
            counts.join(", ")
        ));
    }
    if let Some((_, r)) = tiled_rows {
        notes.push(format!("register tile of {r} rows per thread"));
    }
    if let Some(k) = coop {
        notes.push(format!(
            "{} in steps of {k} run by every thread of a block",
            phis(&|s| rest_of[s][0])
        ));
    }
    Ok(Some(GpuPlan {
        plan: Plan {
            schedule: Schedule { dims, locals },
            dims: plan_dims,
            notes,
            max_tiled_band: band.len,
            register_tiles: Vec::new(),
            register_r_size: vec![0; ns],
            inner_distributed: false,
            lane_dims: Vec::new(),
            block_dims: Vec::new(),
            lane_size: 0,
            restarted_wavefront: None,
            wavefront: false,
            rows_first: Vec::new(),
            scalar_stmts: Vec::new(),
            stages: Vec::new(),
        },
        roles,
    }))
}

/// The original loop order as a schedule for [`plan`], for SCoPs whose
/// scheduled bands have no parallel tile loop (time-skewed stencils: the
/// skewed band carries a dependence along each of its dimensions). The
/// dimensions that order every statement alike (a constant shared by all)
/// are dropped, which changes no order; each remaining dimension where
/// some statement has a loop is a band of its own, except that
/// consecutive parallel dimensions form one band (each carries no
/// dependence left by the dimensions before it, so any order of them is
/// legal and they tile together). `parallel(schedule, k)` must prove that
/// dimension `k` carries no dependence (the caller's exact test); a
/// stencil's time loop is then a band without parallel dimension, on the
/// host around the launches of the space loops of each time step.
pub fn original_schedule(
    scop: &Scop,
    mut parallel: impl FnMut(&Schedule, usize) -> Result<bool, MathError>,
) -> Result<PlutoSchedule, MathError> {
    let full = Schedule::original(scop);
    let n = full.dims.first().map_or(0, Vec::len);
    let shared = |k: usize| {
        let first = full.dims.first().and_then(|d| d[k].as_constant());
        first.is_some() && full.dims.iter().all(|d| d[k].as_constant() == first)
    };
    let keep: Vec<usize> = (0..n).filter(|&k| !shared(k)).collect();
    let schedule = Schedule {
        dims: full
            .dims
            .iter()
            .map(|d| keep.iter().map(|&k| d[k].clone()).collect())
            .collect(),
        locals: full.locals.clone(),
    };
    let mut dims = Vec::new();
    let mut coincident = Vec::new();
    let mut band = 0;
    for k in 0..keep.len() {
        if schedule.dims.iter().all(|d| d[k].as_constant().is_some()) {
            dims.push(DimKind::Scalar);
            coincident.push(false);
            continue;
        }
        let par = parallel(&schedule, k)?;
        let joins = par
            && k > 0
            && matches!(
                dims.last(),
                Some(DimKind::Loop {
                    coincident: true,
                    ..
                })
            );
        if !joins && k > 0 {
            band += 1;
        }
        dims.push(DimKind::Loop {
            band,
            coincident: par,
        });
        coincident.push(par);
    }
    let ns = scop.statements.len();
    Ok(PlutoSchedule {
        schedule,
        dims,
        stmt_coincident: coincident.iter().map(|&c| vec![c; ns]).collect(),
        stmt_band_coincident: coincident.iter().map(|&c| vec![c; ns]).collect(),
        band_coincident: coincident,
        stats: Default::default(),
    })
}

/// The copies between host and device that a SCoP's array needs around
/// the kernels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Copies {
    /// Copied to the device before the kernels: the SCoP reads the array,
    /// or writes only part of it (the copy back must then return the
    /// host's values where nothing was written).
    pub to_device: bool,
    /// Copied back to the host after them: the SCoP writes the array.
    pub to_host: bool,
}

/// The copies of the array whose memref is `root` (a value key) of type
/// `ty`: copied in when one of its reads may read a value from before the
/// SCoP ([`crate::deps::reads_live_in`], exact), or when the SCoP writes it
/// but its writes are not shown to cover every element
/// (`written_everywhere`); a limit of the math core counts as "may".
///
/// A privatized temporary's expanded accesses (the arrays that
/// [`crate::scop::expansion::expand`] appends: `is_expanded`) go to
/// their own device buffer and read no value from before the SCoP; the
/// last iteration's slice of the expansion that writes the array last
/// goes back into its device buffer, and it covers every cell (a
/// condition of the expansion), so the array then needs no copy in.
pub fn copies(scop: &Scop, root: usize, ty: &str) -> Copies {
    let accesses = || {
        scop.statements.iter().enumerate().flat_map(move |(s, st)| {
            st.accesses
                .iter()
                .enumerate()
                .filter(move |(_, a)| {
                    !crate::scop::expansion::is_expanded(scop, a.array)
                        && scop.root_of(&scop.arrays[a.array.0]).key() == root
                })
                .map(move |(k, a)| (s, k, a.kind))
        })
    };
    let copied_back_whole = scop
        .expansions
        .iter()
        .any(|x| x.last.is_some() && scop.root_of(&scop.arrays[x.array.0]).key() == root);
    let read = accesses().any(|(s, k, kind)| {
        kind == AccessKind::Read && crate::deps::reads_live_in(scop, StmtId(s), k).unwrap_or(true)
    });
    let writes: Vec<(usize, usize)> = accesses()
        .filter(|&(_, _, kind)| kind == AccessKind::Write)
        .map(|(s, k, _)| (s, k))
        .collect();
    let partly_written = !writes.is_empty()
        && !copied_back_whole
        && !written_everywhere(scop, &writes, ty).unwrap_or(false);
    Copies {
        to_device: read || partly_written,
        to_host: !writes.is_empty() || copied_back_whole,
    }
}

/// True when the write accesses `writes` (statement, access) together
/// write every element of a memref of type `ty` (static shape) for every
/// value of the parameters; `Ok(false)` when they do not or the shape is
/// dynamic; errors of the math core mean "not shown".
fn written_everywhere(scop: &Scop, writes: &[(usize, usize)], ty: &str) -> Result<bool, MathError> {
    let Some((shape, _)) = crate::scop::expansion::static_shape(ty) else {
        return Ok(false);
    };
    let mut pieces = Vec::new();
    for &(s, k) in writes {
        for rel in scop.access(StmtId(s), k)? {
            pieces.push(rel.range()?);
        }
    }
    let Some(first) = pieces.first() else {
        return Ok(false);
    };
    let space = first.space().clone();
    if space.n_out() != shape.len() {
        return Ok(false);
    }
    let np = space.n_param();
    let width = space.n_total() + 1;
    let mut ineqs = Vec::new();
    for (k, &n) in shape.iter().enumerate() {
        let mut lo = vec![0; width];
        lo[np + k] = 1;
        let mut hi = vec![0; width];
        hi[np + k] = -1;
        hi[width - 1] = n - 1;
        ineqs.push(lo);
        ineqs.push(hi);
    }
    let whole = UnionRel::from_basic(BasicRel::from_constraints(space, 0, Vec::new(), ineqs)?);
    let written = UnionRel::from_pieces(&scop.params, pieces)?;
    whole.is_subset(&written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_dimensional_blocks_spread_over_the_multiprocessors() {
        let h100 = GpuTarget::preset("sm_90").expect("sm_90");
        // 132 multiprocessors, warps of 32, at most 256 threads.
        assert_eq!(one_dim_block(&h100, Some(2000)), 32);
        assert_eq!(one_dim_block(&h100, Some(1)), 32);
        assert_eq!(one_dim_block(&h100, Some(132 * 33)), 64);
        assert_eq!(one_dim_block(&h100, Some(132 * 100)), 128);
        assert_eq!(one_dim_block(&h100, Some(1 << 20)), 256);
        assert_eq!(one_dim_block(&h100, None), 256);
        assert_eq!(one_dim_block(&h100, Some(0)), 256);
    }

    #[test]
    fn block_shapes_put_the_warp_on_x() {
        let h100 = GpuTarget::preset("sm_90").expect("sm_90");
        assert_eq!(block_shape(&h100, 1), vec![256]);
        assert_eq!(block_shape(&h100, 2), vec![32, 8]);
        assert_eq!(block_shape(&h100, 3), vec![32, 4, 2]);
        for n in 1..=3 {
            let threads: i64 = block_shape(&h100, n).iter().product();
            assert!(threads <= i64::from(h100.max_threads_per_block));
        }
    }
}
