"""Built-in element functions and predicates for Dataset.map and
Dataset.filter. They run in C++ without the GIL (the fast path), are
checked against the element spec when the map is built, and can be written
into a pipeline spec (Dataset.to_spec).

Components are named as in the element: by name, or "0", "1", ... for
positional ones. An empty `component` ("" or None) means every component
(cast, scale_shift) or the only one (reshape, one_hot, the image
functions, the predicates). Image functions take HWC uint8 or float images
(decode_* make them from JPEG/PNG bytes), or batches of them.

    ds.map(sluice.fn.parse_example({"image": sluice.fn.FixedLenFeature([784], "float32"),
                                    "label": sluice.fn.FixedLenFeature([], "int64")}))
      .map(sluice.fn.scale_shift("image", 1 / 255, 0.0))
      .filter(sluice.fn.less("label", 10))
"""

import numbers

from . import _args, _sluice
# Example parsing and the text functions live in modules of their own.
from ._example import FixedLenFeature, FixedLenSequenceFeature, VarLenFeature, parse_example, parse_sequence_example
from ._text import (
    MAX_VOCABULARY_BYTES,
    lookup,
    lower,
    normalize,
    pad_or_truncate,
    regex_replace,
    regex_split,
    split_whitespace,
    to_hash_bucket_fast,
    wordpiece,
)


def cast(component, dtype):
    """Converts the component(s) to `dtype`: numeric to numeric, or string
    to string (tf.cast)."""
    return _sluice.fn_cast(_args.component(component), dtype)


def scale_shift(component, scale, shift=0.0):
    """x * scale + shift; integer and bool components become float32,
    floating ones keep their dtype."""
    return _sluice.fn_scale_shift(_args.component(component), float(scale), float(shift))


def reshape(component, shape):
    """Reshapes one component to `shape`; one dim may be -1 (inferred)."""
    dims = [_args.integer(d, "shape", minimum=-1) for d in shape]
    return _sluice.fn_reshape(_args.component(component), dims)


def one_hot(component, depth, dtype="float32"):
    """One-hot encodes a uint8/int32/int64 component: shape S becomes
    S + [depth] of `dtype`; out-of-range indices give rows of zeros
    (tf.one_hot)."""
    return _sluice.fn_one_hot(_args.component(component), _args.integer(depth, "depth", minimum=1), dtype)


def decode_raw(component, dtype, little_endian=True, fixed_length=None):
    """The bytes of a string component as numbers (tf.io.decode_raw): shape
    S becomes S + [bytes / size of dtype], read little-endian unless told
    otherwise. fixed_length: bytes per string, cut or zero-padded to it,
    which makes the last dim known (None: each string's own length; the
    strings of one element must then share it)."""
    return _sluice.fn_decode_raw(
        _args.component(component),
        dtype,
        _args.boolean(little_endian, "little_endian"),
        _args.integer(fixed_length, "fixed_length", minimum=0, allow_none=True, default=0),
    )


def select(*components):
    """Keeps the named components, in this order: select("x", "y")."""
    if len(components) == 1 and isinstance(components[0], (list, tuple)):
        components = tuple(components[0])
    return _sluice.fn_select([_args.string(c, "components") for c in components])


def rename(*names):
    """Renames the components: one new, non-empty, distinct name each."""
    if len(names) == 1 and isinstance(names[0], (list, tuple)):
        names = tuple(names[0])
    return _sluice.fn_rename([_args.string(n, "names") for n in names])


MAX_IMAGE_PIXELS = 1 << 27
"""The decoders' default bound on an image's height * width."""


def decode_jpeg(component=None, channels=0, ratio=1, dct_method="accurate", max_pixels=MAX_IMAGE_PIXELS):
    """Decodes a scalar string of JPEG bytes to a uint8 [height, width,
    channels] image (tf.io.decode_jpeg), on libjpeg-turbo.

    channels: 0 (as encoded), 1 (grayscale) or 3 (RGB). ratio: 1, 2, 4 or
    8, a scaled decode to ceil(size / ratio). dct_method: "accurate" or
    "fast". A corrupt, truncated or empty image is a sluice.DataLossError
    for that element; one of more than max_pixels pixels is a
    sluice.ResourceExhaustedError."""
    return _sluice.fn_decode_jpeg(
        _args.component(component),
        _args.integer(channels, "channels", minimum=0, maximum=_args.INT32_MAX),
        _args.integer(ratio, "ratio", minimum=1, maximum=_args.INT32_MAX),
        _args.string(dct_method, "dct_method"),
        _args.integer(max_pixels, "max_pixels", minimum=1),
    )


def decode_png(component=None, channels=0, max_pixels=MAX_IMAGE_PIXELS):
    """Decodes a scalar string of 8-bit PNG bytes to a uint8 [height, width,
    channels] image (tf.io.decode_png), on libpng. channels: 0 (as
    encoded), 1, 3 or 4. 16-bit images are refused."""
    return _sluice.fn_decode_png(
        _args.component(component),
        _args.integer(channels, "channels", minimum=0, maximum=_args.INT32_MAX),
        _args.integer(max_pixels, "max_pixels", minimum=1),
    )


def decode_image(component=None, channels=0, max_pixels=MAX_IMAGE_PIXELS):
    """Decodes JPEG or PNG bytes, told apart by their signature, to a uint8
    [height, width, channels] image (tf.io.decode_image). channels: 0, 1
    or 3."""
    return _sluice.fn_decode_image(
        _args.component(component),
        _args.integer(channels, "channels", minimum=0, maximum=_args.INT32_MAX),
        _args.integer(max_pixels, "max_pixels", minimum=1),
    )


def _size(size, name):
    """[height, width] from a pair, or from one int for a square."""
    if isinstance(size, numbers.Integral) and not isinstance(size, bool):
        size = (size, size)
    size = list(size)
    if len(size) != 2:
        raise ValueError(f"{name}: expected [height, width] or one int, got {size!r}")
    return [_args.integer(d, name) for d in size]


def _floats(values, name):
    if isinstance(values, numbers.Real):
        values = [values]
    return [float(v) for v in values]


def resize(component, size, method="bilinear", antialias=False):
    """Resizes an image [H, W, C] (or a batch [N, H, W, C]) to size =
    [height, width] as tf.image.resize: method "bilinear" (half-pixel
    centres), "nearest", "area" or "bicubic" (Keys, a = -0.5); antialias
    widens the bilinear or bicubic kernel when shrinking. float32 out, except
    "nearest", which keeps the dtype."""
    height, width = _size(size, "size")
    return _sluice.fn_resize(_args.component(component), height, width, _args.string(method, "method"),
                             _args.boolean(antialias, "antialias"))


def center_crop(component, size):
    """The centred [height, width] window of an image (or of each image of a
    batch), placed as torchvision's CenterCrop; same dtype."""
    height, width = _size(size, "size")
    return _sluice.fn_center_crop(_args.component(component), height, width)


def crop_mirror_normalize(component=None, crop=None, mean=0.0, std=1.0, mirror=False, layout="CHW", dtype="float32"):
    """DALI's crop_mirror_normalize in one pass: a centred crop ([height,
    width] or one int; None keeps the image), an optional left-right mirror,
    (x - mean) / std per channel (one value or one per channel), written in
    "CHW" or "HWC" layout as float32 or float16."""
    crop_height, crop_width = (0, 0) if crop is None else _size(crop, "crop")
    return _sluice.fn_crop_mirror_normalize(
        _args.component(component), crop_height, crop_width, _floats(mean, "mean"), _floats(std, "std"),
        _args.boolean(mirror, "mirror"), _args.string(layout, "layout"), dtype)


def _range(values, name):
    values = [float(v) for v in values]
    if len(values) != 2:
        raise ValueError(f"{name}: expected (min, max), got {values!r}")
    return tuple(values)


def _index(index):
    return "" if index is None else _args.string(index, "index")


def random_flip(component=None, direction="left_right", probability=0.5, seed=None, index=None):
    """Flips each element's image "left_right" (tf.image.random_flip_left_right)
    or "up_down" with `probability`. Each element draws from the seed map
    gives it, from (seed, map's iterator, the element's position in map's
    input), so the draws are the same at any parallelism and after a
    restore, and each epoch draws anew. seed None: derived from the
    pipeline seed (Dataset.seed), else random. index: the name of an int64
    component (Dataset.enumerate()'s "index") to draw from (seed or 0, its
    value) instead, the same in every epoch."""
    if direction not in ("left_right", "up_down"):
        raise ValueError(f"random_flip: direction must be 'left_right' or 'up_down', got {direction!r}")
    return _sluice.fn_random_flip(_args.component(component), direction == "up_down", float(probability),
                                  _args.seed(seed), _index(index))


def decode_jpeg_random_crop(component, size=224, scale=(0.08, 1.0), ratio=(3 / 4, 4 / 3), attempts=10, channels=3,
                            dct_method="accurate", seed=None, index=None, max_pixels=MAX_IMAGE_PIXELS,
                            scaled_idct=True, method="bilinear"):
    """Decode + RandomResizedCrop in one step: picks the window by
    torchvision's RandomResizedCrop rule (scale, ratio, attempts, central
    fallback), decodes only that window of the JPEG, and resizes it to size
    ([height, width] or one int) with antialias and method (resize's:
    "bilinear" as torchvision, "bicubic" as timm): float32 [height, width,
    channels] (uint8 for "nearest"). With scaled_idct, a window at least
    twice size is decoded at the smallest scale M/8 (M = 1..4) that keeps it
    at least size, then resized. seed and index as random_flip's."""
    height, width = _size(size, "size")
    return _sluice.fn_decode_jpeg_random_crop(
        _args.component(component), height, width, _range(scale, "scale"), _range(ratio, "ratio"),
        _args.integer(attempts, "attempts", minimum=1, maximum=_args.INT32_MAX),
        _args.integer(channels, "channels", minimum=0, maximum=_args.INT32_MAX), _args.string(dct_method, "dct_method"),
        _args.seed(seed), _index(index),
        _args.integer(max_pixels, "max_pixels", minimum=1), bool(scaled_idct), _args.string(method, "method"))


def color_jitter(component=None, brightness=0.0, contrast=0.0, saturation=0.0, hue=0.0, seed=None, index=None,
                 max_value=255.0, probability=1.0):
    """torchvision's ColorJitter: per element, brightness, contrast and
    saturation factors drawn from [max(0, 1 - x), 1 + x] and a hue shift from
    [-hue, hue] (hue <= 0.5), applied in a random order; a parameter of 0
    leaves its step out. uint8 or float32 images of 1 or 3 channels, same
    dtype and shape out; max_value is the white of a float32 image (255 for
    decoded pixels, 1 for [0, 1]). probability < 1 jitters an element only
    with that chance, as torchvision's RandomApply([ColorJitter(...)], p).
    seed and index as random_flip's."""
    return _sluice.fn_color_jitter(
        _args.component(component), float(brightness), float(contrast), float(saturation), float(hue), float(max_value),
        float(probability), _args.seed(seed), _index(index))


def random_grayscale(component=None, probability=0.1, seed=None, index=None, max_value=255.0):
    """torchvision's RandomGrayscale: with probability, an element's RGB image
    becomes its grayscale 0.2989 R + 0.587 G + 0.114 B in every channel (a
    one-channel image stays as it is). uint8 or float32, same dtype and shape
    out; max_value as color_jitter's. seed and index as random_flip's."""
    return _sluice.fn_random_grayscale(_args.component(component), float(probability), float(max_value),
                                       _args.seed(seed), _index(index))


def random_crop(component=None, size=None, padding=None, pad_if_needed=False, fill=0, padding_mode="constant",
                seed=None, index=None):
    """torchvision's RandomCrop: a window of size ([height, width] or one int)
    at a uniform place in each element's image, after padding it. padding as
    torchvision's: one int for every side, (left/right, top/bottom), or
    (left, top, right, bottom); padding_mode "constant" (with fill),
    "edge", "reflect" or "symmetric"; pad_if_needed pads a dimension smaller
    than the crop on both sides by what it lacks. Any numeric dtype, kept;
    [height, width, C] out. Without padding it is tf.image.random_crop of an
    image. seed and index as random_flip's."""
    if size is None:
        raise ValueError("random_crop: size is required")
    height, width = _size(size, "size")
    if padding is None:
        padding = 0
    if isinstance(padding, numbers.Integral) and not isinstance(padding, bool):
        padding = [padding]
    padding = [_args.integer(p, "padding", minimum=0) for p in padding]
    if len(padding) == 1:
        padding = padding * 4
    elif len(padding) == 2:
        padding = padding * 2
    elif len(padding) != 4:
        raise ValueError(f"random_crop: padding takes 1, 2 or 4 values, got {len(padding)}")
    return _sluice.fn_random_crop(_args.component(component), height, width, padding, bool(pad_if_needed),
                                  _args.string(padding_mode, "padding_mode"), float(fill), _args.seed(seed),
                                  _index(index))


def gaussian_blur(component=None, kernel_size=None, sigma=(0.1, 2.0), probability=1.0, seed=None, index=None):
    """torchvision's GaussianBlur (SimCLR, BYOL, DINO): each element's image
    blurred with a Gaussian kernel of kernel_size (one odd int, or
    [height, width]: note torchvision's pair is (x, y), width first) and a
    sigma drawn uniformly from sigma ((min, max), or one value), the image
    reflect-padded by half the kernel. probability < 1 blurs an element only
    with that chance (torchvision's RandomApply). uint8 (rounded) or float32,
    same dtype and shape out. seed and index as random_flip's."""
    if kernel_size is None:
        raise ValueError("gaussian_blur: kernel_size is required")
    kernel_height, kernel_width = _size(kernel_size, "kernel_size")
    if isinstance(sigma, numbers.Real):
        sigma = (sigma, sigma)
    return _sluice.fn_gaussian_blur(_args.component(component), kernel_height, kernel_width, _range(sigma, "sigma"),
                                    float(probability), _args.seed(seed), _index(index))


def random_solarize(component=None, threshold=128.0, probability=0.5, seed=None, index=None, max_value=255.0):
    """torchvision's RandomSolarize (BYOL, DINO): with probability, every
    value of an element's image at or above threshold becomes white minus it
    (white: 255 for uint8, max_value for float32). uint8 or float32, same
    dtype and shape out. seed and index as random_flip's."""
    return _sluice.fn_random_solarize(_args.component(component), float(threshold), float(probability), float(max_value),
                                      _args.seed(seed), _index(index))


def random_erasing(component=None, probability=0.5, scale=(0.02, 0.33), ratio=(0.3, 3.3), value=0, layout="CHW",
                   seed=None, index=None):
    """torchvision's RandomErasing (DeiT's recipe), on a normalised image:
    with probability, a box whose area is a share in scale of the image's
    and whose aspect ratio is log-uniform in ratio (10 attempts, else no box)
    is overwritten by value: one number, one per channel, or "random"
    (standard normal values). uint8 (no "random") or float32 images [C, H, W]
    (layout "CHW") or [H, W, C], or batches of them; same dtype and shape
    out. seed and index as random_flip's."""
    random_value = isinstance(value, str)
    if random_value and value != "random":
        raise ValueError(f"random_erasing: value must be a number, a sequence of them or 'random', got {value!r}")
    values = [] if random_value else _floats(value, "value")
    return _sluice.fn_random_erasing(_args.component(component), float(probability), _range(scale, "scale"),
                                     _range(ratio, "ratio"), values, random_value, _args.string(layout, "layout"),
                                     _args.seed(seed), _index(index))


def _fill(fill, name):
    return [] if fill is None else _floats(fill, name)


def auto_augment(component=None, policy="imagenet", interpolation="nearest", fill=None, seed=None, index=None):
    """torchvision's AutoAugment with its learned policy ("imagenet",
    "cifar10" or "svhn"): one of the policy's 25 sub-policies drawn
    uniformly, each of its two steps applied with its probability at its
    magnitude, the sign drawn where the op has one. interpolation, fill,
    images, seed and index as rand_augment's."""
    return _sluice.fn_auto_augment(_args.component(component), _args.string(policy, "policy"),
                                   _args.string(interpolation, "interpolation"), _fill(fill, "fill"),
                                   _args.seed(seed), _index(index))


def augmix(component=None, severity=3, mixture_width=3, chain_depth=-1, alpha=1.0, all_ops=True,
           interpolation="bilinear", fill=None, seed=None, index=None):
    """torchvision's AugMix (Hendrycks et al.): mixture_width chains of 1 to
    3 ops (chain_depth ops when positive), each op drawn from AugMix's space
    (Brightness, Color, Contrast and Sharpness only with all_ops) at a
    magnitude bin drawn below severity (of 10), mixed as m0 * image +
    sum_i w_i * chain_i with (m0, m1) ~ Dirichlet(alpha, alpha) and w ~
    Dirichlet(alpha, ...) * m1, truncated to uint8. interpolation, fill,
    images, seed and index as rand_augment's (bilinear by default, as
    torchvision's AugMix)."""
    return _sluice.fn_augmix(_args.component(component), _args.integer(severity, "severity"),
                             _args.integer(mixture_width, "mixture_width"),
                             _args.integer(chain_depth, "chain_depth"), float(alpha),
                             _args.boolean(all_ops, "all_ops"), _args.string(interpolation, "interpolation"),
                             _fill(fill, "fill"), _args.seed(seed), _index(index))


def rand_augment(component=None, num_ops=2, magnitude=9, num_magnitude_bins=31, interpolation="nearest", fill=None,
                 seed=None, index=None):
    """torchvision's RandAugment (DeiT's and timm's recipes): num_ops times,
    one of its 14 ops drawn uniformly (Identity, ShearX/Y, TranslateX/Y,
    Rotate, Brightness, Color, Contrast, Sharpness, Posterize, Solarize,
    AutoContrast, Equalize) at magnitude bin magnitude of
    num_magnitude_bins, its sign drawn where it has one, each as
    torchvision's functional op computes it. Geometric ops sample with
    interpolation ("nearest" or "bilinear") and put fill (None: 0; one
    value, or one per channel) outside the image. uint8 images [H, W, C] of
    1 or 3 channels, or batches changed alike; same dtype and shape out.
    seed and index as random_flip's."""
    return _sluice.fn_rand_augment(_args.component(component), _args.integer(num_ops, "num_ops"),
                                   _args.integer(magnitude, "magnitude"),
                                   _args.integer(num_magnitude_bins, "num_magnitude_bins"),
                                   _args.string(interpolation, "interpolation"), _fill(fill, "fill"),
                                   _args.seed(seed), _index(index))


def trivial_augment_wide(component=None, num_magnitude_bins=31, interpolation="nearest", fill=None, seed=None,
                         index=None):
    """torchvision's TrivialAugmentWide: one op of RandAugment's 14 drawn
    uniformly, at a magnitude bin drawn uniformly from the wide space
    (shears to 0.99, translations to 32 pixels, rotations to 135 degrees),
    its sign drawn where it has one. interpolation, fill, images, seed and
    index as rand_augment's."""
    return _sluice.fn_trivial_augment_wide(_args.component(component),
                                           _args.integer(num_magnitude_bins, "num_magnitude_bins"),
                                           _args.string(interpolation, "interpolation"), _fill(fill, "fill"),
                                           _args.seed(seed), _index(index))


def random_posterize(component=None, bits=None, probability=0.5, seed=None, index=None):
    """torchvision's RandomPosterize: with probability, an element's image
    keeps the top bits (0 to 8) of each value. uint8 images of 1 or 3
    channels, or batches; same dtype and shape out. seed and index as
    random_flip's."""
    if bits is None:
        raise ValueError("random_posterize: bits is required")
    return _sluice.fn_random_posterize(_args.component(component), _args.integer(bits, "bits"), float(probability),
                                       _args.seed(seed), _index(index))


def random_equalize(component=None, probability=0.5, seed=None, index=None):
    """torchvision's RandomEqualize: with probability, each channel of an
    element's image has its histogram equalized (PIL's rule, as torchvision).
    uint8 images of 1 or 3 channels, or batches; same dtype and shape out."""
    return _sluice.fn_random_equalize(_args.component(component), float(probability), _args.seed(seed), _index(index))


def random_autocontrast(component=None, probability=0.5, seed=None, index=None, max_value=255.0):
    """torchvision's RandomAutocontrast: with probability, each channel of an
    element's image is stretched so its smallest value becomes 0 and its
    largest white (255 for uint8, max_value for float32). uint8 or float32
    images of 1 or 3 channels, or batches; same dtype and shape out."""
    return _sluice.fn_random_autocontrast(_args.component(component), float(probability), float(max_value),
                                          _args.seed(seed), _index(index))


def random_adjust_sharpness(component=None, sharpness_factor=None, probability=0.5, seed=None, index=None,
                            max_value=255.0):
    """torchvision's RandomAdjustSharpness: with probability, an element's
    image is blended with its 3x3 smoothing by sharpness_factor (0 smooth,
    1 the image, 2 twice as sharp), as torchvision's adjust_sharpness. uint8
    or float32 images of 1 or 3 channels, or batches; same dtype and shape."""
    if sharpness_factor is None:
        raise ValueError("random_adjust_sharpness: sharpness_factor is required")
    return _sluice.fn_random_adjust_sharpness(_args.component(component), float(sharpness_factor), float(probability),
                                              float(max_value), _args.seed(seed), _index(index))


def random_invert(component=None, probability=0.5, seed=None, index=None, max_value=255.0):
    """torchvision's RandomInvert: with probability, every value of an
    element's image becomes white minus it (255 for uint8, max_value for
    float32). uint8 or float32 images, or batches; same dtype and shape."""
    return _sluice.fn_random_invert(_args.component(component), float(probability), float(max_value), _args.seed(seed),
                                    _index(index))


def _degrees(degrees, name):
    if degrees is None:
        raise ValueError(f"{name}: degrees is required")
    if isinstance(degrees, numbers.Real):
        if degrees < 0:
            raise ValueError(f"{name}: one degrees value must be >= 0, got {degrees!r}")
        return (-float(degrees), float(degrees))
    return _range(degrees, "degrees")


def _center(center):
    if center is None:
        return None
    center = [float(c) for c in center]
    if len(center) != 2:
        raise ValueError(f"center: expected [x, y], got {center!r}")
    return center


def random_affine(component=None, degrees=None, translate=None, scale=None, shear=None, interpolation="nearest",
                  fill=None, center=None, seed=None, index=None):
    """torchvision's RandomAffine: per element, an angle uniform in degrees
    (d for [-d, d], or (min, max); clockwise), a shift of up to translate
    ((x, y) shares of the width and height, rounded to pixels), a scale
    uniform in scale ((min, max)) and shears uniform in shear (s for x in
    [-s, s]; (min, max) for x; four values for x and y; degrees), about
    center ((x, y) pixels; None: the image's centre), sampled with
    interpolation ("nearest" or "bilinear"), fill (None: 0; one value, or one
    per channel) outside the image. uint8 or float32 images [H, W, C], or
    batches changed alike; same dtype and shape out. seed and index as
    random_flip's."""
    translate = (0.0, 0.0) if translate is None else _range(translate, "translate")
    scale = (1.0, 1.0) if scale is None else _range(scale, "scale")
    if shear is None:
        shear = [0.0, 0.0, 0.0, 0.0]
    elif isinstance(shear, numbers.Real):
        if shear < 0:
            raise ValueError(f"random_affine: one shear value must be >= 0, got {shear!r}")
        shear = [-float(shear), float(shear), 0.0, 0.0]
    else:
        shear = [float(s) for s in shear]
        if len(shear) == 2:
            shear += [0.0, 0.0]
        if len(shear) != 4:
            raise ValueError(f"random_affine: shear takes 1, 2 or 4 values, got {shear!r}")
    return _sluice.fn_random_affine(_args.component(component), _degrees(degrees, "random_affine"), translate, scale,
                                    shear, _args.string(interpolation, "interpolation"), _fill(fill, "fill"),
                                    _center(center), _args.seed(seed), _index(index))


def random_rotation(component=None, degrees=None, interpolation="nearest", fill=None, center=None, seed=None,
                    index=None):
    """torchvision's RandomRotation (without expand): per element, an angle
    uniform in degrees (d for [-d, d], or (min, max)), counter-clockwise
    about center; interpolation, fill and images as random_affine's."""
    return _sluice.fn_random_rotation(_args.component(component), _degrees(degrees, "random_rotation"),
                                      _args.string(interpolation, "interpolation"), _fill(fill, "fill"),
                                      _center(center), _args.seed(seed), _index(index))


def mixup(images, labels, num_classes=0, mixup_alpha=1.0, cutmix_alpha=0.0, switch_probability=0.5, probability=1.0,
          label_smoothing=0.1, layout="CHW", seed=None):
    """timm's Mixup and CutMix (timm.data.Mixup, batch mode), mapped after
    batch(): with probability, a batch's images (float32 [N, C, H, W] for
    layout "CHW", or [N, H, W, C]) are mixed with the batch flipped (image i
    with image N-1-i): CutMix with switch_probability when both alphas are
    above 0, else the method whose alpha is; lam ~ Beta(alpha, alpha). Mixup
    makes x * lam + flip(x) * (1 - lam); CutMix pastes the flipped batch's
    window into each image and lam becomes the share kept. The labels (int
    class ids [N] with num_classes, or float32 rows [N, K]) become float32
    [N, K]: one-hot with label_smoothing, mixed by the same lam. Defaults are
    timm's; DeiT's recipe is mixup_alpha=0.8, cutmix_alpha=1.0. seed as
    random_flip's (no index: it draws per batch under map)."""
    return _sluice.fn_mixup(_args.string(images, "images"), _args.string(labels, "labels"),
                            _args.integer(num_classes, "num_classes", minimum=0), float(mixup_alpha),
                            float(cutmix_alpha), float(switch_probability), float(probability),
                            float(label_smoothing), _args.string(layout, "layout"), _args.seed(seed))


def _compare(name, op, meaning):
    """The predicate `name`(component, value): true when the (scalar)
    component `meaning` value."""

    def predicate(component, value):
        return _sluice.fn_compare(_args.component(component), op, float(value))

    predicate.__name__ = predicate.__qualname__ = name
    predicate.__doc__ = f"True when the (scalar) component {meaning} `value` (a predicate for filter)."
    return predicate


equal = _compare("equal", "==", "equals")
not_equal = _compare("not_equal", "!=", "differs from")
less = _compare("less", "<", "is below")
less_equal = _compare("less_equal", "<=", "is at most")
greater = _compare("greater", ">", "is above")
greater_equal = _compare("greater_equal", ">=", "is at least")


def named(name, **args):
    """The element function registered as `name`, made with keyword
    arguments (int, float, str, bool, or a list): a function C++ code
    registered, a built-in by its spec name (named("scale_shift", scale=2.0)),
    or a loaded plugin's as "plugin.function" (see sluice.load_plugin). It
    runs in C++ and is written into a spec by name."""
    return _sluice.fn_named(_args.string(name, "name"), args)


def named_predicate(name, **args):
    """The predicate registered as `name`, or a named function (as named())
    that returns one bool scalar, made with keyword arguments."""
    return _sluice.fn_named_predicate(_args.string(name, "name"), args)


def function_names():
    """Every name named() accepts, sorted: the built-ins, registered
    functions and loaded plugins' "plugin.function"."""
    return _sluice.function_names()


def expression(outputs=None, *, keep_inputs=False, **named_outputs):
    """A map function of typed expressions (docs/ops.md, "Expressions"): one
    output component per name, each the infix text of an expression over
    the element's components, e.g. expression(y="x * 0.5 + 1") or, for
    names that are not identifiers, expression({"label/id": "label % 2"}).
    Types and shapes are checked when the map is built; numbers take their
    operand's dtype. With keep_inputs the input components come first and an
    output named like one replaces it. Runs in C++, vectorised over whole
    runs of elements, and writes into a pipeline spec."""
    pairs = list((outputs or {}).items()) + list(named_outputs.items())
    if not pairs:
        raise TypeError("expression() needs at least one output, e.g. expression(y=\"x * 0.5 + 1\")")
    return _sluice.fn_expression([(_args.string(name, "output name"), _args.string(text, f"output {name}"))
                                  for name, text in pairs], bool(keep_inputs))


def expression_predicate(text):
    """A filter predicate of a bool scalar expression over the element's
    components, e.g. expression_predicate("label != 0 and length(tokens) > 2")
    (docs/ops.md, "Expressions")."""
    return _sluice.fn_expression_predicate(_args.string(text, "text"))
