//! The plan's sizes from a CPU's description: register blocks from the
//! vector registers and lanes, tiles from the caches, tiles per thread
//! from the cores.
//!
//! The model is BLIS's analytical one (Low, Igual, Smith, Quintana-Ortí:
//! "Analytical Modeling Is Enough for High-Performance BLIS", TOMS 2016),
//! simplified for loops the plan blocks itself:
//!
//! * **Register block** `u x v` (gemm's `i x j`): `u * v / lanes`
//!   accumulators live in vector registers across the loop inside the
//!   block (gemm's `k`), beside the `v / lanes` streamed vectors of the
//!   vector operand, the broadcast one and the products of a bit-exact
//!   multiply then add (no FMA contraction: each product needs a register
//!   until its add). [`ACCUMULATOR_SHARE`] of the register file holds
//!   accumulators; blocks are [`WIDE_VECTORS`] vectors wide (one where the
//!   vector loop's tile is not a multiple of that), and `u` takes what is
//!   left: on AVX-512 (32 x 8 doubles) 8 x 16, on AVX2 (16 x 4) 4 x 8.
//!   Where broadcasts to 512-bit registers are slow
//!   ([`CpuTarget::slow_zmm_broadcasts`]: Zen 4), the blocks where no
//!   domain constraint cuts them and one operand streams are one vector
//!   wide and every accumulator is a row (16 x 8): each row's broadcast
//!   value then feeds one multiply, which reads it from memory itself
//!   (AVX-512's embedded broadcast), and no instruction broadcasts it.
//!   Where multiply-adds may be fused (`contract=true` on a target with
//!   FMA) no product waits for its add, and [`FMA_ACCUMULATOR_SHARE`]
//!   holds accumulators: 12 x 16 on AVX-512, 6 x 8 on AVX2 (BLIS's
//!   haswell kernel).
//! * **Tile of the loop inside the blocks** `r`: the block's slice of the
//!   vector operand (`r x v` values, `v` the columns of those blocks)
//!   fills [`L1_SHARE`] of the L1 data cache, rounded down to a power of
//!   two.
//! * **Tile of the vector loop** over register blocks: the panel of the
//!   vector operand that one tile of `r` reads (`r x V` values) fills
//!   [`L2_SHARE`] of L2, in whole blocks.
//! * **Vector tile** of plain (not register-tiled) vector loops:
//!   [`VECTOR_TILE_VECTORS`] vectors.
//! * **Parallel tiles**: at least [`TILES_PER_THREAD`] per thread when a
//!   parallel loop's tiles grow for a vector loop.
//! * **Triangles with packed rows**: a triangle whose blocks read their
//!   vector operand from rows of an array (syrk's `A[j][k]`, packed by the
//!   emitter) takes `r` as above and [`TRIANGLE_BLOCK_ROWS`] rows of
//!   blocks per tile, as long as [`TILES_PER_THREAD`] tiles per thread
//!   remain; other triangles keep the default sizes.
//! * **Stream tile**: the vector loop of a column stream (bicg's `s[j] +=
//!   r[i] * A[i][j]`, rows jammed around it) takes one tile per thread, at
//!   most as long as its cells, one double each, fill [`L1_SHARE`] of L1:
//!   they stay there while every block of rows adds to them, and each
//!   thread reads whole rows' stretches, not many short ones.
//! * **Rows per packing loop**: a loop that copies rows of the arrays into
//!   a buffer of packed operands (syr2k's `alpha * A[j + q][k]` and
//!   `alpha * B[j + q][k]`, one slot per row) runs along `k`, vectorized:
//!   it holds one vector of each row as loaded and one of the transposed
//!   result, beside one per broadcast value (`alpha`, a constant), so it copies at
//!   most `(registers - broadcasts) / 2` rows, and more rows take more
//!   loops (syr2k on AVX2: 8 rows, two loops of 4; with one loop the 16
//!   registers were full and `alpha`, kept for the blocks, was reloaded
//!   around it). syrk's 8 rows (16 on AVX-512) need no broadcast and fit.
//!   (`codegen::emit`'s `PackFill`.)
//!
//! Every number here is a model parameter, the same for every machine;
//! what differs between machines comes from [`CpuTarget`].

use super::CpuTarget;

/// Bytes of the elements the sizes are computed for: doubles, PolyBench's
/// and most scientific codes' type (with `f32`, every length in elements
/// could double).
pub const ELEMENT_BYTES: u32 = 8;

/// Share of the vector registers that hold a register block's
/// accumulators, as `(numerator, denominator)`: the rest holds the
/// streamed vectors, the broadcast operand, the products awaiting their
/// add, and what the compiler needs besides. BLIS's kernels use up to
/// three quarters, with FMA (no products to keep).
pub const ACCUMULATOR_SHARE: (u32, u32) = (1, 2);

/// Share of the vector registers that hold a register block's
/// accumulators where multiply-adds are fused: no register waits for an
/// add, the rest holds the streamed vectors and the broadcast operand.
/// BLIS's double-precision kernels: 12 of 16 on AVX2 (haswell, 6 x 8),
/// 24 of 32 on AVX-512 (zen4, 24 x 8; skx 28 of 32). gemm LARGE with
/// `contract=true` on an AMD EPYC (LLVM: znver3, AVX2), 2 threads: 6 x 8
/// blocks 0.032-0.034 s best, 0.045-0.048 s median, 4 x 8 ones 0.042-0.064
/// s best, 0.050-0.068 s median (runs alternated).
pub const FMA_ACCUMULATOR_SHARE: (u32, u32) = (3, 4);

/// Vectors per row of a register block: wider blocks reuse each broadcast
/// operand for more columns (gemm, 2mm, 3mm with 8 x 16 on AVX-512: 12-15 %
/// faster than 8 x 8). Triangles too, since code generation separates
/// their full blocks from the partial ones along the diagonal
/// (`2·q_v >= q_u + 1` for 16 columns over 8 rows): correlation and
/// covariance 10-15 %, syrk 3-5 % faster than with one vector (the partial
/// blocks' guarded loops had taken whole tiles: 2.3x slower). Not where
/// a triangle's statements stream two operands along the vector loop
/// (syr2k: 4 x 8 blocks spill on AVX2).
pub const WIDE_VECTORS: i64 = 2;

/// Largest number of iterations of an unrolled loop of a register block
/// (the bound `register-tile-sizes` enforces too).
pub const MAX_BLOCK: i64 = 16;

/// Share of the L1 data cache for a block's slice of the vector operand
/// over one tile of the loop inside the blocks, as `1 / L1_SHARE`: the
/// rest holds the broadcast operand's column and the output block.
pub const L1_SHARE: u64 = 4;

/// Share of L2 for the panel of the vector operand that every block row of
/// a tile sweeps, as `1 / L2_SHARE`: the rest holds the rows of the
/// broadcast operand and the output tile.
pub const L2_SHARE: u64 = 2;

/// Share of L2 for the cells of one tile of fused nests, as
/// `1 / FUSED_L2_SHARE`: the rest holds the lines the prefetchers bring
/// ahead and the operands that each row of the tile reads besides
/// (gramschmidt's `Q[i][k]`, one line per row). gramschmidt's fused tiles
/// at LARGE on an AMD EPYC (LLVM: znver5, AVX-512, 1 MB L2): a quarter (32 columns, 256 KB) 30 %
/// faster than the nests apart, half (64 columns) 5 %.
pub const FUSED_L2_SHARE: u64 = 4;

/// Share of L2 for one thread's cells of one tile of rows of interleaved
/// nests (`transform/interleave.rs`), as `1 / INTERLEAVED_L2_SHARE`: the
/// column stream's columns of the tile and the thread's rows, which the
/// rows' nest reads again right after. bicg at LARGE on an AMD EPYC
/// (LLVM: znver5, AVX-512, 1 MB L2): 486 KB per thread and 973 KB run alike
/// (0.49 ms), 1.95 MB 2.2x slower (1.1 ms): the rows no longer in L2.
pub const INTERLEAVED_L2_SHARE: u64 = 2;

/// Share of the L3's part per core for one thread's cells of one tile of
/// rows of interleaved nests, as `1 / INTERLEAVED_L3_SHARE`, where not
/// even the row blocks' rows fit L2 (rows of thousands of columns) and
/// the array is larger than the whole L3 (`transform/interleave.rs`): the
/// rows' nest then reads the tile's rows back from the L3, instead of a
/// second pass over the array from memory. mvt and bicg at 8000 x 8000
/// (512 MB) on an AMD EPYC (Zen 5, 1 MB L2, 16 MB of L3 per core), 2
/// threads, alternated with `bench/bandwidth.c` (`bench/paired.py`): mvt
/// 22.1 -> 13.8 ms, bicg 23.3 -> 14.2 ms while memory streams at 50
/// GB/s (44 % -> 71-73 % of `bandwidth.c`), 13.4 -> 12.6 and 14.8 -> 12.9
/// ms at 100 GB/s (the tile's rows read twice, once from the L3).
pub const INTERLEAVED_L3_SHARE: u64 = 2;

/// Vectors per tile of a plain vector loop moved innermost: a short vector
/// loop runs its loop overhead and remainder once per point of the outer
/// loops (trmm with 32 doubles instead of 128 on AVX-512: 2.4x slower);
/// a long one only grows the tile's footprint.
pub const VECTOR_TILE_VECTORS: i64 = 32;

/// Tiles per thread to keep, at least, when a parallel loop's tiles grow
/// for a vector loop: fewer would leave threads idle on unequal tiles.
pub const TILES_PER_THREAD: i64 = 4;

/// Rows of register blocks per tile of a triangle (syrk's `j <= i`) whose
/// blocks read their vector operand from rows of an array (syrk's
/// `A[j][k]` along `j`): the emitter packs that operand, one copy per tile
/// and tile of the loop inside the blocks, and every row of blocks of the
/// tile reads the copy, so the copy costs at most `1 / TRIANGLE_BLOCK_ROWS`
/// of the reads. The triangle's rows stay in at least
/// [`TILES_PER_THREAD`] tiles per thread, dealt cyclically.
pub const TRIANGLE_BLOCK_ROWS: i64 = 8;

/// How far ahead of a row block's loads each row is prefetched, in bytes
/// (8 cache lines), where the rows come from beyond L2 (`prefetch`,
/// `codegen/tree/lanes.rs`). A block of row blocks in vector lanes reads
/// a vector of each of its rows per step, then runs a chain of adds
/// through them; the core's window fills with the chain's work and keeps
/// too few of the rows' reads in flight for what memory delivers. Hand
/// kernels of trisolv's blocks below the diagonal (8000 rows, 2 threads,
/// AMD EPYC Zen 5, LLVM znver5) while memory streams at 100 GB/s: none
/// 4.2 ms, 512 bytes ahead 3.3 ms, 1 KB 3.1 ms, 2 KB 3.3 ms; at 55 GB/s
/// (the same VM, its neighbours busy): none 5.2 ms, 512 bytes 5.2 ms, 1 KB
/// 5.5 ms, 2 KB 5.8 ms; at 4000 rows (128 MB) 512 bytes took 0.8 ms
/// against 1.0 ms, at 2000 and 1000 rows (in L3) no difference. 512 bytes
/// is the distance that never lost.
pub const PREFETCH_AHEAD_BYTES: i64 = 512;

/// A step's synchronization in terms of its own triangle's work: the
/// model's `F / t` for a triangular solve cut into steps
/// (`passes/opt/steps.rs`). Each step of `R` rows costs `F` (the fork and
/// join of its parallel loop, the threads waiting for the slowest, their
/// rows' streams restarting) and its own triangle in order, `R² / 2`
/// chained terms of `t` each; over `N` rows the steps cost
/// `(N / R)·F + N·R·t / 2`, least at `R = sqrt(2·F / t)`: with `F / t` =
/// 8192, `R` = 128 ([`solve_step`]). Measured (trisolv, 2 threads, AMD
/// EPYC Zen 5, LLVM znver5, `tile-sizes` giving steps of 32 / 64 / 128 /
/// 256 rows): 2,000 rows (L3) 0.17 / 0.14 / 0.13 / 0.12 ms; 4,000 rows
/// 1.09 / 1.05 / 1.01 / 1.05 ms; 8,000 rows while memory streams at 100
/// GB/s 4.61 / 4.42 / 4.31 / 4.31 ms (at 50 GB/s, 128 was 3 % slower than
/// 32); a step's triangle alone took 0.56-0.87 ns per term and a fork and
/// join 1.2 µs (libomp), `F` inferred from the sweep about 3 µs.
pub const STEP_SYNC_TERMS: i64 = 8192;

/// Rows per step of a triangular solve cut into steps when `tile-sizes`
/// is not given: `sqrt(2·STEP_SYNC_TERMS)` ([`STEP_SYNC_TERMS`]), rounded
/// to a power of two, at least `threads · lanes` (a vector's lanes of rows
/// per thread) and a multiple of it.
pub fn solve_step(threads: i64, lanes: i64) -> i64 {
    let unit = threads.max(1) * lanes.max(1);
    let balanced = floor_pow2((2 * STEP_SYNC_TERMS).isqrt());
    (balanced.max(unit) + unit - 1) / unit * unit
}

/// The plan's sizes for one target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sizes {
    /// Register block `(u, v)`: iterations of the outer and of the vector
    /// point loop per block where the domain may cut blocks.
    pub register_block: (i64, i64),
    /// Register block `(u, v)` where no domain constraint cuts the blocks
    /// and at most one operand streams along the vector loop: as wide as
    /// [`WIDE_VECTORS`] vectors, with the rows of `register_block`; where
    /// broadcasts to 512-bit registers are slow and the multiplies and
    /// adds stay apart, one vector wide with every accumulator a row.
    pub register_block_wide: (i64, i64),
    /// Tile of the loop inside register blocks (a power of two).
    pub reduction_tile: i64,
    /// Largest tile of the vector loop of register blocks.
    pub panel_tile: i64,
    /// Tile of a plain vector loop moved innermost.
    pub vector_tile: i64,
    /// Smallest number of tiles of a parallel loop whose tiles grow for a
    /// vector loop.
    pub min_parallel_tiles: i64,
    /// Threads the parallel loops are tuned for.
    pub threads: i64,
    /// Bytes that one tile of fused nests may touch.
    pub fused_tile_bytes: i64,
    /// Bytes of one thread's cells of one tile of rows of interleaved
    /// nests.
    pub interleaved_tile_bytes: i64,
    /// Longest tile of a column stream's vector loop.
    pub stream_tile: i64,
}

/// The largest power of two at most `n` (1 for `n < 1`).
fn floor_pow2(n: i64) -> i64 {
    if n < 2 {
        1
    } else {
        1 << (63 - n.leading_zeros())
    }
}

impl Sizes {
    /// The sizes for `target` (see the module's model); `fused`: whether
    /// multiply-adds may be fused (`contract=true`).
    pub fn of(target: &CpuTarget, fused: bool) -> Sizes {
        let lanes = target.lanes(ELEMENT_BYTES);
        let regs = i64::from(target.vector_registers);
        let (num, den) = if fused && target.fma {
            FMA_ACCUMULATOR_SHARE
        } else {
            ACCUMULATOR_SHARE
        };
        let accumulators = (regs * i64::from(num) / i64::from(den)).max(1);
        let wide = (WIDE_VECTORS * lanes).min(MAX_BLOCK);
        let narrow = lanes.min(MAX_BLOCK);
        // Accumulators per block row: the wide block's vectors.
        let per_row = (wide - 1) / lanes + 1;
        let u = (accumulators / per_row).clamp(1, MAX_BLOCK);
        // Where broadcasts to 512-bit registers are slow, the bit-exact
        // wide blocks are one vector wide and take every accumulator as a
        // row: each broadcast value then feeds one multiply, which reads it
        // itself (an embedded broadcast).
        let block_wide =
            if target.slow_zmm_broadcasts && target.vector_bits >= 512 && !(fused && target.fma) {
                (accumulators.clamp(1, MAX_BLOCK), narrow)
            } else {
                (u, wide)
            };
        let elem = i64::from(ELEMENT_BYTES);
        let l1 = i64::try_from(target.l1d_bytes / L1_SHARE).unwrap_or(i64::MAX);
        let l2 = i64::try_from(target.l2_bytes / L2_SHARE).unwrap_or(i64::MAX);
        let columns = block_wide.1;
        let reduction_tile = floor_pow2(l1 / (columns * elem)).max(8);
        let panel_tile = ((l2 / (reduction_tile * elem)) / columns).max(1) * columns;
        let threads = i64::from(target.cores.max(1));
        Sizes {
            register_block: (u, narrow),
            register_block_wide: block_wide,
            reduction_tile,
            panel_tile,
            vector_tile: VECTOR_TILE_VECTORS * lanes,
            min_parallel_tiles: TILES_PER_THREAD * threads,
            threads,
            fused_tile_bytes: i64::try_from(target.l2_bytes / FUSED_L2_SHARE).unwrap_or(i64::MAX),
            interleaved_tile_bytes: i64::try_from(target.l2_bytes / INTERLEAVED_L2_SHARE)
                .unwrap_or(i64::MAX),
            stream_tile: (l1 / elem).max(lanes),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn preset(name: &str, cores: u32) -> CpuTarget {
        let mut t = CpuTarget::preset(name).expect("a preset");
        t.cores = cores;
        t
    }

    /// The AVX-512 machine the earlier constants were measured on (32
    /// registers of 8 doubles, 32 KiB L1d, 1 MiB L2, 2 cores) gets them
    /// back where its 512-bit broadcasts are fast: 8 x 8 and 8 x 16 blocks,
    /// 64 x 1024 tiles, 256-wide vector tiles, 8 parallel tiles.
    #[test]
    fn avx512_gives_the_measured_sizes() {
        let mut zen4 = preset("znver4", 2);
        zen4.slow_zmm_broadcasts = false;
        let s = Sizes::of(&zen4, false);
        assert_eq!(s.register_block, (8, 8));
        assert_eq!(s.register_block_wide, (8, 16));
        assert_eq!((s.reduction_tile, s.panel_tile), (64, 1024));
        assert_eq!(s.vector_tile, 256);
        assert_eq!((s.min_parallel_tiles, s.threads), (8, 2));
        // A quarter of 32 KiB of doubles.
        assert_eq!(s.stream_tile, 1024);
    }

    /// Where 512-bit broadcasts are slow (Zen 4), the bit-exact wide
    /// blocks are one vector wide with every accumulator a row: 16 x 8,
    /// each row's broadcast value read by its one multiply; the reduction
    /// tile doubles (blocks half as wide). The narrow blocks (two streamed
    /// operands) and the fused ones keep their shapes.
    #[test]
    fn slow_zmm_broadcasts_give_blocks_one_vector_wide() {
        let zen4 = preset("znver4", 2);
        assert!(zen4.slow_zmm_broadcasts);
        let s = Sizes::of(&zen4, false);
        assert_eq!((s.register_block, s.register_block_wide), ((8, 8), (16, 8)));
        assert_eq!((s.reduction_tile, s.panel_tile), (128, 512));
        // Half the registers accumulate, as in the 8 x 16 blocks; the
        // broadcast values stay in memory (test/opt/spills.test: no spills).
        let (u, v) = s.register_block_wide;
        assert_eq!(u * v / 8, 16);
        let fused = Sizes::of(&zen4, true);
        assert_eq!(
            (fused.register_block, fused.register_block_wide),
            ((12, 8), (12, 16))
        );
        // Only with 512-bit vectors.
        let mut ymm = zen4.clone();
        ymm.vector_bits = 256;
        assert_eq!(Sizes::of(&ymm, false).register_block_wide, (8, 8));
    }

    /// Skylake-SP: LLVM vectorizes with ymm (see `PREFER_256_BIT`), of
    /// which AVX-512 has 32: 8x8 blocks of 4-wide vectors, 16 accumulators.
    #[test]
    fn intel_avx512_blocks_are_sized_for_ymm() {
        let s = Sizes::of(&preset("skylake-avx512", 2), false);
        assert_eq!((s.register_block, s.register_block_wide), ((8, 4), (8, 8)));
        assert_eq!(
            (s.reduction_tile, s.panel_tile, s.vector_tile),
            (128, 512, 128)
        );
    }

    /// AVX2 (16 registers of 4 doubles): 4 x 8 blocks, 8 accumulators of
    /// 16 registers; with a 32 KiB L1 the reduction tile doubles (blocks
    /// half as wide), and Zen 3's 512 KiB L2 holds a 128 x 256 panel.
    #[test]
    fn avx2_blocks_fit_sixteen_registers() {
        let s = Sizes::of(&preset("znver3", 8), false);
        assert_eq!(s.register_block, (4, 4));
        assert_eq!(s.register_block_wide, (4, 8));
        let (u, v) = s.register_block_wide;
        let lanes = 4;
        // Accumulators + streamed vectors + broadcast + products.
        assert!(u * v / lanes + v / lanes + 1 + u <= 16);
        assert_eq!((s.reduction_tile, s.panel_tile), (128, 256));
        assert_eq!(s.vector_tile, 128);
        assert_eq!(s.min_parallel_tiles, 32);
        assert_eq!(s.stream_tile, 1024);
    }

    /// With multiply-adds fused, three quarters of the registers hold
    /// accumulators: BLIS's 6 x 8 on AVX2 (12 of 16 ymm, with the two
    /// streamed vectors and the broadcast one: 15), 12 x 16 on Zen 4 (24 of
    /// 32 zmm). A target without FMA keeps the products' registers, and
    /// the sizes along the loops are unchanged.
    #[test]
    fn fused_multiply_adds_take_three_quarters() {
        let (exact, fused) = (
            Sizes::of(&preset("znver3", 2), false),
            Sizes::of(&preset("znver3", 2), true),
        );
        assert_eq!(
            (fused.register_block, fused.register_block_wide),
            ((6, 4), (6, 8))
        );
        let ((u, v), lanes) = (fused.register_block_wide, 4);
        // Accumulators + streamed vectors + the broadcast one.
        let broadcast = 1;
        assert!(u * v / lanes + v / lanes + broadcast <= 16);
        assert_eq!(
            (fused.reduction_tile, fused.panel_tile, fused.vector_tile),
            (exact.reduction_tile, exact.panel_tile, exact.vector_tile)
        );
        let zen4 = Sizes::of(&preset("znver4", 2), true);
        assert_eq!(
            (zen4.register_block, zen4.register_block_wide),
            ((12, 8), (12, 16))
        );
        let mut no_fma = preset("znver3", 2);
        no_fma.fma = false;
        assert_eq!(Sizes::of(&no_fma, true), exact);
    }

    #[test]
    fn sizes_stay_in_range_for_odd_targets() {
        let mut t = preset("x86-64", 1);
        t.vector_bits = 64;
        t.vector_registers = 4;
        t.l1d_bytes = 1024;
        t.l2_bytes = 1024;
        let s = Sizes::of(&t, false);
        assert!(s.register_block.0 >= 1 && s.register_block.1 >= 1);
        assert!(s.reduction_tile >= 8 && s.panel_tile >= s.register_block_wide.1);
        assert!(s.stream_tile >= 1);
        t.vector_bits = 1024;
        t.vector_registers = 256;
        let s = Sizes::of(&t, false);
        assert!(s.register_block.0 <= MAX_BLOCK && s.register_block_wide.0 <= MAX_BLOCK);
        assert!(s.register_block_wide.1 <= MAX_BLOCK);
        assert_eq!(floor_pow2(1000), 512);
        assert_eq!(floor_pow2(0), 1);
    }

    #[test]
    fn solve_steps_balance_sync_and_triangle_in_whole_lanes_per_thread() {
        // sqrt(2 * 8192) = 128 rows: two threads of 8 lanes (AVX-512) or
        // 4 (AVX2) take it as it is.
        assert_eq!(solve_step(2, 8), 128);
        assert_eq!(solve_step(2, 4), 128);
        assert_eq!(solve_step(16, 8), 128);
        // Past 128 rows of lanes per step, a vector's lanes per thread.
        assert_eq!(solve_step(32, 8), 256);
        // Three threads: whole lanes for each, 144 = 6 x 24.
        assert_eq!(solve_step(3, 8), 144);
        assert_eq!(solve_step(0, 0), 128);
    }
}
