"""The ML operator suite: operators written as linalg on memrefs (named ops
and `linalg.generic`), at the shapes of ResNet-50, MobileNetV2 and
attention layers, each as a module whose `main` fills the inputs, calls the
operator's function (`@op`, the function `polyrs-runner --time=op` times)
and prints two checksums of the output:

    line 1: sum_k bits(v_k) * (1 + k mod 7)   (exact: any changed bit shows)
    line 2: sum_k v_k * (1 + k mod 7) in f64  (%.17g, for the references)

The inputs are (k * 37 + 11 + seed) mod 97 / 97 - 0.5 over the cells in
row-major order (computed in the element type: the reference reproduces
them bit for bit); the output starts at 0 (-inf for a max pooling).

Each operator also says how to compute it with numpy (the independent
reference) and as an ONNX node (ONNX Runtime's time), for bench/ml/run.py.

    python3 bench/ml/ops.py --out DIR [--scale small|full] [names...]
"""

import argparse
import os

# Each operator: name, element type, inputs [(name, shape)], output shape,
# the linalg text (operands %a0.. for the inputs and %out), FLOPs, and the
# reference/ONNX descriptions (`kind` and its parameters).
OPS = []


def op(name, ty, ins, out, linalg, flops, kind, **params):
    OPS.append(dict(name=name, ty=ty, ins=ins, out=out, linalg=linalg, flops=flops,
                    kind=kind, params=params))


def memref(shape, ty):
    return "memref<%sx%s>" % ("x".join(map(str, shape)), ty)


def windowed(name, ty, linalg_op, ins, out, k, s, flops, kind):
    """An operator over k x k windows with stride s (a convolution or a
    pooling): the named linalg op on the two inputs `ins`."""
    text = ("%s {dilations = dense<1> : tensor<2xi64>, strides = dense<%d> : tensor<2xi64>}\n"
            "    ins(%%a0, %%a1 : %s, %s) outs(%%out : %s)") % (
        linalg_op, s, memref(ins[0][1], ty), memref(ins[1][1], ty), memref(out, ty))
    op(name, ty, ins, out, text, flops, kind, k=k, s=s)


def out_size(h, k, s):
    """A window's positions along a dimension of `h` cells."""
    return (h - k) // s + 1


def conv_nhwc(name, n, h, w, c, f, k, s, ty="f32"):
    """linalg.conv_2d_nhwc_hwcf: input NxHxWxC, filter KxKxCxF, stride s."""
    oh, ow = out_size(h, k, s), out_size(w, k, s)
    windowed(name, ty, "linalg.conv_2d_nhwc_hwcf", [("I", [n, h, w, c]), ("F", [k, k, c, f])],
             [n, oh, ow, f], k, s, 2 * n * oh * ow * f * k * k * c, "conv_nhwc")


def conv_nchw(name, n, c, h, w, f, k, s, ty="f32"):
    """linalg.conv_2d_nchw_fchw: input NxCxHxW, filter FxCxKxK."""
    oh, ow = out_size(h, k, s), out_size(w, k, s)
    windowed(name, ty, "linalg.conv_2d_nchw_fchw", [("I", [n, c, h, w]), ("F", [f, c, k, k])],
             [n, f, oh, ow], k, s, 2 * n * oh * ow * f * k * k * c, "conv_nchw")


def depthwise(name, n, h, w, c, k, s, ty="f32"):
    """linalg.depthwise_conv_2d_nhwc_hwc."""
    oh, ow = out_size(h, k, s), out_size(w, k, s)
    windowed(name, ty, "linalg.depthwise_conv_2d_nhwc_hwc", [("I", [n, h, w, c]), ("F", [k, k, c])],
             [n, oh, ow, c], k, s, 2 * n * oh * ow * c * k * k, "depthwise")


def pool(name, kind, n, h, w, c, k, s, ty="f32"):
    """linalg.pooling_nhwc_max / _sum (the sum: an average before its
    division); the second input is the window's shape."""
    oh, ow = out_size(h, k, s), out_size(w, k, s)
    windowed(name, ty, "linalg.pooling_nhwc_" + kind, [("I", [n, h, w, c]), ("K", [k, k])],
             [n, oh, ow, c], k, s, n * oh * ow * c * k * k, "pool_" + kind)


def generic(name, ty, ins, out, maps, iters, flops, einsum):
    """A contraction as linalg.generic: out += a0 * a1 (`maps`: the affine
    maps of a0, a1, out over the iterators `iters`, 'p' parallel, 'r'
    reduction)."""
    names = "".join(chr(ord("a") + i) for i in range(len(iters)))
    amaps = ", ".join("affine_map<(%s) -> (%s)>" % (", ".join(names), ", ".join(m)) for m in maps)
    kinds = ", ".join('"%s"' % ("parallel" if t == "p" else "reduction") for t in iters)
    tys = [memref(s, ty) for _, s in ins]
    text = ("linalg.generic {indexing_maps = [%s], iterator_types = [%s]}\n"
            "    ins(%%a0, %%a1 : %s, %s) outs(%%out : %s) {\n"
            "  ^bb0(%%x: %s, %%y: %s, %%z: %s):\n"
            "    %%m = arith.mulf %%x, %%y : %s\n"
            "    %%s = arith.addf %%z, %%m : %s\n"
            "    linalg.yield %%s : %s\n"
            "  }") % (amaps, kinds, tys[0], tys[1], memref(out, ty), ty, ty, ty, ty, ty, ty)
    op(name, ty, ins, out, text, flops, "einsum", einsum=einsum)


def contraction(name, einsum, extents, ty="f32"):
    """The contraction `einsum` (`"acd,dbc->ab"`: two operands, the
    iterators the letters a, b, ... in order, those of the output parallel)
    as linalg.generic, each index's extent from `extents`."""
    ins, out = einsum.split("->")
    a, b = ins.split(",")
    letters = sorted(set(a + b + out))
    iters = "".join("p" if x in out else "r" for x in letters)
    flops = 2
    for x in letters:
        flops *= extents[x]
    shape = lambda term: [extents[x] for x in term]
    generic(name, ty, [("A", shape(a)), ("B", shape(b))], shape(out),
            [list(a), list(b), list(out)], iters, flops, einsum)


def matmul(name, m, n, k, ty="f32"):
    ins = [("A", [m, k]), ("B", [k, n])]
    text = "linalg.matmul ins(%%a0, %%a1 : %s, %s) outs(%%out : %s)" % (
        memref([m, k], ty), memref([k, n], ty), memref([m, n], ty))
    op(name, ty, ins, [m, n], text, 2 * m * n * k, "einsum", einsum="mk,kn->mn")


def batch_matmul(name, b, m, n, k, ty="f32"):
    ins = [("A", [b, m, k]), ("B", [b, k, n])]
    text = "linalg.batch_matmul ins(%%a0, %%a1 : %s, %s) outs(%%out : %s)" % (
        memref([b, m, k], ty), memref([b, k, n], ty), memref([b, m, n], ty))
    op(name, ty, ins, [b, m, n], text, 2 * b * m * n * k, "einsum", einsum="bmk,bkn->bmn")


def filled(name):
    """The operator `name` (added before) as front ends give it from
    tensors: its output zeroed inside the function first (`linalg.fill`,
    what bufferization leaves of `tensor.empty` + `linalg.fill`), then the
    operator. Same reference: the output starts at zero in `main` too."""
    o = next(x for x in OPS if x["name"] == name)
    ty = o["ty"]
    text = ("%%zero = arith.constant 0.0 : %s\n"
            "linalg.fill ins(%%zero : %s) outs(%%out : %s)\n") % (ty, ty, memref(o["out"], ty))
    OPS.append(dict(o, name=name + "_fill", linalg=text + o["linalg"]))


def suite(scale):
    """The operators at `scale`: `full` (the layers' shapes) or `small`
    (the same operators, a few hundred thousand FLOPs each, for tests)."""
    OPS.clear()
    if scale == "full":
        conv_nhwc("conv3x3_nhwc", 1, 58, 58, 64, 64, 3, 1)
        conv_nhwc("conv1x1_nhwc", 1, 56, 56, 64, 256, 1, 1)
        conv_nhwc("conv7x7s2_nhwc", 1, 229, 229, 3, 64, 7, 2)
        conv_nchw("conv3x3_nchw", 1, 64, 58, 58, 64, 3, 1)
        depthwise("dw3x3_nhwc", 1, 114, 114, 32, 3, 1)
        depthwise("dw3x3s2_nhwc", 1, 113, 113, 96, 3, 2)
        batch_matmul("bmm_qk", 16, 256, 256, 64)
        batch_matmul("bmm_pv", 16, 256, 64, 256)
        matmul("matmul_512", 512, 512, 512)
        contraction("matmul_bt", "ac,bc->ab", dict(a=512, b=512, c=512))
        contraction("tc_ab_acd_dbc", "acd,dbc->ab", dict(a=64, b=64, c=32, d=32))
        contraction("tc_abcd_aebf_fdec", "aebf,fdec->abcd", dict(a=24, b=24, c=24, d=24, e=16, f=16))
        pool("maxpool3x3s2", "max", 1, 113, 113, 64, 3, 2)
        pool("sumpool2x2s2", "sum", 1, 56, 56, 256, 2, 2)
        matmul("matmul_512_f64", 512, 512, 512, "f64")
        conv_nhwc("conv3x3_nhwc_f64", 1, 30, 30, 64, 64, 3, 1, "f64")
        for name in ("conv3x3_nhwc", "conv3x3_nchw", "bmm_pv", "tc_abcd_aebf_fdec"):
            filled(name)
    else:
        conv_nhwc("conv3x3_nhwc", 1, 10, 10, 8, 16, 3, 1)
        conv_nhwc("conv1x1_nhwc", 1, 8, 8, 16, 32, 1, 1)
        conv_nhwc("conv7x7s2_nhwc", 1, 21, 21, 3, 8, 7, 2)
        conv_nchw("conv3x3_nchw", 1, 8, 10, 10, 16, 3, 1)
        depthwise("dw3x3_nhwc", 1, 18, 18, 16, 3, 1)
        depthwise("dw3x3s2_nhwc", 1, 17, 17, 16, 3, 2)
        batch_matmul("bmm_qk", 4, 16, 16, 8)
        matmul("matmul_48", 48, 40, 32)
        contraction("matmul_bt", "ac,bc->ab", dict(a=24, b=40, c=32))
        contraction("tc_ab_acd_dbc", "acd,dbc->ab", dict(a=12, b=10, c=6, d=5))
        contraction("tc_abcd_aebf_fdec", "aebf,fdec->abcd", dict(a=12, b=12, c=12, d=12, e=4, f=4))
        pool("maxpool3x3s2", "max", 1, 17, 17, 8, 3, 2)
        pool("sumpool2x2s2", "sum", 1, 16, 16, 8, 2, 2)
        matmul("matmul_24_f64", 24, 20, 16, "f64")
        for name in ("conv3x3_nhwc", "tc_abcd_aebf_fdec"):
            filled(name)
    return list(OPS)


def fill(ty, var, shape, seed, lines):
    """scf loops filling `var` (a memref of `shape`) with the inputs' values."""
    size = 1
    for d in shape:
        size *= d
    flat = "%%flat_%s" % var[1:]
    lines += [
        "    %s = memref.reinterpret_cast %s to offset: [0], sizes: [%d], strides: [1] : %s to memref<%dx%s>"
        % (flat, var, size, memref(shape, ty), size, ty),
        "    %%n_%s = arith.constant %d : index" % (var[1:], size),
        "    scf.for %%k = %%c0 to %%n_%s step %%c1 {" % var[1:],
        "      %ki = arith.index_cast %k : index to i64",
        "      %km = arith.muli %ki, %c37 : i64",
        "      %%seed = arith.constant %d : i64" % (11 + seed),
        "      %ka = arith.addi %km, %seed : i64",
        "      %kr = arith.remui %ka, %c97 : i64",
        "      %%kf = arith.uitofp %%kr : i64 to %s" % ty,
        "      %%n97 = arith.constant 97.0 : %s" % ty,
        "      %%kd = arith.divf %%kf, %%n97 : %s" % ty,
        "      %%half = arith.constant 0.5 : %s" % ty,
        "      %%kv = arith.subf %%kd, %%half : %s" % ty,
        "      memref.store %%kv, %s[%%k] : memref<%dx%s>" % (flat, size, ty),
        "    }",
    ]


def module(o):
    """The MLIR module of operator `o`."""
    ty = o["ty"]
    ins, out = o["ins"], o["out"]
    args = ", ".join("%%a%d: %s" % (i, memref(s, ty)) for i, (_, s) in enumerate(ins))
    out_t = memref(out, ty)
    size = 1
    for d in out:
        size *= d
    bits = "i32" if ty == "f32" else "i64"
    lines = [
        "module {",
        '  llvm.mlir.global internal constant @fmt_f("%.17g\\0A\\00") {addr_space = 0 : i32}',
        '  llvm.mlir.global internal constant @fmt_i("%lld\\0A\\00") {addr_space = 0 : i32}',
        "  llvm.func @printf(!llvm.ptr, ...) -> i32",
        "  func.func @op(%s, %%out: %s) {" % (args, out_t),
        "    " + o["linalg"].replace("\n", "\n    "),
        "    return",
        "  }",
        "  func.func @main() {",
        "    %c0 = arith.constant 0 : index",
        "    %c1 = arith.constant 1 : index",
        "    %c37 = arith.constant 37 : i64",
        "    %c97 = arith.constant 97 : i64",
        "    %c7 = arith.constant 7 : index",
    ]
    names = []
    for i, (_, s) in enumerate(ins):
        v = "%%in%d" % i
        names.append(v)
        lines.append("    %s = memref.alloc() {alignment = 64 : i64} : %s" % (v, memref(s, ty)))
        fill(ty, v, s, 3 * i, lines)
    init = "0xFF800000" if (o["kind"] == "pool_max" and ty == "f32") else (
        "0xFFF0000000000000" if o["kind"] == "pool_max" else "0.0")
    lines += [
        "    %%o = memref.alloc() {alignment = 64 : i64} : %s" % out_t,
        "    %%flat_o = memref.reinterpret_cast %%o to offset: [0], sizes: [%d], strides: [1] : %s to memref<%dx%s>"
        % (size, out_t, size, ty),
        "    %%n_o = arith.constant %d : index" % size,
        "    %%init = arith.constant %s : %s" % (init, ty),
        "    scf.for %k = %c0 to %n_o step %c1 {",
        "      memref.store %%init, %%flat_o[%%k] : memref<%dx%s>" % (size, ty),
        "    }",
        "    call @op(%s, %%o) : (%s, %s) -> ()" % (
            ", ".join(names), ", ".join(memref(s, ty) for _, s in ins), out_t),
        "    %zi = arith.constant 0 : i64",
        "    %zf = arith.constant 0.0 : f64",
        "    %sums:2 = scf.for %k = %c0 to %n_o step %c1 iter_args(%si = %zi, %sf = %zf) -> (i64, f64) {",
        "      %%v = memref.load %%flat_o[%%k] : memref<%dx%s>" % (size, ty),
        "      %%b = arith.bitcast %%v : %s to %s" % (ty, bits),
        ("      %b64 = arith.extui %b : i32 to i64" if bits == "i32" else "      %b64 = arith.addi %b, %zi : i64"),
        "      %km = arith.remui %k, %c7 : index",
        "      %kw = arith.addi %km, %c1 : index",
        "      %wi = arith.index_cast %kw : index to i64",
        "      %p = arith.muli %b64, %wi : i64",
        "      %si2 = arith.addi %si, %p : i64",
        ("      %vf = arith.extf %v : f32 to f64" if ty == "f32" else "      %vf = arith.addf %v, %zf : f64"),
        "      %wf = arith.sitofp %wi : i64 to f64",
        "      %pf = arith.mulf %vf, %wf : f64",
        "      %sf2 = arith.addf %sf, %pf : f64",
        "      scf.yield %si2, %sf2 : i64, f64",
        "    }",
        "    %fi = llvm.mlir.addressof @fmt_i : !llvm.ptr",
        "    %pi = llvm.call @printf(%fi, %sums#0) vararg(!llvm.func<i32 (ptr, ...)>) : (!llvm.ptr, i64) -> i32",
        "    %ff = llvm.mlir.addressof @fmt_f : !llvm.ptr",
        "    %pf2 = llvm.call @printf(%ff, %sums#1) vararg(!llvm.func<i32 (ptr, ...)>) : (!llvm.ptr, f64) -> i32",
    ]
    for v in names + ["%o"]:
        lines.append("    memref.dealloc %s : %s" % (v, out_t if v == "%o" else memref(ins[names.index(v)][1], ty)))
    lines += ["    return", "  }", "}", ""]
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--scale", choices=["small", "full"], default="full")
    ap.add_argument("names", nargs="*")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for o in suite(args.scale):
        if args.names and o["name"] not in args.names:
            continue
        with open(os.path.join(args.out, o["name"] + ".mlir"), "w") as f:
            f.write(module(o))
        print(o["name"])


if __name__ == "__main__":
    main()
