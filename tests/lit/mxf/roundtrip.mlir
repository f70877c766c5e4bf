// Every mxf op parses, verifies and prints back to itself, in the custom
// form and through the generic form (where the op holds its canonical spec
// text: <{spec = "rotate_quant:K=4096,..."}>).
// RUN: %mxforge-opt %s | %mxforge-opt | FileCheck %s
// RUN: %mxforge-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// RUN: %mxforge-opt %s --mlir-print-op-generic | %mxforge-opt | FileCheck %s

// CHECK-LABEL: func.func @dense_hadamard
// CHECK-SAME: attributes {mxf.spec = "rotate_quant:K=4096,RS=64,rot=hadamard,M=16,fmt=fp4,scale=even,round=rne,inter=f32,layout=plain,arch=gfx950"}
// CHECK: mxf.rotate_quant <K = 4096, RS = 64, rot = hadamard, M = 16, fmt = fp4, scale = even, round = rne, inter = f32, layout = plain, arch = gfx950> x(%{{.*}} : memref<16x4096xbf16>) q(%{{.*}} : memref<16x2048xi8>) s(%{{.*}} : memref<16x128xi8>) rows(%{{.*}})
// GENERIC-LABEL: sym_name = "dense_hadamard"
// GENERIC: "mxf.rotate_quant"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{spec = "rotate_quant:K=4096,RS=64,rot=hadamard,M=16,fmt=fp4,scale=even,round=rne,inter=f32,layout=plain,arch=gfx950"}>
func.func @dense_hadamard(%x: memref<16x4096xbf16>, %q: memref<16x2048xi8>, %s: memref<16x128xi8>, %m: i32)
    attributes {mxf.spec = "rotate_quant:K=4096,RS=64,rot=hadamard,M=16,fmt=fp4,scale=even,round=rne,inter=f32,layout=plain,arch=gfx950"} {
  mxf.rotate_quant <K = 4096, RS = 64, rot = hadamard, M = 16, fmt = fp4, scale = even,
                    round = rne, inter = f32, layout = plain>
      x(%x : memref<16x4096xbf16>) q(%q : memref<16x2048xi8>) s(%s : memref<16x128xi8>) rows(%m)
  return
}

// No rotation, fp6, shuffled scales: [pad256(1), pad8(96/32)] = [256, 8];
// round=sr takes its seed operand ([1] i32).
// CHECK-LABEL: func.func @dense_rtn_fp6_shuffled
// CHECK: mxf.rotate_quant <K = 96, RS = 0, rot = none, M = 1, fmt = fp6_e3m2, scale = rceil_recip, round = sr, inter = bf16, layout = a4w4_shuffle, arch = gfx950> x(%{{.*}} : memref<1x96xbf16>) seed(%{{.*}} : memref<1xi32>) q(%{{.*}} : memref<1x72xi8>) s(%{{.*}} : memref<256x8xi8>) rows(%{{.*}})
func.func @dense_rtn_fp6_shuffled(%x: memref<1x96xbf16>, %seed: memref<1xi32>, %q: memref<1x72xi8>, %s: memref<256x8xi8>, %m: i32) {
  mxf.rotate_quant <K = 96, RS = 0, rot = none, M = 1, fmt = fp6_e3m2, scale = rceil_recip,
                    round = sr, inter = bf16, layout = a4w4_shuffle>
      x(%x : memref<1x96xbf16>) seed(%seed : memref<1xi32>) q(%q : memref<1x72xi8>) s(%s : memref<256x8xi8>) rows(%m)
  return
}

// Learned rotation: r is [RS, RS].
// CHECK-LABEL: func.func @dense_learned
// CHECK: mxf.rotate_quant <K = 256, RS = 128, rot = learned, rconv = xr, M = 256, fmt = fp8_e5m2, scale = even126, round = rne, inter = f32, layout = plain, arch = gfx950> x(%{{.*}} : memref<256x256xbf16>) r(%{{.*}} : memref<128x128xbf16>) q(%{{.*}} : memref<256x256xi8>) s(%{{.*}} : memref<256x8xi8>) rows(%{{.*}})
func.func @dense_learned(%x: memref<256x256xbf16>, %r: memref<128x128xbf16>, %q: memref<256x256xi8>, %s: memref<256x8xi8>, %m: i32) {
  mxf.rotate_quant <K = 256, RS = 128, rot = learned, M = 256, fmt = fp8_e5m2, scale = even126,
                    round = rne, inter = f32, layout = plain>
      x(%x : memref<256x256xbf16>) r(%r : memref<128x128xbf16>) q(%q : memref<256x256xi8>)
      s(%s : memref<256x8xi8>) rows(%m)
  return
}

// MoE: capacity = 16*8 + 256*32 - 8 = 8312 (scales padded to 8320 rows when
// shuffled), ceil(8312/32) = 260 blocks.
// CHECK-LABEL: func.func @moe
// CHECK: mxf.rotate_quant_moe <K = 7168, RS = 128, rot = hadamard, M = 16, topk = 8, E = 256, block = 32, stage = 1, emask = 0, fmt = fp8_e4m3, scale = even, round = rne, inter = f32, layout = a4w4_shuffle, arch = gfx950> x(%{{.*}} : memref<16x7168xbf16>) topk_ids(%{{.*}} : memref<16x8xi32>) topk_weights(%{{.*}} : memref<16x8xf32>) q(%{{.*}} : memref<16x7168xi8>) s(%{{.*}} : memref<8320x224xi8>) sorted_ids(%{{.*}} : memref<8312xi32>) sorted_weights(%{{.*}} : memref<8312xf32>) sorted_expert_ids(%{{.*}} : memref<260xi32>) num_valid_ids(%{{.*}} : memref<2xi32>) rows(%{{.*}})
func.func @moe(%x: memref<16x7168xbf16>, %ids: memref<16x8xi32>, %w: memref<16x8xf32>, %q: memref<16x7168xi8>,
               %s: memref<8320x224xi8>, %sorted: memref<8312xi32>, %sw: memref<8312xf32>, %experts: memref<260xi32>,
               %valid: memref<2xi32>, %m: i32) {
  mxf.rotate_quant_moe <K = 7168, RS = 128, rot = hadamard, M = 16, topk = 8, E = 256,
                        block = 32, stage = 1, emask = 0, fmt = fp8_e4m3, scale = even, round = rne, inter = f32,
                        layout = a4w4_shuffle>
      x(%x : memref<16x7168xbf16>) topk_ids(%ids : memref<16x8xi32>) topk_weights(%w : memref<16x8xf32>)
      q(%q : memref<16x7168xi8>) s(%s : memref<8320x224xi8>)
      sorted_ids(%sorted : memref<8312xi32>) sorted_weights(%sw : memref<8312xf32>) sorted_expert_ids(%experts : memref<260xi32>)
      num_valid_ids(%valid : memref<2xi32>) rows(%m)
  return
}

// MoE with plain scales ([capacity, K/32]) and a per-block learned rotation.
// capacity = 4*2 + 4*64 - 2 = 262, ceil(262/64) = 5 blocks.
// CHECK-LABEL: func.func @moe_plain_learned_per_block
// CHECK: mxf.rotate_quant_moe <K = 64, RS = 32, rot = learned_per_block, rconv = xr, M = 4, topk = 2, E = 4, block = 64, stage = 1, emask = 0, fmt = fp4, scale = floor, round = rne, inter = f32, layout = plain, arch = gfx950> x(%{{.*}} : memref<4x64xbf16>) r(%{{.*}} : memref<2x32x32xbf16>) topk_ids(%{{.*}} : memref<4x2xi32>) topk_weights(%{{.*}} : memref<4x2xf32>)
func.func @moe_plain_learned_per_block(%x: memref<4x64xbf16>, %r: memref<2x32x32xbf16>,
    %ids: memref<4x2xi32>, %w: memref<4x2xf32>, %q: memref<4x32xi8>, %s: memref<262x2xi8>,
    %sorted: memref<262xi32>, %sw: memref<262xf32>, %experts: memref<5xi32>, %valid: memref<2xi32>, %m: i32) {
  mxf.rotate_quant_moe <K = 64, RS = 32, rot = learned_per_block, M = 4, topk = 2, E = 4,
                        block = 64, stage = 1, emask = 0, fmt = fp4, scale = floor, round = rne, inter = f32,
                        layout = plain>
      x(%x : memref<4x64xbf16>) r(%r : memref<2x32x32xbf16>) topk_ids(%ids : memref<4x2xi32>) topk_weights(%w : memref<4x2xf32>)
      q(%q : memref<4x32xi8>) s(%s : memref<262x2xi8>) sorted_ids(%sorted : memref<262xi32>) sorted_weights(%sw : memref<262xf32>)
      sorted_expert_ids(%experts : memref<5xi32>) num_valid_ids(%valid : memref<2xi32>) rows(%m)
  return
}

// GEMM with prepared weights: w_s shuffled to [pad256(N), pad8(K/32)].
// CHECK-LABEL: func.func @gemm
// CHECK: mxf.rotate_quant_gemm <K = 4096, N = 14336, RS = 32, rot = hadamard_butterfly, M = 1, fmt = fp4, scale = rceil, round = rne, inter = bf16, layout = a4w4_shuffle, wlayout = preshuffle_16x16, arch = gfx950> x(%{{.*}} : memref<1x4096xbf16>) w_q(%{{.*}} : memref<14336x2048xi8>) w_s(%{{.*}} : memref<14336x128xi8>) y(%{{.*}} : memref<1x14336xbf16>) ws(%{{.*}} : memref<1x921676xi32>) rows(%{{.*}})
func.func @gemm(%x: memref<1x4096xbf16>, %wq: memref<14336x2048xi8>, %ws: memref<14336x128xi8>,
                %y: memref<1x14336xbf16>, %work: memref<1x921676xi32>, %m: i32) {
  mxf.rotate_quant_gemm <K = 4096, N = 14336, RS = 32, rot = hadamard_butterfly, M = 1,
                         fmt = fp4, scale = rceil, round = rne, inter = bf16,
                         layout = a4w4_shuffle, wlayout = preshuffle_16x16>
      x(%x : memref<1x4096xbf16>) w_q(%wq : memref<14336x2048xi8>)
      w_s(%ws : memref<14336x128xi8>) y(%y : memref<1x14336xbf16>)
      ws(%work : memref<1x921676xi32>) rows(%m)
  return
}

// Weight preparation: no runtime row count.
// CHECK-LABEL: func.func @quant_weight
// CHECK: mxf.quant_weight <K = 4096, N = 4096, RS = 64, rot = learned, rconv = xr, fmt = fp6_e2m3, scale = ceil, round = sr, inter = f32, layout = plain, wlayout = plain, arch = gfx950> w(%{{.*}} : memref<4096x4096xbf16>) r(%{{.*}} : memref<64x64xbf16>) q(%{{.*}} : memref<4096x3072xi8>) s(%{{.*}} : memref<4096x128xi8>){{$}}
func.func @quant_weight(%w: memref<4096x4096xbf16>, %r: memref<64x64xbf16>,
                        %q: memref<4096x3072xi8>, %s: memref<4096x128xi8>) {
  mxf.quant_weight <K = 4096, N = 4096, RS = 64, rot = learned, fmt = fp6_e2m3, scale = ceil,
                    round = sr, inter = f32, layout = plain, wlayout = plain>
      w(%w : memref<4096x4096xbf16>) r(%r : memref<64x64xbf16>) q(%q : memref<4096x3072xi8>)
      s(%s : memref<4096x128xi8>)
  return
}

// Discardable attributes survive in the trailing attribute dictionary.
// CHECK-LABEL: func.func @with_attrs
// CHECK: rows(%{{.*}}) {note = "kept"}
func.func @with_attrs(%w: memref<16x32xbf16>, %q: memref<16x16xi8>, %s: memref<256x8xi8>, %m: i32) {
  mxf.rotate_quant <K = 32, RS = 32, rot = hadamard, M = 16, fmt = fp4, scale = even,
                    round = rne, inter = f32, layout = a4w4_shuffle>
      x(%w : memref<16x32xbf16>) q(%q : memref<16x16xi8>) s(%s : memref<256x8xi8>) rows(%m)
      {note = "kept"}
  return
}

// MoE stage 2 (one row per routed (token, slot)) with an expert mask:
// capacity = 4*2 + 8*16 - 2 = 134 (shuffled scale rows pad to 160),
// ceil(134/16) = 9 blocks.
// CHECK-LABEL: func.func @moe_stage2_masked
// CHECK: mxf.rotate_quant_moe <K = 512, RS = 0, rot = none, M = 4, topk = 2, E = 8, block = 16, stage = 2, emask = 1, fmt = fp4, scale = rceil, round = rne, inter = f32, layout = a4w4_shuffle, arch = gfx950> x(%{{.*}} : memref<4x2x512xbf16>) topk_ids(%{{.*}} : memref<4x2xi32>) topk_weights(%{{.*}} : memref<4x2xf32>) expert_mask(%{{.*}} : memref<8xi32>) q(%{{.*}} : memref<4x2x256xi8>) s(%{{.*}} : memref<160x16xi8>) sorted_ids(%{{.*}} : memref<134xi32>) sorted_weights(%{{.*}} : memref<134xf32>) sorted_expert_ids(%{{.*}} : memref<9xi32>) num_valid_ids(%{{.*}} : memref<2xi32>) rows(%{{.*}})
func.func @moe_stage2_masked(%x: memref<4x2x512xbf16>, %ids: memref<4x2xi32>, %w: memref<4x2xf32>,
    %mask: memref<8xi32>, %q: memref<4x2x256xi8>, %s: memref<160x16xi8>, %sorted: memref<134xi32>,
    %sw: memref<134xf32>, %experts: memref<9xi32>, %valid: memref<2xi32>, %m: i32) {
  mxf.rotate_quant_moe <K = 512, RS = 0, rot = none, M = 4, topk = 2, E = 8, block = 16,
                        stage = 2, emask = 1, fmt = fp4, scale = rceil, round = rne,
                        inter = f32, layout = a4w4_shuffle>
      x(%x : memref<4x2x512xbf16>) topk_ids(%ids : memref<4x2xi32>)
      topk_weights(%w : memref<4x2xf32>) expert_mask(%mask : memref<8xi32>)
      q(%q : memref<4x2x256xi8>) s(%s : memref<160x16xi8>)
      sorted_ids(%sorted : memref<134xi32>) sorted_weights(%sw : memref<134xf32>)
      sorted_expert_ids(%experts : memref<9xi32>) num_valid_ids(%valid : memref<2xi32>) rows(%m)
  return
}

// Selective rotation: select and layers are keys like any other (select
// left out when off, as of the spec text), layer_mask after seed.
// CHECK-LABEL: func.func @selective_mask
// CHECK: mxf.rotate_quant <K = 4096, RS = 64, rot = hadamard, select = mask, layers = 48, M = 16, fmt = fp4, scale = even, round = rne, inter = f32, layout = plain, arch = gfx950> x(%{{.*}} : memref<16x4096xbf16>) layer_mask(%{{.*}} : memref<48xi32>) q(%{{.*}} : memref<16x2048xi8>) s(%{{.*}} : memref<16x128xi8>) rows(%{{.*}}){{$}}
// GENERIC-LABEL: sym_name = "selective_mask"
// GENERIC: <{spec = "rotate_quant:K=4096,RS=64,rot=hadamard,select=mask,layers=48,M=16,fmt=fp4,scale=even,round=rne,inter=f32,layout=plain,arch=gfx950"}>
func.func @selective_mask(%x: memref<16x4096xbf16>, %l: memref<48xi32>, %q: memref<16x2048xi8>, %s: memref<16x128xi8>, %m: i32) {
  mxf.rotate_quant <K = 4096, RS = 64, rot = hadamard, M = 16, fmt = fp4, scale = even, round = rne, inter = f32, layout = plain,
                    select = mask, layers = 48>
      x(%x : memref<16x4096xbf16>) layer_mask(%l : memref<48xi32>) q(%q : memref<16x2048xi8>) s(%s : memref<16x128xi8>) rows(%m)
  return
}
