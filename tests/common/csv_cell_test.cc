// The one CSV cell writer (AppendCsvCell, CsvCell, CsvLine): RFC 4180
// quoting and neutralized spreadsheet formulas.
#include "common/csv_cell.h"

#include <string>

#include "gtest/gtest.h"

namespace powersweep {
namespace {

std::string Cell(const std::string& value) {
  std::string out;
  AppendCsvCell(value, &out);
  return out;
}

TEST(CsvCell, FormulaLikeTextGetsALeadingQuote) {
  EXPECT_EQ(Cell("=1+2"), "'=1+2");
  EXPECT_EQ(Cell("+cmd"), "'+cmd");
  EXPECT_EQ(Cell("-2+3"), "'-2+3");
  EXPECT_EQ(Cell("@SUM(A1:A2)"), "'@SUM(A1:A2)");
  EXPECT_EQ(Cell("\tx"), "'\tx");
  EXPECT_EQ(Cell("\rx"), "\"'\rx\"");  // a line break is also quoted
  EXPECT_EQ(Cell("=HYPERLINK(\"http://x\",\"y\")"),
            "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\"");
  EXPECT_EQ(Cell("-Inf"), "'-Inf");
}

TEST(CsvCell, NumbersStayNumbers) {
  for (const char* n : {"-1.5", "+3", "-2e-05", "1E+10", "-.5", "5.", "0",
                        "-0", "12345678901234"}) {
    EXPECT_EQ(Cell(n), n);
    EXPECT_TRUE(IsPlainNumber(n)) << n;
  }
  for (const char* t : {"", "-", "+", ".", "-e5", "1e", "1.2.3", "-1,5",
                        "--1", "1 ", " 1", "0x10", "-nan"}) {
    EXPECT_FALSE(IsPlainNumber(t)) << t;
  }
}

TEST(CsvCell, ALoneDashIsTheMissingMarkAndStaysAsItIs) {
  EXPECT_EQ(Cell("-"), "-");
  EXPECT_EQ(Cell("--"), "'--");
  EXPECT_EQ(Cell("+"), "'+");
  EXPECT_EQ(Cell("- 1"), "'- 1");
}

TEST(CsvCell, ALineNeutralizesEachCellAndEndsWithANewline) {
  EXPECT_EQ(CsvLine({"=a", "-1.5", "-", "x,y", ""}),
            "'=a,-1.5,-,\"x,y\",\n");
  EXPECT_EQ(CsvLine({}), "\n");
  EXPECT_EQ(CsvCell("@x"), "'@x");
}

TEST(CsvCell, OrdinaryTextIsUnchangedOrQuoted) {
  EXPECT_EQ(Cell("lenet5"), "lenet5");
  EXPECT_EQ(Cell("a-b=c"), "a-b=c");  // only the first character matters
  EXPECT_EQ(Cell("a,b"), "\"a,b\"");
  EXPECT_EQ(Cell("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(Cell(""), "");
}

}  // namespace
}  // namespace powersweep
