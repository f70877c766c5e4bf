//===- checkpoint.cpp - C API: quantizing a safetensors checkpoint --------===//
//
// mxf_quantize_checkpoint is weights/checkpoint/'s pipeline, the one
// `mxforge quantize` runs, on the host path: an engine or a Python script
// prepares a checkpoint without the CLI.
//
//===----------------------------------------------------------------------===//

#include "capi/capi_internal.h"

#include "weights/checkpoint/checkpoint_quantizer.h"

#include <algorithm>
#include <cstddef>
#include <cstring>

using mxf::capi::fail;
using mxf::capi::guarded;
using mxf::capi::nullArgument;

extern "C" {

void mxf_quantize_options_init_size(mxf_quantize_options *options, size_t size) {
  if (!options || size < offsetof(mxf_quantize_options, layer_mask))
    return; // shorter than any version's struct: not one of ours
  std::memset(options, 0, std::min(size, sizeof *options));
  // The version whose struct ends where the caller's does.
  options->api_version = size >= offsetof(mxf_quantize_options, layer_mask) + sizeof(char *)
                             ? MXFORGE_API_VERSION
                             : (MXFORGE_API_VERSION_MAJOR << 16) | 7;
}

#undef mxf_quantize_options_init
void mxf_quantize_options_init(mxf_quantize_options *options) {
  mxf_quantize_options_init_size(options, offsetof(mxf_quantize_options, layer_mask));
}

mxf_status mxf_quantize_checkpoint(const mxf_quantize_options *options) {
  const char *function = "mxf_quantize_checkpoint";
  return guarded(function, [&]() -> mxf_status {
    if (!options)
      return nullArgument(function, "options");
    if ((options->api_version >> 16) != MXFORGE_API_VERSION_MAJOR)
      return fail(MXF_ERROR_VERSION, std::string(function) +
                                         ": options of another major version (call "
                                         "mxf_quantize_options_init)");
    mxf::weights::QuantizeOptions quantize;
    for (auto [field, name, target] :
         {std::tuple{options->in, "in", &quantize.in}, std::tuple{options->out, "out", &quantize.out},
          std::tuple{options->spec, "spec", &quantize.spec},
          std::tuple{options->tensors, "tensors", &quantize.tensors}}) {
      if (!field)
        return nullArgument(function, name);
      *target = field;
    }
    if (options->rotation)
      quantize.rotation = options->rotation;
    // A 1.5-1.7 caller's struct ends before layer_mask.
    if ((options->api_version & 0xFFFF) >= 8 && options->layer_mask)
      quantize.layerMask = options->layer_mask;
    quantize.threads = options->threads;
    quantize.force = options->force != 0;
    quantize.check = options->check != 0;
    quantize.progress = options->progress != 0;
    auto sink = [&](int stream) -> mxf::weights::TextSink {
      if (!options->text)
        return {};
      return [options, stream](std::string_view text) {
        options->text(options->user, stream, text.data(), text.size());
      };
    };
    mxf::Status status = mxf::weights::quantizeCheckpoint(quantize, sink(0), sink(1));
    if (!status.ok())
      return fail(MXF_ERROR_INVALID_ARGUMENT, std::string(function) + ": " + status.message());
    return MXF_SUCCESS;
  });
}

} // extern "C"
