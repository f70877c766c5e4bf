//===- file_trust.cpp - Files only their owner can change -----------------===//

#include "support/file_trust.h"

#include "support/file_io.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <unistd.h>

namespace mxf {
namespace {

std::string octalMode(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", unsigned(mode & 07777));
  return text;
}

} // namespace

std::string untrustedBecause(const struct stat &info) {
  const uid_t self = ::geteuid();
  const std::string mode = octalMode(info.st_mode);
  if (info.st_uid != self)
    return "is owned by uid " + std::to_string(info.st_uid) + " (mode " + mode +
           "), not by this user (uid " + std::to_string(self) + ")";
  const bool group = info.st_mode & S_IWGRP, others = info.st_mode & S_IWOTH;
  if (group || others)
    return "has mode " + mode + " (owned by this user, uid " + std::to_string(self) +
           "): writable by " + (group && others ? "group and others" : group ? "group" : "others");
  return "";
}

Status checkTrusted(const std::string &path) {
  struct stat info;
  if (::stat(path.c_str(), &info) != 0)
    return Status::failure(path + ": cannot stat: " + std::strerror(errno));
  if (std::string why = untrustedBecause(info); !why.empty())
    return Status::failure(path + " " + why);
  return Status::success();
}

Status createPrivateDirectories(const std::string &path) {
  return createDirectoriesWithMode(path, kPrivateDirectoryMode);
}

} // namespace mxf
