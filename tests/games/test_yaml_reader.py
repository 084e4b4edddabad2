"""The fast YAML reader gives exactly what PyYAML's safe loader gives, errors included."""

from __future__ import annotations

import pytest
import yaml

from escapebench.games.loading import builtin_files
from escapebench.games.yaml_reader import RefusedYAML, load_yaml_text

# Everything game files are made of, and the YAML features the reader leaves to PyYAML.
DOCUMENTS = {
    "empty": "",
    "comment only": "# nothing\n",
    "empty document": "---\n",
    "plain data": "a: b\nc: [d, {e: f}]\n",
    "texts": "a: 'True'\nb: \"1\"\nc: |\n  x\n  y\nd: >\n  f\n  g\ne: \"\\u00e9\"\n",
    "booleans and nulls": "yes: no\non: off\nTrue: FALSE\n~: null\nn:\n",
    "numbers and dates": "a: 1\nb: 1:30\nc: 0x1F\nd: 1_000\ne: .inf\nf: -.5\ng: 2001-12-14\n",
    "number-like texts": "a: 12e3\nb: 0o17\nc: 1.2.3\nd: '12'\n",
    "integer keys": "1: a\n2: b\n",
    "repeated key": "a: b\na: c\n",
    "top-level list": "- a\n- b: c\n  d: [e, f]\n",
    "top-level text": "plain text\n",
    "value key": "=: x\n",
    "directives": "%YAML 1.1\n---\na: b\n",
    "flow mapping": "{a: b, c: [d, e]}\n",
    "complex key": "? [a, b]\n: c\n",
    "value indicator as value": "a: =\n",
    "two documents": "a: b\n---\nc: d\n",
    "unclosed list": "a: [1, 2\n",
    "tab": "a:\tb\n",
    "merge key without alias": "a:\n  <<: {k: v}\n  j: w\n",
}

# Anchors and aliases: refused by both paths of the reader, with the place (game files never
# need them, and PyYAML would expand them: a few bytes can stand for gigabytes or for a cycle).
ALIASED = {
    "anchor and alias": ("a: &x [1, 2]\nb: *x\n", 1),
    "merge key": ("a: &x {k: v}\nb:\n  <<: *x\n  j: w\n", 1),
    "recursive anchor": ("a: &r [*r]\n", 1),
    "undefined alias": ("a: *nowhere\n", 1),
    "anchor on a key": ("&k a: b\n", 1),
    "alias as a key": ("a: &k b\n*k : c\n", 1),
    "after an integer key (PyYAML's path)": ("1: a\nb: [x, &y z]\nc: *y\n", 2),
    "scalar anchor in a mapping value": ("a: b\nc: &s text\n", 2),
}


def _pyyaml(text: str) -> tuple[str, str]:
    try:
        return "value", repr(yaml.load(text, Loader=yaml.CSafeLoader))
    except yaml.YAMLError as exc:
        return type(exc).__name__, str(exc)


def _ours(text: str) -> tuple[str, str]:
    try:
        return "value", repr(load_yaml_text(text))
    except yaml.YAMLError as exc:
        return type(exc).__name__, str(exc)


@pytest.mark.parametrize("name", sorted(DOCUMENTS))
def test_reader_matches_pyyaml(name: str) -> None:
    # repr tells True from 1 and a list from a tuple, which == does not
    text = DOCUMENTS[name]
    assert _ours(text) == _pyyaml(text)


def test_reader_matches_pyyaml_on_every_built_in_game() -> None:
    for path in builtin_files():
        text = path.read_text(encoding="utf-8")
        assert _ours(text) == _pyyaml(text), path.name


def test_reader_matches_pyyaml_on_original_games(upstream_dir) -> None:
    for path in sorted((upstream_dir / "data").glob("*.yaml")):
        text = path.read_text(encoding="utf-8")
        assert _ours(text) == _pyyaml(text), path.name


@pytest.mark.parametrize("name", sorted(ALIASED))
def test_reader_refuses_anchors_and_aliases(name: str) -> None:
    text, line = ALIASED[name]
    with pytest.raises(RefusedYAML, match="anchors and aliases are not allowed") as caught:
        load_yaml_text(text)
    assert caught.value.mark.line + 1 == line


# Explicit tags: a game file is plain scalars, lists and mappings. Before, !!binary was shown as
# b'hello', !!set came out in an order that depends on the hash seed, !!python/... reached PyYAML.
TAGGED = {
    "binary": ("a: b\nc: !!binary aGVsbG8=\n", 2),
    "set": ("a: !!set {x, y}\n", 1),
    "omap": ("a: b\nc: x\nd: !!omap [x: 1]\n", 3),
    "timestamp": ("a: !!timestamp 2001-12-14\n", 1),
    "python object": ("a: !!python/object:os.system {}\n", 1),
    "str": ("a: !!str 3\n", 1),
    "non-specific": ("a: ! x\n", 1),
    "custom": ("a:\n  - !custom x\n", 2),
    "tagged key": ("!!str a: b\n", 1),
    "tagged top level": ("!!map {a: b}\n", 1),
    "after an integer key (PyYAML's path)": ("1: a\nb: !!binary aGVsbG8=\n", 2),
}


@pytest.mark.parametrize("name", sorted(TAGGED))
def test_reader_refuses_explicit_tags_with_their_line(name: str) -> None:
    text, line = TAGGED[name]
    with pytest.raises(RefusedYAML, match="explicit YAML tags are not allowed") as caught:
        load_yaml_text(text)
    assert caught.value.mark.line + 1 == line
    assert "!" in caught.value.message.split("found ")[1]  # the tag as it is written


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("a: b\nc: " + "7" * 4400 + "\n", 2),  # past Python's int conversion limit
        ("a: -" + "1" * 5000 + "\n", 1),
        ("a:\n  - 0x" + "f" * 3000 + "\n", 2),  # no conversion limit, but no str() either
        ("1: x\nb: " + "9" * 4300 + "\n", 2),  # PyYAML's path
        ("a: " + "1" * 2000 + ".5\n", 1),
    ],
    ids=["decimal", "negative", "hex", "pyyaml path", "float"],
)
def test_reader_refuses_numbers_too_long_to_use_with_their_line(text: str, line: int) -> None:
    with pytest.raises(RefusedYAML, match="put it in quotes") as caught:
        load_yaml_text(text)
    assert caught.value.mark.line + 1 == line


def test_long_digit_strings_in_quotes_are_text() -> None:
    assert load_yaml_text("a: '" + "7" * 5000 + "'\n") == {"a": "7" * 5000}
