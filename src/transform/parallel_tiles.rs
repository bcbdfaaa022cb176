//! The parallel-tiles stage: a parallel tile loop whose tiles are fewer
//! than the threads gets smaller tiles, so that every thread gets one.
//!
//! The parallel dimension is the first whose tiles go round the threads
//! ([`super::band_plan`]'s `parallel_dimension`); where none does (a
//! contraction over four loops of 24 in tiles of 32: one tile each), it is
//! the first with at least as many iterations as threads, and this stage
//! cuts its tiles to `⌈extent / threads⌉` (rounded up to whole register
//! blocks, or blocks of an unroll-and-jam, along the dimension). Row
//! blocks and column streams, which size their tiles for the threads
//! themselves, and vector loops outside register tiles are left as they
//! are. Before, such a
//! nest ran on one thread ("0 parallel"). It runs after every stage that
//! sets tile sizes.

use super::analysis::{block_dimension, extent_of};
use super::band_plan::{BandPlan, Cx};

/// The stage: see the module's documentation.
pub(super) fn run(cx: &Cx, plans: &mut [BandPlan]) {
    let threads = cx.opts.threads;
    if !cx.opts.parallel || threads < 2 || cx.opts.l2_factor > 1 {
        return;
    }
    for (band, bp) in cx.bands.iter().zip(plans.iter_mut()) {
        let Some(d) = bp.par_dim else { continue };
        if !bp.tiled || bp.wavefront {
            continue;
        }
        // Where `d` runs over blocks of another loop, one block per thread
        // (the blocks of a reduction split per thread,
        // `passes/opt/partials.rs`, in a band whose other groups run
        // longer loops there), each group with one iteration per thread
        // along it (the blocks, their partial results' initialization)
        // gets tiles of one, whatever the stages before chose: its rows
        // are too few for lanes and its loop too short for a vector.
        let blocks = bp
            .groups
            .iter()
            .any(|(_, g)| block_dimension(cx.scop, cx.sched, band, d, g));
        for (_, g) in bp.groups.iter().filter(|_| blocks) {
            let Some(n) = extent_of(cx.scop, cx.sched, band.first + d, g) else {
                continue;
            };
            if n != threads
                || g.iter()
                    .all(|&s| bp.sizes[s].get(d).is_none_or(|&t| t <= 1))
            {
                continue;
            }
            for &s in g {
                if let Some(t) = bp.sizes[s].get_mut(d) {
                    *t = 1;
                }
            }
            let note = format!(
                "tiles of φ{} cut to 1 for {threads} threads",
                band.first + d
            );
            if !bp.notes.contains(&note) {
                bp.notes.push(note);
            }
        }
        // The statements with loops in the band, all with one tile size
        // along `d`.
        let members: Vec<usize> = (0..cx.scop.statements.len())
            .filter(|&s| {
                (band.first..band.first + band.len)
                    .any(|k| cx.sched.schedule.dims[s][k].iters.iter().any(|&c| c != 0))
            })
            .collect();
        // Row blocks and column streams size their tiles themselves; a
        // vector loop outside a register tile keeps whole vectors.
        let vector_loop = members
            .iter()
            .any(|&s| bp.vector[s] && bp.orders[s].last() == Some(&d) && bp.reg[s].is_none());
        if bp.lanes || bp.split_blocks || vector_loop {
            continue;
        }
        let Some(&first) = members.first() else {
            continue;
        };
        // Every statement under the band's tile loops is cut with them:
        // those of the members' groups, statements without loops of their
        // own among them (a store between two nests that a fused band
        // runs at one point), whose tile coordinates must stay those of
        // the members they are ordered with.
        let tiled: Vec<usize> = bp
            .groups
            .iter()
            .filter(|(_, g)| g.iter().any(|s| members.contains(s)))
            .flat_map(|(_, g)| g.iter().copied())
            .collect();
        let size = bp.sizes[first][d];
        if tiled.iter().any(|&s| bp.sizes[s].get(d) != Some(&size)) {
            continue;
        }
        let Some(extent) = extent_of(cx.scop, cx.sched, band.first + d, &members) else {
            continue;
        };
        let tiles = |t: i64| (extent - 1) / t.max(1) + 1;
        if extent < threads || tiles(size) >= threads {
            continue;
        }
        // Whole register blocks along `d`, and whole blocks of an
        // unroll-and-jam of `d`.
        let jammed = |s: usize| {
            let n = bp.orders[s].len();
            bp.jam > 0 && n > bp.jam && bp.orders[s][n - 1 - bp.jam..n - 1].contains(&d)
        };
        let step = members
            .iter()
            .filter_map(|&s| match bp.reg[s] {
                Some((u, _, _)) if u == d => Some(bp.ru),
                Some((_, v, _)) if v == d => Some(bp.rv),
                _ if jammed(s) => Some(bp.jam_factor),
                _ => None,
            })
            .max()
            .unwrap_or(1)
            .max(1);
        let want = (extent - 1) / threads + 1;
        let new = (want - 1) / step * step + step;
        if tiles(new) < threads || new >= size {
            continue;
        }
        for &s in &tiled {
            bp.sizes[s][d] = new;
        }
        bp.notes.push(format!(
            "tiles of φ{} cut to {new} for {threads} threads",
            band.first + d
        ));
    }
}
