//===- errors.cpp - C API: status strings, last error, versions -----------===//

#include "capi/capi_internal.h"

#include "support/version.h"

#include "llvm/Config/llvm-config.h"

namespace mxf::capi {
namespace {
thread_local std::string lastError;
} // namespace

mxf_status fail(mxf_status status, std::string message) {
  lastError = std::move(message);
  return status;
}

mxf_status nullArgument(const char *function, const char *what) {
  return fail(MXF_ERROR_INVALID_ARGUMENT, std::string(function) + ": " + what + " is NULL");
}

} // namespace mxf::capi

extern "C" {

const char *mxf_status_string(mxf_status status) {
  switch (status) {
  case MXF_SUCCESS: return "success";
  case MXF_ERROR_INVALID_ARGUMENT: return "invalid argument";
  case MXF_ERROR_NOT_FOUND: return "not found";
  case MXF_ERROR_COMPILE: return "compile error";
  case MXF_ERROR_BUNDLE: return "bundle error";
  case MXF_ERROR_DEVICE: return "device error";
  case MXF_ERROR_VERSION: return "version mismatch";
  case MXF_ERROR_INTERNAL: return "internal error";
  }
  return "unknown status";
}

const char *mxf_last_error(void) { return mxf::capi::lastError.c_str(); }

uint32_t mxf_api_version(void) { return MXFORGE_API_VERSION; }

const char *mxf_version_string(void) {
  static const std::string text =
      std::string("mxforge ") + mxf::mxforgeVersion() + " (LLVM " LLVM_VERSION_STRING ")";
  return text.c_str();
}

} // extern "C"
