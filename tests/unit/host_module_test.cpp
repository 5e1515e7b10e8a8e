// Tests for finding and loading the host's own modules: the HTTP client and
// the PostgreSQL store, built in this tree, load; a module that is missing,
// from another build or not a module at all is refused, naming the file.
#include "util/host_module.hpp"

#include "egress/hop.hpp"
#include "tasks/task_store.hpp"
#include "util/crypto.hpp"
#include "util/sha256.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace airlock::host {
namespace {

using testing::AllOf;
using testing::EndsWith;
using testing::HasSubstr;

TEST(HostModule, IsFoundInTheBuildTree) {
  EXPECT_THAT(host_module_path("airlock-egress-curl.so").string(), EndsWith("/host/airlock-egress-curl.so"));
  EXPECT_THAT(host_module_path("airlock-tasks-postgres.so").string(), EndsWith("/host/airlock-tasks-postgres.so"));
  EXPECT_THAT(host_module_path("airlock-crypto.so").string(), EndsWith("/host/airlock-crypto.so"));
}

TEST(HostModule, LoadsWhenItsAbiMatches) {
  const auto client = load_host_module("airlock-egress-curl.so", "airlock_hop_abi", kHopAbi);
  ASSERT_TRUE(client) << client.error().message;
  EXPECT_TRUE((*client)->has("airlock_run_hop"));
  const auto store = load_host_module("airlock-tasks-postgres.so", "airlock_tasks_postgres_abi", kTaskStoreAbi);
  ASSERT_TRUE(store) << store.error().message;
  EXPECT_TRUE((*store)->has("airlock_open_postgres_store"));
}

TEST(HostModule, TheCryptoModuleHashesWithLibcrypto) {
  const auto& crypto = crypto_functions();
  ASSERT_TRUE(crypto) << crypto.error().message;
  void* context = (*crypto)->new_sha256_context();
  ASSERT_NE(nullptr, context);
  std::array<std::uint8_t, 32> digest{};
  EXPECT_TRUE((*crypto)->sha256(context, "abc", 3, digest));
  (*crypto)->free_sha256_context(context);
  // FIPS 180-2, appendix B.1.
  EXPECT_EQ("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", sha256_hex(digest));
}

TEST(HostModule, AMissingModuleIsNamedWithWhyItCannotLoad) {
  const auto missing = load_host_module("airlock-no-such-module.so", "airlock_hop_abi", kHopAbi);
  ASSERT_FALSE(missing);
  EXPECT_THAT(missing.error().message,
              AllOf(HasSubstr("/airlock-no-such-module.so: cannot be loaded: "), HasSubstr("No such file")));
}

TEST(HostModule, AModuleFromAnotherBuildIsRefused) {
  const auto other = load_host_module("airlock-egress-curl.so", "airlock_hop_abi", kHopAbi + 1);
  ASSERT_FALSE(other);
  EXPECT_THAT(other.error().message,
              AllOf(HasSubstr("/airlock-egress-curl.so: was built for module ABI " + std::to_string(kHopAbi)),
                    HasSubstr("this server needs " + std::to_string(kHopAbi + 1))));
}

TEST(HostModule, ALibraryWithoutTheAbiSymbolIsNotAModule) {
  // The store's module is a module, but not the HTTP client.
  const auto wrong = load_host_module("airlock-tasks-postgres.so", "airlock_hop_abi", kHopAbi);
  ASSERT_FALSE(wrong);
  EXPECT_THAT(wrong.error().message,
              HasSubstr("/airlock-tasks-postgres.so: is not an airlock module (no airlock_hop_abi)"));
}

TEST(HostModule, AnEntryPointIsFoundOrTheModuleIsRefused) {
  using Entry = void(const HopTarget&, HopResult&);
  const auto entry =
      load_host_module_entry<Entry>("airlock-egress-curl.so", "airlock_hop_abi", kHopAbi, "airlock_run_hop");
  ASSERT_TRUE(entry) << entry.error().message;
  EXPECT_NE(nullptr, *entry);
  const auto missing =
      load_host_module_entry<Entry>("airlock-egress-curl.so", "airlock_hop_abi", kHopAbi, "airlock_no_such_entry");
  ASSERT_FALSE(missing);
  EXPECT_THAT(missing.error().message, HasSubstr("/airlock-egress-curl.so: exports no airlock_no_such_entry"));
}

}  // namespace
}  // namespace airlock::host
