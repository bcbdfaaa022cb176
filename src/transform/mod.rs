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

mod analysis;
mod display;
pub mod gpu;
mod point_order;
mod register_tile;
mod sizes;

use analysis::bands;
use point_order::GroupOrder;
use register_tile::RegisterTiles;

use crate::deps::Dependence;
use crate::math::MathError;
use crate::sched::pluto::{DimKind, PlutoSchedule};
use crate::sched::{verify_parallel, Schedule};
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
    /// register tiles get sizes of their own ([`sizes::register_tile_sizes`]).
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
    /// Register blocks' iterations of the vector loop where the blocks are
    /// rectangular (no domain constraint ties the two unrolled loops):
    /// wider blocks reuse each broadcast operand for more columns (gemm,
    /// 2mm, 3mm: 8x16 is 12-15% faster than 8x8), but along a triangle's
    /// diagonal more of the work falls into partial blocks (syrk: 3x
    /// slower). Not above `register_tile.1` when that is given explicitly.
    pub register_tile_wide: i64,
    /// Inside the tiles of a band whose innermost point loop carries a
    /// recurrence and that has no coincident loop, run the points along
    /// wavefronts (the first point dimension the sum of the band's
    /// hyperplanes): consecutive iterations of the innermost loop are then
    /// independent.
    pub inner_wavefront: bool,
    /// Unroll-and-jam factor of the point loops outside the innermost one
    /// (0 or 1: off); as many of them, innermost first, as keep the
    /// unrolled body at most [`MAX_JAM_COPIES`] statement copies.
    pub unroll_jam: i64,
    /// Register tile `(u, v)` of bands of three or more loops (off when
    /// `v <= 1` or with `unroll_jam`): see [`analysis::register_dims`]; the point
    /// loop of the writes' invariant dimension goes inside blocks of `u`
    /// iterations of another point loop and `v` of the vector loop, which
    /// are unrolled, so the written cells stay in registers across it.
    pub register_tile: (i64, i64),
}

/// Largest number of copies of a statement that unroll-and-jam makes.
pub const MAX_JAM_COPIES: i64 = 16;

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
    /// [`analysis::Band::tile_partial`]); the others' stay sequential.
    pub only: Option<Vec<bool>>,
    /// The loop is unrolled when its trip count is a small constant (the
    /// inner half of an unroll-and-jam).
    pub unroll: bool,
    /// What it is, for remarks: `tile of φ1`, `point φ0`, `wavefront`, ….
    pub what: String,
}

impl PlanDim {
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
    /// Register tiles: the dimension of the first unrolled loop `u` (its
    /// blocks are dimension `u - 3`, the vector loop's blocks `u - 2`, the
    /// loop inside the tile `u - 1`, the unrolled vector loop `u + 1`) and
    /// the block sizes of the two unrolled loops.
    pub register_tiles: Vec<(usize, i64, i64)>,
    /// Per statement with a register tile, the tile size of the loop kept
    /// inside the tile (`r`: gemm's `k`), whose iterations inside one tile
    /// are consecutive values; 0 for the others.
    pub register_r_size: Vec<i64>,
    /// The statements of the innermost loop were given a loop each (the
    /// scalar dimension ordering them moved before it).
    pub inner_distributed: bool,
    /// A band run as a wavefront inside sequential loops (it fills and
    /// drains at every iteration of them): the schedule dimension where
    /// that band starts, the first one.
    pub restarted_wavefront: Option<usize>,
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

/// Builds the final plan from the scheduler's result.
pub fn plan(
    scop: &Scop,
    sched: &PlutoSchedule,
    deps: &[Dependence],
    opts: &Options,
) -> Result<Plan, MathError> {
    let ns = scop.statements.len();
    let kinds = &sched.dims;
    let bands = bands(sched);
    let mut notes = Vec::new();
    // Which band dims are tiled, and the band of each dim.
    let tiled: Vec<bool> = bands.iter().map(|b| opts.tile && b.len >= 2).collect();
    let band_of = |k: usize| {
        bands
            .iter()
            .position(|b| k >= b.first && k < b.first + b.len)
    };
    // The first dimension whose loop can be parallel (its tile loop when
    // tiled) carries the parallel loop.
    let first_coincident = (0..kinds.len()).find(|&k| {
        band_of(k).is_some_and(|b| {
            let d = k - bands[b].first;
            if tiled[b] {
                bands[b].tile_parallel(d)
            } else {
                bands[b].coincident[d]
            }
        })
    });
    let mut dims: Vec<Vec<Form>> = vec![Vec::new(); ns];
    let mut locals: Vec<Locals> = vec![Locals::default(); ns];
    let mut plan_dims: Vec<PlanDim> = Vec::new();
    let mut parallel_taken = false;
    let mut max_tiled_band = 0;
    let mut register_tiles = Vec::new();
    let mut register_r_size = vec![0i64; ns];
    let mut restarted_wavefront = None;
    // The last band was tiled as a wavefront.
    let mut last_wavefront = false;
    let mut k = 0;
    while k < kinds.len() {
        let Some(bi) = band_of(k) else {
            for (s, d) in dims.iter_mut().enumerate() {
                d.push(sched.schedule.dims[s][k].clone());
            }
            plan_dims.push(PlanDim {
                scalar: true,
                parallel: false,
                only: None,
                unroll: false,
                what: "sequence".into(),
            });
            k += 1;
            continue;
        };
        let band = &bands[bi];
        if !tiled[bi] {
            for d in 0..band.len {
                let par = opts.parallel
                    && band.coincident[d]
                    && (opts.nested
                        || (!parallel_taken && Some(band.first + d) == first_coincident));
                parallel_taken |= par;
                for (s, row) in dims.iter_mut().enumerate() {
                    row.push(sched.schedule.dims[s][band.first + d].clone());
                }
                plan_dims.push(PlanDim {
                    scalar: false,
                    parallel: par,
                    only: None,
                    unroll: false,
                    what: format!("φ{}", band.first + d),
                });
            }
            last_wavefront = false;
            k += band.len;
            continue;
        }
        // Tile sizes of this band.
        let size = |d: usize| -> i64 {
            opts.sizes
                .get(d)
                .or(opts.sizes.last())
                .copied()
                .unwrap_or(32)
                .max(1)
        };
        let base_sizes: Vec<i64> = (0..band.len).map(size).collect();
        // Point order, per group of statements that share the band's loops
        // (same scalar dimensions before it): a coincident stride-1
        // dimension moves innermost. Statements in different groups never
        // share a tile, so each group gets its own order.
        let groups = analysis::band_groups(sched, band.first);
        let mut orders: Vec<Vec<usize>> = vec![(0..band.len).collect(); ns];
        let mut sizes_of: Vec<Vec<i64>> = vec![base_sizes.clone(); ns];
        // Statements whose group got a stride-1 innermost point loop.
        let mut vector_group = vec![false; ns];
        // Statements whose tiles' points run along wavefronts.
        let mut inner_wave = vec![false; ns];
        let cx = point_order::Cx {
            scop,
            sched,
            deps,
            opts,
            parallel_taken,
            first_coincident,
        };
        for (_, members) in &groups {
            let GroupOrder {
                order,
                sizes,
                vector,
                inner_wave: wave,
            } = point_order::choose(&cx, band, members, &base_sizes, &mut notes);
            for &s in members {
                vector_group[s] = vector;
                inner_wave[s] = wave;
            }
            for &s in members {
                orders[s] = order.clone();
                sizes_of[s] = sizes.clone();
            }
        }
        // Loops to unroll-and-jam: by their position in the point order,
        // the ones just outside the innermost, as many as the copy limit
        // allows (the same count for every group: one set of dimensions).
        let jam_count = if opts.unroll_jam > 1 {
            let mut c = 0usize;
            let mut copies = opts.unroll_jam;
            while c + 1 < band.len && copies <= MAX_JAM_COPIES {
                c += 1;
                copies = copies.saturating_mul(opts.unroll_jam);
            }
            c
        } else {
            0
        };
        let jam_positions: Vec<usize> = (band.len - 1 - jam_count..band.len - 1).collect();
        // Parallel tile loop: the band's first coincident dim, if it is the
        // schedule's first (or nested parallelism is on).
        let par_dim = (0..band.len).find(|&d| {
            band.tile_parallel(d)
                && opts.parallel
                && (opts.nested || (!parallel_taken && Some(band.first + d) == first_coincident))
        });
        let RegisterTiles { reg, ru, rv } = register_tile::choose(
            scop,
            sched,
            opts,
            band,
            &groups,
            &vector_group,
            &orders,
            &mut sizes_of,
            jam_count,
            par_dim,
        );
        for (s, r) in reg.iter().enumerate() {
            if let Some((_, _, r)) = r {
                register_r_size[s] = sizes_of[s][*r];
            }
        }
        // A vector loop along which an access is strided (cholesky's
        // `A[j][k]` along `j`), in a group left without a register tile,
        // gathers at every iteration. The band's innermost loop is kept
        // there instead when every access of the statements with the most
        // loops (the bulk of the work) is contiguous or invariant along it:
        // cholesky at LARGE, 0.54 s -> 0.47 s, its `A[i][j]` updated
        // along `k` through memory.
        let last = band.len - 1;
        for (_, members) in &groups {
            let s0 = members[0];
            let v = orders[s0].last().copied().unwrap_or(last);
            let deepest = analysis::deepest(scop, members);
            if !vector_group[s0]
                || reg[s0].is_some()
                || v == last
                || analysis::contiguous_along(scop, sched, band, v, &deepest)
                || !analysis::contiguous_along(scop, sched, band, last, &deepest)
            {
                continue;
            }
            for &s in members {
                orders[s] = (0..band.len).collect();
                sizes_of[s] = base_sizes.clone();
                vector_group[s] = false;
            }
            let moved = format!(
                "point loop φ{} moved innermost (stride-1 accesses)",
                band.first + v
            );
            let still = (0..ns).any(|s| vector_group[s] && orders[s].last() == Some(&v));
            if !still {
                notes.retain(|n| *n != moved);
            }
            notes.push(format!(
                "point loop φ{} kept innermost (contiguous accesses; φ{} would gather)",
                band.first + last,
                band.first + v
            ));
        }
        let same_order = orders.windows(2).all(|w| w[0] == w[1]);
        let reg_on = reg.iter().any(Option::is_some);
        let wavefront = opts.wavefront
            && opts.parallel
            && !parallel_taken
            && !(0..band.len).any(|d| band.tile_parallel(d))
            && band.len >= 2;
        let l2 = opts.l2_factor > 1;
        for s in 0..ns {
            let jam: Vec<usize> = jam_positions.iter().map(|&p| orders[s][p]).collect();
            let phis: Vec<Form> = (0..band.len)
                .map(|d| sched.schedule.dims[s][band.first + d].clone())
                .collect();
            let mut tile_locals = Vec::new();
            let mut l2_locals = Vec::new();
            for (d, phi) in phis.iter().enumerate() {
                let mut def = |t: i64| tile_local(&mut locals[s], phi, t);
                let sizes = &sizes_of[s];
                if l2 {
                    let big = sizes[d]
                        .checked_mul(opts.l2_factor)
                        .ok_or(MathError::Overflow)?;
                    l2_locals.push(def(big)?);
                }
                tile_locals.push(def(sizes[d])?);
            }
            let tile_forms = |ls: &[usize]| -> Vec<Form> {
                let mut f: Vec<Form> = ls.iter().map(|&l| Form::local(l)).collect();
                if wavefront {
                    f[0] = Form::local(ls[0])
                        .plus(&Form::local(ls[1]))
                        .unwrap_or_else(|_| Form::local(ls[0]));
                }
                f
            };
            if l2 {
                dims[s].extend(tile_forms(&l2_locals));
            }
            dims[s].extend(tile_forms(&tile_locals));
            if reg_on {
                // [other points], ⌊φu/ru⌋, ⌊φv/rv⌋, φr, φu, φv: the last two
                // unrolled inside the loop over φr.
                match reg[s] {
                    Some((u, v, r)) => {
                        for &d in &orders[s] {
                            if d != u && d != v && d != r {
                                dims[s].push(phis[d].clone());
                            }
                        }
                        let qu = tile_local(&mut locals[s], &phis[u], ru)?;
                        let qv = tile_local(&mut locals[s], &phis[v], rv)?;
                        dims[s].push(Form::local(qu));
                        dims[s].push(Form::local(qv));
                        dims[s].push(phis[r].clone());
                        dims[s].push(phis[u].clone());
                        dims[s].push(phis[v].clone());
                    }
                    None => {
                        for &d in &orders[s] {
                            dims[s].push(phis[d].clone());
                        }
                        dims[s].push(Form::constant(0));
                        dims[s].push(Form::constant(0));
                    }
                }
                continue;
            }
            // Wavefronts inside the tile: the last two point dimensions
            // `a, b` become `a + b, b`, for every statement of the group
            // alike (a unimodular change of the pair: the rows span what
            // they spanned, even where `a` and `b` are dependent for a
            // statement, `i` and `3i` say).
            if inner_wave[s] && jam.is_empty() && orders[s].len() >= 2 {
                let n = orders[s].len();
                for &d in &orders[s][..n - 2] {
                    dims[s].push(phis[d].clone());
                }
                let (a, b) = (orders[s][n - 2], orders[s][n - 1]);
                dims[s].push(phis[a].plus(&phis[b]).map_err(|_| MathError::Overflow)?);
                dims[s].push(phis[b].clone());
                continue;
            }
            // Unroll-and-jam: a jammed point loop runs over blocks of `u`
            // (`u·q <= φ <= u·q + u - 1`) and its points come innermost,
            // after the other point loops, to be unrolled.
            for &d in &orders[s] {
                if jam.contains(&d) {
                    let q = tile_local(&mut locals[s], &phis[d], opts.unroll_jam)?;
                    dims[s].push(Form::local(q));
                } else {
                    dims[s].push(phis[d].clone());
                }
            }
            for &d in orders[s].iter().filter(|d| jam.contains(d)) {
                dims[s].push(phis[d].clone());
            }
        }
        let levels: Vec<&str> = if l2 {
            vec!["L2 tile", "tile"]
        } else {
            vec!["tile"]
        };
        for (li, level) in levels.iter().enumerate() {
            for d in 0..band.len {
                let outermost_level = li == 0;
                let par = if wavefront {
                    outermost_level && d == 1
                } else {
                    outermost_level && Some(d) == par_dim
                };
                parallel_taken |= par;
                let what = if wavefront && d == 0 {
                    format!("{level} wavefront φ{} + φ{}", band.first, band.first + 1)
                } else {
                    format!("{level} of φ{}", band.first + d)
                };
                let only = if par && !wavefront {
                    band.tile_partial[d].clone()
                } else {
                    None
                };
                if let Some(mask) = &only {
                    let names = |on: bool| -> Vec<&str> {
                        (0..ns)
                            .filter(|&s| mask[s] == on)
                            .map(|s| scop.statements[s].name.as_str())
                            .collect()
                    };
                    notes.push(format!(
                        "tile loop of φ{} parallel for {} only ({} in order: loops of their own, along one dimension of the band)",
                        band.first + d,
                        names(true).join(", "),
                        names(false).join(", ")
                    ));
                }
                plan_dims.push(PlanDim {
                    scalar: false,
                    parallel: par,
                    only,
                    unroll: false,
                    what,
                });
            }
        }
        let point_name = |pos: usize| {
            if same_order {
                format!("φ{}", band.first + orders[0][pos])
            } else {
                format!("point loop {pos} of the band")
            }
        };
        if reg_on {
            let point = |pos: usize, what: &str| PlanDim {
                scalar: false,
                parallel: false,
                only: None,
                unroll: false,
                what: format!("{what} (point loop {pos} of the band)"),
            };
            for pos in 0..band.len - 3 {
                plan_dims.push(point(pos, "point"));
            }
            plan_dims.push(point(band.len - 3, "register blocks"));
            plan_dims.push(point(band.len - 2, "register blocks of the vector loop"));
            plan_dims.push(point(band.len - 1, "loop inside the register tile"));
            register_tiles.push((plan_dims.len(), ru, rv));
            for what in ["unrolled register tile", "unrolled register tile (vector)"] {
                plan_dims.push(PlanDim {
                    scalar: false,
                    parallel: false,
                    only: None,
                    unroll: true,
                    what: what.into(),
                });
            }
            notes.push(format!("register tile {ru}x{rv}"));
        }
        for pos in 0..band.len {
            if reg_on {
                break;
            }
            plan_dims.push(PlanDim {
                scalar: false,
                parallel: false,
                only: None,
                unroll: false,
                what: if jam_positions.contains(&pos) {
                    format!("unroll-jam blocks of {}", point_name(pos))
                } else {
                    format!("point {}", point_name(pos))
                },
            });
        }
        for &pos in &jam_positions {
            plan_dims.push(PlanDim {
                scalar: false,
                parallel: false,
                only: None,
                unroll: true,
                what: format!("unrolled {}", point_name(pos)),
            });
        }
        if jam_count > 0 {
            notes.push(format!(
                "{} point loop{} unrolled and jammed by {}",
                jam_count,
                if jam_count == 1 { "" } else { "s" },
                opts.unroll_jam
            ));
        }
        max_tiled_band = max_tiled_band.max(band.len);
        let mut size_texts: Vec<String> = Vec::new();
        for sizes in &sizes_of {
            let t: Vec<String> = sizes.iter().map(i64::to_string).collect();
            let t = t.join("x");
            if !size_texts.contains(&t) {
                size_texts.push(t);
            }
        }
        notes.push(format!(
            "band of {} loops tiled {}{}",
            band.len,
            size_texts.join(" / "),
            if l2 {
                format!(" (second level x{})", opts.l2_factor)
            } else {
                String::new()
            }
        ));
        if wavefront {
            // Inside a sequential loop the wavefront fills and drains once
            // per iteration of it: worth saying, since it may not pay
            // (floyd-warshall: 0.89x, memory bound; gramschmidt: 3-5x).
            let outer = (0..band.first)
                .filter(|&k| !matches!(kinds[k], DimKind::Scalar))
                .count();
            if outer > 0 && restarted_wavefront.is_none() {
                restarted_wavefront = Some(band.first);
            }
            notes.push(if outer == 0 {
                "tiles run as a parallel wavefront".into()
            } else {
                format!(
                    "tiles run as a parallel wavefront, restarted at every iteration of the {} \
                     around it",
                    if outer == 1 {
                        "sequential loop".to_string()
                    } else {
                        format!("{outer} sequential loops")
                    }
                )
            });
        }
        last_wavefront = wavefront;
        k += band.len;
    }
    let mut schedule = Schedule { dims, locals };
    let mut inner_distributed = false;
    // Statements that share the innermost loop only because the scalar
    // dimension ordering them comes last (the sweeps of a fused, skewed
    // Jacobi stencil: one reads what the other wrote a few iterations
    // before, and LLVM vectorizes neither) get a loop each when ordering
    // them first is legal.
    let n = plan_dims.len();
    // Only inside wavefront tiles (skewed stencils): gemver's fused updates
    // run faster in one vectorized loop than in two.
    if n >= 2
        && last_wavefront
        && plan_dims[n - 1].scalar
        && !plan_dims[n - 2].scalar
        && !plan_dims[n - 2].unroll
        && !plan_dims[n - 2].parallel
        && register_tiles.is_empty()
    {
        let sigma = |s: usize| schedule.dims[s][n - 1].as_constant();
        let distinct = (1..ns).any(|s| sigma(s) != sigma(0));
        // The swap is legal when no dependence from a statement ordered
        // later by the scalar dimension to one ordered earlier is carried
        // by the innermost loop (the plan itself is legal: equal outer
        // dimensions and a positive distance there are what it would
        // reverse). One level, only those dependences: the full check of
        // the final plan comes later, in the pass.
        if distinct {
            let backward: Vec<Dependence> = deps
                .iter()
                .filter(|d| sigma(d.source.0) > sigma(d.sink.0))
                .cloned()
                .collect();
            if verify_parallel(scop, &backward, &schedule, n - 2).is_ok_and(|v| v.is_empty()) {
                for row in schedule.dims.iter_mut() {
                    row.swap(n - 2, n - 1);
                }
                plan_dims.swap(n - 2, n - 1);
                inner_distributed = true;
                notes.push("statements of the innermost loop distributed".into());
            }
        }
    }
    Ok(Plan {
        schedule,
        dims: plan_dims,
        notes,
        max_tiled_band,
        restarted_wavefront,
        register_tiles,
        register_r_size,
        inner_distributed,
    })
}

/// The original loop order with its outermost parallel loop made parallel,
/// or `None` when the original schedule has no parallel loop.
///
/// `parallel(k)` must prove that loop dimension `k` of the original schedule
/// carries no dependence (the caller passes the independent checker). Used
/// for time-stepped stencils, where running the space loops of each time
/// step in parallel beats a skewed wavefront of tiles on few cores.
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
        restarted_wavefront: None,
        notes: Vec::new(),
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
