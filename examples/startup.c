/*===- startup.c - What an engine does at start-up, through the C API -----===*
 *
 *   startup [BUNDLE.mxfb] [--device emu|hip] [--seed N]
 *
 * 1. creates a context on a device (default: emu, the gfx950 emulator);
 * 2. loads an AOT bundle;
 * 3. JIT-compiles the kernels the bundle lacks (through the disk cache);
 * 4. runs one decode step's rotate+quant kernels of a Qwen3-8B layer at a
 *    batch of 3 tokens: bucket dispatch picks M=4 kernels;
 * 5. checks every output byte against the C API's CPU reference, and that
 *    the rows past the batch were not written.
 * Exit status 0 only if every check passed. Built and run by the tests.
 *
 *===----------------------------------------------------------------------===*/
#include <mxforge/mxforge.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { kBatch = 3, kPoison = 0xA5 };

/* The layer's rotate+quant kernels at the bucket a batch of 3 needs (M=4).
 * mxf_find_kernel treats a spec as its family: it ignores the M written
 * here and picks the bucket for the actual row count. */
static const char *const kFamilies[] = {
    "rotate_quant:K=4096,RS=64,rot=hadamard,M=4,scale=even",  /* q/k/v, gate/up input */
    "rotate_quant:K=12288,RS=64,rot=hadamard,M=4,scale=even", /* down_proj input */
};

static int check(mxf_status status, const char *what) {
  if (status == MXF_SUCCESS)
    return 1;
  fprintf(stderr, "startup: %s failed (%s): %s\n", what, mxf_status_string(status),
          mxf_last_error());
  return 0;
}

/* xorshift64*: reproducible from the printed seed. */
static uint64_t nextRandom(uint64_t *state) {
  *state ^= *state >> 12;
  *state ^= *state << 25;
  *state ^= *state >> 27;
  return *state * 0x2545F4914F6CDD1DULL;
}

/* An activation-like bf16 value: roughly normal (sum of uniforms), with an
 * occasional outlier channel, which is what rotation is for. */
static uint16_t randomBf16(uint64_t *state) {
  float value = 0.0f;
  for (int i = 0; i < 4; ++i)
    value += (float)(nextRandom(state) >> 40) / (float)(1u << 24) - 0.5f;
  if ((nextRandom(state) & 63) == 0)
    value *= 40.0f;
  uint32_t bits;
  memcpy(&bits, &value, sizeof bits);
  bits += 0x7FFF + ((bits >> 16) & 1); /* round to nearest even */
  return (uint16_t)(bits >> 16);
}

/* Runs one family for kBatch rows and checks it; returns 1 when it passed. */
static int runOne(mxf_context *context, const char *family, uint64_t *rng) {
  const mxf_kernel *kernel = NULL;
  if (!check(mxf_find_kernel(context, family, kBatch, &kernel), "mxf_find_kernel"))
    return 0;
  mxf_kernel_info info;
  if (!check(mxf_kernel_get_info(kernel, &info), "mxf_kernel_get_info"))
    return 0;
  printf("  %s\n    bucket M=%d from %s, %u VGPRs, %u B LDS\n", info.spec, info.bucket,
         info.origin, info.vgprs, info.lds_bytes);
  if (info.operand_count > 8) {
    fprintf(stderr, "startup: unexpected operand count %zu\n", info.operand_count);
    return 0;
  }

  void *device[8] = {0};
  unsigned char *host[8] = {0};
  mxf_operand_info operands[8];
  size_t xIndex = 0, qIndex = 0, sIndex = 0;
  int ok = 1;
  for (size_t i = 0; ok && i < info.operand_count; ++i) {
    ok = check(mxf_kernel_get_operand(kernel, i, &operands[i]), "mxf_kernel_get_operand") &&
         check(mxf_malloc(context, operands[i].bytes, &device[i]), "mxf_malloc");
    if (!ok)
      break;
    host[i] = malloc(operands[i].bytes);
    if (!host[i]) {
      fprintf(stderr, "startup: out of host memory\n");
      ok = 0;
      break;
    }
    if (strcmp(operands[i].name, "x") == 0) {
      uint16_t *x = (uint16_t *)host[i];
      for (uint64_t e = 0; e < operands[i].bytes / 2; ++e)
        x[e] = randomBf16(rng);
      xIndex = i;
    } else {
      memset(host[i], kPoison, operands[i].bytes); /* outputs: poisoned */
      if (strcmp(operands[i].name, "q") == 0)
        qIndex = i;
      if (strcmp(operands[i].name, "s") == 0)
        sIndex = i;
    }
    ok = check(mxf_memcpy_to_device(context, device[i], host[i], operands[i].bytes),
               "mxf_memcpy_to_device");
  }

  if (ok)
    ok = check(mxf_launch(context, kernel, kBatch, device, info.operand_count, NULL),
               "mxf_launch") &&
         check(mxf_synchronize(context), "mxf_synchronize");
  for (size_t i = 0; ok && i < info.operand_count; ++i)
    if (operands[i].is_output)
      ok = check(mxf_memcpy_to_host(context, host[i], device[i], operands[i].bytes),
                 "mxf_memcpy_to_host");

  if (ok) {
    const uint64_t qBytes = operands[qIndex].bytes, sBytes = operands[sIndex].bytes;
    unsigned char *q = malloc(qBytes), *s = malloc(sBytes);
    size_t qWritten = 0, sWritten = 0;
    ok = q && s &&
         check(mxf_reference(info.spec, kBatch, host[xIndex], NULL, q, qBytes, &qWritten, s,
                             sBytes, &sWritten),
               "mxf_reference");
    if (ok) {
      size_t mismatches = 0, touched = 0;
      for (size_t b = 0; b < qBytes; ++b) {
        if (b < qWritten)
          mismatches += host[qIndex][b] != q[b];
        else
          touched += host[qIndex][b] != kPoison;
      }
      for (size_t b = 0; b < sBytes; ++b) {
        if (b < sWritten)
          mismatches += host[sIndex][b] != s[b];
        else
          touched += host[sIndex][b] != kPoison;
      }
      printf("    M=%d: q %zu bytes, s %zu bytes vs the reference: %zu mismatches; "
             "%zu bytes past M written\n",
             kBatch, qWritten, sWritten, mismatches, touched);
      ok = mismatches == 0 && touched == 0;
    }
    free(q);
    free(s);
  }
  for (size_t i = 0; i < info.operand_count; ++i) {
    if (device[i])
      mxf_free(context, device[i]);
    free(host[i]);
  }
  return ok;
}

int main(int argc, char **argv) {
  const char *bundle = NULL;
  const char *deviceKind = "emu";
  uint64_t seed = (uint64_t)time(NULL) ^ ((uint64_t)clock() << 32);
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--device") == 0 && i + 1 < argc)
      deviceKind = argv[++i];
    else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
      seed = strtoull(argv[++i], NULL, 0);
    else if (argv[i][0] != '-' && !bundle)
      bundle = argv[i];
    else {
      fprintf(stderr, "usage: startup [BUNDLE.mxfb] [--device emu|hip] [--seed N]\n");
      return 2;
    }
  }
  if (seed == 0)
    seed = 1; /* xorshift's one fixed point */
  printf("%s, C API %u.%u; seed %llu\n", mxf_version_string(), mxf_api_version() >> 16,
         mxf_api_version() & 0xFFFF, (unsigned long long)seed);

  mxf_context_options options;
  mxf_context_options_init(&options);
  options.device = deviceKind;
  mxf_context *context = NULL;
  if (!check(mxf_context_create(&options, &context), "mxf_context_create"))
    return 1;
  printf("device: %s\n", mxf_context_device(context));

  if (bundle) {
    size_t count = 0;
    if (!check(mxf_load_bundle(context, bundle, &count), "mxf_load_bundle")) {
      mxf_context_destroy(context);
      return 1;
    }
    printf("bundle %s: %zu kernels\n", bundle, count);
  }

  /* Start-up: make sure every kernel of the step exists (bundle, cache or
   * JIT) before serving, on all cores. */
  if (!check(mxf_compile_all(context, kFamilies, 2, 0, NULL), "mxf_compile_all")) {
    mxf_context_destroy(context);
    return 1;
  }

  printf("decode step, batch %d:\n", kBatch);
  uint64_t rng = seed;
  int passed = 1;
  for (int f = 0; f < 2; ++f)
    passed &= runOne(context, kFamilies[f], &rng);
  mxf_context_destroy(context);
  printf(passed ? "startup: all checks passed\n" : "startup: CHECK FAILED\n");
  return passed ? 0 : 1;
}
