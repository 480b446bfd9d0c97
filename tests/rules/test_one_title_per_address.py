"""One address carries one title everywhere (issue 24 §3): every source the rules, the driver catalogue and the
compatibility seed cite is turned into citations (model/references.py); each address has one document title, and
the words a source writes around its address (a section, a row) are the citation's section, not a new title."""
from __future__ import annotations

import collections
import csv

import yaml

from nicadvisor.model.references import cite
from nicadvisor.rules_engine import load_rules
from nicadvisor.vcg.driver_catalogue import shipped_catalogue_path
from nicadvisor.vcg.seed import shipped_csv_path


def _sources() -> list[str]:
    refs = [r for rule in load_rules(user=False) for r in rule.references]
    catalogue = yaml.safe_load(shipped_catalogue_path().read_text())
    for entry in catalogue["drivers"]:
        refs += ["vendor: " + " ".join(f["source"].split()) for f in entry["facts"]]
    with open(shipped_csv_path(), newline="") as fh:
        refs += ["vendor: " + row["source_url_or_repo_path"] for row in csv.DictReader(fh)]
    return refs


def test_every_address_has_one_title():
    titles: dict[str, set[str]] = collections.defaultdict(set)
    for source in _sources():
        for c in cite(source):
            if c.reference.url:
                titles[c.reference.url].add(c.reference.title)
    assert len(titles) > 30
    assert {url: t for url, t in titles.items() if len(t) > 1} == {}


def test_the_words_around_an_address_are_the_section():
    (c,) = cite('vendor: VMware NSX-T Data Center 3.1 Administration Guide, "Configure Default Queue Receive Side '
                'Scaling" (https://docs.vmware.com/en/VMware-NSX-T-Data-Center/3.1/administration/'
                'GUID-C2EAF9A6-1C77-4B61-88A0-2A786030955B.html)')
    assert c.reference.url.endswith("GUID-C2EAF9A6-1C77-4B61-88A0-2A786030955B.html")
    assert c.section == ('VMware NSX-T Data Center 3.1 Administration Guide, "Configure Default Queue Receive Side '
                         'Scaling"')
