// Ed25519 for audit checkpoints, through libsodium: the signer the writer
// holds, the checks the verifier makes, and the key files between them.
#include "audit/checkpoint_signer.hpp"

#include "packs/sodium_init.hpp"
#include "util/base64.hpp"
#include "util/key_file.hpp"
#include "util/sha256.hpp"

#include <fmt/format.h>
#include <sodium.h>

#include <algorithm>
#include <cerrno>
#include <system_error>

#include <fcntl.h>
#include <unistd.h>

namespace airlock::host::audit {

namespace {

static_assert(crypto_sign_SEEDBYTES == 32 && crypto_sign_PUBLICKEYBYTES == 32 && crypto_sign_BYTES == 64 &&
              crypto_sign_SECRETKEYBYTES == 64);

// Longer than a key file could honestly be: raw (32) or base64 (44) plus
// whitespace. Stops a misconfigured path (a log, a device) from being read whole.
constexpr std::size_t kKeyFileMaxBytes = 1024;

std::string_view trim_whitespace(std::string_view s) {
  constexpr std::string_view kWhitespace = " \t\r\n";
  const auto first = s.find_first_not_of(kWhitespace);
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(kWhitespace) - first + 1);
}

// Zeroes key material when the scope ends, on every way out.
struct Wiped {
  void* bytes;
  std::size_t size;
  Wiped(void* b, std::size_t n) : bytes(b), size(n) {}
  Wiped(const Wiped&) = delete;
  Wiped& operator=(const Wiped&) = delete;
  ~Wiped() { sodium_memzero(bytes, size); }
};

Result<std::string> read_small_file(const std::filesystem::path& path, std::string_view what) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return Error{fmt::format("{}: cannot read the {}: {}", path.string(), what,
                             std::generic_category().message(errno))};
  std::string text(kKeyFileMaxBytes + 1, '\0');
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::read(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int error = errno;
      ::close(fd);
      sodium_memzero(text.data(), text.size());
      return Error{fmt::format("{}: cannot read the {}: {}", path.string(), what,
                               std::generic_category().message(error))};
    }
    if (n == 0) break;
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
  text.resize(done);
  return Result<std::string>(boost::system::in_place_value, std::move(text));
}

Result<void> write_new_file(const std::filesystem::path& path, std::string_view text, mode_t mode) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
  if (fd < 0) return Error{fmt::format("{}: {}", path.string(), std::generic_category().message(errno))};
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int error = errno;
      ::close(fd);
      return Error{fmt::format("{}: {}", path.string(), std::generic_category().message(error))};
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0)
    return Error{fmt::format("{}: {}", path.string(), std::generic_category().message(errno))};
  return {};
}

}  // namespace

std::string checkpoint_message(std::string_view replica, std::uint64_t seq, std::string_view head) {
  return fmt::format("airlock-audit-checkpoint-v1\n{}\n{}\n{}", replica, seq, head);
}

std::string key_id_of(const PublicKey& key) {
  return sha256_hex(sha256(std::string_view(reinterpret_cast<const char*>(key.data()), key.size()))).substr(0, 16);
}

bool verify_checkpoint_signature(const PublicKey& key, std::string_view message, std::string_view signature_base64) {
  ensure_sodium();
  const auto signature = from_base64(signature_base64);
  if (!signature || signature->size() != crypto_sign_BYTES) return false;
  return crypto_sign_verify_detached(reinterpret_cast<const unsigned char*>(signature->data()),
                                     reinterpret_cast<const unsigned char*>(message.data()), message.size(),
                                     key.data()) == 0;
}

Result<PublicKey> read_public_key(const std::filesystem::path& path) {
  auto text = read_small_file(path, "audit public key");
  if (!text) return text.error();
  const auto decoded = from_base64(trim_whitespace(*text));
  if (!decoded || decoded->size() != PublicKey{}.size())
    return Error{fmt::format("{}: an audit public key is the base64 of 32 bytes (what `airlock audit keygen` "
                             "writes to KEYFILE.pub)",
                             path.string())};
  PublicKey key;
  std::copy(decoded->begin(), decoded->end(), key.begin());
  return key;
}

CheckpointSigner::CheckpointSigner(const std::array<unsigned char, 32>& seed) {
  ensure_sodium();
  crypto_sign_seed_keypair(public_key_.data(), secret_key_.data(), seed.data());
  key_id_ = key_id_of(public_key_);
}

CheckpointSigner::CheckpointSigner(CheckpointSigner&& other) noexcept
    : secret_key_(other.secret_key_), public_key_(other.public_key_), key_id_(std::move(other.key_id_)) {
  sodium_memzero(other.secret_key_.data(), other.secret_key_.size());
}

CheckpointSigner::~CheckpointSigner() { sodium_memzero(secret_key_.data(), secret_key_.size()); }

std::string CheckpointSigner::sign(std::string_view message) const {
  std::array<unsigned char, crypto_sign_BYTES> signature{};
  crypto_sign_detached(signature.data(), nullptr, reinterpret_cast<const unsigned char*>(message.data()),
                       message.size(), secret_key_.data());
  return to_base64(signature.data(), signature.size());
}

Result<CheckpointSigner> CheckpointSigner::from_file(const std::filesystem::path& path) {
  ensure_sodium();
  auto seed = read_key_file(path, "the audit signing key");
  if (!seed) return seed.error();
  CheckpointSigner signer(*seed);
  sodium_memzero(seed->data(), seed->size());
  return signer;
}

Result<std::string> generate_signing_key(const std::filesystem::path& path) {
  ensure_sodium();
  std::filesystem::path public_path = path;
  public_path += ".pub";
  std::error_code ec;
  if (std::filesystem::exists(path, ec) || std::filesystem::is_symlink(path, ec))
    return Error{fmt::format("{}: already exists; a signing key is never overwritten", path.string())};
  if (std::filesystem::exists(public_path, ec) || std::filesystem::is_symlink(public_path, ec))
    return Error{fmt::format("{}: already exists; a signing key is never overwritten", public_path.string())};

  std::array<unsigned char, 32> seed{};
  const Wiped seed_wipe{seed.data(), seed.size()};
  randombytes_buf(seed.data(), seed.size());
  std::string seed_text = to_base64(seed.data(), seed.size()) + "\n";
  const Wiped text_wipe{seed_text.data(), seed_text.size()};
  PublicKey public_key{};
  std::array<unsigned char, crypto_sign_SECRETKEYBYTES> secret_key{};
  const Wiped secret_wipe{secret_key.data(), secret_key.size()};
  crypto_sign_seed_keypair(public_key.data(), secret_key.data(), seed.data());
  const std::string public_text = to_base64(public_key.data(), public_key.size());

  if (auto written = write_new_file(path, seed_text, 0600); !written) return written.error();
  if (auto written = write_new_file(public_path, public_text + "\n", 0644); !written) return written.error();
  return Result<std::string>(boost::system::in_place_value, public_text);
}

}  // namespace airlock::host::audit
