//===- printable.cpp - Text from files, safe to print ---------------------===//

#include "support/printable.h"

namespace mxf {

std::string printable(std::string_view text) {
  constexpr size_t kLimit = 160;
  std::string out;
  for (size_t i = 0; i < text.size() && i < kLimit; ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out += char(c);
    } else {
      static const char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  if (text.size() > kLimit)
    out += "...";
  return out;
}

std::string fileNameSafe(std::string_view text) {
  std::string out;
  for (char c : text) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '-' || c == '_' || c == '.';
    out += keep ? c : '_';
  }
  return out;
}

} // namespace mxf
