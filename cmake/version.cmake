# Generates version_info.cpp at build time (not configure time), so the git revision printed by
# `gpuqual --version` is the one the binary was built from. The file is rewritten only when its
# content changes, so an unchanged tree does not relink.
set(GPUQUAL_VERSION_CPP ${CMAKE_BINARY_DIR}/generated/version_info.cpp)
add_custom_target(gpuqual_version_info
  COMMAND ${CMAKE_COMMAND} -DOUT=${GPUQUAL_VERSION_CPP} -DVERSION=${PROJECT_VERSION}
          -DSRC=${CMAKE_SOURCE_DIR} -P ${CMAKE_SOURCE_DIR}/cmake/write_version.cmake
  BYPRODUCTS ${GPUQUAL_VERSION_CPP}
  COMMENT "" VERBATIM)
