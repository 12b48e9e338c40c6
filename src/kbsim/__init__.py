"""kbsim: rules-driven simulation and reference toolkit for shared-tableau card games."""

__version__ = "0.1.0"
