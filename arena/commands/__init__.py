"""Subcommands of the ``arena`` CLI, one module per group of commands."""
