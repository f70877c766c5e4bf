//===- fake_hip_client.h - A test's handle on the fake HIP runtime -*- C++ -*-===//
//
// The fake's control entry points and the HIP calls an engine itself makes
// (hipSetDevice, hipGetDevice, stream capture), resolved from the very
// library the backend loads (dlopen of the same path returns the same
// handle). FAKE_HIP_PATH comes from CMake.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_TESTS_UNIT_RUNTIME_FAKE_HIP_CLIENT_H
#define MXFORGE_TESTS_UNIT_RUNTIME_FAKE_HIP_CLIENT_H

#include "tests/unit/runtime/fake_hip_control.h"

#include <gtest/gtest.h>

#include <dlfcn.h>

namespace mxf::test {

struct FakeHip {
  FakeHipResetFn reset;
  FakeHipFailNextFn failNext;
  FakeHipLaunchCountFn launchCount;
  FakeHipLastLaunchFn lastLaunch;
  FakeHipCallLogFn callLog;
  FakeHipCountFn liveAllocations;
  FakeHipCountFn loadedModules;
  FakeHipClearLogFn clearLog;
  FakeHipCountFn liveTimingObjects; // streams, events, graphs and instances
  FakeHipLaunchCountFn graphLaunchCount;
  int (*setDevice)(int);
  int (*getDevice)(int *);
  int (*beginCapture)(void *stream, int mode);
  int (*endCapture)(void *stream, void **graph);

  static FakeHip &get() {
    static FakeHip fake = [] {
      void *handle = dlopen(FAKE_HIP_PATH, RTLD_NOW | RTLD_LOCAL);
      EXPECT_NE(handle, nullptr) << dlerror();
      FakeHip f;
      bind(handle, f.reset, "fakeHipReset");
      bind(handle, f.failNext, "fakeHipFailNext");
      bind(handle, f.launchCount, "fakeHipLaunchCount");
      bind(handle, f.lastLaunch, "fakeHipLastLaunch");
      bind(handle, f.callLog, "fakeHipCallLog");
      bind(handle, f.liveAllocations, "fakeHipLiveAllocations");
      bind(handle, f.loadedModules, "fakeHipLoadedModules");
      bind(handle, f.clearLog, "fakeHipClearLog");
      bind(handle, f.liveTimingObjects, "fakeHipLiveTimingObjects");
      bind(handle, f.graphLaunchCount, "fakeHipGraphLaunchCount");
      bind(handle, f.setDevice, "hipSetDevice");
      bind(handle, f.getDevice, "hipGetDevice");
      bind(handle, f.beginCapture, "hipStreamBeginCapture");
      bind(handle, f.endCapture, "hipStreamEndCapture");
      return f;
    }();
    return fake;
  }

  /// The calling thread's current device, as the engine would read it.
  int current() {
    int device = -1;
    EXPECT_EQ(getDevice(&device), 0);
    return device;
  }

private:
  template <typename T> static void bind(void *handle, T &slot, const char *name) {
    slot = reinterpret_cast<T>(dlsym(handle, name));
    EXPECT_NE(slot, nullptr) << "the fake HIP runtime has no " << name;
  }
};

} // namespace mxf::test

#endif // MXFORGE_TESTS_UNIT_RUNTIME_FAKE_HIP_CLIENT_H
