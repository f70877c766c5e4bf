//===- launch_params.cpp - C API: launching a kernel yourself -------------===//
//
// An engine that owns its streams and graphs (or hands kernels to another
// runtime) needs what mxf_launch does, unbundled: the code object and its
// symbol, the grid from the launch record and the packed kernarg segment.
// mxf_launch_packed runs such a segment on the context's device, so the same
// path runs on the emulator.
//
//===----------------------------------------------------------------------===//

#include "capi/capi_internal.h"

#include "runtime/kernel_args.h"
#include "runtime/spec_launcher.h"

#include <cstring>

using mxf::capi::fail;
using mxf::capi::guarded;
using mxf::capi::nullArgument;

namespace {

mxf_status packLaunch(const char *function, const mxf_kernel *kernel, int m,
                      void *const *operands, const int64_t *rowStrides, size_t operandCount,
                      std::optional<int64_t> selection, void *kernarg, size_t kernargCapacity,
                      mxf_launch_params *params, const mxf::LaunchValues &values = {}) {
  return guarded(function, [&]() -> mxf_status {
    if (!kernel)
      return nullArgument(function, "kernel");
    if (!params)
      return nullArgument(function, "params");
    std::memset(params, 0, sizeof *params);
    mxf::runtime::SpecLaunchArgs prepared;
    if (mxf_status s = mxf::capi::checkLaunch(function, *kernel->context, *kernel, m, operands,
                                              rowStrides, operandCount, selection, nullptr,
                                              prepared, values);
        s != MXF_SUCCESS)
      return s;
    const mxf::CodeObject &object = kernel->handle->object;
    const mxf::runtime::LaunchConfig &config = prepared.config;
    const mxf::runtime::LaunchGeometry geometry{config.grid, config.workgroup,
                                                config.dynamicLdsBytes};
    mxf::Result<mxf::runtime::KernargBuffer> packed =
        mxf::runtime::packKernelArgs(object.kernel, prepared.args, geometry);
    if (!packed.ok())
      return fail(MXF_ERROR_INVALID_ARGUMENT, std::string(function) + ": " + packed.error());
    for (int d = 0; d < 3; ++d) {
      params->grid[d] = config.grid[d];
      params->workgroup[d] = config.workgroup[d];
    }
    params->dynamic_lds_bytes = config.dynamicLdsBytes;
    params->kernarg_bytes = packed.value().size();
    if (!kernarg)
      return nullArgument(function, "kernarg");
    if (kernargCapacity < packed.value().size())
      return fail(MXF_ERROR_INVALID_ARGUMENT,
                  std::string(function) + ": the kernarg buffer has " +
                      std::to_string(kernargCapacity) + " bytes, " + kernel->name + " needs " +
                      std::to_string(packed.value().size()) + " (params->kernarg_bytes)");
    std::memcpy(kernarg, packed.value().data(), packed.value().size());
    return MXF_SUCCESS;
  });
}

} // namespace

extern "C" {


mxf_status mxf_kernel_launch_params(const mxf_kernel *kernel, int m, void *const *operands,
                                    const int64_t *rowStrides, size_t operandCount,
                                    void *kernarg, size_t kernargCapacity,
                                    mxf_launch_params *params) {
  return packLaunch("mxf_kernel_launch_params", kernel, m, operands, rowStrides, operandCount,
                    std::nullopt, kernarg, kernargCapacity, params);
}

mxf_status mxf_kernel_launch_params_selected(const mxf_kernel *kernel, int m,
                                             void *const *operands, const int64_t *rowStrides,
                                             size_t operandCount, int32_t selection,
                                             void *kernarg, size_t kernargCapacity,
                                             mxf_launch_params *params) {
  return packLaunch("mxf_kernel_launch_params_selected", kernel, m, operands, rowStrides,
                    operandCount, selection, kernarg, kernargCapacity, params);
}

mxf_status mxf_kernel_launch_params_values(const mxf_kernel *kernel, int m,
                                           void *const *operands, const int64_t *rowStrides,
                                           size_t operandCount, const mxf_value *values,
                                           size_t valueCount, void *kernarg,
                                           size_t kernargCapacity, mxf_launch_params *params) {
  const char *function = "mxf_kernel_launch_params_values";
  return guarded(function, [&]() -> mxf_status {
    if (!kernel)
      return nullArgument(function, "kernel");
    std::optional<int64_t> selection;
    mxf::LaunchValues opValues;
    if (mxf_status s = mxf::capi::splitLaunchValues(function, *kernel, values, valueCount,
                                                    selection, opValues);
        s != MXF_SUCCESS)
      return s;
    return packLaunch(function, kernel, m, operands, rowStrides, operandCount, selection, kernarg,
                      kernargCapacity, params, opValues);
  });
}

mxf_status mxf_kernel_code_object(const mxf_kernel *kernel, const void **bytes, size_t *size) {
  if (!kernel)
    return nullArgument("mxf_kernel_code_object", "kernel");
  if (!bytes)
    return nullArgument("mxf_kernel_code_object", "bytes");
  if (!size)
    return nullArgument("mxf_kernel_code_object", "size");
  *bytes = kernel->handle->object.hsaco.data();
  *size = kernel->handle->object.hsaco.size();
  return MXF_SUCCESS;
}

mxf_status mxf_kernel_symbol(const mxf_kernel *kernel, const char **symbol) {
  if (!kernel)
    return nullArgument("mxf_kernel_symbol", "kernel");
  if (!symbol)
    return nullArgument("mxf_kernel_symbol", "symbol");
  *symbol = kernel->name.c_str();
  return MXF_SUCCESS;
}

mxf_status mxf_launch_packed(mxf_context *context, const mxf_kernel *kernel,
                             const mxf_launch_params *params, const void *kernarg,
                             size_t kernargBytes, void *stream) {
  return guarded("mxf_launch_packed", [&]() -> mxf_status {
    const char *function = "mxf_launch_packed";
    if (!context)
      return nullArgument(function, "context");
    if (!kernel)
      return nullArgument(function, "kernel");
    if (!params)
      return nullArgument(function, "params");
    if (!kernarg)
      return nullArgument(function, "kernarg");
    if (kernel->context != context)
      return fail(MXF_ERROR_INVALID_ARGUMENT,
                  std::string(function) + ": the kernel does not belong to this context");
    if (mxf_status s = mxf::capi::checkStream(function, *context, stream); s != MXF_SUCCESS)
      return s;
    mxf::runtime::LaunchConfig config;
    config.grid = {params->grid[0], params->grid[1], params->grid[2]};
    config.workgroup = {params->workgroup[0], params->workgroup[1], params->workgroup[2]};
    config.dynamicLdsBytes = params->dynamic_lds_bytes;
    config.stream = stream;
    mxf::Status launched =
        context->device->launchPacked(kernel->deviceKernel, config, kernarg, kernargBytes);
    if (!launched.ok())
      return fail(MXF_ERROR_DEVICE, std::string(function) + ": " + launched.message());
    return MXF_SUCCESS;
  });
}

} // extern "C"
