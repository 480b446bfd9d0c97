"""The collector script: a POSIX ``sh`` script, generated from the command catalogue, that runs on a host the same
read-only commands the SSH collector runs and records each output as a capture file.

``nic-advisor collect-script --kind esxi|linux`` writes it (:func:`collector_script`). On the host::

    sh nic-advisor-collect-esxi.sh [-o DIR] [-n NAME] [-t SECONDS]   # DIR/nic-advisor-NAME-DATE/NNN_<command>.txt
    sh nic-advisor-collect-esxi.sh --stdout > NAME.txt                 # one collection file
    ssh root@esxi01 sh -s -- --stdout < nic-advisor-collect-esxi.sh > esxi01.txt

and ``nic-advisor audit --capture`` reads the folder (also packed: ``tar czf NAME.tgz nic-advisor-NAME-DATE``) or the
file back whole (the capture format and collections: :mod:`nicadvisor.parsers.capture_file`).

What it runs is :func:`nicadvisor.commands.collected` of the platform, in the collectors' order: the discovery command
first (ESXi: ``esxcli network nic list``, its Name and Driver columns; Linux: ``ls /sys/class/net``, without ``lo``),
then the host's commands, then each pNIC's, then each driver module's (ESXi), with ``{attribute}`` expanded over the
catalogue's attribute files and, on Linux, a pNIC's PCI function found from its ``readlink`` as the collectors find
it (:func:`nicadvisor.collect.local_linux.pci_dir`: the device link, or ``/sys/bus/pci/devices/BDF`` behind a virtio
node). Safety, as the SSH allowlist (:mod:`nicadvisor.collect.ssh_commands`):

* every name that goes into a command (pNIC, driver module, PCI address) is checked first against the same
  patterns (:data:`~nicadvisor.collect.ssh_commands.ESXI_NIC_ERE`, ``MODULE_ERE``, ``LINUX_IF_ERE``,
  :data:`~nicadvisor.collect.local_linux.BDF_ERE`: one text, ``grep -E`` in the script and Python's ``re`` in the
  collectors) and a name holding a newline is refused; a name that fails is skipped and said on stderr;
* every argument is quoted; no ``eval``, no pipes built from host text; pathname expansion is off (``set -f``);
* a command that fails never stops the script: it is recorded with its exit status and stderr as a note
  (:func:`~nicadvisor.parsers.capture_file.exit_note`), one that runs past the time limit (``-t``, default 60 s)
  is stopped and recorded as timed out (:data:`~nicadvisor.parsers.capture_file.TIMEOUT_NOTE`).

It runs in the ESXi Shell (busybox ``ash``; no Python, no bash-isms; tested under Debian's ``busybox sh`` and
``dash``) and uses only the shell's built-ins and ``cat``, ``mkdir``, ``rm``, ``grep``, ``awk``, ``date``,
``hostname``, ``id``, ``sleep``, ``mktemp`` and ``od``. On Linux it says which commands need root (the catalogue's
``root``: run as another user they answer only partly) and runs every command either way. Nothing it runs changes
the host. Pure: :func:`collector_script` returns text.
"""
from __future__ import annotations

import re
import shlex

from nicadvisor import __version__, commands
from nicadvisor.collect.local_linux import BDF_ERE
from nicadvisor.collect.ssh_commands import ESXI_NIC_ERE, LINUX_IF_ERE, MODULE_ERE

KINDS = ("esxi", "linux")
#: The default time limit of one command (seconds): past it the command is stopped and recorded as timed out.
DEFAULT_LIMIT_S = 60
#: The shell variable holding the value of each placeholder in the generated script.
_VARS = {"nic": "nic", "module": "module", "pci": "pci_base", "seg": "seg", "bus": "bus", "slot": "slot",
         "func": "func"}
#: The variable a command's capture file is named after (``NNN_<command>_<value>.txt``).
_SUFFIX = {"nic": "nic", "module": "module", "pci": "nic", "seg": "fn", "bus": "fn", "slot": "fn", "func": "fn"}
_SAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")


def _stem(text: str) -> str:
    """The file-name part of a command (as ``save_captures`` names files): placeholders left out."""
    return (_SAFE_NAME.sub("_", re.sub(r"\{\w+\}", "", text)).strip("_.") or "x")[:60]


def _word(word: str) -> str:
    """One command word as shell text: literal parts quoted, each placeholder ``{x}`` as ``"$x"``. Raises ValueError
    when a literal part around a placeholder would need quoting (the recorded command line would then not be the
    word as the collectors record it)."""
    parts = re.split(r"(\{\w+\})", word)
    if len(parts) == 1:
        return shlex.quote(word)
    out = []
    for part in parts:
        if part.startswith("{"):
            out.append(f'"${_VARS[part[1:-1]]}"')
        elif part:
            if shlex.quote(part) != part:
                raise ValueError(f"a catalogue word with a placeholder holds characters to quote: {word!r}")
            out.append(part)
    return "".join(out)


def _line(words: list[str]) -> str:
    """The recorded command line (``shlex.join`` of the filled words) as shell text."""
    text = " ".join(w if re.search(r"\{\w+\}", w) else shlex.quote(w) for w in words)
    pieces = re.split(r"(\{\w+\})", text)
    return "".join(f'"${_VARS[p[1:-1]]}"' if p.startswith("{") else (shlex.quote(p) if p else "") for p in pieces)


def _run(words: list[str], indent: str = "") -> str:
    """The script line that runs ``words`` (placeholders filled from shell variables) and records it."""
    names = dict.fromkeys(_SUFFIX[n] for n in re.findall(r"\{(\w+)\}", " ".join(words)))
    suffix = " ".join(f'"${n}"' for n in names)
    stem = shlex.quote(_stem(" ".join(words)))
    args = " ".join(_word(w) for w in words)
    return f"{indent}run {stem} {suffix or shlex.quote('')} {_line(words)} {args}"


def _expand(c: commands.Command, base: str | None = None) -> list[list[str]]:
    """The argument lists of one catalogue entry: one per attribute file for an ``{attribute}`` command; ``base``
    replaces ``/sys/class/net/{nic}/device`` (a PCI function read through ``{pci}``)."""
    words = list(c.words)
    if base is not None:
        words = [w.replace("/sys/class/net/{nic}/device", base) for w in words]
    if not c.attributes:
        return [words]
    return [[w.replace("{attribute}", a) for w in words] for a in c.attributes]


_PRELUDE = r'''set -u
set -f
# what it writes is its user's alone (files 0600, folders 0700), and no redirection replaces a file that exists
# (noclobber: a name another user placed, a link to a file of root's, makes the write fail instead)
umask 077
set -C
LC_ALL=C
export LC_ALL
__PATH__nl='
'
out_dir=.
to_stdout=0
limit=__LIMIT__
name=
usage() {
  printf 'usage: sh %s [-o DIR | --stdout] [-n NAME] [-t SECONDS]\n' "$0" >&2
  printf '%s\n' "  -o DIR      write DIR/nic-advisor-NAME-DATE/ (a new folder; one capture file per command; default DIR: .)" \
    "  --stdout    write one collection file to standard output instead" \
    "  -n NAME     the host's name in the captures (default: hostname)" \
    "  -t SECONDS  stop a command that runs longer (default: __LIMIT__)" \
    "then: nic-advisor audit --capture DIR-or-FILE" >&2
}
while [ $# -gt 0 ]; do
  case $1 in
    -o) [ $# -ge 2 ] || { usage; exit 2; }; out_dir=$2; shift 2 ;;
    --stdout) to_stdout=1; shift ;;
    -n) [ $# -ge 2 ] || { usage; exit 2; }; name=$2; shift 2 ;;
    -t) [ $# -ge 2 ] || { usage; exit 2; }
        case $2 in ''|*[!0-9]*) usage; exit 2 ;; esac
        limit=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) usage; exit 2 ;;
  esac
done

# valid ERE TEXT: TEXT is one line that the extended regular expression ERE matches whole
valid() {
  case $2 in ''|*"$nl"*) return 1 ;; esac
  printf '%s\n' "$2" | grep -Eq "^($1)\$"
}
# say TEXT...: one line on stderr; printf, not echo (dash's echo reads \c, \n, \033 in a name)
say() { printf 'nic-advisor collect: %s\n' "$*" >&2; }
# shown TEXT: TEXT with every byte that is not printable ASCII (ESC, OSC, a newline, UTF-8) and the backslash
# written as \xNN, so that a name read from the host never reaches the admin's terminal as raw bytes
shown() {
  printf '%s' "$1" | od -An -v -tx1 | awk '
    BEGIN { for (i = 32; i < 127; i++) c[sprintf("%02x", i)] = sprintf("%c", i); delete c["5c"] }
    { for (i = 1; i <= NF; i++) printf "%s", (($i in c) ? c[$i] : "\\x" $i) }'
}

host_re='[A-Za-z0-9][A-Za-z0-9._-]{0,252}'
[ -n "$name" ] || name=$(hostname 2>/dev/null) || name=
if ! valid "$host_re" "$name"; then
  say "host name '$(shown "$name")' is not a plain host name; using 'unknown-host' (give one with -n NAME)"
  name=unknown-host
fi
user=$(id -un 2>/dev/null) || user=
uid=$(id -u 2>/dev/null) || uid=
stamp=$(date -u +%Y%m%d-%H%M%S 2>/dev/null) || stamp=0
when=$(date -u '+%Y-%m-%d %H:%M:%S UTC' 2>/dev/null) || when=
source="nic-advisor collect-script __KIND__ (__VERSION__) on $name as ${user:-uid $uid}, $when"

if [ "$to_stdout" = 1 ]; then
  work=$(mktemp -d 2>/dev/null) || { work=/tmp/nic-advisor-collect.$$; (umask 077; mkdir "$work") || exit 1; }
  folder=
  rnd=$(od -An -N16 -tx1 /dev/urandom 2>/dev/null | awk '{ for (i = 1; i <= NF; i++) s = s $i } END { print s }')
  boundary="nicadvisor-$stamp-$$-${rnd:-x}"
  printf '# nic-advisor collection: boundary=%s\n' "$boundary"
else
  # a new folder, never one that exists: its name is predictable (host and second), and in a shared folder (/tmp)
  # another user may have made it first, with links or forged captures in it; then a random name (mktemp -d)
  folder=$out_dir/nic-advisor-$name-$stamp
  [ -d "$out_dir" ] || mkdir -p "$out_dir" 2>/dev/null || { say "cannot create $(shown "$out_dir")"; exit 1; }
  if ! mkdir "$folder" 2>/dev/null; then
    folder=$(mktemp -d "$out_dir/nic-advisor-$name-$stamp-XXXXXX" 2>/dev/null) || folder=
    [ -n "$folder" ] || { say "cannot create a new folder in $(shown "$out_dir")"; exit 1; }
  fi
  work=$folder
fi
tmp_out=$work/.out
tmp_err=$work/.err
tmp_dog=$work/.timeout
cleanup() {
  rm -f "$tmp_out" "$tmp_err" "$tmp_dog" "$tmp_dog.pid" "$tmp_err.capture"
  if [ "$to_stdout" = 1 ]; then rmdir "$work" 2>/dev/null; fi
}
trap cleanup EXIT
# INT and HUP (a closed terminal) end it cleanly. TERM is left at its default on purpose: a trap on it would be
# inherited by each command's time-limit watcher for an instant after it starts, and a TERM sent in that instant
# would be lost (busybox ash), leaving this script waiting for the watcher
trap 'cleanup; exit 130' INT HUP

# one_line FILE: the file's non-blank lines joined by " / ", cut at 300 characters. The prefix this shell puts before
# its own errors (a command not found or not executable: "SCRIPT: line 12: " in busybox, "SCRIPT: 12: " in dash) is
# left out: what is recorded does not depend on where the script was run from ("vim-cmd: not found", exit status 127:
# absent, as the SSH collector reads its login shell's words)
self=$0
one_line() {
  awk -v self="$self" '
       { sub(/^[ \t]+/, ""); sub(/[ \t]+$/, "") }
       self != "" && index($0, self ": ") == 1 { $0 = substr($0, length(self) + 3); sub(/^(line )?[0-9]+: /, "") }
       length($0) { s = (s == "" ? $0 : s " / " $0) }
       END { if (length(s) > 300) s = substr(s, 1, 300) "..."; printf "%s", s }' "$1"
}

# run_timed ARG...: run ARG... with no input, its output in $tmp_out and $tmp_err, its exit status in $rc; stopped
# after $limit seconds ($tmp_dog then exists, made before the stop). Its scratch files are removed first and made anew (noclobber), in the
# script's own new folder: the pid file it reads is the one its watcher has just written there, no other
run_timed() {
  rm -f "$tmp_out" "$tmp_err" "$tmp_dog" "$tmp_dog.pid"
  "$@" >"$tmp_out" 2>"$tmp_err" </dev/null &
  pid=$!
  # the time limit: a watcher that stops the command when its sleep ends; stopped itself (and its sleep) when the
  # command ends first. Its output goes nowhere, so nothing it leaves holds this script's output open.
  (
    sleep "$limit" &
    echo "$!" >"$tmp_dog.pid"
    wait "$!"
    # the mark first, then the stop: the script, woken by the command's end, must find it (marked after the kill,
    # a loaded host let the script read "exit status 143" first and then stop this watcher before it marked)
    : >"$tmp_dog"
    kill "$pid" 2>/dev/null || rm -f "$tmp_dog"
  ) </dev/null >/dev/null 2>&1 &
  dog=$!
  wait "$pid"
  rc=$?
  i=0  # let the watcher name its sleep first (a moment at most), so that both are stopped
  while [ ! -s "$tmp_dog.pid" ] && [ "$i" -lt 5000 ]; do i=$((i + 1)); done
  kill "$dog" 2>/dev/null
  wait "$dog" 2>/dev/null
  alarm=$(cat "$tmp_dog.pid" 2>/dev/null) || alarm=
  case $alarm in ''|*[!0-9]*) ;; *) kill "$alarm" 2>/dev/null ;; esac
}

n=0
# run STEM SUFFIX LINE ARG...: run ARG... (every word checked or from the catalogue), at most $limit seconds;
# record its output as a capture titled LINE (file NNN_STEM_SUFFIX.txt, or a part of the collection on stdout)
run() {
  stem=$1 suffix=$2 line=$3
  shift 3
  n=$((n + 1))
  rm -f "$tmp_err.capture"
  run_timed "$@"
  {
    printf '# source: %s\n' "$source"
    printf '# command: %s\n' "$line"
    printf '# host: %s\n' "$name"
    if [ -f "$tmp_dog" ]; then
      printf '# note: timed out after %s s\n' "$limit"
    elif [ "$rc" -ne 0 ]; then
      err=$(one_line "$tmp_err")
      printf '# note: exit status %s%s\n' "$rc" "${err:+: $err}"
    elif [ -s "$tmp_err" ]; then
      printf '# note: stderr: %s\n' "$(one_line "$tmp_err")"
    fi
    cat "$tmp_out"
  } >"$tmp_err.capture"
  if [ "$to_stdout" = 1 ]; then
    printf -- '--%s\n' "$boundary"
    cat "$tmp_err.capture"
    printf '\n'
    rm -f "$tmp_err.capture"
  else
    f=$(printf '%s/%03d_%s' "$folder" "$n" "$stem")
    [ -n "$suffix" ] && f=${f}_$suffix
    mv "$tmp_err.capture" "$f.txt"
  fi
}
'''


#: awk: the values of column ``col`` (located by its header word) of the ``esxcli network nic list`` table, each
#: once, sorted as the SSH collector sorts them (``natural=1``: a name's letters, then its number; else as text).
_TABLE_AWK = """
function before(a, b,   pa, pb) {
  if (!natural) return a < b
  pa = a; sub(/[0-9]+$/, "", pa); pb = b; sub(/[0-9]+$/, "", pb)
  if (pa != pb) return pa < pb
  return substr(a, length(pa) + 1) + 0 < substr(b, length(pb) + 1) + 0
}
/^Name[ \\t]/ && index($0, "Driver") { d = index($0, col); next }
d && /^-/ { next }
d && NF { split(substr($0, d), w, " "); if (w[1] != "" && !seen[w[1]]++) k[++n] = w[1] }
END {
  for (i = 2; i <= n; i++) { v = k[i]; for (j = i - 1; j >= 1 && before(v, k[j]); j--) k[j + 1] = k[j]; k[j + 1] = v }
  for (i = 1; i <= n; i++) print k[i]
}
"""


def _esxi_body() -> list[str]:
    collected = commands.collected("esxi")
    discovery = commands.discovery("esxi")
    host = [c for c in collected if c.scope == "host" and c is not discovery]
    pnic = [c for c in collected if c.scope == "pnic"]
    module = [c for c in collected if c.scope == "module"]
    function = [c for c in collected if c.scope == "function"]
    lines = [
        f"table={shlex.quote(_TABLE_AWK)}",
        f"nic_re={shlex.quote(ESXI_NIC_ERE)}",
        f"module_re={shlex.quote(MODULE_ERE)}",
        "# the discovery: every pNIC and driver module the per-pNIC and per-module commands are run for",
        _run(list(discovery.words)),
        "listed=0",
        "[ \"$rc\" -eq 0 ] && listed=1",
        "# its table: the Name column, and the Driver column located by its header (as the SSH collector reads it);",
        "# the names in the SSH collector's order (pNICs: vmnic2 before vmnic10; modules: alphabetical)",
        "nics=$(awk \"$table\" col=Name natural=1 \"$tmp_out\")",
        "modules=$(awk \"$table\" col=Driver natural=0 \"$tmp_out\")",
        "functions=$(awk \"$table\" col='PCI Device' natural=0 \"$tmp_out\")",
        "[ \"$listed\" = 1 ] || say \"esxcli network nic list failed: is this an ESXi host? (per-pNIC commands not run)\"",
        "# the host's commands",
        *(_run(words) for c in host for words in _expand(c)),
        "# each pNIC's commands",
        "for nic in $nics; do",
        "  if ! valid \"$nic_re\" \"$nic\"; then say \"skipped a pNIC name that is not safe to pass on: $(shown \"$nic\")\"; "
        "continue; fi",
        *(_run(words, "  ") for c in pnic for words in _expand(c)),
        "done",
        "# each driver module's commands",
        "for module in $modules; do",
        "  if ! valid \"$module_re\" \"$module\"; then say \"skipped a driver name that is not safe to pass on: "
        "$(shown \"$module\")\"; continue; fi",
        *(_run(words, "  ") for c in module for words in _expand(c)),
        "done",
        "# each pNIC's PCI function, its address in decimal as vsish names the nodes (0000:5e:00.1: 0 94 0 1)",
        f"pci_re={shlex.quote(BDF_ERE)}",
        "for addr in $functions; do",
        "  if ! valid \"$pci_re\" \"$addr\"; then say \"skipped a PCI address that is not safe to pass on: "
        "$(shown \"$addr\")\"; "
        "continue; fi",
        "  rest=${addr#*:}; seg=$((0x${addr%%:*})); bus=$((0x${rest%%:*})); rest=${rest#*:}",
        "  slot=$((0x${rest%%.*})); func=${rest#*.}; fn=$seg-$bus-$slot-$func",
        *(_run(words, "  ") for c in function for words in _expand(c)),
        "done",
    ]
    return lines


def _linux_body() -> list[str]:
    collected = commands.collected("linux")
    discovery = commands.discovery("linux")
    host = [c for c in collected if c.scope == "host" and c is not discovery]
    readlink = next(c for c in collected if c.words[0] == "readlink")
    net = [c for c in collected if c.scope == "pnic" and c.attributes and "/device/" not in c.text]
    pci = [c for c in collected if c.scope == "pnic" and c.attributes and "/device/" in c.text]
    rest = [c for c in collected if c.scope == "pnic" and c not in (readlink, *net, *pci)]
    root = [c for c in collected if c.root]
    notice = ("not root: these commands answer only partly without root (the others need no privilege): "
              + ", ".join(c.text.replace("{nic}", "IF") for c in root))
    return [
        f"if_re={shlex.quote(LINUX_IF_ERE)}",
        f"bdf_re={shlex.quote(BDF_ERE)}",
        "if [ \"$uid\" != 0 ]; then",
        f"  say {shlex.quote(notice)}",
        "fi",
        "# the discovery: every interface of /sys/class/net but the loopback",
        _run(list(discovery.words)),
        "ifaces=$(awk '{ for (i = 1; i <= NF; i++) if ($i != \"lo\") print $i }' \"$tmp_out\")",
        "# the host's commands",
        *(_run(words) for c in host for words in _expand(c)),
        "for nic in $ifaces; do",
        "  if ! valid \"$if_re\" \"$nic\"; then say \"skipped an interface name that is not safe to pass on: $(shown \"$nic\")\"; "
        "continue; fi",
        _run(list(readlink.words), "  "),
        "  link=",
        "  [ \"$rc\" -eq 0 ] && link=$(cat \"$tmp_out\")",
        *(_run(words, "  ") for c in net for words in _expand(c)),
        "  # its PCI function (as the collectors find it): the device link when the function is right above net/IF,",
        "  # the PCI function's own folder behind a virtio node; none for a virtual device",
        "  pci= pci_base=",
        "  case $link in",
        "    */net/\"$nic\")",
        "      above=${link%/net/*}",
        "      last=${above##*/}",
        "      case $last in",
        "        virtio[0-9]*) parent=${above%/*}; pci=${parent##*/}; via=bus ;;",
        "        *) pci=$last; via=device ;;",
        "      esac ;;",
        "  esac",
        "  if [ -n \"$pci\" ] && valid \"$bdf_re\" \"$pci\"; then",
        "    if [ \"$via\" = device ]; then",
        *(_run(words, "      ") for c in pci for words in _expand(c)),
        "    else",
        "      pci_base=/sys/bus/pci/devices/$pci",
        *(_run(words, "      ") for c in pci for words in _expand(c, "{pci}")),
        "    fi",
        "  fi",
        *(_run(words, "  ") for c in rest for words in _expand(c)),
        "done",
    ]


def _header(kind: str) -> list[str]:
    where = ("# Run it in the ESXi Shell (busybox sh; nothing else needed), as root." if kind == "esxi" else
             "# Run it with sh as root for full answers; as another user it runs all the same and says what needs root.")
    collected = commands.collected(kind)
    scopes = {"host": "per host", "pnic": "per pNIC", "module": "per driver module",
              "function": "per pNIC PCI function"}
    out = [
        "#!/bin/sh",
        f"# NIC Advisor collector script for {'ESXi' if kind == 'esxi' else 'Linux'} hosts, generated by nic-advisor "
        f"{__version__} from its command catalogue.",
        where,
        "# It runs only the read-only commands listed below (those the SSH collector runs), records each",
        "# output framed with the command that made it (capture files: # source:, # command:, # host:, # note:) and",
        "# changes nothing on the host. A command that fails is recorded with its exit status and error, and the",
        "# script goes on.",
        "#",
        f"#   sh nic-advisor-collect-{kind}.sh [-o DIR] [-n NAME] [-t SECONDS]   DIR/nic-advisor-NAME-DATE/ (DIR: .)",
        f"#   sh nic-advisor-collect-{kind}.sh --stdout > NAME.txt                 one collection file",
        f"#   ssh USER@HOST sh -s -- --stdout < nic-advisor-collect-{kind}.sh > HOST.txt",
        "# then on your desk: nic-advisor audit --capture DIR-or-FILE ...",
        "#",
        "# Commands, in the order they run (names come from the first command's output, each checked before use):",
    ]
    for c in sorted(collected, key=lambda c: list(scopes).index(c.scope)):  # the discovery, host, pNIC, module
        what = scopes[c.scope] + (f", one per file: {' '.join(c.attributes)}" if c.attributes else "")
        root = "; needs root for a full answer" if c.root else ""
        out.append(f"#   {c.text}    ({what}{root})")
    return out


def collector_script(kind: str) -> str:
    """The collector script for ``kind`` (``esxi`` or ``linux``) as text (see the module docstring).
    Raises ValueError for another kind."""
    if kind not in KINDS:
        raise ValueError(f"--kind must be one of {', '.join(KINDS)}, not {kind!r}")
    # a Linux user's PATH often lacks the sbin folders of ethtool and ip; the ESXi Shell's root has every tool
    path = ('PATH="${PATH:-/bin}:/usr/sbin:/sbin"\nexport PATH\n' if kind == "linux" else "")
    prelude = (_PRELUDE.replace("__LIMIT__", str(DEFAULT_LIMIT_S)).replace("__KIND__", kind)
               .replace("__VERSION__", f"nic-advisor {__version__}").replace("__PATH__", path))
    body = _esxi_body() if kind == "esxi" else _linux_body()
    tail = ['if [ -n "$folder" ]; then',
            '  say "$n outputs written to $(shown "$folder"); audit them with: nic-advisor audit --capture $(shown "$folder")"',
            "fi",
            "exit 0"]
    return "\n".join([*_header(kind), prelude, *body, *tail]) + "\n"
