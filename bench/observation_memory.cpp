// Memory of the observation reader: reads an observation file as `hpnctl
// verify` does and exits; bench/observation_memory.sh runs it under
// /usr/bin/time -v on files of different lengths and divides the
// difference in peak RSS by the difference in records. Written against the
// reader's entry point alone (read_observation_file), so that the same
// source builds against an older tree for the figure before a change.
#include <cstdio>

#include "probe/observation.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: observation_memory FILE\n");
    return 2;
  }
  auto read = hpn::probe::read_observation_file(argv[1]);
  if (!read) {
    std::fprintf(stderr, "observation_memory: %s\n", read.error().message.c_str());
    return 2;
  }
  std::printf("%zu\n", read->size());
  return 0;
}
