# Finds Debian's LLVM/MLIR 19 and sets up TableGen for the compiler side.
# Compiler targets link the two shared libraries (libMLIR.so, libLLVM.so);
# mixing them with the static MLIR* archives would register options twice.
# MLIR's config accepts only its exact version, so check the major by hand.
find_package(MLIR REQUIRED CONFIG PATHS /usr/lib/llvm-19/lib/cmake/mlir
             NO_DEFAULT_PATH)
if(NOT LLVM_VERSION_MAJOR EQUAL 19)
  message(FATAL_ERROR "etch needs LLVM/MLIR 19, found ${LLVM_PACKAGE_VERSION}")
endif()
message(STATUS "etch: MLIR from ${MLIR_DIR}, LLVM ${LLVM_PACKAGE_VERSION}")

list(APPEND CMAKE_MODULE_PATH "${MLIR_CMAKE_DIR}" "${LLVM_CMAKE_DIR}")
include(TableGen)
include(AddLLVM)
include(AddMLIR)

set(ETCH_LLVM_TOOLS_DIR "${LLVM_TOOLS_BINARY_DIR}")

# Compiler-side code follows LLVM: no RTTI, no exceptions unless LLVM has them.
add_library(etch_compiler_options INTERFACE)
target_include_directories(etch_compiler_options SYSTEM INTERFACE
  ${LLVM_INCLUDE_DIRS} ${MLIR_INCLUDE_DIRS})
target_include_directories(etch_compiler_options INTERFACE
  $<BUILD_INTERFACE:${ETCH_SOURCE_DIR}> $<BUILD_INTERFACE:${ETCH_SOURCE_DIR}/include>
  $<BUILD_INTERFACE:${ETCH_BINARY_DIR}/include>
  $<BUILD_INTERFACE:${ETCH_SOURCE_DIR}/dialects>
  $<BUILD_INTERFACE:${ETCH_BINARY_DIR}/dialects>
  $<INSTALL_INTERFACE:${ETCH_SDK_HEADERS}>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>
  $<INSTALL_INTERFACE:${ETCH_SDK_HEADERS}/dialects>)
target_compile_definitions(etch_compiler_options INTERFACE ${LLVM_DEFINITIONS})
if(NOT LLVM_ENABLE_RTTI)
  target_compile_options(etch_compiler_options INTERFACE -fno-rtti)
endif()
target_link_libraries(etch_compiler_options INTERFACE MLIR LLVM)

# add_etch_compiler_library(name SRCS... [DEPENDS tblgen-targets...] [LINK libs...])
function(add_etch_compiler_library name)
  cmake_parse_arguments(ARG "" "" "SRCS;DEPENDS;LINK" ${ARGN})
  add_library(${name} STATIC ${ARG_SRCS})
  target_link_libraries(${name} PUBLIC etch_compiler_options ${ARG_LINK})
  if(ARG_DEPENDS)
    add_dependencies(${name} ${ARG_DEPENDS})
  endif()
endfunction()

# mlir_tablegen reads its directory's include paths to find mlir/IR/*.td;
# only the folders with .td files call this, so runtime code never sees them.
macro(etch_tablegen_include_directories)
  include_directories(SYSTEM ${LLVM_INCLUDE_DIRS} ${MLIR_INCLUDE_DIRS})
  include_directories(${ETCH_SOURCE_DIR}/dialects)
endmacro()
