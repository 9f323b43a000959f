// hpnctl completion bash|zsh: the generated scripts loaded by the real shells
// and asked for candidates the way each shell's completion system asks, and
// checked against the command table as `hpnctl --help` prints it.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "test_util.h"

namespace {

using namespace hpn::test;

std::vector<std::string> words_of(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

struct Shell {
  TempDir dir;
  fs::path script;
  explicit Shell(const std::string& shell) {
    RunResult r = run_hpnctl("completion " + shell, dir.path());
    REQUIRE(r.exit_code == 0);
    REQUIRE(r.err.empty());
    script = dir / ("hpnctl." + shell);
    write_file(script, r.out);
  }
  // Runs `program -c BODY` and returns its stdout; fails the test on a non-zero exit.
  std::string run(const std::string& program, const std::string& body) {
    const fs::path out = dir / "out", err = dir / "err";
    std::string command = program + " -c " + q(body) + " >" + q(out.string()) + " 2>" + q(err.string()) + " </dev/null";
    int rc = std::system(command.c_str());
    INFO(command << "\n" << read_file(err));
    CHECK(rc == 0);
    return read_file(out);
  }
};

// Bash: COMP_WORDS / COMP_CWORD as readline sets them, then the function.
std::vector<std::string> bash_candidates(Shell& bash, const std::vector<std::string>& words) {
  std::string array;
  for (const auto& w : words) array += q(w) + " ";
  std::string body = "source " + q(bash.script.string()) + " && COMP_WORDS=(" + array + ") && COMP_CWORD=" +
                     std::to_string(words.size() - 1) + " && _hpnctl && printf '%s\\n' \"${COMPREPLY[@]}\"";
  return words_of(bash.run("bash", body));
}

// The subcommands `hpnctl --help` lists, read from its "Subcommands:" section.
std::set<std::string> help_subcommands(const std::string& args) {
  TempDir cwd;
  RunResult r = run_hpnctl(args + " --help", cwd.path());
  REQUIRE(r.exit_code == 0);
  std::set<std::string> names;
  std::istringstream in(r.out);
  bool inside = false;
  CHECK(r.out.find("Subcommands:") != std::string::npos);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("Subcommands:", 0) == 0) {
      inside = true;
      continue;
    }
    if (inside && line.empty()) break;
    // A description wrapped to 80 columns continues on lines indented further.
    if (inside && line.rfind("  ", 0) == 0 && line.size() > 2 && line[2] != ' ') names.insert(words_of(line).at(0));
  }
  return names;
}

std::set<std::string> as_set(const std::vector<std::string>& v) { return {v.begin(), v.end()}; }

}  // namespace

TEST_CASE("cli/completion bash: commands, options and fixed values from the command table", "[cli][completion]") {
  Shell bash("bash");
  CHECK(bash_candidates(bash, {"hpnctl", "pl"}) == std::vector<std::string>{"plan"});
  CHECK(as_set(bash_candidates(bash, {"hpnctl", ""})) == help_subcommands(""));
  CHECK(as_set(bash_candidates(bash, {"hpnctl", "spec", ""})) == help_subcommands("spec"));
  CHECK(as_set(bash_candidates(bash, {"hpnctl", "lab", ""})) == help_subcommands("lab"));

  auto verify = bash_candidates(bash, {"hpnctl", "verify", "--f"});
  CHECK(as_set(verify).count("--format") == 1);
  for (const auto& c : verify) CHECK(c.rfind("--f", 0) == 0);
  // --quiet / --verbose are global: offered under every command.
  CHECK(as_set(bash_candidates(bash, {"hpnctl", "cable", "--verb"})) == std::set<std::string>{"--verbose"});
  CHECK(as_set(bash_candidates(bash, {"hpnctl", "plan", "--d"})) == std::set<std::string>{"--diff"});

  // Values of an option with a fixed set, after a space or an '=' (which readline splits off).
  CHECK(as_set(bash_candidates(bash, {"hpnctl", "plan", "--format", ""})) ==
        std::set<std::string>{"text", "table", "csv", "json"});
  CHECK(bash_candidates(bash, {"hpnctl", "plan", "--format", "=", "j"}) == std::vector<std::string>{"json"});
  // A positional argument with a fixed set: `completion bash|zsh`.
  CHECK(as_set(bash_candidates(bash, {"hpnctl", "completion", ""})) == std::set<std::string>{"bash", "zsh"});
  CHECK(bash_candidates(bash, {"hpnctl", "completion", "z"}) == std::vector<std::string>{"zsh"});
  // An open value (a directory) and a positional spec: nothing, so readline completes file names.
  CHECK(bash_candidates(bash, {"hpnctl", "plan", "--diff", ""}).empty());
  CHECK(bash_candidates(bash, {"hpnctl", "plan", ""}).empty());
  // The option's value is not taken for a command: `--output spec` stays in plan.
  CHECK(as_set(bash_candidates(bash, {"hpnctl", "plan", "-o", "spec", "--allow"})) ==
        std::set<std::string>{"--allow-renumber"});
  // A flag takes no value: what follows it is completed as usual.
  CHECK(bash_candidates(bash, {"hpnctl", "--quiet", "pl"}) == std::vector<std::string>{"plan"});
  CHECK(bash_candidates(bash, {"hpnctl", "-q", "pl"}) == std::vector<std::string>{"plan"});
  CHECK(as_set(bash_candidates(bash, {"hpnctl", "verify", "--lab", "--f"})).count("--format") == 1);
  // The values of --format, --role and export's formats.
  CHECK(as_set(bash_candidates(bash, {"hpnctl", "devices", "--role", ""})) ==
        std::set<std::string>{"host", "tor", "agg", "core", "frontend"});
  CHECK(as_set(bash_candidates(bash, {"hpnctl", "cable", "x", "--format", ""})) ==
        std::set<std::string>{"table", "json", "csv"});
  const std::set<std::string> exports{"ptm", "sonic", "netbox", "batfish", "xlsx", "dot", "svg", "ansible"};
  CHECK(as_set(bash_candidates(bash, {"hpnctl", "export", ""})) == exports);
  CHECK(as_set(bash_candidates(bash, {"hpnctl", "export", "--format", ""})) == exports);
  std::string registered = bash.run("bash", "source " + q(bash.script.string()) + " && complete -p hpnctl");
  CHECK(registered == "complete -o default -F _hpnctl hpnctl\n");
}

TEST_CASE("cli/completion zsh: parses, registers with compsys, and completes", "[cli][completion]") {
  if (std::system("command -v zsh >/dev/null 2>&1") != 0) {
    hpn::test::skip("zsh is not installed (Debian package zsh, in tools/build.sh)");
  }
  Shell zsh("zsh");
  CHECK(zsh.run("zsh", "zsh -n " + q(zsh.script.string()) + " && echo parsed") == "parsed\n");
  // compsys: compinit, then the script sourced registers _hpnctl for hpnctl.
  std::string comps = zsh.run(
      "zsh -f", "autoload -U compinit && compinit -u -D && source " + q(zsh.script.string()) + " && print -r -- $_comps[hpnctl]");
  CHECK(comps == "_hpnctl\n");
  // Autoloaded from $fpath as _hpnctl (how it is installed), the file is the function.
  fs::create_directories(zsh.dir / "fpath");
  fs::copy_file(zsh.script, zsh.dir / "fpath" / "_hpnctl");
  std::string autoloaded = zsh.run(
      "zsh -f", "fpath=(" + q((zsh.dir / "fpath").string()) + " $fpath) && autoload -U compinit && compinit -u -D"
                " && print -r -- $_comps[hpnctl]");
  CHECK(autoloaded == "_hpnctl\n");
  // Candidates: compsys's own builtins only work inside a completion widget,
  // so stand-ins record what _hpnctl offers for given words.
  auto candidates = [&](const std::string& words) {
    std::string body =
        "compdef() { : }; "
        "compadd() { local a; [[ $1 == -a ]] && { print -rl -- ${(P)2}; return }; print -rl -- \"$@\" }; "
        "_describe() { local -a e; e=(${(P)${@[-1]}}); print -rl -- ${e%%:*} }; "
        "_files() { print -r -- '<files>' }; "
        "compset() { cur=${cur#*=} }; "
        "source " + q(zsh.script.string()) + "; words=(" + words + "); CURRENT=${#words}; _hpnctl";
    return as_set(words_of(zsh.run("zsh -f", body)));
  };
  CHECK(candidates("hpnctl ''") == help_subcommands(""));
  CHECK(candidates("hpnctl spec ''") == help_subcommands("spec"));
  CHECK(candidates("hpnctl verify --f").count("--format") == 1);
  CHECK(candidates("hpnctl plan --format ''") == std::set<std::string>{"text", "table", "csv", "json"});
  CHECK(candidates("hpnctl completion ''") == std::set<std::string>{"bash", "zsh"});
  CHECK(candidates("hpnctl plan --diff ''") == std::set<std::string>{"<files>"});
}

TEST_CASE("cli/completion: device names come from the plan named by --blueprint, by role, in bash and zsh", "[cli][completion]") {
  TempDir cwd;
  REQUIRE(run_hpnctl("plan -q " + q(source_path("examples/lab-pod.yaml").string()) + " -o lab", cwd.path()).exit_code == 0);
  const std::string plan = (cwd / "lab").string();
  // As a user has it: hpnctl on PATH.
  const std::string path = "export PATH=" + q(fs::path(HPNCTL_BINARY).parent_path().string()) + ":$PATH; ";
  Shell bash("bash");
  auto candidates = [&](const std::vector<std::string>& words) {
    std::string array;
    for (const auto& w : words) array += q(w) + " ";
    return as_set(words_of(bash.run("bash", path + "source " + q(bash.script.string()) + " && COMP_WORDS=(" + array +
                                                ") && COMP_CWORD=" + std::to_string(words.size() - 1) +
                                                " && _hpnctl && printf '%s\\n' \"${COMPREPLY[@]}\"")));
  };
  CHECK(candidates({"hpnctl", "cable", "--blueprint", plan, "tor-p0-s00-r1"}) ==
        std::set<std::string>{"tor-p0-s00-r1a", "tor-p0-s00-r1b"});
  CHECK(candidates({"hpnctl", "impact", "--blueprint", "=", plan, "agg-p0-2"}) ==
        std::set<std::string>{"agg-p0-2-00", "agg-p0-2-01", "agg-p0-2-02", "agg-p0-2-03"});
  // profile takes hosts, config and export --switch take switches.
  const auto hosts = candidates({"hpnctl", "profile", "--blueprint", plan, ""});
  CHECK(hosts.size() == 16);
  for (const auto& h : hosts) CHECK(h.rfind("host-", 0) == 0);
  CHECK(candidates({"hpnctl", "profile", "--blueprint", plan, "tor"}).empty());
  const auto switches = candidates({"hpnctl", "config", "--blueprint", plan, ""});
  CHECK(switches.count("tor-p0-s00-r1a") == 1);
  CHECK(switches.count("agg-p0-1-00") == 1);
  CHECK(switches.count("host-p0-s00-h000") == 0);
  CHECK(candidates({"hpnctl", "export", "--switch", "tor-p0-s01-r2", "--blueprint", plan}).empty());  // cursor on --blueprint's value
  CHECK(candidates({"hpnctl", "export", "--blueprint", plan, "--switch", "tor-p0-s01-r2"}) ==
        std::set<std::string>{"tor-p0-s01-r2a", "tor-p0-s01-r2b"});
  // No plan there: nothing, and no error on the terminal.
  CHECK(candidates({"hpnctl", "cable", "--blueprint", (cwd / "none").string(), "t"}).empty());

  if (std::system("command -v zsh >/dev/null 2>&1") != 0) hpn::test::skip("zsh is not installed (Debian package zsh)");
  Shell zsh("zsh");
  auto zsh_candidates = [&](const std::string& words) {
    std::string body = path +
                       "compdef() { : }; "
                       "compadd() { local a; [[ $1 == -a ]] && { print -rl -- ${(P)2}; return }; print -rl -- \"$@\" }; "
                       "_describe() { : }; _files() { print -r -- '<files>' }; compset() { : }; "
                       "source " + q(zsh.script.string()) + "; words=(" + words + "); CURRENT=${#words}; _hpnctl";
    return as_set(words_of(zsh.run("zsh -f", body)));
  };
  CHECK(zsh_candidates("hpnctl cable --blueprint " + q(plan) + " tor-p0-s00-r1").count("tor-p0-s00-r1b") == 1);
  const auto zhosts = zsh_candidates("hpnctl profile --blueprint=" + q(plan) + " ''");
  CHECK(zhosts.size() == 16);
  CHECK(zhosts.count("host-p0-s00-h000") == 1);
  CHECK(zsh_candidates("hpnctl export --blueprint " + q(plan) + " --switch ''").count("agg-p0-1-01") == 1);
}
