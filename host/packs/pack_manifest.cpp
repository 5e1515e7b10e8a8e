// Reading pack.toml strictly (an unknown key is an error: a typo must not
// silently drop a digest) and writing it through toml++'s formatter, whose
// tables are ordered by key, so equal manifests give equal bytes.
#include "packs/pack_manifest.hpp"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <set>
#include <sstream>

namespace airlock::host {
namespace {

bool is_name_char(char c, bool first) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || (!first && (c == '.' || c == '_' || c == '-'));
}

bool valid_pack_name(std::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  for (std::size_t i = 0; i < name.size(); ++i)
    if (!is_name_char(name[i], i == 0)) return false;
  return true;
}

// Tool, sanitizer and chain names, and the tool globs of suggest.egress:
// what a plugin may register and a config may bind, so anything else in a
// manifest is a mistake, or text meant for a terminal or a log, not a name.
constexpr std::string_view kNameRule = "want 1 to 64 of A-Z a-z 0-9 _ . - and the glob characters * ?";

bool valid_name(std::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
           c == '-' || c == '*' || c == '?';
  });
}

bool has_control(std::string_view s) {
  return std::any_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; });
}

class ManifestReader {
 public:
  explicit ManifestReader(std::string file) : file_(std::move(file)) {}

  Error at(const toml::source_region& where, std::string_view key, std::string_view what) const {
    return Error{fmt::format("{}:{}:{}: {}: {}", file_, where.begin.line, where.begin.column, key, what)};
  }

  // Every key of `table` must be one of `known`.
  Result<void> only(const toml::table& table, std::string_view prefix, std::initializer_list<std::string_view> known) const {
    for (const auto& [key, node] : table) {
      if (std::find(known.begin(), known.end(), key.str()) == known.end())
        return at(key.source(), fmt::format("{}{}", prefix, key.str()), "unknown key");
    }
    return {};
  }

  Result<std::string> string(const toml::table& table, std::string_view key, std::string_view path,
                              std::size_t max_len, bool one_line = true) const {
    const toml::node* node = table.get(key);
    if (!node) return at(table.source(), path, "missing");
    const auto* s = node->as_string();
    if (!s) return at(node->source(), path, "want a string");
    const std::string& v = s->get();
    if (v.empty()) return at(node->source(), path, "cannot be empty");
    if (v.size() > max_len) return at(node->source(), path, fmt::format("longer than {} bytes", max_len));
    if (one_line && has_control(v)) return at(node->source(), path, "control characters are not allowed");
    return Result<std::string>(boost::system::in_place_value, v);
  }

  Result<std::vector<std::string>> strings(const toml::node& node, std::string_view path) const {
    const auto* array = node.as_array();
    if (!array) return at(node.source(), path, "want an array of strings");
    std::vector<std::string> out;
    for (std::size_t i = 0; i < array->size(); ++i) {
      const auto* s = (*array)[i].as_string();
      const std::string item = fmt::format("{}[{}]", path, i);
      if (!s) return at((*array)[i].source(), item, "want a string");
      if (s->get().empty() || has_control(s->get())) return at(s->source(), item, "want a non-empty one-line string");
      out.push_back(s->get());
    }
    return out;
  }

  // strings(), each a name (valid_name).
  Result<std::vector<std::string>> names(const toml::node& node, std::string_view path) const {
    auto out = strings(node, path);
    if (!out) return out;
    for (std::size_t i = 0; i < out->size(); ++i)
      if (!valid_name((*out)[i])) return at((*node.as_array())[i].source(), fmt::format("{}[{}]", path, i), kNameRule);
    return out;
  }

  Result<PackObject> object(const toml::table& t, std::size_t index) const {
    const std::string base = fmt::format("object[{}]", index);
    if (auto ok = only(t, base + ".", {"file", "sha256", "size", "abi", "tools", "sanitizers"}); !ok) return ok.error();
    PackObject o;
    auto file = string(t, "file", base + ".file", 255);
    if (!file) return file.error();
    if (auto bad = bad_object_file_name(*file)) return at(t["file"].node()->source(), base + ".file", *bad);
    o.file = *file;
    auto digest = string(t, "sha256", base + ".sha256", 64);
    if (!digest) return digest.error();
    auto parsed = parse_sha256_hex(*digest);
    const bool lower = std::none_of(digest->begin(), digest->end(), [](char c) { return c >= 'A' && c <= 'F'; });
    if (!parsed || !lower) return at(t["sha256"].node()->source(), base + ".sha256", "want 64 lowercase hex digits");
    o.sha256 = *parsed;
    const toml::node* size = t.get("size");
    if (!size) return at(t.source(), base + ".size", "missing");
    const auto* n = size->as_integer();
    if (!n || n->get() < 0) return at(size->source(), base + ".size", "want a non-negative integer");
    o.size = static_cast<std::uint64_t>(n->get());
    auto abi = string(t, "abi", base + ".abi", 16);
    if (!abi) return abi.error();
    if (!parse_abi_string(*abi)) return at(t["abi"].node()->source(), base + ".abi", "want MAJOR.MINOR, e.g. \"1.4\"");
    o.abi = *abi;
    for (auto [key, list] : {std::pair{"tools", &o.tools}, std::pair{"sanitizers", &o.sanitizers}}) {
      const toml::node* node = t.get(key);
      if (!node) return at(t.source(), fmt::format("{}.{}", base, key), "missing");
      auto items = names(*node, fmt::format("{}.{}", base, key));
      if (!items) return items.error();
      *list = std::move(*items);
    }
    return o;
  }

  Result<void> suggest(const toml::node& node, PackManifest& m) const {
    const auto* t = node.as_table();
    if (!t) return at(node.source(), "suggest", "want a table");
    if (auto ok = only(*t, "suggest.", {"egress", "chains"}); !ok) return ok.error();
    if (const toml::node* egress = t->get("egress")) {
      const auto* e = egress->as_table();
      if (!e) return at(egress->source(), "suggest.egress", "want a table of tool = [grants]");
      for (const auto& [tool, grants] : *e) {
        if (!valid_name(tool.str())) return at(tool.source(), "suggest.egress", fmt::format("tool name: {}", kNameRule));
        auto list = strings(grants, fmt::format("suggest.egress.\"{}\"", tool.str()));
        if (!list) return list.error();
        m.suggest_egress[std::string(tool.str())] = std::move(*list);
      }
    }
    if (const toml::node* chains = t->get("chains")) {
      const auto* c = chains->as_table();
      if (!c) return at(chains->source(), "suggest.chains", "want a table of chains");
      for (const auto& [name, chain] : *c) {
        if (!valid_name(name.str())) return at(name.source(), "suggest.chains", fmt::format("chain name: {}", kNameRule));
        const std::string path = fmt::format("suggest.chains.{}", name.str());
        const auto* ct = chain.as_table();
        if (!ct) return at(chain.source(), path, "want a table with steps");
        if (auto ok = only(*ct, path + ".", {"steps"}); !ok) return ok.error();
        const toml::node* steps = ct->get("steps");
        if (!steps) return at(ct->source(), path + ".steps", "missing");
        auto list = names(*steps, path + ".steps");
        if (!list) return list.error();
        m.suggest_chains[std::string(name.str())] = std::move(*list);
      }
    }
    return {};
  }

  Result<PackManifest> read(const toml::table& root, ManifestForm form) const {
    if (auto ok = only(root, "", {"pack", "object", "suggest"}); !ok) return ok.error();
    const auto* pack = root["pack"].as_table();
    if (!pack) return at(root.source(), "pack", "missing [pack] table");
    if (auto ok = only(*pack, "pack.", {"name", "version", "vendor", "description", "abi", "objects"}); !ok)
      return ok.error();
    PackManifest m;
    auto name = string(*pack, "name", "pack.name", 64);
    if (!name) return name.error();
    if (!valid_pack_name(*name)) return at((*pack)["name"].node()->source(), "pack.name", "want [a-z0-9][a-z0-9._-]{0,63}");
    m.name = *name;
    auto version = string(*pack, "version", "pack.version", 64);
    if (!version) return version.error();
    if (version->find_first_of(" \t") != std::string::npos)
      return at((*pack)["version"].node()->source(), "pack.version", "cannot contain spaces");
    m.version = *version;
    auto vendor = string(*pack, "vendor", "pack.vendor", 128);
    if (!vendor) return vendor.error();
    m.vendor = *vendor;
    if (pack->contains("description")) {
      auto d = string(*pack, "description", "pack.description", 4096, false);
      if (!d) return d.error();
      m.description = *d;
    }
    if (pack->contains("abi")) {
      auto abi = string(*pack, "abi", "pack.abi", 16);
      if (!abi) return abi.error();
      if (!parse_abi_string(*abi)) return at((*pack)["abi"].node()->source(), "pack.abi", "want MAJOR.MINOR, e.g. \"1.4\"");
      m.abi = *abi;
    }
    if (const toml::node* objects = pack->get("objects")) {
      if (form == ManifestForm::built)
        return at(objects->source(), "pack.objects", "belongs to a source manifest; a built one lists [[object]]");
      auto list = strings(*objects, "pack.objects");
      if (!list) return list.error();
      std::set<std::string> seen;
      for (std::size_t i = 0; i < list->size(); ++i) {
        const auto& where = (*objects->as_array())[i].source();
        if (auto bad = bad_object_file_name((*list)[i])) return at(where, fmt::format("pack.objects[{}]", i), *bad);
        if (!seen.insert((*list)[i]).second) return at(where, fmt::format("pack.objects[{}]", i), "listed twice");
      }
      m.objects = std::move(*list);
    }
    if (const toml::node* objects = root.get("object")) {
      const auto* array = objects->as_array();
      if (!array || !array->is_array_of_tables()) return at(objects->source(), "object", "want [[object]] tables");
      std::set<std::string> seen;
      for (std::size_t i = 0; i < array->size(); ++i) {
        auto o = object(*(*array)[i].as_table(), i);
        if (!o) return o.error();
        if (!seen.insert(o->file).second)
          return at((*array)[i].source(), fmt::format("object[{}].file", i), fmt::format("'{}' listed twice", o->file));
        m.object_entries.push_back(std::move(*o));
      }
    }
    if (form == ManifestForm::built) {
      if (!m.abi) return at(pack->source(), "pack.abi", "missing (a built manifest records the pack's ABI)");
      if (m.object_entries.empty()) return at(root.source(), "object", "no [[object]] entries (the pack loads nothing)");
    }
    if (const toml::node* s = root.get("suggest")) {
      if (auto ok = suggest(*s, m); !ok) return ok.error();
    }
    return m;
  }

 private:
  std::string file_;
};

toml::array string_array(const std::vector<std::string>& items) {
  toml::array a;
  for (const auto& s : items) a.push_back(s);
  return a;
}

}  // namespace

std::optional<std::string> bad_object_file_name(std::string_view name) {
  if (name.empty()) return "empty file name";
  if (name.find('/') != std::string_view::npos || name.find('\\') != std::string_view::npos)
    return fmt::format("'{}' is not a plain file name (no directories in a pack)", name);
  if (name == "." || name == ".." || name.find('\0') != std::string_view::npos || has_control(name))
    return fmt::format("'{}' is not a plain file name", name);
  if (!name.ends_with(".so") || name.size() == 3) return fmt::format("'{}' does not end in .so", name);
  return std::nullopt;
}

std::string abi_string(std::uint32_t abi) { return fmt::format("{}.{}", abi >> 16, abi & 0xffffu); }

std::optional<std::uint32_t> parse_abi_string(std::string_view text) {
  const std::size_t dot = text.find('.');
  if (dot == std::string_view::npos || dot == 0 || dot + 1 == text.size()) return std::nullopt;
  std::uint32_t major = 0, minor = 0;
  const char* end = text.data() + dot;
  auto r1 = std::from_chars(text.data(), end, major);
  auto r2 = std::from_chars(end + 1, text.data() + text.size(), minor);
  if (r1.ec != std::errc{} || r1.ptr != end || r2.ec != std::errc{} || r2.ptr != text.data() + text.size())
    return std::nullopt;
  if (major > 0xffffu || minor > 0xffffu) return std::nullopt;
  return (major << 16) | minor;
}

Result<PackManifest> parse_manifest(std::string_view text, const std::string& file, ManifestForm form) {
  toml::table root;
  try {
    root = toml::parse(text, std::string_view(file));
  } catch (const toml::parse_error& e) {
    const auto& at = e.source().begin;
    return Error{fmt::format("{}:{}:{}: {}", file, at.line, at.column, e.description())};
  }
  return ManifestReader(file).read(root, form);
}

Result<PackManifest> read_manifest(const std::filesystem::path& file, ManifestForm form) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return Error{fmt::format("{}: cannot read", file.string())};
  std::ostringstream text;
  text << in.rdbuf();
  return parse_manifest(text.str(), file.string(), form);
}

std::string write_manifest(const PackManifest& m) {
  toml::table pack{{"name", m.name}, {"version", m.version}, {"vendor", m.vendor}};
  if (m.description) pack.insert("description", *m.description);
  if (m.abi) pack.insert("abi", *m.abi);
  toml::table root{{"pack", std::move(pack)}};
  std::vector<const PackObject*> sorted;
  for (const auto& o : m.object_entries) sorted.push_back(&o);
  std::sort(sorted.begin(), sorted.end(), [](const PackObject* a, const PackObject* b) { return a->file < b->file; });
  toml::array objects;
  for (const PackObject* o : sorted) {
    objects.push_back(toml::table{{"file", o->file},
                                  {"sha256", sha256_hex(o->sha256)},
                                  {"size", static_cast<std::int64_t>(o->size)},
                                  {"abi", o->abi},
                                  {"tools", string_array(o->tools)},
                                  {"sanitizers", string_array(o->sanitizers)}});
  }
  if (!objects.empty()) root.insert("object", std::move(objects));
  if (!m.suggest_egress.empty() || !m.suggest_chains.empty()) {
    toml::table suggest;
    if (!m.suggest_egress.empty()) {
      toml::table egress;
      for (const auto& [tool, grants] : m.suggest_egress) egress.insert(tool, string_array(grants));
      suggest.insert("egress", std::move(egress));
    }
    if (!m.suggest_chains.empty()) {
      toml::table chains;
      for (const auto& [name, steps] : m.suggest_chains) chains.insert(name, toml::table{{"steps", string_array(steps)}});
      suggest.insert("chains", std::move(chains));
    }
    root.insert("suggest", std::move(suggest));
  }
  std::ostringstream out;
  // Basic one-line strings only ("...", escapes and all): TOML drops a line
  // break right after a multi-line string's opening delimiter, so toml++
  // writing a description that starts with one lost it on reading back; and
  // without multi-line strings toml++ writes a literal ('...') string with a
  // raw line break in it, which no TOML reader accepts.
  out << toml::toml_formatter(root, toml::toml_formatter::default_flags & ~toml::format_flags::indentation &
                                        ~toml::format_flags::allow_multi_line_strings &
                                        ~toml::format_flags::allow_literal_strings);
  std::string text = out.str();
  if (text.empty() || text.back() != '\n') text += '\n';
  return text;
}

}  // namespace airlock::host
