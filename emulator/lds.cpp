//===- lds.cpp - Local data share: ds_* -----------------------------------===//
//
// LDS belongs to the workgroup; its size is the descriptor's group segment
// plus the launch's dynamic LDS. Address = vaddr + instruction offset, and
// every byte of every active lane's access must lie inside it (gfx9 no longer
// clamps with M0; an access outside is a kernel bug, reported as an error).
// Every lane's access also goes through the workgroup's LDS race detector
// (lds_races.h) when the launch checks races. The transpose loads follow
// GFX950_SEMANTICS.md §C7.
//
//===----------------------------------------------------------------------===//

#include "emulator/opcode_table.h"
#include "emulator/operands.h"

namespace mxf::emu {

namespace {

using S = Status;

S ldsMiss(const Wave &w, unsigned lane, uint64_t address, unsigned bytes) {
  return S::failure("lane " + std::to_string(lane) + ": LDS address " + hex(address) + " (" +
                    std::to_string(bytes) + " bytes) is outside the workgroup's " +
                    std::to_string(w.workgroup->lds.size()) + " bytes of LDS");
}

/// ldsAccess's failure, out of line so that the per-lane fast path inlines.
__attribute__((noinline)) uint8_t *ldsFailed(const Wave &w, unsigned lane, uint64_t address,
                                             unsigned bytes, S &failure) {
  const std::vector<uint8_t> &lds = w.workgroup->lds;
  if (address > lds.size() || bytes > lds.size() - address)
    failure = ldsMiss(w, lane, address, bytes);
  else
    failure = S::failure("lane " + std::to_string(lane) + ": " + w.workgroup->races.error());
  return nullptr;
}

/// The LDS bytes [address, address + bytes) of one lane's access, bounds
/// checked and checked against the other waves' accesses; nullptr with
/// `failure` set when either check fails. (A pointer, not a Status: this
/// runs for every lane.)
inline uint8_t *ldsAccess(Wave &w, unsigned lane, uint64_t address, unsigned bytes,
                          LdsAccess kind, S &failure) {
  std::vector<uint8_t> &lds = w.workgroup->lds;
  LdsRaceDetector &races = w.workgroup->races;
  if (address > lds.size() || bytes > lds.size() - address ||
      (races.enabled() && !races.access(kind, address, bytes)))
    return ldsFailed(w, lane, address, bytes, failure);
  return lds.data() + address;
}

/// ldsAccess for a write of `data`: the detector also sees the bytes it
/// overwrites, so that a write of the value already there (the replicated
/// stores of Triton's reductions and layout conversions) races only with
/// what it could change (lds_races.h).
inline uint8_t *ldsWriteAccess(Wave &w, unsigned lane, uint64_t address, const uint8_t *data,
                               unsigned bytes, S &failure) {
  std::vector<uint8_t> &lds = w.workgroup->lds;
  LdsRaceDetector &races = w.workgroup->races;
  if (address > lds.size() || bytes > lds.size() - address ||
      (races.enabled() && !races.write(address, lds.data() + address, data, bytes)))
    return ldsFailed(w, lane, address, bytes, failure);
  return lds.data() + address;
}

/// ds_read_*: Bytes per lane into vdst (narrow reads extend per Signed).
template <unsigned Bytes, bool Signed> S dsRead(Wave &w, const Instruction &in) {
  const uint32_t *vaddr = w.lanes(in.src(0));
  const uint32_t offset = uint32_t(in.imms[0]) & 0xffff;
  const uint64_t exec = w.exec();
  S failure;
  for (unsigned l = 0; l < kWaveSize; ++l) {
    if (!laneActive(exec, l))
      continue;
    const uint64_t address = uint64_t(vaddr[l]) + offset;
    uint8_t *p = ldsAccess(w, l, address, Bytes, LdsAccess::Read, failure);
    if (!p)
      return failure;
    if (Bytes >= 4) {
      for (unsigned i = 0; i < Bytes / 4; ++i) {
        uint32_t value;
        std::memcpy(&value, p + 4 * i, 4);
        w.lanes(in.dst(), i)[l] = value;
      }
    } else if (Bytes == 2) {
      const uint16_t value = uint16_t(p[0] | (p[1] << 8));
      w.lanes(in.dst())[l] = Signed ? uint32_t(int32_t(int16_t(value))) : value;
    } else {
      w.lanes(in.dst())[l] = Signed ? uint32_t(int32_t(int8_t(p[0]))) : p[0];
    }
  }
  w.stats.ldsBytesRead += uint64_t(Bytes) * __builtin_popcountll(exec);
  return S::success();
}

/// ds_write_*: Bytes per lane from vdata; High: the d16_hi forms store bits
/// [31:16] (a byte: [23:16]).
template <unsigned Bytes, bool High = false> S dsWrite(Wave &w, const Instruction &in) {
  const uint32_t *vaddr = w.lanes(in.src(0));
  const Operand &data = in.src(1);
  const uint32_t offset = uint32_t(in.imms[0]) & 0xffff;
  const uint64_t exec = w.exec();
  S failure;
  for (unsigned l = 0; l < kWaveSize; ++l) {
    if (!laneActive(exec, l))
      continue;
    const uint64_t address = uint64_t(vaddr[l]) + offset;
    uint8_t bytes[Bytes];
    if (Bytes >= 4) {
      for (unsigned i = 0; i < Bytes / 4; ++i) {
        const uint32_t value = w.lanes(data, i)[l];
        std::memcpy(bytes + 4 * i, &value, 4);
      }
    } else {
      const uint32_t value = w.lanes(data)[l] >> (High ? 16 : 0);
      bytes[0] = uint8_t(value);
      if (Bytes == 2)
        bytes[1] = uint8_t(value >> 8);
    }
    uint8_t *p = ldsWriteAccess(w, l, address, bytes, Bytes, failure);
    if (!p)
      return failure;
    std::memcpy(p, bytes, Bytes);
  }
  w.stats.ldsBytesWritten += uint64_t(Bytes) * __builtin_popcountll(exec);
  return S::success();
}

/// ds_add_u32 / ds_add_rtn_u32: LDS[addr] += data, lane by lane in lane
/// order (the hardware serialises a wave's atomics to one address; the sum is
/// the same in any order, which is why the MoE sorter may count with them).
/// The returning form gives each lane the value before its own addition.
template <bool Returns> S dsAddU32(Wave &w, const Instruction &in) {
  const uint32_t *vaddr = w.lanes(in.src(0));
  const uint32_t *data = w.lanes(in.src(1));
  const uint32_t offset = uint32_t(in.imms[0]) & 0xffff;
  const uint64_t exec = w.exec();
  S failure;
  Lanes32 before{};
  for (unsigned l = 0; l < kWaveSize; ++l) {
    if (!laneActive(exec, l))
      continue;
    const uint64_t address = uint64_t(vaddr[l]) + offset;
    if (address % 4 != 0)
      return S::failure("lane " + std::to_string(l) + ": LDS address " + hex(address) +
                        " of ds_add_u32 is not 4-byte aligned");
    uint8_t *p = ldsAccess(w, l, address, 4, LdsAccess::Atomic, failure);
    if (!p)
      return failure;
    uint32_t value;
    std::memcpy(&value, p, 4);
    before[l] = value;
    value += data[l];
    std::memcpy(p, &value, 4);
  }
  if (Returns)
    writeLanes32(w, in.dst(), before, exec);
  const uint64_t bytes = 4ull * __builtin_popcountll(exec);
  w.stats.ldsBytesRead += bytes;
  w.stats.ldsBytesWritten += bytes;
  return S::success();
}

/// ds_read2_b32/b64: two reads at offset0 and offset1 (in units of the size;
/// the st64 forms in units of 64 times the size).
template <unsigned Bytes, unsigned Unit = Bytes> S dsRead2(Wave &w, const Instruction &in) {
  const uint32_t *vaddr = w.lanes(in.src(0));
  const uint32_t offsets[2] = {uint32_t(in.imms[0]) & 0xff, uint32_t(in.imms[1]) & 0xff};
  const uint64_t exec = w.exec();
  S failure;
  constexpr unsigned dwords = Bytes / 4;
  for (unsigned l = 0; l < kWaveSize; ++l) {
    if (!laneActive(exec, l))
      continue;
    // The destination may overlap the address register (ds_read2_b32 v[6:7],
    // v6): the first result must not move the second address.
    const uint64_t base = vaddr[l];
    for (unsigned k = 0; k < 2; ++k) {
      const uint64_t address = base + offsets[k] * Unit;
      uint8_t *p = ldsAccess(w, l, address, Bytes, LdsAccess::Read, failure);
      if (!p)
        return failure;
      for (unsigned i = 0; i < dwords; ++i) {
        uint32_t value;
        std::memcpy(&value, p + 4 * i, 4);
        w.lanes(in.dst(), k * dwords + i)[l] = value;
      }
    }
  }
  w.stats.ldsBytesRead += 2ull * Bytes * __builtin_popcountll(exec);
  return S::success();
}

template <unsigned Bytes, unsigned Unit = Bytes> S dsWrite2(Wave &w, const Instruction &in) {
  const uint32_t *vaddr = w.lanes(in.src(0));
  const uint32_t offsets[2] = {uint32_t(in.imms[0]) & 0xff, uint32_t(in.imms[1]) & 0xff};
  const uint64_t exec = w.exec();
  S failure;
  for (unsigned l = 0; l < kWaveSize; ++l) {
    if (!laneActive(exec, l))
      continue;
    for (unsigned k = 0; k < 2; ++k) {
      const uint64_t address = uint64_t(vaddr[l]) + offsets[k] * Unit;
      uint8_t bytes[Bytes];
      for (unsigned i = 0; i < Bytes / 4; ++i) {
        const uint32_t value = w.lanes(in.src(1 + k), i)[l];
        std::memcpy(bytes + 4 * i, &value, 4);
      }
      uint8_t *p = ldsWriteAccess(w, l, address, bytes, Bytes, failure);
      if (!p)
        return failure;
      std::memcpy(p, bytes, Bytes);
    }
  }
  w.stats.ldsBytesWritten += 2ull * Bytes * __builtin_popcountll(exec);
  return S::success();
}

/// ds_read_b64_tr_b16 / _b8 (§C7): each lane reads 8 bytes; inside each
/// group of 16 lanes, lane t receives element j from lane 4j + (t >> 2)
/// (b16: its element t & 3) or 2j + (t >> 3) (b8: its byte t & 7).
template <unsigned ElemBits> S dsReadTr(Wave &w, const Instruction &in) {
  const uint64_t exec = w.exec();
  S failure;
  if (exec != kAllLanes)
    return S::failure("ds_read_b64_tr_* needs EXEC all ones (GFX950_SEMANTICS §C7); EXEC = " +
                      hex(exec));
  const uint32_t *vaddr = w.lanes(in.src(0));
  const uint32_t offset = uint32_t(in.imms[0]) & 0xffff;
  uint64_t read[kWaveSize];
  for (unsigned l = 0; l < kWaveSize; ++l) {
    const uint64_t address = uint64_t(vaddr[l]) + offset;
    if (address % 8 != 0)
      return S::failure("lane " + std::to_string(l) + ": LDS address " + hex(address) +
                        " of ds_read_b64_tr_* is not 8-byte aligned");
    uint8_t *p = ldsAccess(w, l, address, 8, LdsAccess::Read, failure);
    if (!p)
      return failure;
    std::memcpy(&read[l], p, 8);
  }
  constexpr unsigned perLane = 64 / ElemBits; // elements per lane: 4 or 8
  constexpr uint64_t elemMask = (1ull << ElemBits) - 1;
  for (unsigned group = 0; group < 4; ++group) {
    for (unsigned t = 0; t < 16; ++t) {
      uint64_t out = 0;
      for (unsigned j = 0; j < perLane; ++j) {
        const unsigned s = ElemBits == 16 ? 4 * j + (t >> 2) : 2 * j + (t >> 3);
        const unsigned e = ElemBits == 16 ? (t & 3) : (t & 7);
        const uint64_t elem = (read[16 * group + s] >> (ElemBits * e)) & elemMask;
        out |= elem << (ElemBits * j);
      }
      const unsigned lane = 16 * group + t;
      w.lanes(in.dst(), 0)[lane] = uint32_t(out);
      w.lanes(in.dst(), 1)[lane] = uint32_t(out >> 32);
    }
  }
  w.stats.ldsBytesRead += 8ull * kWaveSize;
  return S::success();
}

/// ds_bpermute_b32: D[lane] = data[(addr[lane] + offset) / 4 % 64] (a lane
/// shuffle through the LDS crossbar; no LDS memory is touched). Reads from
/// inactive lanes return 0.
S dsBpermute(Wave &w, const Instruction &in) {
  const uint32_t *address = w.lanes(in.src(0));
  const uint32_t *data = w.lanes(in.src(1));
  const uint32_t offset = uint32_t(in.imms[0]) & 0xffff;
  const uint64_t exec = w.exec();
  Lanes32 d;
  for (unsigned l = 0; l < kWaveSize; ++l) {
    const unsigned from = ((address[l] + offset) >> 2) & 63;
    d[l] = laneActive(exec, from) ? data[from] : 0;
  }
  writeLanes32(w, in.dst(), d, exec);
  return S::success();
}

/// ds_permute_b32: D[(addr[lane] + offset) / 4 % 64] = data[lane].
S dsPermute(Wave &w, const Instruction &in) {
  const uint32_t *address = w.lanes(in.src(0));
  const uint32_t *data = w.lanes(in.src(1));
  const uint32_t offset = uint32_t(in.imms[0]) & 0xffff;
  const uint64_t exec = w.exec();
  Lanes32 d{};
  for (unsigned l = 0; l < kWaveSize; ++l)
    if (laneActive(exec, l))
      d[((address[l] + offset) >> 2) & 63] = data[l];
  writeLanes32(w, in.dst(), d, exec);
  return S::success();
}

} // namespace

void registerLds(OpRegistry &r) {
  r.add("ds_read_b32", dsRead<4, false>);
  r.add("ds_read_b64", dsRead<8, false>);
  r.add("ds_read_b96", dsRead<12, false>);
  r.add("ds_read_b128", dsRead<16, false>);
  r.add("ds_read_u8", dsRead<1, false>);
  r.add("ds_read_i8", dsRead<1, true>);
  r.add("ds_read_u16", dsRead<2, false>);
  r.add("ds_read_i16", dsRead<2, true>);
  r.add("ds_write_b32", dsWrite<4>);
  r.add("ds_write_b64", dsWrite<8>);
  r.add("ds_write_b96", dsWrite<12>);
  r.add("ds_write_b128", dsWrite<16>);
  r.add("ds_write_b8", dsWrite<1>);
  r.add("ds_write_b16", dsWrite<2>);
  r.add("ds_write_b8_d16_hi", dsWrite<1, true>);
  r.add("ds_write_b16_d16_hi", dsWrite<2, true>);
  r.add("ds_read2_b32", dsRead2<4>);
  r.add("ds_read2_b64", dsRead2<8>);
  r.add("ds_write2_b32", dsWrite2<4>);
  r.add("ds_write2_b64", dsWrite2<8>);
  r.add("ds_read2st64_b32", dsRead2<4, 4 * 64>);
  r.add("ds_read2st64_b64", dsRead2<8, 8 * 64>);
  r.add("ds_write2st64_b32", dsWrite2<4, 4 * 64>);
  r.add("ds_write2st64_b64", dsWrite2<8, 8 * 64>);
  r.add("ds_read_b64_tr_b16", dsReadTr<16>);
  r.add("ds_read_b64_tr_b8", dsReadTr<8>);
  r.add("ds_add_u32", dsAddU32<false>);
  r.add("ds_add_rtn_u32", dsAddU32<true>);
  r.add("ds_bpermute_b32", dsBpermute);
  r.add("ds_permute_b32", dsPermute);
}

} // namespace mxf::emu
