#include "packs/pack_install.hpp"

#include "packs/private_dir.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace airlock::host {
namespace {

namespace fs = std::filesystem;

// TOML basic string: JSON's escaping covers everything a grant or a step holds.
std::string toml_quoted(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string string_list(const std::vector<std::string>& items) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + toml_quoted(items[i]);
  return out + "]";
}

Result<void> sync_dir(const fs::path& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Error{fmt::format("{}: cannot open: {}", dir.string(), std::strerror(errno))};
  ::fsync(fd);
  ::close(fd);
  return {};
}

}  // namespace

Result<void> write_new_file(const fs::path& file, std::string_view bytes) {
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) return Error{fmt::format("{}: cannot create: {}", file.string(), std::strerror(errno))};
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    done += static_cast<std::size_t>(n);
  }
  const int saved = errno;
  const bool ok = done == bytes.size() && ::fsync(fd) == 0;
  ::close(fd);
  if (!ok) return Error{fmt::format("{}: cannot write: {}", file.string(), std::strerror(saved))};
  return {};
}

Result<fs::path> install_pack(const VerifiedPack& pack, const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return Error{fmt::format("{}: cannot create: {}", dir.string(), ec.message())};
  const std::string& name = pack.manifest.name;
  auto staging = PrivateDir::create(dir, "." + name);
  if (!staging) return staging.error();
  const fs::path& stage = staging->path();
  if (auto ok = write_new_file(stage / kManifestFile, pack.manifest_text); !ok) return ok.error();
  if (pack.signature_text)
    if (auto ok = write_new_file(stage / kSignatureFile, *pack.signature_text); !ok) return ok.error();
  for (const auto& object : pack.objects)
    if (auto ok = write_new_file(stage / object.entry.file, object.bytes); !ok) return ok.error();
  // mkdtemp made it 0700; an installed pack is readable like any plugin dir.
  if (::chmod(stage.c_str(), 0755) != 0)
    return Error{fmt::format("{}: cannot chmod: {}", stage.string(), std::strerror(errno))};
  if (auto ok = sync_dir(stage); !ok) return ok.error();

  const fs::path target = dir / name;
  if (::renameat2(AT_FDCWD, stage.c_str(), AT_FDCWD, target.c_str(), RENAME_NOREPLACE) == 0) {
    staging->release();
  } else if (errno == EEXIST || errno == ENOTEMPTY) {
    // Swap, so the old pack stays whole until the new one is in place; the
    // old one is then at the staging path and goes with it.
    if (::renameat2(AT_FDCWD, stage.c_str(), AT_FDCWD, target.c_str(), RENAME_EXCHANGE) != 0)
      return Error{fmt::format("{}: cannot replace with {}: {}", target.string(), stage.string(), std::strerror(errno))};
  } else {
    return Error{fmt::format("{}: cannot move {} into place: {}", target.string(), stage.string(), std::strerror(errno))};
  }
  if (auto ok = sync_dir(dir); !ok) return ok.error();
  return Result<fs::path>(boost::system::in_place_value, target);
}

std::string suggested_config(const PackManifest& m) {
  if (m.suggest_egress.empty() && m.suggest_chains.empty()) return {};
  std::string out = fmt::format("# Suggested by {} {} ({}): review before copying into airlock.toml.\n", m.name,
                                m.version, m.vendor);
  for (const auto& [name, steps] : m.suggest_chains)
    out += fmt::format("\n[chains.{}]\nsteps = {}\n", toml_quoted(name), string_list(steps));
  for (const auto& [tool, grants] : m.suggest_egress)
    out += fmt::format("\n[tools.{}]\negress = {}\n", toml_quoted(tool), string_list(grants));
  return out;
}

}  // namespace airlock::host
