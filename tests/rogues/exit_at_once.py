"""Exits at once without saying hello."""

import sys

sys.exit(1)
