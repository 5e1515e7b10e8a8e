// [egress]: how the host's fetch behaves for every tool.
#include "config/config_reader.hpp"

#include <boost/asio/ip/address.hpp>

#include <algorithm>
#include <string>
#include <tuple>

namespace airlock::host::config_reading {

void ConfigReader::read_egress(const toml::table& table) {
  auto& egress = config_.egress;
  for (const auto& [key, node] : table) {
    const std::string name(key.str());
    const std::string path = "egress." + key_text(name);
    if (name == "timeout_ms") {
      set_integer(node, path, 1, 3'600'000, egress.timeout_ms);
    } else if (name == "max_response_bytes") {
      set_integer(node, path, 1, std::int64_t{1} << 30, egress.max_response_bytes);
    } else if (name == "max_redirects") {
      set_integer(node, path, 0, 20, egress.max_redirects);
    } else if (name == "hosts") {
      const auto* hosts = table_value(node, path);
      if (!hosts) continue;
      for (const auto& [host_key, addresses] : *hosts) {
        const std::string host = lowercase(host_key.str());
        const std::string host_path = path + "." + key_text(host);
        auto parsed = parse_url("http://" + host + "/");
        if (!parsed || parsed->host_kind != HostKind::name || parsed->host != host) {
          report(place(host_key.source(), host_path), "expected a host name, got " + quote(host));
          continue;
        }
        auto& list = egress.hosts[host];
        for (auto& [text, where] : string_list(addresses, host_path)) {
          // Checked here; kept as written, for host_overrides() to read.
          boost::system::error_code ec;
          boost::asio::ip::make_address(text, ec);
          if (ec) {
            report(where, "expected an IPv4 or IPv6 address, got " + quote(text));
          } else {
            list.push_back(text);
          }
        }
      }
    } else {
      report_unknown_key(key, "egress");
    }
  }
}

}  // namespace airlock::host::config_reading
