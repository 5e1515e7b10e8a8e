// A plugin's shared object, opened and judged as far as can be without
// running its init: the ELF header read as data, the library mapped, and its
// ABI version checked. Both the server (in-process plugins) and the worker
// process (isolated ones) load a plugin through here, so a plugin is refused
// for the same reasons, in the same words, whichever way it runs.
#pragma once

#include "util/error.hpp"

#include <airlock/airlock.h>

#include <boost/dll/shared_library.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace airlock::host {

using PluginInitFn = airlock_status(const airlock_host_api*, airlock_plugin_ctx*);

struct PluginObject {
  boost::dll::shared_library library;
  std::uint32_t abi_version = 0;
  PluginInitFn* init = nullptr;  // airlock_plugin_init; lives as long as `library`
};

// Maps `mapped` (the file itself, or the memfd of a pack's verified bytes)
// and checks it is a plugin this host can run. Errors read "<where>: <why>",
// `where` being the name the operator knows the plugin by.
Result<PluginObject> open_plugin_object(const std::string& where, const std::filesystem::path& mapped);

// Reads the ELF header and says why `file` cannot be a plugin for this host
// (not ELF, not a shared object, another architecture), or nothing.
std::optional<std::string> check_elf_header(const std::filesystem::path& file);

}  // namespace airlock::host
