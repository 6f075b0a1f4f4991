# Install tree (`cmake --install <builddir> --prefix <prefix>`), used by the container image:
#   <prefix>/bin/gpuqual
#   <prefix>/share/gpuqual/suites/*.yaml      suite definitions (--suite <name>)
#   <prefix>/share/gpuqual/baselines/*        per-class baselines and the CUDA/driver compat data
#   <prefix>/share/gpuqual/schemas/*          JSON Schemas of the run record and the verdict
# The binary finds its data relative to itself (<exe>/../share/gpuqual/...), so the tree can be
# moved as a whole. Directories are globbed at install time: data added later needs no edit here.
include(GNUInstallDirs)

# Keep the CUDA toolkit's library directory (cudart, cuBLAS, NCCL) on the installed binary's
# RPATH: CMake drops the build RPATH on install, and the toolkit directory is the same in the
# NVIDIA CUDA images as on a development machine.
set_target_properties(gpuqual PROPERTIES INSTALL_RPATH_USE_LINK_PATH TRUE)
install(TARGETS gpuqual RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

set(GPUQUAL_DATA_DIR ${CMAKE_INSTALL_DATADIR}/gpuqual)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/suites/ DESTINATION ${GPUQUAL_DATA_DIR}/suites
        FILES_MATCHING PATTERN "*.yaml" PATTERN "*.yml")
install(DIRECTORY ${PROJECT_SOURCE_DIR}/baselines/ DESTINATION ${GPUQUAL_DATA_DIR}/baselines
        FILES_MATCHING PATTERN "*.yaml" PATTERN "*.yml" PATTERN "*.json" PATTERN "*.csv" PATTERN "*.md")
install(DIRECTORY ${PROJECT_SOURCE_DIR}/schemas/ DESTINATION ${GPUQUAL_DATA_DIR}/schemas
        FILES_MATCHING PATTERN "*.json")
# Kubernetes helpers (the Job wrapper, node-label reader and verdict labeller): POSIX sh.
install(PROGRAMS
          ${PROJECT_SOURCE_DIR}/containers/bin/gpuqual-k8s-run
          ${PROJECT_SOURCE_DIR}/containers/bin/gpuqual-node-labels
          ${PROJECT_SOURCE_DIR}/containers/bin/gpuqual-label-node
          ${PROJECT_SOURCE_DIR}/containers/bin/gpuqual-node-condition
          ${PROJECT_SOURCE_DIR}/containers/bin/gpuqual-node-taint
          ${PROJECT_SOURCE_DIR}/containers/bin/gpuqual-dra-objects
        DESTINATION ${CMAKE_INSTALL_BINDIR})
