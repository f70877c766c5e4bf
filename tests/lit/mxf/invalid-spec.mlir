// Key combinations that no spec allows: the op's parser runs the spec's own
// parser and validation (spec/kernel_spec.h), so each message names the key,
// the value and what would be valid, exactly as `mxforge spec` would.
// RUN: %mxforge-opt %s --split-input-file --verify-diagnostics

func.func @k_not_multiple_of_rs(%x: memref<16x4128xbf16>, %q: memref<16x2064xi8>, %s: memref<16x129xi8>, %m: i32) {
  // expected-error @+1 {{custom op 'mxf.rotate_quant' has an invalid spec: K=4128: K must be a multiple of RS=64}}
  mxf.rotate_quant <K = 4128, RS = 64, rot = hadamard, M = 16, fmt = fp4, scale = even, round = rne, inter = f32, layout = plain>
      x(%x : memref<16x4128xbf16>) q(%q : memref<16x2064xi8>) s(%s : memref<16x129xi8>) rows(%m)
  return
}

// -----

func.func @k_not_multiple_of_32(%x: memref<16x100xbf16>, %q: memref<16x50xi8>, %s: memref<16x3xi8>, %m: i32) {
  // expected-error @+1 {{has an invalid spec: K=100: K must be a multiple of 32 in 32..65536}}
  mxf.rotate_quant <K = 100, RS = 0, rot = none, M = 16, fmt = fp4, scale = even, round = rne, inter = f32, layout = plain>
      x(%x : memref<16x100xbf16>) q(%q : memref<16x50xi8>) s(%s : memref<16x3xi8>) rows(%m)
  return
}

// -----

func.func @k_negative(%x: memref<16x64xbf16>, %q: memref<16x32xi8>, %s: memref<16x2xi8>, %m: i32) {
  // expected-error @+1 {{has an invalid spec: K=-64: K must be a decimal number (digits 0-9 only, no sign)}}
  mxf.rotate_quant <K = -64, RS = 0, rot = none, M = 16, fmt = fp4, scale = even, round = rne, inter = f32, layout = plain>
      x(%x : memref<16x64xbf16>) q(%q : memref<16x32xi8>) s(%s : memref<16x2xi8>) rows(%m)
  return
}

// -----

func.func @rs_not_supported(%x: memref<16x4096xbf16>, %q: memref<16x2048xi8>, %s: memref<16x128xi8>, %m: i32) {
  // expected-error @+1 {{has an invalid spec: RS=48: RS must be one of 0, 32, 64, 128, 256}}
  mxf.rotate_quant <K = 4096, RS = 48, rot = hadamard, M = 16, fmt = fp4, scale = even, round = rne, inter = f32, layout = plain>
      x(%x : memref<16x4096xbf16>) q(%q : memref<16x2048xi8>) s(%s : memref<16x128xi8>) rows(%m)
  return
}

// -----

func.func @rotation_without_rs(%x: memref<16x4096xbf16>, %q: memref<16x2048xi8>, %s: memref<16x128xi8>, %m: i32) {
  // expected-error @+1 {{has an invalid spec: rot=hadamard: RS=0 (no rotation) requires rot=none; set RS to 32, 64, 128 or 256 to rotate}}
  mxf.rotate_quant <K = 4096, RS = 0, rot = hadamard, M = 16, fmt = fp4, scale = even, round = rne, inter = f32, layout = plain>
      x(%x : memref<16x4096xbf16>) q(%q : memref<16x2048xi8>) s(%s : memref<16x128xi8>) rows(%m)
  return
}

// -----

func.func @rs_without_rotation(%x: memref<16x4096xbf16>, %q: memref<16x2048xi8>, %s: memref<16x128xi8>, %m: i32) {
  // expected-error @+1 {{has an invalid spec: rot=none: RS=64 needs a rotation: rot must be one of hadamard, hadamard_butterfly, learned, learned_per_block (or set RS=0 for no rotation)}}
  mxf.rotate_quant <K = 4096, RS = 64, rot = none, M = 16, fmt = fp4, scale = even, round = rne, inter = f32, layout = plain>
      x(%x : memref<16x4096xbf16>) q(%q : memref<16x2048xi8>) s(%s : memref<16x128xi8>) rows(%m)
  return
}

// -----

func.func @m_bucket_not_power_of_two(%x: memref<3x4096xbf16>, %q: memref<3x2048xi8>, %s: memref<3x128xi8>, %m: i32) {
  // expected-error @+1 {{has an invalid spec: M=3: M must be one of 1, 2, 4, 8, 16, 32, 64, 128, 256}}
  mxf.rotate_quant <K = 4096, RS = 0, rot = none, M = 3, fmt = fp4, scale = even, round = rne, inter = f32, layout = plain>
      x(%x : memref<3x4096xbf16>) q(%q : memref<3x2048xi8>) s(%s : memref<3x128xi8>) rows(%m)
  return
}

// -----

func.func @m_bucket_too_big(%x: memref<512x64xbf16>, %q: memref<512x32xi8>, %s: memref<512x2xi8>, %m: i32) {
  // expected-error @+1 {{has an invalid spec: M=512: M must be one of 1, 2, 4, 8, 16, 32, 64, 128, 256}}
  mxf.rotate_quant <K = 64, RS = 0, rot = none, M = 512, fmt = fp4, scale = even, round = rne, inter = f32, layout = plain>
      x(%x : memref<512x64xbf16>) q(%q : memref<512x32xi8>) s(%s : memref<512x2xi8>) rows(%m)
  return
}

// -----

func.func @moe_topk_above_e(%x: memref<16x64xbf16>, %ids: memref<16x9xi32>, %w: memref<16x9xf32>, %q: memref<16x32xi8>, %s: memref<384x8xi8>,
                            %sorted: memref<383xi32>, %sw: memref<383xf32>, %experts: memref<12xi32>, %valid: memref<2xi32>, %m: i32) {
  // expected-error @+1 {{has an invalid spec: topk=9 must be <= E=8}}
  mxf.rotate_quant_moe <K = 64, RS = 0, rot = none, M = 16, topk = 9, E = 8, block = 32, stage = 1, emask = 0, fmt = fp4, scale = even, round = rne, inter = f32, layout = a4w4_shuffle>
      x(%x : memref<16x64xbf16>) topk_ids(%ids : memref<16x9xi32>) topk_weights(%w : memref<16x9xf32>) q(%q : memref<16x32xi8>) s(%s : memref<384x8xi8>)
      sorted_ids(%sorted : memref<383xi32>) sorted_weights(%sw : memref<383xf32>) sorted_expert_ids(%experts : memref<12xi32>) num_valid_ids(%valid : memref<2xi32>) rows(%m)
  return
}

// -----

func.func @moe_too_many_experts(%x: memref<16x64xbf16>, %ids: memref<16x1xi32>, %w: memref<16x1xf32>, %q: memref<16x32xi8>, %s: memref<32816x8xi8>,
                                %sorted: memref<32815xi32>, %sw: memref<32815xf32>, %experts: memref<1026xi32>, %valid: memref<2xi32>, %m: i32) {
  // expected-error @+1 {{has an invalid spec: E=1025: E must be in 1..1024}}
  mxf.rotate_quant_moe <K = 64, RS = 0, rot = none, M = 16, topk = 1, E = 1025, block = 32, stage = 1, emask = 0, fmt = fp4, scale = even, round = rne, inter = f32, layout = a4w4_shuffle>
      x(%x : memref<16x64xbf16>) topk_ids(%ids : memref<16x1xi32>) topk_weights(%w : memref<16x1xf32>) q(%q : memref<16x32xi8>) s(%s : memref<32816x8xi8>)
      sorted_ids(%sorted : memref<32815xi32>) sorted_weights(%sw : memref<32815xf32>) sorted_expert_ids(%experts : memref<1026xi32>) num_valid_ids(%valid : memref<2xi32>) rows(%m)
  return
}

// -----

func.func @moe_bad_block(%x: memref<16x64xbf16>, %ids: memref<16x2xi32>, %w: memref<16x2xf32>, %q: memref<16x32xi8>, %s: memref<160x8xi8>,
                         %sorted: memref<158xi32>, %sw: memref<158xf32>, %experts: memref<10xi32>, %valid: memref<2xi32>, %m: i32) {
  // expected-error @+1 {{has an invalid spec: block=80: block must be one of 16, 32, 64, 128}}
  mxf.rotate_quant_moe <K = 64, RS = 0, rot = none, M = 16, topk = 2, E = 8, block = 80, stage = 1, emask = 0, fmt = fp4, scale = even, round = rne, inter = f32, layout = a4w4_shuffle>
      x(%x : memref<16x64xbf16>) topk_ids(%ids : memref<16x2xi32>) topk_weights(%w : memref<16x2xf32>) q(%q : memref<16x32xi8>) s(%s : memref<160x8xi8>)
      sorted_ids(%sorted : memref<158xi32>) sorted_weights(%sw : memref<158xf32>) sorted_expert_ids(%experts : memref<10xi32>) num_valid_ids(%valid : memref<2xi32>) rows(%m)
  return
}

// -----

func.func @gemm_not_fp4(%x: memref<16x4096xbf16>, %wq: memref<16x2048xi8>, %ws: memref<16x128xi8>, %y: memref<16x16xbf16>, %m: i32) {
  // expected-error @+1 {{has an invalid spec: fmt=fp8_e5m2: rotate_quant_gemm supports fmt=fp4 or fmt=fp6_e2m3 (fp4: A4W4; fp6_e2m3: W6A16, bf16 activations x MXFP6 weights)}}
  mxf.rotate_quant_gemm <K = 4096, N = 16, RS = 0, rot = none, M = 16, fmt = fp8_e5m2, scale = even, round = rne, inter = f32, layout = plain, wlayout = plain>
      x(%x : memref<16x4096xbf16>) w_q(%wq : memref<16x2048xi8>) w_s(%ws : memref<16x128xi8>) y(%y : memref<16x16xbf16>) rows(%m)
  return
}

// -----

func.func @gemm_bad_n(%x: memref<16x4096xbf16>, %wq: memref<20x2048xi8>, %ws: memref<20x128xi8>, %y: memref<16x20xbf16>, %m: i32) {
  // expected-error @+1 {{has an invalid spec: N=20: N must be a multiple of 16 in 16..1048576}}
  mxf.rotate_quant_gemm <K = 4096, N = 20, RS = 0, rot = none, M = 16, fmt = fp4, scale = even, round = rne, inter = f32, layout = plain, wlayout = plain>
      x(%x : memref<16x4096xbf16>) w_q(%wq : memref<20x2048xi8>) w_s(%ws : memref<20x128xi8>) y(%y : memref<16x20xbf16>) rows(%m)
  return
}

// -----

func.func @weight_fp8(%w: memref<16x4096xbf16>, %q: memref<16x4096xi8>, %s: memref<16x128xi8>) {
  // expected-error @+1 {{has an invalid spec: fmt=fp8_e4m3: quant_weight supports fmt=fp4 or fmt=fp6_e2m3}}
  mxf.quant_weight <K = 4096, N = 16, RS = 0, rot = none, fmt = fp8_e4m3, scale = even, round = rne, inter = f32, layout = plain, wlayout = plain>
      w(%w : memref<16x4096xbf16>) q(%q : memref<16x4096xi8>) s(%s : memref<16x128xi8>)
  return
}

// -----

func.func @preshuffle_fp6(%w: memref<16x4096xbf16>, %q: memref<16x3072xi8>, %s: memref<16x128xi8>) {
  // expected-error @+1 {{has an invalid spec: wlayout=preshuffle_16x16: preshuffle_16x16 requires fmt=fp4 (got fmt=fp6_e2m3); use wlayout=plain}}
  mxf.quant_weight <K = 4096, N = 16, RS = 0, rot = none, fmt = fp6_e2m3, scale = even, round = rne, inter = f32, layout = plain, wlayout = preshuffle_16x16>
      w(%w : memref<16x4096xbf16>) q(%q : memref<16x3072xi8>) s(%s : memref<16x128xi8>)
  return
}

// -----

func.func @preshuffle_k96(%w: memref<16x96xbf16>, %q: memref<16x48xi8>, %s: memref<16x3xi8>) {
  // expected-error @+1 {{has an invalid spec: wlayout=preshuffle_16x16: preshuffle_16x16 requires K to be a multiple of 64 (got K=96); use wlayout=plain}}
  mxf.quant_weight <K = 96, N = 16, RS = 0, rot = none, fmt = fp4, scale = even, round = rne, inter = f32, layout = plain, wlayout = preshuffle_16x16>
      w(%w : memref<16x96xbf16>) q(%q : memref<16x48xi8>) s(%s : memref<16x3xi8>)
  return
}
