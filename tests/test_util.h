// Shared helpers for tests: temporary directories, files, running hpnctl.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace hpn::test {

namespace fs = std::filesystem;

// True in a build with AddressSanitizer (HPN_SANITIZE, HPN_FUZZ). Its shadow
// memory reserves terabytes of address space, so a bound on address space
// (ulimit -v) cannot apply there; bound_memory() bounds RSS instead.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kAddressSanitizer = true;
#else
inline constexpr bool kAddressSanitizer = false;
#endif
#else
inline constexpr bool kAddressSanitizer = false;
#endif

// A shell prefix that caps the memory of the command after it at `mb`
// megabytes: address space normally, resident memory under ASan (which
// aborts the process when it is passed).
inline std::string bound_memory(int mb) {
  if (kAddressSanitizer) return "ASAN_OPTIONS=\"${ASAN_OPTIONS:+$ASAN_OPTIONS:}hard_rss_limit_mb=" + std::to_string(mb) + "\" ";
  return "ulimit -v " + std::to_string(mb * 1000) + "; ";
}

// A fresh directory under the system temp dir, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "hpnctl-test-XXXXXX").string();
    path_ = mkdtemp(pattern.data());
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }
  fs::path operator/(const std::string& name) const { return path_ / name; }

 private:
  fs::path path_;
};

inline std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

inline void write_file(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

inline fs::path source_path(const std::string& relative) { return fs::path(HPN_SOURCE_DIR) / relative; }

struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// A path or an argument single-quoted for sh, a quote in it too.
inline std::string q(const fs::path& text) {
  std::string out = "'";
  for (char c : text.string()) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// Runs `hpnctl ARGS` (ARGS already shell-quoted) in `cwd`, capturing both streams.
inline RunResult run_hpnctl(const std::string& args, const fs::path& cwd) {
  TempDir capture;
  std::string command = "cd '" + cwd.string() + "' && '" + std::string(HPNCTL_BINARY) + "' " + args +
                        " >'" + (capture / "out").string() + "' 2>'" + (capture / "err").string() +
                        "' </dev/null";
  int status = std::system(command.c_str());
  RunResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read_file(capture / "out");
  r.err = read_file(capture / "err");
  return r;
}

// Runs a shell command; its exit code and stdout (redirect stderr in the
// command to see it).
inline RunResult run_command(const std::string& command) {
  TempDir capture;
  int status = std::system(("{ " + command + "\n} >'" + (capture / "out").string() + "'").c_str());
  RunResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read_file(capture / "out");
  return r;
}

// Runs a shell script with `set -e`: whether every command of it succeeded.
inline bool shell_ok(const std::string& script) { return std::system(("set -e\n" + script).c_str()) == 0; }

// The lab pod's spec (examples/lab-pod.yaml), quoted for a command line.
inline std::string lab_spec_arg() { return "'" + source_path("examples/lab-pod.yaml").string() + "'"; }

// Every CTest test is one test case in its own process (catch_discover_tests),
// and CTest counts this exit code as "skipped" (SKIP_RETURN_CODE in
// tests/CMakeLists.txt): a test that cannot run here says why and is
// reported as not run, never as passed.
inline constexpr int kSkipExitCode = 77;
[[noreturn]] inline void skip(const std::string& reason) {
  std::cout << "SKIPPED: " << reason << std::endl;
  std::_Exit(kSkipExitCode);
}

// The lab pod (examples/lab-pod.yaml) with `segments` segments, the
// aggregation downlinks the design check requires for them (segments x ToRs
// per plane) and `pods` pods: the specs expansion tests grow.
inline std::string lab_spec_text(int segments, int pods = 1) {
  std::string text = read_file(source_path("examples/lab-pod.yaml"));
  auto set = [&](const std::string& from, const std::string& to) {
    size_t at = text.find(from);
    if (at == std::string::npos) throw std::runtime_error("examples/lab-pod.yaml no longer has: " + from);
    text.replace(at, from.size(), to);
  };
  set("  segments: 2\n", "  segments: " + std::to_string(segments) + "\n");
  set("  downlinks: 4\n", "  downlinks: " + std::to_string(segments * 2) + "\n");
  if (pods != 1) set("frontend:\n", "fabric:\n  pods: " + std::to_string(pods) + "\n\nfrontend:\n");
  return text;
}

// TEXT's lines, without their newlines (a last line without one counts).
inline std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

// The names in DIR, sorted.
inline std::vector<std::string> entries(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace hpn::test
