#!/usr/bin/env bash
# Installs what mxforge needs (only the Debian packages that are missing, so a
# second run does nothing), then configures and builds.
#
#   scripts/setup.sh            release build in build/
#   scripts/setup.sh --sanitize ASan+UBSan build in build-asan/
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="$root/build"
cmake_args=(-DCMAKE_BUILD_TYPE=Release)
if [[ "${1:-}" == "--sanitize" ]]; then
  build_dir="$root/build-asan"
  cmake_args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DMXFORGE_SANITIZE=ON)
fi

# TOOLCHAIN.md: LLVM/MLIR/lld 22 from Debian; mlir-22-tools is needed because
# MLIR's CMake package imports mlir-tblgen. python3 runs lit-22.
packages=(llvm-22-dev libmlir-22-dev mlir-22-tools liblld-22-dev libfmt-dev libgtest-dev
          cmake ninja-build g++ python3)
missing=()
for pkg in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$pkg")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=()
  [[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq "${missing[@]}"
else
  echo "setup: all packages present"
fi

# Two cores and MLIR-heavy translation units (~2 GB each): two jobs at most.
jobs=$(( $(nproc) < 2 ? $(nproc) : 2 ))
cmake -S "$root" -B "$build_dir" -G Ninja "${cmake_args[@]}" >/dev/null
cmake --build "$build_dir" -j "$jobs"
echo "setup: built $build_dir"
