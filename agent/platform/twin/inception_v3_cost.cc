// Inception-v3 walked as torchvision builds it with its auxiliary
// classifier (torchvision/models/inception.py; workloads/models/
// inception_v3.cc): each block's branches start from the block's input and
// are concatenated once (the workload's single torch::cat per block).
#include <vector>

#include "agent/platform/twin/model_architectures.h"
#include "agent/platform/twin/model_walker.h"

namespace powersweep {
namespace {

// BasicConv2d: conv (no bias) kernel_h x kernel_w, batch norm, ReLU.
void Basic(ModelWalker* m, int out, int kernel_h, int kernel_w, int stride,
           int pad_h, int pad_w) {
  m->ConvRect(out, kernel_h, kernel_w, stride, pad_h, pad_w);
  m->BatchNorm();
  m->Activation();
}
void Basic(ModelWalker* m, int out, int kernel, int stride = 1,
           int padding = 0) {
  Basic(m, out, kernel, kernel, stride, padding, padding);
}

// Walks the branches of one block, each from the block's input, and
// concatenates them.
class Block {
 public:
  explicit Block(ModelWalker* m) : m_(m), in_(m->shape()) {}
  // Starts a branch at the block's input.
  ModelWalker* Branch() {
    m_->set_shape(in_);
    return m_;
  }
  // Ends the current branch (its output is part of the concatenation).
  void Done() { parts_.push_back(m_->shape()); }
  void Concat() { m_->Concat(parts_); }

 private:
  ModelWalker* m_;
  TensorShape in_;
  std::vector<TensorShape> parts_;
};

void InceptionA(ModelWalker* m, int pool_features) {
  Block b(m);
  Basic(b.Branch(), 64, 1);
  b.Done();
  Basic(b.Branch(), 48, 1);
  Basic(m, 64, 5, 1, 2);
  b.Done();
  Basic(b.Branch(), 64, 1);
  Basic(m, 96, 3, 1, 1);
  Basic(m, 96, 3, 1, 1);
  b.Done();
  b.Branch()->AvgPool(3, 1, 1);
  Basic(m, pool_features, 1);
  b.Done();
  b.Concat();
}

void InceptionB(ModelWalker* m) {
  Block b(m);
  Basic(b.Branch(), 384, 3, 2);
  b.Done();
  Basic(b.Branch(), 64, 1);
  Basic(m, 96, 3, 1, 1);
  Basic(m, 96, 3, 2);
  b.Done();
  b.Branch()->MaxPool(3, 2);
  b.Done();
  b.Concat();
}

void Conv1x7(ModelWalker* m, int out) { Basic(m, out, 1, 7, 1, 0, 3); }
void Conv7x1(ModelWalker* m, int out) { Basic(m, out, 7, 1, 1, 3, 0); }

void InceptionC(ModelWalker* m, int c7) {
  Block b(m);
  Basic(b.Branch(), 192, 1);
  b.Done();
  Basic(b.Branch(), c7, 1);
  Conv1x7(m, c7);
  Conv7x1(m, 192);
  b.Done();
  Basic(b.Branch(), c7, 1);
  Conv7x1(m, c7);
  Conv1x7(m, c7);
  Conv7x1(m, c7);
  Conv1x7(m, 192);
  b.Done();
  b.Branch()->AvgPool(3, 1, 1);
  Basic(m, 192, 1);
  b.Done();
  b.Concat();
}

void InceptionD(ModelWalker* m) {
  Block b(m);
  Basic(b.Branch(), 192, 1);
  Basic(m, 320, 3, 2);
  b.Done();
  Basic(b.Branch(), 192, 1);
  Conv1x7(m, 192);
  Conv7x1(m, 192);
  Basic(m, 192, 3, 2);
  b.Done();
  b.Branch()->MaxPool(3, 2);
  b.Done();
  b.Concat();
}

// A 1x3 and a 3x1 conv, both from the current map, as two branch outputs.
void SplitPair(ModelWalker* m, Block* b) {
  const TensorShape from = m->shape();
  Basic(m, 384, 1, 3, 1, 0, 1);
  b->Done();
  m->set_shape(from);
  Basic(m, 384, 3, 1, 1, 1, 0);
  b->Done();
}

void InceptionE(ModelWalker* m) {
  Block b(m);
  Basic(b.Branch(), 320, 1);
  b.Done();
  Basic(b.Branch(), 384, 1);
  SplitPair(m, &b);
  Basic(b.Branch(), 448, 1);
  Basic(m, 384, 3, 1, 1);
  SplitPair(m, &b);
  b.Branch()->AvgPool(3, 1, 1);
  Basic(m, 192, 1);
  b.Done();
  b.Concat();
}

// AuxLogits on Mixed_6e's map, in training only: average pool 5x5/3,
// 1x1 -> 128, 5x5 -> 768, global average pool, fc.
void AuxLogits(ModelWalker* m, int classes) {
  const TensorShape from = m->shape();
  m->BeginTrainingOnly();
  m->AvgPool(5, 3);
  Basic(m, 128, 1);
  Basic(m, 768, 5);
  m->AdaptiveAvgPool(1);
  m->Linear(classes);
  m->EndTrainingOnly();
  m->set_shape(from);
}

}  // namespace

ModelCost InceptionV3Cost(const ModelInput& input) {
  ModelWalker m("inception_v3", input);
  Basic(&m, 32, 3, 2);      // Conv2d_1a_3x3
  Basic(&m, 32, 3);         // Conv2d_2a_3x3
  Basic(&m, 64, 3, 1, 1);   // Conv2d_2b_3x3
  m.MaxPool(3, 2);
  Basic(&m, 80, 1);         // Conv2d_3b_1x1
  Basic(&m, 192, 3);        // Conv2d_4a_3x3
  m.MaxPool(3, 2);
  InceptionA(&m, 32);       // Mixed_5b
  InceptionA(&m, 64);       // Mixed_5c
  InceptionA(&m, 64);       // Mixed_5d
  InceptionB(&m);           // Mixed_6a
  InceptionC(&m, 128);      // Mixed_6b
  InceptionC(&m, 160);      // Mixed_6c
  InceptionC(&m, 160);      // Mixed_6d
  InceptionC(&m, 192);      // Mixed_6e
  AuxLogits(&m, input.classes);
  InceptionD(&m);           // Mixed_7a
  InceptionE(&m);           // Mixed_7b
  InceptionE(&m);           // Mixed_7c
  m.AdaptiveAvgPool(1);
  m.Linear(input.classes);  // after Dropout(0.5)
  return m.Finish();
}

}  // namespace powersweep
