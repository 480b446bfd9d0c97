"""Downloading the public vSAN HCL feed, only when the user asks for it (``nic-advisor vcg fetch`` or the wizard's
"Download…" button, each a deliberate act): no credentials, TLS verified, a timeout, an optional proxy, a size cap.

The one public compatibility-data endpoint that needs no login is the vSAN HCL JSON that vSAN Health downloads,
``https://vvs.broadcom.com/service/vsan/all.json`` (formerly ``partnerweb.vmware.com/service/vsan/all.json``;
Broadcom KB 315556 "Updating the vSAN HCL database manually"; shared/design/research/vcg-data.md §2.3). Its ``nic``
part lists vSAN/RDMA NICs with driver → firmware pairs per release; it is not an NSX feature source. The Broadcom
Compatibility Guide has no official API (vcg-data.md §1), so its answers are imported from files the user saved.
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

VSAN_HCL_URL = "https://vvs.broadcom.com/service/vsan/all.json"
DEFAULT_TIMEOUT_S = 30.0
#: Largest download accepted (the whole vSAN HCL is a few MB; the stored-guide cap of guide_store applies too).
MAX_DOWNLOAD_BYTES = 64 * 2**20


class GuideFetchError(Exception):
    """The download failed: the message names the URL and the cause (timeout, TLS, HTTP status, too large)."""


def fetch_guide(url: str = VSAN_HCL_URL, *, timeout_s: float = DEFAULT_TIMEOUT_S, proxy: str | None = None,
                ca_file: str | None = None, max_bytes: int = MAX_DOWNLOAD_BYTES, folder: Path | None = None) -> Path:
    """Download ``url`` into a new file in ``folder`` (default: a temporary folder) and return its path.

    ``timeout_s`` bounds the connection and each read (seconds); ``proxy`` (``http://host:port``) is used for
    http and https; ``ca_file`` replaces the system's CA store for TLS verification (never disabled). The body is
    streamed and refused beyond ``max_bytes``. Raises GuideFetchError; nothing is imported here (the caller runs
    :func:`nicadvisor.vcg.guide_store.plan_import` on the file, which validates it)."""
    import requests

    if not url.startswith("https://"):
        raise GuideFetchError(f"{url}: only https:// downloads are made (the data decides compatibility findings)")
    proxies = {"http": proxy, "https": proxy} if proxy else None
    target_dir = folder or Path(tempfile.mkdtemp(prefix="nic-advisor-guide-"))
    name = url.rstrip("/").rsplit("/", 1)[-1] or "guide.json"
    path = target_dir / name
    try:
        with requests.get(url, stream=True, timeout=(timeout_s, timeout_s), proxies=proxies,
                          verify=ca_file or True, headers={"Accept": "application/json"}) as response:
            if response.status_code != 200:
                raise GuideFetchError(f"{url}: HTTP {response.status_code} {response.reason}")
            declared = response.headers.get("Content-Length")
            if declared and declared.isdigit() and int(declared) > max_bytes:
                raise GuideFetchError(f"{url}: {declared} bytes announced, more than the {max_bytes} accepted")
            size = 0
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "wb") as fh:
                for chunk in response.iter_content(chunk_size=65536):
                    size += len(chunk)
                    if size > max_bytes:
                        raise GuideFetchError(f"{url}: more than {max_bytes} bytes; download stopped")
                    fh.write(chunk)
    except GuideFetchError:
        path.unlink(missing_ok=True)
        raise
    except requests.exceptions.SSLError as exc:
        path.unlink(missing_ok=True)
        raise GuideFetchError(f"{url}: TLS verification failed ({exc.__class__.__name__}); a proxy that "
                              "intercepts TLS needs its CA given with --ca-file") from exc
    except requests.exceptions.Timeout as exc:
        path.unlink(missing_ok=True)
        raise GuideFetchError(f"{url}: no answer within {timeout_s:g} s") from exc
    except (requests.exceptions.RequestException, OSError) as exc:
        path.unlink(missing_ok=True)
        raise GuideFetchError(f"{url}: {exc.__class__.__name__}: {exc}") from exc
    return path
