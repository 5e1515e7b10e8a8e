// fetch_config.hpp — reads airlock.fetch's own table of the host's TOML:
//
//   [plugin."airlock.fetch"]
//   names = ["fetch", "docs_fetch"]   # one tool per name; default ["fetch"]
//
// Several names let an operator give each tool its own egress set
// ([tools."docs_fetch"] egress = [...]): the set belongs to the name the
// model calls, so a URL one tool returned is checked against the set of
// whichever tool fetches it next.
#ifndef AIRLOCK_PLUGINS_FETCH_FETCH_CONFIG_HPP
#define AIRLOCK_PLUGINS_FETCH_FETCH_CONFIG_HPP

#include <boost/json/object.hpp>

#include <string>
#include <vector>

namespace airlock::plugins::fetch {

struct FetchConfig {
  std::vector<std::string> names{"fetch"};
};

// The settings in `table` (the plugin's table as JSON, {} when absent).
// Throws std::invalid_argument naming the table and what is wrong: an
// unknown key, names that is not a non-empty array of strings, a name that
// is not an MCP tool name (1 to 64 of [A-Za-z0-9_.-]), a name given twice.
FetchConfig read_fetch_config(const boost::json::object& table);

}  // namespace airlock::plugins::fetch

#endif  // AIRLOCK_PLUGINS_FETCH_FETCH_CONFIG_HPP
