// The one source of powersweep_tests_pch (tests/CMakeLists.txt): the
// target exists to build the precompiled gtest and gmock headers.
