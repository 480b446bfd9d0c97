"""``nic-advisor audit`` end to end on every live target kind at once (issue "Audit live estates" §4, §7
and "Done when"): vCenter (vcsim), ESXi over SSH (real sshd + ESXi personality answering with real
captures), NSX Manager (HTTPS responder of the real NSX API fixtures), all in one ``cli.main`` call,
with passwords only in an in-memory keyring. Then: no password in any file, log line or output; faults
of each target kind in one audit; the non-interactive run without a saved password.

The servers and the keyring are fixtures of ``tests/e2e/conftest.py`` (helpers in ``e2e_lab.py``).
Values asserted for the SSH host come from the captures its personality serves
(``tests/ssh/esxi_personality.py`` TABLE):
``esxi_esxcli_nic_list_x550_ixgben_e810_icen_100g.txt``, ``esxi_esxcli_nic_get_ixgben_x550_10gbaset_nbaset.txt``,
``esxi_vsish_rxqueues_info_rss_vmnic0_seed.txt``, ``esxi_vsish_pnic_properties_geneve_offload_vmnic3_seed.txt``,
``esxi_esxcli_vswitch_standard_list_mtu.txt``, ``esxi_esxcfg-vmknic-l_mtu_9000.txt``,
``esxi_esxcfg-module-g_icen_options.txt``; for the NSX hosts from
``GET_api_v1_transport-nodes_list_nsx30_vds_STANDARD_apnex.json``.
"""
from __future__ import annotations

import base64
import io
import json
import logging
import socket
import sys
import urllib.parse
from pathlib import Path

import jsonschema
import keyring
import keyring.backends.fail
import pytest
from e2e_lab import ORIGINAL_XDG, PASSWORDS, PW_NSX, PW_SSH, PW_VC, USER, cert_thumbprint
from pypdf import PdfReader

from capturetools import CAPTURES, READY_CAPTURE
from nicadvisor.cli import main
from nicadvisor.secrets import SERVICE_PREFIX, ssh_service_id

SCHEMA = Path(__file__).resolve().parents[2] / "app" / "nicadvisor" / "report" / "audit.schema.json"
NSX_TN_ESX03 = "f51d9e4b-a7f0-4817-952c-87c7fe6d2a23"  # esx03.lab in the NSX 3.0 transport-node list fixture


def _save_passwords(backend, vc_port: int, esxi_ssh, nsx, ssh_password: str = PW_SSH) -> None:
    """The three passwords in the keyring, under the service ids the CLI looks up (cli_live.py)."""
    backend.data[(f"{SERVICE_PREFIX}vcenter:127.0.0.1:{vc_port}", USER)] = PW_VC
    backend.data[(f"{SERVICE_PREFIX}nsx:127.0.0.1:{nsx.port}", USER)] = PW_NSX
    backend.data[(SERVICE_PREFIX + ssh_service_id("127.0.0.1", esxi_ssh.port), esxi_ssh.user)] = ssh_password


def _live_args(vc, esxi_ssh, nsx) -> list[str]:
    return ["--vcenter", f"https://127.0.0.1:{vc.port}", "--user", USER,
            "--thumbprint", f"127.0.0.1:{vc.port}={cert_thumbprint('127.0.0.1', vc.port)}",
            "--ssh", f"{esxi_ssh.user}@127.0.0.1:{esxi_ssh.port}",
            "--trust-host-key", f"127.0.0.1:{esxi_ssh.port}={esxi_ssh.fingerprint}",
            "--nsx", f"https://127.0.0.1:{nsx.port}", "--thumbprint", f"127.0.0.1:{nsx.port}={nsx.thumbprint}",
            "--timeout", "20"]


def _outputs(out: Path) -> list[str]:
    return ["--json", str(out / "audit.json"), "--pdf", str(out / "audit.pdf"), "--csv", str(out / "audit.csv")]


def _load(path: Path) -> dict:
    doc = json.loads(path.read_text(encoding="utf-8"))
    jsonschema.validate(doc, json.loads(SCHEMA.read_text(encoding="utf-8")))
    return doc


def _pnics(host: dict) -> dict[str, dict]:
    return {p["name"]: p for p in host["pnics"]}


def _no_sources(obj):
    """``obj`` without the ``source`` of its evidence: a replayed fact names the capture file it was read
    from, a live one the ``ssh://`` target; command, line and value must be the same."""
    if isinstance(obj, dict):
        return {k: _no_sources(v) for k, v in obj.items() if k != "source"}
    if isinstance(obj, list):
        return [_no_sources(v) for v in obj]
    return obj


# --- 1. all live target kinds in one call -------------------------------------------------------

def test_audit_vcenter_ssh_and_nsx_in_one_call(vc, esxi_ssh, nsx, memory_keyring, xdg, tmp_path, capsys):
    _save_passwords(memory_keyring, vc.port, esxi_ssh, nsx)
    saved = dict(memory_keyring.data)
    out, caps = tmp_path / "out", tmp_path / "captures"
    code = main(["audit", *_live_args(vc, esxi_ssh, nsx), *_outputs(out), "--save-captures", str(caps),
                 "--no-history"])  # not --quiet: that prints the verdict and one line per group of alike hosts
    printed = capsys.readouterr()
    doc = _load(out / "audit.json")
    # MTU 1500 uplinks and no TEP yet: conditional MTU errors on every candidate pNIC, so none is fit for the overlay
    assert code == 1 and doc["summary"]["ready"] is False and doc["verdict"]["label"] == "NOT READY"
    assert doc["summary"]["errors"] > 0 or "no pNIC fit for the overlay" in doc["verdict"]["reason"]
    assert doc["verdict"]["label"] == "NOT READY"
    assert not any(c.split("://")[0] in ("vcenter", "ssh", "nsx") for c in doc["verdict"]["causes"])  # all read
    assert memory_keyring.data == saved  # read, never written (no --remember-password)
    assert doc["inputs"][:2] == [f"vcenter://127.0.0.1:{vc.port}", esxi_ssh.source]
    assert any(f"127.0.0.1:{nsx.port}" in i for i in doc["inputs"][2:])
    hosts = {h["name"]: h for h in doc["hosts"]}
    assert set(hosts) == {"DC0_C0_H0", "DC0_C0_H1", esxi_ssh.name, "esx03.lab", "esx04.lab", "esx05.lab"}
    assert not (xdg / "xdg_data_home" / "nic-advisor" / "history.sqlite3").exists()  # --no-history

    # every target was reached: no trust, login or connection problem
    for p in doc["inputs_not_understood"]:
        assert not any(w in p["message"] for w in ("not trusted", "refused", "login", "cannot connect")), p

    # vCenter (vcsim): its pNICs over the vSphere API, read through the pinned certificate
    for name in ("DC0_C0_H0", "DC0_C0_H1"):
        h = hosts[name]
        assert h["kind"] == "esxi" and h["product_version"]
        vm = _pnics(h)
        assert sorted(vm) == ["vmnic0", "vmnic1"]
        v = vm["vmnic0"]
        assert (v["driver"], v["link_speed_mbps"], v["vid"]) == ("nvmxnet3", 10000, "15ad")
        assert v["evidence"]["link_speed_mbps"]["source"].startswith(f"vcenter://127.0.0.1:{vc.port}/host-")

    # ESXi over SSH: the values of the captures the personality serves
    ssh_host = hosts[esxi_ssh.name]
    assert ssh_host["kind"] == "esxi"
    sp = _pnics(ssh_host)
    assert sorted(sp) == ["vmnic0", "vmnic1", "vmnic2", "vmnic3"]
    v0, v1, v2, v3 = (sp[f"vmnic{i}"] for i in range(4))
    assert (v0["pci_address"], v0["driver"], v0["link_speed_mbps"], v0["mtu"]) == ("0000:18:00.0", "ixgben", 1000, 1500)
    assert (v0["driver_version"], v0["firmware_version"]) == ("1.12.3.0", "1.55 0x80000a42, 1.1767.0")
    assert (v0["rx_queues_max"], v0["rss"]) == (5, True)  # vsish "# queues supported:5" is a maximum
    assert v1["link_up"] is False and v1["link_speed_mbps"] is None  # link down: speed unknown, not 0
    assert (v2["driver"], v2["link_speed_mbps"]) == ("icen", 100000)
    assert v2["description"] == "Intel(R) Ethernet Controller E810-C for QSFP"
    assert (v3["geneve_offload"], v3["tso"]) == (True, True)
    assert v0["evidence"]["mtu"] == {
        "command": "esxcli network nic list", "source": esxi_ssh.source,
        "line": "vmnic0  0000:18:00.0  ixgben  Up            Up             1000  Full    00:00:00:00:00:00  1500  "
                "Intel(R) Ethernet Controller X550"}
    assert [(v["name"], v["mtu"]) for v in ssh_host["vmknics"]][:1] == [("vmk0", 9000)]
    assert {m["name"]: m["options"] for m in ssh_host["modules"] if m["options"]} == {
        "icen": {"vmdq": "1,2,3,4", "sriov": "0,0,1,1"}}
    assert {s["name"] for s in ssh_host["switches"]} >= {"vSwitch0", "defvSwitch"}

    # NSX transport nodes: no other source names them, so they stay hosts of their own
    for name in ("esx03.lab", "esx04.lab", "esx05.lab"):
        h = hosts[name]
        assert h["kind"] == "esxi" and h["pnics"] == []
        (sw,) = h["switches"]
        assert (sw["name"], sw["kind"], sw["ens_mode"], sw["mtu"]) == ("fabric", "distributed", "standard", None)
    assert hosts["esx03.lab"]["switches"][0]["evidence"]["ens_mode"]["source"] == \
        f"nsx://127.0.0.1:{nsx.port}/api/v1/transport-nodes/{NSX_TN_ESX03}"

    # findings of every source
    found = {(f["rule_id"], f["target"]) for f in doc["findings"]}
    assert ("pnic-mtu-below-1600", f"{esxi_ssh.name}/vmnic0") in found
    assert ("link-below-10g", f"{esxi_ssh.name}/vmnic0") in found
    assert ("switch-mtu-below-1600", "DC0_C0_H0/vSwitch0") in found
    assert f"{esxi_ssh.name}/vmnic0" in printed.out and "Findings:" in printed.out

    # PDF and CSV
    text = "\n".join(page.extract_text() for page in PdfReader(out / "audit.pdf").pages)
    for name in ("DC0_C0_H0", esxi_ssh.name, "esx03.lab"):
        assert name in text, name
    csv_text = (out / "audit.csv").read_text(encoding="utf-8-sig")
    assert f"{esxi_ssh.name}/vmnic0,pnic-mtu-below-1600" in csv_text

    # the saved SSH outputs replay through --capture to the same facts
    from nicadvisor.collect.ssh import host_folder_name

    folder = caps / host_folder_name(esxi_ssh.name)  # "127.0.0.1:PORT" is made safe, with a hash of the name
    assert folder.name.startswith(f"127.0.0.1_{esxi_ssh.port}-")
    # every live source is saved: the SSH host, the vCenter hosts and the NSX recordings
    assert {p.name for p in caps.iterdir()} == {folder.name, "DC0_C0_H0", "DC0_C0_H1", "~nsx1"}
    first = sorted(folder.iterdir())[0].read_text(encoding="utf-8")
    assert first.startswith(f"# source: {esxi_ssh.source}\n"
                            f"# command: esxcli network nic list\n# host: {esxi_ssh.name}\n")
    code = main(["audit", "--capture", str(folder), "--json", str(out / "replay.json"), "--no-history", "--quiet"])
    replay = _load(out / "replay.json")
    assert code == 1 and [h["name"] for h in replay["hosts"]] == [esxi_ssh.name]
    again = replay["hosts"][0]
    for part in ("pnics", "vmknics", "switches", "modules"):
        assert _no_sources(again[part]) == _no_sources(ssh_host[part]), part  # values, evidence command+line
    assert {(f["rule_id"], f["target"]) for f in replay["findings"]} == \
        {(f["rule_id"], f["target"]) for f in doc["findings"] if f["host"] == esxi_ssh.name}


# --- 2. no secret anywhere ---------------------------------------------------------------------

def _encodings(secret: str) -> list[bytes]:
    """``secret`` as bytes, hex, URL-quoted, and the alignment-independent core of its base64 (standard and
    URL-safe) at each of the 3 byte offsets it can start at (e.g. inside ``user:password``)."""
    raw = secret.encode()
    out = [raw, raw.hex().encode(), urllib.parse.quote(secret, safe="").encode()]
    for k in range(3):
        for enc in (base64.b64encode(b"\0" * k + raw), base64.urlsafe_b64encode(b"\0" * k + raw)):
            out.append(enc[4 if k else 0:len(enc) - 4])
    return out


def _leaks(data: bytes | str) -> list[str]:
    blob = data.encode("utf-8", "replace") if isinstance(data, str) else data
    return [pw for pw in PASSWORDS if any(e in blob for e in _encodings(pw))]


def test_no_password_in_any_file_log_or_output(vc, esxi_ssh, nsx, memory_keyring, xdg, tmp_path, capsys, caplog):
    caplog.set_level(logging.DEBUG)
    _save_passwords(memory_keyring, vc.port, esxi_ssh, nsx)
    out, caps = tmp_path / "out", tmp_path / "captures"
    # history ON (in this test's XDG folders), progress lines ON, and the quick benchmark (its journal)
    code = main(["audit", *_live_args(vc, esxi_ssh, nsx), *_outputs(out), "--save-captures", str(caps),
                 "--bench", "--duration", "0.3"])
    audit_printed = capsys.readouterr()
    assert code == 1
    assert main(["history"]) == 0
    history_printed = capsys.readouterr()
    assert "#1 " in history_printed.out and esxi_ssh.source in history_printed.out

    doc = _load(out / "audit.json")
    assert len(doc["hosts"]) == 6 and doc["benchmarks"], "the audit and the benchmark ran"
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    files += [p for d in ORIGINAL_XDG for p in Path(d).rglob("*") if p.is_file()]
    names = {p.name for p in files}
    assert {"audit.json", "audit.pdf", "audit.csv", "history.sqlite3", "known_hosts"} <= names, names
    known_hosts = xdg / "xdg_config_home" / "nic-advisor" / "known_hosts"
    assert known_hosts.read_text().startswith(f"[127.0.0.1]:{esxi_ssh.port} ")
    assert len(list(caps.rglob("*.txt"))) >= 8
    leaked = {str(p): _leaks(p.read_bytes()) for p in files}
    assert {p: pw for p, pw in leaked.items() if pw} == {}
    pdf_text = "\n".join(page.extract_text() for page in PdfReader(out / "audit.pdf").pages)
    assert esxi_ssh.name in pdf_text and not _leaks(pdf_text)

    for printed in (audit_printed, history_printed):
        assert not _leaks(printed.out) and not _leaks(printed.err)
    assert caplog.records, "the audit logged nothing at DEBUG: the log check would be vacuous"
    for r in caplog.records:
        assert not _leaks(r.getMessage()) and not _leaks(repr(r.args)) and not _leaks(r.exc_text or ""), r
    assert not _leaks(caplog.text)


def test_secret_encodings_are_found():
    """The scan itself: each password is found raw, in Basic-auth base64 and in a URL."""
    basic = base64.b64encode(f"{USER}:{PW_NSX}".encode())
    assert _leaks(basic) == [PW_NSX]
    assert _leaks(f"https://{USER}:{PW_VC}@127.0.0.1/sdk") == [PW_VC]
    assert _leaks(b"prefix " + base64.urlsafe_b64encode(b"xx" + PW_SSH.encode())) == [PW_SSH]
    assert _leaks("nothing secret here") == []


# --- 3. faults of every target kind in one audit ------------------------------------------------

def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_failing_targets_are_named_and_the_good_host_is_audited(esxi_ssh, nsx, memory_keyring, xdg, tmp_path, capsys):
    dead = _closed_port()
    _save_passwords(memory_keyring, dead, esxi_ssh, nsx, ssh_password="Wrong-" + PW_SSH)
    requests_before = len(nsx.srv.log)
    good = CAPTURES / READY_CAPTURE  # a whole pNIC listing: rated on its own (NOT RATED: its other checks not made)
    code = main(["audit", "--vcenter", f"https://127.0.0.1:{dead}", "--user", USER,
                 "--ssh", f"{esxi_ssh.user}@127.0.0.1:{esxi_ssh.port}",
                 "--trust-host-key", f"127.0.0.1:{esxi_ssh.port}={esxi_ssh.fingerprint}",
                 "--nsx", f"https://127.0.0.1:{nsx.port}",  # self-signed, not pinned
                 "--capture", str(good), "--json", str(tmp_path / "audit.json"), "--no-history", "--quiet",
                 "--timeout", "10"])
    err = capsys.readouterr().err
    doc = _load(tmp_path / "audit.json")
    # the good host: six nvmxnet3 uplinks at 10 Gbit/s, MTU 9000 or 1500 (a nested ESXi): no error finding
    (host,) = doc["hosts"]
    assert host["kind"] == "esxi"
    v5 = next(p for p in host["pnics"] if p["name"] == "vmnic5")
    assert (len(host["pnics"]), v5["driver"], v5["link_speed_mbps"], v5["mtu"]) == (6, "nvmxnet3", 10000, 9000)
    assert doc["summary"]["errors"] == 0
    # ... but three of the four inputs were not read: no all-clear, each named as a cause
    assert code == 2 and doc["summary"]["ready"] is False
    assert doc["verdict"]["reason"].startswith("3 of 4 inputs could not be read: ")
    assert [c.split(": ")[0] for c in doc["verdict"]["causes"]] == [
        f"vcenter://127.0.0.1:{dead}", esxi_ssh.source, f"nsx://127.0.0.1:{nsx.port}", doc["hosts"][0]["name"]]
    # the host read is judged on its own: a whole listing alone never makes READY (issue 16 §1), it says what to run
    (hv,) = doc["verdict"]["hosts"]
    assert hv["label"] == "NOT RATED" and "decisive checks not made on " in hv["reason"]
    assert "vsish -e get /net/pNics/vmnic0/properties" in hv["finish"]

    problems = {p["source"]: p["message"] for p in doc["inputs_not_understood"]}
    vc_msg = problems[f"vcenter://127.0.0.1:{dead}"]
    assert f"vCenter 127.0.0.1:{dead}" in vc_msg and "connection refused" in vc_msg
    ssh_msg = problems[esxi_ssh.source]
    assert f"authentication of {esxi_ssh.user}@127.0.0.1:{esxi_ssh.port} failed" in ssh_msg
    assert "the password was refused" in ssh_msg
    nsx_msg = problems[f"nsx://127.0.0.1:{nsx.port}"]
    assert f"127.0.0.1:{nsx.port}" in nsx_msg and "the TLS certificate is not trusted" in nsx_msg
    assert f"--thumbprint {nsx.thumbprint}" in nsx_msg
    assert len(nsx.srv.log) == requests_before  # nothing (no credentials) was sent to the unpinned server
    for msg in (vc_msg, ssh_msg, nsx_msg):
        assert msg in err  # also printed
        assert not _leaks(msg)


# --- 4. non-interactive, no saved password -----------------------------------------------------

@pytest.mark.parametrize("target, label", [
    (["--vcenter", "https://vc.lab.example:8443", "--user", USER], f"{USER} at vCenter vc.lab.example:8443"),
    (["--ssh", "root@esxi-a.lab.example:2222"], "root at esxi-a.lab.example:2222"),
    (["--nsx", "https://nsx.lab.example", "--user", USER], f"{USER} at NSX Manager nsx.lab.example:443"),
])
def test_no_saved_password_without_a_terminal_exits_2(target, label, memory_keyring, xdg, tmp_path, capsys,
                                                      monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))  # not a terminal: no prompt
    code = main(["audit", *target, "--json", str(tmp_path / "audit.json")])
    err = capsys.readouterr().err
    assert code == 2
    assert f"no password for {label} in the OS keyring" in err and "--remember-password" in err
    assert not (tmp_path / "audit.json").exists() and memory_keyring.data == {}
    assert not (xdg / "xdg_data_home").exists()  # nothing audited, nothing saved in the history


def test_no_keyring_at_all_says_why(xdg, tmp_path, capsys, monkeypatch):
    previous = keyring.get_keyring()
    keyring.set_keyring(keyring.backends.fail.Keyring())
    try:
        monkeypatch.setattr(sys, "stdin", io.StringIO(""))
        code = main(["audit", "--ssh", "root@esxi-a.lab.example", "--no-history"])
    finally:
        keyring.set_keyring(previous)
    err = capsys.readouterr().err
    assert code == 2
    assert "no password for root at esxi-a.lab.example:22 in the OS keyring" in err
    assert "no keyring backend is available" in err


# --- 5. unattended: password from stdin, a file or the environment, no keyring backend at all -------

@pytest.fixture
def no_keyring():
    previous = keyring.get_keyring()
    keyring.set_keyring(keyring.backends.fail.Keyring())  # as on a server, in CI or an AWX job
    yield
    keyring.set_keyring(previous)


def _scan(tmp_path: Path, printed, skip: tuple[str, ...] = ()) -> None:
    """No password in any file under tmp_path (reports, history, known_hosts: the xdg folders are there too) nor
    in what was printed."""
    files = [p for p in tmp_path.rglob("*") if p.is_file() and p.name not in skip]
    assert any(p.name == "history.sqlite3" for p in files)
    assert {str(p): _leaks(p.read_bytes()) for p in files if _leaks(p.read_bytes())} == {}
    assert not _leaks(printed.out) and not _leaks(printed.err)


def test_unattended_with_per_kind_environment_variables(vc, esxi_ssh, nsx, no_keyring, xdg, tmp_path, capsys,
                                                        monkeypatch):
    import os

    monkeypatch.setattr(sys, "stdin", io.StringIO(""))  # no terminal
    for kind, pw in (("VCENTER", PW_VC), ("SSH", PW_SSH), ("NSX", PW_NSX)):
        monkeypatch.setenv(f"NIC_ADVISOR_{kind}_PASSWORD", pw)
    out = tmp_path / "out"
    code = main(["audit", *_live_args(vc, esxi_ssh, nsx), *_outputs(out)])
    printed = capsys.readouterr()
    assert code == 1, printed.err
    assert len(_load(out / "audit.json")["hosts"]) == 6
    assert not [v for v in os.environ if v.startswith("NIC_ADVISOR_") and v.endswith("PASSWORD")]  # not inherited
    _scan(tmp_path, printed)


def test_unattended_with_password_stdin(vc, no_keyring, xdg, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO(PW_VC + "\n"))
    code = main(["audit", "--vcenter", f"https://127.0.0.1:{vc.port}", "--user", USER, "--thumbprint",
                 f"127.0.0.1:{vc.port}={cert_thumbprint('127.0.0.1', vc.port)}", "--password-stdin",
                 "--json", str(tmp_path / "audit.json")])
    printed = capsys.readouterr()
    assert code in (1, 2), printed.err  # audited: a verdict, not a password error
    assert sorted(h["name"] for h in _load(tmp_path / "audit.json")["hosts"]) == ["DC0_C0_H0", "DC0_C0_H1"]
    _scan(tmp_path, printed)


def test_unattended_with_a_password_file_readable_only_by_its_owner(esxi_ssh, no_keyring, xdg, tmp_path, capsys,
                                                                     monkeypatch):
    import os

    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    pw = tmp_path / "pw.txt"
    pw.write_text(PW_SSH + "\n")
    pw.chmod(0o600)
    target = ["audit", "--ssh", f"{esxi_ssh.user}@127.0.0.1:{esxi_ssh.port}", "--trust-host-key",
              f"127.0.0.1:{esxi_ssh.port}={esxi_ssh.fingerprint}", "--json", str(tmp_path / "audit.json")]
    code = main([*target, "--password-file", str(pw)])
    printed = capsys.readouterr()
    assert code in (0, 1, 2) and len(_load(tmp_path / "audit.json")["hosts"]) == 1, printed.err
    _scan(tmp_path, printed, skip=("pw.txt",))
    # refused: readable by the group, a link, a FIFO (without hanging on it)
    pw.chmod(0o640)
    assert main([*target, "--password-file", str(pw)]) == 2
    assert "can be read by others (mode 0640)" in capsys.readouterr().err
    pw.chmod(0o600)
    link = tmp_path / "link.txt"
    link.symlink_to(pw)
    assert main([*target, "--password-file", str(link)]) == 2
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert main([*target, "--password-file", str(fifo)]) == 2
    assert "is not a regular file" in capsys.readouterr().err


def test_no_way_in_names_every_way_and_no_password_option_exists(no_keyring, xdg, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    assert main(["audit", "--ssh", "root@esxi-a.lab.example", "--no-history"]) == 2
    err = capsys.readouterr().err
    for way in ("--password-stdin", "--password-file", "NIC_ADVISOR_PASSWORD", "--remember-password"):
        assert way in err
    for argv in (["--password", "x"], ["--password-stdin", "--password-file", "f"]):
        with pytest.raises(SystemExit) as exc:
            main(["audit", "--ssh", "root@h", *argv])
        assert exc.value.code == 2  # never on the command line; one way at a time
