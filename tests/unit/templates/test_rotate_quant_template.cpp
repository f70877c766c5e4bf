//===- test_rotate_quant_template.cpp - The gpu.func a spec builds --------===//
//
// Builds the kernel of many specs and checks the IR's structure: it
// verifies, has the expected arguments and op counts (MFMAs per rotation,
// converts per scale block), stages R in LDS only for a shared learned
// rotation. Numerical correctness is the emulator suite's job.
//
//===----------------------------------------------------------------------===//

#include "templates/rotate_quant/family.h"
#include "templates/common/rotating_quantizer/tiling.h"
#include "templates/rotate_quant/rules.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMAttrs.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include <gtest/gtest.h>

namespace mxf {
namespace {

struct Built {
  mlir::OwningOpRef<mlir::ModuleOp> module;
  mlir::gpu::GPUFuncOp func;
};

Built build(mlir::MLIRContext &ctx, const KernelSpec &spec) {
  ctx.loadDialect<mlir::gpu::GPUDialect>();
  mlir::OpBuilder b(&ctx);
  Built built;
  built.module = mlir::ModuleOp::create(b.getUnknownLoc());
  b.setInsertionPointToEnd(built.module->getBody());
  auto gpuModule = mlir::gpu::GPUModuleOp::create(b, b.getUnknownLoc(), "kernels");
  Status status = buildRotateQuantKernel(gpuModule, spec, "kernel");
  EXPECT_TRUE(status.ok()) << status.message();
  if (status.ok())
    built.func = *gpuModule.getOps<mlir::gpu::GPUFuncOp>().begin();
  return built;
}

template <typename OpT> size_t countOps(mlir::Operation *root) {
  size_t n = 0;
  root->walk([&](OpT) { ++n; });
  return n;
}

TEST(RotateQuantTemplate, GridOfSpecsBuildsVerifiedKernels) {
  mlir::MLIRContext ctx;
  const int sizes[] = {0, 32, 64, 128, 256};
  const RotationKind rots[] = {RotationKind::Hadamard, RotationKind::Learned,
                               RotationKind::LearnedPerBlock};
  size_t built = 0;
  for (int rs : sizes)
    for (RotationKind rot : rots) {
      if (rs == 0 && rot != RotationKind::Hadamard)
        continue;
      for (ScaleLayout layout : {ScaleLayout::Plain, ScaleLayout::A4W4Shuffle}) {
        KernelSpec spec;
        spec.K = 1024;
        spec.RS = rs;
        spec.rot = rs == 0 ? RotationKind::None : rot;
        spec.M = 16;
        spec.layout = layout;
        spec.inter = built % 2 ? Intermediate::Bf16 : Intermediate::F32;
        spec.scale = kAllScaleRules[built % std::size(kAllScaleRules)];
        ASSERT_TRUE(validateSpec(spec).ok()) << printSpec(spec);
        Built kernel = build(ctx, spec);
        ASSERT_TRUE(kernel.func) << printSpec(spec);
        ASSERT_TRUE(mlir::succeeded(mlir::verify(*kernel.module))) << printSpec(spec);
        const bool learned = isLearned(spec.rot);
        // x, [r], q, s, then m, x_stride, q_stride (abi/operands.h).
        EXPECT_EQ(kernel.func.getNumArguments(), learned ? 7u : 6u) << printSpec(spec);
        EXPECT_EQ(countOps<mlir::memref::ReinterpretCastOp>(kernel.func), 2u)
            << "x and q are addressed through their row strides\n" << printSpec(spec);
        // Per output block: 2 tiles x RS/32 chunks MFMAs. Up to two output
        // blocks are unrolled; larger rotations loop over them (one body).
        const size_t outBlocks = size_t(rs / 32), unrolled = outBlocks <= 2 ? outBlocks : 1;
        // learned_per_block at RS >= 64 also loops over the input chunks.
        const bool chunkLoop = spec.rot == RotationKind::LearnedPerBlock && rs >= 64;
        size_t mfmas = countOps<mlir::amdgpu::MFMAOp>(kernel.func);
        // The chunk loop handles two chunks per iteration.
        EXPECT_EQ(mfmas, rs == 0 ? 0u : chunkLoop ? 4u : 2 * outBlocks * unrolled)
            << printSpec(spec);
        // Loops: the copy of a whole learned R into LDS (RS=256 copies one
        // slice per output block instead; when R's 8-element pieces split
        // evenly over the workgroup the copy is unrolled, its loads in
        // flight together), the output blocks, the chunks.
        const int threads =
            chooseRotatingQuantizerTiling(spec, rotateQuantQuantizer()).workgroupSize();
        const bool wholeRStagedInALoop = spec.rot == RotationKind::Learned && rs < 256 &&
                                         (int64_t(rs) * rs / 8) % threads != 0;
        EXPECT_EQ(countOps<mlir::scf::ForOp>(kernel.func),
                  size_t(wholeRStagedInALoop) + size_t(outBlocks > 2 || chunkLoop) +
                      size_t(chunkLoop))
            << printSpec(spec);
        // Four packed converts per 32-channel scale block emitted.
        size_t blocksEmitted = rs == 0 ? 2 : chunkLoop ? 1 : unrolled;
        EXPECT_EQ(countOps<mlir::amdgpu::PackedScaledTruncOp>(kernel.func), 4 * blocksEmitted);
        // A learned R goes through LDS and is read transposed; so does a
        // per-block R in its chunk loop (one 32x32 piece per wave).
        const bool throughLds = spec.rot == RotationKind::Learned || chunkLoop;
        EXPECT_EQ(countOps<mlir::amdgpu::TransposeLoadOp>(kernel.func) > 0, throughLds);
        EXPECT_EQ(kernel.func.getWorkgroupAttributions().size(), throughLds ? 1u : 0u);
        // Only a workgroup sharing R synchronises.
        EXPECT_EQ(countOps<mlir::gpu::BarrierOp>(kernel.func) > 0,
                  spec.rot == RotationKind::Learned);
        ++built;
      }
    }
  EXPECT_EQ(built, 26u);
}

/// Whether `loop` asks LLVM not to unroll it (the attribute that becomes
/// !llvm.loop.unroll.disable).
bool staysRolled(mlir::scf::ForOp loop) {
  auto annotation = loop->getAttrOfType<mlir::LLVM::LoopAnnotationAttr>("loop_annotation");
  return annotation && annotation.getUnroll() && annotation.getUnroll().getDisable() &&
         annotation.getUnroll().getDisable().getValue();
}

TEST(RotateQuantTemplate, PerBlockChunkLoopStaysRolled) {
  mlir::MLIRContext ctx;
  for (int rs : {64, 128, 256}) {
    Result<KernelSpec> spec = parseSpec("rotate_quant:K=4096,rot=learned_per_block,M=16,RS=" +
                                        std::to_string(rs));
    ASSERT_TRUE(spec.ok());
    Built kernel = build(ctx, spec.value());
    ASSERT_TRUE(kernel.func);
    // Each wave's own 32x32 piece of R: 2 KiB per wave.
    ASSERT_EQ(kernel.func.getWorkgroupAttributions().size(), 1u);
    auto buffer =
        llvm::cast<mlir::MemRefType>(kernel.func.getWorkgroupAttributions().front().getType());
    EXPECT_EQ(buffer.getShape().vec(), (std::vector<int64_t>{4 * 32 * 32}));
    // The chunk loop (the innermost one, holding the MFMAs) keeps two
    // chunks' loads in flight only if LLVM leaves it rolled; the
    // output-block loop around it may be unrolled.
    size_t rolled = 0, loops = 0;
    kernel.func.walk([&](mlir::scf::ForOp loop) {
      ++loops;
      const bool innermost = countOps<mlir::scf::ForOp>(loop) == 1;
      EXPECT_EQ(staysRolled(loop), innermost) << rs;
      rolled += staysRolled(loop);
    });
    EXPECT_EQ(loops, 2u);
    EXPECT_EQ(rolled, 1u);
  }
}

TEST(RotateQuantTemplate, Rs256LearnedStagesDoubleBufferedSlices) {
  mlir::MLIRContext ctx;
  Result<KernelSpec> spec = parseSpec("rotate_quant:K=4096,RS=256,rot=learned,M=16");
  ASSERT_TRUE(spec.ok());
  Built kernel = build(ctx, spec.value());
  ASSERT_TRUE(kernel.func);
  // Two buffers of R's 256 rows x 32 columns, flat.
  ASSERT_EQ(kernel.func.getWorkgroupAttributions().size(), 1u);
  auto buffer =
      llvm::cast<mlir::MemRefType>(kernel.func.getWorkgroupAttributions().front().getType());
  EXPECT_EQ(buffer.getShape().vec(), (std::vector<int64_t>{2 * 256 * 32}));
  EXPECT_EQ(kernel.func.getKnownBlockSize().value()[0], 1024);
  // One barrier after the first slice, one per output block in the loop,
  // which stays rolled (8 copies of the block otherwise).
  EXPECT_EQ(countOps<mlir::gpu::BarrierOp>(kernel.func), 2u);
  size_t loops = 0;
  kernel.func.walk([&](mlir::scf::ForOp loop) {
    ++loops;
    EXPECT_TRUE(staysRolled(loop));
    EXPECT_EQ(countOps<mlir::gpu::BarrierOp>(loop), 1u);
  });
  EXPECT_EQ(loops, 1u);
  // The register allocator is held to 8 waves per SIMD.
  auto waves = kernel.func->getAttrOfType<mlir::IntegerAttr>("rocdl.waves_per_eu");
  ASSERT_TRUE(waves);
  EXPECT_EQ(waves.getInt(), 8);
}

TEST(RotateQuantTemplate, ArgumentShapesFollowTheSpec) {
  mlir::MLIRContext ctx;
  Result<KernelSpec> spec =
      parseSpec("rotate_quant:K=4096,RS=128,rot=learned_per_block,M=4,layout=a4w4_shuffle");
  ASSERT_TRUE(spec.ok());
  Built kernel = build(ctx, spec.value());
  ASSERT_TRUE(kernel.func);
  auto shape = [&](unsigned i) {
    return llvm::cast<mlir::MemRefType>(kernel.func.getArgument(i).getType()).getShape().vec();
  };
  EXPECT_EQ(shape(0), (std::vector<int64_t>{4, 4096}));
  EXPECT_EQ(shape(1), (std::vector<int64_t>{32, 128, 128}));
  EXPECT_EQ(shape(2), (std::vector<int64_t>{4, 2048}));
  EXPECT_EQ(shape(3), (std::vector<int64_t>{256, 128}));
  EXPECT_TRUE(kernel.func.getArgument(4).getType().isInteger(32));
  EXPECT_EQ(kernel.func.getKnownBlockSize().value()[0], 256);
}

TEST(RotateQuantTemplate, UnsupportedSpecBuildsNothing) {
  mlir::MLIRContext ctx;
  ctx.loadDialect<mlir::gpu::GPUDialect>();
  mlir::OpBuilder b(&ctx);
  auto module = mlir::ModuleOp::create(b.getUnknownLoc());
  b.setInsertionPointToEnd(module.getBody());
  auto gpuModule = mlir::gpu::GPUModuleOp::create(b, b.getUnknownLoc(), "kernels");
  Result<KernelSpec> spec = parseSpec("rotate_quant:K=4096,RS=64,rot=hadamard_butterfly");
  ASSERT_TRUE(spec.ok());
  Status status = buildRotateQuantKernel(gpuModule, spec.value(), "kernel");
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("hadamard_butterfly at RS=64"), std::string::npos);
  EXPECT_TRUE(gpuModule.getBody()->getOperations().size() <= 1); // no gpu.func added
  module->erase();
}

} // namespace
} // namespace mxf
