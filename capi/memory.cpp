//===- memory.cpp - C API: device memory of the context's device -----------===//

#include "capi/capi_internal.h"

using mxf::capi::fail;
using mxf::capi::guarded;
using mxf::capi::nullArgument;

namespace mxf::capi {

std::optional<BufferSlice> findBuffer(mxf_context &context, uint64_t address) {
  std::lock_guard<std::mutex> lock(context.mutex);
  auto after = context.buffers.upper_bound(address);
  if (after == context.buffers.begin())
    return std::nullopt;
  const runtime::DeviceBuffer &buffer = std::prev(after)->second;
  if (address - buffer.address >= buffer.size)
    return std::nullopt;
  return BufferSlice{buffer, address - buffer.address};
}

std::optional<uint64_t> bytesFrom(mxf_context &context, uint64_t address) {
  std::optional<BufferSlice> slice = findBuffer(context, address);
  if (!slice)
    return std::nullopt;
  return slice->buffer.size - slice->offset;
}

} // namespace mxf::capi

namespace {

std::string hexAddress(uint64_t address) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(address));
  return text;
}

/// The buffer slice of a copy, checked: `bytes` from `pointer` must lie in
/// one buffer of mxf_malloc.
mxf_status sliceFor(const char *function, mxf_context &context, const void *pointer,
                    size_t bytes, mxf::capi::BufferSlice &slice) {
  const uint64_t address = reinterpret_cast<uint64_t>(pointer);
  std::optional<mxf::capi::BufferSlice> found = mxf::capi::findBuffer(context, address);
  if (!found)
    return fail(MXF_ERROR_INVALID_ARGUMENT, std::string(function) + ": device pointer " +
                                                hexAddress(address) +
                                                " is not inside a buffer of mxf_malloc");
  if (bytes > found->buffer.size - found->offset)
    return fail(MXF_ERROR_INVALID_ARGUMENT,
                std::string(function) + ": " + std::to_string(bytes) + " bytes from " +
                    hexAddress(address) + " run past the end of its " +
                    std::to_string(found->buffer.size) + "-byte buffer");
  slice = *found;
  return MXF_SUCCESS;
}

} // namespace

extern "C" {

mxf_status mxf_malloc(mxf_context *context, size_t bytes, void **devicePointer) {
  return guarded("mxf_malloc", [&]() -> mxf_status {
    if (!context)
      return nullArgument("mxf_malloc", "context");
    if (!devicePointer)
      return nullArgument("mxf_malloc", "device_pointer");
    *devicePointer = nullptr;
    mxf::Result<mxf::runtime::DeviceBuffer> buffer = context->device->allocate(bytes);
    if (!buffer.ok())
      return fail(MXF_ERROR_DEVICE, "mxf_malloc: " + buffer.error());
    std::lock_guard<std::mutex> lock(context->mutex);
    context->buffers[buffer.value().address] = buffer.value();
    *devicePointer = reinterpret_cast<void *>(buffer.value().address);
    return MXF_SUCCESS;
  });
}

mxf_status mxf_free(mxf_context *context, void *devicePointer) {
  return guarded("mxf_free", [&]() -> mxf_status {
    if (!context)
      return nullArgument("mxf_free", "context");
    if (!devicePointer)
      return MXF_SUCCESS; // like free(NULL)
    mxf::runtime::DeviceBuffer buffer;
    {
      std::lock_guard<std::mutex> lock(context->mutex);
      auto found = context->buffers.find(reinterpret_cast<uint64_t>(devicePointer));
      if (found == context->buffers.end())
        return fail(MXF_ERROR_INVALID_ARGUMENT,
                    "mxf_free: " + hexAddress(reinterpret_cast<uint64_t>(devicePointer)) +
                        " is not a buffer of mxf_malloc (or was freed already)");
      buffer = found->second;
      context->buffers.erase(found);
    }
    if (mxf::Status freed = context->device->free(buffer); !freed.ok())
      return fail(MXF_ERROR_DEVICE, "mxf_free: " + freed.message());
    return MXF_SUCCESS;
  });
}

mxf_status mxf_memcpy_to_device(mxf_context *context, void *deviceDestination,
                                const void *hostSource, size_t bytes) {
  return guarded("mxf_memcpy_to_device", [&]() -> mxf_status {
    if (!context)
      return nullArgument("mxf_memcpy_to_device", "context");
    if (!hostSource && bytes)
      return nullArgument("mxf_memcpy_to_device", "host_source");
    if (!bytes)
      return MXF_SUCCESS;
    mxf::capi::BufferSlice slice;
    if (mxf_status s = sliceFor("mxf_memcpy_to_device", *context, deviceDestination, bytes, slice))
      return s;
    if (mxf::Status copied = context->device->copyIn(slice.buffer, slice.offset, hostSource, bytes);
        !copied.ok())
      return fail(MXF_ERROR_DEVICE, "mxf_memcpy_to_device: " + copied.message());
    return MXF_SUCCESS;
  });
}

mxf_status mxf_memcpy_to_host(mxf_context *context, void *hostDestination,
                              const void *deviceSource, size_t bytes) {
  return guarded("mxf_memcpy_to_host", [&]() -> mxf_status {
    if (!context)
      return nullArgument("mxf_memcpy_to_host", "context");
    if (!hostDestination && bytes)
      return nullArgument("mxf_memcpy_to_host", "host_destination");
    if (!bytes)
      return MXF_SUCCESS;
    mxf::capi::BufferSlice slice;
    if (mxf_status s = sliceFor("mxf_memcpy_to_host", *context, deviceSource, bytes, slice))
      return s;
    if (mxf::Status copied =
            context->device->copyOut(slice.buffer, slice.offset, hostDestination, bytes);
        !copied.ok())
      return fail(MXF_ERROR_DEVICE, "mxf_memcpy_to_host: " + copied.message());
    return MXF_SUCCESS;
  });
}

mxf_status mxf_synchronize(mxf_context *context) {
  return guarded("mxf_synchronize", [&]() -> mxf_status {
    if (!context)
      return nullArgument("mxf_synchronize", "context");
    if (mxf::Status synced = context->device->synchronize(); !synced.ok())
      return fail(MXF_ERROR_DEVICE, "mxf_synchronize: " + synced.message());
    return MXF_SUCCESS;
  });
}

} // extern "C"
