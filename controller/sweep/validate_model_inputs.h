// Internal to sweep validation (validate.cc): the input options of the
// sweep's models, checked against the limits the workload binary applies
// (common/image_models.h, common/text_models.h), so a run that would fail
// at start is rejected at submit with the field named:
//
//   input_size  fits every image model of the sweep (lenet5, vae and dqn
//               take their own size only; AlexNet needs 63 and up;
//               Inception-v3 299 and up when it trains), and the sweep
//               runs an image model at all;
//   seq_len     fits every sequence model of the sweep (lstm_lm,
//               mobilebert, seq2seq, seq2seq_lstm, memnet) and
//               deepspeech2's window of spectrogram frames;
//   vocab       is a vocabulary a text set can have.
//
// Each appends one line per problem to `problems`. Pure; thread-safe.
#ifndef POWERSWEEP_CONTROLLER_SWEEP_VALIDATE_MODEL_INPUTS_H_
#define POWERSWEEP_CONTROLLER_SWEEP_VALIDATE_MODEL_INPUTS_H_

#include <string>
#include <vector>

#include "powersweep/v1/sweep.pb.h"

namespace powersweep {

void CheckModelInputs(const v1::SweepSpec& spec,
                      std::vector<std::string>* problems);

}  // namespace powersweep

#endif  // POWERSWEEP_CONTROLLER_SWEEP_VALIDATE_MODEL_INPUTS_H_
