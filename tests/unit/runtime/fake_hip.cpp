//===- fake_hip.cpp - A stand-in libamdhip64.so for the hip backend's tests -===//
//
// Implements the HIP entry points the runtime resolves, with canned
// behaviour, so that every path of the hip backend short of a real GPU runs
// here: no device (hipInit 101 / count 0), errors and their strings, and the
// launch plumbing (the kernarg buffer, grid and block are recorded for the
// test to check). "Device" memory is host memory; one kernel, `fake_fill`,
// "runs" on the host so that a copy in / launch / copy out round trip has
// data to show. Codes and strings are those of hip_runtime_api.h.
//
//===----------------------------------------------------------------------===//

#include "fake_hip_control.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#define FAKE_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

struct Module;
struct Function {
  Module *module;
  std::string name;
};
struct Module {
  std::vector<unsigned char> image;
  std::vector<std::unique_ptr<Function>> functions; // invalid after unload, as in HIP
  bool realElf = false;
};

/// A captured launch, replayed by hipGraphLaunch.
struct Node {
  Function *function;
  FakeHipLaunch launch;
};
struct Graph {
  std::vector<Node> nodes;
};

struct State {
  std::mutex mutex;
  int mode = kFakeHipWorking;
  int deviceCount = 1;
  std::map<std::string, int> failNext; // function -> error for its next call
  std::map<uintptr_t, size_t> allocations;
  std::map<Module *, bool> modules;
  int launches = 0;
  FakeHipLaunch last{};
  std::string log;
  // Timing: streams and events are opaque tokens; a stream under capture
  // collects launches into its graph instead of running them, and a graph
  // launch replays them.
  std::set<void *> streams, events;
  std::map<void *, Graph *> capturing; // stream -> the graph it is capturing into
  std::set<Graph *> graphs, execs;
  int elapsedCalls = 0;
  int graphLaunches = 0;
};

State &state() {
  static State s;
  return s;
}

thread_local int currentDevice = 0;

/// The injected error for `function`, consumed, or 0.
int injected(State &s, const char *function) {
  auto it = s.failNext.find(function);
  if (it == s.failNext.end())
    return 0;
  int error = it->second;
  s.failNext.erase(it);
  return error;
}

void record(State &s, const std::string &call) { s.log += (s.log.empty() ? "" : " ") + call; }

/// Whether [p, p + n) lies in one fake allocation.
bool isDevice(State &s, const void *p, size_t n) {
  uintptr_t a = reinterpret_cast<uintptr_t>(p);
  auto it = s.allocations.upper_bound(a);
  if (it == s.allocations.begin())
    return false;
  --it;
  return a - it->first <= it->second && n <= it->second - (a - it->first);
}

} // namespace

//===--- Control ---------------------------------------------------------===//

FAKE_EXPORT void fakeHipReset(int mode, int deviceCount) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.mode = mode;
  s.deviceCount = deviceCount;
  s.failNext.clear();
  s.launches = 0;
  s.last = FakeHipLaunch{};
  s.log.clear();
  s.elapsedCalls = 0;
  s.graphLaunches = 0;
  currentDevice = 0;
}

FAKE_EXPORT size_t fakeHipLiveTimingObjects() {
  std::lock_guard<std::mutex> lock(state().mutex);
  State &s = state();
  return s.streams.size() + s.events.size() + s.graphs.size() + s.execs.size();
}

FAKE_EXPORT int fakeHipGraphLaunchCount() {
  std::lock_guard<std::mutex> lock(state().mutex);
  return state().graphLaunches;
}

FAKE_EXPORT void fakeHipFailNext(const char *function, int error) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.failNext[function] = error;
}

FAKE_EXPORT int fakeHipLaunchCount() {
  std::lock_guard<std::mutex> lock(state().mutex);
  return state().launches;
}

FAKE_EXPORT const FakeHipLaunch *fakeHipLastLaunch() { return &state().last; }

FAKE_EXPORT const char *fakeHipCallLog() { return state().log.c_str(); }

FAKE_EXPORT void fakeHipClearLog() {
  std::lock_guard<std::mutex> lock(state().mutex);
  state().log.clear();
}

FAKE_EXPORT size_t fakeHipLiveAllocations() {
  std::lock_guard<std::mutex> lock(state().mutex);
  return state().allocations.size();
}

FAKE_EXPORT size_t fakeHipLoadedModules() {
  std::lock_guard<std::mutex> lock(state().mutex);
  return state().modules.size();
}

//===--- HIP entry points -------------------------------------------------===//

FAKE_EXPORT const char *hipGetErrorName(int error) {
  switch (error) {
  case 0:
    return "hipSuccess";
  case 1:
    return "hipErrorInvalidValue";
  case 2:
    return "hipErrorOutOfMemory";
  case 100:
    return "hipErrorNoDevice";
  case 101:
    return "hipErrorInvalidDevice";
  case 200:
    return "hipErrorInvalidImage";
  case 209:
    return "hipErrorNoBinaryForGpu";
  case 500:
    return "hipErrorNotFound";
  case 719:
    return "hipErrorLaunchFailure";
  case 999:
    return "hipErrorUnknown";
  default:
    return "hipErrorUnknown";
  }
}

FAKE_EXPORT const char *hipGetErrorString(int error) {
  switch (error) {
  case 0:
    return "no error";
  case 1:
    return "invalid argument";
  case 2:
    return "out of memory";
  case 100:
    return "no ROCm-capable device is detected";
  case 101:
    return "invalid device ordinal";
  case 200:
    return "device kernel image is invalid";
  case 209:
    return "no kernel image is available for execution on the device";
  case 500:
    return "named symbol not found";
  case 719:
    return "unspecified launch failure";
  default:
    return "unknown error";
  }
}

FAKE_EXPORT int hipInit(unsigned flags) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  record(s, "hipInit");
  if (flags != 0)
    return 1;
  if (s.mode == kFakeHipNoGpu)
    return 101;
  if (s.mode == kFakeHipInitFails)
    return 999;
  return 0;
}

FAKE_EXPORT int hipGetDeviceCount(int *count) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  record(s, "hipGetDeviceCount");
  if (!count)
    return 1;
  *count = 0;
  if (s.mode == kFakeHipNoGpu)
    return 100;
  if (s.mode == kFakeHipZeroCount)
    return 0;
  *count = s.deviceCount;
  return 0;
}

FAKE_EXPORT int hipSetDevice(int device) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  record(s, "hipSetDevice(" + std::to_string(device) + ")");
  if (int e = injected(s, "hipSetDevice"))
    return e;
  if (device < 0 || device >= s.deviceCount)
    return 101;
  currentDevice = device;
  return 0;
}

FAKE_EXPORT int hipGetDevice(int *device) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  record(s, "hipGetDevice");
  if (int e = injected(s, "hipGetDevice"))
    return e;
  if (!device)
    return 1;
  *device = currentDevice;
  return 0;
}

// Stream capture: launches on a capturing stream are collected into its
// graph, not run; a test may also bracket launches with these by hand (any
// pointer as the stream) and check the call log.
FAKE_EXPORT int hipStreamBeginCapture(void *stream, int mode) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  record(s, "hipStreamBeginCapture");
  if (int e = injected(s, "hipStreamBeginCapture"))
    return e;
  if (s.capturing.count(stream))
    return 1;
  s.capturing[stream] = new Graph;
  return 0;
}

FAKE_EXPORT int hipStreamEndCapture(void *stream, void **graph) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  record(s, "hipStreamEndCapture");
  auto it = s.capturing.find(stream);
  if (it == s.capturing.end())
    return 1;
  Graph *captured = it->second;
  s.capturing.erase(it);
  if (graph) {
    s.graphs.insert(captured);
    *graph = captured;
  } else {
    delete captured;
  }
  return 0;
}

FAKE_EXPORT int hipGraphInstantiate(void **exec, void *graph, void **errorNode, char *log,
                                    size_t logBytes) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  record(s, "hipGraphInstantiate");
  if (int e = injected(s, "hipGraphInstantiate"))
    return e;
  auto *g = static_cast<Graph *>(graph);
  if (!exec || !s.graphs.count(g))
    return 1;
  auto *instance = new Graph(*g);
  s.execs.insert(instance);
  *exec = instance;
  return 0;
}

FAKE_EXPORT int hipGraphExecDestroy(void *exec) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  record(s, "hipGraphExecDestroy");
  auto *g = static_cast<Graph *>(exec);
  if (!s.execs.erase(g))
    return 1;
  delete g;
  return 0;
}

FAKE_EXPORT int hipGraphDestroy(void *graph) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  record(s, "hipGraphDestroy");
  auto *g = static_cast<Graph *>(graph);
  if (!s.graphs.erase(g))
    return 1;
  delete g;
  return 0;
}

FAKE_EXPORT int hipStreamCreate(void **stream) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  record(s, "hipStreamCreate");
  if (int e = injected(s, "hipStreamCreate"))
    return e;
  void *token = std::malloc(1);
  s.streams.insert(token);
  *stream = token;
  return 0;
}

FAKE_EXPORT int hipStreamDestroy(void *stream) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  record(s, "hipStreamDestroy");
  if (!s.streams.erase(stream))
    return 1;
  std::free(stream);
  return 0;
}

FAKE_EXPORT int hipStreamSynchronize(void *stream) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  record(s, "hipStreamSynchronize");
  return s.streams.count(stream) ? injected(s, "hipStreamSynchronize") : 1;
}

FAKE_EXPORT int hipEventCreate(void **event) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  record(s, "hipEventCreate");
  void *token = std::malloc(1);
  s.events.insert(token);
  *event = token;
  return 0;
}

FAKE_EXPORT int hipEventDestroy(void *event) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  record(s, "hipEventDestroy");
  if (!s.events.erase(event))
    return 1;
  std::free(event);
  return 0;
}

FAKE_EXPORT int hipEventRecord(void *event, void *stream) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  record(s, "hipEventRecord");
  return s.events.count(event) && s.streams.count(stream) ? 0 : 1;
}

FAKE_EXPORT int hipEventSynchronize(void *event) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  record(s, "hipEventSynchronize");
  return s.events.count(event) ? 0 : 1;
}

// The k-th call since fakeHipReset (k from 0) reports (k mod 10 + 1) / 100
// ms: 10, 20, ..., 100 us, so that a test knows every sample.
FAKE_EXPORT int hipEventElapsedTime(float *ms, void *start, void *stop) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  record(s, "hipEventElapsedTime");
  if (!ms || !s.events.count(start) || !s.events.count(stop))
    return 1;
  *ms = float(s.elapsedCalls++ % 10 + 1) / 100.0f;
  return 0;
}

FAKE_EXPORT int hipMalloc(void **pointer, size_t bytes) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  record(s, "hipMalloc(" + std::to_string(bytes) + ")");
  if (int e = injected(s, "hipMalloc"))
    return e;
  void *p = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
  if (!p)
    return 2;
  s.allocations[reinterpret_cast<uintptr_t>(p)] = bytes;
  *pointer = p;
  return 0;
}

FAKE_EXPORT int hipFree(void *pointer) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  record(s, "hipFree");
  if (s.allocations.erase(reinterpret_cast<uintptr_t>(pointer)) == 0)
    return 1;
  std::free(pointer);
  return 0;
}

FAKE_EXPORT int hipMemcpy(void *dst, const void *src, size_t bytes, int kind) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  record(s, "hipMemcpy(" + std::to_string(bytes) + "," + std::to_string(kind) + ")");
  if (int e = injected(s, "hipMemcpy"))
    return e;
  // The kind must match where the pointers are, as on a real GPU.
  if (kind == 1 && (!isDevice(s, dst, bytes) || isDevice(s, src, bytes)))
    return 1;
  if (kind == 2 && (!isDevice(s, src, bytes) || isDevice(s, dst, bytes)))
    return 1;
  if (kind != 1 && kind != 2)
    return 1;
  std::memcpy(dst, src, bytes);
  return 0;
}

FAKE_EXPORT int hipModuleLoadData(void **module, const void *image) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  record(s, "hipModuleLoadData");
  if (int e = injected(s, "hipModuleLoadData"))
    return e;
  const unsigned char *bytes = static_cast<const unsigned char *>(image);
  if (!bytes || std::memcmp(bytes,
                            "\x7f"
                            "ELF",
                            4) != 0)
    return 200;
  // A real 64-bit ELF (a code object of our compiler, as the C API tests
  // load): its size from the section header table, which ends the file in
  // what lld writes; its functions are the names in its string tables.
  if (bytes[4] == 2) {
    uint64_t sectionHeaders;
    uint16_t entrySize, entries;
    std::memcpy(&sectionHeaders, bytes + 0x28, 8);
    std::memcpy(&entrySize, bytes + 0x3a, 2);
    std::memcpy(&entries, bytes + 0x3c, 2);
    size_t size = size_t(sectionHeaders) + size_t(entrySize) * entries;
    auto *m = new Module{std::vector<unsigned char>(bytes, bytes + size), {}};
    m->realElf = true;
    s.modules[m] = true;
    *module = m;
    return 0;
  }
  // The fake's "ELF": the magic, then kernel names as NUL-terminated strings,
  // ended by an empty one.
  size_t size = 4;
  while (bytes[size] != 0)
    size += std::strlen(reinterpret_cast<const char *>(bytes + size)) + 1;
  auto *m = new Module{std::vector<unsigned char>(bytes, bytes + size + 1), {}};
  s.modules[m] = true;
  *module = m;
  return 0;
}

FAKE_EXPORT int hipModuleUnload(void *module) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  record(s, "hipModuleUnload");
  auto *m = static_cast<Module *>(module);
  if (s.modules.erase(m) == 0)
    return 1;
  delete m;
  return 0;
}

FAKE_EXPORT int hipModuleGetFunction(void **function, void *module, const char *name) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  record(s, std::string("hipModuleGetFunction(") + name + ")");
  auto *m = static_cast<Module *>(module);
  if (!s.modules.count(m))
    return 1;
  if (m->realElf) {
    // Any NUL-terminated string of the image that equals `name`.
    const std::string wanted = std::string(name) + '\0';
    for (size_t at = 1; at + wanted.size() <= m->image.size(); ++at)
      if (m->image[at - 1] == 0 && std::memcmp(&m->image[at], wanted.data(), wanted.size()) == 0) {
        m->functions.push_back(std::make_unique<Function>(Function{m, name}));
        *function = m->functions.back().get();
        return 0;
      }
    return 500;
  }
  for (size_t at = 4; at < m->image.size() && m->image[at] != 0;) {
    const char *candidate = reinterpret_cast<const char *>(&m->image[at]);
    if (std::strcmp(candidate, name) == 0) {
      m->functions.push_back(std::make_unique<Function>(Function{m, name}));
      *function = m->functions.back().get();
      return 0;
    }
    at += std::strlen(candidate) + 1;
  }
  return 500;
}

namespace {

/// fake_fill(uint32_t *out, uint32_t value, uint32_t count): out[0..count)
/// = value. Other kernels do nothing.
int runOnHost(State &s, const Function &f, const FakeHipLaunch &launch) {
  if (f.name == "fake_fill" && launch.kernargSize >= 16) {
    uint64_t out;
    uint32_t value, count;
    std::memcpy(&out, launch.kernarg, 8);
    std::memcpy(&value, launch.kernarg + 8, 4);
    std::memcpy(&count, launch.kernarg + 12, 4);
    auto *p = reinterpret_cast<uint32_t *>(out);
    if (!isDevice(s, p, size_t(count) * 4))
      return 719;
    for (uint32_t i = 0; i < count; ++i)
      p[i] = value;
  }
  return 0;
}

} // namespace

FAKE_EXPORT int hipModuleLaunchKernel(void *function, unsigned gx, unsigned gy, unsigned gz,
                                      unsigned bx, unsigned by, unsigned bz, unsigned shared,
                                      void *stream, void **kernelParams, void **extra) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  record(s, "hipModuleLaunchKernel");
  if (int e = injected(s, "hipModuleLaunchKernel"))
    return e;
  auto *f = static_cast<Function *>(function);
  FakeHipLaunch launch{};
  std::snprintf(launch.functionName, sizeof launch.functionName, "%s", f->name.c_str());
  launch.grid[0] = gx, launch.grid[1] = gy, launch.grid[2] = gz;
  launch.block[0] = bx, launch.block[1] = by, launch.block[2] = bz;
  launch.sharedMemBytes = shared;
  launch.stream = stream;
  launch.kernelParamsWasNull = kernelParams == nullptr;
  launch.device = currentDevice;
  launch.extraWellFormed = extra && extra[0] == reinterpret_cast<void *>(1) &&
                           extra[2] == reinterpret_cast<void *>(2) &&
                           extra[4] == reinterpret_cast<void *>(3);
  if (!launch.extraWellFormed)
    return 1;
  launch.kernargSize = *static_cast<size_t *>(extra[3]);
  if (launch.kernargSize > sizeof launch.kernarg)
    return 1;
  // HIP copies the kernarg buffer at the launch, captured or not. `last`
  // and the count are the launches that reached HIP; a captured one runs
  // when its graph does.
  std::memcpy(launch.kernarg, extra[1], launch.kernargSize);
  s.last = launch;
  ++s.launches;
  if (auto it = s.capturing.find(stream); it != s.capturing.end()) {
    it->second->nodes.push_back({f, launch});
    return 0;
  }
  return runOnHost(s, *f, launch);
}

FAKE_EXPORT int hipGraphLaunch(void *exec, void *stream) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  record(s, "hipGraphLaunch");
  if (int e = injected(s, "hipGraphLaunch"))
    return e;
  auto *g = static_cast<Graph *>(exec);
  if (!s.execs.count(g) || !s.streams.count(stream))
    return 1;
  ++s.graphLaunches;
  for (const Node &node : g->nodes)
    if (int e = runOnHost(s, *node.function, node.launch))
      return e;
  return 0;
}

FAKE_EXPORT int hipMemsetAsync(void *pointer, int value, size_t bytes, void *stream) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  record(s, "hipMemsetAsync");
  if (!isDevice(s, pointer, bytes) || !s.streams.count(stream))
    return 1;
  std::memset(pointer, value, bytes);
  return 0;
}

FAKE_EXPORT int hipDeviceSynchronize() {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  record(s, "hipDeviceSynchronize");
  return injected(s, "hipDeviceSynchronize");
}
