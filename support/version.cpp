//===- version.cpp - mxforge's version ------------------------------------===//

#include "support/version.h"

namespace mxf {

const char *mxforgeVersion() { return MXFORGE_VERSION_STRING; }

} // namespace mxf
