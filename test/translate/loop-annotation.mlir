// An llvm.loop_annotation on an affine.for (poly-opt's scalar loops, or
// the user's own) reaches the !llvm.loop metadata of the loop's back edge:
// lower-affine drops the attributes of the loops it rewrites, so the CPU
// lowering carries them across it, whatever the loop's location (a known
// one, an unknown one, a fused one). Loops without one get no metadata.
//
// RUN: %polyrs-translate --emit=llvm --O=0 %s | FileCheck %s

// CHECK-LABEL: define void @known
// CHECK:       br label %{{.*}}, !llvm.loop ![[NOVEC:[0-9]+]]
// CHECK-LABEL: define void @unknown
// CHECK:       br label %{{.*}}, !llvm.loop ![[NOVEC]]
// CHECK-LABEL: define void @fused
// CHECK:       br label %{{.*}}, !llvm.loop ![[UNROLL:[0-9]+]]
// CHECK-LABEL: define void @plain
// CHECK-NOT:   !llvm.loop
// CHECK:       ret void
// CHECK-DAG:   ![[NOVEC]] = distinct !{![[NOVEC]], ![[DISABLE:[0-9]+]]}
// CHECK-DAG:   ![[DISABLE]] = !{!"llvm.loop.vectorize.enable", i1 false}
// CHECK-DAG:   ![[UNROLL]] = distinct !{![[UNROLL]], ![[COUNT:[0-9]+]]}
// CHECK-DAG:   ![[COUNT]] = !{!"llvm.loop.unroll.count", i32 4}
#novec = #llvm.loop_annotation<vectorize = #llvm.loop_vectorize<disable = true>>
#unroll = #llvm.loop_annotation<unroll = #llvm.loop_unroll<count = 4 : i32>>
func.func @known(%A: memref<64x64xf64>) {
  affine.for %j = 1 to 64 {
    affine.for %i = 0 to 64 {
      %a = affine.load %A[%i, %j - 1] : memref<64x64xf64>
      %b = arith.mulf %a, %a : f64
      affine.store %b, %A[%i, %j] : memref<64x64xf64>
    } {llvm.loop_annotation = #novec}
  }
  return
}
func.func @unknown(%A: memref<64x64xf64>) {
  affine.for %j = 1 to 64 {
    affine.for %i = 0 to 64 {
      %a = affine.load %A[%i, %j - 1] : memref<64x64xf64>
      %b = arith.mulf %a, %a : f64
      affine.store %b, %A[%i, %j] : memref<64x64xf64>
    } {llvm.loop_annotation = #novec} loc(unknown)
  }
  return
}
func.func @fused(%A: memref<64x64xf64>) {
  affine.for %j = 1 to 64 {
    affine.for %i = 0 to 64 {
      %a = affine.load %A[%i, %j - 1] : memref<64x64xf64>
      affine.store %a, %A[%i, %j] : memref<64x64xf64>
    } {llvm.loop_annotation = #unroll} loc(fused["a.c":1:2, "b.c":3:4])
  }
  return
}
func.func @plain(%A: memref<64x64xf64>) {
  affine.for %j = 1 to 64 {
    affine.for %i = 0 to 64 {
      %a = affine.load %A[%i, %j - 1] : memref<64x64xf64>
      affine.store %a, %A[%i, %j] : memref<64x64xf64>
    }
  }
  return
}
