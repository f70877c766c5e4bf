// Operands whose type disagrees with the spec: each message names the
// operand (number and name), the type the spec implies, the keys it follows
// from, and the type found.
// RUN: %mxforge-opt %s --split-input-file --verify-diagnostics

func.func @codes_wrong_bytes(%x: memref<16x4096xbf16>, %q: memref<16x1024xi8>, %s: memref<16x128xi8>, %m: i32) {
  // expected-error @+1 {{'mxf.rotate_quant' op operand #1 (q) must be memref<16x2048xi8> for M=16, K=4096, fmt=fp4 (4-bit codes, K*4/8 bytes per row), got memref<16x1024xi8>}}
  mxf.rotate_quant <K = 4096, RS = 64, rot = hadamard, M = 16, fmt = fp4, scale = even, round = rne, inter = f32, layout = plain>
      x(%x : memref<16x4096xbf16>) q(%q : memref<16x1024xi8>) s(%s : memref<16x128xi8>) rows(%m)
  return
}

// -----

// fp6 packs 4 codes into 3 bytes.
func.func @codes_fp6_sized_as_fp4(%x: memref<16x4096xbf16>, %q: memref<16x2048xi8>, %s: memref<16x128xi8>, %m: i32) {
  // expected-error @+1 {{operand #1 (q) must be memref<16x3072xi8> for M=16, K=4096, fmt=fp6_e2m3 (6-bit codes, K*6/8 bytes per row), got memref<16x2048xi8>}}
  mxf.rotate_quant <K = 4096, RS = 64, rot = hadamard, M = 16, fmt = fp6_e2m3, scale = even, round = rne, inter = f32, layout = plain>
      x(%x : memref<16x4096xbf16>) q(%q : memref<16x2048xi8>) s(%s : memref<16x128xi8>) rows(%m)
  return
}

// -----

func.func @x_rows_not_the_bucket(%x: memref<8x4096xbf16>, %q: memref<16x2048xi8>, %s: memref<16x128xi8>, %m: i32) {
  // expected-error @+1 {{operand #0 (x) must be memref<16x4096xbf16> for M=16, K=4096 ([M, K]), got memref<8x4096xbf16>}}
  mxf.rotate_quant <K = 4096, RS = 64, rot = hadamard, M = 16, fmt = fp4, scale = even, round = rne, inter = f32, layout = plain>
      x(%x : memref<8x4096xbf16>) q(%q : memref<16x2048xi8>) s(%s : memref<16x128xi8>) rows(%m)
  return
}

// -----

func.func @x_wrong_element_type(%x: memref<16x4096xf32>, %q: memref<16x2048xi8>, %s: memref<16x128xi8>, %m: i32) {
  // expected-error @+1 {{operand #0 (x) must be memref<16x4096xbf16> for M=16, K=4096 ([M, K]), got memref<16x4096xf32>}}
  mxf.rotate_quant <K = 4096, RS = 64, rot = hadamard, M = 16, fmt = fp4, scale = even, round = rne, inter = f32, layout = plain>
      x(%x : memref<16x4096xf32>) q(%q : memref<16x2048xi8>) s(%s : memref<16x128xi8>) rows(%m)
  return
}

// -----

func.func @x_wrong_rank(%x: memref<65536xbf16>, %q: memref<16x2048xi8>, %s: memref<16x128xi8>, %m: i32) {
  // expected-error @+1 {{operand #0 (x) must be memref<16x4096xbf16> for M=16, K=4096 ([M, K]), got memref<65536xbf16>}}
  mxf.rotate_quant <K = 4096, RS = 64, rot = hadamard, M = 16, fmt = fp4, scale = even, round = rne, inter = f32, layout = plain>
      x(%x : memref<65536xbf16>) q(%q : memref<16x2048xi8>) s(%s : memref<16x128xi8>) rows(%m)
  return
}

// -----

func.func @x_dynamic_rows(%x: memref<?x4096xbf16>, %q: memref<16x2048xi8>, %s: memref<16x128xi8>, %m: i32) {
  // expected-error @+1 {{operand #0 (x) must be memref<16x4096xbf16> for M=16, K=4096 ([M, K]), got memref<?x4096xbf16>}}
  mxf.rotate_quant <K = 4096, RS = 64, rot = hadamard, M = 16, fmt = fp4, scale = even, round = rne, inter = f32, layout = plain>
      x(%x : memref<?x4096xbf16>) q(%q : memref<16x2048xi8>) s(%s : memref<16x128xi8>) rows(%m)
  return
}

// -----

func.func @x_strided(%x: memref<16x4096xbf16, strided<[8192, 1]>>, %q: memref<16x2048xi8>, %s: memref<16x128xi8>, %m: i32) {
  // expected-error @+1 {{operand #0 (x) must be memref<16x4096xbf16> for M=16, K=4096 ([M, K]), got memref<16x4096xbf16, strided<[8192, 1]>>}}
  mxf.rotate_quant <K = 4096, RS = 64, rot = hadamard, M = 16, fmt = fp4, scale = even, round = rne, inter = f32, layout = plain>
      x(%x : memref<16x4096xbf16, strided<[8192, 1]>>) q(%q : memref<16x2048xi8>) s(%s : memref<16x128xi8>) rows(%m)
  return
}

// -----

// Shuffled scales pad the rows to 256 and K/32 = 3 columns to 8.
func.func @scales_not_padded(%x: memref<16x96xbf16>, %q: memref<16x48xi8>, %s: memref<16x3xi8>, %m: i32) {
  // expected-error @+1 {{operand #2 (s) must be memref<256x8xi8> for M=16, K=96, layout=a4w4_shuffle (rows padded to 256, K/32 columns padded to 8), got memref<16x3xi8>}}
  mxf.rotate_quant <K = 96, RS = 32, rot = hadamard, M = 16, fmt = fp4, scale = even, round = rne, inter = f32, layout = a4w4_shuffle>
      x(%x : memref<16x96xbf16>) q(%q : memref<16x48xi8>) s(%s : memref<16x3xi8>) rows(%m)
  return
}

// -----

func.func @scales_padded_but_plain(%x: memref<16x96xbf16>, %q: memref<16x48xi8>, %s: memref<256x8xi8>, %m: i32) {
  // expected-error @+1 {{operand #2 (s) must be memref<16x3xi8> for M=16, K=96, layout=plain ([rows, K/32]), got memref<256x8xi8>}}
  mxf.rotate_quant <K = 96, RS = 32, rot = hadamard, M = 16, fmt = fp4, scale = even, round = rne, inter = f32, layout = plain>
      x(%x : memref<16x96xbf16>) q(%q : memref<16x48xi8>) s(%s : memref<256x8xi8>) rows(%m)
  return
}

// -----

func.func @learned_without_r(%x: memref<16x4096xbf16>, %q: memref<16x2048xi8>, %s: memref<16x128xi8>, %m: i32) {
  // expected-error @+2 {{custom op 'mxf.rotate_quant' operand 'q' given where the spec takes r(%r : memref<64x64xbf16>) for RS=64, rot=learned ([RS, RS]) (rotate_quant:K=4096,RS=64,rot=learned,rconv=xr,M=16,fmt=fp4,scale=even,round=rne,inter=f32,layout=plain,arch=gfx950 takes x, r, q, s, rows, in this order)}}
  mxf.rotate_quant <K = 4096, RS = 64, rot = learned, M = 16, fmt = fp4, scale = even, round = rne, inter = f32, layout = plain>
      x(%x : memref<16x4096xbf16>) q(%q : memref<16x2048xi8>) s(%s : memref<16x128xi8>) rows(%m)
  return
}

// -----

func.func @learned_per_block_without_r(%w: memref<16x4096xbf16>, %q: memref<16x2048xi8>, %s: memref<16x128xi8>) {
  // expected-error @+2 {{operand 'q' given where the spec takes r(%r : memref<64x64x64xbf16>) for K=4096, RS=64, rot=learned_per_block ([K/RS, RS, RS])}}
  mxf.quant_weight <K = 4096, N = 16, RS = 64, rot = learned_per_block, fmt = fp4, scale = even, round = rne, inter = f32, layout = plain, wlayout = plain>
      w(%w : memref<16x4096xbf16>) q(%q : memref<16x2048xi8>) s(%s : memref<16x128xi8>)
  return
}

// -----

func.func @hadamard_with_r(%x: memref<16x4096xbf16>, %r: memref<64x64xbf16>, %q: memref<16x2048xi8>, %s: memref<16x128xi8>, %m: i32) {
  // expected-error @+2 {{expected operand q(%q : memref<16x2048xi8>) for M=16, K=4096, fmt=fp4 (4-bit codes, K*4/8 bytes per row), got 'r' (rotate_quant:K=4096,RS=64,rot=hadamard,M=16,fmt=fp4,scale=even,round=rne,inter=f32,layout=plain,arch=gfx950 takes x, q, s, rows, in this order)}}
  mxf.rotate_quant <K = 4096, RS = 64, rot = hadamard, M = 16, fmt = fp4, scale = even, round = rne, inter = f32, layout = plain>
      x(%x : memref<16x4096xbf16>) r(%r : memref<64x64xbf16>) q(%q : memref<16x2048xi8>) s(%s : memref<16x128xi8>) rows(%m)
  return
}

// -----

func.func @no_rotation_with_r(%x: memref<16x4096xbf16>, %r: memref<64x64xbf16>, %wq: memref<16x2048xi8>, %ws: memref<16x128xi8>, %y: memref<16x16xbf16>, %m: i32) {
  // expected-error @+2 {{expected operand w_q(%w_q : memref<16x2048xi8>) for N=16, K=4096, fmt=fp4, wlayout=plain (4-bit codes, K*4/8 bytes per row), got 'r'}}
  mxf.rotate_quant_gemm <K = 4096, N = 16, RS = 0, rot = none, M = 16, fmt = fp4, scale = even, round = rne, inter = f32, layout = plain, wlayout = plain>
      x(%x : memref<16x4096xbf16>) r(%r : memref<64x64xbf16>) w_q(%wq : memref<16x2048xi8>) w_s(%ws : memref<16x128xi8>) y(%y : memref<16x16xbf16>) rows(%m)
  return
}

// -----

// A per-block rotation given as one matrix.
func.func @learned_per_block_r_2d(%x: memref<16x4096xbf16>, %r: memref<64x64xbf16>, %q: memref<16x2048xi8>, %s: memref<16x128xi8>, %m: i32) {
  // expected-error @+1 {{operand #1 (r) must be memref<64x64x64xbf16> for K=4096, RS=64, rot=learned_per_block ([K/RS, RS, RS]), got memref<64x64xbf16>}}
  mxf.rotate_quant <K = 4096, RS = 64, rot = learned_per_block, M = 16, fmt = fp4, scale = even, round = rne, inter = f32, layout = plain>
      x(%x : memref<16x4096xbf16>) r(%r : memref<64x64xbf16>) q(%q : memref<16x2048xi8>) s(%s : memref<16x128xi8>) rows(%m)
  return
}

// -----

// MoE sizes follow capacity = 16*8 + 256*32 - 8 = 8312.
func.func @moe_sorted_ids_wrong(%x: memref<16x7168xbf16>, %ids: memref<16x8xi32>, %w: memref<16x8xf32>, %q: memref<16x3584xi8>, %s: memref<8320x224xi8>,
                                %sorted: memref<8192xi32>, %sw: memref<8192xf32>, %experts: memref<260xi32>, %valid: memref<2xi32>, %m: i32) {
  // expected-error @+1 {{'mxf.rotate_quant_moe' op operand #5 (sorted_ids) must be memref<8312xi32> for M=16, topk=8, E=256, block=32 (capacity M*topk + E*block - topk = 8312), got memref<8192xi32>}}
  mxf.rotate_quant_moe <K = 7168, RS = 128, rot = hadamard, M = 16, topk = 8, E = 256, block = 32, stage = 1, emask = 0, fmt = fp4, scale = even, round = rne, inter = f32, layout = a4w4_shuffle>
      x(%x : memref<16x7168xbf16>) topk_ids(%ids : memref<16x8xi32>) topk_weights(%w : memref<16x8xf32>) q(%q : memref<16x3584xi8>) s(%s : memref<8320x224xi8>)
      sorted_ids(%sorted : memref<8192xi32>) sorted_weights(%sw : memref<8192xf32>) sorted_expert_ids(%experts : memref<260xi32>) num_valid_ids(%valid : memref<2xi32>) rows(%m)
  return
}

// -----

func.func @moe_scales_not_sorted_rows(%x: memref<16x7168xbf16>, %ids: memref<16x8xi32>, %w: memref<16x8xf32>, %q: memref<16x3584xi8>, %s: memref<256x224xi8>,
                                      %sorted: memref<8312xi32>, %sw: memref<8312xf32>, %experts: memref<260xi32>, %valid: memref<2xi32>, %m: i32) {
  // expected-error @+1 {{operand #4 (s) must be memref<8320x224xi8> for capacity=8312 (M=16, topk=8, E=256, block=32, sorted order), K=7168, layout=a4w4_shuffle (rows padded to 32, K/32 columns padded to 8), got memref<256x224xi8>}}
  mxf.rotate_quant_moe <K = 7168, RS = 128, rot = hadamard, M = 16, topk = 8, E = 256, block = 32, stage = 1, emask = 0, fmt = fp4, scale = even, round = rne, inter = f32, layout = a4w4_shuffle>
      x(%x : memref<16x7168xbf16>) topk_ids(%ids : memref<16x8xi32>) topk_weights(%w : memref<16x8xf32>) q(%q : memref<16x3584xi8>) s(%s : memref<256x224xi8>)
      sorted_ids(%sorted : memref<8312xi32>) sorted_weights(%sw : memref<8312xf32>) sorted_expert_ids(%experts : memref<260xi32>) num_valid_ids(%valid : memref<2xi32>) rows(%m)
  return
}

// -----

func.func @moe_expert_ids_wrong(%x: memref<16x7168xbf16>, %ids: memref<16x8xi32>, %w: memref<16x8xf32>, %q: memref<16x3584xi8>, %s: memref<8320x224xi8>,
                                %sorted: memref<8312xi32>, %sw: memref<8312xf32>, %experts: memref<256xi32>, %valid: memref<2xi32>, %m: i32) {
  // expected-error @+1 {{operand #7 (sorted_expert_ids) must be memref<260xi32> for M=16, topk=8, E=256, block=32 (capacity M*topk + E*block - topk = 8312), ceil(capacity/block) = 260 blocks, got memref<256xi32>}}
  mxf.rotate_quant_moe <K = 7168, RS = 128, rot = hadamard, M = 16, topk = 8, E = 256, block = 32, stage = 1, emask = 0, fmt = fp4, scale = even, round = rne, inter = f32, layout = a4w4_shuffle>
      x(%x : memref<16x7168xbf16>) topk_ids(%ids : memref<16x8xi32>) topk_weights(%w : memref<16x8xf32>) q(%q : memref<16x3584xi8>) s(%s : memref<8320x224xi8>)
      sorted_ids(%sorted : memref<8312xi32>) sorted_weights(%sw : memref<8312xf32>) sorted_expert_ids(%experts : memref<256xi32>) num_valid_ids(%valid : memref<2xi32>) rows(%m)
  return
}

// -----

func.func @moe_topk_ids_i64(%x: memref<16x7168xbf16>, %ids: memref<16x8xi64>, %w: memref<16x8xf32>, %q: memref<16x3584xi8>, %s: memref<8320x224xi8>,
                            %sorted: memref<8312xi32>, %sw: memref<8312xf32>, %experts: memref<260xi32>, %valid: memref<2xi32>, %m: i32) {
  // expected-error @+1 {{operand #1 (topk_ids) must be memref<16x8xi32> for M=16, topk=8 ([M, topk]), got memref<16x8xi64>}}
  mxf.rotate_quant_moe <K = 7168, RS = 128, rot = hadamard, M = 16, topk = 8, E = 256, block = 32, stage = 1, emask = 0, fmt = fp4, scale = even, round = rne, inter = f32, layout = a4w4_shuffle>
      x(%x : memref<16x7168xbf16>) topk_ids(%ids : memref<16x8xi64>) topk_weights(%w : memref<16x8xf32>) q(%q : memref<16x3584xi8>) s(%s : memref<8320x224xi8>)
      sorted_ids(%sorted : memref<8312xi32>) sorted_weights(%sw : memref<8312xf32>) sorted_expert_ids(%experts : memref<260xi32>) num_valid_ids(%valid : memref<2xi32>) rows(%m)
  return
}

// -----

func.func @gemm_weight_scales_plain_shape(%x: memref<1x4096xbf16>, %wq: memref<48x2048xi8>, %ws: memref<48x128xi8>, %y: memref<1x48xbf16>, %wsp: memref<1x4100xi32>, %m: i32) {
  // expected-error @+1 {{'mxf.rotate_quant_gemm' op operand #2 (w_s) must be memref<256x128xi8> for N=48, K=4096, layout=a4w4_shuffle (rows padded to 256, K/32 columns padded to 8), got memref<48x128xi8>}}
  mxf.rotate_quant_gemm <K = 4096, N = 48, RS = 0, rot = none, M = 1, fmt = fp4, scale = even, round = rne, inter = f32, layout = a4w4_shuffle, wlayout = plain>
      x(%x : memref<1x4096xbf16>) w_q(%wq : memref<48x2048xi8>) w_s(%ws : memref<48x128xi8>) y(%y : memref<1x48xbf16>) ws(%wsp : memref<1x4100xi32>) rows(%m)
  return
}

// -----

func.func @gemm_output_f32(%x: memref<1x4096xbf16>, %wq: memref<48x2048xi8>, %ws: memref<48x128xi8>, %y: memref<1x48xf32>, %wsp: memref<1x4100xi32>, %m: i32) {
  // expected-error @+1 {{operand #3 (y) must be memref<1x48xbf16> for M=1, N=48 ([M, N]), got memref<1x48xf32>}}
  mxf.rotate_quant_gemm <K = 4096, N = 48, RS = 0, rot = none, M = 1, fmt = fp4, scale = even, round = rne, inter = f32, layout = plain, wlayout = plain>
      x(%x : memref<1x4096xbf16>) w_q(%wq : memref<48x2048xi8>) w_s(%ws : memref<48x128xi8>) y(%y : memref<1x48xf32>) ws(%wsp : memref<1x4100xi32>) rows(%m)
  return
}

// -----

func.func @gemm_weights_transposed(%x: memref<1x4096xbf16>, %wq: memref<4096x24xi8>, %ws: memref<48x128xi8>, %y: memref<1x48xbf16>, %wsp: memref<1x4100xi32>, %m: i32) {
  // expected-error @+1 {{operand #1 (w_q) must be memref<48x2048xi8> for N=48, K=4096, fmt=fp4, wlayout=plain (4-bit codes, K*4/8 bytes per row), got memref<4096x24xi8>}}
  mxf.rotate_quant_gemm <K = 4096, N = 48, RS = 0, rot = none, M = 1, fmt = fp4, scale = even, round = rne, inter = f32, layout = plain, wlayout = plain>
      x(%x : memref<1x4096xbf16>) w_q(%wq : memref<4096x24xi8>) w_s(%ws : memref<48x128xi8>) y(%y : memref<1x48xbf16>) ws(%wsp : memref<1x4100xi32>) rows(%m)
  return
}

// -----

// K = 4096 and 48 columns split the chains over workgroups (abi/gemm_split.h):
// the op takes its workspace after y.
func.func @gemm_split_without_workspace(%x: memref<1x4096xbf16>, %wq: memref<48x2048xi8>, %ws: memref<48x128xi8>, %y: memref<1x48xbf16>, %m: i32) {
  // expected-error @+2 {{operand 'rows' given where the spec takes ws(%ws : memref<1x4100xi32>)}}
  mxf.rotate_quant_gemm <K = 4096, N = 48, RS = 0, rot = none, M = 1, fmt = fp4, scale = even, round = rne, inter = f32, layout = plain, wlayout = plain>
      x(%x : memref<1x4096xbf16>) w_q(%wq : memref<48x2048xi8>) w_s(%ws : memref<48x128xi8>) y(%y : memref<1x48xbf16>) rows(%m)
  return
}

// -----

// ODS checks what is not spec-dependent: the row count is an i32 ...
func.func @rows_i64(%x: memref<16x4096xbf16>, %q: memref<16x2048xi8>, %s: memref<16x128xi8>, %m: i64) {
  // expected-note @-1 {{prior use here}}
  // expected-error @+2 {{use of value '%m' expects different type than prior uses: 'i32' vs 'i64'}}
  mxf.rotate_quant <K = 4096, RS = 64, rot = hadamard, M = 16, fmt = fp4, scale = even, round = rne, inter = f32, layout = plain>
      x(%x : memref<16x4096xbf16>) q(%q : memref<16x2048xi8>) s(%s : memref<16x128xi8>) rows(%m)
  return
}

// -----

// ... and buffers are memrefs of the spec's shapes.
func.func @tensor_operand(%x: tensor<16x4096xbf16>, %q: memref<16x2048xi8>, %s: memref<16x128xi8>, %m: i32) {
  // expected-error @+1 {{'mxf.rotate_quant' op operand #0 (x) must be memref<16x4096xbf16> for M=16, K=4096 ([M, K]), got tensor<16x4096xbf16>}}
  mxf.rotate_quant <K = 4096, RS = 64, rot = hadamard, M = 16, fmt = fp4, scale = even, round = rne, inter = f32, layout = plain>
      x(%x : tensor<16x4096xbf16>) q(%q : memref<16x2048xi8>) s(%s : memref<16x128xi8>) rows(%m)
  return
}

// -----

// emask=1 without the mask operand is named where it is missing.
func.func @moe_mask_missing(%x: memref<4x512xbf16>, %ids: memref<4x2xi32>, %w: memref<4x2xf32>,
    %q: memref<4x256xi8>, %s: memref<160x16xi8>, %sorted: memref<134xi32>, %sw: memref<134xf32>,
    %experts: memref<9xi32>, %valid: memref<2xi32>, %m: i32) {
  // expected-error @+3 {{operand 'q' given where the spec takes expert_mask(%expert_mask : memref<8xi32>) for E=8, emask=1 ([E])}}
  mxf.rotate_quant_moe <K = 512, RS = 0, rot = none, M = 4, topk = 2, E = 8, block = 16, stage = 1, emask = 1, fmt = fp4, scale = rceil, round = rne, inter = f32, layout = a4w4_shuffle>
      x(%x : memref<4x512xbf16>) topk_ids(%ids : memref<4x2xi32>) topk_weights(%w : memref<4x2xf32>)
      q(%q : memref<4x256xi8>) s(%s : memref<160x16xi8>) sorted_ids(%sorted : memref<134xi32>) sorted_weights(%sw : memref<134xf32>)
      sorted_expert_ids(%experts : memref<9xi32>) num_valid_ids(%valid : memref<2xi32>) rows(%m)
  return
}

// -----

// Selective rotation: layer_mask follows select=mask, and its length is layers.
func.func @select_mask_without_the_mask(%x: memref<16x4096xbf16>, %q: memref<16x2048xi8>, %s: memref<16x128xi8>, %m: i32) {
  // expected-error @+2 {{operand 'q' given where the spec takes layer_mask(%layer_mask : memref<48xi32>) for select=mask, layers=48 ([layers])}}
  mxf.rotate_quant <K = 4096, RS = 64, rot = hadamard, M = 16, fmt = fp4, scale = even, round = rne, inter = f32, layout = plain, select = mask, layers = 48>
      x(%x : memref<16x4096xbf16>) q(%q : memref<16x2048xi8>) s(%s : memref<16x128xi8>) rows(%m)
  return
}

// -----

func.func @layer_mask_without_select_mask(%x: memref<16x4096xbf16>, %l: memref<48xi32>, %q: memref<16x2048xi8>, %s: memref<16x128xi8>, %m: i32) {
  // expected-error @+2 {{expected operand q(%q : memref<16x2048xi8>) for M=16, K=4096, fmt=fp4 (4-bit codes, K*4/8 bytes per row), got 'layer_mask'}}
  mxf.rotate_quant <K = 4096, RS = 64, rot = hadamard, M = 16, fmt = fp4, scale = even, round = rne, inter = f32, layout = plain, select = flag>
      x(%x : memref<16x4096xbf16>) layer_mask(%l : memref<48xi32>) q(%q : memref<16x2048xi8>) s(%s : memref<16x128xi8>) rows(%m)
  return
}

// -----

func.func @layer_mask_of_another_length(%x: memref<16x4096xbf16>, %l: memref<32xi32>, %q: memref<16x2048xi8>, %s: memref<16x128xi8>, %m: i32) {
  // expected-error @+1 {{'mxf.rotate_quant' op operand #1 (layer_mask) must be memref<48xi32> for select=mask, layers=48 ([layers]), got memref<32xi32>}}
  mxf.rotate_quant <K = 4096, RS = 64, rot = hadamard, M = 16, fmt = fp4, scale = even, round = rne, inter = f32, layout = plain, select = mask, layers = 48>
      x(%x : memref<16x4096xbf16>) layer_mask(%l : memref<32xi32>) q(%q : memref<16x2048xi8>) s(%s : memref<16x128xi8>) rows(%m)
  return
}

// -----

// AITER's A6W6 tiles: q and s are whole row tiles of 256 rows (K=160: 4 K
// tiles with the guards, 384 code and 16 scale bytes a row), not plain rows.
func.func @a6w6_tiles_given_plain_rows(%x: memref<16x160xbf16>, %q: memref<16x120xi8>, %s: memref<256x16xi8>, %m: i32) {
  // expected-error @+1 {{operand #1 (q) must be memref<256x384xi8> for M=16, K=160, layout=mxfp6_c0c1_256_padk2 (rows padded to 256; per row tile 4 K tiles = ceil(K/128) + 2 guard, 24576 bytes each), got memref<16x120xi8>}}
  mxf.rotate_quant <K = 160, RS = 32, rot = hadamard, M = 16, fmt = fp6_e2m3, scale = even, round = rne, inter = f32, layout = mxfp6_c0c1_256_padk2>
      x(%x : memref<16x160xbf16>) q(%q : memref<16x120xi8>) s(%s : memref<256x16xi8>) rows(%m)
  return
}

// -----

// An operand list that ends early: the next op's name is not an operand.
func.func @operands_end_early(%x: memref<16x4096xbf16>, %m: i32) {
  // expected-error @+3 {{expected operand q(%q : memref<16x2048xi8>) for M=16, K=4096, fmt=fp4 (4-bit codes, K*4/8 bytes per row), got 'return'}}
  mxf.rotate_quant <K = 4096, RS = 64>
      x(%x : memref<16x4096xbf16>)
  return
}
