//===- bundle.h - AOT bundles: many code objects in one checked file -*- C++ -*-===//
//
// A bundle (`.mxfb`) carries precompiled gfx950 code objects, each with its
// canonical spec and its KernelInfo, so an inference engine can look kernels
// up by spec and launch them with no compiler in the process. The byte
// layout, every check and its message are in docs/bundle.md.
//
// Loading verifies everything before handing anything out: the fixed header,
// the declared file size, a SHA-256 of the whole file, the kernel ABI and the
// target the code was built for, then the manifest (bounds, order, canonical
// specs, valid KernelInfos), a SHA-256 per code object, and that each ELF
// code object defines the kernel its entry names. A Bundle that
// loads is therefore safe to use: every code object pointer lies inside the
// bytes it owns and every KernelInfo is fit to pack arguments with.
//
// Plain C++ (no LLVM or MLIR): the runtime links it. Falling back to the JIT
// when a spec is missing (and refusing to, in `strict` mode) is the kernel
// table's job, not this file's.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_RUNTIME_BUNDLE_H
#define MXFORGE_RUNTIME_BUNDLE_H

#include "abi/operands.h"
#include "support/status.h"
#include "abi/kernel_info.h"
#include "abi/launch_record.h"
#include "spec/kernel_spec.h"
#include "support/sha256.h"
#include "abi/versions.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mxf {

/// The version of the layout in docs/bundle.md; a loader reads only its own.
///   1: no launch records; one code object per entry.
///   2: a launch record per entry; entries of one tiling class share a code
///      object (stored once).
///   3: each entry records where its code came from (BundleCodeOrigin).
/// The loader reads formats kOldestBundleFormatVersion to this one (a format
/// 2 entry's origin is Unknown); the writer writes only this one.
constexpr uint32_t kBundleFormatVersion = 3;
constexpr uint32_t kOldestBundleFormatVersion = 2;
/// The only target this runtime loads.
inline constexpr const char *kBundleTarget = "amdgcn-amd-amdhsa--gfx950";
/// "MXFBUNDL": the first 8 bytes of every bundle.
inline constexpr char kBundleMagic[8] = {'M', 'X', 'F', 'B', 'U', 'N', 'D', 'L'};
/// Sizes of the fixed header and of the trailer (the file's SHA-256).
constexpr size_t kBundleHeaderSize = 64;
constexpr size_t kBundleTrailerSize = 32;
/// Code objects start at multiples of this (ELF loaders like aligned input).
constexpr size_t kBundleDataAlignment = 16;
/// Longest version or target string in the header.
constexpr size_t kMaxBundleHeaderString = 256;

/// Where an entry's code object came from, a u32 in the manifest (format 3).
/// `mxforge bundle` writes Compiler: the code is what this mxforge's
/// compiler made for the entry's spec, compiled for the bundle or read back
/// from the owner-only cache the compiler fills, and never a hand-made
/// MXFORGE_KERNEL_OVERRIDE_DIR file. Whether a compile or a cache hit served
/// it is deliberately not recorded: that is an accident of timing, and
/// recording it would make two bundles of the same kernels differ (8 ranks
/// building one bundle together must write identical bytes).
enum class BundleCodeOrigin : uint32_t {
  Unknown = 0,  // a format 2 bundle, or a writer that did not say
  Compiler = 1, // mxforge's compiler (docs/bundle.md)
};
/// "unknown", "compiler"; "invalid" for any other value.
const char *bundleCodeOriginName(BundleCodeOrigin origin);

/// What a bundle says about itself.
struct BundleHeaderInfo {
  uint32_t formatVersion = kBundleFormatVersion;
  uint32_t kernelAbiVersion = kKernelAbiVersion;
  uint32_t templateRevision = kTemplateRevision;
  std::string mxforgeVersion; // who wrote it
  std::string llvmVersion;    // the LLVM that generated the code objects
  std::string target = kBundleTarget;
};

struct BundleLoadOptions {
  /// A bundle for any other target is refused (its code cannot run here).
  std::string expectedTarget = kBundleTarget;
};

/// A loaded, fully verified bundle. It owns the file's bytes; Kernel::hsaco
/// points into them, so a Bundle moves (the pointers stay valid) but does
/// not copy.
class Bundle {
public:
  struct Kernel {
    std::string spec;  // canonical text
    KernelInfo kernel; // decoded and validated (decodeKernelInfo)
    LaunchRecord launch; // validated, and checked against `kernel`
    const uint8_t *hsaco = nullptr;
    size_t hsacoSize = 0;
    Sha256Digest checksum; // SHA-256 of the code object, verified at load
    BundleCodeOrigin origin = BundleCodeOrigin::Unknown;
  };

  /// Verifies and takes `bytes`. Errors name the problem ("truncated (N of M
  /// bytes)", "corrupted (manifest entry 3 ('...'): ...)", ...).
  static Result<Bundle> fromBytes(std::vector<uint8_t> bytes,
                                  const BundleLoadOptions &options = {});
  /// Reads and verifies the file `path`; every error starts with "<path>: ".
  static Result<Bundle> load(const std::string &path, const BundleLoadOptions &options = {});

  Bundle(Bundle &&) = default;
  Bundle &operator=(Bundle &&) = default;
  Bundle(const Bundle &) = delete;
  Bundle &operator=(const Bundle &) = delete;

  const BundleHeaderInfo &header() const { return header_; }
  /// The number of kernels.
  size_t size() const { return kernels_.size(); }
  /// The whole file, as loaded (every Kernel::hsaco points into it).
  const std::vector<uint8_t> &bytes() const { return bytes_; }
  /// In file order, which is ascending spec order (the writer sorts).
  const std::vector<Kernel> &kernels() const { return kernels_; }
  /// The kernel of a canonical spec, or nullptr (binary search).
  const Kernel *find(std::string_view canonicalSpec) const;
  /// The kernel of printSpec(spec), or nullptr.
  const Kernel *find(const KernelSpec &spec) const;

private:
  Bundle() = default;

  std::vector<uint8_t> bytes_;
  BundleHeaderInfo header_;
  std::vector<Kernel> kernels_;
};

} // namespace mxf

#endif // MXFORGE_RUNTIME_BUNDLE_H
