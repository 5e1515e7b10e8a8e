#include "cli/pack_build.hpp"

#include "packs/minisign.hpp"
#include "packs/pack_archive.hpp"
#include "packs/pack_install.hpp"
#include "packs/pack_manifest.hpp"
#include "packs/pack_verify.hpp"
#include "packs/private_dir.hpp"
#include "packs/sealed_object.hpp"
#include "plugins/plugin_library.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace airlock::host {
namespace {

namespace fs = std::filesystem;

constexpr std::uint64_t kMaxObjectBytes = std::uint64_t{256} << 20;

Result<std::string> read_file(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return Error{fmt::format("{}: cannot read", file.string())};
  std::ostringstream text;
  text << in.rdbuf();
  return Result<std::string>(boost::system::in_place_value, text.str());
}

// The objects to pack: the source manifest's list, or every *.so file.
Result<std::vector<std::string>> object_names(const PackManifest& source, const fs::path& dir) {
  if (source.objects) return *source.objects;
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().extension() == ".so" && e.is_regular_file(ec)) names.push_back(e.path().filename().string());
  if (ec) return Error{fmt::format("{}: cannot read: {}", dir.string(), ec.message())};
  std::sort(names.begin(), names.end());
  if (names.empty())
    return Error{fmt::format("{}: no *.so files (and pack.toml lists no objects)", (dir / kManifestFile).string())};
  for (const auto& n : names)
    if (auto bad = bad_object_file_name(n)) return Error{fmt::format("{}: {}", (dir / n).string(), *bad)};
  return names;
}

// One object: its bytes hashed, then loaded from those bytes to learn what
// it provides.
Result<PackObject> describe_object(const fs::path& file, const std::string& bytes, const Config& config) {
  if (bytes.size() > kMaxObjectBytes)
    return Error{fmt::format("{}: {} bytes, more than the limit of {}", file.string(), bytes.size(), kMaxObjectBytes)};
  PackObject o;
  o.file = file.filename().string();
  o.sha256 = sha256(bytes);
  o.size = bytes.size();
  auto image = SealedObject::create(o.file, bytes);
  if (!image) return image.error();
  auto plugin = PluginLibrary::open(file, std::move(*image), config);
  if (!plugin) return plugin.error();
  const auto& ctx = (*plugin)->ctx();
  o.abi = abi_string((*plugin)->abi_version());
  for (const auto& t : ctx.tools) o.tools.push_back(t.name);
  for (const auto& s : ctx.sanitizers) o.sanitizers.push_back(s.name);
  std::sort(o.tools.begin(), o.tools.end());
  std::sort(o.sanitizers.begin(), o.sanitizers.end());
  return o;
}

Result<void> write_out(const fs::path& out, const std::string& manifest, const std::optional<std::string>& signature,
                       const std::vector<std::pair<std::string, std::string>>& objects) {
  std::error_code ec;
  if (is_archive_path(out)) {
    auto stage = PrivateDir::create(out.parent_path().empty() ? fs::path(".") : out.parent_path(), ".airlock-pack");
    if (!stage) return stage.error();
    std::vector<std::string> names{std::string(kManifestFile)};
    if (auto ok = write_new_file(stage->path() / kManifestFile, manifest); !ok) return ok.error();
    if (signature) {
      names.emplace_back(kSignatureFile);
      if (auto ok = write_new_file(stage->path() / kSignatureFile, *signature); !ok) return ok.error();
    }
    for (const auto& [name, bytes] : objects) {
      names.push_back(name);
      if (auto ok = write_new_file(stage->path() / name, bytes); !ok) return ok.error();
    }
    const fs::path partial = stage->path() / "out.tar.gz";
    if (auto ok = write_pack_archive(partial, stage->path(), names); !ok) return ok.error();
    fs::rename(partial, out, ec);
    if (ec) return Error{fmt::format("{}: cannot write: {}", out.string(), ec.message())};
    return {};
  }
  if (fs::exists(out, ec) && !(fs::is_directory(out, ec) && fs::is_empty(out, ec)))
    return Error{fmt::format("{}: exists and is not an empty directory", out.string())};
  fs::create_directories(out, ec);
  if (ec) return Error{fmt::format("{}: cannot create: {}", out.string(), ec.message())};
  if (auto ok = write_new_file(out / kManifestFile, manifest); !ok) return ok.error();
  if (signature)
    if (auto ok = write_new_file(out / kSignatureFile, *signature); !ok) return ok.error();
  for (const auto& [name, bytes] : objects)
    if (auto ok = write_new_file(out / name, bytes); !ok) return ok.error();
  return {};
}

}  // namespace

Result<fs::path> build_pack(const PackBuildArgs& args) {
  const fs::path manifest_path = args.source / kManifestFile;
  auto source_text = read_file(manifest_path);
  if (!source_text) return source_text.error();
  auto source = parse_manifest(*source_text, manifest_path.string(), ManifestForm::source);
  if (!source) return source.error();
  auto names = object_names(*source, args.source);
  if (!names) return names.error();

  std::optional<minisign::SecretKey> key;
  if (args.secret_key) {
    auto text = read_file(*args.secret_key);
    if (!text) return text.error();
    const char* env = std::getenv("AIRLOCK_PACK_PASSWORD");
    auto parsed = minisign::parse_secret_key(*text, env ? std::optional<std::string>(env) : std::nullopt);
    if (!parsed) return Error{fmt::format("{}: {}", args.secret_key->string(), parsed.error().message)};
    key.emplace(std::move(*parsed));
  }

  PackManifest built = *source;
  built.objects.reset();
  built.object_entries.clear();
  std::uint32_t highest = 0;
  std::vector<std::pair<std::string, std::string>> objects;
  const Config defaults;
  for (const auto& name : *names) {
    const fs::path file = args.source / name;
    auto bytes = read_file(file);
    if (!bytes) return bytes.error();
    auto object = describe_object(file, *bytes, defaults);
    if (!object) return object.error();
    highest = std::max(highest, *parse_abi_string(object->abi));
    built.object_entries.push_back(std::move(*object));
    objects.emplace_back(name, std::move(*bytes));
  }
  built.abi = abi_string(highest);
  const std::string manifest = write_manifest(built);

  std::optional<std::string> signature;
  if (key) {
    signature = minisign::sign(*key, manifest, fmt::format("airlock pack {} {}", built.name, built.version));
  } else if (manifest == *source_text) {
    // Already built (and perhaps signed with `minisign -Sm`): the signature
    // still covers these exact bytes, so it travels with them.
    std::error_code ec;
    if (fs::exists(args.source / kSignatureFile, ec)) {
      auto sig = read_file(args.source / kSignatureFile);
      if (!sig) return sig.error();
      signature = std::move(*sig);
    }
  }
  if (auto ok = write_out(args.out, manifest, signature, objects); !ok) return ok.error();
  return Result<fs::path>(boost::system::in_place_value, args.out);
}

}  // namespace airlock::host
