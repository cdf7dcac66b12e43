// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QString>
#include <QStringList>

#include <cstdint>
#include <utility>
#include <vector>

namespace tgraph::widgets {

// Text for every number a person reads in the studio (docs/studio.md §8.4). Each function formats
// through the current QLocale, so the decimal mark and the digit grouping always follow the user's
// locale together ("215,029" and "240.3" in English, "215.029" and "240,3" in German); negative
// numbers carry the typographic minus "−" (U+2212) and a value that is not finite reads "–".
// Numbers written for machines (files, command lines, settings) never come from here
// (docs/studio.md §3.6). The examples below are in the C locale.
namespace Formatting {

// The dynamic property (bool) of a widget whose text is shown as written: file text such as an HLO
// instruction, a training process's output. Its numbers are not formatted here, and the studio's
// text checks (tests/app/tst_studiotexts.cpp) leave it out.
inline constexpr const char* kVerbatimProperty = "verbatim";

// What a missing or non-finite value reads: "–".
QString missing();

// A count, grouped: 1234567 -> "1,234,567". Steps, ranks and sizes are counts.
QString count(int64_t value);
// An identifier, digits only: config 1234, node 56, seed 42, a process id. People type these back
// (`--config 1234`) or search for them, so they are never grouped.
QString id(int64_t value);
// A number with a fixed number of decimals: number(240.31, 1) -> "240.3", number(12345.6, 1) ->
// "12,345.6". A value that rounds to zero has no sign ("0.00", never "-0.00").
QString number(double value, int decimals);
// Up to `digits` significant digits without trailing zeros: 0.07962 -> "0.0796" (3),
// 1234.5 -> "1,234" (4); scientific below 1e-4 and from 1e9 on: 1.234e-5 -> "1.23e-05" (3).
QString significant(double value, int digits);
// Scientific notation with `digits` significant digits: scientific(1.5e10, 2) -> "1.5e+10".
QString scientific(double value, int digits);
// A fraction as a percentage: percent(0.1234, 1) -> "12.3 %".
QString percent(double fraction, int decimals);
// With an explicit sign, "+" or "−" (U+2212): signedNumber(-0.25, 2) -> "−0.25"; "0.00" for zero.
QString signedNumber(double value, int decimals);
QString signedSignificant(double value, int digits);
// A mean and its standard deviation in the same decimals: "0.8123 ± 0.0123"; the mean alone when
// the deviation is not finite (a single sample).
QString meanStd(double mean, double std, int decimals);
// Seconds with a unit: seconds(1.234, 1) -> "1.2 s".
QString seconds(double value, int decimals);
// A ratio such as a speed-up: factor(1.2345, 2) -> "1.23×".
QString factor(double value, int decimals);
// Numbers shown as a list: joined with ", ", or with "; " where the decimal mark is a comma
// ("0,5; 1,5"), so that a list never reads as one number.
QString numberList(const QStringList& numbers);
// Elapsed wall time, to the second: "45s", "3m 12s", "2h 5m".
QString elapsed(int64_t seconds);

// Nanoseconds with the largest fitting unit and three significant digits: "870 ns", "1.25 ms", "23.3 s".
QString duration(int64_t nanoseconds);
// The unit duration() would pick for `ns`: nanoseconds per unit and its name ("ns", "µs", "ms", "s").
std::pair<double, QString> durationUnit(double ns);
// Runtimes (ns) shown side by side, in one unit (the largest value's) with the digits that tell
// them apart: three significant digits for the largest, more until no two different values read
// the same, down to 1 ns (docs/studio.md §8.3). Non-finite values read "–".
// {911234567, 911456789} -> {"911.2 ms", "911.5 ms"}.
QStringList durations(const std::vector<double>& nanoseconds);
// a − b with a sign, in the digits durations({a, b}) uses, and relative to b:
// durationDifference(911456789, 911234567) = "+0.22 ms (+0.024 %)"; "0 ns" when equal.
QString durationDifference(double a, double b);
// Two numbers with the fewest significant digits, from three, that tell them apart (up to nine):
// the ends of a colour range, {0.00862, 0.0087} -> {"0.00862", "0.0087"} where three digits of a
// wider range read {"0.00822", "0.00909"}.
std::pair<QString, QString> distinct(double a, double b);
// Bytes with binary units: "512 B", "1.50 KiB", "23.4 MiB".
QString bytes(uint64_t value);
// numpy-style shape "(2, 3)", "(5,)", "()": dimensions are sizes people compare with the file's,
// written as numpy writes them.
QString shape(const std::vector<int64_t>& dims);

} // namespace Formatting

} // namespace tgraph::widgets
