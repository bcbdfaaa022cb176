// A piece of a statement's domain that is empty over the rationals (a
// SCoP of the fuzzer's mixed family, seed 117144, with divisions by 2 and
// 3 in its subscripts): code generation's projection of it drops the
// redundant rows after each Fourier-Motzkin step, and an empty system has
// none that the others imply. It is now the one row -1 >= 0: the
// projection used to keep all 74 rows, multiply them to 2600, and run
// past the 5 s time budget (the SCoP left unchanged). Now the SCoP is
// rewritten in well under a second, and the results are identical, bit
// for bit, before and after (2 and 3 OpenMP threads). With the default
// options, the SCoP (about 800 statement instances) is left unchanged
// at once: too little work for any plan to pay, decided on the model
// before dependences and schedules. (Its loops are short reductions, not
// skewed into a band since issue 69: no loop is tiled any more.)
//
// RUN: %polyrs-runner --threads=2 %s > %t.before
// RUN: %polyrs-opt %s --poly-opt='profitability=false split=false' 2> %t.remarks > %t.mlir
// RUN: %polyrs-runner --threads=2 %t.mlir > %t.after
// RUN: %polyrs-runner --threads=3 %t.mlir > %t.three
// RUN: diff %t.before %t.after
// RUN: diff %t.before %t.three
// RUN: FileCheck %s --input-file=%t.before --check-prefix=SUMS
// RUN: FileCheck %s --input-file=%t.remarks --check-prefix=REMARK
// RUN: %polyrs-opt %s --poly-opt 2>&1 >/dev/null | FileCheck %s --check-prefix=SMALL
//
// SUMS-COUNT-2: {{^-?[0-9]+$}}
// SUMS-NOT: {{.}}
//
// REMARK: empty-pieces.mlir:[[@LINE+6]]:3: remark: poly-opt: 4 statements, {{.*}}legality verified
// REMARK-NOT: left unchanged
//
// SMALL: empty-pieces.mlir:[[@LINE+3]]:3: remark: poly-opt: SCoP left unchanged: no profitable transformation: about 805 statement instances in all

func.func @kernel(%A0: memref<5x9xf64>, %A1: memref<7x6xf64>) {
  affine.for %i0 = 0 to 6 {
    affine.for %i1 = 2 to 4 {
      affine.for %i2 = 0 to affine_map<(d0)[] -> (((d0 floordiv 2) + 2))>(%i1)[] {
        affine.for %i3 = 2 to min affine_map<(d0)[] -> (8, (d0 + 5))>(%i2)[] {
          %t1 = affine.load %A1[(%i1 + 2), (%i2 + 2)] : memref<7x6xf64>
          %t2 = arith.constant 1.25 : f64
          %t3 = arith.mulf %t1, %t2 : f64
          %t4 = arith.constant 0.3 : f64
          %t5 = arith.addf %t3, %t4 : f64
          affine.store %t5, %A1[(%i3 - 1), %i0] : memref<7x6xf64>
          affine.if affine_set<(d0)[] : ((4 + (-d0)) >= 0, (6 + (-d0)) >= 0)>(%i1)[] {
            %t6 = arith.constant 0.5 : f64
            %t7 = affine.load %A0[(((%i2 - 2) - 2) + 4), 4] : memref<5x9xf64>
            %t8 = affine.load %A0[((%i2 - 2) + 2), 0] : memref<5x9xf64>
            %t9 = arith.addf %t7, %t8 : f64
            %t10 = arith.mulf %t6, %t9 : f64
            affine.store %t10, %A0[((%i2 - 2) + 2), 2] : memref<5x9xf64>
          }
          affine.if affine_set<(d0, d1, d2)[] : ((d0 + (-d1)) >= 0, (d2 - 2) >= 0)>(%i0, %i3, %i1)[] {
            %t11 = affine.load %A1[(%i3 + 1), (%i2 mod 2)] : memref<7x6xf64>
            %t12 = arith.constant -0.75 : f64
            %t13 = affine.load %A1[%i0, (%i2 + 1)] : memref<7x6xf64>
            %t14 = arith.mulf %t12, %t13 : f64
            %t15 = arith.addf %t11, %t14 : f64
            affine.store %t15, %A1[(%i3 + 1), (%i2 mod 2)] : memref<7x6xf64>
          } else {
            %t16 = affine.load %A0[%i2, ((%i2 - 2) + 2)] : memref<5x9xf64>
            %t17 = affine.load %A1[(%i2 * 3), ((%i0 - 1) + 1)] : memref<7x6xf64>
            %t18 = arith.subf %t16, %t17 : f64
            %t19 = affine.load %A0[(%i1 - 1), (%i3 + 2)] : memref<5x9xf64>
            %t20 = arith.mulf %t18, %t19 : f64
            affine.store %t20, %A0[(%i2 * 2), (%i3 mod 3)] : memref<5x9xf64>
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
  %m0 = memref.alloc() : memref<5x9xf64>
  %flat0 = memref.reinterpret_cast %m0 to offset: [0], sizes: [45], strides: [1] : memref<5x9xf64> to memref<45xf64>
  %sz0 = arith.constant 45 : index
  scf.for %k = %c0 to %sz0 step %c1 {
    %ki = arith.index_cast %k : index to i64
    %km = arith.muli %ki, %c37_0 : i64
    %ka = arith.addi %km, %off0 : i64
    %kr = arith.remui %ka, %p997 : i64
    %kf = arith.sitofp %kr : i64 to f64
    %kd = arith.divf %kf, %f997 : f64
    %kv = arith.addf %kd, %base0 : f64
    %kq = arith.addf %kv, %half : f64
    memref.store %kq, %flat0[%k] : memref<45xf64>
  }
  %m1 = memref.alloc() : memref<7x6xf64>
  %flat1 = memref.reinterpret_cast %m1 to offset: [0], sizes: [42], strides: [1] : memref<7x6xf64> to memref<42xf64>
  %sz1 = arith.constant 42 : index
  scf.for %k = %c0 to %sz1 step %c1 {
    %ki = arith.index_cast %k : index to i64
    %km = arith.muli %ki, %c37_1 : i64
    %ka = arith.addi %km, %off1 : i64
    %kr = arith.remui %ka, %p997 : i64
    %kf = arith.sitofp %kr : i64 to f64
    %kd = arith.divf %kf, %f997 : f64
    %kv = arith.addf %kd, %base1 : f64
    %kq = arith.addf %kv, %half : f64
    memref.store %kq, %flat1[%k] : memref<42xf64>
  }
  func.call @kernel(%m0, %m1) : (memref<5x9xf64>, memref<7x6xf64>) -> ()
  %sum0 = scf.for %k = %c0 to %sz0 step %c1 iter_args(%acc = %z64) -> (i64) {
    %v = memref.load %flat0[%k] : memref<45xf64>
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
    %v = memref.load %flat1[%k] : memref<42xf64>
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
  memref.dealloc %m0 : memref<5x9xf64>
  memref.dealloc %m1 : memref<7x6xf64>
  return
}
