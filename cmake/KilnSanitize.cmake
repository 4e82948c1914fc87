# A sanitized build of Kiln and of its test suite (issue #27, part 2).
#
#   cmake -DKILN_SANITIZE=address,undefined ...
#
# instruments Kiln's own code (every library, tool, runtime and test of this
# project) with `-fsanitize=<list>`. LLVM and MLIR stay Debian's
# uninstrumented libraries, so what this checks is Kiln's code and the LLVM
# and MLIR headers it inlines. The rest of the suite follows the option:
#
# - Every C program a test compiles gets the same flags: lit's `%kiln_cflags`
#   (test/lit.cfg.py), the AOT compiler's own `cc` runs (the entry points and
#   host allocator it compiles into every library; KILN_SANITIZE_CFLAGS in
#   lib/Execution), and the consumers of the installed package, whose Kiln
#   targets carry the link flags in INTERFACE_LINK_OPTIONS.
# - Every ctest entry runs with the options the uninstrumented LLVM needs
#   (kiln_sanitize_tests(), called where the tests are added):
#   `allow_user_poisoning=0`, because LLVM's BumpPtrAllocator (Allocator.h)
#   poisons its slabs from Kiln's instrumented inline code while the
#   uninstrumented libMLIR.so writes into them, which AddressSanitizer would
#   report as use-after-poison in MLIR's own code; and
#   `allocator_may_return_null=1`, so that an allocation too large for the
#   machine fails as glibc's does (NULL, which Kiln reports as an error)
#   instead of aborting the process.
# - The Python tests load Kiln's libraries into an uninstrumented python: the
#   sanitizer runtimes are preloaded there, without leak checking (CPython and
#   torch keep their allocations until exit by design).
# - The GPU emulator's death tests expect its own SIGSEGV report; its ctest
#   entry runs with `handle_segv=0` so that AddressSanitizer leaves SIGSEGV
#   to the emulator (a real fault there still fails the test, unreported).
#
# Undefined behaviour is fatal (-fno-sanitize-recover=all): a test that meets
# it fails instead of printing a line nobody reads.
set(KILN_SANITIZE "" CACHE STRING
  "Sanitizers for Kiln's code, as -fsanitize= takes them (e.g. address,undefined); empty: none")

set(KILN_SANITIZE_CFLAGS "")
set(KILN_SANITIZE_LINK_FLAGS "")
set(KILN_SANITIZE_TEST_ENVIRONMENT "")
set(KILN_SANITIZE_PRELOAD "")

if(KILN_SANITIZE)
  if(NOT KILN_SANITIZE MATCHES "^[a-z,-]+$")
    message(FATAL_ERROR "KILN_SANITIZE='${KILN_SANITIZE}' is not a "
      "comma-separated list of sanitizers (e.g. address,undefined)")
  endif()
  string(REPLACE "," ";" kiln_sanitizers "${KILN_SANITIZE}")
  foreach(sanitizer IN LISTS kiln_sanitizers)
    if(NOT sanitizer MATCHES "^(address|undefined|leak)$")
      message(FATAL_ERROR "KILN_SANITIZE: '${sanitizer}' is not supported "
        "(address, undefined and leak are: the others need an instrumented "
        "LLVM and MLIR, which Debian does not ship)")
    endif()
  endforeach()
  set(KILN_SANITIZE_CFLAGS
    -fsanitize=${KILN_SANITIZE} -fno-sanitize-recover=all
    -fno-omit-frame-pointer -g1)
  set(KILN_SANITIZE_LINK_FLAGS -fsanitize=${KILN_SANITIZE})
  include(CheckCSourceCompiles)
  set(CMAKE_REQUIRED_FLAGS "-fsanitize=${KILN_SANITIZE}")
  set(CMAKE_REQUIRED_LINK_OPTIONS "-fsanitize=${KILN_SANITIZE}")
  check_c_source_compiles("int main(void) { return 0; }" KILN_SANITIZE_WORKS)
  unset(CMAKE_REQUIRED_FLAGS)
  unset(CMAKE_REQUIRED_LINK_OPTIONS)
  if(NOT KILN_SANITIZE_WORKS)
    message(FATAL_ERROR "KILN_SANITIZE=${KILN_SANITIZE}: ${CMAKE_C_COMPILER} "
      "cannot link with -fsanitize=${KILN_SANITIZE} (on Debian: apt-get "
      "install libasan8 libubsan1 for GCC 12)")
  endif()
  add_compile_options(${KILN_SANITIZE_CFLAGS})
  # Kiln's own code at -O1, AddressSanitizer's recommended level, after the
  # build type's -O3 (the later flag wins): the instrumented build is the
  # longest part of CI (README, "The sanitized suite in CI").
  set(KILN_SANITIZE_OPTIMIZE "-O1" CACHE STRING
    "Optimization flag of Kiln's code in a sanitized build")
  add_compile_options(${KILN_SANITIZE_OPTIMIZE})
  add_link_options(${KILN_SANITIZE_LINK_FLAGS})

  set(asan_options
    "allow_user_poisoning=0:allocator_may_return_null=1:detect_leaks=1")
  set(ubsan_options "print_stacktrace=1:halt_on_error=1")
  set(KILN_SANITIZE_TEST_ENVIRONMENT
    "ASAN_OPTIONS=${asan_options}" "UBSAN_OPTIONS=${ubsan_options}")
  # The runtimes an uninstrumented host process must load first.
  foreach(sanitizer IN LISTS kiln_sanitizers)
    if(sanitizer STREQUAL "address")
      set(runtime libasan.so)
    elseif(sanitizer STREQUAL "undefined")
      set(runtime libubsan.so)
    else()
      continue()
    endif()
    execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=${runtime}
      OUTPUT_VARIABLE path OUTPUT_STRIP_TRAILING_WHITESPACE)
    get_filename_component(path "${path}" REALPATH)
    if(NOT EXISTS "${path}")
      message(FATAL_ERROR "KILN_SANITIZE: ${CMAKE_C_COMPILER} names no ${runtime}")
    endif()
    list(APPEND KILN_SANITIZE_PRELOAD "${path}")
  endforeach()
  message(STATUS "Kiln is instrumented with -fsanitize=${KILN_SANITIZE}")
endif()

# kiln_sanitize_tests(): gives every ctest entry of the calling directory the
# sanitizer options (see above), followed by the test's own
# (kiln_sanitize_test_options); nothing without KILN_SANITIZE. Call it at the
# end of each CMakeLists.txt that adds tests.
function(kiln_sanitize_tests)
  if(NOT KILN_SANITIZE)
    return()
  endif()
  get_property(tests DIRECTORY PROPERTY TESTS)
  foreach(test IN LISTS tests)
    get_property(extra TEST ${test} PROPERTY KILN_ASAN_OPTIONS)
    set(environment ${KILN_SANITIZE_TEST_ENVIRONMENT})
    if(extra)
      list(TRANSFORM environment REPLACE "^(ASAN_OPTIONS=.*)$" "\\1:${extra}")
    endif()
    set_property(TEST ${test} APPEND PROPERTY ENVIRONMENT ${environment})
  endforeach()
endfunction()

# kiln_sanitize_test_options(test option...): AddressSanitizer options for
# one test, after (and so overriding) the common ones.
function(kiln_sanitize_test_options test)
  list(JOIN ARGN ":" extra)
  set_property(TEST ${test} PROPERTY KILN_ASAN_OPTIONS "${extra}")
endfunction()
