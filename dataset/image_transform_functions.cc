// resize, center_crop and crop_mirror_normalize (image_functions.h).
#include "sluice/dataset/component_target.h"
#include "sluice/dataset/image_functions.h"
#include "sluice/dataset/image_spec.h"
#include "sluice/dataset/pipeline_spec.pb.h"
#include "sluice/ops/crop_image.h"

namespace sluice {
namespace {

// What a function makes of one image component's spec (the context is added
// by the caller), and of the image itself.
using OutputSpecFn = std::function<Result<ComponentSpec>(const ComponentSpec&, const ImageSpec&)>;
using KernelFn = std::function<Result<Tensor>(const Tensor&)>;
using WriteSpecFn = std::function<void(const std::string& component, spec::ElementFunction*)>;

// A function that replaces one image component by kernel(image). Row-wise
// on single images: every kernel takes a batch [N, H, W, C] as N images.
class ImageTransformFunction final : public ElementFunction {
 public:
  ImageTransformFunction(std::string component, std::string name, OutputSpecFn output_spec,
                         KernelFn kernel, WriteSpecFn write_spec)
      : target_(std::move(component), ComponentTarget::WhenEmpty::kOnly),
        name_(std::move(name)),
        output_spec_(std::move(output_spec)),
        kernel_(std::move(kernel)),
        write_spec_(std::move(write_spec)) {}

  std::string name() const override { return name_; }
  Result<BoundElementFunction> Bind(const ElementSpec& input) const override {
    SLUICE_ASSIGN_OR_RETURN(std::vector<size_t> indices, target_.Resolve(name_, input));
    const size_t i = indices.front();
    const std::string context = StrCat(name_, ": component ", input.DisplayName(i));
    Result<ImageSpec> image = ImageSpecOf(input[i]);
    if (!image.ok()) return InvalidArgumentError(context, " ", image.status().message());
    Result<ComponentSpec> out = output_spec_(input[i], *image);
    if (!out.ok()) return out.status().WithContext(context);
    std::vector<ComponentSpec> components = input.components();
    components[i] = *std::move(out);
    return BoundElementFunction{.output_spec = ElementSpec(std::move(components)),
                                .apply = TransformAt(name_, input, indices, kernel_),
                                .row_wise = image->dims.size() == 3};
  }
  Status ToSpec(spec::ElementFunction* out) const override {
    write_spec_(target_.component(), out);
    return OkStatus();
  }

 private:
  const ComponentTarget target_;
  const std::string name_;
  const OutputSpecFn output_spec_;
  const KernelFn kernel_;
  const WriteSpecFn write_spec_;
};

ElementFunctionPtr MakeTransform(std::string component, std::string name, OutputSpecFn output_spec,
                                 KernelFn kernel, WriteSpecFn write_spec) {
  return std::make_shared<ImageTransformFunction>(std::move(component), std::move(name),
                                                  std::move(output_spec), std::move(kernel),
                                                  std::move(write_spec));
}

// An image spec whose height and width become `height` x `width`.
ComponentSpec WithSize(const ComponentSpec& in, const ImageSpec& image, int64_t height,
                       int64_t width, DType dtype) {
  std::vector<int64_t> dims = image.dims;
  dims[image.h] = height;
  dims[image.h + 1] = width;
  return ComponentSpec{in.name, dtype, PartialShape(dims)};
}

// A crop of height x width fits an image spec wherever its dims are known.
Status CheckCropFits(const ImageSpec& image, int64_t height, int64_t width) {
  const int64_t h = image.dims[image.h], w = image.dims[image.h + 1];
  if ((h >= 0 && h < height) || (w >= 0 && w < width)) {
    return InvalidArgumentError("crop [", height, ", ", width, "] is larger than the image [", h,
                                ", ", w, "]");
  }
  return OkStatus();
}

template <typename T>
std::string JoinValues(const std::vector<T>& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) out += StrCat(i > 0 ? ", " : "", values[i]);
  return out + "]";
}

// [height, width] from a spec's repeated field.
Result<std::pair<int64_t, int64_t>> SizeField(std::string_view fn, std::string_view field,
                                              const google::protobuf::RepeatedField<int64_t>& size) {
  if (size.size() != 2) {
    return InvalidArgumentError(fn, ": ", field, " must be [height, width], got ", size.size(),
                                " values");
  }
  return std::pair<int64_t, int64_t>{size[0], size[1]};
}

}  // namespace

Result<ElementFunctionPtr> MakeResizeFunction(std::string component, ResizeOptions options) {
  Status valid = CheckResizeOptions(options);
  if (!valid.ok()) return valid.WithContext("resize");
  std::string name = StrCat("resize(", ComponentPrefix(component), options.height, "x",
                            options.width, ", ", ResizeMethodName(options.method),
                            options.antialias ? ", antialias" : "", ")");
  return MakeTransform(
      std::move(component), std::move(name),
      [options](const ComponentSpec& in, const ImageSpec& image) -> Result<ComponentSpec> {
        return WithSize(in, image, options.height, options.width,
                        ResizeOutputDType(in.dtype, options.method));
      },
      [options](const Tensor& t) { return ResizeImage(t, options); },
      [options](const std::string& component, spec::ElementFunction* out) {
        spec::Resize* node = out->mutable_resize();
        node->set_component(component);
        node->add_size(options.height);
        node->add_size(options.width);
        node->set_method(std::string(ResizeMethodName(options.method)));
        node->set_antialias(options.antialias);
      });
}

Result<ElementFunctionPtr> MakeCenterCropFunction(std::string component, int64_t height,
                                                  int64_t width) {
  if (height <= 0 || width <= 0) {
    return InvalidArgumentError("center_crop: size must be positive, got [", height, ", ", width, "]");
  }
  std::string name = StrCat("center_crop(", ComponentPrefix(component), height, "x", width, ")");
  return MakeTransform(
      std::move(component), std::move(name),
      [height, width](const ComponentSpec& in, const ImageSpec& image) -> Result<ComponentSpec> {
        SLUICE_RETURN_IF_ERROR(CheckCropFits(image, height, width));
        return WithSize(in, image, height, width, in.dtype);
      },
      [height, width](const Tensor& t) -> Result<Tensor> {
        SLUICE_ASSIGN_OR_RETURN(const ImageDims dims, ImageDimsOf(t));
        SLUICE_ASSIGN_OR_RETURN(const CropWindow window,
                                CenterCropWindow(dims.height, dims.width, height, width));
        return CropImage(t, window);
      },
      [height, width](const std::string& component, spec::ElementFunction* out) {
        spec::CenterCrop* node = out->mutable_center_crop();
        node->set_component(component);
        node->add_size(height);
        node->add_size(width);
      });
}

Result<ElementFunctionPtr> MakeCropMirrorNormalizeFunction(std::string component,
                                                           CropMirrorNormalizeOptions options) {
  Status valid = CheckCropMirrorNormalizeOptions(options);
  if (!valid.ok()) return valid.WithContext("crop_mirror_normalize");
  std::string name = StrCat(
      "crop_mirror_normalize(", ComponentPrefix(component),
      options.crop_height == 0 ? "" : StrCat("crop=", options.crop_height, "x", options.crop_width, ", "),
      "mean=", JoinValues(options.mean), ", std=", JoinValues(options.std),
      options.mirror ? ", mirror" : "", ", ", ImageLayoutName(options.layout), ", ", options.dtype, ")");
  return MakeTransform(
      std::move(component), std::move(name),
      [options](const ComponentSpec& in, const ImageSpec& image) -> Result<ComponentSpec> {
        const int64_t channels = image.dims[image.h + 2];
        if (channels >= 0) {
          SLUICE_RETURN_IF_ERROR(CheckChannelValues("mean", options.mean.size(), channels));
          SLUICE_RETURN_IF_ERROR(CheckChannelValues("std", options.std.size(), channels));
        }
        int64_t h = image.dims[image.h], w = image.dims[image.h + 1];
        if (options.crop_height != 0) {
          SLUICE_RETURN_IF_ERROR(CheckCropFits(image, options.crop_height, options.crop_width));
          h = options.crop_height;
          w = options.crop_width;
        }
        std::vector<int64_t> dims(image.dims.begin(), image.dims.begin() + image.h);  // [N]
        if (options.layout == ImageLayout::kHWC) {
          dims.insert(dims.end(), {h, w, channels});
        } else {
          dims.insert(dims.end(), {channels, h, w});
        }
        return ComponentSpec{in.name, options.dtype, PartialShape(dims)};
      },
      [options](const Tensor& t) { return CropMirrorNormalize(t, options); },
      [options](const std::string& component, spec::ElementFunction* out) {
        spec::CropMirrorNormalize* node = out->mutable_crop_mirror_normalize();
        node->set_component(component);
        if (options.crop_height != 0) {
          node->add_crop(options.crop_height);
          node->add_crop(options.crop_width);
        }
        for (float m : options.mean) node->add_mean(m);
        for (float s : options.std) node->add_std(s);
        node->set_mirror(options.mirror);
        node->set_layout(std::string(ImageLayoutName(options.layout)));
        node->set_dtype(std::string(DTypeName(options.dtype)));
      });
}

Result<ElementFunctionPtr> ImageTransformFunctionFromSpec(const spec::ElementFunction& fn) {
  switch (fn.fn_case()) {
    case spec::ElementFunction::kResize: {
      const spec::Resize& node = fn.resize();
      SLUICE_ASSIGN_OR_RETURN(const auto size, SizeField("resize", "size", node.size()));
      ResizeOptions options{.height = size.first, .width = size.second, .antialias = node.antialias()};
      if (!node.method().empty()) {
        Result<ResizeMethod> method = ParseResizeMethod(node.method());
        if (!method.ok()) return method.status().WithContext("resize: method");
        options.method = *method;
      }
      return MakeResizeFunction(node.component(), options);
    }
    case spec::ElementFunction::kCenterCrop: {
      const spec::CenterCrop& node = fn.center_crop();
      SLUICE_ASSIGN_OR_RETURN(const auto size, SizeField("center_crop", "size", node.size()));
      return MakeCenterCropFunction(node.component(), size.first, size.second);
    }
    case spec::ElementFunction::kCropMirrorNormalize: {
      const spec::CropMirrorNormalize& node = fn.crop_mirror_normalize();
      CropMirrorNormalizeOptions options;
      if (!node.crop().empty()) {
        SLUICE_ASSIGN_OR_RETURN(const auto crop, SizeField("crop_mirror_normalize", "crop", node.crop()));
        options.crop_height = crop.first;
        options.crop_width = crop.second;
      }
      if (!node.mean().empty()) options.mean.assign(node.mean().begin(), node.mean().end());
      if (!node.std().empty()) options.std.assign(node.std().begin(), node.std().end());
      options.mirror = node.mirror();
      if (!node.layout().empty()) {
        Result<ImageLayout> layout = ParseImageLayout(node.layout());
        if (!layout.ok()) return layout.status().WithContext("crop_mirror_normalize: layout");
        options.layout = *layout;
      }
      if (!node.dtype().empty()) {
        Result<DType> dtype = ParseDType(node.dtype());
        if (!dtype.ok()) return dtype.status().WithContext("crop_mirror_normalize: dtype");
        options.dtype = *dtype;
      }
      return MakeCropMirrorNormalizeFunction(node.component(), std::move(options));
    }
    default: break;
  }
  return InternalError("ImageTransformFunctionFromSpec: not an image transform");
}

}  // namespace sluice
