// gatkit: graph attention networks for molecules and networks — the one include an embedding
// program needs. docs/library.md walks through a complete example.
//
//   Predict:   Predictor::load(path, {.threads = n}) → predict_smiles / predict_molecules /
//              predict (a GraphDataset) / predict_graph(_bgl) (a user's graph + features),
//              graph_embeddings, node_embeddings, molecule_attention, attention
//              (model/predictor.hpp)
//   Train:     train_molecules(path, MoleculeTrainOptions, progress) for molecule files, or the
//              steps: load_molecules / load_tu → split_graphs → make_graph_model →
//              train_graph_model (train/fit.hpp, train/graph_trainer.hpp); node classification:
//              train_node_classifier (train/trainer.hpp)
//   Explain:   attention received per atom/bond, most-attended neighbours (model/explain.hpp);
//              drawing them is chem/draw.hpp (RDKit, include it yourself)
//   Save/load: save_model / load_model, model_kind, link models (model/model_file.hpp)
//   Data:      load_molecules (io/molecules.hpp), load_tu (io/tu.hpp), load_linqs (io/linqs.hpp),
//              load_network (io/edgelist.hpp); graphs (graph/graph.hpp, graph/build.hpp)
//   Errors:    every failure is an exception derived from gatkit::Error (core/error.hpp)
//   Threads:   per call (PredictorOptions::threads, MoleculeTrainOptions::threads), or
//              set_thread_count / ThreadScope (core/parallel.hpp)
#pragma once

#include "gatkit/core/error.hpp"
#include "gatkit/core/parallel.hpp"
#include "gatkit/core/random.hpp"
#include "gatkit/core/types.hpp"
#include "gatkit/graph/build.hpp"
#include "gatkit/graph/graph.hpp"
#include "gatkit/io/dataset.hpp"
#include "gatkit/io/edgelist.hpp"
#include "gatkit/io/linqs.hpp"
#include "gatkit/io/molecules.hpp"
#include "gatkit/io/tu.hpp"
#include "gatkit/model/config.hpp"
#include "gatkit/model/explain.hpp"
#include "gatkit/model/model.hpp"
#include "gatkit/model/model_file.hpp"
#include "gatkit/model/predictor.hpp"
#include "gatkit/train/fit.hpp"
#include "gatkit/train/graph_trainer.hpp"
#include "gatkit/train/numerics.hpp"
#include "gatkit/train/split.hpp"
#include "gatkit/train/trainer.hpp"
#include "gatkit/version.hpp"
