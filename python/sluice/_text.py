"""The text functions that sluice.fn offers: hashing, vocabulary lookup,
lowercasing and normalization, splitting, WordPiece, padding."""

from . import _args, _sluice


def to_hash_bucket_fast(component, num_buckets):
    """tf.strings.to_hash_bucket_fast: each string of a string component (any
    shape) becomes FarmHash Fingerprint64(string) % num_buckets, int64, the
    ids TensorFlow gives: to_hash_bucket_fast(["Hello", "TensorFlow", "2.x"],
    3) is [0, 2, 2]."""
    return _sluice.fn_to_hash_bucket_fast(_args.component(component), _args.integer(num_buckets, "num_buckets", minimum=1))


MAX_VOCABULARY_BYTES = 1 << 28
"""lookup's default bound on a vocabulary file's size."""


def lookup(component, vocabulary_file, num_oov_buckets=1, default_value=-1, max_vocabulary_bytes=MAX_VOCABULARY_BYTES):
    """tf.lookup.StaticVocabularyTable over a vocabulary file (one token per
    line; id = line number from 0): each string of a string component (any
    shape) becomes its id, or, when absent, vocab_size +
    Fingerprint64(string) % num_oov_buckets, so ids agree with TensorFlow's.
    With num_oov_buckets=0 a missing token becomes default_value. The file
    is read when the function is made: one larger than max_vocabulary_bytes,
    with an empty line or a repeated token is a sluice.InvalidArgumentError
    naming the file and lines."""
    return _sluice.fn_lookup(
        _args.component(component), _args.string(str(vocabulary_file), "vocabulary_file"),
        _args.integer(num_oov_buckets, "num_oov_buckets", minimum=0), _args.integer(default_value, "default_value"),
        _args.integer(max_vocabulary_bytes, "max_vocabulary_bytes", minimum=1))


def lower(component=None):
    """tf.strings.lower(encoding="utf-8"): the full Unicode lowercase (ICU,
    root locale) of each string of a string component (any shape).
    Ill-formed UTF-8 is a sluice.InvalidArgumentError for that element."""
    return _sluice.fn_lower(_args.component(component))


def normalize(component=None, form="NFKC"):
    """Unicode normalisation of each string (any shape), as
    tf_text.normalize_utf8: form "NFC", "NFKC", "NFD" or "NFKD"."""
    return _sluice.fn_normalize(_args.component(component), _args.string(form, "form"))


def split_whitespace(component=None):
    """Splits text into tokens at runs of Unicode whitespace, as tf.text's
    WhitespaceTokenizer. A string scalar becomes a [-1] vector of tokens
    (padded_batch pads them); a [N] vector of strings becomes the flat
    tokens plus a component "<component>/row_lengths" [N], each string's
    token count (parse_example's VarLen layout)."""
    return _sluice.fn_split_whitespace(_args.component(component))


def regex_split(component, pattern, keep_delim_pattern=None):
    """Splits text at the non-empty matches of an RE2 regular expression,
    dropping the matches and empty tokens, as tf.text's regex_split; a
    match that as a whole matches keep_delim_pattern is kept as a token of
    its own (tf.text's keep_delim_regex_pattern: BERT's basic tokenizer keeps
    punctuation). The output is laid out as split_whitespace's. A pattern
    that doesn't compile is a sluice.InvalidArgumentError with RE2's
    reason."""
    keep = "" if keep_delim_pattern is None else _args.string(keep_delim_pattern, "keep_delim_pattern")
    return _sluice.fn_regex_split(_args.component(component), _args.string(pattern, "pattern"), keep)


def regex_replace(component, pattern, rewrite, replace_global=True):
    """tf.strings.regex_replace: in each string (any shape), the matches of
    an RE2 pattern (every one, or the first without replace_global) are
    replaced by rewrite, where \\1 to \\9 are the match's groups and \\0
    the whole match. BERT's accent stripping is normalize("NFD") then
    regex_replace(r"\\p{Mn}", "")."""
    return _sluice.fn_regex_replace(_args.component(component), _args.string(pattern, "pattern"),
                                    _args.string(rewrite, "rewrite"), bool(replace_global))


def wordpiece(component, vocabulary_file, suffix_indicator="##", max_bytes_per_word=100, max_chars_per_token=None,
              unknown_token="[UNK]", token_out_type="int64", with_offsets=False,
              max_vocabulary_bytes=MAX_VOCABULARY_BYTES):
    """tf.text's WordpieceTokenizer over a vocabulary file: each word (a
    string scalar, or each string of a [N] vector, e.g. split_whitespace's
    output) is cut greedily into the longest vocabulary token that starts
    it, then the longest suffix_indicator + piece that continues it. A word
    with an unmatched remainder, or longer than max_bytes_per_word bytes,
    becomes unknown_token. token_out_type "int64" gives ids (line numbers;
    an absent unknown_token gets vocab_size) and "string" the pieces. The
    output is laid out as split_whitespace's; with_offsets adds
    "<component>/start_offsets" and "<component>/end_offsets", each piece's
    byte offsets in its word."""
    if token_out_type not in ("int64", "string"):
        raise ValueError(f"wordpiece: token_out_type must be 'int64' or 'string', got {token_out_type!r}")
    return _sluice.fn_wordpiece(
        _args.component(component), _args.string(str(vocabulary_file), "vocabulary_file"),
        _args.string(suffix_indicator, "suffix_indicator"),
        _args.integer(max_bytes_per_word, "max_bytes_per_word", minimum=1, maximum=_args.INT32_MAX),
        _args.integer(max_chars_per_token, "max_chars_per_token", minimum=1, allow_none=True, default=0),
        _args.string(unknown_token, "unknown_token"), token_out_type == "string",
        _args.boolean(with_offsets, "with_offsets"),
        _args.integer(max_vocabulary_bytes, "max_vocabulary_bytes", minimum=1))


def pad_or_truncate(component, length, pad_value=0, per_row=False):
    """A [-1] vector to exactly `length` values, as tf.text's
    pad_model_inputs for one row: its first `length` values, then pad_value
    (strings: ""); plus "<component>/mask", int64 [length], 1 for each value
    and 0 for each pad. Rows then batch without padded_batch. With per_row,
    each row of "<component>/row_lengths" (after a splitter over a batch) is
    padded: [N, length] values and mask."""
    return _sluice.fn_pad_or_truncate(_args.component(component), _args.integer(length, "length", minimum=0),
                                      float(pad_value), bool(per_row))
