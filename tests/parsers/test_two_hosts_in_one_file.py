"""Issue 26 ("Framing and layouts"): two hosts' prompts in one pasted file are two hosts, not one merged host.

Both inputs are real public pastes stored verbatim under ``tests/parsers/captures/`` with their source:

* ``linux_ethtool-l_rx_tx_separate_combined_na_firedancer1427.txt`` — firedancer issue 1427: ``ethtool -l`` after
  ``[nbridge@fpip3-compute0951 ~]$`` and after ``[nbridge@emny-ossdev-firedancer11 firedancer]$``;
* ``rhel5_ethtool-i_cxgb3_ixgbe_s2io_note_in_driver_value_dashes_lost_redhat_summit_pdf.txt`` — a Red Hat Summit
  slide deck's ``ethtool -i`` after ``[root@perf10 ~]#`` (eth2 cxgb3, eth3 ixgbe) and ``[root@dhcp47154 ~]#`` (eth2
  s2io, printed ``Neterion``).

No public paste of two ESXi hosts' prompts (``[root@esx1:~]`` … ``[root@esx2:~]``) was found; the prompt form is the
same ``user@host`` test (:data:`nicadvisor.parsers.registry._PROMPT_HOST_RE`).
"""
from __future__ import annotations

import shutil
from pathlib import Path

from nicadvisor.collect.sources import gather, read_capture
from nicadvisor.parsers.assemble import assemble_host
from nicadvisor.parsers.framing import unframe
from nicadvisor.parsers.registry import session_hosts

LOCAL = Path(__file__).parent / "captures"
FIREDANCER = LOCAL / "linux_ethtool-l_rx_tx_separate_combined_na_firedancer1427.txt"
SUMMIT = LOCAL / "rhel5_ethtool-i_cxgb3_ixgbe_s2io_note_in_driver_value_dashes_lost_redhat_summit_pdf.txt"


def _hosts(*paths: Path) -> tuple[dict[str, dict[str, dict]], list[str]]:
    """{host: {pNIC: facts}} of the audit of ``paths``, and the messages of every input problem."""
    groups, problems = gather(list(paths))
    out: dict[str, dict[str, dict]] = {}
    messages = [p.message for p in problems]
    for g in groups:
        host, host_problems, _ = assemble_host(g)
        out[host.name] = {p.name: {k: v for k, v in p.facts().items() if k != "name" and v not in (None, [], {})}
                          for p in host.pnics}
        messages += [p.message for p in host_problems]
    return out, messages


def test_each_host_of_a_pasted_session_gets_its_own_outputs():
    hosts, messages = _hosts(FIREDANCER)
    assert hosts == {
        "fpip3-compute0951": {"eno1": {"rx_queues": 4, "tx_queues": 1, "rx_queues_max": 4, "tx_queues_max": 4}},
        "emny-ossdev-firedancer11": {"ens3f0": {"rx_queues": 1, "tx_queues": 1, "rx_queues_max": 64,
                                                "tx_queues_max": 64}},
    }
    (note,) = [m for m in messages if "hosts" in m and "prompts" in m]
    assert note.startswith("the file held 2 hosts (fpip3-compute0951, emny-ossdev-firedancer11")
    assert not any("another host's" in m or "says it is of host" in m for m in messages)  # split, not noted/claimed


def test_one_interface_name_on_two_hosts_is_two_pnics_not_a_conflict():
    hosts, messages = _hosts(SUMMIT)
    assert set(hosts) == {"perf10", "dhcp47154"}
    assert hosts["perf10"]["eth2"]["driver"] == "cxgb3" and hosts["perf10"]["eth3"]["driver"] == "ixgbe"
    assert hosts["dhcp47154"] == {"eth2": {"driver": "Neterion", "driver_version": "2.0.25.1"}}
    assert not any(m.startswith("conflict") for m in messages)


def test_the_text_before_the_first_prompt_stays_with_the_first_host_and_nothing_is_lost():
    body = read_capture(SUMMIT).text
    parts = session_hosts(body)
    assert [h for h, _ in parts] == ["perf10", "dhcp47154"]
    assert parts[0][1].startswith("ethtool i  driver information\n[root@perf10 ~]# ethtool i eth2")
    # every line of the paste (unframed, as every reader takes it) is in exactly one part, in order
    assert "".join(t for _, t in parts).splitlines() == unframe(body).splitlines()


def test_a_host_header_that_names_neither_prompt_host_names_the_first_part(tmp_path):
    copy = tmp_path / FIREDANCER.name
    copy.write_text("# host: lab-a\n" + FIREDANCER.read_text())
    hosts, messages = _hosts(copy)
    assert set(hosts) == {"lab-a", "emny-ossdev-firedancer11"} and set(hosts["lab-a"]) == {"eno1"}


def test_a_folder_of_one_host_keeps_its_other_captures_on_the_folder_host(tmp_path):
    folder = tmp_path / "fpip3-compute0951"
    folder.mkdir()
    shutil.copy(FIREDANCER, folder / FIREDANCER.name)
    shutil.copy(SUMMIT, folder / SUMMIT.name)  # another paste: its own two hosts
    hosts, _ = _hosts(folder)
    assert set(hosts) == {"fpip3-compute0951", "emny-ossdev-firedancer11", "perf10", "dhcp47154"}
    assert set(hosts["fpip3-compute0951"]) == {"eno1"}


def test_one_host_and_bare_or_hostless_prompts_are_not_split():
    text = read_capture(FIREDANCER).text
    assert session_hosts(text.split("[nbridge@emny")[0]) == []
    # the second host's prompt with nothing under it tells no output of that host
    one = text.split("Channel parameters for ens3f0:")[0]
    assert session_hosts(one) == []
