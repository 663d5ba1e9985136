// Read-only SQL helpers for integration tests: they open the controller's
// database file as any outside reader (sqlite3, pandas) would.
#ifndef POWERSWEEP_TESTS_INTEGRATION_SQLITE_QUERY_H_
#define POWERSWEEP_TESTS_INTEGRATION_SQLITE_QUERY_H_

#include <string>
#include <vector>

namespace powersweep::testing {

// Rows of the query's result, each cell as text ("" for NULL). On error a
// single row holding "ERROR: <message>".
std::vector<std::vector<std::string>> Query(const std::string& db_path,
                                            const std::string& sql);
// The first cell of the first row as a number (NaN if none).
double QueryNumber(const std::string& db_path, const std::string& sql);

}  // namespace powersweep::testing

#endif  // POWERSWEEP_TESTS_INTEGRATION_SQLITE_QUERY_H_
