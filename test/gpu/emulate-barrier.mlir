// Barriers and shared memory in the CPU emulation of GPU programs
// (polyrs-runner --gpu=emulate). Each thread of a block runs on a host
// thread of its own, in turns: until its next barrier, then the next
// thread; shared memory is filled with NaN bytes before each block.
// - rotate: B[t] = A[(t + 1) mod 8] + A[(t + 7) mod 8] within each block of
//   8, through shared memory with a barrier between the writes and the
//   reads: right in both orders.
// - rotate without the barrier: every thread reads a neighbour's cell
//   before that neighbour wrote it, in either order: NaN.
// - a barrier that only half of the block's threads pass: an error.
// - stale: block 1 reads shared cells that only block 0 wrote (the value a
//   GPU may or may not keep between blocks): NaN, also when block 0 runs
//   first (forward order).
//
// RUN: %polyrs-runner --gpu=emulate -e rotate %s | FileCheck %s --check-prefix=ROTATE
// RUN: %polyrs-runner --gpu=emulate --emulate-order=forward -e rotate %s | FileCheck %s --check-prefix=ROTATE
// RUN: %polyrs-runner --gpu=emulate -e rotate_without_barrier %s | FileCheck %s --check-prefix=RACE
// RUN: %polyrs-runner --gpu=emulate --emulate-order=forward -e rotate_without_barrier %s | FileCheck %s --check-prefix=RACE
// RUN: not %polyrs-runner --gpu=emulate -e divergent %s 2>&1 | FileCheck %s --check-prefix=DIVERGENT
// RUN: %polyrs-runner --gpu=emulate -e stale %s | FileCheck %s --check-prefix=STALE
// RUN: %polyrs-runner --gpu=emulate --emulate-order=forward -e stale %s | FileCheck %s --check-prefix=STALE
//
// ROTATE: 8 2 4 6 8 10 12 6 24 18 20 22 24 26 28 22
// RACE-NOT: {{^8 2 4}}
// RACE: nan
// DIVERGENT: gpu emulation: kernel {{.*}}: the threads of a block passed different numbers of barriers (0 to 1); a barrier in divergent code hangs a GPU
// STALE: 1 1 -nan -nan

func.func private @printF64(f64)
func.func private @printNewline()

// A[i] = i, i < 16.
func.func @iota() -> memref<16xf64> {
  %A = memref.alloc() : memref<16xf64>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.for %i = %c0 to %c16 step %c1 {
    %ii = arith.index_cast %i : index to i64
    %f = arith.sitofp %ii : i64 to f64
    memref.store %f, %A[%i] : memref<16xf64>
  }
  return %A : memref<16xf64>
}

// Prints B[0..n) on one line.
func.func @print(%B: memref<16xf64>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %x = memref.load %B[%i] : memref<16xf64>
    func.call @printF64(%x) : (f64) -> ()
    %last = arith.subi %n, %c1 : index
    %more = arith.cmpi ult, %i, %last : index
    scf.if %more {
      %sp = llvm.mlir.addressof @space : !llvm.ptr
      llvm.call @printf(%sp) vararg(!llvm.func<i32 (ptr, ...)>) : (!llvm.ptr) -> i32
    }
  }
  func.call @printNewline() : () -> ()
  return
}

llvm.mlir.global internal constant @space(" \00") {addr_space = 0 : i32}
llvm.func @printf(!llvm.ptr, ...) -> i32

func.func @rotate() {
  %A = func.call @iota() : () -> memref<16xf64>
  %B = memref.alloc() : memref<16xf64>
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %dA = gpu.alloc() : memref<16xf64>
  %dB = gpu.alloc() : memref<16xf64>
  gpu.memcpy %dA, %A : memref<16xf64>, memref<16xf64>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c8, %sy = %c1, %sz = %c1)
             workgroup(%sh : memref<8xf64, #gpu.address_space<workgroup>>) {
    %k1 = arith.constant 1 : index
    %k7 = arith.constant 7 : index
    %k8 = arith.constant 8 : index
    %base = arith.muli %bx, %k8 : index
    %g = arith.addi %base, %tx : index
    %v = memref.load %dA[%g] : memref<16xf64>
    memref.store %v, %sh[%tx] : memref<8xf64, #gpu.address_space<workgroup>>
    gpu.barrier
    %n1 = arith.addi %tx, %k1 : index
    %r1 = arith.remui %n1, %k8 : index
    %n7 = arith.addi %tx, %k7 : index
    %r7 = arith.remui %n7, %k8 : index
    %a = memref.load %sh[%r1] : memref<8xf64, #gpu.address_space<workgroup>>
    %b = memref.load %sh[%r7] : memref<8xf64, #gpu.address_space<workgroup>>
    %s = arith.addf %a, %b : f64
    memref.store %s, %dB[%g] : memref<16xf64>
    gpu.terminator
  }
  gpu.memcpy %B, %dB : memref<16xf64>, memref<16xf64>
  func.call @print(%B, %c16) : (memref<16xf64>, index) -> ()
  return
}

func.func @rotate_without_barrier() {
  %A = func.call @iota() : () -> memref<16xf64>
  %B = memref.alloc() : memref<16xf64>
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %dA = gpu.alloc() : memref<16xf64>
  %dB = gpu.alloc() : memref<16xf64>
  gpu.memcpy %dA, %A : memref<16xf64>, memref<16xf64>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c8, %sy = %c1, %sz = %c1)
             workgroup(%sh : memref<8xf64, #gpu.address_space<workgroup>>) {
    %k1 = arith.constant 1 : index
    %k7 = arith.constant 7 : index
    %k8 = arith.constant 8 : index
    %base = arith.muli %bx, %k8 : index
    %g = arith.addi %base, %tx : index
    %v = memref.load %dA[%g] : memref<16xf64>
    memref.store %v, %sh[%tx] : memref<8xf64, #gpu.address_space<workgroup>>
    %n1 = arith.addi %tx, %k1 : index
    %r1 = arith.remui %n1, %k8 : index
    %n7 = arith.addi %tx, %k7 : index
    %r7 = arith.remui %n7, %k8 : index
    %a = memref.load %sh[%r1] : memref<8xf64, #gpu.address_space<workgroup>>
    %b = memref.load %sh[%r7] : memref<8xf64, #gpu.address_space<workgroup>>
    %s = arith.addf %a, %b : f64
    memref.store %s, %dB[%g] : memref<16xf64>
    gpu.terminator
  }
  gpu.memcpy %B, %dB : memref<16xf64>, memref<16xf64>
  func.call @print(%B, %c16) : (memref<16xf64>, index) -> ()
  return
}

func.func @divergent() {
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c8, %sy = %c1, %sz = %c1) {
    %k4 = arith.constant 4 : index
    %low = arith.cmpi ult, %tx, %k4 : index
    scf.if %low {
      gpu.barrier
    }
    gpu.terminator
  }
  return
}

// Block 0 writes sh[t] = 1 and copies it out; block 1 only copies out.
func.func @stale() {
  %B = memref.alloc() : memref<16xf64>
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %dB = gpu.alloc() : memref<16xf64>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c2, %sy = %c1, %sz = %c1)
             workgroup(%sh : memref<2xf64, #gpu.address_space<workgroup>>) {
    %k0 = arith.constant 0 : index
    %k2 = arith.constant 2 : index
    %first = arith.cmpi eq, %bx, %k0 : index
    scf.if %first {
      %one = arith.constant 1.0 : f64
      memref.store %one, %sh[%tx] : memref<2xf64, #gpu.address_space<workgroup>>
    }
    %v = memref.load %sh[%tx] : memref<2xf64, #gpu.address_space<workgroup>>
    %base = arith.muli %bx, %k2 : index
    %g = arith.addi %base, %tx : index
    memref.store %v, %dB[%g] : memref<16xf64>
    gpu.terminator
  }
  gpu.memcpy %B, %dB : memref<16xf64>, memref<16xf64>
  func.call @print(%B, %c4) : (memref<16xf64>, index) -> ()
  return
}
