//===- fake_hip_control.h - Steering the fake HIP runtime from tests -*- C++ -*-===//
//
// fake_hip.cpp builds a stand-in for libamdhip64.so that the hip backend
// loads like the real one. These extra C entry points (looked up with dlsym
// by the tests) choose its behaviour and expose what it recorded.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_TESTS_UNIT_RUNTIME_FAKE_HIP_CONTROL_H
#define MXFORGE_TESTS_UNIT_RUNTIME_FAKE_HIP_CONTROL_H

#include <cstddef>

extern "C" {

/// What hipInit / hipGetDeviceCount do.
enum FakeHipMode {
  kFakeHipWorking = 0,   // hipInit 0, count = the configured device count
  kFakeHipNoGpu = 1,     // hipInit 101, hipGetDeviceCount 100 with count 0 (a CPU-only box)
  kFakeHipZeroCount = 2, // both succeed, count 0
  kFakeHipInitFails = 3, // hipInit 999 (hipErrorUnknown)
};

/// The most recent hipModuleLaunchKernel, as the fake saw it.
struct FakeHipLaunch {
  char functionName[128];
  unsigned grid[3];
  unsigned block[3];
  unsigned sharedMemBytes;
  void *stream;
  int kernelParamsWasNull; // the backend must pass its arguments through `extra`
  int extraWellFormed;     // BUFFER_POINTER, ptr, BUFFER_SIZE, &size, END
  size_t kernargSize;
  unsigned char kernarg[1024];
  int device; // the thread's current device at launch
};

typedef void (*FakeHipResetFn)(int mode, int deviceCount);
typedef void (*FakeHipFailNextFn)(const char *function, int error);
typedef int (*FakeHipLaunchCountFn)(void);
typedef const FakeHipLaunch *(*FakeHipLastLaunchFn)(void);
typedef const char *(*FakeHipCallLogFn)(void);
typedef size_t (*FakeHipCountFn)(void);
typedef void (*FakeHipClearLogFn)(void);
}

#endif // MXFORGE_TESTS_UNIT_RUNTIME_FAKE_HIP_CONTROL_H
