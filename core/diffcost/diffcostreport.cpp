// SPDX-License-Identifier: Apache-2.0
#include "core/diffcost/diffcostreport.h"

#include "core/util/format.h"
#include "core/util/terminaltext.h"

#include <algorithm>
#include <cmath>

namespace tgraph {

const char* const kHloDiffCostCaveat
    = "estimated by the analytical simulator at each module's own layouts (docs/simulator.md): a model, not a "
      "measurement";

const char* hloPricedEntryKindName(HloPricedEntry::Kind kind)
{
    switch (kind) {
    case HloPricedEntry::Kind::Matched:
        return "matched";
    case HloPricedEntry::Kind::Added:
        return "added";
    case HloPricedEntry::Kind::Removed:
        return "removed";
    }
    return "?";
}

std::vector<HloPricedEntry> hloPricedEntries(const HloDiff& diff, const HloDiffCost& cost)
{
    std::vector<HloPricedEntry> out;
    for (size_t p = 0; p < diff.pairs.size(); ++p)
        if (const double delta = cost.pairDelta(diff, p); delta != 0)
            out.push_back({ HloPricedEntry::Kind::Matched, uint32_t(p), delta });
    for (const uint32_t a : diff.removed)
        out.push_back({ HloPricedEntry::Kind::Removed, a, -cost.costA[a] });
    for (const uint32_t b : diff.added)
        out.push_back({ HloPricedEntry::Kind::Added, b, cost.costB[b] });
    std::stable_sort(out.begin(), out.end(),
        [](const HloPricedEntry& x, const HloPricedEntry& y) { return std::fabs(x.delta) > std::fabs(y.delta); });
    return out;
}

std::vector<size_t> hloPricedComputations(const HloDiff& diff, const HloDiffCost& cost)
{
    std::vector<size_t> rows;
    for (size_t r = 0; r < diff.computations.size(); ++r)
        if (cost.computationDelta(r) != 0)
            rows.push_back(r);
    std::stable_sort(rows.begin(), rows.end(),
        [&](size_t x, size_t y) { return std::fabs(cost.computationDelta(x)) > std::fabs(cost.computationDelta(y)); });
    return rows;
}

std::string formatCostDelta(double ns)
{
    const int64_t rounded = std::llround(ns);
    return (rounded > 0 ? "+" : "") + formatDuration(rounded);
}

namespace {

std::string duration(double ns) { return formatDuration(std::llround(ns)); }

std::string percent(double delta, double base)
{
    if (base <= 0)
        return {};
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, " (%+.1f%%)", 100.0 * delta / base);
    return buffer;
}

std::string computationName(const HloModule& m, int32_t c)
{
    return c < 0 ? std::string() : std::string(m.computations[size_t(c)].name);
}

struct EntryNames
{
    std::string a; // empty = none
    std::string b;
};

EntryNames entryNames(const HloDiffReport& r, const HloPricedEntry& e)
{
    switch (e.kind) {
    case HloPricedEntry::Kind::Matched: {
        const HloDiffPair& p = r.diff.pairs[e.index];
        return { std::string(r.a.instructions[p.a].name), std::string(r.b.instructions[p.b].name) };
    }
    case HloPricedEntry::Kind::Removed:
        return { std::string(r.a.instructions[e.index].name), {} };
    case HloPricedEntry::Kind::Added:
        return { {}, std::string(r.b.instructions[e.index].name) };
    }
    return {};
}

Json nameOrNull(const std::string& name) { return name.empty() ? Json(nullptr) : Json(name); }

} // namespace

std::string htmlText(std::string_view raw)
{
    std::string out;
    for (const char c : terminalText(raw)) {
        if (c == '&')
            out += "&amp;";
        else if (c == '<')
            out += "&lt;";
        else if (c == '>')
            out += "&gt;";
        else if (c == '"')
            out += "&quot;";
        else
            out += c;
    }
    return out;
}

std::string formatHloDiffCostText(const HloDiffReport& r, const HloDiffCost& cost)
{
    const size_t limit = r.limit == 0 ? SIZE_MAX : r.limit;
    std::string s = "\nPriced (" + std::string(kHloDiffCostCaveat) + "):\n";
    s += "  A " + duration(cost.totalA) + ", B " + duration(cost.totalB) + ", delta " + formatCostDelta(cost.delta())
        + percent(cost.delta(), cost.totalA) + "\n";
    const std::vector<size_t> rows = hloPricedComputations(r.diff, cost);
    s += "Computations with a cost delta (" + std::to_string(rows.size()) + "):\n";
    for (size_t k = 0; k < rows.size() && k < limit; ++k) {
        const HloComputationDiff& c = r.diff.computations[rows[k]];
        const std::string a = c.a < 0 ? "-" : terminalText(computationName(r.a, c.a));
        const std::string b = c.b < 0 ? "-" : terminalText(computationName(r.b, c.b));
        s += "  " + formatCostDelta(cost.computationDelta(rows[k])) + "  " + a + " -> " + b + "  (A "
            + duration(cost.computationA[rows[k]]) + ", B " + duration(cost.computationB[rows[k]]) + ")\n";
    }
    if (rows.size() > limit)
        s += "  ... and " + std::to_string(rows.size() - limit) + " more (--limit 0 lists all)\n";
    const std::vector<HloPricedEntry> entries = hloPricedEntries(r.diff, cost);
    s += "Instructions with a cost delta (" + std::to_string(entries.size())
        + "; matched: B - A, added: +B, removed: -A):\n";
    for (size_t k = 0; k < entries.size() && k < limit; ++k) {
        const EntryNames n = entryNames(r, entries[k]);
        s += "  " + formatCostDelta(entries[k].delta) + "  " + hloPricedEntryKindName(entries[k].kind) + "  "
            + (n.a.empty() ? "-" : terminalText(n.a)) + " -> " + (n.b.empty() ? "-" : terminalText(n.b)) + "\n";
    }
    if (entries.size() > limit)
        s += "  ... and " + std::to_string(entries.size() - limit) + " more (--limit 0 lists all)\n";
    return s;
}

Json hloDiffCostJson(const HloDiffReport& r, const HloDiffCost& cost)
{
    Json j = Json::object();
    j["estimate"] = kHloDiffCostCaveat;
    j["unit"] = "ns";
    j["a"] = cost.totalA;
    j["b"] = cost.totalB;
    j["delta"] = cost.delta();
    Json rows = Json::array();
    for (size_t row = 0; row < r.diff.computations.size(); ++row) {
        const HloComputationDiff& c = r.diff.computations[row];
        Json o = Json::object();
        o["a"] = nameOrNull(computationName(r.a, c.a));
        o["b"] = nameOrNull(computationName(r.b, c.b));
        o["cost_a"] = cost.computationA[row];
        o["cost_b"] = cost.computationB[row];
        o["delta"] = cost.computationDelta(row);
        rows.push_back(std::move(o));
    }
    j["computations"] = std::move(rows);
    Json items = Json::array();
    for (const HloPricedEntry& e : hloPricedEntries(r.diff, cost)) {
        const EntryNames n = entryNames(r, e);
        Json o = Json::object();
        o["kind"] = hloPricedEntryKindName(e.kind);
        o["a"] = nameOrNull(n.a);
        o["b"] = nameOrNull(n.b);
        if (e.kind == HloPricedEntry::Kind::Matched) {
            const HloDiffPair& p = r.diff.pairs[e.index];
            o["cost_a"] = cost.costA[p.a];
            o["cost_b"] = cost.costB[p.b];
            o["kinds"] = Json::array();
            for (size_t k = 0; k < kHloChangeKindCount; ++k)
                if (p.has(HloChangeKind(k)))
                    o["kinds"].push_back(hloChangeKindName(HloChangeKind(k)));
        } else {
            o["cost_a"] = e.kind == HloPricedEntry::Kind::Removed ? cost.costA[e.index] : 0.0;
            o["cost_b"] = e.kind == HloPricedEntry::Kind::Added ? cost.costB[e.index] : 0.0;
        }
        o["delta"] = e.delta;
        items.push_back(std::move(o));
    }
    j["instructions"] = std::move(items);
    return j;
}

std::string formatHloDiffCostHtml(const HloDiffReport& r, const HloDiffCost& cost)
{
    const size_t limit = r.limit == 0 ? SIZE_MAX : r.limit;
    std::string s = "<section class=\"price\">\n<h2>Priced: the simulator's estimate</h2>\n<p class=\"none\">"
        + htmlText(kHloDiffCostCaveat) + ". Matched pairs: B - A; added: +B; removed: -A.</p>\n";
    s += "<p>A <b>" + htmlText(duration(cost.totalA)) + "</b>, B <b>" + htmlText(duration(cost.totalB))
        + "</b>, delta <b>" + htmlText(formatCostDelta(cost.delta()) + percent(cost.delta(), cost.totalA))
        + "</b></p>\n";
    const std::vector<size_t> rows = hloPricedComputations(r.diff, cost);
    s += "<h3>Computations with a cost delta (" + std::to_string(rows.size()) + ")</h3>\n";
    if (!rows.empty()) {
        s += "<table>\n<tr><th>A</th><th>B</th><th class=\"n\">A cost</th><th class=\"n\">B cost</th>"
             "<th class=\"n\">delta</th></tr>\n";
        for (size_t k = 0; k < rows.size() && k < limit; ++k) {
            const HloComputationDiff& c = r.diff.computations[rows[k]];
            s += "<tr><td><code>" + htmlText(computationName(r.a, c.a)) + "</code></td><td><code>"
                + htmlText(computationName(r.b, c.b)) + "</code></td><td class=\"n\">"
                + htmlText(duration(cost.computationA[rows[k]])) + "</td><td class=\"n\">"
                + htmlText(duration(cost.computationB[rows[k]])) + "</td><td class=\"n\">"
                + htmlText(formatCostDelta(cost.computationDelta(rows[k]))) + "</td></tr>\n";
        }
        if (rows.size() > limit)
            s += "<tr><td colspan=\"5\" class=\"none\">… and " + std::to_string(rows.size() - limit)
                + " more</td></tr>\n";
        s += "</table>\n";
    }
    const std::vector<HloPricedEntry> entries = hloPricedEntries(r.diff, cost);
    s += "<h3>Instructions with a cost delta (" + std::to_string(entries.size()) + ")</h3>\n";
    if (!entries.empty()) {
        s += "<table>\n<tr><th></th><th>A</th><th>B</th><th class=\"n\">delta</th></tr>\n";
        for (size_t k = 0; k < entries.size() && k < limit; ++k) {
            const EntryNames n = entryNames(r, entries[k]);
            s += std::string("<tr><td>") + hloPricedEntryKindName(entries[k].kind) + "</td><td><code>" + htmlText(n.a)
                + "</code></td><td><code>" + htmlText(n.b) + "</code></td><td class=\"n\">"
                + htmlText(formatCostDelta(entries[k].delta)) + "</td></tr>\n";
        }
        if (entries.size() > limit)
            s += "<tr><td colspan=\"4\" class=\"none\">… and " + std::to_string(entries.size() - limit)
                + " more</td></tr>\n";
        s += "</table>\n";
    }
    return s + "</section>\n";
}

std::string insertHtmlSection(const std::string& page, const std::string& section)
{
    size_t at = page.rfind("<footer");
    if (at == std::string::npos)
        at = page.rfind("</body>");
    if (at == std::string::npos)
        return page + section;
    return page.substr(0, at) + section + page.substr(at);
}

} // namespace tgraph
