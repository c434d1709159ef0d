"""Nine Men's Morris: the rules engine and the hub game plugin ``nmmorris``."""
