//===- runtime_bench.cpp - The engine runtime: start-up and launch overhead -===//
//
//   runtime_bench LIBMXFORGE.so LIBMXFORGE_RUNTIME.so FAKE_HIP.so BUNDLE.mxfb SPEC [REPEATS]
//
// Host-side costs an engine pays, for each C API library, on the hip device
// over the fake HIP runtime (its launches return at once, so what is timed is
// mxforge's own work, never a GPU's):
//   cold start  (a fresh process each repeat): dlopen of the library,
//               mxf_context_create, mxf_load_bundle, the first mxf_find_kernel;
//   per launch  mxf_launch; mxf_kernel_launch_params + the engine's own
//               hipModuleLaunchKernel; mxf_launch_packed.
// Medians of REPEATS (default 7) processes / batches; ratios against
// libmxforge in the same run. A table, never a pass/fail.
//
//===----------------------------------------------------------------------===//

#include "bench/bench_support.h"
#include "include/mxforge/mxforge.h"

#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

using mxf::bench::Clock;
using mxf::bench::median;
using mxf::bench::millisSince;

/// The C API, resolved from one library handle (both export the same names).
struct Api {
  decltype(&mxf_context_options_init) optionsInit;
  decltype(&mxf_context_create) create;
  decltype(&mxf_context_destroy) destroy;
  decltype(&mxf_load_bundle) loadBundle;
  decltype(&mxf_find_kernel) findKernel;
  decltype(&mxf_kernel_get_info) info;
  decltype(&mxf_kernel_get_operand) operand;
  decltype(&mxf_malloc) malloc;
  decltype(&mxf_launch) launch;
  decltype(&mxf_kernel_launch_params) launchParams;
  decltype(&mxf_launch_packed) launchPacked;
  decltype(&mxf_last_error) lastError;
};

template <typename T> void bind(void *handle, T &slot, const char *name) {
  slot = reinterpret_cast<T>(dlsym(handle, name));
  if (!slot) {
    std::fprintf(stderr, "runtime_bench: %s has no %s\n", "the library", name);
    std::exit(1);
  }
}

/// One measurement in a child process: prints "dlopen create bundle first
/// launch params" in ms (per-launch numbers in microseconds).
int child(const char *library, const char *bundle, const char *spec, int launches) {
  Clock::time_point start = Clock::now();
  void *handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    std::fprintf(stderr, "runtime_bench: %s\n", dlerror());
    return 1;
  }
  const double dlopenMs = millisSince(start);
  Api api;
  bind(handle, api.optionsInit, "mxf_context_options_init");
  bind(handle, api.create, "mxf_context_create");
  bind(handle, api.destroy, "mxf_context_destroy");
  bind(handle, api.loadBundle, "mxf_load_bundle");
  bind(handle, api.findKernel, "mxf_find_kernel");
  bind(handle, api.info, "mxf_kernel_get_info");
  bind(handle, api.operand, "mxf_kernel_get_operand");
  bind(handle, api.malloc, "mxf_malloc");
  bind(handle, api.launch, "mxf_launch");
  bind(handle, api.launchParams, "mxf_kernel_launch_params");
  bind(handle, api.launchPacked, "mxf_launch_packed");
  bind(handle, api.lastError, "mxf_last_error");

  mxf_context_options options;
  api.optionsInit(&options);
  options.device = "hip";
  options.strict = 1;
  options.cache_mode = MXF_CACHE_OFF;
  mxf_context *context = nullptr;
  start = Clock::now();
  if (api.create(&options, &context) != MXF_SUCCESS) {
    std::fprintf(stderr, "runtime_bench: %s\n", api.lastError());
    return 1;
  }
  const double createMs = millisSince(start);
  start = Clock::now();
  if (api.loadBundle(context, bundle, nullptr) != MXF_SUCCESS) {
    std::fprintf(stderr, "runtime_bench: %s\n", api.lastError());
    return 1;
  }
  const double bundleMs = millisSince(start);
  const mxf_kernel *kernel = nullptr;
  start = Clock::now();
  if (api.findKernel(context, spec, 3, &kernel) != MXF_SUCCESS) {
    std::fprintf(stderr, "runtime_bench: %s\n", api.lastError());
    return 1;
  }
  const double firstMs = millisSince(start);

  mxf_kernel_info info;
  api.info(kernel, &info);
  std::vector<void *> operands(info.operand_count);
  for (size_t i = 0; i < operands.size(); ++i) {
    mxf_operand_info operand;
    api.operand(kernel, i, &operand);
    api.malloc(context, operand.bytes, &operands[i]);
  }
  // The engine's own launcher: the fake HIP runtime the context uses.
  void *hip = dlopen(std::getenv("MXFORGE_HIP_LIBRARY"), RTLD_NOW | RTLD_LOCAL);
  using LoadData = int (*)(void **, const void *);
  using GetFunction = int (*)(void **, void *, const char *);
  using Launch = int (*)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                         unsigned, void *, void **, void **);
  auto loadData = reinterpret_cast<LoadData>(dlsym(hip, "hipModuleLoadData"));
  auto getFunction = reinterpret_cast<GetFunction>(dlsym(hip, "hipModuleGetFunction"));
  auto hipLaunch = reinterpret_cast<Launch>(dlsym(hip, "hipModuleLaunchKernel"));
  auto codeObject = reinterpret_cast<decltype(&mxf_kernel_code_object)>(
      dlsym(handle, "mxf_kernel_code_object"));
  const void *code = nullptr;
  size_t codeBytes = 0;
  codeObject(kernel, &code, &codeBytes);
  void *module = nullptr, *function = nullptr;
  loadData(&module, code);
  getFunction(&function, module, info.name);

  auto perLaunchMicros = [&](auto &&body) {
    for (int i = 0; i < launches / 10; ++i) // warm-up
      body();
    Clock::time_point t = Clock::now();
    for (int i = 0; i < launches; ++i)
      body();
    return millisSince(t) * 1000.0 / launches;
  };
  // A strict context refuses the default stream; the fake takes any handle.
  void *stream = reinterpret_cast<void *>(0x57);
  const double launchUs = perLaunchMicros(
      [&] { if (api.launch(context, kernel, 3, operands.data(), operands.size(), stream) != MXF_SUCCESS) std::abort(); });
  unsigned char kernarg[1024];
  mxf_launch_params params;
  const double ownUs = perLaunchMicros([&] {
    api.launchParams(kernel, 3, operands.data(), nullptr, operands.size(), kernarg,
                     sizeof kernarg, &params);
    size_t size = params.kernarg_bytes;
    void *extra[] = {reinterpret_cast<void *>(1), kernarg, reinterpret_cast<void *>(2), &size,
                     reinterpret_cast<void *>(3)};
    hipLaunch(function, params.grid[0], params.grid[1], params.grid[2], params.workgroup[0],
              params.workgroup[1], params.workgroup[2], 0, stream, nullptr, extra);
  });
  const double paramsOnlyUs = perLaunchMicros([&] {
    api.launchParams(kernel, 3, operands.data(), nullptr, operands.size(), kernarg,
                     sizeof kernarg, &params);
  });
  const double packedUs = perLaunchMicros([&] {
    if (api.launchPacked(context, kernel, &params, kernarg, params.kernarg_bytes, stream) !=
        MXF_SUCCESS)
      std::abort();
  });
  std::printf("%f %f %f %f %f %f %f %f\n", dlopenMs, createMs, bundleMs, firstMs, launchUs,
              ownUs, paramsOnlyUs, packedUs);
  api.destroy(context);
  return 0;
}

/// Runs `self --child ...` once; its eight numbers.
std::vector<double> measure(const char *self, const char *library, const char *bundle,
                            const char *spec) {
  const std::string command = std::string(self) + " --child " + library + " " + bundle + " '" +
                              spec + "'";
  std::FILE *pipe = popen(command.c_str(), "r");
  std::vector<double> values(8, 0.0);
  if (!pipe || std::fscanf(pipe, "%lf %lf %lf %lf %lf %lf %lf %lf", &values[0], &values[1],
                           &values[2], &values[3], &values[4], &values[5], &values[6],
                           &values[7]) != 8) {
    std::fprintf(stderr, "runtime_bench: the child failed: %s\n", command.c_str());
    std::exit(1);
  }
  pclose(pipe);
  return values;
}

} // namespace

int main(int argc, char **argv) {
  if (argc == 5 && std::strcmp(argv[1], "--child") == 0)
    return child(argv[2], argv[3], argv[4], 20000);
  if (argc < 6) {
    std::fprintf(stderr, "usage: runtime_bench LIBMXFORGE.so LIBMXFORGE_RUNTIME.so FAKE_HIP.so "
                         "BUNDLE.mxfb SPEC [REPEATS]\n");
    return 2;
  }
  const int repeats = argc > 6 ? std::atoi(argv[6]) : 7;
  setenv("MXFORGE_HIP_LIBRARY", argv[3], 1);
  const char *libraries[2] = {argv[1], argv[2]};
  const char *names[2] = {"libmxforge.so", "libmxforge_runtime.so"};
  std::vector<double> medians[2];
  for (int l = 0; l < 2; ++l) {
    std::vector<std::vector<double>> runs(8);
    for (int r = 0; r < repeats; ++r) {
      std::vector<double> values = measure(argv[0], libraries[l], argv[4], argv[5]);
      for (int i = 0; i < 8; ++i)
        runs[i].push_back(values[i]);
    }
    for (int i = 0; i < 8; ++i)
      medians[l].push_back(median(runs[i]));
  }
  std::printf("runtime_bench: hip device over the fake HIP runtime (host-side costs only), "
              "spec %s, m=3;\nmedians of %d fresh processes, 20000 launches each\n\n",
              argv[5], repeats);
  const char *rows[8] = {"dlopen of the library (ms)",
                         "mxf_context_create (ms)",
                         "mxf_load_bundle (ms)",
                         "first mxf_find_kernel (ms)",
                         "mxf_launch (us/launch)",
                         "launch params + own hipModuleLaunchKernel (us/launch)",
                         "mxf_kernel_launch_params alone (us/call)",
                         "mxf_launch_packed (us/launch)"};
  std::printf("| %-54s | %15s | %21s | %7s |\n", "", names[0], names[1], "ratio");
  std::printf("|%s|%s|%s|%s|\n", std::string(56, '-').c_str(), std::string(17, '-').c_str(),
              std::string(23, '-').c_str(), std::string(9, '-').c_str());
  for (int i = 0; i < 8; ++i)
    std::printf("| %-54s | %15.3f | %21.3f | %6.2fx |\n", rows[i], medians[0][i], medians[1][i],
                medians[0][i] > 0 ? medians[1][i] / medians[0][i] : 0.0);
  return 0;
}
