// Matching is a walk over the template's pieces with backtracking: a value
// ends at one of the places its following literal occurs, and the earliest
// one that lets the rest match wins. Values cannot hold '/', so the
// backtracking stays within one path segment, but a template of many
// variables in one segment ("{a}x{b}x{c}x...") against a long run of "x"
// would try every split of that run: exponential. Whether variable v
// matches from offset `at` depends on nothing else, so each (v, at) that
// failed is remembered and never tried again: at most variables x length
// states, each scanning one segment.
#include "plugins/uri_template.hpp"

#include <unordered_set>

namespace airlock::host {
namespace {

bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

bool is_value_char(char c) { return c != '/' && c != '?' && c != '#'; }

}  // namespace

Result<UriTemplate> UriTemplate::parse(std::string_view text) {
  UriTemplate t;
  std::string literal;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '}') return Error{"a '}' without its '{'"};
    if (c != '{') {
      literal.push_back(c);
      continue;
    }
    const std::size_t close = text.find('}', i);
    if (close == std::string_view::npos) return Error{"a '{' without its '}'"};
    const std::string_view name = text.substr(i + 1, close - i - 1);
    if (name.empty()) return Error{"an empty expression {}"};
    for (char n : name)
      if (!is_name_char(n))
        return Error{"only {name} expressions (RFC 6570 level 1, names of [A-Za-z0-9_]) are supported"};
    if (!t.variables_.empty() && literal.empty())
      return Error{"two expressions side by side: nothing tells where one value ends"};
    for (const auto& seen : t.variables_)
      if (seen == name) return Error{"variable '" + std::string(name) + "' appears twice"};
    t.literals_.push_back(std::move(literal));
    literal.clear();
    t.variables_.emplace_back(name);
    i = close;
  }
  t.literals_.push_back(std::move(literal));
  return t;
}

std::optional<std::vector<std::pair<std::string, std::string>>> UriTemplate::match(std::string_view uri) const {
  const std::string_view head = literals_.front();
  if (!uri.starts_with(head)) return std::nullopt;
  std::vector<std::string_view> values(variables_.size());
  std::unordered_set<std::size_t> failed;  // v * (uri.size() + 1) + at, for each (v, at) that cannot match

  // Matches variable `v` (and everything after it) from `at`.
  auto rest = [&](auto& self, std::size_t v, std::size_t at) -> bool {
    if (v == variables_.size()) return at == uri.size();
    const std::size_t state = v * (uri.size() + 1) + at;
    if (failed.contains(state)) return false;
    const std::string_view next = literals_[v + 1];
    // The value is uri[at, stop): never empty, never past a '/', '?' or '#'.
    for (std::size_t stop = at + 1; stop <= uri.size() && is_value_char(uri[stop - 1]); ++stop) {
      if (next.empty() ? stop != uri.size() : uri.compare(stop, next.size(), next) != 0) continue;
      values[v] = uri.substr(at, stop - at);
      if (self(self, v + 1, stop + next.size())) return true;
    }
    failed.insert(state);
    return false;
  };
  if (!rest(rest, 0, head.size())) return std::nullopt;

  std::vector<std::pair<std::string, std::string>> out;
  for (std::size_t i = 0; i < variables_.size(); ++i) out.emplace_back(variables_[i], values[i]);
  return out;
}

}  // namespace airlock::host
