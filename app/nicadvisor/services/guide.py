"""Use-case: import the compatibility guide from a download (``nic-advisor vcg fetch``, the wizard's "Download the
vSAN HCL…").

The file is fetched into a temporary folder (:mod:`nicadvisor.collect.guide_fetch`: https only, TLS verified, size
capped, an optional proxy and CA file), read into an import plan (:func:`nicadvisor.vcg.guide_store.plan_import`:
nothing is written) and the folder removed again: the plan holds what was read, so applying it
(:func:`nicadvisor.vcg.guide_store.apply_import`) needs no file. ``VSAN_HCL_URL`` (the public vSAN HCL, sent no
credentials), ``DEFAULT_TIMEOUT_S`` and ``GuideFetchError`` are those of the download.
"""
from __future__ import annotations

import os
from typing import Any

from nicadvisor.collect.guide_fetch import DEFAULT_TIMEOUT_S, VSAN_HCL_URL, GuideFetchError

__all__ = ["DEFAULT_TIMEOUT_S", "GuideFetchError", "VSAN_HCL_URL", "plan_download"]


def plan_download(url: str = VSAN_HCL_URL, *, timeout_s: float = DEFAULT_TIMEOUT_S, proxy: str | None = None,
                  ca_file: str | None = None, replace: bool = False,
                  companion: str | os.PathLike[str] | None = None) -> Any:
    """Download ``url`` (``timeout_s`` seconds for the whole download, through ``proxy``, TLS verified with
    ``ca_file`` or the system CAs) and return its :class:`~nicadvisor.vcg.guide_store.ImportPlan` (``replace``,
    ``companion`` as :func:`~nicadvisor.vcg.guide_store.plan_import`). The downloaded file is removed before
    returning. Raises GuideFetchError (the download), and what ``plan_import`` raises (GuideFormatError,
    GuideStoreError, ValueError)."""
    from nicadvisor.collect.guide_fetch import downloaded_guide
    from nicadvisor.vcg.guide_store import plan_import

    with downloaded_guide(url, timeout_s=timeout_s, proxy=proxy, ca_file=ca_file) as path:
        return plan_import([path], replace=replace, companion=companion)
