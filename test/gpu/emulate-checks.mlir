// What the CPU emulation of GPU programs catches (polyrs-runner
// --gpu=emulate), on hand-written GPU programs:
// - a kernel handed host memory (it would fault on a GPU);
// - device memory that no copy wrote (filled with NaN bytes);
// - a loop that carries a dependence mapped to threads: the threads of a
//   launch run in the reverse of the loop's order by default, so a prefix
//   sum over the threads of one block comes out wrong (in the loop's order
//   it would come out right, by chance).
//
// RUN: not %polyrs-runner --gpu=emulate -e host_memory %s 2>&1 | FileCheck %s --check-prefix=HOST
// RUN: %polyrs-runner --gpu=emulate -e poison %s | FileCheck %s --check-prefix=POISON
// RUN: %polyrs-runner --gpu=emulate -e carried %s | FileCheck %s --check-prefix=REVERSE
// RUN: %polyrs-runner --gpu=emulate --emulate-order=forward -e carried %s | FileCheck %s --check-prefix=FORWARD
//
// HOST: gpu emulation: kernel host_memory_kernel argument 0 is 0x{{[0-9a-f]+}}, not device memory (a kernel handed host memory faults on a GPU)
// POISON: nan
// D[8] is 8 when the threads run in the loop's order; in the reverse
// order thread 7 runs first and reads D[7] = 0.
// REVERSE: {{^}}1{{$}}
// FORWARD: {{^}}8{{$}}

func.func private @printI64(i64)
func.func private @printF64(f64)
func.func private @printNewline()

func.func @host_memory() {
  %A = memref.alloc() : memref<8xf64>
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c8, %sy = %c1, %sz = %c1) {
    %z = arith.constant 0.0 : f64
    memref.store %z, %A[%tx] : memref<8xf64>
    gpu.terminator
  }
  memref.dealloc %A : memref<8xf64>
  return
}

func.func @poison() {
  %A = memref.alloc() : memref<8xf64>
  %D = gpu.alloc() : memref<8xf64>
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  // D[t] = D[t] + 1, with D never copied in.
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c8, %sy = %c1, %sz = %c1) {
    %v = memref.load %D[%tx] : memref<8xf64>
    %one = arith.constant 1.0 : f64
    %w = arith.addf %v, %one : f64
    memref.store %w, %D[%tx] : memref<8xf64>
    gpu.terminator
  }
  gpu.memcpy %A, %D : memref<8xf64>, memref<8xf64>
  %c0 = arith.constant 0 : index
  %x = memref.load %A[%c0] : memref<8xf64>
  func.call @printF64(%x) : (f64) -> ()
  func.call @printNewline() : () -> ()
  gpu.dealloc %D : memref<8xf64>
  memref.dealloc %A : memref<8xf64>
  return
}

func.func @carried() {
  %A = memref.alloc() : memref<9xi64>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c9 = arith.constant 9 : index
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  scf.for %i = %c0 to %c9 step %c1 {
    memref.store %zero, %A[%i] : memref<9xi64>
  }
  %D = gpu.alloc() : memref<9xi64>
  gpu.memcpy %D, %A : memref<9xi64>, memref<9xi64>
  // for t in 0..8: D[t + 1] = D[t] + 1 (a dependence carried by t).
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c8, %sy = %c1, %sz = %c1) {
    %v = memref.load %D[%tx] : memref<9xi64>
    %w = arith.addi %v, %one : i64
    %n = arith.addi %tx, %c1 : index
    memref.store %w, %D[%n] : memref<9xi64>
    gpu.terminator
  }
  gpu.memcpy %A, %D : memref<9xi64>, memref<9xi64>
  %last = memref.load %A[%c8] : memref<9xi64>
  func.call @printI64(%last) : (i64) -> ()
  func.call @printNewline() : () -> ()
  gpu.dealloc %D : memref<9xi64>
  memref.dealloc %A : memref<9xi64>
  return
}
