//! The declarative plan of a schedule's bands ([`BandPlan`]): what the
//! stages of [`super::plan`] decide, one band at a time, before any
//! schedule row is written; and [`materialize`], the one step that turns
//! the decisions into the final [`Plan`] (tile locals, point rows, register
//! blocks, wavefronts, each dimension's role and the remark's phrases).
//!
//! Every state of the band plans materializes to a legal plan: tiles of a
//! permutable band in any point order, its first coincident tile loop in
//! parallel, wavefronts of tiles whose distances are non-negative in every
//! coordinate. That is what lets the orchestrator hand the plan of each
//! stage to the checker.

use super::analysis::{band_groups, Band};
use super::sizes::UNTILED;
use super::{tile_local, BlockDim, Options, Plan, PlanDim, RegisterTile, Tiling};
use crate::deps::Dependence;
use crate::math::MathError;
use crate::sched::pluto::{DimKind, PlutoSchedule};
use crate::sched::Schedule;
use crate::scop::form::{Form, Locals};
use crate::scop::model::Scop;

/// What every stage reads: the SCoP, its schedule and dependences, the
/// options, and the schedule's bands.
pub(super) struct Cx<'a> {
    pub(super) scop: &'a Scop,
    pub(super) sched: &'a PlutoSchedule,
    pub(super) deps: &'a [Dependence],
    pub(super) opts: &'a Options,
    /// The schedule's bands, in order.
    pub(super) bands: Vec<Band>,
    /// The dimension whose loop runs in parallel (its tile loop when its
    /// band is tiled): see [`parallel_dimension`].
    pub(super) first_coincident: Option<usize>,
}

impl<'a> Cx<'a> {
    pub(super) fn new(
        scop: &'a Scop,
        sched: &'a PlutoSchedule,
        deps: &'a [Dependence],
        opts: &'a Options,
    ) -> Self {
        let bands = super::analysis::bands(sched, opts.steps);
        let first_coincident = parallel_dimension(scop, sched, opts, &bands);
        Cx {
            scop,
            sched,
            deps,
            opts,
            bands,
            first_coincident,
        }
    }
}

/// The dimension whose loop runs in parallel: among those whose loop can
/// be parallel (its tile loop when its band is tiled), in schedule order,
/// the first with at least one iteration per thread (`threads`), else the
/// first with one iteration per thread before tiling (whose tiles the
/// parallel-tiles stage cuts), else the first. A batch loop of extent 1 (a
/// convolution's `n`), or of 16 in tiles of 32 (one tile: a batched
/// matmul's), then leaves the parallel loop to the rows after it. A loop's iterations are the values its hyperplane
/// takes over the statements' domains, divided by the tile size of
/// `sizes` (rounded up) when its band is tiled; a parametric extent counts
/// as enough (the parameters' values are not known, and loops over them are
/// most often long).
fn parallel_dimension(
    scop: &Scop,
    sched: &PlutoSchedule,
    opts: &Options,
    bands: &[Band],
) -> Option<usize> {
    // (dimension, the tile size its iterations are counted in).
    let candidates: Vec<(usize, i64)> = bands
        .iter()
        .flat_map(|b| {
            let tiled = tiles(opts, b);
            (0..b.len)
                .filter(move |&d| {
                    if tiled {
                        b.tile_parallel(d)
                    } else {
                        b.coincident[d]
                    }
                })
                .map(move |d| {
                    let size = if tiled {
                        opts.sizes
                            .get(d)
                            .or(opts.sizes.last())
                            .copied()
                            .unwrap_or(1)
                    } else {
                        1
                    };
                    (b.first + d, size.max(1))
                })
        })
        .collect();
    let all: Vec<usize> = (0..scop.statements.len()).collect();
    let enough = |&(k, size): &(usize, i64)| {
        super::analysis::extent_of(scop, sched, k, &all)
            .is_none_or(|e| (e + size - 1) / size >= opts.threads)
    };
    // Else the first with an iteration per thread: the parallel-tiles
    // stage then cuts its tiles (`parallel_tiles.rs`).
    let iterations = |&(k, _): &(usize, i64)| enough(&(k, 1));
    candidates
        .iter()
        .find(|c| enough(c))
        .or(candidates.iter().find(|c| iterations(c)))
        .or(candidates.first())
        .map(|c| c.0)
}

/// Whether `band` is tiled: with `tile`, every band of two loops or more.
fn tiles(opts: &Options, band: &Band) -> bool {
    opts.tile && band.len >= 2
}

/// The decisions for one band. Per-statement fields are indexed by
/// statement (only the band's tiled statements' entries matter); a
/// statement's point dimensions are numbered `0..band.len` in the band's
/// order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct BandPlan {
    /// The band is tiled (at least two loops, with `tile`).
    pub(super) tiled: bool,
    /// A loop before the band runs in parallel.
    pub(super) parallel_before: bool,
    /// An untiled band: per dimension, its loop runs in parallel.
    pub(super) parallel: Vec<bool>,
    /// A tiled band: the dimension whose (outermost) tile loop runs in
    /// parallel.
    pub(super) par_dim: Option<usize>,
    /// A tiled band without a parallel tile loop: its tiles run as a
    /// wavefront (the first tile coordinate replaced by the sum of the
    /// first two, the second then parallel).
    pub(super) wavefront: bool,
    /// The groups of statements sharing the band's loops
    /// ([`band_groups`]).
    pub(super) groups: Vec<(Vec<i64>, Vec<usize>)>,
    /// The tile sizes from the options, per band dimension.
    pub(super) base_sizes: Vec<i64>,
    /// Per statement, its point dimensions, outermost first.
    pub(super) orders: Vec<Vec<usize>>,
    /// Per statement, its tile sizes per band dimension.
    pub(super) sizes: Vec<Vec<i64>>,
    /// Per statement, its group's innermost point loop is a stride-1
    /// parallel loop (the vector loop).
    pub(super) vector: Vec<bool>,
    /// Per statement, its tiles' points run along wavefronts.
    pub(super) inner_wave: Vec<bool>,
    /// Per statement, the band dimension moved innermost across a
    /// recurrence whose loop stays scalar ([`super::Options::scalar_strided`]);
    /// it does where it is still the statement's innermost point loop.
    pub(super) scalar_inner: Vec<Option<usize>>,
    /// How many point loops just outside the innermost are unrolled and
    /// jammed, by `jam_factor`.
    pub(super) jam: usize,
    /// The unroll-and-jam factor (`opts.unroll_jam`, or the lanes of row
    /// blocks).
    pub(super) jam_factor: i64,
    /// The jammed copies run as the lanes of a vector (row blocks).
    pub(super) lanes: bool,
    /// The jam's full blocks are split from the partial ones, to unroll
    /// (row blocks and column streams).
    pub(super) split_blocks: bool,
    /// Per statement, whether the jam applies to it (`None`: to every
    /// statement). Only whole groups are left out, which sit in nests of
    /// their own (a scalar dimension before the band sets them apart).
    pub(super) jam_stmts: Option<Vec<bool>>,
    /// Per statement, its register tile's point dimensions `(u, v, r)`
    /// (see `register_tile.rs`).
    pub(super) reg: Vec<Option<(usize, usize, usize)>>,
    /// How many loop dimensions after the band its register tiles take
    /// inside their blocks (see `analysis::Tail`); 0 for none.
    pub(super) tail: usize,
    /// With a `tail`: the band's point dimensions that run inside the
    /// blocks too, before the tail's loops (its reductions, in the point
    /// order: a convolution's `kh`); the others but `u` and `v` run
    /// outside them.
    pub(super) reg_inside: Vec<usize>,
    /// Register blocks' iterations of `u` and of `v`.
    pub(super) ru: i64,
    pub(super) rv: i64,
    /// What the stages did, one phrase each, for the remark.
    pub(super) notes: Vec<String>,
}

impl BandPlan {
    /// The plan of `band` before any stage: tiled with the options' sizes
    /// when it has two loops or more, points in the band's order, nothing
    /// parallel.
    pub(super) fn new(cx: &Cx, band: &Band) -> Self {
        let ns = cx.scop.statements.len();
        let opts = cx.opts;
        let tiled = tiles(opts, band);
        let size = |d: usize| -> i64 {
            opts.sizes
                .get(d)
                .or(opts.sizes.last())
                .copied()
                .unwrap_or(32)
                .max(1)
        };
        let base_sizes: Vec<i64> = (0..band.len).map(size).collect();
        BandPlan {
            tiled,
            parallel_before: false,
            parallel: vec![false; band.len],
            par_dim: None,
            wavefront: false,
            groups: if tiled {
                band_groups(cx.sched, band.first)
            } else {
                Vec::new()
            },
            orders: vec![(0..band.len).collect(); ns],
            sizes: vec![base_sizes.clone(); ns],
            base_sizes,
            vector: vec![false; ns],
            inner_wave: vec![false; ns],
            scalar_inner: vec![None; ns],
            jam: 0,
            jam_factor: opts.unroll_jam,
            lanes: false,
            split_blocks: false,
            jam_stmts: None,
            reg: vec![None; ns],
            tail: 0,
            reg_inside: Vec::new(),
            ru: 0,
            rv: 0,
            notes: Vec::new(),
        }
    }
}

/// The final plan of the band plans `plans` (one per band of `cx.bands`).
pub(super) fn materialize(cx: &Cx, plans: &[BandPlan]) -> Result<Plan, MathError> {
    let Cx {
        scop, sched, opts, ..
    } = *cx;
    let ns = scop.statements.len();
    let kinds = &sched.dims;
    let band_of = |k: usize| {
        cx.bands
            .iter()
            .position(|b| k >= b.first && k < b.first + b.len)
    };
    let mut notes = Vec::new();
    let mut dims: Vec<Vec<Form>> = vec![Vec::new(); ns];
    let mut locals: Vec<Locals> = vec![Locals::default(); ns];
    let mut plan_dims: Vec<PlanDim> = Vec::new();
    let mut max_tiled_band = 0;
    let mut register_tiles = Vec::new();
    let mut register_r_size = vec![0i64; ns];
    let mut lane_dims = Vec::new();
    let mut scalar_stmts = vec![false; ns];
    let mut block_dims = Vec::new();
    let mut restarted_wavefront = None;
    let mut any_wavefront = false;
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
                jam_block: false,
                tiling: Tiling::None,
                what: "sequence".into(),
            });
            k += 1;
            continue;
        };
        let band = &cx.bands[bi];
        let bp = &plans[bi];
        if !bp.tiled {
            for d in 0..band.len {
                for (s, row) in dims.iter_mut().enumerate() {
                    row.push(sched.schedule.dims[s][band.first + d].clone());
                }
                plan_dims.push(PlanDim {
                    scalar: false,
                    parallel: bp.parallel[d],
                    only: None,
                    unroll: false,
                    jam_block: false,
                    tiling: Tiling::None,
                    what: format!("φ{}", band.first + d),
                });
            }
            k += band.len;
            continue;
        }
        notes.extend(bp.notes.iter().cloned());
        any_wavefront |= bp.wavefront || bp.inner_wave.contains(&true);
        let orders = &bp.orders;
        let sizes_of = &bp.sizes;
        let reg = &bp.reg;
        let (ru, rv) = (bp.ru, bp.rv);
        let wavefront = bp.wavefront;
        for (s, r) in reg.iter().enumerate() {
            if let Some((_, _, r)) = r {
                // A loop after the band is not tiled: no size.
                register_r_size[s] = sizes_of[s].get(*r).copied().unwrap_or(0);
            }
        }
        // The loops after the band that the register tiles take inside
        // their blocks (`bp.tail`), per statement.
        let tail_forms = |s: usize| -> Vec<Form> {
            (band.first + band.len..band.first + band.len + bp.tail)
                .map(|k| sched.schedule.dims[s][k].clone())
                .collect()
        };
        // With them, the band's points inside the blocks
        // (`bp.reg_inside`) and those outside.
        let (outside, inside) = match reg.iter().flatten().next() {
            Some(&(u, v, _)) if bp.tail > 0 => (
                orders[0]
                    .iter()
                    .copied()
                    .filter(|d| *d != u && *d != v && !bp.reg_inside.contains(d))
                    .collect::<Vec<_>>(),
                bp.reg_inside.clone(),
            ),
            _ => (Vec::new(), Vec::new()),
        };
        let jam_positions: Vec<usize> = (band.len - 1 - bp.jam..band.len - 1).collect();
        let same_order = orders.windows(2).all(|w| w[0] == w[1]);
        let reg_on = reg.iter().any(Option::is_some);
        let l2 = opts.l2_factor > 1;
        for s in 0..ns {
            let jam: Vec<usize> = if bp.jam_stmts.as_ref().is_none_or(|m| m[s]) {
                jam_positions.iter().map(|&p| orders[s][p]).collect()
            } else {
                Vec::new()
            };
            let phis: Vec<Form> = (0..band.len)
                .map(|d| sched.schedule.dims[s][band.first + d].clone())
                .collect();
            let mut tile_locals = Vec::new();
            let mut l2_locals = Vec::new();
            for (d, phi) in phis.iter().enumerate() {
                // A loop not cut (`UNTILED`, a stream of symbolic
                // extent) has the tile coordinate 0: its tile is the
                // whole loop.
                let mut def = |t: i64| -> Result<Form, MathError> {
                    if t >= UNTILED {
                        Ok(Form::constant(0))
                    } else {
                        Ok(Form::local(tile_local(&mut locals[s], phi, t)?))
                    }
                };
                let sizes = &sizes_of[s];
                if l2 {
                    let big = sizes[d].saturating_mul(opts.l2_factor);
                    l2_locals.push(def(big)?);
                }
                tile_locals.push(def(sizes[d])?);
            }
            let tile_forms = |ls: &[Form]| -> Vec<Form> {
                let mut f: Vec<Form> = ls.to_vec();
                if wavefront {
                    f[0] = ls[0].plus(&ls[1]).unwrap_or_else(|_| ls[0].clone());
                }
                f
            };
            if l2 {
                dims[s].extend(tile_forms(&l2_locals));
            }
            dims[s].extend(tile_forms(&tile_locals));
            if reg_on {
                // The last two unrolled inside the loop inside the tile.
                match reg[s] {
                    Some((u, v, r)) => {
                        // [points outside], ⌊φu/ru⌋, ⌊φv/rv⌋, [points
                        // inside], [loops inside the tile], φu, φv; with
                        // loops after the band, those are the loops inside
                        // the tile, else `φr`.
                        let (out, inner) = if bp.tail > 0 {
                            (outside.clone(), tail_forms(s))
                        } else {
                            let out = orders[s]
                                .iter()
                                .copied()
                                .filter(|&d| d != u && d != v && d != r)
                                .collect();
                            (out, vec![phis[r].clone()])
                        };
                        for &d in &out {
                            dims[s].push(phis[d].clone());
                        }
                        let qu = tile_local(&mut locals[s], &phis[u], ru)?;
                        let qv = tile_local(&mut locals[s], &phis[v], rv)?;
                        dims[s].push(Form::local(qu));
                        dims[s].push(Form::local(qv));
                        for &d in &inside {
                            dims[s].push(phis[d].clone());
                        }
                        dims[s].extend(inner);
                        dims[s].push(phis[u].clone());
                        dims[s].push(phis[v].clone());
                    }
                    None => {
                        for &d in &orders[s] {
                            dims[s].push(phis[d].clone());
                        }
                        // The loops after the band that the blocks take
                        // inside (constants for a statement without a
                        // register tile: it runs none there).
                        dims[s].extend(tail_forms(s));
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
            if bp.inner_wave[s] && jam.is_empty() && orders[s].len() >= 2 {
                let n = orders[s].len();
                for &d in &orders[s][..n - 2] {
                    dims[s].push(phis[d].clone());
                }
                let (a, b) = (orders[s][n - 2], orders[s][n - 1]);
                dims[s].push(phis[a].plus(&phis[b]).map_err(|_| MathError::Overflow)?);
                dims[s].push(phis[b].clone());
                // The others' unrolled loops (a statement left out of the
                // jam, beside jammed ones): one point each, as below.
                for _ in &jam_positions {
                    dims[s].push(Form::constant(0));
                }
                continue;
            }
            // Unroll-and-jam: a jammed point loop runs over blocks of `u`
            // (`u·q <= φ <= u·q + u - 1`) and its points come innermost,
            // after the other point loops, to be unrolled.
            for &d in &orders[s] {
                if jam.contains(&d) {
                    let q = tile_local(&mut locals[s], &phis[d], bp.jam_factor)?;
                    dims[s].push(Form::local(q));
                } else {
                    dims[s].push(phis[d].clone());
                }
            }
            for &d in orders[s].iter().filter(|d| jam.contains(d)) {
                dims[s].push(phis[d].clone());
            }
            // A statement left out of the jam (in a nest of its own: see
            // `jam_stmts`) runs its points as they were, with one point
            // per unrolled loop.
            if jam.is_empty() {
                for _ in &jam_positions {
                    dims[s].push(Form::constant(0));
                }
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
                    outermost_level && Some(d) == bp.par_dim
                };
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
                    jam_block: false,
                    tiling: Tiling::Tile,
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
            let point = |pos: usize, what: &str| {
                PlanDim::sequential(format!("{what} (point loop {pos} of the band)"))
            };
            let mut between = 0;
            if bp.tail > 0 {
                for pos in 0..outside.len() {
                    plan_dims.push(point(pos, "point"));
                }
                plan_dims.push(point(outside.len(), "register blocks"));
                plan_dims.push(point(
                    outside.len() + 1,
                    "register blocks of the vector loop",
                ));
                for pos in 0..inside.len() {
                    plan_dims.push(point(
                        outside.len() + 2 + pos,
                        "point inside the register blocks",
                    ));
                }
                for t in 0..bp.tail {
                    let k = band.first + band.len + t;
                    let what = if t + 1 == bp.tail {
                        format!("φ{k}, the loop inside the register tile")
                    } else {
                        format!("φ{k}, inside the register blocks")
                    };
                    plan_dims.push(PlanDim::sequential(what));
                }
                between = inside.len() + bp.tail - 1;
            } else {
                for pos in 0..band.len - 3 {
                    plan_dims.push(point(pos, "point"));
                }
                plan_dims.push(point(band.len - 3, "register blocks"));
                plan_dims.push(point(band.len - 2, "register blocks of the vector loop"));
                plan_dims.push(point(band.len - 1, "loop inside the register tile"));
            }
            register_tiles.push(RegisterTile {
                first: plan_dims.len(),
                rows: ru,
                columns: rv,
                between,
            });
            for what in ["unrolled register tile", "unrolled register tile (vector)"] {
                plan_dims.push(PlanDim {
                    scalar: false,
                    parallel: false,
                    only: None,
                    unroll: true,
                    jam_block: false,
                    tiling: Tiling::None,
                    what: what.into(),
                });
            }
            notes.push(if bp.tail > 0 {
                format!(
                    "register tile {ru}x{rv} around the {} loop{} after the band",
                    bp.tail,
                    if bp.tail == 1 { "" } else { "s" }
                )
            } else {
                format!("register tile {ru}x{rv}")
            });
        }
        // The innermost point loop stays scalar for the statements whose
        // group moved it there across a recurrence (and no stage changed
        // that since).
        if !reg_on && jam_positions.is_empty() {
            for s in 0..ns {
                if bp.scalar_inner[s].is_some_and(|d| orders[s].last() == Some(&d)) {
                    scalar_stmts[s] = true;
                }
            }
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
                jam_block: jam_positions.contains(&pos),
                tiling: Tiling::Point,
                what: if jam_positions.contains(&pos) {
                    format!("unroll-jam blocks of {}", point_name(pos))
                } else {
                    format!("point {}", point_name(pos))
                },
            });
        }
        for &pos in &jam_positions {
            if bp.lanes {
                lane_dims.push(plan_dims.len());
            }
            if bp.split_blocks {
                block_dims.push(BlockDim {
                    unrolled: plan_dims.len(),
                    blocks: plan_dims.len() - 2,
                    size: bp.jam_factor,
                    below_loops: false,
                });
            }
            plan_dims.push(PlanDim {
                scalar: false,
                parallel: false,
                only: None,
                unroll: true,
                jam_block: false,
                tiling: Tiling::None,
                what: format!("unrolled {}", point_name(pos)),
            });
        }
        if bp.jam > 0 {
            notes.push(format!(
                "{} point loop{} unrolled and jammed by {}",
                bp.jam,
                if bp.jam == 1 { "" } else { "s" },
                bp.jam_factor
            ));
        }
        max_tiled_band = max_tiled_band.max(band.len);
        let mut size_texts: Vec<String> = Vec::new();
        for sizes in sizes_of {
            let t: Vec<String> = sizes
                .iter()
                .map(|&z| {
                    if z >= UNTILED {
                        "whole".to_string()
                    } else {
                        z.to_string()
                    }
                })
                .collect();
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
        k += band.len + bp.tail;
    }
    // Every statement gets one form per dimension of the plan (constants
    // where it has no loop): a statement short of forms would reach code
    // generation as a wrong scalar dimension.
    debug_assert!(
        dims.iter().all(|d| d.len() == plan_dims.len()),
        "materialize: statements' schedule lengths {:?} against {} dimensions",
        dims.iter().map(Vec::len).collect::<Vec<_>>(),
        plan_dims.len()
    );
    Ok(Plan {
        schedule: Schedule { dims, locals },
        dims: plan_dims,
        notes,
        max_tiled_band,
        restarted_wavefront,
        wavefront: any_wavefront,
        rows_first: Vec::new(),
        scalar_stmts: if scalar_stmts.contains(&true) {
            scalar_stmts
        } else {
            Vec::new()
        },
        register_tiles,
        register_r_size,
        inner_distributed: false,
        lane_dims,
        block_dims,
        lane_size: opts.row_lanes,
        stages: Vec::new(),
    })
}
