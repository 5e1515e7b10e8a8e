// The order is the argument: pack.toml is read once, and those bytes are both
// what the signature is checked against and what is parsed; each object is
// read once, and those bytes are both hashed and handed on.
#include "packs/pack_verify.hpp"

#include "packs/sodium_init.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>

namespace airlock::host {
namespace {

namespace fs = std::filesystem;

constexpr std::uint64_t kMaxObjectBytes = std::uint64_t{256} << 20;
constexpr std::uint64_t kMaxManifestBytes = std::uint64_t{1} << 20;

// The whole of a regular file (symlinks are not followed: a pack's files
// are its own), refused past `limit` bytes.
Result<std::string> read_whole(const fs::path& file, std::uint64_t limit, const std::string& shown) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0 && errno == ELOOP) return Error{fmt::format("{}: a symlink (a pack's files must be its own)", shown)};
  if (fd < 0) return Error{fmt::format("{}: cannot read: {}", shown, std::strerror(errno))};
  struct stat st {};
  std::string bytes;
  std::string problem;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    problem = "not a regular file";
  } else if (static_cast<std::uint64_t>(st.st_size) > limit) {
    problem = fmt::format("{} bytes, more than the limit of {}", st.st_size, limit);
  } else {
    bytes.resize(static_cast<std::size_t>(st.st_size));
    std::size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t n = ::read(fd, bytes.data() + done, bytes.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      done += static_cast<std::size_t>(n);
    }
    // A file that changed size under us is read as it was at fstat; the
    // digest check below judges those bytes.
    bytes.resize(done);
  }
  ::close(fd);
  if (!problem.empty()) return Error{fmt::format("{}: {}", shown, problem)};
  return Result<std::string>(boost::system::in_place_value, std::move(bytes));
}

class Verifier {
 public:
  Verifier(fs::path dir, std::string shown_root, bool archive, const TrustPolicy& trust)
      : dir_(std::move(dir)), root_(std::move(shown_root)), archive_(archive), trust_(trust) {}

  // How a file of the pack is named in messages: "<dir>/<file>", or
  // "<archive>: <file>" for a member of an archive.
  std::string shown(std::string_view file) const {
    return archive_ ? fmt::format("{}: {}", root_, file) : (fs::path(root_) / file).string();
  }

  Result<VerifiedPack> run() {
    VerifiedPack pack;
    pack.source = root_;
    const std::string manifest_name = shown(kManifestFile);
    auto text = read_whole(dir_ / kManifestFile, kMaxManifestBytes, manifest_name);
    if (!text) return text.error();
    pack.manifest_text = std::move(*text);
    if (auto signature = check_signature(pack); !signature) return signature.error();
    auto manifest = parse_manifest(pack.manifest_text, manifest_name, ManifestForm::built);
    if (!manifest) return manifest.error();
    pack.manifest = std::move(*manifest);
    for (const PackObject& entry : pack.manifest.object_entries) {
      auto object = check_object(entry);
      if (!object) return object.error();
      pack.objects.push_back(std::move(*object));
    }
    warn_unlisted(pack);
    return pack;
  }

 private:
  Result<void> check_signature(VerifiedPack& pack) {
    const fs::path sig_path = dir_ / kSignatureFile;
    const std::string sig_name = shown(kSignatureFile);
    std::error_code ec;
    if (!fs::exists(fs::symlink_status(sig_path, ec))) {
      if (trust_.require_signed)
        return Error{fmt::format("{}: not signed ([trust] require_signed = true)", shown(kManifestFile))};
      pack.warnings.push_back(fmt::format("{}: not signed; loaded unverified ([trust] require_signed = false)",
                                          shown(kManifestFile)));
      return {};
    }
    auto text = read_whole(sig_path, 64 * 1024, sig_name);
    if (!text) return text.error();
    auto signature = minisign::parse_signature(*text);
    if (!signature) return Error{fmt::format("{}: malformed signature: {}", sig_name, signature.error().message)};
    pack.signature_text = std::move(*text);
    const minisign::PublicKey* key = trust_.find(signature->key_id);
    if (!key) {
      const std::string id = minisign::key_id_text(signature->key_id);
      if (trust_.require_signed)
        return Error{fmt::format("{}: signed by key {}, which is not in [trust] keys ([trust] require_signed = true)",
                                 sig_name, id)};
      pack.untrusted_signer = signature->key_id;
      pack.warnings.push_back(fmt::format(
          "{}: signed by key {}, which is not in [trust] keys; loaded unverified ([trust] require_signed = false)",
          sig_name, id));
      return {};
    }
    if (auto ok = minisign::verify(*key, *signature, pack.manifest_text); !ok)
      return Error{fmt::format("{}: {}", sig_name, ok.error().message)};
    pack.signer = key->id;
    return {};
  }

  Result<VerifiedObject> check_object(const PackObject& entry) const {
    const std::string name = shown(entry.file);
    auto bytes = read_whole(dir_ / entry.file, kMaxObjectBytes, name);
    if (!bytes) return bytes.error();
    if (bytes->size() != entry.size)
      return Error{fmt::format("{}: {} bytes, pack.toml says {}", name, bytes->size(), entry.size)};
    const Sha256Digest digest = sha256(*bytes);
    ensure_sodium();
    if (sodium_memcmp(digest.data(), entry.sha256.data(), digest.size()) != 0)
      return Error{fmt::format("{}: SHA-256 is {}, pack.toml says {}", name, sha256_hex(digest),
                               sha256_hex(entry.sha256))};
    return VerifiedObject{entry, archive_ ? fs::path(name) : dir_ / entry.file, std::move(*bytes)};
  }

  // A .so the manifest does not list is not loaded; say so once, by name.
  void warn_unlisted(VerifiedPack& pack) const {
    std::set<std::string> listed;
    for (const auto& o : pack.manifest.object_entries) listed.insert(o.file);
    std::error_code ec;
    std::vector<std::string> extra;
    for (const auto& e : fs::directory_iterator(dir_, ec)) {
      const std::string file = e.path().filename().string();
      if (e.path().extension() == ".so" && !listed.contains(file)) extra.push_back(file);
    }
    std::sort(extra.begin(), extra.end());
    for (const auto& file : extra)
      pack.warnings.push_back(fmt::format("{}: not listed in {}; not loaded", shown(file), kManifestFile));
  }

  fs::path dir_;
  std::string root_;
  bool archive_;
  const TrustPolicy& trust_;
};

}  // namespace

PackOrigin VerifiedPack::origin() const {
  std::string who = signer             ? minisign::key_id_text(*signer)
                    : untrusted_signer ? "untrusted key " + minisign::key_id_text(*untrusted_signer)
                                       : "unsigned";
  return PackOrigin{manifest.name, manifest.version, manifest.vendor, std::move(who)};
}

bool is_pack_dir(const std::filesystem::path& dir) {
  std::error_code ec;
  return fs::is_regular_file(dir / kManifestFile, ec);
}

Result<VerifiedPack> verify_pack_dir(const std::filesystem::path& dir, const TrustPolicy& trust) {
  if (!is_pack_dir(dir)) return Error{fmt::format("{}: no {} (not a pack)", dir.string(), kManifestFile)};
  return Verifier(dir, dir.string(), false, trust).run();
}

Result<VerifiedPack> verify_extracted_pack(const std::filesystem::path& dir, const std::filesystem::path& archive,
                                           const TrustPolicy& trust) {
  if (!is_pack_dir(dir)) return Error{fmt::format("{}: no {} in the archive", archive.string(), kManifestFile)};
  return Verifier(dir, archive.string(), true, trust).run();
}

}  // namespace airlock::host
