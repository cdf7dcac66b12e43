// SPDX-License-Identifier: Apache-2.0
// Every number the studio shows follows one convention per locale (docs/studio.md §8.4). The test
// prepares real inputs once (HLO modules and a TpuGraphs graph from ../shared/data when present, a
// synthetic collection, a 2 x 2 sweep by the real `tgraph sweep` and two runs of the real
// `tgraph train`), then starts itself twice, under LC_ALL=C and LC_ALL=de_DE.UTF-8. Each child
// opens the main window on the inputs, runs inference, explain and tune, opens the project with its
// runs, Compare and the Sweep window, shows every page of every tab and stacked widget of every
// window and writes down every text a person can read: labels, buttons, tabs, combo boxes, window
// and dock titles, tooltips, the cells and headers of item views, the texts of Qt Charts scenes
// (axis labels, legends, titles), heatmap and colour-bar labels, graph node labels and the status
// bar. The parent then fails on:
//   - a decimal number or a grouped number in the other locale's convention ("240.3 ms" or
//     "0.0796" under de_DE, where the decimal mark is ',');
//   - a number with a decimal mark or grouping whose text reads the same under both locales (it
//     does not follow the locale at all);
//   - a grouped number next to an ungrouped one of four digits or more in the same text, table
//     column or chart (identifiers such as "config 1234" are never grouped and do not count);
//   - a table column whose cells read as numbers but sort by their text.
// Not numbers: what follows a letter, digit, '_', '.', '%', '/', ':', '=' or a hyphenated word (node
// names such as "fusion.12", file names, "c0-s42", a sweep's "lr=0.001"), versions and dates (two separators or more
// with groups other than three digits), shapes and layouts in brackets ("f32[2,3]{1,0}"), a
// number cut by an ellipsis, and widgets whose property Formatting::kVerbatimProperty is true (file
// text, a process's output).
// TGRAPH_TEXTS_KEEP=DIR keeps both runs' texts (texts-C.json, texts-de_DE.UTF-8.json) in DIR.

#include "app/studio/analysis/explainpanel.h"
#include "app/studio/analysis/inferencepanel.h"
#include "app/studio/analysis/tunepanel.h"
#include "app/studio/runs/trainingmonitor.h"
#include "app/studio/window/mainwindow.h"
#include "core/store/project.h"
#include "core/store/sweeps.h"
#include "graphtestutil.h"
#include "testutil.h"
#include "widgets/analysis/heatmapview.h"
#include "widgets/common/elidedlabel.h"
#include "widgets/common/errorbanner.h"
#include "widgets/common/formatting.h"
#include "widgets/graph/graphitems.h"
#include "widgets/graph/graphpage.h"
#include "widgets/graph/graphpane.h"
#include "widgets/graph/graphview.h"
#include "widgets/graph/nodeoverlay.h"
#include "widgets/runs/runtablemodel.h"
#include "widgets/runs/sweepview.h"

#include <QAbstractButton>
#include <QAbstractItemView>
#include <QAbstractSpinBox>
#include <QApplication>
#include <QChartView>
#include <QComboBox>
#include <QDirIterator>
#include <QDockWidget>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QGraphicsTextItem>
#include <QGroupBox>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QPlainTextEdit>
#include <QProcess>
#include <QSettings>
#include <QSignalSpy>
#include <QRegularExpression>
#include <QSortFilterProxyModel>
#include <QStackedWidget>
#include <QStandardItemModel>
#include <QStatusBar>
#include <QStyledItemDelegate>
#include <QTabBar>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTextDocument>
#include <QTreeView>
#include <QtTest>

#include <clocale>
#include <map>
#include <set>

using namespace tgraph::widgets;
using namespace tgraph::studio;

namespace {

constexpr int kWaitMs = 60000;
constexpr int kMaxRowsPerView = 60;
constexpr int kShownOffences = 150; // per run

QString tgraphExe() { return testutil::binDir() + QStringLiteral("/tgraph"); }

// ---- what a number looks like -------------------------------------------------------------------

struct Convention
{
    QChar group;
    QChar decimal;
};
const Convention kC { QLatin1Char(','), QLatin1Char('.') };
const Convention kGerman { QLatin1Char('.'), QLatin1Char(',') };

struct NumberToken
{
    enum class Kind {
        Plain, // digits only
        Decimal, // one separator that is a decimal mark ("240.3", "0.0796")
        Grouped, // separators between groups of three ("1,234,567")
        GroupedDecimal, // both ("1,234.5")
        Ambiguous, // one separator before three digits ("215.029"): grouping or three decimals
        Other, // versions, dates
    };
    QString text;
    Kind kind = Kind::Plain;
    QChar group, decimal; // the separators the token uses (null when it has none of that kind)
    int integerDigits = 0;
    bool identifier = false; // after "#", "config", "node", ...: never grouped
    bool dateOrTime = false; // next to ':' or a date's '-' / '/'
};

bool isSeparator(QChar c) { return c == QLatin1Char('.') || c == QLatin1Char(','); }

// Words after which an integer is an identifier, not a quantity.
bool isIdentifierWord(const QString& word)
{
    static const std::set<QString> words { "config", "node", "seed", "pid", "run", "member", "fold", "id", "row",
        "column", "ch", "tile", "layer", "block", "module", "computation", "port", "index", "dim", "configs", "#" };
    return words.count(word.toLower()) > 0;
}

// Blanks out what is in brackets: shapes and layouts ("f32[2,3]{1,0}").
QString withoutBrackets(QString s)
{
    int depth = 0;
    for (QChar& c : s) {
        if (c == QLatin1Char('[') || c == QLatin1Char('{'))
            ++depth;
        else if ((c == QLatin1Char(']') || c == QLatin1Char('}')) && depth > 0) {
            --depth;
            continue;
        }
        if (depth > 0)
            c = QLatin1Char(' ');
    }
    return s;
}

NumberToken classify(const QString& text)
{
    NumberToken t;
    t.text = text;
    QStringList groups;
    QList<QChar> seps;
    QString current;
    for (const QChar c : text) {
        if (isSeparator(c)) {
            groups << current;
            seps << c;
            current.clear();
        } else {
            current += c;
        }
    }
    groups << current;
    t.integerDigits = int(groups.front().size());
    if (seps.isEmpty())
        return t;
    const bool oneKind = std::all_of(seps.begin(), seps.end(), [&](QChar c) { return c == seps.front(); });
    const auto groupedFrom = [&](qsizetype last) { // groups 0..last form a grouped integer
        if (groups[0].isEmpty() || groups[0].size() > 3 || (groups[0] == QLatin1String("0") && last > 0))
            return false;
        for (qsizetype i = 1; i <= last; ++i)
            if (groups[i].size() != 3)
                return false;
        return true;
    };
    if (oneKind) {
        const QChar c = seps.front();
        const bool grouped = groupedFrom(groups.size() - 1);
        if (seps.size() >= 2) {
            t.kind = grouped ? NumberToken::Kind::Grouped : NumberToken::Kind::Other;
            t.group = c;
        } else if (grouped) {
            t.kind = NumberToken::Kind::Ambiguous;
            t.group = c;
            t.decimal = c;
        } else {
            t.kind = NumberToken::Kind::Decimal;
            t.decimal = c;
        }
    } else {
        const QChar d = seps.back();
        const QChar g = seps.front();
        const bool groupsAgree = std::all_of(seps.begin(), seps.end() - 1, [&](QChar c) { return c == g; });
        if (g != d && groupsAgree && groupedFrom(groups.size() - 2)) {
            t.kind = NumberToken::Kind::GroupedDecimal;
            t.group = g;
            t.decimal = d;
        } else {
            t.kind = NumberToken::Kind::Other;
        }
    }
    if (t.kind == NumberToken::Kind::Grouped || t.kind == NumberToken::Kind::Ambiguous)
        t.integerDigits = int(text.size() - seps.size());
    else if (t.kind == NumberToken::Kind::GroupedDecimal)
        t.integerDigits = int(text.lastIndexOf(t.decimal) - (seps.size() - 1));
    return t;
}

// The numbers of a text a person reads (see the top of this file for what is not a number).
QList<NumberToken> numbersIn(const QString& original)
{
    const QString s = withoutBrackets(original);
    QList<NumberToken> out;
    const qsizetype n = s.size();
    const auto wordChar = [](QChar c) { return c.isLetterOrNumber() || c == QLatin1Char('_'); };
    for (qsizetype i = 0; i < n; ++i) {
        if (!s[i].isDigit())
            continue;
        bool number = true;
        if (i > 0) {
            const QChar before = s[i - 1];
            if (wordChar(before) || QStringLiteral(".,%@/\\:#'=").contains(before))
                number = false;
            if ((before == QLatin1Char('-') || before == QChar(0x2212) || before == QLatin1Char('+')) && i > 1
                && wordChar(s[i - 2]))
                number = false;
        }
        qsizetype j = i;
        while (j < n && (s[j].isDigit() || (isSeparator(s[j]) && j + 1 < n && s[j + 1].isDigit())))
            ++j;
        const QString text = s.mid(i, j - i);
        const QChar after = j < n ? s[j] : QChar();
        const QChar afterNext = j + 1 < n ? s[j + 1] : QChar();
        if (after == QChar(0x2026)) // cut by an ellipsis
            number = false;
        if (isSeparator(after) && afterNext.isLetter()) // a file name: "model.1.npz"
            number = false;
        if (number) {
            NumberToken t = classify(text);
            t.dateOrTime = after == QLatin1Char(':')
                || ((after == QLatin1Char('-') || after == QLatin1Char('/')) && afterNext.isDigit());
            // the word before, skipping spaces
            qsizetype k = i - 1;
            while (k >= 0 && s[k].isSpace())
                --k;
            qsizetype end = k + 1;
            while (k >= 0 && s[k].isLetter())
                --k;
            QString word = s.mid(k + 1, end - k - 1);
            if (word.isEmpty() && end > 0 && s[end - 1] == QLatin1Char('#'))
                word = QStringLiteral("#");
            t.identifier = isIdentifierWord(word);
            // The end of a range inherits its start's kind: "configs 1044–1158".
            if (!out.isEmpty() && out.back().identifier && end > 0
                && (s[end - 1] == QChar(0x2013) || s[end - 1] == QLatin1Char('-'))
                && s.mid(0, end - 1).trimmed().endsWith(out.back().text))
                t.identifier = true;
            out << t;
        }
        i = j;
    }
    return out;
}

bool hasSeparator(const NumberToken& t)
{
    return t.kind != NumberToken::Kind::Plain && t.kind != NumberToken::Kind::Other;
}

// What is wrong with `t` under `c`, or "".
QString conventionProblem(const NumberToken& t, const Convention& c)
{
    using K = NumberToken::Kind;
    switch (t.kind) {
    case K::Decimal:
        return t.decimal == c.decimal ? QString() : QStringLiteral("decimal mark '%1'").arg(t.decimal);
    case K::Grouped:
        return t.group == c.group ? QString() : QStringLiteral("grouped with '%1'").arg(t.group);
    case K::GroupedDecimal:
        return t.group == c.group && t.decimal == c.decimal
            ? QString()
            : QStringLiteral("grouped with '%1', decimal mark '%2'").arg(t.group, t.decimal);
    default:
        return QString();
    }
}

// Whether `t` shows grouping (true), is a quantity of four digits or more without it (false), or
// neither (nullopt).
std::optional<bool> groupingOf(const NumberToken& t, const Convention& c)
{
    using K = NumberToken::Kind;
    if (t.identifier || t.dateOrTime)
        return std::nullopt;
    if (t.kind == K::Grouped || t.kind == K::GroupedDecimal || (t.kind == K::Ambiguous && t.group == c.group))
        return true;
    // (An ambiguous "2.296" under C is a decimal with one integer digit: neither.)
    if ((t.kind == K::Plain || t.kind == K::Decimal) && t.integerDigits >= 4)
        return false;
    return std::nullopt;
}

// ---- reading the widgets ------------------------------------------------------------------------

struct SeenText
{
    QString key; // where it is, the same in both runs
    QString scope; // the texts a grouping must agree within
    QString text;
};

class TextWalker
{
public:
    QList<SeenText> texts;
    QStringList problems; // found while reading (sort roles)

    void walk(QWidget* root)
    {
        add(keyOf(root) + QStringLiteral("/title"), keyOf(root), root->windowTitle());
        const QList<QWidget*> widgets = root->findChildren<QWidget*>();
        for (QWidget* w : widgets)
            if (w->window() == root && w->isVisibleTo(root) && !isVerbatim(w))
                read(w);
    }

    static QString keyOf(const QObject* o)
    {
        QStringList parts;
        for (; o; o = o->parent()) {
            int index = 0;
            if (const QObject* p = o->parent())
                for (const QObject* sibling : p->children()) {
                    if (sibling == o)
                        break;
                    index += qstrcmp(sibling->metaObject()->className(), o->metaObject()->className()) == 0;
                }
            parts.prepend(QStringLiteral("%1%2#%3")
                              .arg(QLatin1String(o->metaObject()->className()),
                                  o->objectName().isEmpty() ? QString() : QLatin1Char(':') + o->objectName())
                              .arg(index));
        }
        return parts.join(QLatin1Char('/'));
    }

private:
    std::set<QString> m_keys;

    static bool isVerbatim(const QWidget* w)
    {
        for (; w; w = w->parentWidget())
            if (w->property(Formatting::kVerbatimProperty).toBool())
                return true;
        return false;
    }

    static QString plain(const QString& text)
    {
        if (!Qt::mightBeRichText(text))
            return text;
        QTextDocument doc;
        doc.setHtml(text);
        return doc.toPlainText();
    }

    void add(const QString& key, const QString& scope, const QString& text)
    {
        if (text.trimmed().isEmpty() || !m_keys.insert(key).second)
            return;
        texts.append({ key, scope, plain(text) });
    }

    void read(QWidget* w)
    {
        const QString key = keyOf(w);
        const QString parentScope = w->parentWidget() ? keyOf(w->parentWidget()) : key;
        add(key + QStringLiteral("/tip"), key + QStringLiteral("/tip"), w->toolTip());
        if (auto* label = qobject_cast<ElidedLabel*>(w))
            add(key, parentScope, label->fullText());
        else if (auto* label = qobject_cast<QLabel*>(w))
            add(key, parentScope, label->text());
        if (auto* button = qobject_cast<QAbstractButton*>(w))
            add(key, parentScope, button->text());
        if (auto* box = qobject_cast<QGroupBox*>(w))
            add(key, parentScope, box->title());
        if (auto* dock = qobject_cast<QDockWidget*>(w))
            add(key + QStringLiteral("/title"), key, dock->windowTitle());
        if (auto* bar = qobject_cast<QTabBar*>(w))
            for (int i = 0; i < bar->count(); ++i) {
                add(key + QStringLiteral("/tab%1").arg(i), key, bar->tabText(i));
                add(key + QStringLiteral("/tabtip%1").arg(i), key + QStringLiteral("/tip"), bar->tabToolTip(i));
            }
        if (auto* combo = qobject_cast<QComboBox*>(w))
            for (int i = 0; i < combo->count(); ++i)
                add(key + QStringLiteral("/item%1").arg(i), key, combo->itemText(i));
        if (auto* edit = qobject_cast<QPlainTextEdit*>(w))
            add(key, key, edit->toPlainText().left(4000));
        if (auto* spin = qobject_cast<QAbstractSpinBox*>(w))
            add(key, parentScope, spin->text());
        if (auto* status = qobject_cast<QStatusBar*>(w))
            add(key + QStringLiteral("/message"), key, status->currentMessage());
        if (auto* view = qobject_cast<QAbstractItemView*>(w); view && !qobject_cast<QHeaderView*>(w))
            readItemView(view, key); // a header's sections are read with its view
        if (auto* chart = qobject_cast<QChartView*>(w))
            readScene(chart->scene(), key);
        if (auto* graph = qobject_cast<GraphView*>(w))
            readGraphScene(graph->scene(), key);
        if (auto* heatmap = qobject_cast<HeatmapView*>(w)) {
            const QStringList bar = heatmap->colourBarLabels();
            for (int i = 0; i < bar.size(); ++i)
                add(key + QStringLiteral("/bar%1").arg(i), key + QStringLiteral("/bar"), bar[i]);
            const HeatmapData& data = heatmap->data();
            for (const int64_t r : heatmap->labelledRows())
                if (r < data.rows())
                    add(key + QStringLiteral("/row%1").arg(r), key + QStringLiteral("/rows"), data.rowLabels[int(r)]);
        }
        if (auto* bar = qobject_cast<OverlayColorBar*>(w)) {
            const QStringList labels = bar->labels();
            for (int i = 0; i < labels.size(); ++i)
                add(key + QStringLiteral("/bar%1").arg(i), key, labels[i]);
        }
    }

    void readItemView(QAbstractItemView* view, const QString& key)
    {
        QAbstractItemModel* model = view->model();
        if (!model)
            return;
        auto* delegate = qobject_cast<QStyledItemDelegate*>(view->itemDelegate());
        const auto shown = [&](const QModelIndex& index) {
            const QVariant v = index.data(Qt::DisplayRole);
            if (!v.isValid())
                return QString();
            if (v.typeId() == QMetaType::QString || !delegate)
                return v.toString();
            return delegate->displayText(v, view->locale()); // what the delegate paints
        };
        const auto* table = qobject_cast<QTableView*>(view);
        const auto* tree = qobject_cast<QTreeView*>(view);
        const QHeaderView* horizontal = table ? table->horizontalHeader() : tree ? tree->header() : nullptr;
        const int columns = model->columnCount();
        if (horizontal && !horizontal->isHidden())
            for (int c = 0; c < columns; ++c)
                add(key + QStringLiteral("/header%1").arg(c), key + QStringLiteral("/header"),
                    model->headerData(c, Qt::Horizontal).toString());
        int rows = 0;
        std::function<void(const QModelIndex&)> visit = [&](const QModelIndex& parent) {
            for (int r = 0; r < model->rowCount(parent) && rows < kMaxRowsPerView; ++r, ++rows) {
                for (int c = 0; c < columns; ++c) {
                    const QModelIndex index = model->index(r, c, parent);
                    const QString cell = key + QStringLiteral("/cell%1:%2,%3").arg(rows).arg(r).arg(c);
                    add(cell, key + QStringLiteral("/column%1").arg(c), shown(index));
                    add(cell + QStringLiteral("/tip"), key + QStringLiteral("/tip%1").arg(c),
                        index.data(Qt::ToolTipRole).toString());
                }
                const QModelIndex first = model->index(r, 0, parent);
                if (tree && model->hasChildren(first))
                    visit(first);
            }
        };
        visit(QModelIndex());
        checkSorting(model, view, key, shown);
    }

    // A column whose cells read as numbers must sort by numbers, not by their text.
    void checkSorting(QAbstractItemModel* model, QAbstractItemView* view, const QString& key,
        const std::function<QString(const QModelIndex&)>& shown)
    {
        // The sort role of a proxy, or of a QStandardItemModel sorting itself (the Sweep view).
        auto* proxy = qobject_cast<QSortFilterProxyModel*>(model);
        auto* standard = qobject_cast<QStandardItemModel*>(model);
        if ((!proxy || !proxy->sourceModel()) && !standard)
            return;
        const auto* table = qobject_cast<QTableView*>(view);
        const auto* tree = qobject_cast<QTreeView*>(view);
        if (!(table && table->isSortingEnabled()) && !(tree && tree->isSortingEnabled()))
            return;
        const int role = proxy ? proxy->sortRole() : standard->sortRole();
        const auto sortValueOf = [&](const QModelIndex& index) {
            return proxy ? proxy->sourceModel()->data(proxy->mapToSource(index), role) : index.data(role);
        };
        for (int c = 0; c < model->columnCount(); ++c) {
            int numeric = 0, textual = 0;
            for (int r = 0; r < std::min(model->rowCount(), kMaxRowsPerView); ++r) {
                const QModelIndex index = model->index(r, c);
                const QList<NumberToken> numbers = numbersIn(shown(index));
                if (numbers.isEmpty() || shown(index).trimmed().size() > numbers.front().text.size() + 4)
                    continue; // not a number with at most a short unit
                static const QRegularExpression hexId(QStringLiteral("^[0-9a-f]{8,}$"));
                if (hexId.match(shown(index).trimmed()).hasMatch())
                    continue; // a run id such as "93549fd8": an identifier, sorted as text on purpose
                ++numeric;
                textual += sortValueOf(index).typeId() == QMetaType::QString;
            }
            if (numeric >= 2 && textual > 0)
                problems << QStringLiteral("%1: column %2 (%3) sorts %4 numbers by their text")
                                .arg(key)
                                .arg(c)
                                .arg(model->headerData(c, Qt::Horizontal).toString())
                                .arg(textual);
        }
    }

    void readScene(QGraphicsScene* scene, const QString& key)
    {
        if (!scene)
            return;
        int i = 0;
        for (QGraphicsItem* item : scene->items(Qt::AscendingOrder)) {
            if (!item->isVisible())
                continue;
            QString text;
            if (auto* t = dynamic_cast<QGraphicsTextItem*>(item))
                text = t->toPlainText();
            else if (auto* s = dynamic_cast<QGraphicsSimpleTextItem*>(item))
                text = s->text();
            else
                continue;
            add(key + QStringLiteral("/scene%1").arg(i++), key, text);
        }
    }

    void readGraphScene(QGraphicsScene* scene, const QString& key)
    {
        if (!scene)
            return;
        int i = 0;
        for (QGraphicsItem* item : scene->items(Qt::AscendingOrder)) {
            if (auto* node = dynamic_cast<GraphNodeItem*>(item)) {
                add(key + QStringLiteral("/node%1").arg(i), key + QStringLiteral("/nodes"), node->title());
                add(key + QStringLiteral("/detail%1").arg(i), key + QStringLiteral("/nodes"), node->detail());
            } else if (auto* cluster = dynamic_cast<GraphClusterItem*>(item)) {
                add(key + QStringLiteral("/cluster%1").arg(i), key + QStringLiteral("/nodes"), cluster->title());
            }
            ++i;
        }
    }
};

// Waits for every visible graph pane's layout.
void settle()
{
    QTest::qWait(60);
    for (QWidget* top : QApplication::topLevelWidgets())
        for (GraphPane* pane : top->findChildren<GraphPane*>())
            if (pane->isVisible()
                && !QTest::qWaitFor([pane] { return !pane->isLayoutPending(); }, graphtest::kLayoutTimeoutMs))
                qWarning("a layout did not end in %d ms", graphtest::kLayoutTimeoutMs);
}

// Makes `w` shown: each hidden dock on its way up shown and raised, each tab on its way current.
void reveal(QWidget* w)
{
    QList<QWidget*> chain;
    for (QWidget* p = w; p; p = p->parentWidget())
        chain.prepend(p);
    for (int i = 0; i < chain.size(); ++i) {
        if (auto* dock = qobject_cast<QDockWidget*>(chain[i])) {
            dock->show();
            dock->raise();
        }
        if (auto* tabs = qobject_cast<QTabWidget*>(chain[i]))
            for (int k = i + 1; k < chain.size(); ++k)
                if (const int index = tabs->indexOf(chain[k]); index >= 0) {
                    tabs->setCurrentIndex(index);
                    break;
                }
        if (auto* stack = qobject_cast<QStackedWidget*>(chain[i]); stack && i + 1 < chain.size())
            stack->setCurrentWidget(chain[i + 1]); // a window of pages
    }
    settle();
}

// Every window's texts, with each page of each tab widget and stacked widget shown in turn
// (nested ones too): the panels are read wherever the window keeps them.
void walkAllPages(QWidget* root, QWidget* within, TextWalker& walker, std::set<QWidget*>& done)
{
    walker.walk(root);
    for (QWidget* owner : within->findChildren<QWidget*>()) {
        auto* tabs = qobject_cast<QTabWidget*>(owner);
        auto* stack = qobject_cast<QStackedWidget*>(owner);
        if (stack && qobject_cast<QTabWidget*>(stack->parentWidget()))
            continue; // a tab widget's own stack: its tabs are shown through the tab widget
        if ((!tabs && !stack) || done.count(owner) || !owner->isVisibleTo(root) || owner->window() != root)
            continue;
        done.insert(owner);
        const int count = tabs ? tabs->count() : stack->count();
        const int current = tabs ? tabs->currentIndex() : stack->currentIndex();
        const auto show = [&](int i) { tabs ? tabs->setCurrentIndex(i) : stack->setCurrentIndex(i); };
        for (int i = 0; i < count; ++i) {
            if (i == current)
                continue;
            show(i);
            settle();
            walkAllPages(root, tabs ? tabs->widget(i) : stack->widget(i), walker, done);
        }
        show(current);
        settle();
    }
}

// ---- the inputs ---------------------------------------------------------------------------------

struct Inputs
{
    QStringList hlo; // HLO text modules
    QString graph; // a layout npz (TpuGraphs or synthetic)
    QString project;
    QString weights;
    QString sweep; // the sweep's run id
    QStringList runs; // two runs of their own

    QJsonObject toJson() const
    {
        return { { "hlo", QJsonArray::fromStringList(hlo) }, { "graph", graph }, { "project", project },
            { "weights", weights }, { "sweep", sweep }, { "runs", QJsonArray::fromStringList(runs) } };
    }
    static Inputs fromJson(const QJsonObject& o)
    {
        Inputs in;
        for (const QJsonValue& v : o["hlo"].toArray())
            in.hlo << v.toString();
        in.graph = o["graph"].toString();
        in.project = o["project"].toString();
        in.weights = o["weights"].toString();
        in.sweep = o["sweep"].toString();
        for (const QJsonValue& v : o["runs"].toArray())
            in.runs << v.toString();
        return in;
    }
};

} // namespace

class TestStudioTexts : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    // The classification this test relies on, on texts written here.
    void numbersAreClassified();
    // The parent: prepares the inputs, walks the studio under C and de_DE.UTF-8, compares.
    void numbersFollowOneConvention();
    // The child (only with TGRAPH_TEXTS_OUT set): opens everything and writes down every text.
    void walk();

private:
    Inputs prepare();
    QTemporaryDir m_dir;
};

void TestStudioTexts::initTestCase()
{
    QVERIFY(m_dir.isValid());
    // What app/studio/main.cpp does after QApplication adopted the user's locale (docs/studio.md §3.6).
    std::setlocale(LC_NUMERIC, "C");
    QCoreApplication::setOrganizationName(QStringLiteral("TGraphStudioTest"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_studiotexts"));
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_dir.filePath(QStringLiteral("settings")));
}

void TestStudioTexts::numbersAreClassified()
{
    const auto problemsUnder = [](const QString& text, const Convention& c) {
        QStringList out;
        for (const NumberToken& t : numbersIn(text))
            if (const QString p = conventionProblem(t, c); !p.isEmpty())
                out << t.text + QStringLiteral(": ") + p;
        return out;
    };
    // The convention of the other locale.
    QCOMPARE(problemsUnder(QStringLiteral("240.3 ms"), kGerman).size(), 1);
    QCOMPARE(problemsUnder(QStringLiteral("τ 0.0796"), kGerman).size(), 1);
    QCOMPARE(problemsUnder(QStringLiteral("0,00857"), kC).size(), 1);
    QCOMPARE(problemsUnder(QStringLiteral("1.234.567,5 configs"), kC).size(), 1);
    QVERIFY(problemsUnder(QStringLiteral("240,3 ms, 1.234.567 configs, 1.234,5"), kGerman).isEmpty());
    QVERIFY(problemsUnder(QStringLiteral("240.3 ms, 1,234,567 configs, 1,234.5, −0.5"), kC).isEmpty());
    // Not numbers: names, files, shapes, versions, dates, cut numbers.
    for (const QString& text : { QStringLiteral("fusion.12"), QStringLiteral("graph_1.5.npz"),
             QStringLiteral("f32[2,3]{1,0}"), QStringLiteral("Qt 6.4.2"), QStringLiteral("01.05.24 12:30"),
             QStringLiteral("c0-s42"), QStringLiteral("%add.3"), QStringLiteral("0.83…"), QStringLiteral("/tmp/x/1.2"),
             QStringLiteral("seed-1.25"), QStringLiteral("lr=0.001 hidden=1,024") })
        QVERIFY2(problemsUnder(text, kGerman).isEmpty() && problemsUnder(text, kC).isEmpty(), qPrintable(text));
    // Grouping: "215.029" groups under de_DE; "1965" next to it does not; "config 1965" is a name.
    const QList<NumberToken> mixed = numbersIn(QStringLiteral("215.029 parameters, 1965 configs, config 1965"));
    QCOMPARE(mixed.size(), 3);
    QCOMPARE(groupingOf(mixed[0], kGerman), std::optional<bool>(true));
    QCOMPARE(groupingOf(mixed[1], kGerman), std::optional<bool>(false));
    QCOMPARE(groupingOf(mixed[2], kGerman), std::optional<bool>());
    const QList<NumberToken> range = numbersIn(QStringLiteral("configs 1044–1158 of 1,159"));
    QVERIFY(range[0].identifier && range[1].identifier && !range[2].identifier);
    // "2.296" is two thousand under de_DE, a decimal under C.
    QCOMPARE(groupingOf(numbersIn(QStringLiteral("2.296 s")).front(), kGerman), std::optional<bool>(true));
    QCOMPARE(groupingOf(numbersIn(QStringLiteral("2.296 s")).front(), kC), std::optional<bool>());
}

Inputs TestStudioTexts::prepare()
{
    Inputs in;
    const QString work = m_dir.filePath(QStringLiteral("inputs"));
    QDir().mkpath(work);
    const auto tg = [&](const QStringList& args) {
        const testutil::ProcessResult r = testutil::run(tgraphExe(), args, 300000);
        if (r.exitCode != 0 || r.crashed)
            qWarning("tgraph %s: %s", qPrintable(args.join(' ')), r.err.constData());
        return r.exitCode == 0 && !r.crashed;
    };
    const QString collection = work + QStringLiteral("/collection");
    if (!tg({ "synth", "--collection", "layout", "-o", collection, "--graphs", "5", "--configs", "40", "--min-size",
            "200", "--max-size", "300", "--families", "mlp,resnet", "--seed", "5" }))
        return {};
    in.project = work + QStringLiteral("/runs.tgproj");
    if (!tg({ "sweep", "--project", in.project, "--data", collection, "--name", "sweep-a", "--grid", "lr=1e-3,3e-4",
            "--seeds", "2", "--seed-base", "42", "--parallel", "2", "--steps", "6", "--eval-every", "3", "--log-every",
            "1", "--configs-per-step", "16", "--threads", "1" }))
        return {};
    // Two runs of their own (a sweep's runs are rows of the sweep, not of the run table) to compare,
    // trained side by side.
    std::vector<std::unique_ptr<QProcess>> trainings;
    for (const QString& seed : { QStringLiteral("42"), QStringLiteral("43") }) {
        auto p = std::make_unique<QProcess>();
        p->setProcessChannelMode(QProcess::MergedChannels);
        p->start(tgraphExe(),
            { "train", "--data", collection, "--steps", "6", "--configs-per-step", "16", "--eval-every", "3",
                "--log-every", "1", "--seed", seed, "--threads", "1", "--project", in.project, "--run-name",
                QStringLiteral("baseline-lr-1e-3-seed-%1").arg(seed) });
        trainings.push_back(std::move(p));
    }
    for (auto& p : trainings)
        if (!p->waitForFinished(300000) || p->exitCode() != 0) {
            qWarning("tgraph train: %s", p->readAll().constData());
            return {};
        }

    const tgraph::Project project = tgraph::Project::open(in.project.toStdString(), tgraph::Project::Access::Read);
    const auto sweeps = tgraph::sweepIds(project);
    if (sweeps.size() != 1)
        return {};
    in.sweep = QString::fromStdString(sweeps.front());
    for (const tgraph::RunRecord& r : project.runs())
        if (r.parentRun.empty() && r.id != sweeps.front()) {
            in.runs << QString::fromStdString(r.id);
            if (in.weights.isEmpty())
                in.weights = TrainingMonitor::weightsOf(project, r);
        }

    const QString shared = testutil::sharedDataDir();
    if (!shared.isEmpty()) {
        for (const QString& name : { QStringLiteral("ssd_mobilenet_tf.hlo"), QStringLiteral("graphsage_tf.hlo") })
            if (QFileInfo::exists(shared + QStringLiteral("/hlo/") + name))
                in.hlo << shared + QStringLiteral("/hlo/") + name;
        const QString npz = shared + QStringLiteral("/tpu_graphs/npz/layout_xla_default_train_unet3d.npz");
        if (QFileInfo::exists(npz))
            in.graph = npz;
    }
    if (in.hlo.isEmpty()) {
        qInfo("%s: no ../shared/data; generated modules instead", Q_FUNC_INFO);
        in.hlo << graphtest::generatedHlo(QDir(work), "resnet", 400) << graphtest::generatedHlo(QDir(work), "mlp", 120);
    }
    if (in.graph.isEmpty()) {
        QDirIterator it(collection + QStringLiteral("/valid"), { QStringLiteral("*.npz") }, QDir::Files);
        in.graph = it.hasNext() ? it.next() : QString();
    }
    return in;
}

void TestStudioTexts::numbersFollowOneConvention()
{
    if (!qEnvironmentVariableIsEmpty("TGRAPH_TEXTS_OUT"))
        QSKIP("the child walks; the parent compares");
    QElapsedTimer clock;
    clock.start();
    const Inputs in = prepare();
    QVERIFY2(!in.graph.isEmpty() && !in.weights.isEmpty() && in.runs.size() == 2, "inputs not prepared");
    const QString inputs = m_dir.filePath(QStringLiteral("inputs.json"));
    testutil::writeAll(inputs, QJsonDocument(in.toJson()).toJson());
    qInfo("inputs ready after %.1f s", double(clock.elapsed()) / 1000);

    struct Walked
    {
        QString locale;
        Convention convention;
        std::map<QString, SeenText> texts;
        QStringList problems;
    };
    std::vector<Walked> runs { { QStringLiteral("C"), kC, {}, {} },
        { QStringLiteral("de_DE.UTF-8"), kGerman, {}, {} } };
    // Both walks at once (one core each): the test's time is the longer walk, not their sum.
    std::vector<std::unique_ptr<QProcess>> children;
    const auto outOf
        = [this](const Walked& run) { return m_dir.filePath(QStringLiteral("texts-%1.json").arg(run.locale)); };
    for (const Walked& run : runs) {
        auto child = std::make_unique<QProcess>();
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("LC_ALL"), run.locale);
        env.insert(QStringLiteral("TGRAPH_TEXTS_INPUTS"), inputs);
        env.insert(QStringLiteral("TGRAPH_TEXTS_OUT"), outOf(run));
        child->setProcessEnvironment(env);
        child->setProcessChannelMode(QProcess::MergedChannels);
        child->start(QCoreApplication::applicationFilePath(), { QStringLiteral("walk") });
        QVERIFY(child->waitForStarted());
        children.push_back(std::move(child));
    }
    for (size_t i = 0; i < runs.size(); ++i) {
        Walked& run = runs[i];
        QProcess& child = *children[i];
        QVERIFY2(child.waitForFinished(kWaitMs * 3), qPrintable(run.locale + ": the walk did not end"));
        const QByteArray log = child.readAll();
        for (const QByteArray& line : log.split('\n'))
            if (line.startsWith("QINFO"))
                qInfo().noquote() << run.locale << "|" << QString::fromUtf8(line.mid(line.indexOf(')') + 2));
        if (child.exitStatus() != QProcess::NormalExit || child.exitCode() != 0) {
            for (const QByteArray& line : log.split('\n')) // QTest cuts long messages
                qWarning().noquote() << run.locale << "|" << QString::fromUtf8(line);
            QFAIL(qPrintable(run.locale + QStringLiteral(": the walk failed")));
        }
        const QString out = outOf(run);
        if (const QString keep = qEnvironmentVariable("TGRAPH_TEXTS_KEEP"); !keep.isEmpty()) { // to read them
            QFile::remove(keep + QStringLiteral("/") + QFileInfo(out).fileName());
            QFile::copy(out, keep + QStringLiteral("/") + QFileInfo(out).fileName());
        }
        const QJsonObject walked = QJsonDocument::fromJson(testutil::readAll(out)).object();
        for (const QJsonValue& v : walked["texts"].toArray()) {
            const QJsonObject o = v.toObject();
            run.texts[o["key"].toString()] = { o["key"].toString(), o["scope"].toString(), o["text"].toString() };
        }
        for (const QJsonValue& v : walked["problems"].toArray())
            run.problems << v.toString();
        QVERIFY2(run.texts.size() > 200, qPrintable(run.locale + QStringLiteral(": too few texts read")));
        qInfo("%s: %zu texts after %.1f s", qPrintable(run.locale), run.texts.size(), double(clock.elapsed()) / 1000);
    }

    QStringList offences;
    for (const Walked& run : runs) {
        for (const QString& p : run.problems)
            offences << run.locale + QStringLiteral(": ") + p;
        std::map<QString, std::vector<std::pair<bool, QString>>> scopes; // grouped?, text
        for (const auto& [key, seen] : run.texts) {
            for (const NumberToken& t : numbersIn(seen.text)) {
                if (const QString p = conventionProblem(t, run.convention); !p.isEmpty())
                    offences << QStringLiteral("%1: \"%2\" has %3 in \"%4\"  [%5]")
                                    .arg(run.locale, t.text, p, seen.text.left(160), key);
                if (const auto grouped = groupingOf(t, run.convention))
                    scopes[seen.scope].push_back(
                        { *grouped, t.text + QStringLiteral(" in \"") + seen.text.left(80) + '"' });
            }
        }
        for (const auto& [scope, numbers] : scopes) {
            QStringList grouped, ungrouped;
            for (const auto& [g, text] : numbers)
                (g ? grouped : ungrouped) << text;
            if (!grouped.isEmpty() && !ungrouped.isEmpty())
                offences << QStringLiteral("%1: grouped %2 next to ungrouped %3  [%4]")
                                .arg(run.locale, grouped.front(), ungrouped.front(), scope);
        }
    }
    for (const auto& [key, c] : runs[0].texts) {
        const auto de = runs[1].texts.find(key);
        if (de == runs[1].texts.end() || de->second.text != c.text)
            continue;
        for (const NumberToken& t : numbersIn(c.text))
            if (hasSeparator(t)) {
                offences << QStringLiteral("both: \"%1\" reads the same under C and de_DE in \"%2\"  [%3]")
                                .arg(t.text, c.text.left(160), key);
                break;
            }
    }
    // One line per offending text (where it is shown once, how often in all), at most kShownOffences.
    std::map<QString, std::pair<int, QString>> distinct; // message without its place -> count, a place
    for (const QString& o : offences) {
        const qsizetype place = o.lastIndexOf(QStringLiteral("  ["));
        auto& entry = distinct[place < 0 ? o : o.left(place)];
        if (entry.first++ == 0)
            entry.second = place < 0 ? QString() : o.mid(place + 2);
    }
    std::map<QString, int> shown; // per run ("C", "de_DE.UTF-8", "both")
    for (const auto& [message, where] : distinct)
        if (shown[message.section(QLatin1Char(':'), 0, 0)]++ < kShownOffences)
            qWarning().noquote() << QStringLiteral("%1  (%2x, e.g. %3)")
                                        .arg(QString(message).replace(QLatin1Char('\n'), QStringLiteral(" ⏎ ")))
                                        .arg(where.first)
                                        .arg(where.second);
    qInfo("compared after %.1f s", double(clock.elapsed()) / 1000);
    QVERIFY2(offences.isEmpty(),
        qPrintable(
            QStringLiteral("%1 texts (%2 distinct) mix the conventions").arg(offences.size()).arg(distinct.size())));
}

void TestStudioTexts::walk()
{
    const QString out = qEnvironmentVariable("TGRAPH_TEXTS_OUT");
    if (out.isEmpty())
        QSKIP("run by numbersFollowOneConvention");
    const QString expected = qEnvironmentVariable("LC_ALL").section(QLatin1Char('.'), 0, 0);
    QVERIFY2(QLocale().name() == expected || (expected == QLatin1String("C") && QLocale().name() == QLatin1String("C")),
        qPrintable(
            QStringLiteral("the locale %1 is not installed (LOCPATH); QLocale is %2").arg(expected, QLocale().name())));
    const Inputs in = Inputs::fromJson(
        QJsonDocument::fromJson(testutil::readAll(qEnvironmentVariable("TGRAPH_TEXTS_INPUTS"))).object());

    QElapsedTimer clock;
    clock.start();
    const auto stage = [&clock](const char* what) { qInfo("%s after %.1f s", what, double(clock.elapsed()) / 1000); };
    MainWindow window;
    window.resize(1600, 1000);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.openFiles(in.hlo + QStringList { in.graph });
    QVERIFY(QTest::qWaitFor([&] { return !window.isLoading(); }, kWaitMs));
    QCOMPARE(int(window.documents().size()), int(in.hlo.size()) + 1);
    settle();
    tgraph::GraphDocumentPtr module, graph;
    for (const tgraph::GraphDocumentPtr& d : window.documents()) {
        if (QString::fromStdString(d->path) == in.graph)
            graph = d;
        else if (!module)
            module = d;
    }
    QVERIFY(module && graph);
    stage("graphs open");

    // A configurable node of the module selected: the inspector shows its features and configs.
    for (GraphPage* page : window.findChildren<GraphPage*>())
        if (page->document() == module)
            for (int64_t node = 0; node < module->nodeCount(); ++node)
                if (module->isConfigurable(node)) {
                    reveal(page);
                    page->selectNode(node);
                    break;
                }

    auto* inference = window.findChild<InferencePanel*>();
    QVERIFY(inference);
    reveal(inference);
    inference->setDocuments(window.documents(), graph);
    inference->setModelFiles({ in.weights });
    inference->setConfigSet(ConfigSetKind::Sample, 300); // of unet3d's 1 159: a third of the time, four-digit ids
    QSignalSpy inferred(inference, &InferencePanel::finished);
    inference->run();
    QVERIFY(inferred.count() > 0 || inferred.wait(kWaitMs));
    QVERIFY2(inference->outcome(), qPrintable(inference->banner()->text()));
    stage("inference");

    auto* explain = window.findChild<ExplainPanel*>();
    QVERIFY(explain);
    reveal(explain);
    explain->setContext(inference->explainContext());
    explain->setConfigs(QStringLiteral("fastest"), QStringLiteral("slowest")); // TpuGraphs files mark no default
    QSignalSpy explained(explain, &ExplainPanel::finished);
    explain->run();
    QVERIFY(explained.count() > 0 || explained.wait(kWaitMs));
    QVERIFY2(explain->outcome(), qPrintable(explain->banner()->text()));
    stage("explain");

    auto* tune = window.findChild<TunePanel*>();
    QVERIFY(tune);
    reveal(tune);
    tune->setDocuments(window.documents(), module);
    tune->setModelFiles({ in.weights });
    tune->setBudget(64);
    tune->setBatch(32);
    tune->setSimulate(true);
    QSignalSpy tuned(tune, &TunePanel::finished);
    tune->run();
    QVERIFY(tuned.count() > 0 || tuned.wait(kWaitMs));
    QVERIFY2(tune->result(), qPrintable(tune->banner()->text()));
    stage("tune");

    window.openFiles({ in.project });
    auto* monitor = window.findChild<TrainingMonitor*>();
    QVERIFY(monitor);
    reveal(monitor);
    QVERIFY(QTest::qWaitFor([&] { return monitor->runsModel()->rowCount() >= 3; }, kWaitMs));
    QSignalSpy compared(monitor, &TrainingMonitor::comparisonShown);
    monitor->selectRuns(in.runs);
    monitor->compareSelected();
    QVERIFY(compared.count() > 0 || compared.wait(kWaitMs));
    QSignalSpy snapshots(monitor, &TrainingMonitor::snapshotShown);
    monitor->selectRuns({ in.sweep });
    QSignalSpy swept(monitor, &TrainingMonitor::sweepShown);
    monitor->showSweep();
    QVERIFY(swept.count() > 0 || swept.wait(kWaitMs));
    monitor->pollNow();
    QVERIFY(snapshots.wait(kWaitMs));
    settle();
    stage("runs, Compare and Sweep");

    TextWalker walker;
    std::set<QWidget*> done;
    QList<QWidget*> windows { &window };
    for (QWidget* w : QApplication::topLevelWidgets())
        if (w != &window && w->isVisible())
            windows << w;
    for (QWidget* w : window.findChildren<QWidget*>())
        if (w->isWindow() && w->isVisible() && !windows.contains(w))
            windows << w;
    for (QWidget* w : windows)
        walkAllPages(w, w, walker, done);

    stage("every page read");
    QJsonArray texts;
    for (const SeenText& t : walker.texts)
        texts.append(QJsonObject { { "key", t.key }, { "scope", t.scope }, { "text", t.text } });
    testutil::writeAll(out,
        QJsonDocument(QJsonObject { { "texts", texts }, { "problems", QJsonArray::fromStringList(walker.problems) } })
            .toJson());
}

QTEST_MAIN(TestStudioTexts)
#include "tst_studiotexts.moc"
