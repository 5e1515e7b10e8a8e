// The response-to-text rules of airlock.fetch (response_text.hpp).
#include "response_text.hpp"

#include "ascii_lower.hpp"

namespace airlock::plugins::fetch {
namespace {

std::string_view trim(std::string_view s) noexcept {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool ends_with(std::string_view s, std::string_view suffix) noexcept {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// The range the byte after a lead byte must fall in: the first continuation
// byte is what rules out overlong forms (E0, F0), surrogates (ED) and code
// points above U+10FFFF (F4). A lead byte that starts no sequence has
// length 0.
struct LeadByte {
  std::size_t length;
  unsigned char second_min;
  unsigned char second_max;
};

LeadByte lead_byte(unsigned char b) noexcept {
  if (b >= 0xC2 && b <= 0xDF) return {2, 0x80, 0xBF};
  if (b == 0xE0) return {3, 0xA0, 0xBF};
  if ((b >= 0xE1 && b <= 0xEC) || b == 0xEE || b == 0xEF) return {3, 0x80, 0xBF};
  if (b == 0xED) return {3, 0x80, 0x9F};
  if (b == 0xF0) return {4, 0x90, 0xBF};
  if (b >= 0xF1 && b <= 0xF3) return {4, 0x80, 0xBF};
  if (b == 0xF4) return {4, 0x80, 0x8F};
  return {0, 0, 0};
}

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

bool is_source_char(char c) noexcept {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
         c == ':' || c == '@' || c == '/' || c == '-';
}

// The host of an absolute URL: after "scheme://" and any userinfo, up to the
// port, path, query or fragment. Empty when there is no authority.
std::string_view host_of(std::string_view url) noexcept {
  const std::size_t scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos) return {};
  std::string_view authority = url.substr(scheme_end + 3);
  authority = authority.substr(0, authority.find_first_of("/?#"));
  if (const std::size_t at = authority.rfind('@'); at != std::string_view::npos) authority.remove_prefix(at + 1);
  if (!authority.empty() && authority.front() == '[') {
    // An IPv6 literal keeps its brackets, which the source syntax refuses.
    const std::size_t close = authority.find(']');
    return close == std::string_view::npos ? authority : authority.substr(0, close + 1);
  }
  return authority.substr(0, authority.find(':'));
}

}  // namespace

bool is_textual_content_type(std::string_view content_type) {
  std::string media_type(trim(content_type.substr(0, content_type.find(';'))));
  for (char& c : media_type) c = ascii_lower(c);
  if (media_type.empty()) return true;
  const std::size_t slash = media_type.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == media_type.size()) return false;
  if (media_type.compare(0, slash + 1, "text/") == 0) return true;
  if (media_type == "application/json" || media_type == "application/xml" ||
      media_type == "application/javascript")
    return true;
  const std::string_view subtype = std::string_view(media_type).substr(slash + 1);
  // "+json" alone is no subtype with a suffix.
  return (ends_with(subtype, "+json") && subtype.size() > 5) || (ends_with(subtype, "+xml") && subtype.size() > 4);
}

std::string repair_utf8(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  std::size_t i = 0;
  while (i < bytes.size()) {
    const auto b = static_cast<unsigned char>(bytes[i]);
    if (b < 0x80) {
      out.push_back(bytes[i]);
      ++i;
      continue;
    }
    const LeadByte lead = lead_byte(b);
    if (lead.length == 0) {
      out += kReplacement;
      ++i;
      continue;
    }
    // How many bytes of the sequence are well formed, the lead byte included.
    std::size_t good = 1;
    while (good < lead.length && i + good < bytes.size()) {
      const auto c = static_cast<unsigned char>(bytes[i + good]);
      const unsigned char min = good == 1 ? lead.second_min : 0x80;
      const unsigned char max = good == 1 ? lead.second_max : 0xBF;
      if (c < min || c > max) break;
      ++good;
    }
    if (good == lead.length) {
      out.append(bytes.substr(i, good));
    } else {
      out += kReplacement;  // the maximal subpart, however long, is one U+FFFD
    }
    i += good;
  }
  return out;
}

std::string web_source(std::string_view url) {
  const std::string_view host = host_of(url);
  constexpr std::string_view kPrefix = "web:";
  constexpr std::size_t kMaxSource = 64;
  if (host.empty() || kPrefix.size() + host.size() > kMaxSource) return "web";
  for (char c : host)
    if (!is_source_char(c)) return "web";
  return std::string(kPrefix).append(host);
}

std::string quote_briefly(std::string_view text, std::size_t max_bytes) {
  if (text.size() <= max_bytes) return std::string(text);
  std::size_t cut = max_bytes;
  // Back off to the start of a UTF-8 sequence so no character is split.
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return std::string(text.substr(0, cut)).append("...");
}

}  // namespace airlock::plugins::fetch
