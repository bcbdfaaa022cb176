//===- Passes.td - polyrs pass definitions ------------------*- tablegen -*-===//
//
// The single source of pass names, summaries, descriptions and options.
// build.rs reads this file and generates the Rust registry (src/passes/mod.rs
// includes it), which the polyrs-opt driver, the mlir-opt plugin and
// docs/passes.md all use. A pass `poly-foo-bar` is implemented by
// `src/passes/foo_bar.rs`, which exports
// `pub fn run(op: OperationRef, options: &FooBarOptions) -> Result<(), PassError>`.
//
// Supported option types: bool, int/int64_t, unsigned/uint64_t, std::string,
// and ListOption of int64_t.
//
//===----------------------------------------------------------------------===//

include "mlir/Pass/PassBase.td"

def DetectScops : Pass<"poly-detect-scops", "func::FuncOp"> {
  let summary = "Find the static control parts (SCoPs) of each function";
  let description = [{
    Finds the maximal static control parts of each function: sequences of
    `affine.for` / `affine.if` / `affine.parallel` nests whose bounds,
    conditions and memory accesses are affine functions of the enclosing
    induction variables and of loop-invariant parameters, and whose other
    operations are free of side effects apart from `affine.load`,
    `affine.store` and `memref.load` / `memref.store` with affine indices.

    Emits one remark per SCoP at its first operation (number of loop nests,
    maximal loop depth, statements = stores, parameters) and one remark per
    rejected outermost loop nest naming the operation that breaks it and
    why, with a note at that operation. Nests inside a rejected nest are
    searched for smaller SCoPs. The IR is left unchanged.
  }];
  let options = [
    Option<"minDepth", "min-depth", "unsigned", /*default=*/"1",
           "Smallest loop depth for a region to count as a SCoP">,
    Option<"reportRejected", "report-rejected", "bool", /*default=*/"true",
           "Emit a remark for each loop nest that is not a SCoP">,
  ];
}

def PrintScop : Pass<"poly-print-scop", "func::FuncOp"> {
  let summary = "Print the polyhedral model of each SCoP in isl notation";
  let description = [{
    Builds the polyhedral model of every static control part found by
    `poly-detect-scops` and prints it to stderr: the parameters, and for each
    statement (one store with the pure computation feeding it) its iteration
    domain, its original 2d+1 schedule and its accesses (read/write, array,
    access relation), all in isl syntax. A SCoP the model cannot represent
    exactly gets a remark saying why and is skipped. The IR is unchanged.
    Output of several functions may interleave unless threading is disabled
    (`--mlir-disable-threading`).
  }];
}

def PrintDeps : Pass<"poly-print-deps", "func::FuncOp"> {
  let summary = "Print the exact dependences of each SCoP in isl notation";
  let description = [{
    Computes the memory-based dependences of every modeled SCoP — RAW, WAR and
    WAW, and RAR with `rar=true` — and prints each non-empty relation to stderr
    with its kind, source and sink statements, array, the loop depth that
    carries it under the original schedule (or `independent`), and the
    range of the distance along each shared loop: `1` (constant), `-1..1`,
    `>=1`, `<=-1`, or `*` (unbounded both ways; parameters are free). Access
    pairs with the same kind, statements, array and depth are merged into
    one relation.
    The IR is unchanged.
  }];
  let options = [
    Option<"rar", "rar", "bool", /*default=*/"false",
           "Also print read-after-read (input) dependences">,
  ];
}

def VerifySchedule : Pass<"poly-verify-schedule", "func::FuncOp"> {
  let summary = "Check a schedule against the exact dependences of a SCoP";
  let description = [{
    The independent legality checker as a pass. Builds the model and the
    dependences of SCoP number `scop` of each function and checks that the
    schedule given in `schedule` (isl syntax, one map per statement, e.g.
    `{ S0[i, j] -> [j, i] }`; statement names as printed by
    `poly-print-scop`) runs every dependence sink strictly after its source.
    With an empty `schedule`, checks the original schedule. `func` limits the
    check to one function; otherwise functions without SCoP number `scop`
    are skipped. A legal schedule
    gets a remark; each violated dependence gets an error naming it, the
    schedule dimension at which it breaks and a sample instance pair, and
    the pass fails. The IR is unchanged.
  }];
  let options = [
    Option<"schedule", "schedule", "std::string", /*default=*/"\"\"",
           "The schedule to check, in isl syntax (empty: the original schedule)">,
    Option<"scop", "scop", "unsigned", /*default=*/"0",
           "Which SCoP of the function to check (in program order)">,
    Option<"func", "func", "std::string", /*default=*/"\"\"",
           "Only check this function (empty: every function with such a SCoP)">,
  ];
}

def PrintSchedule : Pass<"poly-print-schedule", "func::FuncOp"> {
  let summary = "Compute a Pluto-style schedule for each SCoP and print it";
  let description = [{
    Runs the Farkas-lemma scheduler (src/sched/pluto.rs) on every modeled
    SCoP: one hyperplane at a time, legality and bounding constraints per
    unsatisfied dependence, Pluto's linear-independence constraints, lexmin
    of (u, w, coefficients, shifts); when no hyperplane exists, the
    dependence graph is cut between strongly connected components (a scalar
    dimension). Every schedule is re-checked by the independent legality
    checker before it is printed. Prints, per statement, the schedule in isl
    syntax and, per dimension, whether it is a loop of a permutable band
    (with its coincidence, i.e. parallel, flag) or a scalar dimension. When
    no schedule is found, a remark says why and the original schedule stands.
    The IR is unchanged. With `stats=true`, also prints the size of the
    largest hyperplane ILP (unknowns, constraints).
  }];
  let options = [
    Option<"fuse", "fuse", "std::string", /*default=*/"\"smart\"",
           "Fusion heuristic: smart (cut between components of different depth), max, or no">,
    Option<"maxCoef", "max-coef", "unsigned", /*default=*/"4",
           "Largest iterator coefficient of a hyperplane">,
    Option<"stats", "stats", "bool", /*default=*/"false",
           "Print the size of the largest hyperplane ILP">,
  ];
}

def Opt : Pass<"poly-opt", "func::FuncOp"> {
  let summary = "Reschedule, tile and parallelize each SCoP (the full polyhedral optimization)";
  let description = [{
    For every static control part of the function: builds the polyhedral
    model and the exact dependences, computes a Pluto-style schedule
    (permutable bands, parallel hyperplanes, skewing, fusion by `fuse`),
    tiles permutable bands of two or more loops (`tile-sizes`, optionally a
    second level with `l2-tile`), moves a parallel stride-1 loop innermost
    inside tiles (`prevector`), unrolls blocks of two point loops around
    the loop along which the written cells stay fixed and keeps those cells
    in registers across it (`register-tile`), makes the outermost parallel loop an
    `affine.parallel` (`parallel`; all parallel loops with
    `nested-parallel`), and runs tiles of bands without a parallel loop as a
    wavefront (`wavefront`). A wavefront restarted inside sequential loops
    is retried with a statement split at a hyperplane its dependences come
    from or go to (`split`: Floyd-Warshall's rows before, at and after row
    `k`), kept when that gives parallel loops instead. Statements that have
    loops of their own beside a sibling loop get that loop's dimension at
    the iteration whose cells line up with theirs (`embed`: Gram-Schmidt's
    column norm at `j = k`), kept when the loops around them then form one
    tiled band; there, a statement that needs all of another's loop at the
    same step and feeds it at the next is retimed by one step and fused
    with it (Gram-Schmidt's column update with the next step's sums: one
    sweep of the rows per step). The final schedule, tiles and parallel loops
    included, is re-checked by the independent legality checker
    (`verify`, on by default) before any code is generated; the SCoP is then
    replaced in place by loops generated from the schedule (`affine.for`,
    `affine.parallel`, `affine.if` with max/min bounds), and code around it
    is untouched. On the CPU, the new code is then re-checked against the
    SCoP by translation validation (`verify-emit`): both run in an
    interpreter of symbolic values, at small parameter values, and must
    leave every cell with the same tree of operations, with no two
    iterations of a parallel loop touching a cell one of them writes;
    otherwise the SCoP is put back as it was, with an internal-error
    warning. It runs on SCoPs whose input takes at most `verify-emit`
    operations to interpret (the fuzzer's programs, small kernels; not
    PolyBench's LARGE sizes), and the remark says when it ran.

    With `profitability` (on by default), a tiled plan whose innermost loops
    would need statement guards is replaced by the untiled one, and a SCoP
    whose plan has neither tiles nor parallel loops is left as it is (the
    reordering alone rarely pays and can undo LLVM's own loop versioning).
    A SCoP whose work depends on its parameters and whose plan forks
    parallel loops inside sequential loops keeps its input beside the new
    code, in an `scf.if` that runs the input when the statement instances,
    counted from the parameters at run time, are too few for the plan to
    pay (remark: `input kept for small sizes`; CPU target only).

    One remark per SCoP says what was done (statements, tiled bands and
    sizes, parallel loops, wavefronts) or why the SCoP was left unchanged
    (not modeled exactly, no schedule, a limit of the code generator, no
    profitable transformation). A
    schedule rejected by the checker is an internal error: the SCoP is left
    unchanged and a warning names the dependence. Every SCoP has a time
    budget (`time-budget`): past it, the SCoP is left unchanged and the
    remark says which stage ran out.
  }];
  let options = [
    Option<"tile", "tile", "bool", /*default=*/"true",
           "Tile permutable bands of at least two loops">,
    ListOption<"tileSizes", "tile-sizes", "int64_t",
           "Tile sizes per band dimension, the last one repeating (default: 32; bands with register tiles: from the CPU's caches, for the loop inside the blocks (64 with a 32 KiB L1 and 16-wide blocks) and for the vector loop (its extent in tiles of at most 1024 with a 1 MiB L2), and one tile per thread for a parallel block loop whose iterations do equal work)">,
    Option<"target", "target", "std::string", /*default=*/"\"cpu\"",
           "What the code is for: cpu (tiles, vector and register tiles, OpenMP-parallel affine.parallel loops, sized from `cpu`) or gpu (gpu.launch kernels: the first permutable band with parallel loops tiled, tiles mapped to blocks and points to threads, loops carrying dependences inside each thread, loops around them on the host; device buffers filled from and copied back to the arrays; sized from `gpu-chip` and `gpu-block`)">,
    Option<"gpuChip", "gpu-chip", "std::string", /*default=*/"\"sm_90\"",
           "With target=gpu: the NVIDIA GPU the sizes come from: sm_80 (A100) or sm_90 (H100)">,
    ListOption<"gpuBlock", "gpu-block", "int64_t",
           "With target=gpu: threads per block along x, y, z, x being the innermost parallel loop (the last one repeats; default: 256 threads, the warp size along x: 256, 32x8, 32x4x2, except that one dimension over a constant number of iterations takes enough blocks for every multiprocessor of `gpu-chip`, from one warp up to 256 threads)">,
    Option<"gpuThreadTile", "gpu-thread-tile", "unsigned", /*default=*/"0",
           "With target=gpu: rows of the y-mapped loop each thread runs, a register tile per thread (the cells fixed along the thread's sequential loop kept in registers for each row, the operands the rows share loaded once), when two or more loops are mapped and a loop runs inside each thread; 0: the model's (4), 1: none">,
    Option<"gpuShared", "gpu-shared", "bool", /*default=*/"true",
           "With target=gpu: promotion to shared memory: when a loop runs inside each thread (gemm's k), its tiles of the warp size become a loop that every thread of a block runs; at each of its steps the block copies to shared memory the box of each group of reads of an array the loop does not write (its origin an affine function of the loops around the threads, its extent constant, proven by the checker to hold every read it serves), when the copy saves reads from global memory (cells several warps read, two subscripts, or a tile whose cells a warp shares) and the boxes fit the GPU's shared memory per block (rows padded to an odd number of cells, against bank conflicts); barriers after the copies and after the uses; the threads' register cells (gemm's C) stay in registers across the steps where that is exact">,
    Option<"gpuTestMutation", "gpu-test-mutation", "std::string", /*default=*/"\"\"",
           "Testing only: a deliberate bug, to show that the checks catch it: no-barrier (no barrier between the copies to shared memory and their uses: the emulation reads unwritten cells), short-footprint (a shared box one cell short: the checker refuses the plan with an internal-error warning); empty: none">,
    Option<"gpuMemory", "gpu-memory", "std::string", /*default=*/"\"copy\"",
           "With target=gpu: where the kernels find the arrays: copy (device buffers, filled from the arrays whose values the SCoP reads or that it writes in part, the written ones copied back) or host-register (the arrays' host memory registered with the driver, gpu.host_register, and used by the kernels in place: no copies)">,
    Option<"cpu", "cpu", "std::string", /*default=*/"\"host\"",
           "The CPU the sizes are derived from: host (LLVM's host CPU and features, the OS's cache sizes and cores) or a preset: x86-64, haswell, znver3, skylake-avx512, icelake-server, sapphirerapids, znver4">,
    Option<"vectorBits", "vector-bits", "unsigned", /*default=*/"0",
           "Vector register width in bits, in place of the CPU's, for every plan (0: the CPU's: the width LLVM vectorizes with, and on the Intel AVX-512 CPUs whose LLVM tuning prefers 256 bits, 512 for the plans with register tiles, whose functions then carry prefer-vector-width=512)">,
    Option<"vectorRegisters", "vector-registers", "unsigned", /*default=*/"0",
           "Number of vector registers, in place of the CPU's (0: the CPU's)">,
    Option<"l1Cache", "l1-cache", "unsigned", /*default=*/"0",
           "L1 data cache per core in KiB, in place of the CPU's (0: the CPU's)">,
    Option<"l2Cache", "l2-cache", "unsigned", /*default=*/"0",
           "L2 cache per core in KiB, in place of the CPU's (0: the CPU's)">,
    Option<"l3Cache", "l3-cache", "unsigned", /*default=*/"0",
           "L3 cache's share per core in KiB (its size over the cores that share it), in place of the CPU's (0: the CPU's: the host's from the OS, a preset's from its SKUs, none for x86-64)">,
    Option<"gathers", "gathers", "std::string", /*default=*/"\"cpu\"",
           "Whether the CPU's vector gathers and scatters are slow, in place of what is known of it: cpu (slow on znver4: AMD's Zen 4 runs them as long sequences of micro-ops), slow or fast. Where they are slow, a loop that the plan moves innermost for its independent iterations across a recurrence and along which an access is strided runs scalar (its loop carries llvm.loop_annotation with vectorization disabled) instead of being vectorized by LLVM with gathers and scatters">,
    Option<"broadcasts", "broadcasts", "std::string", /*default=*/"\"cpu\"",
           "Whether the CPU's broadcasts of one value to a whole 512-bit register are slow (take a slot on the floating-point pipes), in place of what is known of it: cpu (slow on znver4: AMD's Zen 4 runs 512-bit operations as two 256-bit halves), slow or fast. Where they are slow, the bit-exact register blocks are one vector wide (16x8 on a CPU with 32 registers of 8 doubles), so that each multiply reads its broadcast operand from memory itself (AVX-512's embedded broadcast); contract=true's blocks keep two vectors">,
    Option<"threads", "threads", "unsigned", /*default=*/"0",
           "Threads the generated parallel loops are tuned for (a parallel loop of register-tiled blocks is cut into this many tiles; 0: the host's cores); the code is correct with any thread count">,
    Option<"l2Tile", "l2-tile", "unsigned", /*default=*/"0",
           "Second-level tiling: outer tiles are this many first-level tiles per dimension (0: off)">,
    Option<"parallel", "parallel", "bool", /*default=*/"true",
           "Make the outermost parallel loop an affine.parallel (wavefronts included)">,
    Option<"nestedParallel", "nested-parallel", "bool", /*default=*/"false",
           "Make every parallel loop an affine.parallel, not only the outermost">,
    Option<"fuse", "fuse", "std::string", /*default=*/"\"smart\"",
           "Fusion heuristic: smart (cut between components of different depth), max, or no">,
    Option<"prevector", "prevector", "bool", /*default=*/"true",
           "Move a parallel loop with stride-1 accesses innermost inside tiles">,
    Option<"vectorTileSize", "vector-tile-size", "unsigned", /*default=*/"0",
           "Tile size of the loop moved innermost for vectorization, unless tile-sizes is given (0: the CPU's, 32 vectors of doubles: 256 with AVX-512, 128 with AVX2); when its tiles are the parallel ones, at most this, as long as 4 tiles per thread remain">,
    Option<"wavefront", "wavefront", "bool", /*default=*/"true",
           "Run the tiles of a band without a parallel loop as a parallel wavefront">,
    Option<"innerWavefront", "inner-wavefront", "bool", /*default=*/"true",
           "Inside the tiles of a band whose innermost point loop carries a recurrence through memory and that has no parallel loop, run the points along wavefronts (the last two point loops a, b become a + b, b), so that consecutive iterations of the innermost loop are independent">,
    Option<"fuseTiles", "fuse-tiles", "bool", /*default=*/"true",
           "Where nests cut apart by the schedule each have a parallel loop over the same tiles of the same hyperplane right below the cut and access the same cells of an array, run them in one parallel loop over those tiles, one after the other inside each tile (the tile's cells stay in cache, one fork-join instead of several), when no dependence between them crosses tiles; with the default tile sizes, one-loop nests that share cells with the band's deeper nests first take the deeper nests' tile size along the parallel hyperplane (instead of a longer vector tile), and the fused tiles shrink until one tile's cells fit a quarter of L2; two neighbouring nests that read one array in transposed orders, a column stream (its column tiles parallel, the same number per thread, its rows sequential: bicg's s[j] += r[i] * A[i][j]) and rows (its row tiles parallel: bicg's q[i]), with no dependence between them, are interleaved: one parallel loop over the threads, and inside it a loop over tiles of rows, each thread running its columns of the tile's rows, then its share of those rows, which the threads have just read (one thread's share sized to half of L2) (not with fuse=no)">,
    Option<"cyclicTiles", "cyclic-tiles", "bool", /*default=*/"true",
           "Where a nest's outermost loop is a parallel loop over tiles of unequal work (a triangle's rows: syrk's j <= i) and there are more tiles than threads, deal tile t to thread t mod threads (a parallel loop over the threads around a sequential loop over each one's tiles) instead of OpenMP's static schedule, which hands the first thread the first rows, the longest ones (with the default tile sizes and two threads or more)">,
    Option<"rowBlocks", "row-blocks", "bool", /*default=*/"true",
           "In two-loop bands whose innermost loop reduces into cells fixed along it (gesummv's tmp[i] += A[i][j] * x[j] along j), run one vector's lanes of rows at once: the rows' accumulators in one vector, each lane's sums in the input's order (bit-exact), the rows' elements loaded as vectors and transposed in registers (two vectors' lanes of rows, two independent chains, where each group is one statement: bicg's q[i]); where the rows instead reduce into cells along the vector loop (bicg's s[j] += r[i] * A[i][j], j innermost), take as many rows at a time, each cell loaded and stored once per block of rows; the rows of a triangular solve (trisolv's x[i] -= L[i][j] * x[j] along j < i), which read what earlier rows wrote, get the same blocks in any tiled band, a wavefront's too, and run in lanes where code generation proves them independent (the blocks below the diagonal), as scalar copies in order elsewhere; a row's reduction that may run in any order (a maximum; a sum or product under reassociate), one statement per row, whose chain LLVM runs in vector lanes along the row, is instead jammed by a vector of doubles' lanes of rows as scalar copies: that many rows' streams and chains at once (rowmax over 8192 x 8192 floats, 2 threads, Zen 5: 58 -> 71 % of the memory's read bandwidth at 85 GB/s)">,
    Option<"prefetch", "prefetch", "bool", /*default=*/"true",
           "Where row blocks run in vector lanes (row-blocks) over an array larger than the CPU's L2 cache (or of unknown size), prefetch each row 512 bytes (8 cache lines) ahead of the block's loads (affine.prefetch): a core running a vector's lanes of rows at once, behind their chain of adds, keeps too few reads in flight for what memory delivers (trisolv at 8000 rows, 2 threads, AMD EPYC Zen 5: 5.2-5.5 -> 4.4-4.9 ms while memory streams at 100 GB/s; 0-10 % slower while it streams at 50 GB/s, the VM's neighbours busy)">,
    Option<"split", "split", "bool", /*default=*/"true",
           "When a band runs as a wavefront inside sequential loops, split a statement's domain at a hyperplane its dependences come from or go to (index-set splitting) and keep the result if it has parallel loops instead">,
    Option<"steps", "steps", "bool", /*default=*/"true",
           "When the outermost band has two loops and no parallel one (run as a wavefront of tiles), cut it into steps along its first loop (128 rows by the target's model, which balances a step's synchronization against its own triangle; one tile of the band where `tile-sizes` is given), run the steps in order and split each statement at the start of its step along the second loop, and keep the result if each step then has parallel loops and no wavefront (a triangular solve: in each step, the block's rows take the terms of the earlier columns in parallel, whole rows streamed, then the block's own triangle in order)">,
    Option<"embed", "embed", "bool", /*default=*/"true",
           "When the outermost band is a single loop, give statements that have loops of their own beside a sibling loop that loop's dimension, fixed at the iteration whose cells line up with theirs (Gram-Schmidt's column norm and normalization at j = k), and keep the result if the loops around them then form one tiled band; in that band, a statement that needs all of another's loop at the same step and feeds it at the next (Gram-Schmidt's column update and the next step's sums over the columns) is retimed by one step and fused with it, one sweep of the rows per step, its instances that the next step reads first split off, when the analysis finds it legal; inside the tiles, a statement sequence with loops of its own then runs with the band's stride-1 point loop innermost, rows jammed by a vector's lanes">,
    Option<"privatize", "privatize", "bool", /*default=*/"true",
           "When the plan has no parallel loop, expand small temporaries per iteration of their enclosing loops if that provably computes the same values, and keep the result if it has parallel loops">,
    Option<"iterArgs", "iter-args", "bool", /*default=*/"true",
           "Model the scalar values an affine.for carries through iter_args (a front end's accumulator, a row's maximum) as 0-d memref cells on the stack, allocated at the function's entry (the initial value stored before the loop, loaded at the top of the body, the yielded value stored at its end, the result loaded after the loop), so that the nest is a SCoP: the cells' dependences keep each value's order of operations (bit-exact); privatization expands a cell per iteration where that gives parallel loops, and scalar replacement carries it in registers again; likewise the values an affine.if yields, and those an affine.parallel reduces (reduce with addf, maximumf, ...: the operation becomes affine.for loops with the same bounds, each value a cell started at the kind's identity as lower-affine starts it, and a floating-point sum or product's combining operation marked fastmath<reassoc>, the freedom of order the input gives, so that its terms may be split into blocks per thread and vector lanes without reassociate); a nest whose SCoP is not rewritten comes back as it was">,
    Option<"localBuffers", "local-buffers", "bool", /*default=*/"true",
           "Model the local buffers of a loop nest (a memref.alloc or memref.alloca of static shape inside its loops, a C front end's array declared in a loop body, used only by affine loads and stores and freed in its own block) as one buffer allocated at the function's entry with a leading dimension per loop around the allocation (each iteration its own copy, as in the input; at most 2^20 cells), freed before the function returns where the input freed it, so that the nest is a SCoP; a nest whose SCoP is not rewritten comes back as it was">,
    Option<"views", "views", "bool", /*default=*/"true",
           "Model the affine loads and stores through views of another buffer (memref.expand_shape and memref.collapse_shape, memref.subview and memref.reinterpret_cast of static offsets, sizes and strides, through memref.cast) defined outside the nest as accesses of that buffer, their subscripts composed through the views (delinearized with floordiv and mod where a view collapses dimensions), so that the model sees one array; a nest whose SCoP is not rewritten comes back as it was">,
    Option<"splitLoads", "split-loads", "bool", /*default=*/"true",
           "Keep a value loaded before a store that may change its cell and used after that store in a 0-d memref cell of its own (stored right after the load, read right before each use), so that the SCoP can be modeled; the split is taken back when the SCoP is not rewritten">,
    Option<"layout", "layout", "bool", /*default=*/"true",
           "Where the plan's register tiles cannot pack an operand that is strided along the loop the written cells are contiguous along (their blocks reduce over loops after their band: a tensor contraction's C[a,b,c,d] += A[a,e,b,f] * B[f,d,e,c], B strided along d) or there is none, copy such a read-only operand (static shape, one read, at least 16 reads per cell) once before the SCoP into a buffer with that dimension last, read it there (bit-identical: the same values), and keep the result if its plan has register tiles">,
    Option<"noalias", "noalias", "bool", /*default=*/"false",
           "Mark the function's memref arguments llvm.noalias when only rewritten SCoPs use them (the SCoP model already assumes distinct memrefs do not alias)">,
    Option<"unrollJam", "unroll-jam", "unsigned", /*default=*/"0",
           "Unroll-and-jam factor of the point loops outside the innermost one, at most 16 statement copies (0: off)">,
    Option<"registerTile", "register-tile", "bool", /*default=*/"true",
           "Register tiles in bands of three or more loops: the loop along which the writes stay on one cell goes inside blocks of two other point loops (the vector loop among them), which are unrolled, so the written cells stay in registers across it; where the vector loop would gather, statements that run at one point of that loop (cholesky's division and square root) sit on the blocks' edges">,
    Option<"scalarReplace", "scalar-replace", "bool", /*default=*/"true",
           "Keep the array cells every innermost sequential loop accesses at loop-invariant subscripts in registers across it (scalar replacement: loaded before, carried through iter_args, stored after), not only in register tiles; and inside each innermost loop body, load a cell its statement copies access again and again once and store it once">,
    Option<"hoist", "hoist", "bool", /*default=*/"true",
           "In register tiles, compute the operands that do not change from one block of the vector loop to the next (gemm's alpha * A[i][k]) once per block row, into a buffer on the stack">,
    Option<"pack", "pack", "bool", /*default=*/"true",
           "In register tiles, copy the operands that do not change from one block row to the next (gemm's B[k][j]: a tile of k by the blocks of j) into a contiguous buffer on the stack once, before the loop over the block rows, and read them from there: one stream per block instead of one row of the array per value of k (at most 1 MiB, when that loop has at least 4 rows of blocks)">,
    ListOption<"registerTileSizes", "register-tile-sizes", "int64_t",
           "Register tile: iterations of the outer and of the vector point loop per block, at most 16 each (default from the CPU's vector registers and lanes: two vectors wide, or one where the vector loop's tiles are not a multiple of two vectors or a triangle's statements stream two operands along it, with half the registers holding accumulators: 8,16 and 8,8 with AVX-512, 4,8 and 4,4 with AVX2; three quarters with contract=true on a CPU with FMA: 12,16 and 12,8, 6,8 and 6,4)">,
    Option<"maxCoef", "max-coef", "unsigned", /*default=*/"4",
           "Largest iterator coefficient of a scheduling hyperplane">,
    Option<"verify", "verify", "bool", /*default=*/"true",
           "Re-check the final schedule and its parallel loops with the independent legality checker">,
    Option<"verifyEmit", "verify-emit", "unsigned", /*default=*/"200000",
           "Re-check each rewritten SCoP on the CPU by translation validation: the input's operations and the new code run in an interpreter of symbolic values (each cell of the arrays a symbol, each result the tree of operations that made it), the parameters at small values (5, 7, 6, 4, ...), and every cell must end with the same tree, bit for bit; every parallel loop of the new code must have no two iterations touching a cell one of them writes. It runs when the input takes at most this many operations to interpret (0: never); a SCoP whose new code differs is put back as it was, with an internal-error warning. The remark says when it ran">,
    Option<"emitTestMutation", "emit-test-mutation", "std::string", /*default=*/"\"\"",
           "Testing only: a deliberate bug in the loop tree that code generation emits, after the tree's own check, to show that verify-emit catches it: duplicate (one statement instance emitted twice), hoist (one statement instance emitted one loop level too high, before its innermost loop, at that loop's first value); empty: none">,
    Option<"profitability", "profitability", "bool", /*default=*/"true",
           "Skip tiling when it would leave guards in innermost loops, and leave a SCoP unchanged when its plan has neither tiles nor parallel loops">,
    Option<"contract", "contract", "bool", /*default=*/"false",
           "Allow LLVM to fuse each multiply and the add or subtract that uses it into a fused multiply-add, in the rewritten loop nests (fastmath<contract> on their arith.mulf, addf, subf): faster on CPUs with FMA, what gcc -O3 and clang -O3 do by default, but results may differ in the last bits from the input's (off: bit-identical). On CPUs, a statement whose innermost loop is a chain of its own instances (a sum kept in a register along it, not in vector lanes or a register tile) keeps its multiply apart: fused, each link would take a multiply-add's latency instead of an add's">,
    Option<"reassociate", "reassociate", "bool", /*default=*/"false",
           "Allow the terms of a floating-point reduction (a cell updated as x = x + e, x - e, x * e, or a minimum or maximum of it, with nothing else touching the cell's array inside the loops the reduction runs over) to be combined in another order: the reduction's combining operation gets fastmath<reassoc> in the rewritten loop nests, which lets LLVM run a chain carried in a register along the innermost loop in the lanes of vectors (partial results in the lanes, combined after the loop) and lets a SCoP whose only gain is such a chain be rewritten; a sum or product over a whole loop nest (a dot product, a norm) is split into blocks with partial results, one per thread, combined in order after them, so that the blocks run in parallel, and so is a sum into an array along a loop that also carries the cells the sum reads (atax's y[j] += A[i][j] * tmp[i] beside tmp[i]'s dot product) or whose loops carry sums along it over the same cells (bicg's s[j] += r[i] * A[i][j] beside q[i] += A[i][j] * p[j], then read once per row by both, several rows at a time; mvt's x2[i] += A[j][i] * y2[j], its nest interchanged and fused with the row nest x1[i] += A[i][j] * y1[j] before, likewise), each block summing into a private copy of the array (at most half the L2), which are added to it in block order: one parallel pass instead of two; the freedom -fassociative-math gives a C compiler, so sums and products may differ in their last bits from the input's (off: bit-identical; integer reductions and maximumf/minimumf are split by default, being exact in any grouping). The remark names the reductions reassociated and split">,
    Option<"printPlan", "print-plan", "bool", /*default=*/"false",
           "Print each rewritten SCoP's plan (the role of every schedule dimension, each statement's final schedule with the constraints that define its tile coordinates) and the loop tree generated from it, as a remark: for stage-level tests and bug reports">,
    Option<"printStages", "print-stages", "bool", /*default=*/"false",
           "Print each rewritten SCoP's plan after tiling and after each stage of the plan that changed it (parallel, point order, unroll-and-jam, register tile, gather, row blocks, align tiles, inner distribute, point sinking, tile fusion, interleave, cyclic tiles, row jam), in print-plan's form, then its loop tree after each stage of code generation (carry, buffers, lanes, scalar; on a GPU, carry), each loop's decisions after its bounds, as remarks: for stage-level tests">,
    Option<"timeBudget", "time-budget", "unsigned", /*default=*/"5",
           "Seconds of work per SCoP (dependences, schedule, plan, checks, code generation) before it is left unchanged with a remark naming the stage that ran out (0: no limit); the scheduler may take three quarters of it: when its ILP runs out (or past its size limits), the original loop order with its outermost parallel loop is planned instead, if it has one; the retries that look for a better plan (embedding, index-set splitting, privatization, distribution) stop at three fifths of it when the plan so far is one to keep, leaving the rest to that plan's checks and code generation">,
  ];
}
