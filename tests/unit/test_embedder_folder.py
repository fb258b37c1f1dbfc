"""A sentence-transformers folder is read as written before version 6 (the packaged model) and
as written by 6 and later (python -m training.embedder), without loading the network."""

from __future__ import annotations

import json
from pathlib import Path

from app.embedding.embedder import _dimension, _max_seq_length


def test_the_input_limit_is_read_from_either_config(tmp_path: Path) -> None:
    (tmp_path / "tokenizer_config.json").write_text(json.dumps({"model_max_length": 256}))
    assert _max_seq_length(tmp_path) == 256  # as sentence-transformers 6 saves a folder
    (tmp_path / "sentence_bert_config.json").write_text(json.dumps({"max_seq_length": 128}))
    assert _max_seq_length(tmp_path) == 128  # as earlier versions did
    (tmp_path / "sentence_bert_config.json").unlink()
    (tmp_path / "tokenizer_config.json").write_text(json.dumps({"model_max_length": 10**30}))
    assert _max_seq_length(tmp_path) == 512  # a tokenizer without a limit


def test_the_dimension_is_read_from_either_pooling_config(tmp_path: Path) -> None:
    (tmp_path / "1_Pooling").mkdir()
    pooling = tmp_path / "1_Pooling" / "config.json"
    pooling.write_text(json.dumps({"word_embedding_dimension": 384}))
    assert _dimension(tmp_path) == 384
    pooling.write_text(json.dumps({"embedding_dimension": 768, "pooling_mode": "mean"}))
    assert _dimension(tmp_path) == 768
    pooling.write_text(json.dumps({"pooling_mode": "mean"}))
    (tmp_path / "config.json").write_text(json.dumps({"hidden_size": 512}))
    assert _dimension(tmp_path) == 512
