// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/view/graphlayout.h"
#include "core/view/viewgraph.h"

#include <QObject>
#include <QString>

#include <memory>

namespace tgraph::widgets {

class JobChannel;

// A view graph together with its Graphviz layout: what a graph scene draws.
struct ViewLayout
{
    tgraph::ViewGraph view;
    tgraph::LayoutInput input;
    tgraph::GraphLayout layout;
};
using ViewLayoutPtr = std::shared_ptr<const ViewLayout>;

// Runs Graphviz layouts in the layout lane of the studio's JobTracker, which has one thread (a
// `dot` child process by default, which a cancel kills). Each request gets a new id and cancels
// the one before it; results of requests that are no longer current are dropped, so a slow layout
// can never replace a newer view.
class LayoutRunner : public QObject
{
    Q_OBJECT
public:
    explicit LayoutRunner(QObject* parent = nullptr);
    ~LayoutRunner() override; // cancels and waits for the running layout

    // Starts laying out `view` (sizes and clusters in `input`); returns the request id.
    quint64 request(tgraph::ViewGraph view, tgraph::LayoutInput input);
    // Drops the current request (its result will not be delivered).
    void cancel();
    bool isBusy() const;
    quint64 currentRequest() const;
    void setOptions(const tgraph::LayoutOptions& options) { m_options = options; }

Q_SIGNALS:
    void finished(quint64 id, const ViewLayoutPtr& layout);
    void failed(quint64 id, const QString& message);

private:
    JobChannel* m_channel = nullptr;
    tgraph::LayoutOptions m_options;
};

} // namespace tgraph::widgets
