"""The prompt protocols' base class is ``PromptProtocol``; ``Protocol`` (its name until 0.1.0,
easily taken for ``typing.Protocol``) still imports, with a DeprecationWarning."""

from __future__ import annotations

import pytest

import escapebench.protocols as protocols
from escapebench.protocols import PromptProtocol, make_protocol


def test_the_old_name_still_works_and_says_the_new_one() -> None:
    with pytest.warns(DeprecationWarning, match="PromptProtocol"):
        from escapebench.protocols import Protocol
    assert Protocol is PromptProtocol
    assert isinstance(make_protocol("escapebench"), Protocol)
    with pytest.raises(AttributeError):
        protocols.Protocl  # noqa: B018 - a typo is still an error
