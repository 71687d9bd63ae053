// Reading what nvcc/ptxas say about a kernel's resources: the `-Xptxas -v` report (registers,
// shared memory, stack, spills per kernel) and the messages with which the compiler rejects a
// kernel for its resources. Pure text functions: no process, no GPU.
//
// The report, as nvcc 13 prints it (all on stderr; sm_90 omits the cmem[0] figure):
//
//   ptxas info    : Compiling entry function '_Z14tile_transposeILi32EEvPfPKfi' for 'sm_80'
//   ptxas info    : Function properties for _Z14tile_transposeILi32EEvPfPKfi
//       0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
//   ptxas info    : Used 14 registers, used 1 barriers, 4224 bytes smem, 372 bytes cmem[0]
//
// Real captures, and the kernels they come from, are in tests/data/ptxas/.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/outcome.hpp"

namespace adaexplore {

/// One KernelResources per "Compiling entry function" line, in the order ptxas prints them (an
/// entry compiled for several architectures appears once per architecture; see `arch`).
/// Messages are found by their "ptxas info/warning/error/fatal" markers anywhere in the text, so
/// stdout and stderr concatenated without a newline between them still parse. "Function
/// properties" of non-entry functions (non-inlined callees) are skipped: their frames are in the
/// caller's cumulative stack size. Fields a report omits stay 0; never throws.
std::vector<KernelResources> parse_ptxas_report(const std::string& compiler_output);

/// "void tile_transpose<32>(float*, float const*, int)" from "_Z14tile_transposeILi32EEvPfPKfi";
/// the name unchanged when it is not a mangled C++ name ("vector_add" from extern "C").
std::string demangle(const std::string& mangled);

/// The resource a limit is about. `threads` comes only from the static check (resource_check.hpp).
enum class Resource {
  shared_memory,    ///< shared memory per block, bytes
  local_memory,     ///< local memory (stack) per thread, bytes
  constant_memory,  ///< a constant bank, bytes
  parameter_space,  ///< kernel parameters, bytes
  registers,        ///< registers per thread or per block
  threads,          ///< threads per block
  unspecified,      ///< the message does not say ("too many resources requested for launch")
};
/// The value's name as written above ("shared_memory"), for records and JSON.
const char* to_string(Resource r);

/// The compiler (or the CUDA runtime) refusing a kernel because of its resources.
struct PtxasResourceError {
  std::string kernel;  // mangled name; empty when the message names none (file-scope data, launch)
  Resource what = Resource::unspecified;
  long used = 0;     // bytes, or registers when what == registers; 0 when the message has no figure
  long limit = 0;    // likewise
  std::string message;  // the diagnostic line, verbatim
};

/// The first resource rejection in `output` (nvcc/ptxas output, or a benchmark's), or nothing.
/// Recognised, with the figures they carry:
///   ptxas error : Entry function 'K' uses too much shared data (0xe2e0 bytes, 0xc000 max)
///     (also "local", "constant" data, "parameter space", and the "0x.. bytes + 0x.. bytes system"
///     form, where `used` is the sum)
///   ptxas error : File uses too much global constant data (0x13880 bytes, 0x10000 max)
///   K.cu(64): Error: Formal parameter space overflowed (36008 bytes required, max 32764 bytes
///     allowed) in function K
///   Insufficient registers (N) to compile instruction at line L in function K. Try to compile
///     with register target of M or higher.   (used = M, limit = N)
///   ptxas fatal : (C7600) Register allocation failed with register count of '255'. Compile the
///     program with a higher register target   (registers; limit = 255, used 0, no kernel named)
///   too many resources requested for launch   (cudaErrorLaunchOutOfResources; no figures)
/// Other compile errors (syntax, types) are not resource errors: std::nullopt.
std::optional<PtxasResourceError> find_ptxas_resource_error(const std::string& output);

/// The warnings and performance advisories in `output` that do not stop the compile, verbatim
/// from "ptxas" on, in order, each once: every "ptxas warning" line ("ptxas warning : Registers
/// are spilled to local memory in function 'K', 8 bytes spill stores, 8 bytes spill loads") and
/// every "ptxas info" line with a C75xx code, which ptxas 12 and 13 print as info:
///   ptxas info    : (C7511) Potential Performance Loss: wgmma.mma_async instructions are serialized
///     due to insufficient register resources for the wgmma pipeline in the function 'K'
///   ptxas info    : (C7519) warpgroup.arrive is injected in around line 20 by compiler to allow use
///     of registers in GMMA in function 'K'
/// Other "ptxas info" lines (the resource report) and errors are not in it.
std::vector<std::string> find_ptxas_warnings(const std::string& output);

}  // namespace adaexplore
