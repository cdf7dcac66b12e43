// SPDX-License-Identifier: Apache-2.0
#include "core/diffcost/diffmodelscore.h"

#include "core/diffcost/diffcostreport.h"

#include "core/util/terminaltext.h"

#include <cmath>
#include <cstdio>

namespace tgraph {

const char* const kHloDiffModelCaveat
    = "the learned layout model's estimate: each module scored at its own layouts, higher = slower by the model; "
      "a ranking score of one module's configurations, not a time, and only indicative between two modules";

namespace {

std::string weightsList(const HloDiffModelScore& s)
{
    std::string out;
    for (const std::string& w : s.weights)
        out += (out.empty() ? "" : ", ") + terminalText(w);
    return out;
}

} // namespace

std::string formatModelScore(double score, bool sign)
{
    if (!std::isfinite(score))
        return "nan";
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, sign ? "%+.4f" : "%.4f", score);
    return buffer; // "%f" in the C locale the command line keeps
}

std::string formatHloDiffModelText(const HloDiffModelScore& s)
{
    std::string out = "\nModel scores (" + std::string(kHloDiffModelCaveat) + "):\n";
    out += "  model: " + terminalText(s.model) + " (" + weightsList(s) + ")" + (s.repad ? ", -1-padded features" : "")
        + "\n";
    out += "  A " + formatModelScore(s.a) + ", B " + formatModelScore(s.b) + ", delta "
        + formatModelScore(s.delta(), true)
        + (s.delta() > 0        ? " (B slower by the model)"
                : s.delta() < 0 ? " (B faster by the model)"
                                : "")
        + "\n";
    return out;
}

Json hloDiffModelJson(const HloDiffModelScore& s)
{
    Json j;
    j["estimate"] = kHloDiffModelCaveat;
    j["weights"] = s.weights;
    j["model"] = s.model;
    j["repad"] = s.repad;
    j["a"] = s.a;
    j["b"] = s.b;
    j["delta"] = s.delta();
    return j;
}

std::string formatHloDiffModelHtml(const HloDiffModelScore& s)
{
    std::string out = "<section class=\"model\">\n<h2>Scored: the layout model's estimate</h2>\n<p class=\"none\">"
        + htmlText(kHloDiffModelCaveat) + ".</p>\n";
    out += "<p>Model " + htmlText(s.model) + " (<code>" + htmlText(weightsList(s)) + "</code>)"
        + (s.repad ? ", -1-padded features" : "") + ".</p>\n";
    out += "<p>A <b>" + formatModelScore(s.a) + "</b>, B <b>" + formatModelScore(s.b) + "</b>, delta <b>"
        + formatModelScore(s.delta(), true) + "</b></p>\n</section>\n";
    return out;
}

} // namespace tgraph
