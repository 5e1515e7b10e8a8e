// The host's own optional parts, each a shared object loaded the first time
// it is needed: the HTTP client behind a tool's fetch (egress/hop.hpp) and
// the PostgreSQL task store (tasks/task_store.hpp). A server that never
// fetches, or keeps its tasks in SQLite, never maps libcurl or libpq, nor
// the TLS, Kerberos and LDAP libraries they pull in.
#pragma once

#include "util/error.hpp"

#include <boost/dll/shared_library.hpp>

#include <filesystem>
#include <string>
#include <string_view>

namespace airlock::host {

// Where module `file` (e.g. "airlock-egress-curl.so") is: lib/airlock/modules
// under the running executable's prefix (an install, wherever unpacked), else
// beside it (a build tree), else the build tree's host/ (test binaries), else
// where the package installs modules.
std::filesystem::path host_module_path(std::string_view file);

// Maps module `file` (found by host_module_path) and checks that its int
// `abi_symbol` equals `abi`: a module from another build is refused rather
// than handed structs of another layout. Thread-safe. The library is never
// unloaded, so what it returns (functions, objects with its vtables) stays
// valid for the life of the process. Errors name the file and why.
Result<const boost::dll::shared_library*> load_host_module(std::string_view file, const char* abi_symbol, int abi);

// load_host_module, then the module's entry point `entry`, a function of
// type F; a module that lacks it is refused, naming the file.
template <class F>
Result<F*> load_host_module_entry(std::string_view file, const char* abi_symbol, int abi, const char* entry) {
  auto library = load_host_module(file, abi_symbol, abi);
  if (!library) return library.error();
  if (!(*library)->has(entry)) return Error{host_module_path(file).string() + ": exports no " + entry};
  return &(*library)->template get<F>(entry);
}

}  // namespace airlock::host
