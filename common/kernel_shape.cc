#include "common/kernel_shape.h"

#include <algorithm>
#include <map>
#include <optional>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/kernel_names.h"

namespace powersweep {
namespace {

// Source: github.com/baidu-research/DeepBench (commit da81ba78, 2020),
// code/kernels/gemm_problems.h, conv_problems.h and rnn_problems.h; the
// row number is the 1-based position in the named set. conv tuples there
// are (w, h, c, n, k, filter_w (s), filter_h (r), pad_w, pad_h, wstride,
// hstride); rnn tuples (hidden, batch, timesteps, cell).
const std::vector<KernelTableRow>* BuildTable() {
  return new std::vector<KernelTableRow>{
    {"gemm", "deepbench-train-1", "m1760-n16-k1760-nn"},
    {"gemm", "deepbench-train-2", "m1760-n32-k1760-nn"},
    {"gemm", "deepbench-train-5", "m1760-n7000-k1760-nn"},
    {"gemm", "deepbench-train-21", "m1760-n16-k1760-tn"},
    {"gemm", "deepbench-train-41", "m1760-n7133-k1760-nt"},
    {"gemm", "deepbench-train-45", "m5124-n9124-k1760-nn"},
    {"gemm", "deepbench-train-46", "m35-n8457-k1760-nn"},
    {"gemm", "deepbench-train-61", "m7680-n16-k2560-nn"},
    {"gemm", "deepbench-train-69", "m3072-n16-k1024-nn"},
    {"gemm", "deepbench-server-1", "m5124-n700-k2048-nn"},
    {"gemm", "deepbench-server-2", "m35-n700-k2048-nn"},
    {"gemm", "deepbench-server-9", "m7680-n1-k2560-nn"},
    {"gemm", "deepbench-server-12", "m3072-n1-k1024-nn"},
    {"gemm", "deepbench-server-21", "m1024-n700-k512-nn"},
    {"gemm", "deepbench-device-1", "m5124-n700-k2048-nn"},
    {"gemm", "deepbench-device-2", "m35-n700-k2048-nn"},
    {"gemm", "deepbench-device-3", "m3072-n1-k1024-nn"},
    {"gemm", "deepbench-device-4", "m64-n1-k1216-nn"},
    {"gemm", "deepbench-device-5", "m3072-n1500-k1024-nn"},
    {"gemm", "deepbench-device-6", "m128-n1500-k1280-nn"},
    {"gemm", "deepbench-device-7", "m3072-n1500-k128-nn"},
    {"gemm", "deepbench-device-8", "m128-n1-k1024-nn"},
    {"gemm", "deepbench-device-9", "m3072-n1-k128-nn"},
    {"gemm", "deepbench-device-10", "m176-n1500-k1408-nn"},
    {"gemm", "deepbench-device-11", "m4224-n1500-k176-nn"},
    {"gemm", "deepbench-device-12", "m128-n1-k1408-nn"},
    {"gemm", "deepbench-device-13", "m4224-n1-k128-nn"},
    {"conv", "deepbench-train-1", "n4-c1-h161-w700-k32-r5-s20-pad0-stride2-fwd"},
    {"conv", "deepbench-train-5", "n4-c32-h79-w341-k32-r5-s10-pad0-stride2-fwd"},
    {"conv", "deepbench-train-9", "n16-c1-h48-w480-k16-r3-s3-pad1-stride1-fwd"},
    {"conv", "deepbench-train-13", "n8-c3-h108-w108-k64-r3-s3-pad1-stride2-fwd"},
    {"conv", "deepbench-train-18", "n8-c3-h224-w224-k64-r3-s3-pad1-stride1-fwd"},
    {"conv", "deepbench-train-24", "n16-c3-h224-w224-k64-r3-s3-pad1-stride1-fwd"},
    {"conv", "deepbench-train-30", "n16-c3-h224-w224-k64-r7-s7-pad3-stride2-fwd"},
    {"conv", "deepbench-train-31", "n16-c192-h28-w28-k32-r5-s5-pad2-stride1-fwd"},
    {"conv", "deepbench-train-37", "n8-c64-h56-w56-k64-r3-s3-pad1-stride1-fwd"},
    {"conv", "deepbench-train-38", "n8-c64-h56-w56-k256-r1-s1-pad0-stride2-fwd"},
    {"conv", "deepbench-train-46", "n16-c64-h56-w56-k64-r3-s3-pad1-stride1-fwd"},
    {"conv", "deepbench-train-55", "n16-c1-h161-w700-k64-r5-s5-pad1-stride2-fwd"},
    {"conv", "deepbench-server-1", "n1-c1-h161-w700-k32-r5-s20-pad0-stride2-fwd"},
    {"conv", "deepbench-server-16", "n1-c3-h224-w224-k64-r3-s3-pad1-stride1-fwd"},
    {"conv", "deepbench-server-28", "n1-c3-h224-w224-k64-r7-s7-pad3-stride2-fwd"},
    {"conv", "deepbench-device-1", "n1-c64-h112-w112-k64-r1-s1-pad0-stride1-fwd"},
    {"conv", "deepbench-device-2", "n1-c64-h56-w56-k256-r1-s1-pad0-stride1-fwd"},
    {"conv", "deepbench-device-3", "n1-c256-h56-w56-k64-r1-s1-pad0-stride1-fwd"},
    {"conv", "deepbench-device-4", "n1-c256-h56-w56-k128-r1-s1-pad0-stride2-fwd"},
    {"conv", "deepbench-device-5", "n1-c128-h28-w28-k512-r1-s1-pad0-stride1-fwd"},
    {"conv", "deepbench-device-6", "n1-c512-h28-w28-k128-r1-s1-pad0-stride1-fwd"},
    {"conv", "deepbench-device-7", "n1-c512-h28-w28-k256-r1-s1-pad0-stride2-fwd"},
    {"conv", "deepbench-device-8", "n1-c256-h14-w14-k1024-r1-s1-pad0-stride1-fwd"},
    {"conv", "deepbench-device-9", "n1-c512-h28-w28-k1024-r1-s1-pad0-stride2-fwd"},
    {"conv", "deepbench-device-10", "n1-c1024-h14-w14-k256-r1-s1-pad0-stride1-fwd"},
    {"conv", "deepbench-device-11", "n1-c256-h14-w14-k1024-r1-s1-pad0-stride1-fwd"},
    {"conv", "deepbench-device-12", "n1-c1024-h14-w14-k512-r1-s1-pad0-stride2-fwd"},
    {"conv", "deepbench-device-13", "n1-c512-h7-w7-k512-r3-s3-pad1-stride1-fwd"},
    {"conv", "deepbench-device-14", "n1-c512-h7-w7-k2048-r1-s1-pad0-stride1-fwd"},
    {"conv", "deepbench-device-15", "n1-c1024-h14-w14-k2048-r1-s1-pad0-stride2-fwd"},
    {"conv", "deepbench-device-16", "n1-c2048-h7-w7-k512-r1-s1-pad0-stride1-fwd"},
    {"rnn", "deepbench-train-1", "vanilla-h1760-b16-t50-fwdbwd"},
    {"rnn", "deepbench-train-2", "vanilla-h1760-b32-t50-fwdbwd"},
    {"rnn", "deepbench-train-13", "lstm-h512-b16-t25-fwdbwd"},
    {"rnn", "deepbench-train-14", "lstm-h512-b32-t25-fwdbwd"},
    {"rnn", "deepbench-train-32", "lstm-h256-b16-t150-fwdbwd"},
    {"rnn", "deepbench-train-35", "gru-h2816-b32-t1500-fwdbwd"},
    {"rnn", "deepbench-train-51", "gru-h512-b32-t1-fwdbwd"},
    {"rnn", "deepbench-server-1", "lstm-h512-b1-t25-fwd"},
    {"rnn", "deepbench-server-13", "lstm-h256-b1-t150-fwd"},
    {"rnn", "deepbench-server-64", "gru-h512-b1-t1-fwd"},
    {"rnn", "deepbench-device-1", "vanilla-h32-b1-t672-fwd"},
    {"rnn", "deepbench-device-2", "vanilla-h64-b1-t96-fwd"},
    {"rnn", "deepbench-device-3", "lstm-h256-b1-t150-fwd"},
  };
}

constexpr const char* kConvPasses[] = {"fwd", "bwd-data", "bwd-filter"};
constexpr const char* kRnnPasses[] = {"fwd", "fwdbwd"};

absl::Status Bad(absl::string_view kernel, absl::string_view shape,
                 absl::string_view reason) {
  return absl::InvalidArgumentError(
      absl::StrCat(kernel, " shape '", shape, "': ", reason));
}

// "m1760" -> {"m", 1760}; a bare word -> {word, nullopt}.
struct Token {
  std::string key;
  std::optional<int64_t> value;
  std::string text;
};

absl::StatusOr<std::vector<Token>> Tokenize(absl::string_view kernel,
                                            absl::string_view shape) {
  if (shape.empty()) return Bad(kernel, shape, "empty");
  std::vector<std::string> parts = absl::StrSplit(shape, '-');
  std::vector<Token> tokens;
  for (size_t i = 0; i < parts.size(); ++i) {
    std::string part = parts[i];
    // "bwd-data" and "bwd-filter" are one token.
    if (part == "bwd" && i + 1 < parts.size() &&
        (parts[i + 1] == "data" || parts[i + 1] == "filter")) {
      part = absl::StrCat(part, "-", parts[++i]);
    }
    if (part.empty()) return Bad(kernel, shape, "empty token (two '-' in a row)");
    size_t digit = 0;
    while (digit < part.size() && absl::ascii_isalpha(part[digit])) ++digit;
    Token t;
    t.text = part;
    if (digit == part.size() || part.find('-') != std::string::npos) {
      t.key = part;
    } else {
      t.key = part.substr(0, digit);
      int64_t v = 0;
      if (digit == 0 || !absl::SimpleAtoi(part.substr(digit), &v) ||
          part[digit] == '+' || part[digit] == '-') {
        return Bad(kernel, shape,
                   absl::StrCat("token '", part,
                                "' is not a name followed by a number"));
      }
      if (v < 0 || v > kMaxKernelDim) {
        return Bad(kernel, shape,
                   absl::StrCat(t.key, " is ", v, ", outside 0..",
                                kMaxKernelDim));
      }
      t.value = v;
    }
    tokens.push_back(std::move(t));
  }
  return tokens;
}

// Collects numeric tokens by key and at most one bare word from `words`.
struct Fields {
  std::map<std::string, int64_t> numbers;
  std::string word;  // "" when none
};

absl::StatusOr<Fields> Collect(absl::string_view kernel, absl::string_view shape,
                               const std::vector<Token>& tokens,
                               const std::vector<std::string>& keys,
                               const std::vector<std::string>& words) {
  Fields f;
  for (const Token& t : tokens) {
    if (t.value.has_value()) {
      if (std::find(keys.begin(), keys.end(), t.key) == keys.end()) {
        return Bad(kernel, shape,
                   absl::StrCat("unknown field '", t.key, "' in '", t.text,
                                "' (fields: ", absl::StrJoin(keys, ", "), ")"));
      }
      if (!f.numbers.emplace(t.key, *t.value).second) {
        return Bad(kernel, shape, absl::StrCat("field '", t.key, "' given twice"));
      }
    } else {
      if (std::find(words.begin(), words.end(), t.key) == words.end()) {
        return Bad(kernel, shape,
                   absl::StrCat("unknown word '", t.key, "' (expected one of ",
                                absl::StrJoin(words, ", "), ")"));
      }
      if (!f.word.empty()) {
        return Bad(kernel, shape,
                   absl::StrCat("'", f.word, "' and '", t.key,
                                "' both given; give one"));
      }
      f.word = t.key;
    }
  }
  return f;
}

absl::StatusOr<int64_t> Required(absl::string_view kernel,
                                 absl::string_view shape, const Fields& f,
                                 const std::string& key, const char* what) {
  auto it = f.numbers.find(key);
  if (it == f.numbers.end()) {
    return Bad(kernel, shape,
               absl::StrCat("missing field ", key, "<", what, ">"));
  }
  if (it->second < 1) {
    return Bad(kernel, shape, absl::StrCat(key, " (", what, ") must be >= 1"));
  }
  return it->second;
}

int64_t Optional(const Fields& f, const std::string& key, int64_t dflt) {
  auto it = f.numbers.find(key);
  return it == f.numbers.end() ? dflt : it->second;
}

absl::StatusOr<GemmShape> ParseGemm(absl::string_view shape,
                                    const std::vector<Token>& tokens) {
  absl::StatusOr<Fields> f = Collect("gemm", shape, tokens, {"m", "n", "k"},
                                     {"nn", "tn", "nt", "tt"});
  if (!f.ok()) return f.status();
  GemmShape g;
  absl::StatusOr<int64_t> v = Required("gemm", shape, *f, "m", "rows of C");
  if (!v.ok()) return v.status();
  g.m = *v;
  v = Required("gemm", shape, *f, "n", "columns of C");
  if (!v.ok()) return v.status();
  g.n = *v;
  v = Required("gemm", shape, *f, "k", "inner dimension");
  if (!v.ok()) return v.status();
  g.k = *v;
  const std::string t = f->word.empty() ? "nn" : f->word;
  g.transpose_a = t[0] == 't';
  g.transpose_b = t[1] == 't';
  return g;
}

absl::StatusOr<ConvShape> ParseConv(absl::string_view shape,
                                    const std::vector<Token>& tokens) {
  absl::StatusOr<Fields> f = Collect(
      "conv", shape, tokens,
      {"n", "c", "h", "w", "k", "r", "s", "pad", "padh", "padw", "stride",
       "strideh", "stridew"},
      {"fwd", "bwd-data", "bwd-filter"});
  if (!f.ok()) return f.status();
  ConvShape c;
  struct Dim {
    const char* key;
    const char* what;
    int64_t* out;
  };
  for (const Dim& d : {Dim{"n", "batch", &c.n}, Dim{"c", "input channels", &c.c},
                       Dim{"h", "input height", &c.h},
                       Dim{"w", "input width", &c.w},
                       Dim{"k", "filters", &c.k},
                       Dim{"r", "filter height", &c.r},
                       Dim{"s", "filter width", &c.s}}) {
    absl::StatusOr<int64_t> v = Required("conv", shape, *f, d.key, d.what);
    if (!v.ok()) return v.status();
    *d.out = *v;
  }
  if (f->numbers.count("pad") &&
      (f->numbers.count("padh") || f->numbers.count("padw"))) {
    return Bad("conv", shape, "give pad or padh/padw, not both");
  }
  if (f->numbers.count("stride") &&
      (f->numbers.count("strideh") || f->numbers.count("stridew"))) {
    return Bad("conv", shape, "give stride or strideh/stridew, not both");
  }
  const int64_t pad = Optional(*f, "pad", 0);
  c.pad_h = Optional(*f, "padh", pad);
  c.pad_w = Optional(*f, "padw", pad);
  const int64_t stride = Optional(*f, "stride", 1);
  c.stride_h = Optional(*f, "strideh", stride);
  c.stride_w = Optional(*f, "stridew", stride);
  if (c.stride_h < 1 || c.stride_w < 1) {
    return Bad("conv", shape, "stride must be >= 1");
  }
  if (c.r > c.h + 2 * c.pad_h || c.s > c.w + 2 * c.pad_w) {
    return Bad("conv", shape,
               absl::StrCat("the ", c.r, "x", c.s, " filter does not fit the ",
                            c.h, "x", c.w, " input with padding ", c.pad_h,
                            "x", c.pad_w));
  }
  if (f->word == "bwd-data") c.pass = ConvPass::kBackwardData;
  if (f->word == "bwd-filter") c.pass = ConvPass::kBackwardFilter;
  return c;
}

absl::StatusOr<RnnShape> ParseRnn(absl::string_view shape,
                                  const std::vector<Token>& tokens) {
  // The cell is a bare word like the pass: split them first.
  std::vector<Token> rest;
  std::optional<RnnCell> cell;
  for (const Token& t : tokens) {
    std::optional<RnnCell> c;
    if (!t.value.has_value()) {
      if (t.key == "vanilla") c = RnnCell::kVanilla;
      if (t.key == "lstm") c = RnnCell::kLstm;
      if (t.key == "gru") c = RnnCell::kGru;
    }
    if (!c.has_value()) {
      rest.push_back(t);
      continue;
    }
    if (cell.has_value()) return Bad("rnn", shape, "more than one cell given");
    cell = c;
  }
  if (!cell.has_value()) {
    return Bad("rnn", shape, "missing the cell: vanilla, lstm or gru");
  }
  absl::StatusOr<Fields> f =
      Collect("rnn", shape, rest, {"h", "b", "t"}, {"fwd", "fwdbwd"});
  if (!f.ok()) return f.status();
  RnnShape r;
  r.cell = *cell;
  absl::StatusOr<int64_t> v = Required("rnn", shape, *f, "h", "hidden size");
  if (!v.ok()) return v.status();
  r.hidden = *v;
  v = Required("rnn", shape, *f, "b", "batch");
  if (!v.ok()) return v.status();
  r.batch = *v;
  v = Required("rnn", shape, *f, "t", "time steps");
  if (!v.ok()) return v.status();
  r.steps = *v;
  r.backward = f->word == "fwdbwd";
  return r;
}

absl::StatusOr<KernelShape> ParseExplicit(absl::string_view kernel,
                                          absl::string_view shape) {
  absl::StatusOr<std::vector<Token>> tokens = Tokenize(kernel, shape);
  if (!tokens.ok()) return tokens.status();
  KernelShape out;
  if (kernel == "gemm") {
    out.family = KernelFamily::kGemm;
    absl::StatusOr<GemmShape> g = ParseGemm(shape, *tokens);
    if (!g.ok()) return g.status();
    out.gemm = *g;
  } else if (kernel == "conv") {
    out.family = KernelFamily::kConv;
    absl::StatusOr<ConvShape> c = ParseConv(shape, *tokens);
    if (!c.ok()) return c.status();
    out.conv = *c;
  } else {
    out.family = KernelFamily::kRnn;
    absl::StatusOr<RnnShape> r = ParseRnn(shape, *tokens);
    if (!r.ok()) return r.status();
    out.rnn = *r;
  }
  const KernelCost cost = KernelCostOf(out);
  if (!(cost.footprint_bytes <= kMaxKernelFootprintBytes)) {
    return Bad(kernel, shape,
               absl::StrCat("needs ", cost.footprint_bytes / 1e9,
                            " GB, more than the ",
                            kMaxKernelFootprintBytes / 1e9,
                            " GB any device has"));
  }
  return out;
}

const KernelTableRow* FindRow(absl::string_view kernel, absl::string_view name) {
  for (const KernelTableRow& row : KernelTable()) {
    if (kernel == row.kernel && name == row.name) return &row;
  }
  return nullptr;
}

// Kernel launches of one iteration of torch::nn::{RNN,LSTM,GRU} on
// LibTorch 1.13's CPU path as workloads/kernels/launch_counter.h counts
// them, per time step and per call: the counts powersweep-workload
// measured (tests/workloads/kernel_binary_test.cc checks that they still
// agree). They do not depend on the sizes. Forward: one addmm for the
// input projection of all steps, then per step the hidden projection
// (addmm and its bias copy), the gate arithmetic (add, sigmoid, tanh,
// mul, ...) and the output copy; backward the gradients of each.
double RnnLaunchesPerIteration(const RnnShape& r) {
  struct PerCell {
    double fwd_step, fwd_call, bwd_step, bwd_call;
  };
  PerCell p{4, 6, 9, 11};                                  // vanilla (tanh)
  if (r.cell == RnnCell::kLstm) p = PerCell{12, 9, 22, 9};
  if (r.cell == RnnCell::kGru) p = PerCell{12, 6, 25, 10};
  double n = r.steps * p.fwd_step + p.fwd_call;
  if (r.backward) n += r.steps * p.bwd_step + p.bwd_call;
  return n;
}

}  // namespace

int RnnShape::Gates() const {
  switch (cell) {
    case RnnCell::kVanilla:
      return 1;
    case RnnCell::kLstm:
      return 4;
    case RnnCell::kGru:
      return 3;
  }
  return 1;
}

const char* KernelShape::FamilyName() const {
  switch (family) {
    case KernelFamily::kGemm:
      return "gemm";
    case KernelFamily::kConv:
      return "conv";
    case KernelFamily::kRnn:
      return "rnn";
  }
  return "";
}

std::string KernelShape::Text() const {
  switch (family) {
    case KernelFamily::kGemm:
      return absl::StrCat("m", gemm.m, "-n", gemm.n, "-k", gemm.k, "-",
                          gemm.transpose_a ? "t" : "n",
                          gemm.transpose_b ? "t" : "n");
    case KernelFamily::kConv: {
      std::string pad = conv.pad_h == conv.pad_w
                            ? absl::StrCat("pad", conv.pad_h)
                            : absl::StrCat("padh", conv.pad_h, "-padw",
                                           conv.pad_w);
      std::string stride =
          conv.stride_h == conv.stride_w
              ? absl::StrCat("stride", conv.stride_h)
              : absl::StrCat("strideh", conv.stride_h, "-stridew",
                             conv.stride_w);
      return absl::StrCat("n", conv.n, "-c", conv.c, "-h", conv.h, "-w",
                          conv.w, "-k", conv.k, "-r", conv.r, "-s", conv.s,
                          "-", pad, "-", stride, "-",
                          kConvPasses[static_cast<int>(conv.pass)]);
    }
    case KernelFamily::kRnn: {
      const char* cell = rnn.cell == RnnCell::kVanilla ? "vanilla"
                         : rnn.cell == RnnCell::kLstm  ? "lstm"
                                                       : "gru";
      return absl::StrCat(cell, "-h", rnn.hidden, "-b", rnn.batch, "-t",
                          rnn.steps, "-", kRnnPasses[rnn.backward ? 1 : 0]);
    }
  }
  return "";
}

absl::StatusOr<KernelShape> ParseKernelShape(absl::string_view kernel,
                                             absl::string_view shape) {
  if (!IsKernelName(kernel)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "'", kernel, "' is not a kernel (kernels: ",
        absl::StrJoin(kKernelNames, ", "), ")"));
  }
  if (const KernelTableRow* row = FindRow(kernel, shape)) {
    return ParseExplicit(kernel, row->shape);
  }
  // A row name with a pass: "deepbench-train-18-bwd-data".
  const std::vector<const char*> passes =
      kernel == "conv" ? std::vector<const char*>(std::begin(kConvPasses),
                                                  std::end(kConvPasses))
      : kernel == "rnn" ? std::vector<const char*>(std::begin(kRnnPasses),
                                                   std::end(kRnnPasses))
                        : std::vector<const char*>{};
  for (const char* pass : passes) {
    const std::string suffix = absl::StrCat("-", pass);
    if (!absl::EndsWith(shape, suffix)) continue;
    const KernelTableRow* row =
        FindRow(kernel, shape.substr(0, shape.size() - suffix.size()));
    if (row == nullptr) continue;
    std::string text = row->shape;
    for (const char* p : passes) {
      // Row shapes end in their pass; swap it.
      const std::string old = absl::StrCat("-", p);
      if (absl::EndsWith(text, old) &&
          (absl::string_view(p) != "fwd" || !absl::EndsWith(text, "-fwdbwd"))) {
        text.resize(text.size() - old.size());
        break;
      }
    }
    return ParseExplicit(kernel, absl::StrCat(text, suffix));
  }
  if (absl::StartsWith(shape, "deepbench-")) {
    return Bad(kernel, shape,
               absl::StrCat("no such row in the built-in table (rows: ",
                            absl::StrJoin(KernelRowNames(kernel), ", "), ")"));
  }
  return ParseExplicit(kernel, shape);
}

KernelCost KernelCostOf(const KernelShape& s) {
  KernelCost c;
  constexpr double kF = 4;  // float32
  switch (s.family) {
    case KernelFamily::kGemm: {
      const double m = s.gemm.m, n = s.gemm.n, k = s.gemm.k;
      c.flops = 2 * m * n * k;
      c.bytes = kF * (m * k + k * n + m * n);
      c.footprint_bytes = c.bytes;
      c.launches = 1;  // one aten::mm under at::matmul_out
      break;
    }
    case KernelFamily::kConv: {
      const ConvShape& v = s.conv;
      const double oh = static_cast<double>(v.OutH());
      const double ow = static_cast<double>(v.OutW());
      const double in = static_cast<double>(v.n) * v.c * v.h * v.w;
      const double filt = static_cast<double>(v.k) * v.c * v.r * v.s;
      const double out = static_cast<double>(v.n) * v.k * oh * ow;
      // Each pass is one K x (C R S) x (OH OW) product per image.
      c.flops = 2.0 * v.n * v.k * v.c * v.r * v.s * oh * ow;
      c.bytes = kF * (in + filt + out);
      // Operands, the gradient the pass writes (its size is one of them)
      // and an im2col buffer of one image (C R S x OH OW).
      const double result = v.pass == ConvPass::kForward        ? 0
                            : v.pass == ConvPass::kBackwardData ? in
                                                                : filt;
      c.footprint_bytes =
          kF * (in + filt + out + result +
                static_cast<double>(v.c) * v.r * v.s * oh * ow);
      // Forward: aten::mkldnn_convolution; a backward pass:
      // aten::convolution_backward for the gradient asked for.
      c.launches = 1;
      break;
    }
    case KernelFamily::kRnn: {
      const RnnShape& r = s.rnn;
      const double g = r.Gates(), h = r.hidden, b = r.batch, t = r.steps;
      const double weights = g * h * (h + h) + 2 * g * h;  // W_ih, W_hh, biases
      // Per step: x W_ih^T and h W_hh^T, B x (G H) x H each.
      const double fwd = t * 2 * b * g * h * (h + h);
      // Backward: the input/state gradients and the weight gradients, each
      // as much work as the forward products.
      c.flops = r.backward ? 3 * fwd : fwd;
      const double io = t * b * (h + h + g * h);  // x, h, gates per step
      c.bytes = kF * (t * weights + io) * (r.backward ? 3 : 1);
      c.footprint_bytes = kF * (weights + io) * (r.backward ? 2 : 1);
      c.launches = RnnLaunchesPerIteration(r);
      break;
    }
  }
  return c;
}

const std::vector<KernelTableRow>& KernelTable() {
  static const std::vector<KernelTableRow>* const kTable = BuildTable();
  return *kTable;
}

std::vector<std::string> KernelRowNames(absl::string_view kernel) {
  std::vector<std::string> names;
  for (const KernelTableRow& row : KernelTable()) {
    if (kernel == row.kernel) names.push_back(row.name);
  }
  return names;
}

}  // namespace powersweep
