#include "controller/sweep/sweep_file.h"

#include <filesystem>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "controller/sweep/validate.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"

namespace powersweep {
namespace {

using ::testing::HasSubstr;
using ::testing::ElementsAre;

constexpr char kSweepKeys[] =
    "name, device_classes, models, datasets, tasks, batch_sizes, "
    "loader_workers, power_modes, runtimes, repetitions, epochs, minibatches, "
    "duration_s, seed, threads, telemetry_hz, timeout_s, max_retries, tenants, "
    "container_image, prefetch_depths, page_cache, preload, input_size, "
    "workloads, devices, placement, settle, seq_len, vocab, traces, vm, "
    "vm_vcpus, vm_memory_mib, warmup_minibatches, cudnn_benchmark";

std::string ErrorOf(const std::string& yaml) {
  absl::StatusOr<v1::SweepSpec> spec = ParseSweepYaml(yaml);
  EXPECT_FALSE(spec.ok()) << "accepted:\n" << yaml;
  if (spec.ok()) return "";
  EXPECT_EQ(spec.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(spec.status().message());
}

TEST(ParseSweepYamlTest, ReadsEveryField) {
  absl::StatusOr<v1::SweepSpec> spec = ParseSweepYaml(R"(name: full
device_classes: [orin-agx, xavier-agx]
models: [lenet5]
datasets: [fashion-mnist]
tasks: [train, infer]
batch_sizes: [16, 64]
loader_workers: [0, 2]
power_modes:
  - MAXN
  - {preset: MODE_30W, cpu_cores: 4, cpu_freq_khz: 1728000, gpu_freq_hz: 612000000, mem_freq_hz: 2133000000}
runtimes: [native, container]
repetitions: 3
epochs: 2
minibatches: 500
duration_s: 12.5
seed: 18446744073709551615
threads: 4
telemetry_hz: 20
timeout_s: 900
max_retries: 2
)");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->name(), "full");
  EXPECT_THAT(spec->device_classes(),
              ::testing::ElementsAre("orin-agx", "xavier-agx"));
  EXPECT_THAT(spec->models(), ::testing::ElementsAre("lenet5"));
  EXPECT_THAT(spec->datasets(), ::testing::ElementsAre("fashion-mnist"));
  EXPECT_THAT(spec->tasks(),
              ::testing::ElementsAre(v1::TASK_TRAIN, v1::TASK_INFER));
  EXPECT_THAT(spec->batch_sizes(), ::testing::ElementsAre(16, 64));
  EXPECT_THAT(spec->loader_workers(), ::testing::ElementsAre(0, 2));
  ASSERT_EQ(spec->power_modes_size(), 2);
  EXPECT_EQ(spec->power_modes(0).preset(), "MAXN");
  EXPECT_EQ(spec->power_modes(0).cpu_cores(), 0);
  EXPECT_EQ(spec->power_modes(1).preset(), "MODE_30W");
  EXPECT_EQ(spec->power_modes(1).cpu_cores(), 4);
  EXPECT_EQ(spec->power_modes(1).cpu_freq_khz(), 1728000);
  EXPECT_EQ(spec->power_modes(1).gpu_freq_hz(), 612000000);
  EXPECT_EQ(spec->power_modes(1).mem_freq_hz(), 2133000000);
  EXPECT_THAT(spec->runtimes(), ::testing::ElementsAre(v1::RUNTIME_NATIVE,
                                                       v1::RUNTIME_CONTAINER));
  EXPECT_EQ(spec->repetitions(), 3);
  EXPECT_EQ(spec->epochs(), 2);
  EXPECT_EQ(spec->minibatches(), 500);
  EXPECT_DOUBLE_EQ(spec->duration_s(), 12.5);
  EXPECT_EQ(spec->seed(), 18446744073709551615ULL);
  EXPECT_EQ(spec->threads(), 4);
  EXPECT_DOUBLE_EQ(spec->telemetry_hz(), 20);
  EXPECT_DOUBLE_EQ(spec->timeout_s(), 900);
  EXPECT_EQ(spec->max_retries(), 2);
}

TEST(ParseSweepYamlTest, TracesAreNamedAndUnknownOnesListTheChoices) {
  absl::StatusOr<v1::SweepSpec> spec = ParseSweepYaml(
      "name: t\ntraces: [syscalls, block, writeback, page_faults, sched]\n");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_THAT(spec->traces(),
              ::testing::ElementsAre(v1::TRACE_SYSCALLS, v1::TRACE_BLOCK,
                                     v1::TRACE_WRITEBACK,
                                     v1::TRACE_PAGE_FAULTS, v1::TRACE_SCHED));
  EXPECT_NE(SweepYaml(*spec).find(
                "traces: [syscalls, block, writeback, page_faults, sched]"),
            std::string::npos)
      << SweepYaml(*spec);
  absl::StatusOr<v1::SweepSpec> bad =
      ParseSweepYaml("name: t\ntraces: [syscalls, ftrace]\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("traces[1]"), std::string::npos)
      << bad.status();
  EXPECT_NE(bad.status().message().find("page_faults"), std::string::npos)
      << bad.status();
}

TEST(ParseSweepYamlTest, ListAxesAcceptASingleValue) {
  absl::StatusOr<v1::SweepSpec> spec = ParseSweepYaml(R"(name: one
device_classes: host
models: lenet5
datasets: fashion-mnist
tasks: infer
batch_sizes: 32
loader_workers: 1
power_modes: MAXN
runtimes: container
)");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_THAT(spec->device_classes(), ::testing::ElementsAre("host"));
  EXPECT_THAT(spec->models(), ::testing::ElementsAre("lenet5"));
  EXPECT_THAT(spec->datasets(), ::testing::ElementsAre("fashion-mnist"));
  EXPECT_THAT(spec->tasks(), ::testing::ElementsAre(v1::TASK_INFER));
  EXPECT_THAT(spec->batch_sizes(), ::testing::ElementsAre(32));
  EXPECT_THAT(spec->loader_workers(), ::testing::ElementsAre(1));
  ASSERT_EQ(spec->power_modes_size(), 1);
  EXPECT_EQ(spec->power_modes(0).preset(), "MAXN");
  EXPECT_THAT(spec->runtimes(), ::testing::ElementsAre(v1::RUNTIME_CONTAINER));
}

TEST(ParseSweepYamlTest, SingleMapIsOnePowerMode) {
  absl::StatusOr<v1::SweepSpec> spec =
      ParseSweepYaml("power_modes: {cpu_cores: 2}\n");
  ASSERT_TRUE(spec.ok()) << spec.status();
  ASSERT_EQ(spec->power_modes_size(), 1);
  EXPECT_EQ(spec->power_modes(0).cpu_cores(), 2);
}

TEST(ParseSweepYamlTest, MhzConveniencesAreConvertedToProtoUnits) {
  absl::StatusOr<v1::SweepSpec> spec = ParseSweepYaml(R"(power_modes:
  - {cpu_freq_mhz: 1907.2, gpu_freq_mhz: 1109.25, mem_freq_mhz: 1600}
  - {cpu_freq_mhz: 2201.6, gpu_freq_mhz: 1300.5}
)");
  ASSERT_TRUE(spec.ok()) << spec.status();
  ASSERT_EQ(spec->power_modes_size(), 2);
  EXPECT_EQ(spec->power_modes(0).cpu_freq_khz(), 1907200);
  EXPECT_EQ(spec->power_modes(0).gpu_freq_hz(), 1109250000);
  EXPECT_EQ(spec->power_modes(0).mem_freq_hz(), 1600000000);
  EXPECT_EQ(spec->power_modes(1).cpu_freq_khz(), 2201600);
  EXPECT_EQ(spec->power_modes(1).gpu_freq_hz(), 1300500000);
}

TEST(ParseSweepYamlTest, EmptyValuesAndEmptyModesLeaveFieldsUnset) {
  absl::StatusOr<v1::SweepSpec> spec =
      ParseSweepYaml("name: x\nmodels:\npower_modes: [{}, MAXN]\n");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_TRUE(spec->models().empty());
  ASSERT_EQ(spec->power_modes_size(), 2);
  EXPECT_EQ(spec->power_modes(0).ByteSizeLong(), 0u);
}

TEST(ParseSweepYamlTest, PipelineKeysAndWorkloadPairs) {
  absl::StatusOr<v1::SweepSpec> spec = ParseSweepYaml(
      "name: x\nworkloads: [lenet5/mnist, resnet50/imagenet:infer]\n"
      "page_cache: [keep, drop]\nprefetch_depths: 8\npreload: true\n"
      "input_size: 160\n");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_THAT(spec->workloads(),
              ElementsAre("lenet5/mnist", "resnet50/imagenet:infer"));
  EXPECT_THAT(spec->page_cache(),
              ElementsAre(v1::PAGE_CACHE_KEEP, v1::PAGE_CACHE_DROP));
  EXPECT_THAT(spec->prefetch_depths(), ElementsAre(8));
  EXPECT_TRUE(spec->preload());
  EXPECT_EQ(spec->input_size(), 160);
  EXPECT_THAT(ErrorOf("name: x\npage_cache: [flush]\n"),
              HasSubstr("page_cache[0] at line 2: expected one of keep, drop, "
                        "got 'flush'"));
}

TEST(ParseSweepYamlTest, UnknownKeyNamesItsLineAndTheKnownKeys) {
  EXPECT_EQ(ErrorOf("name: x\nmodels: [lenet5]\ndatasets: [fashion-mnist]\n"
                    "batchsize: 32\n"),
            std::string("unknown key 'batchsize' at line 4 (known keys: ") +
                kSweepKeys + "); did you mean 'batch_sizes'?");
}

TEST(ParseSweepYamlTest, UnknownKeyWithoutCloseMatchHasNoHint) {
  EXPECT_EQ(ErrorOf("colour: blue\n"),
            std::string("unknown key 'colour' at line 1 (known keys: ") +
                kSweepKeys + ")");
}

TEST(ParseSweepYamlTest, UnknownKeyInPowerMode) {
  EXPECT_EQ(ErrorOf("power_modes:\n  - MAXN\n  - {gpu_freq: 5}\n"),
            "unknown key 'gpu_freq' in power_modes[1] at line 3 (known keys: "
            "preset, cpu_cores, cpu_freq_khz, gpu_freq_hz, mem_freq_hz, "
            "gpu_power_limit_w, cpu_freq_mhz, gpu_freq_mhz, mem_freq_mhz, "
            "device_class, "
            "device_classes); did you mean "
            "'gpu_freq_hz'?");
}

TEST(ParseSweepYamlTest, WrongTypeNamesIndexLineAndValue) {
  EXPECT_EQ(ErrorOf("name: x\nmodels: [lenet5]\ndatasets: [fashion-mnist]\n"
                    "epochs: 1\nbatch_sizes:\n  - 32\n  - abc\n"),
            "batch_sizes[1] at line 7: expected an integer, got 'abc'");
  EXPECT_EQ(ErrorOf("batch_sizes: [8, 1.5]\n"),
            "batch_sizes[1] at line 1: expected an integer, got '1.5'");
  EXPECT_EQ(ErrorOf("epochs: [1, 2]\n"),
            "epochs at line 1: expected an integer, got a list");
  EXPECT_EQ(ErrorOf("duration_s: soon\n"),
            "duration_s at line 1: expected a number, got 'soon'");
  EXPECT_EQ(ErrorOf("seed: -3\n"),
            "seed at line 1: -3 is out of range (0 to 18446744073709551615)");
  EXPECT_EQ(ErrorOf("batch_sizes: 99999999999\n"),
            "batch_sizes at line 1: 99999999999 is out of range (-2147483648 "
            "to 2147483647)");
  EXPECT_EQ(ErrorOf("power_modes: [{cpu_cores: many}]\n"),
            "power_modes[0].cpu_cores at line 1: expected an integer, got "
            "'many'");
  EXPECT_EQ(ErrorOf("power_modes: [[MAXN]]\n"),
            "power_modes[0] at line 1: expected a preset name or a map with "
            "keys preset, cpu_cores, cpu_freq_khz, gpu_freq_hz, mem_freq_hz, "
            "gpu_power_limit_w, cpu_freq_mhz, gpu_freq_mhz, mem_freq_mhz, "
            "device_class, "
            "device_classes, got a list");
}

TEST(ParseSweepYamlTest, EnumsTakeTheirShortNames) {
  EXPECT_EQ(ErrorOf("tasks: [train, eval]\n"),
            "tasks[1] at line 1: expected one of train, infer, baseload, got 'eval'");
  EXPECT_EQ(ErrorOf("runtimes: docker\n"),
            "runtimes at line 1: expected one of native, container, vm, "
            "container_in_vm, got "
            "'docker'");
  EXPECT_EQ(ErrorOf("tasks: [unspecified]\n"),
            "tasks[0] at line 1: expected one of train, infer, baseload, got "
            "'unspecified'");
}

TEST(ParseSweepYamlTest, KhzAndMhzForTheSameKnobConflict) {
  EXPECT_EQ(ErrorOf("power_modes:\n  - {cpu_freq_khz: 1200000, "
                    "cpu_freq_mhz: 1200}\n"),
            "power_modes[0] at line 2: give cpu_freq_khz or cpu_freq_mhz, not "
            "both");
}

TEST(ParseSweepYamlTest, DuplicateKeyIsRejected) {
  EXPECT_EQ(ErrorOf("models: [lenet5]\nepochs: 1\nmodels: [x]\n"),
            "duplicate key 'models' at line 3");
}

TEST(ParseSweepYamlTest, ReportsAllProblemsTogether) {
  const std::string msg = ErrorOf(R"(name: many
batchsize: 8
batch_sizes: [a, 2, b]
tasks: eval
power_modes: [{cores: 2}]
)");
  std::vector<std::string> lines = absl::StrSplit(msg, '\n');
  ASSERT_EQ(lines.size(), 5u) << msg;
  EXPECT_THAT(lines[0], HasSubstr("unknown key 'batchsize' at line 2"));
  EXPECT_EQ(lines[1], "batch_sizes[0] at line 3: expected an integer, got 'a'");
  EXPECT_EQ(lines[2], "batch_sizes[2] at line 3: expected an integer, got 'b'");
  EXPECT_EQ(lines[3],
            "tasks at line 4: expected one of train, infer, baseload, got 'eval'");
  EXPECT_THAT(lines[4],
              HasSubstr("unknown key 'cores' in power_modes[0] at line 5"));
}

TEST(ParseSweepYamlTest, SyntaxErrorNamesLineAndColumn) {
  EXPECT_THAT(ErrorOf("name: x\nmodels: [lenet5\nepochs: 1\n"),
              HasSubstr("YAML syntax error at line"));
}

TEST(ParseSweepYamlTest, EmptyOrNonMapDocumentIsRejected) {
  EXPECT_THAT(ErrorOf(""), HasSubstr("the sweep file is empty"));
  EXPECT_THAT(
      ErrorOf("- a\n- b\n"),
      HasSubstr("expected a map of sweep fields (name, device_classes"));
}

class LoadSweepFileTest : public ::testing::Test {
 protected:
  std::string Write(const std::string& name, const std::string& text) {
    std::string path = ::testing::TempDir() + "/" + name;
    std::ofstream(path) << text;
    return path;
  }
};

TEST_F(LoadSweepFileTest, LoadsAFile) {
  const std::string path = Write("ok.yaml", "name: f\nbatch_sizes: [1, 2]\n");
  absl::StatusOr<v1::SweepSpec> spec = LoadSweepFile(path);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->name(), "f");
  EXPECT_EQ(spec->batch_sizes_size(), 2);
}

TEST_F(LoadSweepFileTest, EveryErrorLineNamesTheFile) {
  const std::string path = Write("bad.yaml", "batchsize: 8\nepochs: x\n");
  absl::StatusOr<v1::SweepSpec> spec = LoadSweepFile(path);
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.status().code(), absl::StatusCode::kInvalidArgument);
  std::vector<std::string> lines =
      absl::StrSplit(spec.status().message(), '\n');
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_THAT(lines[0], ::testing::StartsWith(
                            path + ": unknown key 'batchsize' at line 1"));
  EXPECT_EQ(lines[1],
            path + ": epochs at line 2: expected an integer, got 'x'");
}

TEST_F(LoadSweepFileTest, MissingFileIsNotFoundAndNamed) {
  const std::string path = ::testing::TempDir() + "/no-such-sweep.yaml";
  absl::StatusOr<v1::SweepSpec> spec = LoadSweepFile(path);
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(spec.status().message(), HasSubstr(path));
}

TEST_F(LoadSweepFileTest, DirectoryIsRejected) {
  absl::StatusOr<v1::SweepSpec> spec = LoadSweepFile(::testing::TempDir());
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(spec.status().message(), HasSubstr("is a directory"));
}

// The sweep files shipped in examples/sweeps/ must load and validate (on a
// controller that has seen the demo's host agent and its xavier-agx twins,
// so only warnings may appear).
TEST(ExampleSweepFilesTest, EveryExampleLoadsAndValidates) {
  const std::filesystem::path dir =
      std::filesystem::path(POWERSWEEP_SOURCE_DIR) / "examples" / "sweeps";
  // The demo's host agents serve the generated sets suite-quickstart.yaml
  // names (infra/scripts/demo.sh); nothing else is registered.
  ValidationContext ctx;
  v1::DeviceStatus demo_host;
  demo_host.mutable_identity()->set_device_id("host-0");
  demo_host.mutable_identity()->set_device_class("host");
  demo_host.mutable_capabilities()->set_cpu_cores(4);
  demo_host.mutable_capabilities()->add_runtimes(v1::RUNTIME_NATIVE);
  demo_host.mutable_capabilities()->add_runtimes(v1::RUNTIME_CONTAINER);
  // A host agent with QEMU and the guest image (closer18-runtimes.yaml).
  demo_host.mutable_capabilities()->add_runtimes(v1::RUNTIME_VM);
  demo_host.mutable_capabilities()->add_runtimes(
      v1::RUNTIME_CONTAINER_IN_VM);
  demo_host.mutable_capabilities()->set_memory_bytes(int64_t{16} << 30);
  demo_host.mutable_capabilities()->add_datasets("cifar10-mini");
  demo_host.mutable_capabilities()->add_datasets("gld-mini");
  // The data sets the applsci23 quickstart names (its header).
  demo_host.mutable_capabilities()->add_datasets("imagenet-mini");
  demo_host.mutable_capabilities()->add_datasets("wikitext-mini");
  ctx.known_devices.push_back(demo_host);
  // And its connected twins: the four xavier-agx of the variability
  // examples (placement every_device needs connected devices).
  for (int i = 0; i < 4; ++i) {
    v1::DeviceStatus twin;
    twin.set_connected(true);
    twin.mutable_identity()->set_device_id(
        absl::StrCat("xavier-agx-twin-", i));
    twin.mutable_identity()->set_device_class("xavier-agx");
    twin.mutable_capabilities()->set_cpu_cores(8);
    twin.mutable_capabilities()->add_runtimes(v1::RUNTIME_NATIVE);
    twin.mutable_capabilities()->add_models("lenet5");
    twin.mutable_capabilities()->add_datasets("fashion-mnist");
    ctx.known_devices.push_back(twin);
  }
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".yaml") continue;
    ++files;
    absl::StatusOr<v1::SweepSpec> spec = LoadSweepFile(entry.path().string());
    ASSERT_TRUE(spec.ok()) << spec.status();
    const absl::Status valid =
        ValidateSweep(WithDefaults(*spec), ctx, nullptr);
    EXPECT_TRUE(valid.ok()) << entry.path() << ":\n" << valid;
  }
  EXPECT_GT(files, 0) << "no sweep files in " << dir;
}

// Every SweepSpec field set, with values a naive writer gets wrong.
v1::SweepSpec EveryFieldSet() {
  v1::SweepSpec s;
  s.set_name("plan \"a\": b\\c\nd, [e] # f");
  s.add_device_classes("xavier-agx");
  s.add_device_classes("yes");  // a string, not a bool
  s.add_models("lenet5");
  s.add_datasets("fashion-mnist");
  s.add_tasks(v1::TASK_TRAIN);
  s.add_tasks(v1::TASK_INFER);
  s.add_batch_sizes(64);
  s.add_loader_workers(0);
  s.add_loader_workers(2);
  s.add_power_modes()->set_preset("MAXN");
  v1::PowerMode* m = s.add_power_modes();
  m->set_cpu_cores(4);
  m->set_cpu_freq_khz(1190400);
  m->set_gpu_freq_hz(1377000000);
  m->set_gpu_power_limit_w(300);  // a host GPU's knob; round-trips too
  m->set_mem_freq_hz(2133000000);
  s.add_power_modes();  // empty: the device as it is
  s.add_runtimes(v1::RUNTIME_NATIVE);
  s.add_runtimes(v1::RUNTIME_CONTAINER);
  s.add_runtimes(v1::RUNTIME_VM);
  s.add_runtimes(v1::RUNTIME_CONTAINER_IN_VM);
  s.set_repetitions(3);
  s.set_epochs(2);
  s.set_minibatches(200);
  s.set_duration_s(0.1);
  s.set_seed(18446744073709551615ULL);
  s.set_threads(-1);
  s.set_telemetry_hz(1.0 / 3.0);
  s.set_timeout_s(600);
  s.set_max_retries(1);
  s.add_tenants(1);
  s.add_tenants(4);
  s.set_container_image("powersweep-workload:local");
  s.add_prefetch_depths(0);
  s.add_page_cache(v1::PAGE_CACHE_KEEP);
  s.add_page_cache(v1::PAGE_CACHE_DROP);
  s.set_preload(true);
  s.set_input_size(160);
  s.add_workloads("resnet50/imagenet:infer");
  s.add_devices("xa-01");
  s.add_devices("xa 02, \"b\"");
  s.set_placement(v1::PLACEMENT_EVERY_DEVICE);
  s.mutable_settle()->set_temp_band_c(1.5);
  s.mutable_settle()->set_max_wait_s(1.0 / 3.0);
  s.add_power_mode_classes()->add_device_classes("xavier-agx");
  s.add_power_mode_classes();
  s.add_power_mode_classes();
  s.set_seq_len(64);
  s.set_vocab(30522);
  s.add_traces(v1::TRACE_WRITEBACK);
  s.add_traces(v1::TRACE_SYSCALLS);
  s.mutable_vm()->set_vcpus(2);
  s.mutable_vm()->set_memory_mib(3072);
  s.add_vm_vcpus(1);  // with vm.vcpus, refused by validation; parsed here
  s.add_vm_vcpus(4);
  s.add_vm_memory_mib(2048);
  s.set_warmup_minibatches(5);
  s.set_cudnn_benchmark(true);
  return s;
}

TEST(SweepYamlTest, TheTestSpecSetsEveryField) {
  const v1::SweepSpec spec = EveryFieldSet();
  std::vector<const google::protobuf::FieldDescriptor*> set;
  spec.GetReflection()->ListFields(spec, &set);
  EXPECT_EQ(static_cast<int>(set.size()),
            v1::SweepSpec::descriptor()->field_count())
      << "set the new SweepSpec field in EveryFieldSet";
}

TEST(SweepYamlTest, ReadsBackIntoAnEqualSpec) {
  const v1::SweepSpec spec = EveryFieldSet();
  const std::string yaml = SweepYaml(spec, {"written by a test", "line 2"});
  absl::StatusOr<v1::SweepSpec> back = ParseSweepYaml(yaml);
  ASSERT_TRUE(back.ok()) << back.status() << "\n" << yaml;
  std::string diff;
  google::protobuf::util::MessageDifferencer d;
  d.ReportDifferencesToString(&diff);
  EXPECT_TRUE(d.Compare(spec, *back)) << diff << "\n" << yaml;
}

// A mixed fleet in one sweep file: each power_modes entry may name its
// classes (device_class or device_classes); the others apply to every
// class.
TEST(ParseSweepYamlTest, PowerModesNameTheirDeviceClasses) {
  absl::StatusOr<v1::SweepSpec> s = ParseSweepYaml(
      "name: mixed\n"
      "device_classes: [orin-agx, xavier-nx, nano]\n"
      "power_modes:\n"
      "  - MAXN\n"
      "  - {preset: MODE_15W, device_class: orin-agx}\n"
      "  - {preset: MODE_10W, device_classes: [xavier-nx, nano]}\n"
      "  - {cpu_cores: 2}\n");
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_EQ(s->power_modes_size(), 4);
  ASSERT_EQ(s->power_mode_classes_size(), 4);
  EXPECT_TRUE(s->power_mode_classes(0).device_classes().empty());
  EXPECT_THAT(s->power_mode_classes(1).device_classes(),
              ::testing::ElementsAre("orin-agx"));
  EXPECT_THAT(s->power_mode_classes(2).device_classes(),
              ::testing::ElementsAre("xavier-nx", "nano"));
  EXPECT_TRUE(s->power_mode_classes(3).device_classes().empty());
  EXPECT_EQ(s->power_modes(1).preset(), "MODE_15W");
  const absl::StatusOr<v1::SweepSpec> bad = ParseSweepYaml(
      "power_modes:\n  - {preset: MAXN, device_class: [a, b]}\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(),
              ::testing::HasSubstr("power_modes[0].device_class at line 2: "
                                   "expected a device class, got"));
}

// Plan files show numbers as people write them.
TEST(SweepYamlTest, NumbersInPlainNotation) {
  v1::SweepSpec s;
  s.set_telemetry_hz(10);
  s.set_timeout_s(600);
  s.set_duration_s(0.25);
  s.set_minibatches(200);
  const std::string y = SweepYaml(s);
  EXPECT_THAT(y, ::testing::HasSubstr("telemetry_hz: 10\n"));
  EXPECT_THAT(y, ::testing::HasSubstr("timeout_s: 600\n"));
  EXPECT_THAT(y, ::testing::HasSubstr("duration_s: 0.25\n"));
  EXPECT_EQ(y.find("e+"), std::string::npos) << y;
}

TEST(SweepYamlTest, DefaultSpecIsEmptyAndReadsBack) {
  EXPECT_EQ(SweepYaml(v1::SweepSpec()), "");
  v1::SweepSpec s;
  s.set_name("x");
  EXPECT_EQ(SweepYaml(s, {"a"}), "# a\nname: \"x\"\n");
}

TEST(SweepYamlTest, ListsInFlowStyleAndOneModePerLine) {
  v1::SweepSpec s;
  s.add_tasks(v1::TASK_TRAIN);
  s.add_batch_sizes(16);
  s.add_batch_sizes(64);
  s.add_power_modes()->set_cpu_cores(2);
  s.add_power_modes()->set_preset("MAXN");
  EXPECT_EQ(SweepYaml(s),
            "tasks: [train]\n"
            "batch_sizes: [16, 64]\n"
            "power_modes:\n"
            "  - {cpu_cores: 2}\n"
            "  - {preset: \"MAXN\"}\n");
}

}  // namespace
}  // namespace powersweep
