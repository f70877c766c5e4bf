//===- mubuf.cpp - Buffer memory: buffer_load_* / buffer_store_* (MUBUF) ---===//
//
// Untyped buffer accesses through a 128-bit buffer resource descriptor (V#)
// in four SGPRs, as Triton's AMD backend emits them for every tl.load and
// tl.store it can prove fits in 2 GiB. Per active lane (ISA, "Buffer
// Instructions": address components and range checking):
//
//   offset  = (OFFEN ? vaddr[OFFEN && IDXEN ? 1 : 0] : 0) + inst_offset
//   index   = IDXEN ? vaddr[0] : 0
//   address = base + soffset + offset + index * stride
//
// V#: word0 base[31:0]; word1 base[47:32] in bits 15:0, stride in 29:16,
// swizzle_enable in 31; word2 num_records; word3 formats and add_tid_enable
// (bit 23). Range checking, which masked Triton accesses rely on (a lane
// that is masked off gets offset 0x80000000): with stride 0 the access is
// out of range when offset + size > num_records (bytes; soffset is not part
// of the check), with a stride when index >= num_records or offset + size >
// stride. Out of range, a load writes 0 to its destination and a store
// writes nothing; that is defined behaviour, not an error. An in-range
// access must still land inside a registered buffer, or the run stops
// naming the lane and address, as for global_* accesses.
//
// The check applies to each dword of a multi-dword access on its own (a
// dwordx4 straddling num_records loads its first dwords and zeros the rest),
// per the ISA's per-component rule for untyped loads. Swizzled descriptors
// and add_tid_enable are refused by name: nothing we run uses them, and a
// wrong guess would be a silent wrong result. So is the LDS-destination
// (lds) form, except in launches that only count (LaunchOptions::countsOnly,
// for the performance model running AITER's hand-written GEMMs): there each
// lane's dwords go to LDS at M0 + inst_offset + (lane * dwords + i) * 4,
// wrapped into the workgroup's LDS. The counts and the timeline (a vmcnt
// operation with no register result) are exact; where the data lands is
// the CDNA3 ISA's rule as we read it, unchecked, which is why such a launch
// keeps no outputs.
//
//===----------------------------------------------------------------------===//

#include "emulator/atomic_ops.h"
#include "emulator/opcode_table.h"
#include "emulator/operands.h"

#include <iterator>
#include <utility>

namespace mxf::emu {

namespace {

using S = Status;

enum class Width { U8, I8, U16, I16, D32 };

/// The resource descriptor's fields the addressing uses.
struct BufferResource {
  uint64_t base = 0;
  uint32_t stride = 0;
  uint32_t numRecords = 0;
  bool swizzle = false;
  bool addTid = false;
};

BufferResource readResource(const Wave &w, unsigned firstSgpr) {
  const uint32_t d0 = w.s[firstSgpr], d1 = w.s[firstSgpr + 1], d2 = w.s[firstSgpr + 2],
                 d3 = w.s[firstSgpr + 3];
  BufferResource r;
  r.base = uint64_t(d0) | (uint64_t(d1 & 0xffff) << 32);
  r.stride = (d1 >> 16) & 0x3fff;
  r.swizzle = (d1 >> 31) & 1;
  r.numRecords = d2;
  r.addTid = (d3 >> 23) & 1;
  return r;
}

/// The fields of the MUBUF encoding (gfx9 layout; gfx950's cache-policy
/// bits do not change addressing).
struct MubufFields {
  uint32_t instOffset; // word0[11:0]
  bool offen, idxen, lds;
  unsigned vaddr, vdata; // word1[7:0], word1[15:8]
  bool acc;              // word1[23]: vdata is an AGPR
  unsigned srsrc;        // word1[20:16] * 4: first SGPR of the V#
  unsigned soffset;      // word1[31:24]: scalar source encoding
};

MubufFields fieldsOf(const Instruction &in) {
  const uint32_t w0 = in.words[0], w1 = in.words[1];
  MubufFields f;
  f.instOffset = w0 & 0xfff;
  f.offen = (w0 >> 12) & 1;
  f.idxen = (w0 >> 13) & 1;
  f.lds = (w0 >> 16) & 1;
  f.vaddr = w1 & 0xff;
  f.vdata = (w1 >> 8) & 0xff;
  f.srsrc = ((w1 >> 16) & 0x1f) * 4;
  f.acc = (w1 >> 23) & 1;
  f.soffset = (w1 >> 24) & 0xff;
  return f;
}

/// SOFFSET: an SGPR (or M0, VCC, ...) or an inline integer constant.
Result<uint32_t> readSoffset(const Wave &w, unsigned encoding) {
  if (encoding < sreg::kCount)
    return w.s[encoding];
  if (encoding == 128)
    return 0u;
  if (encoding >= 129 && encoding <= 192)
    return encoding - 128;
  if (encoding >= 193 && encoding <= 208)
    return uint32_t(int32_t(192) - int32_t(encoding));
  return Result<uint32_t>::failure("soffset encoding " + std::to_string(encoding) +
                                   " is not modelled");
}

/// Per lane: the byte offset used for range checking, and the address
/// without that offset (base + soffset + index * stride).
struct LaneAccess {
  std::array<uint64_t, kWaveSize> offset{};
  std::array<uint64_t, kWaveSize> index{};
};

Result<BufferResource> prepare(const Wave &w, const Instruction &in, const MubufFields &f,
                               LaneAccess &lanes, uint64_t &rowBase) {
  using R = Result<BufferResource>;
  if (f.lds && !w.countsOnly)
    return R::failure("the LDS-destination (lds) form of buffer loads is modelled only in "
                      "launches that count (countsOnly), not where outputs are checked");
  if (f.srsrc + 3 >= sreg::kUserSgprs)
    return R::failure("resource descriptor s[" + std::to_string(f.srsrc) + ":" +
                      std::to_string(f.srsrc + 3) + "] is not in the SGPRs");
  const BufferResource r = readResource(w, f.srsrc);
  if (r.swizzle)
    return R::failure("swizzled buffer resources (V# swizzle_enable) are not modelled");
  if (r.addTid)
    return R::failure("buffer resources with add_tid_enable are not modelled");
  Result<uint32_t> soffset = readSoffset(w, f.soffset);
  if (!soffset.ok())
    return soffset.status();
  rowBase = r.base + soffset.value();
  const unsigned vgprs = unsigned(f.offen) + unsigned(f.idxen);
  if (vgprs && f.vaddr + vgprs > w.allocatedVgprs)
    return R::failure("vaddr v" + std::to_string(f.vaddr) + " is past the allocated VGPRs");
  const uint32_t *first = vgprs ? &w.v[size_t(f.vaddr) * kWaveSize] : nullptr;
  const uint32_t *second = vgprs == 2 ? &w.v[size_t(f.vaddr + 1) * kWaveSize] : nullptr;
  for (unsigned l = 0; l < kWaveSize; ++l) {
    uint64_t offset = f.instOffset;
    if (f.offen)
      offset += f.idxen ? second[l] : first[l];
    lanes.offset[l] = offset;
    lanes.index[l] = f.idxen ? first[l] : 0;
  }
  (void)in;
  return r;
}

/// Whether the `bytes` at `offset` (of record `index`) pass the range check.
bool inRange(const BufferResource &r, uint64_t index, uint64_t offset, unsigned bytes) {
  if (r.stride == 0)
    return offset + bytes <= r.numRecords;
  return index < r.numRecords && offset + bytes <= r.stride;
}

Operand vdataOperand(const MubufFields &f, unsigned dwords) {
  Operand op;
  op.kind = f.acc ? Operand::Kind::Agpr : Operand::Kind::Vgpr;
  op.index = uint16_t(f.vdata);
  op.count = uint8_t(dwords);
  return op;
}

S laneMiss(const Wave &w, unsigned lane, uint64_t address, uint64_t bytes) {
  return S::failure("lane " + std::to_string(lane) + ": " + w.memory->describeMiss(address, bytes));
}

/// Loads of `Dwords` dwords, or one narrower value (Width), into vdata.
/// D16: 0 = full dword, 1 = low half kept-high, 2 = high half.
template <Width Wd, unsigned Dwords, int D16> S bufferLoad(Wave &w, const Instruction &in) {
  const MubufFields f = fieldsOf(in);
  LaneAccess lanes;
  uint64_t rowBase = 0;
  Result<BufferResource> resource = prepare(w, in, f, lanes, rowBase);
  if (!resource.ok())
    return resource.status();
  const BufferResource &r = resource.value();
  const Operand dst = vdataOperand(f, Dwords);
  if (!f.lds && w.unifiedIndex(dst, Dwords - 1) >= w.allocatedVgprs)
    return S::failure("vdata is past the allocated VGPRs");
  std::vector<uint8_t> &lds = w.workgroup->lds;
  if (f.lds && lds.empty())
    return S::failure("an LDS-destination load in a workgroup without LDS");
  const uint64_t exec = w.exec();
  const unsigned bytes = Wd == Width::D32 ? 4 : (Wd == Width::U8 || Wd == Width::I8 ? 1 : 2);
  uint64_t read = 0;
  for (unsigned l = 0; l < kWaveSize; ++l) {
    if (!laneActive(exec, l))
      continue;
    const uint64_t address0 = rowBase + lanes.offset[l] + lanes.index[l] * r.stride;
    for (unsigned i = 0; i < Dwords; ++i) {
      const uint64_t offset = lanes.offset[l] + uint64_t(i) * bytes;
      uint32_t value = 0;
      if (inRange(r, lanes.index[l], offset, bytes)) {
        const uint64_t address = address0 + uint64_t(i) * bytes;
        const uint8_t *p = w.memory->translate(address, bytes);
        if (!p)
          return laneMiss(w, l, address, bytes);
        switch (Wd) {
        case Width::D32: std::memcpy(&value, p, 4); break;
        case Width::U8: value = p[0]; break;
        case Width::I8: value = uint32_t(int32_t(int8_t(p[0]))); break;
        case Width::U16: value = uint32_t(p[0]) | (uint32_t(p[1]) << 8); break;
        case Width::I16: value = uint32_t(int32_t(int16_t(uint16_t(p[0] | (p[1] << 8))))); break;
        }
        read += bytes;
      }
      if (f.lds) {
        const uint64_t at = (uint64_t(w.m0()) + f.instOffset + (uint64_t(l) * Dwords + i) * 4) %
                            lds.size();
        if (at + 4 <= lds.size()) {
          std::memcpy(&lds[at], &value, 4);
          w.stats.ldsBytesWritten += 4;
        }
        continue;
      }
      uint32_t &slot = w.lanes(dst, i)[l];
      if (D16 == 0)
        slot = value;
      else if (D16 == 1)
        slot = (slot & 0xffff0000u) | (value & 0xffff);
      else
        slot = (slot & 0xffffu) | (value << 16);
    }
  }
  w.stats.globalBytesRead += read;
  return S::success();
}

/// Stores of `Bytes` bytes (1, 2 or 4*n) from vdata; High: the d16_hi
/// forms store bits [31:16] (a byte: [23:16]).
template <unsigned Bytes, bool High> S bufferStore(Wave &w, const Instruction &in) {
  const MubufFields f = fieldsOf(in);
  LaneAccess lanes;
  uint64_t rowBase = 0;
  Result<BufferResource> resource = prepare(w, in, f, lanes, rowBase);
  if (!resource.ok())
    return resource.status();
  const BufferResource &r = resource.value();
  constexpr unsigned kDwords = Bytes >= 4 ? Bytes / 4 : 1;
  constexpr unsigned kPiece = Bytes >= 4 ? 4 : Bytes;
  const Operand data = vdataOperand(f, kDwords);
  if (w.unifiedIndex(data, kDwords - 1) >= w.allocatedVgprs)
    return S::failure("vdata is past the allocated VGPRs");
  const uint64_t exec = w.exec();
  uint64_t written = 0;
  for (unsigned l = 0; l < kWaveSize; ++l) {
    if (!laneActive(exec, l))
      continue;
    const uint64_t address0 = rowBase + lanes.offset[l] + lanes.index[l] * r.stride;
    for (unsigned i = 0; i < kDwords; ++i) {
      const uint64_t offset = lanes.offset[l] + uint64_t(i) * kPiece;
      if (!inRange(r, lanes.index[l], offset, kPiece))
        continue; // dropped, as the ISA defines
      const uint64_t address = address0 + uint64_t(i) * kPiece;
      uint8_t *p = w.memory->translate(address, kPiece);
      if (!p)
        return laneMiss(w, l, address, kPiece);
      const uint32_t value = w.lanes(data, i)[l] >> (High ? 16 : 0);
      if (kPiece == 4)
        std::memcpy(p, &value, 4);
      else {
        p[0] = uint8_t(value);
        if (kPiece == 2)
          p[1] = uint8_t(value >> 8);
      }
      written += kPiece;
    }
  }
  w.stats.globalBytesWritten += written;
  return S::success();
}

/// buffer_atomic_<op> vdata, vaddr, srsrc, soffset [offen] [glc]: the
/// read-modify-write of a dword per active lane, in lane order; with GLC the
/// old value returns in vdata. Out of range: nothing happens and 0 returns.
template <AtomicOp Op> S bufferAtomic(Wave &w, const Instruction &in) {
  const MubufFields f = fieldsOf(in);
  LaneAccess lanes;
  uint64_t rowBase = 0;
  Result<BufferResource> resource = prepare(w, in, f, lanes, rowBase);
  if (!resource.ok())
    return resource.status();
  const BufferResource &r = resource.value();
  const bool returns = (in.words[0] >> 14) & 1;
  const Operand data = vdataOperand(f, 1);
  if (w.unifiedIndex(data) >= w.allocatedVgprs)
    return S::failure("vdata is past the allocated VGPRs");
  const uint64_t exec = w.exec();
  uint32_t *slot = w.lanes(data);
  for (unsigned l = 0; l < kWaveSize; ++l) {
    if (!laneActive(exec, l))
      continue;
    uint32_t old = 0;
    if (inRange(r, lanes.index[l], lanes.offset[l], 4)) {
      const uint64_t address = rowBase + lanes.offset[l] + lanes.index[l] * r.stride;
      uint8_t *p = w.memory->translate(address, 4);
      if (!p)
        return laneMiss(w, l, address, 4);
      old = atomicRmw32(p, Op, slot[l]);
      w.stats.globalBytesRead += 4;
      w.stats.globalBytesWritten += 4;
    }
    if (returns)
      slot[l] = old;
  }
  return S::success();
}

template <size_t... I> void registerBufferAtomics(OpRegistry &r, std::index_sequence<I...>) {
  (r.add(std::string("buffer_atomic_") + kAtomicNames[I].suffix,
         bufferAtomic<kAtomicNames[I].op>),
   ...);
}

} // namespace

void registerMubuf(OpRegistry &r) {
  registerBufferAtomics(r, std::make_index_sequence<std::size(kAtomicNames)>());
  r.add("buffer_load_ubyte", bufferLoad<Width::U8, 1, 0>);
  r.add("buffer_load_sbyte", bufferLoad<Width::I8, 1, 0>);
  r.add("buffer_load_ushort", bufferLoad<Width::U16, 1, 0>);
  r.add("buffer_load_sshort", bufferLoad<Width::I16, 1, 0>);
  r.add("buffer_load_dword", bufferLoad<Width::D32, 1, 0>);
  r.add("buffer_load_dwordx2", bufferLoad<Width::D32, 2, 0>);
  r.add("buffer_load_dwordx3", bufferLoad<Width::D32, 3, 0>);
  r.add("buffer_load_dwordx4", bufferLoad<Width::D32, 4, 0>);
  r.add("buffer_load_short_d16", bufferLoad<Width::U16, 1, 1>);
  r.add("buffer_load_short_d16_hi", bufferLoad<Width::U16, 1, 2>);
  r.add("buffer_load_ubyte_d16", bufferLoad<Width::U8, 1, 1>);
  r.add("buffer_load_ubyte_d16_hi", bufferLoad<Width::U8, 1, 2>);
  r.add("buffer_load_sbyte_d16", bufferLoad<Width::I8, 1, 1>);
  r.add("buffer_load_sbyte_d16_hi", bufferLoad<Width::I8, 1, 2>);
  r.add("buffer_store_byte", bufferStore<1, false>);
  r.add("buffer_store_byte_d16_hi", bufferStore<1, true>);
  r.add("buffer_store_short", bufferStore<2, false>);
  r.add("buffer_store_short_d16_hi", bufferStore<2, true>);
  r.add("buffer_store_dword", bufferStore<4, false>);
  r.add("buffer_store_dwordx2", bufferStore<8, false>);
  r.add("buffer_store_dwordx3", bufferStore<12, false>);
  r.add("buffer_store_dwordx4", bufferStore<16, false>);
}

} // namespace mxf::emu
