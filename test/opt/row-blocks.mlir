// Row blocks: the rows' reductions of a matrix-vector nest (each row's
// sums along j into t[i] and y[i], fixed along j) run one vector's lanes
// of rows at once. The rows' accumulators are vectors carried across j
// (lane k: row i + k); A[i + k][j], B[i + k][j] and A[i + k][j + 1] are
// loaded as one vector per row and transposed in registers; x[j] and
// x[j + 2] are broadcast. Each lane adds its row's terms in the input's
// order, so the results must be identical, digit for digit, to the
// untransformed program's: with 8 lanes (AVX-512), 4 (AVX2), 2 (SSE2),
// through the stock mlir-opt with the plugin, and with row blocks off. 37
// rows leave a partial block of 5 rows (five scalar chains), 28 columns a
// remainder of 4 after the blocks of 8 (loaded element by element). @mv_sqrt's square root does not run lane-wise: its
// rows stay scalar.
//
// RUN: %polyrs-runner --threads=2 %s > %t.before
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false' 2> %t.remarks | %polyrs-runner --threads=2 - > %t.lanes
// RUN: %polyrs-opt %s --poly-opt='cpu=znver3 threads=2 profitability=false' 2>/dev/null | %polyrs-runner --threads=2 - > %t.avx2
// RUN: %polyrs-opt %s --poly-opt='cpu=x86-64 threads=2 profitability=false' 2>/dev/null | %polyrs-runner --threads=2 - > %t.sse
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false row-blocks=false' 2> %t.remarks-off | %polyrs-runner --threads=2 - > %t.off
// RUN: diff %t.before %t.lanes
// The decision, in the loop tree after the lanes stage: the loop over j
// (t4) whose body is the 16 unrolled rows of a block (t5) keeps their 16
// accumulators t[i + k][0] in registers and runs them in the lanes of two
// vectors of 8 doubles.
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false print-stages=true' -o /dev/null 2>&1 | FileCheck %s --check-prefix=TREE
// TREE:      loop tree after the lanes stage (2 loops marked):
// TREE:      for t4 = max(0) to min(27) [carry 16 cells, lanes t5 x8]
// TREE-NEXT:   let t5 = 16*t3
// TREE:        let t5 = 16*t3+15
// RUN: diff %t.before %t.avx2
// RUN: diff %t.before %t.sse
// RUN: diff %t.before %t.off
// The stock mlir-opt with the plugin: the pass loads the vector dialect.
// RUN: %mlir-opt --load-pass-plugin=%polyrs_plugin --pass-pipeline='builtin.module(func.func(poly-opt{cpu=znver4 threads=2 profitability=false}))' %s 2>/dev/null | %polyrs-runner --threads=2 - > %t.plugin
// RUN: diff %t.before %t.plugin
// RUN: FileCheck %s --input-file=%t.before --check-prefix=SUMS
// RUN: FileCheck %s --input-file=%t.remarks --check-prefix=REMARK
// RUN: FileCheck %s --input-file=%t.remarks-off --check-prefix=OFF
// RUN: %polyrs-opt %s --poly-opt='%{avx512} profitability=false' 2>/dev/null | FileCheck %s
// RUN: %polyrs-opt %s --poly-opt='cpu=znver3 threads=2 profitability=false' 2>/dev/null | FileCheck %s --check-prefix=AVX2
//
// SUMS-COUNT-4: {{^-?[0-9]+$}}
// SUMS-NOT: {{.}}
//
// REMARK: remark: poly-opt: {{.*}}rows' reductions along φ{{[0-9]}} run 16 at a time, one per vector lane (2 vectors); 1 point loop unrolled and jammed by 16;{{.*}}legality verified
// REMARK: remark: poly-opt:
// REMARK-NOT: vector lane
// REMARK-SAME: legality verified
// OFF-NOT: vector lane
//
// The scheduler gives t's and y's updates a nest each. Each of them runs
// one chain of adds per vector of rows, so a block takes two vectors' lanes
// of rows (16), two independent chains. In each nest, the full blocks of
// 16 rows: two accumulators of 8 lanes, loaded cell by cell; the columns
// in blocks of 8 (0 to 24), each loading 8 rows per vector (A at j for t;
// B at j and A at j + 1 for y), 3 rounds of 8 shuffles per transpose; then
// the columns 24 to 27 one at a time, their rows loaded element by
// element; then each lane's sum stored to its cell. The last 5 rows (a
// partial block of constant size) stay scalar: five chains, unrolled, each
// row's cell carried in a register across the columns.
// CHECK-LABEL: func.func @mv(
// CHECK: affine.parallel
// CHECK: vector.from_elements {{.*}} : vector<8xf64>
// CHECK-NEXT: vector.from_elements {{.*}} : vector<8xf64>
// CHECK-NEXT: affine.for %{{.*}} = 0 to 24 step 8 iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (vector<8xf64>, vector<8xf64>) {
// CHECK-COUNT-8: affine.vector_load %arg1[%{{.*}}, %{{.*}}] : memref<37x29xf64>, vector<8xf64>
// CHECK-COUNT-24: vector.shuffle %{{.*}}, %{{.*}} [{{.*}}] : vector<8xf64>, vector<8xf64>
// CHECK: affine.vector_load %arg1[%{{.*}} * 16 + 8, %{{.*}}] : memref<37x29xf64>, vector<8xf64>
// CHECK-COUNT-7: affine.vector_load %arg1[%{{.*}}, %{{.*}}] : memref<37x29xf64>, vector<8xf64>
// CHECK-COUNT-24: vector.shuffle %{{.*}}, %{{.*}} [{{.*}}] : vector<8xf64>, vector<8xf64>
// CHECK-NOT: vector.shuffle
// CHECK: affine.yield %{{.*}}, %{{.*}} : vector<8xf64>, vector<8xf64>
// CHECK: affine.for %{{.*}} = 24 to 28 iter_args(
// CHECK-NOT: vector_load
// CHECK: vector.from_elements {{.*}} : vector<8xf64>
// CHECK: affine.yield
// CHECK-COUNT-16: vector.extract
// CHECK: affine.for %{{.*}} = 0 to 28 iter_args({{.*}}) -> (f64, f64, f64, f64, f64) {
// CHECK-NOT: vector
// CHECK: affine.parallel
// CHECK: affine.for %{{.*}} = 0 to 24 step 8 iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (vector<8xf64>, vector<8xf64>) {
// CHECK-COUNT-8: affine.vector_load %arg2[%{{.*}}, %{{.*}}] : memref<37x29xf64>, vector<8xf64>
// CHECK-COUNT-24: vector.shuffle
// CHECK-COUNT-8: affine.vector_load %arg1[%{{.*}}, %{{.*}} + 1] : memref<37x29xf64>, vector<8xf64>
// CHECK-COUNT-24: vector.shuffle
// CHECK-COUNT-8: affine.vector_load %arg2[%{{.*}}, %{{.*}}] : memref<37x29xf64>, vector<8xf64>
// CHECK-COUNT-24: vector.shuffle
// CHECK-COUNT-8: affine.vector_load %arg1[%{{.*}}, %{{.*}} + 1] : memref<37x29xf64>, vector<8xf64>
// CHECK-COUNT-24: vector.shuffle
// CHECK-NOT: vector.shuffle
// CHECK: affine.yield %{{.*}}, %{{.*}} : vector<8xf64>, vector<8xf64>
// CHECK-COUNT-16: vector.extract
// CHECK-LABEL: func.func @mv_sqrt(
// CHECK-NOT: vector
// CHECK-LABEL: func.func @fill(
//
// On AVX2, 4 lanes, blocks of 8 rows in two vectors, columns in blocks of
// 4: the 28 columns need no remainder loop; 2 rounds of 4 shuffles per
// transpose; the 37 rows, 4 full blocks of 8 and 5 rows.
// AVX2-LABEL: func.func @mv(
// AVX2: affine.for %{{.*}} = 0 to 28 step 4 iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (vector<4xf64>, vector<4xf64>) {
// AVX2-COUNT-4: affine.vector_load %arg1[%{{.*}}, %{{.*}}] : memref<37x29xf64>, vector<4xf64>
// AVX2-COUNT-8: vector.shuffle
// AVX2-COUNT-4: affine.vector_load %arg1[%{{.*}}, %{{.*}}] : memref<37x29xf64>, vector<4xf64>
// AVX2-COUNT-8: vector.shuffle
// AVX2-NOT: vector.shuffle
// AVX2: affine.yield %{{.*}}, %{{.*}} : vector<4xf64>, vector<4xf64>
// AVX2-NOT: vector_load
// AVX2: affine.for %{{.*}} = 0 to 28 iter_args({{.*}}) -> (f64, f64, f64, f64, f64) {
// AVX2-NOT: vector<8xf64>
// AVX2-LABEL: func.func @mv_sqrt(

func.func private @printI64(i64)
func.func private @printNewline()

func.func @mv(%alpha: f64, %A: memref<37x29xf64>, %B: memref<37x29xf64>, %x: memref<37x31xf64>, %t: memref<37x29xf64>, %y: memref<37x29xf64>) {
  affine.for %i = 0 to 37 {
    affine.for %j = 0 to 28 {
      %t0 = affine.load %t[%i, 0] : memref<37x29xf64>
      %a = affine.load %A[%i, %j] : memref<37x29xf64>
      %xj = affine.load %x[0, %j] : memref<37x31xf64>
      %p = arith.mulf %alpha, %a : f64
      %q = arith.mulf %p, %xj : f64
      %t1 = arith.addf %t0, %q : f64
      affine.store %t1, %t[%i, 0] : memref<37x29xf64>
      %y0 = affine.load %y[%i, 1] : memref<37x29xf64>
      %b = affine.load %B[%i, %j] : memref<37x29xf64>
      %a1 = affine.load %A[%i, %j + 1] : memref<37x29xf64>
      %x2 = affine.load %x[0, %j + 2] : memref<37x31xf64>
      %d = arith.subf %b, %a1 : f64
      %e = arith.divf %d, %x2 : f64
      %y1 = arith.subf %y0, %e : f64
      affine.store %y1, %y[%i, 1] : memref<37x29xf64>
    }
  }
  return
}

func.func @mv_sqrt(%A: memref<37x29xf64>, %x: memref<37x31xf64>, %t: memref<37x29xf64>) {
  affine.for %i = 0 to 37 {
    affine.for %j = 0 to 29 {
      %t0 = affine.load %t[%i, 2] : memref<37x29xf64>
      %a = affine.load %A[%i, %j] : memref<37x29xf64>
      %r = math.sqrt %a : f64
      %xj = affine.load %x[0, %j] : memref<37x31xf64>
      %q = arith.mulf %r, %xj : f64
      %t1 = arith.addf %t0, %q : f64
      affine.store %t1, %t[%i, 2] : memref<37x29xf64>
    }
  }
  return
}

func.func @fill(%A: memref<?x?xf64>, %n: index, %m: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7.0 : f64
  %one = arith.constant 1.0 : f64
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %m step %c1 {
      %v = affine.apply affine_map<(d0, d1) -> ((d0 * 7 + d1 * 3) mod 11)>(%i, %j)
      %vi = arith.index_cast %v : index to i64
      %vf = arith.sitofp %vi : i64 to f64
      %w = arith.divf %vf, %c7 : f64
      %x = arith.addf %w, %one : f64
      memref.store %x, %A[%i, %j] : memref<?x?xf64>
    }
  }
  return
}

// Prints the bits of the sum of A[i][j] * (1 + (i + 2j) mod 5).
func.func @sum(%A: memref<?x?xf64>, %n: index, %m: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f64
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (f64) {
    %r = scf.for %j = %c0 to %m step %c1 iter_args(%a2 = %acc) -> (f64) {
      %v = memref.load %A[%i, %j] : memref<?x?xf64>
      %w = affine.apply affine_map<(d0, d1) -> ((d0 + d1 * 2) mod 5 + 1)>(%i, %j)
      %wi = arith.index_cast %w : index to i64
      %wf = arith.sitofp %wi : i64 to f64
      %p = arith.mulf %v, %wf : f64
      %n2 = arith.addf %a2, %p : f64
      scf.yield %n2 : f64
    }
    scf.yield %r : f64
  }
  %bits = arith.bitcast %s : f64 to i64
  func.call @printI64(%bits) : (i64) -> ()
  func.call @printNewline() : () -> ()
  return
}

func.func @main() {
  %c29 = arith.constant 29 : index
  %c31 = arith.constant 31 : index
  %c37 = arith.constant 37 : index
  %alpha = arith.constant 1.25 : f64
  %A = memref.alloc() : memref<37x29xf64>
  %B = memref.alloc() : memref<37x29xf64>
  %x = memref.alloc() : memref<37x31xf64>
  %t = memref.alloc() : memref<37x29xf64>
  %y = memref.alloc() : memref<37x29xf64>
  %Ad = memref.cast %A : memref<37x29xf64> to memref<?x?xf64>
  %Bd = memref.cast %B : memref<37x29xf64> to memref<?x?xf64>
  %xd = memref.cast %x : memref<37x31xf64> to memref<?x?xf64>
  %td = memref.cast %t : memref<37x29xf64> to memref<?x?xf64>
  %yd = memref.cast %y : memref<37x29xf64> to memref<?x?xf64>
  func.call @fill(%Ad, %c37, %c29) : (memref<?x?xf64>, index, index) -> ()
  func.call @fill(%Bd, %c37, %c29) : (memref<?x?xf64>, index, index) -> ()
  func.call @fill(%xd, %c37, %c31) : (memref<?x?xf64>, index, index) -> ()
  func.call @fill(%td, %c37, %c29) : (memref<?x?xf64>, index, index) -> ()
  func.call @fill(%yd, %c37, %c29) : (memref<?x?xf64>, index, index) -> ()
  func.call @mv(%alpha, %A, %B, %x, %t, %y) : (f64, memref<37x29xf64>, memref<37x29xf64>, memref<37x31xf64>, memref<37x29xf64>, memref<37x29xf64>) -> ()
  func.call @sum(%td, %c37, %c29) : (memref<?x?xf64>, index, index) -> ()
  func.call @sum(%yd, %c37, %c29) : (memref<?x?xf64>, index, index) -> ()
  func.call @mv_sqrt(%A, %x, %t) : (memref<37x29xf64>, memref<37x31xf64>, memref<37x29xf64>) -> ()
  func.call @sum(%td, %c37, %c29) : (memref<?x?xf64>, index, index) -> ()
  func.call @sum(%Ad, %c37, %c29) : (memref<?x?xf64>, index, index) -> ()
  memref.dealloc %A : memref<37x29xf64>
  memref.dealloc %B : memref<37x29xf64>
  memref.dealloc %x : memref<37x31xf64>
  memref.dealloc %t : memref<37x29xf64>
  memref.dealloc %y : memref<37x29xf64>
  return
}
