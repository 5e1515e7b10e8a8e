// acme-tools: two tools of pure computation, written with airlock.hpp.
//   acme.text-stats  counts the characters, bytes, words and lines of a text
//   acme.roman       writes an integer from 1 to 3999 as a Roman numeral
#include <airlock/airlock.hpp>

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace {

bool is_space(unsigned char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

boost::json::object text_stats(std::string_view text) {
  std::int64_t characters = 0;
  std::int64_t words = 0;
  std::int64_t lines = text.empty() ? 0 : 1;
  bool in_word = false;
  for (const char byte : text) {
    const auto c = static_cast<unsigned char>(byte);
    // Arguments arrive as JSON, so the text is valid UTF-8: every byte that
    // is not a continuation byte starts one code point.
    if ((c & 0xC0u) != 0x80u) ++characters;
    if (c == '\n') ++lines;
    if (is_space(c)) {
      in_word = false;
    } else if (!in_word) {
      in_word = true;
      ++words;
    }
  }
  // A final newline ends the last line rather than starting another.
  if (!text.empty() && text.back() == '\n') --lines;
  return {{"characters", characters},
          {"bytes", static_cast<std::int64_t>(text.size())},
          {"words", words},
          {"lines", lines}};
}

std::string roman(std::int64_t number) {
  if (number < 1 || number > 3999)
    throw std::invalid_argument("argument 'number' must be from 1 to 3999 (Roman numerals have no zero)");
  struct Symbol {
    std::int64_t value;
    const char* text;
  };
  static constexpr std::array<Symbol, 13> kSymbols{{{1000, "M"}, {900, "CM"}, {500, "D"}, {400, "CD"},
                                                    {100, "C"}, {90, "XC"}, {50, "L"}, {40, "XL"},
                                                    {10, "X"}, {9, "IX"}, {5, "V"}, {4, "IV"}, {1, "I"}}};
  std::string out;
  for (const auto& symbol : kSymbols) {
    while (number >= symbol.value) {
      out += symbol.text;
      number -= symbol.value;
    }
  }
  return out;
}

}  // namespace

AIRLOCK_PLUGIN(plugin) {
  plugin.info("acme-tools", "1.0.0", "Acme's text statistics and Roman numerals");

  // Both tools keep no state, so any number of calls may run at once.
  plugin.tool(
      {.name = "acme.text-stats",
       .title = "Text statistics",
       .description = "Counts the characters (Unicode code points), UTF-8 bytes, words and lines of a text.",
       .input_schema = R"({"type":"object","properties":{"text":{"type":"string"}},"required":["text"]})",
       .output_schema = R"({"type":"object","properties":{"characters":{"type":"integer"},)"
                        R"("bytes":{"type":"integer"},"words":{"type":"integer"},"lines":{"type":"integer"}},)"
                        R"("required":["characters","bytes","words","lines"]})",
       .annotations = R"({"readOnlyHint":true,"idempotentHint":true,"openWorldHint":false})",
       .flags = AIRLOCK_TOOL_REENTRANT},
      [](const boost::json::object& args, airlock::sdk::Call&) {
        return text_stats(airlock::sdk::string_arg(args, "text"));
      });

  plugin.tool(
      {.name = "acme.roman",
       .title = "Roman numeral",
       .description = "Writes an integer from 1 to 3999 as a Roman numeral, e.g. 2026 as MMXXVI.",
       .input_schema = R"({"type":"object","properties":{"number":{"type":"integer","minimum":1,"maximum":3999}},)"
                       R"("required":["number"]})",
       .annotations = R"({"readOnlyHint":true,"idempotentHint":true,"openWorldHint":false})",
       .flags = AIRLOCK_TOOL_REENTRANT},
      [](const boost::json::object& args, airlock::sdk::Call&) {
        return airlock::sdk::Text{roman(airlock::sdk::int_arg(args, "number"))};
      });
}
