//===- test_rotating_quantizer_stages.cpp - The stages, one at a time ------===//
//
// The rotating quantizer's stages (templates/common/rotating_quantizer/)
// are composed by each family's body; here each is driven alone, in a bare
// gpu.func with the spec's arguments:
//  - the load + rotate stage hands a recording sink exactly the blocks a
//    unit has (RS/32 unrolled, one block per loop body where output blocks
//    loop; channelsPerUnit/32 without rotation), in the channel order of
//    its rotation kind (contiguous only for the butterfly), with the MFMAs
//    of that many 32-channel chains and no store of its own;
//  - the global store stage turns one finished block into a convert, the
//    stores of the lane's codes (two pieces in the MFMA tiles' order, one
//    when contiguous) and one of the scale byte, plus the padding byte's
//    select where the kernel fills a4w4 padding rows.
// Numerical correctness is the emulator suite's job; this pins the
// contract between the stages, so that a family composing them can rely on
// it. Negative control: the recordings of two specs whose units differ
// differ.
//
//===----------------------------------------------------------------------===//

#include "templates/common/kernel_arguments.h"
#include "tests/support/parsed_spec.h"
#include "templates/common/rotating_quantizer/block_converter.h"
#include "templates/common/rotating_quantizer/global_store.h"
#include "templates/common/rotating_quantizer/rotation_stage.h"
#include "templates/rotate_quant/rules.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

#include <vector>

namespace mxf {
namespace {

using testing::parsed;

/// A bare kernel of `spec`'s arguments (and R's LDS when the tiling stages
/// R), the builder at its start.
struct Harness {
  explicit Harness(const KernelSpec &spec)
      : spec(spec), tiling(chooseRotatingQuantizerTiling(spec, rotateQuantQuantizer())),
        b(mlir::UnknownLoc::get(&ctx), &ctx) {
    ctx.loadDialect<mlir::amdgpu::AMDGPUDialect, mlir::arith::ArithDialect, mlir::gpu::GPUDialect,
                    mlir::LLVM::LLVMDialect, mlir::math::MathDialect, mlir::memref::MemRefDialect,
                    mlir::ROCDL::ROCDLDialect, mlir::scf::SCFDialect,
                    mlir::vector::VectorDialect>();
    module = mlir::ModuleOp::create(b.getLoc());
    b.setInsertionPointToEnd(module->getBody());
    auto gpuModule = mlir::gpu::GPUModuleOp::create(b, "kernels");
    b.setInsertionPointToEnd(gpuModule.getBody());
    llvm::SmallVector<mlir::Type, 1> buffers;
    if (tiling.ldsBytes > 0)
      buffers.push_back(
          workgroupBufferType(&ctx, {int64_t(tiling.ldsBytes / 2)}, b.getBF16Type()));
    func = mlir::gpu::GPUFuncOp::create(
        b, "kernel", b.getFunctionType(kernelArgumentTypes(&ctx, spec), {}), buffers);
    b.setInsertionPointToStart(&func.getBody().front());
    args.emplace(spec, func);
  }

  mlir::Value lds() {
    return tiling.ldsBytes > 0 ? mlir::Value(func.getWorkgroupAttributions().front())
                               : mlir::Value();
  }

  template <typename OpT> size_t count() {
    size_t n = 0;
    func.walk([&](OpT) { ++n; });
    return n;
  }

  mlir::MLIRContext ctx;
  KernelSpec spec;
  KernelTiling tiling;
  mlir::ImplicitLocOpBuilder b;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  mlir::gpu::GPUFuncOp func;
  std::optional<KernelArguments> args;
};

/// The store stage's view of what the rotation stage hands over.
struct RecordingSink final : BlockSink {
  void emitBlock(const FinishedBlock &block) override {
    blocks.push_back(block.channels);
    EXPECT_TRUE(block.scaleBlock && block.tile0 && block.tile1);
    EXPECT_TRUE(block.scaleBlock.getType().isIndex());
    auto vector = mlir::dyn_cast<mlir::VectorType>(block.tile0.getType());
    EXPECT_TRUE(vector && vector.getNumElements() == 4 && vector.getElementType().isF32());
  }
  std::vector<LaneChannels> blocks;
};

struct Recording {
  std::vector<LaneChannels> blocks;
  size_t mfmas = 0, stores = 0;
};

/// One unit of `spec` through the load + rotate stage into a recording sink.
Recording rotateOneUnit(const KernelSpec &spec) {
  Harness h(spec);
  RotationStage rotation(h.b, spec, h.tiling, h.args->get("r"), h.lds());
  RecordingSink sink;
  rotation.setSink(sink);
  mlir::Value tid = mlir::gpu::ThreadIdOp::create(h.b, mlir::gpu::Dimension::x);
  rotation.setUpLane(tid);
  rotation.readFrom(h.args->get("x"));
  rotation.setLoadRow(mlir::arith::ConstantIndexOp::create(h.b, 0));
  mlir::Value unit = mlir::arith::ConstantIndexOp::create(h.b, 1);
  if (h.tiling.stagesRotationInLds && h.tiling.rotationSliceColumns == 0)
    rotation.emitStageRotation(tid);
  if (h.tiling.rotationSliceColumns > 0)
    rotation.emitSlicedRotatedUnit(unit, mlir::arith::ConstantIntOp::create(h.b, 1, 1), tid);
  else
    rotation.emitUnit(unit);
  Recording recorded{sink.blocks, h.count<mlir::amdgpu::MFMAOp>(),
                     h.count<mlir::vector::StoreOp>() + h.count<mlir::memref::StoreOp>()};
  return recorded;
}

TEST(RotatingQuantizerStages, RotationHandsEachUnitsBlocksToTheSink) {
  struct Case {
    const char *spec;
    size_t blocks;      // emitBlock calls emitted (a loop body counts once)
    LaneChannels order; // of every block
    size_t mfmas;       // 2 chains (tiles) x chunks per emitted block; 0 without MFMAs
  };
  const Case cases[] = {
      {"rotate_quant:K=4096,RS=0", 2, LaneChannels::MfmaTiles, 0},
      {"rotate_quant:K=4096,RS=32,rot=hadamard_butterfly", 1, LaneChannels::Contiguous, 0},
      {"rotate_quant:K=4096,RS=32", 1, LaneChannels::MfmaTiles, 2 * 1},
      {"rotate_quant:K=4096,RS=64", 2, LaneChannels::MfmaTiles, 2 * 2 * 2},
      // RS=128: the output blocks loop; one body of 4 chunks.
      {"rotate_quant:K=4096,RS=128", 1, LaneChannels::MfmaTiles, 2 * 4},
      {"rotate_quant:K=4096,RS=64,rot=learned", 2, LaneChannels::MfmaTiles, 2 * 2 * 2},
      {"rotate_quant:K=4096,RS=32,rot=learned_per_block", 1, LaneChannels::MfmaTiles, 2},
      // learned_per_block at RS >= 64: the chunk loop, two steps of 2 MFMAs.
      {"rotate_quant:K=4096,RS=128,rot=learned_per_block", 1, LaneChannels::MfmaTiles, 4},
      {"rotate_quant:K=8192,RS=256,rot=learned", 1, LaneChannels::MfmaTiles, 2 * 8},
  };
  for (const Case &c : cases) {
    const Recording recorded = rotateOneUnit(parsed(c.spec));
    EXPECT_EQ(recorded.blocks.size(), c.blocks) << c.spec;
    for (LaneChannels order : recorded.blocks)
      EXPECT_EQ(order, c.order) << c.spec;
    EXPECT_EQ(recorded.mfmas, c.mfmas) << c.spec;
    // The stage stores nothing to x or q itself: only a staged R's LDS copy
    // (one vector store per piece loop or slice) may appear.
    const KernelSpec spec = parsed(c.spec);
    if (!isLearned(spec.rot)) {
      EXPECT_EQ(recorded.stores, 0u) << c.spec << ": the rotation stage stored something";
    }
  }
  // Negative control: two specs whose units differ give different recordings.
  EXPECT_NE(rotateOneUnit(parsed("rotate_quant:K=4096,RS=64")).mfmas,
            rotateOneUnit(parsed("rotate_quant:K=4096,RS=32")).mfmas);
}

TEST(RotatingQuantizerStages, GlobalStoreConvertsAndStoresOneBlock) {
  for (const char *text :
       {"rotate_quant:K=4096,RS=64", "rotate_quant:K=4096,RS=64,layout=a4w4_shuffle"}) {
    const KernelSpec spec = parsed(text);
    Harness h(spec);
    BlockConverter converter(h.b, spec);
    StoredRow target;
    GlobalStore store(h.b, spec, h.tiling, *h.args, converter, target);
    mlir::Value zero = mlir::arith::ConstantIndexOp::create(h.b, 0);
    target.row = zero;
    target.group = zero;
    target.rowValid = mlir::arith::ConstantIntOp::create(h.b, 1, 1);
    target.isGroupZero = target.rowValid;
    if (h.tiling.fillsRowPadding)
      target.rowInPadding = mlir::arith::ConstantIntOp::create(h.b, 0, 1);
    target.codes.emplace(h.b, spec.fmt, CodeLayout::Plain, h.args->get("q"), zero);
    target.scales.emplace(h.b, spec.layout, h.args->get("s"), zero);
    const size_t selectsBefore = h.count<mlir::arith::SelectOp>();
    auto v4f32 = mlir::VectorType::get({4}, h.b.getF32Type());
    mlir::Value tile = mlir::arith::ConstantOp::create(
        h.b, v4f32, mlir::DenseElementsAttr::get(v4f32, h.b.getF32FloatAttr(1.0f)));
    store.emitBlock({zero, tile, tile, LaneChannels::MfmaTiles});
    EXPECT_GE(h.count<mlir::amdgpu::PackedScaledTruncOp>(), 1u) << text << ": no convert";
    // The lane's two code pieces (in the MFMA tiles' order they are 8
    // channels apart: two stores) and the scale byte.
    const size_t stores = h.count<mlir::vector::StoreOp>() + h.count<mlir::memref::StoreOp>();
    EXPECT_EQ(stores, 3u) << text << ": the two code pieces and the scale byte";
    const size_t paddingSelects = h.count<mlir::arith::SelectOp>() - selectsBefore;
    if (h.tiling.fillsRowPadding) {
      EXPECT_GE(paddingSelects, 1u) << text << ": the padding byte's select";
    }
    // Contiguous channels (the butterfly's): the two pieces are adjacent,
    // one store of the lane's codes, and the scale byte.
    store.emitBlock({zero, tile, tile, LaneChannels::Contiguous});
    const size_t contiguousStores =
        h.count<mlir::vector::StoreOp>() + h.count<mlir::memref::StoreOp>() - stores;
    EXPECT_EQ(contiguousStores, 2u) << text << ": one code store and the scale byte";
    std::cout << text << ": " << stores << " stores\n";
  }
}

} // namespace
} // namespace mxf
