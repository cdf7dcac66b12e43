// SPDX-License-Identifier: Apache-2.0
#include "model/nn/ensemblefile.h"

#include "core/util/error.h"
#include "core/util/format.h"
#include "core/util/memorybudget.h"

#include <vector>

namespace tgraph::model {

namespace {

constexpr std::string_view kMemberKeyStart = "member.";
constexpr uint64_t kMaxInfoBytes = 16 << 20; // ensemble.info is a few hundred bytes per member

bool startsWith(std::string_view text, std::string_view start) { return text.substr(0, start.size()) == start; }

// The K of "member.K.rest" (decimal, no leading zeros, rest not empty); -1 when the key is not so.
int64_t memberIndexOf(std::string_view key)
{
    key.remove_prefix(kMemberKeyStart.size());
    const size_t dot = key.find('.');
    if (dot == std::string_view::npos || dot == 0 || dot > 9 || dot + 1 == key.size())
        return -1;
    int64_t index = 0;
    for (size_t i = 0; i < dot; ++i) {
        if (key[i] < '0' || key[i] > '9')
            return -1;
        index = index * 10 + (key[i] - '0');
    }
    if (key[0] == '0' && dot > 1)
        return -1;
    return index;
}

int64_t readMemberCount(NpzReader& npz, int64_t keys)
{
    if (!npz.contains(kEnsembleMembersKey))
        throw InputError(npz.path(), kEnsembleMembersKey,
            "missing: a file with member.K.* keys is an ensemble weights file and must declare its member count");
    const NpyHeader header = npz.header(kEnsembleMembersKey);
    if (header.elementCount() != 1 || !header.dtype.isInteger())
        throw InputError(npz.path(), kEnsembleMembersKey,
            "should be a 0-d integer (the member count), got " + header.dtype.name() + " of shape "
                + shapeToString(header.shape));
    const int64_t count = npz.read<int64_t>(kEnsembleMembersKey)[0];
    // Each member has at least one key, so the keys bound the count before anything is sized by it.
    if (count < 1 || count > keys)
        throw InputError(npz.path(), kEnsembleMembersKey,
            "declares " + std::to_string(count) + " members, but the file has keys for at most "
                + std::to_string(std::max<int64_t>(keys - 2, 0)));
    return count;
}

Json readInfo(NpzReader& npz, int64_t count)
{
    if (!npz.contains(kEnsembleInfoKey))
        throw InputError(npz.path(), kEnsembleInfoKey, "missing (the members' description, UTF-8 JSON)");
    const NpyHeader header = npz.header(kEnsembleInfoKey);
    if (header.shape.size() != 1 || header.dtype.scalar != ScalarType::UInt8)
        throw InputError(npz.path(), kEnsembleInfoKey,
            "should be uint8 text (UTF-8 JSON), got " + header.dtype.name() + " of shape "
                + shapeToString(header.shape));
    if (header.dataBytes() > kMaxInfoBytes)
        throw InputError(npz.path(), kEnsembleInfoKey,
            "declares " + formatBytes(header.dataBytes()) + " of text, more than the " + formatBytes(kMaxInfoBytes)
                + " an ensemble's description may take");
    const NdArray<uint8_t> bytes = npz.read<uint8_t>(kEnsembleInfoKey);
    Json info = parseJson(std::string_view(reinterpret_cast<const char*>(bytes.data()), size_t(bytes.size())),
        npz.path(), kEnsembleInfoKey);
    if (!info.is_object() || !info.contains("members") || !info["members"].is_array())
        throw InputError(npz.path(), kEnsembleInfoKey, "should be a JSON object with a \"members\" array");
    if (int64_t(info["members"].size()) != count)
        throw InputError(npz.path(), kEnsembleInfoKey,
            "describes " + std::to_string(info["members"].size()) + " members, but " + kEnsembleMembersKey
                + " declares " + std::to_string(count));
    return info;
}

} // namespace

std::string ensembleMemberPrefix(int64_t member) { return "member." + std::to_string(member) + "."; }

bool isEnsembleFile(const NpzReader& npz)
{
    for (const ZipMember& m : npz.members())
        if (startsWith(m.name, kMemberKeyStart) || startsWith(m.name, "ensemble."))
            return true;
    return false;
}

bool isEnsembleFile(const std::string& path) { return isEnsembleFile(NpzReader(path)); }

void refuseEnsembleFile(const NpzReader& npz)
{
    if (isEnsembleFile(npz))
        throw InputError(npz.path(), "",
            "is an ensemble weights file (ensemble.members, member.K.* keys), not one model's weights file or "
            "checkpoint; 'tgraph weights show' lists its members");
}

Json EnsembleFileIndex::memberInfo(int64_t member) const
{
    const Json& entry = info.at("members").at(size_t(member));
    return entry.is_object() ? entry : Json::object();
}

EnsembleFileIndex readEnsembleIndex(NpzReader& npz)
{
    const std::vector<std::string> keys = npz.keys();
    EnsembleFileIndex index;
    index.members = readMemberCount(npz, int64_t(keys.size()));
    std::vector<bool> present(size_t(index.members), false);
    for (const std::string& key : keys) {
        if (key == kEnsembleMembersKey || key == kEnsembleInfoKey)
            continue;
        const int64_t member = startsWith(key, kMemberKeyStart) ? memberIndexOf(key) : -1;
        if (member < 0)
            throw InputError(npz.path(), key,
                "unexpected key in an ensemble weights file (its keys are ensemble.members, ensemble.info and "
                "member.K.<weights key>)");
        if (member >= index.members)
            throw InputError(npz.path(), key,
                "a key of member " + std::to_string(member) + ", but " + kEnsembleMembersKey + " declares "
                    + std::to_string(index.members) + " members (0.." + std::to_string(index.members - 1) + ")");
        present[size_t(member)] = true;
    }
    for (int64_t k = 0; k < index.members; ++k)
        if (!present[size_t(k)])
            throw InputError(npz.path(), ensembleMemberPrefix(k) + "*",
                "member " + std::to_string(k) + " is missing: " + kEnsembleMembersKey + " declares "
                    + std::to_string(index.members) + " members but the file holds no key of member "
                    + std::to_string(k));
    // Every member's model is built from its arrays, so all of them must fit the budget together.
    uint64_t total = 0;
    for (const ZipMember& m : npz.members())
        total += m.uncompressedSize;
    const uint64_t budget = memoryBudgetBytes();
    if (total > budget)
        throw InputError(npz.path(), "",
            "the members' arrays declare " + formatBytes(total) + ", more than " + describeMemoryBudget(budget));
    index.info = readInfo(npz, index.members);
    return index;
}

} // namespace tgraph::model
