//===- default_frontend.h - mxforge's own spec frontend ----------*- C++ -*-===//
//
// Installs the frontend (compiler/frontend.h) that mxforge ships: specs
// become mxf IR through dialects/mxf and are lowered by the templates'
// mxf-lower-to-gpu pass. Tools and tests call this once at start-up; the
// compiler library itself stays free of the dialect and templates.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_COMPILER_DEFAULT_FRONTEND_H
#define MXFORGE_COMPILER_DEFAULT_FRONTEND_H

namespace mxf {

/// Idempotent and thread-safe.
void installDefaultSpecFrontend();

} // namespace mxf

#endif // MXFORGE_COMPILER_DEFAULT_FRONTEND_H
