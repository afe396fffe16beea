"""Published economic indices the fiscal rules need, kept by year and updated by an operator command."""
