#include "agent/run/capabilities.h"

#include <string>

namespace powersweep {

void AddCatalog(const Catalog& catalog, v1::DeviceCapabilities* caps) {
  caps->add_runtimes(v1::RUNTIME_NATIVE);
  if (catalog.containers) caps->add_runtimes(v1::RUNTIME_CONTAINER);
  if (catalog.vms) {
    caps->add_runtimes(v1::RUNTIME_VM);
    if (catalog.containers) caps->add_runtimes(v1::RUNTIME_CONTAINER_IN_VM);
    caps->set_vm_accel(catalog.vm_accel);
    caps->set_vm_accel_reason(catalog.vm_accel_reason);
  }
  for (const std::string& model : catalog.models) caps->add_models(model);
  for (const auto& [name, path] : catalog.datasets) caps->add_datasets(name);
}

v1::DeviceCapabilities AgentCapabilities(const Platform& platform,
                                         const Catalog& catalog) {
  v1::DeviceCapabilities caps = platform.Capabilities();
  AddCatalog(catalog, &caps);
  return caps;
}

}  // namespace powersweep
