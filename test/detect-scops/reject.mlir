// RUN: %polyrs-opt %s --split-input-file --poly-detect-scops --verify-diagnostics
// Loop nests that are not static control parts: one remark per rejected
// outermost nest naming the culprit, with a note at the culprit.

func.func private @opaque(f64)

// A call with side effects.
func.func @call(%A: memref<10xf64>) {
  // expected-remark@+1 {{loop nest is not a static control part: call 'func.call' may have side effects}}
  affine.for %i = 0 to 10 {
    %a = affine.load %A[%i] : memref<10xf64>
    // expected-note@+1 {{'func.call' breaks the static control part here}}
    func.call @opaque(%a) : (f64) -> ()
  }
  return
}

// -----

// scf control flow inside an affine nest; the inner affine nest is still a SCoP.
func.func @scf(%A: memref<10x10xf64>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-remark@+1 {{loop nest is not a static control part: 'scf.for' is not affine control flow}}
  affine.for %i = 0 to 10 {
    // expected-note@+1 {{'scf.for' breaks the static control part here}}
    scf.for %t = %c0 to %n step %c1 {
      // expected-remark@+1 {{static control part: 1 loop nest, depth 1, 1 statement, 2 parameters}}
      affine.for %j = 0 to 10 {
        %a = affine.load %A[%i, %j] : memref<10x10xf64>
        memref.store %a, %A[%j, %t] : memref<10x10xf64>
      }
    }
  }
  return
}

// -----

// memref.load with an index computed from data.
func.func @computed_index(%A: memref<10xf64>, %Idx: memref<10xindex>) {
  // expected-remark@+1 {{loop nest is not a static control part: 'memref.load' has a computed index (value computed by 'affine.load')}}
  affine.for %i = 0 to 10 {
    %k = affine.load %Idx[%i] : memref<10xindex>
    // expected-note@+1 {{'memref.load' breaks the static control part here}}
    %a = memref.load %A[%k] : memref<10xf64>
    affine.store %a, %A[%i] : memref<10xf64>
  }
  return
}

// -----

// memref.store with an index cast from an integer.
func.func @cast_index(%A: memref<10xf64>, %v: f64) {
  // expected-remark@+1 {{loop nest is not a static control part: 'memref.store' has a computed index (value computed by 'arith.index_cast')}}
  affine.for %i = 0 to 10 {
    %x = arith.index_cast %i : index to i64
    %y = arith.muli %x, %x : i64
    %k = arith.index_cast %y : i64 to index
    // expected-note@+1 {{'memref.store' breaks the static control part here}}
    memref.store %v, %A[%k] : memref<10xf64>
  }
  return
}

// -----

// Non-affine index: product of two induction variables.
func.func @product_index(%A: memref<100xf64>, %v: f64) {
  // expected-remark@+1 {{loop nest is not a static control part: 'memref.store' has a computed index (value computed by 'arith.muli' of two variables)}}
  affine.for %i = 0 to 10 {
    affine.for %j = 0 to 10 {
      %k = arith.muli %i, %j : index
      // expected-note@+1 {{'memref.store' breaks the static control part here}}
      memref.store %v, %A[%k] : memref<100xf64>
    }
  }
  return
}

// -----

// Semi-affine map: an index multiplied by a symbol.
func.func @semi_affine(%A: memref<?xf64>, %n: index, %v: f64) {
  // expected-remark@+1 {{loop nest is not a static control part: 'affine.store' uses a semi-affine map (product of inputs or division by a symbol)}}
  affine.for %i = 0 to 10 {
    // expected-note@+1 {{'affine.store' breaks the static control part here}}
    affine.store %v, %A[%i * symbol(%n)] : memref<?xf64>
  }
  return
}

// -----

// Loop-carried SSA values (iter_args).
func.func @iter_args(%A: memref<10xf64>) -> f64 {
  %zero = arith.constant 0.0 : f64
  // expected-remark@+1 {{loop nest is not a static control part: 'affine.for' carries values through iter_args (loop-carried SSA values are not modeled)}}
  %sum = affine.for %i = 0 to 10 iter_args(%acc = %zero) -> (f64) {
    %a = affine.load %A[%i] : memref<10xf64>
    %s = arith.addf %acc, %a : f64
    affine.yield %s : f64
  }
  return %sum : f64
}

// -----

// affine.parallel with a reduction.
func.func @reduction(%A: memref<10xf64>) -> f64 {
  // expected-remark@+1 {{loop nest is not a static control part: 'affine.parallel' has reductions (not modeled)}}
  %sum = affine.parallel (%i) = (0) to (10) reduce ("addf") -> f64 {
    %a = affine.load %A[%i] : memref<10xf64>
    affine.yield %a : f64
  }
  return %sum : f64
}

// -----

// affine.if that yields a value.
func.func @if_results(%A: memref<10xf64>, %v: f64) {
  // expected-remark@+1 {{loop nest is not a static control part: 'affine.if' yields values (not modeled)}}
  affine.for %i = 0 to 10 {
    // expected-note@+1 {{'affine.if' breaks the static control part here}}
    %x = affine.if affine_set<(d0) : (d0 - 5 >= 0)>(%i) -> f64 {
      affine.yield %v : f64
    } else {
      %a = affine.load %A[%i] : memref<10xf64>
      affine.yield %a : f64
    }
    affine.store %x, %A[%i] : memref<10xf64>
  }
  return
}

// -----

// An allocation inside a loop (a local buffer: poly-opt's local-buffers
// models it, detection alone does not).
func.func @alloc(%A: memref<10xf64>) {
  // expected-remark@+1 {{loop nest is not a static control part: 'memref.alloc' inside the nest: a local buffer that is not modeled}}
  affine.for %i = 0 to 10 {
    // expected-note@+1 {{'memref.alloc' breaks the static control part here}}
    %t = memref.alloc() : memref<4xf64>
    %a = affine.load %A[%i] : memref<10xf64>
    affine.store %a, %t[0] : memref<4xf64>
  }
  return
}

// -----

// Vector accesses are not modeled.
func.func @vector(%A: memref<64xf64>) {
  // expected-remark@+1 {{loop nest is not a static control part: 'affine.vector_load' (vector access) is not modeled}}
  affine.for %i = 0 to 64 step 8 {
    // expected-note@+1 {{'affine.vector_load' breaks the static control part here}}
    %v = affine.vector_load %A[%i] : memref<64xf64>, vector<8xf64>
    affine.vector_store %v, %A[%i] : memref<64xf64>, vector<8xf64>
  }
  return
}

// -----

// Only the outermost rejected nest is reported; sibling SCoPs around a call
// are separate SCoPs.
func.func private @g()
func.func @split(%A: memref<10xf64>) {
  // expected-remark@+1 {{static control part: 1 loop nest, depth 1, 1 statement, 0 parameters}}
  affine.for %i = 0 to 10 {
    %a = affine.load %A[%i] : memref<10xf64>
    affine.store %a, %A[%i] : memref<10xf64>
  }
  func.call @g() : () -> ()
  // expected-remark@+1 {{loop nest is not a static control part: call 'func.call' may have side effects}}
  affine.for %i = 0 to 10 {
    affine.for %j = 0 to 10 {
      // expected-note@+1 {{'func.call' breaks the static control part here}}
      func.call @g() : () -> ()
    }
  }
  // expected-remark@+1 {{static control part: 1 loop nest, depth 1, 1 statement, 0 parameters}}
  affine.for %i = 0 to 10 {
    %a = affine.load %A[%i] : memref<10xf64>
    affine.store %a, %A[%i] : memref<10xf64>
  }
  return
}
