raise SystemExit("rho: the Python notebook runner is not in this build yet")
