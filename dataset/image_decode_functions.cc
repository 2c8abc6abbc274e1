// decode_jpeg, decode_png and decode_image (image_functions.h).
#include "sluice/dataset/component_target.h"
#include "sluice/dataset/image_functions.h"
#include "sluice/dataset/image_spec.h"
#include "sluice/dataset/pipeline_spec.pb.h"

namespace sluice {
namespace {

// The bytes of a scalar string component, as a decoder reads them.
Result<std::string_view> EncodedBytes(const Tensor& t) {
  if (t.dtype() != DType::kString || t.rank() != 0) {
    return InvalidArgumentError("expected a scalar string of encoded bytes, got ", t.dtype(),
                                t.shape());
  }
  const TString& s = t.scalar<TString>();
  return std::string_view(s.data(), s.size());
}

// A decoder: `decode(bytes)` on one scalar string component. `Options` is
// the kernel's options struct; `ToSpecFn` writes them into a spec message.
template <typename Options>
class DecodeFunction final : public ElementFunction {
 public:
  using Decode = Result<Tensor> (*)(std::string_view, const Options&);
  using WriteSpec = void (*)(const std::string&, const Options&, spec::ElementFunction*);

  DecodeFunction(std::string component, Options options, std::string name, Decode decode,
                 WriteSpec write_spec)
      : target_(std::move(component), ComponentTarget::WhenEmpty::kOnly),
        options_(options),
        name_(std::move(name)),
        decode_(decode),
        write_spec_(write_spec) {}

  std::string name() const override { return name_; }
  Result<BoundElementFunction> Bind(const ElementSpec& input) const override {
    SLUICE_ASSIGN_OR_RETURN(std::vector<size_t> indices, target_.Resolve(name_, input));
    const size_t i = indices.front();
    SLUICE_ASSIGN_OR_RETURN(ElementSpec out, DecodedSpec(name_, input, i, options_.channels));
    auto apply = [name = name_, arity = input.size(), i, index = ElementIndexPosition(input),
                  context = StrCat(name_, ": component ", input.DisplayName(i)), options = options_,
                  decode = decode_](Element element) -> Result<Element> {
      SLUICE_RETURN_IF_ERROR(CheckComponentCount(name, arity, element));
      Result<Tensor> decoded = [&]() -> Result<Tensor> {
        SLUICE_ASSIGN_OR_RETURN(std::string_view bytes, EncodedBytes(element[i]));
        return decode(bytes, options);
      }();
      if (!decoded.ok()) {
        return NameFailedElement(decoded.status().WithContext(context), element[i], ElementIndex(element, index));
      }
      element[i] = *std::move(decoded);
      return element;
    };
    return BoundElementFunction{
        .output_spec = std::move(out),
        .apply = std::move(apply),
        .row_wise = false};  // one image per call: a run of strings decodes to unequal shapes
  }
  Status ToSpec(spec::ElementFunction* out) const override {
    write_spec_(target_.component(), options_, out);
    return OkStatus();
  }

 private:
  const ComponentTarget target_;
  const Options options_;
  const std::string name_;
  const Decode decode_;
  const WriteSpec write_spec_;
};

std::string MaxPixelsSuffix(int64_t max_pixels) {
  return max_pixels == kDefaultMaxImagePixels ? "" : StrCat(", max_pixels=", max_pixels);
}

void WriteDecodeJpeg(const std::string& component, const DecodeJpegOptions& options,
                     spec::ElementFunction* out) {
  spec::DecodeJpeg* node = out->mutable_decode_jpeg();
  node->set_component(component);
  node->set_channels(options.channels);
  node->set_ratio(options.ratio);
  node->set_dct_method(std::string(JpegDctMethodName(options.dct_method)));
  node->set_max_pixels(options.max_pixels);
}
void WriteDecodePng(const std::string& component, const DecodePngOptions& options,
                    spec::ElementFunction* out) {
  spec::DecodePng* node = out->mutable_decode_png();
  node->set_component(component);
  node->set_channels(options.channels);
  node->set_max_pixels(options.max_pixels);
}
void WriteDecodeImage(const std::string& component, const DecodeImageOptions& options,
                      spec::ElementFunction* out) {
  spec::DecodeImage* node = out->mutable_decode_image();
  node->set_component(component);
  node->set_channels(options.channels);
  node->set_max_pixels(options.max_pixels);
}

}  // namespace

Result<ElementFunctionPtr> MakeDecodeJpegFunction(std::string component,
                                                  DecodeJpegOptions options) {
  Status valid = CheckDecodeJpegOptions(options);
  if (!valid.ok()) return valid.WithContext("decode_jpeg");
  std::string name = StrCat("decode_jpeg(", ComponentPrefix(component), "channels=",
                            options.channels, ", ratio=", options.ratio, ", dct=",
                            JpegDctMethodName(options.dct_method),
                            MaxPixelsSuffix(options.max_pixels), ")");
  return ElementFunctionPtr(std::make_shared<DecodeFunction<DecodeJpegOptions>>(
      std::move(component), options, std::move(name), DecodeJpeg, WriteDecodeJpeg));
}

Result<ElementFunctionPtr> MakeDecodePngFunction(std::string component, DecodePngOptions options) {
  Status valid = CheckDecodePngOptions(options);
  if (!valid.ok()) return valid.WithContext("decode_png");
  std::string name = StrCat("decode_png(", ComponentPrefix(component), "channels=",
                            options.channels, MaxPixelsSuffix(options.max_pixels), ")");
  return ElementFunctionPtr(std::make_shared<DecodeFunction<DecodePngOptions>>(
      std::move(component), options, std::move(name), DecodePng, WriteDecodePng));
}

Result<ElementFunctionPtr> MakeDecodeImageFunction(std::string component,
                                                   DecodeImageOptions options) {
  Status valid = CheckDecodeImageOptions(options);
  if (!valid.ok()) return valid.WithContext("decode_image");
  std::string name = StrCat("decode_image(", ComponentPrefix(component), "channels=",
                            options.channels, MaxPixelsSuffix(options.max_pixels), ")");
  return ElementFunctionPtr(std::make_shared<DecodeFunction<DecodeImageOptions>>(
      std::move(component), options, std::move(name), DecodeImage, WriteDecodeImage));
}

Result<ElementFunctionPtr> ImageDecodeFunctionFromSpec(const spec::ElementFunction& fn) {
  switch (fn.fn_case()) {
    case spec::ElementFunction::kDecodeJpeg: {
      const spec::DecodeJpeg& node = fn.decode_jpeg();
      DecodeJpegOptions options{.channels = node.channels()};
      if (node.has_ratio()) options.ratio = node.ratio();
      if (!node.dct_method().empty()) {
        Result<JpegDctMethod> method = ParseJpegDctMethod(node.dct_method());
        if (!method.ok()) return method.status().WithContext("decode_jpeg: dct_method");
        options.dct_method = *method;
      }
      if (node.has_max_pixels()) options.max_pixels = node.max_pixels();
      return MakeDecodeJpegFunction(node.component(), options);
    }
    case spec::ElementFunction::kDecodePng: {
      const spec::DecodePng& node = fn.decode_png();
      DecodePngOptions options{.channels = node.channels()};
      if (node.has_max_pixels()) options.max_pixels = node.max_pixels();
      return MakeDecodePngFunction(node.component(), options);
    }
    case spec::ElementFunction::kDecodeImage: {
      const spec::DecodeImage& node = fn.decode_image();
      DecodeImageOptions options{.channels = node.channels()};
      if (node.has_max_pixels()) options.max_pixels = node.max_pixels();
      return MakeDecodeImageFunction(node.component(), options);
    }
    default: break;
  }
  return InternalError("ImageDecodeFunctionFromSpec: not a decode function");
}

}  // namespace sluice
