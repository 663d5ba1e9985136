// JPEG decoding and encoding with libjpeg-turbo's TurboJPEG API.
//
// DecodeJpeg decodes to 8-bit RGB (grey JPEGs are expanded to three equal
// channels) with the accurate integer DCT. When min_size asks for less than
// the image's size, it uses the smallest of libjpeg-turbo's DCT scaling
// factors (tjGetScalingFactors: 2/1 .. 1/8 in eighths) whose scaled image is
// still at least min_size in both sides, which makes decoding of large
// images several times faster; the caller resizes the rest of the way.
// Every libjpeg warning (e.g. "Premature end of JPEG file" for a truncated
// file, corrupt entropy data) is treated as an error, like a fatal one.
//
// Errors name `path` (used only in messages; the bytes are given) and carry
// libjpeg's reason: kDataLoss for anything the decoder rejects. EncodeJpeg
// returns kInternal on a compressor failure and kInvalidArgument for a bad
// quality or channel count.
//
// Thread-safe: each thread uses its own TurboJPEG handles (thread_local,
// freed when the thread exits).
#ifndef POWERSWEEP_WORKLOADS_DATA_JPEG_CODEC_H_
#define POWERSWEEP_WORKLOADS_DATA_JPEG_CODEC_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "workloads/data/image_ops.h"

namespace powersweep {

struct JpegHeader {
  int width = 0;
  int height = 0;
  bool grey = false;
};

struct DecodedImage {
  int width = 0;  // after DCT scaling
  int height = 0;
  std::vector<uint8_t> rgb;  // width * height * 3, interleaved
  ImageView view() const { return {rgb.data(), width, height, 3}; }
};

absl::StatusOr<JpegHeader> ReadJpegHeader(const std::string& path,
                                          const std::string& bytes);

// See the file comment; min_size {0, 0} decodes at full size.
absl::StatusOr<DecodedImage> DecodeJpeg(const std::string& path,
                                        const std::string& bytes,
                                        Size2 min_size);

// Encodes an RGB (3 channels, 4:2:0 chroma subsampling) or grey (1 channel)
// image at `quality` (1..100).
absl::StatusOr<std::string> EncodeJpeg(const ImageView& image, int quality);

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_DATA_JPEG_CODEC_H_
