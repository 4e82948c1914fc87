import os
import sys

import pytest
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


@pytest.fixture(autouse=True)
def _seed():
    torch.manual_seed(0)


@pytest.fixture(autouse=True, scope="session")
def _cache(tmp_path_factory):
    # Each test session compiles into a cache of its own, so a test that
    # checks the cache sees only its own entries.
    if "KILN_CACHE_DIR" not in os.environ:
        os.environ["KILN_CACHE_DIR"] = str(tmp_path_factory.mktemp("kiln-cache"))
