// Finding destinations is lexical on purpose: the check must never decode
// anything itself, or it would accept the very normalization it exists to
// catch. A host is a run of label bytes (ASCII letters, digits, '-', '_',
// '%') and label separators ('.', the three Unicode dots browsers accept,
// each maybe bracketed as an inert mark) holding at least one separator and
// one letter.
#include "check/destinations.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <set>

namespace airlock::host::check {
namespace {

using namespace std::string_view_literals;

constexpr std::array kDots = {"."sv, "\xE3\x80\x82"sv, "\xEF\xBC\x8E"sv, "\xEF\xBD\xA1"sv};

bool is_letter(unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_label_byte(unsigned char c) {
  return is_letter(c) || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '%';
}
bool is_scheme_byte(unsigned char c) {
  return is_letter(c) || (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.';
}

// Length of the separator at `i`: a dot, "[dot]" or "\[dot\]"; 0 if none.
std::size_t separator_at(std::string_view t, std::size_t i) {
  const std::string_view rest = t.substr(i);
  for (std::string_view dot : kDots) {
    if (rest.starts_with(dot)) return dot.size();
    if (rest.size() > dot.size() + 1 && rest[0] == '[' && rest.substr(1).starts_with(dot) &&
        rest[1 + dot.size()] == ']')
      return dot.size() + 2;
    if (rest.starts_with("\\[") && rest.substr(2).starts_with(dot) && rest.substr(2 + dot.size()).starts_with("\\]"))
      return dot.size() + 4;
  }
  return 0;
}

// Length of the colon at `i`: ":", "[:]" or "\[:\]"; 0 if none.
std::size_t colon_at(std::string_view t, std::size_t i) {
  const std::string_view rest = t.substr(i);
  if (rest.starts_with(":")) return 1;
  if (rest.starts_with("[:]")) return 3;
  if (rest.starts_with("\\[:\\]")) return 5;
  return 0;
}

struct HostSpan {
  std::size_t end;
  bool separator = false;
  bool letter = false;
};

HostSpan host_span(std::string_view t, std::size_t i) {
  HostSpan span{i};
  while (span.end < t.size()) {
    const auto c = static_cast<unsigned char>(t[span.end]);
    if (is_label_byte(c)) {
      span.letter = span.letter || is_letter(c);
      ++span.end;
    } else if (const std::size_t len = separator_at(t, span.end); len != 0) {
      span.separator = true;
      span.end += len;
    } else {
      break;
    }
  }
  return span;
}

std::string replace_all(std::string s, std::string_view from, std::string_view to) {
  std::string out;
  out.reserve(s.size());
  std::size_t at = 0;
  for (std::size_t hit; (hit = s.find(from, at)) != std::string::npos; at = hit + from.size()) {
    out.append(s, at, hit - at);
    out += to;
  }
  out.append(s, at, std::string::npos);
  return out;
}

}  // namespace

std::vector<std::string> destinations(std::string_view raw) {
  // An HTML-escaped angle bracket is markup, not text: "&gt;.example" must
  // not read as the host "gt.example".
  std::string unescaped;
  if (raw.find('&') != std::string_view::npos)
    unescaped = replace_all(replace_all(std::string(raw), "&lt;", "<"), "&gt;", ">");
  const std::string_view t = unescaped.empty() ? raw : std::string_view(unescaped);
  // A set of views while scanning: a large text repeats its hosts, and
  // copying each occurrence would cost more than the scan.
  std::set<std::string_view> found;
  for (std::size_t i = 0; i < t.size();) {
    const HostSpan span = host_span(t, i);
    if (span.end == i) {
      ++i;
      continue;
    }
    if (span.separator && span.letter) found.insert(t.substr(i, span.end - i));
    i = span.end;
  }
  for (std::size_t i = 0; i < t.size(); ++i) {
    const std::size_t colon = colon_at(t, i);
    if (colon == 0) continue;
    std::size_t start = i;
    while (start > 0 && is_scheme_byte(static_cast<unsigned char>(t[start - 1]))) --start;
    std::size_t host = i + colon;
    while (host < t.size() && (t[host] == '/' || t[host] == '\\')) ++host;
    // A scheme, two slashes (browsers take backslashes too) and a host with
    // a letter: "a:/2" is not a destination, "x://h" is.
    if (start == i || host < i + colon + 2) continue;
    const HostSpan span = host_span(t, host);
    if (span.end > host && span.letter) found.insert(t.substr(start, span.end - start));
  }
  return std::vector<std::string>(found.begin(), found.end());
}

namespace {

std::string without_escaped_brackets(std::string s) {
  s = replace_all(std::move(s), "\\[", "[");
  return replace_all(std::move(s), "\\]", "]");
}

std::string without_bracket_marks(std::string s) {
  for (std::string_view dot : kDots) s = replace_all(std::move(s), "[" + std::string(dot) + "]", dot);
  return replace_all(std::move(s), "[:]", ":");
}

// hxxp(s) and fxp back to http(s) and ftp, keeping the case of each letter.
std::string with_live_schemes(std::string s) {
  auto lower = [&](std::size_t k) { return static_cast<char>(s[k] | 0x20); };
  for (std::size_t i = 0; i + 3 <= s.size(); ++i) {
    if (i + 4 <= s.size() && lower(i) == 'h' && lower(i + 1) == 'x' && lower(i + 2) == 'x' && lower(i + 3) == 'p') {
      s[i + 1] = s[i + 1] == 'X' ? 'T' : 't';
      s[i + 2] = s[i + 2] == 'X' ? 'T' : 't';
    } else if (lower(i) == 'f' && lower(i + 1) == 'x' && lower(i + 2) == 'p') {
      s[i + 1] = s[i + 1] == 'X' ? 'T' : 't';
    }
  }
  return s;
}

}  // namespace

std::array<std::string, 2> undo_inert_marks(std::string_view text) {
  const std::string s(text);
  return {with_live_schemes(without_bracket_marks(without_escaped_brackets(s))),
          with_live_schemes(without_escaped_brackets(without_bracket_marks(s)))};
}

std::vector<std::string> made_up_destinations(std::string_view input, std::string_view output) {
  std::vector<std::string> made_up;
  if (input == output) return made_up;
  std::optional<std::array<std::string, 2>> undone_input;  // computed on first need: most outputs need none
  for (const std::string& d : destinations(output)) {
    if (input.find(d) != std::string_view::npos) continue;
    // A destination without marks must be in the input as it is; one with
    // marks may be the inert form of an input destination, inert or not,
    // in either reading of each.
    bool accounted = false;
    for (const std::string& live : undo_inert_marks(d)) {
      if (live == d) continue;
      if (!undone_input) undone_input = undo_inert_marks(input);
      accounted = accounted || input.find(live) != std::string_view::npos ||
                  (*undone_input)[0].find(live) != std::string::npos ||
                  (*undone_input)[1].find(live) != std::string::npos;
    }
    if (!accounted) made_up.push_back(d);
  }
  return made_up;
}

}  // namespace airlock::host::check
