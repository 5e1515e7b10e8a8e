#include "util/strict_json.hpp"

#include <boost/json/basic_parser_impl.hpp>
#include <boost/json/error.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/value_stack.hpp>

#include <algorithm>
#include <cstdint>
#include <set>
#include <vector>

namespace airlock::host {
namespace json = boost::json;
namespace {

// Objects up to this many keys are checked pair by pair; larger ones sort
// their digests, so a 100,000-key object costs n log n, not n².
constexpr std::size_t kPairwiseLimit = 16;

// FNV-1a, 64 bits. Not a defence: equal keys always have equal digests, and
// two unequal keys that collide are told apart by first_duplicate_key.
constexpr std::uint64_t kFnvOffset = 0xcbf29ce484222325ULL;
std::uint64_t fnv1a(std::uint64_t h, json::string_view s) {
  for (const char c : s) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL;
  return h;
}

bool has_equal_pair(std::uint64_t* first, std::uint64_t* last) {
  const auto n = static_cast<std::size_t>(last - first);
  if (n <= kPairwiseLimit) {
    for (auto* a = first; a != last; ++a)
      if (std::find(a + 1, last, *a) != last) return true;
    return false;
  }
  std::sort(first, last);  // the digests are not needed in order again
  return std::adjacent_find(first, last) != last;
}

// Builds the value exactly as boost::json::parser's own handler does, and
// keeps a digest of each key of every open object.
struct DigestingHandler {
  static constexpr std::size_t max_object_size = json::object::max_size();
  static constexpr std::size_t max_array_size = json::array::max_size();
  static constexpr std::size_t max_key_size = json::string::max_size();
  static constexpr std::size_t max_string_size = json::string::max_size();

  // basic_parser constructs its handler from the arguments it is given;
  // spelled out because Clang 14 has no parenthesized aggregate init.
  explicit DigestingHandler(json::storage_ptr sp) : st(std::move(sp)) {}

  json::value_stack st;
  std::vector<std::uint64_t> keys;         // the open objects' key digests, innermost last
  std::vector<std::size_t> object_starts;  // where each open object's digests begin
  std::uint64_t key = kFnvOffset;          // the key being read, across its parts
  bool duplicate = false;

  bool on_document_begin(json::error_code&) { return true; }
  bool on_document_end(json::error_code&) { return true; }
  bool on_object_begin(json::error_code&) {
    object_starts.push_back(keys.size());
    return true;
  }
  bool on_object_end(std::size_t n, json::error_code& ec) {
    const std::size_t start = object_starts.back();
    object_starts.pop_back();
    duplicate = has_equal_pair(keys.data() + start, keys.data() + keys.size());
    keys.resize(start);
    if (duplicate) {
      // Any error stops the parser; parse() words it.
      ec = json::error::syntax;
      return false;
    }
    st.push_object(n);
    return true;
  }
  bool on_array_begin(json::error_code&) { return true; }
  bool on_array_end(std::size_t n, json::error_code&) {
    st.push_array(n);
    return true;
  }
  bool on_key_part(json::string_view s, std::size_t, json::error_code&) {
    key = fnv1a(key, s);
    st.push_chars(s);
    return true;
  }
  bool on_key(json::string_view s, std::size_t, json::error_code&) {
    keys.push_back(fnv1a(key, s));
    key = kFnvOffset;
    st.push_key(s);
    return true;
  }
  bool on_string_part(json::string_view s, std::size_t, json::error_code&) {
    st.push_chars(s);
    return true;
  }
  bool on_string(json::string_view s, std::size_t, json::error_code&) {
    st.push_string(s);
    return true;
  }
  bool on_number_part(json::string_view, json::error_code&) { return true; }
  bool on_int64(std::int64_t i, json::string_view, json::error_code&) {
    st.push_int64(i);
    return true;
  }
  bool on_uint64(std::uint64_t u, json::string_view, json::error_code&) {
    st.push_uint64(u);
    return true;
  }
  bool on_double(double d, json::string_view, json::error_code&) {
    st.push_double(d);
    return true;
  }
  bool on_bool(bool b, json::error_code&) {
    st.push_bool(b);
    return true;
  }
  bool on_null(json::error_code&) {
    st.push_null();
    return true;
  }
  bool on_comment_part(json::string_view, json::error_code&) { return true; }
  bool on_comment(json::string_view, json::error_code&) { return true; }
};

// Builds nothing; keeps every key of every open object as text.
struct NamingHandler {
  static constexpr std::size_t max_object_size = json::object::max_size();
  static constexpr std::size_t max_array_size = json::array::max_size();
  static constexpr std::size_t max_key_size = json::string::max_size();
  static constexpr std::size_t max_string_size = json::string::max_size();

  std::vector<std::set<std::string, std::less<>>> open;
  std::string key;
  std::optional<std::string> duplicate;

  bool on_document_begin(json::error_code&) { return true; }
  bool on_document_end(json::error_code&) { return true; }
  bool on_object_begin(json::error_code&) {
    open.emplace_back();
    return true;
  }
  bool on_object_end(std::size_t, json::error_code&) {
    open.pop_back();
    return true;
  }
  bool on_array_begin(json::error_code&) { return true; }
  bool on_array_end(std::size_t, json::error_code&) { return true; }
  bool on_key_part(json::string_view s, std::size_t, json::error_code&) {
    key.append(s.data(), s.size());
    return true;
  }
  bool on_key(json::string_view s, std::size_t, json::error_code& ec) {
    key.append(s.data(), s.size());
    if (!open.back().insert(key).second) {
      duplicate = key;
      ec = json::error::syntax;
      return false;
    }
    key.clear();
    return true;
  }
  bool on_string_part(json::string_view, std::size_t, json::error_code&) { return true; }
  bool on_string(json::string_view, std::size_t, json::error_code&) { return true; }
  bool on_number_part(json::string_view, json::error_code&) { return true; }
  bool on_int64(std::int64_t, json::string_view, json::error_code&) { return true; }
  bool on_uint64(std::uint64_t, json::string_view, json::error_code&) { return true; }
  bool on_double(double, json::string_view, json::error_code&) { return true; }
  bool on_bool(bool, json::error_code&) { return true; }
  bool on_null(json::error_code&) { return true; }
  bool on_comment_part(json::string_view, json::error_code&) { return true; }
  bool on_comment(json::string_view, json::error_code&) { return true; }
};

// A key is named in an error and a log line: at most 64 bytes of it, cut at
// a character boundary so the text stays UTF-8.
std::string shortened(const std::string& key) {
  constexpr std::size_t kLimit = 64;
  if (key.size() <= kLimit) return key;
  std::size_t end = kLimit;
  while (end > 0 && (static_cast<unsigned char>(key[end]) & 0xC0) == 0x80) --end;
  return key.substr(0, end) + "...";
}

}  // namespace

struct StrictJsonParser::Impl {
  explicit Impl(const json::parse_options& options) : options(options), parser(options, json::storage_ptr()) {}
  json::parse_options options;
  json::basic_parser<DigestingHandler> parser;
};

StrictJsonParser::StrictJsonParser(const json::parse_options& options) : impl_(std::make_unique<Impl>(options)) {}
StrictJsonParser::~StrictJsonParser() = default;

std::optional<json::value> StrictJsonParser::parse(std::string_view text, json::storage_ptr storage,
                                                   std::string& refusal) {
  auto& parser = impl_->parser;
  DigestingHandler& h = parser.handler();
  parser.reset();
  h.st.reset(storage);
  h.keys.clear();
  h.object_starts.clear();
  h.key = kFnvOffset;
  h.duplicate = false;

  json::error_code ec;
  const std::size_t used = parser.write_some(false, text.data(), text.size(), ec);
  if (!ec && used < text.size()) ec = json::error::extra_data;
  if (!ec) return h.st.release();
  if (!h.duplicate) {
    refusal = ec.message();
    return std::nullopt;
  }
  if (auto key = first_duplicate_key(text, impl_->options)) {
    refusal = "duplicate key \"" + shortened(*key) + "\"";
    return std::nullopt;
  }
  // Two different keys with one digest: the document is fine after all.
  json::value value = json::parse(text, ec, std::move(storage), impl_->options);
  if (!ec) return value;
  refusal = ec.message();
  return std::nullopt;
}

std::optional<std::string> first_duplicate_key(std::string_view text, const json::parse_options& options) {
  json::basic_parser<NamingHandler> parser(options);
  json::error_code ec;
  parser.write_some(false, text.data(), text.size(), ec);
  return parser.handler().duplicate;
}

}  // namespace airlock::host
