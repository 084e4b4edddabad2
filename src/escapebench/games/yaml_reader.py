"""Reading the YAML of a game file: safely, fast, and cached.

:func:`load_yaml_text` is ``yaml.load`` with PyYAML's safe loader, about twice as fast for game
files, that refuses anchors, aliases, deep nesting, explicit tags (``!!binary``, ``!!set``...) and
numbers too long to use (:class:`RefusedYAML`); the size limit of
a file is :data:`MAX_GAME_FILE_BYTES`. Parsed documents are cached as JSON by the hash of the
file's bytes (:func:`yaml_cache_dir`). :func:`escapebench.games.loading.read_yaml` puts these
together for a file and turns every refusal into a ``GameFileError`` with its line.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import yaml

try:  # libyaml's C loader is many times faster; fall back to pure Python where absent
    from yaml import CSafeLoader as _SafeLoader
except ImportError:  # pragma: no cover - depends on how PyYAML was built
    from yaml import SafeLoader as _SafeLoader  # type: ignore[assignment]

# Parsing YAML is most of the time a load takes (libyaml still builds a Python object for every
# node and mark), so parsed documents are kept as JSON, named by the SHA-256 of the file's bytes
# and the PyYAML version: a changed file is a different entry, and JSON is plain data. Set
# ESCAPEBENCH_GAME_CACHE to a folder to move the cache, or to "off" to disable it.
CACHE_ENV = "ESCAPEBENCH_GAME_CACHE"
_CACHE_FORMAT = b"escapebench-yaml-cache-2"  # 2: only files without aliases are kept


def yaml_cache_dir() -> Path | None:
    """Where parsed game files are cached, or None when caching is off."""
    value = os.environ.get(CACHE_ENV)
    if value is not None:
        off = not value.strip() or value.strip().lower() in ("0", "off", "no", "false")
        return None if off else Path(value)
    try:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    except RuntimeError:  # no home directory to be found
        return None
    return base / "escapebench" / "games"


def _cache_file(raw: bytes) -> Path | None:
    folder = yaml_cache_dir()
    if folder is None:
        return None
    digest = hashlib.sha256(_CACHE_FORMAT + yaml.__version__.encode() + b"\0" + raw)
    return folder / f"{digest.hexdigest()}.json"


def _cache_store(path: Path, data: Any) -> None:
    """Keep ``data`` as JSON if JSON gives back exactly the same (no dates, sets, int keys)."""
    try:
        encoded = json.dumps(data, ensure_ascii=False, allow_nan=False)
        if json.loads(encoded) != data:
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.stem}.{os.getpid()}.tmp")
        tmp.write_text(encoded, encoding="utf-8")
        os.replace(tmp, path)  # atomic: a reader sees the whole entry or none
    except (OSError, TypeError, ValueError):
        return  # a cache that cannot be written only costs speed


_STR_TAG = "tag:yaml.org,2002:str"
_BOOL_TAG = "tag:yaml.org,2002:bool"
_NULL_TAG = "tag:yaml.org,2002:null"
_BOOL_VALUES = yaml.constructor.SafeConstructor.bool_values


class _Unusual(Exception):
    """Something the fast reader leaves to PyYAML (explicit tags, merge keys...)."""


# Limits on what a game file may be. Game files are plain data written by people: the largest
# shipped one is about 60 KB and 12 levels deep. Anchors and aliases are refused outright:
# no game needs them, and an alias can make a few bytes stand for gigabytes ("billion laughs")
# or for a structure that contains itself, which every later walk would follow for ever.
MAX_GAME_FILE_BYTES = 1024 * 1024
MAX_YAML_DEPTH = 64


class RefusedYAML(Exception):
    """YAML that is valid but not accepted in a game file (an alias, too deep), with where."""

    def __init__(self, message: str, mark: Any = None):
        super().__init__(message)
        self.message = message
        self.mark = mark


def _refuse_alias(event: Any) -> RefusedYAML:
    if isinstance(event, yaml.AliasEvent):
        what = f"alias *{event.anchor}"
    else:
        what = f"anchor &{event.anchor}"
    return RefusedYAML(
        f"YAML anchors and aliases are not allowed in game files (found {what}); "
        "write the value out in full",
        event.start_mark,
    )


_TOO_DEEP = f"nested more than {MAX_YAML_DEPTH} levels deep (game files need about 12)"


def _refuse_depth(event: Any) -> RefusedYAML:
    return RefusedYAML(_TOO_DEEP, event.start_mark)


MAX_NUMBER_DIGITS = 1000
"""The longest number a game file may hold (in characters); a password of more digits is
written in quotes, as text."""


_YAML_TAG_PREFIX = "tag:yaml.org,2002:"


def _refuse_tag(event: Any) -> RefusedYAML:
    tag = str(event.tag)
    if tag.startswith(_YAML_TAG_PREFIX):
        tag = "!!" + tag[len(_YAML_TAG_PREFIX):]  # as it is written in the file
    return RefusedYAML(
        f"explicit YAML tags are not allowed in game files (found {tag}); "
        "write plain text, numbers, true/false, lists and mappings",
        event.start_mark,
    )


def _refuse_number(event: Any) -> RefusedYAML:
    return RefusedYAML(
        f"a number of {len(event.value)} characters is longer than the "
        f"{MAX_NUMBER_DIGITS} a game file may hold; put it in quotes to make it text",
        event.start_mark,
    )


_NUMBER_TAGS = frozenset(("tag:yaml.org,2002:int", "tag:yaml.org,2002:float"))


def _check_scalar(loader: Any, event: Any) -> None:
    """Refuse an explicit tag on ``event`` (any node) or a plain number too long to use."""
    tag = getattr(event, "tag", None)
    if tag is not None:
        raise _refuse_tag(event)
    if (
        isinstance(event, yaml.ScalarEvent)
        and len(event.value) > MAX_NUMBER_DIGITS
        and event.implicit[0]
        and loader.resolve(yaml.ScalarNode, event.value, event.implicit) in _NUMBER_TAGS
    ):
        raise _refuse_number(event)


def _guard_events(text: str) -> None:
    """Raise :class:`RefusedYAML` for any anchor, alias or nesting beyond
    :data:`MAX_YAML_DEPTH` (one pass over libyaml's events, nothing built)."""
    loader = _SafeLoader(text)
    try:
        depth = 0
        while loader.check_event():
            event = loader.get_event()
            if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
                raise _refuse_alias(event)
            if isinstance(event, (yaml.ScalarEvent, yaml.CollectionStartEvent)):
                _check_scalar(loader, event)
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                if depth > MAX_YAML_DEPTH:
                    raise _refuse_depth(event)
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
    finally:
        loader.dispose()


def load_yaml_text(text: str) -> Any:
    """``yaml.load(text, Loader=<safe loader>)``, about twice as fast for game files.

    PyYAML builds a node for every value and then constructs the values in Python, which is
    most of a first load. Game files are plain data: mappings with text keys, lists, text,
    booleans, numbers. Those are built here straight from libyaml's events, with each plain
    scalar's type resolved by PyYAML's own resolver (once per distinct text) and numbers, dates
    and the like constructed by PyYAML. Anything else (merge keys, keys that are numbers,
    several documents, any error) makes PyYAML read the text itself, so the result and every
    error are exactly PyYAML's.

    Anchors, aliases, nesting deeper than :data:`MAX_YAML_DEPTH`, explicit tags and plain
    numbers longer than :data:`MAX_NUMBER_DIGITS` raise :class:`RefusedYAML` on either path,
    before anything is built from them: a game file is plain scalars, lists and mappings.
    """
    try:
        return _read_plain_document(text)
    except RefusedYAML:
        raise
    except Exception:  # noqa: BLE001 - whatever it is, PyYAML decides
        _guard_events(text)  # PyYAML would expand aliases: none may reach it
        return yaml.load(text, Loader=_SafeLoader)


def _read_plain_document(text: str) -> Any:
    loader = _SafeLoader(text)
    try:
        if loader.yaml_path_resolvers:
            raise _Unusual("path resolvers change tags")
        next_event = loader.get_event
        next_event()  # stream start
        event = next_event()
        if isinstance(event, yaml.StreamEndEvent):
            return None  # an empty file
        value = _EventReader(loader, next_event).value(next_event())
        next_event()  # document end
        if not isinstance(next_event(), yaml.StreamEndEvent):
            raise _Unusual("more than one document")
        return value
    finally:
        loader.dispose()


class _EventReader:
    """Builds values from libyaml events the way PyYAML's composer and safe constructor do."""

    def __init__(self, loader: Any, next_event: Any) -> None:
        self.loader = loader
        self.next_event = next_event
        self.plain: dict[str, tuple[Any, str]] = {}  # plain scalar text -> (value, tag)
        self.depth = 0  # collections open around the value being read

    def value(self, event: Any) -> Any:
        kind = type(event)
        if kind is _ALIAS or event.anchor is not None:
            raise _refuse_alias(event)
        if event.tag is not None:
            _check_scalar(self.loader, event)
        if kind is _SCALAR:
            return self.scalar(event)[0]
        self.depth += 1
        if self.depth > MAX_YAML_DEPTH:
            raise _refuse_depth(event)
        try:
            return self.collection(event, kind)
        finally:
            self.depth -= 1

    def collection(self, event: Any, kind: type) -> Any:
        next_event, value, plain, plain_scalar = (
            self.next_event, self.value, self.plain, self.plain_scalar
        )
        if kind is _SEQUENCE_START:
            items = []
            event = next_event()
            while type(event) is not _SEQUENCE_END:
                items.append(value(event))
                event = next_event()
            return items
        if kind is _MAPPING_START:
            mapping: dict[Any, Any] = {}
            event = next_event()
            while type(event) is not _MAPPING_END:
                if type(event) is _ALIAS or getattr(event, "anchor", None) is not None:
                    raise _refuse_alias(event)
                if event.tag:
                    _check_scalar(self.loader, event)
                if type(event) is not _SCALAR:
                    raise _Unusual("key that is not plain text")
                key = event.value
                if event.implicit[0]:
                    key, tag = plain.get(key) or plain_scalar(event)
                    if tag not in _PLAIN_KEY_TAGS:  # merge keys, value keys, numbers: PyYAML's
                        raise _Unusual(f"key tagged {tag}")
                # Most values are scalars: read here (as scalar() does) rather than by a call.
                event = next_event()
                if type(event) is _SCALAR and event.anchor is None and event.tag is None:
                    item = event.value
                    if event.implicit[0]:
                        item = (plain.get(item) or plain_scalar(event))[0]
                    mapping[key] = item
                else:
                    mapping[key] = value(event)
                event = next_event()
            return mapping
        raise _Unusual(f"{kind.__name__}")

    def scalar(self, event: Any) -> tuple[Any, str]:
        """A scalar's value and tag."""
        if not event.implicit[0]:  # quoted or a block: text, as the resolver says
            return event.value, _STR_TAG
        known = self.plain.get(event.value)
        return known if known is not None else self.plain_scalar(event)

    def plain_scalar(self, event: Any) -> tuple[Any, str]:
        """A plain scalar's value and tag, found once per distinct text."""
        text = event.value
        known = self.plain.get(text)
        if known is not None:
            return known
        tag = self.loader.resolve(yaml.ScalarNode, text, event.implicit)
        if tag == _STR_TAG:
            value: Any = text
        elif tag == _BOOL_TAG:
            value = _BOOL_VALUES[text.lower()]
        elif tag == _NULL_TAG:
            value = None
        else:
            if len(text) > MAX_NUMBER_DIGITS and tag in _NUMBER_TAGS:
                raise _refuse_number(event)
            # numbers, dates...: PyYAML's constructor, on the node it would have built (these
            # values are immutable, so one serves every occurrence of the text)
            node = yaml.ScalarNode(tag, text, event.start_mark, event.end_mark, event.style)
            value = self.loader.construct_object(node, deep=True)
        known = self.plain[text] = (value, tag)
        return known


_SCALAR, _ALIAS = yaml.ScalarEvent, yaml.AliasEvent
_SEQUENCE_START, _SEQUENCE_END = yaml.SequenceStartEvent, yaml.SequenceEndEvent
_MAPPING_START, _MAPPING_END = yaml.MappingStartEvent, yaml.MappingEndEvent
_PLAIN_KEY_TAGS = frozenset((_STR_TAG, _BOOL_TAG, _NULL_TAG))
