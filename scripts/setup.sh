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
# MLIR's CMake package imports mlir-tblgen. python3 runs lit-22; numpy, pytest
# and torch are what the Python package (python/, docs/python.md) and its tests use.
# python3-matplotlib draws `mxforge bench --plot` and mxforge.bench(plot=...).
# libamdhip64-5 is ROCm 5.2's real HIP runtime (no gfx950, no GPU here): the hip
# backend is tested against it up to "no AMD GPU" (docs/runtime.md).
packages=(llvm-22-dev libmlir-22-dev mlir-22-tools liblld-22-dev libfmt-dev libgtest-dev
          cmake ninja-build g++ python3 python3-numpy python3-pytest python3-torch
          libamdhip64-5 pkgconf python3-matplotlib)
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

# `import mxforge` for Debian's python3: a .pth file in its site-packages
# puts python/ on sys.path (no pip, no build backend, nothing copied: the
# package is pure Python and finds build/capi/libmxforge.so next to it).
# Release build only: an ASan libmxforge.so cannot be loaded by ctypes.
if [[ "$build_dir" == "$root/build" ]]; then
  site="$(/usr/bin/python3 -c 'import site; print(site.getsitepackages()[0])')"
  pth="$site/mxforge-repo.pth"
  previous="$(cat "$pth" 2>/dev/null || true)"
  if [[ "$previous" != "$root/python" ]]; then
    sudo_cmd=()
    [[ $(id -u) -ne 0 && ! -w "$site" ]] && sudo_cmd=(sudo)
    "${sudo_cmd[@]}" mkdir -p "$site"
    echo "$root/python" | "${sudo_cmd[@]}" tee "$pth" >/dev/null
    echo "setup: $pth -> $root/python (import mxforge)"
    # One .pth serves the whole interpreter: say whose checkout it served.
    if [[ -n "$previous" ]]; then
      echo "setup: note: import mxforge pointed at $previous before; it now imports this" \
           "checkout for every user of $(/usr/bin/python3 -c 'import sys; print(sys.executable)')"
    fi
  fi
fi
