// outbox.hpp — what a session sends, checked as it is sent: every message
// is one line of valid UTF-8 JSON, a JSON-RPC 2.0 object, whatever the input
// was. A broken message aborts with the message on stderr.
#pragma once

#include "mcp/session.hpp"
#include "util/utf8.hpp"

#include <boost/json/parse.hpp>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

namespace airlock::fuzz {

class Outbox {
 public:
  host::Session::Send sender() {
    // By reference: GCC 12 at -O3 took the by-value copy for uninitialized
    // inside memchr (-Wmaybe-uninitialized), which stopped the bench build.
    return [this](const std::string& message, host::Outbound) {
      if (message.empty()) return;  // a request that will not be answered
      check(message);
      std::lock_guard lock(mutex_);
      ++count_;
    };
  }

  static void check(const std::string& message) {
    if (message.find('\n') != std::string::npos) broken("a message of more than one line", message);
    if (!host::valid_utf8(message)) broken("a message that is not UTF-8", message);
    boost::system::error_code ec;
    const boost::json::value value = boost::json::parse(message, ec);
    if (ec || !value.is_object()) broken("a message that is not a JSON object", message);
    const auto* version = value.get_object().if_contains("jsonrpc");
    if (!version || !version->is_string() || version->get_string() != "2.0") broken("not JSON-RPC 2.0", message);
  }

 private:
  [[noreturn]] static void broken(const char* what, const std::string& message) {
    std::fprintf(stderr, "session sent %s: %.2000s\n", what, message.c_str());
    std::abort();
  }

  std::mutex mutex_;  // guards count_
  std::size_t count_ = 0;
};

}  // namespace airlock::fuzz
