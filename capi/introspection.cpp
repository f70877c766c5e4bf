//===- introspection.cpp - C API: specs' shapes, a context's kernels and cache ===//
//
// What a language binding needs besides launching: the canonical text and
// the operand shapes of a spec without a context (to allocate outputs and to
// propagate shapes while tracing, without compiling), the kernels a context
// holds and where each came from, and its disk cache.
//
//===----------------------------------------------------------------------===//

#include "capi/capi_internal.h"

#include "abi/operands.h"
#include "spec/buckets.h"

#include <cstdint>
#include <cstring>
#include <iterator>
#include <optional>
#include <string_view>

using mxf::capi::fail;
using mxf::capi::guarded;
using mxf::capi::nullArgument;

namespace mxf::capi {

namespace {

/// Copies the strings and the resources of one listing row into `entry`.
void fillEntry(const MxfKernelEntry &row, mxf_kernel_entry *entry) {
  entry->spec = row.spec.c_str();
  entry->name = row.name.c_str();
  entry->origin = row.origin.c_str();
  entry->source = row.source.c_str();
  entry->bucket = row.bucket;
  entry->produced = row.produced ? 1 : 0;
  entry->on_device = row.onDevice ? 1 : 0;
  entry->vgprs = row.vgprs;
  entry->sgprs = row.sgprs;
  entry->lds_bytes = row.ldsBytes;
  entry->scratch_bytes = row.scratchBytes;
  entry->code_bytes = row.codeBytes;
}

/// The listing row of `spec`, created at the end when it is new. Caller
/// holds the context's mutex.
MxfKernelEntry &rowFor(mxf_context &context, const std::string &spec, bool *created) {
  auto found = context.entryBySpec.find(spec);
  *created = found == context.entryBySpec.end();
  if (!*created)
    return *context.entries[found->second];
  context.entryBySpec.emplace(spec, context.entries.size());
  context.entries.push_back(std::make_unique<MxfKernelEntry>());
  context.entries.back()->spec = spec;
  return *context.entries.back();
}

/// Where a produced kernel came from, for the listing's `source`: the first
/// loaded bundle that holds it (earlier bundles win in the table too), the
/// cache directory, or nothing for the JIT.
std::string sourceOf(const mxf_context &context, const TableKernel &kernel) {
  switch (kernel.origin) {
  case KernelOrigin::Bundle:
    for (const auto &[path, bundle] : context.bundles)
      if (bundle->find(kernel.spec))
        return path;
    return "";
  case KernelOrigin::DiskCache:
    return context.table->diskCache() ? context.table->diskCache()->directory() : "";
  case KernelOrigin::Compiled:
  case KernelOrigin::Override: // the override folder is named in its warning
    return "";
  }
  return "";
}

} // namespace

void recordBundle(mxf_context &context, const std::string &path,
                  const std::shared_ptr<const Bundle> &bundle) {
  std::lock_guard<std::mutex> lock(context.mutex);
  context.bundles.emplace_back(path, bundle);
  for (const Bundle::Kernel &kernel : bundle->kernels()) {
    bool created = false;
    MxfKernelEntry &row = rowFor(context, kernel.spec, &created);
    if (!created)
      continue; // an earlier bundle, or a produced kernel, already lists it
    Result<KernelSpec> parsed = parseSpec(kernel.spec);
    row.name = kernel.kernel.name;
    row.origin = kernelOriginName(KernelOrigin::Bundle);
    row.source = path;
    row.bucket = parsed.ok() ? parsed.value().M : 0;
    row.vgprs = kernel.kernel.vgprCount;
    row.sgprs = kernel.kernel.sgprCount;
    row.ldsBytes = kernel.kernel.ldsBytes;
    row.scratchBytes = kernel.kernel.scratchBytes;
    row.codeBytes = kernel.hsacoSize;
  }
}

void recordKernel(mxf_context &context, const KernelHandle &handle, bool onDevice,
                  bool locked) {
  std::unique_lock<std::mutex> lock(context.mutex, std::defer_lock);
  if (!locked)
    lock.lock();
  bool created = false;
  MxfKernelEntry &row = rowFor(context, printSpec(handle->spec), &created);
  if (created) {
    const CodeObject &object = handle->object;
    row.name = object.kernel.name;
    row.origin = reportedOrigin(*handle);
    row.source = sourceOf(context, *handle);
    row.bucket = int(mxf::maxLaunchRows(handle->spec));
    row.vgprs = object.kernel.vgprCount;
    row.sgprs = object.kernel.sgprCount;
    row.ldsBytes = object.kernel.ldsBytes;
    row.scratchBytes = object.kernel.scratchBytes;
    row.codeBytes = object.hsaco.size();
  }
  // A row that exists already is never rewritten (its strings were handed
  // out): it is this kernel's bundle row, since the table takes a spec from
  // the first bundle that holds it, as the listing does, or it was produced.
  row.produced = true;
  row.onDevice = row.onDevice || onDevice;
}

} // namespace mxf::capi

extern "C" {

mxf_status mxf_spec_canonical(const char *spec, char *buffer, size_t size, size_t *length) {
  return guarded("mxf_spec_canonical", [&]() -> mxf_status {
    if (!spec)
      return nullArgument("mxf_spec_canonical", "spec");
    if (!buffer && size)
      return nullArgument("mxf_spec_canonical", "buffer");
    mxf::Result<mxf::KernelSpec> parsed = mxf::parseSpec(spec);
    if (!parsed.ok())
      return fail(MXF_ERROR_INVALID_ARGUMENT,
                  "mxf_spec_canonical: invalid spec: " + parsed.error());
    const std::string text = mxf::printSpec(parsed.value());
    if (length)
      *length = text.size();
    if (size < text.size() + 1)
      return fail(MXF_ERROR_INVALID_ARGUMENT,
                  "mxf_spec_canonical: the canonical spec needs " +
                      std::to_string(text.size() + 1) + " bytes, the buffer has " +
                      std::to_string(size));
    std::memcpy(buffer, text.c_str(), text.size() + 1);
    return MXF_SUCCESS;
  });
}

mxf_status mxf_spec_key_names(const char *const **names, size_t *count) {
  return guarded("mxf_spec_key_names", [&]() -> mxf_status {
    if (!names)
      return nullArgument("mxf_spec_key_names", "names");
    if (!count)
      return nullArgument("mxf_spec_key_names", "count");
    // The key table's spellings are static strings; the array of pointers
    // to them is built once.
    static const std::vector<const char *> table = [] {
      std::vector<const char *> pointers;
      for (std::string_view key : mxf::allSpecKeys())
        pointers.push_back(key.data());
      return pointers;
    }();
    *names = table.data();
    *count = table.size();
    return MXF_SUCCESS;
  });
}

mxf_status mxf_spec_m_buckets(const int **buckets, size_t *count) {
  if (!buckets)
    return nullArgument("mxf_spec_m_buckets", "buckets");
  if (!count)
    return nullArgument("mxf_spec_m_buckets", "count");
  *buckets = mxf::kMBuckets;
  *count = std::size(mxf::kMBuckets);
  return MXF_SUCCESS;
}

mxf_status mxf_spec_bucket_for(int m, int *bucket) {
  if (!bucket)
    return nullArgument("mxf_spec_bucket_for", "bucket");
  std::optional<int> found = mxf::smallestBucketAtLeast(m);
  if (!found)
    return fail(MXF_ERROR_INVALID_ARGUMENT,
                "mxf_spec_bucket_for: m=" + std::to_string(m) + " is outside 1.." +
                    std::to_string(mxf::kLargestMBucket) + " (the M buckets)");
  *bucket = *found;
  return MXF_SUCCESS;
}

mxf_status mxf_spec_get_selection(const char *spec, const char **argName) {
  return guarded("mxf_spec_get_selection", [&]() -> mxf_status {
    if (!spec)
      return nullArgument("mxf_spec_get_selection", "spec");
    if (!argName)
      return nullArgument("mxf_spec_get_selection", "arg_name");
    mxf::Result<mxf::KernelSpec> parsed = mxf::parseSpec(spec);
    if (!parsed.ok())
      return fail(MXF_ERROR_INVALID_ARGUMENT,
                  "mxf_spec_get_selection: invalid spec: " + parsed.error());
    *argName = mxf::selectionArgName(parsed.value());
    return MXF_SUCCESS;
  });
}

namespace {

/// The operands of `spec` (a C string, not null) at `m` rows into `out`, or
/// `function`'s error naming an invalid spec or a negative m.
mxf_status operandsAt(const char *function, const char *spec, int m,
                      std::vector<mxf::KernelOperand> &out) {
  mxf::Result<mxf::KernelSpec> parsed = mxf::parseSpec(spec);
  if (!parsed.ok())
    return fail(MXF_ERROR_INVALID_ARGUMENT,
                std::string(function) + ": invalid spec: " + parsed.error());
  if (m < 0)
    return fail(MXF_ERROR_INVALID_ARGUMENT,
                std::string(function) + ": m=" + std::to_string(m) + " is negative");
  out = mxf::kernelOperands(parsed.value(), m);
  return MXF_SUCCESS;
}

} // namespace

mxf_status mxf_spec_get_operands(const char *spec, int m, mxf_operand_shape *operands,
                                 size_t capacity, size_t *count) {
  return guarded("mxf_spec_get_operands", [&]() -> mxf_status {
    if (!spec)
      return nullArgument("mxf_spec_get_operands", "spec");
    if (!count)
      return nullArgument("mxf_spec_get_operands", "count");
    if (!operands && capacity)
      return nullArgument("mxf_spec_get_operands", "operands");
    *count = 0;
    std::vector<mxf::KernelOperand> atM;
    if (mxf_status s = operandsAt("mxf_spec_get_operands", spec, m, atM); s != MXF_SUCCESS)
      return s;
    for (size_t i = 0; i < atM.size() && i < capacity; ++i) {
      const mxf::KernelOperand &operand = atM[i];
      if (operand.shape.size() > MXF_MAX_OPERAND_RANK)
        return fail(MXF_ERROR_INTERNAL, std::string("mxf_spec_get_operands: operand ") +
                                            operand.name + " has rank " +
                                            std::to_string(operand.shape.size()));
      mxf_operand_shape &out = operands[i];
      out.name = operand.name;
      out.element = mxf::operandElementName(operand.element);
      out.is_output = operand.written ? 1 : 0;
      out.row_stride_arg = operand.rowStrideArg;
      out.rank = operand.shape.size();
      for (size_t d = 0; d < MXF_MAX_OPERAND_RANK; ++d)
        out.shape[d] = d < operand.shape.size() ? operand.shape[d] : 0;
      // Dense: a strided operand at a stride of exactly one row.
      out.bytes = mxf::operandSpanBytes(operand, operand.strided() ? operand.rowElements() : 0);
    }
    *count = atM.size();
    return MXF_SUCCESS;
  });
}

mxf_status mxf_spec_get_workspace(const char *spec, int m, size_t *index, uint64_t *bytes) {
  return guarded("mxf_spec_get_workspace", [&]() -> mxf_status {
    if (!spec)
      return nullArgument("mxf_spec_get_workspace", "spec");
    if (index)
      *index = SIZE_MAX;
    if (bytes)
      *bytes = 0;
    std::vector<mxf::KernelOperand> atM;
    if (mxf_status s = operandsAt("mxf_spec_get_workspace", spec, m, atM); s != MXF_SUCCESS)
      return s;
    for (size_t i = 0; i < atM.size(); ++i)
      if (atM[i].workspace) {
        if (index)
          *index = i;
        if (bytes)
          *bytes = mxf::operandSpanBytes(atM[i], 0);
        break;
      }
    return MXF_SUCCESS;
  });
}

mxf_status mxf_context_kernel_count(mxf_context *context, size_t *count) {
  if (!context)
    return nullArgument("mxf_context_kernel_count", "context");
  if (!count)
    return nullArgument("mxf_context_kernel_count", "count");
  std::lock_guard<std::mutex> lock(context->mutex);
  *count = context->entries.size();
  return MXF_SUCCESS;
}

mxf_status mxf_context_get_kernel(mxf_context *context, size_t index, mxf_kernel_entry *entry) {
  if (!context)
    return nullArgument("mxf_context_get_kernel", "context");
  if (!entry)
    return nullArgument("mxf_context_get_kernel", "entry");
  std::lock_guard<std::mutex> lock(context->mutex);
  if (index >= context->entries.size())
    return fail(MXF_ERROR_INVALID_ARGUMENT,
                "mxf_context_get_kernel: index " + std::to_string(index) +
                    " >= kernel count " + std::to_string(context->entries.size()));
  mxf::capi::fillEntry(*context->entries[index], entry);
  return MXF_SUCCESS;
}

mxf_status mxf_context_get_cache(mxf_context *context, mxf_cache_info *info) {
  return guarded("mxf_context_get_cache", [&]() -> mxf_status {
    if (!context)
      return nullArgument("mxf_context_get_cache", "context");
    if (!info)
      return nullArgument("mxf_context_get_cache", "info");
    std::memset(info, 0, sizeof(*info));
    const mxf::DiskCache *cache = context->table->diskCache();
    info->enabled = cache ? 1 : 0;
    info->directory = cache ? cache->directory().c_str() : "";
    // Why there is no cache when it was asked for: strict mode turns it off.
    info->source = context->strict && context->cacheLocation.enabled
                       ? "strict mode (bundles only)"
                       : context->cacheLocation.source.c_str();
    if (cache) {
      mxf::Result<mxf::CacheStats> stats = cache->stats();
      if (!stats.ok())
        return fail(MXF_ERROR_INTERNAL, "mxf_context_get_cache: " + stats.error());
      info->entries = stats.value().entries;
      info->total_bytes = stats.value().totalBytes;
    }
    const mxf::KernelTableStats table = context->table->stats();
    info->requests = table.requests;
    info->from_bundle = table.fromBundle;
    info->cache_hits = table.cacheHits;
    info->compiled = table.compiled;
    info->shared_code = table.sharedCode;
    info->failures = table.failures;
    return MXF_SUCCESS;
  });
}

} // extern "C"
