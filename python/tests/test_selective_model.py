"""Selective rotation end to end on a small synthetic model (issue 31):
calibrate each layer's activations, quantize the checkpoint with the mask
the calibration wrote (mxforge.quantize_checkpoint(layer_mask=...)), then run
every layer's decode GEMM with select=mask and the layer's index, on the
weights read back from the checkpoint.

Checked for each layer:
  * the tensor's recorded spec carries the rotation exactly where the mask
    says, and its bytes are the host quantizer's for that spec (a run with
    one spec for every tensor);
  * y equals, byte for byte, the CPU reference (`mxforge ref`) of the path
    the mask names (the spec itself, or RS=0);
  * y is close to x.W^T in float64, and the opposite pairing (this layer's
    weights under the other path) is far from it: the negative control
    that shows the pairing matters, so a mask applied on one side only
    would be caught."""

import numpy as np

import mxforge
from helpers import bf16_bits, cli_reference, read_safetensors, write_safetensors

K, N = 256, 64


def bf16_to_f64(bits):
    return (np.asarray(bits, dtype=np.uint32) << 16).view(np.float32).astype(np.float64)


def samples(kind, gen, rows):
    """Outliers (channel 5 of every 32 times 20: a rotation removes most of
    the error) or +-1 signs (exact in fp4 unrotated: a rotation only adds
    error)."""
    if kind == "outliers":
        values = gen.standard_normal((rows, K)).astype(np.float32)
        values[:, 5::32] *= 20
        return bf16_bits(values)
    return bf16_bits(np.where(gen.random((rows, K)) < 0.5, -1.0, 1.0))


def test_calibrate_quantize_and_run_every_layer(tmp_path, rng):
    gen = np.random.default_rng(rng.randrange(2**63))
    rs = rng.choice((32, 64, 128))
    layers = rng.randint(3, 12)  # up to 11: "layers.10" must come after "layers.2"
    kinds = [rng.choice(("outliers", "signs")) for _ in range(layers)]
    kinds[0], kinds[-1] = "outliers", "signs"
    print(f"K={K} N={N} RS={rs}, {layers} layers: {kinds}")
    activations = {f"model.layers.{i}": samples(kinds[i], gen, 64) for i in range(layers)}
    weights = {i: bf16_bits(gen.standard_normal((N, K)) * 0.05) for i in range(layers)}

    calibration = mxforge.calibrate(activations, k=K, rs=rs, rot="hadamard", threshold=0.1)
    mask = calibration.mask
    assert mask.tolist() == [1 if kind == "outliers" else 0 for kind in kinds], calibration
    mask_path = tmp_path / "mask.npy"
    np.save(mask_path, mask)

    source = tmp_path / "in" / "model.safetensors"
    source.parent.mkdir()
    tensors = {f"model.layers.{i}.mlp.down_proj.weight": ("BF16", weights[i])
               for i in range(layers)}
    tensors["model.norm.weight"] = ("F32", gen.standard_normal(K).astype(np.float32))
    write_safetensors(source, tensors)
    spec = f"quant_weight:RS={rs},rot=hadamard"
    pattern = r"model\.layers\.[0-9]+\.mlp\.down_proj\.weight"
    masked = tmp_path / "masked.safetensors"
    report = mxforge.quantize_checkpoint(source, masked, spec, pattern, layer_mask=mask_path)
    rotated = int(mask.sum())
    assert f"{rotated} tensor{'' if rotated == 1 else 's'} with the rotation" in report.summary
    written, metadata = read_safetensors(masked, metadata=True)
    # The same checkpoint quantized one way for every tensor, each way.
    every = {}
    for name, every_spec in (("rotated", spec), ("plain", "quant_weight:RS=0")):
        path = tmp_path / f"{name}.safetensors"
        mxforge.quantize_checkpoint(source, path, every_spec, pattern)
        every[name] = read_safetensors(path)

    errors = []
    for i in range(layers):
        name = f"model.layers.{i}.mlp.down_proj.weight"
        rotates = bool(mask[i])
        recorded = metadata[f"mxforge.spec.{name}"]
        assert (f"RS={rs},rot=hadamard" in recorded) == rotates, (i, recorded)
        assert ("RS=0" in recorded) == (not rotates), (i, recorded)
        path_bytes = every["rotated" if rotates else "plain"]
        assert written[name] == path_bytes[name] and \
            written[name + "_scale"] == path_bytes[name + "_scale"], f"layer {i}'s bytes"
        w_q = np.frombuffer(written[name], dtype=np.uint8).reshape(N, K // 2)
        w_s = np.frombuffer(written[name + "_scale"], dtype=np.uint8).reshape(N, K // 32)
        m = rng.randint(1, 16)
        x = activations[f"model.layers.{i}"][:m]
        y = mxforge.rotate_quant_gemm(x, w_q, w_s, k=K, n=N, rs=rs, rot="hadamard",
                                      select="mask", layers=layers, layer=i, layer_mask=mask)
        path_spec = mxforge.canonical_spec("rotate_quant_gemm", k=K, n=N, m=16,
                                           **({"rs": rs, "rot": "hadamard"} if rotates
                                              else {"rs": 0}))
        (expected,) = cli_reference(tmp_path, path_spec, {"x": x, "w_q": w_q, "w_s": w_s},
                                    outputs=("y",), m=m)
        assert np.asarray(y).tobytes() == expected.tobytes(), \
            f"layer {i}: y differs from the reference of {path_spec}"
        # The other path on this layer's weights: a layer index whose entry differs.
        other = int(np.flatnonzero(mask != mask[i])[0])
        y_other = mxforge.rotate_quant_gemm(x, w_q, w_s, k=K, n=N, rs=rs, rot="hadamard",
                                            select="mask", layers=layers, layer=other,
                                            layer_mask=mask)
        exact = bf16_to_f64(x) @ bf16_to_f64(weights[i]).T
        scale = np.linalg.norm(exact)
        right = np.linalg.norm(bf16_to_f64(np.asarray(y).view(np.uint16)) - exact) / scale
        wrong = np.linalg.norm(bf16_to_f64(np.asarray(y_other).view(np.uint16)) - exact) / scale
        errors.append((i, kinds[i], round(right, 3), round(wrong, 3)))
        assert right < 0.35 and wrong > 3 * right, errors[-1]
    print("layer, samples, rel. error with the mask's pairing, with the other:", errors)
