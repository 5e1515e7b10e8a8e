// Loading one plugin. The order is the safety argument: the file is checked as
// data first, then mapped, then only airlock_plugin_abi_version runs, and only
// a plugin whose ABI this host can read gets to run its init.
#include "plugins/plugin_library.hpp"

#include <dlfcn.h>
#include <elf.h>
#include <fmt/format.h>

#include <array>
#include <fstream>

namespace airlock::host {
namespace {

#if defined(__x86_64__)
constexpr std::uint16_t kHostMachine = EM_X86_64;
#elif defined(__aarch64__)
constexpr std::uint16_t kHostMachine = EM_AARCH64;
#elif defined(__i386__)
constexpr std::uint16_t kHostMachine = EM_386;
#else
constexpr std::uint16_t kHostMachine = EM_NONE;  // unknown: leave the check to dlopen
#endif

std::string machine_name(std::uint16_t m) {
  switch (m) {
    case EM_X86_64: return "x86_64";
    case EM_AARCH64: return "aarch64";
    case EM_386: return "i386";
    case EM_ARM: return "arm";
    case EM_RISCV: return "riscv";
    case EM_PPC64: return "ppc64";
    case EM_S390: return "s390";
    default: return fmt::format("machine {}", m);
  }
}

std::string dlerror_or(const std::string& fallback) {
  const char* reason = dlerror();
  return reason ? reason : fallback;
}

}  // namespace

std::optional<std::string> check_elf_header(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return "cannot open the file";
  std::array<unsigned char, sizeof(Elf64_Ehdr)> h{};
  in.read(reinterpret_cast<char*>(h.data()), h.size());
  const auto got = static_cast<std::size_t>(in.gcount());
  if (got < EI_NIDENT + 4 || h[EI_MAG0] != ELFMAG0 || h[EI_MAG1] != ELFMAG1 || h[EI_MAG2] != ELFMAG2 ||
      h[EI_MAG3] != ELFMAG3)
    return "not a shared object (no ELF header)";
  if (h[EI_DATA] != ELFDATA2LSB && h[EI_DATA] != ELFDATA2MSB) return "not a shared object (bad ELF header)";
  const bool little = h[EI_DATA] == ELFDATA2LSB;
  auto u16 = [&](std::size_t at) {
    return static_cast<std::uint16_t>(little ? h[at] | (h[at + 1] << 8) : (h[at] << 8) | h[at + 1]);
  };
  const std::uint16_t type = u16(16);
  const std::uint16_t machine = u16(18);
  if (kHostMachine != EM_NONE && machine != kHostMachine)
    return fmt::format("wrong architecture: built for {}, this host is {}", machine_name(machine),
                       machine_name(kHostMachine));
  const int host_class = sizeof(void*) == 8 ? ELFCLASS64 : ELFCLASS32;
  if (h[EI_CLASS] != host_class)
    return fmt::format("wrong architecture: {}-bit ELF, this host is {}-bit",
                       h[EI_CLASS] == ELFCLASS64 ? 64 : 32, sizeof(void*) * 8);
  if (type != ET_DYN) return "not a shared object (ELF, but not ET_DYN)";
  return std::nullopt;
}

PluginLibrary::PluginLibrary(std::optional<SealedObject> image, boost::dll::shared_library library,
                             std::unique_ptr<airlock_plugin_ctx> ctx, std::uint32_t abi_version)
    : image_(std::move(image)), library_(std::move(library)), ctx_(std::move(ctx)), abi_version_(abi_version) {}

PluginLibrary::~PluginLibrary() {
  ctx_->tools.clear();
  ctx_->sanitizers.clear();
  if (ctx_->on_destroy) ctx_->on_destroy(ctx_->plugin_data);
}

Result<std::shared_ptr<PluginLibrary>> PluginLibrary::open(const std::filesystem::path& file,
                                                           const Config& config) {
  return load(file, std::nullopt, config);
}

Result<std::shared_ptr<PluginLibrary>> PluginLibrary::open(const std::filesystem::path& file, SealedObject image,
                                                           const Config& config) {
  return load(file, std::move(image), config);
}

// `file` is the name shown everywhere; what is read and mapped is `image`
// when given, else `file` itself.
Result<std::shared_ptr<PluginLibrary>> PluginLibrary::load(const std::filesystem::path& file,
                                                           std::optional<SealedObject> image, const Config& config) {
  const std::string where = file.string();
  const std::filesystem::path mapped = image ? image->path() : file;
  if (auto bad = check_elf_header(mapped)) return Error{where + ": " + *bad};

  // RTLD_LOCAL keeps one plugin's symbols from resolving another's;
  // RTLD_NOW surfaces an undefined symbol here rather than mid-call.
  boost::dll::fs::error_code ec;
  boost::dll::shared_library library(
      mapped, ec, boost::dll::load_mode::rtld_local | boost::dll::load_mode::rtld_now);
  // Boost.DLL reports most dlopen failures with a generic code; dlerror()
  // still holds the real reason (an undefined symbol, a missing dependency).
  if (ec) return Error{where + ": cannot load: " + dlerror_or(ec.message())};

  if (!library.has("airlock_plugin_abi_version"))
    return Error{where + ": no entry point airlock_plugin_abi_version (not an airlock plugin?)"};
  if (!library.has("airlock_plugin_init")) return Error{where + ": no entry point airlock_plugin_init"};

  const std::uint32_t abi = library.get<std::uint32_t()>("airlock_plugin_abi_version")();
  const std::uint32_t major = abi >> 16;
  const std::uint32_t minor = abi & 0xffffu;
  if (major != AIRLOCK_ABI_VERSION_MAJOR || minor > AIRLOCK_ABI_VERSION_MINOR)
    return Error{fmt::format("{}: abi {}.{} is not loadable by host {}.{}", where, major, minor,
                             AIRLOCK_ABI_VERSION_MAJOR, AIRLOCK_ABI_VERSION_MINOR)};

  auto ctx = std::make_unique<airlock_plugin_ctx>();
  ctx->file = file;
  ctx->config = &config;
  ctx->logger = make_plugin_logger(file.stem().string());
  auto& init = library.get<airlock_status(const airlock_host_api*, airlock_plugin_ctx*)>("airlock_plugin_init");
  const airlock_status status = init(&host_api(), ctx.get());
  ctx->in_init = false;
  ctx->config = nullptr;
  ctx->config_json.clear();

  // From here the library is owned, so a failure below still runs on_destroy.
  std::shared_ptr<PluginLibrary> plugin(
      new PluginLibrary(std::move(image), std::move(library), std::move(ctx), abi));
  auto& c = plugin->ctx();
  if (status != AIRLOCK_STATUS_OK) {
    std::string reason = !c.init_error.empty()           ? c.init_error
                         : !c.registration_error.empty() ? c.registration_error
                                                         : fmt::format("status {}", status);
    return Error{fmt::format("{}: init failed: {}", where, reason)};
  }
  if (!c.registration_error.empty()) return Error{fmt::format("{}: {}", where, c.registration_error)};
  if (!c.has_info) return Error{where + ": init did not call set_plugin_info"};
  return plugin;
}

}  // namespace airlock::host
