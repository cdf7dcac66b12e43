// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QString>

#include <cstdint>
#include <utility>
#include <vector>

// Text for numbers as the studio shows them: grouped counts, durations and sizes with units.
namespace Formatting {

// 1234567 -> "1,234,567" (in the current QLocale).
QString count(int64_t value);
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
// Two numbers for people (the current QLocale) with the fewest significant digits, from three,
// that tell them apart (up to nine): the ends of a colour range, {0.00862, 0.0087} ->
// {"0.00862", "0.0087"} where three digits of a wider range read {"0.00822", "0.00909"}.
std::pair<QString, QString> distinct(double a, double b);
// Bytes with binary units: "512 B", "1.5 KiB", "23.4 MiB".
QString bytes(uint64_t value);
// numpy-style shape "(2, 3)", "(5,)", "()".
QString shape(const std::vector<int64_t>& dims);

} // namespace Formatting
