// SPDX-License-Identifier: Apache-2.0
#include "widgets/common/formatting.h"

#include "core/util/format.h"
#include "core/io/ndarray.h"

#include <QLocale>

namespace Formatting {

QString count(int64_t value) { return QLocale().toString(qlonglong(value)); }

QString duration(int64_t nanoseconds) { return QString::fromStdString(tgraph::formatDuration(nanoseconds)); }

QString bytes(uint64_t value) { return QString::fromStdString(tgraph::formatBytes(value)); }

QString shape(const std::vector<int64_t>& dims) { return QString::fromStdString(tgraph::shapeToString(dims)); }

} // namespace Formatting
