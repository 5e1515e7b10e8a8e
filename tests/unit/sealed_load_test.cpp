// Loading what was verified: a plugin mapped from a sealed memfd runs the
// bytes that were sealed, whatever the file on disk becomes, and is named by
// its real file everywhere.
#include "packs/sealed_object.hpp"
#include "plugins/plugin_library.hpp"
#include "unit_support.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

namespace airlock::host {
namespace {

std::string read(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(SealedLoad, LoadsTheSealedBytesUnderTheRealName) {
  const std::string bytes = read(unit::fixture_file("canary"));
  ASSERT_FALSE(bytes.empty());
  auto image = SealedObject::create("canary.so", bytes);
  ASSERT_TRUE(image) << image.error().message;
  // The name shown is a file that does not even exist any more: nothing is
  // read from it.
  const std::filesystem::path shown = "/nonexistent/pack/canary.so";
  auto plugin = PluginLibrary::open(shown, std::move(*image), Config{});
  ASSERT_TRUE(plugin) << plugin.error().message;
  EXPECT_EQ(shown, (*plugin)->file());
  EXPECT_FALSE((*plugin)->ctx().tools.empty());
}

TEST(SealedLoad, ErrorsNameTheRealFile) {
  auto image = SealedObject::create("junk.so", "definitely not ELF");
  ASSERT_TRUE(image);
  auto plugin = PluginLibrary::open("/packs/acme/libacme.so", std::move(*image), Config{});
  ASSERT_FALSE(plugin);
  EXPECT_EQ("/packs/acme/libacme.so: not a shared object (no ELF header)", plugin.error().message);
}

TEST(SealedLoad, TheSealedBytesCannotChange) {
  auto image = SealedObject::create("x.so", "abc");
  ASSERT_TRUE(image);
  EXPECT_EQ(-1, ::write(image->fd(), "z", 1));
  EXPECT_EQ(-1, ::ftruncate(image->fd(), 0));
  EXPECT_EQ(-1, ::ftruncate(image->fd(), 100));
}

}  // namespace
}  // namespace airlock::host
