// Opening a plugin object. The order is the safety argument: the file is
// checked as data first, then mapped, then only airlock_plugin_abi_version
// runs; init is left to the caller.
#include "plugins/plugin_object.hpp"

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

Result<PluginObject> open_plugin_object(const std::string& where, const std::filesystem::path& mapped) {
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
  PluginInitFn* init = &library.get<PluginInitFn>("airlock_plugin_init");
  return PluginObject{std::move(library), abi, init};
}

}  // namespace airlock::host
