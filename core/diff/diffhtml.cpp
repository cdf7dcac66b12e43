// SPDX-License-Identifier: Apache-2.0
#include "core/diff/diffgraph.h"
#include "core/diff/diffreport.h"

#include "core/util/terminaltext.h"
#include "core/util/version.h"

#include <algorithm>
#include <cstdio>
#include <string>

namespace tgraph {

namespace {

// Text from a file, safe inside HTML: control characters and bytes that are not UTF-8 escaped as
// on a terminal, then the HTML specials.
std::string html(std::string_view raw)
{
    const std::string s = terminalText(raw);
    std::string out;
    out.reserve(s.size());
    for (const char c : s) {
        switch (c) {
        case '&':
            out += "&amp;";
            break;
        case '<':
            out += "&lt;";
            break;
        case '>':
            out += "&gt;";
            break;
        case '"':
            out += "&quot;";
            break;
        case '\'':
            out += "&#39;";
            break;
        default:
            out += c;
        }
    }
    return out;
}

std::string num(size_t n) { return std::to_string(n); }

// A number with one decimal, locale-free (SVG coordinates).
std::string coord(double v)
{
    const long tenths = long(v * 10 + (v >= 0 ? 0.5 : -0.5));
    std::string out = tenths < 0 ? "-" : "";
    const long a = tenths < 0 ? -tenths : tenths;
    return out + std::to_string(a / 10) + "." + std::to_string(a % 10);
}

constexpr const char* kUnchanged = "#c5cad3";
constexpr const char* kChanged = "#eda23a";
constexpr const char* kRemoved = "#d9534f";
constexpr const char* kAdded = "#4a9d4f";

const char* kStyle
    = R"(body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px auto;max-width:1200px;padding:0 16px;color:#1d2330;background:#fff}
h1{font-size:22px;margin:0 0 6px}h2{font-size:17px;margin:28px 0 6px}
.meta{color:#4a5365;margin:2px 0}.verdict{font-weight:600;margin:10px 0}
table{border-collapse:collapse;width:100%;margin:6px 0 4px}
th,td{border-bottom:1px solid #e2e5ea;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f4f5f7;font-weight:600;position:sticky;top:0}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
code{font:12.5px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;word-break:break-all}
.kind{display:inline-block;padding:0 7px;border-radius:9px;margin:0 3px 2px 0;font-size:12px;background:#eef0f3}
.kind.layout{background:#e6dcff}.kind.shape{background:#ffe0cc}.kind.opcode{background:#ffd6d6}
.kind.operands{background:#dcebff}.kind.attributes{background:#fff1c2}.kind.fused-into,.kind.fused-out-of{background:#d8f3e3}
.more{color:#6b7385;font-style:italic}.none{color:#6b7385}
footer{margin-top:32px;color:#6b7385;font-size:12px})";

// Two stacked bars (A: unchanged, changed, removed; B: unchanged, changed, added) and one bar per
// change kind, all drawn to scale.
std::string summarySvg(const HloDiff& d)
{
    const double width = 760, left = 40, barWidth = 560, rowHeight = 26;
    const size_t kinds = kHloChangeKindCount;
    const double height = 40 + 2 * rowHeight + 30 + kinds * 20 + 10;
    const double scale = barWidth / double(std::max<size_t>({ d.instructionsA, d.instructionsB, 1 }));
    std::string s = "<svg role=\"img\" width=\"" + coord(width) + "\" height=\"" + coord(height) + "\" viewBox=\"0 0 "
        + coord(width) + " " + coord(height)
        + "\" font-family=\"system-ui,sans-serif\" font-size=\"12\">\n<title>Instructions of A and B: unchanged, "
          "changed, removed, added; changes by kind</title>\n";
    auto bar = [&](double y, const char* label, std::initializer_list<std::pair<size_t, const char*>> parts,
                   const std::string& caption) {
        s += "<text x=\"0\" y=\"" + coord(y + 15) + "\" font-weight=\"600\">" + label + "</text>\n";
        double x = left;
        for (const auto& [count, colour] : parts) {
            const double w = double(count) * scale;
            if (count)
                s += "<rect x=\"" + coord(x) + "\" y=\"" + coord(y) + "\" width=\"" + coord(std::max(w, 1.0))
                    + "\" height=\"20\" fill=\"" + colour + "\"/>\n";
            x += w;
        }
        s += "<text x=\"" + coord(left + barWidth + 8) + "\" y=\"" + coord(y + 15) + "\">" + caption + "</text>\n";
    };
    const size_t changed = d.changed.size(), unchanged = d.unchanged();
    s += "<text x=\"0\" y=\"14\" font-weight=\"600\">Instructions</text>\n";
    double legendX = 120;
    for (const auto& [name, colour] : { std::pair { "unchanged", kUnchanged }, std::pair { "changed", kChanged },
             std::pair { "removed", kRemoved }, std::pair { "added", kAdded } }) {
        s += "<rect x=\"" + coord(legendX) + "\" y=\"4\" width=\"12\" height=\"12\" fill=\"" + colour + "\"/>";
        s += "<text x=\"" + coord(legendX + 16) + "\" y=\"14\">" + name + "</text>\n";
        legendX += 100;
    }
    bar(30, "A", { { unchanged, kUnchanged }, { changed, kChanged }, { d.removed.size(), kRemoved } },
        num(d.instructionsA) + " (" + num(d.removed.size()) + " removed)");
    bar(30 + rowHeight, "B", { { unchanged, kUnchanged }, { changed, kChanged }, { d.added.size(), kAdded } },
        num(d.instructionsB) + " (" + num(d.added.size()) + " added)");
    double y = 30 + 2 * rowHeight + 24;
    s += "<text x=\"0\" y=\"" + coord(y) + "\" font-weight=\"600\">Changes by kind</text>\n";
    y += 8;
    size_t most = 1;
    for (size_t k = 0; k < kinds; ++k)
        most = std::max(most, d.byKind[k].size());
    for (size_t k = 0; k < kinds; ++k) {
        const size_t count = d.byKind[k].size();
        s += "<text x=\"" + coord(left + 80) + "\" y=\"" + coord(y + 13) + "\" text-anchor=\"end\">"
            + hloChangeKindName(HloChangeKind(k)) + "</text>\n";
        if (count)
            s += "<rect x=\"" + coord(left + 88) + "\" y=\"" + coord(y + 3) + "\" width=\""
                + coord(std::max(1.0, double(count) / double(most) * (barWidth - 88))) + "\" height=\"13\" fill=\""
                + kChanged + "\"/>\n";
        s += "<text x=\"" + coord(left + barWidth + 8) + "\" y=\"" + coord(y + 13) + "\">" + num(count) + "</text>\n";
        y += 20;
    }
    return s + "</svg>\n";
}

std::string kindBadges(uint16_t kinds)
{
    std::string out;
    for (size_t k = 0; k < kHloChangeKindCount; ++k)
        if (kinds & hloChangeBit(HloChangeKind(k)))
            out += std::string("<span class=\"kind ") + hloChangeKindName(HloChangeKind(k)) + "\">"
                + hloChangeKindName(HloChangeKind(k)) + "</span>";
    return out;
}

std::string more(size_t shown, size_t total, int columns)
{
    if (shown >= total)
        return {};
    return "<tr><td class=\"more\" colspan=\"" + std::to_string(columns) + "\">... and " + num(total - shown)
        + " more (tgraph diff --limit 0 lists all)</td></tr>\n";
}

} // namespace

std::string formatHloDiffHtml(const HloDiffReport& r)
{
    const HloDiff& d = r.diff;
    const HloDiffGraph A(r.a), B(r.b);
    const size_t limit = r.limit ? r.limit : SIZE_MAX;
    std::string s = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>HLO diff: "
        + html(r.a.name) + " vs " + html(r.b.name) + "</title>\n<style>\n" + kStyle + "\n</style>\n</head>\n<body>\n";
    s += "<h1>HLO diff</h1>\n";
    auto meta = [&](const char* letter, const std::string& label, const HloModule& m) {
        s += std::string("<p class=\"meta\"><b>") + letter + "</b>: <code>" + html(label) + "</code>: module <code>"
            + html(m.name) + "</code> (" + hloSourceFormatName(m.format) + "), " + num(m.instructions.size())
            + " instructions in " + num(m.computations.size()) + " computations</p>\n";
    };
    meta("A", r.labelA, r.a);
    meta("B", r.labelB, r.b);
    s += "<p class=\"verdict\">" + std::string(d.same() ? "The same" : "Different") + ": matched " + num(d.matched())
        + " (unchanged " + num(d.unchanged()) + ", changed " + num(d.changed.size()) + "), removed "
        + num(d.removed.size()) + ", added " + num(d.added.size()) + ".</p>\n<p class=\"meta\">Matched by";
    for (size_t k = 1; k < kHloMatchStageCount; ++k)
        s += std::string(k > 1 ? "," : "") + " " + hloMatchStageName(HloMatchStage(k)) + " " + num(d.matchedByStage[k]);
    s += " (docs/diff.md of TGraph Studio explains the stages).</p>\n";
    s += summarySvg(d);

    // Computations with a difference.
    std::vector<const HloComputationDiff*> rows;
    for (const HloComputationDiff& c : d.computations)
        if (c.a < 0 || c.b < 0 || c.changed || c.removed || c.added || c.movedIn || c.movedOut)
            rows.push_back(&c);
    s += "<h2>Computations with a difference (" + num(rows.size()) + " of " + num(d.computations.size()) + ")</h2>\n";
    if (rows.empty()) {
        s += "<p class=\"none\">None.</p>\n";
    } else {
        s += "<table>\n<tr><th>A</th><th>B</th><th class=\"n\">A instr.</th><th class=\"n\">B instr.</th>"
             "<th class=\"n\">unchanged</th><th class=\"n\">changed</th><th class=\"n\">removed</th>"
             "<th class=\"n\">added</th><th class=\"n\">moved out</th><th class=\"n\">moved in</th></tr>\n";
        for (size_t k = 0; k < rows.size() && k < limit; ++k) {
            const HloComputationDiff& c = *rows[k];
            auto name = [&](const HloModule& m, int32_t i) {
                return i < 0 ? std::string("<span class=\"none\">none</span>")
                             : "<code>" + html(m.computations[size_t(i)].name) + "</code>"
                        + (c.fusion ? std::string(" <span class=\"kind\">fusion</span>") : std::string())
                        + (c.reachable ? std::string() : std::string(" <span class=\"kind\">not called</span>"));
            };
            s += "<tr><td>" + name(r.a, c.a) + "</td><td>" + name(r.b, c.b) + "</td>";
            for (const uint32_t v :
                { c.instructionsA, c.instructionsB, c.unchanged, c.changed, c.removed, c.added, c.movedOut, c.movedIn })
                s += "<td class=\"n\">" + num(v) + "</td>";
            s += "</tr>\n";
        }
        s += more(std::min(rows.size(), limit), rows.size(), 10) + "</table>\n";
    }

    s += "<h2>Changed (" + num(d.changed.size()) + ")</h2>\n";
    if (d.changed.empty()) {
        s += "<p class=\"none\">None.</p>\n";
    } else {
        s += "<table>\n<tr><th>A</th><th>B</th><th>kinds</th><th>A: opcode, shape, computation</th>"
             "<th>B: opcode, shape, computation</th><th>matched by</th></tr>\n";
        for (size_t k = 0; k < d.changed.size() && k < limit; ++k) {
            const HloDiffPair& p = d.pairs[d.changed[k]];
            const HloInstruction& x = r.a.instructions[p.a];
            const HloInstruction& y = r.b.instructions[p.b];
            s += "<tr><td><code>" + html(x.name) + "</code></td><td><code>" + html(y.name) + "</code></td><td>"
                + kindBadges(p.kinds) + "</td><td><code>" + html(x.opcode) + " " + html(r.a.shapeToText(x.shape))
                + "</code> in <code>" + html(r.a.computations[A.computationOf(p.a)].name) + "</code></td><td><code>"
                + html(y.opcode) + " " + html(r.b.shapeToText(y.shape)) + "</code> in <code>"
                + html(r.b.computations[B.computationOf(p.b)].name) + "</code></td><td>" + hloMatchStageName(p.stage)
                + "</td></tr>\n";
        }
        s += more(std::min(d.changed.size(), limit), d.changed.size(), 6) + "</table>\n";
    }
    auto list = [&](const char* title, const std::vector<uint32_t>& items, const HloDiffGraph& g) {
        s += std::string("<h2>") + title + " (" + num(items.size()) + ")</h2>\n";
        if (items.empty()) {
            s += "<p class=\"none\">None.</p>\n";
            return;
        }
        s += "<table>\n<tr><th>instruction</th><th>opcode</th><th>shape</th><th>computation</th></tr>\n";
        for (size_t k = 0; k < items.size() && k < limit; ++k) {
            const HloInstruction& inst = g.instruction(items[k]);
            s += "<tr><td><code>" + html(inst.name) + "</code></td><td><code>" + html(inst.opcode)
                + "</code></td><td><code>" + html(g.module().shapeToText(inst.shape)) + "</code></td><td><code>"
                + html(g.module().computations[g.computationOf(items[k])].name) + "</code></td></tr>\n";
        }
        s += more(std::min(items.size(), limit), items.size(), 4) + "</table>\n";
    };
    list("Removed: in A only", d.removed, A);
    list("Added: in B only", d.added, B);
    s += "<footer>Written by tgraph diff " + html(projectVersion())
        + " (TGraph Studio). Self-contained: no script, nothing loaded from elsewhere.</footer>\n</body>\n</html>\n";
    return s;
}

} // namespace tgraph
