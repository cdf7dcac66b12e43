// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "app/studio/analysis/inferencejob.h"

#include "core/view/graphdocument.h"

#include <QStringList>
#include <QWidget>

#include <memory>
#include <string>
#include <vector>

class QProgressBar;

namespace tgraph::studio {

namespace Ui {
class InferenceForm;
}

// What the inference panel runs (inferenceform.ui): the model (weights, checkpoint, ensemble.json
// or a project run's model) and which ensemble members to average, a graph open in the studio or a
// collection directory, the config set (all, a seeded sample, generated candidates), configs per
// pass and TTA, and the project to store the results in; Run, Cancel and the progress bar.
class InferenceForm : public QWidget
{
    Q_OBJECT
public:
    explicit InferenceForm(QWidget* parent = nullptr);
    ~InferenceForm() override;

    // The graphs open in the studio (the graph choice lists them, then "Collection directory").
    void setDocuments(const std::vector<tgraph::GraphDocumentPtr>& documents, const tgraph::GraphDocumentPtr& current);
    // Project files the results can be stored in; the store choice keeps its project when listed.
    void setProjects(const QStringList& projectPaths);
    void setStoreInProject(const QString& projectPath); // "" = do not store
    void setModelFiles(const QStringList& files);
    void setCollection(const QString& directory); // graph choice: this collection
    void setConfigSet(ConfigSetKind kind, int64_t count);
    // While a job runs: Run disabled, Cancel enabled.
    void setBusy(bool busy);

    // The request the form describes; false with `problem` set when it is incomplete (no model, no
    // member checked, no graph or collection, a directory without graphs). A collection root (the
    // train/ valid/ test/ folders New run takes) is scored through its valid/ graphs (else its
    // train/ graphs); `note` then says so.
    bool makeRequest(InferenceRequest* request, QString* problem, QString* note = nullptr) const;
    // The directory of graphs a collection directory stands for: DIR itself when it holds .npz
    // files, DIR/valid (else DIR/train) for a collection root (docs/studio.md §5.1); empty with
    // `problem` in the studio's words otherwise.
    static QString collectionToScore(const QString& directory, QString* problem, QString* note = nullptr);
    // The model entries as typed (';'-separated), the chosen graph (null for a collection), configs
    // per pass, and the projects of the store choice.
    std::vector<std::string> weights() const;
    QStringList modelFiles() const; // the same, as typed
    tgraph::GraphDocumentPtr chosenDocument() const;
    QString collection() const;
    int batchConfigs() const;
    QStringList projects() const;
    QProgressBar* progressBar() const;

Q_SIGNALS:
    void runRequested();
    void cancelRequested();
    // "From project run…" or "Open stored…": pick a run of a project (a model or stored results).
    void storedRunRequested();
    // The model entries changed (typed, browsed, set from a run): the Tune panel follows them.
    void modelChanged(const QStringList& files);

private:
    void updateMembers();
    void updateControls();
    void browseModel();
    void browseCollection();

    std::unique_ptr<Ui::InferenceForm> m_ui;
    std::vector<tgraph::GraphDocumentPtr> m_documents;
    bool m_busy = false;
};

} // namespace tgraph::studio
