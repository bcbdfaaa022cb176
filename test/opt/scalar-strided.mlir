// A loop moved innermost for its independent iterations across a
// recurrence (adi's sweeps: p[i][j] depends on p[i][j-1] along j, the rows
// i are independent) has its accesses strided along it. LLVM vectorizes
// such a loop with gathers and scatters on every AVX-512 CPU; on the
// targets that run them slowly (Zen 4: CpuTarget::slow_gathers) the loop
// carries an llvm.loop_annotation that keeps it scalar, down to the
// !llvm.loop metadata of its back edge. The option gathers=slow|fast
// overrides what is known of the CPU. The results must be the input's,
// digit for digit, on both targets.
//
// RUN: %polyrs-opt %s --poly-opt='cpu=znver4 threads=2 profitability=false' 2>&1 | FileCheck %s --check-prefix=ZEN4
// RUN: %polyrs-opt %s --poly-opt='cpu=skylake-avx512 threads=2 profitability=false' 2>&1 | FileCheck %s --check-prefix=SKX
// RUN: %polyrs-opt %s --poly-opt='cpu=znver4 gathers=fast threads=2 profitability=false' 2>&1 | FileCheck %s --check-prefix=SKX
// RUN: %polyrs-opt %s --poly-opt='cpu=skylake-avx512 gathers=slow threads=2 profitability=false' 2>&1 | FileCheck %s --check-prefix=SLOW
// RUN: not %polyrs-opt %s --poly-opt='gathers=sometimes' 2>&1 | FileCheck %s --check-prefix=BAD
// The decision, in the loop tree after the scalar stage: the innermost
// loop over the independent rows (t3) gets the scalar role.
// RUN: %polyrs-opt %s --poly-opt='cpu=znver4 threads=2 profitability=false print-stages=true' -o /dev/null 2>&1 | FileCheck %s --check-prefix=TREE
// TREE:      loop tree after the lanes stage (0 loops marked):
// TREE:      for t3 = max(32*t0, 1) to min(62, 32*t0+31) [carry]
// TREE:      loop tree after the scalar stage (1 loop marked):
// TREE:      for t3 = max(32*t0, 1) to min(62, 32*t0+31) [scalar, carry]
// TREE-NEXT:   S0(t3, t2)
// TREE-NEXT:   S1(t3, t2)
// RUN: %polyrs-opt %s --poly-opt='cpu=znver4 threads=2 profitability=false' | %polyrs-translate --cpu=znver4 --emit=llvm --O=0 - | FileCheck %s --check-prefix=IR
// RUN: %polyrs-opt %s --poly-opt='cpu=znver4 threads=2 profitability=false' | %polyrs-translate --cpu=znver4 --emit=asm - | FileCheck %s --check-prefix=ASM
// RUN: %polyrs-runner --threads=2 %s > %t.before
// RUN: %polyrs-opt %s --poly-opt='cpu=znver4 threads=2 profitability=false' | %polyrs-runner --threads=2 - > %t.zen4
// RUN: %polyrs-opt %s --poly-opt='cpu=skylake-avx512 threads=2 profitability=false' | %polyrs-runner --threads=2 - > %t.skx
// RUN: diff %t.before %t.zen4
// RUN: diff %t.before %t.skx
// RUN: FileCheck %s --input-file=%t.before --check-prefix=SUMS
// SUMS-COUNT-2: {{^-?[0-9]+$}}
// SUMS-NOT: {{.}}

// ZEN4: scalar-strided.mlir:[[@LINE+31]]:3: remark: poly-opt: {{.*}}point loop φ{{[0-9]}} moved innermost (independent iterations across a recurrence);{{.*}} innermost loops across a recurrence run scalar: vectorized, their strided accesses would be slow gathers and scatters (1 loop); legality verified; target znver4 (512-bit vectors, 32 registers, FMA, slow gathers, slow 512-bit broadcasts, L1d
// ZEN4-LABEL: func.func @sweep
// ZEN4:       affine.for
// ZEN4:       affine.for
// ZEN4:       affine.load %arg0[%[[I:[a-z0-9]+]], %{{.*}} - 1]
// ZEN4:       } {llvm.loop_annotation = #{{.*}}}
// ZEN4:       return
// SKX:        remark: poly-opt: {{.*}}moved innermost (independent iterations across a recurrence);
// SKX-NOT:    run scalar
// SKX-SAME:   legality verified; target {{[a-z0-9-]+}} ({{[0-9]+}}-bit vectors, 32 registers, FMA, {{(slow 512-bit broadcasts, )?}}L1d
// SKX-LABEL:  func.func @sweep
// SKX-NOT:    llvm.loop_annotation
// SKX:        return
// SLOW:       remark: poly-opt: {{.*}}run scalar: {{.*}}(1 loop); legality verified; target skylake-avx512 ({{.*}}FMA, slow gathers, L1d
// SLOW-LABEL: func.func @sweep
// SLOW:       } {llvm.loop_annotation = #{{.*}}}
// BAD:        error: {{.*}}gathers{{.*}}expected cpu, slow or fast
// The back edge of the scalar loop:
// IR-LABEL:   define {{.*}}@sweep
// IR:         br label %{{.*}}, !llvm.loop ![[LOOP:[0-9]+]]
// IR:         ![[LOOP]] = distinct !{![[LOOP]], ![[NOVEC:[0-9]+]]}
// IR:         ![[NOVEC]] = !{!"llvm.loop.vectorize.enable", i1 false}
// No gather or scatter in the kernel's code (its loops are outlined for
// OpenMP; the same translation of the skylake-avx512 plan has 8):
// ASM-LABEL:  {{^}}sweep..omp_par:
// ASM-NOT:    {{vgather|vscatter}}
// ASM:        {{^}}fill:
func.func @sweep(%p: memref<64x64xf64>, %q: memref<64x64xf64>, %u: memref<64x64xf64>) {
  %a = arith.constant -0.25 : f64
  %b = arith.constant 1.5 : f64
  %c = arith.constant 0.25 : f64
  affine.for %i = 1 to 63 {
    affine.for %j = 1 to 63 {
      %pp = affine.load %p[%i, %j - 1] : memref<64x64xf64>
      %m = arith.mulf %a, %pp : f64
      %den = arith.addf %m, %b : f64
      %r = arith.divf %c, %den : f64
      affine.store %r, %p[%i, %j] : memref<64x64xf64>
      %qq = affine.load %q[%i, %j - 1] : memref<64x64xf64>
      %uu = affine.load %u[%j, %i] : memref<64x64xf64>
      %n = arith.mulf %a, %qq : f64
      %s = arith.subf %uu, %n : f64
      %pp2 = affine.load %p[%i, %j - 1] : memref<64x64xf64>
      %m2 = arith.mulf %a, %pp2 : f64
      %den2 = arith.addf %m2, %b : f64
      %t = arith.divf %s, %den2 : f64
      affine.store %t, %q[%i, %j] : memref<64x64xf64>
    }
  }
  return
}

func.func private @printI64(i64)
func.func private @printNewline()

func.func @fill(%A: memref<64x64xf64>, %seed: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c7 = arith.constant 7.0 : f64
  scf.for %i = %c0 to %c64 step %c1 {
    scf.for %j = %c0 to %c64 step %c1 {
      %v = affine.apply affine_map<(d0, d1)[s0] -> ((d0 * 7 + d1 * 3 + s0) mod 11)>(%i, %j)[%seed]
      %vi = arith.index_cast %v : index to i64
      %vf = arith.sitofp %vi : i64 to f64
      %w = arith.divf %vf, %c7 : f64
      memref.store %w, %A[%i, %j] : memref<64x64xf64>
    }
  }
  return
}

// Prints the bits of Σ A[i][j] · (1 + (i + 2j) mod 5).
func.func @sum(%A: memref<64x64xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %z = arith.constant 0.0 : f64
  %s = scf.for %i = %c0 to %c64 step %c1 iter_args(%acc = %z) -> (f64) {
    %r = scf.for %j = %c0 to %c64 step %c1 iter_args(%a2 = %acc) -> (f64) {
      %v = memref.load %A[%i, %j] : memref<64x64xf64>
      %w = affine.apply affine_map<(d0, d1) -> ((d0 + d1 * 2) mod 5 + 1)>(%i, %j)
      %wi = arith.index_cast %w : index to i64
      %wf = arith.sitofp %wi : i64 to f64
      %pr = arith.mulf %v, %wf : f64
      %n2 = arith.addf %a2, %pr : f64
      scf.yield %n2 : f64
    }
    scf.yield %r : f64
  }
  %bits = arith.bitcast %s : f64 to i64
  func.call @printI64(%bits) : (i64) -> ()
  func.call @printNewline() : () -> ()
  return
}

func.func @main() {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %P = memref.alloc() : memref<64x64xf64>
  %Q = memref.alloc() : memref<64x64xf64>
  %U = memref.alloc() : memref<64x64xf64>
  func.call @fill(%P, %c1) : (memref<64x64xf64>, index) -> ()
  func.call @fill(%Q, %c2) : (memref<64x64xf64>, index) -> ()
  func.call @fill(%U, %c3) : (memref<64x64xf64>, index) -> ()
  func.call @sweep(%P, %Q, %U) : (memref<64x64xf64>, memref<64x64xf64>, memref<64x64xf64>) -> ()
  func.call @sum(%P) : (memref<64x64xf64>) -> ()
  func.call @sum(%Q) : (memref<64x64xf64>) -> ()
  memref.dealloc %P : memref<64x64xf64>
  memref.dealloc %Q : memref<64x64xf64>
  memref.dealloc %U : memref<64x64xf64>
  return
}
