//===- context.cpp - C API: contexts, bundles, JIT, bucket dispatch, launch -===//

#include "capi/capi_internal.h"

#include "numerics/moe_sorting.h"
#include "runtime/device_factory.h"
#include "runtime/spec_launcher.h"
#include "spec/buckets.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>

using mxf::capi::fail;
using mxf::capi::guarded;
using mxf::capi::nullArgument;

mxf_context::~mxf_context() {
  // Kernels and buffers go before the device that holds them.
  for (auto &[key, kernel] : kernels)
    (void)device->unloadModule(kernel->module);
  for (auto &[address, buffer] : buffers)
    (void)device->free(buffer);
}

namespace {

/// The status of a kernel-table failure. Specs are validated before they
/// reach the table and bundle kernels cannot fail, so in strict mode a
/// failure means no bundle holds the spec (or no bucket >= M); otherwise it
/// is the JIT's.
mxf_status tableFailureStatus(const mxf_context &context) {
  return context.strict || !mxf_library_has_jit() ? MXF_ERROR_NOT_FOUND : MXF_ERROR_COMPILE;
}

} // namespace

extern "C" {

void mxf_context_options_init(mxf_context_options *options) {
  if (!options)
    return;
  std::memset(options, 0, sizeof(*options));
  options->api_version = MXFORGE_API_VERSION;
  options->device = "hip";
  options->strict = 0;
  options->cache_mode = MXF_CACHE_FROM_ENVIRONMENT;
  options->cache_directory = nullptr;
  options->code_object_version = 5;
  options->device_ordinal = MXF_DEVICE_CURRENT;
}

mxf_status mxf_context_create(const mxf_context_options *given, mxf_context **context) {
  return guarded("mxf_context_create", [&]() -> mxf_status {
    if (!context)
      return nullArgument("mxf_context_create", "context");
    *context = nullptr;
    mxf_context_options options;
    mxf_context_options_init(&options);
    if (given) {
      // A 1.0/1.1 caller's struct ends before device_ordinal: read only
      // what it has, and give it GPU 0 as those versions did.
      const bool hasOrdinal = (given->api_version >> 16) == MXFORGE_API_VERSION_MAJOR &&
                              (given->api_version & 0xFFFF) >= 2;
      std::memcpy(&options, given,
                  hasOrdinal ? sizeof options : offsetof(mxf_context_options, device_ordinal));
      if (!hasOrdinal)
        options.device_ordinal = 0;
    }
    if ((options.api_version >> 16) != MXFORGE_API_VERSION_MAJOR)
      return fail(MXF_ERROR_VERSION,
                  "mxf_context_create: options are for C API version " +
                      std::to_string(options.api_version >> 16) + "." +
                      std::to_string(options.api_version & 0xFFFF) + ", this library is " +
                      std::to_string(MXFORGE_API_VERSION_MAJOR) + "." +
                      std::to_string(MXFORGE_API_VERSION_MINOR) +
                      " (call mxf_context_options_init)");
    const int cov = options.code_object_version == 0 ? 5 : options.code_object_version;
    if (cov != 5 && cov != 6)
      return fail(MXF_ERROR_INVALID_ARGUMENT,
                  "mxf_context_create: code_object_version " + std::to_string(cov) +
                      " is not 5 or 6");
    mxf::KernelTableOptions tableOptions;
    tableOptions.strict = options.strict != 0;
    mxf::Result<mxf::LateJitPolicy> lateJit = mxf::lateJitPolicyFromEnvironment();
    if (!lateJit.ok())
      return fail(MXF_ERROR_INVALID_ARGUMENT, "mxf_context_create: " + lateJit.error());
    tableOptions.lateJit = lateJit.value();
    tableOptions.jit = mxf::capi::contextCompiler(cov);
    switch (options.cache_mode) {
    case MXF_CACHE_FROM_ENVIRONMENT:
      tableOptions.cache = mxf::cacheLocationFromEnvironment();
      break;
    case MXF_CACHE_OFF:
      break;
    case MXF_CACHE_DIRECTORY:
      if (!options.cache_directory || !*options.cache_directory)
        return fail(MXF_ERROR_INVALID_ARGUMENT,
                    "mxf_context_create: cache_mode is MXF_CACHE_DIRECTORY but "
                    "cache_directory is empty");
      tableOptions.cache.enabled = true;
      tableOptions.cache.directory = options.cache_directory;
      tableOptions.cache.source = "mxf_context_options";
      break;
    default:
      return fail(MXF_ERROR_INVALID_ARGUMENT, "mxf_context_create: unknown cache_mode " +
                                                  std::to_string(int(options.cache_mode)));
    }
    const char *kind = options.device ? options.device : "hip";
    if (options.device_ordinal < MXF_DEVICE_CURRENT)
      return fail(MXF_ERROR_INVALID_ARGUMENT,
                  "mxf_context_create: device_ordinal " + std::to_string(options.device_ordinal) +
                      " is not a GPU ordinal (0, 1, ...) or MXF_DEVICE_CURRENT (-1)");
    mxf::runtime::DeviceOpenOptions deviceOptions;
    deviceOptions.ordinal = options.device_ordinal;
    mxf::Result<std::unique_ptr<mxf::runtime::Device>> device =
        mxf::runtime::openDevice(kind, deviceOptions);
    if (!device.ok())
      return fail(MXF_ERROR_DEVICE, "mxf_context_create: " + device.error());
    auto created = std::make_unique<mxf_context>();
    created->device = std::move(device.value());
    created->deviceDescription = created->device->description();
    created->strict = tableOptions.strict;
    created->onlyOwnBuffers = std::string(kind) == "emu";
    created->cacheLocation = tableOptions.cache;
    created->table = std::make_unique<mxf::KernelTable>(std::move(tableOptions));
    *context = created.release();
    return MXF_SUCCESS;
  });
}

mxf_status mxf_context_mark_startup_done(mxf_context *context) {
  return guarded("mxf_context_mark_startup_done", [&]() -> mxf_status {
    if (!context)
      return nullArgument("mxf_context_mark_startup_done", "context");
    context->table->markStartupDone();
    return MXF_SUCCESS;
  });
}

mxf_status mxf_context_set_late_jit(mxf_context *context, int policy) {
  return guarded("mxf_context_set_late_jit", [&]() -> mxf_status {
    if (!context)
      return nullArgument("mxf_context_set_late_jit", "context");
    switch (policy) {
    case MXF_LATE_JIT_ALLOW:
      context->table->setLateJitPolicy(mxf::LateJitPolicy::Allow, "mxf_context_set_late_jit");
      return MXF_SUCCESS;
    case MXF_LATE_JIT_WARN:
      context->table->setLateJitPolicy(mxf::LateJitPolicy::Warn);
      return MXF_SUCCESS;
    case MXF_LATE_JIT_ERROR:
      context->table->setLateJitPolicy(mxf::LateJitPolicy::Error);
      return MXF_SUCCESS;
    }
    return fail(MXF_ERROR_INVALID_ARGUMENT, "mxf_context_set_late_jit: policy " +
                                                std::to_string(policy) +
                                                " is not MXF_LATE_JIT_ALLOW, _WARN or _ERROR");
  });
}

void mxf_context_destroy(mxf_context *context) { delete context; }

const char *mxf_context_device(const mxf_context *context) {
  return context ? context->deviceDescription.c_str() : "";
}

mxf_status mxf_load_bundle(mxf_context *context, const char *path, size_t *kernelCount) {
  return guarded("mxf_load_bundle", [&]() -> mxf_status {
    if (!context)
      return nullArgument("mxf_load_bundle", "context");
    if (!path)
      return nullArgument("mxf_load_bundle", "path");
    mxf::Result<mxf::Bundle> bundle = mxf::Bundle::load(path);
    if (!bundle.ok())
      return fail(MXF_ERROR_BUNDLE, "mxf_load_bundle: " + bundle.error());
    if (kernelCount)
      *kernelCount = bundle.value().size();
    auto shared = std::make_shared<const mxf::Bundle>(std::move(bundle.value()));
    context->table->addBundle(shared);
    mxf::capi::recordBundle(*context, path, shared);
    return MXF_SUCCESS;
  });
}

mxf_status mxf_compile(mxf_context *context, const char *spec) {
  return guarded("mxf_compile", [&]() -> mxf_status {
    if (!context)
      return nullArgument("mxf_compile", "context");
    if (!spec)
      return nullArgument("mxf_compile", "spec");
    mxf::Result<mxf::KernelSpec> parsed = mxf::parseSpec(spec);
    if (!parsed.ok())
      return fail(MXF_ERROR_INVALID_ARGUMENT, "mxf_compile: invalid spec: " + parsed.error());
    mxf::Result<mxf::KernelHandle> kernel = context->table->get(parsed.value());
    if (!kernel.ok())
      return fail(tableFailureStatus(*context), "mxf_compile: " + kernel.error());
    mxf::capi::recordKernel(*context, kernel.value(), false);
    return MXF_SUCCESS;
  });
}

mxf_status mxf_compile_all(mxf_context *context, const char *const *specs, size_t count,
                           unsigned threads, mxf_status *statuses) {
  return guarded("mxf_compile_all", [&]() -> mxf_status {
    if (!context)
      return nullArgument("mxf_compile_all", "context");
    if (!specs && count)
      return nullArgument("mxf_compile_all", "specs");
    std::vector<mxf_status> results(count, MXF_SUCCESS);
    std::vector<std::string> messages(count);
    std::vector<mxf::KernelSpec> parsed;
    std::vector<size_t> parsedIndex;
    for (size_t i = 0; i < count; ++i) {
      if (!specs[i]) {
        results[i] = MXF_ERROR_INVALID_ARGUMENT;
        messages[i] = "specs[" + std::to_string(i) + "] is NULL";
        continue;
      }
      mxf::Result<mxf::KernelSpec> spec = mxf::parseSpec(specs[i]);
      if (!spec.ok()) {
        results[i] = MXF_ERROR_INVALID_ARGUMENT;
        messages[i] = "specs[" + std::to_string(i) + "]: invalid spec: " + spec.error();
        continue;
      }
      parsed.push_back(spec.value());
      parsedIndex.push_back(i);
    }
    std::vector<mxf::Result<mxf::KernelHandle>> compiled =
        context->table->compileAll(parsed, threads);
    for (size_t j = 0; j < compiled.size(); ++j)
      if (compiled[j].ok()) {
        mxf::capi::recordKernel(*context, compiled[j].value(), false);
      } else {
        size_t i = parsedIndex[j];
        results[i] = tableFailureStatus(*context);
        messages[i] = "specs[" + std::to_string(i) + "]: " + compiled[j].error();
      }
    size_t failures = 0;
    size_t first = count;
    for (size_t i = 0; i < count; ++i) {
      if (statuses)
        statuses[i] = results[i];
      if (results[i] != MXF_SUCCESS) {
        ++failures;
        first = std::min(first, i);
      }
    }
    if (!failures)
      return MXF_SUCCESS;
    return fail(results[first], "mxf_compile_all: " + std::to_string(failures) + " of " +
                                    std::to_string(count) + " specs failed; first: " +
                                    messages[first]);
  });
}

mxf_status mxf_find_kernel(mxf_context *context, const char *spec, int m,
                           const mxf_kernel **kernel) {
  return guarded("mxf_find_kernel", [&]() -> mxf_status {
    if (!context)
      return nullArgument("mxf_find_kernel", "context");
    if (!spec)
      return nullArgument("mxf_find_kernel", "spec");
    if (!kernel)
      return nullArgument("mxf_find_kernel", "kernel");
    *kernel = nullptr;
    mxf::Result<mxf::KernelSpec> parsed = mxf::parseSpec(spec);
    if (!parsed.ok())
      return fail(MXF_ERROR_INVALID_ARGUMENT, "mxf_find_kernel: invalid spec: " + parsed.error());
    if (!mxf::kernelHasRowsOperand(parsed.value().op)) {
      // No M buckets (quant_weight): the spec's one kernel takes m = N.
      if (mxf::Status rows = mxf::checkLaunchRows(parsed.value(), m); !rows.ok())
        return fail(MXF_ERROR_INVALID_ARGUMENT, "mxf_find_kernel: " + rows.message() + " (" +
                                                    mxf::specFamily(parsed.value()) + ")");
    } else if (m < 1 || m > mxf::kLargestMBucket)
      return fail(MXF_ERROR_INVALID_ARGUMENT,
                  "mxf_find_kernel: M=" + std::to_string(m) + " is outside 1.." +
                      std::to_string(mxf::kLargestMBucket) + " for " +
                      mxf::specFamily(parsed.value()));
    mxf::Result<mxf::KernelHandle> handle = context->table->forRows(parsed.value(), m);
    if (!handle.ok())
      return fail(tableFailureStatus(*context), "mxf_find_kernel: " + handle.error());

    std::lock_guard<std::mutex> lock(context->mutex);
    auto found = context->kernels.find(handle.value().get());
    if (found != context->kernels.end()) {
      *kernel = found->second.get();
      return MXF_SUCCESS;
    }
    const mxf::CodeObject &object = handle.value()->object;
    mxf::Result<mxf::runtime::Module> module =
        context->device->loadCodeObject(object.hsaco, {object.kernel});
    if (!module.ok())
      return fail(MXF_ERROR_DEVICE, "mxf_find_kernel: loading " + object.spec + ": " +
                                        module.error());
    mxf::Result<mxf::runtime::Kernel> deviceKernel =
        context->device->getKernel(module.value(), object.kernel.name);
    if (!deviceKernel.ok()) {
      (void)context->device->unloadModule(module.value());
      return fail(MXF_ERROR_DEVICE, "mxf_find_kernel: " + deviceKernel.error());
    }
    mxf::Result<mxf::runtime::SpecLauncher> launcher =
        mxf::runtime::SpecLauncher::create(handle.value()->spec, object.launch);
    if (!launcher.ok()) {
      (void)context->device->unloadModule(module.value());
      return fail(MXF_ERROR_INVALID_ARGUMENT, "mxf_find_kernel: " + object.spec + ": " +
                                                  launcher.error());
    }
    auto entry = std::make_unique<mxf_kernel>();
    entry->context = context;
    entry->handle = handle.value();
    entry->module = module.value();
    entry->deviceKernel = deviceKernel.value();
    entry->launcher.emplace(std::move(launcher.value()));
    // At the bucket (or N), dense: what mxf_kernel_get_operand reports.
    for (const mxf::KernelOperand &operand : entry->launcher->operands())
      entry->operandBytes.push_back(mxf::operandSpanBytes(operand, operand.rowElements()));
    entry->spec = mxf::printSpec(handle.value()->spec);
    entry->name = object.kernel.name;
    entry->origin = mxf::reportedOrigin(*handle.value());
    *kernel = entry.get();
    context->kernels.emplace(handle.value().get(), std::move(entry));
    mxf::capi::recordKernel(*context, handle.value(), true, /*locked=*/true);
    return MXF_SUCCESS;
  });
}

mxf_status mxf_kernel_get_info(const mxf_kernel *kernel, mxf_kernel_info *info) {
  if (!kernel)
    return nullArgument("mxf_kernel_get_info", "kernel");
  if (!info)
    return nullArgument("mxf_kernel_get_info", "info");
  const mxf::CodeObject &object = kernel->handle->object;
  info->spec = kernel->spec.c_str();
  info->name = kernel->name.c_str();
  info->origin = kernel->origin.c_str();
  info->bucket = int(mxf::maxLaunchRows(kernel->handle->spec));
  info->vgprs = object.kernel.vgprCount;
  info->sgprs = object.kernel.sgprCount;
  info->lds_bytes = object.kernel.ldsBytes;
  info->scratch_bytes = object.kernel.scratchBytes;
  info->operand_count = kernel->launcher->operands().size();
  return MXF_SUCCESS;
}

mxf_status mxf_kernel_get_operand(const mxf_kernel *kernel, size_t index,
                                  mxf_operand_info *info) {
  if (!kernel)
    return nullArgument("mxf_kernel_get_operand", "kernel");
  if (!info)
    return nullArgument("mxf_kernel_get_operand", "info");
  if (index >= kernel->launcher->operands().size())
    return fail(MXF_ERROR_INVALID_ARGUMENT,
                "mxf_kernel_get_operand: index " + std::to_string(index) + " >= operand count " +
                    std::to_string(kernel->launcher->operands().size()));
  const mxf::KernelOperand &operand = kernel->launcher->operands()[index];
  info->name = operand.name;
  info->element = mxf::operandElementName(operand.element);
  info->bytes = kernel->operandBytes[index];
  info->is_output = operand.written ? 1 : 0;
  info->row_stride_arg = operand.rowStrideArg;
  return MXF_SUCCESS;
}

mxf_status mxf_kernel_get_launch(const mxf_kernel *kernel, int m, mxf_launch_info *info) {
  if (!kernel)
    return nullArgument("mxf_kernel_get_launch", "kernel");
  if (!info)
    return nullArgument("mxf_kernel_get_launch", "info");
  const mxf::CodeObject &object = kernel->handle->object;
  const mxf::KernelSpec &spec = kernel->handle->spec;
  if (mxf::Status rows = mxf::checkLaunchRows(spec, object.launch, m); !rows.ok())
    return fail(MXF_ERROR_INVALID_ARGUMENT, "mxf_kernel_get_launch: " + rows.message());
  const std::array<uint32_t, 3> grid = object.launch.gridFor(uint32_t(m));
  for (int d = 0; d < 3; ++d)
    info->grid[d] = grid[d];
  info->workgroup[0] = object.launch.workgroupSize;
  info->workgroup[1] = info->workgroup[2] = 1;
  info->lds_bytes = object.launch.ldsBytes;
  info->max_rows = object.launch.maxRows;
  info->abi_version = object.launch.abiVersion;
  info->code = object.hsaco.data();
  info->code_bytes = object.hsaco.size();
  return MXF_SUCCESS;
}

mxf_status mxf_launch(mxf_context *context, const mxf_kernel *kernel, int m,
                      void *const *operands, size_t operandCount, void *stream) {
  return mxf_launch_strided(context, kernel, m, operands, nullptr, operandCount, stream);
}

mxf_status mxf_launch_strided(mxf_context *context, const mxf_kernel *kernel, int m,
                              void *const *operands, const int64_t *rowStrides,
                              size_t operandCount, void *stream) {
  return mxf::capi::launchChecked("mxf_launch", context, kernel, m, operands, rowStrides,
                                  operandCount, std::nullopt, stream);
}

mxf_status mxf_launch_selected(mxf_context *context, const mxf_kernel *kernel, int m,
                               void *const *operands, const int64_t *rowStrides,
                               size_t operandCount, int32_t selection, void *stream) {
  return mxf::capi::launchChecked("mxf_launch_selected", context, kernel, m, operands,
                                  rowStrides, operandCount, selection, stream);
}

mxf_status mxf_launch_values(mxf_context *context, const mxf_kernel *kernel, int m,
                             void *const *operands, const int64_t *rowStrides,
                             size_t operandCount, const mxf_value *values, size_t valueCount,
                             void *stream) {
  return guarded("mxf_launch_values", [&]() -> mxf_status {
    if (!kernel)
      return nullArgument("mxf_launch_values", "kernel");
    std::optional<int64_t> selection;
    mxf::LaunchValues opValues;
    if (mxf_status s = mxf::capi::splitLaunchValues("mxf_launch_values", *kernel, values,
                                                    valueCount, selection, opValues);
        s != MXF_SUCCESS)
      return s;
    return mxf::capi::launchChecked("mxf_launch_values", context, kernel, m, operands, rowStrides,
                                    operandCount, selection, stream, opValues);
  });
}

mxf_status mxf_kernel_get_value(const mxf_kernel *kernel, size_t index, const char **name,
                                const char **meaning, size_t *count) {
  return guarded("mxf_kernel_get_value", [&]() -> mxf_status {
    if (!kernel)
      return nullArgument("mxf_kernel_get_value", "kernel");
    return mxf::capi::describeValue("mxf_kernel_get_value",
                                    mxf::opAbi(kernel->handle->spec.op)->values, index, name,
                                    meaning, count);
  });
}

mxf_status mxf_kernel_get_selection(const mxf_kernel *kernel, const char **argName) {
  if (!kernel)
    return nullArgument("mxf_kernel_get_selection", "kernel");
  if (!argName)
    return nullArgument("mxf_kernel_get_selection", "arg_name");
  *argName = mxf::selectionArgName(kernel->handle->spec);
  return MXF_SUCCESS;
}

} // extern "C"

namespace mxf::capi {

mxf_status launchChecked(const char *function, mxf_context *context, const mxf_kernel *kernel,
                         int m, void *const *operands, const int64_t *rowStrides,
                         size_t operandCount, std::optional<int64_t> selection, void *stream,
                         const mxf::LaunchValues &values) {
  return guarded(function, [&]() -> mxf_status {
    if (!context)
      return nullArgument(function, "context");
    if (!kernel)
      return nullArgument(function, "kernel");
    if (mxf_status s = mxf::capi::checkStream(function, *context, stream); s != MXF_SUCCESS)
      return s;
    mxf::runtime::SpecLaunchArgs checked;
    if (mxf_status s = mxf::capi::checkLaunch(function, *context, *kernel, m, operands,
                                              rowStrides, operandCount, selection, stream,
                                              checked, values);
        s != MXF_SUCCESS)
      return s;
    mxf::Status launched = context->device->launch(kernel->deviceKernel, checked.config,
                                                   checked.args, nullptr);
    if (!launched.ok())
      return fail(MXF_ERROR_DEVICE, std::string(function) + ": " + launched.message());
    return MXF_SUCCESS;
  });
}

mxf_status splitLaunchValues(const char *function, const mxf_kernel &kernel,
                             const mxf_value *values, size_t valueCount,
                             std::optional<int64_t> &selection, mxf::LaunchValues &opValues) {
  if (!values && valueCount)
    return nullArgument(function, "values");
  const char *selectionName = mxf::selectionArgName(kernel.handle->spec);
  for (size_t i = 0; i < valueCount; ++i) {
    if (!values[i].name)
      return fail(MXF_ERROR_INVALID_ARGUMENT,
                  std::string(function) + ": value " + std::to_string(i) + " has no name");
    const std::string name = values[i].name;
    const double value = values[i].value;
    if (selectionName && name == selectionName) {
      if (selection)
        return fail(MXF_ERROR_INVALID_ARGUMENT,
                    std::string(function) + ": '" + name + "' is given twice");
      if (!(value >= double(INT32_MIN) && value <= double(INT32_MAX)) ||
          value != double(int64_t(value)))
        return fail(MXF_ERROR_INVALID_ARGUMENT, std::string(function) + ": " + name + "=" +
                                                    std::to_string(value) +
                                                    " is not an i32 integer");
      selection = int64_t(value);
    } else if (!opValues.emplace(name, value).second) {
      return fail(MXF_ERROR_INVALID_ARGUMENT,
                  std::string(function) + ": '" + name + "' is given twice");
    }
  }
  if (selectionName && !selection)
    return fail(MXF_ERROR_INVALID_ARGUMENT,
                std::string(function) + ": " + kernel.name + ": " +
                    mxf::checkSelectionValue(kernel.handle->spec, std::nullopt).message());
  return MXF_SUCCESS;
}

mxf_status describeValue(const char *function, mxf::Span<mxf::ValueArg> values, size_t index,
                         const char **name, const char **meaning, size_t *count) {
  if (count)
    *count = values.count;
  if (!name && !meaning)
    return MXF_SUCCESS;
  if (index >= values.count)
    return fail(MXF_ERROR_INVALID_ARGUMENT, std::string(function) + ": index " +
                                                std::to_string(index) + " >= value count " +
                                                std::to_string(values.count));
  if (name)
    *name = values.data[index].name;
  if (meaning)
    *meaning = values.data[index].meaning;
  return MXF_SUCCESS;
}

mxf_status checkSelectionForm(const char *function, const mxf_kernel &kernel,
                              std::optional<int64_t> selection) {
  // A value where none is taken, or none where one is: the caller used the
  // other entry point, which the message names. The value's range is the
  // launch check's (SpecLauncher::prepare).
  const bool selects = mxf::selectionArgName(kernel.handle->spec) != nullptr;
  if (selects == selection.has_value())
    return MXF_SUCCESS;
  mxf::Status valid = mxf::checkSelectionValue(kernel.handle->spec, selection);
  const std::string hint =
      selects ? " (launch it with mxf_launch_selected or mxf_kernel_launch_params_selected)"
              : " (launch it with mxf_launch_strided or mxf_kernel_launch_params)";
  return fail(MXF_ERROR_INVALID_ARGUMENT,
              std::string(function) + ": " + kernel.name + ": " + valid.message() + hint);
}

mxf_status checkStream(const char *function, const mxf_context &context, const void *stream) {
  if (stream || !context.strict || context.onlyOwnBuffers)
    return MXF_SUCCESS;
  return fail(MXF_ERROR_INVALID_ARGUMENT,
              std::string(function) +
                  ": the stream is NULL (the default stream), which a strict context refuses: "
                  "launch on the engine's own hipStream_t (a default-stream launch "
                  "synchronizes with every stream and cannot be captured in a graph)");
}

mxf_status checkLaunch(const char *function, mxf_context &context, const mxf_kernel &kernel,
                       int m, void *const *operands, const int64_t *rowStrides,
                       size_t operandCount, std::optional<int64_t> selection, void *stream,
                       mxf::runtime::SpecLaunchArgs &checked, const mxf::LaunchValues &values) {
  const std::string name = function;
  if (!operands && operandCount)
    return nullArgument(function, "operands");
  {
    std::lock_guard<std::mutex> lock(context.mutex);
    auto found = context.kernels.find(kernel.handle.get());
    if (found == context.kernels.end() || found->second.get() != &kernel)
      return fail(MXF_ERROR_INVALID_ARGUMENT,
                  name + ": the kernel does not belong to this context");
  }
  if (mxf_status s = checkSelectionForm(function, kernel, selection); s != MXF_SUCCESS)
    return s;
  const mxf::runtime::SpecLauncher &launcher = *kernel.launcher;
  const std::vector<mxf::KernelOperand> &table = launcher.operands();
  std::vector<mxf::runtime::KernelArg> args;
  std::vector<std::optional<int64_t>> strides;
  for (size_t i = 0; i < operandCount; ++i) {
    args.push_back(mxf::runtime::KernelArg::pointer(reinterpret_cast<uint64_t>(operands[i])));
    strides.push_back(rowStrides && rowStrides[i] != 0 ? std::optional<int64_t>(rowStrides[i])
                                                       : std::nullopt);
  }
  // The one check of the launch (count, rows up to the class limit of the
  // kernel's code object, selection, strides), then what only the C API
  // knows: null pointers and mxf_malloc buffers' room.
  mxf::Result<mxf::runtime::SpecLaunchArgs> prepared =
      launcher.prepare(m, args, strides, stream, selection, values);
  if (!prepared.ok()) {
    // A kernel with values launched through a form that has none: name
    // the form that does.
    const bool valuesForm = name.find("_values") != std::string::npos;
    const std::string hint = !valuesForm && !mxf::kernelValueArgs(kernel.handle->spec).empty()
                                 ? " (launch it with mxf_launch_values or "
                                   "mxf_kernel_launch_params_values)"
                                 : "";
    return fail(MXF_ERROR_INVALID_ARGUMENT, name + ": " + prepared.error() + hint);
  }
  for (size_t i = 0; i < operandCount; ++i) {
    if (!operands[i])
      return fail(MXF_ERROR_INVALID_ARGUMENT, name + ": operand " + table[i].name + " is NULL");
    // Memory of mxf_malloc is checked against the operand's span; other
    // pointers (the engine's own allocations) are the caller's to size.
    // m rows (not the bucket) is what the kernel touches.
    const uint64_t needed = prepared.value().operandSpans[i];
    std::optional<uint64_t> room = bytesFrom(context, args[i].address());
    if (!room && context.onlyOwnBuffers)
      return fail(MXF_ERROR_INVALID_ARGUMENT,
                  name + ": operand " + table[i].name +
                      " is not inside a buffer of this context's mxf_malloc (the emu "
                      "device reaches no other memory; a buffer of another context is "
                      "not this one's)");
    if (room && *room < needed)
      return fail(MXF_ERROR_INVALID_ARGUMENT,
                  name + ": operand " + table[i].name + " has " + std::to_string(*room) +
                      " bytes of its buffer from the pointer on, the kernel needs " +
                      std::to_string(needed) + " for m=" + std::to_string(m) + " rows (" +
                      launcher.operandsAt(m)[i].derivation + ")");
  }
  checked = std::move(prepared.value());
  // Only the emu device's own buffers can be read on the host; the operand
  // scan runs only then, not on every hip launch.
  if (context.onlyOwnBuffers &&
      std::any_of(table.begin(), table.end(), [](const mxf::KernelOperand &o) {
        return std::string_view(o.name) == "topk_ids";
      }))
    return checkRoutingOnHost(name, context, kernel.handle->spec, m, operands, kernel);
  return MXF_SUCCESS;
}

/// rotate_quant_moe on the emu device, whose memory the host reads: the ids
/// of topk_ids must name experts (numerics' checkMoeIds). The kernel drops
/// any other id without writing out of bounds, but the sort it writes is
/// then not the routing the engine meant. On hip, topk_ids is device memory
/// that the launch path does not read back (docs/capi.md).
mxf_status checkRoutingOnHost(const std::string &name, mxf_context &context,
                              const mxf::KernelSpec &spec, int m, void *const *operands,
                              const mxf_kernel &kernel) {
  for (size_t i = 0; i < kernel.launcher->operands().size(); ++i) {
    if (std::string(kernel.launcher->operands()[i].name) != "topk_ids")
      continue;
    std::vector<int32_t> ids(size_t(m) * size_t(spec.topk));
    std::optional<BufferSlice> slice =
        findBuffer(context, reinterpret_cast<uint64_t>(operands[i]));
    if (!slice)
      return fail(MXF_ERROR_INVALID_ARGUMENT, name + ": operand topk_ids is not in a buffer");
    if (mxf::Status read = context.device->copyOut(slice->buffer, slice->offset, ids.data(),
                                                   ids.size() * sizeof(int32_t));
        !read.ok())
      return fail(MXF_ERROR_DEVICE, name + ": reading topk_ids: " + read.message());
    if (mxf::Status valid = mxf::checkMoeIds(ids.data(), m, spec.topk, spec.E); !valid.ok())
      return fail(MXF_ERROR_INVALID_ARGUMENT,
                  name + ": " + valid.message() + "; nothing was launched");
  }
  return MXF_SUCCESS;
}

} // namespace mxf::capi
