#include "agent/run/capabilities.h"

#include "agent/platform/fake_platform.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace powersweep {
namespace {

using testing::ElementsAre;

Catalog TwoDatasets() {
  Catalog catalog;
  catalog.models = {"vgg11", "lenet5"};
  catalog.datasets = {{"mnist", "/data/mnist"}, {"cifar10", "/data/c10"}};
  return catalog;
}

TEST(Capabilities, CatalogAddsNativeRuntimeModelsAndDatasetNames) {
  v1::DeviceCapabilities caps;
  AddCatalog(TwoDatasets(), &caps);
  EXPECT_THAT(caps.runtimes(), ElementsAre(v1::RUNTIME_NATIVE));
  EXPECT_THAT(caps.models(), ElementsAre("lenet5", "vgg11"));
  // Names only, never the agent's paths.
  EXPECT_THAT(caps.datasets(), ElementsAre("cifar10", "mnist"));
}

TEST(Capabilities, ContainerRuntimeOnlyWhenTheCatalogAllowsContainers) {
  Catalog catalog = TwoDatasets();
  catalog.containers = true;
  v1::DeviceCapabilities caps;
  AddCatalog(catalog, &caps);
  EXPECT_THAT(caps.runtimes(),
              ElementsAre(v1::RUNTIME_NATIVE, v1::RUNTIME_CONTAINER));
}

TEST(Capabilities, AgentCapabilitiesKeepThePlatformsHardware) {
  FakePlatform platform({0, 1, 2});
  const v1::DeviceCapabilities caps =
      AgentCapabilities(platform, TwoDatasets());
  EXPECT_EQ(caps.cpu_cores(), 3);
  EXPECT_THAT(caps.runtimes(), ElementsAre(v1::RUNTIME_NATIVE));
  EXPECT_THAT(caps.models(), ElementsAre("lenet5", "vgg11"));
  EXPECT_THAT(caps.datasets(), ElementsAre("cifar10", "mnist"));
}

}  // namespace
}  // namespace powersweep
