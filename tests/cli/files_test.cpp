// Files hpnctl writes and reads: one output file written all or nothing
// (blueprint/atomic_file.h), and one plan read by several hpnctl processes
// at once, by a user who may not write it, and next to a writer.
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <atomic>
#include <nlohmann/json.hpp>
#include <thread>

#include "blueprint/atomic_file.h"
#include "test_util.h"

namespace {

// One probe record of the lab pod (lost, so it names hosts and no path):
// the least a verify run takes as evidence.
std::string one_observation() {
  return "{\"run\":\"0123456789abcdef\",\"probe\":1,\"direction\":\"forward\","
         "\"src\":{\"device\":\"host-p0-s00-h000\",\"port\":\"nic1p1\",\"address\":\"fd48:504e::10\",\"udp_port\":49152},"
         "\"dst\":{\"device\":\"host-p0-s01-h000\",\"address\":\"fd48:504e:0:2::10\",\"udp_port\":33434},"
         "\"received\":false,\"hops\":[],\"sent_ns\":1}\n";
}

using namespace hpn::test;

int mode_of(const fs::path& path) {
  struct stat st {};
  REQUIRE(stat(path.c_str(), &st) == 0);
  return static_cast<int>(st.st_mode & 07777);
}

// Runs a shell script, returning its exit status.
int shell(const std::string& script) {
  const int status = std::system(script.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

// --- write_file_atomic ---------------------------------------------------------

TEST_CASE("files/atomic: a write replaces the file whole, with the mode asked for") {
  TempDir dir;
  const fs::path path = dir / "out.json";
  write_file(path, "old\n");
  const mode_t saved = umask(077);
  auto st = hpn::write_file_atomic(path.string(), std::string("new\n"), 0644);
  umask(saved);
  REQUIRE(st.ok());
  CHECK(read_file(path) == "new\n");
  CHECK(mode_of(path) == 0644);  // not 0600, whatever the umask
  CHECK(entries(dir.path()) == std::vector<std::string>{"out.json"});
}

TEST_CASE("files/atomic: a write that fails half-way leaves the old file and no temporary") {
  TempDir dir;
  const fs::path path = dir / "observations.jsonl";
  const std::string old(10000, 'o');
  write_file(path, old);
  // A child limited to 64 KiB per file (RLIMIT_FSIZE; SIGXFSZ ignored, so
  // write(2) fails with EFBIG) writes 1 MiB: the disk "fills" mid-file.
  pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit limit {65536, 65536};
    setrlimit(RLIMIT_FSIZE, &limit);
    auto st = hpn::write_file_atomic(path.string(), [](std::ostream& out) {
      for (int i = 0; i < 1 << 14; ++i) out << std::string(63, 'n') << '\n';
    });
    if (st.ok()) _exit(1);
    _exit(st.error().message == path.string() + ": write failed: File too large" ? 0 : 2);
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(read_file(path) == old);
  CHECK(entries(dir.path()) == std::vector<std::string>{"observations.jsonl"});
}

TEST_CASE("files/atomic: a missing directory or a directory in the way is an error, nothing written") {
  TempDir dir;
  auto missing = hpn::write_file_atomic((dir / "nowhere" / "paths.json").string(), std::string("{}"));
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message == (dir / "nowhere" / "paths.json").string() + ": cannot write: No such file or directory");
  fs::create_directory(dir / "taken");
  write_file(dir / "taken" / "keep", "x");
  auto taken = hpn::write_file_atomic((dir / "taken").string(), std::string("{}"));
  REQUIRE_FALSE(taken.ok());
  CHECK_THAT(taken.error().message, Catch::StartsWith((dir / "taken").string() + ": cannot replace: "));
  CHECK(read_file(dir / "taken" / "keep") == "x");
  CHECK(entries(dir.path()) == std::vector<std::string>{"taken"});
}

TEST_CASE("files/atomic: a link of one's own is replaced, never written through, and /dev/null is written as it is") {
  TempDir dir;
  fs::create_directory(dir / "real");
  write_file(dir / "real" / "paths.json", "old");
  fs::create_symlink("real/paths.json", dir / "paths.json");
  REQUIRE(hpn::write_file_atomic((dir / "paths.json").string(), std::string("new")).ok());
  // The name itself now holds the file; what the link pointed to is as it was.
  CHECK_FALSE(fs::is_symlink(dir / "paths.json"));
  CHECK(read_file(dir / "paths.json") == "new");
  CHECK(read_file(dir / "real" / "paths.json") == "old");
  CHECK(entries(dir / "real") == std::vector<std::string>{"paths.json"});
  REQUIRE(hpn::write_file_atomic("/dev/null", std::string("discarded")).ok());
  struct stat st {};
  REQUIRE(stat("/dev/null", &st) == 0);
  CHECK(S_ISCHR(st.st_mode));
}

TEST_CASE("files/atomic: /dev/fd/N is the descriptor already open, written at its offset without opening anything") {
  TempDir dir;
  // A file only root could open again, handed over open: how verify --lab
  // gives each probe agent, which has dropped to nobody, its output file.
  write_file(dir / "out", "kept\n");
  const int fd = ::open((dir / "out").c_str(), O_WRONLY | O_APPEND);
  REQUIRE(fd >= 0);
  auto st = hpn::write_file_atomic("/dev/fd/" + std::to_string(fd), std::string("added\n"));
  ::close(fd);
  REQUIRE(st.ok());
  CHECK(read_file(dir / "out") == "kept\nadded\n");
  CHECK(entries(dir.path()) == std::vector<std::string>{"out"});
  auto closed = hpn::write_file_atomic("/dev/fd/" + std::to_string(fd), std::string("x"));
  REQUIRE_FALSE(closed.ok());
  CHECK(closed.error().message == "/dev/fd/" + std::to_string(fd) + ": cannot write: Bad file descriptor");
}

TEST_CASE("files/atomic: the temporary of a killed writer is removed by the next write, a live one's kept") {
  TempDir dir;
  pid_t gone = fork();
  REQUIRE(gone >= 0);
  if (gone == 0) _exit(0);
  REQUIRE(waitpid(gone, nullptr, 0) == gone);
  write_file(dir / (".out.json.tmp-" + std::to_string(gone) + "-0"), "half");
  write_file(dir / ".out.json.tmp-1-0", "pid 1 is alive");
  REQUIRE(hpn::write_file_atomic((dir / "out.json").string(), std::string("{}\n")).ok());
  CHECK(entries(dir.path()) == std::vector<std::string>{".out.json.tmp-1-0", "out.json"});
}

TEST_CASE("files/atomic: a reader never sees part of a file being rewritten") {
  TempDir dir;
  const fs::path path = dir / "paths.json";
  const std::string a(1 << 20, 'a'), b(3 << 19, 'b');
  REQUIRE(hpn::write_file_atomic(path.string(), a).ok());
  std::atomic<bool> done{false};
  std::atomic<int> failed{0};
  std::thread writer([&] {  // no Catch2 assertion off the main thread
    for (int i = 0; i < 40; ++i) failed += !hpn::write_file_atomic(path.string(), i % 2 ? a : b).ok();
    done = true;
  });
  int reads = 0, torn = 0;
  while (!done) {
    const std::string seen = read_file(path);
    ++reads;
    if (seen != a && seen != b) ++torn;
  }
  writer.join();
  CHECK(failed == 0);
  CHECK(reads > 0);
  CHECK(torn == 0);
}

// --- hpnctl processes on one plan ------------------------------------------------

namespace {

struct LabPlan {
  TempDir dir;
  fs::path plan() const { return dir / "plan"; }
};

void plan_lab(const LabPlan& p) {
  RunResult r = run_hpnctl("plan '" + source_path("examples/lab-pod.yaml").string() + "' -o " + q(p.plan()) + " -q",
                           p.dir.path());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
}

// The commands run at once, each with the output it gives alone.
struct Reader {
  std::string args;
  int exit_code;
  std::string out;
};

std::vector<Reader> readers_of(const LabPlan& p) {
  write_file(p.dir / "none.jsonl", one_observation());
  std::vector<Reader> readers{
      {"devices --blueprint " + q(p.plan()) + " --format csv", 0, ""},
      {"cable tor-p0-s00-r1a --blueprint " + q(p.plan()) + " --format json", 0, ""},
      {"verify --blueprint " + q(p.plan()) + " " + q(p.dir / "none.jsonl") + " --format json", 0, ""},
  };
  for (auto& r : readers) {
    RunResult alone = run_hpnctl(r.args, p.dir.path());
    INFO(r.args << ": " << alone.err);
    REQUIRE((alone.exit_code == 0 || alone.exit_code == 1));
    REQUIRE(alone.out.size() > 100);
    r.exit_code = alone.exit_code;
    r.out = alone.out;
  }
  return readers;
}

// Each reader `rounds` times in its own loop, all loops at once; every run's
// status and stdout kept as N.rc, N.out in dir/runs-K/.
void run_together(const LabPlan& p, const std::vector<Reader>& readers, int rounds) {
  std::string script = "cd " + q(p.dir.path()) + " && ";
  for (size_t k = 0; k < readers.size(); ++k) {
    const fs::path runs = p.dir / ("runs-" + std::to_string(k));
    fs::create_directories(runs);
    script += "( for i in $(seq " + std::to_string(rounds) + "); do '" + std::string(HPNCTL_BINARY) + "' " +
              readers[k].args + " >" + q(runs) + "/$i.out 2>" + q(runs) + "/$i.err; echo $? >" + q(runs) +
              "/$i.rc; done ) & ";
  }
  script += "wait";
  REQUIRE(shell(script) == 0);
}

void check_runs(const LabPlan& p, const std::vector<Reader>& readers, int rounds) {
  for (size_t k = 0; k < readers.size(); ++k) {
    const fs::path runs = p.dir / ("runs-" + std::to_string(k));
    int same = 0;
    for (int i = 1; i <= rounds; ++i) {
      const std::string n = std::to_string(i);
      INFO(readers[k].args << " run " << n << ": " << read_file(runs / (n + ".err")));
      CHECK(read_file(runs / (n + ".rc")) == std::to_string(readers[k].exit_code) + "\n");
      same += read_file(runs / (n + ".out")) == readers[k].out;
    }
    CHECK(same == rounds);
  }
}

}  // namespace

TEST_CASE("files/concurrent: devices, cable and verify read one plan at once, each as it reads alone") {
  LabPlan p;
  plan_lab(p);
  const auto before = entries(p.plan());
  const auto readers = readers_of(p);
  run_together(p, readers, 25);
  check_runs(p, readers, 25);
  // Readers take no locks and leave nothing: no -wal, no -shm.
  CHECK(entries(p.plan()) == before);
}

TEST_CASE("files/concurrent: readers next to a writer working on the plan in place") {
  LabPlan p;
  plan_lab(p);
  const auto readers = readers_of(p);
  // A writer (python3's sqlite3, the system library) keeps the database
  // open in WAL mode and commits a change to a row of its own every few
  // milliseconds until told to stop. The readers must neither fail on its
  // locks nor see anything but the plan.
  const fs::path stop = p.dir / "stop";
  write_file(p.dir / "writer.py",
             "import os, sqlite3, sys, time\n"
             "db = sqlite3.connect(sys.argv[1], timeout=5, isolation_level=None)\n"
             "db.execute('INSERT INTO meta VALUES (\"note\", \"0\")')\n"
             "open(sys.argv[3], 'w').close()\n"
             "n = 0\n"
             "while not os.path.exists(sys.argv[2]):\n"
             "    n += 1\n"
             "    db.execute('BEGIN IMMEDIATE')\n"
             "    db.execute('UPDATE meta SET value = ? WHERE key = \"note\"', (str(n),))\n"
             "    db.execute('COMMIT')\n"
             "    time.sleep(0.002)\n"
             "print(n)\n");
  const fs::path ready = p.dir / "ready";
  const std::string writer = "/usr/bin/python3 " + q(p.dir / "writer.py") + " " + q(p.plan() / "blueprint.db") + " " +
                             q(stop) + " " + q(ready) + " >" + q(p.dir / "writes") + " 2>" + q(p.dir / "writer.err");
  REQUIRE(shell("( " + writer + " ) & echo $! >" + q(p.dir / "writer.pid")) == 0);
  for (int i = 0; i < 500 && !fs::exists(ready); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  REQUIRE(fs::exists(ready));
  CHECK(fs::exists(p.plan() / "blueprint.db-wal"));
  run_together(p, readers, 15);
  write_file(stop, "");
  REQUIRE(shell("while kill -0 $(cat " + q(p.dir / "writer.pid") + ") 2>/dev/null; do sleep 0.05; done") == 0);
  INFO("writer: " << read_file(p.dir / "writer.err"));
  CHECK(std::stoi("0" + read_file(p.dir / "writes")) > 10);
  check_runs(p, readers, 15);
}

TEST_CASE("files/readonly: a user who may not write the plan's directory queries it") {
  LabPlan p;
  plan_lab(p);
  RunResult alone = run_hpnctl("devices --blueprint " + q(p.plan()) + " --format csv", p.dir.path());
  REQUIRE(alone.exit_code == 0);
  // The binary is copied where that user can run it; the plan is read-only for all.
  fs::copy_file(HPNCTL_BINARY, p.dir / "hpnctl");
  fs::permissions(p.dir.path(), fs::perms(0755), fs::perm_options::replace);
  fs::permissions(p.plan(), fs::perms(0555), fs::perm_options::replace);
  const std::string as_user = geteuid() == 0 ? "setpriv --reuid=65534 --regid=65534 --clear-groups " : "";
  const std::string script = "cd / && " + as_user + q(p.dir / "hpnctl") + " devices --blueprint " + q(p.plan()) +
                             " --format csv >" + q(p.dir / "ro.out") + " 2>" + q(p.dir / "ro.err");
  const int rc = shell(script);
  fs::permissions(p.plan(), fs::perms(0755), fs::perm_options::replace);
  INFO(read_file(p.dir / "ro.err"));
  CHECK(rc == 0);
  CHECK(read_file(p.dir / "ro.out") == alone.out);
  CHECK_FALSE(fs::exists(p.plan() / "blueprint.db-shm"));
}

TEST_CASE("files/cli: verify --paths-out into a missing directory exits 3, as other outputs do, and writes nothing") {
  LabPlan p;
  plan_lab(p);
  write_file(p.dir / "none.jsonl", one_observation());
  RunResult r = run_hpnctl("verify --blueprint " + q(p.plan()) + " " + q(p.dir / "none.jsonl") + " --paths-out " +
                               q(p.dir / "nowhere" / "paths.json"),
                           p.dir.path());
  CHECK(r.exit_code == 3);
  CHECK(r.err == "hpnctl: cannot write the disjoint paths: " + (p.dir / "nowhere" / "paths.json").string() +
                     ": cannot write: No such file or directory\n");
  CHECK_FALSE(fs::exists(p.dir / "nowhere"));
  // Into an existing directory it is written, and replaces an older file.
  write_file(p.dir / "paths.json", "older");
  RunResult ok = run_hpnctl("verify --blueprint " + q(p.plan()) + " " + q(p.dir / "none.jsonl") + " --paths-out " +
                                q(p.dir / "paths.json"),
                            p.dir.path());
  CHECK((ok.exit_code == 0 || ok.exit_code == 1));
  CHECK(read_file(p.dir / "paths.json") != "older");
  CHECK(read_file(p.dir / "paths.json").front() == '{');
}

TEST_CASE("files/verify: no evidence is never clean: every way of giving none exits non-zero") {
  LabPlan p;
  plan_lab(p);
  auto verify = [&](const std::string& files) {
    return run_hpnctl("verify --blueprint " + q(p.plan()) + " " + files, p.dir.path());
  };
  // A directory with no observation file, an empty file, blank lines:
  // input errors, located.
  fs::create_directories(p.dir / "obs");
  write_file(p.dir / "obs" / "notes.txt", "not observations\n");
  auto dir = verify(q(p.dir / "obs"));
  CHECK(dir.exit_code == 2);
  CHECK(dir.err == "hpnctl: " + (p.dir / "obs").string() + ": no observation file (*.jsonl) in it\n");
  write_file(p.dir / "empty.jsonl", "");
  auto empty = verify(q(p.dir / "empty.jsonl"));
  CHECK(empty.exit_code == 2);
  CHECK(empty.err == "hpnctl: " + (p.dir / "empty.jsonl").string() + ": no observation records (an empty file is no evidence)\n");
  write_file(p.dir / "blank.jsonl", "\n  \n\t\n\n");
  auto blank = verify(q(p.dir / "blank.jsonl"));
  CHECK(blank.exit_code == 2);
  CHECK(blank.err.find("no observation records") != std::string::npos);
  // /dev/zero: refused at once, in bounded memory.
  auto zero = run_hpnctl("verify --blueprint " + q(p.plan()) + " /dev/zero", p.dir.path());
  CHECK(zero.exit_code == 2);
  CHECK(zero.err == "hpnctl: /dev/zero: not a regular file, not an observation file\n");
  // Endless bytes through a pipe: the line bound stops them.
  auto piped = run_command("head -c 50000000 /dev/zero | '" + std::string(HPNCTL_BINARY) + "' verify --blueprint " +
                                 q(p.plan()) + " /dev/stdin 2>&1; echo exit=$?");
  CHECK(piped.out == "hpnctl: /dev/stdin:1: a line longer than 65536 bytes: not an observation file\nexit=2\n");
  // Records that name only devices the plan does not have: another plan's.
  std::string foreign = one_observation();
  for (const std::string from : {"host-p0-s00-h000", "host-p0-s01-h000"}) {
    foreign.replace(foreign.find(from), from.size(), "host-p9" + from.substr(7));
  }
  write_file(p.dir / "foreign.jsonl", foreign);
  auto other = verify(q(p.dir / "foreign.jsonl"));
  CHECK(other.exit_code == 2);
  CHECK(other.err == "hpnctl: none of the 1 observation records names a host of " + p.plan().string() +
                         "/blueprint.db (the first names 'host-p9-s00-h000'): are they from another plan?\n");
  // Real records that leave cables unverified: findings (exit 1), not clean.
  write_file(p.dir / "one.jsonl", one_observation());
  auto thin = run_hpnctl("verify --blueprint " + q(p.plan()) + " " + q(p.dir / "one.jsonl") + " --format json", p.dir.path());
  CHECK(thin.exit_code == 1);
  auto j = nlohmann::json::parse(thin.out);
  CHECK(j["summary"]["clean"] == false);
  CHECK(j["summary"]["coverage"]["host-tor"]["verified"] == 0);
  auto table = verify(q(p.dir / "one.jsonl"));
  CHECK(table.out.find("NOT CLEAN") != std::string::npos);
  CHECK(table.out.find("not clean: ") != std::string::npos);
}

namespace {

// Every command that reads a file the user names, with {} for the file,
// and what it calls that file.
struct FileReader {
  std::string args;
  std::string what;
};

std::vector<FileReader> file_readers(const LabPlan& p) {
  const std::string bp = " --blueprint " + q(p.plan());
  return {
      {"plan {} -o out", "a pod spec"},
      {"spec check {}", "a pod spec"},
      {"profile host-p0-s00-h000" + bp + " --paths {}", "a paths file"},
      {"profile host-p0-s00-h000" + bp + " --nic-map {}", "a NIC map"},
      {"host apply {} --dry-run", "a host profile"},
      {"verify" + bp + " {}", "an observation file"},
      {"verify" + bp + " --lldp tor-p0-s00-r1a={}", "an LLDP neighbour dump"},
      {"verify" + bp + " --bgp tor-p0-s00-r1a={}", "a BGP neighbour dump"},
  };
}

std::string with(std::string args, const std::string& file) {
  return args.replace(args.find("{}"), 2, q(file));
}

}  // namespace

TEST_CASE("files/readers: a missing file, a directory, binary content and a device get the same words from every reader") {
  LabPlan p;
  plan_lab(p);
  fs::create_directories(p.dir / "adir");
  write_file(p.dir / "binary", std::string("\x7f" "ELF\x02\x01\x01\0\0\0", 10));
  for (const auto& r : file_readers(p)) {
    for (const auto& [file, message] : std::vector<std::pair<fs::path, std::string>>{
             {p.dir / "missing.yaml", "no such file"},
             // verify reads a directory's observation files: this one has none.
             {p.dir / "adir", r.what == "an observation file" ? "no observation file (*.jsonl) in it"
                                                               : "is a directory, not " + r.what},
             {p.dir / "binary", "binary content, not " + r.what},
             {"/dev/null/x", "cannot read: Not a directory"},
         }) {
      const std::string args = with(r.args, file.string());
      RunResult run = run_hpnctl(args, p.dir.path());
      INFO(args);
      CHECK(run.exit_code == 2);
      CHECK(run.err == "hpnctl: " + file.string() + ": " + message + "\n");
      CHECK_FALSE(fs::exists(p.dir / "out"));
    }
  }
}

TEST_CASE("files/readers: a file the user may not read is named with the reason, by every reader") {
  if (geteuid() != 0) hpn::test::skip("needs root to run hpnctl as another user (setpriv)");
  LabPlan p;
  plan_lab(p);
  fs::copy_file(HPNCTL_BINARY, p.dir / "hpnctl");
  fs::permissions(p.dir.path(), fs::perms(0755), fs::perm_options::replace);
  write_file(p.dir / "secret", "version: 1\n");
  fs::permissions(p.dir / "secret", fs::perms::none, fs::perm_options::replace);
  for (const auto& r : file_readers(p)) {
    if (r.what == "a host profile") continue;  // host apply refuses a user without root first
    const std::string args = with(r.args, (p.dir / "secret").string());
    const int rc = shell("cd " + q(p.dir.path()) + " && setpriv --reuid=65534 --regid=65534 --clear-groups " +
                         q(p.dir / "hpnctl") + " " + args + " >/dev/null 2>" + q(p.dir / "err"));
    INFO(args);
    CHECK(rc == 2);
    CHECK(read_file(p.dir / "err") == "hpnctl: " + (p.dir / "secret").string() + ": cannot read: Permission denied\n");
  }
}

TEST_CASE("files/readers: control bytes from a file or a name never reach the terminal raw") {
  LabPlan p;
  plan_lab(p);
  // A spec whose text and name carry ESC, BEL and CSI, as a hostile or
  // corrupted file can.
  const std::string nasty = "pod\x1b[31m\x07.yaml";
  write_file(p.dir / nasty, "version: 1\nname: \"\x1b]0;owned\x07\"\npods: [\x1b[2J]\n");
  write_file(p.dir / "map.yaml", "nic1p1: \"\\e[31mred\"\n");
  for (const std::string& args : {"plan " + q(p.dir / nasty) + " -o out", "spec check " + q(p.dir / nasty),
                                  "profile host-p0-s00-h000 --blueprint " + q(p.plan()) + " --nic-map map.yaml",
                                  "plan " + q(p.dir / "\x1b[1mgone")}) {
    RunResult run = run_hpnctl(args, p.dir.path());
    INFO(args << "\n" << run.err);
    CHECK(run.exit_code == 2);
    CHECK(run.err.rfind("hpnctl: ", 0) == 0);
    for (unsigned char c : run.err) {
      CHECK((c >= 0x20 || c == '\n'));
      if (c < 0x20 && c != '\n') break;
    }
    CHECK(run.err.find("\\x1b") != std::string::npos);
  }
}
