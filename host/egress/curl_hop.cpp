// The HTTP client behind a tool's fetch: one hop on libcurl, to addresses
// the fetcher (fetcher.cpp) already checked. Built as the module
// airlock-egress-curl.so, which the host loads on the first fetch
// (egress/hop.hpp says why).
//
// curl is a transport only; every decision was made before it is called.
// The checked addresses are pinned with CURLOPT_RESOLVE so curl never looks
// the name up, and verified again in the open-socket callback so that a
// connection to any other address cannot even be opened. curl never follows
// a redirect, and each hop gets its own easy handle, so nothing (DNS cache,
// connection, cookies, HSTS or alt-svc state) carries over from one checked
// destination to the next. Each transfer runs on a private multi handle
// polled every few milliseconds, which bounds how long a cancellation takes
// to land.
#include "egress/hop.hpp"
#include "util/ascii.hpp"

#include <boost/config.hpp>
#include <curl/curl.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>

namespace airlock::host {
namespace {

namespace ip = boost::asio::ip;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

constexpr std::chrono::milliseconds kPollInterval = 20ms;

// curl_global_init is not thread-safe and must run once before any handle.
CURLcode initialize_curl() {
  static std::once_flag once;
  static CURLcode result = CURLE_OK;
  std::call_once(once, [] { result = curl_global_init(CURL_GLOBAL_DEFAULT); });
  return result;
}

std::string address_list(const std::vector<ip::address>& addresses) {
  std::string out;
  for (const auto& address : addresses) {
    if (!out.empty()) out += ",";
    out += address.is_v6() ? "[" + address.to_string() + "]" : address.to_string();
  }
  return out;
}

// Shared with curl's callbacks for the duration of one transfer.
struct Transfer {
  const std::vector<ip::address>* allowed = nullptr;
  const std::atomic<bool>* cancelled = nullptr;
  std::uint64_t limit = 0;
  std::string body;
  bool truncated = false;
  std::string unchecked_address;  // set when curl tried to connect anywhere unchecked
};

std::optional<ip::address> address_of(const curl_sockaddr& address) {
  // curl_sockaddr::addr is declared as a sockaddr, but curl stores the whole
  // sockaddr_in6 there (addrlen bytes); copy, never cast.
  if (address.family == AF_INET && address.addrlen >= sizeof(sockaddr_in)) {
    sockaddr_in v4{};
    std::memcpy(&v4, &address.addr, sizeof v4);
    return ip::address_v4(ntohl(v4.sin_addr.s_addr));
  }
  if (address.family == AF_INET6 && address.addrlen >= sizeof(sockaddr_in6)) {
    sockaddr_in6 v6{};
    std::memcpy(&v6, &address.addr, sizeof v6);
    ip::address_v6::bytes_type bytes;
    std::memcpy(bytes.data(), &v6.sin6_addr, bytes.size());
    return ip::address_v6(bytes, v6.sin6_scope_id);
  }
  return std::nullopt;
}

curl_socket_t open_checked_socket(void* context, curlsocktype purpose, curl_sockaddr* address) {
  auto& transfer = *static_cast<Transfer*>(context);
  const auto target = address_of(*address);
  if (purpose != CURLSOCKTYPE_IPCXN || !target ||
      std::find(transfer.allowed->begin(), transfer.allowed->end(), *target) == transfer.allowed->end()) {
    transfer.unchecked_address = target ? target->to_string() : "an address of family " + std::to_string(address->family);
    return CURL_SOCKET_BAD;
  }
  return ::socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
}

std::size_t keep_body(char* data, std::size_t size, std::size_t count, void* context) {
  auto& transfer = *static_cast<Transfer*>(context);
  const std::size_t length = size * count;
  const std::uint64_t room = transfer.limit - transfer.body.size();
  if (length <= room) {
    transfer.body.append(data, length);
    return length;
  }
  // Keep what fits and stop the transfer: anything short of `length` does.
  transfer.body.append(data, static_cast<std::size_t>(room));
  transfer.truncated = true;
  return 0;
}

int poll_cancelled(void* context, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  const auto& transfer = *static_cast<Transfer*>(context);
  return transfer.cancelled && transfer.cancelled->load() ? 1 : 0;
}

struct EasyDeleter {
  void operator()(CURL* easy) const { curl_easy_cleanup(easy); }
};
struct MultiDeleter {
  void operator()(CURLM* multi) const { curl_multi_cleanup(multi); }
};
struct ListDeleter {
  void operator()(curl_slist* list) const { curl_slist_free_all(list); }
};
using Easy = std::unique_ptr<CURL, EasyDeleter>;
using Multi = std::unique_ptr<CURLM, MultiDeleter>;
using List = std::unique_ptr<curl_slist, ListDeleter>;

// Appends to a curl list; false when curl ran out of memory.
bool append(List& list, const std::string& line) {
  curl_slist* grown = curl_slist_append(list.get(), line.c_str());
  if (!grown) return false;
  (void)list.release();
  list.reset(grown);
  return true;
}

// The Location of the response, nullopt when absent, an error when several
// disagree (a malformed response: which one would be followed?).
Result<std::optional<std::string>> location_of(CURL* easy) {
  curl_header* header = nullptr;
  if (curl_easy_header(easy, "Location", 0, CURLH_HEADER, -1, &header) != CURLHE_OK) return std::nullopt;
  const std::string first = header->value;
  for (std::size_t i = 1; i < header->amount; ++i) {
    curl_header* other = nullptr;
    if (curl_easy_header(easy, "Location", i, CURLH_HEADER, -1, &other) == CURLHE_OK && first != other->value)
      return Error{"response has conflicting Location headers"};
  }
  return std::optional<std::string>(first);
}

class HopTransfer {
 public:
  explicit HopTransfer(const HopTarget& target)
      : url_(target.url), hop_(target.request), addresses_(target.addresses), user_agent_(target.user_agent),
        cancelled_(target.cancelled) {
    transfer_.allowed = &addresses_;
    transfer_.cancelled = target.cancelled;
    transfer_.limit = target.limit;
  }

  HopResult run(Clock::time_point deadline);

 private:
  // Sets every option; false (with error_) when curl refused one.
  bool configure(CURL* easy, std::chrono::milliseconds budget);
  template <class Value>
  bool set(CURL* easy, CURLoption option, Value value) {
    if (error_.empty() && curl_easy_setopt(easy, option, value) != CURLE_OK)
      error_ = "libcurl refused option " + std::to_string(static_cast<int>(option));
    return error_.empty();
  }

  const Url& url_;
  const HopRequest& hop_;
  const std::vector<ip::address>& addresses_;
  const std::string& user_agent_;
  const std::atomic<bool>* cancelled_;
  Transfer transfer_;
  List resolve_;
  List headers_;
  char curl_error_[CURL_ERROR_SIZE] = {};
  std::string error_;
};

bool HopTransfer::configure(CURL* easy, std::chrono::milliseconds budget) {
  if (url_.host_kind == HostKind::name) {
    const std::string pin = url_.host + ":" + std::to_string(url_.port) + ":" + address_list(addresses_);
    if (!append(resolve_, pin)) error_ = "out of memory";
  }
  for (const auto& [name, value] : hop_.headers) {
    // "Name:" would tell curl to drop a header; "Name;" sends it empty.
    if (!append(headers_, value.empty() ? name + ";" : name + ": " + value)) error_ = "out of memory";
  }
  const auto has_header = [&](std::string_view wanted) {
    return std::any_of(hop_.headers.begin(), hop_.headers.end(),
                       [&](const auto& header) { return iequals(header.first, wanted); });
  };
  const bool sends_body = hop_.method == "POST" || !hop_.body.empty();
  if (sends_body) {
    // curl would otherwise invent a form Content-Type and an Expect handshake.
    if (!has_header("Content-Type") && !append(headers_, "Content-Type:")) error_ = "out of memory";
    if (!has_header("Expect") && !append(headers_, "Expect:")) error_ = "out of memory";
  }

  set(easy, CURLOPT_ERRORBUFFER, curl_error_);
  set(easy, CURLOPT_URL, url_.text.c_str());
  set(easy, CURLOPT_PROTOCOLS_STR, "http,https");
  set(easy, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  set(easy, CURLOPT_FOLLOWLOCATION, 0L);
  set(easy, CURLOPT_PATH_AS_IS, 1L);
  set(easy, CURLOPT_NOSIGNAL, 1L);
  // Environment proxies would move the connection (and the name lookup) elsewhere.
  set(easy, CURLOPT_PROXY, "");
  set(easy, CURLOPT_NOPROXY, "*");
  // HSTS and alt-svc could send a later request elsewhere than checked. HSTS
  // is switched off explicitly; alt-svc is off while no CURLOPT_ALTSVC* is
  // set (curl refuses CURLOPT_ALTSVC_CTRL 0), so neither is ever set here.
  set(easy, CURLOPT_HSTS_CTRL, 0L);
  set(easy, CURLOPT_HTTP_CONTENT_DECODING, 0L);
  set(easy, CURLOPT_SSL_VERIFYPEER, 1L);
  set(easy, CURLOPT_SSL_VERIFYHOST, 2L);
  set(easy, CURLOPT_TIMEOUT_MS, static_cast<long>(std::max<std::int64_t>(budget.count(), 1)));
  set(easy, CURLOPT_USERAGENT, user_agent_.c_str());
  if (resolve_) set(easy, CURLOPT_RESOLVE, resolve_.get());
  if (headers_) set(easy, CURLOPT_HTTPHEADER, headers_.get());
  set(easy, CURLOPT_OPENSOCKETFUNCTION, open_checked_socket);
  set(easy, CURLOPT_OPENSOCKETDATA, &transfer_);
  set(easy, CURLOPT_WRITEFUNCTION, keep_body);
  set(easy, CURLOPT_WRITEDATA, &transfer_);
  set(easy, CURLOPT_NOPROGRESS, 0L);
  set(easy, CURLOPT_XFERINFOFUNCTION, poll_cancelled);
  set(easy, CURLOPT_XFERINFODATA, &transfer_);

  if (hop_.method == "HEAD") {
    set(easy, CURLOPT_NOBODY, 1L);
  } else if (sends_body) {
    set(easy, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(hop_.body.size()));
    set(easy, CURLOPT_POSTFIELDS, hop_.body.data());
    if (hop_.method != "POST") set(easy, CURLOPT_CUSTOMREQUEST, hop_.method.c_str());
  } else if (hop_.method != "GET") {
    set(easy, CURLOPT_CUSTOMREQUEST, hop_.method.c_str());
  }
  return error_.empty();
}

HopResult HopTransfer::run(Clock::time_point deadline) {
  HopResult result;
  const auto budget = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  Easy easy(curl_easy_init());
  Multi multi(curl_multi_init());
  if (!easy || !multi) {
    result.status = AIRLOCK_STATUS_NETWORK_ERROR;
    result.error = "libcurl could not create a transfer";
    return result;
  }
  if (!configure(easy.get(), budget)) {
    result.status = AIRLOCK_STATUS_NETWORK_ERROR;
    result.error = error_;
    return result;
  }

  bool cancelled = false;
  bool timed_out = false;
  CURLcode code = CURLE_OK;
  curl_multi_add_handle(multi.get(), easy.get());
  for (;;) {
    int running = 0;
    if (const CURLMcode rc = curl_multi_perform(multi.get(), &running); rc != CURLM_OK) {
      code = CURLE_RECV_ERROR;
      error_ = curl_multi_strerror(rc);
      break;
    }
    if (running == 0) {
      int queued = 0;
      while (const CURLMsg* message = curl_multi_info_read(multi.get(), &queued)) {
        if (message->msg == CURLMSG_DONE) code = message->data.result;
      }
      break;
    }
    if (cancelled_ && cancelled_->load()) {
      cancelled = true;
      break;
    }
    // curl enforces the same deadline; this only guards against it not noticing.
    if (Clock::now() > deadline + 2 * kPollInterval) {
      timed_out = true;
      break;
    }
    curl_multi_poll(multi.get(), nullptr, 0, static_cast<int>(kPollInterval.count()), nullptr);
  }

  char* primary_ip = nullptr;
  if (curl_easy_getinfo(easy.get(), CURLINFO_PRIMARY_IP, &primary_ip) == CURLE_OK && primary_ip)
    result.address = primary_ip;
  curl_easy_getinfo(easy.get(), CURLINFO_RESPONSE_CODE, &result.http_status);
  char* content_type = nullptr;
  if (curl_easy_getinfo(easy.get(), CURLINFO_CONTENT_TYPE, &content_type) == CURLE_OK && content_type)
    result.content_type = content_type;
  auto location = location_of(easy.get());
  curl_multi_remove_handle(multi.get(), easy.get());

  result.body = std::move(transfer_.body);
  result.truncated = transfer_.truncated;
  const std::string detail = curl_error_[0] ? std::string(curl_error_) : std::string(curl_easy_strerror(code));
  if (cancelled || code == CURLE_ABORTED_BY_CALLBACK) {
    result.status = AIRLOCK_STATUS_CANCELLED;
    result.error = "fetch of " + url_.text + " was cancelled";
  } else if (timed_out || code == CURLE_OPERATION_TIMEDOUT) {
    result.status = AIRLOCK_STATUS_TIMEOUT;
    result.error = "fetch of " + url_.text + " timed out";
  } else if (!transfer_.unchecked_address.empty()) {
    result.status = AIRLOCK_STATUS_DENIED;
    result.error = "egress denied: " + url_.text + ": the connection went to " + transfer_.unchecked_address +
                   ", which the host did not check; nothing was sent";
  } else if (code == CURLE_WRITE_ERROR && transfer_.truncated) {
    result.status = AIRLOCK_STATUS_OK;  // cut at the limit on purpose: the response is what was kept
  } else if (code != CURLE_OK) {
    result.status = AIRLOCK_STATUS_NETWORK_ERROR;
    result.error = "fetch of " + url_.text + " failed: " + (error_.empty() ? detail : error_);
  } else {
    result.status = AIRLOCK_STATUS_OK;
  }
  if (!location) {
    result.location_error = location.error().message;
  } else if (*location) {
    result.location = **location;
  }
  return result;
}

}  // namespace

}  // namespace airlock::host

// The module's two exports (egress/hop.hpp): its ABI, checked before the
// host calls anything, and the hop itself. C names, so the host finds them
// without knowing a mangling; C++ types, since host and module are one build.
extern "C" {
BOOST_SYMBOL_EXPORT extern const int airlock_hop_abi;
const int airlock_hop_abi = airlock::host::kHopAbi;

BOOST_SYMBOL_EXPORT void airlock_run_hop(const airlock::host::HopTarget& target, airlock::host::HopResult& result) {
  if (airlock::host::initialize_curl() != CURLE_OK) {
    result.status = AIRLOCK_STATUS_NETWORK_ERROR;
    result.error = "libcurl failed to initialize";
    return;
  }
  result = airlock::host::HopTransfer(target).run(target.deadline);
}
}
