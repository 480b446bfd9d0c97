#!/usr/bin/env bash
# Functions for setup-debian.sh: the Debian mirror this machine already uses, and the extra apt entries NIC Advisor
# needs from it (the non-free component for netperf; bookworm-backports for a Go new enough to build vcsim). No
# mirror host is written in this repository: it is read from the machine's own apt sources.
#   debian_mirror [APT_DIR]        prints the first non-security Debian URI of APT_DIR (default /etc/apt), deb822
#                                   (sources.list.d/*.sources) or one-line (sources.list, sources.list.d/*.list)
#   extra_sources MIRROR CODENAME BACKPORTS
#                                   prints the deb822 file: non-free of CODENAME, plus CODENAME-backports main when
#                                   BACKPORTS is 1

debian_mirror() {
  local dir=${1:-/etc/apt} f
  for f in "$dir"/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    case $(basename "$f") in nicadvisor*) continue ;; esac
    awk '
      /^[[:space:]]*$/ { if (uri != "" && !sec) { print uri; found = 1; exit } uri = ""; sec = 0; next }
      /^URIs:/ { uri = $2 }
      /^Suites:/ { for (i = 2; i <= NF; i++) if ($i ~ /security/) sec = 1 }
      /^Enabled:[[:space:]]*no/ { uri = "" }
      END { if (!found && uri != "" && !sec) print uri }
    ' "$f" | head -n 1 | grep . && return 0
  done
  for f in "$dir"/sources.list "$dir"/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    case $(basename "$f") in nicadvisor*) continue ;; esac
    awk '$1 == "deb" {
           n = 2; if ($2 ~ /^\[/) { while (n <= NF && $n !~ /\]$/) n++; n++ }
           if ($(n + 1) !~ /security/) { print $n; exit } }' "$f" | head -n 1 | grep . && return 0
  done
  return 1
}

extra_sources() {
  local mirror=$1 codename=$2 backports=$3
  printf 'Types: deb\nURIs: %s\nSuites: %s\nComponents: non-free\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
    "$mirror" "$codename"
  if [ "$backports" = 1 ]; then
    printf '\nTypes: deb\nURIs: %s\nSuites: %s-backports\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
      "$mirror" "$codename"
  fi
}
