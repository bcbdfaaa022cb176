// OpenMP is really used: each iteration of the parallel loop records the
// OpenMP thread that ran it; main prints the number of distinct threads.
// RUN: %polyrs-runner --threads=2 %s | FileCheck %s --check-prefix=TWO
// RUN: %polyrs-runner --threads=1 %s | FileCheck %s --check-prefix=ONE
// RUN: %polyrs-runner --no-openmp --threads=2 %s | FileCheck %s --check-prefix=ONE
// TWO: threads 2
// ONE: threads 1
// RUN: %polyrs-translate %s | FileCheck %s --check-prefix=IR
// IR: call void {{.*}}@__kmpc_fork_call(
// RUN: %polyrs-translate --no-openmp %s | FileCheck %s --check-prefix=SEQ
// SEQ-NOT: __kmpc_fork_call

func.func private @omp_get_thread_num() -> i32
func.func private @printString(!llvm.ptr)
func.func private @printI64(i64)
func.func private @printNewline()
llvm.mlir.global internal constant @label("threads \00") {addr_space = 0 : i32}

func.func @main() {
  %T = memref.alloc() : memref<64xi32>
  affine.parallel (%i) = (0) to (64) {
    %t = func.call @omp_get_thread_num() : () -> i32
    affine.store %t, %T[%i] : memref<64xi32>
  }
  // Count distinct thread ids among 0 and 1 (2 threads at most here).
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %seen = affine.for %i = 0 to 64 iter_args(%mask = %zero) -> (i64) {
    %t = affine.load %T[%i] : memref<64xi32>
    %t64 = arith.extsi %t : i32 to i64
    %bit = arith.shli %one, %t64 : i64
    %m = arith.ori %mask, %bit : i64
    affine.yield %m : i64
  }
  %count = math.ctpop %seen : i64
  %p = llvm.mlir.addressof @label : !llvm.ptr
  func.call @printString(%p) : (!llvm.ptr) -> ()
  func.call @printI64(%count) : (i64) -> ()
  func.call @printNewline() : () -> ()
  memref.dealloc %T : memref<64xi32>
  return
}
