/* mgpu_cuda.c: the mgpu* entry points that MLIR's gpu-to-llvm emits (launch, gpu.alloc/memcpy/dealloc,
 * gpu.host_register), on the CUDA driver API, dlopen'ed at run time. Needs no CUDA header or library to build.
 * Stands in for libmlir_cuda_runtime.so, which Debian's LLVM 22 packages do not ship. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
typedef int CUresult; typedef int CUdevice;
typedef void *CUcontext, *CUmodule, *CUfunction, *CUstream;
typedef unsigned long long CUdeviceptr;
static void *lib;
static CUcontext ctx;
#define FN(ret, name, args) static ret(*p_##name) args;
FN(CUresult, cuInit, (unsigned))
FN(CUresult, cuDeviceGet, (CUdevice *, int))
FN(CUresult, cuDevicePrimaryCtxRetain, (CUcontext *, CUdevice))
FN(CUresult, cuCtxCreate_v2, (CUcontext *, unsigned, CUdevice))
FN(CUresult, cuCtxSetCurrent, (CUcontext))
FN(CUresult, cuModuleLoadData, (CUmodule *, const void *))
FN(CUresult, cuModuleLoadDataEx, (CUmodule *, const void *, unsigned, int *, void **))
FN(CUresult, cuModuleUnload, (CUmodule))
FN(CUresult, cuModuleGetFunction, (CUfunction *, CUmodule, const char *))
FN(CUresult, cuLaunchKernel, (CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream, void **, void **))
FN(CUresult, cuStreamCreate, (CUstream *, unsigned))
FN(CUresult, cuStreamSynchronize, (CUstream))
FN(CUresult, cuStreamDestroy_v2, (CUstream))
FN(CUresult, cuMemAlloc_v2, (CUdeviceptr *, size_t))
FN(CUresult, cuMemAllocManaged, (CUdeviceptr *, size_t, unsigned))
FN(CUresult, cuMemFree_v2, (CUdeviceptr))
FN(CUresult, cuMemcpyAsync, (CUdeviceptr, CUdeviceptr, size_t, CUstream))
FN(CUresult, cuGetErrorName, (CUresult, const char **))
FN(CUresult, cuMemHostRegister_v2, (void *, size_t, unsigned))
FN(CUresult, cuMemHostUnregister, (void *))
FN(CUresult, cuMemcpyHtoDAsync_v2, (CUdeviceptr, const void *, size_t, CUstream))
FN(CUresult, cuMemcpyDtoHAsync_v2, (void *, CUdeviceptr, size_t, CUstream))
typedef void *CUevent;
FN(CUresult, cuEventCreate, (CUevent *, unsigned))
FN(CUresult, cuEventRecord, (CUevent, CUstream))
FN(CUresult, cuEventSynchronize, (CUevent))
FN(CUresult, cuEventElapsedTime, (float *, CUevent, CUevent))
FN(CUresult, cuEventDestroy_v2, (CUevent))
static void check(CUresult r, const char *what) {
  if (r == 0) return;
  const char *name = "?";
  if (p_cuGetErrorName) p_cuGetErrorName(r, &name);
  fprintf(stderr, "mgpu_shim: %s failed: %d %s\n", what, r, name);
  fflush(stdout); _exit(3); /* not exit(): the global dtor would unload the module */
}
/* first name found wins: NVIDIA's libcuda exports the _v2 names */
#define LOAD2(name, alt) if (!(p_##name = (void *)dlsym(lib, #name)) && !(p_##name = (void *)dlsym(lib, #alt))) { fprintf(stderr, "mgpu_shim: no %s in libcuda\n", #name); fflush(stdout); _exit(3); }
#define LOAD(name) if (!(p_##name = (void *)dlsym(lib, #name))) { fprintf(stderr, "mgpu_shim: no %s in libcuda\n", #name); fflush(stdout); _exit(3); }
/* MGPU_TIME=1: each launch and copy is timed with CUDA events (and waited
 * for), and the totals are printed to stderr at exit. */
static int timing = -1;
static double kernel_ms, copy_ms;
static long kernels, copies;
/* Per kernel function, by name: launches and time (MGPU_TIME=1), printed
 * at exit as "mgpu-kernel: NAME LAUNCHES MS" (the kit's run.sh adds up the
 * functions of the PolyBench kernel, named kernel_*, apart from the
 * initialization's). */
static struct { CUfunction f; char name[128]; long n; double ms; } fns[256];
static int nfns;
static void report(void) {
  fprintf(stderr, "mgpu: %ld kernel launches %.3f ms, %ld copies %.3f ms\n", kernels, kernel_ms, copies, copy_ms);
  for (int i = 0; i < nfns; i++)
    if (fns[i].n) fprintf(stderr, "mgpu-kernel: %s %ld %.3f\n", fns[i].name, fns[i].n, fns[i].ms);
}
typedef struct { CUevent a, b; } Timer;
static Timer timer_start(CUstream s);
static double timer_stop(Timer t, CUstream s);
static void init(void) {
  if (lib) return;
  const char *name = getenv("MGPU_LIBCUDA");   /* another driver-API library, for tests */
  if (!(lib = dlopen(name ? name : "libcuda.so.1", RTLD_NOW))) { fprintf(stderr, "mgpu_shim: %s\n", dlerror()); fflush(stdout); _exit(3); }
  LOAD(cuInit) LOAD(cuDeviceGet) LOAD(cuCtxSetCurrent)
  p_cuDevicePrimaryCtxRetain = (void *)dlsym(lib, "cuDevicePrimaryCtxRetain");
  if (!p_cuDevicePrimaryCtxRetain) LOAD2(cuCtxCreate_v2, cuCtxCreate)
  LOAD(cuModuleLoadData) LOAD(cuModuleLoadDataEx) LOAD(cuModuleUnload) LOAD(cuModuleGetFunction)
  LOAD(cuLaunchKernel) LOAD(cuStreamCreate) LOAD(cuStreamSynchronize) LOAD2(cuStreamDestroy_v2, cuStreamDestroy)
  LOAD2(cuMemAlloc_v2, cuMemAlloc) LOAD(cuMemAllocManaged) LOAD2(cuMemFree_v2, cuMemFree) LOAD(cuMemcpyAsync) LOAD(cuGetErrorName) LOAD2(cuMemHostRegister_v2, cuMemHostRegister) LOAD(cuMemHostUnregister)
  LOAD2(cuMemcpyHtoDAsync_v2, cuMemcpyHtoDAsync) LOAD2(cuMemcpyDtoHAsync_v2, cuMemcpyDtoHAsync)
  LOAD(cuEventCreate) LOAD(cuEventRecord) LOAD(cuEventSynchronize) LOAD(cuEventElapsedTime)
  LOAD2(cuEventDestroy_v2, cuEventDestroy)
  CUdevice dev;
  check(p_cuInit(0), "cuInit");
  check(p_cuDeviceGet(&dev, 0), "cuDeviceGet");
  if (p_cuDevicePrimaryCtxRetain) check(p_cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
  else check(p_cuCtxCreate_v2(&ctx, 0, dev), "cuCtxCreate");
  check(p_cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
  const char *t = getenv("MGPU_TIME");
  timing = t && *t && *t != '0';
  if (timing) atexit(report);
}
static Timer timer_start(CUstream s) {
  Timer t = {0, 0};
  if (timing != 1) return t;
  check(p_cuEventCreate(&t.a, 0), "cuEventCreate");
  check(p_cuEventCreate(&t.b, 0), "cuEventCreate");
  check(p_cuEventRecord(t.a, s), "cuEventRecord");
  return t;
}
static double timer_stop(Timer t, CUstream s) {
  float ms = 0;
  if (timing != 1) return 0;
  check(p_cuEventRecord(t.b, s), "cuEventRecord");
  check(p_cuEventSynchronize(t.b), "cuEventSynchronize (kernel or copy failed)");
  check(p_cuEventElapsedTime(&ms, t.a, t.b), "cuEventElapsedTime");
  /* destroyed at once: a program may launch millions of kernels */
  check(p_cuEventDestroy_v2(t.a), "cuEventDestroy");
  check(p_cuEventDestroy_v2(t.b), "cuEventDestroy");
  return ms;
}
CUmodule mgpuModuleLoad(void *data, size_t size) { (void)size; init(); CUmodule m; check(p_cuModuleLoadData(&m, data), "cuModuleLoadData"); return m; }
CUmodule mgpuModuleLoadJIT(void *ptx, int optLevel) {   /* PTX text, NUL-terminated (MLIR embeds it so) */
  init(); CUmodule m;
  int opt[1] = {7 /* CU_JIT_OPTIMIZATION_LEVEL */}; void *val[1] = {(void *)(intptr_t)optLevel};
  check(p_cuModuleLoadDataEx(&m, ptx, 1, opt, val), "cuModuleLoadDataEx (PTX JIT)");
  return m;
}
/* Called from a global destructor, possibly after the driver has shut down
 * (CUDA_ERROR_DEINITIALIZED, 4): nothing is left to unload then. */
void mgpuModuleUnload(CUmodule m) {
  CUresult r = p_cuModuleUnload(m);
  if (r != 4) check(r, "cuModuleUnload");
}
CUfunction mgpuModuleGetFunction(CUmodule m, const char *name) {
  CUfunction f;
  check(p_cuModuleGetFunction(&f, m, name), "cuModuleGetFunction");
  int known = 0;
  for (int i = 0; i < nfns; i++) known |= fns[i].f == f;
  if (!known && nfns < 256) {
    fns[nfns].f = f;
    snprintf(fns[nfns].name, sizeof fns[nfns].name, "%s", name);
    nfns++;
  }
  return f;
}
void mgpuLaunchKernel(CUfunction f, intptr_t gx, intptr_t gy, intptr_t gz, intptr_t bx, intptr_t by, intptr_t bz,
                      int32_t smem, CUstream s, void **params, void **extra, size_t nparams) {
  (void)nparams;
  Timer t = timer_start(s);
  check(p_cuLaunchKernel(f, gx, gy, gz, bx, by, bz, smem, s, params, extra), "cuLaunchKernel");
  double ms = timer_stop(t, s);
  kernel_ms += ms; kernels++;
  for (int i = 0; i < nfns; i++)
    if (fns[i].f == f) { fns[i].n++; fns[i].ms += ms; break; }
}
CUstream mgpuStreamCreate(void) { init(); CUstream s; check(p_cuStreamCreate(&s, 1 /* non-blocking */), "cuStreamCreate"); return s; }
void mgpuStreamSynchronize(CUstream s) { check(p_cuStreamSynchronize(s), "cuStreamSynchronize (kernel or copy failed)"); }
void mgpuStreamDestroy(CUstream s) { check(p_cuStreamDestroy_v2(s), "cuStreamDestroy"); }
static struct { uintptr_t p; size_t n; } allocs[1024]; static int nallocs;   /* for MGPU_EXPLICIT_COPIES */
static int on_device(void *p) {
  for (int i = 0; i < nallocs; i++) if ((uintptr_t)p >= allocs[i].p && (uintptr_t)p < allocs[i].p + allocs[i].n) return 1;
  return 0;
}
void *mgpuMemAlloc(uint64_t bytes, CUstream s, char hostShared) {
  (void)s; init(); CUdeviceptr p = 0;
  if (bytes == 0) return NULL;
  if (hostShared) check(p_cuMemAllocManaged(&p, bytes, 1 /* CU_MEM_ATTACH_GLOBAL */), "cuMemAllocManaged");
  else check(p_cuMemAlloc_v2(&p, bytes), "cuMemAlloc");
  if (nallocs < 1024) { allocs[nallocs].p = (uintptr_t)p; allocs[nallocs].n = bytes; nallocs++; }
  return (void *)(uintptr_t)p;
}
void mgpuMemFree(void *p, CUstream s) { (void)s; if (p) check(p_cuMemFree_v2((CUdeviceptr)(uintptr_t)p), "cuMemFree"); }
void mgpuMemcpy(void *dst, void *src, size_t bytes, CUstream s) {   /* unified addressing: any direction */
  if (getenv("MGPU_EXPLICIT_COPIES")) {   /* for driver-API look-alikes without unified addressing */
    int d = on_device(dst), h = on_device(src);
    if (d && !h) { check(p_cuMemcpyHtoDAsync_v2((CUdeviceptr)(uintptr_t)dst, src, bytes, s), "cuMemcpyHtoDAsync"); return; }
    if (!d && h) { check(p_cuMemcpyDtoHAsync_v2(dst, (CUdeviceptr)(uintptr_t)src, bytes, s), "cuMemcpyDtoHAsync"); return; }
  }
  Timer t = timer_start(s);
  check(p_cuMemcpyAsync((CUdeviceptr)(uintptr_t)dst, (CUdeviceptr)(uintptr_t)src, bytes, s), "cuMemcpyAsync");
  copy_ms += timer_stop(t, s); copies++;
}
void mgpuMemHostRegisterMemRef(int64_t rank, char *desc, int64_t elemSize) {   /* gpu.host_register */
  init();
  char *aligned = *(char **)(desc + 8); int64_t *sizes = (int64_t *)(desc + 24);
  int64_t n = elemSize; for (int64_t i = 0; i < rank; i++) n *= sizes[i];
  check(p_cuMemHostRegister_v2(aligned, (size_t)n, 0), "cuMemHostRegister");
}
void mgpuMemHostUnregisterMemRef(int64_t rank, char *desc, int64_t elemSize) {   /* gpu.host_unregister */
  (void)rank; (void)elemSize;
  check(p_cuMemHostUnregister(*(char **)(desc + 8)), "cuMemHostUnregister");
}
/* polyrs-runner probes for the driver before it runs a program, to fail
 * with a message instead of exiting from inside the program: NULL when the
 * driver library loads, else why not. */
const char *mgpuProbeDriver(void) {
  const char *name = getenv("MGPU_LIBCUDA");
  void *h = dlopen(name ? name : "libcuda.so.1", RTLD_NOW);
  if (!h) return dlerror();
  dlclose(h);
  return NULL;
}
#ifndef MGPU_NO_PRINT   /* the JIT has MLIR's runner utils for these */
void printI64(int64_t x) { printf("%lld", (long long)x); }
void printNewline(void) { printf("\n"); fflush(stdout); }
#endif
