// The JSON text writer the audit records are written with, and canonical
// JSON, which the records' digests are taken over: both must write exactly
// what Boost.JSON writes, or a digest a reader recomputes would not match.
#include "util/json_canonical.hpp"
#include "util/json_writer.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <string>

namespace airlock::host {
namespace {

namespace json = boost::json;

std::string written(std::string_view text) {
  std::string out;
  append_json_string(out, text);
  return out;
}

TEST(JsonWriter, EscapesEveryByteAsBoostJsonDoes) {
  for (int byte = 0; byte < 256; ++byte) {
    const std::string text = "a" + std::string(1, static_cast<char>(byte)) + "b";
    EXPECT_EQ(written(text), json::serialize(json::string_view(text))) << "byte " << byte;
  }
}

TEST(JsonWriter, FindsAnEscapeAtEveryPlaceOfALongText) {
  // Both the sixteen-byte scan and the tail after it, with the byte to
  // escape at each position, and several in one text.
  for (std::size_t at = 0; at < 48; ++at) {
    for (const char c : {'"', '\\', '\n', '\x01', '\x1f'}) {
      std::string text(40, 'x');
      text.insert(at < text.size() ? at : text.size(), 1, c);
      EXPECT_EQ(written(text), json::serialize(json::string_view(text))) << "at " << at;
    }
  }
  const std::string mixed = "\"quoted\"\ttab\\back\x7f del \xc3\xa9 \xff not utf-8\r\n" + std::string(33, '\b');
  EXPECT_EQ(written(mixed), json::serialize(json::string_view(mixed)));
  EXPECT_EQ(written(""), "\"\"");
}

TEST(JsonWriter, FindsAnEscapeAtEveryPlaceOfATextLongEnoughForTheWideScan) {
  // From 64 bytes on, the scan takes 32 at a time where the CPU can: the
  // byte to escape at each position of three blocks and the tail, among
  // bytes above 0x7f that a signed compare would take for controls.
  for (std::size_t at = 0; at < 110; ++at) {
    for (const char c : {'"', '\\', '\n', '\x01', '\x1f'}) {
      std::string text;
      for (int i = 0; i < 100; ++i) text.push_back(i % 3 == 0 ? '\xe9' : static_cast<char>('a' + i % 26));
      text.insert(at < text.size() ? at : text.size(), 1, c);
      EXPECT_EQ(written(text), json::serialize(json::string_view(text))) << "at " << at;
    }
  }
  const std::string many(300, '"');
  EXPECT_EQ(written(many), json::serialize(json::string_view(many)));
}

TEST(JsonWriter, NestedObjectsAndArraysParseBackAsWritten) {
  std::string out;
  {
    JsonObjectWriter top(out);
    top.string("name", "a \"b\"");
    top.number("negative", -5);
    top.number("big", std::uint64_t{18446744073709551615u});
    top.boolean("yes", true);
    {
      auto inner = top.object("inner");
      inner.string("joined", {"one", ": ", "two\n"});
      inner.member("odd \"key\"", json::value(1.5));
    }
    {
      auto list = top.array("list");
      list.object().string("k", "v");
      list.object();
    }
    top.value("tree", json::parse(R"({"x":[1,null]})"));
  }
  const json::value expected = json::parse(R"({"name":"a \"b\"","negative":-5,"big":18446744073709551615,
    "yes":true,"inner":{"joined":"one: two\n","odd \"key\"":1.5},"list":[{"k":"v"},{}],"tree":{"x":[1,null]}})");
  EXPECT_EQ(json::parse(out), expected) << out;
}

// append_json writes trees itself; what it writes must be the serializer's
// text byte for byte (the audit digests and pins are taken over it).
TEST(JsonText, WritesEveryKindOfTreeAsTheSerializerDoes) {
  const char* documents[] = {
      R"({"a":[1,-2,18446744073709551615,-9223372036854775808,1.5,-0.0,1e300,2.5e-8,true,false,null],"b":{}})",
      R"([[],{},"",[[[["deep"]]]],{"k\u0000\"\\\n":"\u001f\u007f\u00e9\ud83d\ude00"}])",
      R"("just a string")", "12345", "-0.125", "null",
      R"({"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"<b>hi</b>\t\r"}],"isError":false}})"};
  for (const char* text : documents) {
    const json::value value = json::parse(text);
    EXPECT_EQ(to_json(value), json::serialize(value)) << text;
    if (value.is_object()) {
      EXPECT_EQ(to_json(value.get_object()), json::serialize(value.get_object())) << text;
    }
    if (value.is_array()) {
      EXPECT_EQ(to_json(value.get_array()), json::serialize(value.get_array())) << text;
    }
    if (value.is_string()) {
      EXPECT_EQ(to_json(value.get_string()), json::serialize(value.get_string())) << text;
    }
  }
  // Deeper than the direct writer goes: the serializer writes the rest.
  std::string deep;
  for (int i = 0; i < 200; ++i) deep += R"([{"k":)";
  deep += "1";
  for (int i = 0; i < 200; ++i) deep += "}]";
  json::parse_options options;
  options.max_depth = 1000;
  const json::value nested = json::parse(deep, {}, options);
  EXPECT_EQ(to_json(nested), json::serialize(nested));
  EXPECT_EQ(to_json(nested), deep);
}

TEST(CanonicalJson, AValueWhoseKeysAreInOrderSerializesCanonically) {
  const json::value sorted = json::parse(R"({"a":{"b":1,"c":[{"d":2,"e":"\u00e9"}]},"z":null})");
  EXPECT_TRUE(serializes_canonically(sorted));
  EXPECT_EQ(json::serialize(sorted), canonical_json(sorted));

  for (const char* unsorted : {R"({"b":1,"a":2})", R"({"a":{"y":1,"x":2}})", R"([{"b":1,"a":2}])",
                               R"({"a":1,"a\u0000":2,"B":3})"}) {
    const json::value value = json::parse(unsorted);
    EXPECT_FALSE(serializes_canonically(value)) << unsorted;
    EXPECT_NE(json::serialize(value), canonical_json(value)) << unsorted;
  }
}

TEST(CanonicalJson, AnObjectReadsTheSameWhateverItsSizeOrHowItIsHeld) {
  for (const int members : {3, 16, 17, 40}) {
    json::object object;
    for (int i = members; i > 0; --i) object["k" + std::to_string(i)] = i;
    const std::string text = canonical_json(object);
    EXPECT_EQ(text, canonical_json(json::value(object)));
    EXPECT_EQ(json::parse(text), json::value(object));
    const auto first = text.find("\"k1\"");
    const auto second = text.find("\"k10\"");
    if (members >= 10) {
      EXPECT_LT(first, second) << text;
    }
  }
}

}  // namespace
}  // namespace airlock::host
