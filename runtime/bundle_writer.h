//===- bundle_writer.h - Writing AOT bundles ----------------------*- C++ -*-===//
//
// The writing half of runtime/bundle.h: code objects, their canonical specs
// and KernelInfos in, the bytes of docs/bundle.md out. Everything the loader
// would refuse is refused here first, so a bundle this writes always loads
// (for its own target). Kernels are stored in ascending spec order whatever
// order they come in: the same kernels always give the same bytes, and the
// loader finds a spec by binary search.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_RUNTIME_BUNDLE_WRITER_H
#define MXFORGE_RUNTIME_BUNDLE_WRITER_H

#include "support/status.h"
#include "runtime/bundle.h"
#include "abi/kernel_info.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mxf {

struct BundleInput {
  std::string spec; // canonical text: printSpec(parseSpec(spec)) == spec
  KernelInfo kernel;
  LaunchRecord launch;
  std::vector<uint8_t> hsaco; // entries with equal bytes share one stored copy
  BundleCodeOrigin origin = BundleCodeOrigin::Unknown;
};

/// The bundle's bytes. Fails, naming the kernel, on a non-canonical or
/// duplicate spec, an empty code object, a KernelInfo that would not decode
/// back, or one whose target differs from the header's; and on a header
/// string longer than kMaxBundleHeaderString or a formatVersion other than
/// kBundleFormatVersion (the only layout this writes).
Result<std::vector<uint8_t>> encodeBundle(const BundleHeaderInfo &header,
                                          const std::vector<BundleInput> &kernels);

/// encodeBundle, then writeFileAtomically: readers of `path` see the old
/// file or the whole new one. Errors start with "<path>: ".
Status writeBundleFile(const std::string &path, const BundleHeaderInfo &header,
                       const std::vector<BundleInput> &kernels);

} // namespace mxf

#endif // MXFORGE_RUNTIME_BUNDLE_WRITER_H
