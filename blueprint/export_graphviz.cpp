#include "blueprint/export_graphviz.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "blueprint/atomic_file.h"
#include "blueprint/staged_dir.h"

extern char** environ;

namespace hpn {

namespace fs = std::filesystem;

bool graphviz_available() {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (!dir.empty() && access((fs::path(dir) / "dot").c_str(), X_OK) == 0) return true;
  }
  return false;
}

namespace {

Status write_text(const fs::path& path, const std::string& text) { return write_new_file(path.string(), text); }

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// `dot -Tsvg -o SVG DOT` with its stderr into ERR.
Result<pid_t> spawn_dot(const fs::path& dot, const fs::path& svg, const fs::path& err) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::string out_flag = "-o" + svg.string();
  std::vector<char*> argv{const_cast<char*>("dot"), const_cast<char*>("-Tsvg"), out_flag.data(),
                          const_cast<char*>(dot.c_str()), nullptr};
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, "dot", &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return Error{fmt::format("cannot run Graphviz's dot: {}", std::strerror(rc))};
  return pid;
}

// Renders every source into its SVG, a few Graphviz processes at a time.
Status render_all(const std::vector<std::pair<fs::path, fs::path>>& jobs, const fs::path& scratch) {
  const size_t parallel = std::max(1u, std::thread::hardware_concurrency());
  std::map<pid_t, size_t> running;
  Status status;
  auto reap = [&]() {
    int wstatus = 0;
    pid_t pid = waitpid(-1, &wstatus, 0);
    if (pid <= 0) return;
    auto it = running.find(pid);
    if (it == running.end()) return;
    size_t job = it->second;
    running.erase(it);
    if (status && !(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0)) {
      std::string why = read_text(scratch / fmt::format("{}.err", job));
      while (!why.empty() && why.back() == '\n') why.pop_back();
      status = Error{fmt::format("dot -Tsvg {}: failed{}{}", jobs[job].first.filename().string(),
                                      why.empty() ? "" : ": ", why)};
    }
  };
  for (size_t i = 0; i < jobs.size() && status; ++i) {
    while (running.size() >= parallel) reap();
    auto pid = spawn_dot(jobs[i].first, jobs[i].second, scratch / fmt::format("{}.err", i));
    if (!pid) {
      status = pid.error();
      break;
    }
    running[pid.value()] = i;
  }
  while (!running.empty()) reap();
  return status;
}

const OutputKind kDiagramSet{"the diagrams", "an hpnctl diagram set", "diagrams.json"};

}  // namespace

Status check_diagram_target(const std::string& dir) { return StagedDirectory::check_target(dir, kDiagramSet); }

Status write_diagrams(const Blueprint& bp, const std::vector<Diagram>& diagrams, const std::string& dir, bool svg) {
  auto staged = StagedDirectory::begin(dir, kDiagramSet);
  if (!staged) return staged.error();
  const fs::path& tmp = staged->path();
  const fs::path scratch = tmp / ".dot";  // sources and Graphviz's messages while rendering
  std::error_code ec;
  if (svg && !fs::create_directory(scratch, ec)) {
    return Error{fmt::format("{}: cannot create: {}", scratch.string(), ec.message())};
  }
  nlohmann::ordered_json index;
  index["format"] = "hpnctl-diagrams";
  index["spec_name"] = bp.spec_name;
  index["tool_version"] = bp.tool_version;
  index["diagrams"] = nlohmann::ordered_json::array();
  std::vector<std::pair<fs::path, fs::path>> jobs;
  for (const auto& d : diagrams) {
    std::string file = d.name + (svg ? ".svg" : ".dot");
    fs::path source = svg ? scratch / (d.name + ".dot") : tmp / file;
    if (auto st = write_text(source, d.dot); !st) return st;
    if (svg) jobs.emplace_back(source, tmp / file);
    nlohmann::ordered_json entry;
    entry["file"] = file;
    entry["kind"] = d.kind;
    entry["pod"] = d.pod;
    entry["segment"] = d.segment == kNone ? nlohmann::ordered_json() : nlohmann::ordered_json(d.segment);
    entry["rail"] = d.rail == kNone ? nlohmann::ordered_json() : nlohmann::ordered_json(d.rail);
    entry["nodes"] = d.nodes;
    entry["edges"] = d.edges;
    entry["cables"] = d.cables;
    index["diagrams"].push_back(entry);
  }
  if (svg) {
    if (auto st = render_all(jobs, scratch); !st) return st;
    fs::remove_all(scratch, ec);
    if (ec) return Error{fmt::format("{}: cannot remove: {}", scratch.string(), ec.message())};
  }
  if (auto st = write_text(tmp / "diagrams.json", index.dump(2) + "\n"); !st) return st;
  return staged->commit();
}

}  // namespace hpn
