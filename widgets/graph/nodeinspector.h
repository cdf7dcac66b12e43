// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/view/graphdocument.h"

#include <QWidget>

class ElidedLabel;
class QLabel;
class QPlainTextEdit;
class QSpinBox;
class QTreeWidget;

// Everything about one node: name, opcode, shape and layout, its HLO instruction, the 140
// features by group (docs/formats.md §4), the 18 config values of the current
// configuration for configurable nodes, and its operands and users as links.
class NodeInspector : public QWidget
{
    Q_OBJECT
public:
    explicit NodeInspector(QWidget* parent = nullptr);

    void setDocument(tgraph::GraphDocumentPtr document);
    void setNode(int64_t node); // -1 clears
    int64_t node() const { return m_node; }
    void setConfiguration(int64_t config);

    QString headerText() const;
    QString instructionText() const;
    QString linksText() const; // operands and users, as shown
    QTreeWidget* featureTree() const { return m_features; }
    QTreeWidget* configTree() const { return m_configs; }

Q_SIGNALS:
    void nodeRequested(qint64 node); // a click on an operand or user link

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
};
