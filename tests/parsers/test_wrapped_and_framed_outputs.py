"""Commands pasted with their wrapping and framing, read as the bare command on the real public outputs of
``tests/parsers/captures/``: a command run through ``ssh [options] HOST '…'`` or ``ip netns exec NS`` is unwrapped like
``sudo``/``env``; framing that changes every line (Markdown escapes, blank lines, editor tabs, nested e-mail
quoting, a stuck backtick) and an author's note after a value or command never become part of a value.

Real public outputs of ``tests/parsers/captures/`` (:func:`capturetools.read_local_capture`).
"""
from __future__ import annotations

import re

import pytest

from capturetools import CAPTURES, parsed_facts, read_local_capture as read, local_capture as cap
from nicadvisor.collect.sources import read_capture
from nicadvisor.parsers.framing import unframe
from nicadvisor.parsers.registry import normalise, parse_output, split_commands

# --- a command run through ssh [options] HOST '…' (or ip netns exec NS …) -------------------------------------

SSH_FABRIC = "linux_ssh_root_host_quoted_ip-d_link_fabric0_parentdev_abridged_doks_gpu_fabric_guide.txt"
NETNS_VLAN = "linux_ethtool-T-i_vlan_eno4.4000_and_parent_tg3_ip_netns_exec_prefix_email_quoted_netdev.txt"


def test_ssh_wrapped_commands_are_unwrapped_like_sudo():
    assert normalise('ssh root@134.209.13.101 "ip -d link show fabric0"') == "ip -d link show fabric0"
    assert normalise("ssh -p 2222 -i id_ed25519 -t admin@esx01 'sudo esxcfg-nics -l' | grep vmnic5") \
        == "esxcfg-nics -l | grep vmnic5"
    assert [c.target for c in split_commands("ssh -o BatchMode=yes esx01 'esxcfg-nics -l | grep vmnic5'")] \
        == ["vmnic5"]
    assert normalise("ip netns exec mytest ethtool -i eno4.4000") == "ethtool -i eno4.4000"
    assert normalise("ssh root@vm.yeh.cn") == "ssh root@vm.yeh.cn"  # an interactive login wraps nothing


def test_a_capture_of_ssh_wrapped_commands_is_read():
    """The DOKS guide ran `ip -d link show fabric0` through `ssh root@HOST "…"` (header and echoed prompt)."""
    pnics, *_ = read(SSH_FABRIC)
    assert pnics["fabric0"]["mtu"] == 4200 and pnics["fabric0"]["link_up"] is True


def test_ip_netns_exec_echoes_key_each_ethtool_output_by_its_interface():
    """netdev mail: `ip netns exec mytest ethtool -i eno4` then `… -i eno4.4000`, both echoed after a prompt."""
    pnics, *_ = read(NETNS_VLAN)
    assert pnics["eno4"]["driver"] == "tg3" and pnics["eno4"]["pci_address"] == "0000:01:00.1"
    assert pnics["eno4.4000"]["driver"] == "802.1Q VLAN Support" and pnics["eno4.4000"]["is_physical"] is False


# --- framing that changes every line; an author's note after a value ------------------------------------


EC2_BACKTICKS = ("linux_ec2_ethtool-i_eth0_vif_and_ena_prompt_in_backticks_first_line_joined_backtick_after_last_value_"
                 "aws_doc.txt")
RHEL5_NOTE = "rhel5_ethtool-i_cxgb3_ixgbe_s2io_note_in_driver_value_dashes_lost_redhat_summit_pdf.txt"
VOBD_MARKDOWN = "esxi_vobd_log_vmnic6_linkstate_down_up_markdown_escaped_blockquote_blog.txt"

#: Framings no public output shows on a NIC table (the research of issue 16 §5 found none: tabs inside columns,
#: ``\-``/``\_`` escapes, ``> > >`` around a table, notes after every value), applied to every real capture of the
#: shared fixtures: each must read exactly the facts of the clean capture.
FRAMINGS = {
    "tabs an editor put between columns": lambda t: re.sub(r"(?<=\S)  +(?=\S)", "\t", t),
    "Markdown escapes of - and _": lambda t: t.replace("-", "\\-").replace("_", "\\_"),
    "a blank line after every line": lambda t: "\n\n".join(t.split("\n")),
    "mail quoting three levels deep": lambda t: "\n".join("> > > " + line for line in t.split("\n")),
    "mail quoting '>>>'": lambda t: "\n".join(">>> " + line for line in t.split("\n")),
    "an author's '# note' after every value": lambda t: "\n".join(
        line + (" # my note" if re.match(r"^\s*[\w -]+:\s*\S", line) else "") for line in t.split("\n")),
    "an author's '<-- note' after every value": lambda t: "\n".join(
        line + ("   <-- see above" if re.match(r"^\s*[\w -]+:\s*\S", line) else "") for line in t.split("\n")),
}


@pytest.mark.parametrize("framing", sorted(FRAMINGS))
def test_framing_of_every_line_yields_the_clean_facts(framing):
    changed = []
    for path in sorted(CAPTURES.glob("*.txt")):
        c = read_capture(path)
        clean = parsed_facts(c.command, c.text)
        if parsed_facts(c.command, FRAMINGS[framing](c.text)) != clean:
            changed.append(path.name)
    assert changed == []


def test_backticks_of_inline_code_and_a_backtick_stuck_to_the_last_value_are_framing():
    """AWS EC2 guide: '`[ec2-user ~]$` ethtool -i `eth0``driver: vif' … 'supports-priv-flags: no`', twice (two
    instances under one header, so their drivers disagree and stay unknown, but both are read)."""
    text = unframe(cap(EC2_BACKTICKS).text)
    assert "[ec2-user ~]$ ethtool -i eth0\ndriver: vif\n" in text and "supports-priv-flags: no`" not in text
    c = cap(EC2_BACKTICKS)
    (r,) = parse_output(c.command, c.text, c.notes)
    assert any("'vif'" in n and "'ena'" in n for n in r.notes)
    assert r.pnics["eth0"]["pci_address"].value == "0000:00:05.0"


def test_an_editors_note_inside_a_value_is_not_part_of_it():
    """Red Hat Summit slide: 'driver: Neterion (ed. note s2io)'."""
    lines = unframe(cap(RHEL5_NOTE).text).splitlines()
    assert "driver: Neterion" in lines and not any("note" in line for line in lines)


def test_an_authors_note_after_a_command_is_a_shell_comment():
    """The KB76555 notes (shared research) write 'esxcli system maintenanceMode set  -e true # 戻しは…'; the DOKS
    guide puts '#' comment lines before each command."""
    assert normalise("esxcli system maintenanceMode set  -e true # 戻しは trueの代わりにfalse") == \
        "esxcli system maintenanceMode set  -e true"
    assert normalise("[root@esx01:~] ethtool -i vmnic0   # the X710 port") == "ethtool -i vmnic0"
    assert normalise("grep '# queues' /tmp/x") == "grep '# queues' /tmp/x"  # quoted: no comment


def test_markdown_escapes_quotes_and_blank_lines_of_a_blog_post_are_framing():
    """The vobd.log blog post: every record quoted, '\\[' '\\]' escaped, a bare '>' line between records."""
    lines = unframe(cap(VOBD_MARKDOWN).text).splitlines()
    assert "2020-04-30T07:25:58.464Z: [netCorrelator] 842494494us: [vob.net.vmnic.linkstate.down] vmnic vmnic6 " \
           "linkstate down" in lines
    records = [line for line in lines if line.startswith(("2020-", "**2020-"))]
    assert len(records) == 11 and lines.index(records[-1]) - lines.index(records[0]) == 10  # no blank between
