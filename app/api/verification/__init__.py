"""Verification of a dealt match and support's analysis of one."""
