"""Parsing tf.train.Example and tf.train.SequenceExample records: the
feature configurations and the built-in functions that sluice.fn offers
(sluice.fn.parse_example, sluice.fn.parse_sequence_example)."""

from . import _args, _sluice


class FixedLenFeature:
    """A feature of exactly prod(shape) values per record (tf.io.FixedLenFeature).
    dtype: "int64", "float32" or "string". default_value: the value of a
    missing feature (None: the feature is required)."""

    layout = "fixed_len"

    def __init__(self, shape, dtype, default_value=None):
        self.shape = [_args.integer(d, "shape", minimum=0) for d in shape]
        self.dtype = dtype
        self.default_value = default_value


class VarLenFeature:
    """A feature of any number of values (tf.io.VarLenFeature). One record:
    a vector [n]. After batch: with padded=False, the records' values end to
    end [total] plus a "<key>/row_lengths" int64 [N] component (a ragged
    batch); with padded=True, a [N, max n] matrix padded with
    default_value (0 or b"")."""

    def __init__(self, dtype, padded=False, default_value=None):
        self.dtype = dtype
        self.layout = "var_len_padded" if _args.boolean(padded, "padded") else "var_len"
        if default_value is not None and not padded:
            raise ValueError("VarLenFeature: default_value is the padding value: only with padded=True")
        self.shape = []
        self.default_value = default_value


def parse_example(features, component=None):
    """Parses serialized tf.train.Example records (tf.io.parse_example).

    features: {key: FixedLenFeature | VarLenFeature}. The element becomes
    the parsed features, named by key. On a scalar string component it
    parses one record; on a [N] vector (after batch) it parses the whole
    batch at once, the fast order: tfrecord -> batch -> map(parse_example).
    Errors name the feature, the record and what was expected and found."""
    if not isinstance(features, dict) or not features:
        raise TypeError("parse_example: features must be a non-empty dict {key: FixedLenFeature | VarLenFeature}")
    return _sluice.fn_parse_example(_args.component(component), _feature_entries(features, "features", "parse_example"))


class FixedLenSequenceFeature:
    """A feature list whose every step holds exactly prod(shape) values
    (tf.io.FixedLenSequenceFeature): [steps] + shape for one record; after
    batch, [N, max steps] + shape padded with 0 or b"", plus
    "<key>/lengths" (int64 [N], each record's steps). dtype: "int64",
    "float32" or "string". allow_missing: a record without the list has
    zero steps (else it is that element's error)."""

    layout = "fixed_len"

    def __init__(self, shape, dtype, allow_missing=False):
        self.shape = [_args.integer(d, "shape", minimum=0) for d in shape]
        self.dtype = dtype
        self.allow_missing = _args.boolean(allow_missing, "allow_missing")


def parse_sequence_example(context_features=None, sequence_features=None, component=None):
    """Parses serialized tf.train.SequenceExample records
    (tf.io.parse_single_sequence_example on a scalar string component,
    tf.io.parse_sequence_example on a [N] vector after batch).

    context_features: {key: FixedLenFeature | VarLenFeature}, one value per
        record, parsed as parse_example parses features.
    sequence_features: {key: FixedLenSequenceFeature | VarLenFeature}: a
        VarLenFeature list's steps hold any number of values, which come
        out end to end plus "<key>/row_lengths" (int64, one per step; after
        batch also "<key>/lengths", the steps of each record); a missing
        VarLenFeature list has zero steps.
    The element becomes the context features, then the sequence features,
    named by key. Errors name the feature, the step and the record."""
    context = _feature_entries(context_features, "context_features", "parse_sequence_example")
    sequence = []
    if sequence_features is not None:
        if not isinstance(sequence_features, dict):
            raise TypeError("parse_sequence_example: sequence_features must be a dict "
                            "{key: FixedLenSequenceFeature | VarLenFeature}")
        for key, feature in sequence_features.items():
            if isinstance(feature, FixedLenSequenceFeature):
                required = not feature.allow_missing
            elif isinstance(feature, VarLenFeature) and feature.layout == "var_len":
                required = False
            else:
                raise TypeError(f"parse_sequence_example: sequence_features[{key!r}] must be a "
                                "FixedLenSequenceFeature or a VarLenFeature (not padded)")
            sequence.append((_args.string(key, "sequence_features key"), feature.dtype, feature.layout, feature.shape,
                             required))
    if not context and not sequence:
        raise ValueError("parse_sequence_example: give context_features, sequence_features or both")
    return _sluice.fn_parse_sequence_example(_args.component(component), context, sequence)


def _feature_entries(features, what, fn):
    """{key: FixedLenFeature | VarLenFeature} (or None) as the entries the
    C++ parsers take."""
    if features is None:
        return []
    if not isinstance(features, dict):
        raise TypeError(f"{fn}: {what} must be a dict {{key: FixedLenFeature | VarLenFeature}}")
    entries = []
    for key, feature in features.items():
        if not isinstance(feature, (FixedLenFeature, VarLenFeature)):
            raise TypeError(f"{fn}: {what}[{key!r}] must be a FixedLenFeature or a VarLenFeature")
        entries.append((_args.string(key, f"{what} key"), feature.dtype, feature.layout, feature.shape,
                        feature.default_value))
    return entries
