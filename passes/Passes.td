//===- Passes.td - polyrs pass definitions ------------------*- tablegen -*-===//
//
// The single source of pass names, summaries, descriptions and options.
// build.rs reads this file and generates the Rust registry (src/passes/mod.rs
// includes it), which the polyrs-opt driver, the mlir-opt plugin and
// docs/passes.md all use. A pass `poly-foo-bar` is implemented by
// `src/passes/foo_bar.rs`, which exports
// `pub fn run(op: OperationRef, options: &FooBarOptions) -> Result<(), PassError>`.
//
// Supported option types: bool, int/int64_t, unsigned/uint64_t, std::string,
// and ListOption of int64_t.
//
//===----------------------------------------------------------------------===//

include "mlir/Pass/PassBase.td"

def DetectScops : Pass<"poly-detect-scops", "func::FuncOp"> {
  let summary = "Find the static control parts (SCoPs) of each function";
  let description = [{
    Finds the maximal static control parts of each function: sequences of
    `affine.for` / `affine.if` / `affine.parallel` nests whose bounds,
    conditions and memory accesses are affine functions of the enclosing
    induction variables and of loop-invariant parameters, and whose other
    operations are free of side effects apart from `affine.load`,
    `affine.store` and `memref.load` / `memref.store` with affine indices.

    Emits one remark per SCoP at its first operation (number of loop nests,
    maximal loop depth, statements = stores, parameters) and one remark per
    rejected outermost loop nest naming the operation that breaks it and
    why, with a note at that operation. Nests inside a rejected nest are
    searched for smaller SCoPs. The IR is left unchanged.
  }];
  let options = [
    Option<"minDepth", "min-depth", "unsigned", /*default=*/"1",
           "Smallest loop depth for a region to count as a SCoP">,
    Option<"reportRejected", "report-rejected", "bool", /*default=*/"true",
           "Emit a remark for each loop nest that is not a SCoP">,
  ];
}
