"""Suite-wide set-up: the hypothesis profiles of the property tests (tests/fuzz).

``default`` is what ``python -m pytest`` runs: few examples per property, random each run, no
deadline (timing is recorded and reported, never asserted). ``fuzz`` is the long tier
(``python -m pytest -m fuzz --hypothesis-profile=fuzz``, run by ``.ci/run``): each property's own
large count (see ``tests/fuzz/_tier.py``), derandomized so every CI run tries the same cases.
Profiles are registered here, in the root conftest, because hypothesis loads the one named on the
command line while pytest configures, before test folders' conftests are read.
"""

from __future__ import annotations

from hypothesis import HealthCheck, settings

_QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example, HealthCheck.filter_too_much]

settings.register_profile("default", deadline=None, suppress_health_check=_QUIET, database=None, print_blob=True)
settings.register_profile(
    "fuzz", deadline=None, suppress_health_check=_QUIET, database=None, derandomize=True, print_blob=True
)
settings.load_profile("default")
