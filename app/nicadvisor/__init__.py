"""NIC Advisor: pNIC readiness audit for NSX Geneve overlay."""
__version__ = "0.1.0"
