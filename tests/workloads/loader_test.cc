#include "workloads/pipeline/loader.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace powersweep {
namespace {

// `count` 2x2 images; every pixel of image i is i (count <= 256), label i%10.
ImageDataset NumberedImages(int count) {
  ImageDataset d;
  d.count = count;
  d.rows = 2;
  d.cols = 2;
  for (int i = 0; i < count; ++i) {
    d.pixels.insert(d.pixels.end(), 4, static_cast<uint8_t>(i));
    d.labels.push_back(static_cast<uint8_t>(i % 10));
  }
  d.images_path = "numbered-images";
  return d;
}

// Recovers the sample numbers of a minibatch from its normalized pixels.
std::vector<int> SampleIds(const Minibatch& mb) {
  const Normalization n = kFashionMnistNormalization;
  std::vector<int> ids;
  auto images = mb.images.accessor<float, 4>();
  auto labels = mb.labels.accessor<int64_t, 1>();
  for (int64_t b = 0; b < mb.samples; ++b) {
    int id = static_cast<int>(
        std::lround((images[b][0][1][1] * n.std + n.mean) * 255));
    EXPECT_EQ(labels[b], id % 10) << "label travels with its image";
    ids.push_back(id);
  }
  return ids;
}

// The sample numbers of the first `batches` minibatches, in delivery order.
std::vector<int> Drain(Loader& loader, int batches) {
  std::vector<int> ids;
  for (int k = 0; k < batches; ++k) {
    absl::StatusOr<Minibatch> mb = loader.Next();
    EXPECT_TRUE(mb.ok()) << mb.status();
    if (!mb.ok()) break;
    EXPECT_EQ(mb->index, k);
    EXPECT_EQ(mb->epoch, k / loader.batches_per_epoch());
    std::vector<int> part = SampleIds(*mb);
    ids.insert(ids.end(), part.begin(), part.end());
  }
  return ids;
}

std::unique_ptr<Loader> MakeLoader(const ImageDataset& d, int workers,
                                   uint64_t seed, bool shuffle, int batch) {
  LoaderOptions o;
  o.batch_size = batch;
  o.workers = workers;
  o.seed = seed;
  o.shuffle = shuffle;
  absl::StatusOr<std::unique_ptr<Loader>> loader = Loader::Create(&d, o);
  EXPECT_TRUE(loader.ok()) << loader.status();
  return loader.ok() ? *std::move(loader) : nullptr;
}

// Each test runs with 0 workers (built on the caller's thread) and with 2.
constexpr int kWorkerCounts[] = {0, 2};

TEST(LoaderTest, EveryTrainingSampleArrivesOncePerEpoch) {
  ImageDataset d = NumberedImages(96);
  std::vector<int> all(96);
  std::iota(all.begin(), all.end(), 0);
  for (int workers : kWorkerCounts) {
    SCOPED_TRACE(::testing::Message() << workers << " workers");
    auto loader = MakeLoader(d, workers, /*seed=*/7, /*shuffle=*/true, 8);
    ASSERT_EQ(loader->batches_per_epoch(), 12);
    std::vector<int> ids = Drain(*loader, 36);  // three epochs
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

TEST(LoaderTest, SameSeedGivesTheSameOrderWithAnyWorkerCount) {
  ImageDataset d = NumberedImages(96);
  auto first = MakeLoader(d, 0, 11, true, 8);
  std::vector<int> reference = Drain(*first, 30);
  for (int workers : {0, 2, 3}) {
    auto loader = MakeLoader(d, workers, 11, true, 8);
    EXPECT_EQ(Drain(*loader, 30), reference) << workers << " workers";
  }
}

TEST(LoaderTest, InferenceVisitsSamplesInFileOrderDroppingThePartialLast) {
  ImageDataset d = NumberedImages(100);
  std::vector<int> expected(96);  // 3 minibatches of 32; 96..99 dropped
  std::iota(expected.begin(), expected.end(), 0);
  expected.insert(expected.end(), expected.begin(), expected.begin() + 32);
  for (int workers : kWorkerCounts) {
    auto loader = MakeLoader(d, workers, 3, /*shuffle=*/false, 32);
    EXPECT_EQ(loader->batches_per_epoch(), 3);
    EXPECT_EQ(Drain(*loader, 4), expected) << workers << " workers";
  }
}

TEST(LoaderTest, DifferentSeedsGiveDifferentOrders) {
  ImageDataset d = NumberedImages(96);
  auto a = MakeLoader(d, 2, 1, true, 8);
  auto b = MakeLoader(d, 2, 2, true, 8);
  EXPECT_NE(Drain(*a, 12), Drain(*b, 12));
}

TEST(LoaderTest, NormalizesPixelsWithFashionMnistStatistics) {
  ImageDataset d = NumberedImages(1);
  d.pixels = {0, 255, 51, 128};
  auto loader = MakeLoader(d, 0, 0, false, 1);
  absl::StatusOr<Minibatch> mb = loader->Next();
  ASSERT_TRUE(mb.ok());
  EXPECT_EQ(mb->images.sizes(), (std::vector<int64_t>{1, 1, 2, 2}));
  auto x = mb->images.accessor<float, 4>();
  EXPECT_NEAR(x[0][0][0][0], (0.0 - 0.2860) / 0.3530, 1e-5);
  EXPECT_NEAR(x[0][0][0][1], (1.0 - 0.2860) / 0.3530, 1e-5);
  EXPECT_NEAR(x[0][0][1][0], (0.2 - 0.2860) / 0.3530, 1e-5);
}

TEST(LoaderTest, StopsPromptlyWithMinibatchesStillQueued) {
  ImageDataset d = NumberedImages(256);
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

TEST(LoaderTest, BatchLargerThanDatasetIsRejected) {
  ImageDataset d = NumberedImages(10);
  LoaderOptions o;
  o.batch_size = 11;
  auto loader = Loader::Create(&d, o);
  ASSERT_FALSE(loader.ok());
  EXPECT_EQ(loader.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(loader.status().message(),
              ::testing::HasSubstr("numbered-images"));
}

}  // namespace
}  // namespace powersweep
