// Reads airlock.toml into plain structs and checks everything that can be
// checked without loading a plugin.
//
// toml++ parses the text and records where every key and value was written;
// ConfigReader then walks the document once. Each reader of a value either
// returns it or records a problem at the value's place and returns nothing,
// so one walk finds every problem. Because toml++ tables are ordered by key,
// not by position, the walk meets problems out of file order; the reported
// one is the problem written earliest in the file, which is the one an
// operator reading top to bottom expects.
#include "config/host_config.hpp"

#include "config/config_reader.hpp"

#include <toml++/toml.h>

#include <string>

namespace airlock::host {
namespace {

using config_reading::ConfigReader;
using config_reading::read_file;

// toml++ describes problems as sentences ("Error while parsing ..."); the house
// form is lowercase, so only a leading capital that starts a word is lowered.
std::string house_form(std::string_view description) {
  std::string text(description);
  if (text.size() > 1 && text[0] >= 'A' && text[0] <= 'Z' && text[1] >= 'a' && text[1] <= 'z')
    text[0] = static_cast<char>(text[0] - 'A' + 'a');
  while (!text.empty() && (text.back() == '.' || text.back() == '\n')) text.pop_back();
  return text;
}

}  // namespace

std::string SourcePlace::describe() const {
  return file + ":" + std::to_string(line) + ":" + std::to_string(column);
}

Result<Config> load_config(const std::filesystem::path& file) {
  auto text = read_file(file);
  if (!text) return text.error();
  return parse_config(*text, file);
}

Result<Config> parse_config(std::string_view text, const std::filesystem::path& file) {
  const std::string name = file.string();
  toml::table root;
  try {
    root = toml::parse(text, std::string_view(name));
  } catch (const toml::parse_error& e) {
    const auto& at = e.source().begin;
    return Error{SourcePlace{name, at.line, at.column, {}}.describe() + ": " +
                 house_form(e.description())};
  }
  return ConfigReader(file).read(root);
}

// Greedy matching with one backtrack point: on a mismatch only the most recent
// '*' needs to absorb one more byte, because any earlier '*' could only make
// the same choices again. Worst case O(pattern * name), no recursion.
bool glob_match(std::string_view pattern, std::string_view name) {
  constexpr auto kNone = std::string_view::npos;
  std::size_t p = 0;
  std::size_t n = 0;
  std::size_t star = kNone;  // position of the last '*' seen in pattern
  std::size_t resume = 0;    // where in name that '*' stopped absorbing
  while (n < name.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      resume = n;
    } else if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == name[n])) {
      ++p;
      ++n;
    } else if (star != kNone) {
      p = star + 1;
      n = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

bool is_bearer_token(std::string_view token) {
  const auto is_b64token_char = [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           c == '-' || c == '.' || c == '_' || c == '~' || c == '+' || c == '/';
  };
  const auto body_end = token.find_last_not_of('=');
  if (body_end == std::string_view::npos) return false;  // empty, or only padding
  const auto body = token.substr(0, body_end + 1);
  return std::all_of(body.begin(), body.end(), is_b64token_char);
}

}  // namespace airlock::host

