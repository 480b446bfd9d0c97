"""Readers of API payloads: vSphere managed-object property sets, esxcli answers over the vSphere API (SOAP XML),
NSX Manager API responses, govc/Ansible dumps, and the recordings a live audit saves (``--save-captures``)."""
