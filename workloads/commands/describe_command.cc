// RunDescribeCommand (commands.h).
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/log.h"
#include "workloads/commands/commands.h"
#include "workloads/models/model.h"
#include "workloads/torch_status.h"

namespace powersweep {

int RunDescribeCommand(const DescribeArgs& args, std::ostream& out) {
  if (args.model.empty()) {
    PS_LOG(ERROR) << "--model: required (e.g. resnet18)";
    return 2;
  }
  ModelOptions options;
  options.num_classes = args.classes;
  options.input_size = args.input_size;
  options.seq_len = args.seq_len;
  options.gen_tokens = args.gen_tokens;
  options.vocab = args.vocab;
  absl::StatusOr<ModelDescription> d = absl::UnknownError("not described");
  absl::Status st = CatchTorchErrors("describe", [&] {
    d = DescribeModel(args.model, options);
    return d.status();
  });
  if (!st.ok()) {
    PS_LOG(ERROR) << st.message();
    return st.code() == absl::StatusCode::kInvalidArgument ? 2 : 1;
  }
  if (args.json) {
    out << absl::StrFormat(
        "{\"model\":\"%s\",\"params\":%d,\"trainable_params\":%d,"
        "\"forward_macs\":%d,\"input_shape\":[%s],\"num_classes\":%d%s}\n",
        d->name, d->params, d->trainable_params, d->forward_macs,
        absl::StrJoin(d->input_shape, ","), d->num_classes,
        d->vocab > 0 ? absl::StrFormat(",\"seq_len\":%d,\"vocab\":%d%s",
                                       d->seq_len, d->vocab,
                                       d->gen_tokens > 0
                                           ? absl::StrFormat(
                                                 ",\"gen_tokens\":%d",
                                                 d->gen_tokens)
                                           : "")
                     : "");
  } else {
    out << FormatModelDescription(*d);
  }
  return 0;
}

}  // namespace powersweep
