//===- test_cache_location.cpp - MXFORGE_CACHE, _DIR, XDG, HOME -----------===//

#include "runtime/cache/disk_cache.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <optional>

namespace mxf {
namespace {

CacheLocation locate(const std::map<std::string, std::string> &environment) {
  return cacheLocationFromEnvironment([&](const char *name) -> const char * {
    auto found = environment.find(name);
    return found == environment.end() ? nullptr : found->second.c_str();
  });
}

void expectLocation(const CacheLocation &location, bool enabled, const std::string &directory,
                    const std::string &source) {
  EXPECT_EQ(location.enabled, enabled);
  EXPECT_EQ(location.directory, directory);
  EXPECT_EQ(location.source, source);
}

const std::map<std::string, std::string> kAll = {{"MXFORGE_CACHE_DIR", "/custom/cache"},
                                                 {"XDG_CACHE_HOME", "/xdg"},
                                                 {"HOME", "/home/user"}};

TEST(CacheLocation, PrecedenceIsDirThenXdgThenHome) {
  expectLocation(locate(kAll), true, "/custom/cache", "MXFORGE_CACHE_DIR");
  expectLocation(locate({{"XDG_CACHE_HOME", "/xdg"}, {"HOME", "/home/user"}}), true,
                 "/xdg/mxforge", "XDG_CACHE_HOME");
  expectLocation(locate({{"HOME", "/home/user"}}), true, "/home/user/.cache/mxforge", "HOME");
  expectLocation(locate({}), false, "", "no MXFORGE_CACHE_DIR, XDG_CACHE_HOME or HOME");
}

TEST(CacheLocation, TheSwitchDisablesWhateverElseIsSet) {
  for (const char *off : {"0", "off", "OFF", "false", "False", "no", "NO"}) {
    std::map<std::string, std::string> environment = kAll;
    environment["MXFORGE_CACHE"] = off;
    expectLocation(locate(environment), false, "", std::string("MXFORGE_CACHE=") + off);
  }
}

TEST(CacheLocation, OtherSwitchValuesEnable) {
  for (const char *on : {"1", "on", "ON", "yes", "true", ""}) {
    std::map<std::string, std::string> environment = kAll;
    environment["MXFORGE_CACHE"] = on;
    expectLocation(locate(environment), true, "/custom/cache", "MXFORGE_CACHE_DIR");
    environment.erase("MXFORGE_CACHE_DIR");
    expectLocation(locate(environment), true, "/xdg/mxforge", "XDG_CACHE_HOME");
  }
  // Enabled but nowhere to put it is still disabled.
  expectLocation(locate({{"MXFORGE_CACHE", "1"}}), false, "",
                 "no MXFORGE_CACHE_DIR, XDG_CACHE_HOME or HOME");
}

TEST(CacheLocation, EmptyAndRelativeValuesAreSkipped) {
  expectLocation(locate({{"MXFORGE_CACHE_DIR", ""}, {"XDG_CACHE_HOME", ""}, {"HOME", "/h"}}),
                 true, "/h/.cache/mxforge", "HOME");
  // XDG base directory spec: a relative XDG_CACHE_HOME is invalid, ignore it.
  expectLocation(locate({{"XDG_CACHE_HOME", "relative/cache"}, {"HOME", "/h"}}), true,
                 "/h/.cache/mxforge", "HOME");
  // MXFORGE_CACHE_DIR is taken as given, relative or not.
  expectLocation(locate({{"MXFORGE_CACHE_DIR", "rel/dir"}}), true, "rel/dir",
                 "MXFORGE_CACHE_DIR");
  expectLocation(locate({{"HOME", ""}}), false, "",
                 "no MXFORGE_CACHE_DIR, XDG_CACHE_HOME or HOME");
}

TEST(CacheLocation, TrailingSlashesAreNotDoubled) {
  expectLocation(locate({{"XDG_CACHE_HOME", "/xdg/"}}), true, "/xdg/mxforge", "XDG_CACHE_HOME");
  expectLocation(locate({{"HOME", "/"}}), true, "/.cache/mxforge", "HOME");
  expectLocation(locate({{"HOME", "/home/u//"}}), true, "/home/u/.cache/mxforge", "HOME");
}

/// Sets an environment variable for one scope, then restores it.
class ScopedEnv {
public:
  ScopedEnv(const char *name, const char *value) : name_(name) {
    if (const char *old = std::getenv(name))
      old_ = old;
    ::setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (old_)
      ::setenv(name_, old_->c_str(), 1);
    else
      ::unsetenv(name_);
  }

private:
  const char *name_;
  std::optional<std::string> old_;
};

TEST(CacheLocation, TheDefaultReadsTheRealEnvironment) {
  CacheLocation off, on;
  {
    ScopedEnv cache("MXFORGE_CACHE", "off");
    off = cacheLocationFromEnvironment();
  }
  {
    ScopedEnv cache("MXFORGE_CACHE", "1");
    ScopedEnv dir("MXFORGE_CACHE_DIR", "/from/the/environment");
    on = cacheLocationFromEnvironment();
  }
  expectLocation(off, false, "", "MXFORGE_CACHE=off");
  expectLocation(on, true, "/from/the/environment", "MXFORGE_CACHE_DIR");
}

} // namespace
} // namespace mxf
