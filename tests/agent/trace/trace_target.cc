// trace_target: a process with known kernel activity, for
// kernel_tracer_test. Usage: trace_target CALLS PAGES FILE
// Waits for one byte on stdin (so the test can attach first), then makes
// CALLS getppid system calls in each of: its main thread, a second thread
// and a child process (3 x CALLS in all); touches PAGES fresh anonymous
// pages; writes 1 MiB to FILE with fdatasync, then syncfs on its file
// system; exits 0.
#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

long g_calls = 0;

void* Calls(void*) {
  for (long i = 0; i < g_calls; ++i) syscall(SYS_getppid);
  return nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) return 2;
  g_calls = std::atol(argv[1]);
  const long pages = std::atol(argv[2]);
  char go = 0;
  if (read(0, &go, 1) != 1) return 3;

  pthread_t thread;
  if (pthread_create(&thread, nullptr, Calls, nullptr) != 0) return 4;
  Calls(nullptr);
  pthread_join(thread, nullptr);
  const pid_t child = fork();
  if (child == 0) {
    Calls(nullptr);
    _exit(0);
  }
  int status = 0;
  waitpid(child, &status, 0);

  const long page = sysconf(_SC_PAGESIZE);
  void* mem = mmap(nullptr, pages * page, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) return 5;
  for (long p = 0; p < pages; ++p) static_cast<char*>(mem)[p * page] = 1;

  const int fd = open(argv[3], O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) return 6;
  std::vector<char> block(1 << 20, 'x');
  if (write(fd, block.data(), block.size()) !=
      static_cast<ssize_t>(block.size())) {
    return 7;
  }
  fdatasync(fd);
  syncfs(fd);
  close(fd);
  return 0;
}
