"""What a stock Quark loader does with `mxforge quantize`'s checkpoints
(issue 31, item 2; docs/loaders.md cites each rule from vLLM's and SGLang's
code). `stock_quark_load` below applies exactly those rules: the method
check, QuarkConfig's required members, the OCP-MX weight predicate, the
dynamic-input rule, the parameter shapes and the tensor-parallel split of
each linear layer; and its forward computes what their MX emulation path
computes: dequantized weights against dynamically quantized activations
(the EVEN scale rule, AITER's dynamic_mxfp4_quant, which is mxforge's
rotate_quant at RS=0, scale=even), with no rotation.

Checked:
  * a standard checkpoint (fp4, RS=0, plain layouts) loads under the stock
    rules and gives the reference GEMM's output (bf16 rounding apart);
  * a rotated checkpoint is refused by them by name, and read by mxforge's
    loader (read_quantized_weight), whose GEMM output equals the reference
    byte for byte; the negative control: marked "quark" by hand, the stock
    rules load it and compute a wrong result;
  * tensor-parallel shards (N for column-parallel, K for row-parallel) of
    the default layout equal the quantization of the shards of the bf16
    tensor; the negative control: preshuffled codes do not shard so;
  * mxforge's loader refuses a GEMM spec the weights were not made for,
    naming both values (every misuse issue 31 measured)."""

import json

import numpy as np
import pytest

import mxforge
from helpers import bf16_bits, cli_reference, write_safetensors

K, N = 512, 64
FP4 = np.array([0, 0.5, 1, 1.5, 2, 3, 4, 6, -0.0, -0.5, -1, -1.5, -2, -3, -4, -6])
# vLLM's QUANTIZATION_METHODS and SGLang's list hold these among others; an
# unknown name is refused by both (vllm/config/model.py _verify_quantization,
# sglang/srt/configs/model_config.py _verify_quantization).
STOCK_METHODS = ("quark", "fp8", "awq", "gptq", "compressed-tensors", "mxfp4", "modelopt")


def bf16_to_f64(bits):
    return (np.asarray(bits, dtype=np.uint32) << 16).view(np.float32).astype(np.float64)


def dequant_fp4(codes, scales):
    """[rows, K/2] packed E2M1 (element 2i in the low nibble) and [rows,
    K/32] E8M0 -> float64 [rows, K]."""
    values = np.empty((codes.shape[0], codes.shape[1] * 2))
    values[:, 0::2] = FP4[codes & 0xF]
    values[:, 1::2] = FP4[codes >> 4]
    return values * np.repeat(2.0 ** (scales.astype(np.float64) - 127), 32, axis=1)


def tp_shard(codes, scales, kind, tp_size, tp_rank):
    """vLLM's split of a linear layer's parameters (parameter.py): a
    column-parallel layer narrows output_dim 0, a row-parallel one input_dim
    1, of the codes and the scales alike."""
    axis = 0 if kind == "column" else 1
    return tuple(np.array_split(t, tp_size, axis=axis)[tp_rank] for t in (codes, scales))


def stock_quark_load(folder, tensors, layers, tp_size=1, tp_rank=0):
    """The stock loaders' rules over a checkpoint: config.json's
    quantization_config and the tensors {name: bytes} with their shapes.
    `layers`: {prefix: "column" | "row"}. Returns {prefix: (weight,
    weight_scale)} of this rank, or raises as the loaders do."""
    config = json.loads((folder / "config.json").read_text())["quantization_config"]
    method = config.get("quant_method", "")
    if method not in STOCK_METHODS:
        raise ValueError(f"Unknown quantization method: {method}. Must be one of "
                         f"{list(STOCK_METHODS)}.")
    if method != "quark":
        raise ValueError(f"not a Quark checkpoint: {method}")
    if "export" not in config:  # QuarkConfig.from_config
        raise ValueError("The export key should be included in the configurations of Quark "
                         "quantized model")
    len(config["export"]["kv_cache_group"])  # a list, or the loader crashes
    assert isinstance(config["layer_quant_config"], dict)
    assert isinstance(config["layer_type_quant_config"], dict)
    assert isinstance(config["exclude"], list)
    weight = config["global_quant_config"]["weight"]
    source = config["global_quant_config"]["input_tensors"]
    gq = config["global_quant_config"]
    if gq.get("output_tensors") is not None or gq.get("bias") is not None:
        raise NotImplementedError("output_tensors and bias quantized are not supported")
    # _is_w_ocp_mx_a_x: the weight alone decides.
    if not (isinstance(weight, dict) and weight.get("qscheme") == "per_group"
            and weight.get("group_size") == 32 and weight.get("scale_format") == "e8m0"
            and weight.get("dtype") in ("fp4", "fp6_e3m2", "fp6_e2m3")):
        raise NotImplementedError("No quark compatible scheme was found")
    if source is None or not source.get("is_dynamic"):  # QuarkOCP_MX: no static input scales
        raise NotImplementedError("QuarkOCP_MX with static input scales is not implemented")
    loaded = {}
    for prefix, kind in layers.items():
        codes, scales = tensors[prefix + ".weight"], tensors[prefix + ".weight_scale"]
        n, packed = codes.shape
        if scales.shape != (n, packed * 2 // 32):  # create_weights' parameter shapes
            raise ValueError(f"{prefix}.weight_scale has shape {list(scales.shape)}, the "
                             f"parameter is {[n, packed * 2 // 32]}")
        loaded[prefix] = tp_shard(codes, scales, kind, tp_size, tp_rank)
    extra = set(tensors) - {p + s for p in layers for s in (".weight", ".weight_scale")}
    if extra:  # no parameter takes them
        raise KeyError(f"There is no module or parameter named {sorted(extra)[0]!r}")
    return loaded


def stock_forward(x, codes, scales, magnitude=False):
    """Their emulation: activations quantized dynamically (EVEN rule, no
    rotation), weights dequantized, a float GEMM; with `magnitude`, also
    |x_q|.|w|^T, the scale of the rounding error of any summation order."""
    q = mxforge.rotate_quant(x, k=x.shape[1], rs=0, scale="even")
    xq, wq = dequant_fp4(np.asarray(q.q), np.asarray(q.s)), dequant_fp4(codes, scales)
    return (xq @ wq.T, np.abs(xq) @ np.abs(wq).T) if magnitude else xq @ wq.T


def quantized_model(tmp_path, rng, spec, name):
    gen = np.random.default_rng(rng.randrange(2**63))
    w = bf16_bits(gen.standard_normal((N, K)) * 0.05)
    source = tmp_path / "in" / "model.safetensors"
    if not source.exists():
        source.parent.mkdir()
        (source.parent / "config.json").write_text('{"architectures": ["X"]}\n')
        write_safetensors(source, {"model.layers.0.mlp.down_proj.weight": ("BF16", w)})
    out = tmp_path / name / "model.safetensors"
    out.parent.mkdir()
    mxforge.quantize_checkpoint(source, out, spec, r".*proj\.weight")
    return out.parent, w


def tensors_of(folder):
    from helpers import read_safetensors
    raw = read_safetensors(folder / "model.safetensors")
    return {"model.layers.0.mlp.down_proj.weight":
            np.frombuffer(raw["model.layers.0.mlp.down_proj.weight"], np.uint8).reshape(N, -1),
            "model.layers.0.mlp.down_proj.weight_scale":
            np.frombuffer(raw["model.layers.0.mlp.down_proj.weight_scale"],
                          np.uint8).reshape(N, -1)}


PREFIX = "model.layers.0.mlp.down_proj"


def test_a_standard_checkpoint_loads_and_gives_the_reference(tmp_path, rng):
    folder, w = quantized_model(tmp_path, rng, "quant_weight:RS=0", "std")
    loaded = stock_quark_load(folder, tensors_of(folder), {PREFIX: "row"})
    codes, scales = loaded[PREFIX]
    x = bf16_bits(np.random.default_rng(rng.randrange(2**63)).standard_normal((8, K)))
    spec = mxforge.canonical_spec("rotate_quant_gemm", k=K, n=N, rs=0, m=8)
    (y_ref,) = cli_reference(tmp_path, spec, {"x": x, "w_q": codes, "w_s": scales},
                             outputs=("y",), m=8)
    y_stock, magnitude = stock_forward(x, codes, scales, magnitude=True)
    y = bf16_to_f64(y_ref.view(np.uint16))
    # The reference sums in f32 (at most K roundings of 2^-24 of the terms'
    # magnitude) and rounds to bf16 (2^-8 of the result).
    bound = 2.0 ** -8 * np.abs(y_stock) + K * 2.0 ** -24 * magnitude
    assert np.all(np.abs(y - y_stock) <= bound), np.max(np.abs(y - y_stock) - bound)
    print(f"standard checkpoint: stock rules load it; y within bf16 rounding of the reference")


def test_a_rotated_checkpoint_is_refused_by_stock_rules_and_read_by_mxforge(tmp_path, rng):
    rs = rng.choice((32, 64, 128))
    folder, w = quantized_model(tmp_path, rng, f"quant_weight:RS={rs},rot=hadamard", "rot")
    with pytest.raises(ValueError, match="Unknown quantization method: mxforge"):
        stock_quark_load(folder, tensors_of(folder), {PREFIX: "row"})
    weight = mxforge.read_quantized_weight(folder, PREFIX + ".weight")
    gemm = mxforge.canonical_spec("rotate_quant_gemm", k=K, n=N, rs=rs, rot="hadamard", m=8)
    weight.check_for(gemm)
    gen = np.random.default_rng(rng.randrange(2**63))
    x = bf16_bits(gen.standard_normal((8, K)) * np.where(gen.random((8, K)) < 0.02, 30, 1))
    y = mxforge.rotate_quant_gemm(x, weight.q, weight.s, spec=gemm)
    (y_ref,) = cli_reference(tmp_path, gemm, {"x": x, "w_q": weight.q, "w_s": weight.s},
                             outputs=("y",), m=8)
    assert np.asarray(y).tobytes() == y_ref.tobytes()
    exact = bf16_to_f64(x) @ bf16_to_f64(w).T
    error = np.linalg.norm(bf16_to_f64(np.asarray(y).view(np.uint16)) - exact) / \
        np.linalg.norm(exact)
    # The negative control: marked "quark" by hand, the stock rules load it
    # and compute x.(W.R)^T.
    config_path = folder / "config.json"
    config = json.loads(config_path.read_text())
    config["quantization_config"]["quant_method"] = "quark"
    config_path.write_text(json.dumps(config))
    codes, scales = stock_quark_load(folder, tensors_of(folder), {PREFIX: "row"})[PREFIX]
    wrong = np.linalg.norm(stock_forward(x, codes, scales) - exact) / np.linalg.norm(exact)
    print(f"RS={rs}: mxforge's loader {error:.3f}, the stock rules on a mismarked copy "
          f"{wrong:.3f}")
    assert error < 0.3 and wrong > 0.8


def test_tensor_parallel_shards_of_the_default_layout(tmp_path, rng):
    rs = rng.choice((0, 32, 64))
    spec = "quant_weight:RS=0" if rs == 0 else f"quant_weight:RS={rs},rot=hadamard"
    folder, w = quantized_model(tmp_path, rng, spec, "tp")
    tensors = tensors_of(folder)
    for tp in (2, 4):
        for kind in ("column", "row"):
            for rank in range(tp):
                # The stock rules for a standard checkpoint; for a rotated
                # one (which they refuse) an engine with mxforge splits alike.
                codes, scales = (stock_quark_load(folder, tensors, {PREFIX: kind}, tp, rank)[PREFIX]
                                 if rs == 0 else
                                 tp_shard(tensors[PREFIX + ".weight"],
                                          tensors[PREFIX + ".weight_scale"], kind, tp, rank))
                part = np.array_split(w, tp, axis=0 if kind == "column" else 1)[rank]
                n, k = part.shape
                mine = mxforge.quant_weight(part, spec=f"{spec},K={k},N={n}")
                assert codes.tobytes() == np.asarray(mine.q).tobytes(), (tp, kind, rank)
                assert scales.tobytes() == np.asarray(mine.s).tobytes(), (tp, kind, rank)
    # The negative control: AITER's preshuffled codes are not shardable so.
    shuffled = tmp_path / "shuffled.safetensors"
    mxforge.quantize_checkpoint(tmp_path / "in" / "model.safetensors", shuffled,
                                spec + ",wlayout=preshuffle_16x16", r".*proj\.weight")
    from helpers import read_safetensors
    raw = np.frombuffer(read_safetensors(shuffled)[PREFIX + ".weight"], np.uint8).reshape(N, -1)
    part = w[:, :K // 2]
    mine = mxforge.quant_weight(part, spec=f"{spec},K={K // 2},N={N},wlayout=preshuffle_16x16")
    assert raw[:, :K // 4].tobytes() != np.asarray(mine.q).tobytes()
    print(f"RS={rs}: column and row shards at tp=2 and 4 equal the shards' quantization")


def test_a_gemm_the_weights_were_not_made_for_is_refused_naming_both(tmp_path, rng):
    folder, _ = quantized_model(tmp_path, rng, "quant_weight:RS=64,rot=hadamard", "misuse")
    weight = mxforge.read_quantized_weight(folder, PREFIX + ".weight")
    base = dict(k=K, n=N, rs=64, rot="hadamard")
    cases = [
        (dict(base, wlayout="preshuffle_16x16"), "wlayout=plain, rotate_quant_gemm reads "
                                                  "wlayout=preshuffle_16x16"),
        (dict(base, layout="a4w4_shuffle"),
         "layout=plain, rotate_quant_gemm reads layout=a4w4_shuffle"),
        (dict(base, rs=128), "RS=64, rotate_quant_gemm reads RS=128"),
        (dict(base, rs=0, rot="none"), "RS=64, rotate_quant_gemm reads RS=0"),
        (dict(base, rot="learned"), "rot=hadamard, rotate_quant_gemm reads rot=learned"),
        (dict(base, n=128), "N=64, rotate_quant_gemm reads N=128"),
        (dict(base, fmt="fp6_e2m3"), "fmt=fp4, rotate_quant_gemm reads fmt=fp6_e2m3"),
    ]
    for keys, message in cases:
        with pytest.raises(mxforge.ArgumentError, match=message):
            weight.check_for(mxforge.canonical_spec("rotate_quant_gemm", **keys))
    weight.check_for(mxforge.canonical_spec("rotate_quant_gemm", **base))  # the control
    # A selective launch that does not rotate reads RS=0 weights.
    selective = mxforge.canonical_spec("rotate_quant_gemm", select="flag", **base)
    with pytest.raises(mxforge.ArgumentError, match=r"this launch does not rotate"):
        weight.check_for(selective, rotates=False)
    # Not ours: the unquantized input (its config has no quant_method), and
    # the same file without a config (no recorded spec).
    with pytest.raises(mxforge.ArgumentError, match="no quantization_config.quant_method"):
        mxforge.read_quantized_weight(tmp_path / "in" / "model.safetensors",
                                      PREFIX + ".weight")
    bare = tmp_path / "bare.safetensors"
    bare.write_bytes((tmp_path / "in" / "model.safetensors").read_bytes())
    with pytest.raises(mxforge.ArgumentError, match="has no recorded spec"):
        mxforge.read_quantized_weight(bare, PREFIX + ".weight")
