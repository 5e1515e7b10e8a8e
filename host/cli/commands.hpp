// The subcommands of the `airlock` command line; each returns the exit code.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace airlock::host {

// `airlock serve`: MCP over stdio (or, later, Streamable HTTP).
int serve_command(const std::filesystem::path& config_file, const std::optional<std::string>& http_listen);

// `airlock list`: what is loaded and how every tool is bound.
int list_command(const std::filesystem::path& config_file);

}  // namespace airlock::host
