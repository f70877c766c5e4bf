#!/usr/bin/env bash
# README command 2: set up, build and run every test (unit + lit).
#
#   scripts/test.sh                   release build, every test; the e2e
#                                     matrices run every spec with a seeded
#                                     sample of each case's extra row counts
#                                     and workgroup orders (tests/e2e/e2e_tier.h)
#   scripts/test.sh --full            the same with every row count and order
#   scripts/test.sh --sanitize        ASan+UBSan build, unit tests (label "unit")
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [[ "${1:-}" == "--sanitize" ]]; then
  "$root/scripts/setup.sh" --sanitize
  cd "$root/build-asan"
  # halt_on_error: the first finding fails the test; leak checks stay on.
  # use_sigaltstack=0: LLVM installs its own alternate signal stack on the
  # first thread that registers its signal handlers (lld's temporary output
  # file does, on whichever compile thread links first); ASan would then try
  # to unmap LLVM's malloc'd stack when that thread exits and abort.
  export ASAN_OPTIONS=halt_on_error=1:detect_leaks=1:use_sigaltstack=0
  export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
  ctest -L unit --output-on-failure -j 2
else
  if [[ "${1:-}" == "--full" ]]; then
    export MXFORGE_E2E_TIER=full
  fi
  echo "e2e tier: ${MXFORGE_E2E_TIER:-sample} (every matrix spec runs; the sample tier draws" \
       "each case's bucket-sized run and extra workgroup orders from its printed seed;" \
       "scripts/test.sh --full runs them all)"
  "$root/scripts/setup.sh"
  cd "$root/build"
  ctest --output-on-failure -j 2 -LE lit
  # lit's own summary (how many .test files passed) is worth seeing in CI.
  lit-22 -sv "$root/build/tests/lit"
fi
