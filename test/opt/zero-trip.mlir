// A loop that code generation's bounds leave with no iteration once the
// affine folds have run (`for 1 to 1`, in a program of the fuzzer's mixed
// family, seed 119784, without wavefronts): inside it, MLIR's affine
// patterns simplified a nested loop's lower bound against the empty range
// of its induction variable into a map without results, which the
// verifier rejects ("'affine.for' op expected lower bound map to have at
// least one result": the pass failed). Loops of no iteration are now
// erased after the folds. The results must be identical, bit for bit,
// before and after.
//
// RUN: %polyrs-runner --threads=2 %s > %t.before
// RUN: %polyrs-opt %s --poly-opt='profitability=false wavefront=false inner-wavefront=false' 2> %t.remarks > %t.mlir
// RUN: %polyrs-runner --threads=2 %t.mlir > %t.after
// RUN: diff %t.before %t.after
// RUN: FileCheck %s --input-file=%t.before --check-prefix=SUMS
// RUN: FileCheck %s --input-file=%t.remarks --check-prefix=REMARK
//
// SUMS-COUNT-2: {{^-?[0-9]+$}}
// SUMS-NOT: {{.}}
//
// REMARK: zero-trip.mlir:[[@LINE+4]]:3: remark: poly-opt: 6 statements, {{.*}}legality verified
// REMARK-NOT: error

func.func @kernel(%A0: memref<?x?x?xf64>, %A1: memref<9x20xf64>) {
  affine.for %i0 = 2 to 5 step 3 {
    affine.for %i1 = 2 to affine_map<(d0)[] -> ((d0 + 2))>(%i0)[] {
      %t1 = affine.load %A0[((%i0 + 2) floordiv 3), (%i0 mod 2), (%i1 + 2)] : memref<?x?x?xf64>
      %t2 = arith.constant 0.5 : f64
      %t3 = arith.mulf %t1, %t2 : f64
      affine.store %t3, %A1[(%i0 + 2), (%i1 + 1)] : memref<9x20xf64>
      affine.if affine_set<(d0, d1)[] : ((d0 + (-d1)) >= 0)>(%i1, %i0)[] {
        %t4 = affine.load %A0[(%i0 * 2), (%i1 - 2), ((-%i1) + 8)] : memref<?x?x?xf64>
        %t5 = arith.constant 2.0 : f64
        %t6 = affine.load %A0[%i0, (%i1 - 2), (%i1 mod 2)] : memref<?x?x?xf64>
        %t7 = arith.mulf %t5, %t6 : f64
        %t8 = arith.addf %t4, %t7 : f64
        affine.store %t8, %A0[(%i0 * 2), (%i1 - 2), ((-%i1) + 8)] : memref<?x?x?xf64>
        affine.for %i2 = max affine_map<(d0)[] -> (0, (d0 - 2))>(%i0)[] to 7 {
          %t9 = affine.load %A0[(%i2 floordiv 3), (%i0 - 2), (%i1 - 1)] : memref<?x?x?xf64>
          %t10 = affine.load %A1[(%i0 + %i2), (%i2 + 1)] : memref<9x20xf64>
          %t11 = arith.mulf %t9, %t10 : f64
          affine.store %t11, %A0[(%i2 ceildiv 2), ((%i1 + 1) floordiv 2), (%i0 - 1)] : memref<?x?x?xf64>
          %t12 = affine.load %A1[3, (%i2 ceildiv 2)] : memref<9x20xf64>
          affine.store %t12, %A1[(%i1 - 1), (%i0 + 1)] : memref<9x20xf64>
          affine.for %i3 = affine_map<(d0)[] -> (d0)>(%i1)[] to 9 step 2 {
            %t13 = arith.constant 0.5 : f64
            %t14 = affine.load %A1[(((%i0 - 1) - 2) + 1), (%i3 + 1)] : memref<9x20xf64>
            %t15 = affine.load %A1[(((%i0 - 1) - 2) + 1), (%i3 + 1)] : memref<9x20xf64>
            %t16 = arith.addf %t14, %t15 : f64
            %t17 = affine.load %A1[(((%i0 - 1) - 2) + 1), ((%i3 + 1) + 1)] : memref<9x20xf64>
            %t18 = arith.addf %t16, %t17 : f64
            %t19 = arith.mulf %t13, %t18 : f64
            affine.store %t19, %A1[(%i0 - 1), (%i3 + 1)] : memref<9x20xf64>
            %t20 = affine.load %A1[(%i3 - 1), (%i0 + 2)] : memref<9x20xf64>
            affine.store %t20, %A1[%i3, ((%i2 * 3) + 1)] : memref<9x20xf64>
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
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z64 = arith.constant 0 : i64
  %one64 = arith.constant 1 : i64
  %p997 = arith.constant 997 : i64
  %f997 = arith.constant 997.0 : f64
  %half = arith.constant 0.5 : f64
  %nan64 = arith.constant 9221120237041090560 : i64
  %m0 = memref.alloc() : memref<5x3x7xf64>
  %flat0 = memref.reinterpret_cast %m0 to offset: [0], sizes: [105], strides: [1] : memref<5x3x7xf64> to memref<105xf64>
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
  %m1 = memref.alloc() : memref<9x20xf64>
  %flat1 = memref.reinterpret_cast %m1 to offset: [0], sizes: [180], strides: [1] : memref<9x20xf64> to memref<180xf64>
  %sz1 = arith.constant 180 : index
  scf.for %k = %c0 to %sz1 step %c1 {
    %ki = arith.index_cast %k : index to i64
    %km = arith.muli %ki, %c37_1 : i64
    %ka = arith.addi %km, %off1 : i64
    %kr = arith.remui %ka, %p997 : i64
    %kf = arith.sitofp %kr : i64 to f64
    %kd = arith.divf %kf, %f997 : f64
    %kv = arith.addf %kd, %base1 : f64
    %kq = arith.addf %kv, %half : f64
    memref.store %kq, %flat1[%k] : memref<180xf64>
  }
  %dyn0 = memref.cast %m0 : memref<5x3x7xf64> to memref<?x?x?xf64>
  func.call @kernel(%dyn0, %m1) : (memref<?x?x?xf64>, memref<9x20xf64>) -> ()
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
  %sum1 = scf.for %k = %c0 to %sz1 step %c1 iter_args(%acc = %z64) -> (i64) {
    %v = memref.load %flat1[%k] : memref<180xf64>
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
  memref.dealloc %m0 : memref<5x3x7xf64>
  memref.dealloc %m1 : memref<9x20xf64>
  return
}
