//===- mxforge.hpp - A C++ wrapper over the mxforge C API ---------*- C++ -*-===//
//
// Header-only and built on include/mxforge/mxforge.h alone, so it works with
// any C++17 compiler and standard library (nothing C++ crosses the library
// boundary). It adds what C++ engines expect: RAII for contexts and device
// buffers, std::string and std::vector instead of pointer/length pairs, and
// errors as exceptions (mxforge::Error carries the mxf_status and the
// message of mxf_last_error()).
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_MXFORGE_HPP
#define MXFORGE_MXFORGE_HPP

#include "mxforge/mxforge.h"

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace mxforge {

/// A failed call: what() is mxf_last_error() of the failing call.
class Error : public std::runtime_error {
public:
  Error(mxf_status status, const std::string &message)
      : std::runtime_error(message), status_(status) {}
  mxf_status status() const { return status_; }

private:
  mxf_status status_;
};

/// Throws Error for any status but MXF_SUCCESS.
inline void check(mxf_status status) {
  if (status != MXF_SUCCESS)
    throw Error(status, mxf_last_error());
}

struct ContextOptions {
  std::string device = "hip"; // or "emu"
  bool strict = false;        // bundles only, never compile
  mxf_cache_mode cacheMode = MXF_CACHE_FROM_ENVIRONMENT;
  std::string cacheDirectory; // for MXF_CACHE_DIRECTORY
  int codeObjectVersion = 5;
};

/// One kernel of a context (valid as long as the context).
class Kernel {
public:
  explicit Kernel(const mxf_kernel *kernel) : kernel_(kernel) { check(mxf_kernel_get_info(kernel, &info_)); }
  const mxf_kernel_info &info() const { return info_; }
  std::string spec() const { return info_.spec; }
  int bucket() const { return info_.bucket; }
  std::vector<mxf_operand_info> operands() const {
    std::vector<mxf_operand_info> result(info_.operand_count);
    for (size_t i = 0; i < result.size(); ++i)
      check(mxf_kernel_get_operand(kernel_, i, &result[i]));
    return result;
  }
  const mxf_kernel *get() const { return kernel_; }

private:
  const mxf_kernel *kernel_;
  mxf_kernel_info info_{};
};

class Context;

/// A buffer of mxf_malloc, freed on destruction.
class DeviceBuffer {
public:
  DeviceBuffer() = default;
  DeviceBuffer(mxf_context *context, size_t bytes) : context_(context), bytes_(bytes) {
    check(mxf_malloc(context, bytes, &pointer_));
  }
  DeviceBuffer(DeviceBuffer &&other) noexcept
      : context_(std::exchange(other.context_, nullptr)),
        pointer_(std::exchange(other.pointer_, nullptr)), bytes_(other.bytes_) {}
  DeviceBuffer &operator=(DeviceBuffer &&other) noexcept {
    if (this != &other) {
      reset();
      context_ = std::exchange(other.context_, nullptr);
      pointer_ = std::exchange(other.pointer_, nullptr);
      bytes_ = other.bytes_;
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
  ~DeviceBuffer() { reset(); }

  void *get() const { return pointer_; }
  size_t size() const { return bytes_; }
  void copyFrom(const void *host, size_t bytes) {
    check(mxf_memcpy_to_device(context_, pointer_, host, bytes));
  }
  void copyTo(void *host, size_t bytes) const {
    check(mxf_memcpy_to_host(context_, host, pointer_, bytes));
  }
  /// Frees now (destruction ignores a failure; this reports it).
  void reset() {
    if (context_ && pointer_)
      (void)mxf_free(context_, pointer_);
    context_ = nullptr;
    pointer_ = nullptr;
  }

private:
  mxf_context *context_ = nullptr;
  void *pointer_ = nullptr;
  size_t bytes_ = 0;
};

class Context {
public:
  explicit Context(const ContextOptions &options = {}) {
    mxf_context_options raw;
    mxf_context_options_init(&raw);
    raw.device = options.device.c_str();
    raw.strict = options.strict ? 1 : 0;
    raw.cache_mode = options.cacheMode;
    raw.cache_directory = options.cacheDirectory.empty() ? nullptr : options.cacheDirectory.c_str();
    raw.code_object_version = options.codeObjectVersion;
    check(mxf_context_create(&raw, &context_));
  }
  Context(Context &&other) noexcept : context_(std::exchange(other.context_, nullptr)) {}
  Context &operator=(Context &&other) noexcept {
    if (this != &other) {
      mxf_context_destroy(context_);
      context_ = std::exchange(other.context_, nullptr);
    }
    return *this;
  }
  Context(const Context &) = delete;
  Context &operator=(const Context &) = delete;
  ~Context() { mxf_context_destroy(context_); }

  std::string device() const { return mxf_context_device(context_); }
  /// Returns the number of kernels in the bundle.
  size_t loadBundle(const std::string &path) {
    size_t count = 0;
    check(mxf_load_bundle(context_, path.c_str(), &count));
    return count;
  }
  void compile(const std::string &spec) { check(mxf_compile(context_, spec.c_str())); }
  /// One status per spec; does not throw for failing specs (see
  /// mxf_last_error() or compile() for their messages).
  std::vector<mxf_status> compileAll(const std::vector<std::string> &specs, unsigned threads = 0) {
    std::vector<const char *> texts;
    for (const std::string &spec : specs)
      texts.push_back(spec.c_str());
    std::vector<mxf_status> statuses(specs.size(), MXF_SUCCESS);
    (void)mxf_compile_all(context_, texts.data(), texts.size(), threads, statuses.data());
    return statuses;
  }
  /// Bucket dispatch: the kernel of spec's family for `m` rows.
  Kernel findKernel(const std::string &spec, int m) {
    const mxf_kernel *kernel = nullptr;
    check(mxf_find_kernel(context_, spec.c_str(), m, &kernel));
    return Kernel(kernel);
  }
  void launch(const Kernel &kernel, int m, const std::vector<void *> &operands,
              void *stream = nullptr) {
    check(mxf_launch(context_, kernel.get(), m, operands.data(), operands.size(), stream));
  }
  DeviceBuffer allocate(size_t bytes) { return DeviceBuffer(context_, bytes); }
  void synchronize() { check(mxf_synchronize(context_)); }
  mxf_context *get() const { return context_; }

private:
  mxf_context *context_ = nullptr;
};

} // namespace mxforge

#endif // MXFORGE_MXFORGE_HPP
