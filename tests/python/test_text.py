"""sluice.fn's text functions: the documented vectors of
tf.strings.to_hash_bucket_fast and tf.lookup.StaticVocabularyTable, and
their errors."""

import numpy as np
import pytest

import sluice


def test_to_hash_bucket_fast_documented_vector():
    ds = sluice.Dataset.from_tensors(np.array([b"Hello", b"TensorFlow", b"2.x"], dtype=object))
    (ids,) = list(ds.map(sluice.fn.to_hash_bucket_fast(None, 3)))
    assert ids.dtype == np.int64 and ids.tolist() == [0, 2, 2]


def test_lookup_documented_vector(tmp_path):
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("emerson\nlake\npalmer\ncrimnson\n")
    words = [b"palmer", b"crimnson", b"king", b"tarkus", b"black", b"moon"]
    ds = sluice.Dataset.from_tensor_slices({"word": words}).map(sluice.fn.lookup("word", vocab, num_oov_buckets=3),
                                                               num_parallel_calls=2)
    assert [e["word"] for e in ds] == [2, 3, 5, 6, 6, 4]
    (missing,) = list(sluice.Dataset.from_tensors(b"king").map(sluice.fn.lookup(None, vocab, num_oov_buckets=0,
                                                                                 default_value=-9)))
    assert missing == -9


def test_lookup_errors(tmp_path):
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("a\nb\na\n")
    with pytest.raises(sluice.InvalidArgumentError, match="line 3 repeats the token 'a' of line 1"):
        sluice.fn.lookup(None, vocab)
    with pytest.raises(sluice.NotFoundError, match="does not exist"):
        sluice.fn.lookup(None, tmp_path / "missing.txt")
    with pytest.raises(ValueError, match="num_oov_buckets"):
        sluice.fn.lookup(None, vocab, num_oov_buckets=-1)


def test_normalize_split_and_padded_batch():
    lines = ["Caf\u00e9  AU lait".encode(), b"THE\tend", "\ufb01ne".encode()]
    ds = (sluice.Dataset.from_tensor_slices({"text": lines})
          .map(sluice.fn.lower("text"), num_parallel_calls=2)
          .map(sluice.fn.normalize("text", "NFKC"))
          .map(sluice.fn.split_whitespace("text"))
          .padded_batch(3))
    (batch,) = list(ds)
    assert batch["text"].tolist() == [["caf\u00e9".encode(), b"au", b"lait"], [b"the", b"end", b""], [b"fine", b"", b""]]


def test_regex_split_of_a_vector_gives_row_lengths():
    ds = sluice.Dataset.from_tensors({"text": np.array([b"1<>2<><>3", b"", b"4"], dtype=object)})
    (out,) = list(ds.map(sluice.fn.regex_split("text", "<>")))
    assert out["text"].tolist() == [b"1", b"2", b"3", b"4"] and out["text/row_lengths"].tolist() == [3, 0, 1]
    with pytest.raises(sluice.InvalidArgumentError, match="invalid pattern"):
        sluice.fn.regex_split(None, "(")
    with pytest.raises(sluice.InvalidArgumentError, match="not valid UTF-8"):
        list(sluice.Dataset.from_tensors(b"\xff").map(sluice.fn.split_whitespace()))


def test_bert_basic_tokenizer_from_regex_replace_and_regex_split():
    # tf.text's BertTokenizer(lower_case=True) before WordPiece: lower, NFD, combining marks removed, then split at
    # whitespace and punctuation, keeping the punctuation.
    punctuation = r"[!-/]|[:-@]|[\[-`]|[{-~]|\p{P}"
    ds = (sluice.Dataset.from_tensor_slices({"text": np.array(["Hello, World!", "Ça va? (très)"])})
          .map(sluice.fn.lower("text"))
          .map(sluice.fn.normalize("text", "NFD"))
          .map(sluice.fn.regex_replace("text", r"\p{Mn}", ""))
          .map(sluice.fn.regex_split("text", r"\s+|" + punctuation, keep_delim_pattern=punctuation)))
    out = [[t.decode() for t in e["text"]] for e in ds]
    assert out == [["hello", ",", "world", "!"], ["ca", "va", "?", "(", "tres", ")"]]
    (first,) = list(sluice.Dataset.from_tensors({"text": np.array("banana")}).map(
        sluice.fn.regex_replace("text", "(an)", r"<\1>", replace_global=False)))
    assert first["text"] == b"b<an>ana"
    with pytest.raises(sluice.InvalidArgumentError, match="Rewrite schema requests 2 matches"):
        sluice.fn.regex_replace("text", "(a)", r"\2")


def test_wordpiece_documented_vectors_and_padding(tmp_path):
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("they\n##'\n##re\nthe\ngreat\n##est\n")
    words = sluice.Dataset.from_tensors({"text": b"they're the greatest"}).map(sluice.fn.split_whitespace("text"))
    (out,) = list(words.map(sluice.fn.wordpiece("text", vocab, token_out_type="string", with_offsets=True)))
    assert out["text"].tolist() == [b"they", b"##'", b"##re", b"the", b"great", b"##est"]
    assert out["text/start_offsets"].tolist() == [0, 4, 5, 0, 0, 5]
    assert out["text/end_offsets"].tolist() == [4, 5, 7, 3, 5, 8]
    assert out["text/row_lengths"].tolist() == [3, 1, 2]
    unknown = sluice.Dataset.from_tensors(np.array([b"they", b"are", b"great"], dtype=object))
    (ids, row_lengths) = next(iter(unknown.map(sluice.fn.wordpiece(None, vocab))))
    assert ids.tolist() == [0, 6, 4] and row_lengths.tolist() == [1, 1, 1]
    padded = words.map(sluice.fn.wordpiece("text", vocab)).map(sluice.fn.pad_or_truncate("text", 8)).batch(1)
    (batch,) = list(padded)
    assert batch["text"].tolist() == [[0, 1, 2, 3, 4, 5, 0, 0]]
    assert batch["text/mask"].tolist() == [[1, 1, 1, 1, 1, 1, 0, 0]]
    with pytest.raises(ValueError, match="token_out_type"):
        sluice.fn.wordpiece(None, vocab, token_out_type="int32")
