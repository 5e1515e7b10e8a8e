// find_any_of, the first-party sanitizers' scan for the bytes they act on:
// the same answers as std::string_view::find_first_of, from every start,
// wherever the byte falls against the sixteen- and thirty-two-byte blocks.
#include "find_any_of.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace airlock::plugins {
namespace {

TEST(FindAnyOf, FindsNothingInTextWithoutTheBytes) {
  const std::string text(100, 'a');
  EXPECT_EQ(std::string_view::npos, (find_any_of<':', 'w'>(text, 0)));
  EXPECT_EQ(std::string_view::npos, (find_any_of<':', 'w'>(text, 100)));
  EXPECT_EQ(std::string_view::npos, (find_any_of<':'>(std::string_view(), 0)));
}

TEST(FindAnyOf, FindsEachByteAtEveryPositionOfABlockAndItsTail) {
  for (std::size_t size : {1u, 15u, 16u, 17u, 31u, 32u, 33u, 63u, 64u, 70u, 96u, 130u}) {
    for (std::size_t at = 0; at < size; ++at) {
      for (char byte : {'<', ']', '\x80'}) {
        std::string text(size, 'x');
        text[at] = byte;
        EXPECT_EQ(at, (find_any_of<'<', ']', '\x80'>(text, 0))) << "size " << size << " at " << at;
        EXPECT_EQ(std::string_view::npos, (find_any_of<'<', ']', '\x80'>(text, at + 1)));
      }
    }
  }
}

TEST(FindAnyOf, AgreesWithFindFirstOfOnRandomText) {
  std::mt19937 random(20261206);
  std::uniform_int_distribution<int> byte(0, 255);
  const std::string set = {':', 'w', 'W', '\0'};
  for (int round = 0; round < 200; ++round) {
    std::string text(static_cast<std::size_t>(byte(random)), '\0');
    for (char& c : text) c = static_cast<char>(byte(random) < 240 ? 'a' + byte(random) % 26 : byte(random));
    for (std::size_t from = 0; from <= text.size(); ++from)
      ASSERT_EQ(std::string_view(text).find_first_of(std::string_view(set.data(), set.size()), from),
                (find_any_of<':', 'w', 'W', '\0'>(text, from)))
          << "round " << round << " from " << from;
  }
}

}  // namespace
}  // namespace airlock::plugins
