// Maximum and minimum reductions (arith.maximumf/minimumf carried along a
// loop, which LLVM runs in vector lanes, several vectors per step) are
// exact: NaN once any value (or the start) is NaN, whatever its sign or
// kind and wherever it is in the row; -0 below +0; infinities of both
// signs in one row are no NaN. On CPUs with AVX-512 DQ and VL a chain of
// such calls keeps vrange alone and joins its operands' NaNs with
// vfixupimm (src/lower/minmax.rs); main prints how many of the 13 rows'
// maxima and minima differ from a reference computed one value at a time
// from comparisons and bits, for f32 and f64.
// RUN: %polyrs-runner %s | FileCheck %s
// RUN: %polyrs-runner --no-range-minmax %s | FileCheck %s
// CHECK: f32 wrong 0
// CHECK-NEXT: f64 wrong 0
// For an AVX-512 CPU, whatever the host, the chains' form; none for a CPU
// without AVX-512.
// RUN: %polyrs-translate --cpu=znver4 --emit=asm %s | FileCheck %s --check-prefix=CHAIN
// CHAIN-DAG: vfixupimmps
// CHAIN-DAG: vfixupimmpd
// RUN: %polyrs-translate --cpu=haswell --emit=asm %s | FileCheck %s --check-prefix=NONE
// NONE-NOT: vfixupimm

func.func private @printString(!llvm.ptr)
func.func private @printI64(i64)
func.func private @printNewline()
llvm.mlir.global internal constant @f32_label("f32 wrong \00") {addr_space = 0 : i32}
llvm.mlir.global internal constant @f64_label("f64 wrong \00") {addr_space = 0 : i32}

func.func @check_f32() -> i64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cL = arith.constant 1000 : index
  %A = memref.alloc() : memref<13x1000xf32>
  %Y = memref.alloc() : memref<13xf32>
  %Z = memref.alloc() : memref<13xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %inf = arith.constant 0x7F800000 : f32
  %qnan = arith.constant 0x7FC00000 : f32
  %nnan = arith.constant 0xFFC00000 : f32
  %snan = arith.constant 0x7F800001 : f32
  %sub = arith.constant 1.0e-40 : f32
  %mzero = arith.constant -0.0 : f32
  %pzero = arith.constant 0.0 : f32
  %mone = arith.constant -1.0 : f32
  %half = arith.constant 0.5 : f32
  %n97 = arith.constant 97.0 : f32
  // Ordinary values in every row, in [-0.5, 0.5).
  affine.for %r = 0 to 13 {
    affine.for %j = 0 to 1000 {
      %k = affine.apply affine_map<(r, j) -> ((j * 37 + r * 11) mod 97)>(%r, %j)
      %ki = arith.index_cast %k : index to i64
      %kf = arith.sitofp %ki : i64 to f32
      %kd = arith.divf %kf, %n97 : f32
      %v = arith.subf %kd, %half : f32
      affine.store %v, %A[%r, %j] : memref<13x1000xf32>
    }
    affine.store %ninf, %Y[%r] : memref<13xf32>
    affine.store %inf, %Z[%r] : memref<13xf32>
  }
  // Rows 5-8: zeros of one sign, one +0 among -0s, -infinities, -1s and
  // one subnormal.
  affine.for %j = 0 to 1000 {
    affine.store %mzero, %A[5, %j] : memref<13x1000xf32>
    affine.store %mzero, %A[6, %j] : memref<13x1000xf32>
    affine.store %ninf, %A[7, %j] : memref<13x1000xf32>
    affine.store %mone, %A[8, %j] : memref<13x1000xf32>
  }
  // Single special values: NaNs of both signs first, last and inside a row,
  // a signalling NaN, infinities of both signs in one row.
  %c1_3r = arith.constant 1 : index
  %c1_3j = arith.constant 3 : index
  memref.store %qnan, %A[%c1_3r, %c1_3j] : memref<13x1000xf32>
  %c2_999r = arith.constant 2 : index
  %c2_999j = arith.constant 999 : index
  memref.store %nnan, %A[%c2_999r, %c2_999j] : memref<13x1000xf32>
  %c3_517r = arith.constant 3 : index
  %c3_517j = arith.constant 517 : index
  memref.store %qnan, %A[%c3_517r, %c3_517j] : memref<13x1000xf32>
  %c4_100r = arith.constant 4 : index
  %c4_100j = arith.constant 100 : index
  memref.store %inf, %A[%c4_100r, %c4_100j] : memref<13x1000xf32>
  %c5_600r = arith.constant 5 : index
  %c5_600j = arith.constant 600 : index
  memref.store %pzero, %A[%c5_600r, %c5_600j] : memref<13x1000xf32>
  %c8_10r = arith.constant 8 : index
  %c8_10j = arith.constant 10 : index
  memref.store %sub, %A[%c8_10r, %c8_10j] : memref<13x1000xf32>
  %c10_64r = arith.constant 10 : index
  %c10_64j = arith.constant 64 : index
  memref.store %snan, %A[%c10_64r, %c10_64j] : memref<13x1000xf32>
  %c11_0r = arith.constant 11 : index
  %c11_0j = arith.constant 0 : index
  memref.store %qnan, %A[%c11_0r, %c11_0j] : memref<13x1000xf32>
  %c11_998r = arith.constant 11 : index
  %c11_998j = arith.constant 998 : index
  memref.store %nnan, %A[%c11_998r, %c11_998j] : memref<13x1000xf32>
  %c12_40r = arith.constant 12 : index
  %c12_40j = arith.constant 40 : index
  memref.store %inf, %A[%c12_40r, %c12_40j] : memref<13x1000xf32>
  %c12_41r = arith.constant 12 : index
  %c12_41j = arith.constant 41 : index
  memref.store %ninf, %A[%c12_41r, %c12_41j] : memref<13x1000xf32>
  // Row 9 starts from NaN.
  %c9 = arith.constant 9 : index
  memref.store %qnan, %Y[%c9] : memref<13xf32>
  memref.store %qnan, %Z[%c9] : memref<13xf32>
  // The reductions under test: loops LLVM vectorizes.
  affine.for %r = 0 to 13 {
    %y0 = affine.load %Y[%r] : memref<13xf32>
    %z0 = affine.load %Z[%r] : memref<13xf32>
    %m:2 = affine.for %j = 0 to 1000 iter_args(%y = %y0, %z = %z0) -> (f32, f32) {
      %a = affine.load %A[%r, %j] : memref<13x1000xf32>
      %y1 = arith.maximumf %y, %a : f32
      %z1 = arith.minimumf %a, %z : f32
      affine.yield %y1, %z1 : f32, f32
    }
    affine.store %m#0, %Y[%r] : memref<13xf32>
    affine.store %m#1, %Z[%r] : memref<13xf32>
  }
  // The reference, one value at a time from comparisons and bits: NaN once
  // a value is; of equal values (+0 and -0) the AND of their bits for the
  // maximum, the OR for the minimum; else the larger (smaller).
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %bad = affine.for %r = 0 to 13 iter_args(%n = %zero) -> (i64) {
    %y0 = arith.constant 0xFF800000 : f32
    %z0 = arith.constant 0x7F800000 : f32
    %r9 = arith.cmpi eq, %r, %c9 : index
    %ys = arith.select %r9, %qnan, %y0 : f32
    %zs = arith.select %r9, %qnan, %z0 : f32
    %ref:2 = scf.for %j = %c0 to %cL step %c1 iter_args(%y = %ys, %z = %zs) -> (f32, f32) {
      %a = memref.load %A[%r, %j] : memref<13x1000xf32>
      %ia = arith.bitcast %a : f32 to i32
      %iy = arith.bitcast %y : f32 to i32
      %iz = arith.bitcast %z : f32 to i32
      %nany = arith.cmpf uno, %y, %a : f32
      %nanz = arith.cmpf uno, %z, %a : f32
      %eqy = arith.cmpf oeq, %y, %a : f32
      %eqz = arith.cmpf oeq, %z, %a : f32
      %gt = arith.cmpf ogt, %a, %y : f32
      %lt = arith.cmpf olt, %a, %z : f32
      %andb = arith.andi %ia, %iy : i32
      %orb = arith.ori %ia, %iz : i32
      %larger = arith.select %gt, %ia, %iy : i32
      %smaller = arith.select %lt, %ia, %iz : i32
      %wy = arith.select %eqy, %andb, %larger : i32
      %wz = arith.select %eqz, %orb, %smaller : i32
      %fy = arith.bitcast %wy : i32 to f32
      %fz = arith.bitcast %wz : i32 to f32
      %y1 = arith.select %nany, %qnan, %fy : f32
      %z1 = arith.select %nanz, %qnan, %fz : f32
      scf.yield %y1, %z1 : f32, f32
    }
    %y = memref.load %Y[%r] : memref<13xf32>
    %z = memref.load %Z[%r] : memref<13xf32>
    %oky = func.call @same_f32(%y, %ref#0) : (f32, f32) -> i1
    %okz = func.call @same_f32(%z, %ref#1) : (f32, f32) -> i1
    %ok = arith.andi %oky, %okz : i1
    %inc = arith.select %ok, %zero, %one : i64
    %m = arith.addi %n, %inc : i64
    affine.yield %m : i64
  }
  memref.dealloc %A : memref<13x1000xf32>
  memref.dealloc %Y : memref<13xf32>
  memref.dealloc %Z : memref<13xf32>
  return %bad : i64
}

// Both NaN, or the same bits.
func.func @same_f32(%x: f32, %w: f32) -> i1 {
  %nx = arith.cmpf uno, %x, %x : f32
  %nw = arith.cmpf uno, %w, %w : f32
  %ix = arith.bitcast %x : f32 to i32
  %iw = arith.bitcast %w : f32 to i32
  %eq = arith.cmpi eq, %ix, %iw : i32
  %both = arith.andi %nx, %nw : i1
  %either = arith.ori %nx, %nw : i1
  %r = arith.select %either, %both, %eq : i1
  return %r : i1
}

func.func @check_f64() -> i64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cL = arith.constant 1000 : index
  %A = memref.alloc() : memref<13x1000xf64>
  %Y = memref.alloc() : memref<13xf64>
  %Z = memref.alloc() : memref<13xf64>
  %ninf = arith.constant 0xFFF0000000000000 : f64
  %inf = arith.constant 0x7FF0000000000000 : f64
  %qnan = arith.constant 0x7FF8000000000000 : f64
  %nnan = arith.constant 0xFFF8000000000000 : f64
  %snan = arith.constant 0x7FF0000000000001 : f64
  %sub = arith.constant 4.9e-324 : f64
  %mzero = arith.constant -0.0 : f64
  %pzero = arith.constant 0.0 : f64
  %mone = arith.constant -1.0 : f64
  %half = arith.constant 0.5 : f64
  %n97 = arith.constant 97.0 : f64
  // Ordinary values in every row, in [-0.5, 0.5).
  affine.for %r = 0 to 13 {
    affine.for %j = 0 to 1000 {
      %k = affine.apply affine_map<(r, j) -> ((j * 37 + r * 11) mod 97)>(%r, %j)
      %ki = arith.index_cast %k : index to i64
      %kf = arith.sitofp %ki : i64 to f64
      %kd = arith.divf %kf, %n97 : f64
      %v = arith.subf %kd, %half : f64
      affine.store %v, %A[%r, %j] : memref<13x1000xf64>
    }
    affine.store %ninf, %Y[%r] : memref<13xf64>
    affine.store %inf, %Z[%r] : memref<13xf64>
  }
  // Rows 5-8: zeros of one sign, one +0 among -0s, -infinities, -1s and
  // one subnormal.
  affine.for %j = 0 to 1000 {
    affine.store %mzero, %A[5, %j] : memref<13x1000xf64>
    affine.store %mzero, %A[6, %j] : memref<13x1000xf64>
    affine.store %ninf, %A[7, %j] : memref<13x1000xf64>
    affine.store %mone, %A[8, %j] : memref<13x1000xf64>
  }
  // Single special values: NaNs of both signs first, last and inside a row,
  // a signalling NaN, infinities of both signs in one row.
  %c1_3r = arith.constant 1 : index
  %c1_3j = arith.constant 3 : index
  memref.store %qnan, %A[%c1_3r, %c1_3j] : memref<13x1000xf64>
  %c2_999r = arith.constant 2 : index
  %c2_999j = arith.constant 999 : index
  memref.store %nnan, %A[%c2_999r, %c2_999j] : memref<13x1000xf64>
  %c3_517r = arith.constant 3 : index
  %c3_517j = arith.constant 517 : index
  memref.store %qnan, %A[%c3_517r, %c3_517j] : memref<13x1000xf64>
  %c4_100r = arith.constant 4 : index
  %c4_100j = arith.constant 100 : index
  memref.store %inf, %A[%c4_100r, %c4_100j] : memref<13x1000xf64>
  %c5_600r = arith.constant 5 : index
  %c5_600j = arith.constant 600 : index
  memref.store %pzero, %A[%c5_600r, %c5_600j] : memref<13x1000xf64>
  %c8_10r = arith.constant 8 : index
  %c8_10j = arith.constant 10 : index
  memref.store %sub, %A[%c8_10r, %c8_10j] : memref<13x1000xf64>
  %c10_64r = arith.constant 10 : index
  %c10_64j = arith.constant 64 : index
  memref.store %snan, %A[%c10_64r, %c10_64j] : memref<13x1000xf64>
  %c11_0r = arith.constant 11 : index
  %c11_0j = arith.constant 0 : index
  memref.store %qnan, %A[%c11_0r, %c11_0j] : memref<13x1000xf64>
  %c11_998r = arith.constant 11 : index
  %c11_998j = arith.constant 998 : index
  memref.store %nnan, %A[%c11_998r, %c11_998j] : memref<13x1000xf64>
  %c12_40r = arith.constant 12 : index
  %c12_40j = arith.constant 40 : index
  memref.store %inf, %A[%c12_40r, %c12_40j] : memref<13x1000xf64>
  %c12_41r = arith.constant 12 : index
  %c12_41j = arith.constant 41 : index
  memref.store %ninf, %A[%c12_41r, %c12_41j] : memref<13x1000xf64>
  // Row 9 starts from NaN.
  %c9 = arith.constant 9 : index
  memref.store %qnan, %Y[%c9] : memref<13xf64>
  memref.store %qnan, %Z[%c9] : memref<13xf64>
  // The reductions under test: loops LLVM vectorizes.
  affine.for %r = 0 to 13 {
    %y0 = affine.load %Y[%r] : memref<13xf64>
    %z0 = affine.load %Z[%r] : memref<13xf64>
    %m:2 = affine.for %j = 0 to 1000 iter_args(%y = %y0, %z = %z0) -> (f64, f64) {
      %a = affine.load %A[%r, %j] : memref<13x1000xf64>
      %y1 = arith.maximumf %y, %a : f64
      %z1 = arith.minimumf %a, %z : f64
      affine.yield %y1, %z1 : f64, f64
    }
    affine.store %m#0, %Y[%r] : memref<13xf64>
    affine.store %m#1, %Z[%r] : memref<13xf64>
  }
  // The reference, one value at a time from comparisons and bits: NaN once
  // a value is; of equal values (+0 and -0) the AND of their bits for the
  // maximum, the OR for the minimum; else the larger (smaller).
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %bad = affine.for %r = 0 to 13 iter_args(%n = %zero) -> (i64) {
    %y0 = arith.constant 0xFFF0000000000000 : f64
    %z0 = arith.constant 0x7FF0000000000000 : f64
    %r9 = arith.cmpi eq, %r, %c9 : index
    %ys = arith.select %r9, %qnan, %y0 : f64
    %zs = arith.select %r9, %qnan, %z0 : f64
    %ref:2 = scf.for %j = %c0 to %cL step %c1 iter_args(%y = %ys, %z = %zs) -> (f64, f64) {
      %a = memref.load %A[%r, %j] : memref<13x1000xf64>
      %ia = arith.bitcast %a : f64 to i64
      %iy = arith.bitcast %y : f64 to i64
      %iz = arith.bitcast %z : f64 to i64
      %nany = arith.cmpf uno, %y, %a : f64
      %nanz = arith.cmpf uno, %z, %a : f64
      %eqy = arith.cmpf oeq, %y, %a : f64
      %eqz = arith.cmpf oeq, %z, %a : f64
      %gt = arith.cmpf ogt, %a, %y : f64
      %lt = arith.cmpf olt, %a, %z : f64
      %andb = arith.andi %ia, %iy : i64
      %orb = arith.ori %ia, %iz : i64
      %larger = arith.select %gt, %ia, %iy : i64
      %smaller = arith.select %lt, %ia, %iz : i64
      %wy = arith.select %eqy, %andb, %larger : i64
      %wz = arith.select %eqz, %orb, %smaller : i64
      %fy = arith.bitcast %wy : i64 to f64
      %fz = arith.bitcast %wz : i64 to f64
      %y1 = arith.select %nany, %qnan, %fy : f64
      %z1 = arith.select %nanz, %qnan, %fz : f64
      scf.yield %y1, %z1 : f64, f64
    }
    %y = memref.load %Y[%r] : memref<13xf64>
    %z = memref.load %Z[%r] : memref<13xf64>
    %oky = func.call @same_f64(%y, %ref#0) : (f64, f64) -> i1
    %okz = func.call @same_f64(%z, %ref#1) : (f64, f64) -> i1
    %ok = arith.andi %oky, %okz : i1
    %inc = arith.select %ok, %zero, %one : i64
    %m = arith.addi %n, %inc : i64
    affine.yield %m : i64
  }
  memref.dealloc %A : memref<13x1000xf64>
  memref.dealloc %Y : memref<13xf64>
  memref.dealloc %Z : memref<13xf64>
  return %bad : i64
}

// Both NaN, or the same bits.
func.func @same_f64(%x: f64, %w: f64) -> i1 {
  %nx = arith.cmpf uno, %x, %x : f64
  %nw = arith.cmpf uno, %w, %w : f64
  %ix = arith.bitcast %x : f64 to i64
  %iw = arith.bitcast %w : f64 to i64
  %eq = arith.cmpi eq, %ix, %iw : i64
  %both = arith.andi %nx, %nw : i1
  %either = arith.ori %nx, %nw : i1
  %r = arith.select %either, %both, %eq : i1
  return %r : i1
}

func.func @main() {
  %l32 = llvm.mlir.addressof @f32_label : !llvm.ptr
  call @printString(%l32) : (!llvm.ptr) -> ()
  %b32 = call @check_f32() : () -> i64
  call @printI64(%b32) : (i64) -> ()
  call @printNewline() : () -> ()
  %l64 = llvm.mlir.addressof @f64_label : !llvm.ptr
  call @printString(%l64) : (!llvm.ptr) -> ()
  %b64 = call @check_f64() : () -> i64
  call @printI64(%b64) : (i64) -> ()
  call @printNewline() : () -> ()
  return
}
