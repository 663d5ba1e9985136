#include "common/net/descriptors.h"

#include <dirent.h>
#include <sys/resource.h>

#include <fstream>

namespace powersweep {

OpenFilesLimit RaiseOpenFilesLimit() {
  OpenFilesLimit out;
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) != 0) return out;
  out.soft_before = static_cast<int64_t>(lim.rlim_cur);
  out.soft = out.soft_before;
  rlim_t target = lim.rlim_max;
  if (target == RLIM_INFINITY) {
    int64_t nr_open = 0;
    std::ifstream("/proc/sys/fs/nr_open") >> nr_open;
    target = nr_open > 0 ? static_cast<rlim_t>(nr_open) : lim.rlim_cur;
  }
  out.hard = static_cast<int64_t>(target);
  if (target > lim.rlim_cur) {
    rlimit raised = lim;
    raised.rlim_cur = target;
    if (setrlimit(RLIMIT_NOFILE, &raised) == 0) {
      out.soft = static_cast<int64_t>(target);
    }
  }
  return out;
}

int64_t CountOpenDescriptors() {
  DIR* dir = opendir("/proc/self/fd");
  if (dir == nullptr) return -1;
  int64_t n = 0;
  while (dirent* e = readdir(dir)) {
    if (e->d_name[0] != '.') ++n;
  }
  closedir(dir);
  return n - 1;  // the directory stream's own descriptor
}

}  // namespace powersweep
