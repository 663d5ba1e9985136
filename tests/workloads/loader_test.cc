#include "workloads/pipeline/loader.h"

#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <numeric>
#include <set>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "workloads/data/dataset_generator.h"

namespace powersweep {
namespace {

using ::testing::HasSubstr;

// `count` samples of 1x2x2. Load writes the sample number into pixel 0 and
// the low and high 20 bits of the augmentation seed into pixels 1 and 2
// (exact in float); label i % 10. Sample `fail_at` (if >= 0) is corrupt.
class NumberedDataset : public Dataset {
 public:
  explicit NumberedDataset(int count, int fail_at = -1)
      : count_(count), fail_at_(fail_at) {}
  std::string format() const override { return "numbered"; }
  std::string path() const override { return "/data/numbered"; }
  Split split() const override { return Split::kTrain; }
  int64_t size() const override { return count_; }
  int num_classes() const override { return 10; }
  SampleShape shape() const override { return {1, 2, 2}; }
  int label(int64_t i) const override { return static_cast<int>(i % 10); }
  absl::Status Load(int64_t i, uint64_t seed, float* out) const override {
    if (i == fail_at_) {
      return absl::DataLossError(
          absl::StrCat("/data/numbered/sample-", i, ".jpg: corrupt JPEG"));
    }
    out[0] = static_cast<float>(i);
    out[1] = static_cast<float>(seed & 0xfffff);
    out[2] = static_cast<float>(seed >> 44);
    out[3] = 0;
    return absl::OkStatus();
  }
  const std::vector<std::string>& files() const override { return files_; }
  bool reads_files_per_sample() const override { return false; }
  int64_t bytes_on_disk() const override { return 0; }

 private:
  const int count_;
  const int fail_at_;
  const std::vector<std::string> files_;
};

struct Delivered {
  std::vector<int> ids;            // sample numbers in delivery order
  std::vector<int64_t> aug_seeds;  // their augmentation seeds (40 bits)
};

// The samples of the first `batches` minibatches, in delivery order.
Delivered Drain(Loader& loader, int batches) {
  Delivered d;
  for (int k = 0; k < batches; ++k) {
    absl::StatusOr<Minibatch> mb = loader.Next();
    EXPECT_TRUE(mb.ok()) << mb.status();
    if (!mb.ok()) break;
    EXPECT_EQ(mb->index, k);
    EXPECT_EQ(mb->epoch, k / loader.batches_per_epoch());
    auto images = mb->images.accessor<float, 4>();
    auto labels = mb->labels.accessor<int64_t, 1>();
    for (int64_t b = 0; b < mb->samples; ++b) {
      const int id = static_cast<int>(images[b][0][0][0]);
      EXPECT_EQ(labels[b], id % 10) << "label travels with its image";
      d.ids.push_back(id);
      d.aug_seeds.push_back(static_cast<int64_t>(images[b][0][0][1]) |
                            (static_cast<int64_t>(images[b][0][1][0]) << 20));
    }
  }
  return d;
}

std::unique_ptr<Loader> MakeLoader(const Dataset& d, int workers, uint64_t seed,
                                   bool shuffle, int batch, int depth = 0) {
  LoaderOptions o;
  o.batch_size = batch;
  o.workers = workers;
  o.seed = seed;
  o.shuffle = shuffle;
  o.prefetch_depth = depth;
  absl::StatusOr<std::unique_ptr<Loader>> loader = Loader::Create(&d, o);
  EXPECT_TRUE(loader.ok()) << loader.status();
  return loader.ok() ? *std::move(loader) : nullptr;
}

// Each test runs with 0 workers (built on the caller's thread) and with 2.
constexpr int kWorkerCounts[] = {0, 2};

TEST(LoaderTest, EveryTrainingSampleArrivesOncePerEpoch) {
  NumberedDataset d(96);
  std::vector<int> all(96);
  std::iota(all.begin(), all.end(), 0);
  for (int workers : kWorkerCounts) {
    SCOPED_TRACE(::testing::Message() << workers << " workers");
    auto loader = MakeLoader(d, workers, /*seed=*/7, /*shuffle=*/true, 8);
    ASSERT_EQ(loader->batches_per_epoch(), 12);
    std::vector<int> ids = Drain(*loader, 36).ids;  // three epochs
    ASSERT_EQ(ids.size(), 3u * 96);
    for (int e = 0; e < 3; ++e) {
      std::vector<int> epoch(ids.begin() + e * 96, ids.begin() + (e + 1) * 96);
      std::vector<int> sorted = epoch;
      std::sort(sorted.begin(), sorted.end());
      EXPECT_EQ(sorted, all) << "epoch " << e;
      EXPECT_NE(epoch, all) << "training order is shuffled";
    }
    EXPECT_FALSE(std::equal(ids.begin(), ids.begin() + 96, ids.begin() + 96))
        << "each epoch has its own order";
  }
}

TEST(LoaderTest, SameSeedGivesTheSameSamplesAndAugmentationWithAnyWorkers) {
  NumberedDataset d(96);
  auto first = MakeLoader(d, 0, 11, true, 8);
  Delivered reference = Drain(*first, 30);
  for (int workers : {0, 1, 2, 3}) {
    for (int depth : {0, 1, 5}) {
      auto loader = MakeLoader(d, workers, 11, true, 8, depth);
      Delivered got = Drain(*loader, 30);
      EXPECT_EQ(got.ids, reference.ids)
          << workers << " workers, depth " << depth;
      EXPECT_EQ(got.aug_seeds, reference.aug_seeds)
          << workers << " workers, depth " << depth;
    }
  }
}

TEST(LoaderTest, AugmentationSeedsDifferBetweenSamplesEpochsAndRunSeeds) {
  NumberedDataset d(16);
  Delivered a = Drain(*MakeLoader(d, 2, 1, true, 4), 8);  // two epochs
  std::set<int64_t> distinct(a.aug_seeds.begin(), a.aug_seeds.end());
  EXPECT_EQ(distinct.size(), a.aug_seeds.size())
      << "every sample of every epoch gets its own seed";
  Delivered b = Drain(*MakeLoader(d, 2, 2, true, 4), 8);
  EXPECT_NE(a.aug_seeds, b.aug_seeds);
}

TEST(LoaderTest, InferenceVisitsSamplesInFileOrderDroppingThePartialLast) {
  NumberedDataset d(100);
  std::vector<int> expected(96);  // 3 minibatches of 32; 96..99 dropped
  std::iota(expected.begin(), expected.end(), 0);
  expected.insert(expected.end(), expected.begin(), expected.begin() + 32);
  for (int workers : kWorkerCounts) {
    auto loader = MakeLoader(d, workers, 3, /*shuffle=*/false, 32);
    EXPECT_EQ(loader->batches_per_epoch(), 3);
    EXPECT_EQ(Drain(*loader, 4).ids, expected) << workers << " workers";
  }
}

TEST(LoaderTest, DifferentSeedsGiveDifferentOrders) {
  NumberedDataset d(96);
  auto a = MakeLoader(d, 2, 1, true, 8);
  auto b = MakeLoader(d, 2, 2, true, 8);
  EXPECT_NE(Drain(*a, 12).ids, Drain(*b, 12).ids);
}

TEST(LoaderTest, ACorruptSampleFailsItsMinibatchNamingTheFile) {
  NumberedDataset d(40, /*fail_at=*/13);
  for (int workers : kWorkerCounts) {
    SCOPED_TRACE(::testing::Message() << workers << " workers");
    auto loader = MakeLoader(d, workers, 0, /*shuffle=*/false, 4);
    for (int k = 0; k < 3; ++k) ASSERT_TRUE(loader->Next().ok());
    absl::StatusOr<Minibatch> mb = loader->Next();  // samples 12..15
    ASSERT_FALSE(mb.ok());
    EXPECT_EQ(mb.status().code(), absl::StatusCode::kDataLoss);
    EXPECT_THAT(mb.status().message(),
                HasSubstr("/data/numbered/sample-13.jpg: corrupt JPEG"));
    EXPECT_THAT(mb.status().message(), HasSubstr("minibatch 3"));
  }
}

TEST(LoaderTest, StopsPromptlyWithMinibatchesStillQueued) {
  NumberedDataset d(256);
  LoaderOptions o;
  o.batch_size = 4;
  o.workers = 4;
  o.prefetch_depth = 16;
  auto loader = Loader::Create(&d, o);
  ASSERT_TRUE(loader.ok());
  ASSERT_TRUE((*loader)->Next().ok());
  loader->reset();  // must join all four workers; a hang fails by timeout
  SUCCEED();
}

// Samples that take 2 ms to read, counting the reads in flight.
class SlowDataset : public NumberedDataset {
 public:
  using NumberedDataset::NumberedDataset;
  absl::Status Load(int64_t i, uint64_t seed, float* out) const override {
    ++in_flight_;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    absl::Status st = NumberedDataset::Load(i, seed, out);
    --in_flight_;
    return st;
  }
  int in_flight() const { return in_flight_.load(); }

 private:
  mutable std::atomic<int> in_flight_{0};
};

TEST(LoaderTest, AnEpochStartsOnceThePreviousEpochsReadsAreDone) {
  // The page cache's drop runs at the epoch's start: a worker still
  // reading the previous epoch would put its files back (seen as 13% of a
  // dropped set resident in WorkloadSuiteTest on a loaded machine).
  SlowDataset d(32);
  LoaderOptions o;
  o.batch_size = 4;
  o.workers = 4;
  o.prefetch_depth = 8;
  std::mutex mu;
  std::vector<std::pair<int64_t, int>> starts;  // epoch, reads in flight
  o.on_epoch_start = [&](int64_t epoch) {
    const int reading = d.in_flight();
    std::lock_guard<std::mutex> lock(mu);
    starts.emplace_back(epoch, reading);
  };
  auto loader = Loader::Create(&d, o);
  ASSERT_TRUE(loader.ok()) << loader.status();
  Delivered all = Drain(**loader, 3 * 8);
  EXPECT_EQ(all.ids.size(), 3u * 32);
  loader->reset();
  ASSERT_GE(starts.size(), 3u);
  for (size_t k = 0; k < starts.size(); ++k) {
    EXPECT_EQ(starts[k].first, static_cast<int64_t>(k));
    EXPECT_EQ(starts[k].second, 0) << "epoch " << k << " started while "
                                   << starts[k].second
                                   << " samples were being read";
  }
}

TEST(LoaderTest, BatchLargerThanDatasetIsRejected) {
  NumberedDataset d(10);
  LoaderOptions o;
  o.batch_size = 11;
  auto loader = Loader::Create(&d, o);
  ASSERT_FALSE(loader.ok());
  EXPECT_EQ(loader.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(loader.status().message(), HasSubstr("/data/numbered"));
}

// A generated JPEG image folder, removed afterwards.
class GeneratedFolder {
 public:
  GeneratedFolder() {
    const char* base = getenv("TMPDIR");
    std::string templ = std::string(base != nullptr ? base : "/tmp") +
                        "/powersweep-loader-XXXXXX";
    if (mkdtemp(templ.data()) != nullptr) dir_ = templ;
  }
  ~GeneratedFolder() {
    std::error_code ec;
    if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
  }
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
};

TEST(LoaderTest, RealJpegMinibatchesAreTheSameWithZeroOneOrThreeWorkers) {
  GeneratedFolder tmp;
  ASSERT_FALSE(tmp.dir().empty());
  GenerateOptions g;
  g.format = "image-folder";
  g.out_dir = tmp.dir() + "/set";
  g.train_count = 24;
  g.test_count = 4;
  g.classes = 3;
  g.image_size = 40;
  g.seed = 5;
  ASSERT_TRUE(GenerateDataset(g, nullptr).ok());
  DatasetOptions dopt;
  dopt.image_size = 32;
  absl::StatusOr<std::unique_ptr<Dataset>> data = OpenDataset(g.out_dir, dopt);
  ASSERT_TRUE(data.ok()) << data.status();

  std::vector<Minibatch> reference;
  for (int workers : {0, 1, 3}) {
    SCOPED_TRACE(::testing::Message() << workers << " workers");
    auto loader = MakeLoader(**data, workers, /*seed=*/9, true, 5);
    for (int k = 0; k < 9; ++k) {  // two epochs (4 minibatches each) and one
      absl::StatusOr<Minibatch> mb = loader->Next();
      ASSERT_TRUE(mb.ok()) << mb.status();
      EXPECT_EQ(mb->images.sizes(), (std::vector<int64_t>{5, 3, 32, 32}));
      if (workers == 0) {
        reference.push_back(*mb);
        continue;
      }
      EXPECT_TRUE(torch::equal(mb->images, reference[k].images))
          << "batch " << k;
      EXPECT_TRUE(torch::equal(mb->labels, reference[k].labels))
          << "batch " << k;
    }
  }
  // Epoch 1 revisits the samples with new crops: not a copy of epoch 0.
  EXPECT_FALSE(torch::equal(reference[0].images, reference[4].images));
}

}  // namespace
}  // namespace powersweep
