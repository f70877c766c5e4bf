#!/usr/bin/env bash
# README command 1: set up, build, run the main job (mxforge demo).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup.sh"
exec "$root/build/tools/mxforge/mxforge" demo "$@"
