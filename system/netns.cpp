#include "system/netns.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <thread>

namespace hpn::lab {

namespace {

std::string netns_path(const std::string& name) { return std::string(kNetnsRunDir) + "/" + name; }

Error sys_error(const std::string& what) { return Error{fmt::format("{}: {}", what, std::strerror(errno))}; }

// As iproute2: make /run/netns a shared mount point (bind-mounting it on
// itself first if it is not a mount point yet), so that namespace mounts
// made here propagate to other mount namespaces and back.
Status prepare_run_dir() {
  if (mkdir(kNetnsRunDir, 0755) != 0 && errno != EEXIST) return sys_error(fmt::format("mkdir {}", kNetnsRunDir));
  bool bound = false;
  while (mount("", kNetnsRunDir, "none", MS_SHARED | MS_REC, nullptr) != 0) {
    if (errno != EINVAL || bound) return sys_error(fmt::format("mount --make-shared {}", kNetnsRunDir));
    if (mount(kNetnsRunDir, kNetnsRunDir, "none", MS_BIND | MS_REC, nullptr) != 0) {
      return sys_error(fmt::format("mount --bind {}", kNetnsRunDir));
    }
    bound = true;
  }
  return {};
}

}  // namespace

Status create_named_netns(const std::string& name) {
  if (auto ready = prepare_run_dir(); !ready) return ready;
  const std::string path = netns_path(name);
  const int fd = open(path.c_str(), O_RDONLY | O_CREAT | O_EXCL, 0);
  if (fd < 0) return sys_error(fmt::format("create {}", path));
  close(fd);
  Status result;
  // A thread of its own unshares: only that thread enters the new
  // namespace, and the bind mount keeps the namespace when it ends.
  std::thread worker([&] {
    if (unshare(CLONE_NEWNET) != 0) {
      result = sys_error("unshare(CLONE_NEWNET)");
    } else if (mount("/proc/thread-self/ns/net", path.c_str(), "none", MS_BIND, nullptr) != 0) {
      result = sys_error(fmt::format("mount --bind /proc/thread-self/ns/net {}", path));
    }
  });
  worker.join();
  if (!result) unlink(path.c_str());
  return result;
}

Status delete_named_netns(const std::string& name) {
  const std::string path = netns_path(name);
  // MNT_DETACH as iproute2: a process still inside keeps the namespace, but
  // the name goes now. EINVAL: an empty file left by an interrupted create.
  if (umount2(path.c_str(), MNT_DETACH) != 0 && errno != EINVAL && errno != ENOENT) {
    return sys_error(fmt::format("umount {}", path));
  }
  if (unlink(path.c_str()) != 0 && errno != ENOENT) return sys_error(fmt::format("remove {}", path));
  return {};
}

Result<std::vector<std::string>> list_named_netns() {
  std::vector<std::string> names;
  std::error_code ec;
  if (!std::filesystem::exists(kNetnsRunDir, ec)) return names;
  for (const auto& entry : std::filesystem::directory_iterator(kNetnsRunDir, ec)) {
    names.push_back(entry.path().filename().string());
  }
  if (ec) return Error{fmt::format("list {}: {}", kNetnsRunDir, ec.message())};
  return names;
}

Status run_in_netns(const std::string& name, const std::function<Status()>& work) {
  if (name.empty()) {
    try {
      return work();
    } catch (const std::exception& e) {
      return Error{e.what()};
    }
  }
  const std::string path = netns_path(name);
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return sys_error(fmt::format("open {}", path));
  Status result;
  std::thread worker([&] {
    if (setns(fd, CLONE_NEWNET) != 0) {
      result = sys_error(fmt::format("enter {}", name));
      return;
    }
    try {
      result = work();
    } catch (const std::exception& e) {
      result = Error{fmt::format("in {}: {}", name, e.what())};
    }
  });
  worker.join();
  close(fd);
  return result;
}

Result<int> socket_in_netns(const std::string& name, int domain, int type, int protocol) {
  int fd = -1;
  auto made = run_in_netns(name, [&]() -> Status {
    fd = socket(domain, type | SOCK_CLOEXEC, protocol);
    if (fd < 0) return sys_error("socket");
    return {};
  });
  if (!made) return made.error();
  return fd;
}

}  // namespace hpn::lab
