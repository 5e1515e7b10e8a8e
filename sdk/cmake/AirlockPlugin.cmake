# airlock_add_plugin(NAME [CXX] SOURCES...) builds a plugin the way a vendor
# would: a MODULE library named NAME.so with hidden visibility and a linker
# version script, so exactly the two entry points airlock.h marks with
# AIRLOCK_PLUGIN_EXPORT leave the shared object. Inline and template code from
# Boost or libstdc++ (weak and GNU-unique symbols) would otherwise leak into
# the dynamic symbol table and could bind across plugins.
#
# A plugin with C++ sources (.cpp/.cc/.cxx), or given CXX, links Boost::json
# for airlock.hpp; a plugin in plain C links nothing at all.
#
# airlock_plugin_properties(TARGET) applies the same export rules to a plugin
# target made some other way (e.g. one built against a frozen older header).

function(airlock_plugin_properties name)
  # One per build tree (rewritten only if it changes): the only symbols any
  # plugin exports.
  set(version_script ${CMAKE_BINARY_DIR}/airlock_plugin.map)
  file(CONFIGURE OUTPUT ${version_script}
       CONTENT "{\n  global: airlock_plugin_abi_version; airlock_plugin_init;\n  local: *;\n};\n")
  set_target_properties(${name} PROPERTIES
    PREFIX ""
    C_VISIBILITY_PRESET hidden
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    LINK_DEPENDS ${version_script})
  target_link_options(${name} PRIVATE "LINKER:--version-script=${version_script}")
  if(DEFINED AIRLOCK_PLUGIN_OUTPUT_DIR)
    set_target_properties(${name} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${AIRLOCK_PLUGIN_OUTPUT_DIR})
  endif()
endfunction()

function(airlock_add_plugin name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "CXX" "" "")
  set(sources ${arg_UNPARSED_ARGUMENTS})
  add_library(${name} MODULE ${sources})
  target_link_libraries(${name} PRIVATE airlock::sdk)
  airlock_plugin_properties(${name})

  set(cxx ${arg_CXX})
  foreach(source IN LISTS sources)
    if(source MATCHES "\\.(cpp|cc|cxx|C)$")
      set(cxx ON)
    endif()
  endforeach()
  if(cxx)
    if(NOT TARGET Boost::json)
      find_package(Boost 1.81 CONFIG REQUIRED COMPONENTS json)
    endif()
    target_compile_features(${name} PRIVATE cxx_std_20)
    target_link_libraries(${name} PRIVATE Boost::json)
  endif()
endfunction()
