//===- mxforge_passes.cpp - The passes mxforge-opt offers -----------------===//
//
// registerAllPasses() is compiled into the shared libMLIR.so and declared by
// a one-line header, so offering every upstream pass costs no compile time
// and (with the shared library) next to no link time; naming the few we use
// one by one would pull MLIR's generated pass headers into this file.
//
//===----------------------------------------------------------------------===//

#include "tools/mxforge-opt/mxforge_passes.h"

#include "templates/lower_mxf_to_gpu.h"

#include "mlir/InitAllPasses.h"

namespace mxf {

void registerMxforgePasses() {
  // Pass registration is global; a second call would register duplicates.
  static const bool registered = [] {
    mlir::registerAllPasses();
    registerMxfLowerToGpuPass(); // mxf ops -> gpu.func (templates/)
    return true;
  }();
  (void)registered;
}

} // namespace mxf
