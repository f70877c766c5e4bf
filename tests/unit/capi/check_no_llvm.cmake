# Fails when `ldd` of any of LIBRARIES names an LLVM, MLIR or lld library:
# libmxforge_runtime.so must load on a machine without Debian's LLVM 22.
foreach(library IN LISTS LIBRARIES)
  execute_process(COMMAND ldd ${library} OUTPUT_VARIABLE deps RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "ldd ${library} failed")
  endif()
  string(REGEX MATCHALL "[^\n]*(LLVM|MLIR|lld|clang)[^\n]*" bad "${deps}")
  if(bad)
    message(FATAL_ERROR "${library} needs LLVM/MLIR at run time:\n${bad}")
  endif()
  message(STATUS "${library}: no LLVM, MLIR or lld among its dependencies")
endforeach()
