// --reuse-memory: each run of main gets back the block the previous run
// freed, with what that run left in it. Main reads the first cell of a
// 64 MiB array before writing it one more than it found: run after run,
// 0, 1, 2. Without the option the C library maps the array afresh each
// run (above its largest mmap threshold, 32 MiB) and every run reads 0.
// At -O0, so that LLVM keeps the read of a freshly allocated cell.
// RUN: %polyrs-runner --O=0 --repeat=3 --reuse-memory %s | FileCheck %s --check-prefix=REUSE
// RUN: %polyrs-runner --O=0 --repeat=3 %s | FileCheck %s --check-prefix=FRESH
// REUSE: found 0
// REUSE-NEXT: found 1
// REUSE-NEXT: found 2
// FRESH: found 0
// FRESH-NEXT: found 0
// FRESH-NEXT: found 0
// RUN: %polyrs-runner --help | FileCheck %s --check-prefix=HELP
// HELP: --reuse-memory {{ *}}each run of the entry function gets back the blocks the previous runs freed

func.func private @printString(!llvm.ptr)
func.func private @printI64(i64)
func.func private @printNewline()
llvm.mlir.global internal constant @label("found \00") {addr_space = 0 : i32}

func.func @main() {
  %A = memref.alloc() : memref<8388608xi64>
  %c0 = arith.constant 0 : index
  %one = arith.constant 1 : i64
  %v = memref.load %A[%c0] : memref<8388608xi64>
  %l = llvm.mlir.addressof @label : !llvm.ptr
  func.call @printString(%l) : (!llvm.ptr) -> ()
  func.call @printI64(%v) : (i64) -> ()
  func.call @printNewline() : () -> ()
  %w = arith.addi %v, %one : i64
  memref.store %w, %A[%c0] : memref<8388608xi64>
  memref.dealloc %A : memref<8388608xi64>
  return
}
