// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "widgets/diff/diffresult.h"

#include <QAbstractTableModel>

#include <vector>

namespace tgraph::widgets {

// The list of changes of a diff (docs/studio.md §11): every changed pair, every removed and every
// added instruction, one row each (changed pairs in A's order, then removed in A's order, then
// added in B's order), filtered by kind. Columns: kind, A's name, B's name, computation, and the
// simulator's cost delta.
class ChangeListModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { KindColumn, AColumn, BColumn, ComputationColumn, CostColumn, ColumnCount };
    // Filter bits: a change kind's tgraph::hloChangeBit, and these two.
    static constexpr uint32_t kRemovedBit = 1u << tgraph::kHloChangeKindCount;
    static constexpr uint32_t kAddedBit = 1u << (tgraph::kHloChangeKindCount + 1);
    static constexpr uint32_t kAllBits = (1u << (tgraph::kHloChangeKindCount + 2)) - 1;

    struct Entry
    {
        enum class Type : uint8_t { Changed, Removed, Added };
        Type type = Type::Changed;
        int64_t a = -1; // instruction of A, -1 = none
        int64_t b = -1; // instruction of B, -1 = none
        uint16_t kinds = 0; // Changed: hloChangeBit()s
    };

    explicit ChangeListModel(QObject* parent = nullptr);

    void setResult(DiffResultPtr result);
    const DiffResultPtr& result() const { return m_result; }
    // Rows with any of `bits` (kinds of a changed pair, kRemovedBit, kAddedBit); kAllBits = all.
    void setFilter(uint32_t bits);
    uint32_t filter() const { return m_filter; }
    // The filter bits of an entry.
    static uint32_t bitsOf(const Entry& entry);

    // Rows before filtering, and per filter bit.
    int totalCount() const { return int(m_all.size()); }
    int countOf(uint32_t bit) const;
    const Entry& entry(int row) const { return m_all[size_t(m_rows[size_t(row)])]; }
    // The shown row of an instruction of A / of B, -1 when it is not listed (unchanged or filtered out).
    int rowOfA(int64_t a) const;
    int rowOfB(int64_t b) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    void rebuildRows();

    DiffResultPtr m_result;
    std::vector<Entry> m_all;
    std::vector<int32_t> m_rows; // shown rows: indices into m_all
    std::vector<int32_t> m_rowOfA; // per instruction of A: shown row, -1
    std::vector<int32_t> m_rowOfB;
    uint32_t m_filter = kAllBits;
};

// "+1.25 µs", "−870 ns", "0 ns": a cost delta as people read it (Formatting::duration with a sign).
QString costDeltaText(double ns);

} // namespace tgraph::widgets
