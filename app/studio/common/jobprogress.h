// SPDX-License-Identifier: Apache-2.0
#pragma once

// JobProgress and showJobProgress() live in widgets/common with the JobTracker; this header stays
// only until the analysis panels include "widgets/common/jobprogress.h" themselves.
#include "widgets/common/jobprogress.h"
