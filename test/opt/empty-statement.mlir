// A statement that runs nowhere (its guard asks for i1 = 0 where
// i1 >= i0 >= 1: a program of the fuzzer's mixed family, seed 117907)
// has a projection with no point at the first loop of the plan: code
// generation drops it there instead of scanning its empty set (13 loops
// for nothing before; then, once the projection of an empty set became
// the one row -1 >= 0, no lower bound at all and the SCoP left
// unchanged). What remains is the other statement's loop. The results
// must be identical, bit for bit, before and after.
//
// RUN: %polyrs-runner --threads=2 %s > %t.before
// RUN: %polyrs-opt %s --poly-opt='profitability=false l2-tile=4' 2> %t.remarks > %t.mlir
// RUN: %polyrs-runner --threads=2 %t.mlir > %t.after
// RUN: diff %t.before %t.after
// RUN: FileCheck %s --input-file=%t.before --check-prefix=SUMS
// RUN: FileCheck %s --input-file=%t.remarks --check-prefix=REMARK
// RUN: FileCheck %s --input-file=%t.mlir --check-prefix=CODE
//
// SUMS: {{^-?[0-9]+$}}
// SUMS-NOT: {{.}}
//
// REMARK: empty-statement.mlir:[[@LINE+10]]:3: remark: poly-opt: 2 statements, 1 loop (0 parallel), 0 guards;
//
// CODE-LABEL: func.func @kernel
// CODE-NEXT: affine.for %[[I:.*]] = 1 to 5 {
// CODE-NEXT: affine.load %{{.*}}[%[[I]] floordiv 2, %[[I]], %[[I]] + 2]
// CODE-NEXT: affine.store
// CODE-NEXT: }
// CODE-NEXT: return

func.func @kernel(%n0: index, %n1: index, %A0: memref<?x?x?xf64>) {
  affine.for %i0 = 1 to 5 {
    affine.for %i1 = affine_map<(d0)[] -> (d0)>(%i0)[] to 5 {
      affine.for %i2 = max affine_map<()[s0] -> ((s0 - 6), 0)>()[%n1] to min affine_map<(d0)[s0] -> (s0, (d0 + 5))>(%i0)[%n1] {
        affine.for %i3 = max affine_map<()[s0] -> ((s0 - 6), 0)>()[%n1] to affine_map<(d0)[] -> ((d0 + 2))>(%i0)[] {
          affine.if affine_set<(d0, d1)[] : (d0 == 0, (d0 + (-d1)) >= 0)>(%i1, %i0)[] {
            %t1 = arith.constant 0.5 : f64
            %t2 = affine.load %A0[((%i3 + 2) + 1), ((%i0 + 2) + 2), ((%i2 + 2) + 2)] : memref<?x?x?xf64>
            %t3 = affine.load %A0[((%i3 + 2) + 2), ((%i0 + 2) - 2), ((%i2 + 2) - 2)] : memref<?x?x?xf64>
            %t4 = arith.addf %t2, %t3 : f64
            %t5 = arith.mulf %t1, %t4 : f64
            affine.store %t5, %A0[(%i3 + 2), (%i0 + 2), (%i2 + 2)] : memref<?x?x?xf64>
          }
        }
      }
    }
    %t6 = affine.load %A0[(%i0 floordiv 2), %i0, (%i0 + 2)] : memref<?x?x?xf64>
    affine.store %t6, %A0[1, %i0, (%i0 + 1)] : memref<?x?x?xf64>
  }
  return
}

func.func private @printI64(i64)
func.func private @printNewline()
func.func @main() {
  %c37_0 = arith.constant 37 : i64
  %off0 = arith.constant 11 : i64
  %base0 = arith.constant 0.0 : f64
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z64 = arith.constant 0 : i64
  %one64 = arith.constant 1 : i64
  %p997 = arith.constant 997 : i64
  %f997 = arith.constant 997.0 : f64
  %half = arith.constant 0.5 : f64
  %nan64 = arith.constant 9221120237041090560 : i64
  %m0 = memref.alloc() : memref<3x5x7xf64>
  %flat0 = memref.reinterpret_cast %m0 to offset: [0], sizes: [105], strides: [1] : memref<3x5x7xf64> to memref<105xf64>
  %sz0 = arith.constant 105 : index
  scf.for %k = %c0 to %sz0 step %c1 {
    %ki = arith.index_cast %k : index to i64
    %km = arith.muli %ki, %c37_0 : i64
    %ka = arith.addi %km, %off0 : i64
    %kr = arith.remui %ka, %p997 : i64
    %kf = arith.sitofp %kr : i64 to f64
    %kd = arith.divf %kf, %f997 : f64
    %kv = arith.addf %kd, %base0 : f64
    %kq = arith.addf %kv, %half : f64
    memref.store %kq, %flat0[%k] : memref<105xf64>
  }
  %pv_n0 = arith.constant 10 : index
  %pv_n1 = arith.constant 8 : index
  %dyn0 = memref.cast %m0 : memref<3x5x7xf64> to memref<?x?x?xf64>
  func.call @kernel(%pv_n0, %pv_n1, %dyn0) : (index, index, memref<?x?x?xf64>) -> ()
  %sum0 = scf.for %k = %c0 to %sz0 step %c1 iter_args(%acc = %z64) -> (i64) {
    %v = memref.load %flat0[%k] : memref<105xf64>
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
  memref.dealloc %m0 : memref<3x5x7xf64>
  return
}
