#include "workloads/data/speech_format.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"

namespace powersweep {

int CharacterId(char c) {
  for (int i = 0; kSpeechAlphabet[i] != '\0'; ++i) {
    if (kSpeechAlphabet[i] == c) return i + 1;
  }
  return 0;
}

char IdCharacter(int id) {
  return id >= 1 && id < kSpeechClasses ? kSpeechAlphabet[id - 1] : '?';
}

std::vector<int> TranscriptIds(const std::string& text) {
  std::vector<int> ids;
  ids.reserve(text.size());
  for (char c : text) ids.push_back(CharacterId(c));
  return ids;
}

std::string IdsToText(const std::vector<int64_t>& ids) {
  std::string s;
  for (int64_t id : ids) {
    if (id != 0) s.push_back(IdCharacter(static_cast<int>(id)));
  }
  return s;
}

std::string SpeechManifestName(Split split) {
  return absl::StrCat(SplitName(split), "-transcripts.tsv");
}

std::string SpeechAudioFolder(Split split) { return SplitName(split); }

absl::Status CheckTranscript(const std::string& text) {
  if (text.empty()) return absl::InvalidArgumentError("empty transcript");
  if (text.size() > static_cast<size_t>(kMaxTranscriptChars)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "transcript of %d characters (at most %d: the transcript row of a "
        "sample holds mel bands - 2)",
        text.size(), kMaxTranscriptChars));
  }
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (CharacterId(c) == 0) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "character %s at %d is not in the alphabet (space, apostrophe, "
          "a-z)",
          c >= 0x20 && c < 0x7f ? absl::StrCat("'", std::string(1, c), "'")
                                : absl::StrFormat("0x%02x",
                                                  static_cast<uint8_t>(c)),
          i));
    }
    if (c == ' ' && (i == 0 || i + 1 == text.size() || text[i - 1] == ' ')) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "leading, trailing or doubled space at %d", i));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<Utterance>> ParseSpeechManifest(
    const std::string& text, const std::string& name) {
  std::vector<Utterance> out;
  int line_no = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_no;
    if (line.empty()) continue;
    const size_t tab = line.find('\t');
    if (tab == absl::string_view::npos) {
      return absl::DataLossError(absl::StrFormat(
          "%s:%d: no tab between the WAV path and the transcript", name,
          line_no));
    }
    Utterance u{std::string(line.substr(0, tab)),
                std::string(line.substr(tab + 1))};
    if (u.wav.empty() || u.wav[0] == '/' ||
        u.wav.find("..") != std::string::npos) {
      return absl::DataLossError(absl::StrFormat(
          "%s:%d: WAV path '%s' must be relative to the data set's directory "
          "and stay inside it",
          name, line_no, u.wav));
    }
    absl::Status st = CheckTranscript(u.transcript);
    if (!st.ok()) {
      return absl::DataLossError(
          absl::StrFormat("%s:%d: %s", name, line_no, st.message()));
    }
    out.push_back(std::move(u));
  }
  if (out.empty()) {
    return absl::DataLossError(absl::StrCat(name, ": no utterances"));
  }
  return out;
}

std::string FormatSpeechManifest(const std::vector<Utterance>& utterances) {
  std::string out;
  for (const Utterance& u : utterances) {
    absl::StrAppend(&out, u.wav, "\t", u.transcript, "\n");
  }
  return out;
}

}  // namespace powersweep
