# The Debian packages, built by CPack from the install rules:
#   airlock      component runtime (bin/airlock, lib/airlock/plugins/*.so)
#                and component system (/etc/airlock/airlock.toml, the systemd
#                unit, the README), with postinst/prerm/postrm;
#   airlock-dev  component dev (headers, the CMake package, airlock.pc,
#                libairlock-testing).
# `system` is a component of its own because its destinations are absolute:
# `cmake --install --component runtime --prefix P` (tests/packaging) must
# never write to the real /etc.
#
#   cmake --workflow --preset package     -> build/release/airlock*_<version>_<arch>.deb
#
# The version is project(VERSION), nothing else.

set(AIRLOCK_PACKAGING_DIR ${CMAKE_CURRENT_LIST_DIR})

install(FILES ${AIRLOCK_PACKAGING_DIR}/airlock.toml DESTINATION /etc/airlock COMPONENT system)
install(FILES ${AIRLOCK_PACKAGING_DIR}/airlock.service DESTINATION /lib/systemd/system COMPONENT system)
install(FILES ${AIRLOCK_PACKAGING_DIR}/airlock.logrotate DESTINATION /etc/logrotate.d RENAME airlock COMPONENT system)
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/airlock
        COMPONENT system)

# dpkg keeps an operator's edits to these across upgrades.
file(CONFIGURE OUTPUT ${PROJECT_BINARY_DIR}/packaging/conffiles
     CONTENT "/etc/airlock/airlock.toml\n/etc/logrotate.d/airlock\n")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME airlock)
set(CPACK_PACKAGE_VENDOR "airlock")
set(CPACK_PACKAGE_CONTACT "airlock maintainers <maintainers@airlock.invalid>")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
# The packages are for a system install; /etc and the unit are absolute anyway.
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_PACKAGE_DIRECTORY ${PROJECT_BINARY_DIR})

set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL runtime system dev)
set(CPACK_COMPONENT_RUNTIME_GROUP airlock)
set(CPACK_COMPONENT_SYSTEM_GROUP airlock)
set(CPACK_COMPONENTS_GROUPING ONE_PER_GROUP)

set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# Run-time dependencies come from the ELF files themselves (dpkg-shlibdeps):
# libcurl4, libre2-9, libssl3, libspdlog1.10, libfmt9, ... whatever was linked.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)

set(CPACK_DEBIAN_AIRLOCK_PACKAGE_NAME airlock)
# The first line is the synopsis; CPack indents the rest as Debian wants.
set(CPACK_DEBIAN_AIRLOCK_DESCRIPTION "MCP server host for sanitized tool plugins
airlock serves tools from plugins (shared objects built against a stable C
ABI) over MCP, stdio or Streamable HTTP, and passes every result through a
chain of sanitizers. This package holds the server, the first-party
sanitizers and tools, a configuration in /etc/airlock and a systemd unit
(not enabled) that runs it as the unprivileged user airlock.")
# postinst creates the system user with adduser.
set(CPACK_DEBIAN_AIRLOCK_PACKAGE_DEPENDS "adduser")
set(CPACK_DEBIAN_AIRLOCK_PACKAGE_CONTROL_EXTRA
    ${PROJECT_BINARY_DIR}/packaging/conffiles
    ${AIRLOCK_PACKAGING_DIR}/debian/postinst
    ${AIRLOCK_PACKAGING_DIR}/debian/prerm
    ${AIRLOCK_PACKAGING_DIR}/debian/postrm)

set(CPACK_DEBIAN_DEV_PACKAGE_NAME airlock-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEV_DESCRIPTION "SDK for airlock plugins and tool packs
Headers (airlock.h, the C ABI; airlock.hpp, its C++ layer on Boost.JSON),
the CMake package (find_package(airlock): airlock::sdk, airlock::testing,
airlock_add_plugin), airlock.pc for C builds, and libairlock-testing, the
contract harness for a vendor's GoogleTest suite.")
# The SDK of exactly this server; airlock.hpp is written on Boost.JSON.
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "airlock (= ${PROJECT_VERSION}), libboost-json1.81-dev")
# airlock::testing links the consumer's GoogleTest.
set(CPACK_DEBIAN_DEV_PACKAGE_RECOMMENDS "libgtest-dev")
set(CPACK_DEBIAN_DEV_PACKAGE_SUGGESTS "cmake, pkg-config")

include(CPack)
