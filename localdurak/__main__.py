"""`python -m localdurak` is the same program as the `localdurak` command."""

from localdurak.cli.main import main

raise SystemExit(main())
