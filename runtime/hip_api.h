//===- hip_api.h - The HIP runtime entry points, loaded with dlopen -*- C++ -*-===//
//
// The hip backend binds to whatever HIP runtime the machine has, at run time:
// we ship no HIP headers and link no ROCm (Debian's ROCm is 5.2 and does not
// know gfx950; the machine that runs our kernels has its own). Only the C ABI
// of the few functions below is assumed, and it has been stable since ROCm 5:
// hipError_t is an int-sized enum, handles are pointers.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_RUNTIME_HIP_API_H
#define MXFORGE_RUNTIME_HIP_API_H

#include "support/status.h"

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace mxf::runtime::hip {

/// hipError_t values this runtime names (hip_runtime_api.h).
enum ErrorCode : int {
  kSuccess = 0,
  kErrorNoDevice = 100,      // hipErrorNoDevice
  kErrorInvalidDevice = 101, // hipErrorInvalidDevice
};

/// hipStreamCaptureMode: captures only this thread's work on the stream.
constexpr int kStreamCaptureModeThreadLocal = 1;

/// hipMemcpyKind values.
enum MemcpyKind : int { kMemcpyHostToDevice = 1, kMemcpyDeviceToHost = 2 };

/// The `extra` launch parameters that pass a packed kernarg buffer to
/// hipModuleLaunchKernel (the values of HIP's HIP_LAUNCH_PARAM_* macros).
inline void *const kLaunchParamBufferPointer = reinterpret_cast<void *>(0x01);
inline void *const kLaunchParamBufferSize = reinterpret_cast<void *>(0x02);
inline void *const kLaunchParamEnd = reinterpret_cast<void *>(0x03);

/// The resolved entry points of one HIP runtime library.
struct Api {
  std::string path; // the name dlopen succeeded with

  int (*init)(unsigned flags) = nullptr;
  int (*getDeviceCount)(int *count) = nullptr;
  int (*setDevice)(int ordinal) = nullptr;
  int (*getDevice)(int *ordinal) = nullptr;
  int (*malloc)(void **pointer, size_t bytes) = nullptr;
  int (*free)(void *pointer) = nullptr;
  int (*memcpy)(void *dst, const void *src, size_t bytes, int kind) = nullptr;
  int (*moduleLoadData)(void **module, const void *image) = nullptr;
  int (*moduleUnload)(void *module) = nullptr;
  int (*moduleGetFunction)(void **function, void *module, const char *name) = nullptr;
  int (*moduleLaunchKernel)(void *function, unsigned gridX, unsigned gridY, unsigned gridZ,
                            unsigned blockX, unsigned blockY, unsigned blockZ,
                            unsigned sharedMemBytes, void *stream, void **kernelParams,
                            void **extra) = nullptr;
  int (*deviceSynchronize)() = nullptr;
  const char *(*getErrorString)(int error) = nullptr;
  const char *(*getErrorName)(int error) = nullptr; // optional

  // Timing (hip_timing.h): optional, so that a runtime without graphs still
  // runs kernels; timing names the first one missing.
  int (*streamCreate)(void **stream) = nullptr;
  int (*streamDestroy)(void *stream) = nullptr;
  int (*streamSynchronize)(void *stream) = nullptr;
  int (*streamBeginCapture)(void *stream, int mode) = nullptr;
  int (*streamEndCapture)(void *stream, void **graph) = nullptr;
  int (*graphInstantiate)(void **exec, void *graph, void **errorNode, char *log,
                          size_t logBytes) = nullptr;
  int (*graphLaunch)(void *exec, void *stream) = nullptr;
  int (*graphExecDestroy)(void *exec) = nullptr;
  int (*graphDestroy)(void *graph) = nullptr;
  int (*eventCreate)(void **event) = nullptr;
  int (*eventDestroy)(void *event) = nullptr;
  int (*eventRecord)(void *event, void *stream) = nullptr;
  int (*eventSynchronize)(void *event) = nullptr;
  int (*eventElapsedTime)(float *ms, void *start, void *stop) = nullptr;
  int (*memsetAsync)(void *pointer, int value, size_t bytes, void *stream) = nullptr;

  /// "100 (hipErrorNoDevice: no ROCm-capable device is detected)".
  std::string describe(int error) const;
  /// "<what> failed: error N (...)" for `error`, or success for 0.
  Status check(int error, const std::string &what) const;
};

/// The libraries tried, in order, when no path is given: MXFORGE_HIP_LIBRARY
/// alone when set, else libamdhip64.so, .so.7, .so.6, .so.5.
std::vector<std::string> defaultLibraryCandidates();

/// Opens the first of `candidates` that loads and resolves every required
/// entry point. The library is never unloaded: the HIP runtime does not
/// support being dlclose'd (its static destructors race with its threads),
/// and a process loads it once anyway, so the Api lives as long as the process.
Result<std::shared_ptr<const Api>> loadApi(const std::vector<std::string> &candidates);

} // namespace mxf::runtime::hip

#endif // MXFORGE_RUNTIME_HIP_API_H
