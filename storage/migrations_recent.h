// Internal to storage/migrations.cc: the SQL of schema migrations 16 and
// later, in order (version 16 first). Append only, as migrations.h says.
#ifndef POWERSWEEP_STORAGE_MIGRATIONS_RECENT_H_
#define POWERSWEEP_STORAGE_MIGRATIONS_RECENT_H_

#include <vector>

namespace powersweep {

const std::vector<const char*>& MigrationsFromV16();

}  // namespace powersweep

#endif  // POWERSWEEP_STORAGE_MIGRATIONS_RECENT_H_
