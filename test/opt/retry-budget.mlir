// A SCoP whose first plan is quick (a program of the fuzzer's mixed
// family, seed 118478, with 3x3x3 tiles: a wavefront of tiles) and whose
// index-set splitting retry is not: scheduling the split SCoP takes
// about 9 s. The retries stop at 3/5 of the SCoP's time budget when the
// plan so far is one to keep, so that the budget's rest serves that
// plan's legality check and code generation: the SCoP is rewritten
// within the default 5 s budget, where the retry used to take the whole
// budget and leave it unchanged ("the legality check failed: the time
// budget ran out"). The results must be identical, bit for bit, before
// and after.
//
// RUN: %polyrs-runner --threads=2 %s > %t.before
// RUN: %polyrs-opt %s --poly-opt='profitability=false tile-sizes=3' 2> %t.remarks > %t.mlir
// RUN: %polyrs-runner --threads=2 %t.mlir > %t.after
// RUN: diff %t.before %t.after
// RUN: FileCheck %s --input-file=%t.before --check-prefix=SUMS
// RUN: FileCheck %s --input-file=%t.remarks --check-prefix=REMARK
//
// SUMS-COUNT-4: {{^-?[0-9]+$}}
// SUMS-NOT: {{.}}
//
// REMARK: retry-budget.mlir:[[@LINE+4]]:3: remark: poly-opt: 2 statements, {{.*}}band of 3 loops tiled 3x3x3; tiles run as a parallel wavefront{{.*}}; legality verified
// REMARK-NOT: left unchanged

func.func @kernel(%n0: index, %A0: memref<?x?xf64>, %A1: memref<?x?xf64>, %A2: memref<1x1xf64>, %A3: memref<1xf64>) {
  affine.for %i0 = 1 to 7 {
    affine.for %i1 = 1 to 8 {
      affine.for %i2 = 0 to affine_map<(d0)[] -> (((d0 floordiv 2) + 1))>(%i0)[] {
        affine.for %i3 = max affine_map<()[s0] -> ((s0 - 3), 0)>()[%n0] to affine_map<()[s0] -> ((s0 - 1))>()[%n0] {
          affine.if affine_set<(d0)[] : ((d0 + (-d0)) >= 0, (5 + (-d0)) >= 0)>(%i3)[] {
            %t1 = arith.constant 0.5 : f64
            %t2 = affine.load %A0[((%i2 - 1) + 1), 3] : memref<?x?xf64>
            %t3 = arith.subf %t1, %t2 : f64
            affine.store %t3, %A0[(%i3 ceildiv 2), ((%i2 + 1) floordiv 2)] : memref<?x?xf64>
          } else {
            %t4 = arith.constant 0.5 : f64
            %t5 = affine.load %A0[3, (%i2 + 1)] : memref<?x?xf64>
            %t6 = affine.load %A0[3, (%i2 + 1)] : memref<?x?xf64>
            %t7 = arith.addf %t5, %t6 : f64
            %t8 = affine.load %A0[3, %i2] : memref<?x?xf64>
            %t9 = arith.addf %t7, %t8 : f64
            %t10 = arith.mulf %t4, %t9 : f64
            affine.store %t10, %A0[3, %i2] : memref<?x?xf64>
          }
        }
      }
    }
  }
  return
}

func.func private @printI64(i64)
func.func private @printNewline()
func.func @main() {
  %c37_0 = arith.constant 37 : i64
  %off0 = arith.constant 11 : i64
  %base0 = arith.constant 0.0 : f64
  %c37_1 = arith.constant 37 : i64
  %off1 = arith.constant 112 : i64
  %base1 = arith.constant 1.0 : f64
  %c37_2 = arith.constant 37 : i64
  %off2 = arith.constant 213 : i64
  %base2 = arith.constant 2.0 : f64
  %c37_3 = arith.constant 37 : i64
  %off3 = arith.constant 314 : i64
  %base3 = arith.constant 3.0 : f64
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z64 = arith.constant 0 : i64
  %one64 = arith.constant 1 : i64
  %p997 = arith.constant 997 : i64
  %f997 = arith.constant 997.0 : f64
  %half = arith.constant 0.5 : f64
  %nan64 = arith.constant 9221120237041090560 : i64
  %m0 = memref.alloc() : memref<4x4xf64>
  %flat0 = memref.reinterpret_cast %m0 to offset: [0], sizes: [16], strides: [1] : memref<4x4xf64> to memref<16xf64>
  %sz0 = arith.constant 16 : index
  scf.for %k = %c0 to %sz0 step %c1 {
    %ki = arith.index_cast %k : index to i64
    %km = arith.muli %ki, %c37_0 : i64
    %ka = arith.addi %km, %off0 : i64
    %kr = arith.remui %ka, %p997 : i64
    %kf = arith.sitofp %kr : i64 to f64
    %kd = arith.divf %kf, %f997 : f64
    %kv = arith.addf %kd, %base0 : f64
    %kq = arith.addf %kv, %half : f64
    memref.store %kq, %flat0[%k] : memref<16xf64>
  }
  %m1 = memref.alloc() : memref<1x1xf64>
  %flat1 = memref.reinterpret_cast %m1 to offset: [0], sizes: [1], strides: [1] : memref<1x1xf64> to memref<1xf64>
  %sz1 = arith.constant 1 : index
  scf.for %k = %c0 to %sz1 step %c1 {
    %ki = arith.index_cast %k : index to i64
    %km = arith.muli %ki, %c37_1 : i64
    %ka = arith.addi %km, %off1 : i64
    %kr = arith.remui %ka, %p997 : i64
    %kf = arith.sitofp %kr : i64 to f64
    %kd = arith.divf %kf, %f997 : f64
    %kv = arith.addf %kd, %base1 : f64
    %kq = arith.addf %kv, %half : f64
    memref.store %kq, %flat1[%k] : memref<1xf64>
  }
  %m2 = memref.alloc() : memref<1x1xf64>
  %flat2 = memref.reinterpret_cast %m2 to offset: [0], sizes: [1], strides: [1] : memref<1x1xf64> to memref<1xf64>
  %sz2 = arith.constant 1 : index
  scf.for %k = %c0 to %sz2 step %c1 {
    %ki = arith.index_cast %k : index to i64
    %km = arith.muli %ki, %c37_2 : i64
    %ka = arith.addi %km, %off2 : i64
    %kr = arith.remui %ka, %p997 : i64
    %kf = arith.sitofp %kr : i64 to f64
    %kd = arith.divf %kf, %f997 : f64
    %kv = arith.addf %kd, %base2 : f64
    %kq = arith.addf %kv, %half : f64
    memref.store %kq, %flat2[%k] : memref<1xf64>
  }
  %m3 = memref.alloc() : memref<1xf64>
  %flat3 = memref.reinterpret_cast %m3 to offset: [0], sizes: [1], strides: [1] : memref<1xf64> to memref<1xf64>
  %sz3 = arith.constant 1 : index
  scf.for %k = %c0 to %sz3 step %c1 {
    %ki = arith.index_cast %k : index to i64
    %km = arith.muli %ki, %c37_3 : i64
    %ka = arith.addi %km, %off3 : i64
    %kr = arith.remui %ka, %p997 : i64
    %kf = arith.sitofp %kr : i64 to f64
    %kd = arith.divf %kf, %f997 : f64
    %kv = arith.addf %kd, %base3 : f64
    %kq = arith.addf %kv, %half : f64
    memref.store %kq, %flat3[%k] : memref<1xf64>
  }
  %pv_n0 = arith.constant 6 : index
  %dyn0 = memref.cast %m0 : memref<4x4xf64> to memref<?x?xf64>
  %dyn1 = memref.cast %m1 : memref<1x1xf64> to memref<?x?xf64>
  func.call @kernel(%pv_n0, %dyn0, %dyn1, %m2, %m3) : (index, memref<?x?xf64>, memref<?x?xf64>, memref<1x1xf64>, memref<1xf64>) -> ()
  %sum0 = scf.for %k = %c0 to %sz0 step %c1 iter_args(%acc = %z64) -> (i64) {
    %v = memref.load %flat0[%k] : memref<16xf64>
    %isnan = arith.cmpf uno, %v, %v : f64
    %raw = arith.bitcast %v : f64 to i64
    %bits = arith.select %isnan, %nan64, %raw : i64
    %ki = arith.index_cast %k : index to i64
    %w = arith.addi %ki, %one64 : i64
    %prod = arith.muli %bits, %w : i64
    %next = arith.addi %acc, %prod : i64
    scf.yield %next : i64
  }
  func.call @printI64(%sum0) : (i64) -> ()
  func.call @printNewline() : () -> ()
  %sum1 = scf.for %k = %c0 to %sz1 step %c1 iter_args(%acc = %z64) -> (i64) {
    %v = memref.load %flat1[%k] : memref<1xf64>
    %isnan = arith.cmpf uno, %v, %v : f64
    %raw = arith.bitcast %v : f64 to i64
    %bits = arith.select %isnan, %nan64, %raw : i64
    %ki = arith.index_cast %k : index to i64
    %w = arith.addi %ki, %one64 : i64
    %prod = arith.muli %bits, %w : i64
    %next = arith.addi %acc, %prod : i64
    scf.yield %next : i64
  }
  func.call @printI64(%sum1) : (i64) -> ()
  func.call @printNewline() : () -> ()
  %sum2 = scf.for %k = %c0 to %sz2 step %c1 iter_args(%acc = %z64) -> (i64) {
    %v = memref.load %flat2[%k] : memref<1xf64>
    %isnan = arith.cmpf uno, %v, %v : f64
    %raw = arith.bitcast %v : f64 to i64
    %bits = arith.select %isnan, %nan64, %raw : i64
    %ki = arith.index_cast %k : index to i64
    %w = arith.addi %ki, %one64 : i64
    %prod = arith.muli %bits, %w : i64
    %next = arith.addi %acc, %prod : i64
    scf.yield %next : i64
  }
  func.call @printI64(%sum2) : (i64) -> ()
  func.call @printNewline() : () -> ()
  %sum3 = scf.for %k = %c0 to %sz3 step %c1 iter_args(%acc = %z64) -> (i64) {
    %v = memref.load %flat3[%k] : memref<1xf64>
    %isnan = arith.cmpf uno, %v, %v : f64
    %raw = arith.bitcast %v : f64 to i64
    %bits = arith.select %isnan, %nan64, %raw : i64
    %ki = arith.index_cast %k : index to i64
    %w = arith.addi %ki, %one64 : i64
    %prod = arith.muli %bits, %w : i64
    %next = arith.addi %acc, %prod : i64
    scf.yield %next : i64
  }
  func.call @printI64(%sum3) : (i64) -> ()
  func.call @printNewline() : () -> ()
  memref.dealloc %m0 : memref<4x4xf64>
  memref.dealloc %m1 : memref<1x1xf64>
  memref.dealloc %m2 : memref<1x1xf64>
  memref.dealloc %m3 : memref<1xf64>
  return
}
