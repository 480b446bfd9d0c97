"""What the benchmark charts draw, from result documents (``BenchResult.to_dict()`` / the JSON ``benchmarks``
entries). PURE: the wizard (pyqtgraph) and the PDF/HTML (reportlab) draw the same figures from these.

* :func:`chart_label`: the name of a result on a chart axis (its catalogue test, tool and where it ran);
* :func:`percentile_rows`: per request/response result, its mean, p50, p90 and p99 latency in µs (netperf omni
  ``MEAN_LATENCY``/``P50_LATENCY``/``P90_LATENCY``/``P99_LATENCY``, the agent's own per-transaction timing);
* :func:`sweep_series`: TCP_RR round trip (µs, ``1e6 / transactions per second``) against the request = response
  size in bytes, one series per tool and path, as vmfex-vs-vswitch-netperf.txt Table 3 sweeps 1 … 8192 bytes.
"""
from __future__ import annotations

from typing import Any, Iterable, Mapping

PERCENTILES = (("mean", "mean_latency_us"), ("p50", "p50_latency_us"), ("p90", "p90_latency_us"),
               ("p99", "p99_latency_us"))


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value or value < 0:
        return None
    return float(value)


def where(doc: Mapping[str, Any]) -> str:
    """``"lab-a→lab-b"`` for a result between hosts, else its path (``"loopback"``, ``"netns"``)."""
    if doc.get("client"):
        return f"{doc['client']}→{doc.get('server', '')}"
    return str(doc.get("path") or "")


def chart_label(doc: Mapping[str, Any]) -> str:
    """``"TCP_RR 64 B · netperf lab-a→lab-b"``: the catalogue test (else the netperf test), tool and where."""
    return f"{doc.get('spec') or doc.get('test', '')} · {doc.get('tool', '')} {where(doc)}".strip()


def percentile_rows(docs: Iterable[Mapping[str, Any]]) -> list[tuple[str, dict[str, float]]]:
    """``[(chart_label, {"mean": µs, "p50": µs, "p90": µs, "p99": µs}), …]`` for the results that report at least
    one percentile (request/response tests of netperf or the agent); a figure not reported is left out."""
    out = []
    for doc in docs:
        values = {name: v for name, key in PERCENTILES if (v := _number(doc.get(key))) is not None}
        if any(name != "mean" for name in values):
            out.append((chart_label(doc), values))
    return out


def sweep_series(docs: Iterable[Mapping[str, Any]]) -> dict[str, list[tuple[int, float]]]:
    """``{"netperf lab-a→lab-b": [(payload bytes, round trip µs), …]}`` sorted by payload, for the single-direction
    TCP_RR results with a request size, one series per tool and path; only series of two sizes or more (a sweep)."""
    series: dict[str, dict[int, float]] = {}
    for doc in docs:
        if doc.get("test") != "TCP_RR" or (doc.get("direction") or "send") != "send":
            continue
        payload = doc.get("payload_bytes")
        tps = _number(doc.get("transactions_per_s"))
        if not isinstance(payload, int) or isinstance(payload, bool) or payload < 1 or not tps:
            continue
        rtt = _number(doc.get("rtt_us")) or 1e6 / tps
        series.setdefault(f"{doc.get('tool', '')} {where(doc)}".strip(), {})[payload] = rtt
    return {name: sorted(points.items()) for name, points in series.items() if len(points) >= 2}
