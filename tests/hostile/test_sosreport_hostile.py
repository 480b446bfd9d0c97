"""Hostile sosreports, multi-host pastes and capture dates (inputs added with issues 24-26), fed to the real CLI in a
limited child (conftest.py: 1 GiB, 60 s of CPU). The sosreport is the real canonical/hotsos tree of
tests/collect/sosreports; the attack parts (zeros, hostile names, dates) are payloads, not device output."""
from __future__ import annotations

import io
import lzma
import os
import tarfile
from pathlib import Path

import pytest

TREE = Path(__file__).resolve().parents[1] / "collect" / "sosreports" / "hotsos-kubernetes"
HOST = "juju-110cc2-k8stest-4"  # its sos_commands/host/hostname


def _tree_members(root: str) -> list[tuple[tarfile.TarInfo, bytes]]:
    out = []
    for p in sorted(TREE.rglob("*")):
        if p.is_file():
            data = p.read_bytes()
            info = tarfile.TarInfo(f"{root}/{p.relative_to(TREE).as_posix()}" if root else p.relative_to(TREE).as_posix())
            info.size = len(data)
            out.append((info, data))
    return out


def _tar_bytes(members: list[tuple[tarfile.TarInfo, bytes]], end: bool) -> bytes:
    buf = io.BytesIO()
    for info, data in members:
        buf.write(info.tobuf(tarfile.GNU_FORMAT))
        buf.write(data + b"\0" * (-len(data) % 512))
    if end:
        buf.write(b"\0" * 1024)
    return buf.getvalue()


def _xz_bomb(path: Path, zeros_gib: int) -> Path:
    """A sosreport ``.tar.xz``: the real tree, then a member of ``zeros_gib`` GiB of zeros (the same xz stream of
    64 MiB of zeros concatenated: xz reads concatenated streams as one), then one more member."""
    root = "sosreport-bomb-2026-01-01-abcdefg"
    huge = tarfile.TarInfo(f"{root}/var/log/huge")
    huge.size = zeros_gib << 30
    chunk = lzma.compress(bytes(64 << 20), preset=9)
    after = tarfile.TarInfo(f"{root}/sos_commands/networking/ethtool_-i_ens9")
    after.size = 14
    with open(path, "wb") as fh:
        fh.write(lzma.compress(_tar_bytes(_tree_members(root), end=False) + huge.tobuf(tarfile.GNU_FORMAT)))
        for _ in range(zeros_gib * 16):
            fh.write(chunk)
        fh.write(lzma.compress(_tar_bytes([(after, b"driver: ixgbe\n")], end=True)))
    return path


def test_an_xz_bomb_sosreport_stops_unpacking_and_keeps_what_came_before(cli, tmp_path):
    bomb = _xz_bomb(tmp_path / "sosreport-bomb.tar.xz", 64)
    assert bomb.stat().st_size < 20_000_000
    run = cli("audit", "--no-history", "--capture", bomb, "--json", tmp_path / "b.json")
    assert "unpacks to more than" in run.err and "'sosreport-bomb-2026-01-01-abcdefg/var/log/huge'" in run.err
    assert f"{HOST} (linux)" in run.out and "ens3" in run.out  # what came before the bomb is audited


# capture dates (issue 24 §3): a bogus "# captured:" date is no date, never "the newer capture" ------------------

def _dated_vcf9(tmp_path: Path, dates: dict[str, str]) -> Path:
    """The demo lab's esxi-vcf9-nested real captures (a failed ``vmkping -d`` and the interface list after the MTU
    change: a conflict on vmk0's MTU) with a ``# captured:`` line (the attack payload) after the first line."""
    import shutil

    from nicadvisor.paths import demo_lab_dir

    out = tmp_path / "esxi-vcf9-nested"
    shutil.copytree(demo_lab_dir() / "esxi-vcf9-nested", out)
    for name, when in dates.items():
        lines = (out / name).read_text(encoding="utf-8").splitlines(keepends=True)
        lines.insert(1, f"# captured: {when}\n")
        (out / name).write_text("".join(lines), encoding="utf-8")
    return out


PING = "esxi_vmkping-d_message_too_long_mtu_mismatch.txt"
LIST = "esxi_esxcli_ip_interface_list_esxi9_urpf.txt"


def test_a_date_that_is_no_calendar_date_is_no_crash_of_the_reports(cli, tmp_path):
    # month 13 made the PDF, HTML and JSON writers fail (ValueError in the "captured" lines): exit 3, no report
    folder = _dated_vcf9(tmp_path, {PING: "2026-13-45 10:00", LIST: "2025-06-10 09:20"})
    out = {k: tmp_path / f"r.{k}" for k in ("json", "html", "pdf")}
    run = cli("audit", "--no-history", "--capture", folder, *(a for k, p in out.items() for a in (f"--{k}", p)))
    assert run.code in (0, 1, 2), run.err
    import json
    doc = json.loads(out["json"].read_text(encoding="utf-8"))
    (c,) = doc["hosts"][0]["conflicts"]
    assert c["order"] == "unknown" and c["values"][1]["captured"] is None  # month 13 states no date
    assert out["html"].stat().st_size > 0 and out["pdf"].stat().st_size > 0


def test_a_date_in_the_future_or_of_no_calendar_is_not_the_newer_capture(tmp_path):
    from nicadvisor.services.audit import AuditRequest, run_audit

    for bogus in ("2099-01-01", "2026-02-30", "2026-99-99", "9999-12-31 23:59"):
        folder = _dated_vcf9(tmp_path / bogus[:10], {PING: bogus, LIST: "2025-06-10 09:20"})
        (host,) = run_audit(AuditRequest(capture_paths=(str(folder),))).hosts
        (c,) = host.conflicts
        assert c.kept is None and c.values[1].captured is None, (bogus, c.text())
        assert next(v for v in host.vmknics if v.name == "vmk0").mtu == 9000  # not dropped for a bogus "newer" ping


def test_a_time_with_a_zone_is_compared_in_utc(tmp_path):
    from nicadvisor.services.audit import AuditRequest, run_audit

    # 23:30 at -08:00 is 07:30 UTC the next day: after the list read at 2025-06-11 01:00 UTC (stated in UTC)
    folder = _dated_vcf9(tmp_path, {PING: "2025-06-10T23:30-08:00", LIST: "2025-06-11 01:00Z"})
    (host,) = run_audit(AuditRequest(capture_paths=(str(folder),))).hosts
    (c,) = host.conflicts
    assert [v.captured for v in c.values] == ["2025-06-11 01:00 UTC", "2025-06-11 07:30 UTC"]
    assert c.kept == 1
    from nicadvisor.parsers.capture_file import stated_date

    # a zone named otherwise keeps only the date; words after the time are no zone (the time stays, as UTC)
    assert stated_date("# captured: 2025-06-10 23:30 CEST") == ("2025-06-10", "header")
    assert stated_date("# captured: 2025-06-10 23:30 (after the change)") == ("2025-06-10 23:30 UTC", "header")


def test_a_bundle_name_of_no_calendar_date_is_no_crash_of_the_reports(cli, tmp_path):
    from capturetools import CAPTURES

    body = "".join(ln for ln in (CAPTURES / "esxi_esxcfg-nics-l_nmlx5_core_connectx5_25g_esxi703.txt").read_text()
                   .splitlines(keepends=True) if not ln.startswith("#")).encode()
    bundle = tmp_path / "esx-h-2026-13-45--10.22-1.tgz"
    with tarfile.open(bundle, "w:gz") as tar:
        info = tarfile.TarInfo("esx-h-2026-13-45--10.22-1/commands/esxcfg-nics_-l.txt")
        info.size = len(body)
        tar.addfile(info, io.BytesIO(body))
    run = cli("audit", "--no-history", "--capture", bundle, "--json", tmp_path / "r.json")
    assert run.code in (0, 1, 2), run.err
    assert "esx-h-2026-13-45--10.22: no capture time" in (tmp_path / "r.json").read_text(encoding="utf-8")


# one paste, many hosts' prompts (issue 26) --------------------------------------------------------------------

def test_a_paste_of_a_thousand_hosts_names_them_in_one_short_line(tmp_path):
    from nicadvisor.collect.sources import gather

    name = "h" * 60  # HOST_NAME_MAX on Linux is 64
    paste = tmp_path / "paste.txt"
    paste.write_text("# command: ethtool -i eth0\n" + "".join(
        f"[root@{name}{i} ~]# ethtool -i eth0\ndriver: ixgbe\n" for i in range(5000)))
    hosts, problems = gather([paste])
    # prompts are looked for in the first 2,000 lines only (registry.MAX_ECHO_LINES): 1,000 hosts, not 5,000
    assert len(hosts) == 1000 and hosts[0].name == f"{name}0"
    (said,) = [p.message for p in problems if "the file held" in p.message]
    assert said.startswith(f"the file held 1000 hosts ({name}0, {name}1,") and " and 990 more: " in said
    assert len(said) < 1500  # every name listed was a 64 KB line in every view


def test_a_sosreport_packed_without_its_folder_is_read(tmp_path):
    # "tar cJf x.tar.xz sos_commands …" inside the report: it was refused as holding no sos_commands/ folder
    from nicadvisor.collect.sosreport import read_sosreport

    packed = tmp_path / "report.tar.xz"
    with tarfile.open(packed, "w:xz") as tar:
        for info, data in _tree_members(""):
            tar.addfile(info, io.BytesIO(data))
    host, captures, _ = read_sosreport(packed)
    assert host == HOST
    assert {"ethtool -i ens3", "ip -d address", "lspci -nnvv"} <= {c.command for c in captures}


def test_a_read_folder_of_an_extracted_sosreport_that_is_a_link_is_named(tmp_path):
    # proc/net/bonding -> /proc/net/bonding would read the auditing machine's own bonds as the host's: not followed,
    # and said (it was silently left out)
    import shutil

    from nicadvisor.collect.sources import gather

    report = tmp_path / "sosreport-x"
    shutil.copytree(TREE, report)
    (report / "proc" / "net").mkdir(parents=True)
    os.symlink("/proc/net", report / "proc" / "net" / "bonding")
    hosts, problems = gather([report])
    (host,) = hosts
    assert host.name == HOST and not any(c.command.startswith("cat /proc/net/bonding") for c in host.captures)
    assert any("proc/net/bonding: skipped: a folder link inside the report is not followed" in p.message
               for p in host.problems + problems)


def test_of_many_captures_the_newest_stating_a_value_is_the_one_compared(tmp_path):
    # the interface list (MTU 9000) captured in January and again in December, the failed ping in June: the
    # December list is the newest; the June ping was "the newer capture" since only January's was compared
    import shutil

    from nicadvisor.services.audit import AuditRequest, run_audit

    folder = _dated_vcf9(tmp_path, {PING: "2025-06-01 10:00", LIST: "2025-01-01 10:00"})
    again = (folder / LIST).read_text(encoding="utf-8").replace("# captured: 2025-01-01 10:00",
                                                                "# captured: 2025-12-01 10:00")
    (folder / ("z_" + LIST)).write_text(again, encoding="utf-8")
    shutil.copy(folder / PING, folder / ("0_" + PING))  # and a hundred files: the ping twice more, the list 50 times
    for i in range(50):
        (folder / f"m{i:02d}_{LIST}").write_text(again.replace("2025-12-01", f"2025-0{1 + i % 5}-02"),
                                                 encoding="utf-8")
    (host,) = run_audit(AuditRequest(capture_paths=(str(folder),))).hosts
    assert next(v for v in host.vmknics if v.name == "vmk0").mtu == 9000
    assert host.conflicts and all(c.kept == 0 for c in host.conflicts), [c.text() for c in host.conflicts]
    assert "the newer capture (2025-12-01 10:00 UTC) is used, 9000" in host.conflicts[0].text()
    assert len(host.conflicts) <= 3  # one per contrary capture, not one per pair of the 53 files


def test_a_sosreport_naming_thousands_of_interfaces_reads_the_first_ones_and_says_so(tmp_path):
    from nicadvisor.collect.sosreport import MAX_INTERFACES, read_sosreport

    body = (TREE / "sos_commands" / "networking" / "ethtool_-i_ens3").read_bytes()
    packed = tmp_path / "sosreport-m-2024-01-01-abcdefg.tar.xz"
    with tarfile.open(packed, "w:xz") as tar:
        for info, data in _tree_members("sosreport-m-2024-01-01-abcdefg"):
            tar.addfile(info, io.BytesIO(data))
        for i in range(MAX_INTERFACES + 500):
            info = tarfile.TarInfo(f"sosreport-m-2024-01-01-abcdefg/sos_commands/networking/ethtool_-i_e{i:05d}")
            info.size = len(body)
            tar.addfile(info, io.BytesIO(body))
    host, captures, skipped = read_sosreport(packed)
    nics = {c.command.split()[-1] for c in captures if c.command.startswith("ethtool")}
    assert len(nics) == MAX_INTERFACES and "e00000" in nics
    said = [s for s in skipped if "ethtool outputs of more than" in s]
    assert len(said) == 1
    ethtool_files = MAX_INTERFACES + 500 + 8  # and the tree's own 8 (ens3 and flannel.1)
    read = sum(1 for c in captures if c.command.startswith("ethtool"))
    assert f": {ethtool_files - read} files of the interfaces past the first {MAX_INTERFACES}" in said[0]


@pytest.mark.root
def test_unreadable_folders_inside_sosreports_are_named_and_the_rest_audited(tmp_path):
    # sos_commands/ (or its networking/) chmod 0: Path.is_dir raised PermissionError, the audit ended with exit 3
    import shutil
    import subprocess
    import sys

    a, b = tmp_path / "sosreport-a", tmp_path / "sosreport-b"
    shutil.copytree(TREE, a)
    shutil.copytree(TREE, b)
    locked = [a / "sos_commands", b / "sos_commands" / "networking"]
    for p in locked:
        p.chmod(0)
    try:  # root reads everything: drop the capabilities that let it (capsh), as an ordinary account would be
        run = subprocess.run(["capsh", "--drop=cap_dac_override,cap_dac_read_search", "--", "-c",
                              f"{sys.executable} -m nicadvisor.cli audit --no-history --capture {tmp_path}"],
                             capture_output=True, text=True, timeout=240,
                             env={**os.environ, "XDG_STATE_HOME": str(tmp_path / "state")})
    finally:
        for p in locked:
            p.chmod(0o700)
    assert run.returncode == 2 and "Traceback" not in run.stderr and "internal error" not in run.stderr, run.stderr
    assert f"{a / 'sos_commands' / 'networking'}: skipped: cannot be read" in run.stderr
    assert f"{b / 'sos_commands' / 'networking'}: skipped: the folder cannot be read" in run.stderr
    assert f"{HOST} (linux)" in run.stdout  # b's host name and lspci are still read


def test_pastes_of_thousands_of_hosts_stop_being_split_past_the_audit_bound(tmp_path):
    from nicadvisor.collect.sources import MAX_SESSION_HOSTS, gather

    files = []
    for f in range(MAX_SESSION_HOSTS // 1000 + 1):  # each paste names 1,000 hosts (registry.MAX_ECHO_LINES)
        paste = tmp_path / f"paste{f}.txt"
        paste.write_text("# command: ethtool -i eth0\n" + "".join(
            f"[root@p{f}h{i} ~]# ethtool -i eth0\ndriver: ixgbe\n" for i in range(1000)))
        files.append(paste)
    hosts, problems = gather(files)
    assert len(hosts) == MAX_SESSION_HOSTS + 1  # the last paste is one host
    (said,) = [p for p in problems if "hosts' prompts, but the audit already holds" in p.message]
    assert said.source == str(files[-1]) and "read as one host" in said.message


def test_huge_host_name_files_do_not_spend_the_reports_budget(tmp_path):
    # five 16 MB "hostname" files (each a host name file sos 3/4 may hold) came first and used the 64 MB of the
    # report: every NIC output after them was "not read"
    from nicadvisor.collect.sosreport import read_sosreport
    from nicadvisor.parsers.sosreport import HOSTNAME_FILES

    root = "sosreport-big-2024-01-01-abcdefg"
    packed = tmp_path / f"{root}.tar.xz"
    junk = b"\x1b]0;x\x07" + b"a" * (16 << 20)
    with tarfile.open(packed, "w:xz", preset=1) as tar:
        for name in HOSTNAME_FILES:
            info = tarfile.TarInfo(f"{root}/{name}")
            info.size = len(junk)
            tar.addfile(info, io.BytesIO(junk))
        for info, data in _tree_members(root):
            if not info.name.endswith("/hostname"):
                tar.addfile(info, io.BytesIO(data))
    host, captures, skipped = read_sosreport(packed)
    assert host == "big" and {"ethtool -i ens3", "ip -d address", "lspci -nnvv"} <= {c.command for c in captures}
    assert not any("not read: the report already gave" in s for s in skipped), skipped
