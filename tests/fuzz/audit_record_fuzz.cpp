// audit_record_fuzz — host/audit: one line of an audit trail as `airlock
// audit verify` reads it, OCSF or CEF. Whoever can write the file can put
// anything there, and the verifier is what must not be fooled or crash.
// Asserts no crash or exception, and that a line taken for a record carries
// a link the chain can check: a replica name, a sequence number from 1 and
// a prev of 64 lowercase hex digits.
#include "audit/audit_chain.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace airlock::host::audit;
  const std::string_view line(reinterpret_cast<const char*>(data), size);
  const auto record = parse_record(line);
  if (!record) return 0;
  const auto& link = record->link;
  bool hex = link.prev.size() == 64;
  for (const char c : link.prev) hex = hex && ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'));
  if (link.replica.empty() || link.seq == 0 || !hex) {
    std::fprintf(stderr, "audit record: a link the chain cannot check: replica '%s' seq %llu prev '%s'\n",
                 link.replica.c_str(), static_cast<unsigned long long>(link.seq), link.prev.c_str());
    std::abort();
  }
  if (line_hash(line).size() != 64) std::abort();
  return 0;
}
