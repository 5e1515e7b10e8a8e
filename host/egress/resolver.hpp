// Turns a URL's host into the addresses the fetcher may connect to: the
// operator's overrides first, then the system resolver; literals as they are.
#pragma once

#include "egress/egress_url.hpp"
#include "util/error.hpp"

#include <boost/asio/ip/address.hpp>

#include <map>
#include <string>
#include <vector>

namespace airlock::host {

class Resolver {
 public:
  // `overrides`: lowercase name -> addresses, answered instead of the system resolver ([egress.hosts] in
  // the config; tests use names under .test). Any other name: getaddrinfo (AF_UNSPEC, SOCK_STREAM).
  explicit Resolver(std::map<std::string, std::vector<boost::asio::ip::address>> overrides = {});

  // IP literals resolve to themselves without any lookup. Error names the host ("cannot resolve x: ...").
  // Thread-safe: the overrides never change after construction.
  Result<std::vector<boost::asio::ip::address>> resolve(const Url& url) const;

 private:
  std::map<std::string, std::vector<boost::asio::ip::address>> overrides_;
};

}  // namespace airlock::host
