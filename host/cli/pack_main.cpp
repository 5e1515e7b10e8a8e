// airlock-pack: `airlock pack build|verify|install`. A binary of its own,
// which `airlock pack` runs, because only these commands read .tar.gz packs:
// libarchive and what it pulls in (libxml2, ICU, nettle, ...) cost the server
// about 3 MiB of resident memory at idle, for code a server never runs (it
// loads installed packs, which are directories).
#include "cli/pack_command.hpp"
#include "cli/startup.hpp"

#include <CLI/CLI.hpp>

int main(int argc, char** argv) {
  airlock::host::init_logging();
  CLI::App app{"airlock pack — build, verify and install signed tool packs", "airlock pack"};
  app.set_version_flag("--version", std::string("airlock ") + AIRLOCK_VERSION);
  const airlock::host::PackCommand pack(app);
  // Usage errors exit 2, as for every airlock command.
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  return pack.run();
}
