//===- capi_internal.h - What the C API's files share -------------*- C++ -*-===//
//
// The C structs behind the opaque handles of include/mxforge/mxforge.h, the
// per-thread last error, and `guarded`, which turns anything a C++ call
// below might throw (std::bad_alloc) into a status: no exception may cross
// the C boundary.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_CAPI_CAPI_INTERNAL_H
#define MXFORGE_CAPI_CAPI_INTERNAL_H

#include "include/mxforge/mxforge.h"

#include "runtime/kernel_table/kernel_table.h"
#include "abi/op_abi.h"
#include "abi/operands.h"
#include "runtime/device.h"
#include "runtime/spec_launcher.h"

#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <string>
#include <vector>

struct mxf_kernel {
  mxf_context *context = nullptr; // the context that loaded it
  mxf::KernelHandle handle;
  mxf::runtime::Module module;
  mxf::runtime::Kernel deviceKernel;
  /// The kernel's one launch check, its operand table built once.
  std::optional<mxf::runtime::SpecLauncher> launcher;
  std::vector<uint64_t> operandBytes; // each operand's bytes at the bucket
  std::string spec; // the spec asked for (its M the bucket); kept as members
  std::string name; // so that the info's pointers stay valid
  std::string origin;
};

/// One row of mxf_context_get_kernel: a bundle kernel or a produced one.
/// Strings are members so that the C struct's pointers stay valid.
struct MxfKernelEntry {
  std::string spec, name, origin, source;
  int bucket = 0;
  bool produced = false;
  bool onDevice = false;
  uint32_t vgprs = 0, sgprs = 0, ldsBytes = 0, scratchBytes = 0;
  size_t codeBytes = 0;
};

struct mxf_context {
  std::unique_ptr<mxf::runtime::Device> device;
  std::string deviceDescription;
  std::unique_ptr<mxf::KernelTable> table;
  /// Bundles only: the table then fails only for specs no bundle holds.
  bool strict = false;
  /// The emu device reaches only this context's mxf_malloc buffers, so a
  /// pointer outside them is refused before a launch; on hip an engine's
  /// own allocations (torch tensors) are legal and cannot be checked here.
  bool onlyOwnBuffers = false;

  std::mutex mutex; // guards kernels and buffers
  /// One mxf_kernel per table kernel, loaded on the device once.
  std::map<const mxf::TableKernel *, std::unique_ptr<mxf_kernel>> kernels;
  /// Buffers of mxf_malloc by device address.
  std::map<uint64_t, mxf::runtime::DeviceBuffer> buffers;
  /// What mxf_context_get_kernel lists, in arrival order, and the index of
  /// each canonical spec in it. Entries are never removed.
  std::vector<std::unique_ptr<MxfKernelEntry>> entries;
  std::map<std::string, size_t> entryBySpec;
  /// The loaded bundles' paths, in load order (earlier bundles win).
  std::vector<std::pair<std::string, std::shared_ptr<const mxf::Bundle>>> bundles;
  /// Where the cache was asked to be and why (mxf_context_get_cache).
  mxf::CacheLocation cacheLocation;

  ~mxf_context();
};

namespace mxf::capi {

/// The KernelInfos of a code object's metadata (libmxforge: codeobj/, with
/// LLVM; libmxforge_runtime: an error saying it needs libmxforge).
Result<std::vector<KernelInfo>> codeObjectKernels(const std::vector<uint8_t> &hsaco);

/// Records `message` as the calling thread's last error; returns `status`.
mxf_status fail(mxf_status status, std::string message);

/// Runs `body` (returning mxf_status), mapping escaping exceptions to
/// MXF_ERROR_INTERNAL.
template <typename Body> mxf_status guarded(const char *function, Body &&body) {
  try {
    return body();
  } catch (const std::bad_alloc &) {
    return fail(MXF_ERROR_INTERNAL, std::string(function) + ": out of memory");
  } catch (const std::exception &error) {
    return fail(MXF_ERROR_INTERNAL, std::string(function) + ": " + error.what());
  } catch (...) {
    return fail(MXF_ERROR_INTERNAL, std::string(function) + ": unknown C++ exception");
  }
}

/// When `address` lies inside a buffer of mxf_malloc: the buffer and the
/// offset of `address` in it. Locks the context's mutex.
struct BufferSlice {
  mxf::runtime::DeviceBuffer buffer;
  uint64_t offset = 0;
};
std::optional<BufferSlice> findBuffer(mxf_context &context, uint64_t address);
/// rotate_quant_moe on a device whose memory the host reads (emu): every
/// id of topk_ids names an expert; nothing is launched otherwise.
mxf_status checkRoutingOnHost(const std::string &name, mxf_context &context,
                              const mxf::KernelSpec &spec, int m, void *const *operands,
                              const mxf_kernel &kernel);
/// Bytes from `address` to the end of its mxf_malloc buffer, if it has one.
std::optional<uint64_t> bytesFrom(mxf_context &context, uint64_t address);

/// Adds a bundle's kernels to the context's listing. Locks the mutex.
void recordBundle(mxf_context &context, const std::string &path,
                  const std::shared_ptr<const mxf::Bundle> &bundle);
/// Marks the table kernel `handle` as produced (and loaded on the device
/// when `onDevice`) in the listing. Locks the mutex unless `locked`.
void recordKernel(mxf_context &context, const mxf::KernelHandle &handle, bool onDevice,
                  bool locked = false);

/// Every check of one launch of `kernel` (mxf_launch*,
/// mxf_kernel_launch_params*): the kernel is `context`'s, the selection form
/// matches the entry point, the launch itself (SpecLauncher::prepare: count,
/// rows, selection, strides), every pointer non-null and, inside an
/// mxf_malloc buffer (always on the emu device), with room for what m rows
/// span; MoE routing on the emu device. `checked` gets the arguments and
/// config. Errors start with `function`.
mxf_status checkLaunch(const char *function, mxf_context &context, const mxf_kernel &kernel,
                       int m, void *const *operands, const int64_t *rowStrides,
                       size_t operandCount, std::optional<int64_t> selection, void *stream,
                       mxf::runtime::SpecLaunchArgs &checked,
                       const mxf::LaunchValues &values = {});

/// The launch values of the values form (mxf_launch_values,
/// mxf_kernel_launch_params_values): the kernel's selection (`rotate` or
/// `layer`, an integer) split from the op's own values. Errors name the
/// value and start with `function`.
mxf_status splitLaunchValues(const char *function, const mxf_kernel &kernel,
                             const mxf_value *values, size_t valueCount,
                             std::optional<int64_t> &selection, mxf::LaunchValues &opValues);

/// Entry `index` of an op's declared values for mxf_op_get_value and
/// mxf_kernel_get_value (outputs may be null).
mxf_status describeValue(const char *function, mxf::Span<mxf::ValueArg> values, size_t index,
                         const char **name, const char **meaning, size_t *count);

/// A strict context on a GPU refuses the null (default) stream: an AOT
/// engine launches on its own streams, and a launch on the legacy default
/// stream synchronizes with every other stream and breaks graph capture.
/// The emu device ignores streams, so it takes any.
mxf_status checkStream(const char *function, const mxf_context &context, const void *stream);

/// Selective rotation: a selection value exactly when the kernel takes one;
/// the message names the entry point the caller should have used.
mxf_status checkSelectionForm(const char *function, const mxf_kernel &kernel,
                              std::optional<int64_t> selection);

/// mxf_launch_strided and mxf_launch_selected: every check, then the launch.
mxf_status launchChecked(const char *function, mxf_context *context, const mxf_kernel *kernel,
                         int m, void *const *operands, const int64_t *rowStrides,
                         size_t operandCount, std::optional<int64_t> selection, void *stream,
                         const mxf::LaunchValues &values = {});

/// The compiler a new context's kernel table gets: the in-process JIT in
/// libmxforge (jit_full.cpp); in libmxforge_runtime (jit_none.cpp) a reader
/// of the disk cache that compiles nothing, so that the runtime library
/// links no LLVM or MLIR.
std::optional<mxf::JitCompiler> contextCompiler(int codeObjectVersion);

/// "<function>: <what> is NULL" as MXF_ERROR_INVALID_ARGUMENT.
mxf_status nullArgument(const char *function, const char *what);

} // namespace mxf::capi

#endif // MXFORGE_CAPI_CAPI_INTERNAL_H
