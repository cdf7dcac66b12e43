// SPDX-License-Identifier: Apache-2.0
#pragma once

// An ensemble weights file (docs/formats.md §12, docs/model.md §6.3): N models in one npz, each a
// complete weights file's keys (weights.h; never a checkpoint's training state) under the prefix
// "member.K." for K = 0..N-1, plus
//   ensemble.members   int64 0-d: N
//   ensemble.info      uint8: UTF-8 JSON {"format": 1, "kind": "layout"|"tile", "made_by": ...,
//                      "members": [{"source", "model", "options", "seed", "fold", "folds",
//                      "best_tau", "best_step"}, ...]} (one entry per member; a fact not known is
//                      left out)
// The index of such a file is checked here, torch-free, before any member is read: the declared
// count against the member keys present, every key either ensemble.* or member.K.* with K < N,
// the info's member list of N entries, and all arrays within the memory budget. Each member is
// then read as a WeightsFile with its prefix (weightsfile.h), which names the member's keys in its
// errors.

#include "core/io/npz.h"
#include "core/util/json.h"

#include <cstdint>
#include <string>

namespace tgraph::model {

inline const std::string kEnsembleMembersKey = "ensemble.members";
inline const std::string kEnsembleInfoKey = "ensemble.info";
inline constexpr int kEnsembleFormat = 1;

// "member.K."
std::string ensembleMemberPrefix(int64_t member);

// Whether the npz has the keys of an ensemble file (ensemble.* or member.*), valid or not.
bool isEnsembleFile(const NpzReader& npz);
bool isEnsembleFile(const std::string& path);

// InputError naming the file when it is an ensemble file where one model's weights are expected.
void refuseEnsembleFile(const NpzReader& npz);

struct EnsembleFileIndex
{
    int64_t members = 0;
    Json info; // ensemble.info, an object whose "members" array has `members` entries
    // Entry K of info["members"] (an object; empty when the entry is not one).
    Json memberInfo(int64_t member) const;
};

// The checked index of an ensemble file (above); InputError naming the file, the key and the
// problem (a count that the keys do not bear out, a missing member, a key of no member, ...).
EnsembleFileIndex readEnsembleIndex(NpzReader& npz);

} // namespace tgraph::model
