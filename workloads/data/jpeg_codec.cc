#include "workloads/data/jpeg_codec.h"

#include <turbojpeg.h>

#include <memory>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace powersweep {
namespace {

struct TjDestroyer {
  void operator()(void* handle) const { tjDestroy(handle); }
};
using TjHandle = std::unique_ptr<void, TjDestroyer>;

// This thread's decompressor (created on first use), or nullptr.
tjhandle Decompressor() {
  thread_local TjHandle handle(tjInitDecompress());
  return handle.get();
}

tjhandle Compressor() {
  thread_local TjHandle handle(tjInitCompress());
  return handle.get();
}

absl::Status DecodeError(const std::string& path, tjhandle handle,
                         const char* what) {
  return absl::DataLossError(absl::StrCat(path, ": corrupt or truncated JPEG (",
                                          what, ": ", tjGetErrorStr2(handle),
                                          ")"));
}

}  // namespace

absl::StatusOr<JpegHeader> ReadJpegHeader(const std::string& path,
                                          const std::string& bytes) {
  tjhandle tj = Decompressor();
  if (tj == nullptr) {
    return absl::InternalError(absl::StrCat(
        path,
        ": cannot create a JPEG decompressor: ", tjGetErrorStr2(nullptr)));
  }
  int width = 0, height = 0, subsamp = 0, colorspace = 0;
  if (tjDecompressHeader3(
          tj, reinterpret_cast<const unsigned char*>(bytes.data()),
          bytes.size(), &width, &height, &subsamp, &colorspace) != 0) {
    return DecodeError(path, tj, "header");
  }
  if (width < 1 || height < 1) {
    return absl::DataLossError(
        absl::StrFormat("%s: corrupt JPEG: %dx%d pixels", path, width, height));
  }
  return JpegHeader{width, height, colorspace == TJCS_GRAY};
}

absl::StatusOr<DecodedImage> DecodeJpeg(const std::string& path,
                                        const std::string& bytes,
                                        Size2 min_size) {
  absl::StatusOr<JpegHeader> header = ReadJpegHeader(path, bytes);
  if (!header.ok()) return header.status();
  tjhandle tj = Decompressor();
  // The smallest scaling whose result still covers min_size.
  int n = 0;
  const tjscalingfactor* factors = tjGetScalingFactors(&n);
  DecodedImage img;
  img.width = header->width;
  img.height = header->height;
  const bool full = min_size.width <= 0 && min_size.height <= 0;
  for (int i = 0; !full && factors != nullptr && i < n; ++i) {
    const int w = TJSCALED(header->width, factors[i]);
    const int h = TJSCALED(header->height, factors[i]);
    if (w >= min_size.width && h >= min_size.height && w >= 1 && h >= 1 &&
        static_cast<int64_t>(w) * h <
            static_cast<int64_t>(img.width) * img.height) {
      img.width = w;
      img.height = h;
    }
  }
  img.rgb.resize(static_cast<size_t>(img.width) * img.height * 3);
  if (tjDecompress2(tj, reinterpret_cast<const unsigned char*>(bytes.data()),
                    bytes.size(), img.rgb.data(), img.width, 0, img.height,
                    TJPF_RGB, TJFLAG_ACCURATEDCT | TJFLAG_STOPONWARNING) != 0) {
    return DecodeError(path, tj, "decoding");
  }
  return img;
}

absl::StatusOr<std::string> EncodeJpeg(const ImageView& image, int quality) {
  if (quality < 1 || quality > 100) {
    return absl::InvalidArgumentError(
        absl::StrFormat("JPEG quality %d is outside 1..100", quality));
  }
  if (image.channels != 1 && image.channels != 3) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "JPEG images have 1 or 3 channels, not %d", image.channels));
  }
  tjhandle tj = Compressor();
  if (tj == nullptr) {
    return absl::InternalError(absl::StrCat("cannot create a JPEG compressor: ",
                                            tjGetErrorStr2(nullptr)));
  }
  unsigned char* jpeg = nullptr;
  unsigned long size = 0;
  const bool grey = image.channels == 1;
  const int rc =
      tjCompress2(tj, image.pixels, image.width, 0, image.height,
                  grey ? TJPF_GRAY : TJPF_RGB, &jpeg, &size,
                  grey ? TJSAMP_GRAY : TJSAMP_420, quality, TJFLAG_ACCURATEDCT);
  if (rc != 0) {
    if (jpeg != nullptr) tjFree(jpeg);
    return absl::InternalError(
        absl::StrCat("JPEG compression failed: ", tjGetErrorStr2(tj)));
  }
  std::string out(reinterpret_cast<const char*>(jpeg), size);
  tjFree(jpeg);
  return out;
}

}  // namespace powersweep
