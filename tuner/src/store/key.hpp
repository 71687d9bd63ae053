// The key of a tuning's results: what a measurement depends on, hashed, so that results are reused
// exactly when they would be measured again the same way (results.hpp names the file format).
//
// The key hashes key_parts(): the spec's content without paths, the template's and the
// benchmark's content, the content of the headers they include (not the toolkit's, the system's
// or the harness's; found by the compiler, ProgramBackend::included_headers), the backend, the
// problem size (sizes.hpp), and the device without what tells two GPUs of one model apart (index,
// UUID, PCI bus id). Identical GPUs share results; another model, SM count, memory, driver, CUDA
// runtime, compiler version or architecture never does.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "model/spec.hpp"
#include "store/results.hpp"

namespace adaexplore {

/// The key's parts that come from the spec and its files, as content hashes:
/// {"spec", "template", "benchmark", "backend"}. Left out of "spec": what does not change a
/// measurement (budget, strategy, strategy_options, seed, jobs, work_dir, namespace, $comment),
/// the list of problem sizes (sizes: each size is a key of its own, key_parts's "size")
/// and what is a path (template, benchmark: their content is hashed; compiler.path and
/// compiler.arch: the compiler's version and the effective architecture are in the device part;
/// compiler.include_dirs: paths, absolute when CMake writes them, whose headers are not hashed),
/// and the time limits (compiler.timeout_s, run.timeout_s, run.timeout_factor,
/// run.timeout_floor_s).
nlohmann::json content_key_parts(const Spec& spec);
/// The device as it enters the key: Backend::device() without "index", "uuid" and "pci_bus_id".
nlohmann::json device_key_part(const nlohmann::json& device);
/// content_key_parts(spec) + {"device": device_key_part(device)}, + {"size": {"M": 512, ...}} when
/// spec.size is set (the problem size tuned, sizes.hpp), + {"includes": content hash of
/// `includes`} when that is not empty (Backend::included_headers(): the headers the template and
/// the benchmark include, by file name and content, so that an edited header is another key;
/// not their paths, so that another checkout of the same sources shares the key); the key is
/// content_hash(dump()).
nlohmann::json key_parts(const Spec& spec, const std::string& backend,
                         const nlohmann::json& device, const nlohmann::json& includes = nlohmann::json::array());

/// Which of the content parts ("spec", "template", "benchmark", "backend") differ between stored
/// key parts and `wanted` (content_key_parts), as "template, benchmark"; empty when none.
std::string differing_content(const nlohmann::json& stored, const nlohmann::json& wanted);

/// The header line of a new tuning's results file: kernel spec.name, key_parts(spec, backend,
/// device, includes) and their content_hash as key, the device, the spec's strategy, seed and
/// budget (evaluations), started now (utc_now) on this host (host_name).
ResultsHeader tuning_header(const Spec& spec, const std::string& backend, const nlohmann::json& device,
                            const nlohmann::json& includes = nlohmann::json::array());

/// The device's "name" as a results header records it; "unknown device" when there is none.
std::string device_name(const nlohmann::json& device);

}  // namespace adaexplore
