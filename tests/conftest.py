"""Settings of the whole suite.

Hypothesis' per-example deadline (200 ms) and its too-slow health check time each drawn
case; ``make test`` runs on two loaded cores (two workers, MPI jobs of up to four ranks
beside them), where a pure function's case can take longer than that without anything
being wrong (``test_backoff.py`` failed so, twice, at load 20-33).  The properties keep
their own example counts; only the wall-clock limits go.
"""
from hypothesis import HealthCheck, settings

settings.register_profile("phylanx-suite", deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("phylanx-suite")
