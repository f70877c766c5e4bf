//===- moe_sort_emitter.h - AITER's MoE sort, done by every workgroup -*- C++ -*-===//
//
// The sorting half of a rotate_quant_moe kernel (docs/templates.md,
// "rotate_quant_moe"). Every workgroup sorts the whole routing again in its
// own LDS: m*topk <= 256*topk ids are a few KiB, so recomputing is cheaper
// than any device-wide scheme, needs no second launch, no global scratch and
// no reset between launches (a captured graph replays as is), and the bytes
// cannot depend on which workgroup runs first. The phases, with a barrier
// after each:
//   0. zero the per-expert counters; mark the tile's entries dropped;
//   1. every thread takes ids i = tid, tid + T, ... (loading up to 8 of them
//      before counting any: one memory round trip per class); a local expert's pair
//      adds 1 to count[e], and to before[e] when its token precedes this
//      workgroup's tile (integer LDS atomics: a sum is the same in any
//      order); the tile's own ids are kept;
//   2. start[e] = sum over e' < e of roundUp(count[e'], block): each thread
//      sums ceil(E/T) consecutive experts, then a Hillis-Steele scan over the
//      threads in LDS (log2 T steps); with an expert mask the same scan
//      numbers the local experts;
//   3. each entry u of the tile gets its sorted row start[e] + before[e] +
//      (earlier entries of the tile with expert e): ascending (token, slot)
//      inside an expert, as AITER's oracle orders them;
//   4. the padding: every workgroup takes its share of the sorted rows,
//      finds each row's expert by binary search over start[] and writes the
//      sentinel, the zero weight and the zero scale bytes of padding rows,
//      the shuffle's column padding, its share of sorted_expert_ids, and
//      (workgroup 0) num_valid_ids.
// Entries whose id lies outside [0, E) are dropped like masked ones, so a
// malformed routing cannot make the kernel write out of bounds (the host
// refuses it before any launch).
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_TEMPLATES_ROTATE_QUANT_MOE_MOE_SORT_EMITTER_H
#define MXFORGE_TEMPLATES_ROTATE_QUANT_MOE_MOE_SORT_EMITTER_H

#include "templates/common/ir_builder.h"
#include "templates/common/kernel_arguments.h"
#include "templates/rotate_quant_moe/row_sorter.h"
#include "templates/common/scale_writer.h"
#include "templates/rotate_quant_moe/sort_lds.h"

#include "numerics/reference.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <utility>

namespace mxf {

class MoeSortEmitter final : public RowSorter, private IrBuilder {
  /// Tile entries phase 3 reads with one LDS load (a multiple of it divides
  /// the tile's 16 * topk entries).
  static constexpr int64_t kTileIdsPerRead = 8;

public:
  /// `lds`: the workgroup's i32 buffer of moeSortLds(spec, threads).elements.
  MoeSortEmitter(mlir::ImplicitLocOpBuilder &b, const KernelSpec &spec,
                 const KernelArguments &args, Value lds, int threads, int gridX)
      : IrBuilder(b), spec(spec), layout(moeSortLds(spec, threads)), threads(threads),
        gridX(gridX), lds(lds) {
    topkIds = flatten(args.get("topk_ids"));
    topkWeights = flatten(args.get("topk_weights"));
    expertMask = args.get("expert_mask");
    s = args.get("s");
    sortedIds = args.get("sorted_ids");
    sortedWeights = args.get("sorted_weights");
    sortedExpertIds = args.get("sorted_expert_ids");
    numValidIds = args.get("num_valid_ids");
  }

  /// Phases 0-4 (above). Every thread of the workgroup must run it (it holds
  /// barriers). `tile`: this workgroup's 16-token tile (block id y); `m`: the
  /// launch's tokens; both index.
  void emitSort(Value tid, Value tile, Value m) override {
    const int64_t entries = layout.tileEntries;
    Value pairs = mulBy(m, spec.topk);
    Value tileFirst = mulBy(tile, entries);
    Value tileEnd = add(tileFirst, idx(entries));

    // 0. Counters and the tile's entries.
    forEachOfThread(tid, idx(spec.E), [&](Value e) {
      storeLds(layout.count, e, i32(0));
      storeLds(layout.before, e, i32(0));
    });
    forEachOfThread(tid, idx(entries), [&](Value u) { storeLds(layout.tileIds, u, i32(-1)); });
    barrier();

    // The workgroups of column 0 write the tile's sorted weights in phase 3:
    // their loads go out now, beside phase 1's ids, so that phase 3 does not
    // wait a memory round trip of its own (0.6 us of a decode launch's
    // estimate). A thread holds the weight of entry tid, the one entry phase
    // 3 gives it when the tile has no more entries than threads.
    Value firstColumn = cmp(mlir::arith::CmpIPredicate::eq,
                            mlir::gpu::BlockIdOp::create(b, mlir::gpu::Dimension::x), idx(0));
    Value prefetchedWeight;
    if (entries <= threads) {
      Value pair = add(tileFirst, tid);
      Value wanted = mlir::arith::AndIOp::create(
          b, firstColumn,
          mlir::arith::AndIOp::create(b, cmp(mlir::arith::CmpIPredicate::ult, tid, idx(entries)),
                                      cmp(mlir::arith::CmpIPredicate::ult, pair, pairs)));
      prefetchedWeight = ifElseValue(
          wanted, b.getF32Type(),
          [&] { return mlir::memref::LoadOp::create(b, topkWeights, mlir::ValueRange{pair}); },
          [&] {
            return mlir::arith::ConstantFloatOp::create(b, b.getF32Type(), llvm::APFloat(0.0f));
          });
    }

    // 1. Counts of every local expert, and of the pairs before the tile.
    // A thread reads its ids `batch` at a time, all loads before any use, so
    // that a class of 256 tokens waits for one memory round trip here, not
    // eight (the atomics' sums and the tile's ids do not depend on the order).
    const int64_t batch = idsPerThreadInFlight();
    forEachFrom(tid, pairs, idx(threads * batch), [&](Value first) {
      llvm::SmallVector<Value, 8> pairIndex, ids, inLaunch;
      for (int64_t k = 0; k < batch; ++k) {
        Value j = add(first, idx(k * threads));
        // The loop's bound covers the first; a later one past the pairs
        // loads nothing (a decode launch's lanes all skip it) and counts
        // nothing.
        if (k == 0) {
          pairIndex.push_back(j);
          inLaunch.push_back(Value());
          ids.push_back(mlir::memref::LoadOp::create(b, topkIds, mlir::ValueRange{j}));
          continue;
        }
        Value valid = cmp(mlir::arith::CmpIPredicate::ult, j, pairs);
        pairIndex.push_back(j);
        inLaunch.push_back(valid);
        ids.push_back(ifElseValue(
            valid, b.getI32Type(),
            [&] { return mlir::memref::LoadOp::create(b, topkIds, mlir::ValueRange{j}); },
            [&] { return i32(-1); }));
      }
      if (batch == 1) {
        emitCountPair(pairIndex[0], ids[0], Value(), tileFirst, tileEnd);
        return;
      }
      // Counted in a rolled loop over the loaded ids: unrolled, the batch
      // made the kernel's IR a third larger and its compile 40% slower.
      Value loaded = mlir::vector::FromElementsOp::create(
          b, mlir::VectorType::get({batch}, b.getI32Type()), ids);
      keepRolled(forEachFrom(idx(0), idx(batch), idx(1), [&](Value k) {
        Value j = add(first, mlir::arith::MulIOp::create(b, k, idx(threads)));
        Value id = mlir::vector::ExtractOp::create(b, loaded, mlir::ArrayRef<mlir::OpFoldResult>{k});
        emitCountPair(j, id, cmp(mlir::arith::CmpIPredicate::ult, j, pairs), tileFirst, tileEnd);
      }));
    });
    barrier();

    // 2. Where each expert's rows start.
    emitExpertStarts(tid);
    barrier();

    // 3. The sorted row of each of the tile's entries; the workgroups of
    // column 0 write the tile's sorted ids and weights.
    forEachOfThread(tid, idx(entries),
                    [&](Value u) { emitTileEntry(u, tileFirst, firstColumn, prefetchedWeight); });
    barrier();

    // 4. Padding rows, block experts and num_valid_ids.
    emitPadding(tid, tile, m, pairs);
  }

  /// The sorted row (index) of tile entry `entry` (index, < 16 * topk) and
  /// whether it has one (i1; dropped entries and rows past m do not).
  std::pair<Value, Value> sortedRowOf(Value entry) override {
    Value row = loadLds(layout.sortedRow, entry);
    return {toIndex(mlir::arith::MaxSIOp::create(b, row, i32(0))),
            cmp(mlir::arith::CmpIPredicate::sge, row, i32(0))};
  }

  /// Stores scale byte `byte` (i8) of block `scaleBlock` into sorted row `row`.
  void storeScale(Value row, Value scaleBlock, Value byte) override {
    ScaleWriter(b, spec.layout, s, row).store(scaleBlock, byte);
  }

private:
  Value flatten(Value buffer) {
    llvm::SmallVector<mlir::ReassociationIndices, 1> bothDims{{0, 1}};
    return mlir::memref::CollapseShapeOp::create(b, buffer, bothDims);
  }
  Value toIndex(Value v) { return mlir::arith::IndexCastOp::create(b, b.getIndexType(), v); }
  Value toI32(Value v) { return mlir::arith::IndexCastOp::create(b, b.getI32Type(), v); }
  void barrier() { mlir::gpu::BarrierOp::create(b); }

  Value loadLds(int64_t array, Value i) {
    return mlir::memref::LoadOp::create(b, lds, mlir::ValueRange{add(i, idx(array))});
  }
  void storeLds(int64_t array, Value i, Value v) {
    mlir::memref::StoreOp::create(b, v, lds, mlir::ValueRange{add(i, idx(array))});
  }
  void addLds(int64_t array, Value i) {
    mlir::memref::AtomicRMWOp::create(b, mlir::arith::AtomicRMWKind::addi, i32(1), lds,
                                      mlir::ValueRange{add(i, idx(array))});
  }

  /// body(i) for i = first, first + stride, ... < end (index values).
  mlir::scf::ForOp forEachFrom(Value first, Value end, Value stride,
                               const std::function<void(Value)> &body) {
    auto loop = mlir::scf::ForOp::create(b, first, end, stride);
    mlir::OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    body(loop.getInductionVar());
    return loop;
  }
  void forEachOfThread(Value tid, Value end, const std::function<void(Value)> &body) {
    forEachFrom(tid, end, idx(threads), body);
  }

  /// How many of its routing ids a thread loads before it counts any in
  /// phase 1: enough that the class's largest launch (M tokens) needs one
  /// round of loads, at most 8 (8 VGPRs).
  int64_t idsPerThreadInFlight() const {
    const int64_t pairs = int64_t(spec.M) * spec.topk;
    return std::clamp<int64_t>((pairs + threads - 1) / threads, 1, 8);
  }

  /// Phase 1 for pair j (index) with expert id `id` (i32); `inLaunch` (i1,
  /// or null for always) says whether j < m * topk. Past the launch's pairs
  /// the whole step is skipped (a branch that every lane of a decode launch
  /// takes the same way), not just masked.
  void emitCountPair(Value j, Value id, Value inLaunch, Value tileFirst, Value tileEnd) {
    if (inLaunch) {
      ifThen(inLaunch, [&] { emitCountPair(j, id, Value(), tileFirst, tileEnd); });
      return;
    }
    Value local = isLocalExpert(id);
    ifThen(local, [&] {
      Value e = toIndex(id);
      addLds(layout.count, e);
      ifThen(cmp(mlir::arith::CmpIPredicate::ult, j, tileFirst), [&] { addLds(layout.before, e); });
    });
    Value entry = mlir::arith::SubIOp::create(b, j, tileFirst);
    Value inTile = mlir::arith::AndIOp::create(b, cmp(mlir::arith::CmpIPredicate::uge, j, tileFirst),
                                               cmp(mlir::arith::CmpIPredicate::ult, j, tileEnd));
    ifThen(inTile, [&] {
      // Clamped although the branch makes it < 16 * topk: the batch's
      // entries would otherwise share one base, j0 - tileFirst, that is
      // negative for most lanes, with k * threads in the instruction's
      // offset; a negative base plus an offset is an address our emulator
      // (rightly, until the hardware's 32-bit wrap is a checked fact)
      // reports as outside the LDS.
      Value clamped = mlir::arith::MinUIOp::create(b, entry, idx(layout.tileEntries - 1));
      storeLds(layout.tileIds, clamped, mlir::arith::SelectOp::create(b, local, id, i32(-1)));
    });
  }

  /// Whether pair id `id` (i32) goes to a local expert: in [0, E) and, with
  /// an expert mask, marked. The mask is read at a clamped index, so that a
  /// malformed id reads inside it.
  Value isLocalExpert(Value id) {
    Value inRange = mlir::arith::AndIOp::create(b, cmp(mlir::arith::CmpIPredicate::sge, id, i32(0)),
                                          cmp(mlir::arith::CmpIPredicate::slt, id, i32(spec.E)));
    if (!expertMask)
      return inRange;
    Value clamped = mlir::arith::MinSIOp::create(b, mlir::arith::MaxSIOp::create(b, id, i32(0)),
                                           i32(spec.E - 1));
    Value marked = mlir::memref::LoadOp::create(b, expertMask, mlir::ValueRange{toIndex(clamped)});
    return mlir::arith::AndIOp::create(b, inRange, cmp(mlir::arith::CmpIPredicate::ne, marked, i32(0)));
  }

  /// roundUp(v, block) for i32 v >= 0 (block is a power of two).
  Value roundUpToBlock(Value v) {
    return mlir::arith::AndIOp::create(b, mlir::arith::AddIOp::create(b, v, i32(spec.block - 1)),
                                 i32(~int64_t(spec.block - 1)));
  }

  /// Phase 2: start[e] (and localId[e] with a mask), start[E] = the valid
  /// rows.
  void emitExpertStarts(Value tid) {
    const int64_t perThread = (spec.E + threads - 1) / threads;
    Value first = mulBy(tid, perThread);
    struct Expert {
      Value e, inRange, padded, local;
    };
    llvm::SmallVector<Expert, 4> experts;
    Value paddedSum = i32(0), localSum = i32(0);
    for (int64_t k = 0; k < perThread; ++k) {
      Expert x;
      x.e = add(first, idx(k));
      x.inRange = cmp(mlir::arith::CmpIPredicate::ult, x.e, idx(spec.E));
      Value clamped = mlir::arith::MinUIOp::create(b, x.e, idx(spec.E - 1));
      Value count = mlir::arith::SelectOp::create(b, x.inRange, loadLds(layout.count, clamped), i32(0));
      x.padded = roundUpToBlock(count);
      paddedSum = mlir::arith::AddIOp::create(b, paddedSum, x.padded);
      if (expertMask) {
        Value marked = mlir::memref::LoadOp::create(b, expertMask, mlir::ValueRange{clamped});
        Value local =
            mlir::arith::AndIOp::create(b, x.inRange, cmp(mlir::arith::CmpIPredicate::ne, marked, i32(0)));
        x.local = mlir::arith::ExtUIOp::create(b, b.getI32Type(), local);
        localSum = mlir::arith::AddIOp::create(b, localSum, x.local);
      }
      experts.push_back(x);
    }
    auto [paddedInclusive, localInclusive] = inclusiveScan(tid, paddedSum, localSum);
    Value paddedRun = mlir::arith::SubIOp::create(b, paddedInclusive, paddedSum);
    Value localRun = expertMask ? mlir::arith::SubIOp::create(b, localInclusive, localSum) : Value();
    for (const Expert &x : experts) {
      Value paddedHere = paddedRun, localHere = localRun;
      ifThen(x.inRange, [&] {
        storeLds(layout.start, x.e, paddedHere);
        if (expertMask)
          storeLds(layout.localId, x.e, localHere);
      });
      paddedRun = mlir::arith::AddIOp::create(b, paddedRun, x.padded);
      if (expertMask)
        localRun = mlir::arith::AddIOp::create(b, localRun, x.local);
    }
    // The last thread's inclusive sum covers every expert.
    ifThen(cmp(mlir::arith::CmpIPredicate::eq, tid, idx(threads - 1)),
           [&] { storeLds(layout.start, idx(spec.E), paddedInclusive); });
  }

  /// Inclusive prefix sums over the workgroup's threads of `padded` (and of
  /// `local` with a mask): Hillis-Steele in LDS, the reads of a step before a
  /// barrier, its writes after. Every thread must call it. The log2(threads)
  /// steps stay a loop: unrolled, their 16 barriers and the branches around
  /// them were a third of the MoE kernel's LLVM IR, which O3 and code
  /// generation walk again and again (docs/compiler.md).
  std::pair<Value, Value> inclusiveScan(Value tid, Value padded, Value local) {
    storeLds(layout.scanPadded, tid, padded);
    if (expertMask)
      storeLds(layout.scanLocal, tid, local);
    barrier();
    llvm::SmallVector<Value, 2> sums{padded};
    if (expertMask)
      sums.push_back(local);
    auto steps = mlir::scf::ForOp::create(b, idx(0), idx(llvm::Log2_64_Ceil(threads)), idx(1), sums);
    {
      mlir::OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(steps.getBody());
      Value distance = mlir::arith::ShLIOp::create(b, idx(1), steps.getInductionVar());
      Value has = cmp(mlir::arith::CmpIPredicate::uge, tid, distance);
      Value from = mlir::arith::SelectOp::create(b, has, mlir::arith::SubIOp::create(b, tid, distance), tid);
      llvm::SmallVector<Value, 2> next;
      const int64_t arrays[] = {layout.scanPadded, layout.scanLocal};
      llvm::SmallVector<Value, 2> addends;
      for (size_t k = 0; k < sums.size(); ++k)
        addends.push_back(mlir::arith::SelectOp::create(b, has, loadLds(arrays[k], from), i32(0)));
      barrier();
      for (size_t k = 0; k < sums.size(); ++k) {
        next.push_back(mlir::arith::AddIOp::create(b, steps.getRegionIterArgs()[k], addends[k]));
        storeLds(arrays[k], tid, next.back());
      }
      barrier();
      mlir::scf::YieldOp::create(b, next);
    }
    keepRolled(steps);
    return {steps.getResult(0), expertMask ? steps.getResult(1) : Value()};
  }

  /// Phase 3 for tile entry u: its sorted row, and (column 0) its sorted id
  /// and weight (`prefetched`: the weight this thread loaded before phase
  /// 1, or null to load it here).
  void emitTileEntry(Value u, Value tileFirst, Value firstColumn, Value prefetched) {
    Value id = loadLds(layout.tileIds, u);
    Value kept = cmp(mlir::arith::CmpIPredicate::sge, id, i32(0));
    Value e = toIndex(mlir::arith::MaxSIOp::create(b, id, i32(0)));
    // Earlier entries of the tile with the same expert (dropped entries
    // hold -1 and are never counted for a kept one); a dropped entry does
    // not look (the tile past m is all dropped).
    // Four entries per LDS read: one at a time, the loop was a round trip
    // per entry, up to 16 * topk - 1 of them in sequence (4 us of a 16-token
    // tile's estimate). The tile's entries are a multiple of 4, so a read
    // never passes the array; the entries at or past u are masked off.
    Value earlier = mlir::arith::SelectOp::create(b, kept, u, idx(0));
    auto loop = mlir::scf::ForOp::create(b, idx(0), earlier, idx(kTileIdsPerRead),
                                         mlir::ValueRange{i32(0)});
    {
      mlir::OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(loop.getBody());
      Value first = loop.getInductionVar();
      Value four = mlir::vector::LoadOp::create(
          b, mlir::VectorType::get({kTileIdsPerRead}, b.getI32Type()), lds,
          mlir::ValueRange{add(first, idx(layout.tileIds))});
      Value count = loop.getRegionIterArgs()[0];
      for (int64_t k = 0; k < kTileIdsPerRead; ++k) {
        Value before = cmp(mlir::arith::CmpIPredicate::ult, add(first, idx(k)), earlier);
        Value same = mlir::arith::AndIOp::create(
            b, before,
            cmp(mlir::arith::CmpIPredicate::eq,
                mlir::vector::ExtractOp::create(b, four, mlir::ArrayRef<int64_t>{k}), id));
        count = mlir::arith::AddIOp::create(b, count,
                                            mlir::arith::ExtUIOp::create(b, b.getI32Type(), same));
      }
      mlir::scf::YieldOp::create(b, mlir::ValueRange{count});
    }
    Value row = mlir::arith::AddIOp::create(
        b, mlir::arith::AddIOp::create(b, loadLds(layout.start, e), loadLds(layout.before, e)),
        loop.getResult(0));
    storeLds(layout.sortedRow, u, mlir::arith::SelectOp::create(b, kept, row, i32(-1)));
    ifThen(mlir::arith::AndIOp::create(b, kept, firstColumn), [&] {
      Value pair = add(tileFirst, u);
      Value token = divBy(pair, spec.topk), slot = remBy(pair, spec.topk);
      Value entry = mlir::arith::OrIOp::create(
          b, mlir::arith::ShLIOp::create(b, toI32(slot), i32(24)), toI32(token));
      Value rowIndex = toIndex(row);
      mlir::memref::StoreOp::create(b, entry, sortedIds, mlir::ValueRange{rowIndex});
      Value weight = prefetched ? prefetched
                                : mlir::memref::LoadOp::create(b, topkWeights, mlir::ValueRange{pair});
      mlir::memref::StoreOp::create(b, weight, sortedWeights, mlir::ValueRange{rowIndex});
    });
  }

  /// The expert whose rows hold sorted row `row` (index < start[E]): the last
  /// e with start[e] <= row, by binary search over start[0..E]; E when row is
  /// past every expert. A rolled loop: unrolled, its chain of selects made
  /// LLVM's known-bits analysis recurse through every earlier step, a tenth
  /// of the whole compile (docs/compiler.md).
  Value expertOfRow(Value row) {
    Value target = toI32(row);
    int64_t top = 1;
    while (top * 2 <= spec.E)
      top *= 2;
    const int64_t steps = llvm::Log2_64(top) + 1;
    auto loop = mlir::scf::ForOp::create(b, idx(0), idx(steps), idx(1), mlir::ValueRange{idx(0)});
    {
      mlir::OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(loop.getBody());
      Value found = loop.getRegionIterArgs()[0];
      Value step = mlir::arith::ShRUIOp::create(b, idx(top), loop.getInductionVar());
      Value candidate = add(found, step);
      Value readAt = mlir::arith::MinUIOp::create(b, candidate, idx(spec.E));
      Value fits = mlir::arith::AndIOp::create(
          b, cmp(mlir::arith::CmpIPredicate::ule, candidate, idx(spec.E)),
          cmp(mlir::arith::CmpIPredicate::sle, loadLds(layout.start, readAt), target));
      mlir::scf::YieldOp::create(b, mlir::ValueRange{mlir::arith::SelectOp::create(b, fits, candidate, found)});
    }
    keepRolled(loop);
    return loop.getResult(0);
  }

  /// Phase 4. The workgroups of the launch split the rows (and the blocks)
  /// among them, thread by thread: workgroup w = (y * gridX + x) of
  /// gridX * ceil(m/16).
  void emitPadding(Value tid, Value tile, Value m, Value pairs) {
    Value column = mlir::gpu::BlockIdOp::create(b, mlir::gpu::Dimension::x);
    Value workgroup = add(mulBy(tile, gridX), column);
    Value tiles = divBy(add(m, idx(kMoeTileTokens - 1)), kMoeTileTokens);
    Value workers = mulBy(mulBy(tiles, gridX), threads);
    Value firstItem = add(mulBy(workgroup, threads), tid);
    Value validRows = toIndex(loadLds(layout.start, idx(spec.E)));
    Value capacity = add(pairs, idx(int64_t(spec.E) * spec.block - spec.topk));
    const bool shuffled = spec.layout == ScaleLayout::A4W4Shuffle;
    // The scale rows a kernel writes: the valid rows, in whole 32-row groups
    // of the shuffle (numerics' scaleBytesWritten).
    Value writtenRows =
        shuffled ? mulBy(divBy(add(validRows, idx(kMoeRowPadding - 1)), kMoeRowPadding),
                         kMoeRowPadding)
                 : validRows;
    const int64_t blocks = spec.K / 32;
    const int64_t paddedCols =
        llvm::cast<mlir::MemRefType>(s.getType()).getDimSize(1); // pad8(K/32) when shuffled
    Value sentinel = i32(int64_t(spec.topk) << 24);
    sentinel = mlir::arith::OrIOp::create(b, sentinel, toI32(m));
    Value zeroByte = mlir::arith::ConstantIntOp::create(b, b.getI8Type(), kMoeScalePadByte);
    Value zeroWeight = mlir::arith::ConstantFloatOp::create(b, b.getF32Type(), llvm::APFloat(0.0f));

    forEachFrom(firstItem, capacity, workers, [&](Value row) {
      // Past the valid rows every row is padding: no search (at decode m
      // nearly all of the capacity, e.g. 3,840 of 4,096 rows at m = 1, E = 128).
      Value valid = cmp(mlir::arith::CmpIPredicate::ult, row, validRows);
      Value notRouted = mlir::arith::ConstantIntOp::create(b, b.getI1Type(), 0);
      Value routed = ifElseValue(valid, b.getI1Type(), [&] {
        Value e = mlir::arith::MinUIOp::create(b, expertOfRow(row), idx(spec.E - 1));
        Value offset = mlir::arith::SubIOp::create(b, toI32(row), loadLds(layout.start, e));
        return cmp(mlir::arith::CmpIPredicate::slt, offset, loadLds(layout.count, e));
      }, [&] { return notRouted; });
      Value padding = mlir::arith::XOrIOp::create(
          b, routed, mlir::arith::ConstantIntOp::create(b, b.getI1Type(), 1));
      ifThen(padding, [&] {
        mlir::memref::StoreOp::create(b, sentinel, sortedIds, mlir::ValueRange{row});
        mlir::memref::StoreOp::create(b, zeroWeight, sortedWeights, mlir::ValueRange{row});
      });
      ifThen(cmp(mlir::arith::CmpIPredicate::ult, row, writtenRows), [&] {
        ScaleWriter scales(b, spec.layout, s, row);
        // A padding row's K/32 bytes, 8 per iteration (an 8-column group
        // of the shuffle is one base and 8 immediate offsets). Rolled:
        // unrolled, O3 gives each store its own 64-bit address and runs
        // out of SGPRs.
        ifThen(padding, [&] {
          keepRolled(forEachFrom(idx(0), idx(blocks / 8), idx(1), [&](Value group) {
            Value first = mulBy(group, 8);
            for (int64_t c = 0; c < 8; ++c)
              scales.store(add(first, idx(c)), zeroByte);
          }));
          for (int64_t col = blocks / 8 * 8; col < blocks; ++col)
            scales.store(idx(col), zeroByte);
        });
        for (int64_t col = blocks; col < paddedCols; ++col)
          scales.store(idx(col), zeroByte);
      });
    });

    Value blockCount =
        divBy(add(capacity, idx(spec.block - 1)), spec.block); // ceil(capacity / block)
    forEachFrom(firstItem, blockCount, workers, [&](Value block) {
      Value firstRow = mulBy(block, spec.block);
      Value valid = cmp(mlir::arith::CmpIPredicate::ult, firstRow, validRows);
      Value noExpert = i32(-1);
      Value expert = ifElseValue(valid, b.getI32Type(), [&] {
        Value e = mlir::arith::MinUIOp::create(b, expertOfRow(firstRow), idx(spec.E - 1));
        return expertMask ? loadLds(layout.localId, e) : toI32(e);
      }, [&] { return noExpert; });
      mlir::memref::StoreOp::create(b, expert, sortedExpertIds, mlir::ValueRange{block});
    });

    ifThen(cmp(mlir::arith::CmpIPredicate::eq, firstItem, idx(0)), [&] {
      mlir::memref::StoreOp::create(b, toI32(validRows), numValidIds, mlir::ValueRange{idx(0)});
      mlir::memref::StoreOp::create(b, toI32(m), numValidIds, mlir::ValueRange{idx(1)});
    });
  }

  const KernelSpec &spec;
  const MoeSortLds layout;
  const int threads, gridX;
  Value lds;
  Value topkIds, topkWeights, expertMask, s, sortedIds, sortedWeights, sortedExpertIds,
      numValidIds;
};

} // namespace mxf

#endif // MXFORGE_TEMPLATES_ROTATE_QUANT_MOE_MOE_SORT_EMITTER_H
