//===- msgpack_guard.cpp - Shape check of a msgpack blob ------------------===//

#include "codeobj/msgpack_guard.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/BinaryFormat/MsgPackReader.h"
#include "llvm/Support/Error.h"

#include <string>

namespace mxf::codeobj {

namespace {

/// An open array or map: how many objects it still holds (a map's count
/// covers keys and values) and whether the next one is a map key.
struct Open {
  uint64_t remaining;
  bool isMap;
};

} // namespace

Status checkMsgpackShape(llvm::StringRef blob) {
  llvm::msgpack::Reader reader(blob);
  llvm::SmallVector<Open, 8> stack;
  uint64_t consumed = 0; // objects read, for messages
  do {
    llvm::msgpack::Object object;
    llvm::Expected<bool> read = reader.read(object);
    if (!read)
      return Status::failure("malformed msgpack after " + std::to_string(consumed) +
                             " objects: " + llvm::toString(read.takeError()));
    if (!*read)
      return Status::failure("msgpack ends early: " + std::to_string(consumed) +
                             " objects read, an array or map is incomplete");
    ++consumed;
    bool isKey = false;
    if (!stack.empty()) {
      Open &top = stack.back();
      isKey = top.isMap && top.remaining % 2 == 0;
      --top.remaining;
    }
    // Metadata keys are strings; other scalars would be safe for the ordering
    // of DocNodes except NaN floats, which break it.
    if (isKey && object.Kind != llvm::msgpack::Type::String)
      return Status::failure("msgpack map key (object " + std::to_string(consumed) +
                             ") is not a string");
    if (object.Kind == llvm::msgpack::Type::Extension)
      return Status::failure("msgpack extension objects are not expected in metadata");
    if (object.Kind == llvm::msgpack::Type::Array || object.Kind == llvm::msgpack::Type::Map) {
      const bool isMap = object.Kind == llvm::msgpack::Type::Map;
      const uint64_t count = isMap ? 2 * static_cast<uint64_t>(object.Length) : object.Length;
      // Every object takes at least one byte, so a count larger than the blob
      // is damage (Reader does not expose its position, so the whole size is
      // the bound); it also keeps the counts from overflowing.
      if (count > blob.size())
        return Status::failure("msgpack " + std::string(isMap ? "map" : "array") + " claims " +
                               std::to_string(object.Length) + " entries in a " +
                               std::to_string(blob.size()) + "-byte blob");
      if (stack.size() >= kMaxMsgpackDepth)
        return Status::failure("msgpack nests deeper than " + std::to_string(kMaxMsgpackDepth) +
                               " levels");
      stack.push_back({count, isMap});
    }
    while (!stack.empty() && stack.back().remaining == 0)
      stack.pop_back();
  } while (!stack.empty());
  return Status::success();
}

} // namespace mxf::codeobj
