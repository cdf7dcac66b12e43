// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/view/graphdocument.h"

#include <QWidget>

#include <map>
#include <string>

class QLabel;
class QPlainTextEdit;
class QSpinBox;
class QTreeWidget;

namespace tgraph::widgets {

class ElidedLabel;

// Everything about one node: name, opcode, shape and layout, its HLO instruction, the 140
// features by group (docs/formats.md §4), the 18 config values of the shown configuration for
// configurable nodes, and its operands and users as links.
//
// The shown configuration is the studio's selected one (a row of the inference table, a point of
// the rank scatter) or the one the user picks in the inspector's own spin box: either way
// configurationChanged() tells the others. Each graph file keeps its own: a configuration selected
// for a graph that is not shown is remembered and shown when that graph is (docs/studio.md §5.1).
class NodeInspector : public QWidget
{
    Q_OBJECT
public:
    explicit NodeInspector(QWidget* parent = nullptr);

    void setDocument(tgraph::GraphDocumentPtr document);
    void setNode(int64_t node); // -1 clears
    int64_t node() const { return m_node; }
    // The configuration of the shown document to show; false (nothing changes) when the document
    // has no such configuration.
    bool setConfiguration(int64_t config);
    // The configuration selected for the graph file `graphPath` (InferencePanel::configSelected):
    // shown now when that graph is the shown document, else remembered for when it is.
    void showConfiguration(const QString& graphPath, qint64 config);
    int64_t configuration() const;

    QString headerText() const;
    QString instructionText() const;
    QString linksText() const; // operands and users, as shown
    QTreeWidget* featureTree() const { return m_features; }
    QTreeWidget* configTree() const { return m_configs; }

Q_SIGNALS:
    void nodeRequested(qint64 node); // a click on an operand or user link
    // The shown configuration changed (set by the caller or picked in the spin box).
    void configurationChanged(qint64 config);

private:
    void fillFeatures();
    void fillConfigs();
    QString linkList(std::span<const int64_t> nodes) const;

    tgraph::GraphDocumentPtr m_document;
    int64_t m_node = -1;
    // Name; opcode and shape; id, computation and state: each one line, shortened to the dock's width.
    ElidedLabel* m_header = nullptr;
    ElidedLabel* m_kind = nullptr;
    ElidedLabel* m_where = nullptr;
    QPlainTextEdit* m_instruction = nullptr;
    QLabel* m_links = nullptr;
    QTreeWidget* m_features = nullptr;
    QSpinBox* m_config = nullptr;
    QTreeWidget* m_configs = nullptr;
    QLabel* m_configNote = nullptr;
    std::map<std::string, int64_t> m_selectedConfig; // per graph file: the configuration selected for it
};

} // namespace tgraph::widgets
