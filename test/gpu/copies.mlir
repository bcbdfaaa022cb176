// Which arrays poly-opt{target=gpu} copies to the device and back: an
// array is copied in when one of its reads may read a value from before
// the SCoP, or when the SCoP writes only part of it (the copy back must
// return the host's values elsewhere); it is copied back when written.
//
// RUN: %polyrs-opt %s --poly-opt='target=gpu' -o %t.mlir 2>&1 | FileCheck %s
// RUN: FileCheck %s --check-prefix=IR < %t.mlir
//
// @fill writes every element of A and reads nothing: no copy in.
// CHECK: copies to the device: none; back: arg0;
// @lower writes only the lower triangle of L: copied in.
// CHECK: copies to the device: arg0; back: arg0;
// @temp: T is written everywhere before it is read (no copy in); X is read.
// CHECK: copies to the device: arg1; back: arg0, arg2;
//
// IR-LABEL: func.func @fill
// IR-NOT: gpu.memcpy {{%.*}}, %arg0
// IR: gpu.memcpy %arg0,
// IR-LABEL: func.func @lower
// IR: gpu.memcpy {{%.*}}, %arg0
// IR: gpu.memcpy %arg0,
// IR-LABEL: func.func @temp
// IR-NOT: gpu.memcpy {{%.*}}, %arg0
// IR: gpu.memcpy {{%.*}}, %arg1
// IR-NOT: gpu.memcpy {{%.*}}, %arg0

func.func @fill(%A: memref<64x48xf64>) {
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 48 {
      %s = arith.addi %i, %j : index
      %si = arith.index_cast %s : index to i64
      %f = arith.sitofp %si : i64 to f64
      affine.store %f, %A[%i, %j] : memref<64x48xf64>
    }
  }
  return
}

func.func @lower(%L: memref<64x64xf64>) {
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to affine_map<(d0) -> (d0 + 1)>(%i) {
      %s = arith.addi %i, %j : index
      %si = arith.index_cast %s : index to i64
      %f = arith.sitofp %si : i64 to f64
      affine.store %f, %L[%i, %j] : memref<64x64xf64>
    }
  }
  return
}

func.func @temp(%T: memref<64x48xf64>, %X: memref<64x48xf64>, %Y: memref<64x48xf64>) {
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 48 {
      %x = affine.load %X[%i, %j] : memref<64x48xf64>
      %d = arith.addf %x, %x : f64
      affine.store %d, %T[%i, %j] : memref<64x48xf64>
    }
  }
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 48 {
      %t = affine.load %T[%i, %j] : memref<64x48xf64>
      %m = arith.mulf %t, %t : f64
      affine.store %m, %Y[%i, %j] : memref<64x48xf64>
    }
  }
  return
}
