#include "store/key.hpp"

#include "model/generated_benchmark.hpp"
#include "util/files.hpp"
#include "util/hash.hpp"
#include "util/text.hpp"

namespace adaexplore {

nlohmann::json content_key_parts(const Spec& spec) {
  nlohmann::json raw = spec.raw;
  for (const char* k : {"budget", "strategy", "strategy_options", "seed", "jobs", "in_flight", "work_dir",
                        "$comment", "namespace", "template", "benchmark", "sizes", "kernel_source",
                        "macro_prefix"})
    raw.erase(k);
  if (raw.contains("compiler") && raw["compiler"].is_object()) {
    // include_dirs: paths (absolute when CMake writes them, so another checkout would get another
    // key), and the headers in them are not hashed anyway. timeout_s: a time limit. launcher
    // (ccache, ...): how the program is built, not what it measures.
    for (const char* k : {"path", "arch", "include_dirs", "timeout_s", "launcher", "unit"}) raw["compiler"].erase(k);
  }
  if (raw.contains("run") && raw["run"].is_object())  // time limits and the runner do not change a measurement
    for (const char* k : {"timeout_s", "timeout_factor", "timeout_floor_s", "runner"}) raw["run"].erase(k);
  return {{"spec", content_hash(raw.dump())},
          {"template", content_hash(read_file(spec.template_path))},
          {"benchmark", content_hash(generated_benchmark(spec) ? generated_benchmark_source(spec)
                                                                 : read_file(spec.benchmark_path))},
          {"backend", spec.backend}};
}

nlohmann::json device_key_part(const nlohmann::json& device) {
  nlohmann::json d = device;
  if (d.is_object())
    for (const char* k : {"index", "uuid", "pci_bus_id"}) d.erase(k);
  return d;
}

nlohmann::json key_parts(const Spec& spec, const std::string& backend,
                         const nlohmann::json& device, const nlohmann::json& includes) {
  nlohmann::json parts = content_key_parts(spec);
  parts["backend"] = backend;
  parts["device"] = device_key_part(device);
  if (!includes.empty()) parts["includes"] = content_hash(valid_utf8_json(includes).dump());  // file names: any bytes
  if (spec.size) parts["size"] = spec.sizes.to_json(*spec.size);
  return parts;
}

std::string differing_content(const nlohmann::json& stored, const nlohmann::json& wanted) {
  std::string out;
  for (const char* part : {"spec", "template", "benchmark", "backend"})
    if (!stored.is_object() || stored.value(part, nlohmann::json()) != wanted[part])
      out += (out.empty() ? "" : ", ") + std::string(part);
  return out;
}

ResultsHeader tuning_header(const Spec& spec, const std::string& backend, const nlohmann::json& device,
                            const nlohmann::json& includes) {
  ResultsHeader header;
  header.kernel = spec.name;
  header.key_parts = key_parts(spec, backend, device, includes);
  header.key = content_hash(valid_utf8_json(header.key_parts).dump());  // the device's words: a driver's, a compiler's
  header.device = device;
  header.strategy = spec.strategy;
  header.seed = spec.seed;
  header.budget = spec.budget_evaluations;
  header.started = utc_now();
  header.host = host_name();
  return header;
}

std::string device_name(const nlohmann::json& device) {
  return device.is_object() ? device.value("name", std::string("unknown device"))
                            : std::string("unknown device");
}

}  // namespace adaexplore
