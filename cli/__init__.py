"""The ``nl2sql`` command line (``cli.main``) and its subcommands."""
