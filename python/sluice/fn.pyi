# sluice.fn for type checkers; tests/python/test_stubs.py keeps it in step
# with fn.py.
import os
from typing import Any, Literal, Mapping, Sequence

import numpy as np

# What the functions below return (at runtime _sluice.ElementFunction,
# _sluice.Predicate and _sluice.DatasetFunction): pass them to
# Dataset.map, Dataset.filter and Dataset.interleave.
class _ElementFunction:
    @property
    def name(self) -> str: ...
    def output_spec(self, input_spec: Any) -> Any: ...

class _Predicate:
    @property
    def name(self) -> str: ...

class _DatasetFunction:
    @property
    def name(self) -> str: ...

_DTypeLike = str | np.dtype[Any] | type

def cast(component: str | None, dtype: _DTypeLike) -> _ElementFunction: ...
def scale_shift(component: str | None, scale: float, shift: float = 0.0) -> _ElementFunction: ...
def reshape(component: str | None, shape: Sequence[int]) -> _ElementFunction: ...
def one_hot(component: str | None, depth: int, dtype: _DTypeLike = "float32") -> _ElementFunction: ...
def decode_raw(
    component: str | None, dtype: _DTypeLike, little_endian: bool = True, fixed_length: int | None = None
) -> _ElementFunction: ...
def select(*components: str | Sequence[str]) -> _ElementFunction: ...
def rename(*names: str | Sequence[str]) -> _ElementFunction: ...
def named(name: str, **args: object) -> _ElementFunction: ...
def named_predicate(name: str, **args: object) -> _Predicate: ...
def function_names() -> list[str]: ...

class FixedLenFeature:
    layout: str
    shape: list[int]
    dtype: _DTypeLike
    default_value: Any
    def __init__(
        self, shape: Sequence[int], dtype: Literal["int64", "float32", "string"] | _DTypeLike, default_value: Any = None
    ) -> None: ...

class VarLenFeature:
    layout: str
    shape: list[int]
    dtype: _DTypeLike
    default_value: Any
    def __init__(
        self, dtype: Literal["int64", "float32", "string"] | _DTypeLike, padded: bool = False, default_value: Any = None
    ) -> None: ...

def parse_example(
    features: Mapping[str, FixedLenFeature | VarLenFeature], component: str | None = None
) -> _ElementFunction: ...
class FixedLenSequenceFeature:
    layout: str
    shape: list[int]
    dtype: _DTypeLike
    allow_missing: bool
    def __init__(
        self, shape: Sequence[int], dtype: Literal["int64", "float32", "string"] | _DTypeLike, allow_missing: bool = False
    ) -> None: ...

def parse_sequence_example(
    context_features: Mapping[str, FixedLenFeature | VarLenFeature] | None = None,
    sequence_features: Mapping[str, FixedLenSequenceFeature | VarLenFeature] | None = None,
    component: str | None = None,
) -> _ElementFunction: ...
MAX_IMAGE_PIXELS: int

def decode_jpeg(
    component: str | None = None,
    channels: int = 0,
    ratio: int = 1,
    dct_method: Literal["accurate", "fast"] = "accurate",
    max_pixels: int = ...,
) -> _ElementFunction: ...
def decode_png(component: str | None = None, channels: int = 0, max_pixels: int = ...) -> _ElementFunction: ...
def decode_image(component: str | None = None, channels: int = 0, max_pixels: int = ...) -> _ElementFunction: ...
def resize(
    component: str | None,
    size: int | Sequence[int],
    method: Literal["bilinear", "nearest", "area", "bicubic"] = "bilinear",
    antialias: bool = False,
) -> _ElementFunction: ...
def center_crop(component: str | None, size: int | Sequence[int]) -> _ElementFunction: ...
def crop_mirror_normalize(
    component: str | None = None,
    crop: int | Sequence[int] | None = None,
    mean: float | Sequence[float] = 0.0,
    std: float | Sequence[float] = 1.0,
    mirror: bool = False,
    layout: Literal["CHW", "HWC"] = "CHW",
    dtype: _DTypeLike = "float32",
) -> _ElementFunction: ...
def random_flip(
    component: str | None = None,
    direction: Literal["left_right", "up_down"] = "left_right",
    probability: float = 0.5,
    seed: int | None = None,
    index: str | None = None,
) -> _ElementFunction: ...
def decode_jpeg_random_crop(
    component: str | None,
    size: int | Sequence[int] = 224,
    scale: Sequence[float] = (0.08, 1.0),
    ratio: Sequence[float] = (3 / 4, 4 / 3),
    attempts: int = 10,
    channels: int = 3,
    dct_method: Literal["accurate", "fast"] = "accurate",
    seed: int | None = None,
    index: str | None = None,
    max_pixels: int = ...,
    scaled_idct: bool = True,
    method: Literal["bilinear", "nearest", "area", "bicubic"] = "bilinear",
) -> _ElementFunction: ...
def color_jitter(
    component: str | None = None,
    brightness: float = 0.0,
    contrast: float = 0.0,
    saturation: float = 0.0,
    hue: float = 0.0,
    seed: int | None = None,
    index: str | None = None,
    max_value: float = 255.0,
    probability: float = 1.0,
) -> _ElementFunction: ...
def random_grayscale(
    component: str | None = None,
    probability: float = 0.1,
    seed: int | None = None,
    index: str | None = None,
    max_value: float = 255.0,
) -> _ElementFunction: ...
def random_crop(
    component: str | None = None,
    size: int | Sequence[int] | None = None,
    padding: int | Sequence[int] | None = None,
    pad_if_needed: bool = False,
    fill: float = 0,
    padding_mode: Literal["constant", "edge", "reflect", "symmetric"] = "constant",
    seed: int | None = None,
    index: str | None = None,
) -> _ElementFunction: ...
def gaussian_blur(
    component: str | None = None,
    kernel_size: int | Sequence[int] | None = None,
    sigma: float | Sequence[float] = (0.1, 2.0),
    probability: float = 1.0,
    seed: int | None = None,
    index: str | None = None,
) -> _ElementFunction: ...
def random_solarize(
    component: str | None = None,
    threshold: float = 128.0,
    probability: float = 0.5,
    seed: int | None = None,
    index: str | None = None,
    max_value: float = 255.0,
) -> _ElementFunction: ...
def random_erasing(
    component: str | None = None,
    probability: float = 0.5,
    scale: Sequence[float] = (0.02, 0.33),
    ratio: Sequence[float] = (0.3, 3.3),
    value: float | Sequence[float] | Literal["random"] = 0,
    layout: Literal["CHW", "HWC"] = "CHW",
    seed: int | None = None,
    index: str | None = None,
) -> _ElementFunction: ...
def auto_augment(
    component: str | None = None,
    policy: Literal["imagenet", "cifar10", "svhn"] = "imagenet",
    interpolation: Literal["nearest", "bilinear"] = "nearest",
    fill: float | Sequence[float] | None = None,
    seed: int | None = None,
    index: str | None = None,
) -> _ElementFunction: ...
def augmix(
    component: str | None = None,
    severity: int = 3,
    mixture_width: int = 3,
    chain_depth: int = -1,
    alpha: float = 1.0,
    all_ops: bool = True,
    interpolation: Literal["nearest", "bilinear"] = "bilinear",
    fill: float | Sequence[float] | None = None,
    seed: int | None = None,
    index: str | None = None,
) -> _ElementFunction: ...
def rand_augment(
    component: str | None = None,
    num_ops: int = 2,
    magnitude: int = 9,
    num_magnitude_bins: int = 31,
    interpolation: Literal["nearest", "bilinear"] = "nearest",
    fill: float | Sequence[float] | None = None,
    seed: int | None = None,
    index: str | None = None,
) -> _ElementFunction: ...
def trivial_augment_wide(
    component: str | None = None,
    num_magnitude_bins: int = 31,
    interpolation: Literal["nearest", "bilinear"] = "nearest",
    fill: float | Sequence[float] | None = None,
    seed: int | None = None,
    index: str | None = None,
) -> _ElementFunction: ...
def random_posterize(
    component: str | None = None,
    bits: int | None = None,
    probability: float = 0.5,
    seed: int | None = None,
    index: str | None = None,
) -> _ElementFunction: ...
def random_equalize(
    component: str | None = None,
    probability: float = 0.5,
    seed: int | None = None,
    index: str | None = None,
) -> _ElementFunction: ...
def random_autocontrast(
    component: str | None = None,
    probability: float = 0.5,
    seed: int | None = None,
    index: str | None = None,
    max_value: float = 255.0,
) -> _ElementFunction: ...
def random_adjust_sharpness(
    component: str | None = None,
    sharpness_factor: float | None = None,
    probability: float = 0.5,
    seed: int | None = None,
    index: str | None = None,
    max_value: float = 255.0,
) -> _ElementFunction: ...
def random_invert(
    component: str | None = None,
    probability: float = 0.5,
    seed: int | None = None,
    index: str | None = None,
    max_value: float = 255.0,
) -> _ElementFunction: ...
def random_affine(
    component: str | None = None,
    degrees: float | Sequence[float] | None = None,
    translate: Sequence[float] | None = None,
    scale: Sequence[float] | None = None,
    shear: float | Sequence[float] | None = None,
    interpolation: Literal["nearest", "bilinear"] = "nearest",
    fill: float | Sequence[float] | None = None,
    center: Sequence[float] | None = None,
    seed: int | None = None,
    index: str | None = None,
) -> _ElementFunction: ...
def random_rotation(
    component: str | None = None,
    degrees: float | Sequence[float] | None = None,
    interpolation: Literal["nearest", "bilinear"] = "nearest",
    fill: float | Sequence[float] | None = None,
    center: Sequence[float] | None = None,
    seed: int | None = None,
    index: str | None = None,
) -> _ElementFunction: ...
def mixup(
    images: str,
    labels: str,
    num_classes: int = 0,
    mixup_alpha: float = 1.0,
    cutmix_alpha: float = 0.0,
    switch_probability: float = 0.5,
    probability: float = 1.0,
    label_smoothing: float = 0.1,
    layout: Literal["CHW", "HWC"] = "CHW",
    seed: int | None = None,
) -> _ElementFunction: ...
def to_hash_bucket_fast(component: str | None, num_buckets: int) -> _ElementFunction: ...

MAX_VOCABULARY_BYTES: int

def lookup(
    component: str | None,
    vocabulary_file: str | os.PathLike[str],
    num_oov_buckets: int = 1,
    default_value: int = -1,
    max_vocabulary_bytes: int = ...,
) -> _ElementFunction: ...
def lower(component: str | None = None) -> _ElementFunction: ...
def normalize(component: str | None = None, form: Literal["NFC", "NFKC", "NFD", "NFKD"] = "NFKC") -> _ElementFunction: ...
def split_whitespace(component: str | None = None) -> _ElementFunction: ...
def regex_split(component: str | None, pattern: str, keep_delim_pattern: str | None = None) -> _ElementFunction: ...
def regex_replace(component: str | None, pattern: str, rewrite: str, replace_global: bool = True) -> _ElementFunction: ...
def wordpiece(
    component: str | None,
    vocabulary_file: str | os.PathLike[str],
    suffix_indicator: str = "##",
    max_bytes_per_word: int = 100,
    max_chars_per_token: int | None = None,
    unknown_token: str = "[UNK]",
    token_out_type: Literal["int64", "string"] = "int64",
    with_offsets: bool = False,
    max_vocabulary_bytes: int = ...,
) -> _ElementFunction: ...
def pad_or_truncate(component: str | None, length: int, pad_value: float = 0, per_row: bool = False) -> _ElementFunction: ...
def equal(component: str | None, value: float) -> _Predicate: ...
def not_equal(component: str | None, value: float) -> _Predicate: ...
def less(component: str | None, value: float) -> _Predicate: ...
def less_equal(component: str | None, value: float) -> _Predicate: ...
def greater(component: str | None, value: float) -> _Predicate: ...
def greater_equal(component: str | None, value: float) -> _Predicate: ...
def expression(
    outputs: Mapping[str, str] | None = None, *, keep_inputs: bool = False, **named_outputs: str
) -> _ElementFunction: ...
def expression_predicate(text: str) -> _Predicate: ...
