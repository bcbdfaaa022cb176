// RUN: %polyrs-opt %s --split-input-file --poly-detect-scops --verify-diagnostics
// Loop nests that are static control parts: one remark per SCoP.

// Perfect 3-deep nest with a symbol bound (gemm).
func.func @perfect(%A: memref<?x?xf64>, %B: memref<?x?xf64>, %C: memref<?x?xf64>, %n: index) {
  // expected-remark@+1 {{static control part: 1 loop nest, depth 3, 1 statement, 1 parameter}}
  affine.for %i = 0 to %n {
    affine.for %j = 0 to %n {
      affine.for %k = 0 to %n {
        %a = affine.load %A[%i, %k] : memref<?x?xf64>
        %b = affine.load %B[%k, %j] : memref<?x?xf64>
        %c = affine.load %C[%i, %j] : memref<?x?xf64>
        %p = arith.mulf %a, %b : f64
        %s = arith.addf %c, %p : f64
        affine.store %s, %C[%i, %j] : memref<?x?xf64>
      }
    }
  }
  return
}

// -----

// Imperfect nest: a statement before the inner loop.
func.func @imperfect(%C: memref<64x64xf64>, %beta: f64) {
  // expected-remark@+1 {{static control part: 1 loop nest, depth 2, 2 statements, 0 parameters}}
  affine.for %i = 0 to 64 {
    %z = arith.constant 0.0 : f64
    affine.store %z, %C[%i, 0] : memref<64x64xf64>
    affine.for %j = 1 to 64 {
      %c = affine.load %C[%i, %j - 1] : memref<64x64xf64>
      %m = arith.mulf %c, %beta : f64
      affine.store %m, %C[%i, %j] : memref<64x64xf64>
    }
  }
  return
}

// -----

// Triangular bounds (lower triangle, as in trmm/cholesky).
func.func @triangular(%A: memref<100x100xf64>) {
  // expected-remark@+1 {{static control part: 1 loop nest, depth 2, 1 statement, 0 parameters}}
  affine.for %i = 0 to 100 {
    affine.for %j = 0 to affine_map<(d0) -> (d0)>(%i) {
      %a = affine.load %A[%i, %j] : memref<100x100xf64>
      %b = arith.addf %a, %a : f64
      affine.store %b, %A[%i, %j] : memref<100x100xf64>
    }
  }
  return
}

// -----

// max/min bounds with symbols (a tiled loop as upstream tiling writes it).
func.func @maxmin(%A: memref<?xf64>, %n: index, %m: index) {
  // expected-remark@+1 {{static control part: 1 loop nest, depth 2, 1 statement, 2 parameters}}
  affine.for %t = 0 to %n step 32 {
    affine.for %i = max affine_map<(d0)[s0] -> (d0, s0)>(%t)[%m] to min affine_map<(d0)[s0] -> (d0 + 32, s0)>(%t)[%n] {
      %a = affine.load %A[%i] : memref<?xf64>
      affine.store %a, %A[%i + 1] : memref<?xf64>
    }
  }
  return
}

// -----

// Non-unit steps.
func.func @steps(%A: memref<1000xf64>) {
  // expected-remark@+1 {{static control part: 1 loop nest, depth 2, 1 statement, 0 parameters}}
  affine.for %i = 0 to 1000 step 4 {
    affine.for %j = 0 to 4 step 2 {
      %a = affine.load %A[%i + %j] : memref<1000xf64>
      affine.store %a, %A[%i + %j + 1] : memref<1000xf64>
    }
  }
  return
}

// -----

// affine.if with an else branch.
func.func @guards(%A: memref<?xf64>, %n: index) {
  %zero = arith.constant 0.0 : f64
  // expected-remark@+1 {{static control part: 1 loop nest, depth 1, 2 statements, 1 parameter}}
  affine.for %i = 0 to %n {
    affine.if affine_set<(d0)[s0] : (d0 - 1 >= 0, s0 - d0 - 2 >= 0)>(%i)[%n] {
      %a = affine.load %A[%i - 1] : memref<?xf64>
      affine.store %a, %A[%i] : memref<?xf64>
    } else {
      affine.store %zero, %A[%i] : memref<?xf64>
    }
  }
  return
}

// -----

// Two nests in sequence form one SCoP; symbols from memref.dim are parameters.
func.func @sequence(%A: memref<?x?xf64>, %B: memref<?x?xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %A, %c0 : memref<?x?xf64>
  %m = memref.dim %A, %c1 : memref<?x?xf64>
  // expected-remark@+1 {{static control part: 2 loop nests, depth 2, 2 statements, 2 parameters}}
  affine.for %i = 0 to %n {
    affine.for %j = 0 to %m {
      %a = affine.load %A[%i, %j] : memref<?x?xf64>
      affine.store %a, %B[%i, %j] : memref<?x?xf64>
    }
  }
  %two = arith.constant 2.0 : f64
  affine.for %i = 0 to %n {
    %b = affine.load %B[%i, 0] : memref<?x?xf64>
    %c = arith.mulf %b, %two : f64
    affine.store %c, %A[%i, 0] : memref<?x?xf64>
  }
  return
}

// -----

// affine.parallel counts one depth per dimension; affine.apply indices.
func.func @parallel(%A: memref<128x128xf64>) {
  // expected-remark@+1 {{static control part: 1 loop nest, depth 3, 1 statement, 0 parameters}}
  affine.parallel (%i, %j) = (0, 0) to (64, 64) {
    affine.for %k = 0 to 64 {
      %r = affine.apply affine_map<(d0, d1) -> (d0 + d1)>(%i, %k)
      %a = affine.load %A[%r, %j] : memref<128x128xf64>
      affine.store %a, %A[%i, %j] : memref<128x128xf64>
    }
  }
  return
}

// -----

// memref.load/store with affine indices (IVs and arith on IVs and constants).
func.func @memref_affine(%A: memref<100xf64>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  // expected-remark@+1 {{static control part: 1 loop nest, depth 1, 1 statement, 0 parameters}}
  affine.for %i = 0 to 40 {
    %j = arith.muli %i, %c2 : index
    %k = arith.addi %j, %c1 : index
    %a = memref.load %A[%k] : memref<100xf64>
    memref.store %a, %A[%j] : memref<100xf64>
  }
  return
}

// -----

// Pure math in statement bodies (sqrt, select) does not break a SCoP.
func.func @pure_bodies(%A: memref<10x10xf64>) {
  %zero = arith.constant 0.0 : f64
  // expected-remark@+1 {{static control part: 1 loop nest, depth 2, 1 statement, 0 parameters}}
  affine.for %i = 0 to 10 {
    affine.for %j = 0 to 10 {
      %a = affine.load %A[%i, %j] : memref<10x10xf64>
      %s = math.sqrt %a : f64
      %p = arith.cmpf ogt, %s, %zero : f64
      %r = arith.select %p, %s, %zero : f64
      affine.store %r, %A[%i, %j] : memref<10x10xf64>
    }
  }
  return
}

// -----

// An affine nest inside an scf.for: the scf counter is a parameter.
func.func @inside_scf(%A: memref<100x100xf64>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %t = %c0 to %n step %c1 {
    // expected-remark@+1 {{static control part: 1 loop nest, depth 1, 1 statement, 1 parameter}}
    affine.for %i = 0 to 100 {
      %a = memref.load %A[%t, %i] : memref<100x100xf64>
      memref.store %a, %A[%i, %t] : memref<100x100xf64>
    }
  }
  return
}

// -----

// min-depth filters shallow SCoPs (default 1 keeps everything with a loop).
func.func @no_loops(%A: memref<10xf64>) {
  %a = affine.load %A[0] : memref<10xf64>
  affine.store %a, %A[1] : memref<10xf64>
  return
}

// -----

// A value loaded between two nests and used after them (issue 67): the load
// stays where it is, outside any SCoP, and the run of nests is split there
// (the rewrite moves each statement's reads to where the schedule puts
// them; this value would have no place left to come from).
func.func @escaping_load(%A: memref<16xf64>, %B: memref<16xf64>, %out: memref<f64>) {
  // expected-remark@+1 {{static control part: 1 loop nest, depth 1, 1 statement, 0 parameters}}
  affine.for %i = 0 to 16 {
    %a = affine.load %A[%i] : memref<16xf64>
    %d = arith.addf %a, %a : f64
    affine.store %d, %A[%i] : memref<16xf64>
  }
  %v = affine.load %A[3] : memref<16xf64>
  %w = arith.mulf %v, %v : f64
  // expected-remark@+1 {{static control part: 1 loop nest, depth 1, 1 statement, 0 parameters}}
  affine.for %i = 0 to 16 {
    %b = affine.load %B[%i] : memref<16xf64>
    %s = arith.addf %b, %v : f64
    affine.store %s, %B[%i] : memref<16xf64>
  }
  affine.store %w, %out[] : memref<f64>
  return
}

// -----

// The same load used only by the second nest: one SCoP of both nests.
func.func @kept_load(%A: memref<16xf64>, %B: memref<16xf64>) {
  // expected-remark@+1 {{static control part: 2 loop nests, depth 1, 2 statements, 0 parameters}}
  affine.for %i = 0 to 16 {
    %a = affine.load %A[%i] : memref<16xf64>
    %d = arith.addf %a, %a : f64
    affine.store %d, %A[%i] : memref<16xf64>
  }
  %v = affine.load %A[3] : memref<16xf64>
  affine.for %i = 0 to 16 {
    %b = affine.load %B[%i] : memref<16xf64>
    %s = arith.addf %b, %v : f64
    affine.store %s, %B[%i] : memref<16xf64>
  }
  return
}
