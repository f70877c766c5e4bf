//===- bundle_test_support.h - Random bundle inputs and damage helpers -*- C++ -*-===//
//
// Bundles for the tests, made of fake code objects (random bytes: the bundle
// format never looks inside them), random KernelInfos that decodeKernelInfo
// accepts, and real canonical specs; plus the helpers that damage a bundle
// and re-seal it (fix the size field and the trailer checksum) so that the
// checks behind the checksum are reached.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_TESTS_UNIT_BUNDLE_BUNDLE_TEST_SUPPORT_H
#define MXFORGE_TESTS_UNIT_BUNDLE_BUNDLE_TEST_SUPPORT_H

#include "runtime/bundle.h"
#include "runtime/bundle_writer.h"

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace mxf::testing {

/// `count` distinct canonical rotate_quant specs (printSpec(parseSpec(...))).
std::vector<std::string> randomSpecs(std::mt19937_64 &rng, size_t count);

/// A KernelInfo that decodeKernelInfo accepts: explicit buffer and value
/// arguments, some hidden ones, plausible register and LDS counts.
KernelInfo randomKernelInfo(std::mt19937_64 &rng, const std::string &name);
/// A launch record that agrees with `info` (its LDS, a workgroup within its limit).
LaunchRecord launchRecordFor(const KernelInfo &info, std::mt19937_64 &rng);

/// `count` kernels with random code objects of minBytes..maxBytes.
std::vector<BundleInput> randomInputs(std::mt19937_64 &rng, size_t count, size_t minBytes,
                                      size_t maxBytes);

/// Default header: this mxforge's versions, kBundleTarget.
BundleHeaderInfo testHeader();

/// encodeBundle that must succeed.
std::vector<uint8_t> encodeOrDie(const BundleHeaderInfo &header,
                                 const std::vector<BundleInput> &kernels);

/// Writes a little-endian u32/u64 into `bytes` at `offset`.
void putU32(std::vector<uint8_t> &bytes, size_t offset, uint32_t value);
void putU64(std::vector<uint8_t> &bytes, size_t offset, uint64_t value);
uint32_t getU32(const std::vector<uint8_t> &bytes, size_t offset);
uint64_t getU64(const std::vector<uint8_t> &bytes, size_t offset);

/// Recomputes the trailer checksum over everything before it (files of at
/// least header + trailer size only); with `fixSize`, first sets the header's
/// file size to the actual size.
void reseal(std::vector<uint8_t> &bytes, bool fixSize = true);

/// Where the fields of one manifest entry lie in a well-formed bundle (file
/// offsets), for tests that damage one field and re-seal.
struct ManifestEntryFields {
  size_t spec = 0;         // the spec's u32 length; its text follows
  size_t kernelInfo = 0;   // the encoded KernelInfo
  size_t kernelTarget = 0; // the KernelInfo target's u32 length
  size_t launchRecord = 0; // the launch record (kLaunchRecordBytes)
  size_t dataOffset = 0;   // u64
  size_t dataSize = 0;     // u64
  size_t checksum = 0;     // 32 bytes
  size_t origin = 0;       // u32 (format 3)
};
std::vector<ManifestEntryFields> manifestFields(const std::vector<uint8_t> &bundle);


/// True if `a` passes decodeKernelInfo's validation after an encode.
bool kernelInfoDecodes(const KernelInfo &info);

/// A temporary directory removed (with its files) when this goes away.
class TempDir {
public:
  TempDir();
  ~TempDir();
  const std::string &path() const { return path_; }
  std::string file(const std::string &name) const { return path_ + "/" + name; }

private:
  std::string path_;
};

} // namespace mxf::testing

#endif // MXFORGE_TESTS_UNIT_BUNDLE_BUNDLE_TEST_SUPPORT_H
