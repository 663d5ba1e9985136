#include "tests/integration/sqlite_query.h"

#include <sqlite3.h>

#include <cmath>
#include <cstdlib>

namespace powersweep::testing {

std::vector<std::vector<std::string>> Query(const std::string& db_path,
                                            const std::string& sql) {
  std::vector<std::vector<std::string>> rows;
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) !=
      SQLITE_OK) {
    rows.push_back({std::string("ERROR: ") + sqlite3_errmsg(db)});
    sqlite3_close(db);
    return rows;
  }
  sqlite3_busy_timeout(db, 5000);
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK) {
    rows.push_back({std::string("ERROR: ") + sqlite3_errmsg(db)});
    sqlite3_close(db);
    return rows;
  }
  while (sqlite3_step(stmt) == SQLITE_ROW) {
    std::vector<std::string> row;
    for (int c = 0; c < sqlite3_column_count(stmt); ++c) {
      const unsigned char* text = sqlite3_column_text(stmt, c);
      row.push_back(text ? reinterpret_cast<const char*>(text) : "");
    }
    rows.push_back(row);
  }
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return rows;
}

double QueryNumber(const std::string& db_path, const std::string& sql) {
  auto rows = Query(db_path, sql);
  if (rows.empty() || rows[0].empty() || rows[0][0].rfind("ERROR", 0) == 0 ||
      rows[0][0].empty()) {
    return std::nan("");
  }
  return std::atof(rows[0][0].c_str());
}

}  // namespace powersweep::testing
