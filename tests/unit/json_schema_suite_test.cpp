// Runs the official JSON-Schema-Test-Suite (Debian's json-schema-test-suite
// package) through SchemaValidator and prints what it accepts and passes.
//
// For each test group the schema is compiled; a refused schema counts as
// refused, never as passed. On an accepted schema every test must give the
// suite's answer, unless it is in kKnownFailures with its reason, and every
// failure must name the keyword that failed.
//
// Skipped: refRemote.json (airlock never fetches schemas, so each group would
// be refused for the same reason) and optional/format/ (format is an
// annotation in airlock). The other optional/ files run, in their own rows.
#include "schema/schema_validator.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace airlock::host {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;

// Tests where airlock's answer differs from the suite's, on purpose, and why.
// Each entry names the runs it applies to and must happen in each of them,
// so the list cannot go stale.
struct KnownFailure {
  std::vector<std::string> runs;
  std::string test;  // "file / group / test"
  std::string reason;
};

const std::vector<std::string> kDraft7Runs = {"draft7", "draft7 without $schema"};

const std::vector<KnownFailure> kKnownFailures = {
    {kDraft7Runs,
     "optional/content.json / validation of string-encoded content based on media type / an invalid JSON document",
     "contentMediaType is an annotation in airlock, as in 2020-12"},
    {kDraft7Runs,
     "optional/content.json / validation of binary string-encoding / an invalid base64 string (% is not a valid "
     "character)",
     "contentEncoding is an annotation in airlock, as in 2020-12"},
    {kDraft7Runs,
     "optional/content.json / validation of binary-encoded media type documents / a validly-encoded invalid JSON "
     "document",
     "contentMediaType is an annotation in airlock, as in 2020-12"},
    {kDraft7Runs,
     "optional/content.json / validation of binary-encoded media type documents / an invalid base64 string that "
     "is valid JSON",
     "contentEncoding is an annotation in airlock, as in 2020-12"},
    {kDraft7Runs,
     "optional/ecmascript-regex.json / ECMA 262 regex non-compliance / ECMA 262 has no support for \\Z anchor "
     "from .NET",
     "format (here \"regex\") is an annotation in airlock"},
    {{"draft7 without $schema"}, "ref.json / ref overrides any sibling keywords / ref valid, maxItems ignored",
     "with no $schema airlock applies $ref's siblings, as 2019-09 and later do; draft-07 ignores them"},
};

bool is_known_failure(const std::string& run, const std::string& test) {
  return std::any_of(kKnownFailures.begin(), kKnownFailures.end(), [&](const KnownFailure& k) {
    return k.test == test && std::find(k.runs.begin(), k.runs.end(), run) != k.runs.end();
  });
}

struct FileStats {
  int groups_accepted = 0;
  int groups_refused = 0;
  int groups_not_object = 0;  // boolean root schemas: a tool schema is always an object
  int tests_run = 0;
  int tests_passed = 0;
  int known_failures = 0;
};

// What a refusal is about, for the summary: the keyword it names, or its subject.
std::string refusal_reason(const std::string& message) {
  const std::string_view keyword_marker = "uses keyword '";
  if (auto at = message.find(keyword_marker); at != std::string::npos) {
    const auto start = at + keyword_marker.size();
    return message.substr(start, message.find('\'', start) - start);
  }
  const std::pair<std::string_view, std::string_view> subjects[] = {
      {"regular expression", "regex RE2 cannot run"},
      {"outside this schema", "$ref to another document"},
      {"names an anchor", "$ref to an anchor"},
      {"points to nothing", "$ref to nothing"},
      {"loops back", "$ref cycle"},
      {"$id", "$id below the root"},
      {"is only supported at the root", "$schema below the root"},
      {"is not a dialect", "unknown $schema"},
  };
  for (const auto& [marker, label] : subjects)
    if (message.find(marker) != std::string::npos) return std::string(label);
  return message;
}

json::value read_json(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  json::parse_options options;
  options.max_depth = 256;
  return json::parse(text.str(), {}, options);
}

std::vector<fs::path> suite_files(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const fs::path& d : {dir, dir / "optional"}) {
    if (!fs::is_directory(d)) continue;
    for (const auto& e : fs::directory_iterator(d))
      if (e.is_regular_file() && e.path().extension() == ".json" && e.path().filename() != "refRemote.json")
        files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

struct DraftReport {
  bool present = false;
  std::set<std::string> known_hit;
  std::map<std::string, FileStats> files;
  std::map<std::string, int> refusals;  // reason -> groups
  std::vector<std::string> wrong;       // wrong answers not in kKnownFailures
  std::vector<std::string> unlocated;   // failures that name no keyword
};

// Runs one draft's files. `schema_uri` goes into every schema that has no
// $schema; empty leaves them as they are, in airlock's MCP-default dialect.
DraftReport run_draft(const std::string& run, const fs::path& dir, const std::string& schema_uri) {
  DraftReport report;
  if (!fs::is_directory(dir)) return report;
  report.present = true;
  for (const fs::path& file : suite_files(dir)) {
    const std::string name =
        file.parent_path().filename() == "optional" ? "optional/" + file.filename().string() : file.filename().string();
    FileStats& stats = report.files[name];
    const json::value groups = read_json(file);
    for (const auto& group_value : groups.as_array()) {
      const auto& group = group_value.as_object();
      const std::string group_name(group.at("description").as_string());
      if (!group.at("schema").is_object()) {
        ++stats.groups_not_object;
        continue;
      }
      json::object schema = group.at("schema").as_object();
      if (!schema_uri.empty() && !schema.contains("$schema")) schema["$schema"] = schema_uri;
      auto compiled = SchemaValidator::compile(schema);
      if (!compiled) {
        ++stats.groups_refused;
        ++report.refusals[refusal_reason(compiled.error().message)];
        continue;
      }
      ++stats.groups_accepted;
      for (const auto& test_value : group.at("tests").as_array()) {
        const auto& test = test_value.as_object();
        const std::string id =
            fmt::format("{} / {} / {}", name, group_name, std::string(test.at("description").as_string()));
        const bool expected = test.at("valid").as_bool();
        const auto failure = (*compiled)->validate(test.at("data"));
        ++stats.tests_run;
        if (failure.has_value() != expected) {
          ++stats.tests_passed;
        } else if (is_known_failure(run, id)) {
          ++stats.known_failures;
          report.known_hit.insert(id);
        } else {
          report.wrong.push_back(fmt::format("{}: {} (expected {}, schema {}, data {})", run, id, expected ? "valid" : "invalid", json::serialize(schema),
                                             json::serialize(test.at("data"))));
        }
        if (failure && failure->keyword.empty()) report.unlocated.push_back(run + ": " + id);
      }
    }
  }
  return report;
}

// Prints the per-file table and the summary line.
void print_report(const std::string& run, const DraftReport& report) {
  std::cout << fmt::format("\n{:<40} {:>8} {:>8} {:>5} {:>13}\n", "json-schema-suite " + run, "accepted",
                           "refused", "n/a", "tests passed");
  FileStats required, optional;
  for (const auto& [name, s] : report.files) {
    std::cout << fmt::format("{:<40} {:>8} {:>8} {:>5} {:>7}/{:<5}{}\n", name, s.groups_accepted, s.groups_refused,
                             s.groups_not_object, s.tests_passed, s.tests_run,
                             s.known_failures ? fmt::format(" ({} known)", s.known_failures) : "");
    FileStats& total = name.starts_with("optional/") ? optional : required;
    total.groups_accepted += s.groups_accepted;
    total.groups_refused += s.groups_refused;
    total.groups_not_object += s.groups_not_object;
    total.tests_run += s.tests_run;
    total.tests_passed += s.tests_passed;
    total.known_failures += s.known_failures;
  }
  std::string reasons;
  for (const auto& [reason, n] : report.refusals)
    reasons += fmt::format("{}{} x{}", reasons.empty() ? "" : ", ", reason, n);
  std::cout << fmt::format(
      "json-schema-suite {}: {}/{} tests on accepted schemas passed; {} groups refused (keywords: {})\n"
      "  required files: {}/{} tests passed, {} groups accepted, {} refused; optional files: {}/{} passed "
      "({} known failures), {} groups accepted, {} refused; {} boolean root schemas not applicable\n\n",
      run, required.tests_passed + optional.tests_passed, required.tests_run + optional.tests_run,
      required.groups_refused + optional.groups_refused, reasons.empty() ? "none" : reasons, required.tests_passed,
      required.tests_run, required.groups_accepted, required.groups_refused, optional.tests_passed,
      optional.tests_run, optional.known_failures + required.known_failures, optional.groups_accepted,
      optional.groups_refused, required.groups_not_object + optional.groups_not_object);
}

// The suite's root: AIRLOCK_JSON_SCHEMA_SUITE_DIR in the environment (say, an
// upstream checkout with the 2019-09 and 2020-12 tests Debian's 2.0.0 lacks),
// else what CMake found.
std::optional<fs::path> suite_root() {
  if (const char* env = std::getenv("AIRLOCK_JSON_SCHEMA_SUITE_DIR"); env && *env) return fs::path(env);
#ifdef AIRLOCK_JSON_SCHEMA_SUITE_DIR
  return fs::path(AIRLOCK_JSON_SCHEMA_SUITE_DIR);
#else
  return std::nullopt;
#endif
}

void check_draft(const std::string& run, const std::string& draft, const std::string& schema_uri) {
  const auto root = suite_root();
  if (!root) GTEST_SKIP() << "the JSON-Schema-Test-Suite was not found (Debian: json-schema-test-suite)";
  const fs::path dir = *root / "tests" / draft;
  const DraftReport report = run_draft(run, dir, schema_uri);
  if (!report.present) GTEST_SKIP() << "this copy of the suite has no " << draft << " tests (" << dir << ")";
  print_report(run, report);
  for (const auto& w : report.wrong) ADD_FAILURE() << "wrong answer on an accepted schema: " << w;
  for (const auto& u : report.unlocated) ADD_FAILURE() << "failure names no keyword: " << u;
  // The list was written against Debian's copy; another copy may word or drop tests.
  if (std::getenv("AIRLOCK_JSON_SCHEMA_SUITE_DIR")) return;
  for (const auto& k : kKnownFailures)
    if (std::find(k.runs.begin(), k.runs.end(), run) != k.runs.end() && !report.known_hit.contains(k.test))
      ADD_FAILURE() << "known failure no longer happens in " << run << ", remove it: " << k.test;
}

TEST(JsonSchemaSuite, Draft202012GivesNoWrongAnswerOnAcceptedSchemas) {
  check_draft("draft2020-12", "draft2020-12", "https://json-schema.org/draft/2020-12/schema");
}

TEST(JsonSchemaSuite, Draft201909GivesNoWrongAnswerOnAcceptedSchemas) {
  check_draft("draft2019-09", "draft2019-09", "https://json-schema.org/draft/2019-09/schema");
}

TEST(JsonSchemaSuite, Draft7GivesNoWrongAnswerOnAcceptedSchemas) {
  check_draft("draft7", "draft7", "http://json-schema.org/draft-07/schema#");
}

// The same files with no $schema, as MCP tools usually send them: airlock's
// default dialect (2020-12 that also checks draft-07 spellings).
TEST(JsonSchemaSuite, Draft7SchemasWithoutSchemaKeywordGiveNoWrongAnswer) {
  check_draft("draft7 without $schema", "draft7", "");
}

}  // namespace
}  // namespace airlock::host
