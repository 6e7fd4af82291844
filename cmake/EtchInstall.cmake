# `cmake --install` writes an SDK into a prefix: headers, the static
# libraries and libetch.so, the tools, a CMake package (find_package(etch))
# and a pkg-config file for the C API. docs/sdk.md describes it.
include(CMakePackageConfigHelpers)

set(ETCH_CMAKE_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/etch)

# What users link. Each umbrella is an INTERFACE target exported as
# etch::<name>; the libraries behind them export as etch::<library>.
function(etch_sdk_umbrella name)
  add_library(etch_sdk_${name} INTERFACE)
  target_link_libraries(etch_sdk_${name} INTERFACE ${ARGN})
  set_target_properties(etch_sdk_${name} PROPERTIES EXPORT_NAME ${name})
endfunction()
etch_sdk_umbrella(runtime etch_runtime etch_backends)
etch_sdk_umbrella(llm etch_llm_runner etch_chat etch_tokenizer
                  etch_tokenizer_sentencepiece)
set_target_properties(etch_c PROPERTIES EXPORT_NAME c)
set_target_properties(etch_c_shared PROPERTIES EXPORT_NAME c_shared)
set(ETCH_SDK_ROOTS etch_sdk_runtime etch_sdk_llm etch_c etch_c_shared)
if(ETCH_BUILD_COMPILER)
  etch_sdk_umbrella(compiler EtchImport EtchPipeline EtchSerialize EtchTargets
                    EtchEdgeDialect etch_npy)
  list(APPEND ETCH_SDK_ROOTS etch_sdk_compiler)
endif()

# The export set must hold every etch library the roots reach; walk their
# link interfaces rather than keep a second list of libraries here.
function(etch_sdk_closure out)
  set(pending ${ARGN})
  set(found "")
  while(pending)
    list(POP_FRONT pending name)
    string(REGEX REPLACE "^\\$<LINK_ONLY:(.+)>$" "\\1" name "${name}")
    if(NOT TARGET ${name} OR name IN_LIST found)
      continue()
    endif()
    get_target_property(imported ${name} IMPORTED)
    if(imported)
      continue()
    endif()
    list(APPEND found ${name})
    get_target_property(links ${name} INTERFACE_LINK_LIBRARIES)
    if(links)
      list(APPEND pending ${links})
    endif()
  endwhile()
  set(${out} ${found} PARENT_SCOPE)
endfunction()
etch_sdk_closure(ETCH_SDK_LIBRARIES ${ETCH_SDK_ROOTS})

install(TARGETS ${ETCH_SDK_LIBRARIES} EXPORT etchTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(EXPORT etchTargets NAMESPACE etch:: DESTINATION ${ETCH_CMAKE_INSTALL_DIR})

# The tools, finding Debian's LLVM/MLIR where they were linked.
set(ETCH_SDK_TOOLS et-run et-llm)
if(ETCH_BUILD_COMPILER)
  list(APPEND ETCH_SDK_TOOLS et-compile et-opt)
endif()
set_target_properties(${ETCH_SDK_TOOLS} etch_c_shared PROPERTIES
                      INSTALL_RPATH_USE_LINK_PATH ON)
install(TARGETS ${ETCH_SDK_TOOLS} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# Headers: the C API at include/etch/c; the C++ headers (runtime, targets,
# compiler) at include/etch/sdk as they sit in the tree, generated ones
# beside them.
install(DIRECTORY ${ETCH_SOURCE_DIR}/include/etch ${ETCH_BINARY_DIR}/include/etch
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h" PATTERN "*.inc" PATTERN "*.td")
foreach(folder runtime targets lib dialects tools)
  install(DIRECTORY ${ETCH_SOURCE_DIR}/${folder} DESTINATION ${ETCH_SDK_HEADERS}
          FILES_MATCHING PATTERN "*.h" PATTERN "*.inc" PATTERN "*.td")
endforeach()
install(DIRECTORY ${ETCH_BINARY_DIR}/generated/ DESTINATION ${ETCH_SDK_HEADERS}
        FILES_MATCHING PATTERN "*.h")
if(ETCH_BUILD_COMPILER)
  install(DIRECTORY ${ETCH_BINARY_DIR}/dialects
          DESTINATION ${ETCH_SDK_HEADERS} FILES_MATCHING PATTERN "*.inc")
endif()

configure_package_config_file(${ETCH_SOURCE_DIR}/cmake/etchConfig.cmake.in
  ${ETCH_BINARY_DIR}/etchConfig.cmake INSTALL_DESTINATION ${ETCH_CMAKE_INSTALL_DIR})
write_basic_package_version_file(${ETCH_BINARY_DIR}/etchConfigVersion.cmake
  VERSION ${ETCH_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${ETCH_BINARY_DIR}/etchConfig.cmake
              ${ETCH_BINARY_DIR}/etchConfigVersion.cmake
        DESTINATION ${ETCH_CMAKE_INSTALL_DIR})

configure_file(${ETCH_SOURCE_DIR}/cmake/etch.pc.in ${ETCH_BINARY_DIR}/etch.pc @ONLY)
install(FILES ${ETCH_BINARY_DIR}/etch.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
