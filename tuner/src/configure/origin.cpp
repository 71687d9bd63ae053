#include "configure/origin.hpp"

#include <algorithm>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>

#include "configure/pinned_header.hpp"
#include "model/backend_kind.hpp"
#include "util/files.hpp"
#include "util/hash.hpp"
#include "util/process.hpp"

namespace adaexplore {
namespace {

namespace fs = std::filesystem;

ConfigureMessage message(const std::string& level, const std::string& text, const std::string& once = "") {
  return {level, text, once, false};
}

bool said(const OriginRequest& r, const std::string& once) {
  return std::find(r.said.begin(), r.said.end(), once) != r.said.end();
}

std::string strip(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

std::string no_stored() {
  return "the tuning database (ADAEXPLORE_DATABASE) holds no tuning of its current spec, sources and device";
}

// The flow of one configure_origin() call: the request, the steps, the answer being built.
class Flow {
 public:
  Flow(const OriginRequest& r, std::optional<DeviceFacts> device, const RunStep& run,
       const std::function<void(const std::string&)>& status)
      : r_(r), device_(std::move(device)), run_(run), status_(status) {}

  OriginAnswer run();

 private:
  const OriginRequest& r_;
  std::optional<DeviceFacts> device_;
  const RunStep& run_;
  const std::function<void(const std::string&)>& status_;
  OriginAnswer answer_;
  std::optional<nlohmann::json> pinned_line_;  // the pinned header's machine line, once checked

  bool fatal() const { return !answer_.messages.empty() && answer_.messages.back().level == "FATAL"; }
  void say(const std::string& level, const std::string& text, const std::string& once = "") {
    ConfigureMessage m = message(level, text, once);
    if (level == "STATUS" && status_) {
      status_(text);
      m.shown = true;
    }
    answer_.messages.push_back(m);
  }
  void fail(const std::string& text) { say("FATAL", text); }
  const DeviceFacts& device();
  bool pinned_exists() const;
  std::string fallback_origin() const { return pinned_exists() ? "PINNED" : "DEFAULTS"; }
  void steps();
  std::vector<std::string> tune_args() const;
  void run_tune();
  bool run_cached();
  std::string meanwhile(int rc);
  void tune_failed(const StepResult& step, const std::string& meanwhile);
  std::string check_untuned(std::string& origin, bool& rejected);
  std::string pinned_problem(std::string& config);
  std::string run_check(const std::vector<std::string>& args, const std::string& config, std::string& origin,
                        bool& rejected);
  void reject_pinned(std::string& origin, const std::string& problem);
  void use_pinned(const std::string& note);
  void run_defaults(const std::string& reason, bool rejected);
};

const DeviceFacts& Flow::device() {
  if (device_) return *device_;
  const std::string index = std::to_string(r_.device_index);
  const StepResult s = run_({"device", "--index", index}, false);
  DeviceFacts d;
  nlohmann::json j;
  bool parsed = false;
  try {
    j = nlohmann::json::parse(s.out);
    parsed = j.is_object();
  } catch (const nlohmann::json::exception&) {
  }
  if (s.exit_code == 0 && parsed) {
    d.present = true;
    d.name = j.value("name", std::string());
    d.compute_capability = j.value("compute_capability", std::string());
    d.about = "GPU " + index + ": " + d.name + ", compute capability " + d.compute_capability;
    say("STATUS", "AdaExplore: CUDA GPU " + index + " (ADAEXPLORE_DEVICE): " + d.name + ", compute capability " +
                      d.compute_capability);
  } else if (s.exit_code == 3 && parsed && j.contains("reason") && j["reason"].is_string()) {
    d.about = j["reason"].get<std::string>();
  } else if (s.timed_out_after_s > 0) {
    std::ostringstream after;
    after << s.timed_out_after_s;
    d.about = "`" + s.command + "` did not answer within " + after.str() +
              " s and was stopped (a GPU driver that hangs?): check the GPU with nvidia-smi, or configure with "
              "-DADAEXPLORE_MODE=PINNED or DEFAULTS, which do not ask the GPU";
  } else {
    d.about = "`" + s.command + "` failed (exit code " + std::to_string(s.exit_code) + "): " + strip(s.out + s.err);
  }
  device_ = d;
  answer_.device = d;
  return *device_;
}

std::vector<std::string> Flow::tune_args() const {
  std::vector<std::string> a = {"tune",        "--spec",      r_.spec.string(),      "--database",
                                r_.database.string(), "--header", r_.header.string(), "--generated",
                                r_.generated.string(), "--report", (r_.kernel_dir / "report.html").string()};
  if (backend_traits(r_.backend).needs_gpu) {
    a.insert(a.end(), {"--device", std::to_string(r_.device_index)});
    if (r_.profile) a.push_back("--profile");
  }
  return a;
}

// What to configure with to build meanwhile, after `tune` failed with `rc`: a spec error (1) fails in
// every mode; otherwise `check` says whether the defaults compile, and PINNED needs a pinned header.
std::string Flow::meanwhile(int rc) {
  if (rc == 1) return "No ADAEXPLORE_MODE builds meanwhile: DEFAULTS and PINNED check the spec and template too.";
  std::vector<std::string> args = {"check", "--spec", r_.spec.string()};
  for (const auto& arch : r_.archs) args.insert(args.end(), {"--arch", arch});
  if (!backend_traits(r_.backend).compiles_in_check) args.push_back("--no-compile");
  const StepResult check = run_(args, false);
  if (check.exit_code != 0)
    return "-DADAEXPLORE_MODE=DEFAULTS would fail too, since the defaults do not pass the check without a GPU: " +
           strip(check.err);
  std::string text =
      "To build without tuning meanwhile, configure with -DADAEXPLORE_MODE=DEFAULTS (the defaults pass the check "
      "without a GPU)";
  if (pinned_exists()) text += ", or -DADAEXPLORE_MODE=PINNED (the pinned header " + r_.pinned.string() + ")";
  return text + ".";
}

void Flow::tune_failed(const StepResult& step, const std::string& meanwhile) {
  const int rc = step.exit_code;
  std::string fix;
  if (rc == 1)
    fix = "the spec, template or benchmark is invalid: fix what the message names (the spec " + r_.spec.string() +
          " is written from this call's arguments).";
  else if (rc == 2)
    fix = "no configuration compiled, ran and verified, or the setup is broken: read the first failure below, build "
          "and run the benchmark by hand with the defaults, and check PARAMS and CONSTRAINTS.";
  else if (rc == 3)
    fix = "the tuner found no GPU to tune on although one was detected at the start of this configure; check that "
          "the GPU is usable (nvidia-smi).";
  else if (rc == 5)
    fix = "the environment, not the input: a file or folder could not be created, written or locked (the message "
          "names it): check that ADAEXPLORE_DATABASE (" + r_.database_setting +
          ") and the build tree are writable folders and that the disk has space.";
  else
    fix = "the tuner stopped abnormally; rerun the command above by hand to see why.";
  const std::string output = step.out + step.err;
  if (std::regex_search(output, std::regex("argument was not expected|unknown option")))
    fix += " If it refuses an option the module passed, the tuner is older than this AdaExplore.cmake: use the tuner "
           "of the same version (ADAEXPLORE_TUNER_EXECUTABLE).";
  fail("tuning failed with exit code " + std::to_string(rc) + ": " + fix + "\nCommand: " + step.command +
       "\nEnd of its messages:\n" + message_tail(output, 3000) + "\n" + meanwhile);
}

void Flow::run_tune() {
  std::vector<std::string> args = tune_args();
  std::string what = "tuning";
  if (r_.retune) {
    args.push_back("--retune");
    what = "RETUNING from scratch (ADAEXPLORE_RETUNE; the stored results of its current key are set aside)";
  }
  const std::string where = backend_traits(r_.backend).needs_gpu ? device().about : "the CPU";
  // The tuning writes its report(s) afresh: none of an earlier configure (another SIZES) is named.
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(r_.kernel_dir, ec)) {
    const std::string leaf = entry.path().filename().string();
    if (std::regex_match(leaf, std::regex("report(\\..*)?\\.html"))) fs::remove(entry.path(), ec);
  }
  say("STATUS", "AdaExplore: " + r_.kernel + ": " + what + " on " + where + " (database " + r_.database.string() + ")");
  const StepResult step = run_(args, true);
  if (step.exit_code != 0) {
    tune_failed(step, meanwhile(step.exit_code));
    return;
  }
  const std::string messages = strip(step.err);
  if (!messages.empty()) say("NOTICE", messages);
  answer_.retuned = r_.retune;
  say("STATUS", "AdaExplore: " + r_.kernel + ": TUNED, header " + r_.header.string());
  std::vector<std::string> reports;
  for (const auto& entry : fs::directory_iterator(r_.kernel_dir, ec)) {
    const std::string leaf = entry.path().filename().string();
    if (std::regex_match(leaf, std::regex("report(\\..*)?\\.html"))) reports.push_back(entry.path().string());
  }
  std::sort(reports.begin(), reports.end());
  std::string list;
  for (const auto& rep : reports) list += (list.empty() ? "" : ", ") + rep;
  if (!list.empty())
    say("STATUS", "AdaExplore: " + r_.kernel + ": report " + list + " (open it in a browser: how the winner was found)");
}

// `tune --cached`: true when it wrote the header, false when the database has none (exit code 3).
bool Flow::run_cached() {
  std::vector<std::string> args = tune_args();
  args.push_back("--cached");
  const StepResult step = run_(args, false);
  if (step.exit_code == 3) return false;
  if (step.exit_code != 0) {
    tune_failed(step, step.exit_code == 1 ? ""
                                          : "To build without the database meanwhile, configure with "
                                            "-DADAEXPLORE_MODE=DEFAULTS.");
    return false;
  }
  say("STATUS", "AdaExplore: " + r_.kernel + ": TUNED (the tuning database's stored winner; nothing evaluated), header " +
                    r_.header.string());
  return true;
}

// A pinned header that does not fit the call: an error in PINNED mode, else a warning and the DEFAULTS.
void Flow::reject_pinned(std::string& origin, const std::string& problem) {
  const std::string& name = r_.kernel;
  if (r_.mode == "PINNED") {
    fail("ADAEXPLORE_MODE is PINNED but " + problem + ". Pin a tuning of this call (tune it where it tunes, then `cmake "
         "--build <build> --target adaexplore-pin`), or fix or remove " + r_.pinned.string() +
         " (the pin location: PINNED_HEADER, else ADAEXPLORE_PINNED_DIR/" + name + ".hpp, else pinned/" + name +
         ".hpp beside the calling CMakeLists.txt).");
    return;
  }
  say("WARNING", "AdaExplore: " + name + ": NOT USING its pinned header: " + problem + ". " + name +
                     " gets its DEFAULTS instead (kTuned = false). Pin a tuning of this call (`cmake --build <build> "
                     "--target adaexplore-pin` where it tunes), or fix or remove the header; with "
                     "-DADAEXPLORE_MODE=PINNED this is an error.");
  origin = "DEFAULTS";
}

// The key of a `check` run (check.stamp): the tuner that runs it, its arguments, and the contents
// of the spec, the pinned header and the files the spec names (a relative one from the spec's
// folder, as the spec reads it, not from this process's working folder).
static std::string check_stamp_key(const fs::path& tuner, const std::vector<std::string>& args,
                                   const fs::path& spec_file, const fs::path& pinned) {
  const auto hash_of = [](const fs::path& file) {
    std::error_code ec;
    return fs::is_regular_file(file, ec) ? content_hash(read_file(file)) : std::string("none");
  };
  std::string key = "tuner " + tuner.string() + "\n";
  for (const auto& a : args) key += a + ";";
  key += "\n" + hash_of(spec_file) + "\n";
  if (!pinned.empty()) key += hash_of(pinned) + "\n";
  try {
    const nlohmann::json spec = nlohmann::json::parse(read_file(spec_file));
    for (const char* member : {"template", "kernel_source", "benchmark"}) {
      if (!spec.contains(member) || !spec[member].is_string()) continue;
      fs::path file = spec[member].get<std::string>();
      if (file.is_relative()) file = spec_file.parent_path() / file;
      key += std::string(member) + " " + hash_of(file.lexically_normal()) + "\n";
    }
  } catch (const nlohmann::json::exception&) {
    // A spec that is not JSON: the check itself says what is wrong.
  }
  return content_hash(key);
}

// What to do about `check` ending with exit code `rc` (its documented codes: 1 bad input, 2 the
// defaults fail, 5 the environment).
static std::string check_failure_fix(int rc, const fs::path& spec_file, const std::string& database_setting) {
  std::string fix;
  if (rc == 1)
    fix = "the spec, template or benchmark is invalid: fix what the message names (the spec " + spec_file.string() +
          " is written from this call's arguments). A tuning on a GPU stops with the same error, and no "
          "ADAEXPLORE_MODE avoids it.";
  else if (rc == 5)
    fix = "the environment, not the input: a file or folder could not be created, written or locked (the message "
          "names it): check that ADAEXPLORE_DATABASE (" + database_setting +
          ") and the build tree are writable folders and that the disk has space.";
  else if (rc == 2)
    fix = "the DEFAULTS do not compile, or exceed the target's limits (the message says which architecture): a "
          "tuning on a GPU fails the same way. Fix the kernel, the benchmark or the DEFAULTS; every ADAEXPLORE_MODE "
          "that uses the defaults or a pinned header checks them.";
  else
    fix = "the tuner stopped abnormally; rerun the command above by hand to see why.";
  return fix;
}

// The pinned header's machine line (kept for use_pinned) checked against the call: the problem,
// or "" and `config` its values for `check --config`. A line that is not JSON is a problem too; a
// pinned header or spec that cannot be read throws, naming it.
std::string Flow::pinned_problem(std::string& config) {
  const std::string again = "; it is written from this call's arguments: configure again";
  nlohmann::json spec;
  try {
    spec = nlohmann::json::parse(read_file(r_.spec));
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error("the spec " + r_.spec.string() + " is not JSON (" + e.what() + ")" + again);
  }
  try {
    pinned_line_ = read_machine_line(r_.pinned);
  } catch (const MachineLineError& e) {
    return malformed_machine_line_problem(r_.pinned, r_.kernel, e.reason);
  }
  try {
    const PinnedCheck c = check_pinned(pinned_line_, r_.pinned, r_.kernel, spec, r_.archs);
    config = c.config;
    return c.problem;
  } catch (const nlohmann::json::exception& e) {  // the line's shape is checked: the spec's
    throw std::runtime_error("the spec " + r_.spec.string() + " lacks what the pinned header check reads (" +
                             e.what() + ")" + again);
  }
}

// A kernel not tuned here: the pinned header checked against the call, then `check` (spec,
// template, constraints, launch limits, compiles; host: nothing compiled) of its values, or of the
// defaults where there is no pinned header or it does not fit. Returns the STATUS report ("" when
// none).
std::string Flow::check_untuned(std::string& origin, bool& rejected) {
  std::string config;
  if (origin == "PINNED") {
    if (const std::string problem = pinned_problem(config); !problem.empty()) {
      reject_pinned(origin, problem);
      rejected = true;
      if (fatal()) return "";
      config.clear();
    }
  }
  std::vector<std::string> args = {"check", "--spec", r_.spec.string()};
  for (const auto& arch : r_.archs) args.insert(args.end(), {"--arch", arch});
  if (!config.empty()) args.insert(args.end(), {"--config", config, "--config-from", "the pinned header " + r_.pinned.string()});
  if (!backend_traits(r_.backend).compiles_in_check) args.push_back("--no-compile");  // tunes where configured natively
  return run_check(args, config, origin, rejected);
}

// Runs `check` (args; `config`: the pinned values it checks, or ""), not repeated while its inputs
// are unchanged (check.stamp). Pinned values it rejects (exit code 4) are set aside as
// reject_pinned says, and the DEFAULTS then used are checked the same way.
std::string Flow::run_check(const std::vector<std::string>& args, const std::string& config, std::string& origin,
                            bool& rejected) {
  const std::string& name = r_.kernel;
  const std::string key = check_stamp_key(r_.tuner, args, r_.spec, r_.pinned);
  const fs::path stamp = r_.kernel_dir / "check.stamp";
  std::error_code ec;
  if (fs::is_regular_file(stamp, ec)) {
    const std::string old = read_file(stamp);
    if (old.rfind(key + "\n", 0) == 0)
      return "AdaExplore: " + name + ": checked without tuning (unchanged since an earlier configure): " +
             old.substr(key.size() + 1);
  }
  fs::remove(stamp, ec);
  const StepResult step = run_(args, false);
  if (step.exit_code == 4 && !config.empty()) {
    std::string err = std::regex_replace(strip(step.err), std::regex("^adaexplore-tuner check: [A-Za-z0-9_]+: "), "");
    reject_pinned(origin, err);
    rejected = true;
    if (fatal()) return "";
    return check_untuned(origin, rejected);  // origin is DEFAULTS now: the defaults checked
  }
  if (step.exit_code != 0) {
    const std::string fix = check_failure_fix(step.exit_code, r_.spec, r_.database_setting);
    fail("checking it without tuning failed with exit code " + std::to_string(step.exit_code) + ": " + fix +
         "\nCommand: " + step.command + "\nIts message:\n" + message_tail(step.err + step.out, 3000));
    return "";
  }
  std::smatch m;
  std::string summary;
  if (std::regex_search(step.out, m, std::regex("check passed: ([^\n]*)"))) summary = m[1];
  std::string report = "AdaExplore: " + name + ": checked without tuning: " + summary;
  const std::regex line_re("\\[adaexplore\\] [A-Za-z0-9_]+: check: ([^\n]*)");
  for (auto it = std::sregex_iterator(step.out.begin(), step.out.end(), line_re); it != std::sregex_iterator(); ++it)
    report += "\n   " + (*it)[1].str();  // the ptxas report per architecture
  write_file_if_changed(stamp, key + "\n" + summary);
  return report;
}

// Copies the pinned header (only when different) and says what it was tuned on; warns when that is
// not the GPU this configure sees.
void Flow::use_pinned(const std::string& note) {
  try {
    write_file_if_changed(r_.header, read_file(r_.pinned));
  } catch (const std::exception& e) {
    throw std::runtime_error("copying the pinned header " + r_.pinned.string() + " to " + r_.header.string() +
                             " failed: " + e.what());
  }
  const std::vector<std::string> recorded = pinned_line_ ? pinned_tuned_on(*pinned_line_) : std::vector<std::string>{};
  std::string tuned_on;
  for (const auto& d : recorded) tuned_on += (tuned_on.empty() ? "" : "; ") + d;
  say("STATUS", "AdaExplore: " + r_.kernel + ": NOT TUNED here, using the pinned header " + r_.pinned.string() +
                    (tuned_on.empty() ? "" : " (tuned on " + tuned_on + ")") + note);
  if (!backend_traits(r_.backend).needs_gpu || recorded.empty() || r_.cross_compiling) return;
  const DeviceFacts& d = device();
  if (!d.present) return;
  const std::string here = d.name + ", compute capability " + d.compute_capability;
  if (std::find(recorded.begin(), recorded.end(), here) != recorded.end()) return;
  say("WARNING", "AdaExplore: " + r_.kernel + ": the pinned header " + r_.pinned.string() + " was tuned on " + tuned_on +
                     ", but this configure sees " + d.about + " (ADAEXPLORE_DEVICE). Its values may be slow or fail to "
                     "launch here. To tune on this GPU, configure with -DADAEXPLORE_MODE=AUTO; then `cmake --build "
                     "<build> --target adaexplore-pin` pins the new tuning.");
}

void Flow::run_defaults(const std::string& reason, bool rejected) {
  const StepResult step =
      run_({"defaults", "--spec", r_.spec.string(), "--header", r_.header.string(), "--reason", reason}, false);
  if (step.exit_code != 0) {
    const std::string fix =
        step.exit_code == 5 ? "It is " + check_failure_fix(5, r_.spec, r_.database_setting) + " The header: " +
                                  r_.header.string() + "."
                            : "Fix what the message names in this call's arguments (the spec " + r_.spec.string() +
                                  " is written from them).";
    fail("writing the defaults header failed (exit code " + std::to_string(step.exit_code) + "):\n" +
         message_tail(step.out + step.err, 3000) + "\n" + fix);
    return;
  }
  if (r_.mode == "DEFAULTS") {
    say("STATUS", "AdaExplore: " + r_.kernel + ": NOT TUNED, using the DEFAULTS (kTuned = false): " + reason);
    return;
  }
  const std::string why = std::regex_replace(reason, std::regex("[. ]+$"), "");
  const std::string no_pin = rejected ? "the pinned header " + r_.pinned.string() +
                                            " does not fit this call (the warning above says why)"
                                      : "there is no pinned header " + r_.pinned.string();
  say("WARNING", "AdaExplore: " + r_.kernel + ": NOT TUNED, using the DEFAULTS (kTuned = false): " + why + "; and " +
                     no_pin + ". The build works; the kernel may be slower than tuned. Pin a tuning made where " +
                     r_.kernel + " tunes (`cmake --build <build> --target adaexplore-pin`) and commit it, or set "
                     "ADAEXPLORE_MODE to DEFAULTS to choose the defaults without this warning.");
}

// Whether the pin location holds a file. Throws, naming it, when that cannot be told (a loop of
// symbolic links, a name too long, a folder on its way that cannot be searched).
bool Flow::pinned_exists() const {
  if (r_.pinned.empty()) return false;
  std::error_code ec;
  const fs::file_status status = fs::status(r_.pinned, ec);
  if (ec && status.type() != fs::file_type::not_found)
    throw std::runtime_error("cannot tell whether the pinned header " + r_.pinned.string() + " exists: " + ec.message() +
                             " (the pin location: PINNED_HEADER, else ADAEXPLORE_PINNED_DIR/" + r_.kernel +
                             ".hpp, else pinned/" + r_.kernel + ".hpp beside the calling CMakeLists.txt)");
  return fs::is_regular_file(status);
}

OriginAnswer Flow::run() {
  try {
    steps();
  } catch (const std::exception& e) {
    fail(stopped_text(r_, e.what()));
  }
  if (fatal()) answer_.origin.clear();
  return answer_;
}

// The decision, then the steps that produce the header; answer_.origin set when it is produced.
void Flow::steps() {
  if (origin_needs_device(r_)) device();
  OriginDecision decision = choose_origin(r_, device_, pinned_exists());
  for (auto& m : decision.messages) {
    if (m.level == "STATUS" && status_) {
      status_(m.text);
      m.shown = true;
    }
    answer_.messages.push_back(m);
  }
  if (decision.fatal()) return;
  std::string origin = to_string(decision.origin);
  std::string note;
  if (origin == "CACHED") {
    if (run_cached()) {
      origin = "TUNED";
    } else {
      if (fatal()) return;
      note = "; the tuning database has no stored tuning of its current key";
      origin = fallback_origin();
    }
  } else if (origin == "TUNED") {
    run_tune();
    if (fatal()) return;
  }
  bool rejected = false;
  std::string checked;
  if (origin == "PINNED" || origin == "DEFAULTS") {
    checked = check_untuned(origin, rejected);
    if (fatal()) return;
  }
  if (origin == "PINNED") {
    use_pinned(note);
  } else if (origin == "DEFAULTS") {
    run_defaults(decision.reason, rejected);
  }
  if (fatal()) return;
  if (!checked.empty()) say("STATUS", checked);
  answer_.origin = origin;
}

}  // namespace

std::string to_string(Origin origin) {
  switch (origin) {
    case Origin::tuned: return "TUNED";
    case Origin::cached: return "CACHED";
    case Origin::pinned: return "PINNED";
    case Origin::defaults: return "DEFAULTS";
  }
  return "DEFAULTS";
}

bool OriginDecision::fatal() const {
  return std::any_of(messages.begin(), messages.end(), [](const ConfigureMessage& m) { return m.level == "FATAL"; });
}

// The registry's row (model/backend_kind.hpp): a backend that measures on a GPU tunes only where
// one is, and `check` compiles its defaults per --arch; a CPU backend tunes on the machine it is
// configured on, and `check` leaves compiling to that tuning (--no-compile). A name the registry
// does not know is treated as a GPU backend here; the spec's own check then names the known ones.
BackendTraits backend_traits(const std::string& backend) {
  const BackendKind* kind = find_backend_kind(backend);
  const bool gpu = kind == nullptr || kind->needs_gpu;
  return {gpu, gpu};
}

bool origin_needs_device(const OriginRequest& r) {
  if (!backend_traits(r.backend).needs_gpu || r.mode == "DEFAULTS" || r.mode == "PINNED") return false;
  if (r.cross_compiling) return r.mode != "TUNE" && !r.archs.empty();
  return r.mode != "CACHED";
}

namespace {

std::string no_pinned_header_text(const OriginRequest& r) {
  const std::string& name = r.kernel;
  return "ADAEXPLORE_MODE is PINNED but there is no pinned header " + r.pinned.string() +
         " (the pin location: PINNED_HEADER, else ADAEXPLORE_PINNED_DIR '" + r.pinned_dir_setting + "'/" + name +
         ".hpp, else pinned/" + name + ".hpp beside the calling CMakeLists.txt). Tune " + name +
         " on a machine that can, pin it there with `cmake --build <build> --target adaexplore-pin` and commit " + name +
         ".hpp, or configure with -DADAEXPLORE_MODE=AUTO.";
}

std::string cross_tune_text(const OriginRequest& r) {
  const std::string& name = r.kernel;
  return "ADAEXPLORE_MODE is TUNE but this configure is cross-compiling (CMAKE_CROSSCOMPILING, for " + r.system_name +
         " " + r.system_processor + "): " + name +
         " is never tuned on this machine, whose GPU and CPU are not the target's. Tune it on the target (configure "
         "there natively) and pin it there with `cmake --build <build> --target adaexplore-pin`, or write its header "
         "from the target's tuning database with `adaexplore-tuner header --database <its database> --spec <its "
         "build>/_adaexplore/kernels/" + name + "/spec.json --out <dir>/" + name + ".hpp`; give that header here as "
         "PINNED_HEADER, or as " + name + ".hpp in ADAEXPLORE_PINNED_DIR, then configure with -DADAEXPLORE_MODE=PINNED "
         "(or AUTO). A merged database does not serve here: CACHED looks up this machine's key (its CPU, its GPU), not "
         "the target's.";
}

std::string cross_note_text(const OriginRequest& r) {
  return "AdaExplore: cross-compiling (CMAKE_CROSSCOMPILING, for " + r.system_name + " " + r.system_processor +
         "): no kernel is tuned in this configure, since this machine's GPU and CPU are not the target's. Each kernel "
         "uses its pinned header, else its DEFAULTS; a CUDA kernel uses the tuning database's stored winner first, but "
         "only where this machine's GPU has the target architecture (ARCH, CMAKE_CUDA_ARCHITECTURES).";
}

std::string no_gpu_text(const DeviceFacts& device) {
  return "AdaExplore: no CUDA GPU at configure time (" + device.about +
         "). CUDA kernels are NOT TUNED in this configure: each uses its pinned header (PINNED_HEADER, or <name>.hpp in "
         "ADAEXPLORE_PINNED_DIR) where there is one, else its DEFAULTS (kTuned = false). The build works; the kernels "
         "may be slower than tuned ones. Configure on a machine with a GPU to tune, or set ADAEXPLORE_MODE to PINNED or "
         "DEFAULTS to choose this explicitly without this warning.";
}

// Cross-compiling: whether the tuning database's stored winner for this machine's key may serve the
// target (a CPU backend never: its key names this machine's CPU; a GPU backend when this GPU has the
// first target architecture), and why, or why not, in words.
std::pair<bool, std::string> cross_stored_usable(const OriginRequest& r, const std::optional<DeviceFacts>& device) {
  if (!backend_traits(r.backend).needs_gpu)
    return {false, "its stored tunings are of this machine's CPU (" + r.host_processor + "), not the target's (" +
                       r.system_processor + ")"};
  if (r.archs.empty())
    return {false, "no target architecture (ARCH, CMAKE_CUDA_ARCHITECTURES) says whether this machine's GPU is of "
                   "the target's"};
  if (!device || !device->present)
    return {false, "this machine has no GPU (" + (device ? device->about : std::string("not asked")) +
                       "), so it has no key to look up"};
  const std::string& arch = r.archs.front();
  std::string cc = device->compute_capability;
  cc.erase(std::remove(cc.begin(), cc.end(), '.'), cc.end());
  if (cc == std::regex_replace(arch, std::regex("^sm_([0-9]+).*$"), "$1"))
    return {true, "this machine's " + device->about + " has the target architecture " + arch};
  return {false, "its stored tunings are of this machine's " + device->about + ", and the target architecture is " + arch};
}

OriginDecision choose_cross_origin(const OriginRequest& r, const std::optional<DeviceFacts>& device, Origin fallback) {
  OriginDecision d;
  if (r.mode == "TUNE") {
    d.messages.push_back(message("FATAL", cross_tune_text(r)));
    return d;
  }
  if (!said(r, "cross_compiling")) d.messages.push_back(message("STATUS", cross_note_text(r), "cross_compiling"));
  const auto [usable, why] = cross_stored_usable(r, device);
  if (usable) {
    d.messages.push_back(message("STATUS", "AdaExplore: " + r.kernel + ": cross-compiling: " + why +
                                               ", so the tuning database's stored winner for this machine's GPU may "
                                               "serve"));
    d.origin = Origin::cached;
    d.reason = "Cross-compiling (CMAKE_CROSSCOMPILING): not tuned on this machine, and " + no_stored() + ".";
  } else {
    d.origin = fallback;
    d.reason = "Cross-compiling (CMAKE_CROSSCOMPILING): not tuned on this machine, and its tuning database is not "
               "read: " + why + ".";
  }
  return d;
}

}  // namespace

OriginDecision choose_origin(const OriginRequest& r, const std::optional<DeviceFacts>& device, bool pinned_exists) {
  OriginDecision d;
  const Origin fallback = pinned_exists ? Origin::pinned : Origin::defaults;
  auto fatal = [&](const std::string& text) {
    d.messages.push_back(message("FATAL", text));
    return d;
  };
  if (r.mode == "DEFAULTS") {
    d.origin = Origin::defaults;
    d.reason = "ADAEXPLORE_MODE is " + r.mode_setting + ".";
    return d;
  }
  if (r.mode == "PINNED") {
    if (!pinned_exists) return fatal(no_pinned_header_text(r));
    d.origin = Origin::pinned;
    return d;
  }
  if (r.cross_compiling) return choose_cross_origin(r, device, fallback);
  if (r.mode == "CACHED") {
    d.origin = Origin::cached;
    d.reason = "ADAEXPLORE_MODE is CACHED and " + no_stored() + ".";
    return d;
  }
  if (!backend_traits(r.backend).needs_gpu) {
    d.origin = Origin::tuned;
    return d;
  }
  if (!device) throw std::invalid_argument("choose_origin: the device is needed (origin_needs_device) and not given");
  if (device->present) {
    d.origin = Origin::tuned;
    return d;
  }
  if (r.mode == "TUNE")
    return fatal("ADAEXPLORE_MODE is TUNE but there is no CUDA GPU to tune on: " + device->about +
                 ". Configure on a machine with a GPU, or with -DADAEXPLORE_MODE=AUTO to use pinned headers or the "
                 "defaults here.");
  if (!said(r, "no_gpu")) d.messages.push_back(message("WARNING", no_gpu_text(*device), "no_gpu"));
  d.reason = "No CUDA GPU at configure time: " + device->about;
  d.origin = fallback;
  return d;
}

OriginAnswer configure_origin(const OriginRequest& request, std::optional<DeviceFacts> device, const RunStep& run,
                              const std::function<void(const std::string&)>& status) {
  Flow flow(request, std::move(device), run, status);
  return flow.run();
}

std::string stopped_text(const OriginRequest& r, const std::string& what) {
  return "configuring " + r.kernel + " stopped: " + what + ". Make what it names readable, writable or of the kind " +
         "it must be (a file, a folder) -- the build tree's " + r.kernel_dir.string() + ", the header's folder " +
         r.header.parent_path().string() + (r.pinned.empty() ? "" : ", the pinned header " + r.pinned.string()) +
         " -- and check that the disk has space, then configure again.";
}

StepResult run_tool_step(const fs::path& tool, const std::vector<std::string>& args, bool live, double timeout_s) {
  std::vector<std::string> argv = {tool.string()};
  argv.insert(argv.end(), args.begin(), args.end());
  ProcessOptions options;
  options.inherit_stdout = live;
  options.timeout_s = timeout_s;
  options.capture_limit = 256 * 1024;
  StepResult s;
  try {
    const ProcessResult p = run_process(argv, options);
    s.command = p.command_line();
    s.out = p.out;
    s.err = p.err;
    s.exit_code = p.exit_code ? *p.exit_code : 128 + p.signal.value_or(0);
    if (p.timed_out) s.timed_out_after_s = timeout_s;
    if (p.failed_to_start) {
      s.exit_code = 127;
      s.err += p.error;
    }
  } catch (const std::exception& e) {  // no temporary file for its output, no process
    s.exit_code = 127;
    s.err = std::string("cannot start ") + tool.string() + ": " + e.what();
    for (const auto& a : argv) s.command += (s.command.empty() ? "" : " ") + a;
  }
  return s;
}

std::string message_tail(std::string text, std::size_t max) {
  if (text.size() > max) text = "..." + text.substr(text.size() - max);
  text = strip(text);
  std::string out = "  ";
  for (char c : text) {
    out += c;
    if (c == '\n') out += "  ";
  }
  return out;
}

namespace {

template <typename T>
T member(const nlohmann::json& j, const char* key, const T& fallback, bool required = false) {
  if (!j.contains(key)) {
    if (required) throw std::invalid_argument(std::string("the request has no \"") + key + "\"");
    return fallback;
  }
  try {
    return j.at(key).get<T>();
  } catch (const nlohmann::json::exception&) {
    throw std::invalid_argument(std::string("the request's \"") + key + "\" is of the wrong type: " + j.at(key).dump());
  }
}

}  // namespace

OriginRequest origin_request_from_json(const nlohmann::json& j) {
  if (!j.is_object()) throw std::invalid_argument("the request is not a JSON object");
  OriginRequest r;
  r.kernel = member<std::string>(j, "kernel", "", true);
  r.backend = member<std::string>(j, "backend", "cuda");
  r.spec = member<std::string>(j, "spec", "", true);
  r.kernel_dir = member<std::string>(j, "kernel_dir", r.spec.parent_path().string());
  r.header = member<std::string>(j, "header", "", true);
  r.generated = member<std::string>(j, "generated", r.header.parent_path().string());
  r.database = member<std::string>(j, "database", "", true);
  r.database_setting = member<std::string>(j, "database_setting", "");
  r.mode = member<std::string>(j, "mode", "AUTO");
  r.mode_setting = member<std::string>(j, "mode_setting", r.mode);
  r.device_index = member<int>(j, "device_index", 0);
  r.retune = member<bool>(j, "retune", false);
  r.profile = member<bool>(j, "profile", false);
  r.pinned = member<std::string>(j, "pinned", "");
  r.pinned_dir_setting = member<std::string>(j, "pinned_dir_setting", "");
  r.archs = member<std::vector<std::string>>(j, "archs", {});
  r.cross_compiling = member<bool>(j, "cross_compiling", false);
  r.system_name = member<std::string>(j, "system_name", "");
  r.system_processor = member<std::string>(j, "system_processor", "");
  r.host_processor = member<std::string>(j, "host_processor", "");
  r.said = member<std::vector<std::string>>(j, "said", {});
  static const std::vector<std::string> modes = {"AUTO", "TUNE", "CACHED", "PINNED", "DEFAULTS"};
  if (std::find(modes.begin(), modes.end(), r.mode) == modes.end())
    throw std::invalid_argument("the request's \"mode\" '" + r.mode + "' is none of AUTO, TUNE, CACHED, PINNED, DEFAULTS");
  return r;
}

nlohmann::json to_json(const DeviceFacts& d) {
  return {{"present", d.present}, {"about", d.about}, {"name", d.name}, {"compute_capability", d.compute_capability}};
}

DeviceFacts device_facts_from_json(const nlohmann::json& j) {
  DeviceFacts d;
  d.present = j.value("present", false);
  d.about = j.value("about", std::string());
  d.name = j.value("name", std::string());
  d.compute_capability = j.value("compute_capability", std::string());
  return d;
}

nlohmann::json to_json(const OriginAnswer& a) {
  nlohmann::json messages = nlohmann::json::array();
  for (const auto& m : a.messages) {
    nlohmann::json jm = {{"level", m.level}, {"text", m.text}, {"shown", m.shown}};
    if (!m.once.empty()) jm["once"] = m.once;
    messages.push_back(jm);
  }
  nlohmann::json j = {{"origin", a.origin}, {"messages", messages}, {"retuned", a.retuned}};
  if (a.device) j["device"] = to_json(*a.device);
  return j;
}

}  // namespace adaexplore
