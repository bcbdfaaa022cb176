//===- shim.cpp - The C++ side of polyrs' MLIR integration ----------------===//
//
// The MLIR C API has no call to register a pass by name with options, no call
// to emit a remark or a note, no side-effect query and no mlir-opt main. This
// file supplies exactly those, as `extern "C"` functions that the Rust module
// `src/ffi.rs` wraps once each. Everything else goes through melior.
//
// Passes: one C++ class, `RustPass`, stands for every polyrs pass. Its
// identity (argument, summary, anchor op, options) comes from a descriptor that
// Rust generates from passes/Passes.td; running it calls back into Rust with
// the anchor operation and the option values in `name=value` lines.
//
// The JIT: `mlirExecutionEngineCreate` runs LLVM's pipeline and nothing
// after it; `polyrsExecutionEngineCreate` is the same engine with a callback
// into Rust on the optimized LLVM module (the lowering stages that must see
// vectorized code, src/lower/minmax.rs).
//
//===----------------------------------------------------------------------===//

#include "mlir-c/IR.h"
#include "mlir-c/RegisterEverything.h"
#include "mlir/CAPI/IR.h"
#include "mlir/Dialect/Affine/Analysis/LoopAnalysis.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Operation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir-c/ExecutionEngine.h"
#include "mlir/CAPI/ExecutionEngine.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"

#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/TargetSelect.h"

#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <string>
#include <vector>

extern "C" {

/// Option value kinds; must match `OptionKind` in src/ffi.rs.
enum PolyrsOptionKind : int32_t {
  POLYRS_OPT_BOOL = 0,
  POLYRS_OPT_INT = 1,
  POLYRS_OPT_UINT = 2,
  POLYRS_OPT_STRING = 3,
  POLYRS_OPT_INT_LIST = 4,
};

/// One pass option; must match `CPassOption` in src/ffi.rs.
struct PolyrsPassOption {
  const char *argument;
  const char *help;
  int32_t kind;
  const char *defaultValue; // textual; empty = none
};

/// Runs a pass: returns true on success. `options` holds `name=value` lines.
typedef bool (*PolyrsRunFn)(size_t passIndex, MlirOperation op,
                            const char *options);

/// Checks option values once they are parsed: returns null when they are
/// valid, else a message (owned by Rust, valid until the next call).
typedef const char *(*PolyrsValidateFn)(size_t passIndex, const char *options);

/// The two entry points into Rust; must match `Callbacks` in src/ffi.
struct PolyrsCallbacks {
  PolyrsRunFn run;
  PolyrsValidateFn validate;
};

/// One pass; must match `CPassInfo` in src/ffi.rs.
struct PolyrsPassInfo {
  const char *argument;
  const char *name;
  const char *summary;
  const char *opName; // empty = any operation
  const PolyrsPassOption *options;
  size_t numOptions;
};

} // extern "C"

namespace {

using namespace mlir;

class RustPass : public Pass {
public:
  RustPass(const PolyrsPassInfo *info, size_t index, PolyrsCallbacks cb)
      : Pass(TypeID::getFromOpaquePointer(info),
             info->opName[0] ? std::optional<StringRef>(info->opName)
                             : std::nullopt),
        info(info), index(index), cb(cb) {
    for (size_t i = 0; i < info->numOptions; ++i)
      declareOption(info->options[i]);
  }

  StringRef getName() const override { return info->name; }
  StringRef getArgument() const override { return info->argument; }
  StringRef getDescription() const override { return info->summary; }

  void getDependentDialects(DialectRegistry &registry) const override {
    // Dialects the polyrs passes create ops in: affine (the new loops) and
    // memref (buffers of privatized temporaries), and llvm, whose
    // `llvm.noalias` argument attribute poly-opt{noalias} parses (the
    // parser loads the dialect of a prefixed attribute name): loaded before
    // the pass runs, never while other threads run it on other functions.
    // gpu, scf and arith: poly-opt{target=gpu}'s launches, their guards
    // and grid sizes. vector: rows' reductions in vector lanes
    // (poly-opt{row-blocks}).
    registry.insert<affine::AffineDialect, memref::MemRefDialect,
                    LLVM::LLVMDialect, gpu::GPUDialect, scf::SCFDialect,
                    arith::ArithDialect, vector::VectorDialect>();
  }

protected:
  bool canScheduleOn(RegisteredOperationName opName) const override {
    if (!info->opName[0])
      return true;
    return opName.getStringRef() == info->opName;
  }

  std::unique_ptr<Pass> clonePass() const override {
    return std::make_unique<RustPass>(info, index, cb);
  }

  LogicalResult initializeOptions(
      StringRef options,
      function_ref<LogicalResult(const Twine &)> errorHandler) override {
    if (failed(Pass::initializeOptions(options, errorHandler)))
      return failure();
    std::string text = optionsText();
    if (const char *error = cb.validate(index, text.c_str()))
      return errorHandler(Twine(info->argument) + ": " + error);
    return success();
  }

  void runOnOperation() override {
    std::string text = optionsText();
    if (!cb.run(index, wrap(getOperation()), text.c_str()))
      signalPassFailure();
  }

private:
  std::string optionsText() const {
    std::string text;
    llvm::raw_string_ostream os(text);
    for (const Slot &slot : slots) {
      os << slot.argument << "=";
      switch (slot.kind) {
      case POLYRS_OPT_BOOL:
        os << (bools[slot.index]->getValue() ? "true" : "false");
        break;
      case POLYRS_OPT_INT:
        os << ints[slot.index]->getValue();
        break;
      case POLYRS_OPT_UINT:
        os << uints[slot.index]->getValue();
        break;
      case POLYRS_OPT_STRING:
        os << strings[slot.index]->getValue();
        break;
      case POLYRS_OPT_INT_LIST: {
        bool first = true;
        for (int64_t v : *lists[slot.index]) {
          if (!first)
            os << ",";
          os << v;
          first = false;
        }
        break;
      }
      }
      os << "\n";
    }
    os.flush();
    return text;
  }

  struct Slot {
    const char *argument;
    int32_t kind;
    size_t index;
  };

  void declareOption(const PolyrsPassOption &opt) {
    llvm::StringRef def = opt.defaultValue;
    auto desc = llvm::cl::desc(opt.help);
    switch (opt.kind) {
    case POLYRS_OPT_BOOL:
      slots.push_back({opt.argument, opt.kind, bools.size()});
      bools.push_back(std::make_unique<Option<bool>>(
          *this, opt.argument, desc, llvm::cl::init(def == "true")));
      break;
    case POLYRS_OPT_INT: {
      int64_t v = 0;
      (void)def.getAsInteger(10, v);
      slots.push_back({opt.argument, opt.kind, ints.size()});
      ints.push_back(std::make_unique<Option<int64_t>>(
          *this, opt.argument, desc, llvm::cl::init(v)));
      break;
    }
    case POLYRS_OPT_UINT: {
      uint64_t v = 0;
      (void)def.getAsInteger(10, v);
      slots.push_back({opt.argument, opt.kind, uints.size()});
      uints.push_back(std::make_unique<Option<uint64_t>>(
          *this, opt.argument, desc, llvm::cl::init(v)));
      break;
    }
    case POLYRS_OPT_STRING:
      slots.push_back({opt.argument, opt.kind, strings.size()});
      strings.push_back(std::make_unique<Option<std::string>>(
          *this, opt.argument, desc, llvm::cl::init(def.str())));
      break;
    case POLYRS_OPT_INT_LIST:
      slots.push_back({opt.argument, opt.kind, lists.size()});
      lists.push_back(
          std::make_unique<ListOption<int64_t>>(*this, opt.argument, desc));
      break;
    }
  }

  const PolyrsPassInfo *info;
  size_t index;
  PolyrsCallbacks cb;
  std::vector<Slot> slots;
  std::vector<std::unique_ptr<Option<bool>>> bools;
  std::vector<std::unique_ptr<Option<int64_t>>> ints;
  std::vector<std::unique_ptr<Option<uint64_t>>> uints;
  std::vector<std::unique_ptr<Option<std::string>>> strings;
  std::vector<std::unique_ptr<ListOption<int64_t>>> lists;
};

} // namespace

extern "C" {

/// Registers every polyrs pass with MLIR's global pass registry.
void polyrsRegisterPasses(const PolyrsPassInfo *passes, size_t numPasses,
                          PolyrsCallbacks cb) {
  for (size_t i = 0; i < numPasses; ++i) {
    const PolyrsPassInfo *info = &passes[i];
    mlir::registerPass([info, i, cb]() -> std::unique_ptr<mlir::Pass> {
      return std::make_unique<RustPass>(info, i, cb);
    });
  }
}

/// Emits a diagnostic (0 error, 1 warning, 2 remark) at `loc`, with an
/// optional note (`note` may be null) at `noteLoc`.
void polyrsEmitDiagnostic(MlirLocation loc, int32_t severity,
                          const char *message, MlirLocation noteLoc,
                          const char *note) {
  mlir::Location l = unwrap(loc);
  mlir::InFlightDiagnostic diag = severity == 0   ? mlir::emitError(l)
                                  : severity == 1 ? mlir::emitWarning(l)
                                                  : mlir::emitRemark(l);
  diag << message;
  if (note)
    diag.attachNote(unwrap(noteLoc)) << note;
}

/// True when `op` (and everything nested in it) has no memory effects.
bool polyrsIsMemoryEffectFree(MlirOperation op) {
  return mlir::isMemoryEffectFree(unwrap(op));
}

/// The mlir-opt main loop with every upstream dialect, extension and pass
/// registered beside the polyrs passes.
int polyrsOptMain(int argc, char **argv, const PolyrsPassInfo *passes,
                  size_t numPasses, PolyrsCallbacks cb) {
  mlir::DialectRegistry registry;
  mlirRegisterAllDialects(wrap(&registry));
  mlirRegisterAllPasses();
  polyrsRegisterPasses(passes, numPasses, cb);
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv,
      "polyrs-opt: polyhedral loop optimizer for MLIR (upstream passes and "
      "polyrs passes)\n",
      registry));
}

/// Marks every function with a body `llvm.emit_c_interface`, so that lowering
/// adds a `_mlir_ciface_<name>` entry point callable from C.
void polyrsSetCInterface(MlirOperation module) {
  mlir::Operation *op = unwrap(module);
  op->walk([](mlir::func::FuncOp f) {
    if (!f.isExternal())
      f->setAttr("llvm.emit_c_interface", mlir::UnitAttr::get(f.getContext()));
  });
}

/// The CPU lowering keeps the `llvm.loop_annotation` of `affine.for` loops
/// (poly-opt's loops that LLVM must not vectorize) through three steps:
/// `lower-affine` drops the attributes of the loops it rewrites but keeps
/// their locations, so stage 0 (before it) moves each annotation into its
/// loop's location (a fused location with the annotation as metadata);
/// stage 1 (after it) puts it back on the `scf.for` there, which
/// `convert-scf-to-cf` copies onto the loop's back edge, a `cf.br`, and
/// the conversion to the LLVM dialect onto the `llvm.br` as a plain
/// attribute; stage 2 (at the end) makes it the branch's own
/// `loop_annotation`, which the translation to LLVM IR turns into
/// `!llvm.loop` metadata.
void polyrsCarryLoopAnnotations(MlirOperation module, int stage) {
  constexpr llvm::StringLiteral name = "llvm.loop_annotation";
  mlir::Operation *root = unwrap(module);
  if (stage == 0) {
    root->walk([&](mlir::affine::AffineForOp f) {
      auto a = f->getAttrOfType<mlir::LLVM::LoopAnnotationAttr>(name);
      if (!a)
        return;
      f->setLoc(mlir::FusedLoc::get(f->getContext(), {f->getLoc()}, a));
      f->removeAttr(name);
    });
  } else if (stage == 1) {
    root->walk([&](mlir::scf::ForOp f) {
      auto fused = llvm::dyn_cast<mlir::FusedLoc>(f->getLoc());
      if (!fused)
        return;
      auto a = llvm::dyn_cast_or_null<mlir::LLVM::LoopAnnotationAttr>(
          fused.getMetadata());
      if (!a)
        return;
      f->setAttr(name, a);
      // The loop's own location: stage 0 fused it alone (an unknown one
      // leaves no location at all).
      auto locs = fused.getLocations();
      f->setLoc(locs.empty() ? mlir::Location(mlir::UnknownLoc::get(f->getContext()))
                             : mlir::FusedLoc::get(f->getContext(), locs));
    });
  } else {
    root->walk([&](mlir::Operation *op) {
      auto a = op->getAttrOfType<mlir::LLVM::LoopAnnotationAttr>(name);
      if (!a)
        return;
      if (auto br = llvm::dyn_cast<mlir::LLVM::BrOp>(op))
        br.setLoopAnnotationAttr(a);
      else if (auto cbr = llvm::dyn_cast<mlir::LLVM::CondBrOp>(op))
        cbr.setLoopAnnotationAttr(a);
      else
        return;
      op->removeAttr(name);
    });
  }
}

/// Surrounds every `func.call @callee` in `module` with calls to the
/// argument-less functions `start` and `stop` (declared private at the top of
/// the module). Returns the number of call sites instrumented.
size_t polyrsInstrumentCalls(MlirOperation module, const char *callee,
                             const char *start, const char *stop) {
  auto mod = llvm::dyn_cast<mlir::ModuleOp>(unwrap(module));
  if (!mod)
    return 0;
  mlir::MLIRContext *ctx = mod.getContext();
  mlir::OpBuilder b(ctx);
  auto fnType = b.getFunctionType({}, {});
  for (const char *name : {start, stop}) {
    if (mod.lookupSymbol(name))
      continue;
    b.setInsertionPointToStart(mod.getBody());
    auto decl = b.create<mlir::func::FuncOp>(mod.getLoc(), name, fnType);
    decl.setPrivate();
  }
  llvm::SmallVector<mlir::func::CallOp> calls;
  mod.walk([&](mlir::func::CallOp call) {
    if (call.getCallee() == callee)
      calls.push_back(call);
  });
  for (mlir::func::CallOp call : calls) {
    b.setInsertionPoint(call);
    b.create<mlir::func::CallOp>(call.getLoc(), start, mlir::TypeRange{});
    b.setInsertionPointAfter(call);
    b.create<mlir::func::CallOp>(call.getLoc(), stop, mlir::TypeRange{});
  }
  return calls.size();
}

/// True when `v` may be used as a symbol of an affine map (a function
/// argument, a value defined at the top level of the enclosing affine scope,
/// a constant, …): `mlir::affine::isValidSymbol`.
bool polyrsIsValidSymbol(MlirValue v) {
  return mlir::affine::isValidSymbol(unwrap(v));
}

} // extern "C"

namespace {
/// Records the constant operations a rewrite creates and the roots it has
/// not erased (see polyrsSimplifyAffine).
struct PolyrsNewConstants : mlir::RewriterBase::Listener {
  llvm::SmallPtrSet<mlir::Operation *, 16> ops;
  llvm::SmallPtrSet<mlir::Operation *, 16> roots;
  void notifyOperationInserted(mlir::Operation *op,
                               mlir::OpBuilder::InsertPoint) override {
    if (op->hasTrait<mlir::OpTrait::ConstantLike>())
      ops.insert(op);
  }
  void notifyOperationErased(mlir::Operation *op) override {
    ops.erase(op);
    roots.erase(op);
  }
};
} // namespace

extern "C" {

/// Simplifies the given operations and everything nested in them with the
/// affine dialect's canonicalization patterns: `affine.apply` results fold
/// into the maps of loads, stores, bounds and other applies, constant
/// applies fold, single-iteration loops are promoted, dead applies
/// disappear. Operations outside the list are not touched. Roots may be
/// erased (a promoted loop, a folded apply): the surviving ones are moved to
/// the front of `roots`, in order, and their number returned.
size_t polyrsSimplifyAffine(MlirOperation *roots, size_t n) {
  if (n == 0)
    return 0;
  mlir::MLIRContext *ctx = unwrap(roots[0])->getContext();
  mlir::RewritePatternSet patterns(ctx);
  mlir::affine::AffineApplyOp::getCanonicalizationPatterns(patterns, ctx);
  mlir::affine::AffineLoadOp::getCanonicalizationPatterns(patterns, ctx);
  mlir::affine::AffineStoreOp::getCanonicalizationPatterns(patterns, ctx);
  mlir::affine::AffineForOp::getCanonicalizationPatterns(patterns, ctx);
  mlir::affine::AffineIfOp::getCanonicalizationPatterns(patterns, ctx);
  mlir::affine::AffineParallelOp::getCanonicalizationPatterns(patterns, ctx);
  mlir::affine::AffineMinOp::getCanonicalizationPatterns(patterns, ctx);
  mlir::affine::AffineMaxOp::getCanonicalizationPatterns(patterns, ctx);
  mlir::FrozenRewritePatternSet frozen(std::move(patterns));
  // Two rounds: the operations without regions first (applies fold into
  // loads, stores and other applies), then everything inside the root
  // loops and conditionals again (bounds, single-iteration loops; little
  // is left to rewrite in the rest). One round over everything gives the
  // same result, but the driver re-checks every enclosing loop for
  // deadness after each rewrite inside it, which dominated the pass on
  // unrolled register tiles (3mm: 0.35 s -> 0.07 s). The first round may
  // erase roots without regions, so only roots with regions (which it
  // cannot touch) are walked again.
  llvm::SmallVector<mlir::Operation *> leaves, regionRoots;
  for (size_t i = 0; i < n; ++i) {
    mlir::Operation *root = unwrap(roots[i]);
    if (root->getNumRegions() != 0)
      regionRoots.push_back(root);
    root->walk([&](mlir::Operation *o) {
      if (o->getNumRegions() == 0)
        leaves.push_back(o);
    });
  }
  // Folded constants go to the entry block of the enclosing isolated
  // region; the ones the second round leaves unused are erased below. The
  // listener records the constants the rounds create (and forgets erased
  // operations): a set of the entry block's operation addresses taken
  // before was wrong when an erased operation's memory was reused for a new
  // constant (that constant then stayed: output depending on the allocator).
  PolyrsNewConstants created;
  for (size_t i = 0; i < n; ++i)
    created.roots.insert(unwrap(roots[i]));
  mlir::Operation *scope =
      unwrap(roots[0])->getParentWithTrait<mlir::OpTrait::IsIsolatedFromAbove>();
  mlir::Block *entry = nullptr;
  if (scope && scope->getNumRegions() != 0 && !scope->getRegion(0).empty())
    entry = &scope->getRegion(0).front();
  mlir::GreedyRewriteConfig config;
  config.setStrictness(mlir::GreedyRewriteStrictness::ExistingAndNewOps);
  config.setListener(&created);
  (void)mlir::applyOpPatternsGreedily(leaves, frozen, config);
  llvm::SmallVector<mlir::Operation *> ops;
  for (mlir::Operation *root : regionRoots)
    root->walk([&](mlir::Operation *o) { ops.push_back(o); });
  (void)mlir::applyOpPatternsGreedily(ops, frozen, config);
  // A loop of no iteration (constant bounds, the lower at or past the
  // upper: the folds can leave one, `for 1 to 1`) goes, its results its
  // initial values. Inside one, the patterns may have simplified a nested
  // loop's bounds against the empty range of its induction variable into
  // a map without results, which the verifier rejects (fuzz mixed 119784);
  // and it runs nothing.
  llvm::SmallVector<mlir::affine::AffineForOp> empty;
  for (mlir::Operation *root : regionRoots)
    if (created.roots.contains(root))
      root->walk<mlir::WalkOrder::PreOrder>(
          [&](mlir::affine::AffineForOp loop) -> mlir::WalkResult {
            std::optional<uint64_t> trips = mlir::affine::getConstantTripCount(loop);
            if (trips && *trips == 0) {
              empty.push_back(loop);
              return mlir::WalkResult::skip();
            }
            return mlir::WalkResult::advance();
          });
  mlir::IRRewriter rewriter(ctx, &created);
  for (mlir::affine::AffineForOp loop : empty)
    rewriter.replaceOp(loop, loop.getInits());
  if (entry)
    for (mlir::Operation &o : llvm::make_early_inc_range(*entry))
      if (created.ops.contains(&o) && o.use_empty())
        o.erase();
  size_t kept = 0;
  for (size_t i = 0; i < n; ++i)
    if (created.roots.contains(unwrap(roots[i])))
      roots[kept++] = roots[i];
  return kept;
}

/// Called on the optimized LLVM module before machine code is generated.
typedef void (*PolyrsLlvmModuleFn)(LLVMModuleRef module, void *data);

/// `mlirExecutionEngineCreate` (MLIR 22's C API, not position independent,
/// no object dump) with `post` called on the LLVM module after the
/// `optLevel` pipeline; `post` may be null. A null engine on failure.
MlirExecutionEngine polyrsExecutionEngineCreate(MlirModule op, int optLevel,
                                                int numPaths,
                                                const MlirStringRef *libPaths,
                                                PolyrsLlvmModuleFn post,
                                                void *data) {
  static bool initOnce = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmParser();
    llvm::InitializeNativeTargetAsmPrinter();
    return true;
  }();
  (void)initOnce;
  mlir::MLIRContext &ctx = *unwrap(op)->getContext();
  mlir::registerBuiltinDialectTranslation(ctx);
  mlir::registerLLVMDialectTranslation(ctx);
  mlir::registerOpenMPDialectTranslation(ctx);
  auto tmBuilder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!tmBuilder) {
    llvm::consumeError(tmBuilder.takeError());
    return MlirExecutionEngine{nullptr};
  }
  auto tm = tmBuilder->createTargetMachine();
  if (!tm) {
    llvm::consumeError(tm.takeError());
    return MlirExecutionEngine{nullptr};
  }
  llvm::SmallVector<llvm::StringRef> paths;
  for (int i = 0; i < numPaths; ++i)
    paths.push_back(llvm::StringRef(libPaths[i].data, libPaths[i].length));
  auto optimize = mlir::makeOptimizingTransformer(optLevel, /*sizeLevel=*/0,
                                                  tm->get());
  auto transform = [&](llvm::Module *m) -> llvm::Error {
    if (llvm::Error e = optimize(m))
      return e;
    if (post)
      post(llvm::wrap(m), data);
    return llvm::Error::success();
  };
  mlir::ExecutionEngineOptions options;
  options.transformer = transform;
  options.jitCodeGenOptLevel = static_cast<llvm::CodeGenOptLevel>(optLevel);
  options.sharedLibPaths = paths;
  auto engine =
      mlir::ExecutionEngine::create(unwrap(op), options, std::move(tm.get()));
  if (!engine) {
    llvm::consumeError(engine.takeError());
    return MlirExecutionEngine{nullptr};
  }
  return wrap(engine->release());
}

} // extern "C"
