#include "workloads/models/catalog.h"

namespace powersweep {

std::vector<std::string> KnownModels() { return {"lenet5"}; }

}  // namespace powersweep
