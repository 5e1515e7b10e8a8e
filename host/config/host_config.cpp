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

#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>
#include <toml++/toml.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <limits>
#include <memory>
#include <sstream>
#include <system_error>
#include <tuple>
#include <utility>

namespace airlock::host {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;

constexpr std::int64_t kNoUpperLimit = std::numeric_limits<std::int64_t>::max();

template <class T>
struct Choice {
  std::string_view name;
  T value;
};

constexpr std::array<Choice<std::string_view>, 6> kLogLevels{{{"trace", "trace"},
                                                              {"debug", "debug"},
                                                              {"info", "info"},
                                                              {"warn", "warn"},
                                                              {"error", "error"},
                                                              {"off", "off"}}};
constexpr std::array<Choice<Mirror>, 2> kMirrors{{{"text", Mirror::text}, {"none", Mirror::none}}};
constexpr std::array<Choice<OnPluginError>, 2> kOnPluginError{
    {{"fail", OnPluginError::fail}, {"skip", OnPluginError::skip}}};

// Chain names share TOML's bare-key alphabet, so a chain can always be named
// without quotes, and a key in that alphabet is shown without them.
bool is_plain_name(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '-';
  });
}

// JSON string syntax is TOML basic-string syntax for everything a key can hold.
std::string quote(std::string_view text) { return json::serialize(json::string_view(text)); }

// A key as it would be written in a dotted path: acme, or "acme.search".
std::string key_text(std::string_view key) {
  return is_plain_name(key) ? std::string(key) : quote(key);
}

// A value as toml++ writes it: 4.5, true, 1979-05-27T07:32:00Z.
std::string toml_text(const toml::node& node) {
  std::ostringstream out;
  node.visit([&out](const auto& value) { out << value; });
  return out.str();
}

// The value that was found, for "expected ..., got <this>".
std::string value_text(const toml::node& node) {
  if (node.is_table()) return "a table";
  if (node.is_array()) return "an array";
  if (const auto* text = node.as_string()) return quote(text->get());
  return toml_text(node);
}

template <class T, std::size_t N>
std::string choices_text(const std::array<Choice<T>, N>& choices) {
  std::string text;
  for (std::size_t i = 0; i < N; ++i) {
    if (i > 0) text += (i + 1 == N) ? " or " : ", ";
    text += quote(choices[i].name);
  }
  return text;
}

std::string integer_range_text(std::int64_t min, std::int64_t max) {
  if (max == kNoUpperLimit) return "an integer of at least " + std::to_string(min);
  return "an integer from " + std::to_string(min) + " to " + std::to_string(max);
}

// "HOST:PORT" or "[v6]:PORT". The host itself is left to the resolver; an
// unbracketed host with a colon is refused because its port would be ambiguous.
bool is_listen_address(std::string_view address) {
  std::string_view host;
  std::string_view port;
  if (address.starts_with('[')) {
    const auto close = address.find("]:");
    if (close == std::string_view::npos) return false;
    host = address.substr(1, close - 1);
    port = address.substr(close + 2);
  } else {
    const auto colon = address.rfind(':');
    if (colon == std::string_view::npos) return false;
    host = address.substr(0, colon);
    port = address.substr(colon + 1);
    if (host.find(':') != std::string_view::npos) return false;
  }
  unsigned number = 0;
  const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), number);
  return !host.empty() && !port.empty() && ec == std::errc{} && end == port.data() + port.size() &&
         number >= 1 && number <= 65535;
}

// Plugin tables reach plugins as JSON. Dates and times have no JSON form, so
// they travel as the text TOML would write for them.
json::value to_json(const toml::node& node);

json::object to_json_object(const toml::table& table) {
  json::object object;
  for (const auto& [key, value] : table) object.emplace(key.str(), to_json(value));
  return object;
}

json::value to_json(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::table:
      return to_json_object(*node.as_table());
    case toml::node_type::array: {
      json::array array;
      for (const auto& element : *node.as_array()) array.push_back(to_json(element));
      return array;
    }
    case toml::node_type::string:
      return json::value(node.as_string()->get());
    case toml::node_type::integer:
      return json::value(node.as_integer()->get());
    case toml::node_type::floating_point:
      return json::value(node.as_floating_point()->get());
    case toml::node_type::boolean:
      return json::value(node.as_boolean()->get());
    case toml::node_type::date:
    case toml::node_type::time:
    case toml::node_type::date_time:
      return json::value(toml_text(node));
    case toml::node_type::none:
      break;
  }
  return nullptr;
}

// A problem found in the document; only the earliest one is reported.
struct Problem {
  std::uint32_t line;
  std::uint32_t column;
  std::string message;
};

// Walks one parsed document into a Config, recording every problem it meets.
class ConfigReader {
 public:
  explicit ConfigReader(const fs::path& file) : file_(file.string()) {
    std::error_code ec;
    config_.file = fs::absolute(file, ec).lexically_normal();
    if (ec) config_.file = file.lexically_normal();
  }

  // One use per reader: the Config is moved out.
  Result<Config> read(const toml::table& root) && {
    for (const auto& [key, node] : root) {
      const std::string name(key.str());
      if (name == "server") {
        if (const auto* table = table_value(node, name)) read_server(*table);
      } else if (name == "transport") {
        if (const auto* table = table_value(node, name)) read_transport(*table);
      } else if (name == "plugins") {
        if (const auto* table = table_value(node, name)) read_plugins(*table);
      } else if (name == "chains") {
        if (const auto* table = table_value(node, name)) read_chains(*table);
      } else if (name == "tools") {
        if (const auto* table = table_value(node, name)) read_tools(*table);
      } else if (name == "plugin") {
        if (const auto* table = table_value(node, name)) read_plugin_settings(*table);
      } else {
        report_unknown_key(key, "");
      }
    }
    check_chain_references(root);

    if (!problems_.empty()) {
      const auto first = std::min_element(
          problems_.begin(), problems_.end(), [](const Problem& a, const Problem& b) {
            return std::tie(a.line, a.column) < std::tie(b.line, b.column);
          });
      return Error{std::move(first->message)};
    }
    // The first matching binding wins, so bindings keep the order written;
    // toml++ hands them over sorted by name instead.
    std::stable_sort(config_.tools.begin(), config_.tools.end(),
                     [](const ToolBinding& a, const ToolBinding& b) {
                       return std::tie(a.place.line, a.place.column) <
                              std::tie(b.place.line, b.place.column);
                     });
    return std::move(config_);
  }

 private:
  void read_server(const toml::table& table) {
    auto& server = config_.server;
    for (const auto& [key, node] : table) {
      const std::string name(key.str());
      const std::string path = "server." + key_text(name);
      if (name == "name") {
        if (auto value = string_value(node, path)) server.name = std::move(*value);
      } else if (name == "log_level") {
        if (auto value = choice_value(node, path, kLogLevels)) server.log_level = *value;
      } else if (name == "max_message_bytes") {
        if (auto value = integer_value(node, path, 1024, kNoUpperLimit))
          server.max_message_bytes = static_cast<std::size_t>(*value);
      } else if (name == "workers") {
        if (auto value = integer_value(node, path, 1, 256))
          server.workers = static_cast<std::uint32_t>(*value);
      } else if (name == "queue_capacity") {
        if (auto value = integer_value(node, path, 1, 1'000'000))
          server.queue_capacity = static_cast<std::uint32_t>(*value);
      } else if (name == "page_size") {
        if (auto value = integer_value(node, path, 1, 10'000))
          server.page_size = static_cast<std::uint32_t>(*value);
      } else if (name == "mirror") {
        if (auto value = choice_value(node, path, kMirrors)) server.mirror = *value;
      } else if (name == "max_result_bytes") {
        if (auto value = integer_value(node, path, 1024, kNoUpperLimit))
          server.max_result_bytes = static_cast<std::size_t>(*value);
      } else if (name == "sanitizer_timeout_ms") {
        if (auto value = integer_value(node, path, 1, 600'000))
          server.sanitizer_timeout_ms = static_cast<std::uint32_t>(*value);
      } else {
        report_unknown_key(key, "server");
      }
    }
  }

  void read_transport(const toml::table& table) {
    for (const auto& [key, node] : table) {
      if (key.str() == "http") {
        if (const auto* http = table_value(node, "transport.http")) read_http(*http);
      } else {
        report_unknown_key(key, "transport");
      }
    }
  }

  void read_http(const toml::table& table) {
    auto& http = config_.http;
    for (const auto& [key, node] : table) {
      const std::string name(key.str());
      const std::string path = "transport.http." + key_text(name);
      if (name == "listen") {
        auto value = string_value(node, path);
        if (value && !is_listen_address(*value)) {
          report(place(node, path), "expected \"HOST:PORT\" or \"[IPV6]:PORT\" with a port from 1 "
                                    "to 65535, got " + quote(*value));
        } else if (value) {
          http.listen = std::move(*value);
        }
      } else if (name == "path") {
        auto value = string_value(node, path);
        if (value && !value->starts_with('/')) {
          report(place(node, path), "expected a path starting with '/', got " + quote(*value));
        } else if (value) {
          http.path = std::move(*value);
        }
      } else {
        report_unknown_key(key, "transport.http");
      }
    }
  }

  void read_plugins(const toml::table& table) {
    auto& plugins = config_.plugins;
    for (const auto& [key, node] : table) {
      const std::string name(key.str());
      const std::string path = "plugins." + key_text(name);
      if (name == "dirs") {
        for (const auto& dir : string_list(node, path)) plugins.dirs.push_back(resolve(dir.first));
      } else if (name == "on_error") {
        if (auto value = choice_value(node, path, kOnPluginError)) plugins.on_error = *value;
      } else {
        report_unknown_key(key, "plugins");
      }
    }
  }

  void read_chains(const toml::table& chains) {
    for (const auto& [key, node] : chains) {
      const std::string name(key.str());
      const std::string path = "chains." + key_text(name);
      const auto* table = table_value(node, path);
      if (!table) continue;
      if (name == "none") {
        report(place(key.source(), path), "\"none\" is reserved for opting a tool out of every "
                                          "chain and cannot name a chain");
        continue;
      }
      if (!is_plain_name(name)) {
        report(place(key.source(), path),
               "a chain name may hold only letters, digits, '_' and '-'");
        continue;
      }
      read_chain(name, *table, path);
    }
  }

  void read_chain(const std::string& name, const toml::table& table, const std::string& path) {
    ChainConfig chain;
    chain.name = name;
    chain.place = place(table, path);
    if (!table.contains("steps")) report(chain.place, "missing key 'steps'");
    for (const auto& [key, node] : table) {
      if (key.str() != "steps") {
        report_unknown_key(key, path);
        continue;
      }
      for (auto& [step, where] : string_list(node, path + ".steps")) {
        chain.steps.push_back(std::move(step));
        chain.step_places.push_back(std::move(where));
      }
    }
    config_.chains.emplace(name, std::move(chain));
  }

  void read_tools(const toml::table& tools) {
    for (const auto& [key, node] : tools) {
      const std::string pattern(key.str());
      const std::string path = "tools." + key_text(pattern);
      const auto* table = table_value(node, path);
      if (!table) continue;
      if (pattern.empty()) {
        report(place(key.source(), path), "a tool name or glob cannot be empty");
        continue;
      }
      read_binding(pattern, *table, path);
    }
  }

  void read_binding(const std::string& pattern, const toml::table& table,
                    const std::string& path) {
    ToolBinding binding;
    binding.pattern = pattern;
    binding.place = place(table, path);
    for (const auto& [key, node] : table) {
      const std::string name(key.str());
      const std::string field = path + "." + key_text(name);
      if (name == "chain") {
        binding.chain = string_value(node, field);
        binding.chain_place = place(node, field);
      } else if (name == "timeout_ms") {
        if (auto value = integer_value(node, field, 1, 86'400'000))
          binding.timeout_ms = static_cast<std::uint32_t>(*value);
      } else if (name == "mirror") {
        binding.mirror = choice_value(node, field, kMirrors);
      } else if (name == "max_result_bytes") {
        if (auto value = integer_value(node, field, 1024, kNoUpperLimit))
          binding.max_result_bytes = static_cast<std::size_t>(*value);
      } else if (node.is_table()) {
        // [tools.acme.search] reads as tool "acme" with a key "search".
        report_unknown_key(key, path,
                           " (quote a tool name that holds a dot: [tools." +
                               quote(pattern + "." + name) + "])");
      } else {
        report_unknown_key(key, path);
      }
    }
    config_.tools.push_back(std::move(binding));
  }

  void read_plugin_settings(const toml::table& plugins) {
    for (const auto& [key, node] : plugins) {
      const std::string path = "plugin." + key_text(key.str());
      const auto* table = table_value(node, path);
      if (!table) continue;
      config_.plugin_settings.emplace(key.str(), to_json_object(*table));
      config_.plugin_setting_places.emplace(key.str(), place(*table, path));
    }
  }

  // Checked against the document rather than config_.chains, so a chain that
  // is declared but invalid is reported once, for what is wrong with it.
  void check_chain_references(const toml::table& root) {
    const auto* chains = root["chains"].as_table();
    for (const auto& binding : config_.tools) {
      if (!binding.chain || *binding.chain == "none") continue;
      if (chains && chains->contains(*binding.chain)) continue;
      report(binding.chain_place, "chain " + quote(*binding.chain) + " is not declared");
    }
  }

  // --- values: each returns the value, or records why not and returns nothing

  const toml::table* table_value(const toml::node& node, const std::string& path) {
    if (const auto* table = node.as_table()) return table;
    report(place(node, path), "expected a table, got " + value_text(node));
    return nullptr;
  }

  std::optional<std::string> string_value(const toml::node& node, const std::string& path) {
    if (const auto* text = node.as_string()) return text->get();
    report(place(node, path), "expected a string, got " + value_text(node));
    return std::nullopt;
  }

  std::optional<std::int64_t> integer_value(const toml::node& node, const std::string& path,
                                            std::int64_t min, std::int64_t max) {
    const auto* integer = node.as_integer();
    if (integer && integer->get() >= min && integer->get() <= max) return integer->get();
    report(place(node, path),
           "expected " + integer_range_text(min, max) + ", got " + value_text(node));
    return std::nullopt;
  }

  template <class T, std::size_t N>
  std::optional<T> choice_value(const toml::node& node, const std::string& path,
                                const std::array<Choice<T>, N>& choices) {
    if (const auto* text = node.as_string()) {
      for (const auto& choice : choices)
        if (choice.name == text->get()) return choice.value;
    }
    report(place(node, path), "expected " + choices_text(choices) + ", got " + value_text(node));
    return std::nullopt;
  }

  // An array of non-empty strings, each with where it was written. Problems
  // drop the offending elements; the result is discarded anyway.
  std::vector<std::pair<std::string, SourcePlace>> string_list(const toml::node& node,
                                                               const std::string& path) {
    std::vector<std::pair<std::string, SourcePlace>> list;
    const auto* array = node.as_array();
    if (!array) {
      report(place(node, path), "expected an array of strings, got " + value_text(node));
      return list;
    }
    for (std::size_t i = 0; i < array->size(); ++i) {
      const auto& element = *array->get(i);
      SourcePlace where = place(element, path + "[" + std::to_string(i) + "]");
      const auto* text = element.as_string();
      if (!text || text->get().empty()) {
        report(where, "expected a non-empty string, got " + value_text(element));
        continue;
      }
      list.emplace_back(text->get(), std::move(where));
    }
    return list;
  }

  // --- places and problems

  fs::path resolve(const std::string& dir) const {
    const fs::path path(dir);
    if (path.is_absolute()) return path.lexically_normal();
    return (config_.file.parent_path() / path).lexically_normal();
  }

  SourcePlace place(const toml::source_region& region, std::string path) const {
    return SourcePlace{file_, region.begin.line, region.begin.column, std::move(path)};
  }
  SourcePlace place(const toml::node& node, std::string path) const {
    return place(node.source(), std::move(path));
  }

  // "<file>:<line>:<column>: <key>: <what>"
  void report(const SourcePlace& where, std::string_view what) {
    problems_.push_back(Problem{where.line, where.column,
                                where.describe() + ": " + where.key + ": " + std::string(what)});
  }

  // "<file>:<line>:<column>: unknown key '<key>' in [<table>]"; the root has no table.
  void report_unknown_key(const toml::key& key, std::string_view table,
                          std::string_view hint = {}) {
    const auto& at = key.source().begin;
    std::string message = SourcePlace{file_, at.line, at.column, {}}.describe() +
                          ": unknown key '" + std::string(key.str()) + "'";
    if (!table.empty()) message += " in [" + std::string(table) + "]";
    message += hint;
    problems_.push_back(Problem{at.line, at.column, std::move(message)});
  }

  std::string file_;  // as given, for messages
  Config config_;
  std::vector<Problem> problems_;
};

// toml++ describes problems as sentences ("Error while parsing ..."); the house
// form is lowercase, so only a leading capital that starts a word is lowered.
std::string house_form(std::string_view description) {
  std::string text(description);
  if (text.size() > 1 && text[0] >= 'A' && text[0] <= 'Z' && text[1] >= 'a' && text[1] <= 'z')
    text[0] = static_cast<char>(text[0] - 'A' + 'a');
  while (!text.empty() && (text.back() == '.' || text.back() == '\n')) text.pop_back();
  return text;
}

struct FileCloser {
  void operator()(std::FILE* stream) const { std::fclose(stream); }
};

// stdio rather than iostreams because errno then holds the real reason
// (missing, not permitted, a directory) for the message.
Result<std::string> read_file(const fs::path& file) {
  const auto cannot_read = [&file](int error) {
    return Error{file.string() + ": cannot read: " + std::generic_category().message(error)};
  };
  errno = 0;
  const std::unique_ptr<std::FILE, FileCloser> stream(std::fopen(file.c_str(), "rb"));
  if (!stream) return cannot_read(errno);
  std::string text;
  std::array<char, 64 * 1024> buffer{};
  while (const auto count = std::fread(buffer.data(), 1, buffer.size(), stream.get()))
    text.append(buffer.data(), count);
  if (std::ferror(stream.get())) return cannot_read(errno);
  // Error is constructible from a string too, so the value needs naming.
  return Result<std::string>(boost::system::in_place_value, std::move(text));
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

}  // namespace airlock::host
