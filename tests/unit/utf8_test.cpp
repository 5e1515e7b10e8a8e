// valid_utf8 (host/util/utf8.hpp): RFC 3629's rules at every position of a
// text, so the 32-byte and 8-byte ASCII skips and the byte-wise tail all
// hand a bad sequence to the checker.
#include "util/utf8.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <string_view>

namespace airlock::host {
namespace {

TEST(ValidUtf8, AcceptsWellFormedText) {
  EXPECT_TRUE(valid_utf8(""));
  EXPECT_TRUE(valid_utf8("plain ascii"));
  EXPECT_TRUE(valid_utf8("\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80 \xF4\x8F\xBF\xBF"));  // é € 😀 U+10FFFF
  EXPECT_TRUE(valid_utf8(std::string(1000, 'a') + "\xE2\x82\xAC" + std::string(77, 'b')));
}

// Read through a buffer of exactly the text's size (a std::string's
// terminator would hide a read past the end from ASan), at every length
// around the 32- and 8-byte steps.
TEST(ValidUtf8, ReadsNoBytePastTheEnd) {
  for (std::size_t length = 0; length <= 100; ++length) {
    const auto buffer = std::make_unique<char[]>(length == 0 ? 1 : length);
    std::fill_n(buffer.get(), length, 'a');
    EXPECT_TRUE(valid_utf8(std::string_view(buffer.get(), length))) << length;
    if (length >= 2) {
      buffer[length - 2] = '\xC3';
      buffer[length - 1] = '\xA9';
      EXPECT_TRUE(valid_utf8(std::string_view(buffer.get(), length))) << length;
      EXPECT_FALSE(valid_utf8(std::string_view(buffer.get(), length - 1))) << length;
    }
  }
}

TEST(ValidUtf8, RefusesABadSequenceAtEveryPosition) {
  for (const std::string_view bad : {"\x80", "\xC0\xAF", "\xE0\x80\xAF", "\xED\xA0\x80", "\xF4\x90\x80\x80",
                                     "\xF8\x88\x80\x80\x80", "\xC3", "\xE2\x82", "\xFF"}) {
    for (std::size_t length = 0; length <= 100; ++length) {
      for (std::size_t at = 0; at <= length; ++at) {
        std::string text(length, 'x');
        text.insert(at, bad);
        ASSERT_FALSE(valid_utf8(text)) << "at " << at << " of " << length;
        // The same text with a good character there instead is accepted.
        std::string good(length, 'x');
        good.insert(at, "\xC3\xA9");
        ASSERT_TRUE(valid_utf8(good)) << "at " << at << " of " << length;
      }
    }
  }
}

}  // namespace
}  // namespace airlock::host
