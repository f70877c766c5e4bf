//===- version.h - mxforge's version, recorded in cache keys and bundles -*- C++ -*-===//
#ifndef MXFORGE_SUPPORT_VERSION_H
#define MXFORGE_SUPPORT_VERSION_H

namespace mxf {

/// The project version from CMake, e.g. "0.1.0".
const char *mxforgeVersion();

} // namespace mxf

#endif // MXFORGE_SUPPORT_VERSION_H
