"""Downloading the public vSAN HCL feed, only when the user asks for it (``nic-advisor vcg fetch`` or the wizard's
"Download…" button, each a deliberate act): no credentials, TLS verified, a timeout, an optional proxy, a size cap.

The one public compatibility-data endpoint that needs no login is the vSAN HCL JSON that vSAN Health downloads,
``https://vvs.broadcom.com/service/vsan/all.json`` (formerly ``partnerweb.vmware.com/service/vsan/all.json``;
Broadcom KB 315556 "Updating the vSAN HCL database manually"; shared/design/research/vcg-data.md §2.3). Its ``nic``
part lists vSAN/RDMA NICs with driver → firmware pairs per release; it is not an NSX feature source. The Broadcom
Compatibility Guide has no official API (vcg-data.md §1), so its answers are imported from files the user saved.

A download goes into a temporary folder of its own unless a folder is given: :func:`downloaded_guide` removes it
when its ``with`` block ends; :func:`fetch_guide` removes it when the download fails, else at the latest when the
program exits.
"""
from __future__ import annotations

import atexit
import contextlib
import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import Iterator

VSAN_HCL_URL = "https://vvs.broadcom.com/service/vsan/all.json"
DEFAULT_TIMEOUT_S = 30.0
#: Largest download accepted (the whole vSAN HCL is a few MB; the stored-guide cap of guide_store applies too).
MAX_DOWNLOAD_BYTES = 64 * 2**20


class GuideFetchError(Exception):
    """The download failed: the message names the URL and the cause (timeout, TLS, HTTP status, too large)."""


#: The operating system's own words inside a requests / urllib3 error ("[Errno 111] Connection refused").
_ERRNO_TEXT = re.compile(r"\[Errno -?\d+\] ([^'\"()\]]{1,120})")


def _sentence(exc: BaseException) -> str:
    """A download error as a sentence: a connection that failed names the system's reason and what to check (the
    raw ``ConnectionError: HTTPSConnectionPool(host=…): Max retries exceeded…`` was shown before)."""
    import requests

    text = str(exc)
    reason = _ERRNO_TEXT.search(text)
    if isinstance(exc, (requests.exceptions.ConnectionError, OSError)):
        why = reason.group(1).strip().rstrip(".").lower() if reason else "the connection failed"
        return (f"cannot connect ({why}): this machine may be offline or need a proxy, or the address is "
                "blocked by a firewall")
    return f"the download failed ({reason.group(1).strip() if reason else text[:200]})"


_TEMP_DIRS: set[Path] = set()


def _remove_temp_dirs() -> None:
    for folder in list(_TEMP_DIRS):
        shutil.rmtree(folder, ignore_errors=True)
        _TEMP_DIRS.discard(folder)


atexit.register(_remove_temp_dirs)


def _discard(path: Path, own_dir: Path | None) -> None:
    path.unlink(missing_ok=True)
    if own_dir is not None:
        shutil.rmtree(own_dir, ignore_errors=True)
        _TEMP_DIRS.discard(own_dir)


def fetch_guide(url: str = VSAN_HCL_URL, *, timeout_s: float = DEFAULT_TIMEOUT_S, proxy: str | None = None,
                ca_file: str | None = None, max_bytes: int = MAX_DOWNLOAD_BYTES, folder: Path | None = None) -> Path:
    """Download ``url`` into a new file in ``folder`` (default: a new temporary folder, removed when the download
    fails and at the latest when the program exits — use :func:`downloaded_guide` to remove it sooner) and return
    its path.

    ``timeout_s`` bounds the whole download — connection, TLS and the complete answer (seconds; a server sending one
    byte every few seconds cannot hold it longer: :mod:`nicadvisor.collect.deadline`); ``proxy`` (``http://host:port``) is used for
    http and https; ``ca_file`` replaces the system's CA store for TLS verification (never disabled). The body is
    streamed and refused beyond ``max_bytes``. Raises GuideFetchError; nothing is imported here (the caller runs
    :func:`nicadvisor.vcg.guide_store.plan_import` on the file, which validates it)."""
    import requests

    from nicadvisor.collect.deadline import VerifiedAdapter, deadline

    if not url.startswith("https://"):
        raise GuideFetchError(f"{url}: only https:// downloads are made (the data decides compatibility findings)")
    proxies = {"http": proxy, "https": proxy} if proxy else None
    own_dir = None if folder else Path(tempfile.mkdtemp(prefix="nic-advisor-guide-"))
    if own_dir is not None:
        _TEMP_DIRS.add(own_dir)
    target_dir = folder or own_dir
    name = url.rstrip("/").rsplit("/", 1)[-1] or "guide.json"
    path = target_dir / name
    session = requests.Session()
    session.trust_env = False  # the proxy is the one given, or none
    session.mount("https://", VerifiedAdapter(ca_file))
    try:
        with deadline(timeout_s), session, session.get(url, stream=True, timeout=(timeout_s, timeout_s),
                                                       proxies=proxies, headers={"Accept": "application/json"}) \
                as response:
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
        _discard(path, own_dir)
        raise
    except requests.exceptions.SSLError as exc:
        _discard(path, own_dir)
        raise GuideFetchError(f"{url}: TLS verification failed ({exc.__class__.__name__}); a proxy that "
                              "intercepts TLS needs its CA given with --ca-file") from exc
    except (requests.exceptions.Timeout, TimeoutError) as exc:
        _discard(path, own_dir)
        raise GuideFetchError(f"{url}: no answer within {timeout_s:g} s") from exc
    except (requests.exceptions.RequestException, OSError) as exc:
        _discard(path, own_dir)
        raise GuideFetchError(f"{url}: {_sentence(exc)}") from exc
    return path


@contextlib.contextmanager
def downloaded_guide(url: str = VSAN_HCL_URL, **options) -> Iterator[Path]:
    """``with downloaded_guide(url, timeout_s=…, proxy=…, ca_file=…) as path:`` — :func:`fetch_guide` into a
    temporary folder that is removed when the block ends (the caller reads the file inside the block; with a
    ``folder`` option the file is removed and the folder kept). Raises GuideFetchError as fetch_guide does."""
    path = fetch_guide(url, **options)
    try:
        yield path
    finally:
        _discard(path, path.parent if path.parent in _TEMP_DIRS else None)
