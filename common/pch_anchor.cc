// The one source of powersweep_pch (CMakeLists.txt): the target exists to
// build the precompiled headers the project's sources reuse.
