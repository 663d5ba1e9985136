// The names of the models this workload binary can build (MakeModel in
// model.h accepts exactly these). Kept free of LibTorch so argument
// validation does not need it. Stateless and thread-safe.
#ifndef POWERSWEEP_WORKLOADS_MODELS_CATALOG_H_
#define POWERSWEEP_WORKLOADS_MODELS_CATALOG_H_

#include <string>
#include <vector>

namespace powersweep {

// Names MakeModel accepts, sorted.
std::vector<std::string> KnownModels();

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_MODELS_CATALOG_H_
