"""Provisioning simulation: which NodePools (and instance types) can host which workloads."""
