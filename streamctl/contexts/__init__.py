"""`streamctl contexts`: list, show and switch the config's contexts, and test that each reaches its systems."""
