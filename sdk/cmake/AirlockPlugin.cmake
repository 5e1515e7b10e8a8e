# airlock_add_plugin(NAME SOURCES...) builds a plugin the way a vendor would:
# a MODULE library with hidden visibility, so only the two entry points that
# airlock.h marks with AIRLOCK_PLUGIN_EXPORT leave the shared object.
function(airlock_add_plugin name)
  add_library(${name} MODULE ${ARGN})
  target_link_libraries(${name} PRIVATE airlock::sdk)
  set_target_properties(${name} PROPERTIES
    PREFIX ""
    C_VISIBILITY_PRESET hidden
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  if(DEFINED AIRLOCK_PLUGIN_OUTPUT_DIR)
    set_target_properties(${name} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${AIRLOCK_PLUGIN_OUTPUT_DIR})
  endif()
endfunction()
