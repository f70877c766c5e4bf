//===- metadata_note.cpp - The NT_AMDGPU_METADATA note, parsed ------------===//

#include "codeobj/metadata_note.h"

#include "codeobj/msgpack_guard.h"

#include "llvm/BinaryFormat/MsgPackDocument.h"

#include <limits>

namespace mxf::codeobj {

namespace msgpack = llvm::msgpack;

namespace {

const char *kindName(msgpack::Type kind) {
  switch (kind) {
  case msgpack::Type::Nil:
    return "nil";
  case msgpack::Type::Boolean:
    return "a boolean";
  case msgpack::Type::Int:
  case msgpack::Type::UInt:
    return "an integer";
  case msgpack::Type::Float:
    return "a float";
  case msgpack::Type::String:
    return "a string";
  case msgpack::Type::Binary:
    return "binary data";
  case msgpack::Type::Array:
    return "an array";
  case msgpack::Type::Map:
    return "a map";
  default:
    return "an unknown msgpack type";
  }
}

/// Typed reads of one metadata map; the first failure is kept, with `where`
/// (e.g. "amdhsa.kernels[0] 'k'") and the key in its message.
class FieldReader {
public:
  FieldReader(msgpack::MapDocNode map, std::string where) : map_(map), where_(std::move(where)) {}

  bool u32(llvm::StringRef key, uint32_t &out, bool required = true) {
    msgpack::DocNode *node = find(key, required);
    if (!node)
      return required ? false : (out = 0, true);
    uint64_t value = 0;
    if (node->getKind() == msgpack::Type::UInt)
      value = node->getUInt();
    else if (node->getKind() == msgpack::Type::Int && node->getInt() >= 0)
      value = static_cast<uint64_t>(node->getInt());
    else
      return fail(key, node->getKind() == msgpack::Type::Int
                           ? "is negative (" + std::to_string(node->getInt()) + ")"
                           : std::string("is ") + kindName(node->getKind()) +
                                 ", expected an unsigned integer");
    if (value > std::numeric_limits<uint32_t>::max())
      return fail(key, "value " + std::to_string(value) + " does not fit 32 bits");
    out = static_cast<uint32_t>(value);
    return true;
  }

  bool str(llvm::StringRef key, std::string &out, bool required = true) {
    msgpack::DocNode *node = find(key, required);
    if (!node)
      return required ? false : (out.clear(), true);
    if (node->getKind() != msgpack::Type::String)
      return fail(key, std::string("is ") + kindName(node->getKind()) + ", expected a string");
    out = node->getString().str();
    return true;
  }

  /// The node of `key` if present (nullptr otherwise; an error if required).
  msgpack::DocNode *find(llvm::StringRef key, bool required) {
    auto it = map_.find(key);
    if (it == map_.end()) {
      if (required)
        fail(key, "is missing");
      return nullptr;
    }
    return &it->second;
  }

  bool fail(llvm::StringRef key, const std::string &what) {
    if (error_.empty())
      error_ = where_ + ": '" + key.str() + "' " + what;
    return false;
  }

  const std::string &error() const { return error_; }
  const std::string &where() const { return where_; }

private:
  msgpack::MapDocNode map_;
  std::string where_;
  std::string error_;
};

Result<KernelArgInfo> parseArg(msgpack::DocNode &node, const std::string &where,
                               uint32_t kernargSize) {
  if (!node.isMap())
    return Result<KernelArgInfo>::failure(where + " is " + kindName(node.getKind()) +
                                          ", expected a map");
  FieldReader fields(node.getMap(), where);
  KernelArgInfo arg;
  if (!fields.str(".name", arg.name, false) || !fields.str(".value_kind", arg.valueKind) ||
      !fields.str(".address_space", arg.addressSpace, false) ||
      !fields.u32(".offset", arg.offset) || !fields.u32(".size", arg.size))
    return Result<KernelArgInfo>::failure(fields.error());
  // The runtime packs arguments at these offsets: one past the segment would
  // be a write out of bounds there, so it is an error here.
  if (uint64_t(arg.offset) + arg.size > kernargSize)
    return Result<KernelArgInfo>::failure(
        where + " ('" + arg.name + "', " + arg.valueKind + ") at bytes [" +
        std::to_string(arg.offset) + ", " + std::to_string(uint64_t(arg.offset) + arg.size) +
        ") runs past the " + std::to_string(kernargSize) + "-byte kernarg segment");
  return arg;
}

Result<KernelMetadata> parseKernel(msgpack::DocNode &node, const std::string &where) {
  if (!node.isMap())
    return Result<KernelMetadata>::failure(where + " is " + kindName(node.getKind()) +
                                           ", expected a map");
  KernelMetadata kernel;
  KernelInfo &info = kernel.info;
  FieldReader first(node.getMap(), where);
  if (!first.str(".name", info.name))
    return Result<KernelMetadata>::failure(first.error());
  FieldReader fields(node.getMap(), where + " '" + info.name + "'");
  if (!fields.str(".symbol", kernel.descriptorSymbol) ||
      !fields.u32(".kernarg_segment_size", info.kernargSize) ||
      !fields.u32(".kernarg_segment_align", info.kernargAlign) ||
      !fields.u32(".group_segment_fixed_size", info.ldsBytes) ||
      !fields.u32(".private_segment_fixed_size", info.scratchBytes) ||
      !fields.u32(".wavefront_size", info.wavefrontSize) ||
      !fields.u32(".sgpr_count", info.sgprCount) || !fields.u32(".vgpr_count", info.vgprCount) ||
      !fields.u32(".max_flat_workgroup_size", info.maxWorkgroupSize) ||
      !fields.u32(".agpr_count", info.agprCount, false) ||
      !fields.u32(".vgpr_spill_count", info.vgprSpillCount, false) ||
      !fields.u32(".sgpr_spill_count", info.sgprSpillCount, false))
    return Result<KernelMetadata>::failure(fields.error());
  if (info.wavefrontSize != 32 && info.wavefrontSize != 64)
    return Result<KernelMetadata>::failure(fields.where() + ": '.wavefront_size' is " +
                                           std::to_string(info.wavefrontSize) +
                                           ", expected 32 or 64");
  if (info.agprCount > info.vgprCount)
    return Result<KernelMetadata>::failure(
        fields.where() + ": '.agpr_count' " + std::to_string(info.agprCount) +
        " exceeds '.vgpr_count' " + std::to_string(info.vgprCount) +
        " (which counts AGPRs too on gfx90a and later)");

  msgpack::DocNode *args = fields.find(".args", /*required=*/false);
  if (!args)
    return kernel;
  if (!args->isArray())
    return Result<KernelMetadata>::failure(fields.where() + ": '.args' is " +
                                           kindName(args->getKind()) + ", expected an array");
  size_t index = 0;
  for (msgpack::DocNode &argNode : args->getArray()) {
    Result<KernelArgInfo> arg = parseArg(
        argNode, fields.where() + " .args[" + std::to_string(index++) + "]", info.kernargSize);
    if (!arg.ok())
      return arg.status();
    info.args.push_back(std::move(arg.value()));
  }
  return kernel;
}

} // namespace

Result<CodeObjectMetadata> parseMetadataNote(llvm::StringRef blob) {
  if (Status shape = checkMsgpackShape(blob); !shape.ok())
    return Result<CodeObjectMetadata>::failure("metadata note: " + shape.message());
  msgpack::Document document;
  if (!document.readFromBlob(blob, /*Multi=*/false))
    return Result<CodeObjectMetadata>::failure(
        "metadata note: malformed msgpack (truncated, or a map with a duplicate key)");
  msgpack::DocNode &root = document.getRoot();
  if (!root.isMap())
    return Result<CodeObjectMetadata>::failure(std::string("metadata note: the root is ") +
                                               kindName(root.getKind()) + ", expected a map");
  FieldReader top(root.getMap(), "metadata note");
  CodeObjectMetadata metadata;
  // Optional: hand-assembled code objects (AITER's shipped .co files) carry
  // no target in the note, only in the ELF header; readCodeObject derives it.
  if (!top.str("amdhsa.target", metadata.target, /*required=*/false))
    return Result<CodeObjectMetadata>::failure(top.error());
  msgpack::DocNode *kernels = top.find("amdhsa.kernels", /*required=*/true);
  if (!kernels)
    return Result<CodeObjectMetadata>::failure(top.error());
  if (!kernels->isArray())
    return Result<CodeObjectMetadata>::failure(std::string("metadata note: 'amdhsa.kernels' is ") +
                                               kindName(kernels->getKind()) +
                                               ", expected an array");
  size_t index = 0;
  for (msgpack::DocNode &node : kernels->getArray()) {
    Result<KernelMetadata> kernel =
        parseKernel(node, "amdhsa.kernels[" + std::to_string(index++) + "]");
    if (!kernel.ok())
      return kernel.status();
    kernel.value().info.target = metadata.target;
    metadata.kernels.push_back(std::move(kernel.value()));
  }
  return metadata;
}

} // namespace mxf::codeobj
