#!/bin/sh
# Extracts the AITER files the witness corpus compiles (kernels, their @triton.jit helpers, the
# gfx950 GEMM configs, the licence) from a git directory of ROCm/aiter into tests/witness/.aiter_src/
# (ignored by git: add "/tests/witness/.aiter_src/" to .git/info/exclude), and records the commit.
#   tests/witness/fetch_aiter.sh GIT_DIR [COMMIT]
set -eu
GIT_DIR=$1
REV=${2:-HEAD}
HERE=$(cd "$(dirname "$0")" && pwd)
D=$HERE/.aiter_src
rm -rf "$D"
mkdir -p "$D"
g() { git --git-dir="$GIT_DIR" "$@"; }
for f in \
    aiter/ops/triton/_triton_kernels/quant/quant.py \
    aiter/ops/triton/_triton_kernels/quant/fused_mxfp4_quant.py \
    aiter/ops/triton/_triton_kernels/gemm/basic/gemm_afp4wfp4.py \
    aiter/ops/triton/_triton_kernels/gemm/basic/gemm_a16wfp4.py \
    aiter/ops/triton/_triton_kernels/common/splitk_reduce.py \
    aiter/ops/triton/utils/_triton/kernel_repr.py \
    aiter/ops/triton/utils/_triton/pid_preprocessing.py \
    LICENSE; do
  mkdir -p "$D/$(dirname "$f")"
  g show "$REV:$f" > "$D/$f"
done
g ls-tree -r --name-only "$REV" aiter/ops/triton/configs/gfx950/triton/gemm/gemm_afp4wfp4/ aiter/ops/triton/configs/gemm/ |
  grep -E 'gfx950/triton/gemm/gemm_afp4wfp4/|configs/gemm/gfx950-GEMM-A16WFP4' |
  while read -r f; do mkdir -p "$D/$(dirname "$f")"; g show "$REV:$f" > "$D/$f"; done
g rev-parse "$REV" > "$D/COMMIT"
echo "AITER $(cat "$D/COMMIT") -> $D ($(find "$D" -type f | wc -l) files)"
