// SPDX-License-Identifier: Apache-2.0
#include "widgets/common/distinctnames.h"

#include <QFontMetrics>

#include <algorithm>
#include <functional>

namespace tgraph::widgets {

namespace DistinctNames {

namespace {

const QString kEllipsis = QStringLiteral("…");

// How wide a text is (characters or pixels) and how to cut one at its end to a width.
struct Measure
{
    std::function<int(const QString&)> width;
    std::function<QString(const QString&, int)> elideRight;
    std::function<QString(const QString&, int)> elideMiddle;
};

// 0: letter or digit run (a word), 1: anything else, one character per token.
bool isWordChar(QChar c) { return c.isLetterOrNumber(); }

// True when a token boundary is at `pos` of `s`: between two characters that are not both word
// characters, or at either end.
bool isBoundary(const QString& s, qsizetype pos)
{
    if (pos <= 0 || pos >= s.size())
        return true;
    return !(isWordChar(s[pos - 1]) && isWordChar(s[pos]));
}

// The tokens of `s`: words and single other characters.
QStringList tokens(const QString& s)
{
    QStringList out;
    qsizetype start = 0;
    for (qsizetype i = 1; i <= s.size(); ++i)
        if (isBoundary(s, i)) {
            out << s.mid(start, i - start);
            start = i;
        }
    return out;
}

// `text` in at most `budget`: whole, or its first and last tokens around "…" (the last ones first:
// they are next to what tells the names apart); "" when not even "…" fits.
QString elideShared(const QString& text, int budget, const Measure& m)
{
    if (m.width(text) <= budget)
        return text;
    if (m.width(kEllipsis) > budget)
        return QString();
    const QStringList parts = tokens(text);
    qsizetype head = 0, tail = 0; // tokens kept at each end
    QString headText, tailText;
    bool headOpen = true, tailOpen = true;
    while ((headOpen || tailOpen) && head + tail < parts.size()) {
        if (tailOpen) {
            const QString next = parts[parts.size() - 1 - tail] + tailText;
            if (m.width(headText + kEllipsis + next) <= budget) {
                tailText = next;
                ++tail;
            } else {
                tailOpen = false;
            }
        }
        if (headOpen && head + tail < parts.size()) {
            const QString next = headText + parts[head];
            if (m.width(next + kEllipsis + tailText) <= budget) {
                headText = next;
                ++head;
            } else {
                headOpen = false;
            }
        }
    }
    return headText + kEllipsis + tailText;
}

// The first tokens of `text` that fit in `budget` together with a "…" after them.
QString headOf(const QString& text, int budget, const Measure& m)
{
    if (m.width(kEllipsis) > budget)
        return QString();
    QString kept;
    for (const QString& part : tokens(text)) {
        if (m.width(kept + part + kEllipsis) > budget)
            break;
        kept += part;
    }
    return kept + kEllipsis;
}

QStringList shortenWith(const QStringList& names, int maxWidth, const Measure& m)
{
    if (names.isEmpty())
        return names;
    if (std::all_of(names.begin(), names.end(), [&](const QString& n) { return m.width(n) <= maxWidth; }))
        return names;
    const bool allEqual = std::all_of(names.begin(), names.end(), [&](const QString& n) { return n == names.front(); });
    if (allEqual) {
        QStringList out;
        for (const QString& n : names)
            out << m.elideMiddle(n, maxWidth);
        return out;
    }

    // The longest shared head and tail that end on token boundaries in every name.
    qsizetype shortest = names.front().size();
    for (const QString& n : names)
        shortest = std::min(shortest, n.size());
    qsizetype prefix = 0;
    while (prefix < shortest && std::all_of(names.begin(), names.end(), [&](const QString& n) {
        return n[prefix] == names.front()[prefix];
    }))
        ++prefix;
    while (
        prefix > 0 && !std::all_of(names.begin(), names.end(), [&](const QString& n) { return isBoundary(n, prefix); }))
        --prefix;
    qsizetype suffix = 0;
    const QString& first = names.front();
    while (prefix + suffix < shortest && std::all_of(names.begin(), names.end(), [&](const QString& n) {
        return n[n.size() - 1 - suffix] == first[first.size() - 1 - suffix];
    }))
        ++suffix;
    while (suffix > 0
        && !std::all_of(names.begin(), names.end(), [&](const QString& n) { return isBoundary(n, n.size() - suffix); }))
        --suffix;
    const QString head = first.left(prefix);
    const QString tail = first.right(suffix);

    QStringList own;
    int widestOwn = 0;
    for (const QString& n : names) {
        own << n.mid(prefix, n.size() - prefix - suffix);
        widestOwn = std::max(widestOwn, m.width(own.back()));
    }

    QString shownHead, shownTail;
    const int budget = maxWidth - widestOwn;
    if (budget >= 0 && m.width(head) + m.width(tail) <= budget) {
        shownHead = head;
        shownTail = tail;
    } else if (budget >= 0) {
        // The head first (it names what the list is of); the tail gets what is left, or "…".
        const int forTail = tail.isEmpty() ? 0 : m.width(kEllipsis);
        shownHead = elideShared(head, budget - forTail, m);
        const int rest = budget - m.width(shownHead);
        shownTail = tail.isEmpty() ? QString() : m.width(tail) <= rest ? tail : headOf(tail, rest, m);
    } else {
        // Even the own parts are too wide: mark the shared parts, cut the own parts at their end
        // (the token that differs comes first).
        // A mark is dropped when it would leave less than a character and "…" of the own part.
        shownHead = head.isEmpty() ? QString() : kEllipsis;
        shownTail = tail.isEmpty() ? QString() : kEllipsis;
        const int leastOwn = 2 * m.width(kEllipsis);
        if (maxWidth - m.width(shownHead) - m.width(shownTail) < leastOwn)
            shownTail.clear();
        if (maxWidth - m.width(shownHead) - m.width(shownTail) < leastOwn)
            shownHead.clear();
    }
    const int ownBudget = maxWidth - m.width(shownHead) - m.width(shownTail);
    QStringList out;
    for (const QString& part : own) {
        if (m.width(part) <= ownBudget)
            out << shownHead + part + shownTail;
        else // cut at its end, where its own "…" stands for the shared tail too
            out << shownHead + m.elideRight(part, maxWidth - m.width(shownHead));
    }
    return out;
}

} // namespace

QStringList shorten(const QStringList& names, int maxCharacters)
{
    const int limit = std::max(1, maxCharacters);
    Measure m;
    m.width = [](const QString& s) { return int(s.size()); };
    m.elideRight = [](const QString& s, int w) {
        if (s.size() <= w)
            return s;
        return w <= 1 ? kEllipsis : s.left(w - 1) + kEllipsis;
    };
    m.elideMiddle = [](const QString& s, int w) {
        if (s.size() <= w)
            return s;
        if (w <= 1)
            return kEllipsis;
        const int left = (w - 1 + 1) / 2;
        const int right = w - 1 - left;
        return s.left(left) + kEllipsis + s.right(right);
    };
    return shortenWith(names, limit, m);
}

QStringList shorten(const QStringList& names, const QFontMetrics& metrics, int maxPixels)
{
    const int limit = std::max(metrics.horizontalAdvance(kEllipsis), maxPixels);
    Measure m;
    m.width = [&metrics](const QString& s) { return metrics.horizontalAdvance(s); };
    m.elideRight = [&metrics](const QString& s, int w) {
        return metrics.horizontalAdvance(s) <= w ? s : metrics.elidedText(s, Qt::ElideRight, std::max(0, w));
    };
    m.elideMiddle = [&metrics](const QString& s, int w) {
        return metrics.horizontalAdvance(s) <= w ? s : metrics.elidedText(s, Qt::ElideMiddle, std::max(0, w));
    };
    QStringList out = shortenWith(names, limit, m);
    for (QString& s : out) // elidedText returns "" when not even "…" fits
        if (s.isEmpty())
            s = kEllipsis;
    return out;
}

} // namespace DistinctNames

} // namespace tgraph::widgets
