// One output file written all or nothing, and never through a link or into
// a stream that someone else put where the file was to go.
//
// NAME is replaced, not written into: the bytes go to a new temporary in the
// same directory (".NAME.tmp-PID-N", created with O_EXCL|O_NOFOLLOW, so
// nothing already there is opened), are fsync(2)ed, and the temporary is
// renamed over NAME itself (renameat(2) within the directory opened once);
// the directory is fsynced after, so the new name survives a crash too. A
// reader of NAME sees the old file or the new one, never a part of either.
// On any error the temporary is removed and an older NAME is left as it was.
//
// What is at NAME decides (lstat, never following it):
//   nothing, a regular file    replaced as above;
//   a symbolic link            of the caller's own: the link itself is
//                              replaced by the file (what it points to is
//                              never written); of another user: refused,
//                              nothing written. As root, a link planted in a
//                              shared directory (/tmp, sticky and world-
//                              writable) would otherwise have root replace
//                              any file the link names.
//   a FIFO, a device, a socket written in place as a stream only if it is
//                              the caller's or root's (/dev/null, a FIFO of
//                              one's own); a FIFO is opened without waiting
//                              (no reader: an error, not a hang). One that
//                              another user made is refused.
//   a directory                an error.
// Names of streams that are already open are written to the open file
// descriptor itself, at its offset, without opening anything: /dev/stdout,
// /dev/stderr, /dev/fd/N and /proc/self/fd/N. That is how `-o /dev/stdout`
// reaches a pipe, and how a process that has dropped its privileges
// writes a file its parent opened for it (dataplane/lab_verify.cpp).
//
// The directories on the way to NAME are followed the way the kernel's
// fs.protected_symlinks would (whatever the sysctl says): a symbolic link
// among them is followed only when its owner is the caller, root, or the
// owner of the directory holding it.
//
// Every single file hpnctl writes goes through here: exports, observation
// files (probe -o, verify --keep-observations), verify --paths-out, the
// lab's record. Whole directories (plans, profile sets, configurations) are
// staged instead (blueprint/staged_dir.h), their files made with
// write_new_file() in the staging directory hpnctl just made.
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <string_view>

#include "blueprint/result.h"

namespace hpn {

// `mode` is set exactly (fchmod), whatever the umask: outputs do not depend
// on who ran the command.
Status write_file_atomic(const std::string& path, std::string_view content, int mode = 0644);

// The same, with the content streamed by `body` (large outputs are not held
// in memory twice). A stream error (e.g. a full disk) fails the write.
Status write_file_atomic(const std::string& path, const std::function<void(std::ostream&)>& body,
                         int mode = 0644);

// True for the names of already-open streams above (/dev/stdout, /dev/fd/3).
bool is_open_stream_name(const std::string& path);

// A file that must not exist yet, in a directory the caller made (a staging
// directory): created with O_EXCL|O_NOFOLLOW, `mode` exactly, and every
// write and the close checked. An error names the path.
Status write_new_file(const std::string& path, const std::function<void(std::ostream&)>& body, int mode = 0644);
Status write_new_file(const std::string& path, std::string_view content, int mode = 0644);

}  // namespace hpn
