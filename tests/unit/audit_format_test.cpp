// The audit record formats: OCSF 1.3.0 classes and attributes per kind, CEF
// escaping, and that every kind makes one line whose link reads back.
#include "audit/audit_chain.hpp"
#include "audit/cef_format.hpp"
#include "audit/ocsf_format.hpp"
#include "util/json_canonical.hpp"
#include "util/sha256.hpp"

#include <boost/json/parse.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace airlock::host::audit {
namespace {

namespace json = boost::json;
using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

const FormatContext kContext{"9.8.7", "host-1"};

ChainLink link(std::uint64_t seq = 7) { return ChainLink{"replica-a", seq, std::string(64, 'a')}; }

std::chrono::system_clock::time_point at_ms(std::int64_t ms) {
  return std::chrono::system_clock::time_point(std::chrono::milliseconds(ms));
}

Event tool_call() {
  Event event;
  event.kind = Kind::tool_call;
  event.time = at_ms(1'700'000'000'123);
  event.outcome = "delivered";
  event.actor = Actor{"alice", "sess-1", "42", "2025-06-18", "http", "192.0.2.7", "inspector"};
  event.subject = "get_forecast";
  event.duration = std::chrono::microseconds(12'345);
  event.bytes = 512;
  event.detail["arguments_sha256"] = std::string(64, 'b');
  return event;
}

json::object ocsf(const Event& event, const ChainLink& at = link()) {
  const std::string line = format_ocsf(event, at, kContext);
  EXPECT_EQ(line.find('\n'), std::string::npos);
  return json::parse(line).as_object();
}

TEST(OcsfFormat, ToolCallIsApiActivityWithActorApiAndResource) {
  const json::object r = ocsf(tool_call());
  EXPECT_EQ(r.at("class_uid"), 6003);
  EXPECT_EQ(r.at("class_name"), "API Activity");
  EXPECT_EQ(r.at("category_uid"), 6);
  EXPECT_EQ(r.at("category_name"), "Application Activity");
  EXPECT_EQ(r.at("activity_id"), 99);
  EXPECT_EQ(r.at("activity_name"), "Invoke");
  EXPECT_EQ(r.at("type_uid"), 600399);
  EXPECT_EQ(r.at("type_name"), "API Activity: Invoke");
  EXPECT_EQ(r.at("time"), 1'700'000'000'123);
  EXPECT_EQ(r.at("severity_id"), 1);
  EXPECT_EQ(r.at("severity"), "Informational");
  EXPECT_EQ(r.at("status_id"), 1);
  EXPECT_EQ(r.at("status"), "Success");
  EXPECT_EQ(r.at("status_detail"), "delivered");
  EXPECT_EQ(r.at("message"), "tool_call get_forecast: delivered");
  EXPECT_EQ(r.at("duration"), 12);
  const auto& metadata = r.at("metadata").as_object();
  EXPECT_EQ(metadata.at("version"), "1.3.0");
  EXPECT_EQ(metadata.at("product").at("name"), "airlock");
  EXPECT_EQ(metadata.at("product").at("vendor_name"), "airlock");
  EXPECT_EQ(metadata.at("product").at("version"), "9.8.7");
  EXPECT_EQ(metadata.at("log_name"), "audit");
  EXPECT_EQ(metadata.at("event_code"), "tool_call");
  EXPECT_EQ(metadata.at("uid"), "replica-a:7");
  EXPECT_EQ(r.at("actor").at("user").at("name"), "alice");
  EXPECT_EQ(r.at("actor").at("app_uid"), "inspector") << "the OAuth client the token was issued to";
  EXPECT_EQ(r.at("actor").at("session").at("uid"), "sess-1");
  EXPECT_EQ(r.at("src_endpoint").at("ip"), "192.0.2.7");
  EXPECT_EQ(r.at("api").at("operation"), "tools/call");
  EXPECT_EQ(r.at("api").at("request").at("uid"), "42");
  EXPECT_EQ(r.at("api").at("version"), "2025-06-18");
  EXPECT_EQ(r.at("resources").at(0).at("type"), "tool");
  EXPECT_EQ(r.at("resources").at(0).at("name"), "get_forecast");
  const auto& unmapped = r.at("unmapped").as_object();
  EXPECT_EQ(unmapped.at("transport"), "http");
  EXPECT_EQ(unmapped.at("bytes"), 512);
  EXPECT_EQ(unmapped.at("detail").at("arguments_sha256").as_string(), std::string(64, 'b'));
  EXPECT_FALSE(unmapped.contains("protocol"));  // mapped to api.version
  EXPECT_FALSE(unmapped.contains("subject"));   // in resources
}

// A call's digests as the call leaves them: small ones hashed at once,
// large ones pending until settle_digests, which the trail's writer runs.
TEST(AuditEvent, PendingDigestsSettleToTheDigestOfWhatTheyCover) {
  const std::string small_text = R"({"text":"hi"})";
  const std::string large_text = std::string(4096, 'x');
  json::object large_result;
  large_result["content"] = json::array{json::object{{"type", "text"}, {"text", large_text}}};
  large_result["isError"] = false;

  Event event = tool_call();
  event.pending.arguments = PendingDigest::of_bytes(small_text);
  event.pending.result = PendingDigest::of_json(large_result);
  event.pending.delivered = PendingDigest::of_bytes(large_text);
  // Only the large ones hold their bytes, and the trail bounds what they hold.
  EXPECT_EQ(event.pending.arguments->held_bytes(), 0u);
  EXPECT_GE(event.pending.result->held_bytes(), large_text.size());
  EXPECT_EQ(event.pending.delivered->held_bytes(), large_text.size());
  EXPECT_GE(held_bytes(event), 2 * large_text.size());

  settle_digests(event);
  EXPECT_EQ(held_bytes(event), 0u);
  EXPECT_FALSE(event.pending.arguments || event.pending.result || event.pending.delivered);
  EXPECT_EQ(event.arguments_sha256, sha256(small_text));
  EXPECT_EQ(event.result_sha256, sha256(canonical_json(large_result)));
  EXPECT_EQ(event.delivered_sha256, sha256(large_text));
}

TEST(RecordFormats, TypedDigestsAndTheChainAreWrittenInDetailAsHexInBothFormats) {
  Event event = tool_call();
  event.detail.clear();
  event.arguments_sha256 = sha256("a");
  event.result_sha256 = sha256("b");
  event.delivered_sha256 = sha256("c");
  event.chain = "default";
  event.detail["arguments"] = json::object{{"city", "Oslo"}};  // opted-in values come after
  const std::string ocsf_line = format_ocsf(event, link(), kContext);
  const auto cef = parse_cef(format_cef(event, link(), kContext));
  ASSERT_TRUE(cef);
  ASSERT_NE(cef->find("cs5"), nullptr);
  for (const json::value& detail :
       {json::parse(ocsf_line).at("unmapped").at("detail"), json::parse(*cef->find("cs5"))}) {
    EXPECT_EQ(detail.at("arguments_sha256").as_string(), sha256_hex(sha256("a")));
    EXPECT_EQ(detail.at("result_sha256").as_string(), sha256_hex(sha256("b")));
    EXPECT_EQ(detail.at("delivered_sha256").as_string(), sha256_hex(sha256("c")));
    EXPECT_EQ(detail.at("chain"), "default");
    EXPECT_EQ(detail.at("arguments").at("city"), "Oslo");
  }
}

TEST(OcsfFormat, ChainLinkIsTheLastMemberOfTheLine) {
  const std::string line = format_ocsf(tool_call(), link(3), kContext);
  EXPECT_THAT(line, EndsWith(R"("airlock_chain":{"replica":"replica-a","seq":3,"prev":")" + std::string(64, 'a') +
                             R"("}}})"));
  const auto parsed = parse_ocsf_record(line);
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->link.replica, "replica-a");
  EXPECT_EQ(parsed->link.seq, 3u);
  EXPECT_EQ(parsed->link.prev, std::string(64, 'a'));
  EXPECT_EQ(parsed->kind, "tool_call");
  EXPECT_EQ(parsed->detail.at("arguments_sha256").as_string(), std::string(64, 'b'));
}

TEST(OcsfFormat, ReadsTheLinkByParsingNotBySearchingTheText) {
  // A subject that spells a fake link must not be taken for the real one.
  Event event = tool_call();
  event.subject = R"(x","airlock_chain":{"replica":"evil","seq":1,"prev":")" + std::string(64, '0') + "\"}";
  const auto parsed = parse_ocsf_record(format_ocsf(event, link(9), kContext));
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->link.replica, "replica-a");
  EXPECT_EQ(parsed->link.seq, 9u);
}

TEST(OcsfFormat, EgressIsNetworkActivityOpenWhenAllowedAndRefuseWhenDenied) {
  Event event;
  event.kind = Kind::egress;
  event.subject = "fetch_page";
  event.destination = "https://example.com:443";
  event.address = "93.184.216.34";
  event.outcome = "allowed";
  event.reason = "grant";
  event.bytes = 1000;
  json::object r = ocsf(event);
  EXPECT_EQ(r.at("class_uid"), 4001);
  EXPECT_EQ(r.at("category_uid"), 4);
  EXPECT_EQ(r.at("activity_id"), 1);
  EXPECT_EQ(r.at("activity_name"), "Open");
  EXPECT_EQ(r.at("type_uid"), 400101);
  EXPECT_EQ(r.at("dst_endpoint").at("hostname"), "example.com");
  EXPECT_EQ(r.at("dst_endpoint").at("ip"), "93.184.216.34");
  EXPECT_EQ(r.at("dst_endpoint").at("port"), 443);
  EXPECT_EQ(r.at("url").at("url_string"), "https://example.com:443");
  EXPECT_EQ(r.at("actor").at("app_name"), "fetch_page");
  EXPECT_EQ(r.at("traffic").at("bytes_in"), 1000);
  EXPECT_EQ(r.at("unmapped").at("reason"), "grant");

  event.failed = true;
  event.outcome = "denied";
  event.destination = "http://[2001:db8::1]:8080";
  r = ocsf(event);
  EXPECT_EQ(r.at("activity_id"), 5);
  EXPECT_EQ(r.at("activity_name"), "Refuse");
  EXPECT_EQ(r.at("status_id"), 2);
  EXPECT_EQ(r.at("severity_id"), 2);
  EXPECT_EQ(r.at("dst_endpoint").at("hostname"), "2001:db8::1");
  EXPECT_EQ(r.at("dst_endpoint").at("port"), 8080);
}

TEST(OcsfFormat, AuthFailureIsAFailedLogonOfMediumSeverity) {
  Event event;
  event.kind = Kind::auth_failed;
  event.failed = true;
  event.outcome = "refused";
  event.reason = "unknown_token";
  event.actor.address = "198.51.100.2";
  event.http_method = "POST";
  event.http_path = "/mcp";
  event.http_status = 401;
  const json::object r = ocsf(event);
  EXPECT_EQ(r.at("class_uid"), 3002);
  EXPECT_EQ(r.at("category_uid"), 3);
  EXPECT_EQ(r.at("category_name"), "Identity & Access Management");
  EXPECT_EQ(r.at("activity_id"), 1);
  EXPECT_EQ(r.at("activity_name"), "Logon");
  EXPECT_EQ(r.at("status_id"), 2);
  EXPECT_EQ(r.at("status"), "Failure");
  EXPECT_EQ(r.at("severity_id"), 3);
  EXPECT_EQ(r.at("user").at("type_id"), 0);
  EXPECT_EQ(r.at("src_endpoint").at("ip"), "198.51.100.2");
  EXPECT_EQ(r.at("http_request").at("url").at("path"), "/mcp");
  EXPECT_EQ(r.at("unmapped").at("http_status"), 401);
}

TEST(OcsfFormat, RefusalsAreHttpActivityByMethod) {
  Event event;
  event.kind = Kind::rate_limited;
  event.failed = true;
  event.outcome = "refused";
  event.http_method = "POST";
  event.http_path = "/mcp";
  event.http_status = 429;
  json::object r = ocsf(event);
  EXPECT_EQ(r.at("class_uid"), 4002);
  EXPECT_EQ(r.at("activity_id"), 6);
  EXPECT_EQ(r.at("activity_name"), "Post");
  EXPECT_EQ(r.at("http_request").at("http_method"), "POST");
  EXPECT_EQ(r.at("http_request").at("url").at("path"), "/mcp");
  EXPECT_EQ(r.at("http_response").at("code"), 429);
  EXPECT_EQ(r.at("severity_id"), 2);

  event.kind = Kind::request_refused;
  event.http_method = "GET";
  event.http_status = 403;
  r = ocsf(event);
  EXPECT_EQ(r.at("activity_id"), 3);
  event.http_method = "BREW";
  EXPECT_EQ(ocsf(event).at("activity_id"), 99);
}

TEST(OcsfFormat, CodeAndDefinitionsAreApplicationLifecycle) {
  struct Case {
    Kind kind;
    int activity;
    int severity;
  };
  for (const Case c : {Case{Kind::pack_installed, 1, 1}, Case{Kind::plugin_loaded, 3, 1},
                       Case{Kind::server_start, 3, 1}, Case{Kind::server_stop, 4, 1},
                       Case{Kind::plugin_crashed, 4, 4}, Case{Kind::plugin_restarted, 5, 1},
                       Case{Kind::pin_changed, 8, 3}, Case{Kind::pin_accepted, 8, 1}, Case{Kind::pack_refused, 99, 3},
                       Case{Kind::config_loaded, 99, 1}}) {
    Event event;
    event.kind = c.kind;
    event.subject = "thing";
    const json::object r = ocsf(event);
    SCOPED_TRACE(std::string(kind_name(c.kind)));
    EXPECT_EQ(r.at("class_uid"), 6002);
    EXPECT_EQ(r.at("activity_id"), c.activity);
    EXPECT_EQ(r.at("severity_id"), c.severity);
    EXPECT_TRUE(r.at("app").as_object().contains("name"));
    EXPECT_EQ(r.at("unmapped").at("subject"), "thing");
  }
  Event refused;
  refused.kind = Kind::plugin_refused;
  refused.failed = true;
  const json::object r = ocsf(refused);
  EXPECT_EQ(r.at("activity_id"), 3);
  EXPECT_EQ(r.at("status_id"), 2);
}

TEST(OcsfFormat, TheTrailsOwnRecordsAreEventLogActivity) {
  Event dropped;
  dropped.kind = Kind::records_dropped;
  dropped.detail["dropped"] = 5;
  json::object r = ocsf(dropped);
  EXPECT_EQ(r.at("class_uid"), 1008);
  EXPECT_EQ(r.at("category_uid"), 1);
  EXPECT_EQ(r.at("activity_id"), 99);
  EXPECT_EQ(r.at("severity_id"), 4);
  EXPECT_EQ(r.at("device").at("hostname"), "host-1");
  EXPECT_EQ(r.at("unmapped").at("detail").at("dropped"), 5);

  Event reopened;
  reopened.kind = Kind::sink_reopened;
  r = ocsf(reopened);
  EXPECT_EQ(r.at("activity_id"), 5);
  EXPECT_EQ(r.at("activity_name"), "Rotate");

  Event checkpoint;
  checkpoint.kind = Kind::checkpoint;
  EXPECT_EQ(ocsf(checkpoint).at("activity_name"), "Checkpoint");
}

TEST(RecordFormats, EveryKindMakesOneLineWhoseLinkReadsBackInBothFormats) {
  for (int k = 0; k <= static_cast<int>(Kind::sink_reopened); ++k) {
    Event event = tool_call();
    event.kind = static_cast<Kind>(k);
    event.subject = "line\nbreak|pipe=eq\\";
    SCOPED_TRACE(std::string(kind_name(event.kind)));
    EXPECT_NE(kind_name(event.kind), "unknown");
    EXPECT_EQ(kind_from_name(kind_name(event.kind)), event.kind);
    for (const std::string& line : {format_ocsf(event, link(5), kContext), format_cef(event, link(5), kContext)}) {
      EXPECT_EQ(line.find('\n'), std::string::npos) << line;
      const auto parsed = parse_record(line);
      ASSERT_TRUE(parsed) << line;
      EXPECT_EQ(parsed->link.seq, 5u);
      EXPECT_EQ(parsed->kind, kind_name(event.kind));
    }
  }
}

TEST(CefFormat, EscapesHeaderAndExtensionValuesAsCefRequires) {
  EXPECT_EQ(cef_header_escape(R"(a|b\c)"), R"(a\|b\\c)");
  EXPECT_EQ(cef_header_escape("a\nb"), "a b");
  EXPECT_EQ(cef_extension_escape("a=b\\c|d\ne\rf"), R"(a\=b\\c|d\ne\rf)");
}

TEST(CefFormat, AValueFullOfSeparatorsSurvivesTheRoundTrip) {
  const std::string nasty = "|=\\ a=b | c\\=d\\\n\r\\n cs6=x:1:" + std::string(64, '0') + " end\\";
  Event event = tool_call();
  event.subject = nasty;
  event.reason = nasty;
  const std::string line = format_cef(event, link(11), kContext);
  EXPECT_EQ(line.find('\n'), std::string::npos);
  EXPECT_EQ(line.find('\r'), std::string::npos);
  const auto cef = parse_cef(line);
  ASSERT_TRUE(cef);
  ASSERT_NE(cef->find("cs4"), nullptr);
  EXPECT_EQ(*cef->find("cs4"), nasty);
  EXPECT_EQ(*cef->find("cs3"), nasty);
  const auto parsed = parse_cef_record(line);
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->link.replica, "replica-a");
  EXPECT_EQ(parsed->link.seq, 11u);
}

TEST(CefFormat, ToolCallCarriesHeaderAndStandardKeys) {
  const std::string line = format_cef(tool_call(), link(2), kContext);
  EXPECT_THAT(line, StartsWith("CEF:0|airlock|airlock|9.8.7|tool_call|Tool call|1|rt=1700000000123 "));
  EXPECT_THAT(line, EndsWith("cs6Label=airlockChain cs6=replica-a:2:" + std::string(64, 'a')));
  const auto cef = parse_cef(line);
  ASSERT_TRUE(cef);
  EXPECT_EQ(*cef->find("outcome"), "success");
  EXPECT_EQ(*cef->find("act"), "delivered");
  EXPECT_EQ(*cef->find("suser"), "alice");
  EXPECT_EQ(*cef->find("flexString1Label"), "oauthClient");
  EXPECT_EQ(*cef->find("flexString1"), "inspector");
  // Each custom field once: the protocol has a field of its own.
  EXPECT_EQ(line.find("flexString1="), line.rfind("flexString1="));
  EXPECT_EQ(*cef->find("flexString2Label"), "protocol");
  EXPECT_EQ(*cef->find("src"), "192.0.2.7");
  EXPECT_EQ(*cef->find("cs1Label"), "mcpSession");
  EXPECT_EQ(*cef->find("cs1"), "sess-1");
  EXPECT_EQ(*cef->find("cs2"), "42");
  EXPECT_EQ(*cef->find("cn2"), "12");
  EXPECT_EQ(*cef->find("cs5"), R"({"arguments_sha256":")" + std::string(64, 'b') + "\"}");
}

TEST(CefFormat, EgressNamesItsDestination) {
  Event event;
  event.kind = Kind::egress;
  event.failed = true;
  event.outcome = "denied";
  event.destination = "https://evil.example:8443";
  event.address = "203.0.113.9";
  const auto cef = parse_cef(format_cef(event, link(), kContext));
  ASSERT_TRUE(cef);
  EXPECT_EQ(cef->header[6], "3");
  EXPECT_EQ(*cef->find("request"), "https://evil.example:8443");
  EXPECT_EQ(*cef->find("dhost"), "evil.example");
  EXPECT_EQ(*cef->find("dpt"), "8443");
  EXPECT_EQ(*cef->find("dst"), "203.0.113.9");
  EXPECT_EQ(*cef->find("outcome"), "failure");
}

TEST(RecordFormats, ANonRecordLineIsNotRead) {
  EXPECT_FALSE(parse_record(""));
  EXPECT_FALSE(parse_record("hello"));
  EXPECT_FALSE(parse_record("{}"));
  EXPECT_FALSE(parse_record(R"({"metadata":{"event_code":"x"},"unmapped":{"airlock_chain":{"replica":"r","seq":1,"prev":"00"}}})"));
  EXPECT_FALSE(parse_record("CEF:0|airlock|airlock|1|x|y|1|cs6Label=airlockChain cs6=r:1:zz"));
  EXPECT_THAT(format_cef(tool_call(), link(), kContext), Not(HasSubstr("\n")));
}

}  // namespace
}  // namespace airlock::host::audit
