// The inputs the contract checks feed a sanitizer: a generated corpus of
// hostile and ordinary text (reproducible from a seed), the tool-result
// shapes that text is wrapped in for result sanitizers, the malformed bytes
// of the fail-closed check, and the operator's own corpus files.
#pragma once

#include "util/error.hpp"

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace airlock::host::check {

// SplitMix64: tiny, fast, and the same sequence on every platform (the
// standard distributions are not), so a seed reproduces a run anywhere.
class Prng {
 public:
  explicit Prng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next();
  // Uniform in [0, n); n > 0.
  std::size_t below(std::size_t n) { return static_cast<std::size_t>(next() % n); }
  bool chance(unsigned percent) { return below(100) < percent; }

 private:
  std::uint64_t state_;
};

struct CorpusItem {
  std::string name;
  std::string text;
};

enum class CorpusSize {
  fast,  // fragments and a few mixtures: for the load-time subset
  full,  // plus many mixtures, huge and deeply nested items
};

// Every family the contract names: ANSI and OSC escapes, C0/C1 controls, bidi
// overrides, zero-width characters, invalid and overlong UTF-8, percent-
// encoded, punycode and markdown URLs, HTML, secret-like strings, empty, huge
// and deeply nested text. Mixtures join fragments with white space only, so
// no sanitizer can join two of them into a new host by dropping what is
// between them.
std::vector<CorpusItem> generate_text_corpus(std::uint64_t seed, CorpusSize size);

// Every regular file of `dir` (not recursive, in name order) as one item.
Result<std::vector<CorpusItem>> load_corpus_dir(const std::filesystem::path& dir);

// How a text is wrapped into a CallToolResult for a result sanitizer: a text
// block; structuredContent; _meta present (result and block); an error; a
// resource link and an embedded resource; deeply nested structuredContent;
// an image block beside the text.
inline constexpr int kResultShapes = 7;
// `text` must be valid UTF-8. Returns compact JSON text.
std::string render_result(int shape, std::string_view text);

// Malformed UTF-8: a stray 0xFF, an overlong '/', a surrogate, a truncated
// sequence, a code point past U+10FFFF, a lone continuation byte.
std::span<const std::string_view> malformed_utf8_pieces();

}  // namespace airlock::host::check
