//===- template_revision.h - Revision of the kernels the templates emit -*- C++ -*-===//
//
// Part of every cache key (compiler/cache/cache_key.h): a cached code object
// is reused only if the templates that produced it are unchanged. Bump this
// whenever any template's output (the gpu-stage IR of any spec) changes.
// tests/unit/cache/test_template_revision.cpp holds golden hashes of that IR
// for a few specs and fails when it changes while this number stays the
// same; after bumping, regenerate them as that test's failure says.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_TEMPLATES_TEMPLATE_REVISION_H
#define MXFORGE_TEMPLATES_TEMPLATE_REVISION_H

namespace mxf {

constexpr int kTemplateRevision = 5;

} // namespace mxf

#endif // MXFORGE_TEMPLATES_TEMPLATE_REVISION_H
