// The capabilities an agent registers with: what its platform reports of
// the hardware (cores, frequency tables, memory) and what its catalog
// offers (runtimes, models, data sets). Platforms report only the
// hardware; the catalog part is added here, once, for every platform.
#ifndef POWERSWEEP_AGENT_RUN_CAPABILITIES_H_
#define POWERSWEEP_AGENT_RUN_CAPABILITIES_H_

#include "agent/platform/platform.h"
#include "agent/run/catalog.h"
#include "powersweep/v1/device.pb.h"

namespace powersweep {

// Appends the catalog's runtimes (native, and container when
// `catalog.containers`), models and data-set names (sorted, as the catalog
// holds them) to `caps`.
void AddCatalog(const Catalog& catalog, v1::DeviceCapabilities* caps);

// platform.Capabilities() with AddCatalog(catalog) applied.
v1::DeviceCapabilities AgentCapabilities(const Platform& platform,
                                         const Catalog& catalog);

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_RUN_CAPABILITIES_H_
