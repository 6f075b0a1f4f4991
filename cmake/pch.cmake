# Precompiled headers (cmake/pch/*.hpp) for the targets with many host C++ files. What they save
# and how it was measured: docs/building.md ("Build time").
#
# ON by default, except when a compiler launcher (ccache) is configured: ccache caches a file
# compiled against a precompiled header only with extra settings (sloppiness=pch_defines,
# time_macros and -fpch-preprocess), and without them it compiles every such file uncached,
# which is slower for a developer than no precompiled header.
if(CMAKE_CXX_COMPILER_LAUNCHER)
  set(gpuqual_pch_default OFF)
else()
  set(gpuqual_pch_default ON)
endif()
option(GPUQUAL_PCH "Precompile the common standard and third-party headers" ${gpuqual_pch_default})

# gpuqual_precompile(TARGET [TESTS]): host C++ files only (nvcc's .cu files never see it).
function(gpuqual_precompile target)
  if(NOT GPUQUAL_PCH)
    return()
  endif()
  set(header ${PROJECT_SOURCE_DIR}/cmake/pch/common.hpp)
  if("TESTS" IN_LIST ARGN)
    set(header ${PROJECT_SOURCE_DIR}/cmake/pch/tests.hpp)
  endif()
  target_precompile_headers(${target} PRIVATE "$<$<COMPILE_LANGUAGE:CXX>:${header}>")
endfunction()
