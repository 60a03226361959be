"""The command line and the prompt_toolkit terminal client."""
