"""The command line: a thin layer over the library. One module per subcommand."""
