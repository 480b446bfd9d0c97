"""Reusable widgets and item models of the wizard."""
