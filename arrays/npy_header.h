//===- npy_header.h - The dict literal inside a .npy header -------*- C++ -*-===//
//
// A .npy header is a Python dict literal such as
//   {'descr': '<u2', 'fortran_order': False, 'shape': (3, 4), }
// This reads and writes exactly that subset of Python syntax: string keys and
// values in single or double quotes (no escapes), True/False, and tuples of
// non-negative integers. Internal to npy.cpp (and its tests).
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_ARRAYS_NPY_HEADER_H
#define MXFORGE_ARRAYS_NPY_HEADER_H

#include "support/status.h"


#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace mxf::arrays {

struct NpyHeaderDict {
  std::string descr;
  bool fortranOrder = false;
  std::vector<size_t> shape;
};

/// Parses the dict; the message (without the file name) names what is wrong:
/// not a dict, a missing, repeated or unexpected key, a value of the wrong
/// kind, a dimension that does not fit in 64 bits.
Result<NpyHeaderDict> parseNpyHeaderDict(std::string_view text);

/// The dict as numpy writes it, e.g. "{'descr': '<u2', 'fortran_order':
/// False, 'shape': (3,), }" (1-tuples keep their comma).
std::string formatNpyHeaderDict(const NpyHeaderDict &dict);

} // namespace mxf::arrays

#endif // MXFORGE_ARRAYS_NPY_HEADER_H
