//===- memory.cpp - Registered global memory with bounds checks -----------===//

#include "emulator/memory.h"

#include <algorithm>
#include <cstdio>

namespace mxf::emu {

namespace {
std::string hex(uint64_t value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "0x%llx", static_cast<unsigned long long>(value));
  return buffer;
}
} // namespace

Result<GlobalMemory> GlobalMemory::create(std::vector<EmuBuffer> buffers) {
  std::sort(buffers.begin(), buffers.end(), [](const EmuBuffer &a, const EmuBuffer &b) {
    return a.deviceAddress < b.deviceAddress;
  });
  for (size_t i = 0; i < buffers.size(); ++i) {
    const EmuBuffer &b = buffers[i];
    if (b.size == 0 || b.host == nullptr)
      return Result<GlobalMemory>::failure("buffer at " + hex(b.deviceAddress) +
                                           " is empty or has no host memory");
    if (b.deviceAddress + b.size < b.deviceAddress)
      return Result<GlobalMemory>::failure("buffer at " + hex(b.deviceAddress) +
                                           " wraps around the address space");
    if (i > 0 && buffers[i - 1].deviceAddress + buffers[i - 1].size > b.deviceAddress)
      return Result<GlobalMemory>::failure("buffers at " + hex(buffers[i - 1].deviceAddress) +
                                           " and " + hex(b.deviceAddress) + " overlap");
  }
  GlobalMemory memory;
  memory.buffers_ = std::move(buffers);
  return memory;
}

uint8_t *GlobalMemory::translate(uint64_t address, uint64_t size) const {
  // The last buffer starting at or below `address`.
  auto it = std::upper_bound(buffers_.begin(), buffers_.end(), address,
                             [](uint64_t a, const EmuBuffer &b) { return a < b.deviceAddress; });
  if (it == buffers_.begin())
    return nullptr;
  --it;
  const uint64_t offset = address - it->deviceAddress;
  if (offset >= it->size || size > it->size - offset)
    return nullptr;
  return static_cast<uint8_t *>(it->host) + offset;
}

std::string GlobalMemory::describeMiss(uint64_t address, uint64_t size) const {
  std::string text = "address " + hex(address) + " (" + std::to_string(size) +
                     " bytes) is outside every registered buffer";
  auto it = std::upper_bound(buffers_.begin(), buffers_.end(), address,
                             [](uint64_t a, const EmuBuffer &b) { return a < b.deviceAddress; });
  if (it != buffers_.begin()) {
    --it;
    text += "; nearest below: [" + hex(it->deviceAddress) + ", " +
            hex(it->deviceAddress + it->size) + ")";
  }
  return text;
}

} // namespace mxf::emu
