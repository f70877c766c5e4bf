//===- launch_file.cpp - mxf_launch_file: any code object, from JSON ------===//
//
// The C form of `mxforge launch` (runtime/launch_file.h): scripts and
// bindings that already hold a context run a launch file on its device and
// get its "out" arrays written, all or none. Reading a code object's
// metadata needs LLVM, so libmxforge_runtime refuses (codeObjectKernels).
//
//===----------------------------------------------------------------------===//

#include "capi/capi_internal.h"

#include "arrays/npy.h"
#include "runtime/launch_file.h"
#include "support/file_io.h"
#include "support/output_files.h"

using namespace mxf;

extern "C" mxf_status mxf_launch_file(mxf_context *context, const char *path) {
  return capi::guarded("mxf_launch_file", [&]() -> mxf_status {
    if (!context)
      return capi::fail(MXF_ERROR_INVALID_ARGUMENT, "mxf_launch_file: context is null");
    if (!path || !*path)
      return capi::fail(MXF_ERROR_INVALID_ARGUMENT, "mxf_launch_file: path is null or empty");
    Result<runtime::LaunchFile> file = runtime::readLaunchFile(path);
    if (!file.ok())
      return capi::fail(MXF_ERROR_INVALID_ARGUMENT, "mxf_launch_file: " + file.error());
    Result<std::vector<uint8_t>> hsaco = readFileBytes(file.value().codeObjectPath, 256u << 20);
    if (!hsaco.ok())
      return capi::fail(MXF_ERROR_INVALID_ARGUMENT, "mxf_launch_file: " + hsaco.error());
    Result<std::vector<KernelInfo>> kernels = capi::codeObjectKernels(hsaco.value());
    if (!kernels.ok())
      return capi::fail(MXF_ERROR_INVALID_ARGUMENT, "mxf_launch_file: " +
                                                        file.value().codeObjectPath + ": " +
                                                        kernels.error());
    // The file against the code object first: a mismatch is the caller's
    // argument, not a device failure.
    Result<KernelInfo> kernel = runtime::selectKernel(file.value(), kernels.value());
    if (!kernel.ok())
      return capi::fail(MXF_ERROR_INVALID_ARGUMENT, "mxf_launch_file: " + kernel.error());
    if (Status s = runtime::checkLaunchArgs(file.value(), kernel.value()); !s.ok())
      return capi::fail(MXF_ERROR_INVALID_ARGUMENT, "mxf_launch_file: " + s.message());
    Result<runtime::LaunchFileResult> result =
        runtime::runLaunchFile(*context->device, file.value(), hsaco.value(), kernels.value());
    if (!result.ok())
      return capi::fail(MXF_ERROR_DEVICE, "mxf_launch_file: " + result.error());
    std::vector<OutputFile> outputs;
    for (const runtime::LaunchFileOutput &o : result.value().outputs) {
      Result<std::string> npy =
          arrays::encodeNpy(arrays::NpyArray::of<uint8_t>({o.bytes.size()}, o.bytes));
      if (!npy.ok())
        return capi::fail(MXF_ERROR_INTERNAL, "mxf_launch_file: " + npy.error());
      outputs.push_back({"output '" + o.buffer + "'", o.path,
                         std::vector<uint8_t>(npy.value().begin(), npy.value().end())});
    }
    if (Status s = writeOutputFiles(outputs, file.value().inputPaths()); !s.ok())
      return capi::fail(MXF_ERROR_INVALID_ARGUMENT, "mxf_launch_file: " + s.message());
    return MXF_SUCCESS;
  });
}
