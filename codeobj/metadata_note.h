//===- metadata_note.h - The NT_AMDGPU_METADATA note, parsed -----*- C++ -*-===//
//
// The note's payload is a msgpack map (AMDGPUUsage "Code Object V3+
// Metadata"): `amdhsa.target` and one map per kernel in `amdhsa.kernels`.
// This turns it into KernelInfo (abi/kernel_info.h), checking every key
// the runtime relies on: a damaged note is an error that names the kernel and
// the key, never a default value.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_CODEOBJ_METADATA_NOTE_H
#define MXFORGE_CODEOBJ_METADATA_NOTE_H

#include "support/status.h"
#include "abi/kernel_info.h"

#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace mxf::codeobj {

struct KernelMetadata {
  KernelInfo info;              // codeObjectVersion is left 0: it is not in the note
  std::string descriptorSymbol; // `.symbol`, normally `<name>.kd`
};

struct CodeObjectMetadata {
  std::string target; // `amdhsa.target`, or empty where the note has none
  std::vector<KernelMetadata> kernels;
};

/// Parses the note payload. Required per kernel: .name, .symbol,
/// .kernarg_segment_size/_align, .group_segment_fixed_size,
/// .private_segment_fixed_size, .wavefront_size, .sgpr_count, .vgpr_count,
/// .max_flat_workgroup_size; optional (0 when absent): .agpr_count,
/// .vgpr_spill_count, .sgpr_spill_count, .args. Each argument needs .offset,
/// .size, .value_kind and must lie inside the kernarg segment.
Result<CodeObjectMetadata> parseMetadataNote(llvm::StringRef blob);

} // namespace mxf::codeobj

#endif // MXFORGE_CODEOBJ_METADATA_NOTE_H
