// Parsing JSON that a client sent, refusing what two readers could read two
// ways. RFC 8259 leaves an object with two equal keys to the reader, and
// Boost.JSON keeps the last: a proxy or WAF that keeps the first would then
// see another request than airlock serves ({"method":"tools/call",
// "method":"ping"}). Such a document is refused whole.
#pragma once

#include <boost/json/parse_options.hpp>
#include <boost/json/storage_ptr.hpp>
#include <boost/json/value.hpp>

#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace airlock::host {

// Reusable (its stacks outlive the documents it parses); one per thread.
class StrictJsonParser {
 public:
  explicit StrictJsonParser(const boost::json::parse_options& options);
  ~StrictJsonParser();
  StrictJsonParser(const StrictJsonParser&) = delete;
  StrictJsonParser& operator=(const StrictJsonParser&) = delete;

  // The value of `text` (one JSON document, nothing after it but
  // whitespace), its nodes allocated from `storage`; or nullopt, with why in
  // `refusal`: the parser's own words, or `duplicate key "<key>"`.
  std::optional<boost::json::value> parse(std::string_view text, boost::json::storage_ptr storage,
                                          std::string& refusal);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The first key found twice in one object of `text` (read with `options`:
// the same depth limit as the parse that found it); nullopt when every
// object's keys differ or the text is not JSON. Keeps every key, so it is
// the slow, exact check behind StrictJsonParser's digests.
std::optional<std::string> first_duplicate_key(std::string_view text, const boost::json::parse_options& options);

}  // namespace airlock::host
