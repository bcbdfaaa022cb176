// A statement whose points run along wavefronts inside its tiles, in a
// band whose other statements' rows are reduced in blocks of 8 (unrolled
// and jammed; program 122874 of the fuzzer's mixed family, shrunk): the
// plan gave the wavefront statement no form for the jammed statements'
// unrolled loop, so its schedule was one dimension short, and code
// generation refused it ("dimension 7 is not constant for statement S0":
// the SCoP was left unchanged). It now runs one point of that loop, as a
// statement left out of the jam does. The results must be identical, bit
// for bit, before and after.
//
// RUN: %polyrs-runner --threads=2 %s > %t.before
// RUN: %polyrs-opt %s --poly-opt='cpu=znver4 profitability=false split=false wavefront=false' 2> %t.remarks > %t.mlir
// RUN: %polyrs-runner --threads=2 %t.mlir > %t.after
// RUN: diff %t.before %t.after
// RUN: FileCheck %s --input-file=%t.before --check-prefix=SUMS
// RUN: FileCheck %s --input-file=%t.remarks --check-prefix=REMARK
//
// SUMS: {{^-?[0-9]+$}}
// SUMS-NOT: {{.}}
//
// REMARK: inner-wave-jam.mlir:[[@LINE+5]]:3: remark: poly-opt: 4 statements, {{.*}}points of each tile run along wavefronts{{.*}}unrolled and jammed by 8{{.*}}legality verified
// REMARK-NOT: left unchanged
// REMARK-NOT: error

func.func @kernel(%n0: index, %A0: memref<?xf64>) {
  affine.for %i0 = 0 to affine_map<()[s0] -> (s0)>()[%n0] step 2 {
    affine.for %i1 = 0 to 6 {
      affine.for %i2 = 0 to affine_map<()[s0] -> (s0)>()[%n0] {
        %t1 = affine.load %A0[(((%i2 + 1) + symbol(%n0)) + 1)] : memref<?xf64>
        affine.store %t1, %A0[((%i2 + 1) + symbol(%n0))] : memref<?xf64>
      }
    }
    affine.for %i3 = 0 to affine_map<()[s0] -> (s0)>()[%n0] {
      %t2 = affine.load %A0[6] : memref<?xf64>
      affine.store %t2, %A0[0] : memref<?xf64>
      affine.for %i4 = affine_map<(d0)[] -> (d0)>(%i3)[] to affine_map<(d0)[] -> ((d0 + 3))>(%i3)[] step 2 {
        %t3 = affine.load %A0[((%i3 - 2) + 2)] : memref<?xf64>
        %t4 = affine.load %A0[0] : memref<?xf64>
        %t5 = affine.load %A0[2] : memref<?xf64>
        %t6 = arith.mulf %t4, %t5 : f64
        %t7 = arith.addf %t3, %t6 : f64
        affine.store %t7, %A0[2] : memref<?xf64>
      }
    }
    %t8 = arith.constant 1.5 : f64
    affine.store %t8, %A0[9] : memref<?xf64>
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
  %m0 = memref.alloc() : memref<10xf64>
  %flat0 = memref.reinterpret_cast %m0 to offset: [0], sizes: [10], strides: [1] : memref<10xf64> to memref<10xf64>
  %sz0 = arith.constant 10 : index
  scf.for %k = %c0 to %sz0 step %c1 {
    %ki = arith.index_cast %k : index to i64
    %km = arith.muli %ki, %c37_0 : i64
    %ka = arith.addi %km, %off0 : i64
    %kr = arith.remui %ka, %p997 : i64
    %kf = arith.sitofp %kr : i64 to f64
    %kd = arith.divf %kf, %f997 : f64
    %kv = arith.addf %kd, %base0 : f64
    %kq = arith.addf %kv, %half : f64
    memref.store %kq, %flat0[%k] : memref<10xf64>
  }
  %pv_n0 = arith.constant 4 : index
  %dyn0 = memref.cast %m0 : memref<10xf64> to memref<?xf64>
  func.call @kernel(%pv_n0, %dyn0) : (index, memref<?xf64>) -> ()
  %sum0 = scf.for %k = %c0 to %sz0 step %c1 iter_args(%acc = %z64) -> (i64) {
    %v = memref.load %flat0[%k] : memref<10xf64>
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
  memref.dealloc %m0 : memref<10xf64>
  return
}
