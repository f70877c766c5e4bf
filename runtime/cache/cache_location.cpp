//===- cache_location.cpp - Where the cache lives, from the environment ---===//

#include "runtime/cache/disk_cache.h"

#include <cctype>
#include <cstdlib>

namespace mxf {
namespace {

std::string lowercase(std::string text) {
  for (char &c : text)
    c = char(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

/// `base/leaf` without doubling a trailing slash of `base`.
std::string joinPath(std::string base, const char *leaf) {
  while (base.size() > 1 && base.back() == '/')
    base.pop_back();
  return (base == "/" ? base : base + "/") + leaf;
}

} // namespace

CacheLocation cacheLocationFromEnvironment(
    const std::function<const char *(const char *)> &getenv) {
  auto lookup = [&](const char *name) -> std::string {
    const char *value = getenv ? getenv(name) : std::getenv(name);
    // Set but empty counts as unset, as shells make it easy to do by accident.
    return value ? std::string(value) : std::string();
  };
  CacheLocation location;
  const std::string switchValue = lookup("MXFORGE_CACHE");
  const std::string normalized = lowercase(switchValue);
  if (normalized == "0" || normalized == "off" || normalized == "false" || normalized == "no") {
    location.source = "MXFORGE_CACHE=" + switchValue;
    return location;
  }
  if (std::string dir = lookup("MXFORGE_CACHE_DIR"); !dir.empty()) {
    location.enabled = true;
    location.directory = dir;
    location.source = "MXFORGE_CACHE_DIR";
  } else if (std::string xdg = lookup("XDG_CACHE_HOME"); !xdg.empty() && xdg[0] == '/') {
    // The XDG base directory spec says to ignore a relative XDG_CACHE_HOME.
    location.enabled = true;
    location.directory = joinPath(xdg, "mxforge");
    location.source = "XDG_CACHE_HOME";
  } else if (std::string home = lookup("HOME"); !home.empty()) {
    location.enabled = true;
    location.directory = joinPath(joinPath(home, ".cache"), "mxforge");
    location.source = "HOME";
  } else {
    location.source = "no MXFORGE_CACHE_DIR, XDG_CACHE_HOME or HOME";
  }
  return location;
}

} // namespace mxf
