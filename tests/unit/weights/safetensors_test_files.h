//===- safetensors_test_files.h - Building safetensors bytes in tests -*- C++ -*-===//
#ifndef MXFORGE_TESTS_UNIT_WEIGHTS_SAFETENSORS_TEST_FILES_H
#define MXFORGE_TESTS_UNIT_WEIGHTS_SAFETENSORS_TEST_FILES_H

#include "weights/safetensors.h"

#include <cstring>
#include <string>
#include <vector>

namespace mxf::testing {

/// The bytes of a file from a plan and each tensor's bytes.
inline std::vector<uint8_t> buildFile(const weights::SafetensorsPlan &plan,
                                      const std::vector<std::vector<uint8_t>> &data) {
  std::vector<uint8_t> file(plan.fileSize);
  std::memcpy(file.data(), plan.header.data(), plan.header.size());
  for (size_t i = 0; i < data.size(); ++i)
    if (!data[i].empty()) // memcpy from an empty vector's null data() is undefined
      std::memcpy(file.data() + plan.offsets[i], data[i].data(), data[i].size());
  return file;
}

/// A file from a raw header text (as a writer that lies would produce).
inline std::vector<uint8_t> rawFile(const std::string &header, size_t dataBytes) {
  std::vector<uint8_t> file(8 + header.size() + dataBytes, 0xAB);
  uint64_t n = header.size();
  for (int i = 0; i < 8; ++i)
    file[size_t(i)] = uint8_t(n >> (8 * i));
  std::memcpy(file.data() + 8, header.data(), header.size());
  return file;
}

} // namespace mxf::testing

#endif
