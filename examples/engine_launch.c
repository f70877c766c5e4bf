/*===- engine_launch.c - An engine launching mxforge kernels itself --------===*
 *
 *   engine_launch BUNDLE.mxfb SPEC [--device emu|hip] [--seed N] [--no-check]
 *
 * What an engine with its own launcher (its streams, its graphs, another
 * runtime) does with a bundle kernel, through the C API's launch
 * description alone:
 *   1. a strict context (bundle kernels only, never a compile) on the
 *      caller's current GPU, or the emulator;
 *   2. mxf_kernel_code_object + mxf_kernel_symbol: what to load;
 *   3. mxf_kernel_launch_params: grid, workgroup, dynamic LDS and the packed
 *      kernarg segment for its buffers and a batch of 3 rows;
 *   4. on hip: its own hipModuleLoadData / hipModuleGetFunction /
 *      hipModuleLaunchKernel (HIP_LAUNCH_PARAM_BUFFER_POINTER in `extra`),
 *      from the HIP runtime it dlopens itself (MXFORGE_HIP_LIBRARY, else
 *      libamdhip64.so); on emu, where no HIP exists: mxf_launch_packed, the
 *      same segment on the same path;
 *   5. every output byte against the C API's CPU reference (--no-check skips
 *      it, for a fake HIP runtime that runs nothing).
 * Links libmxforge or libmxforge_runtime; built and run by the tests.
 *
 *===----------------------------------------------------------------------===*/
#include <mxforge/mxforge.h>

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { kBatch = 3, kPoison = 0xA5, kMaxOperands = 8 };

static int check(mxf_status status, const char *what) {
  if (status == MXF_SUCCESS)
    return 1;
  fprintf(stderr, "engine_launch: %s failed (%s): %s\n", what, mxf_status_string(status),
          mxf_last_error());
  return 0;
}

static uint64_t nextRandom(uint64_t *state) {
  *state ^= *state >> 12;
  *state ^= *state << 25;
  *state ^= *state >> 27;
  return *state * 0x2545F4914F6CDD1DULL;
}

/* The few HIP entry points an engine's launcher uses (hip_runtime_api.h). */
typedef int (*LoadDataFn)(void **module, const void *image);
typedef int (*GetFunctionFn)(void **function, void *module, const char *name);
typedef int (*LaunchFn)(void *function, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                        unsigned by, unsigned bz, unsigned shared, void *stream, void **params,
                        void **extra);
typedef int (*SyncFn)(void);
typedef int (*UnloadFn)(void *module);

/* The engine's own launch: its HIP runtime, its module, its call. */
static int launchWithOwnHip(const void *code, const char *symbol, const mxf_launch_params *p,
                            void *kernarg) {
  const char *path = getenv("MXFORGE_HIP_LIBRARY");
  void *hip = dlopen(path && *path ? path : "libamdhip64.so", RTLD_NOW | RTLD_LOCAL);
  if (!hip) {
    fprintf(stderr, "engine_launch: cannot load HIP: %s\n", dlerror());
    return 0;
  }
  LoadDataFn loadData = (LoadDataFn)dlsym(hip, "hipModuleLoadData");
  GetFunctionFn getFunction = (GetFunctionFn)dlsym(hip, "hipModuleGetFunction");
  LaunchFn launch = (LaunchFn)dlsym(hip, "hipModuleLaunchKernel");
  SyncFn sync = (SyncFn)dlsym(hip, "hipDeviceSynchronize");
  UnloadFn unload = (UnloadFn)dlsym(hip, "hipModuleUnload");
  if (!loadData || !getFunction || !launch || !sync || !unload) {
    fprintf(stderr, "engine_launch: the HIP runtime lacks an entry point\n");
    return 0;
  }
  void *module = NULL, *function = NULL;
  int error = loadData(&module, code);
  if (error == 0)
    error = getFunction(&function, module, symbol);
  size_t size = p->kernarg_bytes;
  void *extra[] = {(void *)1 /* HIP_LAUNCH_PARAM_BUFFER_POINTER */, kernarg,
                   (void *)2 /* HIP_LAUNCH_PARAM_BUFFER_SIZE */, &size,
                   (void *)3 /* HIP_LAUNCH_PARAM_END */};
  if (error == 0)
    error = launch(function, p->grid[0], p->grid[1], p->grid[2], p->workgroup[0],
                   p->workgroup[1], p->workgroup[2], p->dynamic_lds_bytes, NULL, NULL, extra);
  if (error == 0)
    error = sync();
  /* The engine's module is the engine's to unload (after the work is done). */
  if (module && unload(module) != 0 && error == 0)
    error = -1;
  if (error != 0) {
    fprintf(stderr, "engine_launch: HIP returned error %d\n", error);
    return 0;
  }
  printf("  launched %s with hipModuleLaunchKernel: grid (%u,%u,%u), workgroup %u, "
         "kernarg %zu bytes\n",
         symbol, p->grid[0], p->grid[1], p->grid[2], p->workgroup[0], size);
  return 1;
}

int main(int argc, char **argv) {
  const char *bundle = NULL, *spec = NULL, *deviceKind = "emu";
  int verify = 1;
  uint64_t seed = (uint64_t)time(NULL) ^ ((uint64_t)clock() << 32);
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--device") == 0 && i + 1 < argc)
      deviceKind = argv[++i];
    else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
      seed = strtoull(argv[++i], NULL, 0);
    else if (strcmp(argv[i], "--no-check") == 0)
      verify = 0;
    else if (argv[i][0] != '-' && !bundle)
      bundle = argv[i];
    else if (argv[i][0] != '-' && !spec)
      spec = argv[i];
    else
      bundle = NULL, i = argc;
  }
  if (!bundle || !spec) {
    fprintf(stderr, "usage: engine_launch BUNDLE.mxfb SPEC [--device emu|hip] [--seed N] "
                    "[--no-check]\n");
    return 2;
  }
  if (seed == 0)
    seed = 1;
  printf("%s (JIT: %s); seed %llu\n", mxf_version_string(), mxf_library_has_jit() ? "yes" : "no",
         (unsigned long long)seed);

  mxf_context_options options;
  mxf_context_options_init(&options);
  options.device = deviceKind;
  options.strict = 1;
  options.device_ordinal = MXF_DEVICE_CURRENT;
  mxf_context *context = NULL;
  if (!check(mxf_context_create(&options, &context), "mxf_context_create"))
    return 1;
  printf("device: %s\n", mxf_context_device(context));
  const mxf_kernel *kernel = NULL;
  mxf_kernel_info info;
  int ok = check(mxf_load_bundle(context, bundle, NULL), "mxf_load_bundle") &&
           check(mxf_find_kernel(context, spec, kBatch, &kernel), "mxf_find_kernel") &&
           check(mxf_kernel_get_info(kernel, &info), "mxf_kernel_get_info");
  if (ok && info.operand_count > kMaxOperands) {
    fprintf(stderr, "engine_launch: %zu operands\n", info.operand_count);
    ok = 0;
  }

  void *device[kMaxOperands] = {0};
  unsigned char *host[kMaxOperands] = {0};
  mxf_operand_info operands[kMaxOperands];
  size_t x = 0, q = 0, s = 0;
  for (size_t i = 0; ok && i < info.operand_count; ++i) {
    ok = check(mxf_kernel_get_operand(kernel, i, &operands[i]), "mxf_kernel_get_operand") &&
         check(mxf_malloc(context, operands[i].bytes, &device[i]), "mxf_malloc");
    host[i] = ok ? malloc(operands[i].bytes) : NULL;
    if (!host[i]) {
      ok = 0;
      break;
    }
    memset(host[i], kPoison, operands[i].bytes);
    if (strcmp(operands[i].name, "x") == 0) {
      for (uint64_t b = 0; b + 1 < operands[i].bytes; b += 2) {
        host[i][b] = (unsigned char)nextRandom(&seed);
        host[i][b + 1] = (unsigned char)(0x3C + nextRandom(&seed) % 8);
      }
      x = i;
    }
    q = strcmp(operands[i].name, "q") == 0 ? i : q;
    s = strcmp(operands[i].name, "s") == 0 ? i : s;
    ok = check(mxf_memcpy_to_device(context, device[i], host[i], operands[i].bytes),
               "mxf_memcpy_to_device");
  }

  const void *code = NULL;
  size_t codeBytes = 0;
  const char *symbol = NULL;
  mxf_launch_params params;
  unsigned char kernarg[1024];
  ok = ok && check(mxf_kernel_code_object(kernel, &code, &codeBytes), "mxf_kernel_code_object") &&
       check(mxf_kernel_symbol(kernel, &symbol), "mxf_kernel_symbol") &&
       check(mxf_kernel_launch_params(kernel, kBatch, device, NULL, info.operand_count, kernarg,
                                      sizeof kernarg, &params),
             "mxf_kernel_launch_params");
  if (ok) {
    printf("  %s: code object %zu bytes, symbol %s\n", info.spec, codeBytes, symbol);
    if (strcmp(deviceKind, "hip") == 0) {
      ok = launchWithOwnHip(code, symbol, &params, kernarg);
    } else {
      ok = check(mxf_launch_packed(context, kernel, &params, kernarg, params.kernarg_bytes, NULL),
                 "mxf_launch_packed") &&
           check(mxf_synchronize(context), "mxf_synchronize");
      if (ok)
        printf("  launched %s with mxf_launch_packed: grid (%u,%u,%u), workgroup %u, "
               "kernarg %zu bytes\n",
               symbol, params.grid[0], params.grid[1], params.grid[2], params.workgroup[0],
               params.kernarg_bytes);
    }
  }

  if (ok && verify) {
    ok = check(mxf_memcpy_to_host(context, host[q], device[q], operands[q].bytes), "copy q") &&
         check(mxf_memcpy_to_host(context, host[s], device[s], operands[s].bytes), "copy s");
    unsigned char *wantQ = malloc(operands[q].bytes), *wantS = malloc(operands[s].bytes);
    size_t qWritten = 0, sWritten = 0;
    ok = ok && wantQ && wantS &&
         check(mxf_reference(info.spec, kBatch, host[x], NULL, wantQ, operands[q].bytes,
                             &qWritten, wantS, operands[s].bytes, &sWritten),
               "mxf_reference");
    size_t mismatches = 0, touched = 0;
    for (size_t b = 0; ok && b < operands[q].bytes; ++b)
      b < qWritten ? (mismatches += host[q][b] != wantQ[b]) : (touched += host[q][b] != kPoison);
    for (size_t b = 0; ok && b < operands[s].bytes; ++b)
      b < sWritten ? (mismatches += host[s][b] != wantS[b]) : (touched += host[s][b] != kPoison);
    if (ok)
      printf("  M=%d: %zu + %zu bytes vs the reference: %zu mismatches, %zu bytes past M "
             "written\n",
             kBatch, qWritten, sWritten, mismatches, touched);
    ok = ok && mismatches == 0 && touched == 0;
    free(wantQ);
    free(wantS);
  }
  for (size_t i = 0; i < kMaxOperands; ++i) {
    if (device[i])
      mxf_free(context, device[i]);
    free(host[i]);
  }
  mxf_context_destroy(context);
  printf(ok ? "engine_launch: %s\n" : "engine_launch: FAILED\n",
         verify ? "all checks passed" : "launched (outputs not checked)");
  return ok ? 0 : 1;
}
