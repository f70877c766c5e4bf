#!/bin/sh
# Wall time of `mxforge quantize` on a generated checkpoint (default 2 GB of
# BF16 linear weights in 4 shards, plus norms that are copied), at 1 and 2
# threads, spec quant_weight:RS=64,rot=hadamard,fmt=fp4. The generator needs
# numpy (in $PYTHON, default /usr/bin/python3). Prints a table; asserts
# nothing.
#
#   bench/quantize_bench.sh BUILD_DIR [GB] [WORK_DIR]
set -eu
build=${1:?usage: quantize_bench.sh BUILD_DIR [GB] [WORK_DIR]}
gb=${2:-2}
if [ $# -ge 3 ]; then work=$3; cleanup="$work/in $work/out"; else work=$(mktemp -d); cleanup=$work; fi
mxforge=$build/tools/mxforge/mxforge
mkdir -p "$work/in"
"${PYTHON:-/usr/bin/python3}" - "$work/in" "$gb" <<'PY'
import json, struct, sys
import numpy as np
out, gb = sys.argv[1], float(sys.argv[2])
rng = np.random.default_rng(0)
n, k = 4096, 4096                      # one projection: 32 MiB of bf16
count = max(1, int(gb * 2**30 / (n * k * 2)))
shards = 4
weight_map, total = {}, 0
for s in range(shards):
    name = "model-%05d-of-%05d.safetensors" % (s + 1, shards)
    header, blobs, offset = {"__metadata__": {"format": "pt"}}, [], 0
    for i in range(s, count, shards):
        for tname, shape in (("layers.%d.mlp.up_proj.weight" % i, (n, k)),
                             ("layers.%d.norm.weight" % i, (k,))):
            v = (rng.standard_normal(shape, dtype=np.float32) * 0.02).view(np.uint32)
            blob = ((v + 0x7FFF + ((v >> 16) & 1)) >> 16).astype("<u2").tobytes()
            header[tname] = {"dtype": "BF16", "shape": list(shape),
                             "data_offsets": [offset, offset + len(blob)]}
            blobs.append(blob); offset += len(blob); weight_map[tname] = name
    text = json.dumps(header).encode(); text += b" " * ((8 - len(text) % 8) % 8)
    with open(out + "/" + name, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text)
        for b in blobs: f.write(b)
    total += offset
with open(out + "/model.safetensors.index.json", "w") as f:
    json.dump({"metadata": {"total_size": total}, "weight_map": weight_map}, f)
print("generated %.2f GB: %d projections of %dx%d in %d shards" % (total / 1e9, count, n, k, shards))
PY
bytes=$(cat "$work"/in/*.safetensors | wc -c)
printf '%-8s %10s %10s\n' threads "wall s" "GB/s in"
for t in 1 2; do
  start=$(date +%s.%N)
  "$mxforge" quantize --in "$work/in/model.safetensors.index.json" --out "$work/out" --force \
    --spec quant_weight:RS=64,rot=hadamard,fmt=fp4 --tensors '.*_proj\.weight' --threads "$t" >/dev/null
  end=$(date +%s.%N)
  awk -v t="$t" -v s="$start" -v e="$end" -v b="$bytes" \
    'BEGIN { printf "%-8s %10.2f %10.2f\n", t, e - s, b / (e - s) / 1e9 }'
done
rm -rf $cleanup
