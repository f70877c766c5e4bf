# -*- Python -*-
# lit configuration of the mxforge CLI tests. lit.site.cfg.py, which CMake
# generates in the build directory, sets the paths and then loads this file.

import os
import sys

import lit.formats

config.name = "mxforge"
config.test_format = lit.formats.ShTest(execute_external=False)
# .mlir: IR tests run through mxforge-opt (tests/lit/mxf, ...).
config.suffixes = [".test", ".mlir"]
config.excludes = ["Inputs"]
config.test_source_root = os.path.dirname(__file__)

if not hasattr(config, "mxforge_path"):
    lit_config.fatal("run lit on the build directory (lit-22 -sv <build>/tests/lit), "
                     "where CMake generated lit.site.cfg.py")
config.test_exec_root = config.mxforge_lit_binary_dir

# FileCheck and not come from LLVM's tools directory, as in LLVM's own tests.
config.environment["PATH"] = os.pathsep.join(
    [config.llvm_tools_dir, config.environment.get("PATH", os.environ.get("PATH", ""))])

inputs = os.path.join(config.mxforge_lit_source_dir, "Inputs")
# lit substitutes in list order and "%mxforge" is a prefix of "%mxforge-opt",
# so the longer name must come first.
config.substitutions.append(("%mxforge-opt", config.mxforge_opt_path))
config.substitutions.append(("%fake_hip", config.mxforge_fake_hip_path))
config.substitutions.append(("%mxforge", config.mxforge_path))
# %npytool info|values|make|cut ...: inspects and builds .npy files without
# numpy (Inputs/npytool.py), run by the interpreter that runs lit, which is
# sure to exist.
config.substitutions.append(("%npytool", sys.executable + " " +
                             os.path.join(inputs, "npytool.py")))
# %python: the interpreter that runs lit (Debian's python3, with numpy: the
# setup installs python3-numpy), for input generators that need numpy.
config.substitutions.append(("%python", sys.executable))
# %expect_exit STATUS COMMAND...: succeeds only if COMMAND exits with STATUS.
config.substitutions.append(("%expect_exit", sys.executable + " " +
                             os.path.join(inputs, "expect_exit.py")))
