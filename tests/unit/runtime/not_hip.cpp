//===- not_hip.cpp - A shared library that is not a HIP runtime -----------===//
//
// Has hipInit but nothing else, so the hip backend's "is it a HIP runtime
// library?" message can be tested.
//
//===----------------------------------------------------------------------===//

extern "C" __attribute__((visibility("default"))) int hipInit(unsigned) { return 0; }
