//===- code_object.h - What one compile produces ------------------*- C++ -*-===//
//
// A gfx950 code object (the linked HSACO, an ELF shared object) together with
// the launch facts read back from its own metadata note, the launch geometry
// its template recorded, and the canonical spec it was compiled from. Plain C++ on purpose: caches, bundles and the CLI pass
// it around without seeing MLIR or LLVM.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_ABI_CODE_OBJECT_H
#define MXFORGE_ABI_CODE_OBJECT_H

#include "abi/kernel_info.h"
#include "abi/launch_record.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mxf {

struct CodeObject {
  /// The ELF bytes, ready for hipModuleLoadData or the emulator.
  std::vector<uint8_t> hsaco;
  /// The (single) kernel of `hsaco`, read back from its NT_AMDGPU_METADATA
  /// note rather than predicted, so that it can never disagree with the code.
  KernelInfo kernel;
  /// How to launch it, recorded by the template that made it (empty,
  /// workgroupSize 0, for `compile --input`: no spec, no template).
  LaunchRecord launch;
  /// The canonical text of the code spec it was compiled for (the spec asked
  /// for, with M set to its tiling class: templates/registry.h), or, for
  /// `compile --input`, the input's name.
  std::string spec;
};

} // namespace mxf

#endif // MXFORGE_ABI_CODE_OBJECT_H
