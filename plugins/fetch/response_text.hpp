// response_text.hpp — how airlock.fetch turns a fetched response into text
// for the model: which content types it passes on, how it keeps the text
// valid UTF-8 (the host withholds a result that is not), and which source
// label the text carries. Pure functions, no SDK, so they can be tested
// without a host.
#ifndef AIRLOCK_PLUGINS_FETCH_RESPONSE_TEXT_HPP
#define AIRLOCK_PLUGINS_FETCH_RESPONSE_TEXT_HPP

#include <cstddef>
#include <string>
#include <string_view>

namespace airlock::plugins::fetch {

// True for the media types whose body is text the model can read: none at
// all (the server did not say), text/*, application/json, application/xml,
// application/javascript and any structured-syntax suffix +json or +xml.
// Parameters (";charset=...") are ignored and the comparison is ASCII
// case-insensitive, as RFC 9110 section 8.3.1 says media types are.
bool is_textual_content_type(std::string_view content_type);

// `bytes` with every ill-formed UTF-8 sequence replaced by U+FFFD, one per
// maximal subpart (Unicode chapter 3, "U+FFFD Substitution of Maximal
// Subparts"): overlong forms, surrogates, code points above U+10FFFF, stray
// continuation bytes and a sequence cut short (by truncation, say) all
// become U+FFFD. Valid input comes back unchanged.
std::string repair_utf8(std::string_view bytes);

// The untrusted-text source for a body fetched from `url` (a URL as the host
// parsed it): "web:<host>" when that fits the source syntax
// [A-Za-z0-9._:@/-]{1,64}, else "web" (an IPv6 literal, a long name).
std::string web_source(std::string_view url);

// `text` cut to at most `max_bytes` bytes without splitting a UTF-8
// sequence, with "..." appended when anything was cut. For quoting
// remote-controlled values (a content type) in an error message.
std::string quote_briefly(std::string_view text, std::size_t max_bytes);

}  // namespace airlock::plugins::fetch

#endif  // AIRLOCK_PLUGINS_FETCH_RESPONSE_TEXT_HPP
