"""Parsers of Linux command outputs: ethtool, lspci -vv and the kernel log, sysfs and ``ip link``. One module per
command family."""
