#include "check/check_report.hpp"

#include "util/utf8.hpp"

#include <boost/json/array.hpp>
#include <fmt/format.h>

#include <algorithm>

namespace airlock::host::check {
namespace {

// Display strings are cut to this many characters in the text report; the
// JSON report keeps what show() kept.
constexpr std::size_t kTextReportWidth = 240;

const char* verdict_word(Verdict v) {
  switch (v) {
    case Verdict::pass: return "PASS";
    case Verdict::fail: return "FAIL";
    case Verdict::skip: return "SKIP";
  }
  return "?";
}

const char* verdict_json(Verdict v) {
  switch (v) {
    case Verdict::pass: return "pass";
    case Verdict::fail: return "fail";
    case Verdict::skip: return "skip";
  }
  return "?";
}

// Length of the well-formed UTF-8 sequence at `p`, and its code point; 0 if
// it is not one (RFC 3629: no overlong forms, no surrogates, <= U+10FFFF).
std::size_t utf8_sequence(std::string_view s, std::size_t i, std::uint32_t& cp) {
  const auto c = static_cast<unsigned char>(s[i]);
  std::size_t extra;
  std::uint32_t min;
  if (c < 0x80) {
    cp = c;
    return 1;
  } else if ((c & 0xe0) == 0xc0) {
    extra = 1, min = 0x80, cp = c & 0x1f;
  } else if ((c & 0xf0) == 0xe0) {
    extra = 2, min = 0x800, cp = c & 0x0f;
  } else if ((c & 0xf8) == 0xf0) {
    extra = 3, min = 0x10000, cp = c & 0x07;
  } else {
    return 0;
  }
  if (i + extra >= s.size()) return 0;
  for (std::size_t k = 1; k <= extra; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (b & 0x3f);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  return extra + 1;
}

std::string clip(const std::string& display, std::size_t width) {
  if (display.size() <= width) return display;
  return display.substr(0, width) + "…";
}

std::size_t count_checks(const std::vector<PluginReport>& reports, Verdict v) {
  std::size_t n = 0;
  for (const auto& r : reports) {
    if (v == Verdict::fail && r.load_error) ++n;
    for (const auto& c : r.components)
      n += static_cast<std::size_t>(
          std::count_if(c.checks.begin(), c.checks.end(), [v](const CheckResult& k) { return k.verdict == v; }));
  }
  return n;
}

void render_failure(std::string& out, const CheckResult& check) {
  if (!check.example) return;
  const Counterexample& e = *check.example;
  const std::size_t pad = std::max({std::size_t{5}, e.first_label.size(), e.second_label.size()}) + 1;
  std::string input = clip(show(e.input), kTextReportWidth);
  if (e.shrunk) input += fmt::format(" (shrunk from {} bytes)", e.found_bytes);
  out += fmt::format("        {:<{}} {}\n", "input:", pad, input);
  if (!e.first_label.empty()) out += fmt::format("        {:<{}} {}\n", e.first_label + ":", pad, clip(e.first, kTextReportWidth));
  if (!e.second_label.empty())
    out += fmt::format("        {:<{}} {}\n", e.second_label + ":", pad, clip(e.second, kTextReportWidth));
}

}  // namespace

bool ComponentReport::passed() const { return first_failure() == nullptr; }

const CheckResult* ComponentReport::first_failure() const {
  for (const auto& c : checks)
    if (c.verdict == Verdict::fail) return &c;
  return nullptr;
}

bool PluginReport::passed() const {
  if (load_error) return false;
  return std::all_of(components.begin(), components.end(), [](const ComponentReport& c) { return c.passed(); });
}

std::string escape_bytes(std::string_view bytes, std::size_t limit) {
  std::string out;
  const std::size_t n = std::min(bytes.size(), limit);
  out.reserve(n + n / 4);
  for (std::size_t i = 0; i < n;) {
    const auto c = static_cast<unsigned char>(bytes[i]);
    std::uint32_t cp = 0;
    const std::size_t len = utf8_sequence(bytes, i, cp);
    if (len == 0) {
      out += fmt::format("\\x{:02x}", c);
      ++i;
      continue;
    }
    if (len == 1) {
      switch (c) {
        case '\\': out += "\\\\"; break;
        case '"': out += "\\\""; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        default:
          if (c >= 0x20 && c < 0x7f) {
            out.push_back(static_cast<char>(c));
          } else {
            out += fmt::format("\\x{:02x}", c);
          }
      }
    } else {
      out += fmt::format("\\u{{{:04X}}}", cp);
    }
    i += len;
  }
  if (bytes.size() > limit) out += fmt::format("… ({} bytes)", bytes.size());
  return out;
}

std::string show(std::string_view bytes, std::size_t limit) { return "\"" + escape_bytes(bytes, limit) + "\""; }

std::string format_duration(std::chrono::nanoseconds d) {
  const double ns = static_cast<double>(d.count());
  if (ns >= 1e9) return fmt::format("{:.2f} s", ns / 1e9);
  if (ns >= 1e6) return fmt::format("{:.1f} ms", ns / 1e6);
  return fmt::format("{:.0f} µs", ns / 1e3);
}

std::string summary_line(const std::vector<PluginReport>& reports) {
  std::size_t components = 0;
  std::chrono::nanoseconds total{};
  for (const auto& r : reports) {
    components += r.components.size();
    total += r.elapsed;
  }
  const std::size_t passed = count_checks(reports, Verdict::pass);
  const std::size_t failed = count_checks(reports, Verdict::fail);
  const std::size_t skipped = count_checks(reports, Verdict::skip);
  return fmt::format("{} plugin{}, {} component{}, {} checks: {} passed, {} failed, {} skipped in {}",
                     reports.size(), reports.size() == 1 ? "" : "s", components, components == 1 ? "" : "s",
                     passed + failed + skipped, passed, failed, skipped, format_duration(total));
}

std::string render_plugin_text(const PluginReport& plugin) {
  std::string out;
  if (plugin.load_error) return fmt::format("{}\n  FAIL  load  {}\n", plugin.file, *plugin.load_error);
  out += fmt::format("{}  ({}{}{})\n", plugin.file, plugin.plugin, plugin.version.empty() ? "" : " ", plugin.version);
  if (!plugin.isolation.empty()) out += fmt::format("  isolation: {}\n", plugin.isolation);
  if (plugin.components.empty()) out += "  (registers no tools or sanitizers: nothing to check)\n";
  for (const auto& component : plugin.components) {
    std::size_t width = 0;
    for (const auto& c : component.checks) width = std::max(width, c.check.size());
    for (const auto& c : component.checks) {
      out += fmt::format("  {}  {}  {:<{}}  ", verdict_word(c.verdict), component.name, c.check, width);
      if (c.verdict == Verdict::pass) {
        out += fmt::format("{:>5} cases  {:>9}", c.cases, format_duration(c.elapsed));
        if (!c.detail.empty()) out += "  (" + c.detail + ")";
      } else {
        out += c.detail;
        if (c.verdict == Verdict::fail) out += fmt::format("  [{} cases, {}]", c.cases, format_duration(c.elapsed));
      }
      out += "\n";
      if (c.verdict == Verdict::fail) render_failure(out, c);
    }
    std::size_t failed = 0, passed = 0, skipped = 0;
    for (const auto& c : component.checks) {
      failed += c.verdict == Verdict::fail;
      passed += c.verdict == Verdict::pass;
      skipped += c.verdict == Verdict::skip;
    }
    out += fmt::format("  {} {} {} ({}): {} passed, {} failed, {} skipped; check took {}, slowest call {}\n",
                       failed ? "xxxx" : "----", component.name, failed ? "FAILED" : "ok", component.kind, passed,
                       failed, skipped, format_duration(component.elapsed), format_duration(component.slowest_call));
  }
  return out;
}

std::string render_header(std::uint64_t seed) { return fmt::format("airlock check (seed {})\n", seed); }

std::string render_summary(const std::vector<PluginReport>& reports) {
  return "summary: " + summary_line(reports) + (count_checks(reports, Verdict::fail) ? " — FAILED\n" : " — ok\n");
}

std::string render_text(const std::vector<PluginReport>& reports, std::uint64_t seed) {
  std::string out = render_header(seed);
  for (const auto& plugin : reports) out += render_plugin_text(plugin);
  return out + render_summary(reports);
}

boost::json::object to_json(const std::vector<PluginReport>& reports, std::uint64_t seed) {
  boost::json::array plugins;
  for (const auto& plugin : reports) {
    boost::json::object p{{"file", plugin.file},
                          {"plugin", plugin.plugin},
                          {"version", plugin.version},
                          {"isolation", plugin.isolation},
                          {"passed", plugin.passed()},
                          {"elapsed_ms", static_cast<double>(plugin.elapsed.count()) / 1e6}};
    // The reason may quote the plugin's own init error, bytes of any kind.
    if (plugin.load_error)
      p["load_error"] = valid_utf8(*plugin.load_error) ? *plugin.load_error
                                                       : escape_bytes(*plugin.load_error, plugin.load_error->size());
    boost::json::array components;
    for (const auto& component : plugin.components) {
      boost::json::array checks;
      for (const auto& c : component.checks) {
        boost::json::object check{{"check", c.check},
                                  {"verdict", verdict_json(c.verdict)},
                                  {"detail", c.detail},
                                  {"cases", c.cases},
                                  {"elapsed_ms", static_cast<double>(c.elapsed.count()) / 1e6}};
        if (c.example) {
          const Counterexample& e = *c.example;
          boost::json::object example{{"input", escape_bytes(e.input, 64 * 1024)},
                                      {"input_bytes", e.input.size()},
                                      {"shrunk", e.shrunk},
                                      {"found_bytes", e.found_bytes}};
          if (!e.first_label.empty()) example["outputs"] = boost::json::array{
              boost::json::object{{"label", e.first_label}, {"value", e.first}}};
          if (!e.second_label.empty())
            example["outputs"].as_array().push_back(boost::json::object{{"label", e.second_label}, {"value", e.second}});
          check["counterexample"] = std::move(example);
        }
        checks.push_back(std::move(check));
      }
      components.push_back(boost::json::object{{"name", component.name},
                                               {"kind", component.kind},
                                               {"passed", component.passed()},
                                               {"elapsed_ms", static_cast<double>(component.elapsed.count()) / 1e6},
                                               {"slowest_call_ms",
                                                static_cast<double>(component.slowest_call.count()) / 1e6},
                                               {"checks", std::move(checks)}});
    }
    p["components"] = std::move(components);
    plugins.push_back(std::move(p));
  }
  bool passed = true;
  for (const auto& r : reports) passed = passed && r.passed();
  return boost::json::object{{"seed", seed},
                             {"passed", passed},
                             {"summary", summary_line(reports)},
                             {"plugins", std::move(plugins)}};
}

}  // namespace airlock::host::check
