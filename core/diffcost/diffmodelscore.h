// SPDX-License-Identifier: Apache-2.0
#pragma once

// Both sides of a diff scored by the learned layout model (docs/diff.md §11): each module at its
// own layouts (core/sim/ownlayouts.h), scored by a TGraph model or an ensemble, and the
// difference, written as a section of the diff's text, a "model" member of its JSON and a section
// of its HTML page. Every figure is labelled as the model's estimate; none is a time.

#include "core/util/json.h"

#include <string>
#include <vector>

namespace tgraph {

struct HloDiffModelScore
{
    std::vector<std::string> weights; // the members' files, as given
    std::string model; // what the members are, e.g. "TGraph (hidden 256, cross-attn on)"
    bool repad = false; // node features -1-padded (docs/model.md §2.1)
    double a = 0; // A's own layouts (higher = slower by the model)
    double b = 0;
    double delta() const { return b - a; }
};

// The sentence that labels the model's figures.
extern const char* const kHloDiffModelCaveat;

std::string formatHloDiffModelText(const HloDiffModelScore& score);
// {estimate, weights[], model, repad, a, b, delta}
Json hloDiffModelJson(const HloDiffModelScore& score);
// A <section> for the diff's HTML page (insertHtmlSection, diffcostreport.h).
std::string formatHloDiffModelHtml(const HloDiffModelScore& score);
// "0.4213", "+0.0871": scores as the outputs write them (locale-free).
std::string formatModelScore(double score, bool sign = false);

} // namespace tgraph
