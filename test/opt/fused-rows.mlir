// Row-wise kernels (softmax, layer normalization's statistics): one input
// loop over rows whose statements of one or two loops read each row
// several times while it stays in the L1. The default fusion (fuse=smart)
// cuts between statements of different depths, which makes each step a
// pass over the whole matrix (4 MiB here, larger than the preset's L2);
// the retry with fuse=max (passes/opt/distribute.rs, retry_fused) keeps
// the input's one nest, its row loop parallel, when it streams fewer
// bytes. softmax's exponential, stored and summed by two statements, is
// computed in one loop body, where LLVM computes it once
// (Statement::shared_work keeps such statements together in the default
// fusion too). The results are the input's, bit
// for bit (each row's maximum and sum in the input's order).
//
// RUN: %polyrs-opt %s --poly-opt='%{avx512}' 2>&1 | FileCheck %s
// RUN: %polyrs-opt %s --poly-opt='%{avx512} fuse=no' 2>&1 | FileCheck %s --check-prefix=APART
// RUN: %polyrs-runner --threads=2 %s > %t.before
// RUN: %polyrs-opt %s --poly-opt='%{avx512}' | %polyrs-runner --threads=2 - > %t.after
// RUN: diff %t.before %t.after
//
// CHECK: fused-rows.mlir:{{[0-9]+}}:3: remark: poly-opt: 6 statements, {{.*}}(1 parallel){{.*}}privatized); statements of one input loop kept in one nest (fuse=max): 8.4 MB streamed instead of 16.8 MB
// CHECK: fused-rows.mlir:{{[0-9]+}}:3: remark: poly-opt: {{.*}}(1 parallel){{.*}}statements of one input loop kept in one nest (fuse=max): 8.4 MB streamed instead of 12.6 MB
// CHECK-LABEL: func.func @softmax(
// CHECK: affine.parallel
// CHECK: arith.maximumf
// CHECK: math.exp
// CHECK-NOT: affine.yield
// CHECK: math.exp
// CHECK: arith.divf
// CHECK-NOT: affine.parallel
// CHECK-LABEL: func.func @moments(
// CHECK: affine.parallel
// CHECK-NOT: affine.parallel
// A batch of softmaxes: statements of three loops, left to the default
// fusion, which keeps the two statements computing the exponential in one
// loop body.
// CHECK-LABEL: func.func @batch_softmax(
// CHECK: math.exp
// CHECK-NOT: affine.yield
// CHECK: math.exp
// CHECK-LABEL: func.func @main(
//
// fuse=no asks for nests apart: no retry.
// APART-NOT: kept in one nest

func.func @softmax(%A: memref<1024x1024xf32>, %B: memref<1024x1024xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %z = arith.constant 0.0 : f32
  affine.for %i = 0 to 1024 {
    %m = affine.for %j = 0 to 1024 iter_args(%acc = %ninf) -> (f32) {
      %a = affine.load %A[%i, %j] : memref<1024x1024xf32>
      %n = arith.maximumf %acc, %a : f32
      affine.yield %n : f32
    }
    %s = affine.for %j = 0 to 1024 iter_args(%acc = %z) -> (f32) {
      %a = affine.load %A[%i, %j] : memref<1024x1024xf32>
      %d = arith.subf %a, %m : f32
      %e = math.exp %d : f32
      affine.store %e, %B[%i, %j] : memref<1024x1024xf32>
      %n = arith.addf %acc, %e : f32
      affine.yield %n : f32
    }
    affine.for %j = 0 to 1024 {
      %e = affine.load %B[%i, %j] : memref<1024x1024xf32>
      %q = arith.divf %e, %s : f32
      affine.store %q, %B[%i, %j] : memref<1024x1024xf32>
    }
  }
  return
}

// Each row's mean and variance in two passes over the row, then the row
// normalized.
func.func @moments(%A: memref<1024x1024xf32>, %B: memref<1024x1024xf32>) {
  %z = arith.constant 0.0 : f32
  %n = arith.constant 1024.0 : f32
  affine.for %i = 0 to 1024 {
    %s = affine.for %j = 0 to 1024 iter_args(%acc = %z) -> (f32) {
      %a = affine.load %A[%i, %j] : memref<1024x1024xf32>
      %t = arith.addf %acc, %a : f32
      affine.yield %t : f32
    }
    %mean = arith.divf %s, %n : f32
    %v = affine.for %j = 0 to 1024 iter_args(%acc = %z) -> (f32) {
      %a = affine.load %A[%i, %j] : memref<1024x1024xf32>
      %d = arith.subf %a, %mean : f32
      %q = arith.mulf %d, %d : f32
      %t = arith.addf %acc, %q : f32
      affine.yield %t : f32
    }
    affine.for %j = 0 to 1024 {
      %a = affine.load %A[%i, %j] : memref<1024x1024xf32>
      %d = arith.subf %a, %mean : f32
      %x = arith.divf %d, %v : f32
      affine.store %x, %B[%i, %j] : memref<1024x1024xf32>
    }
  }
  return
}

func.func @batch_softmax(%A: memref<16x128x256xf32>, %B: memref<16x128x256xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %z = arith.constant 0.0 : f32
  affine.for %b = 0 to 16 {
    affine.for %i = 0 to 128 {
      %m = affine.for %j = 0 to 256 iter_args(%acc = %ninf) -> (f32) {
        %a = affine.load %A[%b, %i, %j] : memref<16x128x256xf32>
        %n = arith.maximumf %acc, %a : f32
        affine.yield %n : f32
      }
      %s = affine.for %j = 0 to 256 iter_args(%acc = %z) -> (f32) {
        %a = affine.load %A[%b, %i, %j] : memref<16x128x256xf32>
        %d = arith.subf %a, %m : f32
        %e = math.exp %d : f32
        affine.store %e, %B[%b, %i, %j] : memref<16x128x256xf32>
        %n = arith.addf %acc, %e : f32
        affine.yield %n : f32
      }
      affine.for %j = 0 to 256 {
        %e = affine.load %B[%b, %i, %j] : memref<16x128x256xf32>
        %q = arith.divf %e, %s : f32
        affine.store %q, %B[%b, %i, %j] : memref<16x128x256xf32>
      }
    }
  }
  return
}

func.func private @printI64(i64)
func.func private @printNewline()

// Fills A (distinct values, some negative), runs the kernels and prints
// each output's checksum: the sum of its cells' bits times their index
// plus one.
func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cn = arith.constant 1048576 : index
  %c97 = arith.constant 97 : i64
  %c37 = arith.constant 37 : i64
  %c48 = arith.constant 48.0 : f32
  %c97f = arith.constant 9.7 : f32
  %z64 = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %A = memref.alloc() : memref<1024x1024xf32>
  %B = memref.alloc() : memref<1024x1024xf32>
  %fa = memref.reinterpret_cast %A to offset: [0], sizes: [1048576], strides: [1] : memref<1024x1024xf32> to memref<1048576xf32>
  %fb = memref.reinterpret_cast %B to offset: [0], sizes: [1048576], strides: [1] : memref<1024x1024xf32> to memref<1048576xf32>
  scf.for %k = %c0 to %cn step %c1 {
    %ki = arith.index_cast %k : index to i64
    %km = arith.muli %ki, %c37 : i64
    %kr = arith.remui %km, %c97 : i64
    %kf = arith.uitofp %kr : i64 to f32
    %kc = arith.subf %kf, %c48 : f32
    %kd = arith.divf %kc, %c97f : f32
    memref.store %kd, %fa[%k] : memref<1048576xf32>
  }
  func.call @softmax(%A, %B) : (memref<1024x1024xf32>, memref<1024x1024xf32>) -> ()
  %s1 = scf.for %k = %c0 to %cn step %c1 iter_args(%acc = %z64) -> (i64) {
    %v = memref.load %fb[%k] : memref<1048576xf32>
    %b = arith.bitcast %v : f32 to i32
    %w = arith.extui %b : i32 to i64
    %ki = arith.index_cast %k : index to i64
    %kk = arith.addi %ki, %one : i64
    %p = arith.muli %w, %kk : i64
    %n = arith.addi %acc, %p : i64
    scf.yield %n : i64
  }
  func.call @printI64(%s1) : (i64) -> ()
  func.call @printNewline() : () -> ()
  func.call @moments(%A, %B) : (memref<1024x1024xf32>, memref<1024x1024xf32>) -> ()
  %s2 = scf.for %k = %c0 to %cn step %c1 iter_args(%acc = %z64) -> (i64) {
    %v = memref.load %fb[%k] : memref<1048576xf32>
    %b = arith.bitcast %v : f32 to i32
    %w = arith.extui %b : i32 to i64
    %ki = arith.index_cast %k : index to i64
    %kk = arith.addi %ki, %one : i64
    %p = arith.muli %w, %kk : i64
    %n = arith.addi %acc, %p : i64
    scf.yield %n : i64
  }
  func.call @printI64(%s2) : (i64) -> ()
  func.call @printNewline() : () -> ()
  %A3 = memref.reinterpret_cast %A to offset: [0], sizes: [16, 128, 256], strides: [32768, 256, 1] : memref<1024x1024xf32> to memref<16x128x256xf32>
  %B3 = memref.reinterpret_cast %B to offset: [0], sizes: [16, 128, 256], strides: [32768, 256, 1] : memref<1024x1024xf32> to memref<16x128x256xf32>
  func.call @batch_softmax(%A3, %B3) : (memref<16x128x256xf32>, memref<16x128x256xf32>) -> ()
  %s3 = scf.for %k = %c0 to %cn step %c1 iter_args(%acc = %z64) -> (i64) {
    %v = memref.load %fb[%k] : memref<1048576xf32>
    %b = arith.bitcast %v : f32 to i32
    %w = arith.extui %b : i32 to i64
    %ki = arith.index_cast %k : index to i64
    %kk = arith.addi %ki, %one : i64
    %p = arith.muli %w, %kk : i64
    %n = arith.addi %acc, %p : i64
    scf.yield %n : i64
  }
  func.call @printI64(%s3) : (i64) -> ()
  func.call @printNewline() : () -> ()
  memref.dealloc %A : memref<1024x1024xf32>
  memref.dealloc %B : memref<1024x1024xf32>
  return
}
