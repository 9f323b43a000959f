// One output file written all or nothing. The bytes go to a temporary file
// in the same directory (".NAME.tmp-PID-N", so the rename never crosses a
// file system), are fsync(2)ed, and the temporary is renamed over NAME; the
// directory is fsynced after, so the new name survives a crash too. A reader
// of NAME sees the old file or the new one, never a part of either. On any
// error the temporary is removed and an older NAME is left as it was.
// A NAME that is a symbolic link stays one (the file it names is replaced);
// a NAME that is not a regular file (a pipe, /dev/stdout) is a stream and
// is written as it is.
//
// Every single file hpnctl writes goes through here: observation files
// (probe -o, verify --keep-observations), verify --paths-out, the lab's
// record. Whole directories (plans, profile sets) are staged instead, see
// blueprint/staged_dir.h.
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

}  // namespace hpn
