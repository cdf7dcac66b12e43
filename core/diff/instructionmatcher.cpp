// SPDX-License-Identifier: Apache-2.0
#include "core/diff/instructionmatcher.h"

#include "core/util/progress.h"

#include <algorithm>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace tgraph {

namespace {

constexpr int kMaxShapeDepth = 64; // hashes look no deeper into nested tuples

uint64_t mix(uint64_t h, uint64_t v)
{
    // splitmix64's finaliser over the running value.
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h ^= h >> 30;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 27;
    h *= 0x94d049bb133111ebull;
    h ^= h >> 31;
    return h;
}

uint64_t hashText(std::string_view s) { return std::hash<std::string_view>()(s); }

uint64_t hashInts(uint64_t h, std::span<const int64_t> values)
{
    h = mix(h, values.size());
    for (const int64_t v : values)
        h = mix(h, uint64_t(v));
    return h;
}

uint64_t shapeHash(const HloModule& m, uint32_t index, int depth = 0)
{
    if (index >= m.shapes.size() || depth > kMaxShapeDepth)
        return 0;
    const HloShape& s = m.shapes[index];
    uint64_t h = mix(0x5ba9e, uint64_t(uint32_t(s.elementType)));
    if (s.elementType == PrimitiveType::Tuple) {
        h = mix(h, s.tupleCount);
        for (uint32_t k = 0; k < s.tupleCount; ++k)
            h = mix(h, shapeHash(m, s.firstTupleShape + k, depth + 1));
        return h;
    }
    return hashInts(h, m.span(s.dims));
}

bool sameInts(std::span<const int64_t> a, std::span<const int64_t> b) { return std::ranges::equal(a, b); }

// The minor-to-major order of a shape, the default (rank-1 .. 0) when it has none.
std::vector<int64_t> layoutOf(const HloModule& m, const HloShape& s)
{
    const auto dims = m.span(s.dims);
    const auto layout = m.span(s.minorToMajor);
    if (s.hasLayout && layout.size() == dims.size())
        return { layout.begin(), layout.end() };
    std::vector<int64_t> order(dims.size());
    for (size_t k = 0; k < order.size(); ++k)
        order[k] = int64_t(order.size() - 1 - k);
    return order;
}

enum class ShapeCompare { Equal, LayoutOnly, Different };

// Element by element with a stack of its own: the readers nest tuples up to 200 deep. A tree has no
// more nodes than the module has shapes; more steps than that mean indices that loop (a module not
// made by a reader), compared as different.
ShapeCompare compareShapes(const HloModule& a, uint32_t sa, const HloModule& b, uint32_t sb)
{
    ShapeCompare result = ShapeCompare::Equal;
    std::vector<std::pair<uint32_t, uint32_t>> stack { { sa, sb } };
    size_t budget = a.shapes.size() + 1;
    while (!stack.empty()) {
        const auto [ia, ib] = stack.back();
        stack.pop_back();
        if (ia >= a.shapes.size() || ib >= b.shapes.size() || budget-- == 0)
            return ShapeCompare::Different;
        const HloShape& x = a.shapes[ia];
        const HloShape& y = b.shapes[ib];
        if (x.elementType != y.elementType)
            return ShapeCompare::Different;
        if (x.elementType == PrimitiveType::Tuple) {
            if (x.tupleCount != y.tupleCount)
                return ShapeCompare::Different;
            for (uint32_t k = 0; k < x.tupleCount; ++k)
                stack.emplace_back(x.firstTupleShape + k, y.firstTupleShape + k);
            continue;
        }
        if (!sameInts(a.span(x.dims), b.span(y.dims)))
            return ShapeCompare::Different;
        if (x.dims.count != 0 && layoutOf(a, x) != layoutOf(b, y)) // scalars have no layout to speak of
            result = ShapeCompare::LayoutOnly;
    }
    return result;
}

class Matcher
{
public:
    Matcher(const HloDiffGraph& a, const HloDiffGraph& b, HloMatching& result)
        : A(a)
        , B(b)
        , r(result)
    { }

    // Every stage links through here. A live instruction never pairs with one of a computation a
    // pass left behind (docs/diff.md §2.5).
    bool link(uint32_t a, uint32_t b, HloMatchStage stage)
    {
        if (r.matchOfA[a] >= 0 || r.matchOfB[b] >= 0 || A.live(a) != B.live(b))
            return false;
        r.matchOfA[a] = int32_t(b);
        r.matchOfB[b] = int32_t(a);
        r.stageOfA[a] = stage;
        m_matched.push_back(a);
        return true;
    }
    bool freeA(uint32_t a) const { return r.matchOfA[a] < 0; }
    bool freeB(uint32_t b) const { return r.matchOfB[b] < 0; }
    bool sameOpcode(uint32_t a, uint32_t b) const { return A.instruction(a).opcode == B.instruction(b).opcode; }

    // Computations that are the same by name, or both the entry.
    bool sameComputation(uint32_t a, uint32_t b) const
    {
        const uint32_t ca = A.computationOf(a), cb = B.computationOf(b);
        if (A.entry(ca) && B.entry(cb))
            return true;
        return A.module().computations[ca].name == B.module().computations[cb].name;
    }

    // (a) The same name, unique on both sides; then, among what is left, the same name in
    // computations of the same name (the text reader allows a name once per computation). A
    // parameter is a computation's argument: matched by name only inside computations of the same
    // name (others by their callers, stage top-down); elsewhere an instruction that moved to
    // another computation keeps its opcode.
    void byName()
    {
        byUniqueKey<std::string_view>([](const HloDiffGraph& g, uint32_t i) { return g.instruction(i).name; });
        byUniqueKey<std::string>([](const HloDiffGraph& g, uint32_t i) {
            const std::string_view name = g.instruction(i).name;
            if (name.empty())
                return std::string();
            std::string key(g.module().computations[g.computationOf(i)].name);
            key += '\0';
            key += name;
            return key;
        });
    }

    template <class Key, class KeyOf> void byUniqueKey(KeyOf keyOf)
    {
        struct Slot
        {
            int64_t a = -1, b = -1; // -2: more than one
        };
        std::unordered_map<Key, Slot> slots;
        slots.reserve(A.size());
        for (uint32_t i = 0; i < A.size(); ++i)
            if (freeA(i))
                if (Key key = keyOf(A, i); !key.empty()) {
                    Slot& slot = slots[std::move(key)];
                    slot.a = slot.a == -1 ? int64_t(i) : -2;
                }
        for (uint32_t i = 0; i < B.size(); ++i)
            if (freeB(i))
                if (const Key key = keyOf(B, i); !key.empty())
                    if (const auto it = slots.find(key); it != slots.end())
                        it->second.b = it->second.b == -1 ? int64_t(i) : -2;
        std::vector<std::pair<uint32_t, uint32_t>> pairs; // (b, a): B's order
        for (const auto& [key, slot] : slots)
            if (slot.a >= 0 && slot.b >= 0)
                pairs.emplace_back(uint32_t(slot.b), uint32_t(slot.a));
        std::sort(pairs.begin(), pairs.end());
        for (const auto& [b, a] : pairs) {
            const bool parameters = A.isParameter(a) || B.isParameter(b);
            const bool ok = parameters ? A.isParameter(a) && B.isParameter(b) && sameComputation(a, b)
                                       : sameOpcode(a, b) || sameComputation(a, b);
            if (ok)
                link(a, b, HloMatchStage::Name);
        }
    }

    // (a') The same op_name, op_type, opcode and shape (layout aside), once among the unmatched
    // instructions of each side.
    void byMetadata()
    {
        struct Slot
        {
            int64_t a = -1, b = -1;
            uint32_t countA = 0, countB = 0;
        };
        const HloModule& ma = A.module();
        const HloModule& mb = B.module();
        auto key = [](const HloModule& m, const HloDiffGraph& g, uint32_t i) -> uint64_t {
            const HloOpMetadata& meta = m.opMetadataOf(i);
            if (meta.opName.empty())
                return 0;
            uint64_t h = mix(hashText(meta.opName), hashText(meta.opType));
            h = mix(h, hashText(g.instruction(i).opcode));
            return mix(h, shapeHash(m, g.instruction(i).shape)) | 1; // 0 = no metadata
        };
        std::unordered_map<uint64_t, Slot> slots;
        for (uint32_t i = 0; i < A.size(); ++i)
            if (freeA(i))
                if (const uint64_t k = key(ma, A, i)) {
                    Slot& s = slots[k];
                    s.a = i;
                    ++s.countA;
                }
        for (uint32_t i = 0; i < B.size(); ++i)
            if (freeB(i))
                if (const uint64_t k = key(mb, B, i)) {
                    const auto it = slots.find(k);
                    if (it != slots.end()) {
                        it->second.b = i;
                        ++it->second.countB;
                    }
                }
        std::vector<std::pair<uint32_t, uint32_t>> pairs;
        for (const auto& [k, s] : slots)
            if (s.countA == 1 && s.countB == 1)
                pairs.emplace_back(uint32_t(s.a), uint32_t(s.b));
        std::sort(pairs.begin(), pairs.end());
        for (const auto& [a, b] : pairs) {
            const HloOpMetadata& x = ma.opMetadataOf(a);
            const HloOpMetadata& y = mb.opMetadataOf(b);
            if (x.opName == y.opName && x.opType == y.opType && sameOpcode(a, b)
                && sameShapeIgnoringLayout(ma, A.instruction(a).shape, mb, B.instruction(b).shape))
                link(a, b, HloMatchStage::Metadata);
        }
    }

    // (b) Exact subgraphs: instructions whose subgraph hash occurs once among the unmatched of
    // each side, tallest first; each match brings the operands of its subgraph along.
    void bySubgraph(ProgressScope& progress)
    {
        std::vector<uint32_t> heightA, heightB;
        const std::vector<uint64_t> ha = subgraphHashes(A, &heightA);
        progress.advanceBy(1);
        const std::vector<uint64_t> hb = subgraphHashes(B, &heightB);
        progress.advanceBy(1);
        struct Slot
        {
            uint32_t a = 0, b = 0;
            uint32_t countA = 0, countB = 0;
        };
        std::unordered_map<uint64_t, Slot> slots;
        slots.reserve(A.size());
        for (uint32_t i = 0; i < A.size(); ++i)
            if (freeA(i)) {
                Slot& s = slots[ha[i]];
                s.a = i;
                ++s.countA;
            }
        for (uint32_t i = 0; i < B.size(); ++i)
            if (freeB(i))
                if (const auto it = slots.find(hb[i]); it != slots.end()) {
                    it->second.b = i;
                    ++it->second.countB;
                }
        std::vector<std::pair<uint32_t, uint32_t>> candidates;
        for (const auto& [h, s] : slots)
            if (s.countA == 1 && s.countB == 1)
                candidates.emplace_back(s.a, s.b);
        std::sort(candidates.begin(), candidates.end(), [&](const auto& x, const auto& y) {
            return heightA[x.first] != heightA[y.first] ? heightA[x.first] > heightA[y.first] : x < y;
        });
        std::vector<std::pair<uint32_t, uint32_t>> stack;
        for (const auto& [a0, b0] : candidates) {
            if (!sameOpcode(a0, b0) || !link(a0, b0, HloMatchStage::Subgraph))
                continue;
            stack.emplace_back(a0, b0);
            while (!stack.empty()) {
                const auto [a, b] = stack.back();
                stack.pop_back();
                forEachDependencyPair(a, b, [&](uint32_t x, uint32_t y) {
                    if (ha[x] == hb[y] && sameOpcode(x, y) && link(x, y, HloMatchStage::Subgraph))
                        stack.emplace_back(x, y);
                });
            }
        }
    }

    // (c) and (c'): from every matched pair, its operands at the same position with the same
    // opcode (top-down; called computations' roots and parameters too), and the one user at the
    // same operand position with the same opcode on each side (bottom-up; the fusion whose root
    // it is, too); until nothing more matches.
    void propagate(bool topDown, bool bottomUp, ProgressScope& progress)
    {
        std::vector<uint32_t> queue = m_matched;
        std::sort(queue.begin(), queue.end());
        m_matched.clear();
        size_t head = 0;
        std::vector<HloDiffGraph::Use> usersA, usersB;
        std::unordered_set<uint64_t> calleePairs;
        while (head < queue.size()) {
            const uint32_t a = queue[head++];
            const uint32_t b = uint32_t(r.matchOfA[a]);
            if ((head & 4095) == 0)
                progress.advanceBy(0); // a cancellation point
            if (topDown) {
                const auto fa = A.flowOperands(a);
                const auto fb = B.flowOperands(b);
                for (size_t k = 0; k < std::min(fa.size(), fb.size()); ++k)
                    if (freeA(fa[k]) && freeB(fb[k]) && sameOpcode(fa[k], fb[k]))
                        link(fa[k], fb[k], HloMatchStage::TopDown);
                const auto ca = A.callees(a);
                const auto cb = B.callees(b);
                for (size_t k = 0; k < std::min(ca.size(), cb.size()); ++k) {
                    // Once per pair of computations: a reducer called from 10 000 reduces is
                    // looked into once.
                    if (!calleePairs.insert(uint64_t(ca[k]) << 32 | cb[k]).second)
                        continue;
                    const int64_t ra = A.root(ca[k]), rb = B.root(cb[k]);
                    if (ra >= 0 && rb >= 0 && freeA(uint32_t(ra)) && freeB(uint32_t(rb))
                        && sameOpcode(uint32_t(ra), uint32_t(rb)))
                        link(uint32_t(ra), uint32_t(rb), HloMatchStage::TopDown);
                    const int64_t count = std::min(A.parameterCount(ca[k]), B.parameterCount(cb[k]));
                    for (int64_t number = 0; number < count; ++number) {
                        const int64_t pa = A.parameter(ca[k], number), pb = B.parameter(cb[k], number);
                        if (pa >= 0 && pb >= 0 && freeA(uint32_t(pa)) && freeB(uint32_t(pb)))
                            link(uint32_t(pa), uint32_t(pb), HloMatchStage::TopDown);
                    }
                }
            }
            if (bottomUp) {
                collectFreeUsers(A, a, usersA, true);
                collectFreeUsers(B, b, usersB, false);
                size_t i = 0, j = 0;
                while (i < usersA.size() && j < usersB.size()) {
                    const int order = compareUse(usersA[i], usersB[j]);
                    size_t i2 = i + 1, j2 = j + 1;
                    while (i2 < usersA.size() && compareUse(A, usersA[i2], A, usersA[i]) == 0)
                        ++i2;
                    while (j2 < usersB.size() && compareUse(B, usersB[j2], B, usersB[j]) == 0)
                        ++j2;
                    if (order < 0) {
                        i = i2;
                    } else if (order > 0) {
                        j = j2;
                    } else {
                        if (i2 - i == 1 && j2 - j == 1)
                            link(usersA[i].user, usersB[j].user, HloMatchStage::BottomUp);
                        i = i2;
                        j = j2;
                    }
                }
                // The root of a computation seen through: its `fusion` or `call` instruction.
                const int64_t fa = A.transparentCaller(A.computationOf(a));
                const int64_t fb = B.transparentCaller(B.computationOf(b));
                if (fa >= 0 && fb >= 0 && A.root(A.computationOf(a)) == int64_t(a)
                    && B.root(B.computationOf(b)) == int64_t(b) && sameOpcode(uint32_t(fa), uint32_t(fb)))
                    link(uint32_t(fa), uint32_t(fb), HloMatchStage::BottomUp);
            }
            for (const uint32_t added : m_matched)
                queue.push_back(added);
            m_matched.clear();
        }
    }

    std::vector<uint32_t> m_matched; // A sides linked since the last look

private:
    template <class Fn> void forEachDependencyPair(uint32_t a, uint32_t b, Fn&& fn)
    {
        const auto fa = A.flowOperands(a);
        const auto fb = B.flowOperands(b);
        for (size_t k = 0; k < std::min(fa.size(), fb.size()); ++k)
            fn(fa[k], fb[k]);
        const auto ca = A.callees(a);
        const auto cb = B.callees(b);
        for (size_t k = 0; k < std::min(ca.size(), cb.size()); ++k) {
            const int64_t ra = A.root(ca[k]), rb = B.root(cb[k]);
            if (ra >= 0 && rb >= 0)
                fn(uint32_t(ra), uint32_t(rb));
        }
    }

    void collectFreeUsers(const HloDiffGraph& g, uint32_t i, std::vector<HloDiffGraph::Use>& out, bool sideA) const
    {
        out.clear();
        for (const HloDiffGraph::Use& u : g.flowUsers(i))
            if (sideA ? freeA(u.user) : freeB(u.user))
                out.push_back(u);
        std::sort(out.begin(), out.end(), [&](const auto& x, const auto& y) {
            const int c = compareUse(g, x, g, y);
            return c != 0 ? c < 0 : x.user < y.user;
        });
    }
    static int compareUse(
        const HloDiffGraph& gx, const HloDiffGraph::Use& x, const HloDiffGraph& gy, const HloDiffGraph::Use& y)
    {
        if (x.position != y.position)
            return x.position < y.position ? -1 : 1;
        const int c = gx.instruction(x.user).opcode.compare(gy.instruction(y.user).opcode);
        return c < 0 ? -1 : c > 0 ? 1 : 0;
    }
    int compareUse(const HloDiffGraph::Use& x, const HloDiffGraph::Use& y) const { return compareUse(A, x, B, y); }

    const HloDiffGraph& A;
    const HloDiffGraph& B;
    HloMatching& r;
};

} // namespace

bool sameShapeIgnoringLayout(const HloModule& a, uint32_t shapeA, const HloModule& b, uint32_t shapeB)
{
    return compareShapes(a, shapeA, b, shapeB) != ShapeCompare::Different;
}

bool sameLayout(const HloModule& a, uint32_t shapeA, const HloModule& b, uint32_t shapeB)
{
    return compareShapes(a, shapeA, b, shapeB) == ShapeCompare::Equal;
}

std::vector<uint64_t> subgraphHashes(const HloDiffGraph& g, std::vector<uint32_t>* heights)
{
    const uint32_t n = g.size();
    const HloModule& m = g.module();
    std::vector<uint64_t> hash(n, 0);
    std::vector<uint32_t> height(n, 0);
    std::vector<uint8_t> state(n, 0); // 0 new, 1 on the stack, 2 done
    // Dependencies of i: its data-flow operands, then its called computations' roots.
    auto dependencyCount = [&](uint32_t i) { return g.flowOperands(i).size() + g.callees(i).size(); };
    auto dependency = [&](uint32_t i, size_t k) -> int64_t {
        const auto flow = g.flowOperands(i);
        return k < flow.size() ? int64_t(flow[k]) : g.root(g.callees(i)[k - flow.size()]);
    };
    std::vector<std::pair<uint32_t, size_t>> stack;
    for (uint32_t start = 0; start < n; ++start) {
        if (state[start])
            continue;
        state[start] = 1;
        stack.emplace_back(start, 0);
        while (!stack.empty()) {
            auto& [i, k] = stack.back();
            if (k < dependencyCount(i)) {
                const int64_t d = dependency(i, k++);
                if (d >= 0 && state[size_t(d)] == 0) {
                    state[size_t(d)] = 1;
                    stack.emplace_back(uint32_t(d), 0);
                }
                continue;
            }
            const HloInstruction& inst = g.instruction(i);
            uint64_t h = mix(hashText(inst.opcode), shapeHash(m, inst.shape));
            h = hashInts(h, m.span(inst.dimensions));
            if (g.isParameter(i))
                h = mix(h, uint64_t(inst.parameterNumber));
            uint32_t tallest = 0;
            const size_t count = dependencyCount(i);
            h = mix(h, count);
            for (size_t d = 0; d < count; ++d) {
                const int64_t dep = dependency(i, d);
                // A dependency still on the stack closes a cycle: it counts as a plain leaf.
                const bool done = dep >= 0 && state[size_t(dep)] == 2;
                h = mix(h, done ? hash[size_t(dep)] : 0x6379636cull);
                if (done)
                    tallest = std::max(tallest, height[size_t(dep)]);
            }
            hash[i] = h;
            height[i] = tallest + 1;
            state[i] = 2;
            stack.pop_back();
        }
    }
    if (heights)
        *heights = std::move(height);
    return hash;
}

HloMatching matchInstructions(const HloDiffGraph& a, const HloDiffGraph& b, const HloDiffOptions& options)
{
    HloMatching r;
    r.matchOfA.assign(a.size(), -1);
    r.matchOfB.assign(b.size(), -1);
    r.stageOfA.assign(a.size(), HloMatchStage::None);
    Matcher matcher(a, b, r);
    ProgressScope progress(options.progress, "matching instructions", 5);
    const auto& on = options.stages;
    if (on[size_t(HloMatchStage::Name)])
        matcher.byName();
    progress.advanceBy(1);
    if (on[size_t(HloMatchStage::Metadata)])
        matcher.byMetadata();
    progress.advanceBy(1);
    if (on[size_t(HloMatchStage::Subgraph)])
        matcher.bySubgraph(progress);
    else
        progress.advanceBy(2);
    const bool topDown = on[size_t(HloMatchStage::TopDown)];
    const bool bottomUp = on[size_t(HloMatchStage::BottomUp)];
    if (topDown || bottomUp)
        matcher.propagate(topDown, bottomUp, progress);
    progress.advanceBy(1);
    return r;
}

} // namespace tgraph
