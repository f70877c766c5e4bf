//===- host_memory.cpp - Device memory made of host allocations -----------===//

#include "runtime/host_memory.h"

#include <atomic>
#include <cstring>
#include <new>
#include <string>

namespace mxf::runtime {

HostMemory::HostMemory() {
  static std::atomic<uint64_t> instances{0};
  constexpr uint64_t kWindows = (kLimit - kBase) / kWindow;
  windowBase_ = kBase + (instances.fetch_add(1) % kWindows) * kWindow;
  next_ = windowBase_;
}

Result<uint64_t> HostMemory::allocate(uint64_t bytes) {
  if (bytes == 0)
    return Status::failure("0 bytes requested");
  std::lock_guard<std::mutex> lock(mutex_);
  uint64_t span = (bytes + kAlign - 1) / kAlign * kAlign;
  const uint64_t windowEnd = windowBase_ + kWindow;
  if (bytes > kWindow || span + kGap > windowEnd - next_)
    return Status::failure("the emulated device address space is exhausted (" +
                           std::to_string(bytes) + " bytes requested)");
  std::unique_ptr<uint8_t[]> host(new (std::nothrow) uint8_t[bytes]);
  if (!host)
    return Status::failure("out of host memory for " + std::to_string(bytes) + " bytes");
  std::memset(host.get(), kPoison, bytes);
  uint64_t address = next_;
  next_ += span + kGap;
  allocations_[address] = Allocation{std::move(host), bytes};
  return address;
}

Status HostMemory::free(uint64_t address) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (allocations_.erase(address) == 0)
    return Status::failure("no allocation at this address");
  return Status::success();
}

uint8_t *HostMemory::translate(uint64_t address, uint64_t bytes) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = allocations_.upper_bound(address);
  if (it == allocations_.begin())
    return nullptr;
  --it;
  uint64_t offset = address - it->first;
  if (offset > it->second.size || bytes > it->second.size - offset)
    return nullptr;
  return it->second.host.get() + offset;
}

std::vector<HostMemory::Region> HostMemory::regions() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<Region> out;
  out.reserve(allocations_.size());
  for (const auto &[address, allocation] : allocations_)
    out.push_back(Region{address, allocation.host.get(), allocation.size});
  return out;
}

} // namespace mxf::runtime
