#include "controller/sweep/catalog.h"

#include "tests/controller/sweep/validate_test_util.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace powersweep {
namespace {

using ::testing::ElementsAre;

TEST(DeviceClassCatalogTest, KnowsTheEightClassesSorted) {
  EXPECT_THAT(DeviceClassCatalog::Default().Names(),
              ElementsAre("host", "nano", "orin-agx", "orin-nano", "orin-nx",
                          "thor", "xavier-agx", "xavier-nx"));
  EXPECT_EQ(DeviceClassCatalog::Default().Find("tx2"), nullptr);
}

// Step counts and end points as jetson-platform.md lists them.
TEST(DeviceClassCatalogTest, TablesMatchThePlatformReference) {
  const DeviceClassCatalog c = DeviceClassCatalog::Default();
  const DeviceClassInfo* orin = c.Find("orin-agx");
  ASSERT_NE(orin, nullptr);
  EXPECT_EQ(orin->cpu_cores, 12);
  EXPECT_EQ(orin->cpu_freqs_khz.size(), 29u);
  EXPECT_EQ(orin->cpu_freqs_khz.front(), 115200);
  EXPECT_EQ(orin->cpu_freqs_khz.back(), 2201600);
  EXPECT_EQ(orin->gpu_freqs_hz.size(), 11u);
  EXPECT_EQ(orin->gpu_freqs_hz.front(), 306000000);
  EXPECT_EQ(orin->gpu_freqs_hz.back(), 1300500000);
  EXPECT_THAT(orin->mem_freqs_hz,
              ElementsAre(204000000, 2133000000, 3199000000));

  const DeviceClassInfo* nx = c.Find("xavier-nx");
  ASSERT_NE(nx, nullptr);
  EXPECT_EQ(nx->cpu_cores, 6);
  EXPECT_EQ(nx->cpu_freqs_khz.size(), 25u);
  EXPECT_EQ(nx->cpu_freqs_khz.back(), 1907200);
  EXPECT_EQ(nx->gpu_freqs_hz.back(), 1109250000);
  EXPECT_EQ(nx->mem_freqs_hz.back(), 1600000000);

  const DeviceClassInfo* nano = c.Find("nano");
  ASSERT_NE(nano, nullptr);
  EXPECT_EQ(nano->cpu_cores, 4);
  EXPECT_EQ(nano->cpu_freqs_khz.size(), 15u);
  EXPECT_EQ(nano->gpu_freqs_hz.size(), 12u);
  EXPECT_EQ(nano->gpu_freqs_hz.front(), 76800000);
  EXPECT_EQ(nano->gpu_freqs_hz.back(), 921600000);
  // nvpmodel presets first, then the study modes (common/power).
  EXPECT_THAT(nano->presets,
              ElementsAre("MAXN", "5W", "sigmetrics-nano-MAXN"));
}

// The "~29k power modes" of the SIGMETRICS study: 8 x 29 x 14 x 9.
TEST(DeviceClassCatalogTest, XavierAgxSpansTheStudiedModeSpace) {
  // The catalog outlives the pointer Find returns.
  const DeviceClassCatalog catalog = DeviceClassCatalog::Default();
  const DeviceClassInfo* x = catalog.Find("xavier-agx");
  ASSERT_NE(x, nullptr);
  EXPECT_EQ(x->cpu_cores * x->cpu_freqs_khz.size() * x->gpu_freqs_hz.size() *
                x->mem_freqs_hz.size(),
            29232u);
  EXPECT_EQ(x->cpu_freqs_khz.back(), 2265600);
}

// The study modes (common/power/study_modes.h) are presets of their class,
// so a sweep may name them; another class does not know them.
TEST(DeviceClassCatalogTest, SweepsMayNameStudyModesOfTheirClass) {
  v1::SweepSpec s = testing_util::GoodSpec();
  s.mutable_power_modes(0)->set_preset("PM1_CPU");
  s.add_power_modes()->set_preset("PM3_MEM");
  EXPECT_THAT(testing_util::Problems(s), ::testing::IsEmpty());

  s.set_device_classes(0, "xavier-agx");
  s.mutable_power_modes(0)->set_preset("sigmetrics-g");
  s.mutable_power_modes(1)->set_preset("PM3_MEM");
  const std::vector<std::string> problems = testing_util::Problems(s);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_THAT(problems[0],
              ::testing::StartsWith("power_modes[1].preset: unknown preset "
                                    "'PM3_MEM' for xavier-agx (known: MAXN, "));
}

TEST(DeviceClassCatalogTest, HostHasNoSettableKnobsOrPresets) {
  const DeviceClassCatalog catalog = DeviceClassCatalog::Default();
  const DeviceClassInfo* host = catalog.Find("host");
  ASSERT_NE(host, nullptr);
  EXPECT_EQ(host->cpu_cores, 0);
  EXPECT_TRUE(host->cpu_freqs_khz.empty());
  EXPECT_TRUE(host->gpu_freqs_hz.empty());
  EXPECT_TRUE(host->mem_freqs_hz.empty());
  EXPECT_TRUE(host->presets.empty());
}

TEST(DeviceClassCatalogTest, CustomClassTablesAreSorted) {
  DeviceClassCatalog c(
      {DeviceClassInfo{"toy", 2, {300, 100, 200}, {}, {}, {}}});
  ASSERT_NE(c.Find("toy"), nullptr);
  EXPECT_THAT(c.Find("toy")->cpu_freqs_khz, ElementsAre(100, 200, 300));
}

TEST(WorkloadCatalogTest, Lenet5TakesGreySetsAndTheOthersRgbSets) {
  const WorkloadCatalog w = WorkloadCatalog::Default();
  EXPECT_THAT(w.ModelNames(),
              ElementsAre("alexnet", "deepspeech2", "dqn", "gpt2_small",
                          "inception_v3", "lenet5", "lstm_lm", "memnet",
                          "mobilebert", "mobilenetv3", "resnet18", "resnet50",
                          "seq2seq", "seq2seq_lstm", "squeezenet1_1", "vae",
                          "vgg11", "vgg19"));
  EXPECT_THAT(w.DatasetNames(),
              ElementsAre("babi", "catch-frames", "cifar10", "espeak-words",
                          "fashion-mnist", "gld23k", "imagenet", "mnist",
                          "synthetic", "wikitext", "wordnet"));
  EXPECT_TRUE(w.Accepts("lenet5", "fashion-mnist"));
  // Every model takes synthetic data (random tensors of its own shape).
  EXPECT_TRUE(w.Accepts("lenet5", "synthetic"));
  EXPECT_TRUE(w.Accepts("resnet50", "synthetic"));
  EXPECT_TRUE(w.Accepts("lenet5", "mnist"));
  EXPECT_FALSE(w.Accepts("lenet5", "cifar10"));
  EXPECT_TRUE(w.Accepts("resnet18", "cifar10"));
  EXPECT_TRUE(w.Accepts("resnet50", "imagenet"));
  EXPECT_TRUE(w.Accepts("mobilenetv3", "gld23k"));
  EXPECT_FALSE(w.Accepts("vgg11", "fashion-mnist"));
  EXPECT_FALSE(w.Accepts("resnet9", "fashion-mnist"));
  // The sequence models take the text sets, and only they do.
  EXPECT_TRUE(w.Accepts("lstm_lm", "wikitext"));
  EXPECT_TRUE(w.Accepts("mobilebert", "wordnet"));
  EXPECT_FALSE(w.Accepts("mobilebert", "imagenet"));
  EXPECT_FALSE(w.Accepts("resnet18", "wordnet"));
  // The image-folder sets for every torchvision network; CIFAR-10's 32x32
  // images for those whose downsampling leaves at least 1x1 there.
  for (const char* m : {"alexnet", "inception_v3", "squeezenet1_1", "vgg19"}) {
    EXPECT_TRUE(w.Accepts(m, "imagenet")) << m;
    EXPECT_TRUE(w.Accepts(m, "gld23k")) << m;
    EXPECT_FALSE(w.Accepts(m, "mnist")) << m;
  }
  EXPECT_TRUE(w.Accepts("squeezenet1_1", "cifar10"));
  EXPECT_TRUE(w.Accepts("vgg19", "cifar10"));
  EXPECT_FALSE(w.Accepts("alexnet", "cifar10"));
  EXPECT_FALSE(w.Accepts("inception_v3", "cifar10"));
}

TEST(WorkloadCatalogTest, FathomModelsTakeTheirOwnSets) {
  const WorkloadCatalog w = WorkloadCatalog::Default();
  EXPECT_TRUE(w.Accepts("vae", "fashion-mnist"));
  EXPECT_TRUE(w.Accepts("vae", "mnist"));
  EXPECT_FALSE(w.Accepts("vae", "cifar10"));
  EXPECT_TRUE(w.Accepts("dqn", "catch-frames"));
  EXPECT_FALSE(w.Accepts("dqn", "mnist"));
  EXPECT_FALSE(w.Accepts("lenet5", "catch-frames"));
  EXPECT_FALSE(w.Accepts("resnet18", "catch-frames"));
  // gpt2_small reads token ids, which no built-in image set holds; it
  // runs on `synthetic` (token ids made in memory).
  for (const std::string& set : w.DatasetNames()) {
    EXPECT_EQ(w.Accepts("gpt2_small", set), set == "synthetic") << set;
  }
  // A set an agent advertises is accepted; the workload checks its shape.
  EXPECT_TRUE(w.WithDatasets({"my-tokens"}).Accepts("gpt2_small", "my-tokens"));
  // seq2seq and seq2seq_lstm read the text sets as lstm_lm does; memnet
  // bAbI only, and
  // bAbI is memnet's alone.
  for (const std::string& set : w.DatasetNames()) {
    const bool text = set == "wikitext" || set == "wordnet";
    EXPECT_EQ(w.Accepts("seq2seq", set), text || set == "synthetic") << set;
    EXPECT_EQ(w.Accepts("seq2seq_lstm", set), text || set == "synthetic")
        << set;
    EXPECT_EQ(w.Accepts("memnet", set), set == "babi" || set == "synthetic")
        << set;
  }
  for (const std::string& model : w.ModelNames()) {
    EXPECT_EQ(w.Accepts(model, "babi"), model == "memnet") << model;
  }
}

TEST(WorkloadCatalogTest, DeepSpeech2TakesSpeechAndSyntheticOnly) {
  const WorkloadCatalog w = WorkloadCatalog::Default();
  for (const std::string& set : w.DatasetNames()) {
    EXPECT_EQ(w.Accepts("deepspeech2", set),
              set == "espeak-words" || set == "synthetic")
        << set;
    if (set != "espeak-words") continue;
    for (const std::string& model : w.ModelNames()) {
      EXPECT_EQ(w.Accepts(model, set), model == "deepspeech2") << model;
    }
  }
}

TEST(WorkloadCatalogTest, ADatasetAModelListsButTheCatalogLacksIsRefused) {
  const WorkloadCatalog w({ModelInfo{"m", {"a", "b"}}}, {"a"});
  EXPECT_TRUE(w.Accepts("m", "a"));
  EXPECT_FALSE(w.Accepts("m", "b"));
}

}  // namespace
}  // namespace powersweep
