"""A command's text in one spelling: prompt, shell comment, ``sudo``/``env``/``ssh HOST`` wrappers, path prefixes
and long options removed or normalised (:func:`normalise`), so that each parser's pattern names one spelling. Used by
the readers (:mod:`nicadvisor.parsers.linux.ethtool`) and by the registry that matches commands to them.
"""
from __future__ import annotations

import re

from nicadvisor import commands
from nicadvisor.parsers.framing import is_command_echo


# Commands typed inside the interactive vsish shell (``get``/``cat``/``ls`` of a VSI node), as the NSX-T performance
# guide shows them (nsx-t-performance-on-intel.txt §1.4.3 CLI 2 ``get /net/...``, §1.4.5 CLI 3 ``cat /net/...``):
# the same read as ``vsish -e get <node>``.
_VSISH_SHELL_RE = re.compile(r"^(?:get|cat)\s+(/(?:net|vmkModules|hardware|system)/\S*)\s*$")
_ESXCLI_POWERCLI_RE = re.compile(r"^\$esxcli\.([\w.]+)\.Invoke\(\)")


_ASSIGNMENT_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=\S*")
#: sudo options that take a value (``sudo -u root ethtool -k eth0``).
_SUDO_VALUE_OPTS = {"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T", "--user", "--group"}


#: ssh(1) options that take a value (``ssh -p 2222 -i key root@esx01 'esxcfg-nics -l'``).
_SSH_VALUE_OPTS = frozenset("BbcDEeFIiJLlmOopQRSWw")


def _remote(text: str) -> str:
    """The command of an ``ssh`` line after its host: a quoted remote command unquoted and unwrapped, with what
    follows the closing quote kept (``'ethtool -i eth0' | grep driver`` → ``ethtool -i eth0 | grep driver``)."""
    text = text.strip()
    if text[:1] in ("'", '"'):
        end = text.find(text[0], 1)
        if end > 0:
            return f"{_strip_wrappers(text[1:end].strip())}{text[end + 1:]}".strip()
    return _strip_wrappers(text)


def _strip_wrappers(text: str) -> str:
    """``text`` without the words that only say where or as whom the command ran: ``sudo [options]``,
    ``env [-i] [VAR=value ...]``, ``VAR=value``, ``ip netns exec NAME`` and ``ssh [options] [user@]HOST`` with the
    remote command's quotes (``LC_ALL=C sudo -E /sbin/ethtool -k eth0`` → ``/sbin/ethtool -k eth0``,
    ``ssh -p 22 root@10.0.0.5 "ip -d link show fabric0"`` → ``ip -d link show fabric0``; the remote command is
    unwrapped again: ``ssh host 'sudo ethtool -i eth0'``). ``ssh`` alone (an interactive login) stays as written."""
    words = text.split()
    i = 0
    while i < len(words):
        word = words[i]
        if word in ("sudo", "env"):
            i += 1
            while i < len(words) and words[i].startswith("-"):
                i += 2 if words[i] in _SUDO_VALUE_OPTS and word == "sudo" else 1
            continue
        if word == "ip" and words[i + 1:i + 3] == ["netns", "exec"] and i + 3 < len(words):
            i += 4
            continue
        if word.rsplit("/", 1)[-1] == "ssh":
            j = i + 1
            while j < len(words) and words[j].startswith("-") and len(words[j]) > 1:
                opt = words[j]
                j += 2 if len(opt) == 2 and opt[1] in _SSH_VALUE_OPTS else 1
            if j + 1 >= len(words):
                break  # no remote command: an interactive login, not a wrapper
            return _remote(" ".join(words[j + 1:]))
        if _ASSIGNMENT_RE.fullmatch(word):
            i += 1
            continue
        break
    return " ".join(words[i:]) if i else text


def _drop_comment(text: str) -> str:
    """``text`` without a shell comment: a ``#`` after white space, outside quotes, ends the command
    (``esxcfg-nics -l   # on esx01`` → ``esxcfg-nics -l``); sh(1) reads it so."""
    quote = ""
    for i, ch in enumerate(text):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and i > 0 and text[i - 1] in " \t":
            return text[:i].rstrip()
    return text


def normalise(raw: str) -> str:
    """One command, without prompt, shell comment (an author's ``# note``), ``sudo``/``env``/``VAR=value``/``ssh
    HOST``/``ip netns exec NS`` prefixes, path prefix or wrapper:
    ``localcli`` → ``esxcli``, ``/> get /net/pNics/vmnic0/rxqueues/info`` (vsish shell) →
    ``vsish -e get /net/pNics/vmnic0/rxqueues/info``, ``/usr/lib/vmware/vsan/bin/vsish`` → ``vsish``,
    ``$esxcli.network.nic.list.Invoke()`` → ``esxcli network nic list``, ``vmkvsitools lspci`` → ``lspci``,
    ``/sbin/esxcfg-nics`` → ``esxcfg-nics``."""
    text = raw.strip()
    text = (is_command_echo(text) or text).strip()  # without its prompt (framing's one prompt test)
    text = _strip_wrappers(_drop_comment(text))
    m = _ESXCLI_POWERCLI_RE.match(text)
    if m:
        return "esxcli " + " ".join(m.group(1).split("."))
    m = _VSISH_SHELL_RE.match(text)
    if m:
        return f"vsish -e get {m.group(1)}"
    words = text.split(None, 1)
    if not words:
        return ""
    head = words[0].rsplit("/", 1)[-1]
    rest = words[1] if len(words) > 1 else ""
    if head == "localcli":
        rest = re.sub(r"^--plugin-dir\s+\S+\s*", "", rest)
        head = "esxcli"
    if head == "vmkvsitools":
        head, _, rest = rest.partition(" ")
    return f"{head} {_short_options(head, rest)}".strip()


def _dashes_restored(tool: str, words: list[str]) -> list[str]:
    """``words`` with the dash a PDF copy dropped put back before the leading one-letter options of ``tool``
    (``ethtool i eth2`` → ``ethtool -i eth2``, ``lspci v v s 09:00.0`` → ``lspci -v -v -s 09:00.0``): only when no
    word has a dash at all and another word follows the letters."""
    if any(w.startswith("-") for w in words):
        return words
    letters = {s[1:] for s in commands.OPTION_SPELLINGS.get(tool, {}).values() if len(s) == 2} \
        | set(commands.FLAG_ORDER.get(tool, "")) | set(commands.VALUE_OPTION_LETTERS.get(tool, ""))
    n = 0
    while n < len(words) - 1 and words[n] in letters:
        n += 1
    return [f"-{w}" for w in words[:n]] + words[n:]


def _short_options(tool: str, rest: str) -> str:
    """``rest`` (the words after ``tool``, up to a pipe) with every option in its short spelling and the value-less
    short flags of ``tool`` as one word in a fixed order (:data:`nicadvisor.commands.OPTION_SPELLINGS`,
    :data:`~nicadvisor.commands.FLAG_ORDER`): ``--list`` → ``-l``, ``--nic-name=vmnic0`` → ``-n vmnic0``,
    ``lspci -v -v -s 09:00.0`` → ``lspci -vv -s 09:00.0``, and a PDF copy's lost dashes restored
    (:func:`_dashes_restored`). The one place a command's spellings meet, so that each parser's pattern names one
    spelling."""
    spellings = commands.OPTION_SPELLINGS.get(tool)
    order = commands.FLAG_ORDER.get(tool)
    if not spellings and not order:
        return rest
    head, bar, tail = rest.partition("|")
    words: list[str] = []
    flags = ""
    for word in _dashes_restored(tool, head.split()):
        long_opt, eq, value = word.partition("=")
        if spellings and long_opt in spellings:
            word = spellings[long_opt]
            if eq and value:
                words.extend([word, value])
                continue
        if order and len(word) > 1 and word[0] == "-" and word[1] != "-" and all(c in order for c in word[1:]):
            flags += word[1:]
            continue
        words.append(word)
    if flags:
        words.insert(0, "-" + "".join(sorted(flags, key=order.index)))
    if words == head.split():
        return rest  # as written (its spacing kept)
    out = " ".join(words)
    return f"{out} {bar}{tail}".strip() if bar else out
