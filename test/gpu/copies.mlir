// Which arrays poly-opt{target=gpu} copies to the device and back: an
// array is copied in when one of its reads may read a value from before
// the SCoP, or when the SCoP writes only part of it (the copy back must
// return the host's values elsewhere); it is copied back when written.
//
// RUN: %polyrs-opt %s --poly-opt='target=gpu' -o %t.mlir 2>&1 | FileCheck %s
// RUN: FileCheck %s --check-prefix=IR < %t.mlir
// With gpu-memory=host-register the kernels use the arrays' host memory,
// registered with the driver around the SCoP, and nothing is copied:
// RUN: %polyrs-opt %s --poly-opt='target=gpu gpu-memory=host-register' -o %t.hr.mlir 2>&1 | FileCheck %s --check-prefix=HR
// RUN: FileCheck %s --check-prefix=HRIR < %t.hr.mlir
// RUN: not %polyrs-opt %s --poly-opt='target=gpu gpu-memory=unified' -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD
// HR: host memory registered: arg0;
// HR: host memory registered: arg0;
// HR: host memory registered: arg0, arg1, arg2;
// HRIR-NOT: gpu.memcpy
// HRIR-NOT: gpu.alloc
// HRIR-LABEL: func.func @fill
// HRIR: %[[U:.*]] = memref.cast %arg0 : memref<64x48xf64> to memref<*xf64>
// HRIR: gpu.host_register %[[U]] : memref<*xf64>
// HRIR: gpu.launch
// HRIR: gpu.host_unregister %[[U]] : memref<*xf64>
// BAD: error: poly-opt: invalid value 'unified' for option 'gpu-memory': expected copy or host-register
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
