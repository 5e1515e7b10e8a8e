// RFC 6570 URI templates at level 1 ("test://template/{id}/data"): parsed
// when a plugin registers one, then matched against the URI of every
// resources/read that no resource registers exactly.
#pragma once

#include "util/error.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace airlock::host {

class UriTemplate {
 public:
  // Literal text and {name} expressions only, names of [A-Za-z0-9_], no two
  // expressions side by side (nothing would tell where one value ends) and
  // no name twice. Errors say what is wrong, without the template.
  static Result<UriTemplate> parse(std::string_view text);

  // The variables' values when `uri` matches, in template order; nothing
  // when it does not. A value is one or more characters other than '/',
  // '?' and '#', kept as written (percent-encoding and all).
  std::optional<std::vector<std::pair<std::string, std::string>>> match(std::string_view uri) const;

  const std::vector<std::string>& variables() const { return variables_; }

 private:
  // Alternating pieces: literal, variable, literal, ..., literal (either end
  // may be an empty literal).
  std::vector<std::string> literals_;
  std::vector<std::string> variables_;
};

}  // namespace airlock::host
