// Writer of generated image-folder sets (generated_set_writers.h): JPEG
// files encoded by several threads, each sample a function of its index.
#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "workloads/data/file_util.h"
#include "workloads/data/generated_set_writers.h"
#include "workloads/data/jpeg_codec.h"

namespace powersweep {
namespace {

class ParallelWriter {
 public:
  ParallelWriter(const GenerateOptions& options,
                 const std::vector<std::string>& class_names)
      : o_(options),
        names_(class_names),
        total_(options.train_count + options.test_count) {}

  // Writes every sample; returns the first failure (the others stop soon).
  absl::Status Run(int threads, ProgressReporter& progress) {
    std::vector<std::thread> helpers;
    for (int t = 1; t < threads; ++t) {
      helpers.emplace_back([this] {
        while (WriteNext()) {
        }
      });
    }
    while (WriteNext()) progress.Report(done_.load());
    for (std::thread& t : helpers) t.join();
    absl::MutexLock lock(&mu_);
    return error_;
  }

 private:
  // Claims and writes one sample; false when none is left or one failed.
  bool WriteNext() {
    if (failed_.load()) return false;
    const int64_t job = next_.fetch_add(1);
    if (job >= total_) return false;
    const Split split = job < o_.train_count ? Split::kTrain : Split::kTest;
    const int64_t index = split == Split::kTrain ? job : job - o_.train_count;
    absl::Status st = WriteSample(split, index);
    if (!st.ok()) {
      absl::MutexLock lock(&mu_);
      if (error_.ok()) error_ = st;
      failed_.store(true);
      return false;
    }
    done_.fetch_add(1);
    return true;
  }

  absl::Status WriteSample(Split split, int64_t index) {
    const SyntheticSample s = SynthesizeSample(o_, split, index);
    const std::string path =
        JoinPath(o_.out_dir, GeneratedImagePath(o_, names_, split, index));
    absl::StatusOr<std::string> jpeg = EncodeJpeg(
        {s.pixels.data(), s.width, s.height, s.channels}, o_.jpeg_quality);
    if (!jpeg.ok()) {
      return absl::Status(jpeg.status().code(),
                          path + ": " + std::string(jpeg.status().message()));
    }
    return WriteWholeFile(path, *jpeg);
  }

  const GenerateOptions& o_;
  const std::vector<std::string>& names_;
  const int64_t total_;
  std::atomic<int64_t> next_{0};
  std::atomic<int64_t> done_{0};
  std::atomic<bool> failed_{false};
  absl::Mutex mu_;
  absl::Status error_ ABSL_GUARDED_BY(mu_);
};

}  // namespace

absl::Status WriteImageFolderSet(const GenerateOptions& options,
                                 ProgressReporter& progress) {
  const std::vector<std::string> names = GeneratedClassNames(options);
  for (const char* split : {"train", "val"}) {
    for (const std::string& name : names) {
      absl::Status st =
          MakeDirectories(JoinPath(JoinPath(options.out_dir, split), name));
      if (!st.ok()) return st;
    }
  }
  int threads = options.threads;
  if (threads <= 0) {
    threads =
        static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  }
  ParallelWriter writer(options, names);
  return writer.Run(threads, progress);
}

}  // namespace powersweep
