from __future__ import annotations

import pytest
from .ud_helpers import SHARED


@pytest.fixture
def shared():
    if not SHARED.is_dir():
        pytest.skip("../shared not available")
    return SHARED
