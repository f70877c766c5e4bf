#!/usr/bin/env bash
# The self-contained build (MXFORGE_STATIC_LLVM=ON): LLVM, MLIR and lld linked
# statically, AMDGPU only, into the CLI and libmxforge.so, in build-static/.
# Then the manual check docs/runtime.md describes, printed as a table:
#   - neither binary needs an LLVM, MLIR or lld shared library (ldd);
#   - code objects byte-identical to the shared build's (build/, built first);
#   - examples/startup.c against the static libmxforge.so: a bundle, a JIT
#     compile and every output byte checked on the emulator;
#   - sizes (stripped) and cold start (median of 11 runs) against the shared build.
#
#   scripts/build-static.sh            build and check
#   scripts/build-static.sh --check    check an existing build-static/
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
static_dir=$root/build-static shared_dir=$root/build
if [[ "${1:-}" != "--check" ]]; then
  jobs=$(( $(nproc) < 2 ? $(nproc) : 2 ))
  cmake -S "$root" -B "$static_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DMXFORGE_STATIC_LLVM=ON \
        -DMXFORGE_BUILD_TESTS=OFF > /dev/null
  cmake --build "$static_dir" -j "$jobs" --target mxforge mxforge_capi
fi
[[ -x $shared_dir/tools/mxforge/mxforge ]] || { echo "build-static: build the shared tree first (scripts/setup.sh)"; exit 1; }

scratch=$(mktemp -d /tmp/mxforge-static-XXXXXX)
trap 'rm -rf "$scratch"' EXIT
static_cli=$static_dir/tools/mxforge/mxforge shared_cli=$shared_dir/tools/mxforge/mxforge
static_lib=$static_dir/capi/libmxforge.so shared_lib=$shared_dir/capi/libmxforge.so

for binary in "$static_cli" "$static_lib"; do
  if ldd "$binary" | grep -E 'LLVM|MLIR|lld'; then
    echo "build-static: $binary still needs LLVM/MLIR shared libraries"; exit 1
  fi
done
echo "build-static: ldd shows no LLVM, MLIR or lld for the static CLI and libmxforge.so"

specs=("rotate_quant:K=4096,RS=64,rot=hadamard,M=4" "rotate_quant:K=7168,RS=128,rot=learned,layout=a4w4_shuffle,scale=rceil"
       "rotate_quant:K=2048,RS=32,rot=learned_per_block,inter=bf16" "rotate_quant:K=12288,scale=floor")
for i in "${!specs[@]}"; do
  MXFORGE_CACHE=0 "$static_cli" compile --spec "${specs[$i]}" -o "$scratch/static$i.hsaco" > /dev/null
  MXFORGE_CACHE=0 "$shared_cli" compile --spec "${specs[$i]}" -o "$scratch/shared$i.hsaco" > /dev/null
  cmp "$scratch/static$i.hsaco" "$scratch/shared$i.hsaco" ||
    { echo "build-static: ${specs[$i]} compiles to different bytes"; exit 1; }
done
echo "build-static: ${#specs[@]} specs compile to byte-identical code objects"

# The static libmxforge.so in use: examples/startup.c linked against it JIT-compiles
# a kernel its bundle lacks and checks every output byte on the emulator.
cc -std=c99 -O1 -I"$root/include" "$root/examples/startup.c" "$static_lib" \
   -Wl,-rpath,"$(dirname "$static_lib")" -o "$scratch/startup_static"
"$static_cli" bundle --no-cache --specs "$root/examples/decode_specs.txt" -o "$scratch/decode.mxfb" > /dev/null
if ldd "$scratch/startup_static" | grep -E 'LLVM|MLIR'; then
  echo "build-static: the example loads LLVM/MLIR"; exit 1
fi
MXFORGE_CACHE_DIR=$scratch/cache "$scratch/startup_static" "$scratch/decode.mxfb" | tail -1

median_ms() { # median wall time of 11 runs of "$@", in ms
  local times=()
  for _ in $(seq 11); do
    local start end
    start=$(date +%s%N); "$@" > /dev/null; end=$(date +%s%N)
    times+=($(( (end - start) / 1000000 )))
  done
  printf '%s\n' "${times[@]}" | sort -n | sed -n 6p
}
strip -o "$scratch/static_cli" "$static_cli"; strip -o "$scratch/shared_cli" "$shared_cli"
strip -o "$scratch/static_lib" "$static_lib"; strip -o "$scratch/shared_lib" "$shared_lib"
llvm_bytes=$(du -cbL /usr/lib/llvm-22/lib/libLLVM.so.22.1 /usr/lib/llvm-22/lib/libMLIR.so.22.1 | tail -1 | cut -f1)
mb() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }
size() { stat -c %s "$1"; }
spec=${specs[0]}
printf '\n| %-40s | %12s | %12s |\n' "" "shared build" "static build"
printf '|%s|%s|%s|\n' "------------------------------------------" "--------------" "--------------"
printf '| %-40s | %9s MB | %9s MB |\n' "CLI, stripped" "$(mb "$(size "$scratch/shared_cli")")" "$(mb "$(size "$scratch/static_cli")")"
printf '| %-40s | %9s MB | %9s MB |\n' "libmxforge.so, stripped" "$(mb "$(size "$scratch/shared_lib")")" "$(mb "$(size "$scratch/static_lib")")"
printf '| %-40s | %9s MB | %12s |\n' "+ libLLVM.so.22.1 + libMLIR.so.22.1" "$(mb "$llvm_bytes")" "-"
printf '| %-40s | %9s ms | %9s ms |\n' "mxforge spec (cold start, median of 11)" "$(median_ms "$shared_cli" spec "$spec")" "$(median_ms "$static_cli" spec "$spec")"
printf '| %-40s | %9s ms | %9s ms |\n' "mxforge compile, no cache (median of 11)" \
  "$(MXFORGE_CACHE=0 median_ms "$shared_cli" compile --spec "$spec" -o "$scratch/t.hsaco")" \
  "$(MXFORGE_CACHE=0 median_ms "$static_cli" compile --spec "$spec" -o "$scratch/t.hsaco")"
echo "build-static: all checks passed"
