// Data set costs against the figures of the studies and the files as
// distributed, and the (model, data set) pairs the twin can cost.
#include "agent/platform/twin/dataset_cost.h"

#include <set>
#include <string>

#include "agent/platform/twin/twin_workload_cost.h"
#include "gtest/gtest.h"

namespace powersweep {
namespace {

TEST(DatasetCostTest, SplitsAndBytesAreThoseOfTheStudiesAndTheFiles) {
  DatasetCost f = *DatasetCostFor("fashion-mnist");
  EXPECT_EQ(f.train.samples, 60000);
  EXPECT_EQ(f.infer.samples, 10000);
  EXPECT_DOUBLE_EQ(f.train.storage_bytes, 26421856.0 + 29491.0);
  EXPECT_TRUE(f.LoadedAtStart());
  EXPECT_EQ(f.input.channels, 1);
  EXPECT_EQ(f.input.size, 28);

  DatasetCost m = *DatasetCostFor("mnist");
  EXPECT_EQ(m.train.samples, 60000);
  EXPECT_EQ(m.infer.samples, 10000);
  EXPECT_TRUE(m.LoadedAtStart());

  // SIGMETRICS table: CIFAR-10, 50,000 training samples, 150 MB.
  DatasetCost c = *DatasetCostFor("cifar10");
  EXPECT_EQ(c.train.samples, 50000);
  EXPECT_EQ(c.infer.samples, 10000);
  EXPECT_NEAR(c.train.storage_bytes, 150e6, 0.05 * 150e6);
  EXPECT_DOUBLE_EQ(c.train.storage_bytes / c.train.samples, c.record_bytes);
  EXPECT_TRUE(c.LoadedAtStart());
  EXPECT_EQ(c.input.size, 32);
  EXPECT_EQ(c.input.classes, 10);

  // SIGMETRICS table: GLD23k, 23,080 training samples, 2827 MB, read per
  // sample from a JPEG folder.
  DatasetCost g = *DatasetCostFor("gld23k");
  EXPECT_EQ(g.train.samples, 23080);
  EXPECT_DOUBLE_EQ(g.train.storage_bytes, 2827e6);
  EXPECT_FALSE(g.LoadedAtStart());
  EXPECT_GT(g.infer.samples, 0);
  EXPECT_NEAR(g.FileBytesPerSample(false), g.FileBytesPerSample(true), 1);
  EXPECT_GT(g.decode_cycles_per_sample, 0);
  EXPECT_EQ(g.input.size, 224);
  EXPECT_EQ(g.input.classes, 2000);

  DatasetCost i = *DatasetCostFor("imagenet");
  EXPECT_EQ(i.train.samples, 50000);
  EXPECT_EQ(i.input.classes, 1000);
  EXPECT_FALSE(i.LoadedAtStart());
}

TEST(DatasetCostTest, UnknownDataSetIsNamed) {
  absl::StatusOr<DatasetCost> d = DatasetCostFor("coco");
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(d.status().message().find("\"coco\""), std::string::npos);
  EXPECT_NE(d.status().message().find("gld23k"), std::string::npos);
}

TEST(TwinWorkloadCostTest, ModelsAreCostedAtTheirDataSetsInput) {
  TwinWorkloadCost cifar = *TwinWorkloadCostFor("resnet18", "cifar10");
  TwinWorkloadCost imagenet = *TwinWorkloadCostFor("resnet18", "imagenet");
  EXPECT_EQ(cifar.model.input.size, 32);
  EXPECT_EQ(cifar.model.params, 11181642);
  EXPECT_EQ(imagenet.model.params, 11689512);
  EXPECT_GT(imagenet.model.forward_macs, 40 * cifar.model.forward_macs);
  EXPECT_EQ(TwinWorkloadCostFor("mobilenetv3", "gld23k")->model.params,
            6764032);
  TwinInputOverride o;
  o.classes = 203;
  EXPECT_EQ(TwinWorkloadCostFor("mobilenetv3", "gld23k", o)->model.input.classes,
            203);
}

TEST(TwinWorkloadCostTest, SyntheticDataGivesEachModelItsOwnInput) {
  TwinWorkloadCost lenet = *TwinWorkloadCostFor("lenet5", "synthetic");
  EXPECT_EQ(lenet.model.input.channels, 1);
  EXPECT_EQ(lenet.model.input.size, 28);
  TwinWorkloadCost resnet50 = *TwinWorkloadCostFor("resnet50", "synthetic");
  EXPECT_EQ(resnet50.model.input.size, 224);
  EXPECT_EQ(resnet50.model.input.classes, 1000);
  EXPECT_EQ(resnet50.dataset.Split(true).storage_bytes, 0);
  EXPECT_STREQ(DatasetFormatName(resnet50.dataset.format), "synthetic");
  TwinInputOverride o;
  o.input_size = 64;
  EXPECT_EQ(TwinWorkloadCostFor("vgg11", "synthetic", o)->model.input.size, 64);
}

TEST(TwinWorkloadCostTest, PairsAreTheModelsOnTheSetsTheyCanRead) {
  std::set<std::string> pairs;
  for (const TwinWorkloadPair& p : TwinWorkloadPairs()) {
    pairs.insert(p.model + "/" + p.dataset);
  }
  // alexnet and inception_v3 cannot take CIFAR-10's 32x32 images.
  const std::set<std::string> expected = {
      "alexnet/gld23k",        "alexnet/imagenet",      "inception_v3/gld23k",
      "inception_v3/imagenet", "squeezenet1_1/cifar10", "squeezenet1_1/gld23k",
      "squeezenet1_1/imagenet", "vgg19/cifar10",        "vgg19/gld23k",
      "vgg19/imagenet",
      "dqn/catch-frames",      "vae/fashion-mnist",     "vae/mnist",
      "lenet5/fashion-mnist",  "lenet5/mnist",          "mobilenetv3/cifar10",
      "mobilenetv3/gld23k",    "mobilenetv3/imagenet",  "resnet18/cifar10",
      "resnet18/gld23k",       "resnet18/imagenet",     "resnet50/cifar10",
      "resnet50/gld23k",       "resnet50/imagenet",     "vgg11/cifar10",
      "vgg11/gld23k",          "vgg11/imagenet",        "lenet5/synthetic",
      "mobilenetv3/synthetic", "resnet18/synthetic",    "resnet50/synthetic",
      "vgg11/synthetic",       "alexnet/synthetic",     "inception_v3/synthetic",
      "squeezenet1_1/synthetic", "vgg19/synthetic",
      "dqn/synthetic",         "gpt2_small/synthetic",  "vae/synthetic",
      "lstm_lm/wikitext",      "lstm_lm/wordnet",       "mobilebert/wikitext",
      "mobilebert/wordnet",    "lstm_lm/synthetic",     "mobilebert/synthetic",
      "seq2seq/wikitext",      "seq2seq/wordnet",       "seq2seq/synthetic",
      "seq2seq_lstm/wikitext", "seq2seq_lstm/wordnet",
      "seq2seq_lstm/synthetic",
      "memnet/babi",           "memnet/synthetic",
      "deepspeech2/espeak-words", "deepspeech2/synthetic"};
  EXPECT_EQ(pairs, expected);
}

TEST(TwinWorkloadCostTest, TextSetsAreCutIntoTheModelsWindows) {
  // WikiText-2's shape: 2,088,628 training tokens, a 33,278 vocabulary.
  DatasetCost w = *DatasetCostFor("wikitext");
  EXPECT_EQ(w.format, DatasetFormat::kText);
  EXPECT_TRUE(w.LoadedAtStart());
  EXPECT_EQ(w.train_tokens, 2088628);
  EXPECT_EQ(w.input.classes, 33278);
  EXPECT_GT(w.train.storage_bytes, 4.0 * 2088628);
  // lstm_lm reads 35 + 1 tokens every 35: (2,088,628 - 36) / 35 + 1.
  TwinWorkloadCost lm = *TwinWorkloadCostFor("lstm_lm", "wikitext");
  EXPECT_EQ(lm.dataset.train.samples, (2088628 - 36) / 35 + 1);
  EXPECT_EQ(lm.model.input.size, 35);
  EXPECT_EQ(lm.model.input.classes, 33278);
  TwinInputOverride o;
  o.seq_len = 64;
  TwinWorkloadCost bert = *TwinWorkloadCostFor("mobilebert", "wikitext", o);
  EXPECT_EQ(bert.dataset.train.samples, (2088628 - 64) / 64 + 1);
  EXPECT_EQ(bert.dataset.infer.samples, (245569 - 64) / 64 + 1);
  // The WordNet glosses, as gen-dataset tokenises them.
  DatasetCost g = *DatasetCostFor("wordnet");
  EXPECT_GT(g.train_tokens, 1000000);
  EXPECT_GT(g.input.classes, 10000);
  // Images and tokens do not mix.
  absl::StatusOr<TwinWorkloadCost> bad = TwinWorkloadCostFor("resnet18", "wordnet");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("token ids"), std::string::npos);
  EXPECT_FALSE(TwinWorkloadCostFor("mobilebert", "imagenet").ok());
  // seq2seq reads windows of seq_len tokens, no overlap.
  TwinWorkloadCost s2s = *TwinWorkloadCostFor("seq2seq", "wikitext");
  EXPECT_EQ(s2s.dataset.train.samples, (2088628 - 30) / 30 + 1);
  EXPECT_EQ(s2s.model.input.size, 30);
  TwinWorkloadCost lstm = *TwinWorkloadCostFor("seq2seq_lstm", "wikitext");
  EXPECT_EQ(lstm.dataset.train.samples, s2s.dataset.train.samples);
  EXPECT_GT(lstm.model.forward_macs, s2s.model.forward_macs);
}

TEST(TwinWorkloadCostTest, BabiIsMemnetsQuestions) {
  // bAbI's 1k shape as gen-dataset --format babi writes it.
  DatasetCost b = *DatasetCostFor("babi");
  EXPECT_STREQ(DatasetFormatName(b.format), "babi");
  EXPECT_TRUE(b.LoadedAtStart());
  EXPECT_EQ(b.train.samples, 1000);
  EXPECT_EQ(b.infer.samples, 1000);
  EXPECT_GT(b.train.storage_bytes, 1000 * 20.0);  // a story line or more
  TwinWorkloadCost m = *TwinWorkloadCostFor("memnet", "babi");
  EXPECT_EQ(m.dataset.train.samples, 1000);
  EXPECT_EQ(m.model.input.size, 8);
  EXPECT_EQ(m.model.input.classes, 23);
  // Only memnet reads bAbI, and memnet reads nothing else.
  absl::StatusOr<TwinWorkloadCost> bad = TwinWorkloadCostFor("lstm_lm", "babi");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("memnet"), std::string::npos);
  EXPECT_FALSE(TwinWorkloadCostFor("memnet", "wikitext").ok());
  EXPECT_FALSE(TwinWorkloadCostFor("resnet18", "babi").ok());
}

TEST(TwinWorkloadCostTest, ErrorsNameTheModelAndTheDataSet) {
  absl::StatusOr<TwinWorkloadCost> w = TwinWorkloadCostFor("resnet9", "mnist");
  ASSERT_FALSE(w.ok());
  EXPECT_NE(w.status().message().find("\"resnet9\""), std::string::npos);
  w = TwinWorkloadCostFor("lenet5", "coco");
  ASSERT_FALSE(w.ok());
  EXPECT_NE(w.status().message().find("\"coco\""), std::string::npos);
  w = TwinWorkloadCostFor("lenet5", "cifar10");
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(w.status().message().find("lenet5"), std::string::npos);
  EXPECT_NE(w.status().message().find("cifar10"), std::string::npos);
  w = TwinWorkloadCostFor("alexnet", "cifar10");
  ASSERT_FALSE(w.ok());
  EXPECT_NE(w.status().message().find("S >= 63"), std::string::npos);
}

TEST(TwinWorkloadCostTest, ImageFoldersTakeInceptionsOwnSize) {
  // As the workload decodes image folders (ImageFolderInputSize): 224, or
  // the model's larger study default; an explicit input size wins.
  EXPECT_EQ(TwinWorkloadCostFor("inception_v3", "imagenet")->model.input.size,
            299);
  EXPECT_EQ(TwinWorkloadCostFor("alexnet", "imagenet")->model.input.size, 224);
  EXPECT_EQ(TwinWorkloadCostFor("inception_v3", "gld23k", {0, 320})
                ->model.input.size,
            320);
  EXPECT_FALSE(TwinWorkloadCostFor("inception_v3", "gld23k", {0, 224}).ok());
}

}  // namespace
}  // namespace powersweep
