// Where audit records go: a file (appended to, reopened on SIGHUP so
// logrotate works), stderr, or syslog as RFC 5424 messages on a UNIX
// datagram socket. Only the trail's writer thread uses a sink.
#pragma once

#include "audit/audit_chain.hpp"
#include "audit/audit_event.hpp"
#include "config/host_config.hpp"
#include "util/error.hpp"

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

namespace airlock::host::audit {

class Sink {
 public:
  virtual ~Sink() = default;

  // Writes one record (a line, or a datagram for syslog). On an error
  // nothing of it stays written, so the record can be written again.
  virtual Result<void> write(std::string_view record, Severity severity) = 0;
  // Whether write_lines() takes several records in one write: a stream
  // (file, stderr) does; syslog's datagrams are one record each.
  virtual bool writes_lines() const { return false; }
  // Writes records already joined, each followed by '\n', in one go; all or
  // nothing, like write(). Only when writes_lines().
  virtual Result<void> write_lines(std::string_view lines) { return write(lines, Severity::informational); }

  // Closes and opens again (SIGHUP); a file sink opens whatever file is at
  // its path now.
  virtual Result<void> reopen() = 0;

  // Where the last open found the file to end: the chain to continue and a
  // torn line that was cut off. Empty for sinks that are not files.
  virtual FileTail tail() const { return {}; }

  // What the sink writes to, for messages: a path, "stderr".
  virtual std::string describe() const = 0;
};

// A file opened O_APPEND, created 0600. A torn last line (no newline: a
// write cut short) is cut off; tail() says how many bytes went.
Result<std::unique_ptr<Sink>> open_file_sink(const std::filesystem::path& path);

Result<std::unique_ptr<Sink>> open_stderr_sink();

// RFC 5424 messages, facility authpriv, on the UNIX datagram socket at
// `socket_path` (/dev/log by default): "<PRI>1 TIMESTAMP HOSTNAME airlock
// PID audit - RECORD". A socket that is not there yet is connected again at
// each write, so syslog may start after airlock.
Result<std::unique_ptr<Sink>> open_syslog_sink(const std::filesystem::path& socket_path);

// The sink `config` names.
Result<std::unique_ptr<Sink>> open_sink(const AuditConfig& config);

// The syslog severity of a record (RFC 5424 numbers: 6 informational, 5
// notice, 4 warning, 3 error).
int syslog_severity(Severity severity) noexcept;

// The RFC 5424 header "<PRI>1 TIMESTAMP HOSTNAME airlock PID audit - ".
std::string syslog_header(Severity severity, std::string_view host_name, long pid);

// The machine's name, as gethostname gives it ("localhost" when it fails).
std::string host_name();

}  // namespace airlock::host::audit
