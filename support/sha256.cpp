//===- sha256.cpp - SHA-256 as FIPS 180-4 section 6.2 defines it ----------===//

#include "support/sha256.h"

#include <cstring>

namespace mxf {
namespace {

// First 32 bits of the fractional parts of the cube roots of the first 64
// primes (FIPS 180-4, 4.2.2).
constexpr uint32_t kRoundConstants[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
    0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
    0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
    0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
    0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
    0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
    0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
    0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
    0xc67178f2};

// First 32 bits of the fractional parts of the square roots of the first 8
// primes (FIPS 180-4, 5.3.3).
constexpr std::array<uint32_t, 8> kInitialState = {0x6a09e667, 0xbb67ae85, 0x3c6ef372,
                                                   0xa54ff53a, 0x510e527f, 0x9b05688c,
                                                   0x1f83d9ab, 0x5be0cd19};

inline uint32_t rotateRight(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

inline uint32_t loadBigEndian32(const uint8_t *p) {
  return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | uint32_t(p[3]);
}

} // namespace

Sha256::Sha256() : state_(kInitialState) {}

void Sha256::compressBlock(const uint8_t *block) {
  uint32_t schedule[64];
  for (int t = 0; t < 16; ++t)
    schedule[t] = loadBigEndian32(block + 4 * t);
  for (int t = 16; t < 64; ++t) {
    uint32_t s0 = rotateRight(schedule[t - 15], 7) ^ rotateRight(schedule[t - 15], 18) ^
                  (schedule[t - 15] >> 3);
    uint32_t s1 = rotateRight(schedule[t - 2], 17) ^ rotateRight(schedule[t - 2], 19) ^
                  (schedule[t - 2] >> 10);
    schedule[t] = schedule[t - 16] + s0 + schedule[t - 7] + s1;
  }
  uint32_t a = state_[0], b = state_[1], c = state_[2], d = state_[3];
  uint32_t e = state_[4], f = state_[5], g = state_[6], h = state_[7];
  for (int t = 0; t < 64; ++t) {
    uint32_t sigma1 = rotateRight(e, 6) ^ rotateRight(e, 11) ^ rotateRight(e, 25);
    uint32_t choose = (e & f) ^ (~e & g);
    uint32_t temp1 = h + sigma1 + choose + kRoundConstants[t] + schedule[t];
    uint32_t sigma0 = rotateRight(a, 2) ^ rotateRight(a, 13) ^ rotateRight(a, 22);
    uint32_t majority = (a & b) ^ (a & c) ^ (b & c);
    uint32_t temp2 = sigma0 + majority;
    h = g;
    g = f;
    f = e;
    e = d + temp1;
    d = c;
    c = b;
    b = a;
    a = temp1 + temp2;
  }
  state_[0] += a;
  state_[1] += b;
  state_[2] += c;
  state_[3] += d;
  state_[4] += e;
  state_[5] += f;
  state_[6] += g;
  state_[7] += h;
}

void Sha256::update(const void *data, size_t size) {
  const uint8_t *bytes = static_cast<const uint8_t *>(data);
  totalBytes_ += size;
  if (pendingSize_ > 0) {
    size_t take = std::min(size, pending_.size() - pendingSize_);
    std::memcpy(pending_.data() + pendingSize_, bytes, take);
    pendingSize_ += take;
    bytes += take;
    size -= take;
    if (pendingSize_ < pending_.size())
      return;
    compressBlock(pending_.data());
    pendingSize_ = 0;
  }
  for (; size >= 64; bytes += 64, size -= 64)
    compressBlock(bytes);
  if (size > 0) {
    std::memcpy(pending_.data(), bytes, size);
    pendingSize_ = size;
  }
}

Sha256Digest Sha256::finish() {
  // Padding (5.1.1): a 1 bit, zeros up to 56 mod 64, the bit length (BE).
  uint64_t bitLength = totalBytes_ * 8;
  uint8_t padding[72] = {0x80};
  size_t padSize = (pendingSize_ < 56 ? 56 : 120) - pendingSize_;
  for (int i = 0; i < 8; ++i)
    padding[padSize + i] = uint8_t(bitLength >> (56 - 8 * i));
  update(padding, padSize + 8);
  Sha256Digest digest;
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 4; ++j)
      digest.bytes[4 * i + j] = uint8_t(state_[i] >> (24 - 8 * j));
  state_ = kInitialState;
  pendingSize_ = 0;
  totalBytes_ = 0;
  return digest;
}

Sha256Digest sha256(const void *data, size_t size) {
  Sha256 hasher;
  hasher.update(data, size);
  return hasher.finish();
}

std::string Sha256Digest::hex() const {
  static const char kDigits[] = "0123456789abcdef";
  std::string text(64, '0');
  for (size_t i = 0; i < bytes.size(); ++i) {
    text[2 * i] = kDigits[bytes[i] >> 4];
    text[2 * i + 1] = kDigits[bytes[i] & 15];
  }
  return text;
}

std::optional<Sha256Digest> Sha256Digest::fromHex(std::string_view hex) {
  if (hex.size() != 64)
    return std::nullopt;
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9')
      return c - '0';
    if (c >= 'a' && c <= 'f')
      return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
      return c - 'A' + 10;
    return -1;
  };
  Sha256Digest digest;
  for (size_t i = 0; i < 32; ++i) {
    int high = nibble(hex[2 * i]), low = nibble(hex[2 * i + 1]);
    if (high < 0 || low < 0)
      return std::nullopt;
    digest.bytes[i] = uint8_t(high << 4 | low);
  }
  return digest;
}

} // namespace mxf
