//===- status.h - Errors as values for the pure C++ libraries ----*- C++ -*-===//
//
// The pure C++ libraries (support/, numerics/, spec/, abi/, the runtime) link
// nothing from LLVM, and Debian's LLVM is built without exceptions, so
// failures travel as values: a Status (empty message =
// success) or a Result<T> holding either a value or a message that names the
// problem. The lowest layer's: support/ depends on nothing of ours.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_SUPPORT_STATUS_H
#define MXFORGE_SUPPORT_STATUS_H

#include <cassert>
#include <optional>
#include <string>
#include <utility>

namespace mxf {

class Status {
public:
  static Status success() { return Status(); }
  static Status failure(std::string message) {
    Status s;
    s.message_ = message.empty() ? std::string("unknown error") : std::move(message);
    return s;
  }
  bool ok() const { return message_.empty(); }
  const std::string &message() const { return message_; }

private:
  std::string message_;
};

template <typename T> class Result {
public:
  Result(T value) : value_(std::move(value)) {}
  Result(Status failed) : message_(failed.message()) {
    assert(!failed.ok() && "a Result built from a Status must be a failure");
  }
  static Result failure(std::string message) {
    return Result(Status::failure(std::move(message)));
  }
  bool ok() const { return value_.has_value(); }
  const T &value() const { return *value_; }
  T &value() { return *value_; }
  const std::string &error() const { return message_; }
  Status status() const { return ok() ? Status::success() : Status::failure(message_); }

private:
  std::optional<T> value_;
  std::string message_;
};

} // namespace mxf

#endif // MXFORGE_SUPPORT_STATUS_H
