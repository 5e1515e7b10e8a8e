// schema_fuzz — host/schema/schema_validator: the input is "<schema JSON>\n
// <instance JSON>" (a schema alone is validated against a few fixed
// instances). Asserts that compile never throws or crashes on any object
// (a schema is plugin text), that validate answers in time on any instance
// (patterns run on RE2; $ref cycles must end: libFuzzer's -timeout and ASan's
// stack checks), and that it answers the same twice, with a failure that
// describes itself.
#include "schema/schema_validator.hpp"

#include <boost/json/parse.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

namespace json = boost::json;

namespace {

std::optional<json::value> parse(std::string_view text) {
  boost::system::error_code ec;
  json::parse_options options;
  options.max_depth = 64;
  json::value value = json::parse(text, ec, {}, options);
  if (ec) return std::nullopt;
  return value;
}

void check(const airlock::host::SchemaValidator& validator, const json::value& instance) {
  const auto first = validator.validate(instance);
  const auto second = validator.validate(instance);
  if (first.has_value() != second.has_value()) std::abort();
  if (first && (first->describe() != second->describe() || first->describe().empty())) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::size_t newline = input.find('\n');
  const auto schema = parse(input.substr(0, newline));
  if (!schema || !schema->is_object()) return 0;
  const auto compiled = airlock::host::SchemaValidator::compile(schema->get_object());
  if (!compiled) {
    if (compiled.error().message.empty()) std::abort();
    return 0;
  }
  if (newline != std::string_view::npos) {
    if (const auto instance = parse(input.substr(newline + 1))) check(**compiled, *instance);
  } else {
    for (const char* fixed : {"null", "0", "1.5", "\"\"", "\"abc\"", "[]", "[1,\"a\",null]", "{}", "{\"a\":1}", "true"})
      check(**compiled, json::parse(fixed));
  }
  return 0;
}
