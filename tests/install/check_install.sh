#!/usr/bin/env bash
# Installs the build tree into a scratch prefix and builds the examples
# against it the two ways an engine would (find_package, pkg-config), then
# runs them: startup.c with libmxforge on the emulator (every byte checked),
# engine_launch.c with libmxforge_runtime over the fake HIP runtime.
#
#   check_install.sh BUILD_DIR SOURCE_DIR BUNDLE SPEC FAKE_HIP
set -euo pipefail
build=$1 source=$2 bundle=$3 spec=$4 fake_hip=$5
scratch=$(mktemp -d /tmp/mxforge-install-XXXXXX)
trap 'rm -rf "$scratch"' EXIT
prefix=$scratch/prefix

cmake --install "$build" --prefix "$prefix" > "$scratch/install.log"
for file in include/mxforge/mxforge.h lib/libmxforge.so lib/libmxforge_runtime.so bin/mxforge \
            lib/cmake/mxforge/mxforgeConfig.cmake lib/pkgconfig/mxforge.pc \
            lib/pkgconfig/mxforge_runtime.pc; do
  [[ -e $prefix/$file ]] || { echo "install: $file is missing"; exit 1; }
done
echo "install: $(find "$prefix" -type f | wc -l) files under the prefix"

# find_package(mxforge)
cmake -S "$source/tests/install/consumer" -B "$scratch/consumer" -DCMAKE_PREFIX_PATH="$prefix" \
      -DEXAMPLES_DIR="$source/examples" -DCMAKE_BUILD_TYPE=Release > "$scratch/configure.log"
cmake --build "$scratch/consumer" > "$scratch/build.log"

# pkg-config
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
cc -std=c99 -O1 "$source/examples/startup.c" $(pkg-config --cflags --libs mxforge) \
   -o "$scratch/startup_pc"
cc -std=c99 -O1 "$source/examples/engine_launch.c" $(pkg-config --cflags --libs mxforge_runtime) \
   -ldl -o "$scratch/engine_launch_pc"

# The runtime-only programs load no LLVM or MLIR.
for program in "$scratch/consumer/engine_launch_runtime" "$scratch/engine_launch_pc"; do
  if ldd "$program" | grep -E 'LLVM|MLIR'; then
    echo "install: $program loads LLVM/MLIR"; exit 1
  fi
  loaded=$(ldd "$program" | sed -n 's/.*libmxforge_runtime\.so[.0-9]* => \([^ ]*\).*/\1/p')
  [[ -n $loaded && $(realpath "$loaded") == $(realpath "$prefix/lib")/* ]] ||
    { echo "install: $program loads '$loaded', not the installed runtime library"; exit 1; }
done

export MXFORGE_CACHE_DIR=$scratch/cache
"$scratch/consumer/startup" "$bundle" | tail -1
"$scratch/startup_pc" "$bundle" | tail -1
MXFORGE_HIP_LIBRARY=$fake_hip "$scratch/consumer/engine_launch_runtime" "$bundle" "$spec" \
  --device hip --no-check | tail -2
MXFORGE_HIP_LIBRARY=$fake_hip "$scratch/engine_launch_pc" "$bundle" "$spec" --device hip \
  --no-check | tail -1
echo "install: all checks passed"
